// chan_vese against scikit-image 0.26's goldens (tests/golden/cases_segmentation_levelsets.py,
// extended output): the segmentation exactly; phi and the energies within 1e-9 relative (the CPU
// repeats NumPy's operations and pairwise sums, but sin (checkerboard start) and arctan (energies)
// may differ from NumPy's by an ulp). float32: NumPy's float32 sin is not correctly rounded (1171 of
// the 4608 checkerboard samples differ by an ulp from sinf's), which moves phi by up to 1.2e-4 after
// 30 iterations: phi within 5e-4, energies 1e-5, the segmentation still exact. GPU tier: the
// device's region sums are summed in another order, so phi agrees with the CPU within 1e-7
// (absolute, phi is O(1)) after tens of iterations (float32: 1e-4) and the segmentation only where
// |phi| is below that; energies within 1e-9 relative (float32: 1e-4).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_levelsets/" + name + ".npy"); }

struct Case {
  std::string key, image;
  seg::ChanVeseOptions o;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"default", "img2", {}});
  c.push_back({"disk", "img2", {.mu = 0.1, .max_num_iter = 40, .init_method = seg::ChanVeseInit::disk}});
  c.push_back(
      {"small", "img2", {.lambda1 = 2.0, .tol = 1e-4, .dt = 0.3, .init_method = seg::ChanVeseInit::small_disk}});
  c.push_back({"arr", "img2", {.max_num_iter = 25, .init_level_set = golden("init2")}});
  c.push_back({"f32", "img2f32", {.max_num_iter = 30}});
  c.push_back({"u8", "img2u8", {.mu = 0.5, .lambda2 = 0.7, .max_num_iter = 30}});
  return c;
}

void expect_energies(const Array& expected, const std::vector<double>& e, double rtol) {
  const auto x = expected.to_vector<double>();
  ASSERT_EQ(x.size(), e.size());
  for (std::size_t i = 0; i < e.size(); ++i) EXPECT_NEAR(x[i], e[i], rtol * std::abs(x[i]) + 1e-12) << "energy " << i;
}

TEST(ChanVese, GoldensCpu) {
  for (auto& c : cases()) {
    SCOPED_TRACE(c.key);
    const auto r = seg::chan_vese_extended(golden(c.image), c.o);
    EXPECT_ARRAY_EQ(golden("cv_" + c.key + "_seg"), r.segmentation);
    const bool f32 = c.key == "f32";
    EXPECT_ARRAY_NEAR(golden("cv_" + c.key + "_phi"), r.phi, f32 ? 5e-4 : 1e-9, f32 ? 5e-4 : 1e-9);
    expect_energies(golden("cv_" + c.key + "_energies"), r.energies, f32 ? 1e-5 : 1e-9);
  }
  EXPECT_ARRAY_EQ(golden("cv_disk_seg"),
                  seg::chan_vese(golden("img2"),
                                 {.mu = 0.1, .max_num_iter = 40, .init_method = seg::ChanVeseInit::disk}));
}

TEST(ChanVese, BadInput) {
  using cuskimage::InvalidArgument;
  EXPECT_THROW(seg::chan_vese(Array::zeros({4, 5, 6}, DType::float64)), InvalidArgument);
  EXPECT_THROW(seg::chan_vese(golden("img2"), {.init_level_set = Array::zeros({64, 71}, DType::float64)}),
               InvalidArgument);
  EXPECT_THROW(seg::chan_vese(golden("img2"), {.max_num_iter = -1}), InvalidArgument);
}

TEST(ChanVese, Cli) {
  const std::string img = cusktest::golden_path("segmentation_levelsets/img2.npy");
  const std::string out = cusktest::temp_path("cv.npy"), phi = cusktest::temp_path("cv_phi.npy");
  const auto r = cuskclitest::run_cli_cpu(
      {"segmentation.chan_vese", img, out, phi, "--mu", "0.1", "--max_num_iter", "40", "--init_method", "disk"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(golden("cv_disk_seg"), cuskimage::io::imread(out));
  EXPECT_ARRAY_NEAR(golden("cv_disk_phi"), cuskimage::io::imread(phi), 1e-9, 1e-9);
  EXPECT_TRUE(cuskclitest::contains(r.out, "energies")) << r.out;
}

TEST(GpuChanVese, MatchesCpuStridedAndStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (auto& c : cases()) {
    if (c.key == "default" || c.key == "small") c.o.max_num_iter = 60;
    SCOPED_TRACE(c.key);
    const auto cpu = seg::chan_vese_extended(golden(c.image), c.o);
    seg::ChanVeseOptions o = std::move(c.o);
    if (o.init_level_set.valid()) o.init_level_set = o.init_level_set.to(Device::cuda(), s);
    const auto gpu = seg::chan_vese_extended(golden(c.image).to(Device::cuda(), s), o, s);
    const bool f32 = c.key == "f32";
    EXPECT_ARRAY_NEAR(cpu.phi, gpu.phi, f32 ? 1e-4 : 1e-7, f32 ? 1e-4 : 1e-7);
    expect_energies(Array::from_vector(cpu.energies, {std::int64_t(cpu.energies.size())}), gpu.energies,
                    f32 ? 1e-4 : 1e-9);
    const auto a = cpu.segmentation.to_vector<bool>(), b = gpu.segmentation.to(Device::cpu()).to_vector<bool>();
    const auto p = cpu.phi.astype(DType::float64).to_vector<double>();
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) EXPECT_LT(std::abs(p[i]), f32 ? 1e-4 : 1e-7) << "pixel " << i;
  }
  // A strided view of a wider image.
  const Array wide = cusktest::random_array({40, 90}, DType::float64, 5, 0, 1);
  const Array view = wide.slice({cuskimage::Slice{}, cuskimage::Slice{0, 90, 2}});
  const Array dview = wide.to(Device::cuda(), s).slice({cuskimage::Slice{}, cuskimage::Slice{0, 90, 2}});
  const auto cpu = seg::chan_vese_extended(view, {.max_num_iter = 20});
  const auto gpu = seg::chan_vese_extended(dview, {.max_num_iter = 20}, s);
  EXPECT_ARRAY_NEAR(cpu.phi, gpu.phi, 1e-7, 1e-7);
}

}  // namespace
