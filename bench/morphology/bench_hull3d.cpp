// 3-D convex hull benchmarks on CUDA (issues 5 and 6): convex_hull_image of a 256^3 blob volume
// and of ball(100), and the batched per-region hulls regionprops calls (area_convex of every
// region of a 192^3 label volume in one call).
//
// Floors (4.2 TB/s): the volume read once and the mask written once, 2 x 16 MiB for 256^3 bool
// (8 us), 2 x 7.8 MiB for ball(100)'s 201^3 (4 us). The hull itself is latency bound (one block per
// hull, ~20 barriers and a few chains of dependent loads per round), so the floors are far.
// Predicted: ball(100) ~4 ms (62.8 k line extremes -> 9.1 k
// candidates -> 54.8 k face centres, 90 rounds, 7.1 k points inserted, 0.70 M reassignments; the
// first ~35 rounds, with all 54.8 k entries live, ~50 us each, the rest ~25 us), without offsets
// ~2.5 ms (9.1 k points, 72 rounds); blobs 256^3 ~0.3 ms (the volume is almost all foreground:
// 18 candidates, 14 rounds; the old time was the planar chain filter's dependent loads); regions
// ~1 ms (one 128-thread block per small region hull, bound by the largest region's rounds and the
// two host round trips).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "src/morphology/convex_hull3d.hpp"

namespace morph = cuskimage::morphology;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

/// The smooth test volume above `level` (bool, host).
Array blobs3(std::int64_t n, double level) {
  const Array f = cuskbench::test_image({n, n, n}, DType::float64, Device::cpu());
  Array b = Array::empty(f.shape(), DType::bool_);
  const double* p = f.data<double>();
  bool* q = b.data<bool>();
  for (std::int64_t i = 0; i < f.size(); ++i) q[i] = p[i] > level;
  return b;
}

/// skimage.morphology.ball(r) as bool.
Array ball(std::int64_t r) {
  const std::int64_t n = 2 * r + 1;
  Array b = Array::empty({n, n, n}, DType::bool_);
  bool* q = b.data<bool>();
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x)
        q[(z * n + y) * n + x] = (z - r) * (z - r) + (y - r) * (y - r) + (x - r) * (x - r) <= r * r;
  return b;
}

void hull_image(benchmark::State& st, const Array& host, bool offset) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = host.to(Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) {
    (void)morph::convex_hull_image(img, {.offset_coordinates = offset}, s);
  });
}

void BM_ConvexHullImage3d_blobs256(benchmark::State& st) { hull_image(st, blobs3(256, 0.5), true); }
void BM_ConvexHullImage3d_ball100(benchmark::State& st) { hull_image(st, ball(100), true); }
void BM_ConvexHullImage3d_ball100_nooffset(benchmark::State& st) { hull_image(st, ball(100), false); }

/// regionprops' call: the hulls, counts and packed images of every region of label(blobs > 0.65)
/// at 192^3.
void BM_Hull3dRegions_192(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array labels = cuskimage::measure::label(blobs3(192, 0.65), {.dtype = DType::int32});
  const std::int32_t* l = labels.data<std::int32_t>();
  const std::int64_t n = 192;
  std::int32_t mx = 0;
  for (std::int64_t i = 0; i < labels.size(); ++i) mx = std::max(mx, l[i]);
  std::vector<std::int64_t> lo(3 * static_cast<std::size_t>(mx), n), hi(lo.size(), 0), label, crop_off = {0};
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x) {
        const std::int32_t v = l[(z * n + y) * n + x];
        if (v <= 0) continue;
        const std::int64_t c[3] = {z, y, x};
        for (int a = 0; a < 3; ++a) {
          lo[3 * (v - 1) + a] = std::min(lo[3 * (v - 1) + a], c[a]);
          hi[3 * (v - 1) + a] = std::max(hi[3 * (v - 1) + a], c[a] + 1);
        }
      }
  for (std::int32_t v = 1; v <= mx; ++v) {
    label.push_back(v);
    std::int64_t vol = 1;
    for (int a = 0; a < 3; ++a) vol *= hi[3 * (v - 1) + a] - lo[3 * (v - 1) + a];
    crop_off.push_back(crop_off.back() + vol);
  }
  const Array d = labels.to(Device::cuda());
  Array images = Array::empty({crop_off.back()}, DType::bool_, Device::cuda());
  st.counters["regions"] = static_cast<double>(mx);
  cuskbench::run(st, static_cast<double>(labels.nbytes() + images.nbytes()), [&](const Stream& s) {
    std::vector<std::int64_t> count;
    morph::detail::cuda_hull3d_regions<std::int32_t>(d, label, lo, hi, images.data<bool>(), &crop_off, count,
                                                      s);
  });
}

}  // namespace

BENCHMARK(BM_ConvexHullImage3d_blobs256)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvexHullImage3d_ball100)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ConvexHullImage3d_ball100_nooffset)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Hull3dRegions_192)->UseManualTime()->Unit(benchmark::kMillisecond);
