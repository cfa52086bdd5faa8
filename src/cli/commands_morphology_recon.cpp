// morphology reconstruction, extrema, flood fill and small-object removal on the command line.
//   cuskimage morphology.reconstruction seed.npy mask.npy out.npy --method erosion
//   cuskimage morphology.h_maxima image.png out.png --h 10
//   cuskimage morphology.flood image.png mask.npy --seed_point 40,50 --tolerance 20
//   cuskimage morphology.remove_small_objects mask.png out.png --max_size 100
// Footprints are array files (non-zero = in). local_maxima --indices true writes the int64
// (k, ndim) coordinates.
#include <string>

#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using namespace cuskimage::morphology;

using ExtremaFn = Array (*)(const Array&, const LocalExtremaOptions&, const Stream&);
using HFn = Array (*)(const Array&, double, const HExtremaOptions&, const Stream&);

Command local_extrema(const std::string& name, const std::string& summary, ExtremaFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .options<LocalExtremaOptions>()
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0), inv.options<LocalExtremaOptions>(), inv.stream());
      });
}

Command h_extrema(const std::string& name, const std::string& summary, HFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .param(Param::number("h", required, "minimal height (depth) of the extrema"))
      .options<HExtremaOptions>()
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0), inv.number("h"), inv.options<HExtremaOptions>(), inv.stream());
      });
}

Command flood_command(bool fill) {
  Command c(fill ? "morphology.flood_fill" : "morphology.flood",
            fill ? "Set the region connected to a seed point (within a tolerance) to a new value."
                 : "Mask of the region connected to a seed point (within a tolerance).");
  c.input("image", "input image").param(Param::ints("seed_point", required, "seed index, one per axis (negative from the end)"));
  if (fill) c.param(Param::number("new_value", required, "value written into the region"));
  c.options<FloodOptions>({"in_place"}).returns_image();  // the result is always a new file
  if (fill)
    c.handler([](Invocation& inv) -> Result {
      return flood_fill(inv.input(0), inv.ints("seed_point"), inv.number("new_value"), inv.options<FloodOptions>(),
                        inv.stream());
    });
  else
    c.handler([](Invocation& inv) -> Result {
      return flood(inv.input(0), inv.ints("seed_point"), inv.options<FloodOptions>(), inv.stream());
    });
  return c;
}

}  // namespace

CUSK_CLI_COMMANDS(morphology_recon) {
  reg.add(Command("morphology.reconstruction", "Morphological reconstruction by dilation or erosion.")
              .input("seed", "seed image (<= mask for dilation, >= mask for erosion)")
              .input("mask", "mask image")
              .options<ReconstructionOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return reconstruction(inv.input(0), inv.input(1), inv.options<ReconstructionOptions>(), inv.stream());
              }));
  reg.add(local_extrema("local_maxima", "Local maxima: plateaus higher than all their neighbours.", &local_maxima));
  reg.add(local_extrema("local_minima", "Local minima: plateaus lower than all their neighbours.", &local_minima));
  reg.add(h_extrema("h_maxima", "Maxima of height at least h (uint8 mask).", &h_maxima));
  reg.add(h_extrema("h_minima", "Minima of depth at least h (uint8 mask).", &h_minima));
  reg.add(flood_command(false));
  reg.add(flood_command(true));
  reg.add(Command("morphology.remove_small_objects", "Remove connected components (or labels) of at most max_size pixels.")
              .input("ar", "bool mask or integer label image")
              .options<RemoveSmallObjectsOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return remove_small_objects(inv.input(0), inv.options<RemoveSmallObjectsOptions>(), inv.stream());
              }));
  reg.add(Command("morphology.remove_small_holes", "Fill holes of at most max_size pixels (bool result).")
              .input("ar", "mask (non-zero = foreground)")
              .options<RemoveSmallHolesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return remove_small_holes(inv.input(0), inv.options<RemoveSmallHolesOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
