// skimage.registration.optical_flow_tvl1 / optical_flow_ilk: validation, scikit-image 0.26's
// coarse-to-fine scheme (pyramid_reduce pyramids, the flow carried to each finer level by
// zoom(order 0, nearest) and rescaled), and the solvers' loops. The per-pixel steps are the
// functors of optical_flow.hpp, run here by a loop for CPU arrays and by cuda_each for CUDA ones;
// the warps are ndimage::map_coordinates (order 1, 'nearest' = skimage's 'edge') clipped to the
// moving image's range as skimage.transform.warp does; smoothing and the prefilter are the
// library's uniform / Gaussian / median filters. No host round trip inside a level except TV-L1's
// stopping test (one scalar per warp) and the moving image's range (two per level).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/registration.hpp"
#include "cuskimage/transform/pyramids.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/registration/optical_flow.hpp"

namespace cuskimage::registration {

namespace {

using cuskimage::detail::expect;
using namespace detail;  // NOLINT(google-build-using-namespace): the step functors

/// Runs a step functor over n items on the array's backend.
template <class F>
void each(const F& f, std::int64_t n, const Device& dev, const Stream& stream) {
  if (dev.is_cpu()) {
#pragma omp parallel for schedule(static) if (n > 32768)
    for (std::int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  cuskimage::detail::DeviceGuard guard(dev.index());
  cuda_each(f, n, stream);
}

Grid3 grid_of(const Shape& shape) {
  Grid3 g;
  g.nd = static_cast<int>(shape.size());
  g.size = 1;
  for (int d = g.nd - 1; d >= 0; --d) g.shape[d] = shape[d], g.stride[d] = g.size, g.size *= shape[d];
  return g;
}

template <class T>
void minmax(const Array& a, T& lo, T& hi, const Stream& stream) {
  if (a.device().is_cpu()) {
    const T* p = a.data<T>();
    T l = std::numeric_limits<T>::infinity(), h = -l;
    for (std::int64_t i = 0; i < a.size(); ++i) l = std::fmin(l, p[i]), h = std::fmax(h, p[i]);
    lo = l, hi = h;
    return;
  }
  cuskimage::detail::DeviceGuard guard(a.device().index());
  double l = 0, h = 0;
  cuda_minmax(a, l, h, stream);
  lo = static_cast<T>(l), hi = static_cast<T>(h);
}

template <class T>
double sq_diff(const Array& a, const Array& b, const Stream& stream) {
  if (a.device().is_cpu()) {
    const T* p = a.data<T>();
    const T* q = b.data<T>();
    double s = 0;
    for (std::int64_t i = 0; i < a.size(); ++i) {
      const T d = p[i] - q[i];
      s += static_cast<double>(d * d);
    }
    return s;
  }
  cuskimage::detail::DeviceGuard guard(a.device().index());
  return cuda_sq_diff(a, b, stream);
}

/// The flow's component d: a contiguous view.
Array component(const Array& flow, int d) { return flow.index(0, d); }

/// scipy.ndimage.median_filter(flow, (1,) + ndim * (3,)): each component, 3^ndim box, 'reflect'.
Array median_flow(const Array& flow, const Stream& stream) {
  Array out = Array::empty(flow.shape(), flow.dtype(), flow.device(), stream);
  for (int d = 0; d < flow.shape(0); ++d) {
    Array dst = out.index(0, d);
    dst.copy_from(filters::median(component(flow, d), {.mode = ndimage::Mode::reflect}, stream), stream);
  }
  return out;
}

/// moving warped by the flow: map_coordinates(order 1, 'nearest'); clipped on read (Clipped).
template <class T>
Array warp_by(const Array& moving, const Array& flow, const Grid3& g, Array& coords, const Stream& stream) {
  each(WarpCoords<T>{g, flow.data<T>(), coords.data<T>()}, g.size, moving.device(), stream);
  return ndimage::map_coordinates(moving, coords,
                                  {.order = 1, .mode = ndimage::InterpMode::nearest, .prefilter = false}, stream);
}

template <class T>
Array ilk_level(const Array& ref, const Array& mov, Array flow, const OpticalFlowIlkOptions& o, const Stream& s) {
  const Grid3 g = grid_of(ref.shape());
  const Device dev = ref.device();
  const int nd = g.nd, k_terms = nd * (nd + 1) / 2 + nd;
  T lo, hi;
  minmax<T>(mov, lo, hi, s);
  Shape fshape = ref.shape();
  fshape.insert(fshape.begin(), nd);
  Array coords = Array::empty(fshape, dtype_v<T>, dev, s);
  Shape tshape = ref.shape();
  tshape.insert(tshape.begin(), k_terms);
  Array terms = Array::empty(tshape, dtype_v<T>, dev, s);
  const std::int64_t size = 2 * static_cast<std::int64_t>(o.radius) + 1;
  for (int w = 0; w < o.num_warp; ++w) {
    if (o.prefilter) flow = median_flow(flow, s);
    const Array warped = warp_by<T>(mov, flow, g, coords, s);
    each(IlkTerms<T>{g, ref.data<T>(), Clipped<T>{warped.data<T>(), lo, hi}, flow.data<T>(), terms.data<T>()}, g.size,
         dev, s);
    std::vector<Array> smooth;
    IlkSolve<T> solve{g, {}, nullptr};
    for (int k = 0; k < k_terms; ++k) {
      const Array t = terms.index(0, k);
      smooth.push_back(o.gaussian ? ndimage::gaussian_filter(t, static_cast<double>(size) / 4.0,
                                                             {.mode = ndimage::Mode::mirror}, s)
                                  : ndimage::uniform_filter(t, {.size = {size}, .mode = ndimage::Mode::mirror}, s));
      solve.terms[k] = smooth.back().data<T>();
    }
    Array next = Array::empty(fshape, dtype_v<T>, dev, s);
    solve.flow = next.data<T>();
    each(solve, g.size, dev, s);
    flow = std::move(next);
  }
  return flow;
}

template <class T>
Array tvl1_level(const Array& ref, const Array& mov, Array cur, const OpticalFlowTvl1Options& o, const Stream& s) {
  const Grid3 g = grid_of(ref.shape());
  const Device dev = ref.device();
  const int nd = g.nd;
  const double dt_py = 0.5 / nd;
  const T dt = static_cast<T>(dt_py), f0 = static_cast<T>(o.attachment * o.tightness),
          f1 = static_cast<T>(dt_py / o.tightness);
  const double tol = o.tol * static_cast<double>(g.size);
  T lo, hi;
  minmax<T>(mov, lo, hi, s);
  Shape fshape = ref.shape();
  fshape.insert(fshape.begin(), nd);
  Shape pshape = fshape;
  pshape.insert(pshape.begin(), nd);
  Array coords = Array::empty(fshape, dtype_v<T>, dev, s), grad = Array::empty(fshape, dtype_v<T>, dev, s);
  Array aux = Array::empty(fshape, dtype_v<T>, dev, s), prev = Array::empty(fshape, dtype_v<T>, dev, s);
  Array ni = Array::empty(ref.shape(), dtype_v<T>, dev, s), rho0 = Array::empty(ref.shape(), dtype_v<T>, dev, s);
  Array proj = Array::zeros(pshape, dtype_v<T>, dev, s);
  for (int w = 0; w < o.num_warp; ++w) {
    // scikit-image's stopping test compares the flow at the warp's start: after the first data step
    // (which updates it in place), or, with the prefilter, before the median filter.
    if (o.prefilter) {
      prev.copy_from(cur, s);
      cur = median_flow(cur, s);
    }
    const Array warped = warp_by<T>(mov, cur, g, coords, s);
    each(Tvl1Warp<T>{g, ref.data<T>(), Clipped<T>{warped.data<T>(), lo, hi}, cur.data<T>(), grad.data<T>(),
                     ni.data<T>(), rho0.data<T>()},
         g.size, dev, s);
    for (int it = 0; it < o.num_iter; ++it) {
      each(Tvl1Data<T>{g, grad.data<T>(), ni.data<T>(), rho0.data<T>(), f0, cur.data<T>(), aux.data<T>(),
                       it == 0 && !o.prefilter ? prev.data<T>() : nullptr},
           g.size, dev, s);
      for (int idx = 0; idx < nd; ++idx) {
        T* u = cur.data<T>() + idx * g.size;
        T* p = proj.data<T>() + idx * nd * g.size;
        for (int r = 0; r < 2; ++r) {
          each(Tvl1Proj<T>{g, u, p, dt, f1}, g.size, dev, s);
          each(Tvl1Div<T>{g, p, aux.data<T>() + idx * g.size, u}, g.size, dev, s);
        }
      }
    }
    if (sq_diff<T>(prev, cur, s) < tol) break;
  }
  return cur;
}

/// The images' pyramid, coarsest first: pyramid_reduce while the smallest side > 2 * 16, 10 at most.
std::vector<Array> pyramid(Array image, DType dt, const Stream& stream) {
  std::vector<Array> levels;
  levels.push_back(std::move(image));
  while (levels.size() < 10) {
    const Shape& sh = levels.back().shape();
    const std::int64_t smallest = *std::min_element(sh.begin(), sh.end());
    if (!(static_cast<double>(smallest) > 2.0 * 16)) break;
    Array next = transform::pyramid_reduce(levels.back(), {.downscale = 2.0}, stream);
    levels.push_back(next.dtype() == dt ? std::move(next) : next.astype(dt, stream));
  }
  return std::vector<Array>(std::make_move_iterator(levels.rbegin()), std::make_move_iterator(levels.rend()));
}

/// _resize_flow: zoom(flow, [1] + new/old, order 0, 'nearest'), each component times new/old in T.
template <class T>
Array resize_flow(const Array& flow, const Shape& shape, const Stream& s) {
  const Grid3 g = grid_of(shape);
  const Device dev = flow.device();
  ZoomCoords zc{g, {}, nullptr};
  ScaleFlow<T> sf{g, {}, nullptr};
  for (int d = 0; d < g.nd; ++d) {
    const std::int64_t in = flow.shape(d + 1), out = shape[d];
    zc.zoom[d] = out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 1.0;
    sf.scale[d] = static_cast<T>(static_cast<double>(out) / static_cast<double>(in));
  }
  Shape cshape = shape;
  cshape.insert(cshape.begin(), g.nd);
  Array coords = Array::empty(cshape, DType::float64, dev, s);
  zc.coords = coords.data<double>();
  each(zc, g.size, dev, s);
  Array out = Array::empty(cshape, flow.dtype(), dev, s);
  for (int d = 0; d < g.nd; ++d) {
    Array dst = out.index(0, d);
    dst.copy_from(ndimage::map_coordinates(component(flow, d), coords,
                                           {.order = 0, .mode = ndimage::InterpMode::nearest, .prefilter = false}, s),
                  s);
  }
  sf.flow = out.data<T>();
  each(sf, g.size, dev, s);
  return out;
}

template <class T, class Solver>
Array coarse_to_fine(const Array& reference, const Array& moving, DType dt, Solver&& solver, const Stream& s) {
  auto as_float = [&](const Array& a) {
    return dt == DType::float32 ? util::img_as_float32(a, {}, s).contiguous(s) : util::img_as_float64(a, {}, s).contiguous(s);
  };
  const std::vector<Array> p0 = pyramid(as_float(reference), dt, s), p1 = pyramid(as_float(moving), dt, s);
  Shape fshape = p0[0].shape();
  fshape.insert(fshape.begin(), p0[0].ndim());
  Array flow = solver(p0[0], p1[0], Array::zeros(fshape, dt, reference.device(), s));
  for (std::size_t l = 1; l < p0.size(); ++l) flow = solver(p0[l], p1[l], resize_flow<T>(flow, p0[l].shape(), s));
  return flow;
}

DType check_flow_inputs(const Array& reference, const Array& moving, DType dtype, std::string_view fn) {
  cuskimage::detail::expect_valid(reference, fn, "reference_image");
  cuskimage::detail::expect_valid(moving, fn, "moving_image");
  expect(reference.shape() == moving.shape(), fn, "moving_image",
         "must have the reference's shape (Input images should have the same shape), got ",
         shape_str(reference.shape()), " and ", shape_str(moving.shape()));
  expect(reference.device() == moving.device(), fn, "moving_image", "must be on the reference image's device");
  expect(dtype == DType::float32 || dtype == DType::float64, fn, "dtype", "dtype=", dtype_name(dtype),
         " is not supported. Try 'float32' or 'float64.'");
  if (reference.ndim() < 1 || reference.ndim() > kMaxFlowDims)
    throw NotSupported(std::string(fn) + ": images of 1 to 3 dimensions are supported, got shape " +
                       shape_str(reference.shape()));
  for (auto n : reference.shape())
    expect(n >= 2, fn, "reference_image", "needs at least 2 samples along every axis for its gradient, got shape ",
           shape_str(reference.shape()));
  return dtype;
}

}  // namespace

Array optical_flow_ilk(const Array& reference_image, const Array& moving_image, const OpticalFlowIlkOptions& opts,
                       const Stream& stream) {
  constexpr std::string_view fn = "registration.optical_flow_ilk";
  const DType dt = check_flow_inputs(reference_image, moving_image, opts.dtype, fn);
  expect(opts.radius >= 0, fn, "radius", "must be >= 0, got ", opts.radius);
  auto run = [&]<class T>() {
    return coarse_to_fine<T>(reference_image, moving_image, dt,
                             [&](const Array& a, const Array& b, Array f) { return ilk_level<T>(a, b, std::move(f), opts, stream); },
                             stream);
  };
  return dt == DType::float32 ? run.template operator()<float>() : run.template operator()<double>();
}

Array optical_flow_tvl1(const Array& reference_image, const Array& moving_image, const OpticalFlowTvl1Options& opts,
                        const Stream& stream) {
  constexpr std::string_view fn = "registration.optical_flow_tvl1";
  const DType dt = check_flow_inputs(reference_image, moving_image, opts.dtype, fn);
  expect(opts.tightness != 0, fn, "tightness", "must not be 0");
  auto run = [&]<class T>() {
    return coarse_to_fine<T>(
        reference_image, moving_image, dt,
        [&](const Array& a, const Array& b, Array f) { return tvl1_level<T>(a, b, std::move(f), opts, stream); },
        stream);
  };
  return dt == DType::float32 ? run.template operator()<float>() : run.template operator()<double>();
}

}  // namespace cuskimage::registration
