// skimage.morphology local_maxima / local_minima / h_maxima / h_minima. CPU: scikit-image 0.26
// goldens (cases_morphology_recon.py) for 1-, 2- and 3-D, every dtype, connectivity 1 / full /
// footprint, allow_borders both ways, indices, an asymmetric footprint and too-thin images; h
// with integer, fractional and too-large values. GPU (Gpu*): device == CPU on fresh random inputs
// with many plateaus, strided views, a non-default stream.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/morphology/recon_test_util.hpp"

namespace {

using namespace recontest;
using namespace cuskimage::morphology;

const std::vector<std::string> kDtypes = {"bool", "uint8", "uint16", "int32", "float32", "float64"};

LocalExtremaOptions opts(const std::string& name, bool allow_borders) {
  LocalExtremaOptions o{.allow_borders = allow_borders};
  if (name == "c1") o.connectivity = 1;
  if (name == "c2") o.connectivity = 2;
  if (name == "cross") o.footprint = fp("cross");
  return o;
}

TEST(MorphologyExtrema, GoldenLocalMaximaMinima) {
  int checked = 0;
  for (int nd : {1, 2, 3}) {
    const auto dts = nd == 2 ? kDtypes : std::vector<std::string>{"uint8", "float32"};
    std::vector<std::string> names = {"none", "c1"};
    if (nd == 2) names.push_back("cross");
    if (nd == 3) names.push_back("c2");
    for (const auto& dt : dts) {
      const std::string tag = std::to_string(nd) + "_" + dt;
      const Array img = golden("ext_in" + tag);
      for (const auto& n : names)
        for (int ab : {1, 0}) {
          SCOPED_TRACE(tag + " " + n + " allow_borders=" + std::to_string(ab));
          const std::string suffix = tag + "_" + n + "_" + std::to_string(ab);
          EXPECT_ARRAY_EQ(golden("ext_max" + suffix), local_maxima(img, opts(n, ab)));
          EXPECT_ARRAY_EQ(golden("ext_min" + suffix), local_minima(img, opts(n, ab)));
          checked += 2;
        }
    }
  }
  EXPECT_EQ(checked, (2 * 2 + 6 * 3 + 2 * 3) * 2 * 2);
}

TEST(MorphologyExtrema, IndicesAsymmetricAndThin) {
  const Array img = golden("ext_asym_in");
  EXPECT_ARRAY_EQ(golden("ext_asym_max"), local_maxima(img, {.footprint = fp("asym")}));
  const Array idx = local_maxima(img, {.indices = true});
  EXPECT_EQ(idx.dtype(), DType::int64);
  EXPECT_ARRAY_EQ(golden("ext_idx"), idx);
  const Array thin = golden("ext_thin_in");
  EXPECT_ARRAY_EQ(golden("ext_thin_max0"), local_maxima(thin, {.allow_borders = false}));
  EXPECT_ARRAY_EQ(golden("ext_thin_max1"), local_maxima(thin));
  const Array none = local_maxima(Array::zeros({4, 5}, DType::float32), {.indices = true});
  EXPECT_EQ(none.shape(), (Shape{0, 2}));
  // A strided view gives the result of its contiguous copy.
  const Array v = golden("ext_in2_int32").slice({Slice{.step = 2}, Slice{.start = 1}});
  EXPECT_ARRAY_EQ(local_minima(v.contiguous()), local_minima(v));
}

TEST(MorphologyExtrema, GoldenHMaximaMinima) {
  int checked = 0;
  for (int nd : {2, 3}) {
    const auto dts = nd == 2 ? std::vector<std::string>{"uint8", "uint16", "int32", "float32", "float64"}
                             : std::vector<std::string>{"uint8", "float32"};
    for (const auto& dt : dts) {
      const std::string tag = std::to_string(nd) + "_" + dt;
      const Array img = golden("h_in" + tag);
      const bool fl = dt[0] == 'f';
      const std::vector<double> hs = fl ? std::vector<double>{1.5, 0.3} : std::vector<double>{3, 2.5, 1000};
      for (std::size_t i = 0; i < hs.size(); ++i)
        for (const std::string f : {"none", nd == 2 ? "cross" : "cross3"}) {
          SCOPED_TRACE(tag + " h=" + std::to_string(hs[i]) + " " + f);
          const std::string suffix = tag + "_" + std::to_string(i) + "_" + f;
          const Array mx = h_maxima(img, hs[i], {.footprint = fp(f)});
          EXPECT_EQ(mx.dtype(), DType::uint8);
          EXPECT_ARRAY_EQ(golden("hmax" + suffix), mx);
          EXPECT_ARRAY_EQ(golden("hmin" + suffix), h_minima(img, hs[i], {.footprint = fp(f)}));
          checked += 2;
        }
    }
  }
  EXPECT_EQ(checked, (3 * 3 * 2 + 2 * 2 * 2) * 2 + (3 * 2 + 2 * 2) * 2);
}

TEST(MorphologyExtrema, BadArguments) {
  const Array img = golden("h_in2_uint8");
  expect_throw([&] { h_maxima(img, 0); }, "ambiguous");
  expect_throw([&] { h_minima(img, -1); }, "non-negative");
  expect_throw([&] { h_maxima(img.astype(DType::bool_), 1); }, "morphology.h_maxima");
  expect_throw([&] { h_maxima(img, 1, {.footprint = Array::full({3, 4}, 1, DType::uint8)}); }, "odd");
  expect_throw([&] { local_maxima(img, {.footprint = Array::full({3}, 1, DType::uint8)}); }, "footprint");
  expect_throw([&] { local_maxima(img, {.footprint = Array::full({5, 5}, 1, DType::uint8)}); }, "not 3");
  expect_throw([&] { local_minima(img.astype(DType::int8)); }, "morphology.local_minima");
  expect_throw([&] { local_maxima(Array{}); }, "image");
}

// ---- GPU ------------------------------------------------------------------------------------------

TEST(GpuMorphologyExtrema, LocalExtremaMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 40;
  for (int nd : {1, 2, 3})
    for (const auto& dtn : kDtypes) {
      const DType dt = dtype_from_name(dtn);
      const Shape shape = nd == 1 ? Shape{5001} : nd == 2 ? Shape{203, 311} : Shape{17, 29, 41};
      const Array h = few_values(shape, dt, seed++, dt == DType::int32 ? -2 : 0, 3);
      const Array d = h.to(Device::cuda(), s);
      for (const std::string n : {"none", "c1", "cross"}) {
        if (n == "cross" && nd != 2) continue;
        for (bool ab : {true, false}) {
          SCOPED_TRACE(dtn + " " + n + " " + std::to_string(nd) + "-D allow_borders=" + std::to_string(ab));
          const Array got = local_maxima(d, opts(n, ab), s);
          EXPECT_EQ(got.device(), Device::cuda());
          EXPECT_ARRAY_EQ(local_maxima(h, opts(n, ab)), got);
          EXPECT_ARRAY_EQ(local_minima(h, opts(n, ab)), local_minima(d, opts(n, ab), s));
        }
      }
      // Indices: the same coordinates.
      LocalExtremaOptions io{.indices = true};
      EXPECT_ARRAY_EQ(local_maxima(h, io), local_maxima(d, io, s));
    }
  // Big plateaus (a few values on a smooth ramp) and a strided view.
  const Array h = few_values({300, 400}, DType::uint8, 77, 0, 1);
  const Array d = h.to(Device::cuda(), s);
  const auto view = [](const Array& a) { return a.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}}); };
  EXPECT_ARRAY_EQ(local_maxima(view(h)), local_maxima(view(d), {}, s));
  EXPECT_ARRAY_EQ(local_minima(view(h), {.connectivity = 1}), local_minima(view(d), {.connectivity = 1}, s));
  recontest::expect_throw<NotSupported>([&] { local_maxima(d, {.footprint = fp("asym")}, s); }, "symmetric");
}

TEST(GpuMorphologyExtrema, HExtremaMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 60;
  for (int nd : {2, 3})
    for (const std::string dtn : {"uint8", "uint16", "int32", "float32", "float64"}) {
      const DType dt = dtype_from_name(dtn);
      const Shape shape = nd == 2 ? Shape{256, 300} : Shape{20, 30, 40};
      const Array h = few_values(shape, dt, seed++, dt == DType::int32 ? -30 : 0, 30);
      const Array d = h.to(Device::cuda(), s);
      for (double hv : {2.0, 3.5}) {
        SCOPED_TRACE(dtn + " h=" + std::to_string(hv) + " " + std::to_string(nd) + "-D");
        EXPECT_ARRAY_EQ(h_maxima(h, hv), h_maxima(d, hv, {}, s));
        EXPECT_ARRAY_EQ(h_minima(h, hv, {.footprint = fp(nd == 2 ? "cross" : "cross3")}),
                        h_minima(d, hv, {.footprint = fp(nd == 2 ? "cross" : "cross3")}, s));
      }
    }
}

TEST(GpuMorphologyExtrema, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = few_values({256, 256}, DType::uint8, 3, 0, 5).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = local_maxima(d, {}, s);
    Array b = local_minima(d, {.indices = true}, s);
    Array c = h_maxima(d, 2, {}, s);
    s.synchronize();
  }));
}

}  // namespace
