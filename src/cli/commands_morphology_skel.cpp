// morphology skeletons and convex hulls on the command line.
//   cuskimage morphology.skeletonize mask.png skel.png --method lee
//   cuskimage morphology.thin mask.png out.npy --max_num_iter 5
//   cuskimage morphology.convex_hull_image mask.png hull.png --include_borders false
//   cuskimage morphology.convex_hull_object labels.npy hull.png --connectivity 1
#include "cuskimage/morphology.hpp"
#include "src/cli/codec_morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

using namespace cuskimage::morphology;

CUSK_CLI_COMMANDS(morphology_skel) {
  reg.add(Command("morphology.skeletonize", "Skeleton of a 2-D or 3-D binary image by thinning.")
              .input("image", "input image (non-zero = foreground)")
              .options<SkeletonizeOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return skeletonize(inv.input(0), inv.options<SkeletonizeOptions>(), inv.stream());
              }));
  reg.add(Command("morphology.thin", "Morphological thinning of a 2-D binary image (Guo & Hall).")
              .input("image", "input image (non-zero = foreground)")
              .options<ThinOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result { return thin(inv.input(0), inv.options<ThinOptions>(), inv.stream()); }));
  reg.add(Command("morphology.convex_hull_image", "Convex hull image of a 2-D binary image.")
              .input("image", "input image (cast to uint8; non-zero = foreground)")
              .options<ConvexHullOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return convex_hull_image(inv.input(0), inv.options<ConvexHullOptions>(), inv.stream());
              }));
  reg.add(Command("morphology.convex_hull_object", "Union of the convex hulls of each object of a 2-D image.")
              .input("image", "input image (objects: connected pixels of equal non-zero value)")
              .options<ConvexHullObjectOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return convex_hull_object(inv.input(0), inv.options<ConvexHullObjectOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
