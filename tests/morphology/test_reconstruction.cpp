// skimage.morphology.reconstruction. CPU: scikit-image 0.26 goldens (tests/golden/
// cases_morphology_recon.py), every dtype, both methods, default / cross / asymmetric / disk
// footprints, 1-D with an even footprint and an offset, mixed dtypes, coins; exact (every result
// value is a seed or mask value). GPU (Gpu*): device == CPU on fresh random inputs, 2-D and 3-D,
// strided views, a serpentine mask that needs many sweeps, a non-default stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/morphology/recon_test_util.hpp"

namespace {

using namespace recontest;
using namespace cuskimage::morphology;

const std::vector<std::string> kDtypes = {"bool", "uint8", "uint16", "int32", "float32", "float64"};

TEST(MorphologyReconstruction, GoldenEveryDtypeMethodFootprint) {
  int checked = 0;
  for (int nd : {2, 3}) {
    const auto dts = nd == 2 ? kDtypes : std::vector<std::string>{"uint8", "float32"};
    const auto fps = nd == 2 ? std::vector<std::string>{"none", "cross", "asym", "disk2"}
                             : std::vector<std::string>{"none", "ball1", "cross3"};
    for (const auto& dt : dts) {
      const std::string tag = std::to_string(nd) + "_" + dt;
      const Array dil = golden("rec_seed_dil" + tag), ero = golden("rec_seed_ero" + tag), mask = golden("rec_mask" + tag);
      for (const auto& f : fps) {
        SCOPED_TRACE(tag + " " + f);
        const Array a = reconstruction(dil, mask, {.footprint = fp(f)});
        EXPECT_ARRAY_EQ(golden("rec_dil" + tag + "_" + f), a);
        const Array b = reconstruction(ero, mask, {.method = ReconstructionMethod::erosion, .footprint = fp(f)});
        EXPECT_ARRAY_EQ(golden("rec_ero" + tag + "_" + f), b);
        checked += 2;
      }
    }
  }
  EXPECT_EQ(checked, 6 * 4 * 2 + 2 * 3 * 2);
}

TEST(MorphologyReconstruction, MixedDtypesOffsetAndCoins) {
  // float64 seed, float32 mask: the result is float32 (the seed rounded to it).
  const Array r = reconstruction(golden("rec_mixed_seed"), golden("rec_mixed_mask"));
  EXPECT_EQ(r.dtype(), DType::float32);
  EXPECT_ARRAY_EQ(golden("rec_mixed"), r);
  const Array fp1 = u8({1, 1, 0, 1}, {4});
  EXPECT_ARRAY_EQ(golden("rec1_dil_off"), reconstruction(golden("rec1_seed_dil"), golden("rec1_mask"),
                                                         {.footprint = fp1.share(), .offset = {1}}));
  EXPECT_ARRAY_EQ(golden("rec1_ero_off"),
                  reconstruction(golden("rec1_seed_ero"), golden("rec1_mask"),
                                 {.method = ReconstructionMethod::erosion, .footprint = fp1.share(), .offset = {2}}));
  // Regional maxima of a real image: the seed is the image with its interior at the minimum.
  const Array coins = golden("coins");
  Array seed = coins.copy();
  const auto cv = coins.to_vector<double>();
  seed.slice({Slice{.start = 1, .stop = -1}, Slice{.start = 1, .stop = -1}}).fill(*std::min_element(cv.begin(), cv.end()));
  EXPECT_ARRAY_EQ(golden("rec_coins"), reconstruction(seed, coins));
}

TEST(MorphologyReconstruction, StridedInputs) {
  const Array mask = golden("rec_mask2_uint16"), seed = golden("rec_seed_dil2_uint16");
  const Array mv = mask.slice({Slice{.step = 2}, Slice{.start = 1}}), sv = seed.slice({Slice{.step = 2}, Slice{.start = 1}});
  EXPECT_ARRAY_EQ(reconstruction(sv.contiguous(), mv.contiguous()), reconstruction(sv, mv));
}

TEST(MorphologyReconstruction, BadArguments) {
  const Array mask = golden("rec_mask2_uint8"), seed = golden("rec_seed_dil2_uint8");
  expect_throw([&] { reconstruction(mask, seed); }, "less than that of the mask");
  expect_throw([&] { reconstruction(seed, mask, {.method = ReconstructionMethod::erosion}); },
               "greater than that of the mask");
  expect_throw([&] { reconstruction(seed, mask, {.footprint = Array::full({3}, 1, DType::uint8)}); }, "footprint");
  expect_throw([&] { reconstruction(seed, mask, {.footprint = Array::full({3, 4}, 1, DType::uint8)}); }, "odd");
  expect_throw([&] { reconstruction(seed, mask, {.offset = {1}}); }, "offset");
  expect_throw([&] { reconstruction(seed, mask, {.offset = {1, 3}}); }, "inside footprint");
  expect_throw([&] { reconstruction(seed, mask.slice({Slice{.stop = 3}})); }, "seed");
  expect_throw([&] { reconstruction(seed.astype(DType::int8), mask); }, "morphology.reconstruction");
  expect_throw([&] { reconstruction(Array{}, mask); }, "seed");
}

// ---- GPU ------------------------------------------------------------------------------------------

/// Random mask with sparse markers: the dilation seed (mask at markers, else its minimum) and the
/// erosion seed (else its maximum).
struct Inputs {
  Array dil, ero, mask;
};

Inputs random_inputs(const Shape& shape, DType dt, std::uint64_t seed) {
  const Array mask = few_values(shape, dt, seed, dt == DType::int32 ? -50 : 0, 60);
  const Array markers = cusktest::random_array(shape, DType::float64, seed + 1000);
  const auto mv = mask.to_vector<double>();
  const auto kv = markers.to_vector<double>();
  const double lo = *std::min_element(mv.begin(), mv.end()), hi = *std::max_element(mv.begin(), mv.end());
  std::vector<double> d(mv.size()), e(mv.size());
  for (std::size_t i = 0; i < mv.size(); ++i) {
    d[i] = kv[i] < 0.02 ? mv[i] : lo;
    e[i] = kv[i] < 0.02 ? mv[i] : hi;
  }
  return {Array::from_vector(d, shape).astype(dt), Array::from_vector(e, shape).astype(dt), mask.share()};
}

TEST(GpuMorphologyReconstruction, MatchesCpuEveryDtypeMethodFootprint) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 5;
  for (int nd : {1, 2, 3})
    for (const auto& dtn : kDtypes) {
      const DType dt = dtype_from_name(dtn);
      const Shape shape = nd == 1 ? Shape{3001} : nd == 2 ? Shape{301, 517} : Shape{19, 37, 45};
      const Inputs in = random_inputs(shape, dt, seed++);
      const Array dd = in.dil.to(Device::cuda(), s), de = in.ero.to(Device::cuda(), s), dm = in.mask.to(Device::cuda(), s);
      std::vector<std::string> fps = nd == 2 ? std::vector<std::string>{"none", "cross", "asym", "disk2", "hollow5"}
                                             : nd == 3 ? std::vector<std::string>{"none", "ball1", "cross3"}
                                                       : std::vector<std::string>{"none"};
      for (const auto& f : fps) {
        SCOPED_TRACE(dtn + " " + f + " " + std::to_string(nd) + "-D");
        const Array got = reconstruction(dd, dm, {.footprint = fp(f)}, s);
        EXPECT_EQ(got.device(), Device::cuda());
        EXPECT_ARRAY_EQ(reconstruction(in.dil, in.mask, {.footprint = fp(f)}), got);
        const ReconstructionOptions eo{.method = ReconstructionMethod::erosion, .footprint = fp(f)};
        EXPECT_ARRAY_EQ(reconstruction(in.ero, in.mask, eo), reconstruction(de, dm, eo, s));
      }
    }
}

TEST(GpuMorphologyReconstruction, SerpentineNeedsManySweeps) {
  CUSK_REQUIRE_GPU();
  // A one-pixel snake through 200 rows of 700 columns: the value entering at one end must travel
  // ~140k pixels across many tiles.
  const Shape shape{401, 700};
  std::vector<float> mask(shape[0] * shape[1], 0.f), seed(mask.size(), 0.f);
  for (std::int64_t r = 0; r < shape[0]; ++r)
    for (std::int64_t c = 0; c < shape[1]; ++c) {
      const bool path = r % 2 == 0 || (r % 4 == 1 ? c == shape[1] - 1 : c == 0);
      if (path) mask[r * shape[1] + c] = 100.f - 0.0001f * static_cast<float>(r);
    }
  seed[0] = 100.f;
  const Array hm = Array::from_vector(mask, shape), hs = Array::from_vector(seed, shape);
  const Stream s = Stream::create();
  const Array want = reconstruction(hs, hm, {.footprint = fp("cross")});
  EXPECT_EQ(want.to_vector<float>().back(), mask.back());  // the value reached the far end
  EXPECT_ARRAY_EQ(want, reconstruction(hs.to(Device::cuda(), s), hm.to(Device::cuda(), s), {.footprint = fp("cross")}, s));
  EXPECT_ARRAY_EQ(reconstruction(hs, hm), reconstruction(hs.to(Device::cuda(), s), hm.to(Device::cuda(), s), {}, s));
}

TEST(GpuMorphologyReconstruction, StridedViewsAndErrors) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Inputs in = random_inputs({120, 130}, DType::uint8, 9);
  const auto view = [](const Array& a) { return a.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}}); };
  const Array dd = in.dil.to(Device::cuda(), s), dm = in.mask.to(Device::cuda(), s);
  EXPECT_ARRAY_EQ(reconstruction(view(in.dil), view(in.mask)), reconstruction(view(dd), view(dm), {}, s));
  const Inputs in3 = random_inputs({20, 22, 24}, DType::float64, 10);
  const Array de3 = in3.ero.to(Device::cuda(), s), dm3 = in3.mask.to(Device::cuda(), s);
  const auto v3 = [](const Array& a) { return a.slice({Slice{}, Slice{.step = 2}, Slice{.start = 3}}); };
  const ReconstructionOptions eo{.method = ReconstructionMethod::erosion};
  EXPECT_ARRAY_EQ(reconstruction(v3(in3.ero), v3(in3.mask), eo), reconstruction(v3(de3), v3(dm3), eo, s));
  expect_throw([&] { reconstruction(dm, dd, {}, s); }, "less than that of the mask");
}

TEST(GpuMorphologyReconstruction, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Inputs in = random_inputs({256, 256}, DType::float32, 3);
  const Array dd = in.dil.to(Device::cuda()), dm = in.mask.to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array r = reconstruction(dd, dm, {.footprint = fp("disk2")}, s);
    s.synchronize();
  }));
}

}  // namespace
