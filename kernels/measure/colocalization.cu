// CUDA sums of the colocalisation coefficients (src/measure/colocalization.cpp): one K-slot
// reduction (kernels/core/slot_reduce.cuh) over the masked elements.
#include <algorithm>
#include <cstdint>
#include <array>
#include <cmath>

#include "kernels/core/slot_reduce.cuh"
#include "src/measure/colocalization.hpp"

namespace cuskimage::measure::detail {
namespace {

using namespace cuskimage::detail::slots;  // device_reduce, SlotOps, kSum / kMin / kMax

struct ColocTerm {
  const double* x;
  const double* y;
  const bool* mask;
  int kind;
  double a, b;
  __device__ void operator()(std::int64_t i, double* acc) const {
    if (mask && !mask[i]) return;
    const double u = x[i], v = y[i];
    if (kind == 0) {
      acc[0] += 1, acc[1] += u, acc[2] += v;
      acc[3] += (u != u || v != v) ? 1 : 0;
      acc[4] = fmin(acc[4], u), acc[5] = fmax(acc[5], u), acc[6] = fmin(acc[6], v), acc[7] = fmax(acc[7], v);
    } else if (kind == 1) {
      const double du = u - a, dv = v - b;
      acc[0] += du * du, acc[1] += dv * dv, acc[2] += du * dv;
    } else {
      acc[0] += 1, acc[1] += u, acc[2] += u * v, acc[3] += u * u, acc[4] += v * v;
      acc[5] = fmin(acc[5], u), acc[6] = fmin(acc[6], v);
    }
  }
};

}  // namespace

std::array<double, 8> cuda_coloc_sums(const Array& x, const Array& y, const Array& mask, int kind, double a, double b,
                                      const Stream& stream) {
  const ColocTerm term{static_cast<const double*>(x.data()), static_cast<const double*>(y.data()),
                       mask.valid() ? static_cast<const bool*>(mask.data()) : nullptr, kind, a, b};
  SlotOps<8> ops{{kSum, kSum, kSum, kSum, kSum, kSum, kSum, kSum}};
  if (kind == 0) ops = {{kSum, kSum, kSum, kSum, kMin, kMax, kMin, kMax}};
  if (kind == 2) ops = {{kSum, kSum, kSum, kSum, kSum, kMin, kMin, kSum}};
  return device_reduce<8>(x.size(), term, ops, x.device(), stream);
}

}  // namespace cuskimage::measure::detail
