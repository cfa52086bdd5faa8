// isotropic_erosion / dilation / opening / closing: scikit-image goldens (2-D bool and uint8, 3-D, with
// and without spacing), out= (strided, aliasing the image), argument errors, and the GPU tier (device
// == CPU on random blobs, 2-D and 3-D, strided views, a non-default stream).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace sm = cuskimage::morphology;

Array golden(const std::string& name) { return cusktest::load_golden("morphology_isotropic/" + name + ".npy"); }

using Fn = Array (*)(const Array&, double, const sm::IsotropicOptions&, const Stream&);
using IntoFn = void (*)(const Array&, double, Array&, const sm::IsotropicOptions&, const Stream&);
const std::vector<Fn> kOps = {&sm::isotropic_erosion, &sm::isotropic_dilation, &sm::isotropic_opening,
                              &sm::isotropic_closing};
const std::vector<IntoFn> kIntoOps = {&sm::isotropic_erosion_into, &sm::isotropic_dilation_into,
                                      &sm::isotropic_opening_into, &sm::isotropic_closing_into};
const std::vector<double> kRadii = {0.5, 1.0, 2.5, 4.0};
std::vector<std::vector<double>> spacings(int nd) {
  if (nd == 2) return {{}, {1.0, 2.0}, {0.7, 1.3}};
  return {{}, {2.0, 1.0, 0.5}};
}

/// golden[op][r][s] of iso_<name>.
Array expected(const Array& stack, std::size_t op, std::size_t r, std::size_t s) {
  return stack.index(0, static_cast<std::int64_t>(op)).index(0, static_cast<std::int64_t>(r)).index(0, static_cast<std::int64_t>(s));
}

Array blobs(const Shape& shape, std::uint64_t seed) {
  Array noise = cusktest::random_array(shape, DType::float64, seed);
  Array sm5 = cuskimage::ndimage::uniform_filter(noise, {.size = {5}, .mode = cuskimage::ndimage::Mode::wrap});
  std::vector<double> v = sm5.to_vector<double>();
  std::vector<std::uint8_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = v[i] > 0.5;
  return Array::from_vector(b, shape).astype(DType::bool_);
}

}  // namespace

TEST(Isotropic, Goldens) {
  for (const std::string name : {"b2", "u8", "b3"}) {
    const Array in = golden("in_" + name);
    const Array stack = golden("iso_" + name);
    const auto sp = spacings(in.ndim());
    for (std::size_t op = 0; op < kOps.size(); ++op)
      for (std::size_t r = 0; r < kRadii.size(); ++r)
        for (std::size_t s = 0; s < sp.size(); ++s) {
          SCOPED_TRACE(name + " op " + std::to_string(op) + " r " + std::to_string(kRadii[r]) + " s " + std::to_string(s));
          const Array got = kOps[op](in, kRadii[r], {.spacing = sp[s]}, {});
          EXPECT_EQ(got.dtype(), DType::bool_);
          EXPECT_ARRAY_EQ(expected(stack, op, r, s), got);
        }
  }
}

TEST(Isotropic, OutStridedAndAliased) {
  const Array in = golden("in_b2");  // bool 40 x 50
  const Array stack = golden("iso_b2");
  for (std::size_t op = 0; op < kOps.size(); ++op) {
    Array out = Array::zeros({50, 40}, DType::bool_).transpose({1, 0});
    kIntoOps[op](in, 2.5, out, {.spacing = {1.0, 2.0}}, {});
    EXPECT_ARRAY_EQ(expected(stack, op, 2, 1), out);
    // out = the image itself (scikit-image allows out=image).
    Array self = in.copy();
    kIntoOps[op](self, 2.5, self, {.spacing = {1.0, 2.0}}, {});
    EXPECT_ARRAY_EQ(expected(stack, op, 2, 1), self);
  }
}

TEST(Isotropic, BadArguments) {
  const Array in = golden("in_b2");
  EXPECT_THROW(sm::isotropic_erosion(in, 1.0, {.spacing = {1.0, 2.0, 3.0}}), InvalidArgument);
  EXPECT_THROW(sm::isotropic_dilation(in, 1.0, {.spacing = {-1.0}}), InvalidArgument);
  EXPECT_THROW(sm::isotropic_opening(Array(), 1.0), InvalidArgument);
  Array out8 = Array::empty(in.shape(), DType::uint8);
  EXPECT_THROW(sm::isotropic_closing_into(in, 1.0, out8), InvalidArgument);
  Array outs = Array::empty({40, 49}, DType::bool_);
  EXPECT_THROW(sm::isotropic_erosion_into(in, 1.0, outs), InvalidArgument);
}

TEST(Isotropic, Cli) {
  const std::string in = cusktest::golden_path("morphology_isotropic/in_b2.npy");
  const Array stack = golden("iso_b2");
  const char* names[] = {"isotropic_erosion", "isotropic_dilation", "isotropic_opening", "isotropic_closing"};
  for (std::size_t op = 0; op < 4; ++op) {
    const std::string out = cusktest::temp_path(std::string(names[op]) + ".npy");
    const auto r = cuskclitest::run_cli_cpu({std::string("morphology.") + names[op], in, out, "--radius", "2.5",
                                             "--spacing", "1,2"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_ARRAY_EQ(expected(stack, op, 2, 1), cuskimage::io::imread(out));
  }
  EXPECT_EQ(cuskclitest::run_cli_cpu({"morphology.isotropic_erosion", in, cusktest::temp_path("x.npy")}).rc, 2);
}

TEST(GpuIsotropic, DeviceEqualsCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 5;
  for (const Shape& shape : {Shape{301, 517}, Shape{19, 37, 45}}) {
    const Array h = blobs(shape, seed++);
    const Array d = h.to(Device::cuda(), s);
    const std::vector<double> sp = shape.size() == 2 ? std::vector<double>{2.0, 0.5} : std::vector<double>{1.0, 1.5, 0.5};
    for (std::size_t op = 0; op < kOps.size(); ++op)
      for (double r : {1.0, 3.5}) {
        SCOPED_TRACE(std::to_string(op) + " " + std::to_string(r));
        EXPECT_ARRAY_EQ(kOps[op](h, r, {.spacing = sp}, {}), kOps[op](d, r, {.spacing = sp}, s));
        EXPECT_ARRAY_EQ(kOps[op](h, r, {}, {}), kOps[op](d, r, {}, s));
      }
  }
  // Goldens on the device, and a strided view into a strided out.
  const Array in = golden("in_b2");
  const Array stack = golden("iso_b2");
  for (std::size_t op = 0; op < kOps.size(); ++op) {
    EXPECT_ARRAY_EQ(expected(stack, op, 3, 0), kOps[op](in.to(Device::cuda(), s), 4.0, {}, s));
    const Array hv = blobs({90, 120}, 77).slice({Slice{0, 90, 2}, Slice{1, 120, 3}});
    Array out = Array::zeros({40, 45}, DType::bool_, Device::cuda(), s).transpose({1, 0});
    kIntoOps[op](hv.to(Device::cuda(), s).slice({Slice{}, Slice{}}), 2.0, out, {}, s);
    EXPECT_ARRAY_EQ(kOps[op](hv, 2.0, {}, {}), out);
  }
}

TEST(GpuIsotropic, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array h = blobs({256, 300}, 9);
  const Array want = sm::isotropic_closing(h, 3.0);
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    got = sm::isotropic_closing(h.to(Device::cuda(), s), 3.0, {}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(want, got);
}
