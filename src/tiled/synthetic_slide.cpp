// The synthetic H&E-like slide the nuclei job runs on by default (tiled::write_synthetic_slide):
// tissue, nuclei (optionally in touching pairs), glass; and the count of the nuclei drawn.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/tiled.hpp"
#include "cuskimage/wsi.hpp"

namespace cuskimage::tiled {
namespace {

constexpr double kPi = 3.14159265358979;
constexpr std::int64_t C = 36;  // one potential nucleus per C x C cell (a partner may reach the next cell)

std::uint32_t mix(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  return h ^ (h >> 15);
}

struct Nucleus {
  double cx = 0, cy = 0, a = 0, b = 0, th = 0;
  /// Squared elliptical radius of (x, y): <= 1 inside.
  double d2(double x, double y) const {
    const double dx = x - cx, dy = y - cy, c = std::cos(th), s = std::sin(th);
    const double u = (dx * c + dy * s) / a, v = (-dx * s + dy * c) / b;
    return u * u + v * v;
  }
};

Nucleus shape(std::uint32_t h, double cx, double cy) {
  return {cx, cy, 4.0 + ((h >> 16) & 3) * 1.3, 3.0 + ((h >> 18) & 3) * 0.9, ((h >> 20) & 255) / 255.0 * 3.14159265};
}

/// Whether q (centred at distance d from p along phi) overlaps p: 64 points of q's outline tested.
bool overlaps(const Nucleus& p, Nucleus q, double phi, double d) {
  q.cx = p.cx + d * std::cos(phi);
  q.cy = p.cy + d * std::sin(phi);
  const double c = std::cos(q.th), s = std::sin(q.th);
  for (int k = 0; k < 64; ++k) {
    const double t = k * (2 * kPi / 64), u = q.a * std::cos(t), v = q.b * std::sin(t);
    if (p.d2(q.cx + u * c - v * s, q.cy + u * s + v * c) < 1.0) return true;
  }
  return false;
}

/// The centre distance along phi at which q just touches p (bisection between 0 and a + a').
double touching_distance(const Nucleus& p, const Nucleus& q, double phi) {
  double lo = 0, hi = p.a + q.a + 1;
  for (int k = 0; k < 20; ++k) {
    const double mid = 0.5 * (lo + hi);
    (overlaps(p, q, phi, mid) ? lo : hi) = mid;
  }
  return hi;
}

constexpr double kOverlap = 0.5;  // a partner overlaps its nucleus by this many pixels

struct Slide {
  std::int64_t width, height;
  std::uint32_t seed;
  std::uint32_t partner_p16;  // partner probability in 1/65536
  bool tissue(double x, double y) const {
    const double dx = (x - width * 0.5) / (width * 0.42), dy = (y - height * 0.5) / (height * 0.40);
    return 1.0 - dx * dx - dy * dy + 0.18 * std::sin(x * 6.2832 / (width / 3.0) + seed) * std::sin(y * 6.2832 / (height / 2.5)) >
           0.0;
  }
  /// The nuclei of cell (i, j) (centres on tissue), into out; returns how many (0..2). The first
  /// is the slide without touching's; the second, when drawn, overlaps it by kOverlap pixels along
  /// a random direction.
  int cell(std::int64_t i, std::int64_t j, Nucleus* out) const {
    const std::uint32_t h = mix(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), seed ^ 0xA5A5u);
    if ((h & 255) >= 150) return 0;  // ~59 % of the cells hold a nucleus
    const double ncx = i * C + 8 + ((h >> 8) & 15) * (C - 16) / 15.0;
    const double ncy = j * C + 8 + ((h >> 12) & 15) * (C - 16) / 15.0;
    if (!tissue(ncx, ncy)) return 0;
    out[0] = shape(h, ncx, ncy);
    if (partner_p16 == 0) return 1;
    const std::uint32_t g = mix(static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(i), seed ^ 0x5A5A1234u);
    if ((g & 0xFFFF) >= partner_p16) return 1;
    const double phi = ((g >> 16) & 1023) / 1024.0 * 2 * kPi;
    Nucleus q = shape(mix(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), seed ^ 0x0F0F77u), 0, 0);
    const double d = touching_distance(out[0], q, phi) - kOverlap;
    q.cx = ncx + d * std::cos(phi);
    q.cy = ncy + d * std::sin(phi);
    if (!tissue(q.cx, q.cy)) return 1;
    out[1] = q;
    return 2;
  }
};

/// The nuclei of every cell, computed once (a partner's placement is a search).
struct Cells {
  struct Cell {
    Nucleus n[2];
    int k = 0;
  };
  std::int64_t cols = 0;
  std::vector<Cell> cell;
  Cells(const Slide& sl) : cols(sl.width / C + 2) {
    const std::int64_t rows = sl.height / C + 2;
    cell.resize(static_cast<std::size_t>(rows * cols));
#pragma omp parallel for schedule(dynamic, 4)
    for (std::int64_t j = 0; j < rows; ++j)
      for (std::int64_t i = 0; i < cols; ++i) cell[j * cols + i].k = sl.cell(i, j, cell[j * cols + i].n);
  }
  const Cell& at(std::int64_t i, std::int64_t j) const { return cell[j * cols + i]; }
};

void pixel(const Slide& sl, const Cells& cells, std::int64_t x, std::int64_t y, std::uint8_t* q) {
  const std::uint32_t n = mix(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), sl.seed) & 15;
  if (!sl.tissue(static_cast<double>(x), static_cast<double>(y))) {  // glass
    q[0] = q[1] = q[2] = static_cast<std::uint8_t>(238 + (n & 7));
    return;
  }
  int r = 232 + static_cast<int>(n), g = 160 + static_cast<int>(n), b = 192 + static_cast<int>(n);  // eosin
  const std::int64_t gx = x / C, gy = y / C;
  for (std::int64_t j = gy - 1; j <= gy + 1; ++j)
    for (std::int64_t i = gx - 1; i <= gx + 1; ++i) {
      if (i < 0 || j < 0) continue;
      const Cells::Cell& cl = cells.at(i, j);
      for (int m = 0; m < cl.k; ++m) {
        const double d = cl.n[m].d2(static_cast<double>(x), static_cast<double>(y));
        if (d > 1.0) continue;
        const int dk = static_cast<int>(25 * d);  // haematoxylin: darker towards the rim
        r = 72 + static_cast<int>(n) - dk;
        g = 42 + static_cast<int>(n) - dk / 2;
        b = 132 + static_cast<int>(n) - dk;
      }
    }
  q[0] = static_cast<std::uint8_t>(std::clamp(r, 0, 255));
  q[1] = static_cast<std::uint8_t>(std::clamp(g, 0, 255));
  q[2] = static_cast<std::uint8_t>(std::clamp(b, 0, 255));
}

}  // namespace

std::int64_t write_synthetic_slide(const std::string& path, std::int64_t width, std::int64_t height, std::uint32_t seed,
                                   double touching) {
  if (width < 64 || height < 64) throw InvalidArgument("tiled::write_synthetic_slide: the slide must be at least 64 x 64");
  if (!(touching >= 0.0 && touching <= 1.0))
    throw InvalidArgument("tiled::write_synthetic_slide: touching must be in [0, 1]");
  // A fraction t of all nuclei in pairs: each nucleus gets a partner with p = t / (2 - t).
  const Slide sl{width, height, seed, static_cast<std::uint32_t>(std::lround(touching / (2.0 - touching) * 65536.0))};
  const Cells cells(sl);
  Array img = Array::empty({height, width, 3}, DType::uint8);
  std::uint8_t* p = img.data<std::uint8_t>();
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t y = 0; y < height; ++y)
    for (std::int64_t x = 0; x < width; ++x) pixel(sl, cells, x, y, p + 3 * (y * width + x));
  std::int64_t count = 0;
  for (const Cells::Cell& cl : cells.cell)
    for (int m = 0; m < cl.k; ++m)
      count += cl.n[m].cx >= 0 && cl.n[m].cy >= 0 && cl.n[m].cx < width && cl.n[m].cy < height;
  wsi::PyramidOptions po;
  po.tile_size = 256;
  po.compression = "jpeg";
  po.quality = 85;
  po.aperio = true;
  po.mpp = 0.25;
  po.objective_power = 40;
  wsi::write_pyramid(path, img, po);
  return count;
}

}  // namespace cuskimage::tiled
