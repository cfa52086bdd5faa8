// segmentation.random_walker, the case: 512^2 float64 texture, two labels (cuCIM 26.10:
// 361 ms; target <= 36 ms). Seeds: label 1 on the texture's brightest 2 % of pixels, label 2 on its
// darkest 2 % (bench/compare/ops_segmentation.py makes the same ones).
//
// Bytes: the op reads the data (8 B/px) and labels (4 B/px) and writes labels (4 B/px), and its
// conjugate gradients (scipy's cg_j: 146 iterations per label on this input, counted with
// scikit-image 0.26) move per iteration, label and pixel 112 B: the p-kernel reads r, p, degree
// and two weights (40) and writes p, q (16); the x-kernel reads p, q, x, r, degree (40) and writes
// x, r (16). Both labels run as one batch: 16 + 146 * 2 * 112 = 32,720 B/px = 8.6 GB -> 2.0 ms at
// 4.2 TB/s (the ~28 MB working set fits the H200's L2, so launch latency, two kernels per
// iteration, is the other bound). On top: the labels' trip to the host for the seed
// preprocessing and a convergence read every 16 iterations.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/segmentation.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

namespace {

const Shape k512 = {512, 512};
// Bytes per pixel: data, labels in and out, and the batched conjugate gradients (see above).
constexpr double kBytesPerPx = 16.0 + 146.0 * 2.0 * 112.0;

/// 1 on the brightest 2 %, 2 on the darkest 2 % (ties at the cut included), int32.
Array seeds(const Array& img) {
  const auto v = img.to_vector<double>();
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size(), k = n / 50;
  std::vector<std::int32_t> lab(n, 0);
  for (std::size_t i = 0; i < n; ++i) lab[i] = v[i] >= s[n - k] ? 1 : (v[i] <= s[k - 1] ? 2 : 0);
  return Array::from_vector(lab, img.shape());
}

void BM_RandomWalker_512(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array host = cuskbench::test_image(k512, DType::float64, Device::cpu());
  const Array img = host.to(Device::cuda()), lab = seeds(host).to(Device::cuda());
  st.SetLabel("[512, 512] float64, two labels, cg_j");
  cuskbench::run(st, kBytesPerPx * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::random_walker(img, lab, {}, s)); });
}

void BM_Cpu_RandomWalker_512(benchmark::State& st) {
  const Array img = cuskbench::test_image(k512, DType::float64, Device::cpu());
  const Array lab = seeds(img);
  st.SetLabel("[512, 512] float64, two labels, cg_j");
  cuskbench::run_cpu(st, kBytesPerPx * static_cast<double>(img.size()),
                     [&] { benchmark::DoNotOptimize(seg::random_walker(img, lab)); });
}

}  // namespace

BENCHMARK(BM_RandomWalker_512)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_RandomWalker_512)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
