// morphology.isotropic_* and morphology.medial_axis on the command line.
//   cuskimage morphology.isotropic_erosion mask.png out.png --radius 4.5 --spacing 1,2
//   cuskimage morphology.medial_axis mask.png skel.png [roi_mask.png] --rng 7
// medial_axis's return_distance is C++-API only (distance_transform_edt gives the same distances).
#include <string>

#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using IsoFn = Array (*)(const Array&, double, const morphology::IsotropicOptions&, const Stream&);

Command isotropic(const std::string& name, const std::string& summary, IsoFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "binary input image (non-zero = true)")
      .param(Param::number("radius", required, "radius of the (Euclidean) footprint"))
      .options<morphology::IsotropicOptions>()
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0), inv.number("radius"), inv.options<morphology::IsotropicOptions>(), inv.stream());
      });
}

}  // namespace

CUSK_CLI_COMMANDS(morphology_edt) {
  reg.add(isotropic("isotropic_erosion", "Binary erosion by a disk/ball: the distance transform above the radius.",
                    &morphology::isotropic_erosion));
  reg.add(isotropic("isotropic_dilation", "Binary dilation by a disk/ball: the background's distance within the radius.",
                    &morphology::isotropic_dilation));
  reg.add(isotropic("isotropic_opening", "Isotropic erosion then dilation.", &morphology::isotropic_opening));
  reg.add(isotropic("isotropic_closing", "Isotropic dilation then erosion.", &morphology::isotropic_closing));
  reg.add(Command("morphology.medial_axis", "Medial axis of a 2-D binary image (scikit-image's exact result for the seed).")
              .input("image", "binary 2-D image (non-zero = foreground)")
              .optional_input("mask", "only pixels where the mask is non-zero are used")
              .options<morphology::MedialAxisOptions>({"mask", "return_distance"})  // the input; one output
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<morphology::MedialAxisOptions>();
                if (inv.num_inputs() > 1) o.mask = inv.input(1).share();
                return std::move(morphology::medial_axis(inv.input(0), o, inv.stream()).skeleton);
              }));
}

}  // namespace cuskimage::cli
