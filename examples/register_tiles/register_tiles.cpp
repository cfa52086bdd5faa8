// Aligns two overlapping regions of a slide, as a stitcher does with neighbouring fields of view:
// reads both (level 0, into device memory when a GPU is present), finds their offset by
// phase_cross_correlation (subpixel, upsample_factor 20) and warps the second onto the first
// (ndimage::map_coordinates, order 1), then reports the mean absolute difference over their common
// part before and after. With no SLIDE the regions come from a synthetic texture whose offset is
// known, so the program checks itself (exit status 1 when the shift is off by more than 0.25 px).
//
//   register_tiles [SLIDE X Y SIZE DX DY] [OUT.png]
//   register_tiles                      # synthetic, 512 x 512 regions 37.4 / -81.25 px apart
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/registration.hpp"
#include "cuskimage/util.hpp"
#include "cuskimage/wsi.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;

namespace {

/// Value noise: a hashed lattice (cells of 3 px) interpolated bilinearly, so the field is defined
/// at any real position. Broadband like tissue texture, which phase correlation needs.
double noise(double y, double x) {
  auto lattice = [](std::int64_t i, std::int64_t j) {
    std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(j) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
    return static_cast<double>(h >> 11) / 9007199254740992.0;
  };
  const double u = y / 3, v = x / 3, fu = std::floor(u), fv = std::floor(v), a = u - fu, b = v - fv;
  const auto i = static_cast<std::int64_t>(fu), j = static_cast<std::int64_t>(fv);
  return (1 - a) * ((1 - b) * lattice(i, j) + b * lattice(i, j + 1)) + a * ((1 - b) * lattice(i + 1, j) + b * lattice(i + 1, j + 1));
}

/// A slide-like plane (slow stain variation and fine grain) sampled at (row + dy, col + dx): two
/// calls with different offsets give two overlapping views of it, subpixel offsets included.
Array texture(std::int64_t size, double dy, double dx) {
  Array a = Array::empty({size, size}, DType::float32);
  float* p = a.data<float>();
  for (std::int64_t i = 0; i < size; ++i)
    for (std::int64_t j = 0; j < size; ++j) {
      const double y = static_cast<double>(i) + dy, x = static_cast<double>(j) + dx;
      p[i * size + j] = static_cast<float>(0.3 + 0.15 * std::sin(0.021 * x + 0.013 * y) + 0.5 * noise(y, x));
    }
  return a;
}

/// out[i] = moving[i - shift] (scipy.ndimage.shift's convention), order 1, 0 outside.
Array shift_onto(const Array& moving, const std::vector<double>& shift) {
  const std::int64_t h = moving.shape(0), w = moving.shape(1);
  Array co = Array::empty({2, h, w}, DType::float32);
  float* c = co.data<float>();
  for (std::int64_t i = 0; i < h; ++i)
    for (std::int64_t j = 0; j < w; ++j) {
      c[i * w + j] = static_cast<float>(static_cast<double>(i) - shift[0]);
      c[h * w + i * w + j] = static_cast<float>(static_cast<double>(j) - shift[1]);
    }
  namespace nd = cuskimage::ndimage;
  return nd::map_coordinates(moving, co.to(moving.device()), {.order = 1, .mode = nd::InterpMode::constant});
}

/// Mean |a - b| over the pixels where the shifted image has data (b's non-zero footprint).
double mean_abs_diff(const Array& a, const Array& b, const std::vector<double>& shift) {
  const Array ha = a.to(Device::cpu()), hb = b.to(Device::cpu());
  const std::int64_t h = a.shape(0), w = a.shape(1);
  const auto y0 = static_cast<std::int64_t>(std::ceil(std::max(0.0, shift[0]))) + 1,
             x0 = static_cast<std::int64_t>(std::ceil(std::max(0.0, shift[1]))) + 1;
  const auto y1 = h + static_cast<std::int64_t>(std::floor(std::min(0.0, shift[0]))) - 1,
             x1 = w + static_cast<std::int64_t>(std::floor(std::min(0.0, shift[1]))) - 1;
  double s = 0;
  std::int64_t n = 0;
  for (std::int64_t i = y0; i < y1; ++i)
    for (std::int64_t j = x0; j < x1; ++j, ++n) s += std::abs(ha.data<float>()[i * w + j] - hb.data<float>()[i * w + j]);
  return n ? s / static_cast<double>(n) : NAN;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Device dev = cuskimage::default_device();
    Array ref, mov;
    double true_dy = 37.4, true_dx = -81.25;
    std::string out;
    if (argc >= 7) {
      const auto slide = cuskimage::wsi::Slide::open(argv[1]);
      const std::int64_t x = std::atoll(argv[2]), y = std::atoll(argv[3]), size = std::atoll(argv[4]);
      const std::int64_t dx = std::atoll(argv[5]), dy = std::atoll(argv[6]);
      true_dy = static_cast<double>(dy), true_dx = static_cast<double>(dx);
      auto gray = [&](std::int64_t rx, std::int64_t ry) {
        const Array rgb = slide.read_region(rx, ry, 0, size, size, {.device = dev});
        return cuskimage::color::rgb2gray(rgb).astype(DType::float32);
      };
      ref = gray(x, y);
      mov = gray(x + dx, y + dy);
      if (argc >= 8) out = argv[7];
      std::printf("%s: regions of %lld^2 at (%lld, %lld) and (%lld, %lld) on %s\n", argv[1], (long long)size,
                  (long long)x, (long long)y, (long long)(x + dx), (long long)(y + dy), dev.str().c_str());
    } else {
      ref = texture(512, 0, 0).to(dev);
      mov = texture(512, true_dy, true_dx).to(dev);
      if (argc == 2) out = argv[1];
      std::printf("synthetic: 512^2 regions %.2f, %.2f px apart on %s\n", true_dy, true_dx, dev.str().c_str());
    }
    // The shift that registers the moving region with the reference: its offset from it.
    const auto r = cuskimage::registration::phase_cross_correlation(ref, mov, {.upsample_factor = 20});
    std::printf("shift (rows, cols) = (%.3f, %.3f), expected (%.3f, %.3f); error %.4f, phasediff %.4f\n", r.shift[0],
                r.shift[1], true_dy, true_dx, r.error, r.phasediff);
    const Array warped = shift_onto(mov, r.shift);
    std::printf("mean |ref - moving| over the overlap: %.4f unaligned, %.4f aligned\n",
                mean_abs_diff(ref, mov, {0, 0}), mean_abs_diff(ref, warped, r.shift));
    if (!out.empty())
      cuskimage::io::imsave(out, cuskimage::util::img_as_ubyte(cuskimage::color::gray2rgb(warped)).to(Device::cpu()));
    // Phase correlation of non-periodic, not band-limited regions is accurate to ~0.1-0.2 px.
    const bool ok = std::abs(r.shift[0] - true_dy) <= 0.25 && std::abs(r.shift[1] - true_dx) <= 0.25;
    if (!ok) std::printf("the shift is off by more than 0.25 px\n");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
