// measure on the command line.
//   cuskimage measure.label mask.png labels.npy --connectivity 1
// label writes the label image and prints {"num": N} (scikit-image's return_num).
#include <string>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(measure) {
  reg.add(Command("measure.label", "Label connected regions of equal value (numbered in raster order); prints {\"num\": N}.")
              .input("label_image", "image to label (any dtype; pixels equal to background are 0)")
              .options<measure::LabelOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                auto r = measure::label_with_num(inv.input(0), inv.options<measure::LabelOptions>(), inv.stream());
                Result res(std::move(r.labels));
                res.value = nlohmann::json{{"num", r.num}};
                return res;
              }));
}

}  // namespace cuskimage::cli
