// pathology.* commands: cuCIM's stain and augmentation operations on the command line.
//   cuskimage pathology.normalize_colors_pca tile.png normalized.png
//   cuskimage pathology.stain_extraction_pca tile.png            -> [[0.55, 0.24], [0.73, 0.80], [0.41, 0.54]]
//   cuskimage pathology.color_jitter tile.png out.png --brightness 0.2 --hue -0.05,0.05 --seed 3
//   cuskimage pathology.image_rotate_90 tile.png out.png --k 1 --spatial_axis 0,1
#include <string>
#include <vector>

#include "cuskimage/pathology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

using nlohmann::json;
namespace path = cuskimage::pathology;

[[noreturn]] void invalid(const Invocation& inv, const std::string& arg, const std::string& what) {
  throw InvalidArgument(inv.name() + ": argument '" + arg + "' " + what);
}

path::ImageType image_type(const Invocation& inv) {
  return inv.string("image_type") == "absorbance" ? path::ImageType::absorbance : path::ImageType::intensity;
}

/// A jitter amount: one number or a lo,hi range.
path::JitterRange jitter(const Invocation& inv, const std::string& name) {
  const auto v = inv.numbers(name);
  if (v.size() == 1) return path::JitterRange(v[0]);
  if (v.size() == 2) return path::JitterRange(v[0], v[1]);
  invalid(inv, name, "must be one number or a lo,hi pair, got " + std::to_string(v.size()) + " values");
}

path::ColorJitterOptions jitter_options(const Invocation& inv) {
  return {.brightness = jitter(inv, "brightness"),
          .contrast = jitter(inv, "contrast"),
          .saturation = jitter(inv, "saturation"),
          .hue = jitter(inv, "hue"),
          .channel_axis = static_cast<int>(inv.integer("channel_axis")),
          .seed = static_cast<std::uint64_t>(inv.integer("seed"))};
}

Command& jitter_params(Command& c) {
  return c.param(Param::numbers("brightness", "0", "factor range [max(0, 1 - v), 1 + v], or lo,hi"))
      .param(Param::numbers("contrast", "0", "factor range [max(0, 1 - v), 1 + v], or lo,hi"))
      .param(Param::numbers("saturation", "0", "factor range [max(0, 1 - v), 1 + v], or lo,hi"))
      .param(Param::numbers("hue", "0", "shift range [-v, v] within [-0.5, 0.5], or lo,hi"))
      .param(Param::integer("channel_axis", "-1", "RGB axis: last, or the one before the spatial axes (channel-first)"))
      .param(Param::integer("seed", "0", "seed of the random draws (same result on CPU and GPU)"));
}

std::array<int, 2> axis_pair(const Invocation& inv, const std::string& name) {
  const auto v = inv.ints(name);
  if (v.size() != 2) invalid(inv, name, "must name two axes, got " + std::to_string(v.size()));
  return {static_cast<int>(v[0]), static_cast<int>(v[1])};
}

path::ZoomInterpolation interpolation(const Invocation& inv) {
  const std::string& s = inv.string("interpolation");
  if (s == "nearest") return path::ZoomInterpolation::nearest;
  if (s == "bilinear") return path::ZoomInterpolation::bilinear;
  return path::ZoomInterpolation::area;
}

json matrix_json(const Array& a) {
  const auto v = a.to_vector<double>();
  json rows = json::array();
  for (std::int64_t i = 0; i < a.shape(0); ++i) {
    json row = json::array();
    for (std::int64_t j = 0; j < a.shape(1); ++j) row.push_back(v[static_cast<std::size_t>(i * a.shape(1) + j)]);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

CUSK_CLI_COMMANDS(pathology) {
  reg.add(Command("pathology.image_to_absorbance", "Optical density -log(I / source_intensity) of an image.")
              .input("image", "image")
              .param(Param::number("source_intensity", "255", "transmitted light intensity"))
              .param(Param::dtype("dtype", "float32", "float32 or float64"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::image_to_absorbance(
                    inv.input(0), {.source_intensity = inv.number("source_intensity"), .dtype = inv.dtype("dtype")},
                    inv.stream());
              }));
  reg.add(Command("pathology.absorbance_to_image", "Image exp(-absorbance) * source_intensity of an optical density.")
              .input("absorbance", "optical density image")
              .param(Param::number("source_intensity", "255", "transmitted light intensity"))
              .param(Param::dtype("dtype", "uint8", "output dtype"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::absorbance_to_image(
                    inv.input(0), {.source_intensity = inv.number("source_intensity"), .dtype = inv.dtype("dtype")},
                    inv.stream());
              }));
  reg.add(Command("pathology.stain_extraction_pca",
                  "Macenko H&E stain vectors of an RGB image; prints the (3, 2) matrix (rows RGB, columns H, E).")
              .input("image", "RGB image")
              .param(Param::number("source_intensity", "240", "transmitted light intensity"))
              .param(Param::number("alpha", "1", "percentile of the robust angle extremes"))
              .param(Param::number("beta", "0.345", "optical density threshold of transparent pixels"))
              .param(Param::integer("channel_axis", "-1", "RGB axis"))
              .param(Param::choice("image_type", {"intensity", "absorbance"}, "intensity", "input kind"))
              .returns_value("the stain matrix [[R_H, R_E], [G_H, G_E], [B_H, B_E]]")
              .handler([](Invocation& inv) -> Result {
                const Array s = path::stain_extraction_pca(inv.input(0),
                                                           {.source_intensity = inv.number("source_intensity"),
                                                            .alpha = inv.number("alpha"),
                                                            .beta = inv.number("beta"),
                                                            .channel_axis = static_cast<int>(inv.integer("channel_axis")),
                                                            .image_type = image_type(inv)},
                                                           inv.stream());
                return Result(matrix_json(s.to(Device::cpu(), inv.stream())));
              }));
  reg.add(Command("pathology.normalize_colors_pca", "Macenko stain normalisation of an RGB image to reference stains.")
              .input("image", "RGB image")
              .param(Param::number("source_intensity", "240", "transmitted light intensity"))
              .param(Param::number("alpha", "1", "100 - alpha is the percentile of the maximum concentrations"))
              .param(Param::number("beta", "0.345", "optical density threshold of transparent pixels"))
              .param(Param::numbers("ref_stain_coeff", "0.5626,0.2159,0.7201,0.8012,0.4062,0.5581",
                                    "reference stain matrix, row-major (3, 2): R_H,R_E,G_H,G_E,B_H,B_E"))
              .param(Param::numbers("ref_max_conc", "1.9705,1.0308", "reference maximum concentrations (H, E)"))
              .param(Param::choice("image_type", {"intensity", "absorbance"}, "intensity", "input kind"))
              .param(Param::integer("channel_axis", "-1", "RGB axis"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                path::NormalizeColorsPcaOptions o{.source_intensity = inv.number("source_intensity"),
                                                  .alpha = inv.number("alpha"),
                                                  .beta = inv.number("beta"),
                                                  .image_type = image_type(inv),
                                                  .channel_axis = static_cast<int>(inv.integer("channel_axis"))};
                const auto ref = inv.numbers("ref_stain_coeff");
                if (ref.size() != 6) invalid(inv, "ref_stain_coeff", "must hold 6 numbers (a 3 x 2 matrix)");
                for (int i = 0; i < 3; ++i)
                  for (int j = 0; j < 2; ++j) o.ref_stain_coeff[i][j] = ref[static_cast<std::size_t>(i * 2 + j)];
                const auto mx = inv.numbers("ref_max_conc");
                if (mx.size() != 2) invalid(inv, "ref_max_conc", "must hold 2 numbers");
                o.ref_max_conc = {mx[0], mx[1]};
                return path::normalize_colors_pca(inv.input(0), o, inv.stream());
              }));

  reg.add(Command("pathology.lab_stats", "Mean and standard deviation of each CIE-LAB channel; prints {\"mean\": [...], \"std\": [...]}.")
              .input("image", "RGB image")
              .param(Param::integer("channel_axis", "-1", "RGB axis"))
              .returns_value("the LAB statistics")
              .handler([](Invocation& inv) -> Result {
                const auto st = path::lab_stats(inv.input(0), static_cast<int>(inv.integer("channel_axis")), inv.stream());
                return Result(json{{"mean", st.mean}, {"std", st.std}});
              }));
  reg.add(Command("pathology.normalize_reinhard",
                  "Reinhard colour transfer in CIE-LAB to target statistics (given, or those of a reference image).")
              .input("image", "RGB image")
              .optional_input("reference", "RGB image whose LAB statistics are the target")
              .param(Param::numbers("target_mean", "none", "target LAB means (L, a, b) when no reference is given"))
              .param(Param::numbers("target_std", "none", "target LAB standard deviations when no reference is given"))
              .param(Param::integer("channel_axis", "-1", "RGB axis"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const int ax = static_cast<int>(inv.integer("channel_axis"));
                path::ReinhardOptions o{.channel_axis = ax};
                if (inv.num_inputs() > 1) {
                  o.target = path::lab_stats(inv.input(1), ax, inv.stream());
                } else {
                  if (!inv.has("target_mean") || !inv.has("target_std"))
                    invalid(inv, "target_mean", "and target_std are required without a reference image");
                  const auto m = inv.numbers("target_mean"), sd = inv.numbers("target_std");
                  if (m.size() != 3 || sd.size() != 3) invalid(inv, "target_mean", "and target_std must hold 3 values each");
                  o.target = {.mean = {m[0], m[1], m[2]}, .std = {sd[0], sd[1], sd[2]}};
                }
                return path::normalize_reinhard(inv.input(0), o, inv.stream());
              }));

  Command cj("pathology.color_jitter", "Random brightness / contrast / saturation / hue jitter in a random order (seeded).");
  cj.input("image", "RGB image (3-D) or batch (4-D), uint8 (others are cast; result float32)");
  jitter_params(cj).returns_image().handler([](Invocation& inv) -> Result {
    return path::color_jitter(inv.input(0), jitter_options(inv), inv.stream());
  });
  reg.add(std::move(cj));
  Command rcj("pathology.rand_color_jitter", "color_jitter with probability prob (per image of a batch unless whole_batch).");
  rcj.input("image", "RGB image (3-D) or batch (4-D)");
  jitter_params(rcj)
      .param(Param::number("prob", "0.1", "probability of jittering"))
      .param(Param::boolean("whole_batch", "false", "one decision for the whole batch"))
      .returns_image()
      .handler([](Invocation& inv) -> Result {
        return path::rand_color_jitter(inv.input(0), jitter_options(inv),
                                       {.prob = inv.number("prob"), .whole_batch = inv.flag("whole_batch")}, inv.stream());
      });
  reg.add(std::move(rcj));

  reg.add(Command("pathology.normalize_data", "norm_constant * (x - min) / (max - min), or with atan(x - min).")
              .input("image", "image")
              .param(Param::number("norm_constant", required, "normalisation range [0, norm_constant]"))
              .param(Param::number("min_value", required, "minimum intensity of the data"))
              .param(Param::number("max_value", required, "maximum intensity of the data"))
              .param(Param::choice("type", {"range", "atan"}, "range", "normalisation type"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::normalize_data(inv.input(0), inv.number("norm_constant"), inv.number("min_value"),
                                            inv.number("max_value"),
                                            inv.string("type") == "atan" ? path::NormalizeType::atan
                                                                         : path::NormalizeType::range,
                                            inv.stream());
              }));
  reg.add(Command("pathology.scale_intensity_range", "Linear map of [a_min, a_max] onto [b_min, b_max], optionally clipped.")
              .input("image", "image")
              .param(Param::number("b_max", required, "target range max"))
              .param(Param::number("b_min", required, "target range min"))
              .param(Param::number("a_max", required, "original range max"))
              .param(Param::number("a_min", required, "original range min"))
              .param(Param::boolean("clip", "false", "clip to [b_min, b_max]"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::scale_intensity_range(inv.input(0),
                                                   {.a_min = inv.number("a_min"),
                                                    .a_max = inv.number("a_max"),
                                                    .b_min = inv.number("b_min"),
                                                    .b_max = inv.number("b_max"),
                                                    .clip = inv.flag("clip")},
                                                   inv.stream());
              }));
  reg.add(Command("pathology.zoom", "Zoom the planes in or out, keeping the shape (centre crop or edge pad).")
              .input("image", "image with two spatial axes")
              .param(Param::numbers("zoom_factor", required, "zoom factor of each spatial axis (one value: both)"))
              .param(Param::choice("interpolation", {"area", "nearest", "bilinear"}, "area", "resampling"))
              .param(Param::ints("spatial_axis", "-2,-1", "the two spatial axes"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto z = inv.numbers("zoom_factor");
                if (z.empty() || z.size() > 2) invalid(inv, "zoom_factor", "must hold 1 or 2 values");
                return path::zoom(inv.input(0), {z[0], z.size() == 2 ? z[1] : z[0]},
                                  {.interpolation = interpolation(inv), .spatial_axis = axis_pair(inv, "spatial_axis")},
                                  inv.stream());
              }));
  reg.add(Command("pathology.rand_zoom", "zoom by random factors in [min_zoom, max_zoom] with probability prob.")
              .input("image", "image with two spatial axes")
              .param(Param::numbers("min_zoom", "0.9", "minimum factor (one value or one per axis)"))
              .param(Param::numbers("max_zoom", "1.1", "maximum factor (one value or one per axis)"))
              .param(Param::number("prob", "0.1", "probability of zooming"))
              .param(Param::integer("seed", "0", "seed of the random draws"))
              .param(Param::choice("interpolation", {"area", "nearest", "bilinear"}, "area", "resampling"))
              .param(Param::ints("spatial_axis", "-2,-1", "the two spatial axes"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::rand_zoom(inv.input(0),
                                       {.min_zoom = inv.numbers("min_zoom"),
                                        .max_zoom = inv.numbers("max_zoom"),
                                        .prob = inv.number("prob"),
                                        .seed = static_cast<std::uint64_t>(inv.integer("seed")),
                                        .zoom = {.interpolation = interpolation(inv),
                                                 .spatial_axis = axis_pair(inv, "spatial_axis")}},
                                       inv.stream());
              }));
  reg.add(Command("pathology.image_flip", "Reverse the image along the given axes.")
              .input("image", "image")
              .param(Param::ints("spatial_axis", required, "axes to flip"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto a = inv.ints("spatial_axis");
                return path::image_flip(inv.input(0), std::vector<int>(a.begin(), a.end()), inv.stream());
              }));
  reg.add(Command("pathology.rand_image_flip", "image_flip with probability prob.")
              .input("image", "image")
              .param(Param::ints("spatial_axis", required, "axes to flip"))
              .param(Param::number("prob", "0.1", "probability of flipping"))
              .param(Param::integer("seed", "0", "seed of the random draw"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto a = inv.ints("spatial_axis");
                return path::rand_image_flip(inv.input(0), std::vector<int>(a.begin(), a.end()),
                                             {.prob = inv.number("prob"), .seed = static_cast<std::uint64_t>(inv.integer("seed"))},
                                             inv.stream());
              }));
  reg.add(Command("pathology.image_rotate_90", "Rotate by k quarter turns in the plane of two axes (numpy.rot90).")
              .input("image", "image")
              .param(Param::integer("k", "1", "number of quarter turns"))
              .param(Param::ints("spatial_axis", required, "the two axes of the plane"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::image_rotate_90(inv.input(0), static_cast<int>(inv.integer("k")),
                                             axis_pair(inv, "spatial_axis"), inv.stream());
              }));
  reg.add(Command("pathology.rand_image_rotate_90", "image_rotate_90 by k in 1..max_k with probability prob.")
              .input("image", "image")
              .param(Param::ints("spatial_axis", required, "the two axes of the plane"))
              .param(Param::number("prob", "0.1", "probability of rotating"))
              .param(Param::integer("max_k", "3", "largest number of quarter turns"))
              .param(Param::integer("seed", "0", "seed of the random draws"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::rand_image_rotate_90(inv.input(0), axis_pair(inv, "spatial_axis"),
                                                  {.prob = inv.number("prob"),
                                                   .max_k = static_cast<int>(inv.integer("max_k")),
                                                   .seed = static_cast<std::uint64_t>(inv.integer("seed"))},
                                                  inv.stream());
              }));
}

}  // namespace cuskimage::cli
