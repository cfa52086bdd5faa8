// measure.regionprops_table_device: columns left on the label image's device. The device pass's
// columns must equal regionprops_table's (itself checked against scikit-image's goldens in
// test_regionprops.cpp): same names, same order, exact for integers, 1e-12 relative for doubles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/tuning.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
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

/// `s`: the stream the columns were made on (device columns are stream-ordered: read them there).
void expect_same(const measure::Table& want, const measure::DeviceTable& got, const std::string& what,
                 double rtol = 1e-12, const Stream& s = {}) {
  ASSERT_EQ(got.names, want.names()) << what;
  ASSERT_EQ(got.columns.size(), got.names.size()) << what;
  for (std::size_t j = 0; j < got.names.size(); ++j) {
    const std::string& name = got.names[j];
    const Array col = got.columns[j].to(Device::cpu(), s);
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
        ASSERT_NEAR(a[i], b[i], rtol * std::max(1.0, std::abs(b[i]))) << what << " " << name << " row " << i;
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

// ---- pass 1's tile tables (kernels/measure/regionprops.cu) -----------------------------------------
// Each warp combines the runs of its strip (32 rows x 128 pixels by default) per label in a
// shared-memory table before the global atomics (or, fused with the max label, one record per
// label and strip); runs that find no room (more labels than the table holds, long probe chains)
// go to the global atomics directly, and the fused mode falls back to the direct pass. These
// cases drive each path against the CPU: every pixel its own region, thousands of labels per
// strip, a checkerboard of two labels, one region covering the image, sorted-label slots (labels
// > 2^24), 3-D volumes with two channel groups, odd and degenerate shapes, strided views and a
// non-default stream; EveryPolicy repeats inputs like these under each setting of the tuning
// policy. Integer columns exact; float columns 1e-12 relative unless stated
// (integer intensities sum exactly in any order).

const std::vector<std::string> kWeighted = {"label", "area", "bbox", "centroid", "centroid_weighted",
                                            "intensity_mean", "intensity_min", "intensity_max"};

void expect_tables_near(const measure::Table& want, const measure::Table& got, double rtol, const std::string& what) {
  ASSERT_EQ(want.names(), got.names()) << what;
  ASSERT_EQ(want.num_rows(), got.num_rows()) << what;
  for (const auto& n : want.names()) {
    const auto e = want.as_double(n), a = got.as_double(n);
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (want.is_integer(n))
        ASSERT_EQ(e[i], a[i]) << what << " " << n << " row " << i;
      else
        ASSERT_NEAR(e[i], a[i], rtol * std::max(1.0, std::abs(e[i]))) << what << " " << n << " row " << i;
    }
  }
}

/// regionprops_table_device (pass-1 columns), regionprops_table on the device of the same columns
/// (copied from the device columns) and of kWeighted (the per-label statistics, which also read
/// pass 1's weighted sums) against the CPU; returns the region count.
std::size_t check_pass1(const Array& lab, const Array& inten, const std::string& what, const Stream& s,
                        double rtol = 1e-12, const std::vector<double>& spacing = {}) {
  measure::RegionpropsOptions o;
  o.spacing = spacing;
  const Array dl = lab.to(Device::cuda(), s), di = inten.to(Device::cuda(), s);
  const auto want = measure::regionprops_table(lab, inten, kPass1, o);
  const auto got = measure::regionprops_table_device(dl, di, kPass1, o, s);
  for (const auto& col : got.columns) EXPECT_TRUE(col.device().is_cuda()) << what;
  expect_same(want, got, what, rtol, s);
  // The host Table of pass-1 columns comes from the device columns too.
  expect_tables_near(want, measure::regionprops_table(dl, di, kPass1, o, s), rtol, what + " (host columns)");
  expect_tables_near(measure::regionprops_table(lab, inten, kWeighted, o),
                     measure::regionprops_table(dl, di, kWeighted, o, s), rtol, what + " (host table)");
  return want.num_rows();
}

Array labels_from(std::vector<std::int64_t> v, const Shape& shape, DType dt) {
  return Array::from_vector(v, shape).astype(dt);
}

TEST(GpuRegionpropsPass1, ManySmallRegions) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  {  // every pixel its own region: 2048 labels per tile, the table takes 256, the rest go direct
    const Shape sh{150, 131};
    std::vector<std::int64_t> v(150 * 131);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i) + 1;
    EXPECT_EQ(check_pass1(labels_from(v, sh, DType::int64), cusktest::random_array(sh, DType::float32, 61),
                          "one pixel each", s),
              v.size());
  }
  {  // noise labels 0..4000: ~1600 labels per tile, repeated ones scattered over the tile
    const Shape sh{203, 517};
    const Array lab = cusktest::random_array(sh, DType::int32, 62, 0, 4000);
    EXPECT_GT(check_pass1(lab, cusktest::random_array(sh, DType::uint8, 63), "noise labels", s), 3900u);
  }
  {  // checkerboard of labels 1 and 2: one-pixel runs, every run of a tile adds to two entries
    const Shape sh{64, 300};
    std::vector<std::int64_t> v(64 * 300);
    for (std::int64_t y = 0; y < 64; ++y)
      for (std::int64_t x = 0; x < 300; ++x) v[y * 300 + x] = 1 + ((x + y) & 1);
    EXPECT_EQ(check_pass1(labels_from(v, sh, DType::int32), cusktest::random_array(sh, DType::uint16, 64),
                          "checkerboard", s),
              2u);
  }
}

TEST(GpuRegionpropsPass1, OneHugeRegion) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Shape sh{1031, 1300};
  std::vector<std::int64_t> v(1031 * 1300, 5);
  const auto u = cusktest::random_array({1031 * 1300}, DType::float64, 71).to_vector<double>();
  for (std::size_t i = 0; i < v.size(); ++i)
    if (u[i] < 0.01) v[i] = 0;  // holes: the region's runs break, most warps still see one label
  for (std::int64_t y = 500; y < 510; ++y)
    for (std::int64_t x = 640; x < 650; ++x) v[y * 1300 + x] = 9;
  const Array lab = labels_from(v, sh, DType::int32);
  EXPECT_EQ(check_pass1(lab, cusktest::random_array(sh, DType::uint16, 72), "huge region uint16", s), 2u);
  // float64 intensity: the CPU sums 1.3 M values in raster order, the device adds run and tile
  // partial sums in whatever order the atomics land; both stay within ~1e-13 of the exact sum
  // (random rounding over ~1e6 additions), 1e-11 leaves room for the worst of them.
  EXPECT_EQ(check_pass1(lab, cusktest::random_array(sh, DType::float64, 73), "huge region float64", s, 1e-11), 2u);
  // No holes: every warp's last runs are one label (the warp-reduced add).
  const Shape sq{517, 1024};
  EXPECT_EQ(check_pass1(labels_from(std::vector<std::int64_t>(517 * 1024, 3), sq, DType::int64),
                        cusktest::random_array(sq, DType::uint8, 74), "one label everywhere", s),
            1u);
}

TEST(GpuRegionpropsPass1, SortedLabelSlots) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Labels above 2^24 use the sorted unique labels as slots (binary search per run).
  auto big = [](const Array& lab, std::int64_t add, std::int64_t mul) {
    auto v = lab.to_vector<std::int64_t>();
    for (auto& x : v)
      if (x > 0) x = x * mul + add;
    return Array::from_vector(v, lab.shape());
  };
  const Array b2 = blobs({211, 390}, 81);
  EXPECT_GT(check_pass1(big(b2, std::int64_t(1) << 40, 1), cusktest::random_array({211, 390}, DType::float32, 82),
                        "2-D labels + 2^40", s),
            20u);
  const Array noise = cusktest::random_array({77, 300}, DType::int64, 83, 0, 3000);
  EXPECT_GT(check_pass1(big(noise, 5, (std::int64_t(1) << 25) + 1), cusktest::random_array({77, 300}, DType::uint8, 84),
                        "noise labels x 2^25", s),
            2900u);
  const Array b3 = blobs({6, 30, 140}, 85);
  EXPECT_GT(check_pass1(big(b3, 0, 40'000'003), cusktest::random_array({6, 30, 140}, DType::uint16, 86),
                        "3-D labels x 4e7", s, 1e-12, {2.0, 1.0, 0.5}),
            5u);
}

TEST(GpuRegionpropsPass1, ThreeDAndChannelGroups) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // 37 rows and 301 columns per plane: partial tiles on both axes; 5 channels: two launches
  // (channels 0-3, then 4).
  const Array lab = blobs({9, 37, 301}, 91);
  EXPECT_GT(check_pass1(lab, cusktest::random_array({9, 37, 301, 5}, DType::float32, 92), "3-D 5 channels", s, 1e-12,
                        {1.0, 0.5, 2.0}),
            10u);
  EXPECT_GT(check_pass1(lab.astype(DType::int32), cusktest::random_array({9, 37, 301, 2}, DType::uint8, 93),
                        "3-D int32 2 channels", s),
            10u);
  // Noise labels in 3-D (uint16 labels: converted to int64), one channel of float64.
  const Array noise = cusktest::random_array({5, 20, 140}, DType::uint16, 94, 0, 900);
  EXPECT_GT(check_pass1(noise, cusktest::random_array({5, 20, 140}, DType::float64, 95), "3-D noise labels", s), 800u);
}

TEST(GpuRegionpropsPass1, OddShapesStridedViewsAndStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Shape& sh : {Shape{1, 1000}, Shape{1000, 1}, Shape{3, 5}, Shape{17, 129}, Shape{2, 1, 7}}) {
    const Array lab = cusktest::random_array(sh, DType::int32, 101, 0, 6);
    check_pass1(lab, cusktest::random_array(sh, DType::uint8, 102), cuskimage::shape_str(sh), s);
  }
  // Strided views (reversed planes, every other row, a column window) of labels and intensity.
  const Array lab = blobs({8, 60, 333}, 103);
  const Array inten = cusktest::random_array({8, 60, 333}, DType::float32, 104);
  const std::vector<Slice> sl = {Slice{std::nullopt, std::nullopt, -1}, Slice{1, std::nullopt, 2}, Slice{5, 300}};
  const Array dl = lab.to(Device::cuda(), s), di = inten.to(Device::cuda(), s);
  const auto want = measure::regionprops_table(lab.slice(sl), inten.slice(sl), kPass1);
  ASSERT_GT(want.num_rows(), 5u);
  expect_same(want, measure::regionprops_table_device(dl.slice(sl), di.slice(sl), kPass1, {}, s), "strided 3-D", 1e-12, s);
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    const auto t = measure::regionprops_table_device(dl, di, kPass1, {}, st);
    const auto h = measure::regionprops_table(dl, di, kWeighted, {}, st);
    st.synchronize();
    EXPECT_EQ(static_cast<std::size_t>(t.columns[0].shape(0)), h.num_rows());
  }));
}

// ---- every pass-1 setting of the tuning policy (cuskimage::tuning::RegionpropsPolicy) ----------
// Each setting runs the same inputs against the CPU tables: strip heights 1 / 7 / 128, small and
// large tables (overflow runs), a record capacity that forces the direct fallback (with the max
// label known), and the tile kernel (the fallback for images past the warp strips' geometry).

/// Sets the regionprops policy for one scope.
class ScopedPolicy {
 public:
  explicit ScopedPolicy(const cuskimage::tuning::RegionpropsPolicy& p)
      : old_(cuskimage::tuning::set_regionprops_policy(p)) {}
  ~ScopedPolicy() { cuskimage::tuning::set_regionprops_policy(old_); }
  ScopedPolicy(const ScopedPolicy&) = delete;
  ScopedPolicy& operator=(const ScopedPolicy&) = delete;

 private:
  cuskimage::tuning::RegionpropsPolicy old_;
};

TEST(GpuRegionpropsPass1, EveryPolicy) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const std::vector<std::string> kTarget = {"area", "centroid", "bbox", "intensity_mean"};  // sum-only tables
  const std::vector<std::string> kGeom = {"label", "area", "bbox", "centroid", "centroid_local"};
  struct Input {
    std::string what;
    Array lab, inten;
    double rtol = 1e-12;
    measure::Table pass1, target, geom, weighted;  // CPU
  };
  std::vector<Input> inputs;
  auto add = [&](std::string what, Array lab, Array inten, double rtol = 1e-12) {
    Input in{std::move(what), std::move(lab), std::move(inten), rtol, {}, {}, {}, {}};
    in.pass1 = measure::regionprops_table(in.lab, in.inten, kPass1);
    in.target = measure::regionprops_table(in.lab, in.inten, kTarget);
    in.geom = measure::regionprops_table(in.lab, Array(), kGeom);
    in.weighted = measure::regionprops_table(in.lab, in.inten, kWeighted);
    inputs.push_back(std::move(in));
  };
  add("blobs int32 uint8", blobs({300, 517}, 201).astype(DType::int32), cusktest::random_array({300, 517}, DType::uint8, 202));
  add("blobs int32 uint16 512 wide", blobs({130, 512}, 203).astype(DType::int32),
      cusktest::random_array({130, 512}, DType::uint16, 204));
  add("noise labels", cusktest::random_array({203, 517}, DType::int32, 205, 0, 4000),
      cusktest::random_array({203, 517}, DType::uint8, 206));
  {
    auto v = blobs({150, 260}, 207).to_vector<std::int64_t>();
    for (auto& x : v)
      if (x > 0) x = x * ((std::int64_t(1) << 33) + 7) + 5;
    add("sparse int64 float32", Array::from_vector(v, {150, 260}), cusktest::random_array({150, 260}, DType::float32, 208));
  }
  add("3-D float32 x 5", blobs({7, 37, 301}, 209), cusktest::random_array({7, 37, 301, 5}, DType::float32, 210));
  add("3-D uint8 x 2", blobs({5, 40, 256}, 211).astype(DType::int32), cusktest::random_array({5, 40, 256, 2}, DType::uint8, 212));
  add("one label uint16", Array::full({90, 700}, 4, DType::int32), cusktest::random_array({90, 700}, DType::uint16, 213));
  add("float64", blobs({64, 333}, 214), cusktest::random_array({64, 333}, DType::float64, 215), 1e-11);
  for (const Shape& sh : {Shape{1, 1000}, Shape{1000, 1}, Shape{17, 129}})
    add(cuskimage::shape_str(sh), cusktest::random_array(sh, DType::int32, 216, 0, 6), cusktest::random_array(sh, DType::uint8, 217));

  using cuskimage::tuning::RegionpropsPass1;
  using cuskimage::tuning::RegionpropsPolicy;
  const std::vector<std::pair<std::string, RegionpropsPolicy>> policies = {
      {" (defaults)", {}},
      {" strip_rows=1", {.strip_rows = 1}},
      {" strip_rows=7 table_entries=32", {.strip_rows = 7, .table_entries = 32}},
      {" strip_rows=128 table_entries=128", {.strip_rows = 128, .table_entries = 128}},
      {" strip_rows=128 table_entries=32 record_capacity=3",
       {.strip_rows = 128, .table_entries = 32, .record_capacity = 3}},
      {" record_capacity=3", {.record_capacity = 3}},
      {" pass1=tiles", {.pass1 = RegionpropsPass1::tiles}},
  };
  for (const auto& [tag, policy] : policies) {
    const ScopedPolicy scoped(policy);
    for (const Input& in : inputs) {
      const std::string what = in.what + tag;
      const Array dl = in.lab.to(Device::cuda(), s), di = in.inten.to(Device::cuda(), s);
      expect_same(in.pass1, measure::regionprops_table_device(dl, di, kPass1, {}, s), what + " pass1", in.rtol, s);
      expect_same(in.target, measure::regionprops_table_device(dl, di, kTarget, {}, s), what + " target", in.rtol, s);
      expect_same(in.geom, measure::regionprops_table_device(dl, Array(), kGeom, {}, s), what + " geometry", in.rtol, s);
      expect_tables_near(in.target, measure::regionprops_table(dl, di, kTarget, {}, s), in.rtol, what + " host table");
      expect_tables_near(in.weighted, measure::regionprops_table(dl, di, kWeighted, {}, s), in.rtol,
                         what + " weighted host table");
    }
  }
}

}  // namespace
