// Superpixel segmentation on the command line (labels out, int64).
//   cuskimage segmentation.slic rgb.png labels.npy --n_segments 2000 --compactness 10
//   cuskimage segmentation.slic grey.npy labels.npy --channel_axis none --compactness 0.1
//   cuskimage segmentation.felzenszwalb rgb.png labels.npy --scale 100 --min_size 50
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
}

}  // namespace cuskimage::cli
