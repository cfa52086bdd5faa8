// feature.local_binary_pattern, multiblock_lbp, draw_multiblock_lbp: argument handling and the CPU
// backend. The per-pixel LBP code is src/feature/texture.hpp (shared with kernels/feature/texture.cu);
// multiblock_lbp reads nine block sums from the integral image on the host; draw_multiblock_lbp
// blends eight rectangles on the host copy (a drawing, not a hot path).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/feature/texture.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
using LbpTypes = cuskimage::detail::Types<std::uint8_t, std::uint16_t, std::int32_t, float, double>;

/// The P sampling offsets: -R sin(2 pi i / P) and R cos(2 pi i / P), each rounded to 5 decimals as
/// np.round does (x * 1e5, rint, / 1e5).
std::vector<double> lbp_circle(int P, double R) {
  std::vector<double> v(2 * static_cast<std::size_t>(P));
  const auto round5 = [](double x) { return std::rint(x * 100000.0) / 100000.0; };
  for (int i = 0; i < P; ++i) {
    const double a = 2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(P);
    v[i] = round5(-R * std::sin(a));
    v[P + i] = round5(R * std::cos(a));
  }
  return v;
}

detail::LbpKind lbp_kind(LbpMethod m) {
  switch (m) {
    case LbpMethod::ror: return detail::LbpKind::ror;
    case LbpMethod::uniform: return detail::LbpKind::uniform;
    case LbpMethod::nri_uniform: return detail::LbpKind::nri;
    case LbpMethod::var: return detail::LbpKind::var;
    default: return detail::LbpKind::def;
  }
}

template <class T>
void cpu_lbp(const Array& img, const std::vector<double>& circle, detail::LbpKind kind, Array& out) {
  const std::int64_t rows = img.shape(0), cols = img.shape(1);
  const detail::LbpCircle k{static_cast<int>(circle.size() / 2), circle.data()};
  const T* p = img.data<T>();
  double* o = out.data<double>();
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) o[r * cols + c] = detail::lbp_at(p, rows, cols, r, c, k, kind);
}

}  // namespace

Array local_binary_pattern(const Array& image, int P, double R, const LocalBinaryPatternOptions& opts,
                           const Stream& stream) {
  constexpr std::string_view fn = "feature.local_binary_pattern";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect_ndim(image, fn, "image", 2, 2);
  expect(P >= 1, fn, "P", "must be a positive number of sampling points, got ", P);
  expect(R > 0 && std::isfinite(R), fn, "R", "must be a positive finite radius, got ", R);
  const std::vector<double> circle = lbp_circle(P, R);
  const detail::LbpKind kind = lbp_kind(opts.method);
  const DType t = image.dtype();
  const bool native = t == DType::uint8 || t == DType::uint16 || t == DType::int32 || t == DType::float32 ||
                      t == DType::float64;
  // Every other dtype is read as float64, as np.ascontiguousarray(image, dtype=float64) does.
  const Array src = native ? image.contiguous(stream) : image.astype(DType::float64, stream).contiguous(stream);
  Array out = Array::empty(image.shape(), DType::float64, image.device(), stream);
  if (image.size() == 0) return out;
  cuskimage::detail::dispatch<LbpTypes>(src.dtype(), fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        src, stream, [&] { cpu_lbp<T>(src, circle, kind, out); },
        [&](const Stream& s) { detail::cuda_local_binary_pattern(src, circle, kind, out, s); });
  });
  return out;
}

int multiblock_lbp(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width, std::int64_t height,
                   const Stream& stream) {
  constexpr std::string_view fn = "feature.multiblock_lbp";
  cuskimage::detail::expect_valid(int_image, fn, "int_image");
  cuskimage::detail::expect_ndim(int_image, fn, "int_image", 2, 2);
  expect(width >= 1 && height >= 1, fn, "width", "and height must be positive, got ", width, " x ", height);
  expect(r >= 0 && c >= 0 && r + 3 * height <= int_image.shape(0) && c + 3 * width <= int_image.shape(1), fn, "r",
         "and c must place the 3x3 grid of blocks inside the image, got (", r, ", ", c, ") with blocks ", height,
         " x ", width, " in a ", int_image.shape(0), " x ", int_image.shape(1), " image");
  const Array sat = int_image.to(Device::cpu(), stream).astype(DType::float32).contiguous();
  const float* v = sat.data<float>();
  const std::int64_t cols = sat.shape(1);
  // _shared.transform.integrate in float32, its order of additions.
  auto integrate = [&](std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1) {
    float s = 0;
    s += v[r1 * cols + c1];
    if (r0 >= 1 && c0 >= 1) s += v[(r0 - 1) * cols + c0 - 1];
    if (r0 >= 1) s -= v[(r0 - 1) * cols + c1];
    if (c0 >= 1) s -= v[r1 * cols + c0 - 1];
    return s;
  };
  static constexpr int kDr[8] = {-1, -1, -1, 0, 1, 1, 1, 0};  // from the top left, clockwise
  static constexpr int kDc[8] = {-1, 0, 1, 1, 1, 0, -1, -1};
  const std::int64_t cr = r + height, cc = c + width;
  const float centre = integrate(cr, cc, cr + height - 1, cc + width - 1);
  int code = 0;
  for (int k = 0; k < 8; ++k) {
    const std::int64_t br = cr + kDr[k] * height, bc = cc + kDc[k] * width;
    code |= (integrate(br, bc, br + height - 1, bc + width - 1) >= centre ? 1 : 0) << (7 - k);
  }
  return code;
}

Array draw_multiblock_lbp(const Array& image, std::int64_t r, std::int64_t c, std::int64_t width, std::int64_t height,
                          const DrawMultiblockLbpOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "feature.draw_multiblock_lbp";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() == 2 || (image.ndim() == 3 && image.shape(2) == 3), fn, "image",
         "must be a 2-D grey or (M, N, 3) RGB image, got shape ", shape_str(image.shape()));
  expect(width >= 1 && height >= 1, fn, "width", "and height must be positive, got ", width, " x ", height);
  expect(r >= 0 && c >= 0, fn, "r", "and c must be non-negative, got (", r, ", ", c, ")");
  Array host = image.to(Device::cpu(), stream);
  if (host.ndim() == 2) host = color::gray2rgb(host);
  Array out = util::img_as_float(host).copy().contiguous();
  const std::int64_t rows = out.shape(0), cols = out.shape(1);
  const double a = opts.alpha, keep = 1 - opts.alpha;
  static constexpr int kDr[8] = {-1, -1, -1, 0, 1, 1, 1, 0};
  static constexpr int kDc[8] = {-1, 0, 1, 1, 1, 0, -1, -1};
  for (int k = 0; k < 8; ++k) {
    const auto& col = (opts.lbp_code & (1LL << (7 - k))) ? opts.color_greater_block : opts.color_less_block;
    // NumPy slicing of [cur, cur + size): blocks past the bottom/right edge are clipped.
    const std::int64_t br = r + height + kDr[k] * height, bc = c + width + kDc[k] * width;
    for (std::int64_t y = br; y < std::min(br + height, rows); ++y)
      for (std::int64_t x = bc; x < std::min(bc + width, cols); ++x)
        for (int ch = 0; ch < 3; ++ch) {
          const std::int64_t i = (y * cols + x) * 3 + ch;
          if (out.dtype() == DType::float32) {
            // float32 image: (1 - alpha) * x in float32, then + alpha * colour in float64, stored as float32.
            float& px = out.data<float>()[i];
            px = static_cast<float>(static_cast<double>(static_cast<float>(keep) * px) + a * col[ch]);
          } else {
            double& px = out.data<double>()[i];
            px = keep * px + a * col[ch];
          }
        }
  }
  return image.device().is_cpu() ? std::move(out) : out.to(image.device(), stream);
}

}  // namespace cuskimage::feature
