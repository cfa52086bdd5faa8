// morphology grey and binary operators on the command line.
//   cuskimage morphology.erosion camera.png out.png --footprint disk5.npy --mode ignore
//   cuskimage morphology.white_tophat in.npy out.npy
//   cuskimage morphology.binary_closing mask.png out.npy --footprint fp.npy --mode max
// The footprint is a single array file (non-zero = in); unset, it is the connectivity-1 cross.
// Decomposed footprints are C++-API only.
#include <functional>
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using namespace cuskimage::morphology;

Param footprint_param() {
  return Param::array("footprint", "none", "footprint array (.npy path, non-zero = in); default: the cross of connectivity 1");
}

Footprint footprint(Invocation& inv) {
  return inv.has("footprint") ? Footprint(inv.array("footprint").share()) : Footprint();
}

using GrayFn = Array (*)(const Array&, const GrayOptions&, const Stream&);
using BinaryFn = Array (*)(const Array&, const BinaryOptions&, const Stream&);

Command gray(const std::string& name, const std::string& summary, GrayFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .param(footprint_param())
      .param(Param::choice("mode", {"reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"},
                           "reflect", "how the image is extended beyond its edges ('ignore': outside pixels never win)"))
      .param(Param::number("cval", "0.0", "value outside the edges for mode 'constant'"))
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0),
                  {.footprint = footprint(inv), .mode = morph_mode_from_name(inv.string("mode")), .cval = inv.number("cval")},
                  inv.stream());
      });
}

Command binary(const std::string& name, const std::string& summary, BinaryFn fn) {
  return Command("morphology." + name, summary)
      .input("image", "input image (non-zero = true)")
      .param(footprint_param())
      .param(Param::choice("mode", {"max", "min", "ignore"}, "ignore",
                           "border handling: 'max' (outside is true), 'min' (false), 'ignore'"))
      .returns_image()
      .handler([fn](Invocation& inv) -> Result {
        return fn(inv.input(0), {.footprint = footprint(inv), .mode = morph_mode_from_name(inv.string("mode"))},
                  inv.stream());
      });
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
