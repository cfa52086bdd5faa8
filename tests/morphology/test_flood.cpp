// skimage.morphology flood / flood_fill. CPU: scikit-image 0.26 goldens (cases_morphology_recon.py)
// for 2- and 3-D, every dtype, default / connectivity-1 / asymmetric / centre-less footprints,
// tolerance None, integer, fractional (truncated bounds) and negative, a negative seed index, and
// a real image. GPU (Gpu*): device == CPU on fresh random inputs, a serpentine region crossing many
// tiles, strided views, flood_fill in place, a non-default stream.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/morphology/recon_test_util.hpp"

namespace {

using namespace recontest;
using namespace cuskimage::morphology;

const std::vector<std::string> kDtypes = {"bool", "uint8", "uint16", "int32", "float32", "float64"};

FloodOptions fopts(const std::string& f, const std::string& t) {
  FloodOptions o;
  if (f == "c1") o.connectivity = 1;
  if (f == "asym" || f == "hollow5") o.footprint = fp(f);
  if (t == "t1") o.tolerance = 1;
  if (t == "t15") o.tolerance = 1.5;
  if (t == "tm1") o.tolerance = -1;
  return o;
}

TEST(MorphologyFlood, GoldenEveryDtypeFootprintTolerance) {
  int checked = 0;
  for (int nd : {2, 3}) {
    const auto dts = nd == 2 ? kDtypes : std::vector<std::string>{"uint8", "float32"};
    std::vector<std::string> fps = {"none", "c1"};
    if (nd == 2) fps.insert(fps.end(), {"asym", "hollow5"});
    const std::vector<std::int64_t> seed = nd == 2 ? std::vector<std::int64_t>{3, 4} : std::vector<std::int64_t>{2, -3, 4};
    for (const auto& dt : dts) {
      const std::string tag = std::to_string(nd) + "_" + dt;
      const Array img = golden("fl_in" + tag);
      for (const auto& f : fps)
        for (const std::string t : {"none", "t1", "t15", "tm1"}) {
          SCOPED_TRACE(tag + " " + f + " " + t);
          EXPECT_ARRAY_EQ(golden("fl" + tag + "_" + f + "_" + t), flood(img, seed, fopts(f, t)));
          ++checked;
        }
      const Array filled = flood_fill(img, seed, 1, {.tolerance = 1});
      EXPECT_ARRAY_EQ(golden("flfill" + tag), filled);
    }
  }
  EXPECT_EQ(checked, 6 * 4 * 4 + 2 * 2 * 4);
  EXPECT_ARRAY_EQ(golden("fl_coins"), flood(golden("coins"), {40, 50}, {.tolerance = 20}));
}

TEST(MorphologyFlood, InPlaceStridedAndEmpty) {
  const Array img = golden("fl_in2_uint8");
  Array wide = Array::zeros({14, 30}, DType::uint8);
  Array view = wide.slice({Slice{}, Slice{.step = 2}});
  view.copy_from(img);
  const Array same = flood_fill(view, {3, 4}, 1, {.tolerance = 1, .in_place = true});
  EXPECT_ARRAY_EQ(golden("flfill2_uint8"), view);  // written through the strided view
  EXPECT_ARRAY_EQ(golden("flfill2_uint8"), same);
  EXPECT_ARRAY_EQ(flood(img.slice({Slice{.step = 2}}).contiguous(), {1, 2}), flood(img.slice({Slice{.step = 2}}), {1, 2}));
  EXPECT_EQ(flood(Array::zeros({0, 3}, DType::uint8), {0, 0}).shape(), (Shape{0, 3}));
}

TEST(MorphologyFlood, BadArguments) {
  const Array img = golden("fl_in2_uint8");
  expect_throw([&] { flood(img, {3}); }, "seed_point");
  expect_throw([&] { flood(img, {3, 15}); }, "out of bounds");
  expect_throw([&] { flood(img, {-15, 0}); }, "out of bounds");
  expect_throw([&] { flood(img, {0, 0}, {.footprint = Array::full({3, 2}, 1, DType::uint8)}); }, "odd");
  expect_throw([&] { flood(img, {0, 0}, {.footprint = Array::full({3}, 1, DType::uint8)}); }, "footprint");
  expect_throw([&] { flood(img, {0, 0}, {.footprint = Array::zeros({3, 3}, DType::uint8)}); }, "non-zero");
  expect_throw([&] { flood_fill(img.astype(DType::int8), {0, 0}, 1); }, "morphology.flood_fill");
}

// ---- GPU ------------------------------------------------------------------------------------------

TEST(GpuMorphologyFlood, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 90;
  for (int nd : {2, 3})
    for (const auto& dtn : kDtypes) {
      const DType dt = dtype_from_name(dtn);
      const Shape shape = nd == 2 ? Shape{301, 417} : Shape{19, 37, 45};
      // Values 0..2: regions percolate, so the fill crosses many tiles.
      const Array h = few_values(shape, dt, seed++, 0, 2);
      const Array d = h.to(Device::cuda(), s);
      const std::vector<std::int64_t> sp = nd == 2 ? std::vector<std::int64_t>{150, -200} : std::vector<std::int64_t>{9, 18, 22};
      for (const std::string f : {"none", "c1", "asym", "hollow5"}) {
        if (nd == 3 && (f == "asym" || f == "hollow5")) continue;
        for (const std::string t : {"none", "t1", "t15"}) {
          SCOPED_TRACE(dtn + " " + f + " " + t + " " + std::to_string(nd) + "-D");
          const Array got = flood(d, sp, fopts(f, t), s);
          EXPECT_EQ(got.device(), Device::cuda());
          EXPECT_ARRAY_EQ(flood(h, sp, fopts(f, t)), got);
        }
      }
    }
}

TEST(GpuMorphologyFlood, SerpentineStridedInPlace) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Shape shape{257, 600};
  std::vector<float> v(shape[0] * shape[1], 0.f);
  for (std::int64_t r = 0; r < shape[0]; ++r)
    for (std::int64_t c = 0; c < shape[1]; ++c)
      if (r % 2 == 0 || (r % 4 == 1 ? c == shape[1] - 1 : c == 0)) v[r * shape[1] + c] = 1.f;
  const Array h = Array::from_vector(v, shape);
  const Array d = h.to(Device::cuda(), s);
  const Array want = flood(h, {0, 0}, {.connectivity = 1});
  EXPECT_TRUE(want.to_vector<bool>().back());
  EXPECT_ARRAY_EQ(want, flood(d, {0, 0}, {.connectivity = 1}, s));
  // Strided view in, in-place fill through it.
  const Array hv0 = few_values({200, 300}, DType::int32, 5, 0, 2);
  Array hv = hv0.copy();
  Array dv = hv0.to(Device::cuda(), s);
  const auto view = [](const Array& a) { return a.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}}); };
  Array hview = view(hv), dview = view(dv);
  flood_fill(hview, {10, 20}, 7, {.in_place = true});
  flood_fill(dview, {10, 20}, 7, {.in_place = true}, s);
  EXPECT_ARRAY_EQ(hv, dv);
}

TEST(GpuMorphologyFlood, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = few_values({256, 256}, DType::uint8, 3, 0, 2).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = flood(d, {100, 100}, {.tolerance = 1}, s);
    Array b = flood_fill(d, {5, 5}, 9, {}, s);
    s.synchronize();
  }));
}

}  // namespace
