// skimage.morphology remove_small_objects / remove_small_holes (0.26: max_size, deprecated
// min_size / area_threshold). CPU: scikit-image 0.26 goldens (cases_morphology_recon.py), 2- and
// 3-D, connectivity 1 and full, several sizes, label images of every integer dtype, non-bool
// holes input; out= and strided inputs; bad arguments. GPU (Gpu*): device == CPU on fresh random
// inputs, strided views, a non-default stream.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/morphology/recon_test_util.hpp"

namespace {

using namespace recontest;
using namespace cuskimage::morphology;

TEST(MorphologyRemoveSmall, GoldenObjectsAndHoles) {
  int checked = 0;
  for (int nd : {2, 3}) {
    const std::string tag = std::to_string(nd);
    const Array ar = golden("rs_in" + tag);
    for (int conn : {1, nd}) {
      const std::string c = "_c" + std::to_string(conn);
      for (int ms : {0, 3, 10}) {
        SCOPED_TRACE(tag + c + " max_size=" + std::to_string(ms));
        EXPECT_ARRAY_EQ(golden("rso" + tag + c + "_m" + std::to_string(ms)),
                        remove_small_objects(ar, {.max_size = ms, .connectivity = conn}));
        EXPECT_ARRAY_EQ(golden("rsh" + tag + c + "_m" + std::to_string(ms)),
                        remove_small_holes(ar, {.max_size = ms, .connectivity = conn}));
        checked += 2;
      }
      EXPECT_ARRAY_EQ(golden("rso" + tag + c + "_min5"), remove_small_objects(ar, {.min_size = 5, .connectivity = conn}));
      EXPECT_ARRAY_EQ(golden("rsh" + tag + c + "_at5"), remove_small_holes(ar, {.area_threshold = 5, .connectivity = conn}));
      checked += 2;
    }
    for (const std::string dt : {"uint8", "uint16", "int32", "int64"}) {
      SCOPED_TRACE(tag + " labels " + dt);
      const Array r = remove_small_objects(golden("rs_lab" + tag + "_" + dt), {.max_size = 4});
      EXPECT_ARRAY_EQ(golden("rso_lab" + tag + "_" + dt), r);
      ++checked;
    }
    EXPECT_ARRAY_EQ(golden("rsh_u8" + tag), remove_small_holes(golden("rs_in" + tag).astype(DType::uint8), {.max_size = 4}));
  }
  EXPECT_EQ(checked, 2 * (2 * 8 + 4));
}

TEST(MorphologyRemoveSmall, OutStridedAndInPlace) {
  const Array ar = golden("rs_in2");
  Array wide = Array::zeros({20, 42}, DType::bool_);
  Array out = wide.slice({Slice{}, Slice{.step = 2}});
  remove_small_objects_into(ar, out, {.max_size = 3});
  EXPECT_ARRAY_EQ(golden("rso2_c1_m3"), out);
  Array same = ar.copy();
  remove_small_holes_into(same, same, {.max_size = 3});
  EXPECT_ARRAY_EQ(golden("rsh2_c1_m3"), same);
  const Array v = ar.slice({Slice{.step = 2}, Slice{.start = 1}});
  EXPECT_ARRAY_EQ(remove_small_objects(v.contiguous(), {.max_size = 2}), remove_small_objects(v, {.max_size = 2}));
}

TEST(MorphologyRemoveSmall, BadArguments) {
  const Array ar = golden("rs_in2");
  expect_throw([&] { remove_small_objects(ar, {.max_size = -1}); }, "non-negative");
  expect_throw([&] { remove_small_objects(ar, {.min_size = -1}); }, "non-negative");
  expect_throw([&] { remove_small_holes(ar, {.max_size = -3}); }, "non-negative");
  expect_throw([&] { remove_small_objects(ar, {.max_size = 3, .min_size = 5}); }, "both used");
  expect_throw([&] { remove_small_objects(ar.astype(DType::float32)); }, "only bool or integer");
  expect_throw([&] { remove_small_holes(ar.astype(DType::float64)); }, "only bool or integer");
  expect_throw([&] { remove_small_objects(Array::full({3, 3}, -2, DType::int32)); }, "negative value labels");
  Array out = Array::zeros({20, 21}, DType::uint8);
  expect_throw([&] { remove_small_objects_into(ar, out); }, "'out'");
  expect_throw([&] { remove_small_holes_into(ar, out); }, "'out'");
}

// ---- GPU ------------------------------------------------------------------------------------------

TEST(GpuMorphologyRemoveSmall, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 120;
  for (int nd : {1, 2, 3}) {
    const Shape shape = nd == 1 ? Shape{5000} : nd == 2 ? Shape{301, 417} : Shape{19, 37, 45};
    const Array h = cusktest::random_array(shape, DType::bool_, seed++);
    const Array d = h.to(Device::cuda(), s);
    for (int conn = 0; conn <= nd + 1; ++conn)  // 0: no neighbours; nd + 1: full, as ndim
      for (int ms : {0, 3, 20}) {
        SCOPED_TRACE(std::to_string(nd) + "-D conn=" + std::to_string(conn) + " max_size=" + std::to_string(ms));
        const Array got = remove_small_objects(d, {.max_size = ms, .connectivity = conn}, s);
        EXPECT_EQ(got.device(), Device::cuda());
        EXPECT_ARRAY_EQ(remove_small_objects(h, {.max_size = ms, .connectivity = conn}), got);
        EXPECT_ARRAY_EQ(remove_small_holes(h, {.max_size = ms, .connectivity = conn}),
                        remove_small_holes(d, {.max_size = ms, .connectivity = conn}, s));
        EXPECT_ARRAY_EQ(remove_small_objects(h, {.min_size = ms, .connectivity = conn}),
                        remove_small_objects(d, {.min_size = ms, .connectivity = conn}, s));
      }
    // Label images of every integer dtype, and a non-bool holes input.
    for (DType dt : {DType::uint8, DType::uint16, DType::int32, DType::int64}) {
      const Array lab = cusktest::random_array(shape, dt, seed++, 0, 200);
      EXPECT_ARRAY_EQ(remove_small_objects(lab, {.max_size = 3}), remove_small_objects(lab.to(Device::cuda(), s), {.max_size = 3}, s));
      EXPECT_ARRAY_EQ(remove_small_holes(lab, {.max_size = 3}), remove_small_holes(lab.to(Device::cuda(), s), {.max_size = 3}, s));
    }
  }
  // One component covering almost everything (its size gathers in every block's label cache).
  const Array full = Array::full({1000, 1000}, 1, DType::bool_);
  EXPECT_ARRAY_EQ(remove_small_objects(full, {.max_size = 999999}), remove_small_objects(full.to(Device::cuda(), s), {.max_size = 999999}, s));
  EXPECT_ARRAY_EQ(full, remove_small_objects(full.to(Device::cuda(), s), {.max_size = 999998}, s));
  // Strided views and out=.
  const Array h = cusktest::random_array({200, 300}, DType::bool_, 7);
  const Array d = h.to(Device::cuda(), s);
  const auto view = [](const Array& a) { return a.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}}); };
  Array wide = Array::zeros({200, 300}, DType::bool_, Device::cuda(), s);
  Array out = view(wide);
  remove_small_holes_into(view(d), out, {.max_size = 5, .connectivity = 2}, s);
  EXPECT_ARRAY_EQ(remove_small_holes(view(h), {.max_size = 5, .connectivity = 2}), out);
  EXPECT_ARRAY_EQ(remove_small_objects(view(h), {.max_size = 5}), remove_small_objects(view(d), {.max_size = 5}, s));
}

TEST(GpuMorphologyRemoveSmall, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = cusktest::random_array({256, 256}, DType::bool_, 3).to(Device::cuda());
  const Array l = cusktest::random_array({256, 256}, DType::int32, 4, 0, 50).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = remove_small_objects(d, {.max_size = 10}, s);
    Array b = remove_small_holes(d, {.max_size = 10}, s);
    Array c = remove_small_objects(l, {.max_size = 10}, s);
    s.synchronize();
  }));
}

}  // namespace
