// Host-side planning for kernels in which each block walks down a strip of rows with a register
// sliding window (kernels/filters/edges.cu: stencil2d_rows_kernel; kernels/ndimage/separable2d.cu:
// rows_kernel): how tall a strip is, and the per-device facts the choice needs.
//
// A strip of S output rows costs S + halo rows of work (the halo rows are read and filtered but
// produce no output), so tall strips waste less; but the grid must still fill the GPU. The model:
// blocks are spread evenly, an SM runs b = ceil(blocks / SMs) of them, `resident` at a time, and
// reaches full throughput with `sat` resident blocks (fewer: proportionally slower, the latency of
// the loads is no longer hidden). Time ~ b * (S + halo) / min(1, min(b, resident) / sat); the strip
// count with the least time wins (ties: fewer strips, less halo traffic).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "src/core/cuda_check.hpp"

namespace cuskimage::detail {

struct StripPlan {
  std::int64_t rows = 1;    // output rows per strip (a multiple of `unit`)
  std::int64_t strips = 1;  // grid.y
};

/// `ny` output rows per plane, in steps of `unit` rows; `col_blocks` x `planes` blocks per strip row.
inline StripPlan plan_strips(std::int64_t ny, std::int64_t unit, std::int64_t halo, std::int64_t col_blocks,
                             std::int64_t planes, int sms, int resident, int sat) {
  const std::int64_t units = std::max<std::int64_t>(1, (ny + unit - 1) / unit);
  sms = std::max(sms, 1);
  resident = std::max(resident, 1);
  sat = std::clamp(sat, 1, resident);
  const std::int64_t per_strip = std::max<std::int64_t>(1, col_blocks * planes);
  // Past ~16 full waves more strips only add halo; grid.y is at most 65535.
  const std::int64_t cap =
      std::min<std::int64_t>({units, 65535, 16 * std::int64_t(sms) * resident / per_strip + 1});
  StripPlan best;
  double best_cost = -1;
  for (std::int64_t n = 1; n <= cap; ++n) {
    const std::int64_t c = (units + n - 1) / n;  // units per strip
    const std::int64_t strips = (units + c - 1) / c;
    if (strips != n && n > 1) continue;  // the same plan as a smaller n
    const std::int64_t blocks = per_strip * strips;
    const std::int64_t b = (blocks + sms - 1) / sms;
    const double eff = std::min(1.0, static_cast<double>(std::min<std::int64_t>(b, resident)) / sat);
    const double cost = static_cast<double>(b) * static_cast<double>(c * unit + halo) / eff;
    if (best_cost < 0 || cost < best_cost * (1 - 1e-9)) {
      best_cost = cost;
      best = {c * unit, strips};
    }
  }
  return best;  // strips <= n <= 65535
}

/// SM count of the current device and the resident blocks per SM of `kernel` (cached per device).
template <class Kernel>
void device_fill(Kernel kernel, int threads, std::size_t smem, int& sms, int& resident,
                 std::atomic<int> (&cache)[64]) {
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  std::atomic<int>& slot = cache[dev & 63];
  int r = slot.load(std::memory_order_relaxed);
  if (r <= 0) {
    CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r, kernel, threads, smem));
    r = std::max(r, 1);
    slot.store(r, std::memory_order_relaxed);
  }
  resident = r;
}

}  // namespace cuskimage::detail
