// skimage.morphology.binary (deprecated in scikit-image 0.26): binary_erosion, binary_dilation,
// binary_opening, binary_closing on a bool view of the image. scipy's binary_erosion is a
// minimum filter over the bool image with the border at border_value; binary_dilation is a
// maximum filter with the footprint mirrored (scipy mirrors the structure) -- both run on
// ndimage's rank-filter kernels, or on CUDA on the dedicated kernels of gray.cpp's fast_minmax_pass
// (a full 3x3: kernels/morphology/binary3x3.cu; single-run rows: rows2d.cu).
#include <cstring>
#include <string>

#include "src/core/validate.hpp"
#include "src/morphology/morph_ops.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;

namespace {

using Elements = std::vector<FootprintElement>;

bool same(const Array& a, const Array& b, const Stream& stream) {
  const Array ha = a.to(Device::cpu(), stream).contiguous(stream);
  const Array hb = b.to(Device::cpu(), stream).contiguous(stream);
  return std::memcmp(ha.data(), hb.data(), static_cast<std::size_t>(ha.size())) == 0;
}

/// scikit-image's _iterate_binary_func: each element num_iter times (scipy's iterations; < 1
/// repeats until nothing changes).
Array iterate(bool is_max, const Array& image, const Elements& els, bool border, const Stream& stream) {
  auto pass = [&](const Array& in, const Array& fp) {
    if (Array r = detail::fast_minmax_pass(is_max, in, fp, ndimage::Mode::constant, border ? 1.0 : 0.0, stream);
        r.valid())
      return r;
    ndimage::RankFilterOptions o{.footprint = fp.share(), .mode = ndimage::Mode::constant, .cval = border ? 1.0 : 0.0};
    return is_max ? ndimage::maximum_filter(in, o, stream) : ndimage::minimum_filter(in, o, stream);
  };
  Array cur = image.share();
  for (const auto& el : els) {
    if (!detail::any_nonzero(el.footprint)) {
      // scipy: an empty structure erodes to all true (and so dilates to all false), border or not.
      cur = Array::full(image.shape(), is_max ? 0.0 : 1.0, DType::bool_, image.device(), stream);
      continue;
    }
    if (el.num_iter < 1) {
      for (;;) {
        Array next = pass(cur, el.footprint);
        const bool done = same(next, cur, stream);
        cur = std::move(next);
        if (done) break;
      }
    } else {
      for (std::int64_t i = 0; i < el.num_iter; ++i) cur = pass(cur, el.footprint);
    }
  }
  return cur;
}

Array as_bool(std::string_view fn, const Array& image, MorphMode mode, const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least one dimension, got 0");
  if (!image.device().is_cpu())
    expect(image.ndim() <= 3, fn, "image", "must be 1-, 2- or 3-D on a CUDA device, got ", image.ndim(), "-D");
  if (mode != MorphMode::max && mode != MorphMode::min && mode != MorphMode::ignore)
    cuskimage::detail::fail(fn, "unsupported mode, got '", morph_mode_name(mode), "'");
  return image.dtype() == DType::bool_ ? image.share() : image.astype(DType::bool_, stream);
}

Array erode(std::string_view fn, const Array& image, const BinaryOptions& o, const Stream& s) {
  const Array b = as_bool(fn, image, o.mode, s);
  return iterate(false, b, detail::normalize_footprint(fn, image, o.footprint, true), o.mode != MorphMode::min, s);
}
Array dilate(std::string_view fn, const Array& image, const BinaryOptions& o, const Stream& s) {
  const Array b = as_bool(fn, image, o.mode, s);
  const Elements els = detail::mirror_elements(detail::normalize_footprint(fn, image, o.footprint, true));
  return iterate(true, b, els, o.mode == MorphMode::max, s);
}

using Op = Array (*)(std::string_view, const Array&, const BinaryOptions&, const Stream&);

Array do_erosion(std::string_view fn, const Array& image, const BinaryOptions& o, const Stream& s) {
  return erode(fn, image, o, s);
}
Array do_dilation(std::string_view fn, const Array& image, const BinaryOptions& o, const Stream& s) {
  return dilate(fn, image, o, s);
}
Array do_opening(std::string_view fn, const Array& image, const BinaryOptions& o, const Stream& s) {
  return dilate(fn, erode(fn, image, o, s), o, s);
}
Array do_closing(std::string_view fn, const Array& image, const BinaryOptions& o, const Stream& s) {
  return erode(fn, dilate(fn, image, o, s), o, s);
}

void run_into(Op op, std::string_view fn, const Array& image, Array& out, const BinaryOptions& o, const Stream& s) {
  cuskimage::detail::expect_valid(image, fn, "image");
  detail::expect_out(fn, image, out, DType::bool_);
  Array r = op(fn, image, o, s);
  out.copy_from(r, s);
}

}  // namespace

Array binary_erosion(const Array& image, const BinaryOptions& o, const Stream& s) {
  return do_erosion("morphology.binary_erosion", image, o, s);
}
Array binary_dilation(const Array& image, const BinaryOptions& o, const Stream& s) {
  return do_dilation("morphology.binary_dilation", image, o, s);
}
Array binary_opening(const Array& image, const BinaryOptions& o, const Stream& s) {
  return do_opening("morphology.binary_opening", image, o, s);
}
Array binary_closing(const Array& image, const BinaryOptions& o, const Stream& s) {
  return do_closing("morphology.binary_closing", image, o, s);
}
void binary_erosion_into(const Array& image, Array& out, const BinaryOptions& o, const Stream& s) {
  run_into(do_erosion, "morphology.binary_erosion", image, out, o, s);
}
void binary_dilation_into(const Array& image, Array& out, const BinaryOptions& o, const Stream& s) {
  run_into(do_dilation, "morphology.binary_dilation", image, out, o, s);
}
void binary_opening_into(const Array& image, Array& out, const BinaryOptions& o, const Stream& s) {
  run_into(do_opening, "morphology.binary_opening", image, out, o, s);
}
void binary_closing_into(const Array& image, Array& out, const BinaryOptions& o, const Stream& s) {
  run_into(do_closing, "morphology.binary_closing", image, out, o, s);
}

}  // namespace cuskimage::morphology
