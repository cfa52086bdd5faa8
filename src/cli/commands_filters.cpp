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

Param nbins_param() { return Param::integer("nbins", "256", "number of histogram bins (ignored for integer images)"); }

}  // namespace

CUSK_CLI_COMMANDS(filters) {
  reg.add(Command("filters.threshold_otsu", "Threshold value by Otsu's method.")
              .input("image", "grayscale input image")
              .param(nbins_param())
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return number(filters::threshold_otsu(inv.input(0), {.nbins = inv.integer("nbins")}, inv.stream()));
              }));
  reg.add(Command("filters.threshold_multiotsu", "Thresholds of multi-Otsu's method (classes - 1 values).")
              .input("image", "grayscale input image")
              .param(Param::integer("classes", "3", "number of classes"))
              .param(nbins_param())
              .returns_value("[thresholds]")
              .handler([](Invocation& inv) -> Result {
                return numbers(filters::threshold_multiotsu(
                    inv.input(0), {.classes = static_cast<int>(inv.integer("classes")), .nbins = inv.integer("nbins")},
                    inv.stream()));
              }));
  reg.add(Command("filters.threshold_isodata", "Threshold value by the ISODATA method.")
              .input("image", "grayscale input image")
              .param(nbins_param())
              .param(Param::boolean("return_all", "false", "return every threshold satisfying the criterion"))
              .returns_value("threshold, or [thresholds] with --return_all")
              .handler([](Invocation& inv) -> Result {
                const filters::ThresholdIsodataOptions o{.nbins = inv.integer("nbins")};
                if (inv.flag("return_all")) return numbers(filters::threshold_isodata_all(inv.input(0), o, inv.stream()));
                return number(filters::threshold_isodata(inv.input(0), o, inv.stream()));
              }));
  reg.add(Command("filters.threshold_yen", "Threshold value by Yen's method.")
              .input("image", "grayscale input image")
              .param(nbins_param())
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return number(filters::threshold_yen(inv.input(0), {.nbins = inv.integer("nbins")}, inv.stream()));
              }));
  reg.add(Command("filters.threshold_minimum", "Threshold at the minimum between the two histogram maxima.")
              .input("image", "grayscale input image")
              .param(nbins_param())
              .param(Param::integer("max_num_iter", "10000", "maximum number of smoothing iterations"))
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return number(filters::threshold_minimum(
                    inv.input(0), {.nbins = inv.integer("nbins"), .max_num_iter = inv.integer("max_num_iter")},
                    inv.stream()));
              }));
  reg.add(Command("filters.threshold_triangle", "Threshold value by the triangle algorithm.")
              .input("image", "grayscale input image")
              .param(nbins_param())
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return number(
                    filters::threshold_triangle(inv.input(0), {.nbins = inv.integer("nbins")}, inv.stream()));
              }));
  reg.add(Command("filters.threshold_li", "Threshold value by Li's iterative minimum cross entropy method.")
              .input("image", "grayscale input image")
              .param(Param::number("tolerance", "none", "stop when the threshold changes less than this"))
              .param(Param::number("initial_guess", "none", "starting threshold (default: the mean)"))
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return number(filters::threshold_li(
                    inv.input(0), {.tolerance = inv.opt_number("tolerance"), .initial_guess = inv.opt_number("initial_guess")},
                    inv.stream()));
              }));
  reg.add(Command("filters.threshold_mean", "Threshold value: the mean intensity.")
              .input("image", "grayscale input image")
              .returns_value("threshold")
              .handler([](Invocation& inv) -> Result {
                return json(filters::threshold_mean(inv.input(0), inv.stream()));
              }));
}

}  // namespace cuskimage::cli
