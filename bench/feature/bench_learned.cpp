// Learned features: Cascade.detect_multi_scale with scikit-image's LBP face cascade
// (tests/feature/data/) on the benchmark texture, device sweep and host sweep; fisher_vector of
// 4096 x 128 descriptors under a 64-mode GMM and learn_gmm (16 modes) on the host.
// Bytes moved (detect): the uint8 image read (1 B/px) and the float32 integral image uploaded
// (4 B/px): 2048^2 moves 21 MB, floor 0.005 ms; the time is the host integral image and the
// early-exit window sweep (12 scales from 24 to 200 pixels).
// Bytes moved (fisher_vector): the descriptors (8 B each), 4 MB.
// No issue targets; scikit-image (16 cores) times are in bench/compare/ops_feature.py's block.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/feature.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

namespace {

/// The face cascade: next to this source (__FILE__ may be relative to the build directory), or
/// under the repository root or the build directory as the current directory; else a skip.
std::optional<ft::Cascade> face_cascade(benchmark::State& st) {
  namespace fs = std::filesystem;
  const fs::path rel = "tests/feature/data/lbpcascade_frontalface_opencv.xml";
  fs::path path = fs::path(__FILE__).parent_path() / "../.." / rel;
  for (const fs::path& p : {rel, fs::path("..") / rel})
    if (!fs::exists(path) && fs::exists(p)) path = p;
  try {
    return ft::Cascade(path.string());
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return std::nullopt;
  }
}

constexpr ft::DetectMultiScaleOptions kOpts{.scale_factor = 1.2, .step_ratio = 1.0, .min_size = {24, 24},
                                            .max_size = {200, 200}};

void BM_CascadeDetect(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const auto casc = face_cascade(st);
  if (!casc) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::uint8, Device::cuda());
  cuskbench::run(st, 5.0 * static_cast<double>(n * n),
                 [&](const Stream& s) { benchmark::DoNotOptimize(casc->detect_multi_scale(img, kOpts, s)); }, 1);
}

void BM_Cpu_CascadeDetect(benchmark::State& st) {
  const auto casc = face_cascade(st);
  if (!casc) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::uint8, Device::cpu());
  cuskbench::run_cpu(st, 5.0 * static_cast<double>(n * n),
                     [&] { benchmark::DoNotOptimize(casc->detect_multi_scale(img, kOpts)); });
}

void BM_Cpu_FisherVector(benchmark::State& st) {
  const Array x = cuskbench::test_image({4096, 128}, DType::float64, Device::cpu());
  const Array train = cuskbench::test_image({8192, 128}, DType::float64, Device::cpu());
  const ft::Gmm g = ft::learn_gmm(train, {.n_modes = 64, .max_iter = 3, .init_params = ft::GmmInit::random_from_data});
  cuskbench::run_cpu(st, 8.0 * static_cast<double>(x.size()),
                     [&] { benchmark::DoNotOptimize(ft::fisher_vector(x, g)); });
}

void BM_Cpu_LearnGmm(benchmark::State& st) {
  const Array x = cuskbench::test_image({4096, 32}, DType::float64, Device::cpu());
  cuskbench::run_cpu(st, 8.0 * static_cast<double>(x.size()),
                     [&] { benchmark::DoNotOptimize(ft::learn_gmm(x, {.n_modes = 16})); });
}

}  // namespace

BENCHMARK(BM_CascadeDetect)->Arg(512)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_CascadeDetect)->Arg(512)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_FisherVector)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_LearnGmm)->UseManualTime()->Unit(benchmark::kMillisecond);
