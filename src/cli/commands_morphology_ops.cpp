// morphology grey and binary operators on the command line.
//   cuskimage morphology.erosion camera.png out.png --footprint disk5.npy --mode ignore
//   cuskimage morphology.white_tophat in.npy out.npy
//   cuskimage morphology.binary_closing mask.png out.npy --footprint fp.npy --mode max
// The footprint is a single array file (non-zero = in); unset, it is the connectivity-1 cross.
// Decomposed footprints are C++-API only.
#include <string>

#include "cuskimage/morphology.hpp"
#include "src/cli/codec_morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using namespace cuskimage::morphology;

using GrayFn = Array (*)(const Array&, const GrayOptions&, const Stream&);
using BinaryFn = Array (*)(const Array&, const BinaryOptions&, const Stream&);

Command gray(const std::string& name, const std::string& summary, GrayFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .options<GrayOptions>()
      .returns_image()
      .handler([fn](Invocation& inv) -> Result { return fn(inv.input(0), inv.options<GrayOptions>(), inv.stream()); });
}

Command binary(const std::string& name, const std::string& summary, BinaryFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image (non-zero = true)")
      .options<BinaryOptions>()
      .choices("mode", {"max", "min", "ignore"})
      .returns_image()
      .handler([fn](Invocation& inv) -> Result { return fn(inv.input(0), inv.options<BinaryOptions>(), inv.stream()); });
}

}  // namespace

CUSK_CLI_COMMANDS(morphology_ops) {
  reg.add(gray("erosion", "Grey erosion: the minimum over the footprint.", &erosion));
  reg.add(gray("dilation", "Grey dilation: the maximum over the footprint.", &dilation));
  reg.add(gray("opening", "Grey opening: erosion then dilation.", &opening));
  reg.add(gray("closing", "Grey closing: dilation then erosion.", &closing));
  reg.add(gray("white_tophat", "White top-hat: the image minus its opening.", &white_tophat));
  reg.add(gray("black_tophat", "Black top-hat: the closing minus the image.", &black_tophat));
  reg.add(binary("binary_erosion", "Binary erosion (deprecated in scikit-image 0.26; use erosion).", &binary_erosion));
  reg.add(binary("binary_dilation", "Binary dilation (deprecated in scikit-image 0.26; use dilation).", &binary_dilation));
  reg.add(binary("binary_opening", "Binary opening (deprecated in scikit-image 0.26; use opening).", &binary_opening));
  reg.add(binary("binary_closing", "Binary closing (deprecated in scikit-image 0.26; use closing).", &binary_closing));
}

}  // namespace cuskimage::cli
