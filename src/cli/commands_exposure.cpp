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

/// 'image', 'dtype', a dtype name, or MIN,MAX.
template <>
struct Codec<exposure::IntensityRange> {
  using Range = exposure::IntensityRange;
  static constexpr Kind kind = Kind::string;
  static std::string format(const Range& r) {
    switch (r.kind) {
      case Range::Kind::image: return "image";
      case Range::Kind::dtype: return "dtype";
      case Range::Kind::name: return r.name;
      case Range::Kind::values: return format_list({format_number(r.lo), format_number(r.hi)});
    }
    return "";
  }
  static Range read(Invocation& inv, const std::string& name) {
    const std::string& s = inv.string(name);
    const auto comma = s.find(',');
    if (comma == std::string::npos) return Range(s);
    char* end = nullptr;
    const double lo = std::strtod(s.c_str(), &end);
    const double hi = std::strtod(s.c_str() + comma + 1, nullptr);
    if (end != s.c_str() + comma)
      throw UsageError(inv.name() + ": argument '" + name + "' must be 'image', 'dtype', a dtype name or MIN,MAX, got '" +
                       s + "'");
    return Range(lo, hi);
  }
  static bool equal(const Range& a, const Range& b) {
    return a.kind == b.kind && a.name == b.name && a.lo == b.lo && a.hi == b.hi;
  }
};

namespace {

using nlohmann::json;
using namespace exposure;

/// A command whose keywords are the fields of S.
template <class S>
Command with(const std::string& name, const std::string& summary) {
  return Command("exposure." + name, summary).input("image", "input image").options<S>();
}

}  // namespace

CUSK_CLI_COMMANDS(exposure) {
  reg.add(with<HistogramOptions>("histogram", "Histogram of an image: [hist, bin_centers].")
              .returns_value("[hist, bin_centers]")
              .handler([](Invocation& inv) -> Result {
                const auto r = histogram(inv.input(0), inv.options<HistogramOptions>(), inv.stream());
                return json::array({array_to_json(r.hist), array_to_json(r.bin_centers)});
              }));
  reg.add(with<CumulativeDistributionOptions>("cumulative_distribution",
                                              "Cumulative distribution function: [cdf, bin_centers].")
              .returns_value("[cdf, bin_centers]")
              .handler([](Invocation& inv) -> Result {
                const auto r =
                    cumulative_distribution(inv.input(0), inv.options<CumulativeDistributionOptions>(), inv.stream());
                return json::array({array_to_json(r.cdf), array_to_json(r.bin_centers)});
              }));
  reg.add(with<EqualizeHistOptions>("equalize_hist", "Histogram equalization.")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return equalize_hist(inv.input(0), inv.options<EqualizeHistOptions>(), inv.stream());
              }));
  reg.add(Command("exposure.equalize_adapthist", "Contrast Limited Adaptive Histogram Equalization (CLAHE).")
              .input("image", "2-D or 3-D grey image, or RGB(A)")
              .options<EqualizeAdapthistOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return equalize_adapthist(inv.input(0), inv.options<EqualizeAdapthistOptions>(), inv.stream());
              }));
  reg.add(with<RescaleIntensityOptions>("rescale_intensity", "Stretch or shrink the intensity range.")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return rescale_intensity(inv.input(0), inv.options<RescaleIntensityOptions>(), inv.stream());
              }));
  reg.add(with<AdjustGammaOptions>("adjust_gamma", "Gamma correction: gain * x ** gamma (x scaled to [0, 1]).")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return adjust_gamma(inv.input(0), inv.options<AdjustGammaOptions>(), inv.stream());
              }));
  reg.add(with<AdjustLogOptions>("adjust_log", "Logarithmic correction: gain * log2(1 + x).")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return adjust_log(inv.input(0), inv.options<AdjustLogOptions>(), inv.stream());
              }));
  reg.add(with<AdjustSigmoidOptions>("adjust_sigmoid", "Sigmoid correction: 1 / (1 + exp(gain * (cutoff - x))).")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return adjust_sigmoid(inv.input(0), inv.options<AdjustSigmoidOptions>(), inv.stream());
              }));
  reg.add(Command("exposure.match_histograms", "Match the image's cumulative histogram to a reference's.")
              .input("image", "input image")
              .input("reference", "image whose histogram is matched")
              .options<MatchHistogramsOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const Array& img = inv.input(0);
                return match_histograms(img, inv.input(1), inv.options<MatchHistogramsOptions>(), inv.stream());
              }));
  reg.add(with<IsLowContrastOptions>("is_low_contrast",
                                     "Whether the image's percentile range is a small fraction of its dtype's.")
              .choices("method", {"linear"})
              .returns_value("true or false")
              .handler([](Invocation& inv) -> Result {
                return json(is_low_contrast(inv.input(0), inv.options<IsLowContrastOptions>(), inv.stream()));
              }));
}

}  // namespace cuskimage::cli
