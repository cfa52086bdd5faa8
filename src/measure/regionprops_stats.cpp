// measure.regionprops: the batched per-region statistics on the CPU (the oracle of the CUDA passes
// in kernels/measure/regionprops.cu). Pass 1 accumulates count, bounding box, coordinate sums and
// intensity sums/extremes per label in raster order; pass 2, when asked, the order-3 raw and
// central moments (unweighted and intensity-weighted) and the squared deviations from the mean.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/measure/regionprops.hpp"

namespace cuskimage::measure::detail {
namespace {

/// Maps a label to its row: a dense table when the labels are small, else binary search.
struct RowMap {
  std::vector<std::int64_t> dense;   // label -> row or -1
  std::vector<std::int64_t> sorted;  // present labels (when not dense)
  std::int64_t operator()(std::int64_t l) const {
    if (l <= 0) return -1;
    if (!dense.empty()) return l < static_cast<std::int64_t>(dense.size()) ? dense[l] : -1;
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), l);
    return (it != sorted.end() && *it == l) ? it - sorted.begin() : -1;
  }
};

/// Powers x^0..x^3.
inline void powers(double x, double* p) {
  p[0] = 1;
  p[1] = x;
  p[2] = x * x;
  p[3] = x * x * x;
}

}  // namespace

void cpu_region_stats(const Array& labels_in, const Array& intensity_in, int nch, const std::vector<double>& spacing,
                      const StatsRequest& req, RegionStats& st) {
  const Array lab = labels_in.astype(DType::int64).contiguous();
  const std::int64_t* L = lab.data<std::int64_t>();
  const std::int64_t size = lab.size();
  const int nd = lab.ndim();
  const Shape& shape = lab.shape();
  Array inten;
  const double* I = nullptr;
  if (nch > 0) {
    inten = intensity_in.astype(DType::float64).contiguous();
    I = inten.data<double>();
  }

  // Present labels in increasing order.
  RowMap map;
  std::int64_t maxl = 0;
  for (std::int64_t i = 0; i < size; ++i) maxl = std::max(maxl, L[i]);
  std::vector<std::int64_t> present;
  if (maxl <= std::max<std::int64_t>(4 * size, 1 << 20)) {
    std::vector<char> seen(static_cast<std::size_t>(maxl) + 1, 0);
    for (std::int64_t i = 0; i < size; ++i)
      if (L[i] > 0) seen[L[i]] = 1;
    map.dense.assign(seen.size(), -1);
    for (std::int64_t l = 1; l <= maxl; ++l)
      if (seen[l]) {
        map.dense[l] = static_cast<std::int64_t>(present.size());
        present.push_back(l);
      }
  } else {
    for (std::int64_t i = 0; i < size; ++i)
      if (L[i] > 0) present.push_back(L[i]);
    std::sort(present.begin(), present.end());
    present.erase(std::unique(present.begin(), present.end()), present.end());
    map.sorted = present;
  }

  const std::int64_t n = static_cast<std::int64_t>(present.size());
  st = RegionStats{};
  st.ndim = nd;
  st.nch = nch;
  st.n = n;
  st.label = present;
  st.count.assign(n, 0);
  st.lo.assign(n * nd, std::numeric_limits<std::int64_t>::max());
  st.hi.assign(n * nd, 0);
  st.coord_sum.assign(n * nd, 0.0);
  std::vector<std::int64_t> csum(n * nd, 0);
  if (nch > 0) {
    st.isum.assign(n * nch, 0.0);
    st.imin.assign(n * nch, std::numeric_limits<double>::infinity());
    st.imax.assign(n * nch, -std::numeric_limits<double>::infinity());
    st.iwsum.assign(n * nch * nd, 0.0);
  }

  std::vector<std::int64_t> x(nd, 0);
  for (std::int64_t i = 0; i < size; ++i) {
    const std::int64_t r = map(L[i]);
    if (r >= 0) {
      ++st.count[r];
      for (int a = 0; a < nd; ++a) {
        st.lo[r * nd + a] = std::min(st.lo[r * nd + a], x[a]);
        st.hi[r * nd + a] = std::max(st.hi[r * nd + a], x[a] + 1);
        csum[r * nd + a] += x[a];
      }
      for (int c = 0; c < nch; ++c) {
        const double v = I[i * nch + c];
        st.isum[r * nch + c] += v;
        st.imin[r * nch + c] = std::min(st.imin[r * nch + c], v);
        st.imax[r * nch + c] = std::max(st.imax[r * nch + c], v);
        for (int a = 0; a < nd; ++a) st.iwsum[(r * nch + c) * nd + a] += v * static_cast<double>(x[a]);
      }
    }
    for (int a = nd - 1; a >= 0; --a) {
      if (++x[a] < shape[a]) break;
      x[a] = 0;
    }
  }
  for (std::int64_t k = 0; k < n * nd; ++k) st.coord_sum[k] = static_cast<double>(csum[k]);
  if (!req.any_pass2()) return;

  const Pass2Params p2 = pass2_params(st, spacing);
  const int M = st.monomials();
  if (req.moments) {
    st.m_raw.assign(n * M, 0.0);
    st.m_cen.assign(n * M, 0.0);
  }
  if (req.weighted_moments && nch > 0) {
    st.wm_raw.assign(n * nch * M, 0.0);
    st.wm_cen.assign(n * nch * M, 0.0);
  }
  if (req.intensity_sqdev && nch > 0) st.isqdev.assign(n * nch, 0.0);
  std::fill(x.begin(), x.end(), 0);
  double pr[3][4], pc[3][4], pw[3][4];
  for (std::int64_t i = 0; i < size; ++i) {
    const std::int64_t r = map(L[i]);
    if (r >= 0) {
      for (int a = 0; a < nd; ++a) {
        const double xl = static_cast<double>(x[a] - p2.lo[r * nd + a]) * spacing[a];
        powers(xl, pr[a]);
        powers(xl - p2.cen[r * nd + a], pc[a]);
      }
      if (req.moments) {
        for (int k = 0; k < M; ++k) {
          double vr = 1, vc = 1;
          int kk = k;
          for (int a = nd - 1; a >= 0; --a, kk /= 4) {
            vr *= pr[a][kk % 4];
            vc *= pc[a][kk % 4];
          }
          st.m_raw[r * M + k] += vr;
          st.m_cen[r * M + k] += vc;
        }
      }
      for (int c = 0; c < nch; ++c) {
        const double v = I[i * nch + c];
        if (!st.isqdev.empty()) {
          const double d = v - p2.mean[r * nch + c];
          st.isqdev[r * nch + c] += d * d;
        }
        if (st.wm_raw.empty()) continue;
        for (int a = 0; a < nd; ++a) {
          const double xl = static_cast<double>(x[a] - p2.lo[r * nd + a]) * spacing[a];
          powers(xl - p2.wcen[(r * nch + c) * nd + a], pw[a]);
        }
        for (int k = 0; k < M; ++k) {
          double vr = v, vc = v;
          int kk = k;
          for (int a = nd - 1; a >= 0; --a, kk /= 4) {
            vr *= pr[a][kk % 4];
            vc *= pw[a][kk % 4];
          }
          st.wm_raw[(r * nch + c) * M + k] += vr;
          st.wm_cen[(r * nch + c) * M + k] += vc;
        }
      }
    }
    for (int a = nd - 1; a >= 0; --a) {
      if (++x[a] < shape[a]) break;
      x[a] = 0;
    }
  }
}

Pass2Params pass2_params(const RegionStats& st, const std::vector<double>& spacing) {
  Pass2Params p;
  const int nd = st.ndim, nch = st.nch;
  p.lo = st.lo;
  p.cen.resize(st.n * nd);
  p.wcen.resize(st.n * nch * nd);
  p.mean.resize(st.n * nch);
  for (std::int64_t r = 0; r < st.n; ++r) {
    const double cnt = static_cast<double>(st.count[r]);
    for (int a = 0; a < nd; ++a)
      p.cen[r * nd + a] = (st.coord_sum[r * nd + a] / cnt - static_cast<double>(st.lo[r * nd + a])) * spacing[a];
    for (int c = 0; c < nch; ++c) {
      const double s = st.isum[r * nch + c];
      p.mean[r * nch + c] = s / cnt;
      for (int a = 0; a < nd; ++a)
        p.wcen[(r * nch + c) * nd + a] =
            (st.iwsum[(r * nch + c) * nd + a] / s - static_cast<double>(st.lo[r * nd + a])) * spacing[a];
    }
  }
  return p;
}

}  // namespace cuskimage::measure::detail
