// skimage.measure's contours, polygon utilities and image measures on the command line.
//   cuskimage measure.find_contours mask.png contours.csv --level 0.5
//   cuskimage measure.find_contours mask.png --format json
//   cuskimage measure.block_reduce image.png out.npy --block_size 4,4 --func mean
//   cuskimage measure.euler_number mask.png --connectivity 1
// Contours are a CSV table (contour, row, col; one row per point, contours in scikit-image's order)
// or a JSON list of [[row, col], ...] lists; scalars print as JSON; polygons as [[row, col], ...].
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

measure::LowHigh low_high(const std::string& s) { return s == "high" ? measure::LowHigh::high : measure::LowHigh::low; }

nlohmann::json pairs_json(const Array& a) { return array_to_json(a.to(Device::cpu())); }

ndimage::Mode mode_of(const std::string& s) { return ndimage::mode_from_name(s); }

/// The optional trailing mask input (Invocation input 2 or 1).
Array optional_input(Invocation& inv, std::size_t i) { return inv.num_inputs() > i ? inv.input(i).share() : Array(); }

}  // namespace

CUSK_CLI_COMMANDS(measure_misc) {
  reg.add(Command("measure.find_contours",
                  "Iso-valued contours of a 2-D image (marching squares, sub-pixel), in scikit-image's order.")
              .input("image", "2-D image")
              .param(Param::number("level", "none", "iso-value (default (min + max) / 2)"))
              .param(Param::choice("fully_connected", {"low", "high"}, "low", "which side is 8-connected in saddles"))
              .param(Param::choice("positive_orientation", {"low", "high"}, "low",
                                   "'low': contours wind counter-clockwise around low-valued islands"))
              .param(Param::array("mask", "none", "bool mask; cells touching a false pixel are skipped"))
              .param(Param::choice("format", {"csv", "json"}, "csv",
                                   "csv: a table contour,row,col; json: a list of [[row, col], ...] contours"))
              .returns_table("one row per contour point: contour, row, col")
              .handler([](Invocation& inv) -> Result {
                measure::FindContoursOptions o;
                o.level = inv.opt_number("level");
                o.fully_connected = low_high(inv.string("fully_connected"));
                o.positive_orientation = low_high(inv.string("positive_orientation"));
                if (inv.has("mask")) o.mask = inv.array("mask").share();
                const auto contours = measure::find_contours(inv.input(0), o, inv.stream());
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
              .param(Param::boolean("binarize", "true", "false: uint8 labels 0 out, 1 in, 2 vertex, 3 edge"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const auto s = inv.ints("shape");
                return measure::grid_points_in_poly(Shape(s.begin(), s.end()), inv.input(0),
                                                    {.binarize = inv.flag("binarize"), .device = inv.device()},
                                                    inv.stream());
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
              .param(Param::integer("degree", "2", "B-spline degree, 1..7"))
              .param(Param::boolean("preserve_ends", "false", "keep the end points of an open chain"))
              .returns_value("[[row, col], ...]")
              .handler([](Invocation& inv) -> Result {
                return pairs_json(measure::subdivide_polygon(
                    inv.input(0), {.degree = static_cast<int>(inv.integer("degree")),
                                   .preserve_ends = inv.flag("preserve_ends")}));
              }));

  reg.add(Command("measure.profile_line", "Intensity profile along a line (linewidth samples averaged).")
              .input("image", "2-D image or 3-D channel-last image")
              .param(Param::numbers("src", required, "start point row,col"))
              .param(Param::numbers("dst", required, "end point row,col"))
              .param(Param::integer("linewidth", "1", "samples across the line"))
              .param(Param::integer("order", "none", "spline order 0..5 (default 0 for bool, else 1)"))
              .param(Param::choice("mode", {"reflect", "mirror", "nearest", "constant", "wrap"}, "reflect",
                                   "how points outside the image are sampled"))
              .param(Param::number("cval", "0", "value outside the image for mode constant"))
              .param(Param::choice("reduce_func", {"mean", "none"}, "mean", "reduction across the width"))
              .returns_value("the profile (nested lists)")
              .handler([](Invocation& inv) -> Result {
                const auto s = inv.numbers("src"), d = inv.numbers("dst");
                if (s.size() != 2 || d.size() != 2)
                  throw UsageError("measure.profile_line: --src and --dst take two numbers each (row,col)");
                measure::ProfileLineOptions o;
                o.linewidth = inv.integer("linewidth");
                if (auto q = inv.opt_integer("order")) o.order = static_cast<int>(*q);
                o.mode = mode_of(inv.string("mode"));
                o.cval = inv.number("cval");
                o.reduce = inv.string("reduce_func") == "none" ? measure::ProfileReduce::none
                                                                : measure::ProfileReduce::mean;
                return pairs_json(measure::profile_line(inv.input(0), {s[0], s[1]}, {d[0], d[1]}, o, inv.stream()));
              }));

  reg.add(Command("measure.block_reduce", "Down-sample by applying a function to non-overlapping blocks.")
              .input("image", "N-d image")
              .param(Param::ints("block_size", "2", "block extent: one value or one per axis"))
              .param(Param::choice("func", {"sum", "mean", "max", "min", "median"}, "sum", "reduction of each block"))
              .param(Param::number("cval", "0", "padding value where the blocks overhang the image"))
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                const std::string f = inv.string("func");
                const measure::BlockFunc fn = f == "mean"   ? measure::BlockFunc::mean
                                              : f == "max"  ? measure::BlockFunc::max
                                              : f == "min"  ? measure::BlockFunc::min
                                              : f == "median" ? measure::BlockFunc::median
                                                            : measure::BlockFunc::sum;
                return measure::block_reduce(inv.input(0), inv.ints("block_size"),
                                             {.func = fn, .cval = inv.number("cval")}, inv.stream());
              }));

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
              .param(Param::integer("h_size", "11", "size of the re-blurring filter"))
              .param(Param::integer("channel_axis", "none", "axis of the RGB channels"))
              .param(Param::choice("reduce_func", {"max", "mean", "min", "none"}, "max",
                                   "reduction of the per-axis values (none: the list)"))
              .returns_value("the blur metric (or the per-axis list)")
              .handler([](Invocation& inv) -> Result {
                measure::BlurEffectOptions o;
                o.h_size = inv.integer("h_size");
                if (auto a = inv.opt_integer("channel_axis")) o.channel_axis = static_cast<int>(*a);
                const std::string r = inv.string("reduce_func");
                if (r == "none") return nlohmann::json(measure::blur_effect_axes(inv.input(0), o, inv.stream()));
                o.reduce = r == "mean" ? measure::BlurReduce::mean
                           : r == "min" ? measure::BlurReduce::min
                                        : measure::BlurReduce::max;
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
