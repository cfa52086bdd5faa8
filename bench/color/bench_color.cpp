// color benchmarks: the issue-7 targets (rgb2hed, rgb2lab, rgb2gray, rgb2hsv on 4096^2 x 3 uint8,
// within 1.5x of the bandwidth floor on the H200) and the other conversions, deltaE and label2rgb.
// CUDA-event timing with an L2 flush (cuskbench::run). Bytes moved: the input read once plus the
// output written once (uint8 RGB -> float64: 3 + 24 bytes per pixel, 453 MB at 4096^2, floor 108 us;
// rgb2gray: 3 + 8 bytes, 185 MB, floor 44 us). pct_floor = floor / measured. Before the issue-7
// rework (one tile per block): rgb2lab 193 us, rgb2hsv 184, rgb2hed 124, rgb2gray 51; with the
// persistent wave for every op: 141, 138, 136, 66. Predicted with the per-op
// launch policy of kernels/color/pixel.cuh (heavy ops persistent, light ops one tile per block, no
// table for rgb2gray): 141, 138, 118-124, 46-51. BM_ColorGrid_*: the targets under each grid of
// tuning::ColorPolicy (argument 1: 1 one tile per block, 2 persistent; bench/color/sweep_color.sh).
// Argument 0 is the square size (4096 for the targets; 1024 for the CPU backend).
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/color.hpp"
#include "cuskimage/tuning.hpp"

namespace color = cuskimage::color;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;

namespace {

using Conv = Array (*)(const Array&, const color::ChannelOptions&, const Stream&);

Shape rgb_shape(benchmark::State& st) {
  const std::int64_t n = st.range(0);
  st.SetLabel(std::to_string(n) + "^2 x 3");
  return {n, n, 3};
}

double moved(const Array& in, std::int64_t out_channels, DType out) {
  const double px = static_cast<double>(in.size() / in.shape().back());
  return static_cast<double>(in.nbytes()) + px * out_channels * static_cast<double>(cuskimage::itemsize(out));
}

/// A GPU conversion benchmark on a uint8 (or float32) RGB test image.
void gpu_conv(benchmark::State& st, Conv fn, DType in_dt, std::int64_t out_channels) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(rgb_shape(st), in_dt, Device::cuda());
  const DType out_dt = in_dt == DType::float32 ? DType::float32 : DType::float64;
  cuskbench::run(st, moved(img, out_channels, out_dt), [&](const Stream& s) { (void)fn(img, {}, s); });
}

void cpu_conv(benchmark::State& st, Conv fn, std::int64_t out_channels) {
  const Array img = cuskbench::test_image(rgb_shape(st), DType::uint8, Device::cpu());
  cuskbench::run_cpu(st, moved(img, out_channels, DType::float64), [&] { (void)fn(img, {}, {}); });
}

Array lab_rgb2lab(const Array& a, const color::ChannelOptions& o, const Stream& s) {
  return color::rgb2lab(a, {.channel_axis = o.channel_axis}, s);
}
Array lab_lab2rgb(const Array& a, const color::ChannelOptions& o, const Stream& s) {
  return color::lab2rgb(a, {.channel_axis = o.channel_axis}, s);
}

// ---- GPU: the targets -----------------------------------------------------------------------------
void BM_Rgb2Hed_u8(benchmark::State& st) { gpu_conv(st, color::rgb2hed, DType::uint8, 3); }
void BM_Rgb2Lab_u8(benchmark::State& st) { gpu_conv(st, lab_rgb2lab, DType::uint8, 3); }
void BM_Rgb2Gray_u8(benchmark::State& st) { gpu_conv(st, color::rgb2gray, DType::uint8, 1); }
void BM_Rgb2Hsv_u8(benchmark::State& st) { gpu_conv(st, color::rgb2hsv, DType::uint8, 3); }

// ---- GPU: the targets under each grid of the colour policy --------------------------------------
void grid_conv(benchmark::State& st, Conv fn, std::int64_t out_channels) {
  namespace tuning = cuskimage::tuning;
  const tuning::ColorPolicy old = tuning::set_color_policy({static_cast<tuning::ColorGrid>(st.range(1))});
  gpu_conv(st, fn, DType::uint8, out_channels);
  tuning::set_color_policy(old);
}
void BM_ColorGrid_Rgb2Hed_u8(benchmark::State& st) { grid_conv(st, color::rgb2hed, 3); }
void BM_ColorGrid_Rgb2Lab_u8(benchmark::State& st) { grid_conv(st, lab_rgb2lab, 3); }
void BM_ColorGrid_Rgb2Gray_u8(benchmark::State& st) { grid_conv(st, color::rgb2gray, 1); }
void BM_ColorGrid_Rgb2Hsv_u8(benchmark::State& st) { grid_conv(st, color::rgb2hsv, 3); }

// ---- GPU: others ----------------------------------------------------------------------------------
void BM_Rgb2Hed_f32(benchmark::State& st) { gpu_conv(st, color::rgb2hed, DType::float32, 3); }
void BM_Rgb2Lab_f32(benchmark::State& st) { gpu_conv(st, lab_rgb2lab, DType::float32, 3); }
void BM_Rgb2Ycbcr_u8(benchmark::State& st) { gpu_conv(st, color::rgb2ycbcr, DType::uint8, 3); }
void BM_Rgb2Luv_u8(benchmark::State& st) { gpu_conv(st, color::rgb2luv, DType::uint8, 3); }
void BM_Rgb2Hsv_f32(benchmark::State& st) { gpu_conv(st, color::rgb2hsv, DType::float32, 3); }

void BM_Lab2Rgb_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array rgb = cuskbench::test_image(rgb_shape(st), DType::float32, Device::cuda());
  const Array lab = color::rgb2lab(rgb);
  cuskbench::run(st, moved(lab, 3, DType::float32), [&](const Stream& s) { (void)lab_lab2rgb(lab, {}, s); });
}

void BM_Hed2Rgb_f64(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array hed = color::rgb2hed(cuskbench::test_image(rgb_shape(st), DType::uint8, Device::cuda()));
  cuskbench::run(st, moved(hed, 3, DType::float64), [&](const Stream& s) { (void)color::hed2rgb(hed, {}, s); });
}

void BM_DeltaE2000_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array rgb = cuskbench::test_image(rgb_shape(st), DType::float32, Device::cuda());
  const Array a = color::rgb2lab(rgb), b = color::rgb2luv(rgb);
  const double bytes = 2.0 * static_cast<double>(a.nbytes()) + static_cast<double>(a.nbytes()) / 3;
  cuskbench::run(st, bytes, [&](const Stream& s) { (void)color::deltaE_ciede2000(a, b, {}, s); });
}

void BM_Label2RgbOverlay(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape rgb = rgb_shape(st);
  const Array img = cuskbench::test_image(rgb, DType::uint8, Device::cuda());
  // 64 x 64 blocks of labels (a few thousand distinct values).
  const Array lab = cuskbench::test_image({rgb[0], rgb[1]}, DType::uint16, Device::cuda());
  const double bytes = static_cast<double>(lab.nbytes() + img.nbytes()) + static_cast<double>(lab.size()) * 24;
  cuskbench::run(st, bytes, [&](const Stream& s) { (void)color::label2rgb(lab, img, {}, s); });
}

// ---- CPU backend (OpenMP) -------------------------------------------------------------------------
void BM_Cpu_Rgb2Hed_u8(benchmark::State& st) { cpu_conv(st, color::rgb2hed, 3); }
void BM_Cpu_Rgb2Lab_u8(benchmark::State& st) { cpu_conv(st, lab_rgb2lab, 3); }
void BM_Cpu_Rgb2Gray_u8(benchmark::State& st) { cpu_conv(st, color::rgb2gray, 1); }
void BM_Cpu_Rgb2Hsv_u8(benchmark::State& st) { cpu_conv(st, color::rgb2hsv, 3); }

}  // namespace

#define CUSK_COLOR_BENCH(fn) BENCHMARK(fn)->Arg(4096)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond)
#define CUSK_COLOR_GRID_BENCH(fn) \
  BENCHMARK(fn)->Args({4096, 1})->Args({4096, 2})->UseManualTime()->Unit(benchmark::kMillisecond)
#define CUSK_COLOR_CPU_BENCH(fn) BENCHMARK(fn)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond)

CUSK_COLOR_BENCH(BM_Rgb2Hed_u8);
CUSK_COLOR_BENCH(BM_Rgb2Lab_u8);
CUSK_COLOR_BENCH(BM_Rgb2Gray_u8);
CUSK_COLOR_BENCH(BM_Rgb2Hsv_u8);
CUSK_COLOR_GRID_BENCH(BM_ColorGrid_Rgb2Hed_u8);
CUSK_COLOR_GRID_BENCH(BM_ColorGrid_Rgb2Lab_u8);
CUSK_COLOR_GRID_BENCH(BM_ColorGrid_Rgb2Gray_u8);
CUSK_COLOR_GRID_BENCH(BM_ColorGrid_Rgb2Hsv_u8);
CUSK_COLOR_BENCH(BM_Rgb2Hed_f32);
CUSK_COLOR_BENCH(BM_Rgb2Lab_f32);
CUSK_COLOR_BENCH(BM_Rgb2Ycbcr_u8);
CUSK_COLOR_BENCH(BM_Rgb2Luv_u8);
CUSK_COLOR_BENCH(BM_Rgb2Hsv_f32);
CUSK_COLOR_BENCH(BM_Lab2Rgb_f32);
CUSK_COLOR_BENCH(BM_Hed2Rgb_f64);
CUSK_COLOR_BENCH(BM_DeltaE2000_f32);
CUSK_COLOR_BENCH(BM_Label2RgbOverlay);
CUSK_COLOR_CPU_BENCH(BM_Cpu_Rgb2Hed_u8);
CUSK_COLOR_CPU_BENCH(BM_Cpu_Rgb2Lab_u8);
CUSK_COLOR_CPU_BENCH(BM_Cpu_Rgb2Gray_u8);
CUSK_COLOR_CPU_BENCH(BM_Cpu_Rgb2Hsv_u8);
