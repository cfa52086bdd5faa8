// Histogram thresholds of skimage.filters: golden values from scikit-image 0.26 (exact, float images
// included; threshold_mean and threshold_li 1e-9 relative for integer images and 1e-6 for float
// images, 1e-5 for threshold_li on the device), the hist= forms, strided
// views, bad inputs; the Gpu* suites compare the CUDA backend with the CPU one on fresh random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "tests/common/test_support.hpp"

namespace filters = cuskimage::filters;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;

namespace {

const std::vector<std::string> kCases = {"camera",  "coins",        "astronaut_gray", "astronaut_gray_f32",
                                         "u8",      "u8_bimodal_3d", "u16",           "i16",
                                         "f32_3d",  "f64",          "u8_constant",    "f32_constant",
                                         "f32_gamma", "f32_uniform", "f64_mixture", "u8_mixture", "i8"};

/// All thresholds in the order of cases_filters.py's RESULTS; NaN where the call throws
/// InvalidArgument (scikit-image raises).
std::vector<double> all_thresholds(const Array& img, const Stream& s = {}) {
  auto guard = [](const std::function<double()>& f) {
    try {
      return f();
    } catch (const InvalidArgument&) {
      return std::nan("");
    }
  };
  std::vector<double> r = {
      guard([&] { return filters::threshold_otsu(img, {}, s); }),
      guard([&] { return filters::threshold_yen(img, {}, s); }),
      guard([&] { return filters::threshold_isodata(img, {}, s); }),
      guard([&] { return filters::threshold_mean(img, s); }),
      guard([&] { return filters::threshold_minimum(img, {}, s); }),
      guard([&] { return filters::threshold_triangle(img, {}, s); }),
  };
  try {
    const auto m = filters::threshold_multiotsu(img, {}, s);
    r.insert(r.end(), m.begin(), m.end());
  } catch (const InvalidArgument&) {
    r.insert(r.end(), {std::nan(""), std::nan("")});
  }
  r.push_back(guard([&] { return filters::threshold_li(img, {}, s); }));
  return r;
}

void expect_values(const std::vector<double>& expected, const std::vector<double>& actual, bool exact,
                   const std::string& what, double float_rtol = 1e-6) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i], a = actual[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << what << " [" << i << "]: expected an error, got " << a;
    } else if (i == 3 || i == 8) {
      // threshold_mean (3) and threshold_li (8) sum in another order than NumPy.
      EXPECT_NEAR(e, a, (exact ? 1e-9 : float_rtol) * std::fabs(e) + 1e-12) << what << " [" << i << "]";
    } else {
      (void)exact;  // histogram thresholds match scikit-image bit for bit, float images included
      EXPECT_EQ(e, a) << what << " [" << i << "]";
    }
  }
}

/// GPU vs CPU: bit-equal thresholds (same histogram, same selection code); threshold_mean (3) sums
/// in another order on the device (1e-6 relative) and so does threshold_li (8) on float images,
/// where a last-bit change can move where the iteration stops (1e-4 relative).
void expect_same(const std::vector<double>& cpu, const std::vector<double>& gpu, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (std::isnan(cpu[i])) EXPECT_TRUE(std::isnan(gpu[i])) << what << " [" << i << "]";
    else if (i == 3) EXPECT_NEAR(cpu[i], gpu[i], 1e-6 * std::fabs(cpu[i]) + 1e-12) << what << " [" << i << "]";
    else if (i == 8) EXPECT_NEAR(cpu[i], gpu[i], 1e-4 * std::fabs(cpu[i]) + 1e-9) << what << " [" << i << "]";
    else EXPECT_EQ(cpu[i], gpu[i]) << what << " [" << i << "]";
  }
}

std::vector<double> golden_values(const std::string& name) { return cusktest::load_golden(name).to_vector<double>(); }

}  // namespace

TEST(Threshold, GoldenAllFunctions) {
  for (const auto& c : kCases) {
    const Array img = cusktest::load_golden("filters/threshold_in_" + c + ".npy");
    const bool exact = cuskimage::is_integer(img.dtype());
    expect_values(golden_values("filters/threshold_res_" + c + ".npy"), all_thresholds(img), exact, c);
  }
}

TEST(Threshold, GoldenIsodataAll) {
  for (const auto& c : kCases) {
    const Array img = cusktest::load_golden("filters/threshold_in_" + c + ".npy");
    const auto expected = golden_values("filters/threshold_isodata_all_" + c + ".npy");
    if (expected.empty()) {
      EXPECT_THROW(filters::threshold_isodata_all(img), InvalidArgument) << c;
      continue;
    }
    expect_values(expected, filters::threshold_isodata_all(img), cuskimage::is_integer(img.dtype()), c);
  }
}

TEST(Threshold, GoldenMoreClassesAndBins) {
  const Array cam = cusktest::load_golden("filters/threshold_in_camera.npy");
  expect_values(golden_values("filters/threshold_multiotsu4_camera.npy"),
                filters::threshold_multiotsu(cam, {.classes = 4}), true, "multiotsu4");
  const Array astro = cusktest::load_golden("filters/threshold_in_astronaut_gray.npy");
  std::vector<double> r = {filters::threshold_otsu(astro, {.nbins = 64}), filters::threshold_yen(astro, {.nbins = 64}),
                           filters::threshold_isodata(astro, {.nbins = 64}),
                           filters::threshold_triangle(astro, {.nbins = 64})};
  const auto m = filters::threshold_multiotsu(astro, {.classes = 3, .nbins = 64});
  r.insert(r.end(), m.begin(), m.end());
  expect_values(golden_values("filters/threshold_nbins64_astronaut_gray.npy"), r, false, "nbins64");
}

TEST(Threshold, GoldenLiOptions) {
  const Array cam = cusktest::load_golden("filters/threshold_in_camera.npy");
  const Array f32 = cusktest::load_golden("filters/threshold_in_f32_3d.npy");
  const Array astro = cusktest::load_golden("filters/threshold_in_astronaut_gray.npy");
  const auto e = golden_values("filters/threshold_li_options.npy");
  const std::vector<double> r = {filters::threshold_li(cam, {.tolerance = 2.0}),
                                 filters::threshold_li(cam, {.initial_guess = 30}),
                                 filters::threshold_li(cam, {.initial_guess = 200.5}),
                                 filters::threshold_li(f32, {.tolerance = 0.01}),
                                 filters::threshold_li(f32, {.initial_guess = 1.5}),
                                 filters::threshold_li(astro, {.initial_guess = 0.2})};
  ASSERT_EQ(e.size(), r.size());
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(e[i], r[i], 1e-6 * std::fabs(e[i])) << i;
  EXPECT_THROW(filters::threshold_li(cam, {.initial_guess = 1000}), InvalidArgument);
  EXPECT_THROW(filters::threshold_li(f32, {.initial_guess = -100}), InvalidArgument);
  // NaNs are ignored; only NaNs give NaN; +-inf only give 0.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(filters::threshold_li(Array::from_vector<double>({std::nan(""), std::nan("")}, {2}))));
  EXPECT_EQ(filters::threshold_li(Array::from_vector<double>({std::nan(""), 3.0, 3.0}, {3})), 3.0);
  EXPECT_EQ(filters::threshold_li(Array::from_vector<double>({inf, -inf}, {2})), 0.0);
}

TEST(Threshold, GoldenHistArgument) {
  const Array counts = cusktest::load_golden("filters/threshold_hist_counts.npy");
  const Array centers = cusktest::load_golden("filters/threshold_hist_centers.npy");
  const auto expected = golden_values("filters/threshold_hist_res.npy");
  std::vector<double> r;
  for (int form = 0; form < 2; ++form) {
    filters::Histogram h{counts.share(), form == 0 ? std::nullopt : std::optional<Array>(centers.share())};
    const Array none;
    r.push_back(filters::threshold_otsu(none, {.hist = filters::Histogram{h.counts.share(), form ? std::optional<Array>(centers.share()) : std::nullopt}}));
    r.push_back(filters::threshold_yen(none, {.hist = filters::Histogram{h.counts.share(), form ? std::optional<Array>(centers.share()) : std::nullopt}}));
    r.push_back(filters::threshold_isodata(none, {.hist = filters::Histogram{h.counts.share(), form ? std::optional<Array>(centers.share()) : std::nullopt}}));
    r.push_back(filters::threshold_minimum(none, {.hist = filters::Histogram{h.counts.share(), form ? std::optional<Array>(centers.share()) : std::nullopt}}));
    const auto m = filters::threshold_multiotsu(none, {.hist = filters::Histogram{h.counts.share(), form ? std::optional<Array>(centers.share()) : std::nullopt}});
    r.insert(r.end(), m.begin(), m.end());
  }
  expect_values(expected, r, true, "hist");
}

TEST(Threshold, StridedViewsEqualContiguous) {
  const Array cam = cusktest::load_golden("filters/threshold_in_camera.npy");
  const Array view = cam.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -3}});
  const Array copy = view.copy();
  EXPECT_EQ(all_thresholds(copy), all_thresholds(view));
  const Array f = cusktest::load_golden("filters/threshold_in_f32_3d.npy");
  const Array fv = f.transpose({2, 0, 1}).slice({Slice{1, 7}});
  const auto a = all_thresholds(fv.copy()), b = all_thresholds(fv);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (i != 3 && !std::isnan(a[i])) EXPECT_EQ(a[i], b[i]) << i;
}

TEST(Threshold, DegenerateShapes) {
  // One pixel, one row, 1-D: constant images return their value.
  const Array one = Array::full({1, 1}, 7, DType::uint8);
  EXPECT_EQ(filters::threshold_otsu(one), 7.0);
  EXPECT_EQ(filters::threshold_yen(one), 7.0);
  EXPECT_EQ(filters::threshold_triangle(one), 7.0);
  const Array row = Array::from_vector<std::uint8_t>({3, 9}, {1, 2});
  EXPECT_EQ(filters::threshold_otsu(row), 3.0);
  const Array f = Array::from_vector<float>({0.0f, 1.0f, 1.0f}, {3});
  EXPECT_NEAR(filters::threshold_otsu(f), 0.001953125, 1e-12);  // first bin centre of [0, 1] / 256
}

TEST(Threshold, BadInputs) {
  const Array cam = cusktest::load_golden("filters/threshold_in_camera.npy");
  EXPECT_THROW(filters::threshold_otsu(cam, {.nbins = 1}), InvalidArgument);
  EXPECT_THROW(filters::threshold_multiotsu(cam, {.classes = 1}), InvalidArgument);
  EXPECT_THROW(filters::threshold_otsu(Array::empty({0, 4}, DType::uint8)), InvalidArgument);
  EXPECT_THROW(filters::threshold_otsu(Array()), InvalidArgument);
  EXPECT_THROW(filters::threshold_otsu(Array::zeros({4, 4}, DType::int64)), InvalidArgument);
  const Array nan = Array::from_vector<double>({0.0, std::nan(""), 1.0}, {3});
  EXPECT_THROW(filters::threshold_otsu(nan), InvalidArgument);
  const Array two = Array::from_vector<std::uint8_t>({1, 2, 1, 2}, {4});
  EXPECT_THROW(filters::threshold_multiotsu(two, {.classes = 3}), InvalidArgument);
  EXPECT_EQ(filters::threshold_multiotsu(two, {.classes = 2}), std::vector<double>{1.0});
  EXPECT_THROW(filters::threshold_minimum(two), InvalidArgument);
  EXPECT_TRUE(std::isnan(filters::threshold_mean(Array::empty({0}, DType::float32))));
}

// ---- GPU -------------------------------------------------------------------------------------------

TEST(GpuThreshold, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const auto& c : kCases) {
    const Array img = cusktest::load_golden("filters/threshold_in_" + c + ".npy").to(Device::cuda());
    // The device sums threshold_li's float classes in float64, NumPy pairwise in float32; a last-bit
    // change can move where the iteration stops (by less than its tolerance): 1e-4 relative.
    expect_values(golden_values("filters/threshold_res_" + c + ".npy"), all_thresholds(img),
                  cuskimage::is_integer(img.dtype()), c, 1e-4);
  }
}

TEST(GpuThreshold, MatchesCpuOnRandomInputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 100;
  const std::vector<Shape> shapes = {{37, 41}, {5, 9, 11}, {1, 1}, {1031}, {600, 700}};
  for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::float32, DType::float64}) {
    for (const Shape& shape : shapes) {
      const double lo = dt == DType::uint16 ? 100 : (dt == DType::int16 ? -200 : 0);
      const double hi = dt == DType::uint16 ? 900 : (dt == DType::int16 ? 200 : 0);
      const Array h = cusktest::random_array(shape, dt, seed++, lo, hi);
      const Array d = h.to(Device::cuda(), s);
      const std::string what = std::string(cuskimage::dtype_name(dt)) + cuskimage::shape_str(shape);
      expect_same(all_thresholds(h), all_thresholds(d, s), what);
      // Strided view on the device: every other row, reversed columns.
      if (h.ndim() >= 2 && h.shape(0) > 2) {
        const Array hv = h.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
        const Array dv = d.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
        expect_same(all_thresholds(hv), all_thresholds(dv, s), what + " strided");
      }
    }
  }
  // uint8 with an unaligned start (vector-load tail path) and a big image (many blocks).
  const Array big = cusktest::random_array({2049, 3001}, DType::uint8, 7);
  const Array dbig = big.to(Device::cuda(), s);
  const Array h1 = big.reshape({2049 * 3001}).slice({Slice{3, std::nullopt}});
  const Array d1 = dbig.reshape({2049 * 3001}).slice({Slice{3, std::nullopt}});
  EXPECT_EQ(filters::threshold_otsu(h1), filters::threshold_otsu(d1, {}, s));
  EXPECT_EQ(filters::threshold_otsu(big), filters::threshold_otsu(dbig, {}, s));
  EXPECT_EQ(filters::threshold_isodata_all(big), filters::threshold_isodata_all(dbig, {}, s));
  EXPECT_EQ(filters::threshold_multiotsu(big, {.classes = 4}), filters::threshold_multiotsu(dbig, {.classes = 4}, s));
}

TEST(GpuThreshold, ErrorsOnDevice) {
  CUSK_REQUIRE_GPU();
  const Array nan = Array::from_vector<float>({0.0f, std::nanf(""), 1.0f}, {3}).to(Device::cuda());
  EXPECT_THROW(filters::threshold_otsu(nan), InvalidArgument);
  const Array two = Array::from_vector<std::uint8_t>({1, 2, 1, 2}, {4}).to(Device::cuda());
  EXPECT_THROW(filters::threshold_multiotsu(two, {.classes = 3}), InvalidArgument);
  EXPECT_THROW(filters::threshold_minimum(two), InvalidArgument);
  EXPECT_THROW(filters::threshold_otsu(Array::empty({0}, DType::uint8, Device::cuda())), InvalidArgument);
}

TEST(GpuThreshold, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({513, 257}, DType::uint8, 21);
  const Array hf = cusktest::random_array({64, 65}, DType::float32, 22);
  const Array d = h.to(Device::cuda());
  const Array df = hf.to(Device::cuda());
  Stream().synchronize();
  std::vector<double> r;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    r = all_thresholds(d, s);
    const auto rf = all_thresholds(df, s);
    r.insert(r.end(), rf.begin(), rf.end());
  }));
  std::vector<double> expected = all_thresholds(h);
  const auto ef = all_thresholds(hf);
  expected.insert(expected.end(), ef.begin(), ef.end());
  expect_same(std::vector<double>(expected.begin(), expected.begin() + 9), std::vector<double>(r.begin(), r.begin() + 9),
              "uint8");
  expect_same(std::vector<double>(expected.begin() + 9, expected.end()), std::vector<double>(r.begin() + 9, r.end()),
              "float32");
}
