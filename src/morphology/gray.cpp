// skimage.morphology.gray: erosion, dilation, opening, closing, white_tophat, black_tophat.
// Every pass is an ndimage::minimum_filter / maximum_filter call (the CPU oracle or the CUDA
// neighbourhood kernels, chosen by the image's device), except that on CUDA a footprint whose rows
// are single runs (disk, diamond, ellipse, rectangle, ball, ...) takes a fast kernel: for integer
// and bool images the row-chain kernel (kernels/morphology/row_chain.cu) when the runs nest (in
// 2-D and 3-D), else the sparse-table kernel of kernels/morphology/rows2d.cu (a full 3x3 bool
// footprint: kernels/morphology/binary3x3.cu); the tophat difference has its own element-wise
// kernel (kernels/morphology/tophat.cu).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/morph_ops.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;

std::string_view morph_mode_name(MorphMode mode) {
  switch (mode) {
    case MorphMode::reflect: return "reflect";
    case MorphMode::constant: return "constant";
    case MorphMode::nearest: return "nearest";
    case MorphMode::mirror: return "mirror";
    case MorphMode::wrap: return "wrap";
    case MorphMode::max: return "max";
    case MorphMode::min: return "min";
    case MorphMode::ignore: return "ignore";
  }
  return "?";
}

MorphMode morph_mode_from_name(std::string_view name) {
  for (auto m : {MorphMode::reflect, MorphMode::constant, MorphMode::nearest, MorphMode::mirror, MorphMode::wrap,
                 MorphMode::max, MorphMode::min, MorphMode::ignore})
    if (morph_mode_name(m) == name) return m;
  cuskimage::detail::fail("morphology.morph_mode_from_name", "unsupported mode, got '", name, "'");
}

namespace detail {

std::vector<FootprintElement> normalize_footprint(std::string_view fn, const Array& image, const Footprint& fp,
                                                  bool pad_end) {
  const int nd = image.ndim();
  std::vector<FootprintElement> els;
  if (!fp.is_sequence() && !fp.array().valid()) {
    // scipy's generate_binary_structure(ndim, 1): the centre and its 2*ndim face neighbours.
    Array cross = Array::zeros(Shape(nd, 3), DType::uint8);
    const Strides st = contiguous_strides(cross.shape());
    std::int64_t centre = 0;
    for (int d = 0; d < nd; ++d) centre += st[d];
    auto* p = cross.data<std::uint8_t>();
    p[centre] = 1;
    for (int d = 0; d < nd; ++d) p[centre - st[d]] = p[centre + st[d]] = 1;
    els.push_back({std::move(cross), 1});
    return els;
  }
  if (fp.is_sequence()) {
    expect(!fp.sequence().empty(), fn, "footprint", "must hold at least one (footprint, num_iter) pair, got an empty sequence");
    for (const auto& el : fp.sequence()) els.push_back({el.footprint.share(), el.num_iter});
  } else {
    els.push_back({fp.array().share(), 1});
  }
  for (auto& el : els) {
    expect(el.footprint.valid(), fn, "footprint", "must hold valid arrays");
    expect(el.footprint.ndim() == nd, fn, "footprint", "must have the image's number of dimensions (", nd, "), got ",
           el.footprint.ndim());
    el.footprint = pad_footprint(el.footprint.to(Device::cpu()), {.pad_end = pad_end});
  }
  return els;
}

std::vector<FootprintElement> mirror_elements(const std::vector<FootprintElement>& els) {
  std::vector<FootprintElement> out;
  for (const auto& el : els) out.push_back({mirror_footprint(el.footprint), el.num_iter});
  return out;
}

std::vector<RowRun> footprint_runs(const Array& footprint) {
  const int nd = footprint.ndim();
  if (nd < 1 || nd > 3) return {};
  const Array b = footprint.to(Device::cpu()).astype(DType::bool_).contiguous();
  const bool* p = b.data<bool>();
  std::int64_t f[3] = {1, 1, 1};
  for (int d = 0; d < nd; ++d) f[3 - nd + d] = footprint.shape()[d];
  std::vector<RowRun> runs;
  for (std::int64_t z = 0; z < f[0]; ++z)
    for (std::int64_t y = 0; y < f[1]; ++y) {
      const bool* row = p + (z * f[1] + y) * f[2];
      std::int64_t lo = 0, hi = f[2] - 1;
      while (lo < f[2] && !row[lo]) ++lo;
      if (lo == f[2]) continue;
      while (!row[hi]) --hi;
      for (std::int64_t x = lo; x <= hi; ++x)
        if (!row[x]) return {};  // two runs on one row: not a rows footprint
      runs.push_back({static_cast<std::int32_t>(z - f[0] / 2), static_cast<std::int32_t>(y - f[1] / 2),
                      static_cast<std::int32_t>(lo - f[2] / 2), static_cast<std::int32_t>(hi - f[2] / 2)});
    }
  return runs;
}

Array fast_minmax_pass(bool is_max, const Array& image, const Array& footprint, ndimage::Mode mode, double cval,
                       const Stream& stream) {
  const int nd = image.ndim();
  if (image.device().is_cpu() || nd < 1 || nd > 3 || footprint.ndim() != nd || image.size() == 0) return {};
  using Fast = cuskimage::detail::Types<bool, std::uint8_t, std::uint16_t, std::int32_t, float, double>;
  return cuskimage::detail::dispatch<Fast>(image.dtype(), "morphology", [&]<class T>() -> Array {
    // cval must be exact in T so that the tile can hold it (scipy keeps it as a double).
    if (std::isnan(cval)) return {};
    if constexpr (std::is_same_v<T, bool>) {
      if (cval != 0.0 && cval != 1.0) return {};
    } else if constexpr (std::is_integral_v<T>) {
      if (cval < static_cast<double>(std::numeric_limits<T>::min()) ||
          cval > static_cast<double>(std::numeric_limits<T>::max()) || static_cast<double>(static_cast<T>(cval)) != cval)
        return {};
    } else {
      if (static_cast<double>(static_cast<T>(cval)) != cval) return {};
    }
    const T cv = static_cast<T>(cval);
    const std::vector<RowRun> runs = footprint_runs(footprint);
    if (runs.empty()) return {};
    std::int64_t taps = 0;
    for (const auto& r : runs) taps += r.hi - r.lo + 1;
    const bool full = taps == footprint.size();
    // A full footprint runs scipy's separable passes on the CPU: same set, but floats there combine
    // in another order (ties of -0/+0, NaN), so floats keep that path.
    if (std::is_floating_point_v<T> && full) return {};
    cuskimage::detail::DeviceGuard guard(image.device().index());
    const Array src = image.contiguous(stream);
    Array out = Array::empty(image.shape(), image.dtype(), image.device(), stream);
    const Shape& fs = footprint.shape();
    if constexpr (std::is_same_v<T, bool>) {
      const bool square3 = full && nd >= 2 && fs[nd - 1] == 3 && fs[nd - 2] == 3 && (nd == 2 || fs[0] == 1);
      if (square3 && mode == ndimage::Mode::constant && (nd == 2 || image.shape()[0] <= 65535)) {
        cuda_binary3x3(src, out, is_max, cv, stream);
        return out;
      }
    }
    if constexpr (std::is_integral_v<T>) {
      // The row chain takes footprints of nested row runs; the sparse-table kernel the others.
      if (cuda_chain_minmax<T>(src, out, runs, is_max, mode, cv, stream)) return out;
      if (cuda_rows_minmax<T>(src, out, runs, is_max, mode, cv, stream)) return out;
      return {};
    }
    if (!cuda_rows_minmax<T>(src, out, runs, is_max, mode, cv, stream)) return {};
    return out;
  });
}

bool any_nonzero(const Array& footprint) {
  const Array b = footprint.astype(DType::bool_).contiguous();
  const auto* p = b.data<bool>();
  return std::any_of(p, p + b.size(), [](bool v) { return v; });
}

void expect_out(std::string_view fn, const Array& image, const Array& out, DType dtype) {
  cuskimage::detail::expect_valid(out, fn, "out");
  expect(out.shape() == image.shape(), fn, "out", "must have the image's shape ", shape_str(image.shape()), ", got ",
         shape_str(out.shape()));
  expect(out.dtype() == dtype, fn, "out", "must have dtype ", dtype_name(dtype), ", got ", dtype_name(out.dtype()));
  expect(out.device() == image.device(), fn, "out", "must be on the image's device ", image.device().str(), ", got ",
         out.device().str());
}

}  // namespace detail

namespace {

using Elements = std::vector<FootprintElement>;
using RankTypes = cuskimage::detail::Types<bool, std::uint8_t, std::uint16_t, std::int32_t, float, double>;

/// scikit-image's _min_max_to_constant_mode after 'ignore' became `ignore_as`.
std::pair<ndimage::Mode, double> boundary(DType dt, MorphMode mode, double cval, MorphMode ignore_as) {
  if (mode == MorphMode::ignore) mode = ignore_as;
  auto limit = [dt](bool high) {
    return cuskimage::detail::dispatch<RankTypes>(dt, "morphology", [high]<class T>() -> double {
      if constexpr (std::is_same_v<T, bool>)
        return high ? 1.0 : 0.0;
      else if constexpr (std::is_integral_v<T>)
        return static_cast<double>(high ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min());
      else
        return high ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    });
  };
  switch (mode) {
    case MorphMode::reflect: return {ndimage::Mode::reflect, cval};
    case MorphMode::constant: return {ndimage::Mode::constant, cval};
    case MorphMode::nearest: return {ndimage::Mode::nearest, cval};
    case MorphMode::mirror: return {ndimage::Mode::mirror, cval};
    case MorphMode::wrap: return {ndimage::Mode::wrap, cval};
    case MorphMode::max: return {ndimage::Mode::constant, limit(true)};
    default: return {ndimage::Mode::constant, limit(false)};
  }
}

void expect_image(std::string_view fn, const Array& image) {
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::dispatch<RankTypes>(image.dtype(), fn, []<class T>() {});
  expect(image.ndim() >= 1, fn, "image", "must have at least one dimension, got 0");
  if (!image.device().is_cpu())
    expect(image.ndim() <= 3, fn, "image", "must be 1-, 2- or 3-D on a CUDA device, got ", image.ndim(), "-D");
}

/// scikit-image's _iterate_gray_func: the first element runs at least once, the others num_iter
/// times each.
Array iterate(bool is_max, const Array& image, const Elements& els, ndimage::Mode mode, double cval,
              const Stream& stream) {
  auto pass = [&](const Array& in, const Array& fp) {
    if (Array r = detail::fast_minmax_pass(is_max, in, fp, mode, cval, stream); r.valid()) return r;
    ndimage::RankFilterOptions o{.footprint = fp.share(), .mode = mode, .cval = cval};
    return is_max ? ndimage::maximum_filter(in, o, stream) : ndimage::minimum_filter(in, o, stream);
  };
  Array cur = pass(image, els.front().footprint);
  for (std::int64_t i = 1; i < els.front().num_iter; ++i) cur = pass(cur, els.front().footprint);
  for (std::size_t e = 1; e < els.size(); ++e)
    for (std::int64_t i = 0; i < els[e].num_iter; ++i) cur = pass(cur, els[e].footprint);
  return cur;
}

void expect_nonzero(std::string_view fn, const Elements& els) {
  for (const auto& el : els)
    expect(detail::any_nonzero(el.footprint), fn, "footprint",
           "must have a non-zero element (an all-zero footprint is not supported)");
}

Array erode(const Array& image, const Elements& els, const GrayOptions& o, const Stream& stream) {
  auto [mode, cval] = boundary(image.dtype(), o.mode, o.cval, MorphMode::max);
  return iterate(false, image, els, mode, cval, stream);
}

Array dilate(const Array& image, const Elements& els, const GrayOptions& o, const Stream& stream) {
  auto [mode, cval] = boundary(image.dtype(), o.mode, o.cval, MorphMode::min);
  return iterate(true, image, els, mode, cval, stream);
}

Array tophat_sub(const Array& a, const Array& b, const Stream& stream) {
  Array out = Array::empty(a.shape(), a.dtype(), a.device(), stream);  // ordered on the caller's stream
  cuskimage::detail::dispatch<RankTypes>(a.dtype(), "morphology.tophat", [&]<class T>() {
    cuskimage::detail::on_backend(
        a, stream, [&] { cuskimage::detail::cpu_map2<T, T, T>(a, b, out, detail::TophatSubOp{}); },
        [&](const Stream& s) { detail::cuda_tophat_sub<T>(a, b, out, s); });
  });
  return out;
}

using Op = Array (*)(std::string_view, const Array&, const GrayOptions&, const Stream&);

Elements gray_elements(std::string_view fn, const Array& image, const GrayOptions& o) {
  Elements els = detail::normalize_footprint(fn, image, o.footprint, false);
  expect_nonzero(fn, els);
  return els;
}

Array do_erosion(std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  return erode(image, gray_elements(fn, image, o), o, s);
}
Array do_dilation(std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  return dilate(image, gray_elements(fn, image, o), o, s);
}
Array do_opening(std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  const Elements els = gray_elements(fn, image, o);
  return dilate(erode(image, els, o, s), detail::mirror_elements(els), o, s);
}
Array do_closing(std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  const Elements els = gray_elements(fn, image, o);
  return erode(dilate(image, els, o, s), detail::mirror_elements(els), o, s);
}
Array do_white_tophat(std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  return tophat_sub(image, do_opening(fn, image, o, s), s);
}
Array do_black_tophat(std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  return tophat_sub(do_closing(fn, image, o, s), image, s);
}

Array run(Op op, std::string_view fn, const Array& image, const GrayOptions& o, const Stream& s) {
  expect_image(fn, image);
  return op(fn, image, o, s);
}

void run_into(Op op, std::string_view fn, const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  expect_image(fn, image);
  detail::expect_out(fn, image, out, image.dtype());
  Array r = op(fn, image, o, s);
  out.copy_from(r, s);
}

}  // namespace

Array erosion(const Array& image, const GrayOptions& o, const Stream& s) { return run(do_erosion, "morphology.erosion", image, o, s); }
Array dilation(const Array& image, const GrayOptions& o, const Stream& s) { return run(do_dilation, "morphology.dilation", image, o, s); }
Array opening(const Array& image, const GrayOptions& o, const Stream& s) { return run(do_opening, "morphology.opening", image, o, s); }
Array closing(const Array& image, const GrayOptions& o, const Stream& s) { return run(do_closing, "morphology.closing", image, o, s); }
Array white_tophat(const Array& image, const GrayOptions& o, const Stream& s) {
  return run(do_white_tophat, "morphology.white_tophat", image, o, s);
}
Array black_tophat(const Array& image, const GrayOptions& o, const Stream& s) {
  return run(do_black_tophat, "morphology.black_tophat", image, o, s);
}

void erosion_into(const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  run_into(do_erosion, "morphology.erosion", image, out, o, s);
}
void dilation_into(const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  run_into(do_dilation, "morphology.dilation", image, out, o, s);
}
void opening_into(const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  run_into(do_opening, "morphology.opening", image, out, o, s);
}
void closing_into(const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  run_into(do_closing, "morphology.closing", image, out, o, s);
}
void white_tophat_into(const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  run_into(do_white_tophat, "morphology.white_tophat", image, out, o, s);
}
void black_tophat_into(const Array& image, Array& out, const GrayOptions& o, const Stream& s) {
  run_into(do_black_tophat, "morphology.black_tophat", image, out, o, s);
}

}  // namespace cuskimage::morphology
