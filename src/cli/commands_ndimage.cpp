// ndimage.* commands: scipy.ndimage's filter building blocks on the command line.
//   cuskimage ndimage.correlate in.png out.tif --weights kernel.npy --mode constant --cval 0
//   cuskimage ndimage.uniform_filter in.png out.png --size 5
//   cuskimage ndimage.maximum_filter in.png out.png --size 15,3
//   cuskimage ndimage.minimum_filter in.png out.png --footprint disk.npy
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

Command filter1d(const std::string& name, const std::string& summary) {
  return Command(name, summary).input("input", "input image").options<ndimage::Filter1dOptions>().returns_image();
}

Param weights_param(const char* help) { return Param::array("weights", required, help); }
Param size_param() { return Param::integer("size", required, "window length"); }

}  // namespace

CUSK_CLI_COMMANDS(ndimage) {
  using ndimage::Filter1dOptions;
  reg.add(filter1d("ndimage.correlate1d", "1-D correlation along an axis (output has the input's dtype).")
              .param(weights_param("1-D weights (.npy path or comma-separated numbers)"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::correlate1d(inv.input(0), inv.array("weights"), inv.options<Filter1dOptions>(),
                                            inv.stream());
              }));
  reg.add(filter1d("ndimage.convolve1d", "1-D convolution along an axis (output has the input's dtype).")
              .param(weights_param("1-D weights (.npy path or comma-separated numbers)"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::convolve1d(inv.input(0), inv.array("weights"), inv.options<Filter1dOptions>(),
                                           inv.stream());
              }));
  for (const char* which : {"correlate", "convolve"}) {
    const std::string name = which;
    reg.add(Command("ndimage." + name, "N-d " + std::string(name == "correlate" ? "correlation" : "convolution") +
                                           " with a weights array of the input's ndim (output has the input's dtype).")
                .input("input", "input image")
                .param(weights_param("weights array (.npy path), same ndim as the input"))
                .options<ndimage::FilterOptions>()
                .returns_image()
                .handler([name](Invocation& inv) -> Result {
                  const auto o = inv.options<ndimage::FilterOptions>();
                  return name == "correlate" ? ndimage::correlate(inv.input(0), inv.array("weights"), o, inv.stream())
                                             : ndimage::convolve(inv.input(0), inv.array("weights"), o, inv.stream());
                }));
  }
  reg.add(filter1d("ndimage.uniform_filter1d", "Mean over `size` samples along an axis.")
              .param(size_param())
              .handler([](Invocation& inv) -> Result {
                return ndimage::uniform_filter1d(inv.input(0), inv.integer("size"), inv.options<Filter1dOptions>(),
                                                 inv.stream());
              }));
  reg.add(filter1d("ndimage.minimum_filter1d", "Minimum over `size` samples along an axis.")
              .param(size_param())
              .handler([](Invocation& inv) -> Result {
                return ndimage::minimum_filter1d(inv.input(0), inv.integer("size"), inv.options<Filter1dOptions>(),
                                                 inv.stream());
              }));
  reg.add(filter1d("ndimage.maximum_filter1d", "Maximum over `size` samples along an axis.")
              .param(size_param())
              .handler([](Invocation& inv) -> Result {
                return ndimage::maximum_filter1d(inv.input(0), inv.integer("size"), inv.options<Filter1dOptions>(),
                                                 inv.stream());
              }));
  reg.add(Command("ndimage.uniform_filter", "Separable mean filter.")
              .input("input", "input image")
              .options<ndimage::UniformFilterOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::uniform_filter(inv.input(0), inv.options<ndimage::UniformFilterOptions>(), inv.stream());
              }));
  for (const char* which : {"minimum", "maximum"}) {
    const std::string name = which;
    const std::string title = name == "minimum" ? "Minimum" : "Maximum";
    reg.add(Command("ndimage." + name + "_filter", title + " filter over a rectangle (size) or a footprint.")
                .input("input", "input image")
                .options<ndimage::RankFilterOptions>()
                .returns_image()
                .handler([name](Invocation& inv) -> Result {
                  const auto o = inv.options<ndimage::RankFilterOptions>();
                  return name == "minimum" ? ndimage::minimum_filter(inv.input(0), o, inv.stream())
                                           : ndimage::maximum_filter(inv.input(0), o, inv.stream());
                }));
  }
}

}  // namespace cuskimage::cli
