// pathology.* commands: cuCIM's stain and augmentation operations on the command line.
//   cuskimage pathology.normalize_colors_pca tile.png normalized.png
//   cuskimage pathology.stain_extraction_pca tile.png            -> [[0.55, 0.24], [0.73, 0.80], [0.41, 0.54]]
//   cuskimage pathology.color_jitter tile.png out.png --brightness 0.2 --hue -0.05,0.05 --seed 3
//   cuskimage pathology.image_rotate_90 tile.png out.png --k 1 --spatial_axis 0,1
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "cuskimage/pathology.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

/// A jitter amount: one number v or a lo,hi range.
template <>
struct Codec<pathology::JitterRange> {
  static constexpr Kind kind = Kind::numbers;
  static std::string format(const pathology::JitterRange& j) {
    return j.range ? format_list({format_number(j.range->first), format_number(j.range->second)})
                   : format_number(j.value);
  }
  static pathology::JitterRange read(Invocation& inv, const std::string& name) {
    const auto v = inv.numbers(name);
    if (v.size() == 1) return pathology::JitterRange(v[0]);
    if (v.size() == 2) return pathology::JitterRange(v[0], v[1]);
    throw UsageError(inv.name() + ": parameter '--" + name + "' expects one number or a lo,hi pair, got " +
                     std::to_string(v.size()) + " values");
  }
  static bool equal(const pathology::JitterRange& a, const pathology::JitterRange& b) {
    return a.value == b.value && a.range == b.range;
  }
};

/// A small matrix (N rows of M numbers) as its N * M values in row-major order.
template <class T, std::size_t M, std::size_t N>
struct Codec<std::array<std::array<T, M>, N>, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>>> {
  using Flat = Codec<std::vector<T>>;
  static constexpr Kind kind = Flat::kind;
  static std::string format(const std::array<std::array<T, M>, N>& m) {
    std::vector<T> flat;
    for (const auto& row : m) flat.insert(flat.end(), row.begin(), row.end());
    return Flat::format(flat);
  }
  static std::array<std::array<T, M>, N> read(Invocation& inv, const std::string& name) {
    const std::vector<T> flat = Flat::read(inv, name);
    if (flat.size() != M * N)
      throw UsageError(inv.name() + ": parameter '--" + name + "' expects " + std::to_string(M * N) +
                       " values (a " + std::to_string(N) + " x " + std::to_string(M) + " matrix, row-major)");
    std::array<std::array<T, M>, N> m{};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) m[i][j] = flat[i * M + j];
    return m;
  }
};

namespace {

using nlohmann::json;
namespace path = cuskimage::pathology;

[[noreturn]] void invalid(const Invocation& inv, const std::string& arg, const std::string& what) {
  throw InvalidArgument(inv.name() + ": argument '" + arg + "' " + what);
}

std::array<int, 2> axis_pair(const Invocation& inv, const std::string& name) {
  const auto v = inv.ints(name);
  if (v.size() != 2) invalid(inv, name, "must name two axes, got " + std::to_string(v.size()));
  return {static_cast<int>(v[0]), static_cast<int>(v[1])};
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
              .options<path::ImageToAbsorbanceOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::image_to_absorbance(inv.input(0), inv.options<path::ImageToAbsorbanceOptions>(),
                                                 inv.stream());
              }));
  reg.add(Command("pathology.absorbance_to_image", "Image exp(-absorbance) * source_intensity of an optical density.")
              .input("absorbance", "optical density image")
              .options<path::AbsorbanceToImageOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::absorbance_to_image(inv.input(0), inv.options<path::AbsorbanceToImageOptions>(),
                                                 inv.stream());
              }));
  reg.add(Command("pathology.stain_extraction_pca",
                  "Macenko H&E stain vectors of an RGB image; prints the (3, 2) matrix (rows RGB, columns H, E).")
              .input("image", "RGB image")
              .options<path::StainExtractionOptions>()
              .returns_value("the stain matrix [[R_H, R_E], [G_H, G_E], [B_H, B_E]]")
              .handler([](Invocation& inv) -> Result {
                const Array s =
                    path::stain_extraction_pca(inv.input(0), inv.options<path::StainExtractionOptions>(), inv.stream());
                return Result(matrix_json(s.to(Device::cpu(), inv.stream())));
              }));
  reg.add(Command("pathology.normalize_colors_pca", "Macenko stain normalisation of an RGB image to reference stains.")
              .input("image", "RGB image")
              .options<path::NormalizeColorsPcaOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::normalize_colors_pca(inv.input(0), inv.options<path::NormalizeColorsPcaOptions>(),
                                                  inv.stream());
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
              .options<path::ReinhardOptions>({"target"})  // the reference, or target_mean and target_std
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<path::ReinhardOptions>();
                if (inv.num_inputs() > 1) {
                  o.target = path::lab_stats(inv.input(1), o.channel_axis, inv.stream());
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
  cj.options<path::ColorJitterOptions>().returns_image().handler([](Invocation& inv) -> Result {
    return path::color_jitter(inv.input(0), inv.options<path::ColorJitterOptions>(), inv.stream());
  });
  reg.add(std::move(cj));
  Command rcj("pathology.rand_color_jitter", "color_jitter with probability prob (per image of a batch unless whole_batch).");
  rcj.input("image", "RGB image (3-D) or batch (4-D)");
  rcj.options<path::ColorJitterOptions>()
      .options<path::RandomOptions>()
      .returns_image()
      .handler([](Invocation& inv) -> Result {
        return path::rand_color_jitter(inv.input(0), inv.options<path::ColorJitterOptions>(),
                                       inv.options<path::RandomOptions>(), inv.stream());
      });
  reg.add(std::move(rcj));
}

// Intensity scaling and spatial augmentation (their own block: registration functions stay short).
CUSK_CLI_COMMANDS(pathology_spatial) {
  reg.add(Command("pathology.normalize_data", "norm_constant * (x - min) / (max - min), or with atan(x - min).")
              .input("image", "image")
              .param(Param::number("norm_constant", required, "normalisation range [0, norm_constant]"))
              .param(Param::number("min_value", required, "minimum intensity of the data"))
              .param(Param::number("max_value", required, "maximum intensity of the data"))
              .param(Param::choice("type", Codec<path::NormalizeType>::choices(), "range", "normalisation type"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::normalize_data(inv.input(0), inv.number("norm_constant"), inv.number("min_value"),
                                            inv.number("max_value"), Codec<path::NormalizeType>::read(inv, "type"),
                                            inv.stream());
              }));
  reg.add(Command("pathology.scale_intensity_range", "Linear map of [a_min, a_max] onto [b_min, b_max], optionally clipped.")
              .input("image", "image")
              .options<path::ScaleIntensityRangeOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::scale_intensity_range(inv.input(0), inv.options<path::ScaleIntensityRangeOptions>(),
                                                   inv.stream());
              }));
  reg.add(Command("pathology.zoom", "Zoom the planes in or out, keeping the shape (centre crop or edge pad).")
              .input("image", "image with two spatial axes")
              .param(Param::numbers("zoom_factor", required, "zoom factor of each spatial axis (one value: both)"))
              .options<path::ZoomOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto z = inv.numbers("zoom_factor");
                if (z.empty() || z.size() > 2) invalid(inv, "zoom_factor", "must hold 1 or 2 values");
                return path::zoom(inv.input(0), {z[0], z.size() == 2 ? z[1] : z[0]}, inv.options<path::ZoomOptions>(),
                                  inv.stream());
              }));
  reg.add(Command("pathology.rand_zoom", "zoom by random factors in [min_zoom, max_zoom] with probability prob.")
              .input("image", "image with two spatial axes")
              .options<path::RandZoomOptions>({"zoom"})  // its fields follow, from ZoomOptions
              .options<path::ZoomOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<path::RandZoomOptions>();
                o.zoom = inv.options<path::ZoomOptions>();
                return path::rand_zoom(inv.input(0), o, inv.stream());
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
              .options<path::RandFlipOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto a = inv.ints("spatial_axis");
                return path::rand_image_flip(inv.input(0), std::vector<int>(a.begin(), a.end()),
                                             inv.options<path::RandFlipOptions>(), inv.stream());
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
              .options<path::RandRotate90Options>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return path::rand_image_rotate_90(inv.input(0), axis_pair(inv, "spatial_axis"),
                                                  inv.options<path::RandRotate90Options>(), inv.stream());
              }));
}

}  // namespace cuskimage::cli
