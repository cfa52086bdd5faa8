// scipy.ndimage geometry on the command line (spline interpolation: orders 0..5, scipy's modes).
//   cuskimage ndimage.zoom img.png out.tif --zoom 2 --order 1 --grid_mode true
//   cuskimage ndimage.shift img.png out.tif --shift 3.5,-2
//   cuskimage ndimage.rotate img.png out.tif --angle 30 --reshape false
//   cuskimage ndimage.affine_transform img.png out.tif --matrix 1,0.2,0,1 --offset 3
// --matrix holds the row-major values; its shape follows from their count and the input's ndim:
// ndim (a diagonal), ndim^2, ndim * (ndim + 1) (last column: the offset) or (ndim + 1)^2
// (homogeneous).
#include "cuskimage/ndimage.hpp"
#include "src/cli/registry.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::cli {

namespace {

Shape matrix_shape(std::size_t count, int nd) {
  const auto n = static_cast<std::int64_t>(nd);
  const auto c = static_cast<std::int64_t>(count);
  if (c == n) return {n};
  if (c == n * n) return {n, n};
  if (c == n * (n + 1)) return {n, n + 1};
  if (c == (n + 1) * (n + 1)) return {n + 1, n + 1};
  cuskimage::detail::fail("ndimage.affine_transform", "argument 'matrix' must hold ndim, ndim^2, ndim*(ndim+1) or ",
                          "(ndim+1)^2 values for a ", nd, "-D input, got ", count);
}

}  // namespace

CUSK_CLI_COMMANDS(ndimage_geometry) {
  reg.add(Command("ndimage.zoom", "scipy.ndimage.zoom: spline resampling by a factor per axis.")
              .input("input", "input image")
              .param(Param::numbers("zoom", required, "zoom factor, one or one per axis"))
              .options<ndimage::ZoomOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::zoom(inv.input(0), inv.numbers("zoom"), inv.options<ndimage::ZoomOptions>(),
                                     inv.stream());
              }));
  reg.add(Command("ndimage.shift", "scipy.ndimage.shift: spline shift by a (sub-pixel) offset per axis.")
              .input("input", "input image")
              .param(Param::numbers("shift", required, "shift, one or one per axis"))
              .options<ndimage::ShiftOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::shift(inv.input(0), inv.numbers("shift"), inv.options<ndimage::ShiftOptions>(),
                                      inv.stream());
              }));
  reg.add(Command("ndimage.rotate", "scipy.ndimage.rotate: rotation by an angle in degrees in the plane of two axes.")
              .input("input", "input image (at least 2-D)")
              .param(Param::number("angle", required, "rotation angle in degrees"))
              .options<ndimage::RotateOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return ndimage::rotate(inv.input(0), inv.number("angle"), inv.options<ndimage::RotateOptions>(),
                                       inv.stream());
              }));
  reg.add(Command("ndimage.affine_transform",
                  "scipy.ndimage.affine_transform: the input sampled at matrix . o + offset for every output index.")
              .input("input", "input image")
              .param(Param::numbers("matrix", required,
                                    "row-major matrix: a diagonal, (ndim, ndim), (ndim, ndim + 1) or homogeneous"))
              .options<ndimage::AffineTransformOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const Array& in = inv.input(0);
                const std::vector<double> m = inv.numbers("matrix");
                return ndimage::affine_transform(in, m, matrix_shape(m.size(), in.ndim()),
                                                 inv.options<ndimage::AffineTransformOptions>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
