// skimage.color: colour-space conversions, stain separation, grey/RGBA helpers, label colouring and
// colour differences. Every function runs on CPU arrays (OpenMP) and on CUDA arrays (CUDA kernels,
// asynchronous on `stream`); the input's device picks the backend.
//
// dtype rules are scikit-image 0.26's (`_supported_float_type` + img_as_float): float32 input gives a
// float32 result, every other dtype is read with img_as_float semantics (uint8 x -> x / 255, int16
// -> [-1, 1], bool -> 0/1) and gives float64. uint8, uint16, float32 and float64 are read directly
// by the kernels; other dtypes go through util::img_as_float64 first. Exceptions, as noted below:
// gray2rgb/gray2rgba keep the dtype; deltaE_* cast with astype (not img_as_float); stain functions
// keep float32 (cuCIM's rule; scikit-image 0.26 returns float64 there because of NumPy 2's scalar
// promotion); label2rgb follows scikit-image.
//
// Precision against scikit-image (tests/color): float64 results agree to ~1e-12 relative (libm
// differences in pow/cbrt/log/atan2 and the 3x3 products' summation order), float32 results to
// ~1e-5 relative. channel_axis may be negative; the channel axis must have 3 entries (4 for
// rgba2rgb, >= 3 for lab2lch/lch2lab/deltaE). A result for channel_axis != -1 is the transpose
// (a strided view) of a channel-last contiguous array, as NumPy's moveaxis returns.
//
// skimage's warnings (negative Z clipped in lab2xyz/lab2rgb, saturation outside [0, 1]) are not
// reported; the values are computed as scikit-image computes them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"

namespace cuskimage::color {

using Matrix3 = std::array<std::array<double, 3>, 3>;
using Rgb = std::array<double, 3>;

// ---- conversion matrices (scikit-image's module constants, bit-identical) -----------------------
// *_from_rgb = inverse of rgb_from_*; the stain matrices' rows are the stains' RGB absorbances
// (rows of zeros in Landini's tables replaced by the cross product of the first two, as scikit-image).
inline constexpr Matrix3 xyz_from_rgb = {{
    {0.412453, 0.35758, 0.180423},
    {0.212671, 0.71516, 0.072169},
    {0.019334, 0.119193, 0.950227}}};
inline constexpr Matrix3 rgb_from_xyz = {{
    {3.2404813432005266, -1.5371515162713183, -0.4985363261688878},
    {-0.9692549499965682, 1.8759900014898907, 0.04155592655829284},
    {0.055646639135177166, -0.20404133836651123, 1.0573110696453443}}};
inline constexpr Matrix3 xyz_from_rgbcie = {{
    {2.768830875289597, 1.7517093292648473, 1.1301350511386112},
    {1.0, 4.590608577725039, 0.060066677968017186},
    {0.0, 0.05650675255693056, 5.5941685031361255}}};
inline constexpr Matrix3 rgbcie_from_xyz = {{
    {0.41846571242189445, -0.15866078480379903, -0.08283492761809545},
    {-0.09116896390902272, 0.2524314421394651, 0.015707521769557604},
    {0.0009208986253436636, -0.002549812546863283, 0.17859891392151958}}};
inline constexpr Matrix3 rgbcie_from_rgb = {{
    {0.13725336022997064, 0.026293779059952442, -0.014661535711969898},
    {0.016385623785966662, 0.14980089868815039, 0.016694458060926863},
    {0.0032905876183235683, 0.019793511336483324, 0.1696916440498896}}};
inline constexpr Matrix3 rgb_from_rgbcie = {{
    {7.435193277582204, -1.4082502044885843, 0.7809537498725337},
    {-0.8077130300878821, 6.916431044680082, -0.7502336497189704},
    {-0.04996520582293429, -0.7794519662123264, 5.965408415828052}}};
inline constexpr Matrix3 gray_from_rgb = {{
    {0.2125, 0.7154, 0.0721},
    {0.0, 0.0, 0.0},
    {0.0, 0.0, 0.0}}};
inline constexpr Matrix3 yuv_from_rgb = {{
    {0.299, 0.587, 0.114},
    {-0.14714119, -0.28886916, 0.43601035},
    {0.61497538, -0.51496512, -0.10001026}}};
inline constexpr Matrix3 rgb_from_yuv = {{
    {1.0000000000000002, -4.182779605511789e-09, 1.1398830297637945},
    {1.0, -0.3946423339441288, -0.5806218496761879},
    {1.0000000000000002, 2.0320618532969705, -1.2232658219701875e-09}}};
inline constexpr Matrix3 yiq_from_rgb = {{
    {0.299, 0.587, 0.114},
    {0.59590059, -0.27455667, -0.32134392},
    {0.21153661, -0.52273617, 0.31119955}}};
inline constexpr Matrix3 rgb_from_yiq = {{
    {1.0000000062082481, 0.9559863415731352, 0.6208247979787564},
    {0.9999999935279578, -0.27201283148102595, -0.6472042418461061},
    {1.000000017042305, -1.1067402109737305, 1.7042304856843515}}};
inline constexpr Matrix3 ypbpr_from_rgb = {{
    {0.299, 0.587, 0.114},
    {-0.168736, -0.331264, 0.5},
    {0.5, -0.418688, -0.081312}}};
inline constexpr Matrix3 rgb_from_ypbpr = {{
    {1.0, -1.218894188684273e-06, 1.4019995886573404},
    {1.0, -0.34413567816533663, -0.7141361555818124},
    {0.9999999999999998, 1.7720000660738162, 4.0629806308256633e-07}}};
inline constexpr Matrix3 ycbcr_from_rgb = {{
    {65.481, 128.553, 24.966},
    {-37.797, -74.203, 112.0},
    {112.0, -93.786, -18.214}}};
inline constexpr Matrix3 rgb_from_ycbcr = {{
    {0.004566210045662101, 1.1808799897946412e-09, 0.006258928969943936},
    {0.004566210045662101, -0.0015363236860449021, -0.003188110949655707},
    {0.004566210045662101, 0.007910716233554741, 1.1977497040190077e-08}}};
inline constexpr Matrix3 ydbdr_from_rgb = {{
    {0.299, 0.587, 0.114},
    {-0.45, -0.883, 1.333},
    {-1.333, 1.116, 0.217}}};
inline constexpr Matrix3 rgb_from_ydbdr = {{
    {1.0000000000000002, 9.230371614765698e-05, -0.5259126306618653},
    {1.0, -0.12913289889050927, 0.26789932820759876},
    {1.0000000000000002, 0.6646790599789548, -7.920254353310785e-05}}};
inline constexpr Matrix3 rgb_from_hed = {{
    {0.65, 0.7, 0.29},
    {0.07, 0.99, 0.11},
    {0.27, 0.57, 0.78}}};
inline constexpr Matrix3 hed_from_rgb = {{
    {1.8779827368521356, -1.0076786862855642, -0.5561158181996246},
    {-0.06590806222356334, 1.1347303724996625, -0.13552179862837116},
    {-0.6019073634392891, -0.4804141884970579, 1.5735880719641926}}};
inline constexpr Matrix3 rgb_from_hdx = {{
    {0.65, 0.704, 0.286},
    {0.268, 0.57, 0.776},
    {0.38328400000000007, -0.4277520000000001, 0.181828}}};
inline constexpr Matrix3 hdx_from_rgb = {{
    {1.2001370152970128, -0.6897672021124063, 1.05605386664475},
    {0.6852333815986897, 0.023609908678645788, -1.1785755564151525},
    {-0.9178089531067686, 1.5095360337877535, 0.5009866377523758}}};
inline constexpr Matrix3 rgb_from_fgx = {{
    {0.46420921, 0.83008335, 0.30827187},
    {0.94705542, 0.25373821, 0.19650764},
    {0.08489736762464131, 0.200729888993671, -0.6683473216583429}}};
inline constexpr Matrix3 fgx_from_rgb = {{
    {-0.422976939696932, 1.2478310283227245, 0.17179157394142303},
    {1.3145699209566477, -0.6807618165200487, 0.40618106935627823},
    {0.3410858967702799, -0.04595166812376393, -1.3524145864552817}}};
inline constexpr Matrix3 rgb_from_bex = {{
    {0.834750233, 0.513556283, 0.196330403},
    {0.092789, 0.954111, 0.283111},
    {-0.04192756430031999, -0.218109671450896, 0.7487920056145759}}};
inline constexpr Matrix3 bex_from_rgb = {{
    {1.2723860408068295, -0.7005818617793117, -0.06873154668730173},
    {-0.13335615302779313, 1.0381409945753772, -0.357545574527087},
    {0.03240122842657424, 0.26316373400303317, 1.2274892079190902}}};
inline constexpr Matrix3 rgb_from_rbd = {{
    {0.21393921, 0.85112669, 0.47794022},
    {0.74890292, 0.60624161, 0.26731082},
    {0.268, 0.57, 0.776}}};
inline constexpr Matrix3 rbd_from_rgb = {{
    {-1.329529765268373, 1.6220065562422237, 0.26012351277632695},
    {2.129702279687234, -0.15853909548376044, -1.2570762377221596},
    {-1.105175673105411, -0.4437248358855317, 2.1221911779350195}}};
inline constexpr Matrix3 rgb_from_gdx = {{
    {0.98003, 0.144316, 0.133146},
    {0.268, 0.57, 0.776},
    {0.03609599600000002, -0.724820152, 0.519940412}}};
inline constexpr Matrix3 gdx_from_rgb = {{
    {1.0775669552047469, -0.21523400754329763, 0.045289536055350466},
    {-0.13968984985707972, 0.6333097461309045, -0.9094296333490446},
    {-0.26954217728909374, 0.8978043282564281, 0.652367648641909}}};
inline constexpr Matrix3 rgb_from_hax = {{
    {0.65, 0.704, 0.286},
    {0.2743, 0.6796, 0.6803},
    {0.28456560000000003, -0.3637452, 0.24863280000000004}}};
inline constexpr Matrix3 hax_from_rgb = {{
    {1.5136931727740504, -1.014402419002445, 1.0343837105723173},
    {0.4557872565435474, 0.29161645251755025, -1.3221981493155526},
    {-1.065646122062203, 1.5876349292980207, 0.9037695288326664}}};
inline constexpr Matrix3 rgb_from_bro = {{
    {0.853033, 0.508733, 0.112656},
    {0.09289875, 0.8662008, 0.49098468},
    {0.10732849, 0.36765403, 0.9237484}}};
inline constexpr Matrix3 bro_from_rgb = {{
    {1.2267688900350686, -0.8483946711115434, 0.3013222107162683},
    {-0.06556825726781024, 1.5361294773466845, -0.8084770509836517},
    {-0.1164395180785728, -0.5128098451633083, 1.3693115875242827}}};
inline constexpr Matrix3 rgb_from_bpx = {{
    {0.7995107, 0.5913521, 0.10528667},
    {0.09997159, 0.73738605, 0.6680326},
    {0.3174055591695065, -0.5235735358431147, 0.530429627318896}}};
inline constexpr Matrix3 bpx_from_rgb = {{
    {1.1290162395802812, -0.5619910021247156, 0.48367952480604165},
    {0.24230695776056788, 0.5953170656142875, -0.797849286824797},
    {-0.4364207960468451, 0.9239139445248491, 0.8082969647914633}}};
inline constexpr Matrix3 rgb_from_ahx = {{
    {0.874622, 0.457711, 0.158256},
    {0.552556, 0.7544, 0.353744},
    {0.042524193584, -0.221946982432, 0.406903877484}}};
inline constexpr Matrix3 ahx_from_rgb = {{
    {1.7793644983916623, -1.0218302109280823, 0.19629008838878242},
    {-0.9684035743867276, 1.6116973914616244, -1.024498976403701},
    {-0.7141742990862209, 0.9858934763866756, 1.878253091838165}}};
inline constexpr Matrix3 rgb_from_hpx = {{
    {0.644211, 0.716556, 0.266844},
    {0.175411, 0.972178, 0.154589},
    {-0.14864819074800004, -0.05278056139499999, 0.5005959570419999}}};
inline constexpr Matrix3 hpx_from_rgb = {{
    {1.796248629320238, -1.3532430626886411, -0.5396001977732555},
    {-0.40217098263123624, 1.3146414393882129, -0.19159601757688152},
    {0.49097939203162966, -0.2632254972363925, 1.817187791288268}}};

// ---- illuminants and observers -----------------------------------------------------------------

/// skimage.color.xyz_tristimulus_values: XYZ of the reference white of `illuminant` ("A", "B", "C",
/// "D50", "D55", "D65", "D75", "E"; any case) for `observer` ("2", "10" or "R"). InvalidArgument for
/// an unknown combination.
Rgb xyz_tristimulus_values(std::string_view illuminant, std::string_view observer);
/// cuCIM's / older scikit-image's name for the same values.
Rgb get_xyz_coords(std::string_view illuminant = "D65", std::string_view observer = "2");

// ---- options ------------------------------------------------------------------------------------

struct ChannelOptions {
  /// Axis of the colour channels (negative counts from the end).
  int channel_axis = -1;
};
CUSK_OPTIONS(ChannelOptions,
             (channel_axis, "axis of the colour channels"))

/// Conversions through CIE XYZ that depend on the reference white.
struct IlluminantOptions {
  std::string illuminant = "D65";
  std::string observer = "2";
  int channel_axis = -1;
};
CUSK_OPTIONS(IlluminantOptions,
             (illuminant, "reference white's illuminant"),
             (observer, "observer angle (degrees) or 'R'"),
             (channel_axis, "axis of the colour channels"))

// ---- RGB <-> other spaces (3 channels in, 3 out) -----------------------------------------------

Array rgb2hsv(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array hsv2rgb(const Array& hsv, const ChannelOptions& opts = {}, const Stream& stream = {});
/// sRGB (gamma-encoded, [0, 1]) -> CIE XYZ (D65).
Array rgb2xyz(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
/// CIE XYZ -> sRGB, clipped to [0, 1].
Array xyz2rgb(const Array& xyz, const ChannelOptions& opts = {}, const Stream& stream = {});
Array rgb2rgbcie(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array rgbcie2rgb(const Array& rgbcie, const ChannelOptions& opts = {}, const Stream& stream = {});
Array xyz2lab(const Array& xyz, const IlluminantOptions& opts = {}, const Stream& stream = {});
/// Negative Z (b too large) is clipped to 0 as scikit-image does (which also warns).
Array lab2xyz(const Array& lab, const IlluminantOptions& opts = {}, const Stream& stream = {});
/// rgb2xyz then xyz2lab in one pass (no intermediate array).
Array rgb2lab(const Array& rgb, const IlluminantOptions& opts = {}, const Stream& stream = {});
/// lab2xyz then xyz2rgb in one pass.
Array lab2rgb(const Array& lab, const IlluminantOptions& opts = {}, const Stream& stream = {});
Array xyz2luv(const Array& xyz, const IlluminantOptions& opts = {}, const Stream& stream = {});
Array luv2xyz(const Array& luv, const IlluminantOptions& opts = {}, const Stream& stream = {});
/// D65, 2 degrees (scikit-image's rgb2luv takes no illuminant).
Array rgb2luv(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array luv2rgb(const Array& luv, const ChannelOptions& opts = {}, const Stream& stream = {});
/// (L, a, b, ...) -> (L, C, H, ...), H in [0, 2 pi). At least 3 channels; extra channels are
/// copied (converted to the float dtype).
Array lab2lch(const Array& lab, const ChannelOptions& opts = {}, const Stream& stream = {});
Array lch2lab(const Array& lch, const ChannelOptions& opts = {}, const Stream& stream = {});
Array rgb2yuv(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array yuv2rgb(const Array& yuv, const ChannelOptions& opts = {}, const Stream& stream = {});
Array rgb2yiq(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array yiq2rgb(const Array& yiq, const ChannelOptions& opts = {}, const Stream& stream = {});
Array rgb2ypbpr(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array ypbpr2rgb(const Array& ypbpr, const ChannelOptions& opts = {}, const Stream& stream = {});
/// Y in [16, 235], Cb/Cr in [16, 240] for RGB in [0, 1].
Array rgb2ycbcr(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
/// The offsets (16, 128, 128) are subtracted in the input's dtype first, as scikit-image does (an
/// integer input wraps), then the result is read with img_as_float.
Array ycbcr2rgb(const Array& ycbcr, const ChannelOptions& opts = {}, const Stream& stream = {});
Array rgb2ydbdr(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
Array ydbdr2rgb(const Array& ydbdr, const ChannelOptions& opts = {}, const Stream& stream = {});

/// skimage.color.convert_colorspace through RGB. Spaces (any case): "RGB", "HSV", "RGB CIE",
/// "XYZ", "YUV", "YIQ", "YPbPr", "YCbCr", "YDbDr". InvalidArgument for others.
Array convert_colorspace(const Array& arr, std::string_view fromspace, std::string_view tospace,
                         const ChannelOptions& opts = {}, const Stream& stream = {});

// ---- stains (colour deconvolution, Ruifrok & Johnston) -----------------------------------------

/// stains = max(log(max(rgb, 1e-6)) / log(1e-6) @ conv_matrix, 0). float32 input stays float32.
Array separate_stains(const Array& rgb, const Matrix3& conv_matrix, const ChannelOptions& opts = {},
                      const Stream& stream = {});
/// rgb = clip(exp(-(stains * -log(1e-6)) @ conv_matrix), 0, 1). float32 input stays float32.
Array combine_stains(const Array& stains, const Matrix3& conv_matrix, const ChannelOptions& opts = {},
                     const Stream& stream = {});
/// separate_stains(rgb, hed_from_rgb).
Array rgb2hed(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
/// combine_stains(hed, rgb_from_hed).
Array hed2rgb(const Array& hed, const ChannelOptions& opts = {}, const Stream& stream = {});

// ---- grey and alpha -----------------------------------------------------------------------------

/// 0.2125 R + 0.7154 G + 0.0721 B; the result has no channel axis.
Array rgb2gray(const Array& rgb, const ChannelOptions& opts = {}, const Stream& stream = {});
/// Three copies of `image` stacked along channel_axis of the result (range [-(ndim+1), ndim]);
/// same dtype.
Array gray2rgb(const Array& image, const ChannelOptions& opts = {}, const Stream& stream = {});

struct Gray2RgbaOptions {
  /// Alpha value, cast to the image dtype (as astype); default: the dtype's maximum (1 for floats).
  std::optional<double> alpha = std::nullopt;
  int channel_axis = -1;
};
CUSK_OPTIONS(Gray2RgbaOptions,
             (alpha, "alpha value (default: the dtype's maximum)"),
             (channel_axis, "axis of the colour channels"))
/// (image, image, image, alpha) stacked along channel_axis of the result; same dtype.
Array gray2rgba(const Array& image, const Gray2RgbaOptions& opts = {}, const Stream& stream = {});
/// As above with a per-pixel alpha (broadcast to image's shape as NumPy does; cast as astype).
Array gray2rgba(const Array& image, const Array& alpha, const Gray2RgbaOptions& opts = {},
                const Stream& stream = {});

struct Rgba2RgbOptions {
  /// Background colour blended under the image; each value in [0, 1].
  Rgb background = {1.0, 1.0, 1.0};
  int channel_axis = -1;
};
CUSK_OPTIONS(Rgba2RgbOptions,
             (background, "background colour r,g,b in [0, 1]"),
             (channel_axis, "axis of the colour channels"))
/// clip((1 - alpha) * background + alpha * rgb, 0, 1).
Array rgba2rgb(const Array& rgba, const Rgba2RgbOptions& opts = {}, const Stream& stream = {});

// ---- colour differences -------------------------------------------------------------------------
// lab1 and lab2 broadcast against each other (NumPy rules); the first three entries along
// channel_axis are L, a, b. Values are cast with astype to float32 when both are float32, else to
// float64. The result has the broadcast shape without the channel axis.

Array deltaE_cie76(const Array& lab1, const Array& lab2, const ChannelOptions& opts = {},
                   const Stream& stream = {});

struct DeltaE94Options {
  double kH = 1.0, kC = 1.0, kL = 1.0, k1 = 0.045, k2 = 0.015;
  int channel_axis = -1;
};
CUSK_OPTIONS(DeltaE94Options,
             (kH, "hue weight"),
             (kC, "chroma weight"),
             (kL, "lightness weight"),
             (k1, "first chroma coefficient"),
             (k2, "second chroma coefficient"),
             (channel_axis, "axis of the colour channels"))
/// CIE 1994; not symmetric (lab1 is the reference).
Array deltaE_ciede94(const Array& lab1, const Array& lab2, const DeltaE94Options& opts = {},
                     const Stream& stream = {});

struct DeltaE2000Options {
  double kL = 1.0, kC = 1.0, kH = 1.0;
  int channel_axis = -1;
};
CUSK_OPTIONS(DeltaE2000Options,
             (kL, "lightness weight"),
             (kC, "chroma weight"),
             (kH, "hue weight"),
             (channel_axis, "axis of the colour channels"))
Array deltaE_ciede2000(const Array& lab1, const Array& lab2, const DeltaE2000Options& opts = {},
                       const Stream& stream = {});

struct DeltaECmcOptions {
  double kL = 1.0, kC = 1.0;
  int channel_axis = -1;
};
CUSK_OPTIONS(DeltaECmcOptions,
             (kL, "lightness weight"),
             (kC, "chroma weight"),
             (channel_axis, "axis of the colour channels"))
/// CMC l:c; not symmetric (lab1 is the reference).
Array deltaE_cmc(const Array& lab1, const Array& lab2, const DeltaECmcOptions& opts = {},
                 const Stream& stream = {});

// ---- preallocated outputs (tiles, hot loops) ----------------------------------------------------
// The same conversions written into `out`: the result's shape (channel_axis where the result has
// one), the result's dtype (float32 for float32 input, else float64), any strides, the input's
// device. InvalidArgument otherwise.

void rgb2lab_into(const Array& rgb, Array& out, const IlluminantOptions& opts = {}, const Stream& stream = {});
void lab2rgb_into(const Array& lab, Array& out, const IlluminantOptions& opts = {}, const Stream& stream = {});
void rgb2hsv_into(const Array& rgb, Array& out, const ChannelOptions& opts = {}, const Stream& stream = {});
void hsv2rgb_into(const Array& hsv, Array& out, const ChannelOptions& opts = {}, const Stream& stream = {});
void rgb2gray_into(const Array& rgb, Array& out, const ChannelOptions& opts = {}, const Stream& stream = {});
void separate_stains_into(const Array& rgb, const Matrix3& conv_matrix, Array& out, const ChannelOptions& opts = {},
                          const Stream& stream = {});
void combine_stains_into(const Array& stains, const Matrix3& conv_matrix, Array& out,
                         const ChannelOptions& opts = {}, const Stream& stream = {});
void rgb2hed_into(const Array& rgb, Array& out, const ChannelOptions& opts = {}, const Stream& stream = {});
void hed2rgb_into(const Array& hed, Array& out, const ChannelOptions& opts = {}, const Stream& stream = {});

// ---- label2rgb ----------------------------------------------------------------------------------

/// skimage.color.color_dict: the named colours (matplotlib's CSS names) as RGB in [0, 1].
const std::map<std::string, Rgb>& color_dict();

/// A colour given by a name of color_dict() or an RGB triple: {"red"} or {1.0, 0.5, 0.0}.
struct Color {
  Rgb rgb{};
  Color(double r, double g, double b) : rgb{r, g, b} {}
  Color(const Rgb& v) : rgb(v) {}                 // NOLINT(google-explicit-constructor)
  Color(std::string_view name);                   // NOLINT(google-explicit-constructor)
  Color(const char* name) : Color(std::string_view(name)) {}  // NOLINT(google-explicit-constructor)
  Color(const std::string& name) : Color(std::string_view(name)) {}  // NOLINT
};

enum class Label2RgbKind { overlay, avg };
CUSK_ENUM(Label2RgbKind, overlay, avg)

struct Label2RgbOptions {
  /// Colours cycled over the labels in increasing order; empty: scikit-image's DEFAULT_COLORS
  /// (red, blue, yellow, magenta, green, indigo, darkorange, cyan, pink, yellowgreen).
  std::vector<Color> colors = {};
  /// Opacity of the colours over the image (ignored without an image: colours are opaque).
  double alpha = 0.3;
  /// Label treated as background.
  std::int64_t bg_label = 0;
  /// Background colour; std::nullopt (scikit-image's None) leaves the image visible there.
  std::optional<Color> bg_color = Color(0.0, 0.0, 0.0);
  /// Opacity of the image (overlay).
  double image_alpha = 1.0;
  Label2RgbKind kind = Label2RgbKind::overlay;
  /// Saturation factor applied to an RGB image before the overlay.
  double saturation = 0.0;
  /// Channel axis of `image` and of the result.
  int channel_axis = -1;
};
CUSK_OPTIONS(Label2RgbOptions,
             (colors, "colours cycled over the labels: names or r,g,b triples separated by ';' (red;0,0,1)"),
             (alpha, "opacity of the colours over the image"),
             (bg_label, "background label"),
             (bg_color, "background colour r,g,b or a name; 'image' (None) shows the image there"),
             (image_alpha, "opacity of the image"),
             (kind, "colour by palette or by label mean"),
             (saturation, "saturation factor of the image"),
             (channel_axis, "axis of the colour channels"))

/// Colours of a label image (integer or bool dtype; any shape). overlay: float64 result of shape
/// label.shape + (3,), each label's colour (bg_label: bg_color) opaque. Labels are ranked among
/// the distinct values of the whole image, as scikit-image does (no host round trip on CUDA).
Array label2rgb(const Array& label, const Label2RgbOptions& opts = {}, const Stream& stream = {});
/// With an image (label.shape, or label.shape + (3,) RGB): overlay blends the colours over the
/// image (float64 result); avg paints each label with the mean colour of its pixels (the image's
/// dtype, integer means truncated; bg_label gets bg_color). `avg` on CUDA synchronizes once to
/// size its per-label sums.
Array label2rgb(const Array& label, const Array& image, const Label2RgbOptions& opts = {},
                const Stream& stream = {});

}  // namespace cuskimage::color
