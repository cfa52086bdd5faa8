// skimage.measure's image measures and polygon utilities (everything but label, regionprops, the
// moments and find_contours): argument handling, the CPU backend and the host-side finishing of
// the CUDA reductions (kernels/measure/misc.cu).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/util.hpp"
#include "src/core/convert.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/misc.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::fail;
using cuskimage::detail::on_backend;

/// Values of a small host or device array as float64 in C order (polygon vertices, points).
std::vector<double> host_values(const Array& a, const Stream& stream = {}) {
  Array t = a.to(Device::cpu(), stream);
  const Array c = t.astype(DType::float64).contiguous();
  const double* p = static_cast<const double*>(c.data());
  return std::vector<double>(p, p + c.size());
}

/// An (N, 2) coordinate array: checks and returns its values (row-major pairs).
std::vector<double> coords2(const Array& a, std::string_view fn, std::string_view arg) {
  expect_valid(a, fn, arg);
  expect(a.ndim() == 2 && a.shape(1) == 2, fn, arg, "must have shape (N, 2), got ", shape_str(a.shape()));
  expect(a.dtype() != DType::bool_, fn, arg, "must hold numbers, got bool");
  return host_values(a);
}

Array from_pairs(const std::vector<double>& v) {
  return Array::from_vector(v, {static_cast<std::int64_t>(v.size() / 2), 2});
}

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;

}  // namespace

// =================================================================================================
// Meshes and polygons
// =================================================================================================

double mesh_surface_area(const Array& verts, const Array& faces, const Stream& stream) {
  constexpr std::string_view fn = "measure.mesh_surface_area";
  expect_valid(verts, fn, "verts");
  expect_valid(faces, fn, "faces");
  expect(verts.ndim() == 2 && verts.shape(1) == 3, fn, "verts", "must have shape (V, 3), got ",
         shape_str(verts.shape()));
  expect(faces.ndim() == 2 && faces.shape(1) == 3, fn, "faces", "must have shape (F, 3), got ",
         shape_str(faces.shape()));
  expect(faces.dtype() != DType::bool_ && faces.dtype() != DType::float32 && faces.dtype() != DType::float64, fn,
         "faces", "must hold integer vertex indices, got ", dtype_name(faces.dtype()));
  cuskimage::detail::expect_same_device(verts, faces, fn, "verts", "faces");
  const Array v = verts.astype(DType::float64, stream).contiguous(stream);
  const Array f = faces.astype(DType::int64, stream).contiguous(stream);
  const std::int64_t nv = v.shape(0);
  return on_backend(
      verts, stream,
      [&] {
        const double* vp = static_cast<const double*>(v.data());
        const std::int64_t* fp = static_cast<const std::int64_t*>(f.data());
        double total = 0.0;
        for (std::int64_t k = 0; k < f.shape(0); ++k) {
          std::int64_t id[3];
          for (int e = 0; e < 3; ++e) {
            id[e] = fp[3 * k + e] < 0 ? fp[3 * k + e] + nv : fp[3 * k + e];  // NumPy's negative indices
            expect(id[e] >= 0 && id[e] < nv, fn, "faces", "index ", fp[3 * k + e], " is out of bounds for ", nv,
                   " vertices");
          }
          const double* p0 = vp + 3 * id[0];
          const double* p1 = vp + 3 * id[1];
          const double* p2 = vp + 3 * id[2];
          const double a[3] = {p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]};
          const double b[3] = {p0[0] - p2[0], p0[1] - p2[1], p0[2] - p2[2]};
          const double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2], c2 = a[0] * b[1] - a[1] * b[0];
          total += std::sqrt(c0 * c0 + c1 * c1 + c2 * c2);
        }
        return total / 2.0;
      },
      [&](cudaStream_t s) {
        const double area = detail::cuda_mesh_area(v, f, s);  // negative: an index out of bounds
        if (area < 0) fail(fn, "argument 'faces' holds an index out of bounds for ", nv, " vertices");
        return area / 2.0;
      });
}

Array points_in_poly(const Array& points, const Array& verts) {
  constexpr std::string_view fn = "measure.points_in_poly";
  const auto p = coords2(points, fn, "points");
  const auto v = coords2(verts, fn, "verts");
  const std::int64_t n = static_cast<std::int64_t>(p.size() / 2), m = static_cast<std::int64_t>(v.size() / 2);
  std::vector<double> vx(m), vy(m);
  for (std::int64_t i = 0; i < m; ++i) vx[i] = v[2 * i], vy[i] = v[2 * i + 1];
  Array out = Array::empty({n}, DType::bool_);
  bool* o = static_cast<bool*>(out.data());
  for (std::int64_t i = 0; i < n; ++i) o[i] = detail::point_in_polygon(vx.data(), vy.data(), m, p[2 * i], p[2 * i + 1]) != 0;
  return out;
}

Array grid_points_in_poly(const Shape& shape, const Array& verts, const GridPointsInPolyOptions& opts,
                          const Stream& stream) {
  constexpr std::string_view fn = "measure.grid_points_in_poly";
  expect(shape.size() == 2 && shape[0] >= 0 && shape[1] >= 0, fn, "shape", "must be two non-negative extents, got ",
         shape_str(shape));
  const auto v = coords2(verts, fn, "verts");
  const std::int64_t m = static_cast<std::int64_t>(v.size() / 2);
  std::vector<double> vx(m), vy(m);
  for (std::int64_t i = 0; i < m; ++i) vx[i] = v[2 * i], vy[i] = v[2 * i + 1];
  Array out = Array::empty(shape, DType::uint8, opts.device, stream);
  if (opts.device.is_cpu()) {
    unsigned char* o = static_cast<unsigned char*>(out.data());
    for (std::int64_t r = 0; r < shape[0]; ++r)
      for (std::int64_t c = 0; c < shape[1]; ++c)
        o[r * shape[1] + c] = detail::point_in_polygon(vx.data(), vy.data(), m, static_cast<double>(r),
                                                       static_cast<double>(c));
  } else {
    cuskimage::detail::DeviceGuard guard(opts.device.index());
    const Array dx = Array::from_vector(vx, {m}).to(opts.device, stream);
    const Array dy = Array::from_vector(vy, {m}).to(opts.device, stream);
    detail::cuda_grid_points_in_poly(out, dx, dy, stream.handle());
  }
  return opts.binarize ? out.astype(DType::bool_, stream) : std::move(out);
}

Array approximate_polygon(const Array& coords, double tolerance) {
  constexpr std::string_view fn = "measure.approximate_polygon";
  const auto c = coords2(coords, fn, "coords");
  const std::int64_t n = static_cast<std::int64_t>(c.size() / 2);
  if (tolerance <= 0 || n == 0) return from_pairs(c);
  std::vector<char> chain(n, 0);
  std::vector<double> dists(n, 0.0);
  chain[0] = chain[n - 1] = 1;
  std::vector<std::pair<std::int64_t, std::int64_t>> stack = {{0, n - 1}};
  while (!stack.empty()) {
    const auto [start, end] = stack.back();
    stack.pop_back();
    const double r0 = c[2 * start], c0 = c[2 * start + 1], r1 = c[2 * end], c1 = c[2 * end + 1];
    const double dr = r1 - r0, dc = c1 - c0;
    const double angle = -std::atan2(dr, dc);
    const double sa = std::sin(angle), ca = std::cos(angle);
    const double seg_dist = c0 * sa + r0 * ca;
    std::int64_t best = -1;
    double best_d = -1.0;
    bool any = false;
    for (std::int64_t i = start + 1; i < end; ++i) {
      const double pr = c[2 * i], pc = c[2 * i + 1];
      const double dr0 = pr - r0, dc0 = pc - c0, dr1 = pr - r1, dc1 = pc - c1;
      const double l0 = dr0 * dr + dc0 * dc;
      const double l1 = -dr1 * dr - dc1 * dc;
      double d;
      if (l0 > 0 && l1 > 0)
        d = std::abs(pr * ca + pc * sa - seg_dist);
      else
        d = std::min(std::sqrt(dc0 * dc0 + dr0 * dr0), std::sqrt(dc1 * dc1 + dr1 * dr1));
      dists[i] = d;
      any = any || d > tolerance;
      if (d > best_d || (std::isnan(d) && best_d == best_d)) best_d = d, best = i;  // argmax: first max, NaN wins
    }
    if (any) {
      stack.emplace_back(best, end);
      stack.emplace_back(start, best);
      chain[best] = 1;
    }
  }
  std::vector<double> out;
  for (std::int64_t i = 0; i < n; ++i)
    if (chain[i]) out.push_back(c[2 * i]), out.push_back(c[2 * i + 1]);
  return from_pairs(out);
}

Array subdivide_polygon(const Array& coords, const SubdividePolygonOptions& opts) {
  constexpr std::string_view fn = "measure.subdivide_polygon";
  // B-spline subdivision masks (even, odd) of degrees 1..7 (Catmull-Clark style binomial weights).
  static const std::vector<std::vector<int>> kEven = {{1, 1}, {3, 1}, {1, 6, 1}, {5, 10, 1}, {1, 15, 15, 1},
                                                       {7, 35, 21, 1}, {1, 28, 70, 28, 1}};
  static const std::vector<std::vector<int>> kOdd = {{1, 1}, {1, 3}, {0, 4, 4}, {1, 10, 5}, {0, 6, 20, 6},
                                                      {1, 21, 35, 7}, {0, 8, 56, 56, 8}};
  expect(opts.degree >= 1 && opts.degree <= 7, fn, "degree",
         "must be a B-spline degree in 1..7 (only degree 1 - 7 is supported), got ", opts.degree);
  auto c = coords2(coords, fn, "coords");
  std::int64_t n = static_cast<std::int64_t>(c.size() / 2);
  expect(n >= 1, fn, "coords", "must hold at least one point");
  const bool circular = c[0] == c[2 * (n - 1)] && c[1] == c[2 * (n - 1) + 1];
  if (circular) {
    n -= 1;
    c.resize(2 * n);
  }
  const double scale = std::ldexp(1.0, opts.degree);
  auto conv = [&](const std::vector<int>& mask_i, int axis) {
    // scipy.signal.convolve2d(coords.T, mask, mode='same' (circular, wrap) or 'valid').
    const std::int64_t k = static_cast<std::int64_t>(mask_i.size());
    std::vector<double> mask(k);
    for (std::int64_t j = 0; j < k; ++j) mask[j] = mask_i[j] / scale;
    std::vector<double> out;
    if (circular) {
      // 'same': output i = sum_j in[(i + k/2 - j) mod n] * mask[j] (centred as scipy: offset (k-1)/2... )
      const std::int64_t off = (k - 1) / 2;
      for (std::int64_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (std::int64_t j = 0; j < k; ++j) {
          std::int64_t q = ((i + off - j) % n + n) % n;
          s += c[2 * q + axis] * mask[j];
        }
        out.push_back(s);
      }
    } else {
      for (std::int64_t i = 0; i + k <= n; ++i) {
        double s = 0.0;
        for (std::int64_t j = 0; j < k; ++j) s += c[2 * (i + k - 1 - j) + axis] * mask[j];
        out.push_back(s);
      }
    }
    return out;
  };
  const auto& me = kEven[opts.degree - 1];
  const auto& mo = kOdd[opts.degree - 1];
  const auto er = conv(me, 0), ec = conv(me, 1), orr = conv(mo, 0), oc = conv(mo, 1);
  const std::size_t total = er.size() + orr.size();
  std::vector<double> out(2 * total, 0.0);
  for (std::size_t i = 0, e = 0, o = 0; i < total; ++i) {
    if (i % 2 == 1) {
      if (e < er.size()) out[2 * i] = er[e], out[2 * i + 1] = ec[e];
      ++e;
    } else {
      if (o < orr.size()) out[2 * i] = orr[o], out[2 * i + 1] = oc[o];
      ++o;
    }
  }
  if (circular) {
    out.push_back(out[0]);
    out.push_back(out[1]);
  }
  if (opts.preserve_ends && !circular) {
    std::vector<double> v = {c[0], c[1]};
    v.insert(v.end(), out.begin(), out.end());
    v.push_back(c[2 * (n - 1)]);
    v.push_back(c[2 * (n - 1) + 1]);
    out.swap(v);
  }
  return from_pairs(out);
}

// =================================================================================================
// profile_line
// =================================================================================================

namespace {

/// np.linspace(a, b, num)[i].
double linspace_at(double a, double b, std::int64_t num, std::int64_t i) {
  if (num == 1) return a;
  if (i == num - 1) return b;
  const double step = (b - a) / static_cast<double>(num - 1);
  if (step == 0.0) return (static_cast<double>(i) / static_cast<double>(num - 1)) * (b - a) + a;
  return static_cast<double>(i) * step + a;
}

}  // namespace

Array profile_line(const Array& image, std::pair<double, double> src, std::pair<double, double> dst,
                   const ProfileLineOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "measure.profile_line";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2 || image.ndim() == 3, fn, "image", "must be 2-D or 3-D (channel-last), got ndim ",
         image.ndim());
  const bool is_bool = image.dtype() == DType::bool_;
  const int order = opts.order.value_or(is_bool ? 0 : 1);
  expect(order >= 0 && order <= 5, fn, "order", "must be in the range 0-5, got ", order);
  expect(!(is_bool && order != 0), fn, "order",
         "must be 0 for a bool image (interpolation is not defined with bool data type), got ", order);
  expect(opts.linewidth >= 1, fn, "linewidth", "must be >= 1, got ", opts.linewidth);
  expect(opts.reduce != ProfileReduce::custom || static_cast<bool>(opts.reduce_func), fn, "reduce_func",
         "must be set for ProfileReduce::custom");
  // Sample coordinates (skimage's _line_profile_coordinates), computed on the host.
  const double d_row = dst.first - src.first, d_col = dst.second - src.second;
  const double theta = std::atan2(d_row, d_col);
  const auto length = static_cast<std::int64_t>(std::ceil(std::hypot(d_row, d_col) + 1));
  const std::int64_t lw = opts.linewidth;
  const double col_width = static_cast<double>(lw - 1) * std::sin(-theta) / 2;
  const double row_width = static_cast<double>(lw - 1) * std::cos(theta) / 2;
  const std::int64_t npts = length * lw;
  std::vector<double> coords(2 * npts);
  for (std::int64_t i = 0; i < length; ++i) {
    const double row_i = linspace_at(src.first, dst.first, length, i);
    const double col_i = linspace_at(src.second, dst.second, length, i);
    for (std::int64_t j = 0; j < lw; ++j) {
      // pixels are flipped along the width afterwards: sample j holds perpendicular point lw-1-j
      const std::int64_t q = lw - 1 - j;
      coords[2 * (i * lw + j)] = linspace_at(row_i - row_width, row_i + row_width, lw, q);
      coords[2 * (i * lw + j) + 1] = linspace_at(col_i - col_width, col_i + col_width, lw, q);
    }
  }
  const std::int64_t nch = image.ndim() == 3 ? image.shape(2) : 1;
  const detail::InterpMode mode = detail::interp_mode(opts.mode);
  Array samples = Array::empty({npts, nch}, image.dtype(), image.device(), stream);
  if (order > 1) {
    // Prefiltered orders: ndimage::map_coordinates per channel, as scikit-image calls scipy's
    // (prefilter=True, constant/wrap as the grid variants). Orders 0/1 below sample the strided
    // image directly (no prefilter, no copy of the channel planes).
    const Array pts = Array::from_vector(coords, {npts, 2}).to(image.device(), stream).transpose({1, 0});
    for (std::int64_t ch = 0; ch < nch; ++ch) {
      const Array plane = image.ndim() == 3 ? image.index(2, ch) : image.share();
      Array col = samples.index(1, ch);
      col.copy_from(ndimage::map_coordinates(plane, pts, {.order = order, .mode = mode, .cval = opts.cval}, stream),
                    stream);
    }
  } else {
    dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
      on_backend(
          image, stream,
          [&] {
            T* o = static_cast<T*>(samples.data());
            const T* p = static_cast<const T*>(image.data());
            const auto& st = image.strides();
            for (std::int64_t k = 0; k < npts; ++k)
              for (std::int64_t ch = 0; ch < nch; ++ch)
                o[k * nch + ch] =
                    detail::profile_sample<T>(p + (nch > 1 ? ch * st[2] : 0), image.shape(0), image.shape(1), st[0],
                                              st[1], coords[2 * k], coords[2 * k + 1], order, mode, opts.cval);
          },
          [&](cudaStream_t s) {
            const Array dc = Array::from_vector(coords, {npts, 2}).to(image.device(), stream);
            detail::cuda_profile_samples<T>(image, dc, samples, order, mode, opts.cval, s);
          });
    });
  }
  if (opts.reduce == ProfileReduce::none) {
    return image.ndim() == 3 ? samples.reshape({length, lw, nch}) : samples.reshape({length, lw});
  }
  // mean / custom: over the width, on the host (length * linewidth values).
  const std::vector<double> v = host_values(samples, stream);  // ordered after the samples on `stream`
  Array out = Array::empty(image.ndim() == 3 ? Shape{length, nch} : Shape{length}, DType::float64);
  double* o = static_cast<double*>(out.data());
  std::vector<double> row(lw);
  for (std::int64_t i = 0; i < length; ++i)
    for (std::int64_t ch = 0; ch < nch; ++ch) {
      for (std::int64_t j = 0; j < lw; ++j) row[j] = v[(i * lw + j) * nch + ch];
      if (opts.reduce == ProfileReduce::custom) {
        o[i * nch + ch] = opts.reduce_func(row);
      } else {
        double s = 0.0;
        for (double x : row) s += x;
        o[i * nch + ch] = s / static_cast<double>(lw);
      }
    }
  return out;
}

// =================================================================================================
// block_reduce
// =================================================================================================

namespace {

DType block_out_dtype(DType in, BlockFunc f) {
  switch (f) {
    case BlockFunc::sum:
      if (in == DType::bool_ || in == DType::int8 || in == DType::int16 || in == DType::int32 || in == DType::int64)
        return DType::int64;
      if (in == DType::uint8 || in == DType::uint16 || in == DType::uint32 || in == DType::uint64)
        return DType::uint64;
      return in;
    case BlockFunc::mean:
    case BlockFunc::median:
      return in == DType::float32 ? DType::float32 : DType::float64;
    default:
      return in;
  }
}

}  // namespace

Array block_reduce(const Array& image, const std::vector<std::int64_t>& block_size, const BlockReduceOptions& opts,
                   const Stream& stream) {
  constexpr std::string_view fn = "measure.block_reduce";
  expect_valid(image, fn, "image");
  const int nd = image.ndim();
  expect(nd >= 1 && nd <= cuskimage::detail::kMaxDims, fn, "image", "must have 1 to ", cuskimage::detail::kMaxDims,
         " dimensions, got ", nd);
  std::vector<std::int64_t> bs = block_size;
  if (bs.size() == 1) bs.assign(nd, block_size[0]);
  expect(static_cast<int>(bs.size()) == nd, fn, "block_size",
         "must be a scalar or have the same length as `image.shape` (", nd, "), got ", block_size.size(), " values");
  detail::BlockReduceParams p;
  p.ndim = nd;
  p.func = static_cast<int>(opts.func);
  Shape out_shape(nd);
  for (int d = 0; d < nd; ++d) {
    expect(bs[d] >= 1, fn, "block_size",
           "down-sampling factors must be >= 1 (use skimage.transform.resize to up-sample), got ", bs[d]);
    out_shape[d] = (image.shape(d) + bs[d] - 1) / bs[d];
    p.in_shape[d] = image.shape(d);
    p.in_stride[d] = image.strides()[d];
    p.out_shape[d] = out_shape[d];
    p.block[d] = bs[d];
    p.block_elems *= bs[d];
  }
  Array out = Array::empty(out_shape, block_out_dtype(image.dtype(), opts.func), image.device(), stream);
  if (out.size() == 0) return out;
  dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    on_backend(
        image, stream,
        [&] {
          const T* in = static_cast<const T*>(image.data());
          const T pad = cuskimage::detail::convert<T>(opts.cval);
          const std::int64_t n = out.size();
          std::vector<double> buf;
#pragma omp parallel for schedule(static) private(buf)
          for (std::int64_t o = 0; o < n; ++o) {
            std::int64_t oc[cuskimage::detail::kMaxDims];
            std::int64_t rem = o;
            for (int d = nd - 1; d >= 0; --d) oc[d] = rem % out_shape[d], rem /= out_shape[d];
            std::int64_t bc[cuskimage::detail::kMaxDims] = {};
            using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                                           std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>,
                                                              std::uint64_t, std::int64_t>>;
            Acc acc = 0;
            double dacc = 0.0;  // np.mean accumulates in float64
            T ext = T{};
            bool first = true, nan = false;
            buf.clear();
            for (std::int64_t e = 0; e < p.block_elems; ++e) {
              bool inside = true;
              std::int64_t off = 0;
              for (int d = 0; d < nd; ++d) {
                const std::int64_t x = oc[d] * bs[d] + bc[d];
                inside = inside && x < p.in_shape[d];
                off += x * p.in_stride[d];
              }
              const T v = inside ? in[off] : pad;
              if constexpr (is_float_v<T>) nan = nan || v != v;
              switch (opts.func) {
                case BlockFunc::sum:
                  acc = static_cast<Acc>(acc + static_cast<Acc>(v));
                  break;
                case BlockFunc::mean:
                  dacc += static_cast<double>(v);
                  break;
                case BlockFunc::max:
                  if (first || v > ext) ext = v;
                  break;
                case BlockFunc::min:
                  if (first || v < ext) ext = v;
                  break;
                case BlockFunc::median:
                  buf.push_back(static_cast<double>(v));
                  break;
              }
              first = false;
              for (int d = nd - 1; d >= 0; --d) {
                if (++bc[d] < bs[d]) break;
                bc[d] = 0;
              }
            }
            const double qnan = std::numeric_limits<double>::quiet_NaN();
            switch (opts.func) {
              case BlockFunc::sum:
                if constexpr (is_float_v<T>) static_cast<T*>(out.data())[o] = static_cast<T>(acc);
                else static_cast<Acc*>(out.data())[o] = acc;
                break;
              case BlockFunc::mean: {
                const double m = dacc / static_cast<double>(p.block_elems);
                if (out.dtype() == DType::float32) static_cast<float*>(out.data())[o] = static_cast<float>(m);
                else static_cast<double*>(out.data())[o] = m;
                break;
              }
              case BlockFunc::max:
              case BlockFunc::min:
                if constexpr (is_float_v<T>) static_cast<T*>(out.data())[o] = nan ? T(qnan) : ext;
                else static_cast<T*>(out.data())[o] = ext;
                break;
              case BlockFunc::median: {
                double m;
                const std::size_t k = buf.size();
                if (nan) {
                  m = qnan;
                } else {
                  std::nth_element(buf.begin(), buf.begin() + k / 2, buf.end());
                  const double hi = buf[k / 2];
                  if (k % 2) {
                    m = hi;
                  } else {
                    const double lo = *std::max_element(buf.begin(), buf.begin() + k / 2);
                    m = out.dtype() == DType::float32 ? static_cast<double>(static_cast<float>(lo + hi) / 2.0f)
                                                      : (lo + hi) / 2.0;
                  }
                }
                if (out.dtype() == DType::float32) static_cast<float*>(out.data())[o] = static_cast<float>(m);
                else static_cast<double*>(out.data())[o] = m;
                break;
              }
            }
          }
        },
        [&](cudaStream_t s) { detail::cuda_block_reduce<T>(image, out, p, opts.cval, s); });
  });
  return out;
}

// =================================================================================================
// shannon_entropy
// =================================================================================================

double shannon_entropy(const Array& image, double base, const Stream& stream) {
  constexpr std::string_view fn = "measure.shannon_entropy";
  expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "must not be empty");
  return dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() -> double {
    return on_backend(
        image, stream,
        [&] {
          std::vector<double> v = image.to_vector<double>();
          for (double& x : v)
            if (x == 0.0) x = 0.0;  // -0.0 == 0.0
          std::sort(v.begin(), v.end(), [](double a, double b) { return a < b || (a == a && b != b); });
          const double total = static_cast<double>(v.size());
          double s = 0.0;
          for (std::size_t i = 0; i < v.size();) {
            std::size_t j = i + 1;
            while (j < v.size() && (v[j] == v[i] || (v[j] != v[j] && v[i] != v[i]))) ++j;
            const double pk = static_cast<double>(j - i) / total;
            s += -pk * std::log(pk);
            i = j;
          }
          return s / std::log(base);
        },
        [&](cudaStream_t s) { return detail::cuda_shannon_entropy<T>(image, base, s); });
  });
}

// =================================================================================================
// perimeter, perimeter_crofton, euler_number
// =================================================================================================

namespace {

/// Foreground of euler_number / perimeter_crofton: value > 0.
template <class T>
bool positive(T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else return v > T(0);
}

/// 2x2 (2-D) or 2x2x2 (3-D) configuration histogram on the host (see cuda_config_histogram).
template <class T>
std::vector<std::int64_t> cpu_config_histogram(const Array& image) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const bool three = c.ndim() == 3;
  const std::int64_t D = three ? c.shape(0) : 1, H = c.shape(-2), W = c.shape(-1);
  auto fg = [&](std::int64_t z, std::int64_t y, std::int64_t x) -> int {
    if (z < 0 || y < 0 || x < 0 || z >= D || y >= H || x >= W) return 0;
    return positive(v[(z * H + y) * W + x]) ? 1 : 0;
  };
  std::vector<std::int64_t> h(three ? 256 : 16, 0);
  const std::int64_t pd = three ? D + 2 : 1;
  for (std::int64_t z = 0; z < pd; ++z)
    for (std::int64_t y = 0; y < H + 2; ++y)
      for (std::int64_t x = 0; x < W + 2; ++x) {
        // padded coordinates -> image coordinates minus one
        const std::int64_t a = three ? z - 1 : 0, b = y - 1, e = x - 1;
        int code = fg(a, b, e) + 2 * fg(a, b - 1, e) + 4 * fg(a, b, e - 1) + 8 * fg(a, b - 1, e - 1);
        if (three) code += 16 * fg(a - 1, b, e) + 32 * fg(a - 1, b - 1, e) + 64 * fg(a - 1, b, e - 1) +
                           128 * fg(a - 1, b - 1, e - 1);
        ++h[code];
      }
  return h;
}

template <class T>
std::uint8_t as_u8(T v) {
  if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else if constexpr (std::is_floating_point_v<T>) return static_cast<std::uint8_t>(static_cast<std::int64_t>(v));
  else return static_cast<std::uint8_t>(v);
}

template <class T>
std::vector<std::int64_t> cpu_perimeter_histogram(const Array& image, bool eight) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t H = c.shape(0), W = c.shape(1);
  std::vector<std::uint8_t> u(H * W), border(H * W);
  for (std::int64_t i = 0; i < H * W; ++i) u[i] = as_u8(v[i]);
  for (std::int64_t y = 0; y < H; ++y)
    for (std::int64_t x = 0; x < W; ++x) {
      bool er = u[y * W + x] != 0;
      for (int dy = -1; dy <= 1 && er; ++dy)
        for (int dx = -1; dx <= 1 && er; ++dx) {
          if (!eight && dy != 0 && dx != 0) continue;
          const std::int64_t yy = y + dy, xx = x + dx;
          er = yy >= 0 && xx >= 0 && yy < H && xx < W && u[yy * W + xx] != 0;
        }
      border[y * W + x] = static_cast<std::uint8_t>(u[y * W + x] - (er ? 1 : 0));
    }
  std::vector<std::int64_t> h(256, 0);
  for (std::int64_t y = 0; y < H; ++y)
    for (std::int64_t x = 0; x < W; ++x) {
      int s = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::int64_t yy = y + dy, xx = x + dx;
          if (yy < 0 || xx < 0 || yy >= H || xx >= W) continue;
          const int w = (dy != 0 && dx != 0) ? 10 : (dy == 0 && dx == 0) ? 1 : 2;
          s += w * border[yy * W + xx];
        }
      ++h[static_cast<std::uint8_t>(s)];
    }
  return h;
}

}  // namespace

double perimeter(const Array& image, int neighborhood, const Stream& stream) {
  constexpr std::string_view fn = "measure.perimeter";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be 2-D (perimeter supports 2D images only), got ndim ", image.ndim());
  const bool eight = neighborhood != 4;  // scikit-image: anything but 4 is the 8-neighbourhood
  const auto h = dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    return on_backend(
        image, stream, [&] { return cpu_perimeter_histogram<T>(image, eight); },
        [&](cudaStream_t s) { return detail::cuda_perimeter_histogram<T>(image, eight, s); });
  });
  for (int k = 50; k < 256; ++k)
    expect(h[k] == 0, fn, "image", "must be binary (0 and 1 after conversion to uint8): border codes past 49 appear");
  double w[50] = {};
  for (int k : {5, 7, 15, 17, 25, 27}) w[k] = 1.0;
  w[21] = w[33] = std::sqrt(2.0);
  w[13] = w[23] = (1 + std::sqrt(2.0)) / 2;
  double total = 0.0;
  for (int k = 0; k < 50; ++k) total += static_cast<double>(h[k]) * w[k];
  return total;
}

double perimeter_crofton(const Array& image, int directions, const Stream& stream) {
  constexpr std::string_view fn = "measure.perimeter_crofton";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be 2-D (perimeter_crofton supports 2D images only), got ndim ",
         image.ndim());
  const auto h = dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    return on_backend(
        image, stream, [&] { return cpu_config_histogram<T>(image); },
        [&](cudaStream_t s) { return detail::cuda_config_histogram<T>(image, s); });
  });
  const double pi = std::numbers::pi, r2 = std::sqrt(2.0);
  double coefs[16];
  if (directions == 2) {
    const double c[16] = {0, pi / 2, 0, 0, 0, pi / 2, 0, 0, pi / 2, pi, 0, 0, pi / 2, pi, 0, 0};
    std::copy(c, c + 16, coefs);
  } else {
    const double a = pi / 4 * (1 + 1 / r2), b = pi / (4 * r2), d = pi / (2 * r2);
    const double c[16] = {0, a, b, d, 0, a, 0, b, pi / 4, pi / 2, b, b, pi / 4, pi / 2, 0, 0};
    std::copy(c, c + 16, coefs);
  }
  double total = 0.0;
  for (int k = 0; k < 16; ++k) total += coefs[k] * static_cast<double>(h[k]);
  return total;
}

std::int64_t euler_number(const Array& image, std::optional<int> connectivity, const Stream& stream) {
  constexpr std::string_view fn = "measure.euler_number";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2 || image.ndim() == 3, fn, "image", "must be 2-D or 3-D, got ndim ", image.ndim());
  const int conn = connectivity.value_or(image.ndim());
  if (image.ndim() == 3 && conn == 2)
    fail<NotSupported>(fn, "for 3D images, Euler number is implemented for connectivities 1 and 3 only");
  const auto h = dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    return on_backend(
        image, stream, [&] { return cpu_config_histogram<T>(image); },
        [&](cudaStream_t s) { return detail::cuda_config_histogram<T>(image, s); });
  });
  if (image.ndim() == 2) {
    static const int c4[16] = {0, 1, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0};
    static const int c8[16] = {0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, -1, 0};
    const int* c = conn == 1 ? c4 : c8;
    std::int64_t e = 0;
    for (int k = 0; k < 16; ++k) e += c[k] * h[k];
    return e;
  }
  // 3-D: the 26-connected coefficients of Lin et al. (scikit-image's EULER_COEFS3D_26; reversed
  // for 6-connectivity), applied as 0.125 * coefs @ h truncated toward zero.
  static const int c26[256] = {
      0,  1,  1,  0,  1,  0,  -2, -1, 1,  -2, 0,  -1, 0,  -1, -1, 0,  1,  0,  -2, -1, -2, -1, -1, -2, -6, -3,
      -3, -2, -3, -2, 0,  -1, 1,  -2, 0,  -1, -6, -3, -3, -2, -2, -1, -1, -2, -3, 0,  -2, -1, 0,  -1, -1, 0,
      -3, -2, 0,  -1, -3, 0,  -2, -1, 0,  1,  1,  0,  1,  -2, -6, -3, 0,  -1, -3, -2, -2, -1, -3, 0,  -1, -2,
      -2, -1, 0,  -1, -3, -2, -1, 0,  0,  -1, -3, 0,  0,  1,  -2, -1, 1,  0,  -2, -1, -3, 0,  -3, 0,  0,  1,
      -1, 4,  0,  3,  0,  3,  1,  2,  -1, -2, -2, -1, -2, -1, 1,  0,  0,  3,  1,  2,  1,  2,  2,  1,  1,  -6,
      -2, -3, -2, -3, -1, 0,  0,  -3, -1, -2, -1, -2, -2, -1, -2, -3, -1, 0,  -1, 0,  4,  3,  -3, 0,  0,  1,
      0,  1,  3,  2,  0,  -3, -1, -2, -3, 0,  0,  1,  -1, 0,  0,  -1, -2, 1,  -1, 0,  -1, -2, -2, -1, 0,  1,
      3,  2,  -2, 1,  -1, 0,  1,  2,  2,  1,  0,  -3, -3, 0,  -1, -2, 0,  1,  -1, 0,  -2, 1,  0,  -1, -1, 0,
      -1, -2, 0,  1,  -2, -1, 3,  2,  -2, 1,  1,  2,  -1, 0,  2,  1,  -1, 0,  -2, 1,  -2, 1,  1,  2,  -2, 3,
      -1, 2,  -1, 2,  0,  1,  0,  -1, -1, 0,  -1, 0,  2,  1,  -1, 2,  0,  1,  0,  1,  1,  0};
  std::int64_t dot = 0;
  for (int k = 0; k < 256; ++k) dot += static_cast<std::int64_t>(conn == 1 ? c26[255 - k] : c26[k]) * h[k];
  return static_cast<std::int64_t>(0.125 * static_cast<double>(dot));
}

// =================================================================================================
// blur_effect
// =================================================================================================

std::vector<double> blur_effect_axes(const Array& image, const BlurEffectOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "measure.blur_effect";
  expect_valid(image, fn, "image");
  expect(opts.h_size >= 1, fn, "h_size", "must be >= 1, got ", opts.h_size);
  Array img;
  if (opts.channel_axis) {
    const int ax = cuskimage::detail::normalize_axis(*opts.channel_axis, image.ndim(), fn, "channel_axis");
    expect(image.shape(ax) == 3, fn, "image", "must have size 3 along `channel_axis` (RGB), got shape ",
           shape_str(image.shape()));
    // rgb2gray: img_as_float, then 0.2125 R + 0.7154 G + 0.0721 B as a 3-tap correlation centred
    // on the G channel.
    const Array f = util::img_as_float(image, {}, stream);
    const Array w = Array::from_vector(std::vector<double>{0.2125, 0.7154, 0.0721}, {3});
    const Array g = ndimage::correlate1d(f, w, {.axis = ax}, stream);
    img = g.index(ax, 1).contiguous(stream);
  } else {
    img = util::img_as_float(image, {}, stream);
  }
  const int nd = img.ndim();
  expect(nd >= 1, fn, "image", "must have at least one dimension");
  std::vector<double> B;
  for (int ax = 0; ax < nd; ++ax) {
    const Array filt = ndimage::uniform_filter1d(img, opts.h_size, {.axis = ax}, stream);
    const Array sharp = filters::sobel(img, {.axis = {ax}}, stream).contiguous(stream);
    const Array blur = filters::sobel(filt, {.axis = {ax}}, stream).contiguous(stream);
    const std::array<double, 2> m = dispatch<cuskimage::detail::FloatTypes>(sharp.dtype(), fn, [&]<class T>() {
      return on_backend(
          sharp, stream,
          [&] {
            const T* sp = static_cast<const T*>(sharp.data());
            const T* bp = static_cast<const T*>(blur.data());
            const Shape& sh = sharp.shape();
            // np.maximum against the float64 epsilon promotes float32 to float64 (NEP 50)
            const double eps = std::numeric_limits<double>::epsilon();
            double m1 = 0.0, m2 = 0.0;
            std::vector<std::int64_t> c(nd, 0);
            bool empty = false;
            for (int d = 0; d < nd; ++d) {
              c[d] = 2;
              empty = empty || sh[d] - 1 <= 2;
            }
            if (empty) return std::array<double, 2>{0.0, 0.0};
            for (;;) {
              std::int64_t off = 0;
              for (int d = 0; d < nd; ++d) off = off * sh[d] + c[d];
              const double s = std::max(eps, static_cast<double>(std::abs(sp[off])));
              const double b = std::max(eps, static_cast<double>(std::abs(bp[off])));
              m1 += s;
              m2 += std::max(0.0, s - b);
              int d = nd - 1;
              while (d >= 0 && ++c[d] >= sh[d] - 1) c[d--] = 2;
              if (d < 0) break;
            }
            return std::array<double, 2>{m1, m2};
          },
          [&](cudaStream_t s) { return detail::cuda_blur_sums<T>(sharp, blur, s); });
    });
    B.push_back(std::abs(m[0] - m[1]) / m[0]);
  }
  return B;
}

double blur_effect(const Array& image, const BlurEffectOptions& opts, const Stream& stream) {
  const auto B = blur_effect_axes(image, opts, stream);
  switch (opts.reduce) {
    case BlurReduce::mean: {
      double s = 0.0;
      for (double b : B) s += b;
      return s / static_cast<double>(B.size());
    }
    case BlurReduce::min: {
      double m = B[0];
      for (double b : B) m = (b < m || b != b) ? b : m;
      return m;
    }
    default: {
      double m = B[0];
      for (double b : B) m = (b > m || b != b) ? b : m;
      return m;
    }
  }
}

// =================================================================================================
// Colocalisation
// =================================================================================================

namespace {

/// scikit-image's as_binary_ndarray: bool, or only 0 and 1.
void expect_binary(const Array& a, std::string_view fn, std::string_view arg, const Stream& stream) {
  expect_valid(a, fn, arg);
  if (a.dtype() == DType::bool_) return;
  const Array b = a.astype(DType::bool_, stream).astype(a.dtype(), stream);
  const std::vector<double> x = host_values(a, stream), y = host_values(b, stream);
  expect(x == y, fn, arg,
         "array is not of dtype boolean or contains values other than 0 and 1 so cannot be safely cast to boolean "
         "array");
}

struct Coloc {
  Array x, y, mask;  // contiguous float64 / bool on the inputs' device
};

Coloc prepare(const Array& a, const Array& b, const Array& mask, std::string_view fn, std::string_view na,
              std::string_view nb, const Stream& stream) {
  expect_valid(a, fn, na);
  expect_valid(b, fn, nb);
  cuskimage::detail::expect_same_shape(a, b, fn, na, nb);
  cuskimage::detail::expect_same_device(a, b, fn, na, nb);
  Coloc c;
  c.x = a.astype(DType::float64, stream).contiguous(stream);
  c.y = b.astype(DType::float64, stream).contiguous(stream);
  if (mask.valid()) {
    expect_binary(mask, fn, "mask", stream);
    cuskimage::detail::expect_same_shape(a, mask, fn, na, "mask");
    cuskimage::detail::expect_same_device(a, mask, fn, na, "mask");
    c.mask = mask.astype(DType::bool_, stream).contiguous(stream);
  }
  return c;
}

/// The sums of cuda_coloc_sums on the host.
std::array<double, 8> cpu_coloc_sums(const Coloc& c, int kind, double ma, double mb) {
  const double* x = static_cast<const double*>(c.x.data());
  const double* y = static_cast<const double*>(c.y.data());
  const bool* m = c.mask.valid() ? static_cast<const bool*>(c.mask.data()) : nullptr;
  const double inf = std::numeric_limits<double>::infinity();
  std::array<double, 8> s = {0, 0, 0, 0, 0, 0, 0, 0};
  if (kind == 0) s = {0, 0, 0, 0, inf, -inf, inf, -inf};
  if (kind == 2) s = {0, 0, 0, 0, 0, inf, inf, 0};
  for (std::int64_t i = 0; i < c.x.size(); ++i) {
    if (m && !m[i]) continue;
    const double a = x[i], b = y[i];
    if (kind == 0) {
      s[0] += 1, s[1] += a, s[2] += b;
      s[3] += (a != a || b != b) ? 1 : 0;
      s[4] = std::min(s[4], a), s[5] = std::max(s[5], a), s[6] = std::min(s[6], b), s[7] = std::max(s[7], b);
    } else if (kind == 1) {
      s[0] += (a - ma) * (a - ma), s[1] += (b - mb) * (b - mb), s[2] += (a - ma) * (b - mb);
    } else {
      s[0] += 1, s[1] += a, s[2] += a * b, s[3] += a * a, s[4] += b * b;
      s[5] = std::min(s[5], a), s[6] = std::min(s[6], b);
    }
  }
  return s;
}

std::array<double, 8> coloc_sums(const Coloc& c, int kind, double ma, double mb, const Stream& stream) {
  return on_backend(
      c.x, stream, [&] { return cpu_coloc_sums(c, kind, ma, mb); },
      [&](cudaStream_t s) { return detail::cuda_coloc_sums(c.x, c.y, c.mask, kind, ma, mb, s); });
}

/// Regularised incomplete beta I_x(a, a) by Lentz's continued fraction (x <= 1/2 converges fast).
double incomplete_beta_sym(double a, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  const double b = a;
  const double lbeta = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  const double front = std::exp(a * std::log(x) + b * std::log1p(-x) - lbeta) / a;
  constexpr double tiny = 1e-300;
  double f = 1.0, cc = 1.0, d = 0.0;
  for (int i = 0; i <= 2000; ++i) {
    const int m = i / 2;
    double num;
    if (i == 0) num = 1.0;
    else if (i % 2 == 0) num = (m * (b - m) * x) / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    else num = -((a + m) * (a + b + m) * x) / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    d = 1.0 + num * d;
    if (std::abs(d) < tiny) d = tiny;
    d = 1.0 / d;
    cc = 1.0 + num / cc;
    if (std::abs(cc) < tiny) cc = tiny;
    const double cd = cc * d;
    f *= cd;
    if (std::abs(1.0 - cd) < 1e-15) break;
  }
  return front * (f - 1.0);
}

}  // namespace

PearsonResult pearson_corr_coeff(const Array& image0, const Array& image1, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "measure.pearson_corr_coeff";
  const Coloc c = prepare(image0, image1, mask, fn, "image0", "image1", stream);
  const auto s0 = coloc_sums(c, 0, 0, 0, stream);
  const double n = s0[0];
  expect(n >= 2, fn, "image0", "must have at least 2 (unmasked) elements, got ", static_cast<std::int64_t>(n));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (s0[3] > 0) return {nan, nan};
  if (s0[4] == s0[5] || s0[6] == s0[7]) return {nan, nan};  // a constant input: r undefined
  const double ma = s0[1] / n, mb = s0[2] / n;
  const auto s1 = coloc_sums(c, 1, ma, mb, stream);
  double r = s1[2] / (std::sqrt(s1[0]) * std::sqrt(s1[1]));
  r = std::clamp(r, -1.0, 1.0);
  if (n == 2) return {r, 1.0};
  const double ab = n / 2 - 1;
  // two-sided: 2 * min(cdf(r), sf(r)) of Beta(ab, ab) on (-1, 1) = 2 * I_{(1 - |r|)/2}(ab, ab)
  const double p = std::min(1.0, 2.0 * incomplete_beta_sym(ab, (1.0 - std::abs(r)) / 2.0));
  return {r, p};
}

double manders_coloc_coeff(const Array& image0, const Array& image1_mask, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "measure.manders_coloc_coeff";
  expect_binary(image1_mask, fn, "image1_mask", stream);
  const Coloc c = prepare(image0, image1_mask, mask, fn, "image0", "image1_mask", stream);
  const auto s = coloc_sums(c, 2, 0, 0, stream);
  expect(!(s[5] < 0), fn, "image0", "contains negative values");
  if (s[1] == 0) return 0.0;
  return s[2] / s[1];
}

double manders_overlap_coeff(const Array& image0, const Array& image1, const Array& mask, const Stream& stream) {
  constexpr std::string_view fn = "measure.manders_overlap_coeff";
  const Coloc c = prepare(image0, image1, mask, fn, "image0", "image1", stream);
  const auto s = coloc_sums(c, 2, 0, 0, stream);
  expect(!(s[5] < 0), fn, "image0", "contains negative values");
  expect(!(s[6] < 0), fn, "image1", "contains negative values");
  return s[2] / std::sqrt(s[3] * s[4]);
}

double intersection_coeff(const Array& image0_mask, const Array& image1_mask, const Array& mask,
                          const Stream& stream) {
  constexpr std::string_view fn = "measure.intersection_coeff";
  expect_binary(image0_mask, fn, "image0_mask", stream);
  expect_binary(image1_mask, fn, "image1_mask", stream);
  const Coloc c = prepare(image0_mask, image1_mask, mask, fn, "image0_mask", "image1_mask", stream);
  const auto s = coloc_sums(c, 2, 0, 0, stream);
  // over 0/1 values: sum x = |image0|, sum x*y = |image0 & image1|
  if (s[1] == 0) return 0.0;
  return s[2] / s[1];
}

}  // namespace cuskimage::measure
