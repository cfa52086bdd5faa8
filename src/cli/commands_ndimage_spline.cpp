// ndimage spline interpolation on the command line: the B-spline prefilters and map_coordinates
// (COORDINATES: an (ndim, ...) array, e.g. .npy; the OUTPUT has its trailing shape).
//   cuskimage ndimage.map_coordinates img.npy coords.npy out.npy --order 3 --mode reflect
//   cuskimage ndimage.spline_filter img.png coef.npy --order 5 --mode mirror
//   cuskimage ndimage.spline_filter1d img.png coef.npy --order 3 --axis 0
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(ndimage_spline) {
  reg.add(Command("ndimage.map_coordinates",
                  "Spline interpolation of the input at the given coordinates (output: the input's dtype unless "
                  "--output).")
              .input("input", "input image (1-D to 3-D on a GPU)")
              .input("coordinates", "(input.ndim, ...) coordinates array (.npy)")
              .options<ndimage::MapCoordinatesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::map_coordinates(inv.input(0), inv.input(1), inv.options<ndimage::MapCoordinatesOptions>(),
                                                inv.stream());
              }));
  reg.add(Command("ndimage.spline_filter", "B-spline coefficients of the input along every axis.")
              .input("input", "input image")
              .options<ndimage::SplineFilterOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::spline_filter(inv.input(0), inv.options<ndimage::SplineFilterOptions>(), inv.stream());
              }));
  reg.add(Command("ndimage.spline_filter1d", "B-spline coefficients of the input along one axis.")
              .input("input", "input image")
              .options<ndimage::SplineFilter1dOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::spline_filter1d(inv.input(0), inv.options<ndimage::SplineFilter1dOptions>(),
                                                inv.stream());
              }));
}

}  // namespace cuskimage::cli
