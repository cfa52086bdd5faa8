// Shape utilities of skimage.util: crop, view_as_blocks, view_as_windows, slice_along_axes,
// regular_grid, regular_seeds, label_points, unique_rows. Views are built with Array::slice /
// as_strided (no copies); the few data-touching parts have CPU loops here and kernels in
// kernels/util/.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

#include "cuskimage/util.hpp"
#include "src/util/common.hpp"
#include "src/util/cpu_loops.hpp"

namespace cuskimage::util {
namespace {

/// A contiguous copy of `v` whose memory order follows `order` ('C', 'F', 'K', 'A').
Array copy_in_order(const Array& v, char order, const Stream& stream, std::string_view fn) {
  const int nd = v.ndim();
  std::vector<int> perm(nd);
  std::iota(perm.begin(), perm.end(), 0);
  auto is_f_contiguous = [&] {
    std::int64_t acc = 1;
    for (int d = 0; d < nd; ++d) {
      if (v.shape()[d] == 1) continue;
      if (v.strides()[d] != acc) return false;
      acc *= v.shape()[d];
    }
    return true;
  };
  switch (order) {
    case 'C':
      break;
    case 'F':
      std::reverse(perm.begin(), perm.end());
      break;
    case 'A':
      if (is_f_contiguous() && !v.is_contiguous()) std::reverse(perm.begin(), perm.end());
      break;
    case 'K':
      // Outermost memory axis first: sort by |stride| descending, keeping C order among ties.
      std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) {
        return std::llabs(v.strides()[a]) > std::llabs(v.strides()[b]);
      });
      break;
    default:
      detail::expect(false, fn, "order", "must be one of 'C', 'F', 'A', 'K', got '", std::string(1, order), "'");
  }
  Shape mem_shape(nd);
  for (int d = 0; d < nd; ++d) mem_shape[d] = v.shape()[perm[d]];
  Array mem = Array::empty(mem_shape, v.dtype(), v.device(), stream);
  std::vector<int> inverse(nd);
  for (int d = 0; d < nd; ++d) inverse[perm[d]] = d;
  Array out = mem.transpose(inverse);
  out.copy_from(v, stream);
  return out;
}

}  // namespace

Array crop(const Array& ar, const CropWidth& crop_width, const CropOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "util.crop";
  detail::expect_valid(ar, fn, "ar");
  const int nd = ar.ndim();
  const auto& pairs = crop_width.pairs;
  detail::expect(!pairs.empty() && (pairs.size() == 1 || static_cast<int>(pairs.size()) == nd), fn, "crop_width",
                 "must be one int, one pair or ", nd, " pairs (one per axis), got ", pairs.size(), " pairs");
  std::vector<Slice> slices(nd);
  for (int d = 0; d < nd; ++d) {
    const auto [before, after] = pairs.size() == 1 ? pairs[0] : pairs[d];
    detail::expect(before >= 0 && after >= 0, fn, "crop_width", "must be non-negative, got (", before, ", ", after,
                   ") for axis ", d);
    const std::int64_t n = ar.shape()[d];
    const std::int64_t start = std::min(before, n);
    slices[d] = Slice{start, std::max(n - after, start), 1};
  }
  Array view = ar.slice(std::span<const Slice>(slices.data(), slices.size()));
  if (!opts.copy) return view;
  return copy_in_order(view, opts.order, stream, fn);
}

Array view_as_blocks(const Array& arr_in, const Shape& block_shape) {
  constexpr std::string_view fn = "util.view_as_blocks";
  detail::expect_valid(arr_in, fn, "arr_in");
  const int nd = arr_in.ndim();
  detail::expect(static_cast<int>(block_shape.size()) == nd, fn, "block_shape", "must have the length of 'arr_in.shape' (",
                 nd, "), got ", block_shape.size());
  Shape shape(2 * nd);
  Strides strides(2 * nd);
  for (int d = 0; d < nd; ++d) {
    const std::int64_t b = block_shape[d];
    detail::expect(b > 0, fn, "block_shape", "must be strictly positive, got ", shape_str(block_shape));
    detail::expect(arr_in.shape()[d] % b == 0, fn, "block_shape", shape_str(block_shape),
                   " is not compatible with 'arr_in' of shape ", shape_str(arr_in.shape()),
                   " (every extent must be a multiple of its block's)");
    shape[d] = arr_in.shape()[d] / b;
    shape[nd + d] = b;
    strides[d] = arr_in.strides()[d] * b;
    strides[nd + d] = arr_in.strides()[d];
  }
  return arr_in.as_strided(shape, strides, 0);
}

Array view_as_windows(const Array& arr_in, const Shape& window_shape, const ViewAsWindowsOptions& opts) {
  constexpr std::string_view fn = "util.view_as_windows";
  detail::expect_valid(arr_in, fn, "arr_in");
  const int nd = arr_in.ndim();
  const auto nwin = static_cast<int>(window_shape.size());
  const auto nstep = static_cast<int>(opts.step.size());
  detail::expect(nwin == nd || nwin == 1, fn, "window_shape", "must have one value or ", nd,
                 " (the length of 'arr_in.shape'), got ", nwin);
  detail::expect(nstep == nd || nstep == 1, fn, "step", "must have one value or ", nd, ", got ", nstep);
  Shape shape(2 * nd);
  Strides strides(2 * nd);
  for (int d = 0; d < nd; ++d) {
    const std::int64_t w = nwin == 1 ? window_shape[0] : window_shape[d];
    const std::int64_t s = nstep == 1 ? opts.step[0] : opts.step[d];
    detail::expect(s >= 1, fn, "step", "must be >= 1, got ", s);
    detail::expect(w >= 1, fn, "window_shape", "is too small: must be >= 1, got ", w);
    detail::expect(w <= arr_in.shape()[d], fn, "window_shape", "is too large: ", w, " > extent ", arr_in.shape()[d],
                   " of axis ", d);
    shape[d] = (arr_in.shape()[d] - w) / s + 1;
    shape[nd + d] = w;
    strides[d] = arr_in.strides()[d] * s;
    strides[nd + d] = arr_in.strides()[d];
  }
  return arr_in.as_strided(shape, strides, 0);
}

Array slice_along_axes(const Array& image, const std::vector<std::pair<std::int64_t, std::int64_t>>& slices,
                       const std::vector<int>& axes, bool copy, const Stream& stream) {
  constexpr std::string_view fn = "util.slice_along_axes";
  detail::expect_valid(image, fn, "image");
  if (slices.empty()) return image.share();
  const int nd = image.ndim();
  std::vector<int> ax = axes;
  if (ax.empty()) {
    detail::expect(static_cast<int>(slices.size()) <= nd, fn, "slices", "has more entries (", slices.size(),
                   ") than the image has axes (", nd, ")");
    for (std::size_t i = 0; i < slices.size(); ++i) ax.push_back(static_cast<int>(i));
  } else {
    detail::expect(ax.size() == slices.size(), fn, "axes", "must have the length of 'slices' (", slices.size(), "), got ",
                   ax.size());
  }
  std::vector<Slice> sl(nd);
  std::vector<bool> seen(nd, false);
  for (std::size_t i = 0; i < ax.size(); ++i) {
    const int a = ax[i];
    detail::expect(a >= 0 && a < nd, fn, "axes", "must be in [0, ", nd - 1, "], got ", a);
    detail::expect(!seen[a], fn, "axes", "must be unique, axis ", a, " repeats");
    seen[a] = true;
    const std::int64_t n = image.shape()[a];
    auto [lo, hi] = slices[i];
    if (lo < 0 && n > 0) lo = ((lo % n) + n) % n;
    if (hi < 0 && n > 0) hi = ((hi % n) + n) % n;
    detail::expect(lo <= hi, fn, "slices", "must be ordered (min, max), got (", lo, ", ", hi, ")");
    detail::expect(lo >= 0 && hi <= n, fn, "slices", "(", lo, ", ", hi, ") is out of range for axis ", a, " of extent ",
                   n);
    sl[a] = Slice{lo, hi, 1};
  }
  Array view = image.slice(std::span<const Slice>(sl.data(), sl.size()));
  if (copy) return view.copy(stream);
  return view;
}

std::vector<Slice> regular_grid(const Shape& ar_shape, std::int64_t n_points) {
  constexpr std::string_view fn = "util.regular_grid";
  const int nd = static_cast<int>(ar_shape.size());
  detail::expect(nd > 0, fn, "ar_shape", "must have at least one axis");
  detail::expect(n_points > 0, fn, "n_points", "must be positive, got ", n_points);
  for (auto s : ar_shape) detail::expect(s >= 0, fn, "ar_shape", "must be non-negative, got ", shape_str(ar_shape));
  // Axes by increasing extent (stable, as NumPy's argsort on short arrays).
  std::vector<int> order(nd);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ar_shape[a] < ar_shape[b]; });
  std::vector<double> sorted(nd);
  for (int d = 0; d < nd; ++d) sorted[d] = static_cast<double>(ar_shape[order[d]]);
  double space = 1.0;
  for (auto s : ar_shape) space *= static_cast<double>(s);
  const double np = static_cast<double>(n_points);
  if (space <= np) return std::vector<Slice>(nd, Slice{});
  std::vector<double> step(nd, std::pow(space / np, 1.0 / nd));
  bool any_small = false;
  for (int d = 0; d < nd; ++d) any_small |= sorted[d] < step[d];
  if (any_small) {
    for (int d = 0; d < nd; ++d) {
      step[d] = sorted[d];
      if (d + 1 < nd) {
        double rest = 1.0;
        for (int e = d + 1; e < nd; ++e) rest *= sorted[e];
        const double s = std::pow(rest / np, 1.0 / (nd - d - 1));
        for (int e = d + 1; e < nd; ++e) step[e] = s;
      }
      bool all_fit = true;
      for (int e = 0; e < nd; ++e) all_fit &= sorted[e] >= step[e];
      if (all_fit) break;
    }
  }
  std::vector<Slice> by_sorted(nd);
  for (int d = 0; d < nd; ++d) {
    const auto start = static_cast<std::int64_t>(std::floor(step[d] / 2.0));
    const auto st = static_cast<std::int64_t>(std::nearbyint(step[d]));
    detail::expect(st > 0, fn, "n_points", "gives a zero step along an axis (", n_points, " points in ",
                   shape_str(ar_shape), ")");
    by_sorted[d] = Slice{start, std::nullopt, st};
  }
  std::vector<Slice> result(nd);
  for (int d = 0; d < nd; ++d) result[order[d]] = by_sorted[d];
  return result;
}

Array regular_seeds(const Shape& ar_shape, std::int64_t n_points, DType dtype, Device device, const Stream& stream) {
  const std::vector<Slice> grid = regular_grid(ar_shape, n_points);
  Array seeds = Array::zeros(ar_shape, dtype, device, stream);
  Array view = seeds.slice(std::span<const Slice>(grid.data(), grid.size()));
  if (view.size() > 0) {
    detail::on_backend(
        view, stream, [&] { detail::cpu_iota(view); }, [&](const Stream& s) { detail::cuda_iota(view, s); });
  }
  return seeds;
}

Array label_points(const Array& coords, const Shape& output_shape, const Stream& stream) {
  constexpr std::string_view fn = "util.label_points";
  detail::expect_ndim(coords, fn, "coords", 2, 2);
  const auto nd = static_cast<std::int64_t>(output_shape.size());
  detail::expect(coords.shape()[1] == nd, fn, "coords",
                 "must have one column per axis of 'output_shape' (dimensionality of points should match the output "
                 "shape): ",
                 nd, " expected, got ", coords.shape()[1]);
  for (auto s : output_shape)
    detail::expect(s >= 0, fn, "output_shape", "must be non-negative, got ", shape_str(output_shape));
  detail::expect(coords.dtype() != DType::bool_, fn, "coords", "must have a numeric dtype, got bool");
  detail::expect(nd <= cuskimage::detail::kMaxDims, fn, "output_shape", "must have at most ",
                 cuskimage::detail::kMaxDims, " axes");
  Array labels = Array::zeros(output_shape, DType::uint64, coords.device(), stream);
  const std::int64_t n = coords.shape()[0];
  if (n == 0) return labels;
  // Per-column extremes: coordinates must be >= 0 and round into the shape.
  const Array cols = coords.transpose({1, 0});
  detail::dispatch<detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                 std::int32_t, std::uint64_t, std::int64_t, float, double>>(coords.dtype(), fn, [&]<class T>() {
    const auto mm = detail::minmax<T>(cols, nd, stream);
    for (std::int64_t d = 0; d < nd; ++d) {
      const double lo = static_cast<double>(mm[d].lo), hi = static_cast<double>(mm[d].hi);
      detail::expect(!mm[d].nan, fn, "coords", "must not contain NaN");
      detail::expect(lo >= 0, fn, "coords", "must be non-negative (coordinates start from 0), got ", lo, " in column ",
                     d);
      detail::expect(std::nearbyint(hi) < static_cast<double>(output_shape[d]), fn, "coords", "column ", d,
                     " reaches ", hi, ", outside 'output_shape' ", shape_str(output_shape));
    }
  });
  detail::on_backend(
      coords, stream, [&] { detail::cpu_label_points(coords, labels); },
      [&](const Stream& s) { detail::cuda_label_points(coords, labels, s); });
  return labels;
}

Array unique_rows(const Array& ar, const Stream& stream) {
  constexpr std::string_view fn = "util.unique_rows";
  detail::expect_ndim(ar, fn, "ar", 2, 2);
  const Array c = ar.contiguous(stream);
  if (c.size() == 0) return c.shape()[0] == 0 ? c.share() : c.slice({Slice{0, 1}});
  return detail::on_backend(
      c, stream, [&] { return detail::cpu_unique_rows(c); },
      [&](const Stream& s) { return detail::cuda_unique_rows(c, s); });
}

namespace detail {

void cpu_iota(Array& dst) {
  dispatch<cuskimage::detail::AllTypes>(dst.dtype(), "util.regular_seeds",
                                        [&]<class T>() { cpu_generate<T>(dst, IotaFn<T>{}); });
}

void cpu_label_points(const Array& coords, Array& out) {
  const std::int64_t n = coords.shape()[0];
  const int nd = out.ndim();
  dispatch<Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t,
                 std::int64_t, float, double>>(coords.dtype(), "util.label_points", [&]<class T>() {
    const T* c = static_cast<const T*>(coords.data());
    auto* o = static_cast<std::uint64_t*>(out.data());
    const std::int64_t* shape = out.shape().data();
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t off = point_offset(c, coords.strides()[0], coords.strides()[1], i, nd, shape);
      o[off] = static_cast<std::uint64_t>(i + 1);
    }
  });
}

Array cpu_unique_rows(const Array& ar) {
  const std::int64_t rows = ar.shape()[0];
  const std::size_t row_bytes = static_cast<std::size_t>(ar.shape()[1]) * ar.itemsize();
  const auto* base = static_cast<const unsigned char*>(ar.data());
  std::vector<std::int64_t> idx(static_cast<std::size_t>(rows));
  std::iota(idx.begin(), idx.end(), 0);
  auto row = [&](std::int64_t r) { return base + static_cast<std::size_t>(r) * row_bytes; };
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::int64_t a, std::int64_t b) { return std::memcmp(row(a), row(b), row_bytes) < 0; });
  std::vector<std::int64_t> keep;
  for (std::size_t i = 0; i < idx.size(); ++i)
    if (i == 0 || std::memcmp(row(idx[i]), row(idx[i - 1]), row_bytes) != 0) keep.push_back(idx[i]);
  Array out = Array::empty({static_cast<std::int64_t>(keep.size()), ar.shape()[1]}, ar.dtype(), Device::cpu());
  auto* o = static_cast<unsigned char*>(out.data());
  for (std::size_t i = 0; i < keep.size(); ++i) std::memcpy(o + i * row_bytes, row(keep[i]), row_bytes);
  return out;
}

}  // namespace detail
}  // namespace cuskimage::util
