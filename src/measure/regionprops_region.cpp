// measure.regionprops: per-region arrays built on demand from the region's bounding-box crop
// (image, image_intensity, coords, image_convex, image_filled, intensity_median, extra properties)
// and the host measures of a region's mask (scikit-image's euler_number, perimeter,
// perimeter_crofton and the maximum Feret diameter), each on the crop only.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <numbers>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/regionprops.hpp"
#include "src/measure/regionprops_luts.hpp"

namespace cuskimage::measure::detail {
namespace {

using cuskimage::detail::fail;

constexpr int kEuler2d8[16] = CUSK_EULER2D_8;
constexpr int kEuler3d26[256] = CUSK_EULER3D_26;
constexpr double kCrofton4[16] = CUSK_CROFTON4;
constexpr double kPerimeterWeights[50] = CUSK_PERIMETER_WEIGHTS;

/// 2-D/3-D host mask with zero outside: at(z, y, x) (2-D: z = 0 only).
struct Mask {
  const bool* p;
  std::int64_t nz, ny, nx;
  explicit Mask(const Array& m)
      : p(m.data<bool>()), nz(m.ndim() == 3 ? m.shape(0) : 1), ny(m.shape(-2)), nx(m.shape(-1)) {}
  bool at(std::int64_t z, std::int64_t y, std::int64_t x) const {
    if (z < 0 || y < 0 || x < 0 || z >= nz || y >= ny || x >= nx) return false;
    return p[(z * ny + y) * nx + x];
  }
};

/// Histogram-weighted 2x2 configurations x[i,j] + 2x[i-1,j] + 4x[i,j-1] + 8x[i-1,j-1] over the
/// zero-extended image (scikit-image's convolution of the padded image).
template <class W>
double sum_2x2(const Mask& m, const W& weight) {
  double total = 0;
  for (std::int64_t i = 0; i <= m.ny; ++i)
    for (std::int64_t j = 0; j <= m.nx; ++j) {
      const int code = m.at(0, i, j) + 2 * m.at(0, i - 1, j) + 4 * m.at(0, i, j - 1) + 8 * m.at(0, i - 1, j - 1);
      total += weight(code);
    }
  return total;
}

}  // namespace

std::int64_t count_true(const Array& mask) {
  const Array m = mask.to(Device::cpu()).contiguous();
  return std::count(m.data<bool>(), m.data<bool>() + m.size(), true);
}

std::int64_t euler_number_of(const Array& mask_in) {
  const Array c = mask_in.contiguous();
  const Mask m(c);
  if (c.ndim() == 2) return static_cast<std::int64_t>(sum_2x2(m, [](int code) { return kEuler2d8[code]; }));
  std::int64_t total = 0;
  for (std::int64_t i = 0; i <= m.nz; ++i)
    for (std::int64_t j = 0; j <= m.ny; ++j)
      for (std::int64_t l = 0; l <= m.nx; ++l) {
        const int code = m.at(i, j, l) + 2 * m.at(i, j - 1, l) + 4 * m.at(i, j, l - 1) + 8 * m.at(i, j - 1, l - 1) +
                         16 * m.at(i - 1, j, l) + 32 * m.at(i - 1, j - 1, l) + 64 * m.at(i - 1, j, l - 1) +
                         128 * m.at(i - 1, j - 1, l - 1);
        total += kEuler3d26[code];
      }
  return static_cast<std::int64_t>(0.125 * static_cast<double>(total));  // int() truncates toward zero
}

double perimeter4(const Array& mask_in) {
  const Array c = mask_in.contiguous();
  const Mask m(c);
  // Border pixels: foreground with a 4-neighbour outside the foreground (erosion, border_value 0).
  std::vector<char> border(static_cast<std::size_t>(m.ny * m.nx), 0);
  for (std::int64_t y = 0; y < m.ny; ++y)
    for (std::int64_t x = 0; x < m.nx; ++x)
      border[y * m.nx + x] = m.at(0, y, x) && !(m.at(0, y - 1, x) && m.at(0, y + 1, x) && m.at(0, y, x - 1) &&
                                                m.at(0, y, x + 1));
  auto b = [&](std::int64_t y, std::int64_t x) -> int {
    return (y < 0 || x < 0 || y >= m.ny || x >= m.nx) ? 0 : border[y * m.nx + x];
  };
  const double* w = kPerimeterWeights;
  double total = 0;
  for (std::int64_t y = 0; y < m.ny; ++y)
    for (std::int64_t x = 0; x < m.nx; ++x) {
      const int v = b(y, x) + 2 * (b(y - 1, x) + b(y + 1, x) + b(y, x - 1) + b(y, x + 1)) +
                    10 * (b(y - 1, x - 1) + b(y - 1, x + 1) + b(y + 1, x - 1) + b(y + 1, x + 1));
      total += w[v];
    }
  return total;
}

double crofton4(const Array& mask_in) {
  const Array c = mask_in.contiguous();
  const double* coefs = kCrofton4;
  // scikit-image sums coefs @ histogram; summing per window in the same bins order is the same
  // products, so accumulate per bin first to keep its rounding.
  std::array<std::int64_t, 16> h{};
  sum_2x2(Mask(c), [&](int code) {
    ++h[code];
    return 0.0;
  });
  double total = 0;
  for (int k = 0; k < 16; ++k) total += coefs[k] * static_cast<double>(h[k]);
  return total;
}

double feret_max(const Array& convex_in, const std::vector<double>& spacing) {
  const Array c = convex_in.contiguous();
  const Mask m(c);
  const int nd = c.ndim();
  // Contour / isosurface vertices at level 0.5 of a binary image are the midpoints of 4-adjacent
  // (6-adjacent) pixel pairs that differ. Hull vertices are extremes along the last axis for each
  // line of the other coordinates, so keep only those (coordinates doubled to stay integral).
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, std::int64_t>> lines;
  auto add = [&](std::int64_t z2, std::int64_t y2, std::int64_t x2) {
    auto [it, fresh] = lines.try_emplace({z2, y2}, x2, x2);
    if (!fresh) {
      it->second.first = std::min(it->second.first, x2);
      it->second.second = std::max(it->second.second, x2);
    }
  };
  for (std::int64_t z = (nd == 3 ? -1 : 0); z < m.nz; ++z)
    for (std::int64_t y = -1; y < m.ny; ++y)
      for (std::int64_t x = -1; x < m.nx; ++x) {
        const bool v = m.at(z, y, x);
        if (v != m.at(z, y, x + 1)) add(2 * z, 2 * y, 2 * x + 1);
        if (v != m.at(z, y + 1, x)) add(2 * z, 2 * y + 1, 2 * x);
        if (nd == 3 && v != m.at(z + 1, y, x)) add(2 * z + 1, 2 * y, 2 * x);
      }
  std::vector<std::array<double, 3>> pts;
  const double sz = nd == 3 ? spacing[0] : 0, sy = spacing[nd - 2], sx = spacing[nd - 1];
  for (const auto& [k, e] : lines) {
    for (std::int64_t x2 : {e.first, e.second})
      pts.push_back({0.5 * static_cast<double>(k.first) * sz, 0.5 * static_cast<double>(k.second) * sy,
                     0.5 * static_cast<double>(x2) * sx});
  }
  double best = 0;
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j) {
      const double dz = pts[i][0] - pts[j][0], dy = pts[i][1] - pts[j][1], dx = pts[i][2] - pts[j][2];
      best = std::max(best, dz * dz + dy * dy + dx * dx);
    }
  return std::sqrt(best);
}

// ---- RegionSet's per-region arrays ------------------------------------------------------------------

namespace {

std::vector<Slice> crop_of(const RegionSet& s, std::int64_t r) {
  std::vector<Slice> sl;
  for (int a = 0; a < s.ndim; ++a) sl.push_back(Slice{s.st.lo[r * s.ndim + a], s.st.hi[r * s.ndim + a], 1});
  return sl;
}

}  // namespace

Array RegionSet::image(std::int64_t r) const {
  const Array crop = labels.slice(crop_of(*this, r));
  Array out = Array::empty(crop.shape(), DType::bool_, labels.device(), stream);
  const std::int64_t l = st.label[r];
  cuskimage::detail::on_backend(
      labels, stream,
      [&] {
        const Array c = crop.astype(DType::int64).contiguous();
        const std::int64_t* p = c.data<std::int64_t>();
        bool* o = out.data<bool>();
        for (std::int64_t i = 0; i < c.size(); ++i) o[i] = p[i] == l;
      },
      [&](const Stream& h) { cuda_region_mask(crop, l, out, h); });
  return out;
}

Array RegionSet::host_mask(std::int64_t r) const {
  if (!labels.device().is_cpu())
    fail<NotSupported>("measure.regionprops", "host measures need a host label image");
  return image(r);
}

Array RegionSet::image_convex(std::int64_t r) const {
  if (!labels.device().is_cpu()) return device_image_convex(r);
  return morphology::convex_hull_image(host_mask(r));
}

Array RegionSet::image_filled(std::int64_t r) const {
  // ndi.binary_fill_holes with a full structure: background reachable from outside the crop
  // through background pixels (3^ndim - 1 neighbours) stays background; everything else is filled.
  if (!labels.device().is_cpu()) return device_image_filled(r);
  Array m = host_mask(r);
  const std::int64_t nz = ndim == 3 ? m.shape(0) : 1, ny = m.shape(-2), nx = m.shape(-1);
  bool* p = m.data<bool>();
  std::vector<char> outside(static_cast<std::size_t>(m.size()), 0);
  std::deque<std::int64_t> q;
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        const bool edge = y == 0 || x == 0 || y == ny - 1 || x == nx - 1 || (ndim == 3 && (z == 0 || z == nz - 1));
        const std::int64_t i = (z * ny + y) * nx + x;
        if (edge && !p[i]) {
          outside[i] = 1;
          q.push_back(i);
        }
      }
  while (!q.empty()) {
    const std::int64_t i = q.front();
    q.pop_front();
    const std::int64_t z = i / (ny * nx), y = (i / nx) % ny, x = i % nx;
    for (int dz = (ndim == 3 ? -1 : 0); dz <= (ndim == 3 ? 1 : 0); ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::int64_t zz = z + dz, yy = y + dy, xx = x + dx;
          if (zz < 0 || yy < 0 || xx < 0 || zz >= nz || yy >= ny || xx >= nx) continue;
          const std::int64_t j = (zz * ny + yy) * nx + xx;
          if (!p[j] && !outside[j]) {
            outside[j] = 1;
            q.push_back(j);
          }
        }
  }
  for (std::int64_t i = 0; i < m.size(); ++i) p[i] = !outside[i];
  return m;
}

Array RegionSet::image_intensity(std::int64_t r) const {
  if (nch == 0) fail("measure.regionprops", "argument 'intensity_image': no intensity image specified");
  const Array mask = image(r);
  std::vector<Slice> sl = crop_of(*this, r);
  const Array crop = intensity.slice(sl);
  Array out = Array::empty(crop.shape(), crop.dtype(), crop.device(), stream);
  cuskimage::detail::on_backend(
      labels, stream,
      [&] {
        const Array c = crop.contiguous();
        const std::int64_t C = multichannel ? nch : 1;
        const bool* mk = mask.data<bool>();
        cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(c.dtype(), "measure.regionprops", [&]<class T>() {
          const T* in = c.data<T>();
          T* o = out.data<T>();
          for (std::int64_t i = 0; i < c.size(); ++i) o[i] = mk[i / C] ? in[i] : T(0);
        });
      },
      [&](const Stream& h) { cuda_masked_intensity(crop, mask, out, h); });
  return out;
}

Array RegionSet::coords(std::int64_t r, bool scaled) const {
  if (!labels.device().is_cpu()) return device_coords(r, scaled);
  const Array m = host_mask(r);
  const std::int64_t n = st.count[r];
  const Shape& sh = m.shape();
  Array out = Array::empty({n, ndim}, scaled ? DType::float64 : DType::int64);
  const bool* p = m.data<bool>();
  std::vector<std::int64_t> x(ndim, 0);
  std::int64_t k = 0;
  for (std::int64_t i = 0; i < m.size(); ++i) {
    if (p[i]) {
      for (int a = 0; a < ndim; ++a) {
        const std::int64_t g = x[a] + st.lo[r * ndim + a];
        if (scaled)
          out.data<double>()[k * ndim + a] = static_cast<double>(g) * spacing[a] + static_cast<double>(offset[a]);
        else
          out.data<std::int64_t>()[k * ndim + a] = g + offset[a];
      }
      ++k;
    }
    for (int a = ndim - 1; a >= 0; --a) {
      if (++x[a] < sh[a]) break;
      x[a] = 0;
    }
  }
  return out;
}

std::vector<double> RegionSet::intensity_median(std::int64_t r) const {
  if (!labels.device().is_cpu()) return device_median(r);
  const Array m = host_mask(r);
  const Array c = intensity.slice(crop_of(*this, r)).astype(DType::float64).contiguous();
  const double* v = c.data<double>();
  const bool* p = m.data<bool>();
  const std::int64_t C = nch;
  const bool f32 = intensity.dtype() == DType::float32;
  std::vector<double> out(C);
  for (std::int64_t ch = 0; ch < C; ++ch) {
    std::vector<double> vals;
    for (std::int64_t i = 0; i < m.size(); ++i)
      if (p[i]) vals.push_back(v[i * C + ch]);
    const std::size_t h = vals.size() / 2;
    std::nth_element(vals.begin(), vals.begin() + h, vals.end());
    double med = vals[h];
    if (vals.size() % 2 == 0)
      med = median_of_middle(*std::max_element(vals.begin(), vals.begin() + h), med, f32);
    out[ch] = med;
  }
  return out;
}

std::vector<double> RegionSet::extra_value(std::int64_t r, const ExtraProperty& e) const {
  const Array mask = image(r);
  if (!e.uses_intensity) return e.fn(mask, Array());
  const Array ii = image_intensity(r);
  if (!multichannel) return e.fn(mask, ii);
  std::vector<std::vector<double>> per;
  for (std::int64_t c = 0; c < nch; ++c) per.push_back(e.fn(mask, ii.index(ndim, c)));
  const std::size_t k = per[0].size(), C = per.size();
  std::vector<double> out(k * C);
  for (std::size_t c = 0; c < C; ++c) {
    if (per[c].size() != k) fail("measure.regionprops", "extra property '", e.name, "' returned unequal lengths per channel");
    for (std::size_t i = 0; i < k; ++i) out[i * C + c] = per[c][i];
  }
  return out;
}

Shape RegionSet::extra_shape(const ExtraProperty& e) const {
  Shape ch = (e.uses_intensity && multichannel) ? Shape{nch} : Shape{};
  if (e.scalar) return ch;
  std::int64_t k = 0;
  if (st.n > 0) {
    k = static_cast<std::int64_t>(extra_value(0, e).size()) / (ch.empty() ? 1 : nch);
  } else {  // scikit-image measures a one-pixel region to find the shape
    const Shape one(ndim, 1);
    Array mask = Array::full(one, 1, DType::bool_, labels.device(), stream);
    Array ii = e.uses_intensity ? Array::zeros(one, intensity.dtype(), labels.device(), stream) : Array();
    k = static_cast<std::int64_t>(e.fn(mask, ii).size());
  }
  Shape s{k};
  s.insert(s.end(), ch.begin(), ch.end());
  return s;
}

}  // namespace cuskimage::measure::detail
