// filters.* commands: skimage.filters on the command line. Thresholds print their value as JSON.
//   cuskimage filters.threshold_otsu camera.png                 -> 102
//   cuskimage filters.threshold_multiotsu coins.png --classes 4 -> [74, 119, 163]
#include <cmath>

#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;

/// A JSON number that stays an integer when the threshold is one (integer images).
json number(double v) {
  if (std::isfinite(v) && v == static_cast<double>(static_cast<long long>(v)) && std::fabs(v) < 9e15)
    return json(static_cast<long long>(v));
  return json(v);
}

json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

/// A threshold command: the options of S, a JSON threshold.
template <class S>
Command threshold(const std::string& name, const std::string& summary, double (*fn)(const Array&, const S&, const Stream&)) {
  return Command("filters." + name, summary)
      .input("image", "grayscale input image")
      .options<S>()
      .returns_value("threshold")
      .handler([fn](Invocation& inv) -> Result { return number(fn(inv.input(0), inv.options<S>(), inv.stream())); });
}

}  // namespace

CUSK_CLI_COMMANDS(filters) {
  using namespace filters;
  reg.add(threshold<ThresholdOtsuOptions>("threshold_otsu", "Threshold value by Otsu's method.", threshold_otsu));
  reg.add(Command("filters.threshold_multiotsu", "Thresholds of multi-Otsu's method (classes - 1 values).")
              .input("image", "grayscale input image")
              .options<ThresholdMultiotsuOptions>()
              .returns_value("[thresholds]")
              .handler([](Invocation& inv) -> Result {
                return numbers(threshold_multiotsu(inv.input(0), inv.options<ThresholdMultiotsuOptions>(), inv.stream()));
              }));
  reg.add(Command("filters.threshold_isodata", "Threshold value by the ISODATA method.")
              .input("image", "grayscale input image")
              .options<ThresholdIsodataOptions>()
              .param(Param::boolean("return_all", "false", "return every threshold satisfying the criterion"))
              .returns_value("threshold, or [thresholds] with --return_all")
              .handler([](Invocation& inv) -> Result {
                const auto o = inv.options<ThresholdIsodataOptions>();
                if (inv.flag("return_all")) return numbers(threshold_isodata_all(inv.input(0), o, inv.stream()));
                return number(threshold_isodata(inv.input(0), o, inv.stream()));
              }));
  reg.add(threshold<ThresholdYenOptions>("threshold_yen", "Threshold value by Yen's method.", threshold_yen));
  reg.add(threshold<ThresholdMinimumOptions>(
      "threshold_minimum", "Threshold at the minimum between the two histogram maxima.", threshold_minimum));
  reg.add(threshold<ThresholdTriangleOptions>("threshold_triangle", "Threshold value by the triangle algorithm.",
                                              threshold_triangle));
  reg.add(threshold<ThresholdLiOptions>(
      "threshold_li", "Threshold value by Li's iterative minimum cross entropy method.", threshold_li));
  reg.add(Command("filters.threshold_mean", "Threshold value: the mean intensity.")
              .input("image", "grayscale input image")
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return json(filters::threshold_mean(inv.input(0), inv.stream()));
              }));
}

}  // namespace cuskimage::cli
