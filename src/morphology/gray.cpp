// skimage.morphology.gray: erosion, dilation, opening, closing, white_tophat, black_tophat.
// Every pass is an ndimage::minimum_filter / maximum_filter call (the CPU oracle or the CUDA
// neighbourhood kernels, chosen by the image's device); only the tophat difference has its own
// element-wise kernel (kernels/morphology/tophat.cu).
#include <algorithm>
#include <cmath>
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
        [&](cudaStream_t s) { detail::cuda_tophat_sub<T>(a, b, out, s); });
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
