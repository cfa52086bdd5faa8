// feature.match_template, feature.hog, feature.daisy and the Haar-like feature commands on the
// command line (images and arrays written as .npy or images).
//   cuskimage feature.match_template image.npy template.npy response.npy --pad_input true --mode reflect
#include "cuskimage/feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(feature_hog) {
  reg.add(Command("feature.match_template",
                  "Normalised cross-correlation of a template with every window of a 2-D or 3-D image.")
              .input("image", "2-D or 3-D image")
              .input("template", "template (.npy), the image's ndim, no larger than the image")
              .options<feature::MatchTemplateOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return feature::match_template(inv.input(0), inv.input(1),
                                               inv.options<feature::MatchTemplateOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
