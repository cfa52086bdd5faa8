// color.* commands: skimage.color on the command line.
//   cuskimage color.rgb2lab astronaut.png lab.npy
//   cuskimage color.rgb2hed slide.png hed.npy --channel_axis -1
//   cuskimage color.separate_stains slide.png stains.npy --conv_matrix hdx_from_rgb
//   cuskimage color.deltaE_ciede2000 lab1.npy lab2.npy de.npy --kL 2
//   cuskimage color.label2rgb labels.png overlay.png --image astronaut.png --alpha 0.4
//   cuskimage color.xyz_tristimulus_values --illuminant D50 --observer 10   -> [0.967..., 1.0, 0.814...]
#include <algorithm>
#include <map>
#include <sstream>

#include "cuskimage/color.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;

const std::vector<std::string> kIlluminants = {"A", "B", "C", "D50", "D55", "D65", "D75", "E"};
const std::vector<std::string> kObservers = {"2", "10", "R"};

/// The stain matrices by name (hed_from_rgb, rgb_from_hed, ...), or nine comma-separated numbers.
color::Matrix3 matrix(const Invocation& inv, const std::string& name) {
  static const std::map<std::string, color::Matrix3> named = {
      {"hed_from_rgb", color::hed_from_rgb}, {"rgb_from_hed", color::rgb_from_hed},
      {"hdx_from_rgb", color::hdx_from_rgb}, {"rgb_from_hdx", color::rgb_from_hdx},
      {"fgx_from_rgb", color::fgx_from_rgb}, {"rgb_from_fgx", color::rgb_from_fgx},
      {"bex_from_rgb", color::bex_from_rgb}, {"rgb_from_bex", color::rgb_from_bex},
      {"rbd_from_rgb", color::rbd_from_rgb}, {"rgb_from_rbd", color::rgb_from_rbd},
      {"gdx_from_rgb", color::gdx_from_rgb}, {"rgb_from_gdx", color::rgb_from_gdx},
      {"hax_from_rgb", color::hax_from_rgb}, {"rgb_from_hax", color::rgb_from_hax},
      {"bro_from_rgb", color::bro_from_rgb}, {"rgb_from_bro", color::rgb_from_bro},
      {"bpx_from_rgb", color::bpx_from_rgb}, {"rgb_from_bpx", color::rgb_from_bpx},
      {"ahx_from_rgb", color::ahx_from_rgb}, {"rgb_from_ahx", color::rgb_from_ahx},
      {"hpx_from_rgb", color::hpx_from_rgb}, {"rgb_from_hpx", color::rgb_from_hpx},
  };
  const std::string& text = inv.string(name);
  if (const auto it = named.find(text); it != named.end()) return it->second;
  std::vector<double> v;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    try {
      std::size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (used != item.size()) v.clear(), v.resize(10);
    } catch (const std::exception&) {
      v.resize(10);
      break;
    }
  }
  if (v.size() != 9)
    throw UsageError(inv.name() + ": argument '" + name +
                     "' must name a stain matrix (hed_from_rgb, rgb_from_hdx, ...) or give 9 numbers, got '" + text + "'");
  color::Matrix3 m{};
  for (int i = 0; i < 9; ++i) m[i / 3][i % 3] = v[i];
  return m;
}

/// Commands color.NAME that take one image and channel_axis.
template <class F>
void simple(Registry& reg, const char* name, const char* summary, const char* input, F f) {
  reg.add(Command(std::string("color.") + name, summary)
              .input(input, "input image")
              .options<color::ChannelOptions>()
              .returns_image()
              .handler([f](Invocation& inv) -> Result {
                return f(inv.input(0), inv.options<color::ChannelOptions>(), inv.stream());
              }));
}

/// Commands that also take illuminant and observer.
template <class F>
void with_white(Registry& reg, const char* name, const char* summary, const char* input, F f) {
  reg.add(Command(std::string("color.") + name, summary)
              .input(input, "input image")
              .options<color::IlluminantOptions>()
              .choices("illuminant", kIlluminants)
              .choices("observer", kObservers)
              .returns_image()
              .handler([f](Invocation& inv) -> Result {
                return f(inv.input(0), inv.options<color::IlluminantOptions>(), inv.stream());
              }));
}

template <class Opts>
void delta(Registry& reg, const char* name, const char* summary,
           Array (*f)(const Array&, const Array&, const Opts&, const Stream&)) {
  reg.add(Command(std::string("color.") + name, summary)
              .input("lab1", "reference Lab image")
              .input("lab2", "comparison Lab image (broadcast against lab1)")
              .options<Opts>()
              .returns_image()
              .handler([f](Invocation& inv) -> Result {
                return f(inv.input(0), inv.input(1), inv.options<Opts>(), inv.stream());
              }));
}

}  // namespace

/// A colour: a name of color_dict or r,g,b.
template <>
struct Codec<color::Color> {
  static constexpr Kind kind = Kind::string;
  static std::string format(const color::Color& c) {
    return format_list({format_number(c.rgb[0]), format_number(c.rgb[1]), format_number(c.rgb[2])});
  }
  static color::Color read(Invocation& inv, const std::string& name) { return parse(inv.string(name), inv, name); }
  static color::Color parse(const std::string& text, const Invocation& inv, const std::string& name) {
    if (text.find(',') == std::string::npos) return color::Color(text);
    std::vector<double> v;
    std::stringstream is(text);
    try {
      for (std::string x; std::getline(is, x, ',');) v.push_back(std::stod(x));
    } catch (const std::exception&) {
      throw UsageError(inv.name() + ": argument '" + name + "' must be r,g,b or a colour name, got '" + text + "'");
    }
    if (v.size() != 3) throw UsageError(inv.name() + ": argument '" + name + "' must have 3 values (r,g,b)");
    return color::Color(v[0], v[1], v[2]);
  }
  static bool equal(const color::Color& a, const color::Color& b) { return a.rgb == b.rgb; }
};

/// Colours separated by ';' (red;0.1,0.2,0.3); none for the empty list.
template <>
struct Codec<std::vector<color::Color>> {
  static constexpr Kind kind = Kind::string;
  static std::string format(const std::vector<color::Color>& v) {
    std::string s;
    for (const auto& c : v) s += (s.empty() ? "" : ";") + Codec<color::Color>::format(c);
    return s.empty() ? "none" : s;
  }
  static std::vector<color::Color> read(Invocation& inv, const std::string& name) {
    std::vector<color::Color> out;
    if (!inv.has(name)) return out;
    std::stringstream ss(inv.string(name));
    for (std::string item; std::getline(ss, item, ';');) out.push_back(Codec<color::Color>::parse(item, inv, name));
    return out;
  }
  static bool equal(const std::vector<color::Color>& a, const std::vector<color::Color>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), Codec<color::Color>::equal);
  }
};

CUSK_CLI_COMMANDS(color) {
  simple(reg, "rgb2hsv", "RGB to HSV.", "rgb", color::rgb2hsv);
  simple(reg, "hsv2rgb", "HSV to RGB.", "hsv", color::hsv2rgb);
  simple(reg, "rgb2xyz", "sRGB to CIE XYZ (D65).", "rgb", color::rgb2xyz);
  simple(reg, "xyz2rgb", "CIE XYZ to sRGB, clipped to [0, 1].", "xyz", color::xyz2rgb);
  simple(reg, "rgb2rgbcie", "sRGB to CIE RGB.", "rgb", color::rgb2rgbcie);
  simple(reg, "rgbcie2rgb", "CIE RGB to sRGB.", "rgbcie", color::rgbcie2rgb);
  with_white(reg, "xyz2lab", "CIE XYZ to CIE Lab.", "xyz", color::xyz2lab);
  with_white(reg, "lab2xyz", "CIE Lab to CIE XYZ.", "lab", color::lab2xyz);
  with_white(reg, "rgb2lab", "sRGB to CIE Lab.", "rgb", color::rgb2lab);
  with_white(reg, "lab2rgb", "CIE Lab to sRGB.", "lab", color::lab2rgb);
  with_white(reg, "xyz2luv", "CIE XYZ to CIE Luv.", "xyz", color::xyz2luv);
  with_white(reg, "luv2xyz", "CIE Luv to CIE XYZ.", "luv", color::luv2xyz);
  simple(reg, "rgb2luv", "sRGB to CIE Luv (D65, 2 degrees).", "rgb", color::rgb2luv);
  simple(reg, "luv2rgb", "CIE Luv to sRGB (D65, 2 degrees).", "luv", color::luv2rgb);
  simple(reg, "lab2lch", "CIE Lab to CIE LCh (H in [0, 2 pi)).", "lab", color::lab2lch);
  simple(reg, "lch2lab", "CIE LCh to CIE Lab.", "lch", color::lch2lab);
  simple(reg, "rgb2yuv", "RGB to YUV.", "rgb", color::rgb2yuv);
  simple(reg, "yuv2rgb", "YUV to RGB.", "yuv", color::yuv2rgb);
  simple(reg, "rgb2yiq", "RGB to YIQ.", "rgb", color::rgb2yiq);
  simple(reg, "yiq2rgb", "YIQ to RGB.", "yiq", color::yiq2rgb);
  simple(reg, "rgb2ypbpr", "RGB to YPbPr.", "rgb", color::rgb2ypbpr);
  simple(reg, "ypbpr2rgb", "YPbPr to RGB.", "ypbpr", color::ypbpr2rgb);
  simple(reg, "rgb2ycbcr", "RGB to YCbCr (Y in [16, 235]).", "rgb", color::rgb2ycbcr);
  simple(reg, "ycbcr2rgb", "YCbCr to RGB.", "ycbcr", color::ycbcr2rgb);
  simple(reg, "rgb2ydbdr", "RGB to YDbDr.", "rgb", color::rgb2ydbdr);
  simple(reg, "ydbdr2rgb", "YDbDr to RGB.", "ydbdr", color::ydbdr2rgb);
  simple(reg, "rgb2hed", "RGB to Haematoxylin-Eosin-DAB stain space.", "rgb", color::rgb2hed);
  simple(reg, "hed2rgb", "Haematoxylin-Eosin-DAB to RGB.", "hed", color::hed2rgb);
  simple(reg, "rgb2gray", "Luminance 0.2125 R + 0.7154 G + 0.0721 B (no channel axis).", "rgb", color::rgb2gray);

  reg.add(Command("color.convert_colorspace", "Convert between colour spaces (through RGB).")
              .input("arr", "input image")
              .param(Param::choice("fromspace", {"RGB", "HSV", "RGB CIE", "XYZ", "YUV", "YIQ", "YPbPr", "YCbCr", "YDbDr"},
                                   required, "colour space of the input"))
              .param(Param::choice("tospace", {"RGB", "HSV", "RGB CIE", "XYZ", "YUV", "YIQ", "YPbPr", "YCbCr", "YDbDr"},
                                   required, "colour space of the output"))
              .options<color::ChannelOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::convert_colorspace(inv.input(0), inv.string("fromspace"), inv.string("tospace"),
                                                 inv.options<color::ChannelOptions>(), inv.stream());
              }));
  reg.add(Command("color.separate_stains", "RGB to stain space (colour deconvolution).")
              .input("rgb", "input RGB image")
              .param(Param::string("conv_matrix", required,
                                   "stain matrix by name (hed_from_rgb, hdx_from_rgb, ...) or 9 numbers row-major"))
              .options<color::ChannelOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::separate_stains(inv.input(0), matrix(inv, "conv_matrix"),
                                              inv.options<color::ChannelOptions>(), inv.stream());
              }));
  reg.add(Command("color.combine_stains", "Stain space to RGB.")
              .input("stains", "input stain image")
              .param(Param::string("conv_matrix", required,
                                   "stain matrix by name (rgb_from_hed, rgb_from_hdx, ...) or 9 numbers row-major"))
              .options<color::ChannelOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::combine_stains(inv.input(0), matrix(inv, "conv_matrix"),
                                             inv.options<color::ChannelOptions>(), inv.stream());
              }));
  reg.add(Command("color.gray2rgb", "Stack a grey image three times along a new channel axis.")
              .input("image", "grey input image")
              .options<color::ChannelOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::gray2rgb(inv.input(0), inv.options<color::ChannelOptions>(), inv.stream());
              }));
  reg.add(Command("color.gray2rgba", "Grey to RGBA with a constant (--alpha) or per-pixel (ALPHA image) alpha.")
              .input("image", "grey input image")
              .optional_input("alpha", "per-pixel alpha image, broadcast to the image (instead of --alpha)")
              .options<color::Gray2RgbaOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto o = inv.options<color::Gray2RgbaOptions>();
                if (inv.num_inputs() == 1) return color::gray2rgba(inv.input(0), o, inv.stream());
                if (o.alpha) throw UsageError(inv.name() + ": give --alpha or an ALPHA image, not both");
                return color::gray2rgba(inv.input(0), inv.input(1), o, inv.stream());
              }));
  reg.add(Command("color.rgba2rgb", "RGBA to RGB by alpha blending over a background.")
              .input("rgba", "input RGBA image")
              .options<color::Rgba2RgbOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::rgba2rgb(inv.input(0), inv.options<color::Rgba2RgbOptions>(), inv.stream());
              }));

  delta<color::ChannelOptions>(reg, "deltaE_cie76", "Euclidean distance in Lab (CIE 1976).", color::deltaE_cie76);
  delta<color::DeltaE94Options>(reg, "deltaE_ciede94", "CIE 1994 colour difference (lab1 is the reference).",
                                color::deltaE_ciede94);
  delta<color::DeltaE2000Options>(reg, "deltaE_ciede2000", "CIEDE2000 colour difference.", color::deltaE_ciede2000);
  delta<color::DeltaECmcOptions>(reg, "deltaE_cmc", "CMC l:c colour difference (lab1 is the reference).",
                                 color::deltaE_cmc);

  reg.add(Command("color.label2rgb", "Colour a label image, over an optional image.")
              .input("label", "integer label image")
              .param(Param::array("image", "none", "image to overlay (grey or RGB)"))
              .options<color::Label2RgbOptions>()
              .unset_as("bg_color", "image")  // scikit-image's bg_color=None: the image shows there
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto o = inv.options<color::Label2RgbOptions>();
                if (inv.has("image")) return color::label2rgb(inv.input(0), inv.array("image"), o, inv.stream());
                return color::label2rgb(inv.input(0), o, inv.stream());
              }));
  reg.add(Command("color.xyz_tristimulus_values", "XYZ of a reference white (illuminant, observer).")
              .param(Param::choice("illuminant", kIlluminants, "D65", "reference white's illuminant"))
              .param(Param::choice("observer", kObservers, "2", "observer angle (degrees) or 'R'"))
              .returns_value("[X, Y, Z]")
              .handler([](Invocation& inv) -> Result {
                const color::Rgb v = color::xyz_tristimulus_values(inv.string("illuminant"), inv.string("observer"));
                return json::array({v[0], v[1], v[2]});
              }));
  reg.add(Command("color.color_dict", "The named colours as RGB in [0, 1].")
              .returns_value("{name: [r, g, b]}")
              .handler([](Invocation&) -> Result {
                json out = json::object();
                for (const auto& [k, v] : color::color_dict()) out[k] = json::array({v[0], v[1], v[2]});
                return out;
              }));
}

}  // namespace cuskimage::cli
