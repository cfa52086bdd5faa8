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
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;
using namespace cuskimage::morphology;

Param dtype_param() { return Param::dtype("dtype", "uint8", "data type of the footprint"); }

/// scikit-image's decomposition keyword: None (unset) or one of `choices`.
Param decomposition_param(std::vector<std::string> choices) {
  std::string help = "None for one array; ";
  for (std::size_t i = 0; i < choices.size(); ++i) help += (i ? " or " : "") + choices[i];
  help += " for a sequence of smaller footprints: the equivalent footprint is written and the sequence printed as JSON";
  return Param::choice("decomposition", std::move(choices), "none", std::move(help));
}

Decomposition decomposition(const Invocation& inv) {
  return inv.has("decomposition") ? decomposition_from_name(inv.string("decomposition")) : Decomposition::none;
}

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

}  // namespace

CUSK_CLI_COMMANDS(morphology) {
  reg.add(Command("morphology.disk", "Generate a flat, disk-shaped footprint.")
              .param(Param::integer("radius", required, "radius of the disk"))
              .param(dtype_param())
              .param(Param::boolean("strict_radius", "true", "false extends the radius by 0.5"))
              .param(decomposition_param({"sequence", "crosses"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(disk(inv.integer("radius"), {.dtype = inv.dtype("dtype"),
                                                                     .strict_radius = inv.flag("strict_radius"),
                                                                     .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.ball", "Generate a ball-shaped footprint (3-D disk).")
              .param(Param::integer("radius", required, "radius of the ball"))
              .param(dtype_param())
              .param(Param::boolean("strict_radius", "true", "false extends the radius by 0.5"))
              .param(decomposition_param({"sequence"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(ball(inv.integer("radius"), {.dtype = inv.dtype("dtype"),
                                                                     .strict_radius = inv.flag("strict_radius"),
                                                                     .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.diamond", "Generate a flat, diamond-shaped footprint (city-block distance <= radius).")
              .param(Param::integer("radius", required, "radius of the diamond"))
              .param(dtype_param())
              .param(decomposition_param({"sequence"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(
                    diamond(inv.integer("radius"), {.dtype = inv.dtype("dtype"), .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.octahedron", "Generate an octahedron-shaped footprint (3-D diamond).")
              .param(Param::integer("radius", required, "radius of the octahedron"))
              .param(dtype_param())
              .param(decomposition_param({"sequence"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(octahedron(inv.integer("radius"),
                                                   {.dtype = inv.dtype("dtype"), .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.octagon", "Generate an octagon-shaped footprint of side m + 2n.")
              .param(Param::integer("m", required, "size of the horizontal and vertical sides"))
              .param(Param::integer("n", required, "height or width of the slanted sides"))
              .param(dtype_param())
              .param(decomposition_param({"sequence"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(octagon(inv.integer("m"), inv.integer("n"),
                                                {.dtype = inv.dtype("dtype"), .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.star", "Generate a star-shaped footprint (a square overlapped with its 45-degree rotation).")
              .param(Param::integer("a", required, "size parameter: the side is 2a + 1 + 2*floor(a/2)"))
              .param(dtype_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result { return star(inv.integer("a"), inv.dtype("dtype")); }));
  reg.add(Command("morphology.ellipse", "Generate a flat, ellipse-shaped footprint of shape (2*height+1, 2*width+1).")
              .param(Param::integer("width", required, "half-width (columns) of the ellipse"))
              .param(Param::integer("height", required, "half-height (rows) of the ellipse"))
              .param(dtype_param())
              .param(decomposition_param({"crosses"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(ellipse(inv.integer("width"), inv.integer("height"),
                                                {.dtype = inv.dtype("dtype"), .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.footprint_rectangle", "Generate a rectangular or hyper-rectangular footprint of ones.")
              .param(Param::ints("shape", required, "length along each dimension (e.g. 3,5 or 3,3,3)"))
              .param(dtype_param())
              .param(decomposition_param({"separable", "sequence"}))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return footprint_result(footprint_rectangle(
                    to_shape(inv.ints("shape")), {.dtype = inv.dtype("dtype"), .decomposition = decomposition(inv)}));
              }));
  reg.add(Command("morphology.mirror_footprint", "Mirror a footprint along each dimension.")
              .input("footprint", "footprint image or .npy")
              .returns_image()
              .handler([](Invocation& inv) -> Result { return mirror_footprint(inv.input(0)); }));
  reg.add(Command("morphology.pad_footprint", "Pad a footprint with zeros to an odd size along each dimension.")
              .input("footprint", "footprint image or .npy")
              .param(Param::boolean("pad_end", "true", "pad at the end of each even axis (else at the front)"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return pad_footprint(inv.input(0), {.pad_end = inv.flag("pad_end")});
              }));
}

}  // namespace cuskimage::cli
