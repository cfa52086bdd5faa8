// transform.iradon_sart and transform.order_angles_golden_ratio (host): scikit-image's SART pass
// (_radon_transform.pyx's bilinear ray sum and ray update) in its mixed float / double arithmetic:
// for float32, the values declared float round on every assignment while the double literals and
// libm calls (1. - di, cos, sqrt) promote their expressions to double, as the compiled Cython does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <numeric>
#include <string_view>
#include <vector>

#include "cuskimage/transform/radon_transform.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kSart = "transform.iradon_sart";

/// numpy's float remainder (the sign of the divisor), in F.
template <class F>
F py_mod(F a, F b) {
  F m = std::fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(F(0), b);
  }
  return m;
}

template <class F>
std::vector<std::int64_t> golden_order(const std::vector<F>& theta) {
  const F interval = 180;
  std::vector<std::int64_t> rem(theta.size());
  std::iota(rem.begin(), rem.end(), 0);
  std::stable_sort(rem.begin(), rem.end(), [&](std::int64_t a, std::int64_t b) { return theta[a] < theta[b]; });
  std::vector<std::int64_t> out;
  if (rem.empty()) return out;
  F angle = theta[rem[0]];
  out.push_back(rem[0]);
  rem.erase(rem.begin());
  const double golden = (1 + std::sqrt(5.0)) / 2;  // scipy.constants.golden_ratio
  const F inc = static_cast<F>(180 / (golden * golden));
  std::vector<F> ra;
  while (!rem.empty()) {
    ra.resize(rem.size());
    for (std::size_t i = 0; i < rem.size(); ++i) ra[i] = theta[rem[i]];
    angle = py_mod<F>(angle + inc, interval);
    const auto n = static_cast<std::int64_t>(rem.size());
    std::int64_t above = std::lower_bound(ra.begin(), ra.end(), angle) - ra.begin();
    std::int64_t below = above - 1;
    if (below < 0) below += n;  // Python's negative index
    above %= n;
    const F db = std::abs(angle - ra[below]), da = std::abs(angle - ra[above]);
    const F dist_below = std::min(py_mod<F>(db, interval), py_mod<F>(db, -interval));
    const F dist_above = std::min(py_mod<F>(da, interval), py_mod<F>(da, -interval));
    const std::int64_t pick = dist_below < dist_above ? below : above;
    out.push_back(rem[pick]);
    rem.erase(rem.begin() + pick);
  }
  return out;
}

/// The geometry of one ray (bilinear_ray_sum / bilinear_ray_update share it).
template <class F>
struct Ray {
  std::int64_t ns = 0;
  F ds = 0, dx = 0, dy = 0, x0 = 0, y0 = 0, center = 0;
};

template <class F>
Ray<F> ray_geometry(std::int64_t n, F theta_deg, F ray_position) {
  Ray<F> g;
  const F theta = static_cast<F>(static_cast<double>(theta_deg) / 180. * std::numbers::pi);
  const F radius = static_cast<F>(n / 2 - 1);
  g.center = static_cast<F>(n / 2);
  const F t = ray_position - g.center;
  const F s0 = radius * radius >= t * t ? static_cast<F>(std::sqrt(static_cast<double>(radius * radius - t * t))) : F(0);
  g.ns = 2 * static_cast<std::int64_t>(std::ceil(static_cast<double>(F(2) * s0)));
  if (g.ns > 0) {
    const double c = std::cos(static_cast<double>(theta)), s = std::sin(static_cast<double>(theta));
    g.ds = F(2) * s0 / static_cast<F>(g.ns);
    g.dx = static_cast<F>(static_cast<double>(-g.ds) * c);
    g.dy = static_cast<F>(static_cast<double>(-g.ds) * s);
    g.x0 = static_cast<F>(static_cast<double>(s0) * c - static_cast<double>(t) * s);
    g.y0 = static_cast<F>(static_cast<double>(s0) * s + static_cast<double>(t) * c);
  }
  return g;
}

/// Sample k of a ray: the cell (i, j) and its fractions (di, dj).
template <class F>
void ray_sample(const Ray<F>& g, std::int64_t k, std::int64_t& i, std::int64_t& j, F& di, F& dj) {
  const F x = g.x0 + static_cast<F>(k) * g.dx, y = g.y0 + static_cast<F>(k) * g.dy;
  const F ii = x + g.center, jj = y + g.center;
  const double fi = std::floor(static_cast<double>(ii)), fj = std::floor(static_cast<double>(jj));
  i = static_cast<std::int64_t>(fi);
  j = static_cast<std::int64_t>(fj);
  di = static_cast<F>(static_cast<double>(ii) - fi);
  dj = static_cast<F>(static_cast<double>(jj) - fj);
}

template <class F>
void ray_update(const std::vector<F>& img, std::vector<F>& upd, std::int64_t n, F theta, F pos, F value) {
  const Ray<F> g = ray_geometry(n, theta, pos);
  F ray_sum = 0, norm = 0;
  const auto at = [&](std::int64_t i, std::int64_t j) { return img[i * n + j]; };
  for (std::int64_t k = 0; g.ns > 0 && k <= g.ns; ++k) {
    std::int64_t i, j;
    F di, dj;
    ray_sample(g, k, i, j, di, dj);
    const auto add = [&](bool ok, double w, std::int64_t a, std::int64_t b) {
      if (!ok) return;
      const F wf = static_cast<F>(w);
      ray_sum += wf * at(a, b);
      norm += wf * wf;
    };
    add(i > 0 && j > 0, (1. - di) * (1. - dj) * g.ds, i, j);
    add(i > 0 && j < n - 1, (1. - di) * dj * g.ds, i, j + 1);
    add(i < n - 1 && j > 0, static_cast<double>(di * (F(1) - dj) * g.ds), i + 1, j);
    add(i < n - 1 && j < n - 1, static_cast<double>(di * dj * g.ds), i + 1, j + 1);
  }
  const F deviation = norm > 0 ? -(ray_sum - value) / norm : F(0);
  constexpr F beta = static_cast<F>(0.46164);
  for (std::int64_t k = 0; g.ns > 0 && k <= g.ns; ++k) {
    std::int64_t i, j;
    F di, dj;
    ray_sample(g, k, i, j, di, dj);
    const F hw = static_cast<F>(static_cast<double>(F(1) - beta) -
                                static_cast<double>(beta) * std::cos(2 * std::numbers::pi * static_cast<double>(k) /
                                                                     static_cast<double>(g.ns - 1)));
    // The first two products are double (scikit-image's `1.` literals), the last two float for F =
    // float (its `1 - dj`); each update rounds into F.
    const auto put = [&](bool ok, double v, std::int64_t a, std::int64_t b) {
      if (ok) upd[a * n + b] = static_cast<F>(static_cast<double>(upd[a * n + b]) + v);
    };
    const double dv = static_cast<double>(deviation);
    put(i > 0 && j > 0, dv * (1. - di) * (1. - dj) * g.ds * hw, i, j);
    put(i > 0 && j < n - 1, dv * (1. - di) * dj * g.ds * hw, i, j + 1);
    put(i < n - 1 && j > 0, static_cast<double>(deviation * di * (F(1) - dj) * g.ds * hw), i + 1, j);
    put(i < n - 1 && j < n - 1, static_cast<double>(deviation * di * dj * g.ds * hw), i + 1, j + 1);
  }
}

template <class F>
Array sart(const Array& sino, const IradonSartOptions& opts, std::vector<F> theta, const Stream& stream) {
  const std::int64_t n = sino.shape(0), na = sino.shape(1);
  const DType dt = dtype_v<F>;
  const Array hs = sino.to(Device::cpu(), stream).astype(dt);
  std::vector<F> image(static_cast<std::size_t>(n * n), F(0));
  if (opts.image) {
    expect(opts.image->shape() == Shape{n, n}, kSart, "image", "must have shape (", n, ", ", n, "), got ",
           opts.image->str());
    const Array hi = opts.image->to(Device::cpu(), stream).astype(dt);
    stream.synchronize();
    image = hi.to_vector<F>();
  }
  stream.synchronize();
  const std::vector<F> s = hs.to_vector<F>();
  std::vector<F> shifts(static_cast<std::size_t>(na), F(0));
  if (!opts.projection_shifts.empty())
    for (std::int64_t a = 0; a < na; ++a) shifts[a] = static_cast<F>(opts.projection_shifts[a]);
  const F relax = static_cast<F>(opts.relaxation);
  std::vector<F> upd(image.size());
  for (std::int64_t a : golden_order(theta)) {
    std::fill(upd.begin(), upd.end(), F(0));
    for (std::int64_t p = 0; p < n; ++p)
      ray_update(image, upd, n, theta[a], static_cast<F>(static_cast<F>(p) + shifts[a]), s[p * na + a]);
    for (std::size_t i = 0; i < image.size(); ++i) image[i] = image[i] + relax * upd[i];
    if (opts.clip) {
      const F lo = static_cast<F>((*opts.clip)[0]), hi = static_cast<F>((*opts.clip)[1]);
      for (F& v : image) v = std::min(std::max(v, lo), hi);
    }
  }
  return Array::from_vector(image, {n, n}).to(sino.device(), stream);
}

}  // namespace

std::vector<std::int64_t> order_angles_golden_ratio(const std::vector<double>& theta, bool single) {
  if (single) return golden_order(std::vector<float>(theta.begin(), theta.end()));
  return golden_order(theta);
}

Array iradon_sart(const Array& radon_image, const IradonSartOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(radon_image, kSart, "radon_image");
  expect(radon_image.ndim() == 2, kSart, "radon_image", "must be two dimensional, got ", radon_image.ndim(), "-D");
  const DType dt = opts.dtype.value_or(radon_image.dtype() == DType::float32 ? DType::float32 : DType::float64);
  expect(dt == DType::float32 || dt == DType::float64, kSart, "dtype",
         "only floating point data type are valid for inverse radon transform, got ", dtype_name(dt));
  const std::int64_t na = radon_image.shape(1);
  expect(opts.theta.empty() || static_cast<std::int64_t>(opts.theta.size()) == na, kSart, "theta", "has ",
         opts.theta.size(), " angles for ", na, " projections");
  expect(opts.projection_shifts.empty() || static_cast<std::int64_t>(opts.projection_shifts.size()) == na, kSart,
         "projection_shifts", "has ", opts.projection_shifts.size(), " values for ", na, " projections");
  // np.linspace(0, 180, na, endpoint=False) in float64, then cast to the dtype.
  std::vector<double> theta = opts.theta;
  if (theta.empty())
    for (std::int64_t i = 0; i < na; ++i) theta.push_back(static_cast<double>(i) * (180.0 / static_cast<double>(na)));
  if (dt == DType::float32) return sart<float>(radon_image, opts, std::vector<float>(theta.begin(), theta.end()), stream);
  return sart<double>(radon_image, opts, theta, stream);
}

}  // namespace cuskimage::transform
