// measure.regionprops / regionprops_table / the moments family: scikit-image 0.26 goldens (every
// numeric property, 2-D and 3-D, spacing, sparse labels, channels), the accessor, extra
// properties, the table and its CSV, bad input, and the CUDA backend against the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <numbers>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::NotSupported;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace measure = cuskimage::measure;

Array golden(const std::string& name) { return cusktest::load_golden("regionprops/" + name + ".npy"); }

std::vector<std::string> golden_names(const std::string& c) {
  const Array b = golden(c + "_names");
  std::string text(b.size(), '\0');
  for (std::int64_t i = 0; i < b.size(); ++i) text[i] = static_cast<char>(b.data<std::uint8_t>()[i]);
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

/// The property names behind table columns ("bbox-0" -> "bbox"), in order.
std::vector<std::string> props_of(const std::vector<std::string>& cols) {
  std::vector<std::string> out;
  for (const auto& c : cols) {
    const std::string p = c.substr(0, c.find('-'));
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

/// Rounding scale of a central-moment column "moments_central-1-0" (row r): mu0 * (L + 1)^s with
/// L the region's radius of gyration and s the power sum. Central moments that vanish in exact
/// arithmetic (s = 1, symmetric shapes) are rounding noise of that size on both sides.
std::vector<double> central_scale(const std::string& col, int ndim,
                                  const std::function<std::vector<double>(const std::string&)>& get) {
  for (const std::string prop : {"moments_central", "moments_weighted_central"}) {
    if (!col.starts_with(prop + "-")) continue;
    std::vector<int> idx;
    std::stringstream ss(col.substr(prop.size() + 1));
    for (std::string t; std::getline(ss, t, '-');) idx.push_back(std::stoi(t));
    std::string suffix;
    for (std::size_t k = ndim; k < idx.size(); ++k) suffix += "-" + std::to_string(idx[k]);
    int s = 0;
    for (int a = 0; a < ndim; ++a) s += idx[a];
    auto name_of = [&](int axis, int p) {
      std::string n = prop;
      for (int a = 0; a < ndim; ++a) n += a == axis ? "-" + std::to_string(p) : "-0";
      return n + suffix;
    };
    const auto mu0 = get(name_of(-1, 0));
    std::vector<double> second(mu0.size(), 0.0);
    for (int a = 0; a < ndim; ++a) {
      const auto m2 = get(name_of(a, 2));
      for (std::size_t r = 0; r < m2.size(); ++r) second[r] += m2[r];
    }
    std::vector<double> out(mu0.size());
    for (std::size_t r = 0; r < out.size(); ++r)
      out[r] = std::fabs(mu0[r]) * std::pow(std::sqrt(std::max(second[r] / mu0[r], 0.0)) + 1.0, s);
    return out;
  }
  return {};
}

/// |a - e| <= rtol |e| + atol_frac * (max|column| or the central-moment scale of the row);
/// NaN == NaN.
::testing::AssertionResult columns_close(const std::string& name, const std::vector<double>& expected,
                                         const std::vector<double>& actual, double rtol, double atol_frac,
                                         const std::vector<double>& row_scale = {}) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << name << ": " << actual.size() << " rows, expected " << expected.size();
  double scale = 0;
  for (double e : expected)
    if (std::isfinite(e)) scale = std::max(scale, std::fabs(e));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i], a = actual[i];
    if (std::isnan(e) && std::isnan(a)) continue;
    const double sc = row_scale.empty() ? scale : row_scale[i];
    double diff = std::fabs(a - e);
    // An orientation of +-pi/2 is one axis: which sign a vertical symmetric region gets depends on
    // the rounding sign of a zero mu11 (scikit-image's einsum, the CPU and the GPU each round it).
    if (name.ends_with("orientation")) diff = std::min(diff, std::fabs(diff - std::numbers::pi));
    if (!(diff <= rtol * std::fabs(e) + atol_frac * sc))
      return ::testing::AssertionFailure() << name << " row " << i << ": got " << a << ", expected " << e;
  }
  return ::testing::AssertionSuccess();
}

struct TableCase {
  std::string name;
  std::vector<double> spacing;
  bool intensity;
};

const std::vector<TableCase>& table_cases() {
  static const std::vector<TableCase> c = {
      {"blobs2", {}, true},        {"ring2", {0.5, 0.5}, true},     {"sparse2", {2.0, 0.5}, true},
      {"multich2", {}, true},      {"blobs3", {}, true},            {"spacing3", {1.0, 2.0, 0.5}, true},
      {"plain2", {}, false},
  };
  return c;
}

/// Compares a table with a golden case's columns (names in order, values per column).
void expect_table_matches(const TableCase& tc, const measure::Table& t, const std::vector<std::string>& only = {}) {
  const auto names = golden_names(tc.name);
  const Array g = golden(tc.name + "_table");
  const std::int64_t rows = g.shape(0);
  std::size_t checked = 0;
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (!only.empty() && std::find(only.begin(), only.end(), names[j].substr(0, names[j].find('-'))) == only.end())
      continue;
    ASSERT_TRUE(t.contains(names[j])) << tc.name << ": no column " << names[j];
    auto golden_column = [&](const std::string& col) {
      const auto k = static_cast<std::int64_t>(std::find(names.begin(), names.end(), col) - names.begin());
      std::vector<double> e(rows);
      for (std::int64_t r = 0; r < rows; ++r) e[r] = g.data<double>()[r * g.shape(1) + k];
      return e;
    };
    const int nd = golden(tc.name + "_labels").ndim();
    EXPECT_TRUE(columns_close(tc.name + "/" + names[j], golden_column(names[j]), t.as_double(names[j]), 1e-6, 1e-9,
                              central_scale(names[j], nd, golden_column)));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

/// Properties of the statistics passes (the per-region arrays batched on the device are checked in
/// tests/measure/test_regionprops_gpu.cpp).
bool is_stat(const std::string& p) {
  static const std::vector<std::string> arrays = {"area_convex", "area_filled", "feret_diameter_max", "solidity",
                                                  "intensity_median"};
  return std::find(arrays.begin(), arrays.end(), p) == arrays.end();
}

// ---- goldens (CPU) ----------------------------------------------------------------------------------

TEST(MeasureRegionprops, GoldenTablesEveryProperty) {
  for (const auto& tc : table_cases()) {
    const Array labels = golden(tc.name + "_labels");
    const Array inten = tc.intensity ? golden(tc.name + "_intensity") : Array();
    const auto names = golden_names(tc.name);
    const auto t = measure::regionprops_table(labels, inten, props_of(names), {.spacing = tc.spacing});
    EXPECT_EQ(t.names(), names) << tc.name;
    expect_table_matches(tc, t);
    EXPECT_TRUE(t.is_integer("label"));
    EXPECT_TRUE(t.is_integer("bbox-0"));
    EXPECT_FALSE(t.is_integer("area"));
  }
}

/// intensity_median is numpy.median: an order statistic or, for an even pixel count, numpy's mean
/// of the two middle values in the intensity's dtype (float32: the float32 sum halved). Both are
/// reproducible exactly, so these columns are compared exactly (the tolerance of
/// GoldenTablesEveryProperty hid a float64 mean of float32 values, ~3e-8 relative off).
TEST(MeasureRegionprops, GoldenMediansExact) {
  for (const auto& tc : table_cases()) {
    if (!tc.intensity) continue;
    const auto names = golden_names(tc.name);
    const Array g = golden(tc.name + "_table");
    const auto t = measure::regionprops_table(golden(tc.name + "_labels"), golden(tc.name + "_intensity"),
                                              {"intensity_median"}, {.spacing = tc.spacing});
    std::size_t checked = 0;
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (!names[j].starts_with("intensity_median")) continue;
      const auto got = t.as_double(names[j]);
      ASSERT_EQ(static_cast<std::int64_t>(got.size()), g.shape(0)) << tc.name;
      for (std::int64_t r = 0; r < g.shape(0); ++r)
        EXPECT_EQ(got[r], g.data<double>()[r * g.shape(1) + static_cast<std::int64_t>(j)])
            << tc.name << " " << names[j] << " row " << r;
      ++checked;
    }
    EXPECT_GT(checked, 0u) << tc.name;
  }
  // Scattered 3-D labels with even and odd counts; float32 (one and two channels), float64, uint8.
  const Array lab = golden("median3_labels");
  for (const std::string c : {"f32", "f64", "u8", "f32x2"}) {
    const Array want = golden("median3_" + c + "_median");
    const auto t = measure::regionprops_table(lab, golden("median3_" + c + "_intensity"), {"label", "intensity_median"});
    ASSERT_EQ(static_cast<std::int64_t>(t.num_rows()), want.shape(0)) << c;
    for (std::int64_t k = 0; k < want.shape(1); ++k) {
      const auto got = t.as_double(want.shape(1) == 1 ? "intensity_median" : "intensity_median-" + std::to_string(k));
      for (std::int64_t r = 0; r < want.shape(0); ++r)
        EXPECT_EQ(got[r], want.data<double>()[r * want.shape(1) + k]) << c << " channel " << k << " row " << r;
    }
  }
  // The case means something: the float32 rule changes some even-count medians (the float64
  // golden holds the same values as doubles), and label 9 (1 and the next float32) averages to 1.
  const auto f32 = golden("median3_f32_median").to_vector<double>(), f64 = golden("median3_f64_median").to_vector<double>();
  EXPECT_NE(f32, f64);
  EXPECT_EQ(f32.back(), 1.0);
  EXPECT_GT(f64.back(), 1.0);
}

TEST(MeasureRegionprops, StridedLabelViewEqualsContiguous) {
  const Array labels = golden("blobs2_labels");
  const Array inten = golden("blobs2_intensity");
  const Array lv = labels.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 3}});
  const Array iv = inten.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 3}});
  const std::vector<std::string> props = {"label", "bbox", "centroid", "moments_central", "intensity_mean",
                                          "perimeter", "area_filled"};
  const auto a = measure::regionprops_table(lv, iv, props);
  const auto b = measure::regionprops_table(lv.copy(), iv.copy(), props);
  ASSERT_EQ(a.names(), b.names());
  ASSERT_GT(a.num_rows(), 3u);
  for (const auto& n : a.names()) EXPECT_EQ(a.as_double(n), b.as_double(n)) << n;
}

TEST(MeasureRegionprops, AccessorAgreesWithTableAndImages) {
  const Array labels = golden("blobs2_labels");
  const Array inten = golden("blobs2_intensity");
  const auto regions = measure::regionprops(labels, inten);
  const auto t = measure::regionprops_table(labels, inten, {"label", "area", "bbox", "centroid", "intensity_mean",
                                                            "moments_hu", "inertia_tensor"});
  ASSERT_EQ(regions.size(), t.num_rows());
  const auto lab = labels.to_vector<std::int64_t>();
  const std::int64_t W = labels.shape(1);
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const auto& r = regions[i];
    EXPECT_EQ(r.label(), t.as_double("label")[i]);
    EXPECT_EQ(r.area(), t.as_double("area")[i]);
    EXPECT_EQ(r.get("centroid")[1], t.as_double("centroid-1")[i]);
    EXPECT_EQ(r.intensity_mean()[0], t.as_double("intensity_mean")[i]);
    EXPECT_EQ(r.moments_hu().shape(), (Shape{7}));
    EXPECT_EQ(r.inertia_tensor().shape(), (Shape{2, 2}));
    EXPECT_EQ(r.moments().shape(), (Shape{4, 4}));
    const auto bb = r.bbox();
    const Array img = r.image();
    ASSERT_EQ(img.shape(), (Shape{bb[2] - bb[0], bb[3] - bb[1]}));
    std::int64_t n = 0;
    for (std::int64_t y = bb[0]; y < bb[2]; ++y)
      for (std::int64_t x = bb[1]; x < bb[3]; ++x) {
        const bool in = lab[y * W + x] == r.label();
        EXPECT_EQ(img.at<bool>({y - bb[0], x - bb[1]}), in);
        n += in;
      }
    EXPECT_EQ(n, r.num_pixels());
    const Array coords = r.coords();
    ASSERT_EQ(coords.shape(), (Shape{n, 2}));
    for (std::int64_t k = 0; k < n; ++k)
      EXPECT_EQ(lab[coords.at<std::int64_t>({k, 0}) * W + coords.at<std::int64_t>({k, 1})], r.label());
    const Array ii = r.image_intensity();
    EXPECT_EQ(ii.dtype(), DType::float64);
    for (std::int64_t y = 0; y < img.shape(0); ++y)
      for (std::int64_t x = 0; x < img.shape(1); ++x)
        EXPECT_EQ(ii.at<double>({y, x}), img.at<bool>({y, x}) ? inten.at<double>({y + bb[0], x + bb[1]}) : 0.0);
    const auto sl = r.slice();
    EXPECT_EQ(*sl[0].start, bb[0]);
    EXPECT_EQ(*sl[1].stop, bb[3]);
  }
}

TEST(MeasureRegionprops, ImageFilledAndConvexGoldenAreas) {
  const Array labels = golden("ring2_labels");
  const auto regions = measure::regionprops(labels, {}, {.spacing = {0.5, 0.5}});
  ASSERT_EQ(regions.size(), 3u);
  // label 3: a 20x25 block with a 5x10 hole holding one pixel.
  EXPECT_EQ(regions[0].label(), 3);
  EXPECT_EQ(regions[0].num_pixels(), 20 * 25 - 50 + 1);
  EXPECT_EQ(cusktest::host_copy(regions[0].image_filled()).to_vector<int>(),
            std::vector<int>(20 * 25, 1));
  EXPECT_DOUBLE_EQ(regions[0].area_filled(), 20 * 25 * 0.25);
  EXPECT_EQ(regions[0].euler_number(), 1);  // one component, one hole holding an island: 2 - 1
  EXPECT_EQ(regions[1].euler_number(), 1);
}

TEST(MeasureRegionprops, OffsetMovesCentroidAndCoords) {
  const Array labels = golden("blobs2_labels");
  const auto plain = measure::regionprops(labels);
  const auto moved = measure::regionprops(labels, {}, {.offset = {10, -3}});
  ASSERT_EQ(plain.size(), moved.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_DOUBLE_EQ(moved[i].centroid()[0], plain[i].centroid()[0] + 10);
    EXPECT_DOUBLE_EQ(moved[i].centroid()[1], plain[i].centroid()[1] - 3);
    EXPECT_EQ(moved[i].bbox(), plain[i].bbox());  // the bbox is the slice, as in scikit-image
    EXPECT_EQ(moved[i].coords().at<std::int64_t>({0, 0}), plain[i].coords().at<std::int64_t>({0, 0}) + 10);
  }
}

TEST(MeasureRegionprops, ExtraPropertiesAsCallables) {
  const Array labels = golden("multich2_labels");
  const Array inten = golden("multich2_intensity");
  measure::ExtraProperty pixelcount{"pixelcount",
                                    [](const Array& mask, const Array&) {
                                      const auto v = mask.to_vector<int>();
                                      return std::vector<double>{double(std::accumulate(v.begin(), v.end(), 0))};
                                    }};
  measure::ExtraProperty summax{"summax",
                                [](const Array& mask, const Array& ii) {
                                  const auto m = mask.to_vector<int>();
                                  const auto v = ii.to_vector<double>();
                                  double s = 0, mx = 0;
                                  for (std::size_t k = 0; k < v.size(); ++k)
                                    if (m[k]) {
                                      s += v[k];
                                      mx = std::max(mx, v[k]);
                                    }
                                  return std::vector<double>{s, mx};
                                },
                                true, false};
  const auto t = measure::regionprops_table(labels, inten, {"num_pixels", "intensity_mean", "intensity_max"},
                                            {.extra_properties = {pixelcount, summax}});
  EXPECT_EQ(t.names(), (std::vector<std::string>{"num_pixels", "intensity_mean-0", "intensity_mean-1",
                                                 "intensity_mean-2", "intensity_max-0", "intensity_max-1",
                                                 "intensity_max-2", "pixelcount", "summax-0-0", "summax-0-1",
                                                 "summax-0-2", "summax-1-0", "summax-1-1", "summax-1-2"}));
  EXPECT_EQ(t.as_double("pixelcount"), t.as_double("num_pixels"));
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(t.as_double("summax-1-" + std::to_string(c)), t.as_double("intensity_max-" + std::to_string(c)));
    const auto s = t.as_double("summax-0-" + std::to_string(c));
    const auto mean = t.as_double("intensity_mean-" + std::to_string(c));
    const auto n = t.as_double("num_pixels");
    for (std::size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(s[i] / n[i], mean[i], 1e-9 * mean[i]);
  }
  const auto regions = measure::regionprops(labels, inten, {.extra_properties = {pixelcount}});
  EXPECT_EQ(regions[0].get("pixelcount")[0], static_cast<double>(regions[0].num_pixels()));
}

TEST(MeasureRegionprops, DeprecatedNamesAndSeparator) {
  const Array labels = golden("blobs2_labels");
  const auto t = measure::regionprops_table(labels, {}, {"BoundingBox", "bbox", "filled_area"}, {.separator = "_"});
  EXPECT_EQ(t.names(), (std::vector<std::string>{"BoundingBox_0", "BoundingBox_1", "BoundingBox_2", "BoundingBox_3",
                                                 "bbox_0", "bbox_1", "bbox_2", "bbox_3", "filled_area"}));
  EXPECT_EQ(t.as_double("BoundingBox_2"), t.as_double("bbox_2"));
}

TEST(MeasureRegionprops, EmptyLabelImageGivesNamedEmptyColumns) {
  const Array z = Array::zeros({5, 6}, DType::int32);
  const auto t = measure::regionprops_table(z, {}, {"label", "centroid", "moments_hu"});
  EXPECT_EQ(t.num_rows(), 0u);
  EXPECT_EQ(t.num_columns(), 1u + 2u + 7u);
  EXPECT_TRUE(measure::regionprops(z).empty());
}

TEST(MeasureRegionprops, TableCsv) {
  const Array labels = golden("blobs2_labels");
  const auto t = measure::regionprops_table(labels, {}, {"label", "area", "moments_normalized"});
  std::ostringstream os;
  t.write_csv(os);
  std::istringstream is(os.str());
  std::string header, row;
  std::getline(is, header);
  std::getline(is, row);
  EXPECT_EQ(header.substr(0, 40), "label,area,moments_normalized-0-0,moment");
  EXPECT_EQ(row.substr(0, row.find(',')), "1");
  EXPECT_NE(row.find("nan"), std::string::npos);  // nu with i + j < 2 is NaN
  // Doubles read back exactly.
  std::vector<std::string> cells;
  std::stringstream rs(row);
  for (std::string c; std::getline(rs, c, ',');) cells.push_back(c);
  ASSERT_EQ(cells.size(), t.num_columns());
  EXPECT_EQ(std::stod(cells[1]), t.as_double("area")[0]);
  EXPECT_EQ(std::stod(cells[t.num_columns() - 1]), t.as_double("moments_normalized-3-3")[0]);
  const std::string path = cusktest::temp_path("regionprops.csv");
  t.write_csv(path);
  std::ifstream f(path);
  std::stringstream back;
  back << f.rdbuf();
  EXPECT_EQ(back.str(), os.str());
  EXPECT_THROW(t.column("nope"), InvalidArgument);
  measure::Table u;
  u.add_column("a", std::vector<double>{1, 2});
  EXPECT_THROW(u.add_column("b", std::vector<std::int64_t>{1}), InvalidArgument);
  EXPECT_THROW(u.add_column("a", std::vector<double>{1, 2}), InvalidArgument);
}

TEST(MeasureRegionprops, BadInput) {
  const Array labels = golden("blobs2_labels");
  const Array l3 = golden("blobs3_labels");
  EXPECT_THROW(measure::regionprops_table(labels.astype(DType::float64), {}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels.astype(DType::bool_), {}), InvalidArgument);
  EXPECT_THROW(measure::regionprops(Array::zeros({4}, DType::int32)), InvalidArgument);
  EXPECT_THROW(measure::regionprops(Array::zeros({2, 2, 2, 2}, DType::int32)), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, Array::zeros({48, 55}, DType::float64)), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, Array::zeros({48, 56, 2, 2}, DType::float64)), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"area", "no_such_property"}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"intensity_mean"}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"image"}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"coords"}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"area"}, {.spacing = {1, 2, 3}}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"area"}, {.spacing = {1, NAN}}), InvalidArgument);
  EXPECT_THROW(measure::regionprops(labels, {}, {.offset = {1}}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(l3, {}, {"eccentricity"}), NotSupported);
  EXPECT_THROW(measure::regionprops_table(l3, {}, {"perimeter"}), NotSupported);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"moments_hu"}, {.spacing = {2, 2}}), NotSupported);
  EXPECT_THROW(measure::regionprops_table(labels, {}, {"perimeter"}, {.spacing = {1, 2}}), NotSupported);
  EXPECT_THROW(measure::regionprops(l3)[0].orientation(), NotSupported);
  EXPECT_NO_THROW(measure::regionprops_table(labels, {}, {"perimeter"}, {.spacing = {2, 2}}));
}

// ---- moments (CPU) ------------------------------------------------------------------------------------

TEST(MeasureMoments, Goldens) {
  const Array img2 = golden("img2"), img3 = golden("img3"), coords = golden("coords");
  auto near = [](const Array& e, const Array& a) { EXPECT_ARRAY_NEAR(e, a, 1e-9, 1e-9); };
  near(golden("moments_img2_o3"), measure::moments(img2));
  near(golden("moments_img2_o2_sp"), measure::moments(img2, {.order = 2, .spacing = {0.5, 2.0}}));
  near(golden("moments_img3_o3"), measure::moments(img3));
  const Array f32 = measure::moments(golden("img2_f32"));
  EXPECT_EQ(f32.dtype(), DType::float32);
  EXPECT_ARRAY_NEAR(golden("moments_img2_f32"), f32, 1e-5, 0);
  // Central moments about the centroid: scikit-image converts raw moments analytically, we sum
  // about the centre directly, so near-zero entries agree to the rounding of the large terms.
  const Array mu = measure::moments_central(img2);
  EXPECT_ARRAY_NEAR(golden("central_img2_o3"), mu, 1e-9, 1e-9);
  near(golden("central_img2_center"), measure::moments_central(img2, {.center = {4.0, 5.5}, .order = 4}));
  EXPECT_ARRAY_NEAR(golden("central_img3_sp"), measure::moments_central(img3, {.spacing = {1.0, 0.5, 2.0}}), 1e-9, 1e-9);
  const Array gmu = golden("central_img2_o3");
  EXPECT_ARRAY_NEAR(golden("normalized_img2"), measure::moments_normalized(gmu), 1e-12, 0);
  EXPECT_ARRAY_NEAR(golden("normalized_img2_o2_sp"), measure::moments_normalized(gmu, 2, {0.5, 2.0}), 1e-12, 0);
  EXPECT_ARRAY_NEAR(golden("hu_img2"), measure::moments_hu(measure::moments_normalized(gmu)), 1e-9, 1e-15);
  near(golden("centroid_img2"), measure::centroid(img2));
  near(golden("centroid_img3_sp"), measure::centroid(img3, {1.0, 0.5, 2.0}));
  EXPECT_ARRAY_NEAR(golden("inertia_img2"), measure::inertia_tensor(img2), 1e-9, 1e-12);
  EXPECT_ARRAY_NEAR(golden("inertia_img3"), measure::inertia_tensor(img3), 1e-9, 1e-12);
  for (const char* c : {"img2", "img3"}) {
    const auto ev = measure::inertia_tensor_eigvals(golden(c));
    const auto ge = golden(std::string("eigvals_") + c).to_vector<double>();
    ASSERT_EQ(ev.size(), ge.size());
    for (std::size_t k = 0; k < ev.size(); ++k) EXPECT_NEAR(ev[k], ge[k], 1e-9 * ge[0]);
  }
  EXPECT_ARRAY_NEAR(golden("moments_coords"), measure::moments_coords(coords), 1e-10, 1e-6);
  EXPECT_ARRAY_NEAR(golden("moments_coords_central"), measure::moments_coords_central(coords, {}, 2), 1e-10, 1e-9);
  EXPECT_ARRAY_NEAR(golden("moments_coords_central_c"), measure::moments_coords_central(coords, {1.0, 2.0, 3.0}, 3),
                    1e-10, 1e-6);
}

TEST(MeasureMoments, BadInput) {
  const Array img2 = golden("img2");
  EXPECT_THROW(measure::moments(img2, {.order = -1}), InvalidArgument);
  EXPECT_THROW(measure::moments(img2, {.spacing = {1, 2, 3}}), InvalidArgument);
  EXPECT_THROW(measure::moments_central(img2, {.center = {1.0}}), InvalidArgument);
  EXPECT_THROW(measure::moments_normalized(measure::moments(img2, {.order = 2}), 3), InvalidArgument);
  EXPECT_THROW(measure::moments_hu(Array::zeros({3, 3}, DType::float64)), InvalidArgument);
  EXPECT_THROW(measure::moments_coords(Array::zeros({4}, DType::float64)), InvalidArgument);
}

// ---- CLI ------------------------------------------------------------------------------------------------

TEST(MeasureRegionpropsCli, TableCsvAndMoments) {
  const std::string labels = cusktest::golden_path("regionprops/blobs2_labels.npy");
  const std::string inten = cusktest::golden_path("regionprops/blobs2_intensity.npy");
  const std::string out = cusktest::temp_path("rp_cli.csv");
  const auto r = cuskclitest::run_cli_cpu({"measure.regionprops_table", labels, out, "--intensity_image", inten, "--properties",
                                           "label,area,centroid,intensity_mean"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  const auto t = measure::regionprops_table(golden("blobs2_labels"), golden("blobs2_intensity"),
                                            {"label", "area", "centroid", "intensity_mean"});
  std::ostringstream os;
  t.write_csv(os);
  EXPECT_EQ(cuskclitest::slurp(out), os.str());
  const auto m = cuskclitest::run_cli_cpu({"measure.moments", cusktest::golden_path("regionprops/img2.npy"),
                                           "--order", "1"});
  ASSERT_EQ(m.rc, 0) << cuskclitest::describe(m);
  EXPECT_TRUE(cuskclitest::contains(m.out, "[[")) << m.out;
  const auto bad = cuskclitest::run_cli_cpu({"measure.regionprops_table", labels, "--properties", "nope"});
  EXPECT_EQ(bad.rc, 1) << cuskclitest::describe(bad);
}

// ---- CUDA against the CPU -----------------------------------------------------------------------------

/// Random blobs labelled on the CPU (label numbers dense from 1).
Array random_labels(const Shape& shape, std::uint64_t seed) {
  const Array noise = cusktest::random_array(shape, DType::float64, seed);
  const Array smooth = cuskimage::ndimage::gaussian_filter(noise, std::vector<double>(shape.size(), 1.5));
  const auto v = smooth.to_vector<double>();
  std::vector<double> s = v;
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(0.65 * s.size()), s.end());
  const double t = s[static_cast<std::size_t>(0.65 * s.size())];
  std::vector<std::uint8_t> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = v[i] > t;
  return measure::label(Array::from_vector(m, shape).astype(DType::bool_), {.dtype = DType::int64});
}

std::vector<std::string> stat_props(int ndim, bool intensity) {
  std::vector<std::string> p = {"label", "area", "area_bbox", "axis_major_length", "axis_minor_length", "bbox",
                                "centroid", "centroid_local", "equivalent_diameter_area", "extent", "inertia_tensor",
                                "inertia_tensor_eigvals", "moments", "moments_central", "moments_normalized",
                                "num_pixels", "euler_number"};
  if (ndim == 2) p.insert(p.end(), {"eccentricity", "orientation", "moments_hu", "perimeter", "perimeter_crofton"});
  if (intensity) {
    p.insert(p.end(), {"centroid_weighted", "centroid_weighted_local", "intensity_max", "intensity_mean",
                       "intensity_min", "intensity_std", "moments_weighted", "moments_weighted_central",
                       "moments_weighted_normalized"});
    if (ndim == 2) p.push_back("moments_weighted_hu");
  }
  return p;
}

void expect_tables_close(const measure::Table& cpu, const measure::Table& gpu, int ndim, const std::string& what) {
  ASSERT_EQ(cpu.names(), gpu.names()) << what;
  auto get = [&](const std::string& c) { return cpu.as_double(c); };
  for (const auto& n : cpu.names()) {
    if (cpu.is_integer(n))
      EXPECT_EQ(cpu.as_double(n), gpu.as_double(n)) << what << " " << n;
    else {
      // Axis lengths are 4 sqrt(eigenvalue): an eigenvalue that vanishes in exact arithmetic (a
      // one-pixel-thick region) is rounding noise ~eps L^2 on each backend, and its square root
      // ~1e-8 L; every other column keeps the tight bound.
      const bool root = n.find("axis_minor_length") != std::string::npos || n.find("axis_major_length") != std::string::npos;
      EXPECT_TRUE(columns_close(what + " " + n, cpu.as_double(n), gpu.as_double(n), 1e-9, root ? 1e-6 : 1e-11,
                                central_scale(n, ndim, get)));
    }
  }
}

TEST(GpuRegionprops, GoldenTablesOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const auto& tc : table_cases()) {
    const Array labels = golden(tc.name + "_labels").to(Device::cuda(), s);
    const Array inten = tc.intensity ? golden(tc.name + "_intensity").to(Device::cuda(), s) : Array();
    std::vector<std::string> props;
    for (const auto& p : props_of(golden_names(tc.name)))
      if (is_stat(p)) props.push_back(p);
    const auto t = measure::regionprops_table(labels, inten, props, {.spacing = tc.spacing}, s);
    expect_table_matches(tc, t, props);
  }
}

TEST(GpuRegionprops, MatchesCpuOnRandomBlobs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  struct Case {
    Shape shape;
    DType label_dtype, intensity_dtype;
    std::int64_t channels;  // 0: none, 1: no channel axis
    std::int64_t scale;     // label multiplier (large: the sparse path)
    std::vector<double> spacing;
  };
  const std::vector<Case> cases = {
      {{300, 517}, DType::int32, DType::uint8, 1, 1, {}},
      {{300, 517}, DType::int64, DType::float64, 1, 1000003, {0.5, 2.0}},
      {{211, 190}, DType::uint16, DType::uint16, 1, 1, {}},
      {{211, 190}, DType::int32, DType::float32, 5, 1, {}},  // two channel groups of the kernels
      {{128, 129}, DType::int32, DType::int16, 2, 1, {}},    // converted intensity dtype
      {{128, 129}, DType::int32, DType::uint8, 0, 1, {}},
      {{40, 50, 61}, DType::int32, DType::float32, 1, 1, {}},
      {{40, 50, 61}, DType::int64, DType::uint8, 3, 777777, {1.0, 2.0, 0.5}},
  };
  std::uint64_t seed = 5;
  for (const auto& c : cases) {
    Array lab = random_labels(c.shape, seed++);
    if (c.scale != 1) {
      auto v = lab.to_vector<std::int64_t>();
      for (auto& x : v) x *= c.scale;
      lab = Array::from_vector(v, c.shape);
    }
    lab = lab.astype(c.label_dtype);
    Array inten;
    if (c.channels > 0) {
      Shape is = c.shape;
      if (c.channels > 1) is.push_back(c.channels);
      inten = cusktest::random_array(is, c.intensity_dtype, seed++, 0, 200);
    }
    const auto props = stat_props(static_cast<int>(c.shape.size()), c.channels > 0);
    auto p = props;
    if (!c.spacing.empty())  // moments_hu: unit spacing only; perimeters: isotropic only
      p.erase(std::remove_if(p.begin(), p.end(),
                             [](const std::string& x) { return x.ends_with("_hu") || x.starts_with("perimeter"); }),
              p.end());
    const auto cpu = measure::regionprops_table(lab, inten, p, {.spacing = c.spacing});
    ASSERT_GT(cpu.num_rows(), 5u);
    const auto gpu = measure::regionprops_table(lab.to(Device::cuda(), s),
                                                inten.valid() ? inten.to(Device::cuda(), s) : Array(), p,
                                                {.spacing = c.spacing}, s);
    expect_tables_close(cpu, gpu, static_cast<int>(c.shape.size()), cuskimage::shape_str(c.shape) + " " + std::string(cuskimage::dtype_name(c.label_dtype)));
  }
}

TEST(GpuRegionprops, StridedViewsOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array lab = random_labels({200, 301}, 77);
  const Array inten = cusktest::random_array({200, 301}, DType::float32, 78);
  const Array dl = lab.to(Device::cuda(), s), di = inten.to(Device::cuda(), s);
  const std::vector<Slice> sl = {Slice{3, std::nullopt, 2}, Slice{std::nullopt, 250, 3}};
  const auto p = stat_props(2, true);
  const auto cpu = measure::regionprops_table(lab.slice(sl), inten.slice(sl), p);
  const auto gpu = measure::regionprops_table(dl.slice(sl), di.slice(sl), p, {}, s);
  expect_tables_close(cpu, gpu, 2, "strided");
}

TEST(GpuRegionprops, PerRegionImagesOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array lab = golden("multich2_labels");
  const Array inten = golden("multich2_intensity");
  const auto cpu = measure::regionprops(lab, inten);
  const auto gpu = measure::regionprops(lab.to(Device::cuda(), s), inten.to(Device::cuda(), s), {}, s);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_ARRAY_EQ(cpu[i].image(), gpu[i].image());
    EXPECT_TRUE(gpu[i].image().device().is_cuda());
    EXPECT_ARRAY_EQ(cpu[i].image_intensity(), gpu[i].image_intensity());
    EXPECT_EQ(cpu[i].bbox(), gpu[i].bbox());
  }
  for (std::size_t i = 0; i < cpu.size(); ++i) {  // the batched local passes against the crops
    EXPECT_NEAR(cpu[i].perimeter(), gpu[i].perimeter(), 1e-9 * cpu[i].perimeter());
    EXPECT_NEAR(cpu[i].perimeter_crofton(), gpu[i].perimeter_crofton(), 1e-9 * cpu[i].perimeter_crofton());
    EXPECT_EQ(cpu[i].euler_number(), gpu[i].euler_number());
  }
  // coords, image_filled, image_convex and the rest are batched on the device too:
  // tests/measure/test_regionprops_gpu.cpp.
  EXPECT_ARRAY_EQ(cpu[0].coords(), gpu[0].coords());
  EXPECT_EQ(cpu[0].area_filled(), gpu[0].area_filled());
}

TEST(GpuRegionprops, BadInputOnDevice) {
  CUSK_REQUIRE_GPU();
  const Array lab = golden("blobs2_labels").to(Device::cuda());
  EXPECT_THROW(measure::regionprops_table(lab.astype(DType::float32), {}), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(lab, Array::zeros({48, 57}, DType::uint8, Device::cuda())), InvalidArgument);
  EXPECT_THROW(measure::regionprops_table(lab, golden("blobs2_intensity")), InvalidArgument);  // host vs device
}

TEST(GpuRegionprops, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array lab = random_labels({256, 256}, 9).astype(DType::int32).to(Device::cuda());
  const Array inten = cusktest::random_array({256, 256}, DType::uint8, 10).to(Device::cuda());
  cuskimage::Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const auto t = measure::regionprops_table(lab, inten, {"label", "area", "centroid", "bbox", "intensity_mean",
                                                           "moments_central", "intensity_std"}, {}, s);
    (void)measure::moments_central(inten, {}, s);
    EXPECT_GT(t.num_rows(), 0u);
  }));
}

TEST(GpuMoments, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  auto dev = [&](const Array& a) { return a.to(Device::cuda(), s); };
  for (const Shape& sh : {Shape{1000}, Shape{257, 131}, Shape{23, 31, 37}}) {
    for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
      const Array img = cusktest::random_array(sh, dt, 31, 0, 9);
      const std::vector<double> sp(sh.size(), 0.75);
      const double tol = dt == DType::float32 ? 1e-6 : 1e-10;
      EXPECT_ARRAY_NEAR(measure::moments(img, {.order = 3, .spacing = sp}),
                        measure::moments(dev(img), {.order = 3, .spacing = sp}, s), tol, 0);
      EXPECT_ARRAY_NEAR(measure::moments_central(img, {.order = 4}), measure::moments_central(dev(img), {.order = 4}, s),
                        tol, tol * 1e3);
      EXPECT_ARRAY_NEAR(measure::centroid(img, sp), measure::centroid(dev(img), sp, s), tol, 0);
      if (sh.size() >= 2) {
        EXPECT_ARRAY_NEAR(measure::inertia_tensor(img), measure::inertia_tensor(dev(img), {}, {}, s), tol, tol);
        const auto a = measure::inertia_tensor_eigvals(img);
        const auto b = measure::inertia_tensor_eigvals(dev(img), {}, {}, {}, s);
        for (std::size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], tol * a[0] + 1e-12);
      }
    }
  }
  const Array img = golden("img2");
  const Array mu = measure::moments_central(img);
  EXPECT_ARRAY_NEAR(measure::moments_normalized(mu, 3, {0.5, 2.0}), measure::moments_normalized(dev(mu), 3, {0.5, 2.0}, s),
                    1e-14, 0);
  const Array nu = measure::moments_normalized(mu);
  EXPECT_ARRAY_NEAR(measure::moments_hu(nu), measure::moments_hu(dev(nu), s), 1e-14, 1e-18);
  const Array coords = golden("coords");
  EXPECT_ARRAY_NEAR(measure::moments_coords_central(coords, {}, 3), measure::moments_coords_central(dev(coords), {}, 3, s),
                    1e-10, 1e-8);
  EXPECT_ARRAY_NEAR(measure::moments_coords(coords, 2), measure::moments_coords(dev(coords), 2, s), 1e-12, 0);
}

}  // namespace
