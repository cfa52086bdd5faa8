// color.* commands: skimage.color on the command line.
//   cuskimage color.rgb2lab astronaut.png lab.npy
//   cuskimage color.rgb2hed slide.png hed.npy --channel_axis -1
//   cuskimage color.separate_stains slide.png stains.npy --conv_matrix hdx_from_rgb
//   cuskimage color.deltaE_ciede2000 lab1.npy lab2.npy de.npy --kL 2
//   cuskimage color.label2rgb labels.png overlay.png --image astronaut.png --alpha 0.4
//   cuskimage color.xyz_tristimulus_values --illuminant D50 --observer 10   -> [0.967..., 1.0, 0.814...]
#include <map>
#include <sstream>

#include "cuskimage/color.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;

Param channel_param() { return Param::integer("channel_axis", "-1", "axis of the colour channels"); }
Param illuminant_param() {
  return Param::choice("illuminant", {"A", "B", "C", "D50", "D55", "D65", "D75", "E"}, "D65",
                       "reference white's illuminant");
}
Param observer_param() { return Param::choice("observer", {"2", "10", "R"}, "2", "observer angle (degrees) or 'R'"); }

int axis(const Invocation& inv) { return static_cast<int>(inv.integer("channel_axis")); }

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

color::Color color_value(const std::vector<double>& v, const Invocation& inv, const std::string& name) {
  if (v.size() != 3) throw UsageError(inv.name() + ": argument '" + name + "' must have 3 values (r,g,b)");
  return color::Color(v[0], v[1], v[2]);
}

/// A colour given as a name of color_dict or as r,g,b.
color::Color parse_color(const std::string& text, const Invocation& inv, const std::string& name) {
  if (text.find(',') == std::string::npos) return color::Color(text);
  std::vector<double> v;
  std::stringstream is(text);
  try {
    for (std::string x; std::getline(is, x, ',');) v.push_back(std::stod(x));
  } catch (const std::exception&) {
    throw UsageError(inv.name() + ": argument '" + name + "' must be r,g,b or a colour name, got '" + text + "'");
  }
  return color_value(v, inv, name);
}

/// Commands color.NAME that take one image and channel_axis.
template <class F>
void simple(Registry& reg, const char* name, const char* summary, const char* input, F f) {
  reg.add(Command(std::string("color.") + name, summary)
              .input(input, "input image")
              .param(channel_param())
              .returns_image()
              .handler([f](Invocation& inv) -> Result {
                return f(inv.input(0), color::ChannelOptions{.channel_axis = axis(inv)}, inv.stream());
              }));
}

/// Commands that also take illuminant and observer.
template <class F>
void with_white(Registry& reg, const char* name, const char* summary, const char* input, F f) {
  reg.add(Command(std::string("color.") + name, summary)
              .input(input, "input image")
              .param(illuminant_param())
              .param(observer_param())
              .param(channel_param())
              .returns_image()
              .handler([f](Invocation& inv) -> Result {
                return f(inv.input(0),
                         color::IlluminantOptions{.illuminant = inv.string("illuminant"),
                                                  .observer = inv.string("observer"),
                                                  .channel_axis = axis(inv)},
                         inv.stream());
              }));
}

template <class Opts, class F>
void delta(Registry& reg, const char* name, const char* summary, std::vector<Param> params, F f) {
  Command c(std::string("color.") + name, summary);
  c.input("lab1", "reference Lab image").input("lab2", "comparison Lab image (broadcast against lab1)");
  for (auto& p : params) c.param(std::move(p));
  c.param(channel_param()).returns_image().handler([f](Invocation& inv) -> Result {
    return f(inv.input(0), inv.input(1), inv);
  });
  reg.add(std::move(c));
}

}  // namespace

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
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::convert_colorspace(inv.input(0), inv.string("fromspace"), inv.string("tospace"),
                                                 {.channel_axis = axis(inv)}, inv.stream());
              }));
  reg.add(Command("color.separate_stains", "RGB to stain space (colour deconvolution).")
              .input("rgb", "input RGB image")
              .param(Param::string("conv_matrix", required,
                                   "stain matrix by name (hed_from_rgb, hdx_from_rgb, ...) or 9 numbers row-major"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::separate_stains(inv.input(0), matrix(inv, "conv_matrix"), {.channel_axis = axis(inv)},
                                              inv.stream());
              }));
  reg.add(Command("color.combine_stains", "Stain space to RGB.")
              .input("stains", "input stain image")
              .param(Param::string("conv_matrix", required,
                                   "stain matrix by name (rgb_from_hed, rgb_from_hdx, ...) or 9 numbers row-major"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::combine_stains(inv.input(0), matrix(inv, "conv_matrix"), {.channel_axis = axis(inv)},
                                             inv.stream());
              }));
  reg.add(Command("color.gray2rgb", "Stack a grey image three times along a new channel axis.")
              .input("image", "grey input image")
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return color::gray2rgb(inv.input(0), {.channel_axis = axis(inv)}, inv.stream());
              }));
  reg.add(Command("color.gray2rgba", "Grey to RGBA with a constant or per-pixel alpha.")
              .input("image", "grey input image")
              .param(Param::string("alpha", "none", "alpha value, or a path to an alpha image (default: dtype maximum)"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const color::Gray2RgbaOptions o{.channel_axis = axis(inv)};
                if (!inv.has("alpha")) return color::gray2rgba(inv.input(0), o, inv.stream());
                const std::string& a = inv.string("alpha");
                try {
                  std::size_t used = 0;
                  const double v = std::stod(a, &used);
                  if (used == a.size())
                    return color::gray2rgba(inv.input(0), {.alpha = v, .channel_axis = o.channel_axis}, inv.stream());
                } catch (const std::exception&) {
                }
                const Array alpha = io::imread(a).to(inv.device(), inv.stream());
                return color::gray2rgba(inv.input(0), alpha, o, inv.stream());
              }));
  reg.add(Command("color.rgba2rgb", "RGBA to RGB by alpha blending over a background.")
              .input("rgba", "input RGBA image")
              .param(Param::numbers("background", "1,1,1", "background colour r,g,b in [0, 1]"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto b = inv.numbers("background");
                if (b.size() != 3) throw UsageError(inv.name() + ": argument 'background' must have 3 values");
                return color::rgba2rgb(inv.input(0), {.background = {b[0], b[1], b[2]}, .channel_axis = axis(inv)},
                                       inv.stream());
              }));

  delta<color::ChannelOptions>(reg, "deltaE_cie76", "Euclidean distance in Lab (CIE 1976).", {},
                               [](const Array& a, const Array& b, Invocation& inv) {
                                 return color::deltaE_cie76(a, b, {.channel_axis = axis(inv)}, inv.stream());
                               });
  delta<color::DeltaE94Options>(
      reg, "deltaE_ciede94", "CIE 1994 colour difference (lab1 is the reference).",
      {Param::number("kH", "1", "hue weight"), Param::number("kC", "1", "chroma weight"),
       Param::number("kL", "1", "lightness weight"), Param::number("k1", "0.045", "first chroma coefficient"),
       Param::number("k2", "0.015", "second chroma coefficient")},
      [](const Array& a, const Array& b, Invocation& inv) {
        return color::deltaE_ciede94(a, b,
                                     {.kH = inv.number("kH"), .kC = inv.number("kC"), .kL = inv.number("kL"),
                                      .k1 = inv.number("k1"), .k2 = inv.number("k2"), .channel_axis = axis(inv)},
                                     inv.stream());
      });
  delta<color::DeltaE2000Options>(
      reg, "deltaE_ciede2000", "CIEDE2000 colour difference.",
      {Param::number("kL", "1", "lightness weight"), Param::number("kC", "1", "chroma weight"),
       Param::number("kH", "1", "hue weight")},
      [](const Array& a, const Array& b, Invocation& inv) {
        return color::deltaE_ciede2000(
            a, b, {.kL = inv.number("kL"), .kC = inv.number("kC"), .kH = inv.number("kH"), .channel_axis = axis(inv)},
            inv.stream());
      });
  delta<color::DeltaECmcOptions>(
      reg, "deltaE_cmc", "CMC l:c colour difference (lab1 is the reference).",
      {Param::number("kL", "1", "lightness weight"), Param::number("kC", "1", "chroma weight")},
      [](const Array& a, const Array& b, Invocation& inv) {
        return color::deltaE_cmc(a, b, {.kL = inv.number("kL"), .kC = inv.number("kC"), .channel_axis = axis(inv)},
                                 inv.stream());
      });

  reg.add(Command("color.label2rgb", "Colour a label image, over an optional image.")
              .input("label", "integer label image")
              .param(Param::array("image", "none", "image to overlay (grey or RGB)"))
              .param(Param::string("colors", "none", "colours cycled over the labels: names separated by ';' "
                                                     "(red;blue) or r,g,b triples (1,0,0;0,0,1)"))
              .param(Param::number("alpha", "0.3", "opacity of the colours over the image"))
              .param(Param::integer("bg_label", "0", "background label"))
              .param(Param::string("bg_color", "0,0,0",
                                   "background colour r,g,b or a name; 'image' shows the image there (scikit-image's "
                                   "bg_color=None, which the command line reserves for unset parameters)"))
              .param(Param::number("image_alpha", "1", "opacity of the image"))
              .param(Param::choice("kind", {"overlay", "avg"}, "overlay", "colour by palette or by label mean"))
              .param(Param::number("saturation", "0", "saturation factor of the image"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                color::Label2RgbOptions o;
                if (inv.has("colors")) {
                  std::stringstream ss(inv.string("colors"));
                  for (std::string item; std::getline(ss, item, ';');) o.colors.push_back(parse_color(item, inv, "colors"));
                }
                o.alpha = inv.number("alpha");
                o.bg_label = inv.integer("bg_label");
                const std::string& bg = inv.string("bg_color");
                if (bg == "image")
                  o.bg_color = std::nullopt;
                else
                  o.bg_color = parse_color(bg, inv, "bg_color");
                o.image_alpha = inv.number("image_alpha");
                o.kind = inv.string("kind") == "avg" ? color::Label2RgbKind::avg : color::Label2RgbKind::overlay;
                o.saturation = inv.number("saturation");
                o.channel_axis = axis(inv);
                if (inv.has("image")) return color::label2rgb(inv.input(0), inv.array("image"), o, inv.stream());
                return color::label2rgb(inv.input(0), o, inv.stream());
              }));
  reg.add(Command("color.xyz_tristimulus_values", "XYZ of a reference white (illuminant, observer).")
              .param(illuminant_param())
              .param(observer_param())
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
