// scipy.ndimage's spline prefilter and map_coordinates: argument handling (scipy's error cases,
// output dtypes, the 12-sample padding of 'nearest' / 'grid-constant'), the CPU backend (one line
// buffer per thread, the shared CUSK_HD pieces of spline.hpp) and the dispatch to the CUDA kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "src/core/convert.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/ndimage/lines.hpp"
#include "src/core/validate.hpp"
#include "src/ndimage/spline.hpp"

namespace cuskimage::ndimage {

using cuskimage::detail::AllTypes;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::Types;

InterpMode interp_mode_from_name(std::string_view name) {
  if (name == "constant") return InterpMode::constant;
  if (name == "grid-constant") return InterpMode::grid_constant;
  if (name == "nearest") return InterpMode::nearest;
  if (name == "reflect" || name == "grid-mirror") return InterpMode::reflect;
  if (name == "mirror") return InterpMode::mirror;
  if (name == "grid-wrap") return InterpMode::grid_wrap;
  if (name == "wrap") return InterpMode::wrap;
  cuskimage::detail::fail("ndimage.interp_mode",
                          "argument 'mode' must be one of 'constant', 'grid-constant', 'nearest', 'reflect', "
                          "'grid-mirror', 'mirror', 'grid-wrap', 'wrap', got '",
                          name, "'");
}

std::string_view interp_mode_name(InterpMode mode) {
  switch (mode) {
    case InterpMode::constant: return "constant";
    case InterpMode::grid_constant: return "grid-constant";
    case InterpMode::nearest: return "nearest";
    case InterpMode::reflect: return "reflect";
    case InterpMode::mirror: return "mirror";
    case InterpMode::grid_wrap: return "grid-wrap";
    case InterpMode::wrap: return "wrap";
  }
  return "?";
}

namespace detail {

SplineLinePlan make_line_plan(const Shape& shape, int axis, int order, InterpMode mode) {
  SplineLinePlan p;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < axis) p.outer *= shape[d];
    if (d > axis) p.inner *= shape[d];
  }
  p.n = shape[axis];
  // scipy filters lines of at least two samples; shorter ones are copied.
  if (p.n > 1) p.poles = spline_poles(order);
  p.init = spline_init(mode);
  for (int k = 0; k < p.poles.n; ++k) {
    p.zp[k] = spline_init_power(p.poles.z[k], p.n, p.init);
    p.kz[k] = spline_terms(p.poles.z[k]);
  }
  return p;
}

}  // namespace detail

namespace {

using namespace detail;
constexpr std::int64_t kPad = 12;  // scipy's _prepad_for_spline_filter

void check_interp_mode(InterpMode m, std::string_view fn) {
  expect(static_cast<int>(m) >= 0 && static_cast<int>(m) <= 6, fn, "mode", "must be a valid InterpMode, got ",
         static_cast<int>(m));
}

void check_input(const Array& in, std::string_view fn) {
  cuskimage::detail::expect_valid(in, fn, "input");
  expect(in.ndim() >= 1, fn, "input", "must have at least 1 dimension, got 0-D");
  expect(in.ndim() <= cuskimage::detail::kMaxDims, fn, "input", "must have at most ", cuskimage::detail::kMaxDims,
         " dimensions, got ", in.ndim());
}

void check_float_output(DType dt, std::string_view fn) {
  expect(dt == DType::float32 || dt == DType::float64, fn, "output", "must be float32 or float64, got ",
         dtype_name(dt));
}

/// The dtypes the CUDA kernels are instantiated for (spline.cu); others go through float64.
template <class T>
constexpr bool device_native() {
  return std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::int32_t> ||
         std::is_same_v<T, float> || std::is_same_v<T, double>;
}

// ---- CPU ----------------------------------------------------------------------------------------

/// scipy's apply_filter on one line held in double (n >= 2 when p has poles).
void filter_line(double* c, const SplineLinePlan& p) {
  const std::int64_t n = p.n;
  if (p.poles.n == 0) return;
  for (std::int64_t i = 0; i < n; ++i) c[i] = mul_rn(c[i], p.poles.gain);
  auto get = [c](std::int64_t i) { return c[i]; };
  for (int k = 0; k < p.poles.n; ++k) {
    const double z = p.poles.z[k];
    c[0] = causal_init(get, n, z, p.zp[k], p.kz[k], p.init);
    for (std::int64_t i = 1; i < n; ++i) c[i] = add_rn(c[i], mul_rn(z, c[i - 1]));
    c[n - 1] = anticausal_init(get, n, z, p.kz[k], p.init);
    for (std::int64_t i = n - 2; i >= 0; --i) c[i] = mul_rn(z, sub_rn(c[i + 1], c[i]));
  }
}

/// Filters every line of `in` (S, any strides) along `axis` into `out` (O, any strides; may alias `in`).
template <class S, class O>
void cpu_spline_lines(const Array& in, Array& out, int axis, const SplineLinePlan& p) {
  const std::int64_t n = p.n;
  if (in.size() == 0) return;
  const std::int64_t lines = in.size() / n;
  const auto ii = other_axes(in, axis), oi = other_axes(out, axis);
  const std::int64_t si = in.strides()[axis], so = out.strides()[axis];
  const S* ip0 = static_cast<const S*>(in.data());
  O* op0 = static_cast<O*>(out.data());
#pragma omp parallel if (in.size() > 32768)
  {
    std::vector<double> c(n);
#pragma omp for schedule(static)
    for (std::int64_t L = 0; L < lines; ++L) {
      const S* ip = ip0 + ii.offset(L);
      O* op = op0 + oi.offset(L);
      for (std::int64_t i = 0; i < n; ++i) c[i] = static_cast<double>(ip[i * si]);
      filter_line(c.data(), p);
      for (std::int64_t i = 0; i < n; ++i) op[i * so] = static_cast<O>(c[i]);
    }
  }
}

template <class T>
Array cpu_pad(const Array& in, const Shape& pads, bool constant, double cval) {
  const int nd = in.ndim();
  Shape ps(nd);
  for (int d = 0; d < nd; ++d) ps[d] = in.shape()[d] + 2 * pads[d];
  Array out = Array::empty(ps, DType::float64);
  double* o = static_cast<double*>(out.data());
  const T* ip = static_cast<const T*>(in.data());
  const double cv = static_cast<double>(cuskimage::detail::convert<T>(cval));
  const std::int64_t total = out.size();
#pragma omp parallel for schedule(static) if (total > 32768)
  for (std::int64_t k = 0; k < total; ++k) {
    std::int64_t rem = k, off = 0;
    bool inside = true;
    for (int d = nd - 1; d >= 0; --d) {
      std::int64_t i = rem % ps[d] - pads[d];
      rem /= ps[d];
      if (i < 0 || i >= in.shape()[d]) inside = false;
      i = std::clamp<std::int64_t>(i, 0, in.shape()[d] - 1);
      off += i * in.strides()[d];
    }
    o[k] = (constant && !inside) ? cv : static_cast<double>(ip[off]);
  }
  return out;
}

/// CPU samples: out[k] for every output point k (C order over out_shape) at the map's coordinates.
template <class V, class O, class Map>
void cpu_sample(const V* dp, const std::int64_t* shape, const std::int64_t* strides, int nd, const Map& map,
                const Shape& out_shape, O* op, int order, InterpMode mode, double cval, std::int64_t npad) {
  std::int64_t total = 1;
  for (const auto n : out_shape) total *= n;
  const int ndo = static_cast<int>(out_shape.size());
#pragma omp parallel for schedule(static) if (total > 4096)
  for (std::int64_t k = 0; k < total; ++k) {
    std::int64_t idx[cuskimage::detail::kMaxDims] = {};
    for (std::int64_t d = ndo - 1, r = k; d >= 0; --d) idx[d] = r % out_shape[d], r /= out_shape[d];
    double c[cuskimage::detail::kMaxDims];
    const V* base = dp + map(idx, k, c);
    double t;
    switch (nd) {  // the GPU's unrolled forms for 1..3 axes (same operations as the generic one)
      case 1: t = spline_sample_fixed<1>(base, shape, strides, c, order, mode, cval, npad); break;
      case 2: t = spline_sample_fixed<2>(base, shape, strides, c, order, mode, cval, npad); break;
      case 3: t = spline_sample_fixed<3>(base, shape, strides, c, order, mode, cval, npad); break;
      default:
        t = spline_sample<cuskimage::detail::kMaxDims>(base, shape, strides, nd, c, order, mode, cval, npad);
    }
    op[k] = interp_store<O>(t);
  }
}

// ---- both backends --------------------------------------------------------------------------------

/// Filters `src` (S) along `axis` into `dst` (O, float32/float64, src's shape and device).
template <class S, class O>
void run_lines(const Array& src, Array& dst, int axis, int order, InterpMode mode, const Stream& stream) {
  const SplineLinePlan p = make_line_plan(src.shape(), axis, order, mode);
  if (src.device().is_cpu()) {
    cpu_spline_lines<S, O>(src, dst, axis, p);
    return;
  }
  cuskimage::detail::DeviceGuard guard(src.device().index());
  if (src.size() == 0) return;
  // The CUDA kernels read the common dtypes directly and the others as float64 (the values scipy
  // reads are the same doubles; fewer kernels to compile).
  const Array s = device_native<S>() ? src.contiguous(stream) : src.astype(DType::float64, stream);
  const bool direct = dst.is_contiguous();
  Array d = direct ? dst.share() : Array::empty(src.shape(), dst.dtype(), src.device(), stream);
  Array work;
  if constexpr (!std::is_same_v<O, double>)
    if (p.poles.n > 0) work = Array::empty(src.shape(), DType::float64, src.device(), stream);
  double* w = work.valid() ? static_cast<double*>(work.data()) : reinterpret_cast<double*>(d.data());
  if constexpr (device_native<S>())
    cuda_spline_lines<S, O>(s.data(), w, static_cast<O*>(d.data()), p, stream);
  else
    cuda_spline_lines<double, O>(s.data(), w, static_cast<O*>(d.data()), p, stream);
  if (!direct) dst.copy_from(d, stream);
}

/// spline_filter of `in` along every axis into a new array of dtype `out_dt`.
Array filter_all(const Array& in, int order, InterpMode mode, DType out_dt, std::string_view fn,
                 const Stream& stream) {
  Array out = Array::empty(in.shape(), out_dt, in.device(), stream);
  dispatch<Types<float, double>>(out_dt, fn, [&]<class O>() {
    dispatch<AllTypes>(in.dtype(), fn, [&]<class S>() { run_lines<S, O>(in, out, 0, order, mode, stream); });
    for (int axis = 1; axis < in.ndim(); ++axis) run_lines<O, O>(out, out, axis, order, mode, stream);
  });
  return out;
}

}  // namespace

namespace detail {

SplineSource spline_source(const Array& input, int order, InterpMode mode, double cval, bool prefilter,
                           std::string_view fn, const Stream& stream, const std::vector<int>& axes_in) {
  SplineSource src;
  src.filtered = prefilter && order > 1;
  if (!src.filtered) {
    src.data = input.share();
    return src;
  }
  std::vector<int> axes = axes_in;
  if (axes.empty())
    for (int a = 0; a < input.ndim(); ++a) axes.push_back(a);
  const bool pad = mode == InterpMode::nearest || mode == InterpMode::grid_constant;
  if (!pad) {
    Array out = Array::empty(input.shape(), DType::float64, input.device(), stream);
    dispatch<AllTypes>(input.dtype(), fn,
                       [&]<class S>() { run_lines<S, double>(input, out, axes[0], order, mode, stream); });
    for (std::size_t i = 1; i < axes.size(); ++i) run_lines<double, double>(out, out, axes[i], order, mode, stream);
    src.data = std::move(out);
    return src;
  }
  src.npad = kPad;
  Shape pads(input.ndim(), 0);
  for (const int a : axes) pads[a] = kPad;
  const bool constant = mode == InterpMode::grid_constant;
  Array padded;
  dispatch<AllTypes>(input.dtype(), fn, [&]<class T>() {
    if (input.device().is_cpu()) {
      padded = cpu_pad<T>(input, pads, constant, cval);
      return;
    }
    cuskimage::detail::DeviceGuard guard(input.device().index());
    Shape ps = input.shape();
    for (std::size_t a = 0; a < ps.size(); ++a) ps[a] += 2 * pads[a];
    padded = Array::empty(ps, DType::float64, input.device(), stream);
    const double cv = static_cast<double>(cuskimage::detail::convert<T>(cval));
    if constexpr (device_native<T>()) {
      const Array c = input.contiguous(stream);
      cuda_spline_pad<T>(static_cast<const T*>(c.data()), input.shape(), static_cast<double*>(padded.data()), pads,
                         constant, cv, stream);
    } else {
      const Array c = input.astype(DType::float64, stream);
      cuda_spline_pad<double>(static_cast<const double*>(c.data()), input.shape(),
                              static_cast<double*>(padded.data()), pads, constant, cv, stream);
    }
  });
  // In place: the padded copy is already float64.
  for (const int a : axes) run_lines<double, double>(padded, padded, a, order, mode, stream);
  src.data = std::move(padded);
  return src;
}

namespace {

/// Calls f with g's functor for D axes (D = kMaxDims on the CPU, the exact count on the GPU), built
/// for the sampled array `data` (its strides pick rotate's planes).
template <int D, class F>
void with_map(const GeomMap& g, const Array& data, const Array& coords, int ndo, F&& f) {
  switch (g.kind) {
    case GeomMap::Kind::coords: {
      CoordArrayMap<D> m;
      m.coords = coords.data();
      m.f32 = coords.dtype() == DType::float32;
      m.npts = coords.size() / coords.shape()[0];
      m.nd = static_cast<int>(coords.shape()[0]);
      return f(m);
    }
    case GeomMap::Kind::zoom_shift: {
      ZoomShiftMap<D> m;
      m.nd = ndo;
      m.has_zoom = !g.zoom.empty(), m.has_shift = !g.shift.empty(), m.grid_mode = g.grid_mode;
      for (int a = 0; a < ndo; ++a) {
        if (m.has_zoom) m.zoom[a] = g.zoom[a];
        if (m.has_shift) m.shift[a] = g.shift[a];
      }
      return f(m);
    }
    case GeomMap::Kind::affine: {
      AffineMap<D> m;
      m.nd = ndo;
      for (int h = 0; h < ndo; ++h) {
        m.off[h] = g.offset[h];
        for (int l = 0; l < ndo; ++l) m.m[h][l] = g.matrix[h * ndo + l];
      }
      return f(m);
    }
    case GeomMap::Kind::plane: {
      PlaneMap<D> m;
      m.nd = ndo, m.p0 = g.p0, m.p1 = g.p1;
      for (int i = 0; i < 2; ++i) {
        m.off[i] = g.offset[i];
        for (int j = 0; j < 2; ++j) m.m[i][j] = g.matrix[i * 2 + j];
      }
      for (int a = 0; a < ndo; ++a) m.stride[a] = (a == g.p0 || a == g.p1) ? 0 : data.strides()[a];
      return f(m);
    }
  }
}

/// Whether every offset a sample of `data` can form, and the output's linear index, fit in int32.
bool fits_int32(const Array& data, std::int64_t total) {
  std::int64_t span = 0, smax = 0;
  for (int a = 0; a < data.ndim(); ++a) {
    const std::int64_t st = data.strides()[a] < 0 ? -data.strides()[a] : data.strides()[a];
    span += (data.shape()[a] - 1) * st;
    smax = std::max(smax, st);
  }
  constexpr std::int64_t lim = std::int64_t{1} << 31;
  return span + 8 * smax < lim && total < lim;
}

}  // namespace

void sample_into(const Array& input, const SplineSource& src, const GeomMap& g, Array& out, int order, InterpMode mode,
                 double cval, std::string_view fn, const Stream& stream) {
  const bool on_cpu = input.device().is_cpu();
  const bool plane = g.kind == GeomMap::Kind::plane;
  const int nds = plane ? 2 : input.ndim();
  const int ndo = g.kind == GeomMap::Kind::coords ? 1 : out.ndim();
  const int nd_dev = std::max(input.ndim(), g.kind == GeomMap::Kind::coords ? 1 : out.ndim());
  if (!on_cpu && nd_dev > 3)
    cuskimage::detail::fail<NotSupported>(fn, "argument 'input' must be 1-D to 3-D on a CUDA device, got ", nd_dev,
                                          "-D");
  if (out.size() == 0) return;
  const DType out_dt = out.dtype();
  // The sampled axes' shape and strides (rotate: the plane's).
  auto axes_of = [&](const Array& d, std::int64_t* shape, std::int64_t* strides) {
    for (int a = 0; a < nds; ++a) {
      const int ax = plane ? (a == 0 ? g.p0 : g.p1) : a;
      shape[a] = d.shape()[ax], strides[a] = d.strides()[ax];
    }
  };
  auto sample = [&]<class V, class O>() {
    std::int64_t shape[cuskimage::detail::kMaxDims], strides[cuskimage::detail::kMaxDims];
    if (on_cpu) {
      const Array& d = src.data;
      axes_of(d, shape, strides);
      const bool f_ok = g.kind != GeomMap::Kind::coords || g.coords.dtype() == DType::float32 ||
                        g.coords.dtype() == DType::float64;
      const Array c = g.kind != GeomMap::Kind::coords ? Array()
                      : f_ok                          ? g.coords.contiguous()
                                                      : g.coords.astype(DType::float64);
      with_map<cuskimage::detail::kMaxDims>(g, d, c, out.ndim(), [&](const auto& m) {
        cpu_sample<V, O>(static_cast<const V*>(d.data()), shape, strides, nds, m, out.shape(),
                         static_cast<O*>(out.data()), order, mode, cval, src.npad);
      });
      return;
    }
    cuskimage::detail::DeviceGuard guard(input.device().index());
    Array c;
    if (g.kind == GeomMap::Kind::coords) {
      const bool f = g.coords.dtype() == DType::float32 || g.coords.dtype() == DType::float64;
      c = f ? g.coords.contiguous(stream) : g.coords.astype(DType::float64, stream);
    }
    // Unfiltered inputs of the common dtypes are read in place through their strides (profile_line
    // samples a few points of a large image); the others as a float64 copy.
    using VD = std::conditional_t<device_native<V>(), V, double>;
    const Array d = device_native<V>() ? src.data.share() : src.data.astype(DType::float64, stream);
    axes_of(d, shape, strides);
    SampleLaunch l;
    l.out_shape = out.shape(), l.out = out.data(), l.out_dt = out_dt;
    l.order = order, l.mode = mode, l.cval = cval, l.npad = src.npad;
    l.idx32 = fits_int32(d, out.size());
    const VD* dp = static_cast<const VD*>(d.data());
    auto launch = [&]<int D>() {
      with_map<D>(g, d, c, ndo == 1 && g.kind == GeomMap::Kind::coords ? 1 : out.ndim(), [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        // The instantiated kernels: PlaneMap only for 3-D outputs (2-D rotate is affine).
        if constexpr (!requires { M::kPlane; } || M::kOut == 3) cuda_sample<VD>(dp, shape, strides, m, l, stream);
      });
    };
    const int dsel = plane ? out.ndim() : nds;  // PlaneMap<D>: D output axes
    if (dsel == 1) launch.template operator()<1>();
    else if (dsel == 2) launch.template operator()<2>();
    else launch.template operator()<3>();
  };
  dispatch<AllTypes>(out_dt, fn, [&]<class O>() {
    if (src.filtered) {
      sample.template operator()<double, O>();
    } else {
      dispatch<AllTypes>(input.dtype(), fn, [&]<class V>() {
        if constexpr (std::is_same_v<O, V> || std::is_same_v<O, float> || std::is_same_v<O, double>)
          sample.template operator()<V, O>();
      });
    }
  });
}

}  // namespace detail

Array spline_filter1d(const Array& input, const SplineFilter1dOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.spline_filter1d";
  check_input(input, fn);
  expect(opts.order >= 0 && opts.order <= 5, fn, "order", "must be in 0..5 (spline order not supported), got ",
         opts.order);
  check_interp_mode(opts.mode, fn);
  check_float_output(opts.output, fn);
  const int axis = cuskimage::detail::normalize_axis(opts.axis, input.ndim(), fn, "axis");
  Array out = Array::empty(input.shape(), opts.output, input.device(), stream);
  dispatch<Types<float, double>>(opts.output, fn, [&]<class O>() {
    dispatch<AllTypes>(input.dtype(), fn,
                       [&]<class S>() { run_lines<S, O>(input, out, axis, opts.order, opts.mode, stream); });
  });
  return out;
}

Array spline_filter(const Array& input, const SplineFilterOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.spline_filter";
  check_input(input, fn);
  expect(opts.order >= 2 && opts.order <= 5, fn, "order", "must be in 2..5 (spline order not supported), got ",
         opts.order);
  check_interp_mode(opts.mode, fn);
  check_float_output(opts.output, fn);
  return filter_all(input, opts.order, opts.mode, opts.output, fn, stream);
}

Array map_coordinates(const Array& input, const Array& coordinates, const MapCoordinatesOptions& opts,
                      const Stream& stream) {
  constexpr std::string_view fn = "ndimage.map_coordinates";
  check_input(input, fn);
  cuskimage::detail::expect_valid(coordinates, fn, "coordinates");
  expect(opts.order >= 0 && opts.order <= 5, fn, "order", "must be in 0..5 (spline order not supported), got ",
         opts.order);
  check_interp_mode(opts.mode, fn);
  cuskimage::detail::expect_same_device(input, coordinates, fn, "input", "coordinates");
  expect(coordinates.ndim() >= 2, fn, "coordinates",
         "must have shape (input.ndim, *output_shape) with at least one output axis, got ", coordinates.ndim(),
         "-D");
  expect(coordinates.shape()[0] == input.ndim(), fn, "coordinates",
         "must have its first dimension equal to input.ndim (", input.ndim(), "), got ", coordinates.shape()[0]);
  expect(coordinates.dtype() != DType::bool_, fn, "coordinates", "must be a numeric array, got bool");
  const DType out_dt = opts.output.value_or(input.dtype());
  expect(out_dt == input.dtype() || out_dt == DType::float32 || out_dt == DType::float64, fn, "output",
         "must be the input's dtype, float32 or float64, got ", dtype_name(out_dt));
  const Shape out_shape(coordinates.shape().begin() + 1, coordinates.shape().end());
  Array out = Array::empty(out_shape, out_dt, input.device(), stream);
  const std::int64_t npts = out.size();
  if (npts == 0) return out;
  expect(input.size() > 0, fn, "input", "must not be empty when there are coordinates to sample");

  const SplineSource src = spline_source(input, opts.order, opts.mode, opts.cval, opts.prefilter, fn, stream);
  GeomMap g;
  g.kind = GeomMap::Kind::coords;
  g.coords = coordinates.share();
  sample_into(input, src, g, out, opts.order, opts.mode, opts.cval, fn, stream);
  return out;
}

}  // namespace cuskimage::ndimage
