// segmentation.random_walker on the command line.
//   cuskimage segmentation.random_walker img.png seeds.npy out.npy --beta 90 --mode cg
//   cuskimage segmentation.random_walker rgb.png seeds.npy prob.npy --channel_axis -1 --return_full_prob true
#include "cuskimage/segmentation.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(segmentation_random_walker) {
  reg.add(Command("segmentation.random_walker",
                  "Random walker segmentation from seed labels (0 unlabelled, < 0 inactive): labels, or the "
                  "per-label probabilities with --return_full_prob.")
              .input("data", "2-D/3-D grey image, or with --channel_axis a multichannel one")
              .input("labels", "integer seed labels of the data's spatial shape")
              .options<segmentation::RandomWalkerOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::random_walker(inv.input(0), inv.input(1),
                                                   inv.options<segmentation::RandomWalkerOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
