// filters.window: scipy.signal.get_window's symmetric windows (written after scipy's formulas,
// NumPy's evaluation order) on the host, then the N-d rotation (window_value, shared with the CUDA
// kernel) on the requested device.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/filters/window.hpp"

namespace cuskimage::filters {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::fail;
constexpr std::string_view kFn = "filters.window";
constexpr double kPi = std::numbers::pi;
using Vec = std::vector<double>;

/// numpy.linspace(a, b, n): i * step + a, the last element exactly b.
Vec linspace(double a, double b, std::int64_t n) {
  Vec y(static_cast<std::size_t>(n));
  const double step = n > 1 ? (b - a) / static_cast<double>(n - 1) : 0.0;
  for (std::int64_t i = 0; i < n; ++i) y[i] = static_cast<double>(i) * step + a;
  if (n > 1) y[n - 1] = b;
  return y;
}

Vec general_cosine(std::int64_t M, const Vec& a) {
  const Vec fac = linspace(-kPi, kPi, M);
  Vec w(M, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k)
    for (std::int64_t i = 0; i < M; ++i) w[i] += a[k] * std::cos(static_cast<double>(k) * fac[i]);
  return w;
}

Vec general_hamming(std::int64_t M, double alpha) { return general_cosine(M, {alpha, 1.0 - alpha}); }

Vec triang(std::int64_t M) {
  Vec h;
  for (std::int64_t n = 1; n <= (M + 1) / 2; ++n)
    h.push_back(M % 2 == 0 ? (2.0 * n - 1.0) / static_cast<double>(M) : 2.0 * n / (M + 1.0));
  Vec w = h;
  for (std::int64_t i = static_cast<std::int64_t>(h.size()) - 1 - (M % 2); i >= 0; --i) w.push_back(h[i]);
  return w;
}

Vec parzen(std::int64_t M) {
  const double half = (M - 1) / 2.0;
  Vec w(M);
  for (std::int64_t i = 0; i < M; ++i) {
    const double n = -half + static_cast<double>(i);
    const double an = std::fabs(n), x = an / (M / 2.0);
    if (n < -(M - 1) / 4.0 || n > (M - 1) / 4.0)
      w[i] = 2.0 * std::pow(1.0 - x, 3.0);
    else
      w[i] = 1.0 - 6.0 * std::pow(x, 2.0) + 6.0 * std::pow(x, 3.0);
  }
  return w;
}

Vec bohman(std::int64_t M) {
  const Vec l = linspace(-1.0, 1.0, M);
  Vec w(M, 0.0);
  for (std::int64_t i = 1; i + 1 < M; ++i) {
    const double f = std::fabs(l[i]);
    w[i] = (1.0 - f) * std::cos(kPi * f) + 1.0 / kPi * std::sin(kPi * f);
  }
  return w;
}

Vec tukey(std::int64_t M, double alpha) {
  if (alpha <= 0) return Vec(M, 1.0);
  if (alpha >= 1.0) return general_hamming(M, 0.5);
  const std::int64_t width = static_cast<std::int64_t>(std::floor(alpha * (M - 1) / 2.0));
  Vec w(M, 1.0);
  for (std::int64_t n = 0; n < M; ++n) {
    if (n <= width)
      w[n] = 0.5 * (1.0 + std::cos(kPi * (-1.0 + 2.0 * n / alpha / (M - 1))));
    else if (n >= M - width - 1)
      w[n] = 0.5 * (1.0 + std::cos(kPi * (-2.0 / alpha + 1.0 + 2.0 * n / alpha / (M - 1))));
  }
  return w;
}

double sinc(double x) { return x == 0.0 ? 1.0 : std::sin(kPi * x) / (kPi * x); }

Vec lanczos(std::int64_t M) {
  auto right = [&](double n0) {
    Vec r;
    for (double n = n0; n < static_cast<double>(M); n += 1.0) r.push_back(sinc(2.0 * n / (M - 1) - 1.0));
    return r;
  };
  const Vec wh = M % 2 == 0 ? right(M / 2.0) : right((M + 1) / 2.0);
  Vec w(wh.rbegin(), wh.rend());
  if (M % 2 == 1) w.push_back(1.0);
  w.insert(w.end(), wh.begin(), wh.end());
  return w;
}

Vec taylor(std::int64_t M, double nbar_d, double sll, bool norm) {
  const std::int64_t nbar = static_cast<std::int64_t>(nbar_d);
  const double B = std::pow(10.0, sll / 20.0), A = std::acosh(B) / kPi;
  const double s2 = nbar * nbar / (A * A + std::pow(nbar - 0.5, 2.0));
  Vec Fm(std::max<std::int64_t>(nbar - 1, 0));
  for (std::int64_t mi = 0; mi + 1 < nbar; ++mi) {
    const double m = mi + 1.0, m2 = m * m;
    const double sign = mi % 2 == 0 ? 1.0 : -1.0;
    double numer = 1.0;
    for (std::int64_t j = 1; j < nbar; ++j) numer *= 1.0 - m2 / s2 / (A * A + std::pow(j - 0.5, 2.0));
    numer *= sign;
    double d1 = 1.0, d2 = 1.0;
    for (std::int64_t j = 1; j < mi + 1; ++j) d1 *= 1.0 - m2 / (double(j) * j);
    for (std::int64_t j = mi + 2; j < nbar; ++j) d2 *= 1.0 - m2 / (double(j) * j);
    Fm[mi] = numer / (2.0 * d1 * d2);
  }
  auto W = [&](double n) {
    double s = 0.0;
    for (std::int64_t mi = 0; mi + 1 < nbar; ++mi)
      s += Fm[mi] * std::cos(2.0 * kPi * (mi + 1.0) * (n - M / 2.0 + 0.5) / static_cast<double>(M));
    return 1.0 + 2.0 * s;
  };
  Vec w(M);
  for (std::int64_t i = 0; i < M; ++i) w[i] = W(static_cast<double>(i));
  if (norm) {
    const double scale = 1.0 / W((M - 1) / 2.0);
    for (auto& v : w) v *= scale;
  }
  return w;
}

enum class Args { none, required, optional };

struct Spec {
  std::string canonical;
  Args args;
};

const std::map<std::string, Spec>& names() {
  static const std::map<std::string, Spec> m = [] {
    std::map<std::string, Spec> r;
    auto add = [&](std::initializer_list<const char*> aliases, const char* canon, Args a) {
      for (const char* n : aliases) r[n] = Spec{canon, a};
    };
    add({"barthann", "brthan", "bth"}, "barthann", Args::none);
    add({"bartlett", "bart", "brt"}, "bartlett", Args::none);
    add({"blackman", "black", "blk"}, "blackman", Args::none);
    add({"blackmanharris", "blackharr", "bkh"}, "blackmanharris", Args::none);
    add({"bohman", "bman", "bmn"}, "bohman", Args::none);
    add({"boxcar", "box", "ones", "rect", "rectangular"}, "boxcar", Args::none);
    add({"cosine", "halfcosine"}, "cosine", Args::none);
    add({"exponential", "poisson"}, "exponential", Args::optional);
    add({"flattop", "flat", "flt"}, "flattop", Args::none);
    add({"gaussian", "gauss", "gss"}, "gaussian", Args::required);
    add({"general gaussian", "general_gaussian", "general gauss", "general_gauss", "ggs"}, "general_gaussian",
        Args::required);
    add({"general hamming", "general_hamming"}, "general_hamming", Args::required);
    add({"hamming", "hamm", "ham"}, "hamming", Args::none);
    add({"hann", "han"}, "hann", Args::none);
    add({"kaiser", "ksr"}, "kaiser", Args::required);
    add({"lanczos", "sinc"}, "lanczos", Args::none);
    add({"nuttall", "nutl", "nut"}, "nuttall", Args::none);
    add({"parzen", "parz", "par"}, "parzen", Args::none);
    add({"taylor", "taylorwin"}, "taylor", Args::optional);
    add({"triangle", "triang", "tri"}, "triang", Args::none);
    add({"tukey", "tuk"}, "tukey", Args::optional);
    return r;
  }();
  return m;
}

void expect_nparams(const std::string& name, const Vec& p, std::size_t lo, std::size_t hi) {
  expect(p.size() >= lo && p.size() <= hi, kFn, "window_type", "'", name, "' takes ", lo, " to ", hi,
         " parameters, got ", p.size());
}

/// The symmetric window of scipy's canonical name, length M >= 2.
Vec symmetric_window(const std::string& c, const Vec& p, std::int64_t M) {
  if (c == "boxcar") return Vec(M, 1.0);
  if (c == "triang") return triang(M);
  if (c == "blackman") return general_cosine(M, {0.42, 0.50, 0.08});
  if (c == "hamming") return general_hamming(M, 0.54);
  if (c == "hann") return general_hamming(M, 0.5);
  if (c == "general_hamming") return general_hamming(M, p[0]);
  if (c == "flattop") return general_cosine(M, {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368});
  if (c == "blackmanharris") return general_cosine(M, {0.35875, 0.48829, 0.14128, 0.01168});
  if (c == "nuttall") return general_cosine(M, {0.3635819, 0.4891775, 0.1365995, 0.0106411});
  if (c == "parzen") return parzen(M);
  if (c == "bohman") return bohman(M);
  if (c == "lanczos") return lanczos(M);
  if (c == "tukey") return tukey(M, p.empty() ? 0.5 : p[0]);
  Vec w(M);
  for (std::int64_t i = 0; i < M; ++i) {
    const double n = static_cast<double>(i);
    if (c == "bartlett") {
      w[i] = n <= (M - 1) / 2.0 ? 2.0 * n / (M - 1) : 2.0 - 2.0 * n / (M - 1);
    } else if (c == "barthann") {
      const double fac = std::fabs(n / (M - 1) - 0.5);
      w[i] = 0.62 - 0.48 * fac + 0.38 * std::cos(2 * kPi * fac);
    } else if (c == "cosine") {
      w[i] = std::sin(kPi / M * (n + 0.5));
    } else if (c == "exponential") {
      const double center = p.empty() || std::isnan(p[0]) ? (M - 1) / 2.0 : p[0];
      const double tau = p.size() > 1 ? p[1] : 1.0;
      w[i] = std::exp(-std::fabs(n - center) / tau);
    } else if (c == "kaiser") {
      const double alpha = (M - 1) / 2.0, q = (n - alpha) / alpha;
      w[i] = std::cyl_bessel_i(0.0, p[0] * std::sqrt(1.0 - std::pow(q, 2.0))) / std::cyl_bessel_i(0.0, p[0]);
    } else if (c == "gaussian") {
      const double m = n - (M - 1.0) / 2.0;
      w[i] = std::exp(-(m * m) / (2 * p[0] * p[0]));
    } else if (c == "general_gaussian") {
      const double m = n - (M - 1.0) / 2.0;
      w[i] = std::exp(-0.5 * std::pow(std::fabs(m / p[1]), 2 * p[0]));
    }
  }
  if (c == "taylor")
    return taylor(M, p.size() > 0 ? p[0] : 4, p.size() > 1 ? p[1] : 30, p.size() > 2 ? p[2] != 0.0 : true);
  return w;
}

}  // namespace

namespace detail {
/// scipy.signal.get_window(window_type, M, fftbins=False) (also the '_periodic'/'_symmetric' suffixes).
std::vector<double> get_window(const WindowType& wt, std::int64_t M) {
  std::string name = wt.name;
  bool sym = true;
  if (name.size() > 10 && name.ends_with("_symmetric")) name.resize(name.size() - 10);
  else if (name.size() > 9 && name.ends_with("_periodic")) name.resize(name.size() - 9), sym = false;
  const auto it = names().find(name);
  if (it == names().end())
    fail(kFn, "argument 'window_type' names an unknown or unsupported window '", wt.name,
         "' (supported: scipy.signal.get_window's names except chebwin, dpss, general_cosine and "
         "kaiser_bessel_derived)");
  const Spec& s = it->second;
  const Vec& p = wt.params;
  if (s.args == Args::none) expect(p.empty(), kFn, "window_type", "'", name, "' does not allow parameters");
  if (s.args == Args::required) expect(!p.empty(), kFn, "window_type", "'", name, "' must have parameters");
  const std::string& c = s.canonical;
  if (c == "gaussian" || c == "kaiser" || c == "general_hamming") expect_nparams(name, p, 1, 1);
  if (c == "general_gaussian") expect_nparams(name, p, 2, 2);
  if (c == "tukey") expect_nparams(name, p, 0, 1);
  if (c == "exponential") {
    expect_nparams(name, p, 0, 2);
    expect(sym || p.empty() || std::isnan(p[0]), kFn, "window_type",
           "'exponential' with a center requires a symmetric window");
  }
  if (c == "taylor") expect_nparams(name, p, 0, 3);
  if (M <= 1) return Vec(M, 1.0);
  const std::int64_t n = sym ? M : M + 1;  // scipy's _extend / _truncate
  Vec w = symmetric_window(c, p, n);
  if (!sym) w.pop_back();
  return w;
}
}  // namespace detail

Array window(const WindowType& window_type, const Shape& shape, const WindowOptions& opts, const Stream& stream) {
  expect(!shape.empty(), kFn, "shape", "must have at least one dimension (Number of dimensions must be greater "
                                       "than zero)");
  expect(static_cast<int>(shape.size()) <= detail::kWindowMaxDims, kFn, "shape", "must have at most ",
         detail::kWindowMaxDims, " dimensions");
  for (auto s : shape) expect(s >= 0, kFn, "shape", "must not be negative (invalid shape), got ", shape_str(shape));
  detail::WindowGeom g;
  g.ndim = static_cast<int>(shape.size());
  g.ms = *std::max_element(shape.begin(), shape.end());
  for (int d = 0; d < g.ndim; ++d) g.shape[d] = shape[d];
  const std::vector<double> w = detail::get_window(window_type, g.ms);
  expect(g.ms > 0, kFn, "shape", "must not be empty (Cannot warp empty image), got ", shape_str(shape));
  g.lo = std::min(0.0, *std::min_element(w.begin(), w.end()));
  g.hi = std::max(0.0, *std::max_element(w.begin(), w.end()));
  Array out = Array::empty(shape, DType::float64, opts.device, stream);
  if (out.size() == 0) return out;
  if (opts.device.is_cpu()) {
    double* o = static_cast<double*>(out.data());
    const std::int64_t total = out.size();
#pragma omp parallel for schedule(static) if (total > 65536)
    for (std::int64_t i = 0; i < total; ++i) o[i] = detail::window_value(i, g, w.data());
    return out;
  }
  cuskimage::detail::on_backend(out, stream, [] {}, [&](const Stream& s) { detail::cuda_window(out, g, w, s); });
  return out;
}

}  // namespace cuskimage::filters
