// feature.match_descriptors: argument handling, the CPU backend and the selection shared by both
// backends (the CUDA backend, kernels/feature/match.cu, returns the per-row and per-column minima).
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/match.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
using detail::MatchMinima;
constexpr std::string_view kFn = "feature.match_descriptors";

/// The descriptors as contiguous float64 (as cdist reads them), rows centred for correlation.
Array prepare(const Array& d, MatchMetric m, const Stream& s) {
  Array x = d.astype(DType::float64, s).contiguous(s);
  if (m != MatchMetric::correlation) return x;
  Array h = x.to(Device::cpu(), s);
  s.synchronize();
  double* v = h.data<double>();
  const std::int64_t n = h.shape(1);
  for (std::int64_t r = 0; r < h.shape(0); ++r) {
    const double mean = detail::row_mean(v + r * n, n);
    for (std::int64_t k = 0; k < n; ++k) v[r * n + k] -= mean;
  }
  return h.to(d.device(), s);
}

void cpu_minima(const Array& a, const Array& b, MatchMetric m, double p, bool columns, MatchMinima& out) {
  const std::int64_t rows = a.shape(0), cols = b.shape(0), n = a.shape(1);
  const double* A = a.data<double>();
  const double* B = b.data<double>();
  const double inf = std::numeric_limits<double>::infinity();
  out.best.assign(rows, 0);
  out.best_d.assign(rows, inf);
  out.second_d.assign(rows, inf);
  out.col_best.assign(columns ? cols : 0, 0);
  std::vector<double> col_d(columns ? cols : 0, inf);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      detail::PairAcc acc;
      for (std::int64_t k = 0; k < n; ++k) detail::pair_add(m, p, acc, A[i * n + k], B[j * n + k]);
      const double d = detail::pair_finish(m, p, acc, n);
      if (j == 0 || d < out.best_d[i]) {
        if (j > 0) out.second_d[i] = out.best_d[i];
        out.best_d[i] = d;
        out.best[i] = j;
      } else if (d < out.second_d[i]) {
        out.second_d[i] = d;
      }
      if (columns && (i == 0 || d < col_d[j])) {
        col_d[j] = d;
        out.col_best[j] = i;
      }
    }
  }
}

}  // namespace

Array match_descriptors(const Array& descriptors1, const Array& descriptors2, const MatchDescriptorsOptions& opts,
                        const Stream& stream) {
  cuskimage::detail::expect_valid(descriptors1, kFn, "descriptors1");
  cuskimage::detail::expect_valid(descriptors2, kFn, "descriptors2");
  cuskimage::detail::expect_ndim(descriptors1, kFn, "descriptors1", 2, 2);
  cuskimage::detail::expect_ndim(descriptors2, kFn, "descriptors2", 2, 2);
  cuskimage::detail::expect_same_device(descriptors1, descriptors2, kFn, "descriptors1", "descriptors2");
  expect(descriptors1.shape(1) == descriptors2.shape(1), kFn, "descriptors2",
         "must have the descriptor length of descriptors1 (", descriptors1.shape(1), "), got ", descriptors2.shape(1));
  const bool empty_ok = !opts.cross_check && descriptors1.shape(0) == 0;
  expect((descriptors2.shape(0) > 0 && descriptors1.shape(0) > 0) || empty_ok, kFn, "descriptors2",
         "and descriptors1 must not be empty (argmin of an empty sequence)");
  expect(descriptors1.shape(1) > 0, kFn, "descriptors1", "must have descriptors of length >= 1");
  expect(opts.p > 0, kFn, "p", "must be > 0, got ", opts.p);
  const MatchMetric m = opts.metric.value_or(descriptors1.dtype() == DType::bool_ ? MatchMetric::hamming
                                                                                   : MatchMetric::euclidean);
  const Device dev = descriptors1.device();
  if (descriptors1.shape(0) == 0) return Array::zeros({0, 2}, DType::int64, dev, stream);
  const Array a = prepare(descriptors1, m, stream), b = prepare(descriptors2, m, stream);
  MatchMinima mm;
  cuskimage::detail::on_backend(
      a, stream, [&] { cpu_minima(a, b, m, opts.p, opts.cross_check, mm); },
      [&](const Stream& s) { detail::cuda_match_minima(a, b, m, opts.p, opts.cross_check, mm, s); });
  const double eps = std::numeric_limits<double>::epsilon();
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < a.shape(0); ++i) {
    const std::int64_t j = mm.best[i];
    if (opts.cross_check && mm.col_best[j] != i) continue;
    if (opts.max_distance < std::numeric_limits<double>::infinity() && !(mm.best_d[i] < opts.max_distance)) continue;
    if (opts.max_ratio < 1.0) {
      const double second = mm.second_d[i] == 0 ? eps : mm.second_d[i];
      if (!(mm.best_d[i] / second < opts.max_ratio)) continue;
    }
    out.push_back(i);
    out.push_back(j);
  }
  const std::int64_t q = static_cast<std::int64_t>(out.size() / 2);
  if (q == 0) return Array::zeros({0, 2}, DType::int64, dev, stream);
  return Array::from_vector(out, {q, 2}).to(dev, stream);
}

}  // namespace cuskimage::feature
