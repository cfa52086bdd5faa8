// segmentation.watershed on the command line: markers from a label file, a count, or (neither)
// the image's labelled local minima.
//   cuskimage segmentation.watershed dist.npy labels.npy --markers markers.npy --mask mask.npy
//   cuskimage segmentation.watershed grad.png labels.npy --n_markers 250 --compactness 0.01
#include "cuskimage/segmentation.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(segmentation_watershed) {
  reg.add(Command("segmentation.watershed",
                  "Marker-controlled watershed: basins flooded from the markers in order of pixel value (labels: the "
                  "markers' dtype; int64 for --n_markers, int32 for the local minima).")
              .input("image", "image to flood (lowest values first)")
              .param(Param::array("markers", "none", "integer marker labels, 0 = no marker (.npy)"))
              .param(Param::integer("n_markers", "none", "a number of regularly spaced markers instead"))
              .options<segmentation::WatershedOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto o = inv.options<segmentation::WatershedOptions>();
                if (inv.has("markers") && inv.has("n_markers"))
                  throw InvalidArgument("segmentation.watershed: give --markers or --n_markers, not both");
                if (inv.has("markers")) return segmentation::watershed(inv.input(0), inv.array("markers"), o, inv.stream());
                if (inv.has("n_markers"))
                  return segmentation::watershed(inv.input(0), *inv.opt_integer("n_markers"), o, inv.stream());
                return segmentation::watershed(inv.input(0), o, inv.stream());
              }));
}

}  // namespace cuskimage::cli
