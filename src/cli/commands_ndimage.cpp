// ndimage.* commands: scipy.ndimage's filter building blocks on the command line.
//   cuskimage ndimage.correlate in.png out.tif --weights kernel.npy --mode constant --cval 0
//   cuskimage ndimage.uniform_filter in.png out.png --size 5
//   cuskimage ndimage.maximum_filter in.png out.png --size 15,3
//   cuskimage ndimage.minimum_filter in.png out.png --footprint disk.npy
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

const std::vector<std::string> kModes = {"reflect", "grid-mirror", "mirror", "nearest", "wrap", "grid-wrap",
                                         "constant", "grid-constant"};

Param mode_param() { return Param::choice("mode", kModes, "reflect", "how the input is extended beyond its edges"); }
Param cval_param() { return Param::number("cval", "0.0", "value outside the edges for mode 'constant'"); }

ndimage::Mode mode(const Invocation& inv) { return ndimage::mode_from_name(inv.string("mode")); }

ndimage::Filter1dOptions opts1d(const Invocation& inv) {
  return {.axis = static_cast<int>(inv.integer("axis")), .mode = mode(inv), .cval = inv.number("cval"),
          .origin = inv.integer("origin")};
}

Command filter1d(const std::string& name, const std::string& summary) {
  return Command(name, summary)
      .input("input", "input image")
      .param(Param::integer("axis", "-1", "axis along which to filter"))
      .param(mode_param())
      .param(cval_param())
      .param(Param::integer("origin", "0", "shift of the window"))
      .returns_image();
}

}  // namespace

CUSK_CLI_COMMANDS(ndimage) {
  reg.add(filter1d("ndimage.correlate1d", "1-D correlation along an axis (output has the input's dtype).")
              .param(Param::array("weights", required, "1-D weights (.npy path or comma-separated numbers)"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::correlate1d(inv.input(0), inv.array("weights"), opts1d(inv), inv.stream());
              }));
  reg.add(filter1d("ndimage.convolve1d", "1-D convolution along an axis (output has the input's dtype).")
              .param(Param::array("weights", required, "1-D weights (.npy path or comma-separated numbers)"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::convolve1d(inv.input(0), inv.array("weights"), opts1d(inv), inv.stream());
              }));
  for (const char* which : {"correlate", "convolve"}) {
    const std::string name = which;
    reg.add(Command("ndimage." + name, "N-d " + std::string(name == "correlate" ? "correlation" : "convolution") +
                                           " with a weights array of the input's ndim (output has the input's dtype).")
                .input("input", "input image")
                .param(Param::array("weights", required, "weights array (.npy path), same ndim as the input"))
                .param(mode_param())
                .param(cval_param())
                .param(Param::ints("origin", "0", "window shift, one value or one per axis"))
                .returns_image()
                .handler([name](Invocation& inv) -> Result {
                  const ndimage::FilterOptions o{.mode = mode(inv), .cval = inv.number("cval"), .origin = inv.ints("origin")};
                  return name == "correlate" ? ndimage::correlate(inv.input(0), inv.array("weights"), o, inv.stream())
                                             : ndimage::convolve(inv.input(0), inv.array("weights"), o, inv.stream());
                }));
  }
  reg.add(filter1d("ndimage.uniform_filter1d", "Mean over `size` samples along an axis.")
              .param(Param::integer("size", required, "window length"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::uniform_filter1d(inv.input(0), inv.integer("size"), opts1d(inv), inv.stream());
              }));
  reg.add(filter1d("ndimage.minimum_filter1d", "Minimum over `size` samples along an axis.")
              .param(Param::integer("size", required, "window length"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::minimum_filter1d(inv.input(0), inv.integer("size"), opts1d(inv), inv.stream());
              }));
  reg.add(filter1d("ndimage.maximum_filter1d", "Maximum over `size` samples along an axis.")
              .param(Param::integer("size", required, "window length"))
              .handler([](Invocation& inv) -> Result {
                return ndimage::maximum_filter1d(inv.input(0), inv.integer("size"), opts1d(inv), inv.stream());
              }));
  reg.add(Command("ndimage.uniform_filter", "Separable mean filter.")
              .input("input", "input image")
              .param(Param::ints("size", "3", "window size, one value or one per axis"))
              .param(mode_param())
              .param(cval_param())
              .param(Param::ints("origin", "0", "window shift, one value or one per axis"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::uniform_filter(inv.input(0),
                                               {.size = inv.ints("size"), .mode = mode(inv), .cval = inv.number("cval"),
                                                .origin = inv.ints("origin")},
                                               inv.stream());
              }));
  for (const char* which : {"minimum", "maximum"}) {
    const std::string name = which;
    const std::string title = name == "minimum" ? "Minimum" : "Maximum";
    reg.add(Command("ndimage." + name + "_filter", title + " filter over a rectangle (size) or a footprint.")
                .input("input", "input image")
                .param(Param::ints("size", "none", "rectangle size, one value or one per axis"))
                .param(Param::array("footprint", "none", "boolean footprint (.npy path); overrides size"))
                .param(mode_param())
                .param(cval_param())
                .param(Param::ints("origin", "0", "window shift, one value or one per axis"))
                .returns_image()
                .handler([name](Invocation& inv) -> Result {
                  ndimage::RankFilterOptions o{.mode = mode(inv), .cval = inv.number("cval"), .origin = inv.ints("origin")};
                  if (inv.has("size")) o.size = inv.ints("size");
                  if (inv.has("footprint")) o.footprint = inv.array("footprint").share();
                  return name == "minimum" ? ndimage::minimum_filter(inv.input(0), o, inv.stream())
                                           : ndimage::maximum_filter(inv.input(0), o, inv.stream());
                }));
  }
}

}  // namespace cuskimage::cli
