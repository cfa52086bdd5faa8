// skimage.measure.perimeter, perimeter_crofton and euler_number (scikit-image's
// _regionprops_utils): neighbourhood-code histograms (CPU loops here, or
// kernels/measure/regionprops_utils.cu) weighted by per-code coefficients on the host.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <type_traits>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/regionprops_utils.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::fail;
using cuskimage::detail::on_backend;
using detail::as_u8;

/// Foreground of euler_number / perimeter_crofton: value > 0.
template <class T>
bool positive(T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else return v > T(0);
}

/// 2x2 (2-D) or 2x2x2 (3-D) configuration histogram on the host (see cuda_config_histogram).
template <class T>
std::vector<std::int64_t> cpu_config_histogram(const Array& image) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const bool three = c.ndim() == 3;
  const std::int64_t D = three ? c.shape(0) : 1, H = c.shape(-2), W = c.shape(-1);
  auto fg = [&](std::int64_t z, std::int64_t y, std::int64_t x) -> int {
    if (z < 0 || y < 0 || x < 0 || z >= D || y >= H || x >= W) return 0;
    return positive(v[(z * H + y) * W + x]) ? 1 : 0;
  };
  std::vector<std::int64_t> h(three ? 256 : 16, 0);
  const std::int64_t pd = three ? D + 2 : 1;
  for (std::int64_t z = 0; z < pd; ++z)
    for (std::int64_t y = 0; y < H + 2; ++y)
      for (std::int64_t x = 0; x < W + 2; ++x) {
        // padded coordinates -> image coordinates minus one
        const std::int64_t a = three ? z - 1 : 0, b = y - 1, e = x - 1;
        int code = fg(a, b, e) + 2 * fg(a, b - 1, e) + 4 * fg(a, b, e - 1) + 8 * fg(a, b - 1, e - 1);
        if (three) code += 16 * fg(a - 1, b, e) + 32 * fg(a - 1, b - 1, e) + 64 * fg(a - 1, b, e - 1) +
                           128 * fg(a - 1, b - 1, e - 1);
        ++h[code];
      }
  return h;
}

template <class T>
std::vector<std::int64_t> cpu_perimeter_histogram(const Array& image, bool eight) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t H = c.shape(0), W = c.shape(1);
  std::vector<std::uint8_t> u(H * W), border(H * W);
  for (std::int64_t i = 0; i < H * W; ++i) u[i] = as_u8(v[i]);
  for (std::int64_t y = 0; y < H; ++y)
    for (std::int64_t x = 0; x < W; ++x) {
      bool er = u[y * W + x] != 0;
      for (int dy = -1; dy <= 1 && er; ++dy)
        for (int dx = -1; dx <= 1 && er; ++dx) {
          if (!eight && dy != 0 && dx != 0) continue;
          const std::int64_t yy = y + dy, xx = x + dx;
          er = yy >= 0 && xx >= 0 && yy < H && xx < W && u[yy * W + xx] != 0;
        }
      border[y * W + x] = static_cast<std::uint8_t>(u[y * W + x] - (er ? 1 : 0));
    }
  std::vector<std::int64_t> h(256, 0);
  for (std::int64_t y = 0; y < H; ++y)
    for (std::int64_t x = 0; x < W; ++x) {
      int s = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::int64_t yy = y + dy, xx = x + dx;
          if (yy < 0 || xx < 0 || yy >= H || xx >= W) continue;
          const int w = (dy != 0 && dx != 0) ? 10 : (dy == 0 && dx == 0) ? 1 : 2;
          s += w * border[yy * W + xx];
        }
      ++h[static_cast<std::uint8_t>(s)];
    }
  return h;
}

}  // namespace

double perimeter(const Array& image, int neighborhood, const Stream& stream) {
  constexpr std::string_view fn = "measure.perimeter";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be 2-D (perimeter supports 2D images only), got ndim ", image.ndim());
  const bool eight = neighborhood != 4;  // scikit-image: anything but 4 is the 8-neighbourhood
  const auto h = dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    return on_backend(
        image, stream, [&] { return cpu_perimeter_histogram<T>(image, eight); },
        [&](const auto&) { return detail::cuda_perimeter_histogram<T>(image, eight, stream); });
  });
  for (int k = 50; k < 256; ++k)
    expect(h[k] == 0, fn, "image", "must be binary (0 and 1 after conversion to uint8): border codes past 49 appear");
  double w[50] = {};
  for (int k : {5, 7, 15, 17, 25, 27}) w[k] = 1.0;
  w[21] = w[33] = std::sqrt(2.0);
  w[13] = w[23] = (1 + std::sqrt(2.0)) / 2;
  double total = 0.0;
  for (int k = 0; k < 50; ++k) total += static_cast<double>(h[k]) * w[k];
  return total;
}

double perimeter_crofton(const Array& image, int directions, const Stream& stream) {
  constexpr std::string_view fn = "measure.perimeter_crofton";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be 2-D (perimeter_crofton supports 2D images only), got ndim ",
         image.ndim());
  const auto h = dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    return on_backend(
        image, stream, [&] { return cpu_config_histogram<T>(image); },
        [&](const auto&) { return detail::cuda_config_histogram<T>(image, stream); });
  });
  const double pi = std::numbers::pi, r2 = std::sqrt(2.0);
  double coefs[16];
  if (directions == 2) {
    const double c[16] = {0, pi / 2, 0, 0, 0, pi / 2, 0, 0, pi / 2, pi, 0, 0, pi / 2, pi, 0, 0};
    std::copy(c, c + 16, coefs);
  } else {
    const double a = pi / 4 * (1 + 1 / r2), b = pi / (4 * r2), d = pi / (2 * r2);
    const double c[16] = {0, a, b, d, 0, a, 0, b, pi / 4, pi / 2, b, b, pi / 4, pi / 2, 0, 0};
    std::copy(c, c + 16, coefs);
  }
  double total = 0.0;
  for (int k = 0; k < 16; ++k) total += coefs[k] * static_cast<double>(h[k]);
  return total;
}

std::int64_t euler_number(const Array& image, std::optional<int> connectivity, const Stream& stream) {
  constexpr std::string_view fn = "measure.euler_number";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2 || image.ndim() == 3, fn, "image", "must be 2-D or 3-D, got ndim ", image.ndim());
  const int conn = connectivity.value_or(image.ndim());
  if (image.ndim() == 3 && conn == 2)
    fail<NotSupported>(fn, "for 3D images, Euler number is implemented for connectivities 1 and 3 only");
  const auto h = dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    return on_backend(
        image, stream, [&] { return cpu_config_histogram<T>(image); },
        [&](const auto&) { return detail::cuda_config_histogram<T>(image, stream); });
  });
  if (image.ndim() == 2) {
    static const int c4[16] = {0, 1, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0};
    static const int c8[16] = {0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, -1, 0};
    const int* c = conn == 1 ? c4 : c8;
    std::int64_t e = 0;
    for (int k = 0; k < 16; ++k) e += c[k] * h[k];
    return e;
  }
  // 3-D: the 26-connected coefficients of Lin et al. (scikit-image's EULER_COEFS3D_26; reversed
  // for 6-connectivity), applied as 0.125 * coefs @ h truncated toward zero.
  static const int c26[256] = {
      0,  1,  1,  0,  1,  0,  -2, -1, 1,  -2, 0,  -1, 0,  -1, -1, 0,  1,  0,  -2, -1, -2, -1, -1, -2, -6, -3,
      -3, -2, -3, -2, 0,  -1, 1,  -2, 0,  -1, -6, -3, -3, -2, -2, -1, -1, -2, -3, 0,  -2, -1, 0,  -1, -1, 0,
      -3, -2, 0,  -1, -3, 0,  -2, -1, 0,  1,  1,  0,  1,  -2, -6, -3, 0,  -1, -3, -2, -2, -1, -3, 0,  -1, -2,
      -2, -1, 0,  -1, -3, -2, -1, 0,  0,  -1, -3, 0,  0,  1,  -2, -1, 1,  0,  -2, -1, -3, 0,  -3, 0,  0,  1,
      -1, 4,  0,  3,  0,  3,  1,  2,  -1, -2, -2, -1, -2, -1, 1,  0,  0,  3,  1,  2,  1,  2,  2,  1,  1,  -6,
      -2, -3, -2, -3, -1, 0,  0,  -3, -1, -2, -1, -2, -2, -1, -2, -3, -1, 0,  -1, 0,  4,  3,  -3, 0,  0,  1,
      0,  1,  3,  2,  0,  -3, -1, -2, -3, 0,  0,  1,  -1, 0,  0,  -1, -2, 1,  -1, 0,  -1, -2, -2, -1, 0,  1,
      3,  2,  -2, 1,  -1, 0,  1,  2,  2,  1,  0,  -3, -3, 0,  -1, -2, 0,  1,  -1, 0,  -2, 1,  0,  -1, -1, 0,
      -1, -2, 0,  1,  -2, -1, 3,  2,  -2, 1,  1,  2,  -1, 0,  2,  1,  -1, 0,  -2, 1,  -2, 1,  1,  2,  -2, 3,
      -1, 2,  -1, 2,  0,  1,  0,  -1, -1, 0,  -1, 0,  2,  1,  -1, 2,  0,  1,  0,  1,  1,  0};
  std::int64_t dot = 0;
  for (int k = 0; k < 256; ++k) dot += static_cast<std::int64_t>(conn == 1 ? c26[255 - k] : c26[k]) * h[k];
  return static_cast<std::int64_t>(0.125 * static_cast<double>(dot));
}

}  // namespace cuskimage::measure
