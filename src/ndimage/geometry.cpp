// scipy.ndimage's geometry: zoom, shift, affine_transform, rotate, geometric_transform. Argument
// handling and scipy's derived quantities (zoom factors, output shapes, rotation matrix and
// offset) here; the prefilter and the sampling are map_coordinates' (spline.cpp's spline_source and
// sample_into, one coordinate functor per operation).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/ndimage/spline.hpp"

namespace cuskimage::ndimage {

using cuskimage::detail::expect;
using detail::GeomMap;

namespace {

void check_common(const Array& input, int order, InterpMode mode, std::string_view fn) {
  cuskimage::detail::expect_valid(input, fn, "input");
  expect(input.ndim() >= 1, fn, "input", "must have at least 1 dimension (input and output rank must be > 0), got 0-D");
  expect(input.ndim() <= cuskimage::detail::kMaxDims, fn, "input", "must have at most ", cuskimage::detail::kMaxDims,
         " dimensions, got ", input.ndim());
  expect(order >= 0 && order <= 5, fn, "order", "must be in 0..5 (spline order not supported), got ", order);
  expect(static_cast<int>(mode) >= 0 && static_cast<int>(mode) <= 6, fn, "mode", "must be a valid InterpMode, got ",
         static_cast<int>(mode));
}

DType output_dtype(const Array& input, const std::optional<DType>& output, std::string_view fn) {
  const DType dt = output.value_or(input.dtype());
  expect(dt == input.dtype() || dt == DType::float32 || dt == DType::float64, fn, "output",
         "must be the input's dtype, float32 or float64, got ", dtype_name(dt));
  return dt;
}

/// scipy's _normalize_sequence: one value for every axis or one per axis.
std::vector<double> per_axis(const std::vector<double>& v, int nd, std::string_view fn, std::string_view arg) {
  expect(v.size() == 1 || static_cast<int>(v.size()) == nd, fn, arg,
         "must have one value or one per axis (sequence argument must have length equal to input rank ", nd,
         "), got ", v.size());
  return v.size() == 1 ? std::vector<double>(nd, v[0]) : v;
}

Shape output_shape_or(const Array& input, const std::vector<std::int64_t>& shape, std::string_view fn) {
  if (shape.empty()) return input.shape();
  for (const auto n : shape) expect(n >= 0, fn, "output_shape", "must have non-negative lengths, got ", n);
  return Shape(shape.begin(), shape.end());
}

/// Prefilter, allocate and sample: the common tail of every operation.
Array run(const Array& input, const GeomMap& g, const Shape& out_shape, DType out_dt, int order, InterpMode mode,
          double cval, bool prefilter, std::string_view fn, const Stream& stream,
          const std::vector<int>& filter_axes = {}) {
  Array out = Array::empty(out_shape, out_dt, input.device(), stream);
  if (out.size() == 0) return out;
  expect(input.size() > 0, fn, "input", "must not be empty when there are output points to sample");
  const auto src = detail::spline_source(input, order, mode, cval, prefilter, fn, stream, filter_axes);
  detail::sample_into(input, src, g, out, order, mode, cval, fn, stream);
  return out;
}

/// numpy's (OpenBLAS) matmul of a 2 x 2 matrix with a 2-vector on x86-64: each row one fused
/// multiply-add over the product of the second column (the bits scipy's rotate offset has).
void matvec2(const double m[2][2], const double v[2], double out[2]) {
  for (int i = 0; i < 2; ++i) out[i] = std::fma(m[i][0], v[0], m[i][1] * v[1]);
}

}  // namespace

// ---- cosdg / sindg: cephes' reduction to octants and its two polynomials ---------------------------

namespace {

constexpr double kPi180 = 1.74532925199432957692E-2;
constexpr double kSinCoef[] = {1.58962301572218447952E-10, -2.50507477628503540135E-8, 2.75573136213856773549E-6,
                               -1.98412698295895384658E-4, 8.33333333332211858862E-3, -1.66666666666666307295E-1};
constexpr double kCosCoef[] = {1.13678171382044553091E-11, -2.08758833757683644217E-9, 2.75573155429816611547E-7,
                               -2.48015872936186303776E-5, 1.38888888888806666760E-3, -4.16666666666666348141E-2,
                               4.99999999999999999798E-1};

template <std::size_t N>
double horner(double x, const double (&c)[N]) {
  double r = c[0];
  for (std::size_t i = 1; i < N; ++i) r = r * x + c[i];
  return r;
}

/// |x| reduced to an octant: returns the offset into the octant in radians; `j` the octant (0..3
/// after folding the half turn into `flip`).
double octant(double x, int& j, bool& flip) {
  double y = std::floor(x / 45.0);
  double z = y - std::ldexp(std::floor(std::ldexp(y, -4)), 4);  // y mod 16 without overflow
  j = static_cast<int>(z);
  if (j & 1) ++j, y += 1.0;  // zeros to the origin
  j &= 7;
  flip = j > 3;
  if (flip) j -= 4;
  return (x - y * 45.0) * kPi180;
}

double sin_poly(double z) {
  const double zz = z * z;
  return z + z * (zz * horner(zz, kSinCoef));
}
double cos_poly(double z) {
  const double zz = z * z;
  return 1.0 - zz * horner(zz, kCosCoef);
}

}  // namespace

double sindg(double x) {
  bool neg = x < 0;
  if (neg) x = -x;
  if (x > 1.0e14) return 0.0;  // cephes: total loss of precision
  int j;
  bool flip;
  const double z = octant(x, j, flip);
  if (flip) neg = !neg;
  const double y = (j == 1 || j == 2) ? cos_poly(z) : sin_poly(z);
  return neg ? -y : y;
}

double cosdg(double x) {
  if (x < 0) x = -x;
  if (x > 1.0e14) return 0.0;
  int j;
  bool flip;
  const double z = octant(x, j, flip);
  bool neg = flip;
  if (j > 1) neg = !neg;
  const double y = (j == 1 || j == 2) ? sin_poly(z) : cos_poly(z);
  return neg ? -y : y;
}

// ---- operations ------------------------------------------------------------------------------------

Array zoom(const Array& input, const std::vector<double>& zoom_in, const ZoomOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.zoom";
  check_common(input, opts.order, opts.mode, fn);
  const DType out_dt = output_dtype(input, opts.output, fn);
  const int nd = input.ndim();
  const std::vector<double> z = per_axis(zoom_in, nd, fn, "zoom");
  Shape out_shape(nd);
  for (int a = 0; a < nd; ++a) {
    expect(std::isfinite(z[a]) && z[a] >= 0, fn, "zoom", "must be finite and non-negative, got ", z[a]);
    out_shape[a] = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(input.shape()[a]) * z[a]));  // round
  }
  if (opts.prefilter && std::all_of(z.begin(), z.end(), [](double v) { return v == 1.0; }))
    return input.astype(out_dt, stream);  // scipy's early exit: the input itself
  GeomMap g;
  g.kind = GeomMap::Kind::zoom_shift;
  g.grid_mode = opts.grid_mode;
  g.zoom.resize(nd);
  for (int a = 0; a < nd; ++a) {
    const auto div = opts.grid_mode ? out_shape[a] : out_shape[a] - 1;
    const auto nom = opts.grid_mode ? input.shape()[a] : input.shape()[a] - 1;
    g.zoom[a] = div != 0 ? static_cast<double>(nom) / static_cast<double>(div) : 1.0;
  }
  return run(input, g, out_shape, out_dt, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream);
}

Array shift(const Array& input, const std::vector<double>& shift_in, const ShiftOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.shift";
  check_common(input, opts.order, opts.mode, fn);
  const DType out_dt = output_dtype(input, opts.output, fn);
  GeomMap g;
  g.kind = GeomMap::Kind::zoom_shift;
  g.shift = per_axis(shift_in, input.ndim(), fn, "shift");
  for (auto& v : g.shift) v = -v;
  return run(input, g, input.shape(), out_dt, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream);
}

Array affine_transform(const Array& input, const std::vector<double>& matrix, const Shape& mshape,
                       const AffineTransformOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.affine_transform";
  check_common(input, opts.order, opts.mode, fn);
  const DType out_dt = output_dtype(input, opts.output, fn);
  const int nd = input.ndim();
  const std::int64_t n = nd;
  expect((mshape.size() == 1 || mshape.size() == 2) && !mshape.empty() && mshape[0] >= 1, fn, "matrix",
         "must be 1-D or 2-D with at least one row (no proper affine matrix provided)");
  std::int64_t count = 1;
  for (const auto s : mshape) count *= s;
  expect(static_cast<std::int64_t>(matrix.size()) == count, fn, "matrix", "has ", matrix.size(),
         " values for its shape");
  const Shape out_shape = output_shape_or(input, opts.output_shape, fn);
  expect(static_cast<int>(out_shape.size()) == nd, fn, "output_shape", "must have one length per input axis (", nd,
         "), got ", out_shape.size());
  std::vector<double> m = matrix;
  std::vector<double> offset;
  Shape ms = mshape;
  if (ms.size() == 2 && ms[1] == n + 1 && (ms[0] == n || ms[0] == n + 1)) {
    if (ms[0] == n + 1)
      for (std::int64_t j = 0; j <= n; ++j)
        expect(m[n * (n + 1) + j] == (j == n ? 1.0 : 0.0), fn, "matrix",
               "must be a homogeneous transformation matrix: its bottom row must be 0, ..., 0, 1");
    offset.resize(nd);
    std::vector<double> sq(nd * nd);
    for (int h = 0; h < nd; ++h) {
      offset[h] = m[h * (n + 1) + n];
      for (int l = 0; l < nd; ++l) sq[h * nd + l] = m[h * (n + 1) + l];
    }
    m = std::move(sq);
    ms = {n, n};
  } else {
    offset = per_axis(opts.offset, nd, fn, "offset");
  }
  expect(ms[0] == n, fn, "matrix", "must have one row per input axis (affine matrix has wrong number of rows): ", nd,
         ", got ", ms[0]);
  GeomMap g;
  if (ms.size() == 1) {  // scipy's zoom_shift path: (i + offset / m) * m
    g.kind = GeomMap::Kind::zoom_shift;
    g.zoom = m;
    g.shift.resize(nd);
    for (int a = 0; a < nd; ++a) g.shift[a] = offset[a] / m[a];
  } else {
    expect(ms[1] == n, fn, "matrix", "must have one column per output axis (affine matrix has wrong number of columns): ",
           nd, ", got ", ms[1]);
    g.kind = GeomMap::Kind::affine;
    g.matrix = std::move(m);
    g.offset = std::move(offset);
  }
  return run(input, g, out_shape, out_dt, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream);
}

Array affine_transform(const Array& input, const Array& matrix, const AffineTransformOptions& opts,
                       const Stream& stream) {
  constexpr std::string_view fn = "ndimage.affine_transform";
  cuskimage::detail::expect_valid(matrix, fn, "matrix");
  expect(matrix.device().is_cpu(), fn, "matrix", "must be a host array");
  return affine_transform(input, matrix.to_vector<double>(), matrix.shape(), opts, stream);
}

Array rotate(const Array& input, double angle, const RotateOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.rotate";
  check_common(input, opts.order, opts.mode, fn);
  const DType out_dt = output_dtype(input, opts.output, fn);
  const int nd = input.ndim();
  expect(nd >= 2, fn, "input", "must be at least 2-D, got ", nd, "-D");
  expect(opts.axes.size() == 2, fn, "axes", "must contain exactly two values, got ", opts.axes.size());
  int ax[2];
  for (int i = 0; i < 2; ++i) {
    ax[i] = opts.axes[i] < 0 ? opts.axes[i] + nd : opts.axes[i];
    expect(ax[i] >= 0 && ax[i] < nd, fn, "axes", "must name axes of the input (invalid rotation plane specified), got ",
           opts.axes[i]);
  }
  expect(ax[0] != ax[1], fn, "axes", "must be two different axes, got ", ax[0], " twice");
  if (ax[0] > ax[1]) std::swap(ax[0], ax[1]);
  const double c = cosdg(angle), s = sindg(angle);
  const double rot[2][2] = {{c, s}, {-s, c}};
  const double in_plane[2] = {static_cast<double>(input.shape()[ax[0]]), static_cast<double>(input.shape()[ax[1]])};
  std::int64_t out_plane[2] = {input.shape()[ax[0]], input.shape()[ax[1]]};
  if (opts.reshape) {  // the extent of the rotated corners (0,0), (0,ix), (iy,0), (iy,ix)
    const double cy[4] = {0, 0, in_plane[0], in_plane[0]}, cx[4] = {0, in_plane[1], 0, in_plane[1]};
    for (int i = 0; i < 2; ++i) {
      double lo = 0, hi = 0;
      for (int k = 0; k < 4; ++k) {
        const double v[2] = {cy[k], cx[k]};
        double r[2];
        matvec2(rot, v, r);
        lo = k == 0 ? r[i] : std::min(lo, r[i]);
        hi = k == 0 ? r[i] : std::max(hi, r[i]);
      }
      out_plane[i] = static_cast<std::int64_t>(hi - lo + 0.5);
    }
  }
  const double half_out[2] = {static_cast<double>(out_plane[0] - 1) / 2, static_cast<double>(out_plane[1] - 1) / 2};
  double out_center[2];
  matvec2(rot, half_out, out_center);
  GeomMap g;
  g.matrix = {c, s, -s, c};
  g.offset = {(in_plane[0] - 1) / 2 - out_center[0], (in_plane[1] - 1) / 2 - out_center[1]};
  Shape out_shape = input.shape();
  out_shape[ax[0]] = out_plane[0], out_shape[ax[1]] = out_plane[1];
  if (nd == 2) {
    g.kind = GeomMap::Kind::affine;
    return run(input, g, out_shape, out_dt, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream);
  }
  // scipy rotates (and prefilters) each plane on its own.
  g.kind = GeomMap::Kind::plane;
  g.p0 = ax[0], g.p1 = ax[1];
  return run(input, g, out_shape, out_dt, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream,
             {ax[0], ax[1]});
}

Array geometric_transform(const Array& input, const GeometricMapping& mapping, const GeometricTransformOptions& opts,
                          const Stream& stream) {
  constexpr std::string_view fn = "ndimage.geometric_transform";
  check_common(input, opts.order, opts.mode, fn);
  expect(static_cast<bool>(mapping), fn, "mapping", "must be a callable");
  const DType out_dt = output_dtype(input, opts.output, fn);
  const Shape out_shape = output_shape_or(input, opts.output_shape, fn);
  expect(!out_shape.empty(), fn, "output_shape", "must have at least one axis (input and output rank must be > 0)");
  const int nd = input.ndim(), ndo = static_cast<int>(out_shape.size());
  std::int64_t npts = 1;
  for (const auto v : out_shape) npts *= v;
  // The coordinates, (nd, npts) float64, from the mapping in C order.
  Array coords = Array::empty({nd, npts}, DType::float64);
  double* cp = static_cast<double*>(coords.data());
  std::vector<std::int64_t> idx(ndo, 0);
  std::vector<double> c(nd);
  for (std::int64_t k = 0; k < npts; ++k) {
    mapping(idx.data(), c.data());
    for (int a = 0; a < nd; ++a) cp[a * npts + k] = c[a];
    for (int d = ndo - 1; d >= 0 && ++idx[d] == out_shape[d]; --d) idx[d] = 0;
  }
  Shape cshape{nd};
  cshape.insert(cshape.end(), out_shape.begin(), out_shape.end());
  GeomMap g;
  g.kind = GeomMap::Kind::coords;
  g.coords = coords.reshape(cshape).to(input.device(), stream);
  return run(input, g, out_shape, out_dt, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream);
}

}  // namespace cuskimage::ndimage
