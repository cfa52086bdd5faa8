// feature.match_template, feature.hog, feature.daisy and the Haar-like feature commands on the
// command line (images and arrays written as .npy or images).
//   cuskimage feature.match_template image.npy template.npy response.npy --pad_input true --mode reflect
//   cuskimage feature.hog image.png features.npy hog.npy --pixels_per_cell 16,16 --block_norm L1
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
  reg.add(Command("feature.hog",
                  "Histogram of oriented gradients: the feature vector and the HOG image (always drawn here).")
              .input("image", "2-D image (with --channel_axis for colour)")
              .options<feature::HogOptions>()
              .returns_image({"features", "hog_image"})
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<feature::HogOptions>();
                o.visualize = true;
                feature::HogResult r = feature::hog(inv.input(0), o, inv.stream());
                Result res;
                res.images.push_back(std::move(r.features));
                res.images.push_back(std::move(r.hog_image));
                return res;
              }));
}

}  // namespace cuskimage::cli
