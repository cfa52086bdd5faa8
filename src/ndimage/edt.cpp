// ndimage::distance_transform_edt: argument handling as scipy's, the CPU backend (scipy's
// separable feature transform, one OpenMP-parallel pass per axis over independent lines), and the
// switch to the CUDA backend (kernels/ndimage/edt.cu).
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/ndimage/edt_backend.hpp"
#include "src/ndimage/edt_line.hpp"

namespace cuskimage::ndimage {

namespace detail {

using cuskimage::detail::kMaxDims;

namespace {

/// C-order coordinates of linear index i.
inline void unravel(std::int64_t i, const Shape& shape, std::int64_t* c) {
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
}

}  // namespace

void cpu_edt_features(const Array& mask, const std::vector<double>& s, Array& features) {
  const Shape& shape = mask.shape();
  const int nd = mask.ndim();
  const std::int64_t size = mask.size();
  if (size == 0) return;
  const Strides st = contiguous_strides(shape);
  const auto* m = static_cast<const unsigned char*>(mask.data());  // any non-zero byte: foreground
  std::int32_t* f = features.data<std::int32_t>();
  // Plane 0 before the first pass: -1 on the foreground, a feature (any value >= 0) elsewhere.
#pragma omp parallel for schedule(static) if (size > 32768)
  for (std::int64_t i = 0; i < size; ++i) f[i] = m[i] ? -1 : 0;

  for (int d = 0; d < nd; ++d) {
    const std::int64_t len = shape[d], sd = st[d];
    const std::int64_t lines = size / len;
    const int planes = d == 0 ? 1 : d;  // planes read: 0 (site test) and those before d
#pragma omp parallel if (size > 32768)
    {
      std::vector<std::int32_t> buf(static_cast<std::size_t>(len * planes));
      std::vector<std::int64_t> stack(static_cast<std::size_t>(len));
      struct Stack {
        std::int64_t* p;
        std::int64_t get(std::int64_t k) const { return p[k]; }
        void set(std::int64_t k, std::int64_t v) { p[k] = v; }
      } stk{stack.data()};
#pragma omp for schedule(static)
      for (std::int64_t L = 0; L < lines; ++L) {
        // Coordinates of the line (axis d left at 0) and its first element's offset.
        std::int64_t coor[kMaxDims] = {};
        std::int64_t rest = L, base = 0;
        for (int a = nd - 1; a >= 0; --a) {
          if (a == d) continue;
          coor[a] = rest % shape[a];
          rest /= shape[a];
          base += coor[a] * st[a];
        }
        for (std::int64_t i = 0; i < len; ++i)
          for (int jj = 0; jj < planes; ++jj) buf[i * planes + jj] = f[jj * size + base + i * sd];
        const auto in = [&](std::int64_t i, int jj) -> std::int64_t { return buf[i * planes + jj]; };
        const auto out = [&](std::int64_t i, int jj, std::int64_t v) {
          f[jj * size + base + i * sd] = static_cast<std::int32_t>(v);
        };
        edt_voronoi_line(in, out, stk, len, d, coor, s.data());
      }
    }
  }
}

void cpu_edt_distances(const Array& features, const std::vector<double>& s, Array& distances) {
  const Shape& shape = distances.shape();
  const int nd = distances.ndim();
  const std::int64_t size = distances.size();
  const std::int32_t* f = features.data<std::int32_t>();
  double* out = distances.data<double>();
#pragma omp parallel for schedule(static) if (size > 32768)
  for (std::int64_t i = 0; i < size; ++i) {
    std::int64_t c[kMaxDims];
    unravel(i, shape, c);
    out[i] = edt_distance([&](int jj) -> std::int64_t { return f[jj * size + i]; }, c, s.data(), nd);
  }
}

}  // namespace detail

namespace {

constexpr std::string_view kFn = "ndimage.distance_transform_edt";
using cuskimage::detail::expect;

std::vector<double> normalize_sampling(const std::vector<double>& sampling, int nd) {
  std::vector<double> s;
  if (sampling.empty())
    s.assign(nd, 1.0);
  else if (sampling.size() == 1)
    s.assign(nd, sampling[0]);
  else {
    expect(static_cast<int>(sampling.size()) == nd, kFn, "sampling",
           "must have one value or one per axis (", nd, "), got ", sampling.size(), " values");
    s = sampling;
  }
  for (double v : s)
    expect(std::isfinite(v) && v > 0.0, kFn, "sampling", "must be positive and finite, got ", v);
  return s;
}

}  // namespace

void distance_transform_edt_into(const Array& input, Array& distances, Array& indices, const EdtOptions& opts,
                                 const Stream& stream) {
  using namespace cuskimage::detail;
  expect_valid(input, kFn, "input");
  expect(opts.return_distances || opts.return_indices, kFn, "return_distances",
         "or 'return_indices' must be true (at least one of return_distances/return_indices must be True)");
  expect(opts.return_distances || !distances.valid(), kFn, "distances",
         "must not be given unless return_distances is true");
  expect(opts.return_indices || !indices.valid(), kFn, "indices", "must not be given unless return_indices is true");
  const Array in = input.ndim() == 0 ? input.reshape({1}) : input.share();
  const int nd = in.ndim();
  expect(nd <= kMaxDims, kFn, "input", "must have at most ", kMaxDims, " dimensions, got ", nd);
  const std::vector<double> s = normalize_sampling(opts.sampling, nd);
  Shape fshape{nd};
  fshape.insert(fshape.end(), in.shape().begin(), in.shape().end());
  if (opts.return_distances) {
    expect_valid(distances, kFn, "distances");
    expect(distances.dtype() == DType::float64, kFn, "distances", "must be float64, got ",
           dtype_name(distances.dtype()));
    expect(distances.shape() == in.shape(), kFn, "distances", "must have the input's shape ", shape_str(in.shape()),
           ", got ", shape_str(distances.shape()));
    expect_same_device(input, distances, kFn, "input", "distances");
  }
  if (opts.return_indices) {
    expect_valid(indices, kFn, "indices");
    expect(indices.dtype() == DType::int32, kFn, "indices", "must be int32, got ", dtype_name(indices.dtype()));
    expect(indices.shape() == fshape, kFn, "indices", "must have shape (ndim,) + input.shape = ", shape_str(fshape),
           ", got ", shape_str(indices.shape()));
    expect_same_device(input, indices, kFn, "input", "indices");
  }
  if (in.size() == 0) return;

  const Device dev = in.device();
  if (dev.is_cuda() && nd > 3)
    fail<NotSupported>(kFn, "argument 'input' must be 1-D, 2-D or 3-D on a CUDA device, got ", nd,
                       "-D (the CPU backend takes any ndim)");
  std::optional<DeviceGuard> guard;
  if (dev.is_cuda()) guard.emplace(dev.index());
  // Contiguous, one byte per element, non-zero = foreground (a contiguous bool input is used as is).
  const Array mask =
      in.dtype() == DType::bool_ && in.is_contiguous() ? in.share() : in.astype(DType::bool_, stream);
  // Outputs are written in place when contiguous, else through a contiguous temporary.
  const bool want_f = opts.return_indices || dev.is_cpu();
  Array F, D;
  if (want_f)
    F = opts.return_indices && indices.is_contiguous() ? indices.share()
                                                       : Array::empty(fshape, DType::int32, dev, stream);
  if (opts.return_distances)
    D = distances.is_contiguous() ? distances.share() : Array::empty(in.shape(), DType::float64, dev, stream);
  if (dev.is_cpu()) {
    detail::cpu_edt_features(mask, s, F);
    if (opts.return_distances) detail::cpu_edt_distances(F, s, D);
  } else {
    detail::cuda_edt(mask, s, D, F, stream);
  }
  if (opts.return_distances && !distances.is_contiguous()) distances.copy_from(D, stream);
  if (opts.return_indices && !indices.is_contiguous()) indices.copy_from(F, stream);
}

EdtResult distance_transform_edt(const Array& input, const EdtOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(input, kFn, "input");
  const Shape shape = input.ndim() == 0 ? Shape{1} : input.shape();
  EdtResult r;
  if (opts.return_distances) r.distances = Array::empty(shape, DType::float64, input.device(), stream);
  if (opts.return_indices) {
    Shape fshape{static_cast<std::int64_t>(shape.size())};
    fshape.insert(fshape.end(), shape.begin(), shape.end());
    r.indices = Array::empty(fshape, DType::int32, input.device(), stream);
  }
  distance_transform_edt_into(input, r.distances, r.indices, opts, stream);
  return r;
}

}  // namespace cuskimage::ndimage
