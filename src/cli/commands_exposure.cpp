// exposure.* commands: skimage.exposure on the command line. Functions returning host values print
// JSON: histogram and cumulative_distribution print [values, bin_centers], is_low_contrast a bool.
//   cuskimage exposure.equalize_adapthist camera.png out.npy --clip_limit 0.03
//   cuskimage exposure.rescale_intensity img.tif out.tif --in_range 50,180 --out_range uint8
//   cuskimage exposure.is_low_contrast camera.png        -> false
#include <cstdlib>
#include <string>

#include "cuskimage/exposure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;

std::optional<int> channel_axis(const Invocation& inv) {
  if (auto c = inv.opt_integer("channel_axis")) return static_cast<int>(*c);
  return std::nullopt;
}

Param channel_param(const std::string& help) { return Param::integer("channel_axis", "none", help); }

/// 'image', 'dtype', a dtype name, or "min,max".
exposure::IntensityRange range_value(const Invocation& inv, const std::string& name) {
  const std::string& s = inv.string(name);
  const auto comma = s.find(',');
  if (comma == std::string::npos) return exposure::IntensityRange(s);
  char* end = nullptr;
  const double lo = std::strtod(s.c_str(), &end);
  const double hi = std::strtod(s.c_str() + comma + 1, nullptr);
  if (end != s.c_str() + comma) throw UsageError(inv.name() + ": argument '" + name + "' must be 'image', 'dtype', a dtype name or MIN,MAX, got '" + s + "'");
  return exposure::IntensityRange(lo, hi);
}

}  // namespace

CUSK_CLI_COMMANDS(exposure) {
  reg.add(Command("exposure.histogram", "Histogram of an image: [hist, bin_centers].")
              .input("image", "input image")
              .param(Param::integer("nbins", "256", "number of bins (ignored for integer images)"))
              .param(Param::choice("source_range", {"image", "dtype"}, "image", "range of the bins"))
              .param(Param::boolean("normalize", "false", "divide by the sum of the counts"))
              .param(channel_param("axis of the channels (one histogram per channel)"))
              .returns_value("[hist, bin_centers]")
              .handler([](Invocation& inv) -> Result {
                const auto r = exposure::histogram(
                    inv.input(0),
                    {.nbins = inv.integer("nbins"),
                     .source_range = exposure::source_range_from_name(inv.string("source_range")),
                     .normalize = inv.flag("normalize"),
                     .channel_axis = channel_axis(inv)},
                    inv.stream());
                return json::array({array_to_json(r.hist), array_to_json(r.bin_centers)});
              }));
  reg.add(Command("exposure.cumulative_distribution", "Cumulative distribution function: [cdf, bin_centers].")
              .input("image", "input image")
              .param(Param::integer("nbins", "256", "number of bins (ignored for integer images)"))
              .returns_value("[cdf, bin_centers]")
              .handler([](Invocation& inv) -> Result {
                const auto r = exposure::cumulative_distribution(inv.input(0), {.nbins = inv.integer("nbins")}, inv.stream());
                return json::array({array_to_json(r.cdf), array_to_json(r.bin_centers)});
              }));
  reg.add(Command("exposure.equalize_hist", "Histogram equalization.")
              .input("image", "input image")
              .param(Param::integer("nbins", "256", "number of bins (ignored for integer images)"))
              .param(Param::array("mask", "none", "pixels whose histogram is used (non-zero entries)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                exposure::EqualizeHistOptions o{.nbins = inv.integer("nbins")};
                if (inv.has("mask")) o.mask = inv.array("mask").share();
                return exposure::equalize_hist(inv.input(0), o, inv.stream());
              }));
  reg.add(Command("exposure.equalize_adapthist", "Contrast Limited Adaptive Histogram Equalization (CLAHE).")
              .input("image", "2-D or 3-D grey image, or RGB(A)")
              .param(Param::ints("kernel_size", "none", "contextual region per axis (default 1/8 of each extent)"))
              .param(Param::number("clip_limit", "0.01", "normalized clip limit (0: no clipping)"))
              .param(Param::integer("nbins", "256", "grey bins of the region histograms"))
              .param(channel_param("axis of RGB(A) channels (default: a 3-D image with 3 or 4 entries last is RGB)"))
              .param(Param::boolean("detect_rgb", "true", "treat (M, N, 3|4) images as RGB when channel_axis is unset"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                exposure::EqualizeAdapthistOptions o{.clip_limit = inv.number("clip_limit"),
                                                     .nbins = inv.integer("nbins"),
                                                     .channel_axis = channel_axis(inv),
                                                     .detect_rgb = inv.flag("detect_rgb")};
                if (inv.has("kernel_size")) o.kernel_size = inv.ints("kernel_size");
                return exposure::equalize_adapthist(inv.input(0), o, inv.stream());
              }));
  reg.add(Command("exposure.rescale_intensity", "Stretch or shrink the intensity range.")
              .input("image", "input image")
              .param(Param::string("in_range", "image", "'image', 'dtype', a dtype name or MIN,MAX"))
              .param(Param::string("out_range", "dtype", "'image', 'dtype', a dtype name or MIN,MAX"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return exposure::rescale_intensity(
                    inv.input(0), {.in_range = range_value(inv, "in_range"), .out_range = range_value(inv, "out_range")},
                    inv.stream());
              }));
  reg.add(Command("exposure.adjust_gamma", "Gamma correction: gain * x ** gamma (x scaled to [0, 1]).")
              .input("image", "input image")
              .param(Param::number("gamma", "1", "non-negative exponent"))
              .param(Param::number("gain", "1", "constant multiplier"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return exposure::adjust_gamma(inv.input(0), {.gamma = inv.number("gamma"), .gain = inv.number("gain")},
                                              inv.stream());
              }));
  reg.add(Command("exposure.adjust_log", "Logarithmic correction: gain * log2(1 + x).")
              .input("image", "input image")
              .param(Param::number("gain", "1", "constant multiplier"))
              .param(Param::boolean("inv", "false", "inverse: gain * (2 ** x - 1)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return exposure::adjust_log(inv.input(0), {.gain = inv.number("gain"), .inv = inv.flag("inv")},
                                            inv.stream());
              }));
  reg.add(Command("exposure.adjust_sigmoid", "Sigmoid correction: 1 / (1 + exp(gain * (cutoff - x))).")
              .input("image", "input image")
              .param(Param::number("cutoff", "0.5", "horizontal shift of the curve"))
              .param(Param::number("gain", "10", "multiplier in the exponent"))
              .param(Param::boolean("inv", "false", "negative sigmoid"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return exposure::adjust_sigmoid(
                    inv.input(0), {.cutoff = inv.number("cutoff"), .gain = inv.number("gain"), .inv = inv.flag("inv")},
                    inv.stream());
              }));
  reg.add(Command("exposure.match_histograms", "Match the image's cumulative histogram to a reference's.")
              .input("image", "input image")
              .input("reference", "image whose histogram is matched")
              .param(channel_param("axis of the channels (matched one by one)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const Array& img = inv.input(0);
                return exposure::match_histograms(img, inv.input(1), {.channel_axis = channel_axis(inv)}, inv.stream());
              }));
  reg.add(Command("exposure.is_low_contrast", "Whether the image's percentile range is a small fraction of its dtype's.")
              .input("image", "input image")
              .param(Param::number("fraction_threshold", "0.05", "low-contrast fraction of the dtype range"))
              .param(Param::number("lower_percentile", "1", "lower percentile of the range"))
              .param(Param::number("upper_percentile", "99", "upper percentile of the range"))
              .param(Param::choice("method", {"linear"}, "linear", "contrast determination method"))
              .returns_value("true or false")
              .handler([](Invocation& inv) -> Result {
                return json(exposure::is_low_contrast(inv.input(0),
                                                      {.fraction_threshold = inv.number("fraction_threshold"),
                                                       .lower_percentile = inv.number("lower_percentile"),
                                                       .upper_percentile = inv.number("upper_percentile"),
                                                       .method = inv.string("method")},
                                                      inv.stream()));
              }));
}

}  // namespace cuskimage::cli
