// registration: phase_cross_correlation on the 4096^2 float32 pair (upsample_factor 1 and
// 10) and the standard shapes (512^2, 3840x2160, 8192^2, 192^3; upsample 1).
// Bytes moved (kernels/registration/phase_cross_correlation.cu's model, float32, N pixels): two R2C
// (read 4N, write ~4N each), the fused cross-power pass (read 8N, write 4N), C2R (read 4N, write 4N),
// argmax (read 4N): 40 B/px; upsampling re-reads both half spectra for each row and its mirror
// (+16 B/px). 4096^2: floor 0.16 ms (u1) / 0.22 ms (u10) at 4.2 TB/s; targets 0.50 / 0.70 ms.
// Optical flows on 512^2 and 1024^2 float32 pairs (the target shape is 1024^2):
// kernels/registration/optical_flow.cu's model, per pixel of the finest level (x1.33 for the
// pyramid): TV-L1 ~5 warps x (40 + 10 x (36 + 4 x 36)) ~ 9.2 kB; ILK ~10 warps x ~110 B.
// Targets (H200): TV-L1 1024^2 <= 50 ms, ILK 1024^2 <= 10 ms.
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/registration.hpp"

namespace reg = cuskimage::registration;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;

namespace {

/// The moving image: the reference rolled by (13, -7) (a shift every method must find).
Array rolled(const Array& ref) {
  Array host = ref.to(Device::cpu());
  Array out = Array::empty(host.shape(), host.dtype());
  const std::int64_t n0 = host.shape(0), rest = host.size() / n0;
  const float* s = host.data<float>();
  float* d = out.data<float>();
  for (std::int64_t i = 0; i < n0; ++i)
    for (std::int64_t j = 0; j < rest; ++j) d[((i + 13) % n0) * rest + (j + rest - 7) % rest] = s[i * rest + j];
  return out.to(Device::cuda());
}

void run_pcc(benchmark::State& st, const Shape& shape, double upsample) {
  const Array ref = cuskbench::test_image(shape, DType::float32, Device::cuda());
  const Array mov = rolled(ref);
  const double px = static_cast<double>(ref.size());
  st.SetLabel(cuskimage::shape_str(shape) + " float32 upsample " + std::to_string(static_cast<int>(upsample)));
  cuskbench::run(st, (upsample > 1 ? 56.0 : 40.0) * px, [&](const Stream& s) {
    (void)reg::phase_cross_correlation(ref, mov, {.upsample_factor = upsample}, s);
  });
}

void BM_PhaseCrossCorrelation_4096(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  run_pcc(st, {4096, 4096}, static_cast<double>(st.range(0)));
}

void BM_PhaseCrossCorrelation_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  run_pcc(st, cuskbench::shape_arg(st), 1.0);
}

void BM_OpticalFlowTvl1_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array ref = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  const Array mov = rolled(ref);
  st.SetLabel(std::to_string(n) + "^2 float32");
  cuskbench::run(st, 9200.0 * 1.33 * static_cast<double>(ref.size()),
                 [&](const Stream& s) { (void)reg::optical_flow_tvl1(ref, mov, {}, s); });
}

void BM_OpticalFlowIlk_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array ref = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  const Array mov = rolled(ref);
  st.SetLabel(std::to_string(n) + "^2 float32");
  cuskbench::run(st, 1100.0 * 1.33 * static_cast<double>(ref.size()),
                 [&](const Stream& s) { (void)reg::optical_flow_ilk(ref, mov, {}, s); });
}

}  // namespace

BENCHMARK(BM_OpticalFlowTvl1_f32)->Arg(512)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OpticalFlowIlk_f32)->Arg(512)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PhaseCrossCorrelation_4096)->Arg(1)->Arg(10)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PhaseCrossCorrelation_f32)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
