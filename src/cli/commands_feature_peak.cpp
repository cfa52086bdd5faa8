// feature.peak_local_max / feature.corner_peaks on the command line: the peak coordinates as a CSV
// table (one row per peak, highest first; to OUTPUT when given, else stdout).
//   cuskimage feature.peak_local_max edt.npy --min_distance 7 --labels labels.npy
//   cuskimage feature.corner_peaks response.npy peaks.csv --min_distance 3 --exclude_border false
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/codec_feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

namespace {

Table coordinate_table(const Array& coords, int ndim) {
  Table t;
  const std::vector<std::string> names = ndim == 3 ? std::vector<std::string>{"plane", "row", "col"}
                                                   : std::vector<std::string>{"row", "col"};
  const int cols = static_cast<int>(coords.shape(1));
  for (int a = 0; a < cols; ++a)
    t.columns.push_back(cols == static_cast<int>(names.size()) ? names[a] : "axis" + std::to_string(a));
  const auto v = coords.to_vector<std::int64_t>();
  for (std::size_t r = 0; r < v.size(); r += cols) {
    std::vector<nlohmann::json> row;
    for (int a = 0; a < cols; ++a) row.emplace_back(v[r + a]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

CUSK_CLI_COMMANDS(feature_peak) {
  reg.add(Command("feature.peak_local_max", "Coordinates of the local maxima of the image, highest first.")
              .input("image", "input image (any ndim)")
              .options<feature::PeakLocalMaxOptions>()
              .returns_table("one row of coordinates per peak")
              .handler([](Invocation& inv) -> Result {
                const Array& img = inv.input(0);
                return coordinate_table(
                    feature::peak_local_max(img, inv.options<feature::PeakLocalMaxOptions>(), inv.stream()),
                    img.ndim());
              }));
  reg.add(Command("feature.corner_peaks",
                  "Peaks of a corner response: peak_local_max, then suppression of peaks within min_distance.")
              .input("image", "corner response image")
              .options<feature::CornerPeaksOptions>()
              .returns_table("one row of coordinates per peak")
              .handler([](Invocation& inv) -> Result {
                const Array& img = inv.input(0);
                const auto o = inv.options<feature::CornerPeaksOptions>();
                if (!o.indices)
                  throw UsageError(inv.name() + ": the command line writes coordinates; --indices false is C++-only");
                return coordinate_table(feature::corner_peaks(img, o, inv.stream()), img.ndim());
              }));
}

}  // namespace cuskimage::cli
