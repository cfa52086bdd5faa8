// skimage.color.colorconv: the public conversion functions (validation, dtype rule, channel axis)
// over the shared pixel ops.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "cuskimage/color.hpp"
#include "cuskimage/util.hpp"
#include "src/color/common.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::color {

using detail::Op;
using detail::PixelParams;
using cuskimage::detail::expect;

namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

PixelParams with_matrix(const Matrix3& m, bool transpose = false) {
  PixelParams p;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) p.m[i][j] = transpose ? m[j][i] : m[i][j];
  return p;
}

Array rgb_like(std::string_view fn, std::string_view arg, const Array& a, int axis, Op op, const PixelParams& p,
               const Stream& s) {
  return detail::pixel_op(fn, arg, a, axis, op, p, 3, 3, false, s);
}

PixelParams white_params(const Matrix3& m, std::string_view fn, const IlluminantOptions& o) {
  PixelParams p = with_matrix(m);
  detail::set_white(p, fn, o.illuminant, o.observer);
  return p;
}

/// rgb2lab's parameters: the white folded into the matrix (xyz_from_rgb's row i over white[i]; see
/// RgbToLabOp).
PixelParams rgb2lab_params(const IlluminantOptions& o) {
  PixelParams p = white_params(xyz_from_rgb, "color.rgb2lab", o);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) p.m[i][j] /= p.white[i];
  return p;
}

}  // namespace

// ---- illuminants ----------------------------------------------------------------------------------

Rgb xyz_tristimulus_values(std::string_view illuminant, std::string_view observer) {
  struct Entry {
    const char* name;
    Rgb v2, v10, vr;
  };
  // scikit-image's _illuminants table (0.26): X, Y = 1, Z per observer.
  static const Entry table[] = {
      {"A", {1.098466069456375, 1, 0.3558228003436005}, {1.111420406956693, 1, 0.3519978321919493},
       {1.098466069456375, 1, 0.3558228003436005}},
      {"B", {0.9909274480248003, 1, 0.8531327322886154}, {0.9917777147717607, 1, 0.8434930535866175},
       {0.9909274480248003, 1, 0.8531327322886154}},
      {"C", {0.980705971659919, 1, 1.1822494939271255}, {0.9728569189782166, 1, 1.1614480488951577},
       {0.980705971659919, 1, 1.1822494939271255}},
      {"D50", {0.9642119944211994, 1, 0.8251882845188288}, {0.9672062750333777, 1, 0.8142801513128616},
       {0.9639501491621826, 1, 0.8241280285499208}},
      {"D55", {0.956797052643698, 1, 0.9214805860173273}, {0.9579665682254781, 1, 0.9092525159847462},
       {0.9565317453467969, 1, 0.9202554587037198}},
      {"D65", {0.95047, 1.0, 1.08883}, {0.94809667673716, 1, 1.0730513595166162},
       {0.9532057125493769, 1, 1.0853843816469158}},
      {"D75", {0.9497220898840717, 1, 1.226393520724154}, {0.9441713925645873, 1, 1.2064272211720228},
       {0.9497220898840717, 1, 1.226393520724154}},
      {"E", {1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}},
  };
  const std::string ill = upper(illuminant), obs = upper(observer);
  for (const Entry& e : table) {
    if (ill != e.name) continue;
    if (obs == "2") return e.v2;
    if (obs == "10") return e.v10;
    if (obs == "R") return e.vr;
  }
  cuskimage::detail::fail("color.xyz_tristimulus_values", "unknown illuminant/observer combination ('", ill, "', '",
                          obs, "')");
}

Rgb get_xyz_coords(std::string_view illuminant, std::string_view observer) {
  return xyz_tristimulus_values(illuminant, observer);
}

// ---- conversions ----------------------------------------------------------------------------------

Array rgb2hsv(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2hsv", "rgb", rgb, o.channel_axis, Op::rgb2hsv, {}, s);
}
Array hsv2rgb(const Array& hsv, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.hsv2rgb", "hsv", hsv, o.channel_axis, Op::hsv2rgb, {}, s);
}
Array rgb2xyz(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2xyz", "rgb", rgb, o.channel_axis, Op::rgb2xyz, with_matrix(xyz_from_rgb), s);
}
Array xyz2rgb(const Array& xyz, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.xyz2rgb", "xyz", xyz, o.channel_axis, Op::xyz2rgb, with_matrix(rgb_from_xyz), s);
}
Array rgb2rgbcie(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2rgbcie", "rgb", rgb, o.channel_axis, Op::linear, with_matrix(rgbcie_from_rgb), s);
}
Array rgbcie2rgb(const Array& rgbcie, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgbcie2rgb", "rgbcie", rgbcie, o.channel_axis, Op::linear, with_matrix(rgb_from_rgbcie), s);
}
Array xyz2lab(const Array& xyz, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = white_params(xyz_from_rgb, "color.xyz2lab", o);
  return rgb_like("color.xyz2lab", "xyz", xyz, o.channel_axis, Op::xyz2lab, p, s);
}
Array lab2xyz(const Array& lab, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = white_params(xyz_from_rgb, "color.lab2xyz", o);
  return rgb_like("color.lab2xyz", "lab", lab, o.channel_axis, Op::lab2xyz, p, s);
}
Array rgb2lab(const Array& rgb, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = rgb2lab_params(o);
  return rgb_like("color.rgb2lab", "rgb", rgb, o.channel_axis, Op::rgb2lab, p, s);
}
Array lab2rgb(const Array& lab, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = white_params(rgb_from_xyz, "color.lab2rgb", o);
  return rgb_like("color.lab2rgb", "lab", lab, o.channel_axis, Op::lab2rgb, p, s);
}
Array xyz2luv(const Array& xyz, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = white_params(xyz_from_rgb, "color.xyz2luv", o);
  return rgb_like("color.xyz2luv", "xyz", xyz, o.channel_axis, Op::xyz2luv, p, s);
}
Array luv2xyz(const Array& luv, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = white_params(xyz_from_rgb, "color.luv2xyz", o);
  return rgb_like("color.luv2xyz", "luv", luv, o.channel_axis, Op::luv2xyz, p, s);
}
Array rgb2luv(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  const PixelParams p = white_params(xyz_from_rgb, "color.rgb2luv", {.channel_axis = o.channel_axis});
  return rgb_like("color.rgb2luv", "rgb", rgb, o.channel_axis, Op::rgb2luv, p, s);
}
Array luv2rgb(const Array& luv, const ChannelOptions& o, const Stream& s) {
  const PixelParams p = white_params(rgb_from_xyz, "color.luv2rgb", {.channel_axis = o.channel_axis});
  return rgb_like("color.luv2rgb", "luv", luv, o.channel_axis, Op::luv2rgb, p, s);
}

namespace {

/// lab2lch / lch2lab: at least 3 channels; extra channels are carried over (converted).
Array lch_like(std::string_view fn, std::string_view arg, const Array& a, int channel_axis, Op op, const Stream& s) {
  cuskimage::detail::expect_valid(a, fn, arg);
  expect(a.ndim() >= 1, fn, arg, "must have a channel axis, got a 0-d array");
  const int ax = cuskimage::detail::normalize_axis(channel_axis, a.ndim(), fn, "channel_axis");
  expect(a.shape(ax) >= 3, fn, arg, "must have at least 3 channels along channel_axis, got shape ",
         shape_str(a.shape()));
  if (a.shape(ax) == 3) return detail::pixel_op(fn, arg, a, ax, op, {}, 3, 3, false, s);
  const Array cl = detail::move_axis_last(a, ax);
  Array out = a.dtype() == DType::float32 ? util::img_as_float32(cl, {.force_copy = true}, s)
                                          : util::img_as_float64(cl, {.force_copy = true}, s);
  out = out.contiguous(s);
  std::vector<Slice> sl(static_cast<std::size_t>(out.ndim()));
  sl.back() = Slice{0, 3, 1};
  Array first3 = out.slice(sl);
  detail::pixel_into(op, {}, first3, first3, s);
  return detail::move_last_to(out, ax);
}

}  // namespace

Array lab2lch(const Array& lab, const ChannelOptions& o, const Stream& s) {
  return lch_like("color.lab2lch", "lab", lab, o.channel_axis, Op::lab2lch, s);
}
Array lch2lab(const Array& lch, const ChannelOptions& o, const Stream& s) {
  return lch_like("color.lch2lab", "lch", lch, o.channel_axis, Op::lch2lab, s);
}

Array rgb2yuv(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2yuv", "rgb", rgb, o.channel_axis, Op::linear, with_matrix(yuv_from_rgb), s);
}
Array yuv2rgb(const Array& yuv, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.yuv2rgb", "yuv", yuv, o.channel_axis, Op::linear, with_matrix(rgb_from_yuv), s);
}
Array rgb2yiq(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2yiq", "rgb", rgb, o.channel_axis, Op::linear, with_matrix(yiq_from_rgb), s);
}
Array yiq2rgb(const Array& yiq, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.yiq2rgb", "yiq", yiq, o.channel_axis, Op::linear, with_matrix(rgb_from_yiq), s);
}
Array rgb2ypbpr(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2ypbpr", "rgb", rgb, o.channel_axis, Op::linear, with_matrix(ypbpr_from_rgb), s);
}
Array ypbpr2rgb(const Array& ypbpr, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.ypbpr2rgb", "ypbpr", ypbpr, o.channel_axis, Op::linear, with_matrix(rgb_from_ypbpr), s);
}
Array rgb2ycbcr(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  PixelParams p = with_matrix(ycbcr_from_rgb);
  p.post[0] = 16;
  p.post[1] = 128;
  p.post[2] = 128;
  return rgb_like("color.rgb2ycbcr", "rgb", rgb, o.channel_axis, Op::linear, p, s);
}
Array ycbcr2rgb(const Array& ycbcr, const ChannelOptions& o, const Stream& s) {
  PixelParams p = with_matrix(rgb_from_ycbcr);
  p.has_pre = true;
  p.pre[0] = 16;
  p.pre[1] = 128;
  p.pre[2] = 128;
  return rgb_like("color.ycbcr2rgb", "ycbcr", ycbcr, o.channel_axis, Op::linear, p, s);
}
Array rgb2ydbdr(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.rgb2ydbdr", "rgb", rgb, o.channel_axis, Op::linear, with_matrix(ydbdr_from_rgb), s);
}
Array ydbdr2rgb(const Array& ydbdr, const ChannelOptions& o, const Stream& s) {
  return rgb_like("color.ydbdr2rgb", "ydbdr", ydbdr, o.channel_axis, Op::linear, with_matrix(rgb_from_ydbdr), s);
}

Array convert_colorspace(const Array& arr, std::string_view fromspace, std::string_view tospace,
                         const ChannelOptions& o, const Stream& s) {
  using Fn = Array (*)(const Array&, const ChannelOptions&, const Stream&);
  struct Space {
    const char* name;
    Fn from_rgb, to_rgb;
  };
  static const Space spaces[] = {
      {"rgb", nullptr, nullptr},
      {"hsv", rgb2hsv, hsv2rgb},
      {"rgb cie", rgb2rgbcie, rgbcie2rgb},
      {"xyz", rgb2xyz, xyz2rgb},
      {"yuv", rgb2yuv, yuv2rgb},
      {"yiq", rgb2yiq, yiq2rgb},
      {"ypbpr", rgb2ypbpr, ypbpr2rgb},
      {"ycbcr", rgb2ycbcr, ycbcr2rgb},
      {"ydbdr", rgb2ydbdr, ydbdr2rgb},
  };
  auto find = [&](std::string_view name, const char* arg) -> const Space& {
    std::string low(name);
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const Space& sp : spaces)
      if (low == sp.name) return sp;
    cuskimage::detail::fail("color.convert_colorspace", "argument '", arg,
                            "' must be one of 'rgb', 'hsv', 'rgb cie', 'xyz', 'yuv', 'yiq', 'ypbpr', 'ycbcr', "
                            "'ydbdr', got '", name, "'");
  };
  const Space& from = find(fromspace, "fromspace");
  const Space& to = find(tospace, "tospace");
  cuskimage::detail::expect_valid(arr, "color.convert_colorspace", "arr");
  Array rgb = from.to_rgb ? from.to_rgb(arr, o, s) : arr.share();
  if (to.from_rgb) return to.from_rgb(rgb, o, s);
  return rgb;
}

// ---- stains ---------------------------------------------------------------------------------------

Array separate_stains(const Array& rgb, const Matrix3& conv_matrix, const ChannelOptions& o, const Stream& s) {
  PixelParams p = with_matrix(conv_matrix, /*transpose=*/true);
  p.log_adjust = std::log(1e-6);
  return rgb_like("color.separate_stains", "rgb", rgb, o.channel_axis, Op::separate, p, s);
}
Array combine_stains(const Array& stains, const Matrix3& conv_matrix, const ChannelOptions& o, const Stream& s) {
  PixelParams p = with_matrix(conv_matrix, /*transpose=*/true);
  p.log_adjust = -std::log(1e-6);
  return rgb_like("color.combine_stains", "stains", stains, o.channel_axis, Op::combine, p, s);
}
Array rgb2hed(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return separate_stains(rgb, hed_from_rgb, o, s);
}
Array hed2rgb(const Array& hed, const ChannelOptions& o, const Stream& s) {
  return combine_stains(hed, rgb_from_hed, o, s);
}

// ---- grey and alpha -------------------------------------------------------------------------------

Array rgb2gray(const Array& rgb, const ChannelOptions& o, const Stream& s) {
  return detail::pixel_op("color.rgb2gray", "rgb", rgb, o.channel_axis, Op::rgb2gray, {}, 3, 1, true, s);
}

Array rgba2rgb(const Array& rgba, const Rgba2RgbOptions& o, const Stream& s) {
  for (double v : o.background)
    expect(v >= 0 && v <= 1, "color.rgba2rgb", "background", "values must be floats between 0 and 1, got ", v);
  PixelParams p;
  for (int c = 0; c < 3; ++c) p.bg[c] = o.background[c];
  return detail::pixel_op("color.rgba2rgb", "rgba", rgba, o.channel_axis, Op::rgba2rgb, p, 4, 3, false, s);
}

namespace {

/// np.stack((image,) * 3 [+ (alpha,)], axis): the result and its channel-last view.
Array stack_gray(std::string_view fn, const Array& image, int channel_axis, int channels, int& ax,
                 const Stream& s) {
  cuskimage::detail::expect_valid(image, fn, "image");
  ax = cuskimage::detail::normalize_axis(channel_axis, image.ndim() + 1, fn, "channel_axis");
  Shape cl = image.shape();
  cl.push_back(channels);
  Array out = Array::empty(cl, image.dtype(), image.device(), s);
  // The three colour channels in one copy: the image broadcast along a zero-stride channel axis.
  std::vector<Slice> sl(cl.size());
  sl.back() = Slice{0, 3, 1};
  Array rgb = out.slice(sl);
  Strides st = image.strides();
  st.push_back(0);
  Shape sh = image.shape();
  sh.push_back(3);
  if (image.size() > 0) rgb.copy_from(image.as_strided(sh, st), s);
  return out;
}

}  // namespace

Array gray2rgb(const Array& image, const ChannelOptions& o, const Stream& s) {
  int ax = 0;
  Array out = stack_gray("color.gray2rgb", image, o.channel_axis, 3, ax, s);
  return detail::move_last_to(out, ax);
}

Array gray2rgba(const Array& image, const Gray2RgbaOptions& o, const Stream& s) {
  int ax = 0;
  Array out = stack_gray("color.gray2rgba", image, o.channel_axis, 4, ax, s);
  const double alpha = o.alpha ? *o.alpha : util::dtype_limits(image.dtype()).imax;
  Array a = out.index(out.ndim() - 1, 3);
  if (a.size() > 0) a.fill(alpha, s);
  return detail::move_last_to(out, ax);
}

Array gray2rgba(const Array& image, const Array& alpha, const Gray2RgbaOptions& o, const Stream& s) {
  cuskimage::detail::expect_valid(alpha, "color.gray2rgba", "alpha");
  cuskimage::detail::expect_same_device(image, alpha, "color.gray2rgba", "image", "alpha");
  int ax = 0;
  Array out = stack_gray("color.gray2rgba", image, o.channel_axis, 4, ax, s);
  const Shape b = detail::broadcast_shapes(image.shape(), alpha.shape(), "color.gray2rgba", "alpha and image");
  expect(b == image.shape(), "color.gray2rgba", "alpha", "shape must match image.shape ", shape_str(image.shape()),
         ", got ", shape_str(alpha.shape()));
  Array a = out.index(out.ndim() - 1, 3);
  if (a.size() > 0) a.copy_from(detail::broadcast_to(alpha, image.shape()), s);
  return detail::move_last_to(out, ax);
}

}  // namespace cuskimage::color

// ---- preallocated outputs -------------------------------------------------------------------------

namespace cuskimage::color {

void rgb2lab_into(const Array& rgb, Array& out, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = rgb2lab_params(o);
  detail::pixel_op_into("color.rgb2lab", "rgb", rgb, out, o.channel_axis, Op::rgb2lab, p, 3, 3, false, s);
}
void lab2rgb_into(const Array& lab, Array& out, const IlluminantOptions& o, const Stream& s) {
  const PixelParams p = white_params(rgb_from_xyz, "color.lab2rgb", o);
  detail::pixel_op_into("color.lab2rgb", "lab", lab, out, o.channel_axis, Op::lab2rgb, p, 3, 3, false, s);
}
void rgb2hsv_into(const Array& rgb, Array& out, const ChannelOptions& o, const Stream& s) {
  detail::pixel_op_into("color.rgb2hsv", "rgb", rgb, out, o.channel_axis, Op::rgb2hsv, {}, 3, 3, false, s);
}
void hsv2rgb_into(const Array& hsv, Array& out, const ChannelOptions& o, const Stream& s) {
  detail::pixel_op_into("color.hsv2rgb", "hsv", hsv, out, o.channel_axis, Op::hsv2rgb, {}, 3, 3, false, s);
}
void rgb2gray_into(const Array& rgb, Array& out, const ChannelOptions& o, const Stream& s) {
  detail::pixel_op_into("color.rgb2gray", "rgb", rgb, out, o.channel_axis, Op::rgb2gray, {}, 3, 1, true, s);
}
void separate_stains_into(const Array& rgb, const Matrix3& conv_matrix, Array& out, const ChannelOptions& o,
                          const Stream& s) {
  PixelParams p = with_matrix(conv_matrix, /*transpose=*/true);
  p.log_adjust = std::log(1e-6);
  detail::pixel_op_into("color.separate_stains", "rgb", rgb, out, o.channel_axis, Op::separate, p, 3, 3, false, s);
}
void combine_stains_into(const Array& stains, const Matrix3& conv_matrix, Array& out, const ChannelOptions& o,
                         const Stream& s) {
  PixelParams p = with_matrix(conv_matrix, /*transpose=*/true);
  p.log_adjust = -std::log(1e-6);
  detail::pixel_op_into("color.combine_stains", "stains", stains, out, o.channel_axis, Op::combine, p, 3, 3, false, s);
}
void rgb2hed_into(const Array& rgb, Array& out, const ChannelOptions& o, const Stream& s) {
  separate_stains_into(rgb, hed_from_rgb, out, o, s);
}
void hed2rgb_into(const Array& hed, Array& out, const ChannelOptions& o, const Stream& s) {
  combine_stains_into(hed, rgb_from_hed, out, o, s);
}

}  // namespace cuskimage::color
