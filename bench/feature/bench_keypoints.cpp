// Keypoints and matching on the benchmark texture (uint8): ORB detect_and_extract (500
// keypoints), SIFT detect_and_extract, CENSURE detect (DoB), BRIEF extract of 500 keypoints and
// match_descriptors of two 500 x 256 bit sets (cross check, max_ratio 0.8).
// Bytes moved (the floors are far below what keypoint lists' host round trips cost):
//   ORB: the float64 pyramid layers read by FAST, the tensor filters and the descriptors, about
//        5 reads of 8 B per pixel over the pyramid (3.3x the image): 1024^2: 140 MB, 0.03 ms.
//   SIFT: per octave 6 Gaussian layers and 5 DoG layers of float64 written and read (upsampled
//        by 2, octaves adding 1/3): 512^2: 8 * 4 * 512^2 * 11 * 2 * 4/3 = 246 MB, 0.05 ms.
//   CENSURE: 7 response planes, their min/max filters and 5 masks, float64: 1024^2: 8 B * 30 per
//        pixel = 252 MB.
//   BRIEF: the Gaussian-smoothed image read and written once (16 B per pixel).
//   match: the two descriptor sets and the 500 x 500 float64 distance table (2 MB).
// Targets (H200): ORB 1024^2 <= 10 ms (scikit-image 1,708 ms), SIFT 512^2 <= 10 ms (824 ms).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/feature.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

namespace {

Array texture(std::int64_t n) {
  Array a = cuskbench::test_image({n, n}, DType::uint8, Device::cuda());
  Stream().synchronize();
  return a;
}

void BM_Orb(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  const double px = static_cast<double>(img.size());
  cuskbench::run(st, 5 * 8 * 3.3 * px, [&](const Stream& s) {
    ft::ORB o({.n_keypoints = 500});
    o.detect_and_extract(img, s);
    benchmark::DoNotOptimize(o.descriptors);
  });
}

void BM_Sift(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  const double px = static_cast<double>(img.size());
  cuskbench::run(st, 8 * 4 * px * 11 * 2 * 4.0 / 3, [&](const Stream& s) {
    ft::SIFT o;
    o.detect_and_extract(img, s);
    benchmark::DoNotOptimize(o.descriptors);
  });
}

void BM_Censure(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 8.0 * 30 * static_cast<double>(img.size()), [&](const Stream& s) {
    ft::CENSURE c;
    c.detect(img, s);
    benchmark::DoNotOptimize(c.keypoints);
  });
}

Array random_keypoints(std::int64_t n, std::int64_t k) {
  std::vector<double> v;
  std::uint64_t x = 12345;
  for (std::int64_t i = 0; i < 2 * k; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(static_cast<double>((x >> 33) % static_cast<std::uint64_t>(n)));
  }
  return Array::from_vector(v, {k, 2}).to(Device::cuda());
}

void BM_Brief(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  const Array kp = random_keypoints(st.range(0), 500);
  cuskbench::run(st, 16.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(ft::brief(img, kp, {}, s).descriptors);
  });
}

void BM_MatchDescriptors(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(1024);
  const auto a = ft::brief(img, random_keypoints(1024, st.range(0)), {});
  const auto b = ft::brief(img, random_keypoints(1000, st.range(0)), {});
  const double m = static_cast<double>(a.descriptors.shape(0)), n = static_cast<double>(b.descriptors.shape(0));
  cuskbench::run(st, 256 * (m + n) + 8 * m * n, [&](const Stream& s) {
    benchmark::DoNotOptimize(ft::match_descriptors(a.descriptors, b.descriptors, {.max_ratio = 0.8}, s));
  });
}

}  // namespace

BENCHMARK(BM_Orb)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sift)->Arg(512)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Censure)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Brief)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatchDescriptors)->Arg(500)->UseManualTime()->Unit(benchmark::kMillisecond);
