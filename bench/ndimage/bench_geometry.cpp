// scipy.ndimage geometry on the GPU: zoom, shift, affine_transform and rotate of float32 images on
// the standard shapes (512^2, 3840x2160, 8192^2, 192^3), order 1 (no prefilter) and order 3 (with
// the float64 spline prefilter), mode 'reflect' (rotate: 'constant', scipy's default).
// Bytes moved: order 1 reads the input and writes the output once (4 + 4 B per output pixel, the
// taps re-used from L1/L2; zoom counts the input and the output separately); order 3 adds the
// prefilter (~63 B/px 2-D, ~97 B/px 3-D, see bench_spline.cpp) and reads float64 coefficients
// (8 B per output pixel) instead of the input. The coordinates are computed in-kernel: no coordinate
// array. Floors at 4.2 TB/s for 8192^2 float32: order 1 0.128 ms; order 3 ~1.2 ms (the prefilter).
// Predicted (kernels/ndimage/geometry_sample.cuh notes): order 1 ~0.15-0.2 ms at 8192^2.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/ndimage.hpp"

namespace nd = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

/// Bytes of one run: the input read (`in_px`), the output written (`out_px`), and for order > 1 the
/// prefilter and the float64 coefficient reads.
double bytes_for(int order, double in_px, double out_px, int ndim) {
  if (order <= 1) return 4.0 * in_px + 4.0 * out_px;
  return (ndim == 2 ? 63.0 : 97.0) * in_px + 8.0 * out_px + 4.0 * out_px;
}

double pixels(const cuskimage::Shape& s) {
  double n = 1;
  for (const auto v : s) n *= static_cast<double>(v);
  return n;
}

void BM_Zoom(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const int order = static_cast<int>(st.range(1));
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  // Down by 2 on the 2-D shapes and 8192^2 (transform.resize's case), up by 1.5 in 3-D.
  const double z = img.ndim() == 3 ? 1.5 : 0.5;
  const nd::ZoomOptions o{.order = order, .mode = nd::InterpMode::reflect, .grid_mode = true};
  const Array out = nd::zoom(img, z, o);
  cuskbench::run(st, bytes_for(order, pixels(img.shape()), pixels(out.shape()), img.ndim()),
                 [&](const Stream& s) { (void)nd::zoom(img, z, o, s); });
}

void BM_Shift(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const int order = static_cast<int>(st.range(1));
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const nd::ShiftOptions o{.order = order, .mode = nd::InterpMode::reflect};
  const double px = pixels(img.shape());
  cuskbench::run(st, bytes_for(order, px, px, img.ndim()), [&](const Stream& s) { (void)nd::shift(img, 2.3, o, s); });
}

void BM_AffineTransform(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const int order = static_cast<int>(st.range(1));
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const int n = img.ndim();
  std::vector<double> m(n * n, 0.0);
  for (int i = 0; i < n; ++i) m[i * n + i] = 0.95;
  m[1] = 0.1, m[n] = -0.1;  // a small shear / rotation in the first plane
  const nd::AffineTransformOptions o{.offset = {2.5}, .order = order, .mode = nd::InterpMode::reflect};
  const double px = pixels(img.shape());
  cuskbench::run(st, bytes_for(order, px, px, n),
                 [&](const Stream& s) { (void)nd::affine_transform(img, m, {n, n}, o, s); });
}

void BM_Rotate(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const int order = static_cast<int>(st.range(1));
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const nd::RotateOptions o{.reshape = false, .order = order};
  const double px = pixels(img.shape());
  cuskbench::run(st, bytes_for(order, px, px, img.ndim()), [&](const Stream& s) { (void)nd::rotate(img, 30, o, s); });
}

/// map_coordinates order 1 (no prefilter) of a 4096^2 float32 image at float32 coordinates
/// (i + 0.3, j - 0.45): the case measured at 1.33 ms before the fixed-order int32 sampler; bytes
/// 8 (coordinates) + 4 (input) + 4 (output) per point = 0.27 GB, floor 0.064 ms.
void BM_MapCoordinatesF32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  constexpr std::int64_t n = 4096;
  const Array img = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  std::vector<float> c(static_cast<std::size_t>(2 * n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      c[static_cast<std::size_t>(i * n + j)] = static_cast<float>(i) + 0.3f;
      c[static_cast<std::size_t>(n * n + i * n + j)] = static_cast<float>(j) - 0.45f;
    }
  const Array co = Array::from_vector(c, {2, n, n}).to(Device::cuda());
  st.SetLabel("4096^2 float32, float32 coordinates, order 1");
  cuskbench::run(st, 16.0 * static_cast<double>(n * n), [&](const Stream& s) {
    (void)nd::map_coordinates(img, co, {.order = 1, .mode = nd::InterpMode::reflect}, s);
  });
}

}  // namespace

BENCHMARK(BM_MapCoordinatesF32)->UseManualTime()->Unit(benchmark::kMillisecond);
#define CUSK_GEOMETRY_BENCH(B) \
  BENCHMARK(B)->ArgsProduct({{0, 1, 2, 3}, {1, 3}})->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_GEOMETRY_BENCH(BM_Zoom);
CUSK_GEOMETRY_BENCH(BM_Shift);
CUSK_GEOMETRY_BENCH(BM_AffineTransform);
CUSK_GEOMETRY_BENCH(BM_Rotate);
