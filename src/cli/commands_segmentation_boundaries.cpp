// segmentation's label utilities on the command line: boundaries, clear_border, expand_labels and
// the relabelling of _join (their maps are written as 1-D .npy files).
//   cuskimage segmentation.find_boundaries labels.npy bnd.npy --mode inner
//   cuskimage segmentation.mark_boundaries img.png labels.npy marked.npy --color 1,0,0
//   cuskimage segmentation.relabel_sequential labels.npy out.npy fw_in.npy fw_out.npy --offset 5
#include "cuskimage/segmentation.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(segmentation_boundaries) {
  reg.add(Command("segmentation.find_boundaries", "Bool image, True where a label meets another label.")
              .input("label_img", "label image (bool or integer; float for thick/inner)")
              .options<segmentation::FindBoundariesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::find_boundaries(inv.input(0), inv.options<segmentation::FindBoundariesOptions>(),
                                                     inv.stream());
              }));
  reg.add(Command("segmentation.mark_boundaries", "The image as float RGB with the label boundaries painted.")
              .input("image", "(M, N) or (M, N, 3) image")
              .input("label_img", "(M, N) label image")
              .options<segmentation::MarkBoundariesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::mark_boundaries(inv.input(0), inv.input(1),
                                                     inv.options<segmentation::MarkBoundariesOptions>(), inv.stream());
              }));
  reg.add(Command("segmentation.clear_border", "The labels with the objects touching the border cleared.")
              .input("labels", "label image")
              .options<segmentation::ClearBorderOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::clear_border(inv.input(0), inv.options<segmentation::ClearBorderOptions>(),
                                                  inv.stream());
              }));
  reg.add(Command("segmentation.expand_labels", "Labels grown into the background by a Euclidean distance.")
              .input("label_image", "label image")
              .options<segmentation::ExpandLabelsOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::expand_labels(inv.input(0), inv.options<segmentation::ExpandLabelsOptions>(),
                                                   inv.stream());
              }));
  reg.add(Command("segmentation.join_segmentations",
                  "One label per pair of labels of two segmentations, with the maps back to each.")
              .input("s1", "first label image (integer)")
              .input("s2", "second label image (integer, s1's shape)")
              .returns_image({"output", "map_in", "map_to_s1", "map_to_s2"})
              .handler([](Invocation& inv) -> Result {
                auto r = segmentation::join_segmentations_with_mapping(inv.input(0), inv.input(1), inv.stream());
                Result res;
                res.images.push_back(std::move(r.joined));
                res.images.push_back(std::move(r.map_to_s1.in_values));
                res.images.push_back(std::move(r.map_to_s1.out_values));
                res.images.push_back(std::move(r.map_to_s2.out_values));
                return res;
              }));
  reg.add(Command("segmentation.relabel_sequential", "Labels renumbered offset, offset + 1, ... (0 stays 0).")
              .input("label_field", "label image (integer, no negative values)")
              .options<segmentation::RelabelSequentialOptions>()
              .returns_image({"output", "forward_in", "forward_out"})
              .handler([](Invocation& inv) -> Result {
                auto r = segmentation::relabel_sequential(
                    inv.input(0), inv.options<segmentation::RelabelSequentialOptions>(), inv.stream());
                Result res;
                res.images.push_back(std::move(r.relabeled));
                res.images.push_back(std::move(r.forward.in_values));
                res.images.push_back(std::move(r.forward.out_values));
                return res;
              }));
}

}  // namespace cuskimage::cli
