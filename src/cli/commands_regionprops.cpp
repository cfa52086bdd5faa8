// measure.regionprops_table and the moments family on the command line.
//   cuskimage measure.regionprops_table labels.npy props.csv --intensity_image img.png \
//       --properties label,area,centroid,bbox,intensity_mean --spacing 0.5,0.5
//   cuskimage measure.moments image.png --order 2          (prints the moments as nested JSON lists)
#include <charconv>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/cli/registry.hpp"

namespace cuskimage::cli {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// The cell text measure::Table::write_csv writes (shortest round-trip doubles, nan/inf).
std::string cell_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

cli::Table to_cli_table(const measure::Table& t) {
  cli::Table out;
  out.columns = t.names();
  out.rows.assign(t.num_rows(), std::vector<nlohmann::json>(t.num_columns()));
  for (std::size_t j = 0; j < t.num_columns(); ++j) {
    const auto& name = t.names()[j];
    if (t.is_integer(name)) {
      const auto& v = std::get<std::vector<std::int64_t>>(t.column(name));
      for (std::size_t i = 0; i < v.size(); ++i) out.rows[i][j] = std::to_string(v[i]);
    } else {
      const auto& v = std::get<std::vector<double>>(t.column(name));
      for (std::size_t i = 0; i < v.size(); ++i) out.rows[i][j] = cell_text(v[i]);
    }
  }
  return out;
}

std::vector<double> opt_numbers(Invocation& inv, const std::string& name) {
  return inv.has(name) ? inv.numbers(name) : std::vector<double>{};
}

Result json_of(Invocation& inv, const Array& a) {
  inv.stream().synchronize();
  return Result(array_to_json(a));
}

const Array& opt_array(Invocation& inv, const std::string& name, const Array& none) {
  return inv.has(name) ? inv.array(name) : none;
}

}  // namespace

CUSK_CLI_COMMANDS(measure_regionprops) {
  reg.add(Command("measure.regionprops_table",
                  "Measure every labelled region; one row per region, multi-value properties expanded (bbox-0, ...).")
              .input("label_image", "2-D or 3-D integer label image (0 is background)")
              .param(Param::array("intensity_image", "none", "intensity image (label shape, optional trailing channel axis)"))
              .param(Param::string("properties", "label,bbox", "comma-separated scikit-image property names"))
              .options<measure::RegionpropsOptions>({"offset"})  // regionprops only
              .returns_table("one row per region")
              .handler([](Invocation& inv) -> Result {
                const Array none;
                const auto t = measure::regionprops_table(inv.input(0), opt_array(inv, "intensity_image", none),
                                                          split_commas(inv.string("properties")),
                                                          inv.options<measure::RegionpropsOptions>(), inv.stream());
                return Result(to_cli_table(t));
              }));

  reg.add(Command("measure.moments", "Raw image moments up to `order` along every axis.")
              .input("image", "image (any dimension)")
              .options<measure::MomentsOptions>()
              .returns_value("moments, nested lists of shape (order+1,)*ndim")
              .handler([](Invocation& inv) -> Result {
                return json_of(inv, measure::moments(inv.input(0), inv.options<measure::MomentsOptions>(), inv.stream()));
              }));

  reg.add(Command("measure.moments_central", "Central image moments (about `center`, default the centroid).")
              .input("image", "image (any dimension)")
              .options<measure::MomentsCentralOptions>()
              .returns_value("central moments, nested lists")
              .handler([](Invocation& inv) -> Result {
                return json_of(inv, measure::moments_central(inv.input(0), inv.options<measure::MomentsCentralOptions>(),
                                                             inv.stream()));
              }));

  reg.add(Command("measure.moments_normalized", "Normalized moments from central moments (NaN below order 2).")
              .input("mu", "central moments (.npy)")
              .param(Param::integer("order", "3", "maximum power per axis"))
              .param(Param::numbers("spacing", "none", "pixel spacing per axis"))
              .returns_value("normalized moments, nested lists")
              .handler([](Invocation& inv) -> Result {
                return json_of(inv, measure::moments_normalized(inv.input(0), static_cast<int>(inv.integer("order")),
                                                                opt_numbers(inv, "spacing"), inv.stream()));
              }));

  reg.add(Command("measure.moments_hu", "The seven Hu invariants of 2-D normalized moments.")
              .input("nu", "normalized moments (.npy), shape (n, n) with n >= 4")
              .returns_value("[hu0, ..., hu6]")
              .handler([](Invocation& inv) -> Result { return json_of(inv, measure::moments_hu(inv.input(0), inv.stream())); }));

  reg.add(Command("measure.moments_coords", "Raw moments of a (K, ndim) coordinate list.")
              .input("coords", "coordinates (.npy), shape (K, ndim)")
              .param(Param::integer("order", "3", "maximum power per axis"))
              .returns_value("moments, nested lists")
              .handler([](Invocation& inv) -> Result {
                return json_of(inv, measure::moments_coords(inv.input(0), static_cast<int>(inv.integer("order")),
                                                            inv.stream()));
              }));

  reg.add(Command("measure.moments_coords_central", "Central moments of a (K, ndim) coordinate list.")
              .input("coords", "coordinates (.npy), shape (K, ndim)")
              .param(Param::numbers("center", "none", "centre per axis (default: the mean)"))
              .param(Param::integer("order", "3", "maximum power per axis"))
              .returns_value("central moments, nested lists")
              .handler([](Invocation& inv) -> Result {
                return json_of(inv, measure::moments_coords_central(inv.input(0), opt_numbers(inv, "center"),
                                                                    static_cast<int>(inv.integer("order")), inv.stream()));
              }));

  reg.add(Command("measure.centroid", "Intensity centroid of an image.")
              .input("image", "image (any dimension)")
              .param(Param::numbers("spacing", "none", "pixel spacing per axis"))
              .returns_value("[c0, c1, ...]")
              .handler([](Invocation& inv) -> Result {
                return json_of(inv, measure::centroid(inv.input(0), opt_numbers(inv, "spacing"), inv.stream()));
              }));

  reg.add(Command("measure.inertia_tensor", "Inertia tensor of an image's intensity.")
              .input("image", "1-D to 3-D image")
              .param(Param::array("mu", "none", "central moments of order >= 2 (.npy)"))
              .param(Param::numbers("spacing", "none", "pixel spacing per axis"))
              .returns_value("(ndim, ndim) tensor, nested lists")
              .handler([](Invocation& inv) -> Result {
                const Array none;
                return json_of(inv, measure::inertia_tensor(inv.input(0), opt_array(inv, "mu", none),
                                                            opt_numbers(inv, "spacing"), inv.stream()));
              }));

  reg.add(Command("measure.inertia_tensor_eigvals", "Eigenvalues of the inertia tensor, decreasing.")
              .input("image", "1-D to 3-D image")
              .param(Param::array("mu", "none", "central moments of order >= 2 (.npy)"))
              .param(Param::array("T", "none", "the inertia tensor (.npy)"))
              .param(Param::numbers("spacing", "none", "pixel spacing per axis"))
              .returns_value("[l0, l1, ...]")
              .handler([](Invocation& inv) -> Result {
                const Array none;
                const auto ev = measure::inertia_tensor_eigvals(inv.input(0), opt_array(inv, "mu", none),
                                                                opt_array(inv, "T", none), opt_numbers(inv, "spacing"),
                                                                inv.stream());
                return Result(nlohmann::json(ev));
              }));
}

}  // namespace cuskimage::cli
