// resize, rescale and the pyramids on the standard shapes (512², 3840x2160, 8192², 192³), float32.
// Bytes moved are the floors: resize / rescale / pyramid_reduce read the image once and write the
// output (4 B/px in + 4 B/px out); pyramid_gaussian reads the image once and writes and re-reads
// each smaller level. The implementation moves more: the anti-aliasing Gaussian writes and re-reads
// a full-size image, the grid-mode zoom samples it, and _clip_warp_output re-reads the input for
// its min/max.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/transform/pyramids.hpp"
#include "cuskimage/transform/warps.hpp"

namespace tf = cuskimage::transform;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;

namespace {

double px(const Shape& s) {
  double n = 1;
  for (auto v : s) n *= static_cast<double>(v);
  return n;
}

/// Each axis halved (the 8192² -> 4096² case).
Shape halved(const Shape& s) {
  Shape o = s;
  for (auto& v : o) v = (v + 1) / 2;
  return o;
}

void BM_ResizeHalf(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const bool aa = st.range(1) != 0;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const Shape out = halved(img.shape());
  st.SetLabel(aa ? "anti_aliasing" : "no anti_aliasing");
  cuskbench::run(st, 4.0 * (px(img.shape()) + px(out)),
                 [&](const Stream& s) { (void)tf::resize(img, out, {.anti_aliasing = aa}, s); });
}

void BM_RescaleHalf(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 4.0 * (px(img.shape()) + px(halved(img.shape()))),
                 [&](const Stream& s) { (void)tf::rescale(img, {0.5}, {}, s); });
}

void BM_PyramidReduce(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 4.0 * (px(img.shape()) + px(halved(img.shape()))),
                 [&](const Stream& s) { (void)tf::pyramid_reduce(img, {}, s); });
}

void BM_PyramidGaussian5(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  // Five levels: the image and four reductions.
  double bytes = 4.0 * px(img.shape());
  Shape s = img.shape();
  for (int k = 0; k < 4; ++k) {
    s = halved(s);
    bytes += 2 * 4.0 * px(s);
  }
  st.SetLabel("max_layer 4 (5 levels)");
  cuskbench::run(st, bytes, [&](const Stream& st2) { (void)tf::pyramid_gaussian(img, {.max_layer = 4}, st2); });
}

void BM_PyramidLaplacian5(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  double bytes = 2 * 4.0 * px(img.shape());
  Shape s = img.shape();
  for (int k = 0; k < 4; ++k) {
    s = halved(s);
    bytes += 2 * 4.0 * px(s);
  }
  cuskbench::run(st, bytes, [&](const Stream& st2) { (void)tf::pyramid_laplacian(img, {.max_layer = 4}, st2); });
}

void BM_PyramidExpand(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(halved(cuskbench::shape_arg(st)), DType::float32, Device::cuda());
  cuskbench::run(st, 4.0 * (px(img.shape()) + 4 * px(img.shape())),
                 [&](const Stream& s) { (void)tf::pyramid_expand(img, {}, s); });
}

}  // namespace

BENCHMARK(BM_ResizeHalf)->ArgsProduct({{0, 1, 2, 3}, {1, 0}})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RescaleHalf)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PyramidReduce)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PyramidGaussian5)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PyramidLaplacian5)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PyramidExpand)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
