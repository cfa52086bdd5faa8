// CUDA grid_points_in_poly (src/measure/pnpoly.cpp): one thread per grid point, the crossing test
// of src/measure/pnpoly.hpp.
#include <algorithm>
#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/measure/pnpoly.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n, std::int64_t cap = 4096) { return cuskimage::detail::grid_blocks(n, kThreads, cap); }

__global__ void grid_poly_kernel(std::uint8_t* __restrict__ out, std::int64_t rows, std::int64_t cols,
                                 const double* __restrict__ vx, const double* __restrict__ vy, std::int64_t nv) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t r = i / cols, c = i - r * cols;
    out[i] = point_in_polygon(vx, vy, nv, static_cast<double>(r), static_cast<double>(c));
  }
}

}  // namespace

void cuda_grid_points_in_poly(Array& out, const Array& vx, const Array& vy, const Stream& stream) {
  const std::int64_t rows = out.shape(0), cols = out.shape(1);
  if (rows * cols == 0) return;
  grid_poly_kernel<<<blocks_for(rows * cols, 8192), kThreads, 0, stream.handle()>>>(
      static_cast<std::uint8_t*>(out.data()), rows, cols, static_cast<const double*>(vx.data()),
      static_cast<const double*>(vy.data()), vx.size());
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::measure::detail
