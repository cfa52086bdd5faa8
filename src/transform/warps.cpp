// skimage.transform.warp and rotate (scikit-image 0.26): validation, the choice between
// scikit-image's _warp_fast (orders 1 and 3 under a 3x3 homography: its own interpolation, in the
// image's float type) and ndimage.map_coordinates (everything else), then _clip_warp_output.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/tuning.hpp"
#include "cuskimage/transform/warps.hpp"
#include "cuskimage/util.hpp"
#include "src/core/backend.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/policy_slot.hpp"
#include "src/core/validate.hpp"
#include "src/transform/warps_backend.hpp"
#include "src/transform/warps_common.hpp"

namespace cuskimage::transform {

namespace detail {

char mode_code(WarpMode m) {
  switch (m) {
    case WarpMode::constant: return 'C';
    case WarpMode::edge: return 'E';
    case WarpMode::symmetric: return 'S';
    case WarpMode::reflect: return 'R';
    case WarpMode::wrap: return 'W';
  }
  return 'C';
}

ndimage::InterpMode ndi_mode(WarpMode m) {
  switch (m) {
    case WarpMode::constant: return ndimage::InterpMode::grid_constant;
    case WarpMode::edge: return ndimage::InterpMode::nearest;
    case WarpMode::symmetric: return ndimage::InterpMode::reflect;
    case WarpMode::reflect: return ndimage::InterpMode::mirror;
    case WarpMode::wrap: return ndimage::InterpMode::grid_wrap;
  }
  return ndimage::InterpMode::grid_constant;
}

int validate_order(DType dt, std::optional<int> order, std::string_view fn) {
  if (!order) return dt == DType::bool_ ? 0 : 1;
  cuskimage::detail::expect(*order >= 0 && *order <= 5, fn, "order",
                            "must be in the range 0-5 (spline interpolation order), got ", *order);
  cuskimage::detail::expect(dt != DType::bool_ || *order == 0, fn, "order",
                            "must be 0 for a bool image (interpolation is not defined with bool data; cast the "
                            "image to another dtype), got ",
                            *order);
  return *order;
}

Array convert_to_float(const Array& image, bool preserve_range, const Stream& stream) {
  if (preserve_range) {
    if (image.dtype() == DType::float32 || image.dtype() == DType::float64) return image.share();
    return image.astype(DType::float64, stream);
  }
  return util::img_as_float(image, {}, stream);
}

double as_dtype(DType dt, double v) {
  unsigned char e[8];
  cuskimage::detail::element_from_double(dt, v, e);
  return cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(dt, "transform", [&]<class T>() {
    T t;
    std::memcpy(&t, e, sizeof(T));
    return static_cast<double>(t);
  });
}

void clip_warp_output(const Array& input, Array& out, WarpMode mode, double cval, bool clip, const Stream& stream) {
  if (!clip || out.size() == 0) return;
  const bool constant = mode == WarpMode::constant;
  const double cv_in = as_dtype(input.dtype(), cval);
  const Array in = input.contiguous(stream);
  if (in.device().is_cpu()) {
    const MinMax a = cpu_minmax(in);
    const MinMax b = cval_may_widen(a, constant, cval) ? cpu_minmax(out) : MinMax{};
    double lo, hi;
    clip_limits(a, b, constant, cval, cv_in, lo, hi);
    cpu_clip(out, lo, hi);
    return;
  }
  cuskimage::detail::DeviceGuard guard(in.device().index());
  Array st = cuda_clip_state(in.device(), stream);
  cuda_minmax_into(in, st, 0, constant, cval, stream);
  cuda_minmax_into(out, st, 1, constant, cval, stream);
  cuda_clip_finish(out, st, constant, cval, cv_in, false, stream);
}

}  // namespace detail

using cuskimage::detail::expect;
using namespace detail;

namespace {

constexpr std::string_view kWarp = "transform.warp";

/// scikit-image's fast path: one _warp_fast per channel under `m`, in the image's float type, with
/// _clip_warp_output fused into the kernel where cval cannot widen the range.
Array warp_fast(const Array& image, const double m[9], const Shape& out_shape, int order, WarpMode mode, double cval,
                bool clip, const Stream& stream) {
  const bool color = image.ndim() == 3;
  const std::int64_t nch = color ? image.shape(2) : 1;
  Shape oshape = {out_shape[0], out_shape[1]};
  if (color) oshape.push_back(nch);
  Array out = Array::empty(oshape, image.dtype(), image.device(), stream);
  if (out.size() == 0) return out;
  const Array planes = color ? image.transpose({2, 0, 1}).contiguous(stream)
                             : image.contiguous(stream).reshape({1, image.shape(0), image.shape(1)});
  const bool constant = mode == WarpMode::constant;
  auto run = [&]<class F>() {
    FastWarp<F> p;
    double md[9];
    for (int i = 0; i < 9; ++i) p.h.m[i] = static_cast<F>(m[i]), md[i] = static_cast<double>(p.h.m[i]);
    p.h.kind = homography_kind(md);
    p.order = order;
    p.mode = mode_code(mode);
    p.cval = static_cast<F>(cval);
    const double cv_in = static_cast<double>(static_cast<F>(cval));
    if (planes.device().is_cpu()) {
      MinMax a;
      if (clip) a = cpu_minmax(planes);
      p.clamp = clip && !cval_may_widen(a, constant, cval);
      p.lo = static_cast<F>(a.lo);
      p.hi = static_cast<F>(a.hi);
      cpu_warp_fast<F>(planes, out, p);
      if (clip && !p.clamp) {
        double lo, hi;
        clip_limits(a, cpu_minmax(out), constant, cval, cv_in, lo, hi);
        cpu_clip(out, lo, hi);
      }
      return;
    }
    cuskimage::detail::DeviceGuard guard(planes.device().index());
    p.clamp = clip;
    Array st;
    if (clip) {
      st = cuda_clip_state(planes.device(), stream);
      cuda_minmax_into(planes, st, 0, constant, cval, stream);
    }
    cuda_warp_fast<F>(planes, out, p, clip ? &st : nullptr, cval, cv_in, stream);
  };
  if (image.dtype() == DType::float32)
    run.template operator()<float>();
  else
    run.template operator()<double>();
  return out;
}

}  // namespace

namespace detail {

Array source_coords(const SourceMap& q, const Shape& out_shape, Device dev, const Stream& stream) {
  Shape cs = {static_cast<std::int64_t>(out_shape.size())};
  cs.insert(cs.end(), out_shape.begin(), out_shape.end());
  Array coords = Array::empty(cs, DType::float64, dev, stream);
  if (coords.size() == 0) return coords;
  if (dev.is_cpu()) {
    cpu_source_coords(q, coords);
  } else {
    cuskimage::detail::DeviceGuard guard(dev.index());
    cuda_source_coords(q, coords, stream);
  }
  return coords;
}

Array map_path(const Array& image, const Array& coords, int order, const WarpOptions& opts, const Stream& stream) {
  ndimage::MapCoordinatesOptions mo;
  mo.order = order;
  mo.mode = ndi_mode(opts.mode);
  mo.cval = opts.cval;
  mo.prefilter = order > 1;
  Array out = ndimage::map_coordinates(image, coords.to(image.device(), stream), mo, stream);
  clip_warp_output(image, out, opts.mode, opts.cval, opts.clip, stream);
  return out;
}

Prepared prepare(const Array& image, const WarpOptions& opts, std::string_view fn, const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "must not be empty (cannot warp an empty image)");
  Prepared p;
  p.order = validate_order(image.dtype(), opts.order, fn);
  p.image = p.order > 0 ? convert_to_float(image, opts.preserve_range, stream) : image.share();
  if (opts.output_shape.empty()) {
    p.out_shape = image.shape();
  } else {
    for (const auto v : opts.output_shape) expect(v >= 0, fn, "output_shape", "must hold non-negative sizes, got ", v);
    p.out_shape = Shape(opts.output_shape.begin(), opts.output_shape.end());
  }
  return p;
}

Shape callable_shape(const Prepared& p, std::string_view fn) {
  expect(p.image.ndim() == 2 || p.image.ndim() == 3, fn, "image",
         "must be 2-D (grayscale or color) when inverse_map is a callable or transform, got ", p.image.ndim(), "-D");
  Shape s = p.out_shape;
  if (p.image.ndim() == 3 && s.size() == 2) s.push_back(p.image.shape(2));
  expect(s.size() == 2 || s.size() == 3, fn, "output_shape", "must have 2 or 3 entries, got ", s.size());
  return s;
}

}  // namespace detail

namespace {

Array warp_matrix(const Prepared& p, const double m[9], const WarpOptions& opts, const Stream& stream) {
  if ((p.order == 1 || p.order == 3) && (p.image.ndim() == 2 || p.image.ndim() == 3)) {
    expect(p.out_shape.size() >= 2, kWarp, "output_shape", "must have at least 2 entries, got ", p.out_shape.size());
    return warp_fast(p.image, m, p.out_shape, p.order, opts.mode, opts.cval, opts.clip, stream);
  }
  const Shape s = callable_shape(p, kWarp);
  SourceMap q;
  std::copy(m, m + 9, q.p);
  return map_path(p.image, source_coords(q, s, p.image.device(), stream), p.order, opts, stream);
}

Array warp_callable(const Prepared& p, const CoordinateMap& f, const WarpOptions& opts, const Stream& stream) {
  const Shape s = callable_shape(p, kWarp);
  return map_path(p.image, warp_coords(f, s), p.order, opts, stream);
}

bool read_matrix(const Array& a, double m[9]) {
  if (a.ndim() != 2 || a.shape(0) != 3 || a.shape(1) != 3) return false;
  const std::vector<double> v = a.to_vector<double>();
  for (int i = 0; i < 9; ++i) m[i] = v[i];
  return true;
}

}  // namespace

Array warp(const Array& image, const GeometricTransform& inverse_map, const WarpOptions& opts, const Stream& stream) {
  const Prepared p = prepare(image, opts, kWarp, stream);
  expect(inverse_map.dimensionality() == 2, kWarp, "inverse_map", "must be a 2-D transform, got ",
         inverse_map.dimensionality(), "-D");
  if (const std::optional<Array> h = inverse_map.homogeneous_matrix()) {
    double m[9];
    if (read_matrix(*h, m)) return warp_matrix(p, m, opts, stream);
  }
  return warp_callable(p, [&](const Array& xy) { return inverse_map(xy); }, opts, stream);
}

Array warp(const Array& image, const Array& inverse_map, const WarpOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(inverse_map, kWarp, "inverse_map");
  const Prepared p = prepare(image, opts, kWarp, stream);
  double m[9];
  if (read_matrix(inverse_map, m)) return warp_matrix(p, m, opts, stream);
  expect(inverse_map.ndim() >= 2 && inverse_map.shape(0) == p.image.ndim(), kWarp, "inverse_map",
         "must be a (3, 3) matrix or coordinates of shape (image.ndim, *output_shape), got shape ",
         inverse_map.str());
  return map_path(p.image, inverse_map, p.order, opts, stream);
}

Array warp(const Array& image, const CoordinateMap& inverse_map, const WarpOptions& opts, const Stream& stream) {
  expect(static_cast<bool>(inverse_map), kWarp, "inverse_map", "must be a callable, got an empty function");
  return warp_callable(prepare(image, opts, kWarp, stream), inverse_map, opts, stream);
}

Array warp_coords(const CoordinateMap& coord_map, const Shape& shape, DType dtype) {
  constexpr std::string_view fn = "transform.warp_coords";
  expect(shape.size() == 2 || shape.size() == 3, fn, "shape", "must have 2 or 3 entries, got ", shape.size());
  expect(dtype == DType::float32 || dtype == DType::float64, fn, "dtype", "must be float32 or float64, got ",
         dtype_name(dtype));
  const std::int64_t rows = shape[0], cols = shape[1], n = rows * cols;
  // np.indices((cols, rows)).reshape(2, -1).T: (x, y) pairs, x outer; values exact in either dtype.
  Array xy = Array::empty({n, 2}, DType::float64);
  double* q = xy.data<double>();
  for (std::int64_t c = 0, i = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r, ++i) q[2 * i] = static_cast<double>(c), q[2 * i + 1] = static_cast<double>(r);
  const Array src = coord_map(xy).to(Device::cpu()).astype(DType::float64).contiguous();
  expect(src.ndim() == 2 && src.shape(0) == n && src.shape(1) == 2, fn, "coord_map",
         "must return an (N, 2) array for N = ", n, " coordinates, got shape ", src.str());
  Shape cs = {static_cast<std::int64_t>(shape.size())};
  cs.insert(cs.end(), shape.begin(), shape.end());
  Array coords = Array::empty(cs, DType::float64);
  const std::int64_t nb = shape.size() == 3 ? shape[2] : 1;
  double* o = coords.data<double>();
  const double* s = src.data<double>();
  const std::int64_t plane = rows * cols * nb;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t i = c * rows + r;  // the pair's position in the x-outer list
      for (std::int64_t b = 0; b < nb; ++b) {
        const std::int64_t k = (r * cols + c) * nb + b;
        o[k] = s[2 * i + 1];
        o[plane + k] = s[2 * i];
        if (shape.size() == 3) o[2 * plane + k] = static_cast<double>(b);
      }
    }
  return dtype == DType::float64 ? std::move(coords) : coords.astype(dtype);
}

}  // namespace cuskimage::transform

namespace cuskimage::tuning {
CUSK_TUNING_POLICY(WarpPolicy, warp_policy)
}  // namespace cuskimage::tuning
