// Internal: match_descriptors' per-pair distances (shared by the CPU backend and
// kernels/feature/match.cu) and its CUDA entry point.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/feature/match.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

/// Running sums of one descriptor pair, fed one feature at a time (scipy's formulas; correlation
/// takes rows centred beforehand and is then the cosine distance).
/// p = inf without std::isinf (host and device alike).
CUSK_HD bool p_is_inf(double p) { return p > 1.7976931348623157e308; }

struct PairAcc {
  double a = 0, b = 0, c = 0;
};

CUSK_HD void pair_add(MatchMetric m, double p, PairAcc& s, double u, double v) {
  const double d = u - v, ad = d < 0 ? -d : d;
  switch (m) {
    case MatchMetric::euclidean:
    case MatchMetric::sqeuclidean: s.a += d * d; break;
    case MatchMetric::cityblock: s.a += ad; break;
    case MatchMetric::minkowski:
      s.a += p == 1 ? ad : p == 2 ? ad * ad : p_is_inf(p) ? 0.0 : pow(ad, p);
      if (p_is_inf(p)) s.b = ad > s.b ? ad : s.b;
      break;
    case MatchMetric::chebyshev: s.a = ad > s.a ? ad : s.a; break;
    case MatchMetric::hamming: s.a += u != v ? 1.0 : 0.0; break;
    case MatchMetric::cosine:
    case MatchMetric::correlation:
      s.a += u * v;
      s.b += u * u;
      s.c += v * v;
      break;
    case MatchMetric::braycurtis:
      s.a += ad;
      s.b += u + v < 0 ? -(u + v) : u + v;
      break;
    case MatchMetric::canberra: {
      const double den = (u < 0 ? -u : u) + (v < 0 ? -v : v);
      if (den > 0) s.a += ad / den;
      break;
    }
    case MatchMetric::jaccard: {
      const bool nz = u != 0 || v != 0;
      s.a += nz ? 1.0 : 0.0;
      s.b += nz && u != v ? 1.0 : 0.0;
      break;
    }
  }
}

CUSK_HD double pair_finish(MatchMetric m, double p, const PairAcc& s, std::int64_t n) {
  switch (m) {
    case MatchMetric::euclidean: return sqrt(s.a);
    case MatchMetric::minkowski:
      return p_is_inf(p) ? s.b : p == 1 ? s.a : p == 2 ? sqrt(s.a) : pow(s.a, 1.0 / p);
    case MatchMetric::hamming: return s.a / static_cast<double>(n);
    case MatchMetric::cosine:
    case MatchMetric::correlation: {
      double c = s.a / (sqrt(s.b) * sqrt(s.c));
      if ((c < 0 ? -c : c) > 1.0) c = c < 0 ? -1.0 : 1.0;
      return 1.0 - c;
    }
    case MatchMetric::braycurtis: return s.a / s.b;
    case MatchMetric::jaccard: return s.a > 0 ? s.b / s.a : 0.0;
    default: return s.a;
  }
}

/// The row mean subtracted for the correlation metric (sequential sum).
CUSK_HD double row_mean(const double* row, std::int64_t n) {
  double s = 0;
  for (std::int64_t k = 0; k < n; ++k) s += row[k];
  return s / static_cast<double>(n);
}

/// Per-row and per-column minima of the distance table, the host's input to the selection.
struct MatchMinima {
  std::vector<std::int64_t> best;          // M: first argmin of each row
  std::vector<double> best_d, second_d;    // M: its distance, the minimum over the other columns
  std::vector<std::int64_t> col_best;      // N: first argmin of each column (cross check only)
};

/// CUDA backend: a, b contiguous float64 (M, P), (N, P) device arrays (rows centred for
/// correlation). Fills `out` (col_best only when `columns`).
void cuda_match_minima(const Array& a, const Array& b, MatchMetric m, double p, bool columns, MatchMinima& out,
                       const Stream& stream);

}  // namespace cuskimage::feature::detail
