// The once-rounded operations (src/core/rn.hpp) by their short names inside util's detail
// namespace, where dtype_math, functors and rng use them unqualified.
#pragma once

#include "src/core/rn.hpp"

namespace cuskimage::util::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::bits_of;
using cuskimage::detail::div_rn;
using cuskimage::detail::double_of;
using cuskimage::detail::floor_rn;
using cuskimage::detail::fma_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::Rn;
using cuskimage::detail::rint_rn;
using cuskimage::detail::sqrt_rn;
using cuskimage::detail::sub_rn;

}  // namespace cuskimage::util::detail
