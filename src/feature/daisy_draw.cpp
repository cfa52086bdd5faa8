// feature.daisy's visualize drawing on the host, as scikit-image draws it: draw.circle_perimeter_aa
// and draw.line_aa (Wu's circle, Zingl's anti-aliased line) blended by
// draw.set_color (points outside the image dropped; all values read before any is written, so a
// repeated point takes the last write). Arithmetic follows NumPy's promotion for the image's float
// dtype (float32 images: the line ends are computed in float32).
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/feature.hpp"
#include "src/feature/daisy.hpp"

namespace cuskimage::feature::detail {
namespace {

struct AaPoints {
  std::vector<std::int64_t> r, c;
  std::vector<double> v;
  void add(std::int64_t rr, std::int64_t cc, double vv) { r.push_back(rr), c.push_back(cc), v.push_back(vv); }
};

AaPoints circle_aa(std::int64_t r0, std::int64_t c0, std::int64_t radius) {
  AaPoints p;
  std::int64_t c = 0, r = radius;
  const std::int64_t rr0[8] = {r, c, r, c, -r, -c, -r, -c}, cc0[8] = {c, r, -c, -r, c, r, -c, -r};
  for (int k = 0; k < 8; ++k) p.add(rr0[k] + r0, cc0[k] + c0, 1.0);
  double prev = 0;
  while (r > c + 1) {
    ++c;
    double dceil = std::sqrt(static_cast<double>(radius * radius - c * c));
    dceil = std::ceil(dceil) - dceil;
    if (dceil < prev) --r;
    const std::int64_t a[16] = {r, r - 1, c, c, r, r - 1, c, c, -r, 1 - r, -c, -c, -r, 1 - r, -c, -c};
    const std::int64_t b[16] = {c, c, r, r - 1, -c, -c, -r, 1 - r, c, c, r, r - 1, -c, -c, -r, 1 - r};
    for (int k = 0; k < 16; ++k) p.add(a[k] + r0, b[k] + c0, k % 2 == 0 ? 1 - dceil : dceil);
    prev = dceil;
  }
  return p;
}

AaPoints line_aa(std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1) {
  AaPoints p;
  const int dc = static_cast<int>(std::llabs(c0 - c1)), dr = static_cast<int>(std::llabs(r0 - r1));
  float err = static_cast<float>(dc - dr);
  const int sc = c0 < c1 ? 1 : -1, sr = r0 < r1 ? 1 : -1;
  const double ed = dc + dr == 0 ? 1.0 : std::sqrt(static_cast<double>(dc * dc + dr * dr));
  std::int64_t c = c0, r = r0;
  for (;;) {
    p.add(r, c, std::fabs(static_cast<double>(err - dc + dr)) / ed);
    const float e = err;
    const std::int64_t cp = c;
    if (2 * e >= -dc) {
      if (c == c1) break;
      if (e + dr < ed) p.add(r + sr, c, std::fabs(static_cast<double>(e + dr)) / ed);
      err -= dr;
      c += sc;
    }
    if (2 * e <= dr) {
      if (r == r1) break;
      if (dc - e < ed) p.add(r, cp + sc, std::fabs(static_cast<double>(dc - e)) / ed);
      err += dc;
      r += sr;
    }
  }
  for (auto& v : p.v) v = 1.0 - v;
  return p;
}

template <class T>
void set_color(Array& img, const AaPoints& p, const double* color) {
  T* a = img.data<T>();
  const std::int64_t rows = img.shape(0), cols = img.shape(1);
  std::vector<std::int64_t> at;
  std::vector<double> vals;
  for (std::size_t k = 0; k < p.r.size(); ++k) {
    if (p.r[k] < 0 || p.r[k] >= rows || p.c[k] < 0 || p.c[k] >= cols) continue;
    const std::int64_t i = (p.r[k] * cols + p.c[k]) * 3;
    at.push_back(i);
    for (int ch = 0; ch < 3; ++ch) vals.push_back(static_cast<double>(a[i + ch]) * (1 - p.v[k]) + color[ch] * p.v[k]);
  }
  for (std::size_t k = 0; k < at.size(); ++k)
    for (int ch = 0; ch < 3; ++ch) a[at[k] + ch] = static_cast<T>(vals[3 * k + ch]);
}

template <class T>
void draw(Array& out, const Array& descs, const DaisyGeom& g, const std::vector<double>& sigmas,
          const std::vector<double>& radii) {
  const double pi = 3.141592653589793;
  const T* d = descs.data<T>();
  const int O = g.orientations;
  auto arrows = [&](std::int64_t y, std::int64_t x, double sigma, const T* bins, T max_bin, const double* color) {
    for (int o = 0; o < O; ++o) {
      const double ang = 2 * o * pi / O - pi;
      const T size = static_cast<T>(bins[o] / max_bin);
      const T dy = static_cast<T>(static_cast<T>(static_cast<T>(sigma) * size) * static_cast<T>(std::sin(ang)));
      const T dx = static_cast<T>(static_cast<T>(static_cast<T>(sigma) * size) * static_cast<T>(std::cos(ang)));
      set_color<T>(out,
                   line_aa(y, x, static_cast<std::int64_t>(static_cast<T>(static_cast<T>(y) + dy)),
                           static_cast<std::int64_t>(static_cast<T>(static_cast<T>(x) + dx))),
                   color);
    }
  };
  for (std::int64_t i = 0; i < g.P; ++i)
    for (std::int64_t j = 0; j < g.Q; ++j) {
      const T* desc = d + (i * g.Q + j) * g.D;
      const double red[3] = {1, 0, 0};
      const std::int64_t y = i * g.step + g.radius, x = j * g.step + g.radius;
      set_color<T>(out, circle_aa(y, x, static_cast<std::int64_t>(sigmas[0])), red);
      T max_bin = desc[0];
      for (std::int64_t k = 1; k < g.D; ++k) max_bin = desc[k] > max_bin ? desc[k] : max_bin;
      arrows(y, x, sigmas[0], desc, max_bin, red);
      for (int rn = 0; rn < g.rings; ++rn) {
        const double off = static_cast<double>(1 + rn) / g.rings;
        const double col[3] = {1 - off, 1, off};
        for (int t = 0; t < g.histograms; ++t) {
          const double th = 2 * pi * t / g.histograms;
          const std::int64_t hy = y + static_cast<std::int64_t>(std::nearbyint(radii[rn] * std::sin(th)));
          const std::int64_t hx = x + static_cast<std::int64_t>(std::nearbyint(radii[rn] * std::cos(th)));
          set_color<T>(out, circle_aa(hy, hx, static_cast<std::int64_t>(sigmas[rn + 1])), col);
          arrows(hy, hx, sigmas[rn + 1], desc + O + (rn * g.histograms + t) * O, max_bin, col);
        }
      }
    }
}

}  // namespace

Array daisy_draw(const Array& image, const Array& descs, const DaisyGeom& g, const std::vector<double>& sigmas,
                 const std::vector<double>& ring_radii, const Stream& s) {
  const Array img = image.to(Device::cpu(), s);
  const Array dh = descs.to(Device::cpu(), s);
  s.synchronize();
  Array out = color::gray2rgb(img).copy();
  if (out.dtype() == DType::float32)
    draw<float>(out, dh.contiguous(), g, sigmas, ring_radii);
  else
    draw<double>(out, dh.contiguous(), g, sigmas, ring_radii);
  return out;
}

}  // namespace cuskimage::feature::detail
