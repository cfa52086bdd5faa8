// filters.* smoothing and edge commands (and ndimage.gaussian_filter/gaussian_filter1d):
//   cuskimage filters.gaussian camera.png out.tif --sigma 3
//   cuskimage filters.sobel camera.png edges.tif --mode nearest
//   cuskimage filters.unsharp_mask astronaut.png sharp.tif --radius 2 --amount 1.5 --channel_axis -1
#include <string>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using EdgeFn = Array (*)(const Array&, const filters::EdgeOptions&, const Stream&);
using MaskFn = Array (*)(const Array&, const Array&, const Stream&);

void add_edge(Registry& reg, const std::string& name, const std::string& summary, EdgeFn fn) {
  reg.add(Command("filters." + name, summary)
              .input("image", "input image")
              .options<filters::EdgeOptions>()
              .returns_image()
              .handler([fn](Invocation& inv) -> Result {
                return fn(inv.input(0), inv.options<filters::EdgeOptions>(), inv.stream());
              }));
}

void add_masked(Registry& reg, const std::string& name, const std::string& summary, MaskFn fn) {
  reg.add(Command("filters." + name, summary)
              .input("image", "2-D input image")
              .param(Param::array("mask", "none", "only pixels inside the (eroded) mask are kept"))
              .returns_image()
              .handler([fn](Invocation& inv) -> Result {
                return fn(inv.input(0), inv.has("mask") ? inv.array("mask").share() : Array(), inv.stream());
              }));
}

}  // namespace

CUSK_CLI_COMMANDS(filters_edges) {
  reg.add(Command("filters.gaussian", "Gaussian smoothing of the float image.")
              .input("image", "input image")
              .options<filters::GaussianOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::gaussian(inv.input(0), inv.options<filters::GaussianOptions>(), inv.stream());
              }));
  reg.add(Command("filters.difference_of_gaussians", "Band-pass: gaussian(low_sigma) - gaussian(high_sigma).")
              .input("image", "input image")
              .param(Param::numbers("low_sigma", required, "the smaller standard deviation(s)"))
              .options<filters::DifferenceOfGaussiansOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::difference_of_gaussians(inv.input(0), inv.numbers("low_sigma"),
                                                        inv.options<filters::DifferenceOfGaussiansOptions>(),
                                                        inv.stream());
              }));
  reg.add(Command("filters.unsharp_mask", "Sharpen: image + (image - gaussian(image)) * amount.")
              .input("image", "input image")
              .options<filters::UnsharpMaskOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::unsharp_mask(inv.input(0), inv.options<filters::UnsharpMaskOptions>(), inv.stream());
              }));
  add_edge(reg, "sobel", "Sobel edge magnitude (or one axis's derivative).", &filters::sobel);
  add_edge(reg, "scharr", "Scharr edge magnitude (or one axis's derivative).", &filters::scharr);
  add_edge(reg, "prewitt", "Prewitt edge magnitude (or one axis's derivative).", &filters::prewitt);
  add_edge(reg, "farid", "Farid edge magnitude (or one axis's derivative).", &filters::farid);
  add_masked(reg, "sobel_h", "Horizontal edges (Sobel, 2-D).", &filters::sobel_h);
  add_masked(reg, "sobel_v", "Vertical edges (Sobel, 2-D).", &filters::sobel_v);
  add_masked(reg, "scharr_h", "Horizontal edges (Scharr, 2-D).", &filters::scharr_h);
  add_masked(reg, "scharr_v", "Vertical edges (Scharr, 2-D).", &filters::scharr_v);
  add_masked(reg, "prewitt_h", "Horizontal edges (Prewitt, 2-D).", &filters::prewitt_h);
  add_masked(reg, "prewitt_v", "Vertical edges (Prewitt, 2-D).", &filters::prewitt_v);
  add_masked(reg, "farid_h", "Horizontal edges (Farid, 2-D).", &filters::farid_h);
  add_masked(reg, "farid_v", "Vertical edges (Farid, 2-D).", &filters::farid_v);
  add_masked(reg, "roberts", "Roberts cross edge magnitude (2-D).", &filters::roberts);
  add_masked(reg, "roberts_pos_diag", "Roberts cross, positive diagonal (2-D).", &filters::roberts_pos_diag);
  add_masked(reg, "roberts_neg_diag", "Roberts cross, negative diagonal (2-D).", &filters::roberts_neg_diag);
  reg.add(Command("filters.laplace", "Discrete Laplacian (3^ndim operator).")
              .input("image", "input image")
              .options<filters::LaplaceOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::laplace(inv.input(0), inv.options<filters::LaplaceOptions>(), inv.stream());
              }));
  reg.add(Command("ndimage.gaussian_filter", "scipy.ndimage.gaussian_filter (output has the input's dtype).")
              .input("input", "input image")
              .param(Param::numbers("sigma", required, "standard deviation, one or one per axis"))
              .options<ndimage::GaussianFilterOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::gaussian_filter(inv.input(0), inv.numbers("sigma"),
                                                inv.options<ndimage::GaussianFilterOptions>(), inv.stream());
              }));
  reg.add(Command("ndimage.gaussian_filter1d", "scipy.ndimage.gaussian_filter1d along one axis.")
              .input("input", "input image")
              .param(Param::number("sigma", required, "standard deviation"))
              .options<ndimage::GaussianFilter1dOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::gaussian_filter1d(inv.input(0), inv.number("sigma"),
                                                  inv.options<ndimage::GaussianFilter1dOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
