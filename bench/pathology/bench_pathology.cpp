// Benchmarks of cuskimage::pathology on the device (CUDA-event timing, L2 flushed), with the
// bytes each op must move at least:
//  * normalize_colors_pca 4096^2 RGB uint8 (the target, <= 2 ms): fit + apply must read the
//    image twice and write it once (151 MB, 36 us at 4.2 TB/s); our pipeline reads it 8 times and
//    writes once (453 MB, ~108 us), plus ~16 small launches: predicted ~0.2 ms.
//  * stain_extraction_pca 4096^2: 4 reads (201 MB, 48 us); predicted ~0.1 ms.
//  * image_to_absorbance, color_jitter (4 ops), zoom, flips and quarter turns at 4096^2 RGB.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/pathology.hpp"

namespace path = cuskimage::pathology;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

constexpr std::int64_t kSide = 4096;

/// An H&E-like RGB tile on the device: smooth hematoxylin and eosin concentration fields (two
/// bench textures) through the reference stain matrix, with a transparent background band.
const Array& he_tile() {
  static Array tile = [] {
    const Array h = cuskbench::test_image({kSide, kSide}, DType::uint8, Device::cpu());
    const Array e = cuskbench::test_image({kSide, kSide}, DType::uint8, Device::cpu()).transpose({1, 0}).copy();
    const std::uint8_t* hp = h.data<std::uint8_t>();
    const std::uint8_t* ep = e.data<std::uint8_t>();
    Array rgb = Array::empty({kSide, kSide, 3}, DType::uint8);
    std::uint8_t* out = rgb.data<std::uint8_t>();
    const double S[3][2] = {{0.5626, 0.2159}, {0.7201, 0.8012}, {0.4062, 0.5581}};
#pragma omp parallel for
    for (std::int64_t i = 0; i < kSide * kSide; ++i) {
      const bool background = (i / kSide) % 512 < 64;
      const double ch = background ? 0.01 : 1.8 * hp[i] / 255.0, ce = background ? 0.01 : 1.0 * ep[i] / 255.0;
      for (int k = 0; k < 3; ++k)
        out[3 * i + k] = static_cast<std::uint8_t>(std::lround(240.0 * std::exp(-(S[k][0] * ch + S[k][1] * ce))));
    }
    return rgb.to(Device::cuda());
  }();
  return tile;
}

constexpr double kTileBytes = double(kSide) * kSide * 3;

void BM_NormalizeColorsPca(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  st.SetLabel("[4096, 4096] RGB");  // bench/compare/ops_pathology.py matches the shape
  cuskbench::run(st, 3 * kTileBytes, [&](const Stream& s) { path::normalize_colors_pca(img, {}, s); });
}
BENCHMARK(BM_NormalizeColorsPca)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_StainExtractionPca(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  cuskbench::run(st, kTileBytes, [&](const Stream& s) { path::stain_extraction_pca(img, {}, s); });
}
BENCHMARK(BM_StainExtractionPca)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_NormalizeColorsPcaFloat32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  static const Array img = he_tile().astype(DType::float32);
  cuskbench::run(st, kTileBytes * 4 + kTileBytes, [&](const Stream& s) { path::normalize_colors_pca(img, {}, s); });
}
BENCHMARK(BM_NormalizeColorsPcaFloat32)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_ImageToAbsorbance(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  cuskbench::run(st, kTileBytes * 5, [&](const Stream& s) { path::image_to_absorbance(img, {}, s); });
}
BENCHMARK(BM_ImageToAbsorbance)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_ColorJitter(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  // copy + 4 ops in place + the contrast mean read: 10 passes over the tile
  cuskbench::run(st, kTileBytes * 10, [&](const Stream& s) {
    path::adjust_colors(img, {.brightness = 1.1, .contrast = 0.9, .saturation = 1.2, .hue = 0.05}, -1, s);
  });
}
BENCHMARK(BM_ColorJitter)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_ZoomArea(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  cuskbench::run(st, kTileBytes * 10, [&](const Stream& s) {
    path::zoom(img, {1.25, 1.25}, {.spatial_axis = {0, 1}}, s);
  });
}
BENCHMARK(BM_ZoomArea)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_Rotate90(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  cuskbench::run(st, kTileBytes * 2, [&](const Stream& s) { path::image_rotate_90(img, 1, {0, 1}, s); });
}
BENCHMARK(BM_Rotate90)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_Flip(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array& img = he_tile();
  cuskbench::run(st, kTileBytes * 2, [&](const Stream& s) { path::image_flip(img, {0, 1}, s); });
}
BENCHMARK(BM_Flip)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace
