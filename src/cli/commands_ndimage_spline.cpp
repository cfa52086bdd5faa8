// ndimage spline interpolation on the command line: the B-spline prefilters and map_coordinates
// (COORDINATES: an (ndim, ...) array, e.g. .npy; the OUTPUT has its trailing shape).
//   cuskimage ndimage.map_coordinates img.npy coords.npy out.npy --order 3 --mode reflect
//   cuskimage ndimage.spline_filter img.png coef.npy --order 5 --mode mirror
//   cuskimage ndimage.spline_filter1d img.png coef.npy --order 3 --axis 0
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

const std::vector<std::string> kInterpModes = {"constant", "grid-constant", "nearest", "reflect",
                                               "grid-mirror", "mirror",        "grid-wrap", "wrap"};

Param interp_mode_param(const char* def) {
  return Param::choice("mode", kInterpModes, def, "how the input is extended beyond its edges (scipy's names)");
}

}  // namespace

CUSK_CLI_COMMANDS(ndimage_spline) {
  reg.add(Command("ndimage.map_coordinates",
                  "Spline interpolation of the input at the given coordinates (output: the input's dtype unless "
                  "--output).")
              .input("input", "input image (1-D to 3-D on a GPU)")
              .input("coordinates", "(input.ndim, ...) coordinates array (.npy)")
              .param(Param::integer("order", "3", "spline order 0..5"))
              .param(interp_mode_param("constant"))
              .param(Param::number("cval", "0.0", "value outside the edges for the constant modes"))
              .param(Param::boolean("prefilter", "true", "spline-filter the input first (orders > 1)"))
              .param(Param::dtype("output", "none", "output dtype: the input's, float32 or float64"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                ndimage::MapCoordinatesOptions o{.order = static_cast<int>(inv.integer("order")),
                                                 .mode = ndimage::interp_mode_from_name(inv.string("mode")),
                                                 .cval = inv.number("cval"),
                                                 .prefilter = inv.flag("prefilter")};
                if (inv.has("output")) o.output = inv.dtype("output");
                return ndimage::map_coordinates(inv.input(0), inv.input(1), o, inv.stream());
              }));
  reg.add(Command("ndimage.spline_filter", "B-spline coefficients of the input along every axis.")
              .input("input", "input image")
              .param(Param::integer("order", "3", "spline order 2..5"))
              .param(interp_mode_param("mirror"))
              .param(Param::dtype("output", "float64", "float32 or float64"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::spline_filter(inv.input(0),
                                              {.order = static_cast<int>(inv.integer("order")),
                                               .mode = ndimage::interp_mode_from_name(inv.string("mode")),
                                               .output = inv.dtype("output")},
                                              inv.stream());
              }));
  reg.add(Command("ndimage.spline_filter1d", "B-spline coefficients of the input along one axis.")
              .input("input", "input image")
              .param(Param::integer("order", "3", "spline order 0..5"))
              .param(Param::integer("axis", "-1", "axis along which to filter"))
              .param(interp_mode_param("mirror"))
              .param(Param::dtype("output", "float64", "float32 or float64"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::spline_filter1d(inv.input(0),
                                                {.order = static_cast<int>(inv.integer("order")),
                                                 .axis = static_cast<int>(inv.integer("axis")),
                                                 .mode = ndimage::interp_mode_from_name(inv.string("mode")),
                                                 .output = inv.dtype("output")},
                                                inv.stream());
              }));
}

}  // namespace cuskimage::cli
