// Public ndimage functions: scipy.ndimage's argument handling (origins, convolve's flip, size vs
// footprint, separable passes) turned into Pass1d / WindowNd plans run by the backend of the
// input's device.
#include "cuskimage/ndimage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/ndimage/backend.hpp"

namespace cuskimage::ndimage {

using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::Types;

Mode mode_from_name(std::string_view name) {
  if (name == "reflect" || name == "grid-mirror") return Mode::reflect;
  if (name == "mirror") return Mode::mirror;
  if (name == "nearest") return Mode::nearest;
  if (name == "wrap" || name == "grid-wrap") return Mode::wrap;
  if (name == "constant" || name == "grid-constant") return Mode::constant;
  cuskimage::detail::fail(
      "ndimage.mode", "argument 'mode' must be one of 'reflect', 'grid-mirror', 'mirror', 'nearest', 'wrap', "
                      "'grid-wrap', 'constant', 'grid-constant', got '",
      name, "'");
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::reflect: return "reflect";
    case Mode::mirror: return "mirror";
    case Mode::nearest: return "nearest";
    case Mode::wrap: return "wrap";
    case Mode::constant: return "constant";
  }
  return "?";
}

namespace {

using namespace detail;
using NumTypes = Types<std::uint8_t, std::uint16_t, std::int32_t, float, double>;
using RankTypes = Types<bool, std::uint8_t, std::uint16_t, std::int32_t, float, double>;

void check_mode(Mode m, std::string_view fn) {
  expect(static_cast<int>(m) >= 0 && static_cast<int>(m) <= 4, fn, "mode", "must be a valid Mode, got ",
         static_cast<int>(m));
}

void check_input(const Array& in, std::string_view fn, bool rank) {
  cuskimage::detail::expect_valid(in, fn, "input");
  expect(in.ndim() >= 1, fn, "input", "must have at least 1 dimension, got 0-D");
  if (rank)
    cuskimage::detail::expect_dtype(in, fn, "input",
                                    {DType::bool_, DType::uint8, DType::uint16, DType::int32, DType::float32,
                                     DType::float64});
  else
    cuskimage::detail::expect_dtype(in, fn, "input",
                                    {DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64});
  expect(in.ndim() <= cuskimage::detail::kMaxDims, fn, "input", "must have at most ", cuskimage::detail::kMaxDims,
         " dimensions, got ", in.ndim());
}

/// Values of a small array (weights, footprint) as doubles in C order, on the host.
std::vector<double> host_doubles(const Array& a, const Stream& stream) {
  // to(cpu) completes the copy before returning; astype gives a contiguous float64 copy.
  Array d = a.to(Device::cpu(), stream).astype(DType::float64);
  const double* p = static_cast<const double*>(d.data());
  return std::vector<double>(p, p + d.size());
}

void check_origin(std::int64_t origin, std::int64_t len, std::string_view fn) {
  expect(len / 2 + origin >= 0 && len / 2 + origin < len, fn, "origin",
         "must satisfy -(size // 2) <= origin <= (size - 1) // 2 for size ", len, ", got ", origin);
}

std::vector<std::int64_t> per_axis(const std::vector<std::int64_t>& v, int nd, std::int64_t def, std::string_view fn,
                                   std::string_view arg) {
  if (v.empty()) return std::vector<std::int64_t>(nd, def);
  if (v.size() == 1) return std::vector<std::int64_t>(nd, v[0]);
  expect(static_cast<int>(v.size()) == nd, fn, arg, "must have one value or one per axis (", nd, "), got ",
         v.size(), " values");
  return v;
}


/// Runs passes (axis, plan) in order from `in` into `out` (which may have any strides).
void run_passes(const Array& in, Array& out, const std::vector<std::pair<int, Pass1d>>& passes, bool rank,
                std::string_view fn, const Stream& stream) {
  auto body = [&]<class T>() {
    if (passes.empty()) {
      out.copy_from(in, stream);
      return;
    }
    if (in.device().is_cpu()) {
      cpu_pass1d<T>(in, out, passes[0].first, passes[0].second);
      for (std::size_t p = 1; p < passes.size(); ++p) cpu_pass1d<T>(out, out, passes[p].first, passes[p].second);
      return;
    }
    cuskimage::detail::DeviceGuard guard(in.device().index());
    const Array src = in.contiguous(stream);
    const bool direct = out.is_contiguous();
    Array final_ = direct ? out.share() : Array::empty(in.shape(), in.dtype(), in.device(), stream);
    Array tmp;
    if (passes.size() > 1) tmp = Array::empty(in.shape(), in.dtype(), in.device(), stream);
    const std::size_t P = passes.size();
    const Array* cur = &src;
    for (std::size_t p = 0; p < P; ++p) {
      // Ping-pong so that the last pass lands in final_.
      Array& dst = (P - 1 - p) % 2 == 0 ? final_ : tmp;
      cuda_pass1d<T>(*cur, dst, passes[p].first, passes[p].second, stream);
      cur = &dst;
    }
    if (!direct) out.copy_from(final_, stream);
  };
  if (rank)
    dispatch<RankTypes>(in.dtype(), fn, body);
  else
    dispatch<NumTypes>(in.dtype(), fn, body);
}

void run_window(const Array& in, Array& out, const WindowNd& W, bool rank, std::string_view fn, const Stream& stream) {
  auto body = [&]<class T>() {
    if (in.device().is_cpu()) {
      cpu_window_nd<T>(in, out, W);
      return;
    }
    cuskimage::detail::DeviceGuard guard(in.device().index());
    if (in.ndim() > 3)
      cuskimage::detail::fail<NotSupported>(fn, "argument 'input' must be 1-D, 2-D or 3-D on a CUDA device, got ",
                                            in.ndim(), "-D (the CPU backend takes any ndim)");
    const Array src = in.contiguous(stream);
    if (out.is_contiguous()) {
      cuda_window_nd<T>(src, out, W, stream);
    } else {
      Array tmp = Array::empty(in.shape(), in.dtype(), in.device(), stream);
      cuda_window_nd<T>(src, tmp, W, stream);
      out.copy_from(tmp, stream);
    }
  };
  if (rank)
    dispatch<RankTypes>(in.dtype(), fn, body);
  else
    dispatch<NumTypes>(in.dtype(), fn, body);
}

Array like(const Array& in, const Stream& stream) { return Array::empty(in.shape(), in.dtype(), in.device(), stream); }

// ---- 1-D filters ----------------------------------------------------------------------------------
void filter1d_into(const Array& in, Array& out, Pass1d p, const Filter1dOptions& o, std::string_view fn, bool rank,
                   const Stream& stream) {
  check_input(in, fn, rank);
  check_mode(o.mode, fn);
  detail::check_output(in, out, fn);
  const int axis = cuskimage::detail::normalize_axis(o.axis, in.ndim(), fn, "axis");
  expect(p.k >= 1, fn, "size", "must be at least 1, got ", p.k);
  check_origin(o.origin, p.k, fn);
  p.left = p.k / 2 + o.origin;
  p.mode = o.mode;
  p.cval = o.cval;
  run_passes(in, out, {{axis, std::move(p)}}, rank, fn, stream);
}

Pass1d correlate_pass(const Array& weights, std::string_view fn, bool flip, std::int64_t& origin,
                      const Stream& stream) {
  cuskimage::detail::expect_valid(weights, fn, "weights");
  expect(weights.ndim() == 1, fn, "weights", "must be 1-D, got ", weights.ndim(), "-D");
  expect(weights.size() >= 1, fn, "weights", "must have at least one element, got 0");
  Pass1d p;
  p.op = Op::correlate;
  p.w = host_doubles(weights, stream);
  p.k = static_cast<std::int64_t>(p.w.size());
  if (flip) {
    std::reverse(p.w.begin(), p.w.end());
    origin = -origin - (p.k % 2 == 0 ? 1 : 0);
  }
  p.symmetry = weight_symmetry(p.w.data(), p.k);
  return p;
}

Pass1d size_pass(Op op, std::int64_t size) {
  Pass1d p;
  p.op = op;
  p.k = size;
  return p;
}

// ---- N-d windows ----------------------------------------------------------------------------------
/// Taps of a weights/footprint array: entries kept by `keep`, offsets after scipy's origin rule.
WindowNd window_from(const Array& weights, const std::vector<std::int64_t>& origin, bool flip, bool rank,
                     std::string_view fn, std::string_view arg, const Stream& stream) {
  const int nd = weights.ndim();
  std::vector<double> v = host_doubles(weights, stream);
  const auto& ws = weights.shape();
  std::vector<std::int64_t> org(origin);
  for (int d = 0; d < nd; ++d) {
    expect(ws[d] >= 1, fn, arg, "must have no empty axis, got shape ", shape_str(ws));
    if (flip) org[d] = -org[d] - (ws[d] % 2 == 0 ? 1 : 0);
    check_origin(org[d], ws[d], fn);
  }
  WindowNd W;
  W.op = Op::correlate;
  std::vector<std::int64_t> c(nd, 0);
  const std::int64_t total = static_cast<std::int64_t>(v.size());
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t rest = i;
    for (int d = nd - 1; d >= 0; --d) c[d] = rest % ws[d], rest /= ws[d];
    // convolve is correlate over the flipped array, whose i-th C-order entry is v[total-1-i].
    const double w = flip ? v[total - 1 - i] : v[i];
    const bool keep = rank ? w != 0.0 : std::fabs(w) > 2.220446049250313e-16;
    if (!keep) continue;
    std::vector<std::int64_t> off(nd);
    for (int d = 0; d < nd; ++d) off[d] = c[d] - ws[d] / 2 - org[d];
    W.off.push_back(std::move(off));
    W.w.push_back(w);
  }
  return W;
}

void correlate_nd_into(const Array& in, const Array& weights, Array& out, const FilterOptions& o, bool flip,
                       std::string_view fn, const Stream& stream) {
  check_input(in, fn, false);
  check_mode(o.mode, fn);
  detail::check_output(in, out, fn);
  cuskimage::detail::expect_valid(weights, fn, "weights");
  expect(weights.ndim() == in.ndim(), fn, "weights", "must have the input's ndim ", in.ndim(), ", got ",
         weights.ndim(), "-D");
  const auto origin = per_axis(o.origin, in.ndim(), 0, fn, "origin");
  WindowNd W = window_from(weights, origin, flip, false, fn, "weights", stream);
  W.mode = o.mode;
  W.cval = o.cval;
  run_window(in, out, W, false, fn, stream);
}

Array rank_filter(const Array& in, const RankFilterOptions& o, Op op, std::string_view fn, const Stream& stream) {
  check_input(in, fn, true);
  check_mode(o.mode, fn);
  const int nd = in.ndim();
  const auto origin = per_axis(o.origin, nd, 0, fn, "origin");
  Array out = like(in, stream);
  std::vector<std::int64_t> sizes;
  if (o.footprint.valid()) {
    expect(o.footprint.ndim() == nd, fn, "footprint", "must have the input's ndim ", nd, ", got ",
           o.footprint.ndim(), "-D");
    WindowNd W = window_from(o.footprint, origin, false, true, fn, "footprint", stream);
    expect(!W.off.empty(), fn, "footprint", "must have at least one true element (an all-zero footprint is not "
                                            "supported)");
    if (static_cast<std::int64_t>(W.off.size()) != o.footprint.size()) {
      W.op = op;
      W.mode = o.mode;
      W.cval = o.cval;
      run_window(in, out, W, true, fn, stream);
      return out;
    }
    sizes = o.footprint.shape();  // all true: the separable rectangle, as scipy
  } else {
    expect(!o.size.empty(), fn, "size", "or 'footprint' must be given, got neither");
    sizes = per_axis(o.size, nd, 1, fn, "size");
  }
  std::vector<std::pair<int, Pass1d>> passes;
  for (int d = 0; d < nd; ++d) {
    expect(sizes[d] >= 1, fn, "size", "must be at least 1 on every axis, got ", sizes[d]);
    if (sizes[d] <= 1) continue;  // scipy skips (and does not check the origin of) size-1 axes
    check_origin(origin[d], sizes[d], fn);
    Pass1d p = size_pass(op, sizes[d]);
    p.left = sizes[d] / 2 + origin[d];
    p.mode = o.mode;
    p.cval = o.cval;
    passes.emplace_back(d, std::move(p));
  }
  run_passes(in, out, passes, true, fn, stream);
  return out;
}

}  // namespace

namespace detail {
void check_output(const Array& in, const Array& out, std::string_view fn) {
  cuskimage::detail::expect_valid(out, fn, "output");
  cuskimage::detail::expect_same_shape(in, out, fn, "input", "output");
  cuskimage::detail::expect_same_device(in, out, fn, "input", "output");
  cuskimage::detail::expect(in.dtype() == out.dtype(), fn, "output", "must have the input's dtype ", dtype_name(in.dtype()), ", got ",
         dtype_name(out.dtype()));
}
}  // namespace detail

// ---- public functions -----------------------------------------------------------------------------
void correlate1d_into(const Array& input, const Array& weights, Array& output, const Filter1dOptions& opts,
                      const Stream& stream) {
  std::int64_t origin = opts.origin;
  Pass1d p = correlate_pass(weights, "ndimage.correlate1d", false, origin, stream);
  filter1d_into(input, output, std::move(p), opts, "ndimage.correlate1d", false, stream);
}

Array correlate1d(const Array& input, const Array& weights, const Filter1dOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.correlate1d", false);
  Array out = like(input, stream);
  correlate1d_into(input, weights, out, opts, stream);
  return out;
}

Array convolve1d(const Array& input, const Array& weights, const Filter1dOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.convolve1d", false);
  Array out = like(input, stream);
  Filter1dOptions o = opts;
  Pass1d p = correlate_pass(weights, "ndimage.convolve1d", true, o.origin, stream);
  filter1d_into(input, out, std::move(p), o, "ndimage.convolve1d", false, stream);
  return out;
}

void correlate_into(const Array& input, const Array& weights, Array& output, const FilterOptions& opts,
                    const Stream& stream) {
  correlate_nd_into(input, weights, output, opts, false, "ndimage.correlate", stream);
}

Array correlate(const Array& input, const Array& weights, const FilterOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.correlate", false);
  Array out = like(input, stream);
  correlate_nd_into(input, weights, out, opts, false, "ndimage.correlate", stream);
  return out;
}

Array convolve(const Array& input, const Array& weights, const FilterOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.convolve", false);
  Array out = like(input, stream);
  correlate_nd_into(input, weights, out, opts, true, "ndimage.convolve", stream);
  return out;
}

Array uniform_filter1d(const Array& input, std::int64_t size, const Filter1dOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.uniform_filter1d", false);
  Array out = like(input, stream);
  filter1d_into(input, out, size_pass(Op::uniform, size), opts, "ndimage.uniform_filter1d", false, stream);
  return out;
}

Array minimum_filter1d(const Array& input, std::int64_t size, const Filter1dOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.minimum_filter1d", true);
  Array out = like(input, stream);
  filter1d_into(input, out, size_pass(Op::minimum, size), opts, "ndimage.minimum_filter1d", true, stream);
  return out;
}

Array maximum_filter1d(const Array& input, std::int64_t size, const Filter1dOptions& opts, const Stream& stream) {
  check_input(input, "ndimage.maximum_filter1d", true);
  Array out = like(input, stream);
  filter1d_into(input, out, size_pass(Op::maximum, size), opts, "ndimage.maximum_filter1d", true, stream);
  return out;
}

Array uniform_filter(const Array& input, const UniformFilterOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "ndimage.uniform_filter";
  check_input(input, fn, false);
  check_mode(opts.mode, fn);
  const int nd = input.ndim();
  const auto sizes = per_axis(opts.size, nd, 3, fn, "size");
  const auto origin = per_axis(opts.origin, nd, 0, fn, "origin");
  std::vector<std::pair<int, Pass1d>> passes;
  for (int d = 0; d < nd; ++d) {
    expect(sizes[d] >= 1, fn, "size", "must be at least 1 on every axis, got ", sizes[d]);
    if (sizes[d] <= 1) continue;  // scipy skips (and does not check the origin of) size-1 axes
    check_origin(origin[d], sizes[d], fn);
    Pass1d p = size_pass(Op::uniform, sizes[d]);
    p.left = sizes[d] / 2 + origin[d];
    p.mode = opts.mode;
    p.cval = opts.cval;
    passes.emplace_back(d, std::move(p));
  }
  Array out = like(input, stream);
  run_passes(input, out, passes, false, fn, stream);
  return out;
}

Array minimum_filter(const Array& input, const RankFilterOptions& opts, const Stream& stream) {
  return rank_filter(input, opts, detail::Op::minimum, "ndimage.minimum_filter", stream);
}

Array maximum_filter(const Array& input, const RankFilterOptions& opts, const Stream& stream) {
  return rank_filter(input, opts, detail::Op::maximum, "ndimage.maximum_filter", stream);
}

}  // namespace cuskimage::ndimage
