// transform.hough_transform on the command line:
//   cuskimage transform.hough_line edges.png hspace.npy angles.npy distances.npy [--theta a,b,...]
//   cuskimage transform.hough_line_peaks edges.png [--num_peaks 5]        (prints the peaks)
//   cuskimage transform.hough_circle edges.png acc.npy --radius 10,15,20 [--full_output true]
//   cuskimage transform.hough_circle_peaks edges.png --radius 10,15 [--total_num_peaks 3]
//   cuskimage transform.probabilistic_hough_line edges.png --rng 0         (prints the segments)
//   cuskimage transform.hough_ellipse edges.png --threshold 8              (prints the ellipses)
#include <nlohmann/json.hpp>

#include "cuskimage/transform/hough_transform.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

Array vec1d(const std::vector<double>& v) {
  return Array::from_vector(v, {static_cast<std::int64_t>(v.size())});
}

}  // namespace

CUSK_CLI_COMMANDS(transform_hough) {
  reg.add(Command("transform.hough_line", "Straight-line Hough transform of the nonzero pixels (uint64 votes).")
              .input("image", "2-D edge image")
              .options<transform::HoughLineOptions>()
              .returns_image({"hspace", "angles", "distances"})
              .handler([](Invocation& inv) -> Result {
                auto r = transform::hough_line(inv.input(0), inv.options<transform::HoughLineOptions>(), inv.stream());
                Result res;
                res.images.push_back(std::move(r.hspace));
                res.images.push_back(vec1d(r.angles));
                res.images.push_back(vec1d(r.distances));
                return res;
              }));
  reg.add(Command("transform.hough_line_peaks", "Peaks of the straight-line Hough transform of the image.")
              .input("image", "2-D edge image")
              .options<transform::HoughLineOptions>()
              .options<transform::HoughLinePeaksOptions>()
              .returns_value("{accum: [...], angles: [...], distances: [...]}")
              .handler([](Invocation& inv) -> Result {
                const auto h = transform::hough_line(inv.input(0), inv.options<transform::HoughLineOptions>(),
                                                     inv.stream());
                const auto p = transform::hough_line_peaks(h.hspace, h.angles, h.distances,
                                                           inv.options<transform::HoughLinePeaksOptions>(), inv.stream());
                return nlohmann::json{{"accum", p.accum}, {"angles", p.angles}, {"distances", p.distances}};
              }));
  reg.add(Command("transform.hough_circle", "Circular Hough transform (float64 (radii, rows, cols)).")
              .input("image", "2-D edge image")
              .param(Param::ints("radius", required, "radii, e.g. 10,15,20"))
              .options<transform::HoughCircleOptions>()
              .returns_image()
              .handler([](Invocation& inv) -> Result {
                return transform::hough_circle(inv.input(0), inv.ints("radius"),
                                               inv.options<transform::HoughCircleOptions>(), inv.stream());
              }));
  reg.add(Command("transform.hough_circle_peaks", "Peaks of the circular Hough transform of the image.")
              .input("image", "2-D edge image")
              .param(Param::ints("radius", required, "radii, e.g. 10,15,20"))
              .options<transform::HoughCirclePeaksOptions>()  // the accumulator with hough_circle's defaults
              .returns_value("{accum: [...], cx: [...], cy: [...], radii: [...]}")
              .handler([](Invocation& inv) -> Result {
                const auto radius = inv.ints("radius");
                const Array h = transform::hough_circle(inv.input(0), radius, {}, inv.stream());
                const auto p = transform::hough_circle_peaks(h, radius, inv.options<transform::HoughCirclePeaksOptions>(),
                                                             inv.stream());
                return nlohmann::json{{"accum", p.accum}, {"cx", p.cx}, {"cy", p.cy}, {"radii", p.radii}};
              }));
  reg.add(Command("transform.probabilistic_hough_line", "Line segments by the progressive probabilistic Hough transform.")
              .input("image", "2-D edge image")
              .options<transform::ProbabilisticHoughLineOptions>()
              .returns_value("[[[x0, y0], [x1, y1]], ...]")
              .handler([](Invocation& inv) -> Result {
                nlohmann::json out = nlohmann::json::array();
                for (const auto& l : transform::probabilistic_hough_line(
                         inv.input(0), inv.options<transform::ProbabilisticHoughLineOptions>(), inv.stream()))
                  out.push_back({{l[0][0], l[0][1]}, {l[1][0], l[1][1]}});
                return out;
              }));
  reg.add(Command("transform.hough_ellipse", "Ellipses by the Hough transform of Xie and Ji (small images).")
              .input("image", "2-D edge image")
              .options<transform::HoughEllipseOptions>()
              .returns_value("[[accumulator, yc, xc, a, b, orientation], ...]")
              .handler([](Invocation& inv) -> Result {
                nlohmann::json out = nlohmann::json::array();
                for (const auto& e :
                     transform::hough_ellipse(inv.input(0), inv.options<transform::HoughEllipseOptions>(), inv.stream()))
                  out.push_back({e.accumulator, e.yc, e.xc, e.a, e.b, e.orientation});
                return out;
              }));
}

}  // namespace cuskimage::cli
