// feature texture and blob functions on the command line.
//   cuskimage feature.local_binary_pattern img.png lbp.npy --P 8 --R 1 --method uniform
//   cuskimage feature.graycomatrix img.png glcm.npy --distances 1,2 --angles 0,0.785398 --normed true
//   cuskimage feature.graycoprops glcm.npy contrast.npy --prop contrast
//   cuskimage feature.multiblock_lbp integral.npy --r 0 --c 0 --width 3 --height 3
//   cuskimage feature.draw_multiblock_lbp img.png out.npy --r 0 --c 0 --width 3 --height 3 --lbp_code 37
//   cuskimage feature.multiscale_basic_features img.png feats.npy --sigma_max 8
//   cuskimage feature.blob_log img.png blobs.csv --max_sigma 10 --num_sigma 5
//   cuskimage feature.blob_dog img.png --threshold 0.1
//   cuskimage feature.blob_doh img.png --max_sigma 20
// Blobs are a CSV table: one row per blob, coordinates then sigma(s).
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/codec_feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

Table blob_table(const Array& blobs, int ndim) {
  Table t;
  const int cols = static_cast<int>(blobs.shape(1));
  const std::vector<std::string> axes =
      ndim == 3 ? std::vector<std::string>{"plane", "row", "col"} : std::vector<std::string>{"row", "col"};
  const auto name = [&](int a) { return ndim == static_cast<int>(axes.size()) ? axes[a] : "axis" + std::to_string(a); };
  for (int a = 0; a < ndim; ++a) t.columns.push_back(name(a));
  if (cols - ndim == 1)
    t.columns.emplace_back("sigma");
  else
    for (int a = 0; a < ndim; ++a) t.columns.push_back("sigma_" + name(a));
  const auto v = blobs.astype(DType::float64).to(Device::cpu()).contiguous().to_vector<double>();
  for (std::size_t r = 0; r < v.size(); r += cols) {
    std::vector<nlohmann::json> row;
    for (int a = 0; a < cols; ++a) row.emplace_back(v[r + a]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

void add_blocks(Command& c) {
  c.param(Param::integer("r", required, "row of the top-left corner of the 3x3 grid of blocks"))
      .param(Param::integer("c", required, "column of the top-left corner of the 3x3 grid of blocks"))
      .param(Param::integer("width", required, "width of one block"))
      .param(Param::integer("height", required, "height of one block"));
}

}  // namespace

CUSK_CLI_COMMANDS(feature_texture) {
  reg.add(Command("feature.local_binary_pattern", "Local binary pattern image (float64) of a 2-D image.")
              .input("image", "2-D image")
              .param(Param::integer("P", required, "number of sampling points on the circle"))
              .param(Param::number("R", required, "radius of the circle"))
              .options<feature::LocalBinaryPatternOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return feature::local_binary_pattern(inv.input(0), static_cast<int>(inv.integer("P")),
                                                     inv.number("R"),
                                                     inv.options<feature::LocalBinaryPatternOptions>(), inv.stream());
              }));
  Command mb("feature.multiblock_lbp", "The 8-bit multi-block LBP code of a 3x3 grid of blocks of an integral image.");
  mb.input("int_image", "2-D integral image");
  add_blocks(mb);
  reg.add(std::move(mb.returns_value("the MB-LBP code").handler([](Invocation& inv) -> Result {
    return nlohmann::json(feature::multiblock_lbp(inv.input(0), inv.integer("r"), inv.integer("c"),
                                                  inv.integer("width"), inv.integer("height"), inv.stream()));
  })));
  Command dm("feature.draw_multiblock_lbp", "The image as float RGB with a multi-block LBP code's blocks drawn on it.");
  dm.input("image", "2-D grey or RGB image");
  add_blocks(dm);
  reg.add(std::move(dm.options<feature::DrawMultiblockLbpOptions>().returns_image().handler(
      [](Invocation& inv) -> Result {
        return feature::draw_multiblock_lbp(inv.input(0), inv.integer("r"), inv.integer("c"), inv.integer("width"),
                                            inv.integer("height"), inv.options<feature::DrawMultiblockLbpOptions>(),
                                            inv.stream());
      })));
  reg.add(Command("feature.graycomatrix",
                  "Grey-level co-occurrence matrix (levels, levels, distances, angles) of a 2-D integer image.")
              .input("image", "2-D non-negative integer image")
              .param(Param::numbers("distances", required, "pixel pair distances"))
              .param(Param::numbers("angles", required, "pixel pair angles in radians"))
              .options<feature::GraycomatrixOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return feature::graycomatrix(inv.input(0), inv.numbers("distances"), inv.numbers("angles"),
                                             inv.options<feature::GraycomatrixOptions>(), inv.stream());
              }));
  reg.add(Command("feature.graycoprops", "A texture property of a co-occurrence matrix, per (distance, angle).")
              .input("P", "4-D co-occurrence matrix (.npy)")
              .param(Param::choice("prop",
                                   {"contrast", "dissimilarity", "homogeneity", "energy", "correlation", "ASM", "mean",
                                    "variance", "std", "entropy"},
                                   "contrast", "the property"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return feature::graycoprops(inv.input(0), inv.string("prop"), inv.stream());
              }));
  reg.add(Command("feature.multiscale_basic_features",
                  "Intensity, edge and texture features at several scales: (spatial..., features) float32.")
              .input("image", "2-D or 3-D image (with channel_axis: channels too)")
              .options<feature::MultiscaleBasicFeaturesOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return feature::multiscale_basic_features(
                    inv.input(0), inv.options<feature::MultiscaleBasicFeaturesOptions>(), inv.stream());
              }));
  reg.add(Command("feature.blob_log", "Blobs by the Laplacian of Gaussian: coordinates and sigma per blob.")
              .input("image", "input image (any ndim)")
              .options<feature::BlobLogOptions>()
              .returns_table("one row per blob: coordinates, then sigma(s)")
              .handler([](Invocation& inv) -> Result {
                const Array& img = inv.input(0);
                return blob_table(feature::blob_log(img, inv.options<feature::BlobLogOptions>(), inv.stream()),
                                  img.ndim());
              }));
  reg.add(Command("feature.blob_dog", "Blobs by the difference of Gaussians: coordinates and sigma per blob.")
              .input("image", "input image (any ndim)")
              .options<feature::BlobDogOptions>()
              .returns_table("one row per blob: coordinates, then sigma(s)")
              .handler([](Invocation& inv) -> Result {
                const Array& img = inv.input(0);
                return blob_table(feature::blob_dog(img, inv.options<feature::BlobDogOptions>(), inv.stream()),
                                  img.ndim());
              }));
  reg.add(Command("feature.blob_doh", "Blobs by the determinant of the Hessian: row, col and sigma per blob.")
              .input("image", "2-D image")
              .options<feature::BlobDohOptions>()
              .returns_table("one row per blob: row, col, sigma")
              .handler([](Invocation& inv) -> Result {
                return blob_table(feature::blob_doh(inv.input(0), inv.options<feature::BlobDohOptions>(), inv.stream()),
                                  2);
              }));
}

}  // namespace cuskimage::cli
