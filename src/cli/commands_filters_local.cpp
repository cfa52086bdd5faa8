// filters.* commands of the local filters: median, rank_order, correlate_sparse, window,
// threshold_local/niblack/sauvola, apply_hysteresis_threshold, try_all_threshold.
//   cuskimage filters.median camera.png out.png --footprint disk5.npy
//   cuskimage filters.window hann.npy --window_type hann --shape 64,64
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

const std::vector<std::string> kModes = {"reflect", "constant", "nearest", "mirror", "wrap"};

ndimage::Mode mode_of(Invocation& inv) { return ndimage::mode_from_name(inv.string("mode")); }

}  // namespace

CUSK_CLI_COMMANDS(filters_local) {
  reg.add(Command("filters.median", "Local median (scipy.ndimage.median_filter or filters.rank.median).")
              .input("image", "input image")
              .param(Param::array("footprint", "none", "window (non-zero entries); default 3^ndim ones"))
              .param(Param::choice("mode", kModes, "nearest", "boundary mode (behavior='ndimage')"))
              .param(Param::number("cval", "0", "value past the edges for mode 'constant'"))
              .param(Param::choice("behavior", {"ndimage", "rank"}, "ndimage", "implementation semantics"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::median(inv.input(0),
                                       {.footprint = inv.has("footprint") ? inv.array("footprint").share() : Array(),
                                        .mode = mode_of(inv), .cval = inv.number("cval"),
                                        .behavior = inv.string("behavior") == "rank" ? filters::MedianBehavior::rank
                                                                                     : filters::MedianBehavior::ndimage},
                                       inv.stream());
              }));
  reg.add(Command("filters.rank_order", "Rank of each pixel among the image's unique values.")
              .input("image", "input image")
              .returns_image({"labels", "original_values"})
              .handler([](Invocation& inv) -> Result {
                auto r = filters::rank_order(inv.input(0), inv.stream());
                Result res;
                res.images.push_back(std::move(r.labels));
                res.images.push_back(std::move(r.original_values));
                return res;
              }));
  reg.add(Command("filters.correlate_sparse", "Correlation with a sparse kernel (scikit-image's padding).")
              .input("image", "input image")
              .param(Param::array("kernel", required, "correlation kernel (image's ndim)"))
              .param(Param::choice("mode", {"reflect", "constant", "nearest", "mirror", "wrap", "valid"}, "reflect",
                                   "padding mode, or 'valid'"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::correlate_sparse(inv.input(0), inv.array("kernel"), {.mode = inv.string("mode")},
                                                 inv.stream());
              }));
  reg.add(Command("filters.window", "An N-d window of scipy.signal.get_window's type.")
              .param(Param::string("window_type", required, "window name (hann, tukey, kaiser, ...)"))
              .param(Param::numbers("params", "none", "window parameters (e.g. kaiser's beta)"))
              .param(Param::ints("shape", required, "output shape"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const std::vector<double> p = inv.has("params") ? inv.numbers("params") : std::vector<double>{};
                const auto s = inv.ints("shape");
                return filters::window({inv.string("window_type"), p}, Shape(s.begin(), s.end()),
                                       {.device = inv.device()}, inv.stream());
              }));
  reg.add(Command("filters.threshold_local", "Local threshold image (gaussian, mean or median of a block).")
              .input("image", "input image")
              .param(Param::ints("block_size", "3", "odd block size (one or per axis)"))
              .param(Param::choice("method", {"gaussian", "mean", "median"}, "gaussian", "local statistic"))
              .param(Param::number("offset", "0", "subtracted from the local statistic"))
              .param(Param::choice("mode", kModes, "reflect", "boundary mode"))
              .param(Param::numbers("param", "none", "sigma for method 'gaussian'"))
              .param(Param::number("cval", "0", "value past the edges for mode 'constant'"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                using M = filters::ThresholdLocalMethod;
                const std::string m = inv.string("method");
                return filters::threshold_local(
                    inv.input(0),
                    {.block_size = inv.ints("block_size"),
                     .method = m == "mean" ? M::mean : (m == "median" ? M::median : M::gaussian),
                     .offset = inv.number("offset"), .mode = mode_of(inv),
                     .param = inv.has("param") ? inv.numbers("param") : std::vector<double>{},
                     .cval = inv.number("cval")},
                    inv.stream());
              }));
  reg.add(Command("filters.threshold_niblack", "Niblack local threshold image.")
              .input("image", "input image")
              .param(Param::ints("window_size", "15", "odd window size"))
              .param(Param::number("k", "0.2", "weight of the local standard deviation"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::threshold_niblack(inv.input(0),
                                                  {.window_size = inv.ints("window_size"), .k = inv.number("k")},
                                                  inv.stream());
              }));
  reg.add(Command("filters.threshold_sauvola", "Sauvola local threshold image.")
              .input("image", "input image")
              .param(Param::ints("window_size", "15", "odd window size"))
              .param(Param::number("k", "0.2", "weight of the local standard deviation"))
              .param(Param::number("r", "none", "dynamic range of the standard deviation"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::threshold_sauvola(
                    inv.input(0),
                    {.window_size = inv.ints("window_size"), .k = inv.number("k"), .r = inv.opt_number("r")},
                    inv.stream());
              }));
  reg.add(Command("filters.apply_hysteresis_threshold", "Hysteresis thresholding (bool mask).")
              .input("image", "input image")
              .param(Param::number("low", required, "lower threshold"))
              .param(Param::number("high", required, "upper threshold"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::apply_hysteresis_threshold(inv.input(0), inv.number("low"), inv.number("high"),
                                                           inv.stream());
              }));
  reg.add(Command("filters.try_all_threshold",
                  "Masks of the isodata, li, mean, minimum, otsu, triangle and yen thresholds.")
              .input("image", "grayscale input image")
              .returns_image({"isodata", "li", "mean", "minimum", "otsu", "triangle", "yen"})
              .handler([](Invocation& inv) -> Result {
                auto r = filters::try_all_threshold(inv.input(0), inv.stream());
                Result res;
                for (auto& [name, mask] : r) res.images.push_back(std::move(mask));
                return res;
              }));
}

}  // namespace cuskimage::cli
