// segmentation.random_walker: argument handling, scikit-image's seed preprocessing (renumbering,
// unreachable unlabelled pockets) on the host for both backends, then the CPU's graph weights and
// conjugate gradients, or the CUDA backend (kernels/segmentation/random_walker.cu), which builds the
// graph on the device and runs the same iterations, all labels at once, with the same per-pixel
// weight, Laplacian and preconditioner (src/segmentation/random_walker.hpp); the dot products'
// summation order and exp's last bit differ.
#include "src/segmentation/random_walker.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "cuskimage/segmentation/random_walker.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using detail::RwGrid;
constexpr std::string_view kFn = "segmentation.random_walker";

/// The problem: grid dims (2-D: nz = 1), float64 data with channels last (on the host for the CPU
/// backend, else contiguous on the device in `ddata`), labels on the host.
struct RwProblem {
  std::int64_t nz = 1, ny = 1, nx = 1, n = 0, channels = 1;
  std::vector<double> data;
  Array ddata;
  std::vector<std::int64_t> labels;
  double sz = 1.0, sy = 1.0, sx = 1.0;
};

RwProblem load(const Array& data, const Array& labels, const RandomWalkerOptions& o, const Stream& stream) {
  const bool multi = o.channel_axis.has_value();
  expect_valid(data, kFn, "data");
  expect_valid(labels, kFn, "labels");
  expect(is_integer(labels.dtype()), kFn, "labels", "must have an integer dtype");
  Array d = data.share();
  if (multi) {
    expect(data.ndim() == 3 || data.ndim() == 4, kFn, "data", "must have 3 or 4 dimensions with channel_axis");
    const int ax = *o.channel_axis < 0 ? *o.channel_axis + data.ndim() : *o.channel_axis;
    expect(ax >= 0 && ax < data.ndim(), kFn, "channel_axis", "is out of range for the data");
    std::vector<int> perm;
    for (int a = 0; a < data.ndim(); ++a)
      if (a != ax) perm.push_back(a);
    perm.push_back(ax);
    d = data.transpose(perm);
  } else {
    expect(data.ndim() == 2 || data.ndim() == 3, kFn, "data", "must have 2 or 3 dimensions for grey input");
  }
  const int nd = multi ? d.ndim() - 1 : d.ndim();
  expect(labels.ndim() == nd, kFn, "labels", "must have the data's spatial shape");
  for (int a = 0; a < nd; ++a)
    expect(labels.shape()[a] == d.shape()[a], kFn, "labels", "must have the data's spatial shape");
  expect(o.spacing.empty() || int(o.spacing.size()) == nd, kFn, "spacing", "must have one value per spatial axis");
  RwProblem p;
  const Shape& s = labels.shape();
  if (nd == 3) p.nz = s[0];
  p.ny = s[nd - 2];
  p.nx = s[nd - 1];
  p.n = p.nz * p.ny * p.nx;
  p.channels = multi ? d.shape()[nd] : 1;
  if (!o.spacing.empty()) {
    if (nd == 3) p.sz = o.spacing[0];
    p.sy = o.spacing[nd - 2];
    p.sx = o.spacing[nd - 1];
  }
  if (data.device().is_cpu())
    p.data = util::img_as_float64(d, {}, stream).to_vector<double>();
  else
    p.ddata = util::img_as_float64(d, {}, stream).contiguous(stream);
  p.labels = labels.to(Device::cpu(), stream).to_vector<std::int64_t>();
  return p;
}

/// Pixels of `active` reached from `seed` through 2*ndim-connected active pixels.
std::vector<std::uint8_t> propagate(const RwProblem& p, const std::vector<std::uint8_t>& seed,
                                    const std::vector<std::uint8_t>& active) {
  std::vector<std::uint8_t> hit(seed.size(), 0);
  std::deque<std::int64_t> q;
  for (std::int64_t i = 0; i < p.n; ++i)
    if (seed[i] && active[i]) hit[i] = 1, q.push_back(i);
  const std::int64_t sy = p.nx, sz = p.nx * p.ny;
  while (!q.empty()) {
    const std::int64_t i = q.front();
    q.pop_front();
    const std::int64_t x = i % p.nx, y = (i / p.nx) % p.ny, z = i / sz;
    const std::int64_t nb[6] = {x > 0 ? i - 1 : -1,        x + 1 < p.nx ? i + 1 : -1, y > 0 ? i - sy : -1,
                                y + 1 < p.ny ? i + sy : -1, z > 0 ? i - sz : -1,      z + 1 < p.nz ? i + sz : -1};
    for (const std::int64_t j : nb)
      if (j >= 0 && active[j] && !hit[j]) hit[j] = 1, q.push_back(j);
  }
  return hit;
}

/// Advances a raster (z, y, x) position by one pixel.
void step_pos(std::int64_t* pos, const std::int64_t* len) {
  if (++pos[2] < len[2]) return;
  pos[2] = 0;
  if (++pos[1] < len[1]) return;
  pos[1] = 0;
  ++pos[0];
}

/// The graph: forward edge weights per axis and the degree of every unknown pixel (0 elsewhere).
struct RwGraph {
  std::vector<double> diag, wz, wy, wx;
  RwGrid grid(const RwProblem& p) const { return {p.nz, p.ny, p.nx, diag.data(), wz.data(), wy.data(), wx.data()}; }
};

RwGraph build_graph(const RwProblem& p, const std::vector<std::uint8_t>& active,
                    const std::vector<std::uint8_t>& unknown, double beta, bool multi) {
  const std::int64_t n = p.n, c = p.channels, total = n * c;
  double mean = 0.0, var = 0.0;
  for (const double v : p.data) mean += v;
  mean /= double(total);
  for (const double v : p.data) var += (v - mean) * (v - mean);
  const double scale = detail::rw_scale(beta, var, total, c, multi);
  RwGraph g;
  g.diag.assign(n, 0.0);
  g.wz.assign(n, 0.0);
  g.wy.assign(n, 0.0);
  g.wx.assign(n, 0.0);
  const std::int64_t steps[3] = {p.nx * p.ny, p.nx, 1};
  const double spacing[3] = {p.sz, p.sy, p.sx};
  std::vector<double>* w[3] = {&g.wz, &g.wy, &g.wx};
  const std::int64_t len[3] = {p.nz, p.ny, p.nx};
  std::int64_t pos[3] = {0, 0, 0};
  for (std::int64_t i = 0; i < n; ++i, step_pos(pos, len)) {
    for (int a = 0; a < 3; ++a) {
      const std::int64_t j = i + steps[a];
      if (pos[a] + 1 >= len[a] || !active[i] || !active[j]) continue;
      const double wt = detail::rw_weight(p.data.data(), i, j, c, spacing[a], scale);
      (*w[a])[i] = wt;
      g.diag[i] += wt;
      g.diag[j] += wt;
    }
  }
  for (std::int64_t i = 0; i < n; ++i)
    if (!unknown[i]) g.diag[i] = 0.0;
  return g;
}

/// Right-hand side of label `lab`: the weights from each unknown pixel to that label's seeds.
std::vector<double> rhs_for(const RwProblem& p, const RwGraph& g, const std::vector<std::int64_t>& relab,
                            const std::vector<std::uint8_t>& unknown, std::int64_t lab) {
  std::vector<double> b(p.n, 0.0);
  const std::int64_t steps[3] = {p.nx * p.ny, p.nx, 1};
  const std::vector<double>* w[3] = {&g.wz, &g.wy, &g.wx};
  const std::int64_t len[3] = {p.nz, p.ny, p.nx};
  std::int64_t pos[3] = {0, 0, 0};
  for (std::int64_t i = 0; i < p.n; ++i, step_pos(pos, len)) {
    for (int a = 0; a < 3; ++a) {
      if (pos[a] + 1 < len[a]) {
        const std::int64_t j = i + steps[a];
        const double wt = (*w[a])[i];
        if (unknown[i] && relab[j] == lab) b[i] += wt;
        if (unknown[j] && relab[i] == lab) b[j] += wt;
      }
    }
  }
  return b;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

/// scipy.sparse.linalg.cg(A, b, rtol=tol, atol=0, M) from x0 = 0, maxiter = 10 * unknowns. The
/// dot products are running sums fused into the passes that produce their operands.
std::vector<double> cpu_cg(const RwGrid& g, const std::vector<double>& b, std::int64_t unknowns, double tol,
                           bool jacobi) {
  const std::int64_t n = std::int64_t(b.size());
  double rr = dot(b, b);
  const double bnorm = std::sqrt(rr);
  if (bnorm == 0.0) return b;
  const double atol = tol * bnorm;
  std::vector<double> x(n, 0.0), r = b, z(n), p(n), q(n);
  double rho_prev = 1.0;
  for (std::int64_t it = 0; it < 10 * unknowns; ++it) {
    if (std::sqrt(rr) < atol) break;
    double rho = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      z[i] = detail::rw_precond(g, r.data(), i, jacobi);
      rho += r[i] * z[i];
    }
    const double beta = it > 0 ? rho / rho_prev : 0.0;
    for (std::int64_t i = 0; i < n; ++i) p[i] = it > 0 ? p[i] * beta + z[i] : z[i];
    double pq = 0.0;
    for (std::int64_t zz = 0, i = 0; zz < g.nz; ++zz)
      for (std::int64_t y = 0; y < g.ny; ++y)
        for (std::int64_t xx = 0; xx < g.nx; ++xx, ++i) {
          q[i] = detail::rw_apply(g, p.data(), i, zz, y, xx);
          pq += p[i] * q[i];
        }
    const double alpha = rho / pq;
    rr = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr += r[i] * r[i];
    }
    rho_prev = rho;
  }
  return x;
}

/// The sorted distinct values (np.unique); labels images hold few, so an insertion into a short
/// sorted list is cheaper than sorting every pixel.
std::vector<std::int64_t> distinct(const std::vector<std::int64_t>& v) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0 && v[i] == v[i - 1]) continue;
    const auto it = std::lower_bound(out.begin(), out.end(), v[i]);
    if (it != out.end() && *it == v[i]) continue;
    if (out.size() >= 4096) {
      out = v;
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
      return out;
    }
    out.insert(it, v[i]);
  }
  return out;
}

/// The labels scikit-image returns without solving (no unlabelled pixel, or none reachable).
Array unsolved(const RwProblem& p, const Array& labels, std::int64_t nlabels, const std::vector<std::uint8_t>* iso,
               bool full_prob, const Stream& stream, Device dev) {
  std::vector<std::int64_t> out = p.labels;
  if (iso != nullptr)
    for (std::int64_t i = 0; i < p.n; ++i)
      if ((*iso)[i]) out[i] = -1;
  if (full_prob && iso == nullptr) {
    // scikit-image stacks the seed indicators on a last axis; here they come first, as probabilities.
    std::vector<std::int64_t> vals;
    for (const auto v : p.labels)
      if (v > 0) vals.push_back(v);
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    Shape s = labels.shape();
    s.insert(s.begin(), std::int64_t(vals.size()));
    std::vector<double> prob(vals.size() * std::size_t(p.n), 0.0);
    for (std::size_t l = 0; l < vals.size(); ++l)
      for (std::int64_t i = 0; i < p.n; ++i) prob[l * p.n + i] = p.labels[i] == vals[l] ? 1.0 : 0.0;
    (void)nlabels;
    return Array::from_vector(prob, s).to(dev, stream);
  }
  return Array::from_vector(out, labels.shape()).astype(labels.dtype()).to(dev, stream);
}

/// The CUDA backend from the host's preprocessing: pixel codes (kRwIsolated) and the solve.
Array solve_cuda(const RwProblem& p, const RandomWalkerOptions& o, const Array& labels,
                 const std::vector<std::int64_t>& relab, const std::vector<std::uint8_t>& iso, std::int64_t nlabels,
                 std::int64_t unknowns, const Stream& stream) {
  std::vector<std::int32_t> code(p.n);
  for (std::int64_t i = 0; i < p.n; ++i) code[i] = iso[i] ? detail::kRwIsolated : std::int32_t(relab[i]);
  const detail::RwSpec spec{.nz = p.nz, .ny = p.ny, .nx = p.nx, .channels = p.channels,
                            .sz = p.sz, .sy = p.sy, .sx = p.sx, .beta = o.beta,
                            .multi = o.channel_axis.has_value(), .nlabels = int(nlabels),
                            .unknowns = unknowns, .tol = o.tol, .jacobi = o.mode != RandomWalkerMode::cg,
                            .full_prob = o.return_full_prob};
  cuskimage::detail::DeviceGuard guard(p.ddata.device().index());
  const Array out = detail::cuda_random_walker(p.ddata, code, spec, stream);
  if (!o.return_full_prob) return out.reshape(labels.shape()).astype(labels.dtype(), stream);
  Shape s = labels.shape();
  s.insert(s.begin(), nlabels);
  return out.reshape(s);
}

}  // namespace

Array random_walker(const Array& data, const Array& labels, const RandomWalkerOptions& o, const Stream& stream) {
  RwProblem p = load(data, labels, o, stream);
  const Device dev = data.device();
  const std::vector<std::int64_t> vals = distinct(p.labels);
  expect(vals.back() > 0, kFn, "labels", "has no seeds: it must contain at least one positive value");
  const auto zero = std::lower_bound(vals.begin(), vals.end(), std::int64_t(0));
  if (zero == vals.end() || *zero != 0) return unsolved(p, labels, 0, nullptr, o.return_full_prob, stream, dev);
  const std::int64_t zero_idx = zero - vals.begin(), nlabels = std::int64_t(vals.size()) - zero_idx - 1;
  std::vector<std::uint8_t> active(p.n), seeds(p.n), unknown(p.n), iso(p.n, 0);
  for (std::int64_t i = 0; i < p.n; ++i) active[i] = p.labels[i] >= 0, seeds[i] = p.labels[i] > 0;
  // Unlabelled pixels no seed can reach leave the graph (and keep label 0). Without inactive pixels
  // the grid is one component holding a seed: nothing to search.
  const auto reached = vals.front() < 0 ? propagate(p, seeds, active) : std::vector<std::uint8_t>(p.n, 1);
  std::int64_t unknowns = 0;
  for (std::int64_t i = 0; i < p.n; ++i) {
    iso[i] = p.labels[i] == 0 && !reached[i];
    if (iso[i]) active[i] = 0;
    unknown[i] = active[i] && p.labels[i] == 0;
    unknowns += unknown[i];
  }
  if (unknowns == 0) return unsolved(p, labels, nlabels, &iso, o.return_full_prob, stream, dev);
  std::vector<std::int64_t> relab(p.n);
  for (std::int64_t i = 0; i < p.n; ++i)
    relab[i] = i > 0 && p.labels[i] == p.labels[i - 1]
                   ? relab[i - 1]
                   : (std::lower_bound(vals.begin(), vals.end(), p.labels[i]) - vals.begin()) - zero_idx;
  const bool jacobi = o.mode != RandomWalkerMode::cg;
  if (dev.is_cuda()) return solve_cuda(p, o, labels, relab, iso, nlabels, unknowns, stream);
  const RwGraph g = build_graph(p, active, unknown, o.beta, o.channel_axis.has_value());
  std::vector<double> rhs(std::size_t(nlabels) * std::size_t(p.n));
  for (std::int64_t l = 0; l < nlabels; ++l) {
    const auto b = rhs_for(p, g, relab, unknown, l + 1);
    std::copy(b.begin(), b.end(), rhs.begin() + l * p.n);
  }
  std::vector<double> x(rhs.size());
  for (std::int64_t l = 0; l < nlabels; ++l) {
    const std::vector<double> b(rhs.begin() + l * p.n, rhs.begin() + (l + 1) * p.n);
    const auto xl = cpu_cg(g.grid(p), b, unknowns, o.tol, jacobi);
    std::copy(xl.begin(), xl.end(), x.begin() + l * p.n);
  }
  if (o.return_full_prob) {
    Shape s = labels.shape();
    s.insert(s.begin(), nlabels);
    std::vector<double> prob(x.size(), 0.0);
    for (std::int64_t l = 0; l < nlabels; ++l)
      for (std::int64_t i = 0; i < p.n; ++i)
        prob[l * p.n + i] = unknown[i] ? x[l * p.n + i] : (relab[i] == l + 1 ? 1.0 : 0.0);
    return Array::from_vector(prob, s).to(dev, stream);
  }
  for (std::int64_t i = 0; i < p.n; ++i) {
    if (!unknown[i]) continue;
    std::int64_t best = 0;  // np.argmax: the first maximum
    for (std::int64_t l = 1; l < nlabels; ++l)
      if (x[l * p.n + i] > x[best * p.n + i]) best = l;
    relab[i] = best + 1;
  }
  return Array::from_vector(relab, labels.shape()).astype(labels.dtype()).to(dev, stream);
}

}  // namespace cuskimage::segmentation
