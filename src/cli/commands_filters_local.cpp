// filters.* commands of the local filters: median, rank_order, correlate_sparse, window,
// threshold_local/niblack/sauvola, apply_hysteresis_threshold, try_all_threshold.
//   cuskimage filters.median camera.png out.png --footprint disk5.npy
//   cuskimage filters.window hann.npy --window_type hann --shape 64,64
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(filters_local) {
  reg.add(Command("filters.median", "Local median (scipy.ndimage.median_filter or filters.rank.median).")
              .input("image", "input image")
              .options<filters::MedianOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::median(inv.input(0), inv.options<filters::MedianOptions>(), inv.stream());
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
              .options<filters::CorrelateSparseOptions>()
              .choices("mode", {"reflect", "constant", "nearest", "mirror", "wrap", "valid"})
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::correlate_sparse(inv.input(0), inv.array("kernel"),
                                                 inv.options<filters::CorrelateSparseOptions>(), inv.stream());
              }));
  reg.add(Command("filters.window", "An N-d window of scipy.signal.get_window's type.")
              .param(Param::string("window_type", required, "window name (hann, tukey, kaiser, ...)"))
              .param(Param::numbers("params", "none", "window parameters (e.g. kaiser's beta)"))
              .param(Param::ints("shape", required, "output shape"))
              .options<filters::WindowOptions>({"device"})  // --device
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const std::vector<double> p = inv.has("params") ? inv.numbers("params") : std::vector<double>{};
                const auto s = inv.ints("shape");
                auto o = inv.options<filters::WindowOptions>();
                o.device = inv.device();
                return filters::window({inv.string("window_type"), p}, Shape(s.begin(), s.end()), o, inv.stream());
              }));
  reg.add(Command("filters.threshold_local", "Local threshold image (gaussian, mean or median of a block).")
              .input("image", "input image")
              .options<filters::ThresholdLocalOptions>()
              .choices("method", {"gaussian", "mean", "median"})  // 'generic' takes a C++ callable
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::threshold_local(inv.input(0), inv.options<filters::ThresholdLocalOptions>(),
                                                inv.stream());
              }));
  reg.add(Command("filters.threshold_niblack", "Niblack local threshold image.")
              .input("image", "input image")
              .options<filters::ThresholdNiblackOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::threshold_niblack(inv.input(0), inv.options<filters::ThresholdNiblackOptions>(),
                                                  inv.stream());
              }));
  reg.add(Command("filters.threshold_sauvola", "Sauvola local threshold image.")
              .input("image", "input image")
              .options<filters::ThresholdSauvolaOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::threshold_sauvola(inv.input(0), inv.options<filters::ThresholdSauvolaOptions>(),
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
