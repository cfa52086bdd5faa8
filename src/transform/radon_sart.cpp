// transform.iradon_sart and transform.order_angles_golden_ratio: argument handling, the golden-ratio
// order, and the CPU backend of the SART pass (scikit-image's ray-by-ray scatter, per-ray pieces in
// src/transform/radon_sart.hpp); the CUDA backend is kernels/transform/radon_sart.cu.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <numeric>
#include <string_view>
#include <vector>

#include "cuskimage/transform/radon_transform.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/transform/radon_sart.hpp"

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

/// cos and sin of each angle as scikit-image's ray code takes them: theta / 180 * pi rounded to F.
template <class F>
void angle_trig(const std::vector<F>& theta, std::vector<double>& cs, std::vector<double>& sn) {
  cs.resize(theta.size());
  sn.resize(theta.size());
  for (std::size_t a = 0; a < theta.size(); ++a) {
    const F t = static_cast<F>(static_cast<double>(theta[a]) / 180. * std::numbers::pi);
    cs[a] = std::cos(static_cast<double>(t));
    sn[a] = std::sin(static_cast<double>(t));
  }
}

/// sart_projection_update's ray loop: each ray's deviation, then its update scattered in order.
template <class F>
void cpu_projection_update(const std::vector<F>& img, std::vector<F>& upd, std::int64_t n, double c, double s,
                           F shift, const F* values, std::int64_t stride) {
  for (std::int64_t p = 0; p < n; ++p) {
    const detail::SartRay<F> g = detail::sart_ray<F>(n, static_cast<F>(static_cast<F>(p) + shift), c, s);
    const F dev = detail::sart_deviation(img.data(), n, g, values[p * stride]);
    for (std::int64_t k = 0; g.ns > 0 && k <= g.ns; ++k) {
      std::int64_t i, j;
      F di, dj;
      detail::sart_sample(g, k, i, j, di, dj);
      const F hw = detail::sart_hamming<F>(k, g.ns);
      for (int q = 0; q < 4; ++q) {
        if (!detail::sart_corner_in(q, i, j, n)) continue;
        F& u = upd[(i + (q >> 1)) * n + j + (q & 1)];
        u = static_cast<F>(static_cast<double>(u) + detail::sart_update_value(q, dev, di, dj, g.ds, hw));
      }
    }
  }
}

template <class F>
Array sart(const Array& sino, const IradonSartOptions& opts, std::vector<F> theta, const Stream& stream) {
  const std::int64_t n = sino.shape(0), na = sino.shape(1);
  const DType dt = dtype_v<F>;
  Array image;
  if (opts.image) {
    expect(opts.image->shape() == Shape{n, n}, kSart, "image", "must have shape (", n, ", ", n, "), got ",
           opts.image->str());
    image = opts.image->to(sino.device(), stream).astype(dt, stream).copy(stream);
  } else {
    image = Array::zeros({n, n}, dt, sino.device(), stream);
  }
  std::vector<F> shifts(static_cast<std::size_t>(na), F(0));
  if (!opts.projection_shifts.empty())
    for (std::int64_t a = 0; a < na; ++a) shifts[a] = static_cast<F>(opts.projection_shifts[a]);
  std::vector<double> cs, sn;
  angle_trig(theta, cs, sn);
  const std::vector<std::int64_t> order = golden_order(theta);
  const F relax = static_cast<F>(opts.relaxation);
  const F lo = opts.clip ? static_cast<F>((*opts.clip)[0]) : F(0), hi = opts.clip ? static_cast<F>((*opts.clip)[1]) : F(0);
  const Array s = sino.astype(dt, stream).contiguous(stream);
  cuskimage::detail::on_backend(
      sino, stream,
      [&] {
        const F* values = static_cast<const F*>(s.data());
        F* im = static_cast<F*>(image.data());
        std::vector<F> img(im, im + n * n), upd(img.size());
        for (std::int64_t a : order) {
          std::fill(upd.begin(), upd.end(), F(0));
          cpu_projection_update(img, upd, n, cs[a], sn[a], shifts[a], values + a, na);
          for (std::size_t i = 0; i < img.size(); ++i) {
            img[i] = img[i] + relax * upd[i];
            if (opts.clip) img[i] = std::min(std::max(img[i], lo), hi);
          }
        }
        std::copy(img.begin(), img.end(), im);
      },
      [&](auto /*handle*/) {
        detail::cuda_iradon_sart<F>(image, s, order.data(), static_cast<std::int64_t>(order.size()), cs.data(),
                                    sn.data(), shifts.data(), relax, opts.clip.has_value(), lo, hi, stream);
      });
  return image;
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
