// skimage.transform._warps on the standard 2-D shapes (512², 3840x2160, 8192²) in float32.
// Bytes moved: the floor for a warp is one read and one write of the image (8 B/px in
// float32). The fast path (orders 1, 3 under a matrix) also reads the image once more for
// _clip_warp_output's min/max (12 B/px in all; the clip itself is fused into the warp kernel).
// The map_coordinates path (order 0, 2, 4, 5, swirl, warp_polar) writes and re-reads float64
// coordinates (+32 B/px). resize_local_mean: one pass per axis; downscale_local_mean: one read,
// one small write.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/transform/warps.hpp"
#include "cuskimage/tuning.hpp"

namespace tf = cuskimage::transform;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

Array affine_matrix() {
  return Array::from_vector(std::vector<double>{0.95, 0.1, 20.0, -0.08, 1.05, -15.0, 0.0, 0.0, 1.0}, {3, 3});
}

void BM_WarpAffine(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const int order = static_cast<int>(st.range(1));
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const Array m = affine_matrix();
  const double px = static_cast<double>(img.size());
  const double bytes = (order == 1 || order == 3 ? 8.0 : 40.0) * px;
  cuskbench::run(st, bytes, [&](const Stream& s) { (void)tf::warp(img, m, {.order = order}, s); });
}

/// The fast path's two CUDA kernels side by side (tuning::WarpKernel: 1 tiles, 2 pixels) on 8192^2,
/// orders 1 and 3, with the default cval 0 (below the image's minimum: the clip's bookkeeping runs)
/// and with cval 0.5 (inside its range: the clip is done in the kernel).
void BM_WarpAffineKernel(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  namespace tn = cuskimage::tuning;
  const int order = static_cast<int>(st.range(1));
  const auto kernel = static_cast<tn::WarpKernel>(st.range(2));
  const double cval = st.range(3) == 0 ? 0.0 : 0.5;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const Array m = affine_matrix();
  const tn::WarpPolicy old = tn::set_warp_policy({.kernel = kernel});
  cuskbench::run(st, 8.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { (void)tf::warp(img, m, {.order = order, .cval = cval}, s); });
  tn::set_warp_policy(old);
}

void BM_TransformRotate(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 8.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { (void)tf::rotate(img, 30.0, {.order = 1}, s); });
}

void BM_Swirl(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 40.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { (void)tf::swirl(img, {.strength = 5, .radius = 500}, s); });
}

void BM_WarpPolar(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const Array out = tf::warp_polar(img, {}, Stream());
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) + 36.0 * static_cast<double>(out.size()),
                 [&](const Stream& s) { (void)tf::warp_polar(img, {}, s); });
}

void BM_ResizeLocalMean(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  cuskimage::Shape half = img.shape();
  for (auto& v : half) v = v * 2 / 3;
  // Axis 0 pass: read the image, write 2/3 of it; axis 1 pass: read that, write 4/9.
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) * (1.0 + 2.0 / 3 + 2.0 / 3 + 4.0 / 9),
                 [&](const Stream& s) { (void)tf::resize_local_mean(img, half, {}, s); });
}

void BM_DownscaleLocalMean(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const std::vector<std::int64_t> f(static_cast<std::size_t>(img.ndim()), 2);
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) * (1.0 + 1.0 / (1 << img.ndim())),
                 [&](const Stream& s) { (void)tf::downscale_local_mean(img, f, {}, s); });
}

}  // namespace

BENCHMARK(BM_WarpAffine)
    ->ArgsProduct({{0, 1, 2}, {1, 3, 0, 5}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WarpAffineKernel)
    ->ArgsProduct({{2}, {1, 3}, {1, 2}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransformRotate)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Swirl)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WarpPolar)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResizeLocalMean)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DownscaleLocalMean)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
