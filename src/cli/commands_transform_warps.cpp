// skimage.transform._warps on the command line. The inverse map of transform.warp is a transform
// given as --matrix (row-major, 9 values or the 6 of an affine) or as --scale / --rotation /
// --shear / --translation (src/cli/transform_args.hpp).
//   cuskimage transform.warp img.png out.npy --matrix 1,0,5,0,1,-3 --order 3 --mode reflect
//   cuskimage transform.warp img.png out.npy --rotation 0.3 --translation 2,-3
//   cuskimage transform.rotate img.png out.png --angle 30 --resize true
//   cuskimage transform.swirl img.png out.png --strength 5 --radius 120
//   cuskimage transform.warp_polar img.png out.npy --scaling log
//   cuskimage transform.resize_local_mean img.png out.npy --output_shape 100,120
//   cuskimage transform.downscale_local_mean img.png out.npy --factors 2,2
//   cuskimage transform.resize img.png out.npy --output_shape 256,256 --anti_aliasing true
//   cuskimage transform.rescale img.png out.npy --scale 0.5
//   cuskimage transform.pyramid_gaussian img.png --levels level_{}.npy --max_layer 4
// The pyramid_gaussian / pyramid_laplacian levels go to files named by --levels ("{}" becomes the
// level number); the command prints the list of paths written.
#include <algorithm>
#include <string>

#include "cuskimage/io.hpp"
#include "cuskimage/transform/pyramids.hpp"
#include "cuskimage/transform/warps.hpp"
#include "src/cli/registry.hpp"
#include "src/cli/transform_args.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::cli {

namespace {

Shape shape_param(Invocation& inv, const std::string& name) {
  const std::vector<std::int64_t> v = inv.ints(name);
  return Shape(v.begin(), v.end());
}

/// Writes each level to `pattern` with "{}" replaced by its number; returns the paths as JSON.
Result write_levels(Invocation& inv, const std::vector<Array>& levels) {
  const std::string pattern = inv.string("levels");
  const auto at = pattern.find("{}");
  if (at == std::string::npos)
    cuskimage::detail::fail(inv.name(), "argument 'levels' must contain {} (replaced by the level number), got '",
                            pattern, "'");
  nlohmann::json paths = nlohmann::json::array();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    std::string path = pattern;
    path.replace(at, 2, std::to_string(i));
    io::imsave(path, levels[i], {.check_contrast = false}, inv.stream());
    paths.push_back(path);
  }
  return Result(paths);
}

Param levels_param() {
  return Param::string("levels", required, "output path pattern of the levels, {} = the level number (e.g. l{}.npy)");
}

}  // namespace

CUSK_CLI_COMMANDS(transform_pyramids) {
  reg.add(Command("transform.resize", "Resize the image (Gaussian anti-aliasing when down-sampling).")
              .input("image", "input image (N-d)")
              .param(Param::ints("output_shape", required, "output shape (the trailing channels may be left out)"))
              .options<transform::ResizeOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::resize(inv.input(0), shape_param(inv, "output_shape"),
                                         inv.options<transform::ResizeOptions>(), inv.stream());
              }));
  reg.add(Command("transform.rescale", "Rescale the image by a factor per axis.")
              .input("image", "input image (N-d)")
              .param(Param::numbers("scale", required, "scale factor, one or one per spatial axis"))
              .options<transform::RescaleOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::rescale(inv.input(0), inv.numbers("scale"), inv.options<transform::RescaleOptions>(),
                                          inv.stream());
              }));
  reg.add(Command("transform.pyramid_reduce", "Smooth, then down-sample by a factor.")
              .input("image", "input image (N-d)")
              .options<transform::PyramidReduceOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::pyramid_reduce(inv.input(0), inv.options<transform::PyramidReduceOptions>(),
                                                 inv.stream());
              }));
  reg.add(Command("transform.pyramid_expand", "Up-sample by a factor, then smooth.")
              .input("image", "input image (N-d)")
              .options<transform::PyramidExpandOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::pyramid_expand(inv.input(0), inv.options<transform::PyramidExpandOptions>(),
                                                 inv.stream());
              }));
  reg.add(Command("transform.pyramid_gaussian", "The Gaussian pyramid; each level written to a file.")
              .input("image", "input image (N-d)")
              .param(levels_param())
              .options<transform::PyramidOptions>()
              .returns_value("the list of level paths written")
              .handler([](Invocation& inv) -> Result {
                return write_levels(
                    inv, transform::pyramid_gaussian(inv.input(0), inv.options<transform::PyramidOptions>(), inv.stream()));
              }));
  reg.add(Command("transform.pyramid_laplacian", "The Laplacian pyramid; each level written to a file.")
              .input("image", "input image (N-d)")
              .param(levels_param())
              .options<transform::PyramidOptions>()
              .returns_value("the list of level paths written")
              .handler([](Invocation& inv) -> Result {
                return write_levels(
                    inv, transform::pyramid_laplacian(inv.input(0), inv.options<transform::PyramidOptions>(), inv.stream()));
              }));
}

CUSK_CLI_COMMANDS(transform_warps) {
  reg.add(with_transform_params(Command("transform.warp",
                                        "Warp the image through an inverse map (output pixel -> input position).")
                                    .input("image", "input image (2-D, or 2-D + channels)"))
              .options<transform::WarpOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::warp(inv.input(0), *transform_from(inv), inv.options<transform::WarpOptions>(),
                                       inv.stream());
              }));
  reg.add(Command("transform.rotate", "Rotate the image counter-clockwise about its centre.")
              .input("image", "input image (2-D, or 2-D + channels)")
              .param(Param::number("angle", required, "rotation angle in degrees, counter-clockwise"))
              .options<transform::RotateOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::rotate(inv.input(0), inv.number("angle"), inv.options<transform::RotateOptions>(),
                                         inv.stream());
              }));
  reg.add(Command("transform.swirl", "Swirl the image about a centre.")
              .input("image", "input image (2-D, or 2-D + channels)")
              .options<transform::SwirlOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::swirl(inv.input(0), inv.options<transform::SwirlOptions>(), inv.stream());
              }));
  reg.add(Command("transform.warp_polar", "Remap the image to polar or log-polar coordinates (rows: angles).")
              .input("image", "input image (2-D, or 3-D with channel_axis)")
              .options<transform::WarpPolarOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::warp_polar(inv.input(0), inv.options<transform::WarpPolarOptions>(), inv.stream());
              }));
  reg.add(Command("transform.resize_local_mean", "Resize by area-weighted local means.")
              .input("image", "input image (N-d)")
              .param(Param::ints("output_shape", required, "output shape (the trailing channels may be left out)"))
              .options<transform::ResizeLocalMeanOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::resize_local_mean(inv.input(0), shape_param(inv, "output_shape"),
                                                    inv.options<transform::ResizeLocalMeanOptions>(), inv.stream());
              }));
  reg.add(Command("transform.downscale_local_mean", "Down-sample by the mean of each block of integer factors.")
              .input("image", "input image (N-d)")
              .param(Param::ints("factors", required, "block size, one per axis"))
              .options<transform::DownscaleLocalMeanOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::downscale_local_mean(inv.input(0), inv.ints("factors"),
                                                       inv.options<transform::DownscaleLocalMeanOptions>(),
                                                       inv.stream());
              }));
}

}  // namespace cuskimage::cli
