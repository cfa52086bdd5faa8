// CUDA sums of skimage.measure.blur_effect (src/measure/blur_effect.cpp): a two-slot reduction
// (kernels/core/slot_reduce.cuh) over the interior region of the sharp and blurred gradients.
#include <algorithm>
#include <cstdint>
#include <array>
#include <cmath>

#include "kernels/core/slot_reduce.cuh"
#include "src/core/indexer.hpp"
#include "src/measure/blur_effect.hpp"

namespace cuskimage::measure::detail {
namespace {

using namespace cuskimage::detail::slots;  // device_reduce, SlotOps, kSum / kMin / kMax

template <class T>
struct BlurTerm {
  const T* sharp;
  const T* blur;
  cuskimage::detail::Indexer region;  // interior region extents with the arrays' strides
  std::int64_t base;  // offset of the region's first element
  __device__ void operator()(std::int64_t i, double* acc) const {
    const std::int64_t off = base + region.offset(i);
    const double eps = 2.220446049250313e-16;
    const double s = fmax(eps, fabs(static_cast<double>(sharp[off])));
    const double b = fmax(eps, fabs(static_cast<double>(blur[off])));
    acc[0] += s;
    acc[1] += fmax(0.0, s - b);
  }
};

}  // namespace

template <class T>
std::array<double, 2> cuda_blur_sums(const Array& sharp, const Array& blur, const Stream& stream) {
  const int nd = sharp.ndim();
  BlurTerm<T> term{static_cast<const T*>(sharp.data()), static_cast<const T*>(blur.data()), {}, 0};
  std::int64_t n = 1;
  term.region.ndim = nd;
  for (int d = 0; d < nd; ++d) {
    const std::int64_t ext = std::max<std::int64_t>(0, sharp.shape(d) - 1 - 2);
    term.region.shape[d] = ext;
    term.region.stride[d] = sharp.strides()[d];
    term.base += 2 * sharp.strides()[d];
    n *= ext;
  }
  if (n == 0) return {0.0, 0.0};
  const auto r = device_reduce<2>(n, term, SlotOps<2>{{kSum, kSum}}, sharp.device(), stream);
  return {r[0], r[1]};
}

template std::array<double, 2> cuda_blur_sums<float>(const Array&, const Array&, const Stream&);
template std::array<double, 2> cuda_blur_sums<double>(const Array&, const Array&, const Stream&);

}  // namespace cuskimage::measure::detail
