// measure.regionprops_table_device: columns left on the label image's device. The device pass's
// columns must equal regionprops_table's (itself checked against scikit-image's goldens in
// test_regionprops.cpp): same names, same order, exact for integers, 1e-12 relative for doubles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace measure = cuskimage::measure;

/// Labelled smooth-noise blobs (~40 % foreground), labels multiplied by `scale` (sparse labels).
Array blobs(const Shape& shape, std::uint64_t seed, std::int64_t scale = 1) {
  const Array noise = cusktest::random_array(shape, DType::float64, seed);
  const Array smooth = cuskimage::ndimage::gaussian_filter(noise, std::vector<double>(shape.size(), 1.5));
  auto v = smooth.to_vector<double>();
  std::vector<double> s = v;
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(0.6 * s.size()), s.end());
  const double t = s[static_cast<std::size_t>(0.6 * s.size())];
  std::vector<std::uint8_t> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = v[i] > t;
  const Array lab = measure::label(Array::from_vector(m, shape).astype(DType::bool_), {.dtype = DType::int64});
  auto l = lab.to_vector<std::int64_t>();
  for (auto& x : l) x *= scale;
  return Array::from_vector(l, shape);
}

void expect_same(const measure::Table& want, const measure::DeviceTable& got, const std::string& what) {
  ASSERT_EQ(got.names, want.names()) << what;
  ASSERT_EQ(got.columns.size(), got.names.size()) << what;
  for (std::size_t j = 0; j < got.names.size(); ++j) {
    const std::string& name = got.names[j];
    const Array col = got.columns[j].to(Device::cpu());
    ASSERT_EQ(col.ndim(), 1) << what << " " << name;
    ASSERT_EQ(static_cast<std::size_t>(col.shape(0)), want.num_rows()) << what << " " << name;
    if (want.is_integer(name)) {
      ASSERT_EQ(col.dtype(), DType::int64) << what << " " << name;
      EXPECT_EQ(col.to_vector<std::int64_t>(), std::get<std::vector<std::int64_t>>(want.column(name))) << what << " " << name;
    } else {
      ASSERT_EQ(col.dtype(), DType::float64) << what << " " << name;
      const auto a = col.to_vector<double>();
      const auto& b = std::get<std::vector<double>>(want.column(name));
      for (std::size_t i = 0; i < a.size(); ++i)
        ASSERT_NEAR(a[i], b[i], 1e-12 * std::max(1.0, std::abs(b[i]))) << what << " " << name << " row " << i;
    }
  }
}

const std::vector<std::string> kPass1 = {"label", "area", "num_pixels", "bbox", "centroid", "centroid_local",
                                          "intensity_mean", "intensity_min", "intensity_max"};

TEST(RegionpropsDevice, CpuColumnsEqualTheTable) {
  const Array lab = blobs({40, 52}, 3);
  const Array inten = cusktest::random_array({40, 52}, DType::float32, 4);
  const auto want = measure::regionprops_table(lab, inten, kPass1);
  const auto got = measure::regionprops_table_device(lab, inten, kPass1);
  expect_same(want, got, "cpu");
  EXPECT_TRUE(got.columns[0].device().is_cpu());
  EXPECT_EQ(&got.column("bbox-3"), &got.columns[6]);
  EXPECT_THROW((void)got.column("bbox-4"), cuskimage::InvalidArgument);
}

TEST(RegionpropsDevice, BadInputRaises) {
  const Array lab = blobs({20, 20}, 5);
  EXPECT_THROW((void)measure::regionprops_table_device(lab.astype(DType::float32), {}, {"area"}), cuskimage::InvalidArgument);
  EXPECT_THROW((void)measure::regionprops_table_device(lab, {}, {"coords"}), cuskimage::InvalidArgument);
  EXPECT_THROW((void)measure::regionprops_table_device(lab, {}, {"intensity_mean"}), cuskimage::InvalidArgument);
  EXPECT_THROW((void)measure::regionprops_table_device(lab, Array::zeros({20, 21}, DType::uint8), {"intensity_mean"}),
               cuskimage::InvalidArgument);
}

TEST(GpuRegionpropsDevice, Pass1ColumnsEqualTheCpuTable) {
  CUSK_REQUIRE_GPU();
  struct Case {
    Shape shape;
    std::int64_t scale;
    DType ldt, idt;
    std::int64_t channels;
    std::vector<double> spacing;
  };
  const std::vector<Case> cases = {
      {{96, 130}, 1, DType::int32, DType::uint8, 0, {}},
      {{96, 130}, 1, DType::int64, DType::float64, 3, {0.5, 2.0}},
      {{64, 70}, 3'000'000, DType::int64, DType::uint16, 0, {}},  // sparse labels (sorted-key slots)
      {{20, 24, 28}, 1, DType::uint16, DType::float32, 0, {1.0, 0.25, 3.0}},
  };
  std::uint64_t seed = 10;
  for (const auto& c : cases) {
    const Array lab = blobs(c.shape, seed++, c.scale).astype(c.ldt);
    Shape ishape = c.shape;
    if (c.channels) ishape.push_back(c.channels);
    const Array inten = cusktest::random_array(ishape, c.idt, seed++);
    const std::string what = cuskimage::shape_str(c.shape) + " " + std::string(cuskimage::dtype_name(c.ldt));
    measure::RegionpropsOptions o;
    o.spacing = c.spacing;
    const auto want = measure::regionprops_table(lab, inten, kPass1, o);
    const auto got = measure::regionprops_table_device(lab.to(Device::cuda()), inten.to(Device::cuda()), kPass1, o);
    for (const auto& col : got.columns) EXPECT_TRUE(col.device().is_cuda()) << what;
    expect_same(want, got, what);
  }
}

TEST(GpuRegionpropsDevice, OtherPropertiesAreUploaded) {
  CUSK_REQUIRE_GPU();
  const Array lab = blobs({80, 90}, 21);
  const Array inten = cusktest::random_array({80, 90}, DType::float32, 22);
  const std::vector<std::string> props = {"label", "eccentricity", "moments_hu", "intensity_std", "area"};
  const auto want = measure::regionprops_table(lab, inten, props);
  const auto got = measure::regionprops_table_device(lab.to(Device::cuda()), inten.to(Device::cuda()), props);
  for (const auto& col : got.columns) EXPECT_TRUE(col.device().is_cuda());
  expect_same(want, got, "uploaded");
}

TEST(GpuRegionpropsDevice, StridedViewAndNonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array lab = blobs({100, 120}, 31).to(Device::cuda());
  const Array inten = cusktest::random_array({100, 120}, DType::uint8, 32).to(Device::cuda());
  const auto view = lab.slice({cuskimage::Slice{5, 95, 2}, cuskimage::Slice{3, 117}});
  const auto iview = inten.slice({cuskimage::Slice{5, 95, 2}, cuskimage::Slice{3, 117}});
  const auto want = measure::regionprops_table(view.to(Device::cpu()), iview.to(Device::cpu()), kPass1);
  expect_same(want, measure::regionprops_table_device(view, iview, kPass1), "strided");
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const auto t = measure::regionprops_table_device(lab, inten, kPass1, {}, s);
    s.synchronize();
    EXPECT_EQ(t.names.size(), 14u);
  }));
}

}  // namespace
