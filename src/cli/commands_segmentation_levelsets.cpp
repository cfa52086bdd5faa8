// segmentation level sets on the command line: the morphsnakes (MorphACWE, MorphGAC and their
// helpers). iter_callback is C++-only.
//   cuskimage segmentation.morphological_chan_vese img.png ls.npy --num_iter 50 --smoothing 2
//   cuskimage segmentation.morphological_geodesic_active_contour gimg.npy ls.npy --num_iter 100 --balloon 1
//   cuskimage segmentation.inverse_gaussian_gradient img.png gimg.npy --sigma 3
//   cuskimage segmentation.checkerboard_level_set ls.npy --image_shape 64,64 --square_size 8
//   cuskimage segmentation.chan_vese img.png seg.png phi.npy --max_num_iter 200 --init_method "small disk"
//   cuskimage segmentation.active_contour img.png snake.npy out.npy --boundary_condition fixed-free
#include "cuskimage/segmentation.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

CUSK_CLI_COMMANDS(segmentation_levelsets) {
  reg.add(Command("segmentation.morphological_chan_vese",
                  "Morphological Active Contours without Edges: the final int8 level set.")
              .input("image", "2-D or 3-D image")
              .param(Param::integer("num_iter", required, "number of iterations"))
              .options<segmentation::MorphologicalChanVeseOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::morphological_chan_vese(
                    inv.input(0), static_cast<int>(inv.integer("num_iter")),
                    inv.options<segmentation::MorphologicalChanVeseOptions>(), inv.stream());
              }));
  reg.add(Command("segmentation.morphological_geodesic_active_contour",
                  "Morphological Geodesic Active Contours on a float edge-indicator image: the final int8 level set.")
              .input("gimage", "2-D or 3-D float image (e.g. inverse_gaussian_gradient's)")
              .param(Param::integer("num_iter", required, "number of iterations"))
              .options<segmentation::MorphologicalGeodesicActiveContourOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::morphological_geodesic_active_contour(
                    inv.input(0), static_cast<int>(inv.integer("num_iter")),
                    inv.options<segmentation::MorphologicalGeodesicActiveContourOptions>(), inv.stream());
              }));
  reg.add(Command("segmentation.inverse_gaussian_gradient",
                  "1 / sqrt(1 + alpha |gradient of the Gaussian-smoothed image|).")
              .input("image", "input image")
              .options<segmentation::InverseGaussianGradientOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::inverse_gaussian_gradient(
                    inv.input(0), inv.options<segmentation::InverseGaussianGradientOptions>(), inv.stream());
              }));
  reg.add(Command("segmentation.checkerboard_level_set", "A checkerboard int8 level set.")
              .param(Param::ints("image_shape", required, "shape of the level set"))
              .options<segmentation::CheckerboardLevelSetOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto s = inv.ints("image_shape");
                return segmentation::checkerboard_level_set(Shape(s.begin(), s.end()),
                                                            inv.options<segmentation::CheckerboardLevelSetOptions>(),
                                                            inv.device(), inv.stream());
              }));
  reg.add(Command("segmentation.disk_level_set", "A disk (ball) int8 level set.")
              .param(Param::ints("image_shape", required, "shape of the level set"))
              .options<segmentation::DiskLevelSetOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto s = inv.ints("image_shape");
                return segmentation::disk_level_set(Shape(s.begin(), s.end()),
                                                    inv.options<segmentation::DiskLevelSetOptions>(), inv.device(),
                                                    inv.stream());
              }));
  reg.add(Command("segmentation.chan_vese",
                  "Chan-Vese segmentation of a 2-D image: the bool segmentation and the final level set "
                  "(the energies are printed as JSON).")
              .input("image", "2-D grey image")
              .options<segmentation::ChanVeseOptions>()
              .returns_image({"segmentation", "phi"})
              .handler([](Invocation& inv) -> Result {
                auto r = segmentation::chan_vese_extended(inv.input(0), inv.options<segmentation::ChanVeseOptions>(),
                                                          inv.stream());
                Result out;
                out.images.push_back(std::move(r.segmentation));
                out.images.push_back(std::move(r.phi));
                out.value = nlohmann::json{{"energies", r.energies}};
                return out;
              }));
  reg.add(Command("segmentation.active_contour", "Active contour (snake) fitted to image features (CPU).")
              .input("image", "2-D grey or (M, N, 3) RGB image")
              .input("snake", "(K, 2) initial snake, (row, col) points (.npy)")
              .options<segmentation::ActiveContourOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return segmentation::active_contour(inv.input(0), inv.input(1),
                                                    inv.options<segmentation::ActiveContourOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
