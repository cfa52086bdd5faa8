// Superpixel segmentation on the command line (labels out, int64).
//   cuskimage segmentation.slic rgb.png labels.npy --n_segments 2000 --compactness 10
//   cuskimage segmentation.slic grey.npy labels.npy --channel_axis none --compactness 0.1
//   cuskimage segmentation.felzenszwalb rgb.png labels.npy --scale 100 --min_size 50
//   cuskimage segmentation.quickshift rgb.png labels.npy --kernel_size 3 --max_dist 6 --rng 7
#include "cuskimage/error.hpp"
#include "cuskimage/segmentation.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(segmentation_superpixels) {
  reg.add(Command("segmentation.slic", "SLIC superpixels: k-means in colour-(z,y,x) space (int64 labels).")
              .input("image", "2-D or 3-D image, greyscale or with channels (channel_axis)")
              .options<segmentation::SlicOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::slic(inv.input(0), inv.options<segmentation::SlicOptions>(), inv.stream());
              }));
  reg.add(Command("segmentation.felzenszwalb", "Felzenszwalb's graph-based segmentation of a 2-D image (int64 labels).")
              .input("image", "2-D greyscale image, or 2-D with channels (channel_axis)")
              .options<segmentation::FelzenszwalbOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::felzenszwalb(inv.input(0), inv.options<segmentation::FelzenszwalbOptions>(),
                                                  inv.stream());
              }));
  reg.add(Command("segmentation.quickshift", "Quick shift mode seeking in colour-(y,x) space (int64 labels).")
              .input("image", "2-D image with channels (RGB for the Lab conversion)")
              .options<segmentation::QuickshiftOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto o = inv.options<segmentation::QuickshiftOptions>();
                if (o.return_tree)
                  throw InvalidArgument(
                      "segmentation.quickshift: --return_tree has three outputs: use "
                      "segmentation.quickshift_tree");
                return segmentation::quickshift(inv.input(0), o, inv.stream());
              }));
  reg.add(Command("segmentation.quickshift_tree",
                  "quickshift with return_tree=True: the labels, each pixel's parent and the distance to it.")
              .input("image", "2-D image with channels (RGB for the Lab conversion)")
              .options<segmentation::QuickshiftOptions>()
              .returns_image({"labels", "parent", "dist_parent"})
              .handler([](Invocation& inv) -> Result {
                auto t = segmentation::quickshift_tree(inv.input(0), inv.options<segmentation::QuickshiftOptions>(),
                                                       inv.stream());
                Result r(std::move(t.labels));
                r.images.push_back(std::move(t.parent));
                r.images.push_back(std::move(t.dist_parent));
                return r;
              }));
}

}  // namespace cuskimage::cli
