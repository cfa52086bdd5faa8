// feature's corner.py and _canny.py on the command line. Lists of tensor elements travel as one
// stacked array (k, *image.shape): structure_tensor / hessian_matrix write it, the eigenvalue
// commands read it. Subpixel positions and orientations are CSV tables.
//   cuskimage feature.corner_harris image.png harris.npy --sigma 1.5
//   cuskimage feature.structure_tensor image.png A.npy --sigma 2 --order xy
//   cuskimage feature.structure_tensor_eigenvalues A.npy eig.npy
//   cuskimage feature.canny image.png edges.png --sigma 2 --low_threshold 10 --high_threshold 30
//   cuskimage feature.corner_subpix image.png corners.npy positions.csv --window_size 7
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using namespace cuskimage::feature;

/// The elements stacked along a new leading axis.
Array stack(const std::vector<Array>& elems, const Stream& s) {
  Shape shape = elems.at(0).shape();
  shape.insert(shape.begin(), static_cast<std::int64_t>(elems.size()));
  Array out = Array::empty(shape, elems[0].dtype(), elems[0].device(), s);
  for (std::size_t i = 0; i < elems.size(); ++i) {
    Array dst = out.index(0, static_cast<std::int64_t>(i));
    dst.copy_from(elems[i], s);
  }
  return out;
}

std::vector<Array> unstack(const Array& a) {
  std::vector<Array> v;
  for (std::int64_t i = 0; i < a.shape(0); ++i) v.push_back(a.index(0, i));
  return v;
}

Table column_table(const Array& a, std::vector<std::string> columns, const Stream& s) {
  Table t;
  t.columns = std::move(columns);
  const auto v = a.to(Device::cpu(), s).astype(DType::float64).to_vector<double>();
  const std::size_t w = t.columns.size();
  for (std::size_t r = 0; r + w <= v.size(); r += w) {
    std::vector<nlohmann::json> row;
    for (std::size_t k = 0; k < w; ++k) row.emplace_back(v[r + k]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

template <class Opts, class F>
Command image_command(const char* name, const char* summary, F f) {
  return Command(name, summary)
      .input("image", "input image")
      .options<Opts>()
      .returns_image()
      .handler([f](Invocation& inv) -> Result { return f(inv.input(0), inv.options<Opts>(), inv.stream()); });
}

}  // namespace

CUSK_CLI_COMMANDS(feature_corner) {
  reg.add(Command("feature.structure_tensor", "Upper elements of the structure tensor, stacked (k, *shape).")
              .input("image", "2-D to 5-D image")
              .options<StructureTensorOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return stack(structure_tensor(inv.input(0), inv.options<StructureTensorOptions>(), inv.stream()),
                             inv.stream());
              }));
  reg.add(Command("feature.structure_tensor_eigenvalues", "Eigenvalues (decreasing) of a stacked structure tensor.")
              .input("A_elems", "stacked tensor elements (k, *shape), as feature.structure_tensor writes them")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return structure_tensor_eigenvalues(unstack(inv.input(0)), inv.stream());
              }));
  reg.add(Command("feature.hessian_matrix", "Upper elements of the Hessian, stacked (k, *shape).")
              .input("image", "input image")
              .options<HessianMatrixOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return stack(hessian_matrix(inv.input(0), inv.options<HessianMatrixOptions>(), inv.stream()),
                             inv.stream());
              }));
  reg.add(Command("feature.hessian_matrix_eigvals", "Eigenvalues (decreasing) of a stacked Hessian.")
              .input("H_elems", "stacked Hessian elements (k, *shape), as feature.hessian_matrix writes them")
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return hessian_matrix_eigvals(unstack(inv.input(0)), inv.stream());
              }));
  reg.add(image_command<HessianMatrixDetOptions>("feature.hessian_matrix_det", "Determinant of the Hessian.",
                                                 [](const Array& a, const auto& o, const Stream& s) {
                                                   return hessian_matrix_det(a, o, s);
                                                 }));
  reg.add(image_command<ShapeIndexOptions>("feature.shape_index", "Koenderink's shape index (2-D).",
                                           [](const Array& a, const auto& o, const Stream& s) {
                                             return shape_index(a, o, s);
                                           }));
  reg.add(image_command<CornerHarrisOptions>("feature.corner_harris", "Harris corner response (2-D).",
                                             [](const Array& a, const auto& o, const Stream& s) {
                                               return corner_harris(a, o, s);
                                             }));
  reg.add(image_command<CornerShiTomasiOptions>("feature.corner_shi_tomasi", "Shi-Tomasi corner response (2-D).",
                                                [](const Array& a, const auto& o, const Stream& s) {
                                                  return corner_shi_tomasi(a, o, s);
                                                }));
  reg.add(image_command<CornerKitchenRosenfeldOptions>(
      "feature.corner_kitchen_rosenfeld", "Kitchen-Rosenfeld corner response (2-D).",
      [](const Array& a, const auto& o, const Stream& s) { return corner_kitchen_rosenfeld(a, o, s); }));
  reg.add(image_command<CornerMoravecOptions>("feature.corner_moravec", "Moravec corner response (2-D).",
                                              [](const Array& a, const auto& o, const Stream& s) {
                                                return corner_moravec(a, o, s);
                                              }));
  reg.add(image_command<CornerFastOptions>("feature.corner_fast", "FAST corner response (2-D).",
                                           [](const Array& a, const auto& o, const Stream& s) {
                                             return corner_fast(a, o, s);
                                           }));
  reg.add(image_command<CannyOptions>("feature.canny", "Canny edge map (2-D, bool).",
                                      [](const Array& a, const auto& o, const Stream& s) { return canny(a, o, s); }));
  reg.add(Command("feature.corner_foerstner", "Foerstner error-ellipse size w and roundness q (2-D).")
              .input("image", "2-D image")
              .options<CornerFoerstnerOptions>()
              .returns_image({"w", "q"})
              .handler([](Invocation& inv) -> Result {
                auto r = corner_foerstner(inv.input(0), inv.options<CornerFoerstnerOptions>(), inv.stream());
                Result res;
                res.images.push_back(std::move(r.w));
                res.images.push_back(std::move(r.q));
                return res;
              }));
  reg.add(Command("feature.corner_subpix", "Subpixel corner positions (NaN where not classified).")
              .input("image", "2-D image")
              .input("corners", "(K, 2) integer corner coordinates (.npy)")
              .options<CornerSubpixOptions>()
              .returns_table("one row (row, col) per corner")
              .handler([](Invocation& inv) -> Result {
                return column_table(
                    corner_subpix(inv.input(0), inv.input(1), inv.options<CornerSubpixOptions>(), inv.stream()),
                    {"row", "col"}, inv.stream());
              }));
  reg.add(Command("feature.corner_orientations", "Orientation (radians) of each corner's intensity centroid.")
              .input("image", "2-D image")
              .input("corners", "(K, 2) integer corner coordinates (.npy)")
              .input("mask", "odd-sized neighbourhood mask (.npy)")
              .returns_table("one orientation per corner")
              .handler([](Invocation& inv) -> Result {
                return column_table(corner_orientations(inv.input(0), inv.input(1), inv.input(2), inv.stream()),
                                    {"orientation"}, inv.stream());
              }));
}

}  // namespace cuskimage::cli
