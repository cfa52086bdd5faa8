// Superpixel segmentation on the command line (labels out, int64).
//   cuskimage segmentation.slic rgb.png labels.npy --n_segments 2000 --compactness 10
//   cuskimage segmentation.slic grey.npy labels.npy --channel_axis none --compactness 0.1
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
}

}  // namespace cuskimage::cli
