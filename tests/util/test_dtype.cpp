// img_as_*, convert and dtype_limits against scikit-image 0.26 (exact), on the CPU backend.
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "tests/util/util_test_common.hpp"

namespace util = cuskimage::util;
using namespace utiltest;

namespace {

using ImgAsFn = std::function<Array(const Array&, const util::ImgAsOptions&, const Stream&)>;

const std::map<std::string, ImgAsFn>& img_as_functions() {
  static const std::map<std::string, ImgAsFn> m = {
      {"float", [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_float(a, o, s); }},
      {"float32",
       [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_float32(a, o, s); }},
      {"float64",
       [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_float64(a, o, s); }},
      {"ubyte", [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_ubyte(a, o, s); }},
      {"uint", [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_uint(a, o, s); }},
      {"int", [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_int(a, o, s); }},
      {"bool", [](const Array& a, const util::ImgAsOptions& o, const Stream& s) { return util::img_as_bool(a, o, s); }},
  };
  return m;
}

}  // namespace

TEST(UtilDtype, GoldenImgAsEveryDtype) {
  int checked = 0;
  for (const auto& name : dtype_inputs()) {
    const Array in = golden("in_" + name);
    for (const auto& [fname, f] : img_as_functions()) {
      const std::string gname = "img_as_" + fname + "_" + name;
      ASSERT_TRUE(golden_exists(gname)) << gname;
      SCOPED_TRACE(gname);
      EXPECT_ARRAY_EQ(golden(gname), f(in, {}, {}));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 17 * 7);
}

TEST(UtilDtype, GoldenImgAsStridedInput) {
  for (const auto& name : dtype_inputs()) {
    const Array in = strided_twin(golden("in_" + name));
    ASSERT_FALSE(in.is_contiguous());
    for (const auto& [fname, f] : img_as_functions()) {
      SCOPED_TRACE("img_as_" + fname + "_" + name);
      EXPECT_ARRAY_EQ(golden("img_as_" + fname + "_" + name), f(in, {}, {}));
    }
  }
}

TEST(UtilDtype, GoldenConvertOtherTargets) {
  const std::vector<std::pair<std::string, DType>> targets = {
      {"int8", DType::int8}, {"uint32", DType::uint32}, {"int32", DType::int32},
      {"uint64", DType::uint64}, {"int64", DType::int64}};
  int errors = 0, values = 0;
  for (const auto& name : dtype_inputs()) {
    const Array in = golden("in_" + name);
    for (const auto& [tname, dt] : targets) {
      const std::string gname = "convert_" + tname + "_" + name;
      SCOPED_TRACE(gname);
      if (golden_exists(gname + "_error")) {
        // scikit-image cannot perform this conversion: neither do we, with a typed error.
        EXPECT_TRUE(throws_with<cuskimage::InvalidArgument>([&] { (void)util::convert(in, dt); },
                                                            {"util.convert", "dtype"}));
        ++errors;
      } else if (cuskimage::is_floating(in.dtype()) && cuskimage::itemsize(dt) >= 4 && dt != DType::int8) {
        // Float -> 32/64-bit integers: x = 1.0 scales to exactly 2^32 or 2^64 (2^31, 2^63 signed),
        // one past the range. NumPy's cast of that is undefined (x86 gives 0 or the minimum, ARM
        // saturates); we saturate. Every other element must match exactly.
        const Array ours = util::convert(in, dt);
        const std::vector<double> x = in.to_vector<double>();
        const std::vector<double> e = golden(gname).to_vector<double>(), o = ours.to_vector<double>();
        ASSERT_EQ(ours.dtype(), dt);
        for (std::size_t i = 0; i < x.size(); ++i) {
          if (x[i] == 1.0)
            EXPECT_EQ(o[i], util::dtype_limits(dt).imax) << i;
          else
            EXPECT_EQ(o[i], e[i]) << i;
        }
        ++values;
      } else {
        EXPECT_ARRAY_EQ(golden(gname), util::convert(in, dt));
        ++values;
      }
    }
  }
  EXPECT_GT(errors, 5);
  EXPECT_GT(values, 60);
}

TEST(UtilDtype, GoldenConvertUniform) {
  const std::vector<std::pair<std::string, DType>> targets = {
      {"uint8", DType::uint8}, {"uint16", DType::uint16}, {"int16", DType::int16}, {"int8", DType::int8}};
  for (const std::string name : {"float32", "float64"}) {
    const Array in = golden("in_" + name);
    for (const auto& [tname, dt] : targets) {
      SCOPED_TRACE(tname + " " + name);
      EXPECT_ARRAY_EQ(golden("convert_uniform_" + tname + "_" + name), util::convert(in, dt, {.uniform = true}));
    }
  }
}

TEST(UtilDtype, GoldenCamera) {
  const Array cam = golden("in_camera");
  EXPECT_ARRAY_EQ(golden("camera_float"), util::img_as_float(cam));
  EXPECT_ARRAY_EQ(golden("camera_float32"), util::img_as_float32(cam));
  EXPECT_ARRAY_EQ(golden("camera_int"), util::img_as_int(cam));
  EXPECT_ARRAY_EQ(golden("camera_uint"), util::img_as_uint(cam));
  EXPECT_ARRAY_EQ(golden("camera_bool"), util::img_as_bool(cam));
  EXPECT_ARRAY_EQ(golden("camera_roundtrip_ubyte"), util::img_as_ubyte(util::img_as_float32(cam)));
  EXPECT_ARRAY_EQ(golden("camera_float_to_uint"), util::img_as_uint(util::img_as_float(cam)));
  // img_as_int(img_as_float(cam) * 2 - 1): build the scaled float input from the golden float.
  const Array f = golden("camera_float");
  std::vector<double> v = f.to_vector<double>();
  for (double& x : v) x = x * 2 - 1;
  EXPECT_ARRAY_EQ(golden("camera_float_to_int"), util::img_as_int(Array::from_vector(v, f.shape())));
}

TEST(UtilDtype, SameDtypeIsSharedUnlessForceCopy) {
  const Array cam = golden("in_camera");
  const Array same = util::img_as_ubyte(cam);
  EXPECT_EQ(same.data(), cam.data());
  const Array copied = util::img_as_ubyte(cam, {.force_copy = true});
  EXPECT_NE(copied.data(), cam.data());
  EXPECT_ARRAY_EQ(cam, copied);
  // img_as_float keeps float32 (np.floating), img_as_float64 does not.
  const Array f32 = util::img_as_float32(cam);
  EXPECT_EQ(util::img_as_float(f32).data(), f32.data());
  EXPECT_EQ(util::img_as_float64(f32).dtype(), DType::float64);
}

TEST(UtilDtype, FloatOutOfRangeRaises) {
  const Array a = Array::from_vector<float>({0.f, 0.5f, 1.5f}, {3});
  EXPECT_TRUE(throws_with<cuskimage::InvalidArgument>([&] { (void)util::img_as_ubyte(a); },
                                                      {"util.img_as_ubyte", "'image'", "[-1, 1]"}));
  EXPECT_TRUE(throws_with<cuskimage::InvalidArgument>([&] { (void)util::img_as_int(a); }, {"util.img_as_int"}));
  const Array b = Array::from_vector<double>({-1.0001, 0.0}, {2});
  EXPECT_THROW((void)util::img_as_uint(b), cuskimage::InvalidArgument);
  // Out-of-range floats are fine for float and bool targets.
  EXPECT_NO_THROW((void)util::img_as_float32(b));
  EXPECT_NO_THROW((void)util::img_as_bool(a));
  // A NaN makes NumPy's min/max NaN, which passes scikit-image's check.
  const Array n = Array::from_vector<double>({std::nan(""), 2.0}, {2});
  EXPECT_NO_THROW((void)util::img_as_ubyte(n));
}

TEST(UtilDtype, DtypeLimits) {
  auto l = util::dtype_limits(DType::uint8);
  EXPECT_EQ(l.imin, 0);
  EXPECT_EQ(l.imax, 255);
  l = util::dtype_limits(DType::int16);
  EXPECT_EQ(l.imin, -32768);
  EXPECT_EQ(l.imax, 32767);
  l = util::dtype_limits(DType::int16, true);
  EXPECT_EQ(l.imin, 0);
  l = util::dtype_limits(DType::float32);
  EXPECT_EQ(l.imin, -1);
  EXPECT_EQ(l.imax, 1);
  l = util::dtype_limits(Array::zeros({2}, DType::bool_));
  EXPECT_EQ(l.imin, 0);
  EXPECT_EQ(l.imax, 1);
  EXPECT_THROW((void)util::dtype_limits(Array()), cuskimage::InvalidArgument);
}

TEST(UtilDtype, DegenerateShapes) {
  for (const Shape& shape : {Shape{0, 5}, Shape{1, 1}, Shape{1}, Shape{3, 1, 7}, Shape{}}) {
    const Array u = cusktest::random_array(shape, DType::uint16, 7);
    const Array f = util::img_as_float32(u);
    EXPECT_EQ(f.shape(), shape);
    EXPECT_EQ(f.dtype(), DType::float32);
    const Array b = util::img_as_ubyte(u);  // data-dependent path (max of an empty image)
    EXPECT_EQ(b.shape(), shape);
    EXPECT_EQ(util::img_as_bool(f).shape(), shape);
  }
}

TEST(UtilDtype, ThreeDimensionalMatchesFlat) {
  // Per-pixel ops: a 3-D image gives the values of its flattened copy.
  const Array v = cusktest::random_array({4, 5, 6}, DType::int16, 3);
  const Array flat = v.reshape({120});
  EXPECT_ARRAY_EQ(util::img_as_ubyte(flat).reshape({4, 5, 6}), util::img_as_ubyte(v));
  EXPECT_ARRAY_EQ(util::img_as_float32(flat).reshape({4, 5, 6}), util::img_as_float32(v));
}

TEST(UtilDtype, ConvertIntoChecksArguments) {
  const Array a = cusktest::random_array({4, 4}, DType::uint8, 1);
  Array out = Array::empty({4, 4}, DType::float32);
  util::convert_into(a, out);
  EXPECT_ARRAY_EQ(util::img_as_float32(a), out);
  Array bad = Array::empty({4, 5}, DType::float32);
  EXPECT_TRUE(throws_with<cuskimage::InvalidArgument>([&] { util::convert_into(a, bad); },
                                                      {"util.convert_into", "'out'"}));
  EXPECT_THROW((void)util::img_as_float(Array()), cuskimage::InvalidArgument);
}
