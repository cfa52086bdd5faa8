// skimage.transform.resize_local_mean (area-weighted means, one banded weighted pass per resized
// axis) and downscale_local_mean (measure.block_reduce with np.mean).
#include <algorithm>
#include <cmath>
#include <limits>

#include "cuskimage/measure.hpp"
#include "cuskimage/transform/warps.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/transform/warps_common.hpp"

namespace cuskimage::transform {

using cuskimage::detail::expect;
using namespace detail;

namespace {

/// numpy.linspace(start, stop, num) in float64 (its step form; the last value exactly `stop`).
std::vector<double> np_linspace(double start, double stop, std::int64_t num) {
  std::vector<double> y(static_cast<std::size_t>(std::max<std::int64_t>(num, 0)));
  const std::int64_t div = num - 1;
  const double delta = stop - start;
  const double step = div > 0 ? delta / static_cast<double>(div) : 0.0;
  for (std::int64_t i = 0; i < num; ++i) {
    double v = static_cast<double>(i);
    if (div > 0)
      v = step == 0 ? v / static_cast<double>(div) * delta : v * step;
    else
      v = v * delta;
    y[i] = v + start;
  }
  if (num > 1) y[num - 1] = stop;
  return y;
}

/// NumPy's pairwise sum of row[lo, lo + n) where only [b0, b1) may be non-zero (zeros add exactly,
/// so only the blocks the band touches are visited).
template <class F>
F pairwise_band(const std::vector<F>& row, std::int64_t lo, std::int64_t n, std::int64_t b0, std::int64_t b1) {
  if (lo >= b1 || lo + n <= b0) return F(0);
  auto at = [&](std::int64_t i) { return i >= b0 && i < b1 ? row[i - b0] : F(0); };
  if (n < 8) {
    F s = F(0) + at(lo);  // numpy starts from -0.0 + x; the same for non-negative weights
    for (std::int64_t i = 1; i < n; ++i) s += at(lo + i);
    return n == 0 ? F(0) : s;
  }
  if (n <= 128) {
    F r[8];
    for (int k = 0; k < 8; ++k) r[k] = at(lo + k);
    std::int64_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int k = 0; k < 8; ++k) r[k] += at(lo + i + k);
    F s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += at(lo + i);
    return s;
  }
  std::int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_band(row, lo, n2, b0, b1) + pairwise_band(row, lo + n2, n - n2, b0, b1);
}

/// _local_mean_weights(old, new, grid_mode, F) as a band per output: NumPy's steps in F.
template <class F>
AxisWeights<F> local_mean_weights(std::int64_t old_size, std::int64_t new_size, bool grid_mode) {
  std::vector<double> ob, nb;
  if (grid_mode) {
    ob = np_linspace(0, static_cast<double>(old_size), old_size + 1);
    nb = np_linspace(0, static_cast<double>(old_size), new_size + 1);
  } else {
    const double o = static_cast<double>(old_size - 1), n = static_cast<double>(new_size - 1);
    const std::vector<double> oi = np_linspace(0.5, o - 0.5, old_size - 1);
    const double val = new_size - 1 == 0 ? std::numeric_limits<double>::infinity() : 0.5 * o / n;
    const std::vector<double> ni = np_linspace(val, o - val, new_size - 1);
    ob = {0.0};
    ob.insert(ob.end(), oi.begin(), oi.end());
    ob.push_back(o);
    nb = {0.0};
    nb.insert(nb.end(), ni.begin(), ni.end());
    nb.push_back(o);
  }
  std::vector<F> obf(ob.begin(), ob.end()), nbf(nb.begin(), nb.end());
  AxisWeights<F> aw;
  for (std::int64_t j = 0; j < new_size; ++j) {
    const F lo = nbf[j], hi = nbf[j + 1];
    // The old intervals [obf[i], obf[i + 1]) overlapping [lo, hi): a contiguous run.
    std::int64_t i0 = std::upper_bound(obf.begin() + 1, obf.end(), lo) - obf.begin() - 1;
    std::int64_t i1 = std::lower_bound(obf.begin(), obf.end() - 1, hi) - obf.begin();
    i0 = std::clamp<std::int64_t>(i0, 0, old_size);
    i1 = std::clamp<std::int64_t>(i1, i0, old_size);
    std::vector<F> row;
    for (std::int64_t i = i0; i < i1; ++i) {
      const F upper = std::min(hi, obf[i + 1]), lower = std::max(lo, obf[i]);
      const F d = upper - lower;
      row.push_back(d > F(0) ? d : F(0));
    }
    const F sum = pairwise_band(row, 0, old_size, i0, i1);
    aw.start.push_back(i0);
    aw.count.push_back(i1 - i0);
    aw.off.push_back(static_cast<std::int64_t>(aw.w.size()));
    for (F v : row) aw.w.push_back(v / sum);
  }
  return aw;
}

/// One resized axis of `a` (contiguous F) to `new_size`.
template <class F>
Array resize_axis(const Array& a, int axis, std::int64_t new_size, bool grid_mode, const Stream& stream) {
  const AxisWeights<F> aw = local_mean_weights<F>(a.shape(axis), new_size, grid_mode);
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= a.shape(d);
  for (int d = axis + 1; d < a.ndim(); ++d) inner *= a.shape(d);
  Shape os = a.shape();
  os[axis] = new_size;
  Array out = Array::empty(os, a.dtype(), a.device(), stream);
  if (out.size() == 0 || a.size() == 0) return out;
  cuskimage::detail::on_backend(
      a, stream, [&] { cpu_weighted_axis<F>(a, out, outer, inner, aw); },
      [&](const Stream& s) { cuda_weighted_axis<F>(a, out, outer, inner, aw, s); });
  return out;
}

}  // namespace

Array resize_local_mean(const Array& image, const Shape& output_shape, const ResizeLocalMeanOptions& opts,
                        const Stream& stream) {
  constexpr std::string_view fn = "transform.resize_local_mean";
  cuskimage::detail::expect_valid(image, fn, "image");
  const int nd = image.ndim();
  Shape oshape = output_shape;
  Array img = image.share();
  int ca = -1;
  if (opts.channel_axis) {
    expect(*opts.channel_axis >= -nd && *opts.channel_axis < nd, fn, "channel_axis", "is invalid for a ", nd,
           "-D image: ", *opts.channel_axis);
    ca = (*opts.channel_axis + nd) % nd;
    img = image.transpose(axes_moving(nd, ca, nd - 1));
    const std::int64_t nc = img.shape(nd - 1);
    if (static_cast<int>(oshape.size()) == nd - 1) {
      oshape.push_back(nc);
    } else if (static_cast<int>(oshape.size()) == nd) {
      expect(oshape[ca] == nc, fn, "output_shape",
             "cannot resize along the channel_axis (use channel_axis unset to resize every axis)");
      oshape.push_back(nc);  // as scikit-image: the entries are then paired with the moved axes
    } else {
      cuskimage::detail::fail(fn, "argument 'output_shape' must have image.ndim or image.ndim - 1 entries when "
                                  "channel_axis is set, got ",
                              oshape.size());
    }
  } else {
    if (static_cast<int>(oshape.size()) == nd - 1) {
      oshape.push_back(image.shape(nd - 1));
    } else if (static_cast<int>(oshape.size()) > nd) {
      Shape s = image.shape();
      s.resize(oshape.size(), 1);
      img = image.reshape(s);
    } else {
      expect(static_cast<int>(oshape.size()) == nd, fn, "output_shape",
             "cannot have fewer entries than the image has dimensions, got ", oshape.size());
    }
  }
  for (const auto v : oshape) expect(v >= 0, fn, "output_shape", "must hold non-negative sizes, got ", v);
  Array r = convert_to_float(img, opts.preserve_range, stream).contiguous(stream);
  for (int axis = 0; axis < nd; ++axis) {
    const std::int64_t old_size = img.shape(axis), new_size = oshape[axis];
    if (old_size == new_size) continue;
    r = r.dtype() == DType::float32 ? resize_axis<float>(r, axis, new_size, opts.grid_mode, stream)
                                    : resize_axis<double>(r, axis, new_size, opts.grid_mode, stream);
  }
  if (ca >= 0 && ca != nd - 1) r = r.transpose(axes_moving(nd, nd - 1, ca)).contiguous(stream);
  return r;
}

Array downscale_local_mean(const Array& image, const std::vector<std::int64_t>& factors,
                           const DownscaleLocalMeanOptions& opts, const Stream& stream) {
  return measure::block_reduce(image, factors, {.func = measure::BlockFunc::mean, .cval = opts.cval}, stream);
}

}  // namespace cuskimage::transform
