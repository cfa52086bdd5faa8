// hough_line and hough_circle on edge maps: the benchmark texture's pixels within 3 grey levels of
// mid-grey (|v - 128| < 4 as uint8, a few percent of the pixels, thin contour-like curves), at 512^2,
// 2048^2 (the shape) and 3840x2160.
// Bytes moved: the image read once (1 B per pixel) and the accumulator written once (hough_line:
// uint64 (2 ceil(hypot) + 1) x 180; hough_circle: float64 per radius and pixel). 2048^2 hough_line:
// 4.2 MB + 8.3 MB, floor 3 us: the op is bound by its votes (nonzero pixels x 180 shared-memory
// atomics) and the per-angle-group image scans (from L2), not by DRAM.
// Target (2048^2, H200): hough_line <= 2 ms (scikit-image 242 ms).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/transform/hough_transform.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace tf = cuskimage::transform;

namespace {

const std::vector<Shape> kShapes = {{512, 512}, {2048, 2048}, {2160, 3840}};

Array edge_map(const Shape& shape, benchmark::State& st) {
  st.SetLabel("[" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + "]");
  const Array tex = cuskbench::test_image(shape, DType::uint8, Device::cpu());
  std::vector<std::uint8_t> v = tex.to_vector<std::uint8_t>();
  for (auto& x : v) x = std::abs(static_cast<int>(x) - 128) < 4;
  return Array::from_vector(v, shape).to(Device::cuda());
}

void BM_HoughLine(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array e = edge_map(kShapes[st.range(0)], st);
  const double rows = 2 * std::ceil(std::hypot(e.shape(0), e.shape(1))) + 1;
  tf::HoughLineResult r;
  cuskbench::run(st, static_cast<double>(e.size()) + rows * 180 * 8,
                 [&](const Stream& s) { r = tf::hough_line(e, {}, s); });
}

void BM_HoughCircle3(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array e = edge_map(kShapes[st.range(0)], st);
  Array acc;
  cuskbench::run(st, static_cast<double>(e.size()) * (1 + 3 * 8),
                 [&](const Stream& s) { acc = tf::hough_circle(e, {10, 20, 30}, {}, s); });
}

}  // namespace

BENCHMARK(BM_HoughLine)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HoughCircle3)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
