// morphology max-tree filters and remove_objects_by_distance (both backends) on the command line.
//   cuskimage morphology.area_opening image.png out.png --area_threshold 100 --device cuda
//   cuskimage morphology.max_tree image.png parent.npy traverser.npy --connectivity 2 --device cpu
//   cuskimage morphology.remove_objects_by_distance labels.npy [priority.npy] out.npy --min_distance 5
#include <string>

#include "cuskimage/morphology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

using namespace cuskimage::morphology;

namespace {

/// A filter image -> image of options S.
template <class S>
Command filter(const std::string& name, const std::string& summary,
               Array (*fn)(const Array&, const S&, const Stream&)) {
  return Command("morphology." + name, summary)
      .input("image", "input image")
      .options<S>()
      .returns_image()
      .handler([fn](Invocation& inv) -> Result { return fn(inv.input(0), inv.options<S>(), inv.stream()); });
}

}  // namespace

CUSK_CLI_COMMANDS(morphology_maxtree) {
  reg.add(Command("morphology.max_tree", "Max-tree of an image: parent (flat indices) and traverser (int64).")
              .input("image", "input image")
              .options<MaxTreeOptions>()
              .returns_image({"parent", "traverser"})
              .handler([](Invocation& inv) -> Result {
                MaxTree t = max_tree(inv.input(0), inv.options<MaxTreeOptions>(), inv.stream());
                Result r;
                r.images.push_back(std::move(t.parent));
                r.images.push_back(std::move(t.traverser));
                return r;
              }));
  reg.add(filter<AreaFilterOptions>("area_opening", "Removes bright structures of area below a threshold.",
                                    &area_opening));
  reg.add(filter<AreaFilterOptions>("area_closing", "Removes dark structures of area below a threshold.",
                                    &area_closing));
  reg.add(filter<DiameterFilterOptions>("diameter_opening",
                                        "Removes bright structures whose bounding box is below a size.",
                                        &diameter_opening));
  reg.add(filter<DiameterFilterOptions>("diameter_closing", "Removes dark structures whose bounding box is below a size.",
                                        &diameter_closing));
  reg.add(filter<MaxTreeLocalMaximaOptions>("max_tree_local_maxima", "Local maxima labelled from the max-tree (uint64).",
                                            &max_tree_local_maxima));
  reg.add(Command("morphology.remove_objects_by_distance",
                  "Removes objects, lowest priority first, until the rest are more than min_distance apart.")
              .input("label_image", "integer label image")
              .optional_input("priority", "1-D priority per label (default: object sizes)")
              .param(Param::number("min_distance", required, "objects closer than or at this distance go"))
              .options<RemoveObjectsByDistanceOptions>({"priority"})  // the optional input
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<RemoveObjectsByDistanceOptions>();
                if (inv.num_inputs() > 1) o.priority = inv.input(1).share();
                return remove_objects_by_distance(inv.input(0), inv.number("min_distance"), o, inv.stream());
              }));
}

}  // namespace cuskimage::cli
