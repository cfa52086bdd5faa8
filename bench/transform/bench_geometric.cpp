// skimage.transform._geometric on the host (point lists; no GPU path): estimation of the projective
// family, polynomial and piecewise-affine transforms from N correspondences, and matrix_transform
// of 1M points. Bytes moved: the float64 points read and written (2 * N * D * 8 for an estimation's
// src and dst, 2 * N * 16 for matrix_transform); the estimations are bound by their SVD / Delaunay
// work, not by these bytes.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/transform/geometric.hpp"

namespace tr = cuskimage::transform;
using cuskimage::Array;

namespace {

/// src uniform in [0, 1000)^2 and dst a perturbed projective image of it.
std::pair<Array, Array> correspondences(std::int64_t n) {
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> u(0.0, 1000.0);
  std::normal_distribution<double> noise(0.0, 0.5);
  std::vector<double> s(static_cast<std::size_t>(2 * n));
  for (double& v : s) v = u(rng);
  const Array src = Array::from_vector(s, {n, 2});
  const tr::ProjectiveTransform h(tr::Matrix(3, 3, {1.1, 0.2, 5.0, -0.1, 0.9, -3.0, 1e-4, -5e-5, 1.0}));
  std::vector<double> d = h(src).to_vector<double>();
  for (double& v : d) v += noise(rng);
  return {src.copy(), Array::from_vector(d, {n, 2})};
}

void BM_Estimate(benchmark::State& st) {
  const auto ttype = static_cast<tr::TransformType>(st.range(0));
  const std::int64_t n = st.range(1);
  const auto [src, dst] = correspondences(n);
  tr::EstimateTransformOptions opts;
  opts.order = 3;
  st.SetLabel(std::string(cuskimage::meta::enum_name(ttype)) + " N=" + std::to_string(n));
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(src.nbytes()),
                     [&] { benchmark::DoNotOptimize(tr::estimate_transform(ttype, src, dst, opts)); });
}
BENCHMARK(BM_Estimate)
    ->Args({static_cast<int>(tr::TransformType::similarity), 10000})
    ->Args({static_cast<int>(tr::TransformType::affine), 10000})
    ->Args({static_cast<int>(tr::TransformType::projective), 10000})
    ->Args({static_cast<int>(tr::TransformType::polynomial), 10000})
    ->Args({static_cast<int>(tr::TransformType::fundamental), 10000})
    ->Args({static_cast<int>(tr::TransformType::piecewise_affine), 1000})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_MatrixTransform(benchmark::State& st) {
  const std::int64_t n = 1 << 20;
  const auto [src, dst] = correspondences(n);
  const tr::Matrix m(3, 3, {0.9, -0.2, 4.0, 0.3, 1.1, -2.0, 1e-4, 2e-4, 1.0});
  st.SetLabel("N=1M");
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(src.nbytes()),
                     [&] { benchmark::DoNotOptimize(tr::matrix_transform(src, m)); });
}
BENCHMARK(BM_MatrixTransform)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
