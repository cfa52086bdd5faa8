// measure.regionprops on CUDA: the per-region arrays built for every region together
// (coords, coords_scaled, intensity_median, image_filled, area_filled, image_convex, area_convex,
// solidity, feret_diameter_max) against the CPU backend (itself checked against scikit-image's
// goldens in test_regionprops.cpp) on random blobs with holes, islands of other labels and a
// label scattered over the whole image, 2-D and 3-D, label dtypes, sparse labels, channels,
// spacing and offset, strided views and a non-default stream; and the goldens on the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::NotSupported;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace measure = cuskimage::measure;

/// Random blobs (4-connected labels, so diagonal neighbours are separate regions) with ~3 % of the
/// pixels cleared (one-pixel holes, split regions), ~1 % set to a neighbour's label + 1 (islands
/// inside other regions) and ~0.2 % set to one extra label scattered over the whole image (a
/// region whose crop is the image). Labels dense from 1 unless `scale` spreads them.
Array blob_labels(const Shape& shape, std::uint64_t seed, std::int64_t scale = 1) {
  const Array noise = cusktest::random_array(shape, DType::float64, seed);
  const Array smooth = cuskimage::ndimage::gaussian_filter(noise, std::vector<double>(shape.size(), 1.5));
  const auto v = smooth.to_vector<double>();
  std::vector<double> s = v;
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(0.6 * s.size()), s.end());
  const double t = s[static_cast<std::size_t>(0.6 * s.size())];
  std::vector<std::uint8_t> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = v[i] > t;
  const Array lab = measure::label(Array::from_vector(m, shape).astype(DType::bool_),
                                   {.connectivity = 1, .dtype = DType::int64});
  auto l = lab.to_vector<std::int64_t>();
  const std::int64_t top = *std::max_element(l.begin(), l.end());
  const auto u = cusktest::random_array({static_cast<std::int64_t>(l.size())}, DType::float64, seed + 1000)
                     .to_vector<double>();
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (u[i] < 0.03) l[i] = 0;
    else if (u[i] < 0.04 && l[i] > 0) l[i] += 1;
    else if (u[i] < 0.042) l[i] = top + 1;
    l[i] *= scale;
  }
  return Array::from_vector(l, shape);
}

/// Exact for integers, 1e-12 relative for doubles (NaN == NaN).
void expect_tables_match(const measure::Table& cpu, const measure::Table& gpu, const std::string& what) {
  ASSERT_EQ(cpu.names(), gpu.names()) << what;
  ASSERT_GE(cpu.num_rows(), 3u) << what;  // enough regions to mean something (the strided 3-D view has 5)
  for (const auto& n : cpu.names()) {
    EXPECT_EQ(cpu.is_integer(n), gpu.is_integer(n)) << what << " " << n;
    const auto e = cpu.as_double(n), a = gpu.as_double(n);
    ASSERT_EQ(e.size(), a.size()) << what << " " << n;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (std::isnan(e[i]) && std::isnan(a[i])) continue;
      if (cpu.is_integer(n))
        EXPECT_EQ(e[i], a[i]) << what << " " << n << " row " << i;
      else
        EXPECT_NEAR(e[i], a[i], 1e-12 * std::fabs(e[i])) << what << " " << n << " row " << i;
    }
  }
}

std::vector<std::string> shape_props(int ndim, bool intensity) {
  std::vector<std::string> p = {"label", "area", "area_filled"};
  if (ndim == 2) p.insert(p.end(), {"area_convex", "solidity", "feret_diameter_max"});
  if (intensity) p.push_back("intensity_median");
  return p;
}

/// Every per-region array of the device regions equals the CPU's (and lives on the device).
void expect_regions_match(const std::vector<measure::RegionProperties>& cpu,
                          const std::vector<measure::RegionProperties>& gpu, bool intensity, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(cpu[i].label(), gpu[i].label()) << what;
    const Array coords = gpu[i].coords();
    EXPECT_TRUE(coords.device().is_cuda());
    EXPECT_ARRAY_EQ(cpu[i].coords(), coords) << what << " coords of label " << cpu[i].label();
    EXPECT_ARRAY_EQ(cpu[i].coords_scaled(), gpu[i].coords_scaled()) << what << " coords_scaled " << cpu[i].label();
    const Array filled = gpu[i].image_filled();
    EXPECT_TRUE(filled.device().is_cuda());
    EXPECT_ARRAY_EQ(cpu[i].image_filled(), filled) << what << " image_filled of label " << cpu[i].label();
    EXPECT_EQ(cpu[i].area_filled(), gpu[i].area_filled()) << what;
    EXPECT_ARRAY_EQ(cpu[i].image_convex(), gpu[i].image_convex()) << what << " image_convex " << cpu[i].label();
    EXPECT_EQ(cpu[i].area_convex(), gpu[i].area_convex()) << what;
    EXPECT_EQ(cpu[i].solidity(), gpu[i].solidity()) << what;
    if (cpu[i].ndim() == 2) {
      EXPECT_NEAR(cpu[i].feret_diameter_max(), gpu[i].feret_diameter_max(), 1e-12 * cpu[i].feret_diameter_max())
          << what << " label " << cpu[i].label();
    }
    if (intensity) EXPECT_EQ(cpu[i].intensity_median(), gpu[i].intensity_median()) << what;
  }
}

// ---- tables and per-region arrays against the CPU ---------------------------------------------------

TEST(GpuRegionpropsShape, TablesMatchCpuOnRandomBlobs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  struct Case {
    Shape shape;
    DType label_dtype, intensity_dtype;
    std::int64_t channels;  // 0: none, 1: no channel axis
    std::int64_t scale;     // label multiplier (large: 40-bit sort keys)
    std::vector<double> spacing;
  };
  const std::vector<Case> cases = {
      {{300, 517}, DType::int32, DType::uint8, 1, 1, {}},
      {{300, 517}, DType::int64, DType::float64, 1, 1000003, {0.5, 2.0}},
      {{211, 190}, DType::uint16, DType::uint16, 1, 1, {}},       // converted label dtype
      {{211, 190}, DType::int32, DType::float32, 3, 1, {1.5, 1.5}},
      {{128, 129}, DType::int32, DType::int16, 2, 1, {}},         // converted intensity dtype
      {{97, 64}, DType::int32, DType::uint8, 0, 1, {}},
      {{40, 50, 61}, DType::int32, DType::float32, 1, 1, {}},
      {{33, 41, 29}, DType::int64, DType::uint8, 2, 777777, {1.0, 2.0, 0.5}},
  };
  std::uint64_t seed = 41;
  for (const auto& c : cases) {
    Array lab = blob_labels(c.shape, seed++, c.scale).astype(c.label_dtype);
    Array inten;
    if (c.channels > 0) {
      Shape is = c.shape;
      if (c.channels > 1) is.push_back(c.channels);
      inten = cusktest::random_array(is, c.intensity_dtype, seed++, 0, 60);  // many ties for the median
    }
    const int nd = static_cast<int>(c.shape.size());
    const auto p = shape_props(nd, c.channels > 0);
    const std::string what = cuskimage::shape_str(c.shape) + " " + std::string(cuskimage::dtype_name(c.label_dtype));
    const auto cpu = measure::regionprops_table(lab, inten, p, {.spacing = c.spacing});
    const auto gpu = measure::regionprops_table(lab.to(Device::cuda(), s),
                                                inten.valid() ? inten.to(Device::cuda(), s) : Array(), p,
                                                {.spacing = c.spacing}, s);
    expect_tables_match(cpu, gpu, what);
  }
}

TEST(GpuRegionpropsShape, PerRegionArraysMatchCpu2d) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array lab = blob_labels({150, 233}, 7).astype(DType::int32);
  const Array inten = cusktest::random_array({150, 233, 2}, DType::uint8, 8);
  const measure::RegionpropsOptions o{.spacing = {0.5, 1.25}, .offset = {4, -9}};
  const auto cpu = measure::regionprops(lab, inten, o);
  const auto gpu = measure::regionprops(lab.to(Device::cuda(), s), inten.to(Device::cuda(), s), o, s);
  expect_regions_match(cpu, gpu, true, "2-D");
}

TEST(GpuRegionpropsShape, PerRegionArraysMatchCpu3d) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array lab = blob_labels({31, 26, 40}, 11);
  const Array inten = cusktest::random_array({31, 26, 40}, DType::float32, 12, -5, 5);
  const measure::RegionpropsOptions o{.spacing = {2.0, 1.0, 0.5}, .offset = {1, 2, 3}};
  const auto cpu = measure::regionprops(lab, inten, o);
  const auto gpu = measure::regionprops(lab.to(Device::cuda(), s), inten.to(Device::cuda(), s), o, s);
  expect_regions_match(cpu, gpu, true, "3-D");
  // 3-D convex properties come from morphology's device quickhull (all regions at once); the table
  // column equals the CPU's. 3-D feret_diameter_max stays on the CPU.
  const auto tc = measure::regionprops_table(lab, {}, {"label", "area_convex", "solidity"});
  const auto tg = measure::regionprops_table(lab.to(Device::cuda(), s), {}, {"label", "area_convex", "solidity"}, {}, s);
  ASSERT_EQ(tc.num_rows(), tg.num_rows());
  for (const char* c : {"label", "area_convex", "solidity"}) EXPECT_EQ(tc.as_double(c), tg.as_double(c)) << c;
  EXPECT_THROW(measure::regionprops_table(lab.to(Device::cuda(), s), {}, {"feret_diameter_max"}, {}, s), NotSupported);
}

TEST(GpuRegionpropsShape, StridedViewsOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array lab = blob_labels({200, 301}, 77);
  const Array inten = cusktest::random_array({200, 301}, DType::float32, 78);
  const std::vector<Slice> sl = {Slice{3, std::nullopt, 2}, Slice{std::nullopt, 250, 3}};
  const Array dl = lab.to(Device::cuda(), s), di = inten.to(Device::cuda(), s);
  const auto p = shape_props(2, true);
  expect_tables_match(measure::regionprops_table(lab.slice(sl), inten.slice(sl), p),
                      measure::regionprops_table(dl.slice(sl), di.slice(sl), p, {}, s), "strided 2-D");
  expect_regions_match(measure::regionprops(lab.slice(sl), inten.slice(sl)),
                       measure::regionprops(dl.slice(sl), di.slice(sl), {}, s), true, "strided 2-D");
  const Array lab3 = blob_labels({20, 30, 40}, 79);
  const std::vector<Slice> sl3 = {Slice{std::nullopt, std::nullopt, -1}, Slice{1, 29, 2}, Slice{}};
  const auto p3 = shape_props(3, false);
  expect_tables_match(measure::regionprops_table(lab3.slice(sl3), {}, p3),
                      measure::regionprops_table(lab3.to(Device::cuda(), s).slice(sl3), {}, p3, {}, s), "strided 3-D");
}

TEST(GpuRegionpropsShape, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  struct G {
    std::string name;
    std::vector<double> spacing;
  };
  for (const G& g : {G{"blobs2", {}}, G{"ring2", {0.5, 0.5}}, G{"sparse2", {2.0, 0.5}}, G{"multich2", {}},
                     G{"blobs3", {}}, G{"spacing3", {1.0, 2.0, 0.5}}}) {
    const Array lab = cusktest::load_golden("regionprops/" + g.name + "_labels.npy");
    const Array inten = cusktest::load_golden("regionprops/" + g.name + "_intensity.npy");
    const Array names_raw = cusktest::load_golden("regionprops/" + g.name + "_names.npy");
    const Array table = cusktest::load_golden("regionprops/" + g.name + "_table.npy");
    std::vector<std::string> names;
    std::string text(static_cast<std::size_t>(names_raw.size()), '\0');
    for (std::int64_t i = 0; i < names_raw.size(); ++i) text[i] = static_cast<char>(names_raw.data<std::uint8_t>()[i]);
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);)
      if (!line.empty()) names.push_back(line);
    const auto props = shape_props(lab.ndim(), true);
    const auto t = measure::regionprops_table(lab.to(Device::cuda(), s), inten.to(Device::cuda(), s), props,
                                              {.spacing = g.spacing}, s);
    std::size_t checked = 0;
    for (std::size_t j = 0; j < names.size(); ++j) {
      const std::string prop = names[j].substr(0, names[j].find('-'));
      if (prop == "label" || prop == "area" ||
          std::find(props.begin(), props.end(), prop) == props.end())
        continue;
      ASSERT_TRUE(t.contains(names[j])) << g.name << " " << names[j];
      const auto got = t.as_double(names[j]);
      ASSERT_EQ(static_cast<std::int64_t>(got.size()), table.shape(0));
      for (std::int64_t r = 0; r < table.shape(0); ++r) {
        const double e = table.data<double>()[r * table.shape(1) + static_cast<std::int64_t>(j)];
        EXPECT_NEAR(got[r], e, 1e-9 * std::fabs(e)) << g.name << " " << names[j] << " row " << r;
      }
      ++checked;
    }
    EXPECT_GE(checked, lab.ndim() == 2 ? 5u : 2u) << g.name;
  }
}

/// intensity_median on the device against scikit-image exactly and against the CPU: the 3-D
/// goldens (blobs3's one region has 1170 voxels: numpy averages its two middle float32 values in
/// float32, which the device's float64 mean missed by 1.5e-8), scattered 3-D regions of even and
/// odd sizes in four intensity dtypes, and hand-made regions of 1 to 6 voxels, on a non-default
/// stream and through a strided view.
TEST(GpuRegionpropsShape, MedianEvenAndOddCounts3d) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  auto golden = [](const std::string& n) { return cusktest::load_golden("regionprops/" + n + ".npy"); };
  auto medians = [&](const Array& lab, const Array& inten) {
    const auto t = measure::regionprops_table(lab, inten, {"label", "intensity_median"}, {},
                                              lab.device().is_cpu() ? Stream() : s);
    std::vector<std::vector<double>> cols;
    for (const auto& n : t.names())
      if (n.starts_with("intensity_median")) cols.push_back(t.as_double(n));
    return cols;
  };
  {  // blobs3: float32, one region of an even count
    const Array lab = golden("blobs3_labels"), inten = golden("blobs3_intensity");
    const auto names = [&] {
      const Array b = golden("blobs3_names");
      std::string text(static_cast<std::size_t>(b.size()), '\0');
      for (std::int64_t i = 0; i < b.size(); ++i) text[i] = static_cast<char>(b.data<std::uint8_t>()[i]);
      std::vector<std::string> out;
      std::istringstream is(text);
      for (std::string line; std::getline(is, line);)
        if (!line.empty()) out.push_back(line);
      return out;
    }();
    const Array table = golden("blobs3_table");
    const auto j = static_cast<std::int64_t>(std::find(names.begin(), names.end(), "intensity_median") - names.begin());
    ASSERT_LT(j, table.shape(1));
    const auto gpu = medians(lab.to(Device::cuda(), s), inten.to(Device::cuda(), s));
    const auto cpu = medians(lab, inten);
    ASSERT_EQ(gpu.size(), 1u);
    ASSERT_EQ(static_cast<std::int64_t>(gpu[0].size()), table.shape(0));
    for (std::int64_t r = 0; r < table.shape(0); ++r)
      EXPECT_EQ(gpu[0][r], table.data<double>()[r * table.shape(1) + j]) << "blobs3 row " << r;
    EXPECT_EQ(cpu, gpu);
  }
  const Array lab = golden("median3_labels");
  for (const std::string c : {"f32", "f64", "u8", "f32x2"}) {
    const Array inten = golden("median3_" + c + "_intensity"), want = golden("median3_" + c + "_median");
    const auto gpu = medians(lab.to(Device::cuda(), s), inten.to(Device::cuda(), s));
    ASSERT_EQ(static_cast<std::int64_t>(gpu.size()), want.shape(1)) << c;
    for (std::int64_t k = 0; k < want.shape(1); ++k) {
      ASSERT_EQ(static_cast<std::int64_t>(gpu[k].size()), want.shape(0)) << c;
      for (std::int64_t r = 0; r < want.shape(0); ++r)
        EXPECT_EQ(gpu[k][r], want.data<double>()[r * want.shape(1) + k]) << c << " channel " << k << " row " << r;
    }
    EXPECT_EQ(medians(lab, inten), gpu) << c;
    // A strided view of the same images (every other plane reversed, rows 1..6): against the CPU.
    const std::vector<Slice> sl = {Slice{std::nullopt, std::nullopt, -2}, Slice{1, std::nullopt}, Slice{}};
    std::vector<Slice> isl = sl;
    if (inten.ndim() == 4) isl.push_back(Slice{});
    EXPECT_EQ(medians(lab.slice(sl), inten.slice(isl)),
              medians(lab.to(Device::cuda(), s).slice(sl), inten.to(Device::cuda(), s).slice(isl)))
        << c << " strided";
  }
  // Hand-made: label k on k voxels (k = 1..6), every third voxel of a 3 x 4 x 6 volume so regions
  // interleave across rows and planes; float32 values near 1.5 one or two ulps apart (some pair
  // sums round in float32, some do not); label 2 holds 1 and the next float32 up.
  Array hl = Array::zeros({3, 4, 6}, DType::int32);
  Array hi = Array::zeros({3, 4, 6}, DType::float32);
  std::int32_t* l = hl.data<std::int32_t>();
  float* v = hi.data<float>();
  std::int64_t at = 0;
  float x = 1.5f;
  for (int k = 1; k <= 6; ++k)
    for (int i = 0; i < k; ++i, at += 3) {
      l[at] = k;
      v[at] = x;
      x = std::nextafter(x, 2.0f);
      if (i % 2) x = std::nextafter(x, 2.0f);
    }
  ASSERT_EQ(at, 63);  // 21 voxels
  v[3] = 1.0f;
  v[6] = std::nextafter(1.0f, 2.0f);
  const auto cpu = measure::regionprops(hl, hi);
  const auto gpu = measure::regionprops(hl.to(Device::cuda(), s), hi.to(Device::cuda(), s), {}, s);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t r = 0; r < cpu.size(); ++r) {
    EXPECT_EQ(cpu[r].area(), gpu[r].area());
    EXPECT_EQ(cpu[r].intensity_median(), gpu[r].intensity_median()) << "label " << cpu[r].label();
  }
  // Label 2: values 1 and the next float32 up -> numpy's float32 mean is 1 exactly.
  ASSERT_GE(gpu.size(), 2u);
  EXPECT_EQ(gpu[1].intensity_median(), std::vector<double>{1.0});
}

TEST(GpuRegionpropsShape, RingGoldenFillAndHull) {
  CUSK_REQUIRE_GPU();
  const Array labels = cusktest::load_golden("regionprops/ring2_labels.npy");
  const auto cpu = measure::regionprops(labels, {}, {.spacing = {0.5, 0.5}});
  const auto gpu = measure::regionprops(labels.to(Device::cuda()), {}, {.spacing = {0.5, 0.5}});
  ASSERT_EQ(gpu.size(), 3u);
  // label 3: a 20x25 block with a 5x10 hole holding one pixel: filled, it is the whole block.
  EXPECT_EQ(cusktest::host_copy(gpu[0].image_filled()).to_vector<int>(), std::vector<int>(20 * 25, 1));
  EXPECT_DOUBLE_EQ(gpu[0].area_filled(), 20 * 25 * 0.25);
  expect_regions_match(cpu, gpu, false, "ring2");
}

TEST(GpuRegionpropsShape, EmptyAndSinglePixelImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const auto p = shape_props(2, false);
  const auto t = measure::regionprops_table(Array::zeros({17, 9}, DType::int32, Device::cuda(), s), {}, p, {}, s);
  EXPECT_EQ(t.num_rows(), 0u);
  EXPECT_EQ(t.names(), p);
  Array one = Array::zeros({5, 6}, DType::int64);
  one.data<std::int64_t>()[2 * 6 + 3] = 4;
  const auto cpu = measure::regionprops(one);
  const auto gpu = measure::regionprops(one.to(Device::cuda(), s), {}, {}, s);
  expect_regions_match(cpu, gpu, false, "one pixel");
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_EQ(cusktest::host_copy(gpu[0].coords()).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 3}));
}

TEST(GpuRegionpropsShape, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array lab = blob_labels({256, 256}, 9).astype(DType::int32).to(Device::cuda());
  const Array inten = cusktest::random_array({256, 256}, DType::uint8, 10).to(Device::cuda());
  const Array lab3 = blob_labels({16, 20, 24}, 19).to(Device::cuda());
  cuskimage::Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const auto t = measure::regionprops_table(lab, inten, shape_props(2, true), {}, s);
    EXPECT_GT(t.num_rows(), 0u);
    const auto regions = measure::regionprops(lab, inten, {}, s);
    EXPECT_GT(regions[0].coords().shape(0), 0);
    EXPECT_GT(regions[1].coords_scaled().shape(0), 0);
    EXPECT_GT(regions[0].image_convex().size(), 0);
    EXPECT_GT(regions[0].image_filled().size(), 0);
    const auto r3 = measure::regionprops(lab3, {}, {}, s);
    EXPECT_GT(r3[0].area_filled(), 0);
    EXPECT_GT(r3[0].image_filled().size(), 0);
    s.synchronize();
  }));
}

}  // namespace
