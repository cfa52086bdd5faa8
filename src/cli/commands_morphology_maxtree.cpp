// morphology max-tree filters and remove_objects_by_distance (both backends) on the command line.
//   cuskimage morphology.area_opening image.png out.png --area_threshold 100 --device cuda
//   cuskimage morphology.max_tree image.png parent.npy traverser.npy --connectivity 2 --device cpu
//   cuskimage morphology.remove_objects_by_distance labels.npy [priority.npy] out.npy --min_distance 5
#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

using namespace cuskimage::morphology;

namespace {

Param connectivity_param() {
  return Param::integer("connectivity", "1", "orthogonal steps to a neighbour, 1..ndim");
}

int connectivity(Invocation& inv) { return static_cast<int>(inv.integer("connectivity")); }

}  // namespace

CUSK_CLI_COMMANDS(morphology_maxtree) {
  reg.add(Command("morphology.max_tree", "Max-tree of an image: parent (flat indices) and traverser (int64).")
              .input("image", "input image")
              .param(connectivity_param())
              .returns_image({"parent", "traverser"})
              .handler([](Invocation& inv) -> Result {
                MaxTree t = max_tree(inv.input(0), {.connectivity = connectivity(inv)}, inv.stream());
                Result r;
                r.images.push_back(std::move(t.parent));
                r.images.push_back(std::move(t.traverser));
                return r;
              }));
  reg.add(Command("morphology.area_opening", "Removes bright structures of area below a threshold.")
              .input("image", "input image")
              .param(Param::number("area_threshold", "64", "smallest area (pixels) kept"))
              .param(connectivity_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return area_opening(inv.input(0),
                                    {.area_threshold = inv.number("area_threshold"), .connectivity = connectivity(inv)},
                                    inv.stream());
              }));
  reg.add(Command("morphology.area_closing", "Removes dark structures of area below a threshold.")
              .input("image", "input image")
              .param(Param::number("area_threshold", "64", "smallest area (pixels) kept"))
              .param(connectivity_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return area_closing(inv.input(0),
                                    {.area_threshold = inv.number("area_threshold"), .connectivity = connectivity(inv)},
                                    inv.stream());
              }));
  reg.add(Command("morphology.diameter_opening", "Removes bright structures whose bounding box is below a size.")
              .input("image", "input image")
              .param(Param::number("diameter_threshold", "8", "smallest bounding-box side kept"))
              .param(connectivity_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return diameter_opening(
                    inv.input(0), {.diameter_threshold = inv.number("diameter_threshold"), .connectivity = connectivity(inv)},
                    inv.stream());
              }));
  reg.add(Command("morphology.diameter_closing", "Removes dark structures whose bounding box is below a size.")
              .input("image", "input image")
              .param(Param::number("diameter_threshold", "8", "smallest bounding-box side kept"))
              .param(connectivity_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return diameter_closing(
                    inv.input(0), {.diameter_threshold = inv.number("diameter_threshold"), .connectivity = connectivity(inv)},
                    inv.stream());
              }));
  reg.add(Command("morphology.max_tree_local_maxima", "Local maxima labelled from the max-tree (uint64).")
              .input("image", "input image")
              .param(connectivity_param())
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return max_tree_local_maxima(inv.input(0), {.connectivity = connectivity(inv)}, inv.stream());
              }));
  reg.add(Command("morphology.remove_objects_by_distance",
                  "Removes objects, lowest priority first, until the rest are more than min_distance apart.")
              .input("label_image", "integer label image")
              .optional_input("priority", "1-D priority per label (default: object sizes)")
              .param(Param::number("min_distance", std::nullopt, "objects closer than or at this distance go"))
              .param(Param::number("p_norm", "2", "Minkowski p-norm (>= 1; inf allowed)"))
              .param(Param::numbers("spacing", "none", "pixel spacing, one per axis"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                RemoveObjectsByDistanceOptions o{.p_norm = inv.number("p_norm")};
                if (inv.has("spacing")) o.spacing = inv.numbers("spacing");
                if (inv.num_inputs() > 1) o.priority = inv.input(1).share();
                return remove_objects_by_distance(inv.input(0), inv.number("min_distance"), o, inv.stream());
              }));
}

}  // namespace cuskimage::cli
