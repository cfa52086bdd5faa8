// morphology.* commands: skimage.morphology on the command line.
//   cuskimage morphology.disk disk5.npy --radius 5
//   cuskimage morphology.disk seq.npy --radius 7 --decomposition sequence   (prints the sequence)
//   cuskimage morphology.footprint_rectangle r.npy --shape 3,5 --dtype bool
//   cuskimage morphology.mirror_footprint fp.npy mirrored.npy
//
// Footprint commands take no input image and write the footprint to OUTPUT (.npy keeps the dtype;
// PNG/TIFF need an image dtype). With a decomposition they write the equivalent single footprint
// (footprint_from_sequence, bool) and print the sequence on stdout as JSON:
// [{"footprint": [[...]], "num_iter": n}, ...].
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/cli/codec_morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;
using namespace cuskimage::morphology;

/// The footprint itself, or for a sequence its equivalent footprint plus the sequence as JSON.
Result footprint_result(Footprint fp) {
  if (!fp.is_sequence()) return Result(fp.array().share());
  json seq = json::array();
  for (const auto& el : fp.sequence())
    seq.push_back({{"footprint", array_to_json(el.footprint)}, {"num_iter", el.num_iter}});
  Result r(footprint_from_sequence(fp));
  r.value = std::move(seq);
  return r;
}

Shape to_shape(const std::vector<std::int64_t>& v) { return Shape(v.begin(), v.end()); }

/// A footprint generator of one size argument (radius) and options S; `decompositions` are those
/// the generator supports (an empty list: none).
template <class S>
Command footprint_command(const std::string& name, const std::string& summary, const std::string& size_help,
                          std::vector<std::string> decompositions, Footprint (*fn)(std::int64_t, const S&)) {
  Command c("morphology." + name, summary);
  c.param(Param::integer("radius", required, size_help)).options<S>().choices("decomposition", std::move(decompositions));
  c.returns_image().handler([fn](Invocation& inv) -> Result {
    return footprint_result(fn(inv.integer("radius"), inv.options<S>()));
  });
  return c;
}

}  // namespace

CUSK_CLI_COMMANDS(morphology) {
  reg.add(footprint_command<SphereOptions>("disk", "Generate a flat, disk-shaped footprint.", "radius of the disk",
                                           {"sequence", "crosses"}, &disk));
  reg.add(footprint_command<SphereOptions>("ball", "Generate a ball-shaped footprint (3-D disk).", "radius of the ball",
                                           {"sequence"}, &ball));
  reg.add(footprint_command<FootprintOptions>(
      "diamond", "Generate a flat, diamond-shaped footprint (city-block distance <= radius).", "radius of the diamond",
      {"sequence"}, &diamond));
  reg.add(footprint_command<FootprintOptions>("octahedron", "Generate an octahedron-shaped footprint (3-D diamond).",
                                              "radius of the octahedron", {"sequence"}, &octahedron));
  reg.add(Command("morphology.octagon", "Generate an octagon-shaped footprint of side m + 2n.")
              .param(Param::integer("m", required, "size of the horizontal and vertical sides"))
              .param(Param::integer("n", required, "height or width of the slanted sides"))
              .options<FootprintOptions>()
              .choices("decomposition", {"sequence"})
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(octagon(inv.integer("m"), inv.integer("n"), inv.options<FootprintOptions>()));
              }));
  reg.add(Command("morphology.star", "Generate a star-shaped footprint (a square overlapped with its 45-degree rotation).")
              .param(Param::integer("a", required, "size parameter: the side is 2a + 1 + 2*floor(a/2)"))
              .param(Param::dtype("dtype", "uint8", "data type of the footprint"))
              .returns_image()
              .handler([](Invocation& inv) -> Result { return star(inv.integer("a"), inv.dtype("dtype")); }));
  reg.add(Command("morphology.ellipse", "Generate a flat, ellipse-shaped footprint of shape (2*height+1, 2*width+1).")
              .param(Param::integer("width", required, "half-width (columns) of the ellipse"))
              .param(Param::integer("height", required, "half-height (rows) of the ellipse"))
              .options<FootprintOptions>()
              .choices("decomposition", {"crosses"})
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(
                    ellipse(inv.integer("width"), inv.integer("height"), inv.options<FootprintOptions>()));
              }));
  reg.add(Command("morphology.footprint_rectangle", "Generate a rectangular or hyper-rectangular footprint of ones.")
              .param(Param::ints("shape", required, "length along each dimension (e.g. 3,5 or 3,3,3)"))
              .options<FootprintOptions>()
              .choices("decomposition", {"separable", "sequence"})
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(footprint_rectangle(to_shape(inv.ints("shape")), inv.options<FootprintOptions>()));
              }));
  reg.add(Command("morphology.mirror_footprint", "Mirror a footprint along each dimension.")
              .input("footprint", "footprint image or .npy")
              .returns_image()
              .handler([](Invocation& inv) -> Result { return mirror_footprint(inv.input(0)); }));
  reg.add(Command("morphology.pad_footprint", "Pad a footprint with zeros to an odd size along each dimension.")
              .input("footprint", "footprint image or .npy")
              .options<PadFootprintOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return pad_footprint(inv.input(0), inv.options<PadFootprintOptions>());
              }));
}

}  // namespace cuskimage::cli
