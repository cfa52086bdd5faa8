// scipy.ndimage.gaussian_filter1d / gaussian_filter: scipy's kernel (same float64 operations, NumPy's
// pairwise sum for the normalisation) run as correlate1d passes by the ndimage backends; on CUDA the last two
// passes over axes (-2, -1) of a float32/float64/uint8/uint16 image run as one fused kernel
// (kernels/ndimage/separable2d.cu: row strips with register accumulators for float/double, a tile kernel
// for the integer dtypes, exact).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/tuning.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/core/policy_slot.hpp"
#include "src/core/validate.hpp"
#include "src/ndimage/separable2d.hpp"
#include "src/ndimage/backend.hpp"

namespace cuskimage::ndimage {

using cuskimage::detail::expect;

namespace {

using NumTypes = cuskimage::detail::Types<std::uint8_t, std::uint16_t, std::int32_t, float, double>;

/// numpy.add.reduce on a contiguous float64 vector: pairwise summation with 8 accumulators.
double numpy_sum(const double* a, std::int64_t n) {
  if (n < 8) {
    double r = 0.0;
    for (std::int64_t i = 0; i < n; ++i) r += a[i];
    return r;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::int64_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_sum(a, n2) + numpy_sum(a + n2, n - n2);
}

void check_input(const Array& in, std::string_view fn) {
  cuskimage::detail::expect_valid(in, fn, "input");
  expect(in.ndim() >= 1, fn, "input", "must have at least 1 dimension, got 0-D");
  cuskimage::detail::expect_dtype(in, fn, "input",
                                  {DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64});
  expect(in.ndim() <= cuskimage::detail::kMaxDims, fn, "input", "must have at most ", cuskimage::detail::kMaxDims,
         " dimensions, got ", in.ndim());
}


std::int64_t radius_for(double sigma, double truncate, std::optional<std::int64_t> radius, std::string_view fn) {
  if (radius) {
    expect(*radius >= 0, fn, "radius", "must be a nonnegative integer, got ", *radius);
    return *radius;
  }
  const double lw = truncate * sigma + 0.5;
  expect(std::isfinite(lw) && lw < 1e9, fn, "truncate", "times sigma must give a finite radius, got ", lw);
  return static_cast<std::int64_t>(lw);  // Python's int(): toward zero
}

detail::Pass1d gaussian_pass(double sigma, int order, std::int64_t radius, Mode mode, double cval) {
  detail::Pass1d p;
  p.op = detail::Op::correlate;
  p.w = gaussian_kernel1d(sigma, order, radius);
  p.k = static_cast<std::int64_t>(p.w.size());
  p.left = p.k / 2;
  p.mode = mode;
  p.cval = cval;
  p.symmetry = detail::weight_symmetry(p.w.data(), p.k);
  return p;
}

/// Runs the passes (axis, plan) from `in` into `out` (any strides) on the input's backend.
void run_gaussian(const Array& in, Array& out, const std::vector<std::pair<int, detail::Pass1d>>& passes,
                  std::string_view fn, const Stream& stream) {
  cuskimage::detail::dispatch<NumTypes>(in.dtype(), fn, [&]<class T>() {
    if (passes.empty()) {
      out.copy_from(in, stream);
      return;
    }
    if (in.device().is_cpu()) {
      detail::cpu_pass1d<T>(in, out, passes[0].first, passes[0].second);
      for (std::size_t p = 1; p < passes.size(); ++p) detail::cpu_pass1d<T>(out, out, passes[p].first, passes[p].second);
      return;
    }
    cuskimage::detail::DeviceGuard guard(in.device().index());
    const Array src = in.contiguous(stream);
    const bool direct = out.is_contiguous();
    Array final_ = direct ? out.share() : Array::empty(in.shape(), in.dtype(), in.device(), stream);
    const int nd = in.ndim();
    const std::size_t P = passes.size();
    // The last two passes over axes (-2, -1) fuse into one kernel (no intermediate array; for a 3-D
    // volume the axis-0 pass runs first on its own, then the fused kernel over every plane).
    bool fuse = false;
    detail::Separable2d plan;
    if constexpr (!std::is_same_v<T, std::int32_t>) {
      if (nd >= 2 && P >= 2 && passes[P - 2].first == nd - 2 && passes[P - 1].first == nd - 1) {
        const detail::Pass1d& a = passes[P - 2].second;
        const detail::Pass1d& b = passes[P - 1].second;
        plan = {a.w, b.w, a.left, b.left, a.mode, b.mode, a.cval, a.symmetry, b.symmetry};
        // cval is shared by both passes (gaussian_filter takes one).
        fuse = a.cval == b.cval && detail::cuda_separable2d_fits<T>(in.shape(), plan);
      }
    }
    const std::size_t L = fuse ? P - 1 : P;  // launches
    Array tmp;
    if (L > 1) tmp = Array::empty(in.shape(), in.dtype(), in.device(), stream);
    const Array* cur = &src;
    for (std::size_t p = 0; p < L; ++p) {
      Array& dst = (L - 1 - p) % 2 == 0 ? final_ : tmp;  // ping-pong so the last launch lands in final_
      if (fuse && p == L - 1) {
        if constexpr (!std::is_same_v<T, std::int32_t>) detail::cuda_separable2d<T>(*cur, dst, plan, stream);
      } else {
        detail::cuda_pass1d<T>(*cur, dst, passes[p].first, passes[p].second, stream.handle());
      }
      cur = &dst;
    }
    if (!direct) out.copy_from(final_, stream);
  });
}

template <class V>
std::vector<V> per_filtered_axis(const std::vector<V>& v, std::size_t n, std::string_view fn, std::string_view arg) {
  expect(!v.empty(), fn, arg, "must have one value or one per filtered axis (", n, "), got none");
  if (v.size() == 1) return std::vector<V>(n, v[0]);
  expect(v.size() == n, fn, arg, "must have one value or one per filtered axis (", n, "), got ", v.size(),
         " values");
  return v;
}

}  // namespace

std::vector<double> gaussian_kernel1d(double sigma, int order, std::int64_t radius) {
  constexpr std::string_view fn = "ndimage.gaussian_kernel1d";
  expect(order >= 0, fn, "order", "must be non-negative, got ", order);
  expect(order <= 3, fn, "order", "must be at most 3, got ", order);
  expect(radius >= 0, fn, "radius", "must be a nonnegative integer, got ", radius);
  const std::int64_t k = 2 * radius + 1;
  const double sigma2 = sigma * sigma;
  const double a = -0.5 / sigma2;
  std::vector<double> phi(k);
  for (std::int64_t i = 0; i < k; ++i) {
    const std::int64_t x = i - radius;
    phi[i] = std::exp(a * static_cast<double>(x * x));
  }
  const double s = numpy_sum(phi.data(), k);
  for (auto& v : phi) v = v / s;
  if (order > 0) {
    // q(x) polynomial coefficients: q <- (D + P) q, D = d/dx, P = multiply by p'(x) = -x / sigma^2.
    std::vector<double> q(order + 1, 0.0), nq(order + 1);
    q[0] = 1.0;
    const double p = 1.0 / -sigma2;
    for (int it = 0; it < order; ++it) {
      for (int i = 0; i <= order; ++i) {
        double t = 0.0;
        if (i + 1 <= order) t += static_cast<double>(i + 1) * q[i + 1];
        if (i >= 1) t += p * q[i - 1];
        nq[i] = t;
      }
      q = nq;
    }
    for (std::int64_t i = 0; i < k; ++i) {
      const double x = static_cast<double>(i - radius);
      double t = 0.0, xp = 1.0;
      for (int e = 0; e <= order; ++e, xp *= x) t += xp * q[e];
      phi[i] = t * phi[i];
    }
  }
  std::reverse(phi.begin(), phi.end());  // scipy correlates with the reversed kernel
  return phi;
}

Array gaussian_filter1d(const Array& input, double sigma, const GaussianFilter1dOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.gaussian_filter1d";
  check_input(input, fn);
  const int axis = cuskimage::detail::normalize_axis(opts.axis, input.ndim(), fn, "axis");
  expect(std::isfinite(sigma) && sigma > 0, fn, "sigma", "must be a positive number, got ", sigma);
  expect(opts.order >= 0 && opts.order <= 3, fn, "order", "must be 0, 1, 2 or 3, got ", opts.order);
  const std::int64_t r = radius_for(sigma, opts.truncate, opts.radius, fn);
  Array out = Array::empty(input.shape(), input.dtype(), input.device(), stream);
  run_gaussian(input, out, {{axis, gaussian_pass(sigma, opts.order, r, opts.mode, opts.cval)}}, fn, stream);
  return out;
}

void gaussian_filter_into(const Array& input, const std::vector<double>& sigma, Array& output,
                          const GaussianFilterOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.gaussian_filter";
  check_input(input, fn);
  detail::check_output(input, output, fn);
  const int nd = input.ndim();
  std::vector<int> axes;
  if (opts.axes.empty()) {
    for (int d = 0; d < nd; ++d) axes.push_back(d);
  } else {
    for (int a : opts.axes) axes.push_back(cuskimage::detail::normalize_axis(a, nd, fn, "axes"));
    auto sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    expect(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), fn, "axes", "must be unique");
  }
  const std::size_t n = axes.size();
  const auto sigmas = per_filtered_axis(sigma, n, fn, "sigma");
  const auto orders = per_filtered_axis(opts.order, n, fn, "order");
  const auto modes = per_filtered_axis(opts.mode.v, n, fn, "mode");
  std::vector<std::optional<std::int64_t>> radii(n);
  if (!opts.radius.empty()) {
    const auto r = per_filtered_axis(opts.radius, n, fn, "radius");
    for (std::size_t i = 0; i < n; ++i) radii[i] = r[i];
  }
  std::vector<std::pair<int, detail::Pass1d>> passes;
  for (std::size_t i = 0; i < n; ++i) {
    expect(std::isfinite(sigmas[i]) && sigmas[i] >= 0, fn, "sigma", "must be finite and non-negative, got ",
           sigmas[i]);
    expect(orders[i] >= 0 && orders[i] <= 3, fn, "order", "must be 0, 1, 2 or 3, got ", orders[i]);
    expect(static_cast<int>(modes[i]) >= 0 && static_cast<int>(modes[i]) <= 4, fn, "mode",
           "must be a valid Mode, got ", static_cast<int>(modes[i]));
    if (!(sigmas[i] > 1e-15)) continue;  // scipy skips (near-)zero sigmas
    const std::int64_t r = radius_for(sigmas[i], opts.truncate, radii[i], fn);
    passes.emplace_back(axes[i], gaussian_pass(sigmas[i], orders[i], r, modes[i], opts.cval));
  }
  run_gaussian(input, output, passes, fn, stream);
}

Array gaussian_filter(const Array& input, const std::vector<double>& sigma, const GaussianFilterOptions& opts,
                      const Stream& stream) {
  check_input(input, "ndimage.gaussian_filter");
  Array out = Array::empty(input.shape(), input.dtype(), input.device(), stream);
  gaussian_filter_into(input, sigma, out, opts, stream);
  return out;
}

}  // namespace cuskimage::ndimage

namespace cuskimage::tuning {
CUSK_TUNING_POLICY(Separable2dPolicy, separable2d_policy)
}  // namespace cuskimage::tuning
