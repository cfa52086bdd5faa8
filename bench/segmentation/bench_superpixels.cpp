// Superpixels on the shapes: slic of a 2048^2 RGB uint8 image (2000 segments, the default
// 10 iterations, Lab).
// Bytes moved (slic): the float64 Lab image (24 B/px) is read by every assignment and every centre
// update and the int64 labels (8 B/px) written and re-read: ~64 B/px per iteration, ~640 B/px for 10,
// plus ~100 B/px of preprocessing (img_as_float, rescale, Lab, the ratio) and the labels' trip to
// the host and back for the connectivity pass (16 B/px over PCIe, not counted): ~3.1 GB at 2048^2,
// a 0.74 ms floor. The assignment evaluates ~25-36 candidate centres per pixel, so the kernels are
// compute-bound well above the floor, and the host connectivity pass dominates (see the README).
// Bytes moved (felzenszwalb): the float64 image and its smoothing (~100 B/px), 4 edges per pixel
// weighted (8 B) and radix-sorted with their int64 index (~16 B x 8 passes x 2) and copied to the
// host (~64 B/px over PCIe, not counted): ~200 B/px counted, a 0.2 ms floor at 2048^2 — far below
// the sequential merge on the host, which dominates.
// Bytes moved (quickshift, 512^2 RGB): the float64 Lab image (24 B/px) read by the density and
// parent passes (the 31 x 31 windows come from cache), noise, densities, parents, distances, labels
// (~60 B/px) and the preprocessing (~60 B/px): ~150 B/px, a 9 us floor; the ~1,900 window distances
// per pixel (two passes, an exp each in the first) make it compute-bound, and the host draws the
// 262,144 normals (~2 ms).
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/segmentation.hpp"

namespace seg = cuskimage::segmentation;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

void BM_Slic(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n, 3}, DType::uint8, Device::cuda());
  st.SetLabel("[" + std::to_string(n) + ", " + std::to_string(n) + ", 3] uint8 RGB, 2000 segments");
  cuskbench::run(st, 740.0 * static_cast<double>(n * n),
                 [&](const Stream& s) { (void)seg::slic(img, {.n_segments = 2000, .compactness = 10}, s); });
}

void BM_Felzenszwalb(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n, 3}, DType::uint8, Device::cuda());
  st.SetLabel("[" + std::to_string(n) + ", " + std::to_string(n) + ", 3] uint8 RGB");
  cuskbench::run(st, 200.0 * static_cast<double>(n * n), [&](const Stream& s) { (void)seg::felzenszwalb(img, {}, s); });
}

void BM_Quickshift(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n, 3}, DType::uint8, Device::cuda());
  st.SetLabel("[" + std::to_string(n) + ", " + std::to_string(n) + ", 3] uint8 RGB");
  cuskbench::run(st, 150.0 * static_cast<double>(n * n), [&](const Stream& s) { (void)seg::quickshift(img, {}, s); });
}

}  // namespace

BENCHMARK(BM_Quickshift)->Arg(512)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Felzenszwalb)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Slic)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
