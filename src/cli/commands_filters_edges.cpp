// filters.* smoothing and edge commands (and ndimage.gaussian_filter/gaussian_filter1d):
//   cuskimage filters.gaussian camera.png out.tif --sigma 3
//   cuskimage filters.sobel camera.png edges.tif --mode nearest
//   cuskimage filters.unsharp_mask astronaut.png sharp.tif --radius 2 --amount 1.5 --channel_axis -1
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

const std::vector<std::string> kModes = {"reflect", "grid-mirror", "mirror", "nearest", "wrap", "grid-wrap",
                                         "constant", "grid-constant"};

Param mode_param(const char* def) {
  return Param::choice("mode", kModes, def, "how the image is extended beyond its edges");
}
Param cval_param() { return Param::number("cval", "0.0", "value outside the edges for mode 'constant'"); }
Param channel_param() { return Param::integer("channel_axis", "none", "axis of colour channels (not filtered)"); }
Param mask_param() { return Param::array("mask", "none", "only pixels inside the (eroded) mask are kept"); }

ndimage::Mode mode(const Invocation& inv) { return ndimage::mode_from_name(inv.string("mode")); }
std::optional<int> channel(const Invocation& inv) {
  const auto c = inv.opt_integer("channel_axis");
  return c ? std::optional<int>(static_cast<int>(*c)) : std::nullopt;
}
Array mask_of(Invocation& inv) { return inv.has("mask") ? inv.array("mask").share() : Array(); }
std::vector<int> axes_of(const Invocation& inv, const char* name) {
  std::vector<int> a;
  if (inv.has(name))
    for (auto v : inv.ints(name)) a.push_back(static_cast<int>(v));
  return a;
}

using EdgeFn = Array (*)(const Array&, const filters::EdgeOptions&, const Stream&);
using MaskFn = Array (*)(const Array&, const Array&, const Stream&);

void add_edge(Registry& reg, const std::string& name, const std::string& summary, EdgeFn fn) {
  reg.add(Command("filters." + name, summary)
              .input("image", "input image")
              .param(mask_param())
              .param(Param::ints("axis", "none", "axis or axes (default all: the magnitude)"))
              .param(mode_param("reflect"))
              .param(cval_param())
              .returns_image()
              .handler([fn](Invocation& inv) -> Result {
                return fn(inv.input(0),
                          {.mask = mask_of(inv), .axis = axes_of(inv, "axis"), .mode = mode(inv),
                           .cval = inv.number("cval")},
                          inv.stream());
              }));
}

void add_masked(Registry& reg, const std::string& name, const std::string& summary, MaskFn fn) {
  reg.add(Command("filters." + name, summary)
              .input("image", "2-D input image")
              .param(mask_param())
              .returns_image()
              .handler([fn](Invocation& inv) -> Result { return fn(inv.input(0), mask_of(inv), inv.stream()); }));
}

}  // namespace

CUSK_CLI_COMMANDS(filters_edges) {
  reg.add(Command("filters.gaussian", "Gaussian smoothing of the float image.")
              .input("image", "input image")
              .param(Param::numbers("sigma", "1.0", "standard deviation, one or one per axis"))
              .param(mode_param("nearest"))
              .param(cval_param())
              .param(Param::boolean("preserve_range", "false", "keep integer values instead of img_as_float"))
              .param(Param::number("truncate", "4.0", "kernel radius in standard deviations"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::gaussian(inv.input(0),
                                         {.sigma = inv.numbers("sigma"), .mode = mode(inv), .cval = inv.number("cval"),
                                          .preserve_range = inv.flag("preserve_range"),
                                          .truncate = inv.number("truncate"), .channel_axis = channel(inv)},
                                         inv.stream());
              }));
  reg.add(Command("filters.difference_of_gaussians", "Band-pass: gaussian(low_sigma) - gaussian(high_sigma).")
              .input("image", "input image")
              .param(Param::numbers("low_sigma", required, "the smaller standard deviation(s)"))
              .param(Param::numbers("high_sigma", "none", "the larger standard deviation(s) (default 1.6 * low)"))
              .param(mode_param("nearest"))
              .param(cval_param())
              .param(channel_param())
              .param(Param::number("truncate", "4.0", "kernel radius in standard deviations"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                filters::DifferenceOfGaussiansOptions o{.mode = mode(inv), .cval = inv.number("cval"),
                                                        .channel_axis = channel(inv),
                                                        .truncate = inv.number("truncate")};
                if (inv.has("high_sigma")) o.high_sigma = filters::Sigma(inv.numbers("high_sigma"));
                return filters::difference_of_gaussians(inv.input(0), inv.numbers("low_sigma"), o, inv.stream());
              }));
  reg.add(Command("filters.unsharp_mask", "Sharpen: image + (image - gaussian(image)) * amount.")
              .input("image", "input image")
              .param(Param::numbers("radius", "1.0", "the Gaussian's standard deviation(s)"))
              .param(Param::number("amount", "1.0", "strength of the sharpening"))
              .param(Param::boolean("preserve_range", "false", "keep the value range (no clipping)"))
              .param(channel_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::unsharp_mask(inv.input(0),
                                             {.radius = inv.numbers("radius"), .amount = inv.number("amount"),
                                              .preserve_range = inv.flag("preserve_range"),
                                              .channel_axis = channel(inv)},
                                             inv.stream());
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
              .param(Param::integer("ksize", "3", "accepted for compatibility (the operator is always 3^ndim)"))
              .param(mask_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return filters::laplace(inv.input(0), {.ksize = inv.integer("ksize"), .mask = mask_of(inv)},
                                        inv.stream());
              }));
  reg.add(Command("ndimage.gaussian_filter", "scipy.ndimage.gaussian_filter (output has the input's dtype).")
              .input("input", "input image")
              .param(Param::numbers("sigma", required, "standard deviation, one or one per axis"))
              .param(Param::ints("order", "0", "derivative order 0..3, one or one per axis"))
              .param(mode_param("reflect"))
              .param(cval_param())
              .param(Param::number("truncate", "4.0", "kernel radius in standard deviations"))
              .param(Param::ints("radius", "none", "kernel radius, one or one per axis (overrides truncate)"))
              .param(Param::ints("axes", "none", "axes to filter (default all)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                ndimage::GaussianFilterOptions o{.mode = mode(inv), .cval = inv.number("cval"),
                                                 .truncate = inv.number("truncate"), .axes = axes_of(inv, "axes")};
                o.order.clear();
                for (auto v : inv.ints("order")) o.order.push_back(static_cast<int>(v));
                if (inv.has("radius")) o.radius = inv.ints("radius");
                return ndimage::gaussian_filter(inv.input(0), inv.numbers("sigma"), o, inv.stream());
              }));
  reg.add(Command("ndimage.gaussian_filter1d", "scipy.ndimage.gaussian_filter1d along one axis.")
              .input("input", "input image")
              .param(Param::number("sigma", required, "standard deviation"))
              .param(Param::integer("axis", "-1", "axis to filter"))
              .param(Param::integer("order", "0", "derivative order 0..3"))
              .param(mode_param("reflect"))
              .param(cval_param())
              .param(Param::number("truncate", "4.0", "kernel radius in standard deviations"))
              .param(Param::integer("radius", "none", "kernel radius (overrides truncate)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::gaussian_filter1d(
                    inv.input(0), inv.number("sigma"),
                    {.axis = static_cast<int>(inv.integer("axis")), .order = static_cast<int>(inv.integer("order")),
                     .mode = mode(inv), .cval = inv.number("cval"), .truncate = inv.number("truncate"),
                     .radius = inv.opt_integer("radius")},
                    inv.stream());
              }));
}

}  // namespace cuskimage::cli
