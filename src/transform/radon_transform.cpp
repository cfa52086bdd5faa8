// transform.radon: argument handling, the square crop (circle) or diagonal padding, the rotation
// matrices, and the CPU backend; the CUDA backend (kernels/transform/radon.cu) evaluates the same
// per-column sums (src/transform/radon.hpp) without storing any rotated image.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <string_view>
#include <vector>

#include "cuskimage/transform/radon_transform.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/transform/radon.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;

/// scikit-image's convert_to_float: img_as_float, or a float cast keeping the values.
Array to_float(const Array& image, bool preserve_range, const Stream& stream) {
  if (!preserve_range) return util::img_as_float(image, {}, stream);
  if (image.dtype() == DType::float32 || image.dtype() == DType::float64) return image.share();
  return image.astype(DType::float64, stream);
}

/// The square image radon rotates: the centred crop to the smaller side (circle), or the image
/// padded with zeros to ceil(sqrt(2) * max side), placed as scikit-image places it.
Array square_image(const Array& img, bool circle, const Stream& stream) {
  const std::int64_t rows = img.shape(0), cols = img.shape(1);
  if (circle) {
    const std::int64_t m = std::min(rows, cols);
    const auto start = [&](std::int64_t s) {
      return static_cast<std::int64_t>(std::ceil(static_cast<double>(s - m) / 2));
    };
    const std::int64_t r0 = start(rows), c0 = start(cols);
    return img.slice({Slice{r0, r0 + m}, Slice{c0, c0 + m}}).contiguous(stream);
  }
  const double diagonal = std::numbers::sqrt2 * static_cast<double>(std::max(rows, cols));
  const auto pad = [&](std::int64_t s) { return static_cast<std::int64_t>(std::ceil(diagonal - static_cast<double>(s))); };
  const std::int64_t pr = pad(rows), pc = pad(cols);
  const std::int64_t br = (rows + pr) / 2 - rows / 2, bc = (cols + pc) / 2 - cols / 2;
  expect(rows + pr == cols + pc, "transform.radon", "image", "padded_image must be a square");
  Array out = Array::zeros({rows + pr, cols + pc}, img.dtype(), img.device(), stream);
  Array inner = out.slice({Slice{br, br + rows}, Slice{bc, bc + cols}});
  inner.copy_from(img, stream);
  return out;
}

template <class F>
std::vector<detail::RadonAngle<F>> rotations(const std::vector<double>& theta_deg, std::int64_t center) {
  std::vector<detail::RadonAngle<F>> out;
  for (double t : theta_deg) {
    const double angle = t * (std::numbers::pi / 180.0);  // np.deg2rad
    const double c = std::cos(angle), s = std::sin(angle);
    const double m[6] = {c, s, -static_cast<double>(center) * (c + s - 1), -s, c,
                         -static_cast<double>(center) * (c - s - 1)};
    detail::RadonAngle<F> a{};
    for (int k = 0; k < 6; ++k) a.m[k] = static_cast<F>(m[k]);
    a.metric = m[1] == 0 && m[3] == 0;
    out.push_back(a);
  }
  return out;
}

template <class F>
void cpu_radon(const Array& padded, const std::vector<detail::RadonAngle<F>>& angles, Array& out) {
  const auto* img = static_cast<const F*>(padded.data());
  F* o = static_cast<F*>(out.data());
  const std::int64_t n = padded.shape(0), na = static_cast<std::int64_t>(angles.size());
  for (std::int64_t i = 0; i < na; ++i)
    for (std::int64_t c = 0; c < n; ++c) o[c * na + i] = detail::radon_column<F, std::int64_t>(img, n, angles[i], c);
}

}  // namespace

Array radon(const Array& image, const RadonOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "transform.radon";
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() == 2, kFn, "image", "must be 2-D, got ", image.ndim(), "-D");
  std::vector<double> theta = opts.theta;
  if (theta.empty())
    for (int i = 0; i < 180; ++i) theta.push_back(i);
  const Array fimg = to_float(image, opts.preserve_range, stream);
  const Array padded = square_image(fimg, opts.circle, stream);
  const std::int64_t n = padded.shape(0), na = static_cast<std::int64_t>(theta.size());
  Array out = Array::empty({n, na}, fimg.dtype(), image.device(), stream);
  const auto run = [&]<class F>() {
    const std::vector<detail::RadonAngle<F>> angles = rotations<F>(theta, n / 2);
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_radon<F>(padded, angles, out); },
        [&](auto /*handle*/) {
          std::vector<std::uint8_t> bytes(angles.size() * sizeof(detail::RadonAngle<F>));
          if (!angles.empty()) std::memcpy(bytes.data(), angles.data(), bytes.size());
          if (bytes.empty()) bytes.push_back(0);
          const Array dev = Array::from_vector(bytes, {static_cast<std::int64_t>(bytes.size())}).to(image.device(), stream);
          detail::cuda_radon<F>(padded, dev, out, stream);
        });
  };
  if (fimg.dtype() == DType::float32)
    run.template operator()<float>();
  else
    run.template operator()<double>();
  return out;
}

}  // namespace cuskimage::transform
