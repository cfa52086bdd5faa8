// morphology skeletons and convex hulls on the command line.
//   cuskimage morphology.skeletonize mask.png skel.png --method lee
//   cuskimage morphology.thin mask.png out.npy --max_num_iter 5
//   cuskimage morphology.convex_hull_image mask.png hull.png --include_borders false
//   cuskimage morphology.convex_hull_object labels.npy hull.png --connectivity 1
#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

using namespace cuskimage::morphology;

CUSK_CLI_COMMANDS(morphology_skel) {
  reg.add(Command("morphology.skeletonize", "Skeleton of a 2-D or 3-D binary image by thinning.")
              .input("image", "input image (non-zero = foreground)")
              .param(Param::choice("method", {"zhang", "lee"}, "none",
                                   "'zhang' (2-D) or 'lee' (2-D and 3-D); none: zhang for 2-D, lee for 3-D"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return skeletonize(inv.input(0), {.method = inv.has("method") ? skeleton_method_from_name(inv.string("method"))
                                                                          : SkeletonMethod::none},
                                   inv.stream());
              }));
  reg.add(Command("morphology.thin", "Morphological thinning of a 2-D binary image (Guo & Hall).")
              .input("image", "input image (non-zero = foreground)")
              .param(Param::integer("max_num_iter", "none", "upper bound on the iterations (none: until stable)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return thin(inv.input(0), {.max_num_iter = inv.opt_integer("max_num_iter").value_or(0)}, inv.stream());
              }));
  reg.add(Command("morphology.convex_hull_image", "Convex hull image of a 2-D binary image.")
              .input("image", "input image (cast to uint8; non-zero = foreground)")
              .param(Param::boolean("offset_coordinates", "true", "represent pixels by their edge midpoints"))
              .param(Param::number("tolerance", "1e-10", "N-d inclusion tolerance (unused in 2-D)"))
              .param(Param::boolean("include_borders", "true", "keep pixels whose centre is on the hull's boundary"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return convex_hull_image(inv.input(0),
                                         {.offset_coordinates = inv.flag("offset_coordinates"),
                                          .tolerance = inv.number("tolerance"),
                                          .include_borders = inv.flag("include_borders")},
                                         inv.stream());
              }));
  reg.add(Command("morphology.convex_hull_object", "Union of the convex hulls of each object of a 2-D image.")
              .input("image", "input image (objects: connected pixels of equal non-zero value)")
              .param(Param::integer("connectivity", "2", "1: 4-connected objects, 2: 8-connected"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return convex_hull_object(inv.input(0), {.connectivity = static_cast<int>(inv.integer("connectivity"))},
                                          inv.stream());
              }));
}

}  // namespace cuskimage::cli
