// morphology reconstruction, extrema, flood fill and small-object removal on the command line.
//   cuskimage morphology.reconstruction seed.npy mask.npy out.npy --method erosion
//   cuskimage morphology.h_maxima image.png out.png --h 10
//   cuskimage morphology.flood image.png mask.npy --seed_point 40,50 --tolerance 20
//   cuskimage morphology.remove_small_objects mask.png out.png --max_size 100
// Footprints are array files (non-zero = in). local_maxima --indices true writes the int64
// (k, ndim) coordinates.
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using namespace cuskimage::morphology;

Array opt_footprint(Invocation& inv) { return inv.has("footprint") ? inv.array("footprint").share() : Array(); }
int opt_connectivity(Invocation& inv) {
  return inv.has("connectivity") ? static_cast<int>(inv.integer("connectivity")) : 0;
}

using ExtremaFn = Array (*)(const Array&, const LocalExtremaOptions&, const Stream&);
using HFn = Array (*)(const Array&, double, const HExtremaOptions&, const Stream&);

Command local_extrema(const std::string& name, const std::string& summary, ExtremaFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .param(Param::array("footprint", "none", "3^ndim neighbourhood (.npy, non-zero = in); default from connectivity"))
      .param(Param::integer("connectivity", "none", "neighbour connectivity, 1..ndim; default: ndim"))
      .param(Param::boolean("indices", "false", "write the int64 (k, ndim) coordinates instead of the mask"))
      .param(Param::boolean("allow_borders", "true", "pixels on the border may be extrema"))
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0),
                  {.footprint = opt_footprint(inv), .connectivity = opt_connectivity(inv), .indices = inv.flag("indices"),
                   .allow_borders = inv.flag("allow_borders")},
                  inv.stream());
      });
}

Command h_extrema(const std::string& name, const std::string& summary, HFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .param(Param::number("h", required, "minimal height (depth) of the extrema"))
      .param(Param::array("footprint", "none", "footprint (.npy, non-zero = in); default: all ones 3^ndim"))
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0), inv.number("h"), {.footprint = opt_footprint(inv)}, inv.stream());
      });
}

FloodOptions flood_options(Invocation& inv) {
  return {.footprint = opt_footprint(inv), .connectivity = opt_connectivity(inv), .tolerance = inv.opt_number("tolerance")};
}

Command flood_command(bool fill) {
  Command c(fill ? "morphology.flood_fill" : "morphology.flood",
            fill ? "Set the region connected to a seed point (within a tolerance) to a new value."
                 : "Mask of the region connected to a seed point (within a tolerance).");
  c.input("image", "input image").param(Param::ints("seed_point", required, "seed index, one per axis (negative from the end)"));
  if (fill) c.param(Param::number("new_value", required, "value written into the region"));
  c.param(Param::array("footprint", "none", "footprint (.npy, odd lengths, non-zero = in); default from connectivity"))
      .param(Param::integer("connectivity", "none", "neighbour connectivity, 1..ndim; default: ndim"))
      .param(Param::number("tolerance", "none", "accept |value - seed value| <= tolerance; default: equal values"))
      .returns_image();
  if (fill)
    c.handler([](Invocation& inv) -> Result {
      return flood_fill(inv.input(0), inv.ints("seed_point"), inv.number("new_value"), flood_options(inv), inv.stream());
    });
  else
    c.handler([](Invocation& inv) -> Result {
      return flood(inv.input(0), inv.ints("seed_point"), flood_options(inv), inv.stream());
    });
  return c;
}

}  // namespace

CUSK_CLI_COMMANDS(morphology_recon) {
  reg.add(Command("morphology.reconstruction", "Morphological reconstruction by dilation or erosion.")
              .input("seed", "seed image (<= mask for dilation, >= mask for erosion)")
              .input("mask", "mask image")
              .param(Param::choice("method", {"dilation", "erosion"}, "dilation", "reconstruction by dilation or erosion"))
              .param(Param::array("footprint", "none", "neighbourhood (.npy, non-zero = in); default: all ones 3^ndim"))
              .param(Param::ints("offset", "none", "index of the footprint's centre; default: its middle"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                ReconstructionOptions o{.method = inv.string("method") == "erosion" ? ReconstructionMethod::erosion
                                                                                   : ReconstructionMethod::dilation,
                                        .footprint = opt_footprint(inv)};
                if (inv.has("offset")) o.offset = inv.ints("offset");
                return reconstruction(inv.input(0), inv.input(1), o, inv.stream());
              }));
  reg.add(local_extrema("local_maxima", "Local maxima: plateaus higher than all their neighbours.", &local_maxima));
  reg.add(local_extrema("local_minima", "Local minima: plateaus lower than all their neighbours.", &local_minima));
  reg.add(h_extrema("h_maxima", "Maxima of height at least h (uint8 mask).", &h_maxima));
  reg.add(h_extrema("h_minima", "Minima of depth at least h (uint8 mask).", &h_minima));
  reg.add(flood_command(false));
  reg.add(flood_command(true));
  reg.add(Command("morphology.remove_small_objects", "Remove connected components (or labels) of at most max_size pixels.")
              .input("ar", "bool mask or integer label image")
              .param(Param::integer("max_size", "64", "objects of at most this many pixels are removed"))
              .param(Param::integer("min_size", "none", "deprecated: remove objects smaller than this instead"))
              .param(Param::integer("connectivity", "1", "neighbour connectivity for bool input, 1..ndim"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return remove_small_objects(inv.input(0),
                                            {.max_size = inv.integer("max_size"), .min_size = inv.opt_integer("min_size"),
                                             .connectivity = static_cast<int>(inv.integer("connectivity"))},
                                            inv.stream());
              }));
  reg.add(Command("morphology.remove_small_holes", "Fill holes of at most max_size pixels (bool result).")
              .input("ar", "mask (non-zero = foreground)")
              .param(Param::integer("max_size", "64", "holes of at most this many pixels are filled"))
              .param(Param::integer("area_threshold", "none", "deprecated: fill holes smaller than this instead"))
              .param(Param::integer("connectivity", "1", "neighbour connectivity, 1..ndim"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return remove_small_holes(inv.input(0),
                                          {.max_size = inv.integer("max_size"),
                                           .area_threshold = inv.opt_integer("area_threshold"),
                                           .connectivity = static_cast<int>(inv.integer("connectivity"))},
                                          inv.stream());
              }));
}

}  // namespace cuskimage::cli
