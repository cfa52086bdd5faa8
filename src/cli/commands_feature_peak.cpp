// feature.peak_local_max / feature.corner_peaks on the command line: the peak coordinates as a CSV
// table (one row per peak, highest first; to OUTPUT when given, else stdout).
//   cuskimage feature.peak_local_max edt.npy --min_distance 7 --labels labels.npy
//   cuskimage feature.corner_peaks response.npy peaks.csv --min_distance 3 --exclude_border false
#include <string>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {

/// exclude_border: "true", "false", one width or one per axis ("2" or "2,3,0").
template <>
struct Codec<feature::ExcludeBorder> {
  static constexpr Kind kind = Kind::string;
  static std::string format(const feature::ExcludeBorder& v) {
    if (!v.widths) return "true";
    std::vector<std::string> items;
    for (auto w : *v.widths) items.push_back(std::to_string(w));
    return format_list(items);
  }
  static feature::ExcludeBorder read(Invocation& inv, const std::string& name) {
    const std::string s = inv.string(name);
    if (s == "true" || s == "True") return true;
    if (s == "false" || s == "False") return false;
    std::vector<std::int64_t> w;
    std::size_t pos = 0;
    try {
      while (pos <= s.size()) {
        const std::size_t end = std::min(s.find(',', pos), s.size());
        w.push_back(std::stoll(s.substr(pos, end - pos)));
        pos = end + 1;
      }
    } catch (const std::exception&) {
      throw UsageError(inv.name() + ": parameter '--" + name + "' expects true, false or widths (2 or 2,3), got '" +
                       s + "'");
    }
    return w;
  }
};

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
