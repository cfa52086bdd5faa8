// skimage.measure's colocalisation coefficients (pearson_corr_coeff, manders_coloc_coeff,
// manders_overlap_coeff, intersection_coeff): argument handling, the sums on the host or through
// kernels/measure/colocalization.cu, and the coefficients from the sums.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/colocalization.hpp"
#include "src/measure/coords.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::on_backend;
using detail::host_values;

/// scikit-image's as_binary_ndarray: bool, or only 0 and 1.
void expect_binary(const Array& a, std::string_view fn, std::string_view arg, const Stream& stream) {
  expect_valid(a, fn, arg);
  if (a.dtype() == DType::bool_) return;
  const Array b = a.astype(DType::bool_, stream).astype(a.dtype(), stream);
  const std::vector<double> x = host_values(a, stream), y = host_values(b, stream);
  expect(x == y, fn, arg,
         "array is not of dtype boolean or contains values other than 0 and 1 so cannot be safely cast to boolean "
         "array");
}

struct Coloc {
  Array x, y, mask;  // contiguous float64 / bool on the inputs' device
};

Coloc prepare(const Array& a, const Array& b, const Array& mask, std::string_view fn, std::string_view na,
              std::string_view nb, const Stream& stream) {
  expect_valid(a, fn, na);
  expect_valid(b, fn, nb);
  cuskimage::detail::expect_same_shape(a, b, fn, na, nb);
  cuskimage::detail::expect_same_device(a, b, fn, na, nb);
  Coloc c;
  c.x = a.astype(DType::float64, stream).contiguous(stream);
  c.y = b.astype(DType::float64, stream).contiguous(stream);
  if (mask.valid()) {
    expect_binary(mask, fn, "mask", stream);
    cuskimage::detail::expect_same_shape(a, mask, fn, na, "mask");
    cuskimage::detail::expect_same_device(a, mask, fn, na, "mask");
    c.mask = mask.astype(DType::bool_, stream).contiguous(stream);
  }
  return c;
}

/// The sums of cuda_coloc_sums on the host.
std::array<double, 8> cpu_coloc_sums(const Coloc& c, int kind, double ma, double mb) {
  const double* x = static_cast<const double*>(c.x.data());
  const double* y = static_cast<const double*>(c.y.data());
  const bool* m = c.mask.valid() ? static_cast<const bool*>(c.mask.data()) : nullptr;
  const double inf = std::numeric_limits<double>::infinity();
  std::array<double, 8> s = {0, 0, 0, 0, 0, 0, 0, 0};
  if (kind == 0) s = {0, 0, 0, 0, inf, -inf, inf, -inf};
  if (kind == 2) s = {0, 0, 0, 0, 0, inf, inf, 0};
  for (std::int64_t i = 0; i < c.x.size(); ++i) {
    if (m && !m[i]) continue;
    const double a = x[i], b = y[i];
    if (kind == 0) {
      s[0] += 1, s[1] += a, s[2] += b;
      s[3] += (a != a || b != b) ? 1 : 0;
      s[4] = std::min(s[4], a), s[5] = std::max(s[5], a), s[6] = std::min(s[6], b), s[7] = std::max(s[7], b);
    } else if (kind == 1) {
      s[0] += (a - ma) * (a - ma), s[1] += (b - mb) * (b - mb), s[2] += (a - ma) * (b - mb);
    } else {
      s[0] += 1, s[1] += a, s[2] += a * b, s[3] += a * a, s[4] += b * b;
      s[5] = std::min(s[5], a), s[6] = std::min(s[6], b);
    }
  }
  return s;
}

std::array<double, 8> coloc_sums(const Coloc& c, int kind, double ma, double mb, const Stream& stream) {
  return on_backend(
      c.x, stream, [&] { return cpu_coloc_sums(c, kind, ma, mb); },
      [&](const auto&) { return detail::cuda_coloc_sums(c.x, c.y, c.mask, kind, ma, mb, stream); });
}

/// Regularised incomplete beta I_x(a, a) by Lentz's continued fraction (x <= 1/2 converges fast).
double incomplete_beta_sym(double a, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  const double b = a;
  const double lbeta = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  const double front = std::exp(a * std::log(x) + b * std::log1p(-x) - lbeta) / a;
  constexpr double tiny = 1e-300;
  double f = 1.0, cc = 1.0, d = 0.0;
  for (int i = 0; i <= 2000; ++i) {
    const int m = i / 2;
    double num;
    if (i == 0) num = 1.0;
    else if (i % 2 == 0) num = (m * (b - m) * x) / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    else num = -((a + m) * (a + b + m) * x) / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    d = 1.0 + num * d;
    if (std::abs(d) < tiny) d = tiny;
    d = 1.0 / d;
    cc = 1.0 + num / cc;
    if (std::abs(cc) < tiny) cc = tiny;
    const double cd = cc * d;
    f *= cd;
    if (std::abs(1.0 - cd) < 1e-15) break;
  }
  return front * (f - 1.0);
}

}  // namespace

PearsonResult pearson_corr_coeff(const Array& image0, const Array& image1, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "measure.pearson_corr_coeff";
  const Coloc c = prepare(image0, image1, mask, fn, "image0", "image1", stream);
  const auto s0 = coloc_sums(c, 0, 0, 0, stream);
  const double n = s0[0];
  expect(n >= 2, fn, "image0", "must have at least 2 (unmasked) elements, got ", static_cast<std::int64_t>(n));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (s0[3] > 0) return {nan, nan};
  if (s0[4] == s0[5] || s0[6] == s0[7]) return {nan, nan};  // a constant input: r undefined
  const double ma = s0[1] / n, mb = s0[2] / n;
  const auto s1 = coloc_sums(c, 1, ma, mb, stream);
  double r = s1[2] / (std::sqrt(s1[0]) * std::sqrt(s1[1]));
  r = std::clamp(r, -1.0, 1.0);
  if (n == 2) return {r, 1.0};
  const double ab = n / 2 - 1;
  // two-sided: 2 * min(cdf(r), sf(r)) of Beta(ab, ab) on (-1, 1) = 2 * I_{(1 - |r|)/2}(ab, ab)
  const double p = std::min(1.0, 2.0 * incomplete_beta_sym(ab, (1.0 - std::abs(r)) / 2.0));
  return {r, p};
}

double manders_coloc_coeff(const Array& image0, const Array& image1_mask, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "measure.manders_coloc_coeff";
  expect_binary(image1_mask, fn, "image1_mask", stream);
  const Coloc c = prepare(image0, image1_mask, mask, fn, "image0", "image1_mask", stream);
  const auto s = coloc_sums(c, 2, 0, 0, stream);
  expect(!(s[5] < 0), fn, "image0", "contains negative values");
  if (s[1] == 0) return 0.0;
  return s[2] / s[1];
}

double manders_overlap_coeff(const Array& image0, const Array& image1, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "measure.manders_overlap_coeff";
  const Coloc c = prepare(image0, image1, mask, fn, "image0", "image1", stream);
  const auto s = coloc_sums(c, 2, 0, 0, stream);
  expect(!(s[5] < 0), fn, "image0", "contains negative values");
  expect(!(s[6] < 0), fn, "image1", "contains negative values");
  return s[2] / std::sqrt(s[3] * s[4]);
}

double intersection_coeff(const Array& image0_mask, const Array& image1_mask, const Array& mask,
                          const Stream& stream) {
  constexpr std::string_view fn = "measure.intersection_coeff";
  expect_binary(image0_mask, fn, "image0_mask", stream);
  expect_binary(image1_mask, fn, "image1_mask", stream);
  const Coloc c = prepare(image0_mask, image1_mask, mask, fn, "image0_mask", "image1_mask", stream);
  const auto s = coloc_sums(c, 2, 0, 0, stream);
  // over 0/1 values: sum x = |image0|, sum x*y = |image0 & image1|
  if (s[1] == 0) return 0.0;
  return s[2] / s[1];
}

}  // namespace cuskimage::measure
