// skimage.measure's contours, polygon utilities and image measures on the command line.
//   cuskimage measure.find_contours mask.png contours.csv --level 0.5
//   cuskimage measure.find_contours mask.png --format json
//   cuskimage measure.block_reduce image.png out.npy --block_size 4,4 --func mean
//   cuskimage measure.euler_number mask.png --connectivity 1
// Contours are a CSV table (contour, row, col; one row per point, contours in scikit-image's order)
// or a JSON list of [[row, col], ...] lists; scalars print as JSON; polygons as [[row, col], ...].
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

nlohmann::json pairs_json(const Array& a) { return array_to_json(a.to(Device::cpu())); }

/// scikit-image's reduce_func of profile_line: 'mean' or None (every sample). The C++ options split
/// it into `reduce` and a custom callable `reduce_func`, so the command line's keyword is its own.
struct ProfileLineReduce {
  measure::ProfileReduce reduce_func = measure::ProfileLineOptions{}.reduce;
};
CUSK_OPTIONS(ProfileLineReduce, (reduce_func, "reduction across the width"))

/// blur_effect's reduce_func: a reduction of the per-axis values, or None (the list, from
/// blur_effect_axes).
struct BlurEffectReduce {
  std::optional<measure::BlurReduce> reduce_func = measure::BlurEffectOptions{}.reduce;
};
CUSK_OPTIONS(BlurEffectReduce, (reduce_func, "reduction of the per-axis values (none: the list)"))

/// The optional trailing mask input (Invocation input 2 or 1).
Array optional_input(Invocation& inv, std::size_t i) { return inv.num_inputs() > i ? inv.input(i).share() : Array(); }

}  // namespace

CUSK_CLI_COMMANDS(measure_misc) {
  reg.add(Command("measure.find_contours",
                  "Iso-valued contours of a 2-D image (marching squares, sub-pixel), in scikit-image's order.")
              .input("image", "2-D image")
              .options<measure::FindContoursOptions>()
              .param(Param::choice("format", {"csv", "json"}, "csv",
                                   "csv: a table contour,row,col; json: a list of [[row, col], ...] contours"))
              .returns_table("one row per contour point: contour, row, col")
              .handler([](Invocation& inv) -> Result {
                const auto contours =
                    measure::find_contours(inv.input(0), inv.options<measure::FindContoursOptions>(), inv.stream());
                if (inv.string("format") == "json") {
                  nlohmann::json all = nlohmann::json::array();
                  for (const auto& c : contours) all.push_back(array_to_json(c));
                  Result r;
                  r.value = std::move(all);
                  return r;
                }
                Table t;
                t.columns = {"contour", "row", "col"};
                for (std::size_t k = 0; k < contours.size(); ++k) {
                  const auto v = contours[k].to_vector<double>();
                  for (std::size_t j = 0; j + 1 < v.size(); j += 2) t.rows.push_back({k, v[j], v[j + 1]});
                }
                return Result(std::move(t));
              }));

  reg.add(Command("measure.mesh_surface_area", "Surface area of a triangle mesh.")
              .input("verts", "(V, 3) vertex coordinates (.npy)")
              .input("faces", "(F, 3) integer vertex indices (.npy)")
              .returns_value("the area")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::mesh_surface_area(inv.input(0), inv.input(1), inv.stream()));
              }));

  reg.add(Command("measure.points_in_poly", "Whether each point lies inside (or on) a polygon.")
              .input("points", "(N, 2) points (.npy)")
              .input("verts", "(M, 2) polygon vertices (.npy)")
              .returns_value("a list of N booleans")
              .handler([](Invocation& inv) -> Result {
                return array_to_json(measure::points_in_poly(inv.input(0), inv.input(1)));
              }));

  reg.add(Command("measure.grid_points_in_poly", "Mask of the grid points inside (or on) a polygon.")
              .input("verts", "(M, 2) polygon vertices (.npy)")
              .param(Param::ints("shape", required, "grid shape rows,cols"))
              .options<measure::GridPointsInPolyOptions>({"device"})  // --device
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto s = inv.ints("shape");
                auto o = inv.options<measure::GridPointsInPolyOptions>();
                o.device = inv.device();
                return measure::grid_points_in_poly(Shape(s.begin(), s.end()), inv.input(0), o, inv.stream());
              }));

  reg.add(Command("measure.approximate_polygon", "Douglas-Peucker approximation of a polygonal chain.")
              .input("coords", "(N, 2) coordinates (.npy)")
              .param(Param::number("tolerance", required, "maximum distance from the original chain"))
              .returns_value("[[row, col], ...]")
              .handler([](Invocation& inv) -> Result {
                return pairs_json(measure::approximate_polygon(inv.input(0), inv.number("tolerance")));
              }));

  reg.add(Command("measure.subdivide_polygon", "One step of B-spline subdivision of a polygonal chain.")
              .input("coords", "(N, 2) coordinates (.npy); closed when the first and last points are equal")
              .options<measure::SubdividePolygonOptions>()
              .returns_value("[[row, col], ...]")
              .handler([](Invocation& inv) -> Result {
                return pairs_json(
                    measure::subdivide_polygon(inv.input(0), inv.options<measure::SubdividePolygonOptions>()));
              }));

  reg.add(Command("measure.profile_line", "Intensity profile along a line (linewidth samples averaged).")
              .input("image", "2-D image or 3-D channel-last image")
              .param(Param::numbers("src", required, "start point row,col"))
              .param(Param::numbers("dst", required, "end point row,col"))
              .options<measure::ProfileLineOptions>({"reduce", "reduce_func"})  // as ProfileLineReduce
              .choices("mode", {"reflect", "mirror", "nearest", "constant", "wrap"})
              .options<ProfileLineReduce>()
              .choices("reduce_func", {"mean", "none"})
              .returns_value("the profile (nested lists)")
              .handler([](Invocation& inv) -> Result {
                const auto s = inv.numbers("src"), d = inv.numbers("dst");
                if (s.size() != 2 || d.size() != 2)
                  throw UsageError("measure.profile_line: --src and --dst take two numbers each (row,col)");
                auto o = inv.options<measure::ProfileLineOptions>();
                o.reduce = inv.options<ProfileLineReduce>().reduce_func;
                return pairs_json(measure::profile_line(inv.input(0), {s[0], s[1]}, {d[0], d[1]}, o, inv.stream()));
              }));

  reg.add(Command("measure.block_reduce", "Down-sample by applying a function to non-overlapping blocks.")
              .input("image", "N-d image")
              .param(Param::ints("block_size", "2", "block extent: one value or one per axis"))
              .options<measure::BlockReduceOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return measure::block_reduce(inv.input(0), inv.ints("block_size"),
                                             inv.options<measure::BlockReduceOptions>(), inv.stream());
              }));
}

// Image statistics and colocalisation (their own block: registration functions stay short).
CUSK_CLI_COMMANDS(measure_misc_stats) {
  reg.add(Command("measure.shannon_entropy", "Shannon entropy of the image's values.")
              .input("image", "image")
              .param(Param::number("base", "2", "logarithm base"))
              .returns_value("the entropy")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::shannon_entropy(inv.input(0), inv.number("base"), inv.stream()));
              }));

  reg.add(Command("measure.perimeter", "Perimeter of the objects of a 2-D binary image.")
              .input("image", "2-D binary image")
              .param(Param::integer("neighborhood", "4", "4 or 8"))
              .returns_value("the perimeter")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::perimeter(inv.input(0), static_cast<int>(inv.integer("neighborhood")),
                                                         inv.stream()));
              }));

  reg.add(Command("measure.perimeter_crofton", "Crofton perimeter of the objects of a 2-D binary image.")
              .input("image", "2-D binary image")
              .param(Param::integer("directions", "4", "2 or 4"))
              .returns_value("the perimeter")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::perimeter_crofton(
                    inv.input(0), static_cast<int>(inv.integer("directions")), inv.stream()));
              }));

  reg.add(Command("measure.euler_number", "Euler characteristic of a 2-D or 3-D binary image.")
              .input("image", "2-D or 3-D binary image (> 0 is object)")
              .param(Param::integer("connectivity", "none", "1..ndim (3-D: 1 or 3); default ndim"))
              .returns_value("the Euler number")
              .handler([](Invocation& inv) -> Result {
                std::optional<int> c;
                if (auto v = inv.opt_integer("connectivity")) c = static_cast<int>(*v);
                return nlohmann::json(measure::euler_number(inv.input(0), c, inv.stream()));
              }));

  reg.add(Command("measure.blur_effect", "Blur metric in [0, 1] (Crete et al.).")
              .input("image", "image (grey, or colour with --channel_axis)")
              .options<measure::BlurEffectOptions>({"reduce"})  // as BlurEffectReduce
              .options<BlurEffectReduce>()
              .returns_value("the blur metric (or the per-axis list)")
              .handler([](Invocation& inv) -> Result {
                auto o = inv.options<measure::BlurEffectOptions>();
                const auto r = inv.options<BlurEffectReduce>().reduce_func;
                if (!r) return nlohmann::json(measure::blur_effect_axes(inv.input(0), o, inv.stream()));
                o.reduce = *r;
                return nlohmann::json(measure::blur_effect(inv.input(0), o, inv.stream()));
              }));

  reg.add(Command("measure.pearson_corr_coeff", "Pearson's r and its two-sided p-value between two images.")
              .input("image0", "first image")
              .input("image1", "second image (same shape)")
              .optional_input("mask", "bool mask of the pixels to use")
              .returns_value("[r, p-value]")
              .handler([](Invocation& inv) -> Result {
                const auto r = measure::pearson_corr_coeff(inv.input(0), inv.input(1), optional_input(inv, 2),
                                                           inv.stream());
                return nlohmann::json::array({r.statistic, r.pvalue});
              }));

  reg.add(Command("measure.manders_coloc_coeff", "Manders' colocalisation coefficient of image0 in image1_mask.")
              .input("image0", "intensity image (non-negative)")
              .input("image1_mask", "binary mask of the second channel")
              .optional_input("mask", "bool mask of the pixels to use")
              .returns_value("the coefficient")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::manders_coloc_coeff(inv.input(0), inv.input(1), optional_input(inv, 2),
                                                                   inv.stream()));
              }));

  reg.add(Command("measure.manders_overlap_coeff", "Manders' overlap coefficient of two images.")
              .input("image0", "first image (non-negative)")
              .input("image1", "second image (non-negative)")
              .optional_input("mask", "bool mask of the pixels to use")
              .returns_value("the coefficient")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::manders_overlap_coeff(inv.input(0), inv.input(1),
                                                                     optional_input(inv, 2), inv.stream()));
              }));

  reg.add(Command("measure.intersection_coeff", "Fraction of image0_mask that overlaps image1_mask.")
              .input("image0_mask", "first binary mask")
              .input("image1_mask", "second binary mask")
              .optional_input("mask", "bool mask of the pixels to use")
              .returns_value("the coefficient")
              .handler([](Invocation& inv) -> Result {
                return nlohmann::json(measure::intersection_coeff(inv.input(0), inv.input(1), optional_input(inv, 2),
                                                                  inv.stream()));
              }));
}

}  // namespace cuskimage::cli
