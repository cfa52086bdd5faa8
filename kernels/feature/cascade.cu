// Cascade.detect_multi_scale, CUDA sweep: one thread per window position of each scale evaluates
// the cascade (src/feature/cascade_eval.hpp, the host's code) on the float32 integral image; the
// flags go back to the host, which groups the detections in scan order as scikit-image does.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuskimage/array.hpp"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/cascade_eval.hpp"

namespace cuskimage::feature::detail {
namespace {

__global__ void sweep_kernel(CascadeView d, IntegralView ii, ScaleGrid g, std::uint8_t* flags) {
  const std::int64_t n = g.n_rows * g.n_cols;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = (i / g.n_cols) * g.step, c = (i % g.n_cols) * g.step;
    flags[g.offset + i] = classify(d, ii, r, c, g.scale) ? 1 : 0;
  }
}

/// The elements of `v` as a device byte array (at least one byte, so empty tables upload too).
template <class T>
Array upload(const std::vector<T>& v, Device device, const Stream& s) {
  std::vector<std::uint8_t> bytes(std::max<std::size_t>(v.size() * sizeof(T), 1));
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), v.size() * sizeof(T));
  return Array::from_vector(bytes, {static_cast<std::int64_t>(bytes.size())}).to(device, s);
}

}  // namespace

std::vector<std::uint8_t> cascade_sweep_cuda(const std::vector<Mblbp>& features, const std::vector<Stump>& stumps,
                                             const std::vector<Stage>& stages, const std::vector<std::uint32_t>& luts,
                                             float eps, const std::vector<float>& ii, std::int64_t rows,
                                             std::int64_t cols, const std::vector<ScaleGrid>& grids,
                                             Device device, const Stream& stream) {
  std::int64_t total = 0;
  for (const auto& g : grids) total = std::max(total, g.offset + g.n_rows * g.n_cols);
  if (total == 0) return {};
  const Array f = upload(features, device, stream), st = upload(stumps, device, stream),
              sg = upload(stages, device, stream), lu = upload(luts, device, stream), im = upload(ii, device, stream);
  const CascadeView d{static_cast<const Mblbp*>(f.data()), static_cast<const Stump*>(st.data()),
                      static_cast<const Stage*>(sg.data()), static_cast<const std::uint32_t*>(lu.data()),
                      static_cast<std::int64_t>(stages.size()), eps};
  const IntegralView view{static_cast<const float*>(im.data()), rows, cols};
  Array flags = Array::empty({total}, DType::uint8, device, stream);
  constexpr int kThreads = 128;
  for (const auto& g : grids) {
    const std::int64_t n = g.n_rows * g.n_cols;
    if (n == 0) continue;
    sweep_kernel<<<cuskimage::detail::grid_blocks(n, kThreads, 1 << 20), kThreads, 0, stream.handle()>>>(
        d, view, g, static_cast<std::uint8_t*>(flags.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return flags.to(Device::cpu(), stream).to_vector<std::uint8_t>();
}

}  // namespace cuskimage::feature::detail
