// hog, match_template, haar_like_feature and daisy on the benchmark texture (float32).
// Bytes moved (what each op must read and write at least; floors at the H200's ~4.8 TB/s):
//   match_template 4096^2, 64^2 template: image read + response (4033^2) written, 4 + 4 B per pixel:
//     132 MB, floor 0.028 ms. This implementation moves ~2.8 GB (the 4096^2 float32 FFT grid of the
//     image and of the template, R and R^2 in float64: 0.47 GB; two float64 integral images, a row
//     and a column pass each: 1.07 GB; one batched R2C of the 2 grids, the conjugate product, one
//     C2R: ~0.9 GB; the normalisation: the correlation, 8 window corners mostly from L2, the
//     response: ~0.4 GB), ~0.7 ms at 4 TB/s. Target (H200): <= 2.0 ms (cuCIM 7.29 ms).
//   hog 2048^2 (8x8 cells, 3x3 blocks, 9 bins): image read 16.8 MB + features written
//     (255^2 blocks x 81 x 4 B) 21.1 MB = 38 MB, floor 0.008 ms; the cell histograms
//     (256^2 x 9 x 8 B, 4.7 MB) go through L2. Target: <= 3 ms (scikit-image 867 ms).
//   haar_like_feature, 24x24 window, all 5 types: 162,336 features x (<= 16 corner reads, cached) +
//     8 B written: 1.3 MB, floor < 1 us (launch-bound).
//   daisy 1024^2 (defaults): image read 4 MB + 8 orientation planes written and read 4x smoothed
//     (8 x 4 MB x ~10 passes) + descriptors (249^2 x 200 x 4 B = 49.6 MB): ~0.4 GB, ~0.09 ms.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/transform.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Slice;
using cuskimage::Stream;

namespace {

Array texture(std::int64_t n) {
  Array a = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  Stream().synchronize();
  return a;
}

/// The texture and a 64^2 template cut from it; bytes: the image read and the response written.
void match_template(benchmark::State& st, bool pad) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0), m = 64;
  const Array img = texture(n);
  const Array tpl = img.slice({Slice{n / 3, n / 3 + m}, Slice{n / 2, n / 2 + m}}).copy();
  Stream().synchronize();
  const double out = pad ? static_cast<double>(n * n) : static_cast<double>((n - m + 1) * (n - m + 1));
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) + 4.0 * out, [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::match_template(img, tpl, {.pad_input = pad}, s));
  });
}

void BM_MatchTemplate(benchmark::State& st) { match_template(st, false); }
void BM_MatchTemplatePadded(benchmark::State& st) { match_template(st, true); }

void BM_Hog(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = texture(n);
  const double blocks = static_cast<double>((n / 8 - 2) * (n / 8 - 2));
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) + blocks * 81 * 4, [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::hog(img, {}, s));
  });
}

void BM_HaarLikeFeature(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t w = st.range(0);
  const Array ii = cuskimage::transform::integral_image(texture(256));
  Stream().synchronize();
  const double n = static_cast<double>(cuskimage::feature::haar_like_feature_coord(w, w).types.size());
  cuskbench::run(st, 8.0 * n, [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::haar_like_feature(ii, 10, 20, w, w, cuskimage::feature::HaarLikeFeatureOptions{}, s));
  });
}

void BM_Daisy(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = texture(n);
  const double p = static_cast<double>((n - 30 + 3) / 4);
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) * (1 + 8 * 10) + p * p * 200 * 4, [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::daisy(img, {}, s));
  });
}

}  // namespace

BENCHMARK(BM_MatchTemplate)->Arg(1024)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchTemplatePadded)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Hog)->Arg(512)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HaarLikeFeature)->Arg(24)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Daisy)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
