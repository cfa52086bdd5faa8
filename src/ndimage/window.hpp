// Per-window arithmetic shared by the CPU backend (src/ndimage/*.cpp) and the CUDA kernels
// (kernels/ndimage/*.cu). Every function reads its samples through an accessor `at(j)` (the j-th
// sample of the window, already boundary-extended), so the same code runs on a host line buffer, a
// shared-memory tile or global memory, and both backends add in the same order as scipy.
#pragma once

#include <cstdint>

#include "src/core/hd.hpp"
#include "src/ndimage/boundary.hpp"

namespace cuskimage::ndimage::detail {

enum class Op : std::uint8_t { correlate, uniform, minimum, maximum };

/// acc + a * b rounded twice, as scipy's C code (no FMA) computes it. nvcc would otherwise fuse the
/// two into one FMA, whose single rounding can move an integer-valued sum across an integer and change
/// a truncated integer output.
CUSK_HD double add_product(double acc, double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(acc, __dmul_rn(a, b));
#else
  return acc + a * b;
#endif
}

/// scipy's correlate1d shortcut for odd (anti)symmetric weights: +1 symmetric, -1 antisymmetric,
/// 0 neither (decided on the host with scipy's DBL_EPSILON test).
int weight_symmetry(const double* w, std::int64_t k);

/// One output of a 1-D correlation over window samples at(0..k-1), summed exactly as scipy's
/// NI_Correlate1D does (the order matters for integer outputs that land near an integer).
template <class At>
CUSK_HD double correlate_window(const At& at, const double* w, std::int64_t k, int symmetry) {
  const std::int64_t c = k / 2;  // window centre
  if (symmetry > 0) {
    double t = at(c) * w[c];
    for (std::int64_t j = -c; j < 0; ++j) t = add_product(t, at(c + j) + at(c - j), w[c + j]);
    return t;
  }
  if (symmetry < 0) {
    double t = at(c) * w[c];
    for (std::int64_t j = -c; j < 0; ++j) t = add_product(t, at(c + j) - at(c - j), w[c + j]);
    return t;
  }
  double t = at(k - 1) * w[k - 1];
  for (std::int64_t j = 0; j < k - 1; ++j) t = add_product(t, at(j), w[j]);
  return t;
}

template <Op O, class V>
CUSK_HD V rank_combine(V a, V b) {
  if constexpr (O == Op::minimum)
    return b < a ? b : a;
  else
    return b > a ? b : a;
}

/// One output of an N-d window over K taps: value(t) is tap t's (boundary-extended) sample as double,
/// weight(t) its weight. Correlation sums from 0 in tap order (scipy's NI_Correlate); the rank ops
/// start from the first tap (scipy's NI_MinOrMaxFilter). The result is cast with cast_out.
template <class Value, class Weight>
CUSK_HD double accumulate_taps(Op op, std::int64_t K, const Value& value, const Weight& weight) {
  if (op == Op::correlate) {
    double acc = 0.0;
    for (std::int64_t t = 0; t < K; ++t) acc = add_product(acc, value(t), weight(t));
    return acc;
  }
  if (K == 0) return 0.0;
  double acc = value(0);
  if (op == Op::minimum)
    for (std::int64_t t = 1; t < K; ++t) acc = rank_combine<Op::minimum>(acc, value(t));
  else
    for (std::int64_t t = 1; t < K; ++t) acc = rank_combine<Op::maximum>(acc, value(t));
  return acc;
}

/// One tap of an N-d window: its offset from the output position along each axis (D axes) and its
/// weight (unused by the rank filters).
template <int D>
struct Tap {
  std::int32_t off[D];
  double w;
};

}  // namespace cuskimage::ndimage::detail
