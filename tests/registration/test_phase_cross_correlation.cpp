// phase_cross_correlation against scikit-image 0.26's goldens (tests/golden/cases_registration.py):
// 1-D, 2-D (odd/even extents), 3-D; float64 / float32 / uint8; upsample_factor 1, 4, 10;
// normalization phase / none; space fourier; disambiguate; the masked variant (same and different
// shapes, overlap_ratio, moving_mask defaulting to reference_mask). Then bad input, strided views,
// and the GPU tier (device == CPU backend on fresh inputs, strided views, a non-default stream).
//
// Tolerances against scikit-image: shifts 1e-9 (float64) / 2e-6 (float32) absolute: the coarse
// peak and the upsampled peak are the same samples, only rounding differs. error = sqrt|1 - x| with
// x near 1 amplifies rounding (sqrt of it): 1e-6 (float64) / 3e-3 (float32) absolute; phasediff
// 1e-6 / 2e-4 (as an angle, modulo 2 pi).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <utility>
#include <string>
#include <vector>

#include "cuskimage/registration.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace reg = cuskimage::registration;

Array golden(const std::string& name) { return cusktest::load_golden("registration/" + name + ".npy"); }

struct Tol {
  double shift, error, phase;
};
Tol tol_for(bool f32) { return f32 ? Tol{2e-6, 3e-3, 2e-4} : Tol{1e-9, 1e-6, 1e-6}; }

double angle_diff(double a, double b) {
  const double d = std::remainder(a - b, 2 * std::numbers::pi);
  return std::abs(d);
}

::testing::AssertionResult matches(const Array& expected, const reg::PhaseCrossCorrelationResult& r, Tol t) {
  const double* e = expected.data<double>();
  const std::size_t nd = r.shift.size();
  if (static_cast<std::size_t>(expected.size()) != nd + 2)
    return ::testing::AssertionFailure() << "golden has " << expected.size() << " values, result " << nd + 2;
  for (std::size_t d = 0; d < nd; ++d)
    if (!(std::abs(e[d] - r.shift[d]) <= t.shift))
      return ::testing::AssertionFailure() << "shift[" << d << "] " << r.shift[d] << " != " << e[d];
  const double ee = e[nd], ep = e[nd + 1];
  if (std::isnan(ee) != std::isnan(r.error) || (!std::isnan(ee) && !(std::abs(ee - r.error) <= t.error)))
    return ::testing::AssertionFailure() << "error " << r.error << " != " << ee;
  if (std::isnan(ep) != std::isnan(r.phasediff) || (!std::isnan(ep) && !(angle_diff(ep, r.phasediff) <= t.phase)))
    return ::testing::AssertionFailure() << "phasediff " << r.phasediff << " != " << ep;
  return ::testing::AssertionSuccess();
}

const std::vector<std::string> kKeys = {"2d", "2f", "2u", "1d", "3d", "2o"};

void run_goldens(const Device& dev, const Stream& s) {
  for (const auto& key : kKeys) {
    const Array ref = golden("ref_" + key).to(dev, s), mov = golden("mov_" + key).to(dev, s);
    const Tol t = tol_for(ref.dtype() == DType::float32);
    for (double f : {1.0, 10.0, 4.0}) {
      if (f == 4.0 && key != "2d" && key != "3d") continue;
      for (auto norm : {reg::Normalization::phase, reg::Normalization::none}) {
        const std::string name = "pcc_" + key + "_u" + std::to_string(static_cast<int>(f)) + "_" +
                                 (norm == reg::Normalization::phase ? "phase" : "none");
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(golden(name),
                            reg::phase_cross_correlation(ref, mov, {.upsample_factor = f, .normalization = norm}, s), t));
      }
    }
  }
  for (const std::string key : {"2f", "3d"}) {
    const Array ref = golden("fref_" + key).to(dev, s), mov = golden("fmov_" + key).to(dev, s);
    // scikit-image received the spectra in the images' precision.
    const DType dt = key == "2f" ? DType::float32 : DType::float64;
    for (double f : {1.0, 10.0}) {
      const std::string name = "pcc_" + key + "_four_u" + std::to_string(static_cast<int>(f));
      SCOPED_TRACE(name);
      EXPECT_TRUE(matches(golden(name),
                          reg::phase_cross_correlation(ref.astype(dt, s), mov.astype(dt, s),
                                                       {.upsample_factor = f, .space = reg::Space::fourier}, s),
                          tol_for(dt == DType::float32)));
    }
  }
}

void run_masked_goldens(const Device& dev, const Stream& s) {
  for (const std::string key : {"m2d", "m2f", "m2s", "m3d"}) {
    SCOPED_TRACE(key);
    const Array ref = golden("ref_" + key).to(dev, s), mov = golden("mov_" + key).to(dev, s);
    const Array rm = golden("rmask_" + key).to(dev, s), mm = golden("mmask_" + key).to(dev, s);
    const Tol t = tol_for(false);
    EXPECT_TRUE(matches(golden("pcc_" + key + "_masked"),
                        reg::phase_cross_correlation(ref, mov, {.reference_mask = rm.share(), .moving_mask = mm.share()}, s),
                        t));
    if (key == "m2d") {
      EXPECT_TRUE(matches(golden("pcc_m2d_masked_ov"),
                          reg::phase_cross_correlation(
                              ref, mov, {.reference_mask = rm.share(), .moving_mask = mm.share(), .overlap_ratio = 0.6}, s),
                          t));
      EXPECT_TRUE(matches(golden("pcc_m2d_masked_ref"),
                          reg::phase_cross_correlation(ref, mov, {.reference_mask = rm.share()}, s), t));
    }
  }
}

TEST(PhaseCrossCorrelation, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(PhaseCrossCorrelation, MaskedGoldens) { run_masked_goldens(Device::cpu(), Stream()); }

TEST(PhaseCrossCorrelation, Disambiguate) {
  const Array ref = golden("ref_dis"), mov = golden("mov_dis");
  for (double f : {1.0, 10.0}) {
    SCOPED_TRACE(f);
    EXPECT_TRUE(matches(golden("pcc_dis_u" + std::to_string(static_cast<int>(f))),
                        reg::phase_cross_correlation(ref, mov, {.upsample_factor = f, .disambiguate = true}),
                        tol_for(false)));
  }
  // Without disambiguation the shift is only known modulo the shape (64): -26 for the true 38.
  const auto plain = reg::phase_cross_correlation(ref, mov);
  EXPECT_EQ(plain.shift, (std::vector<double>{-26, 20}));
}

TEST(PhaseCrossCorrelation, StridedViewEqualsContiguous) {
  const Array ref = golden("ref_2d"), mov = golden("mov_2d");
  Array big = Array::zeros({2 * ref.shape(0), ref.shape(1) + 5}, DType::float64);
  Array view = big.slice({Slice{0, 2 * ref.shape(0), 2}, Slice{3, 3 + ref.shape(1)}});
  view.copy_from(ref);
  const auto a = reg::phase_cross_correlation(view, mov, {.upsample_factor = 10});
  const auto b = reg::phase_cross_correlation(ref, mov, {.upsample_factor = 10});
  EXPECT_EQ(a.shift, b.shift);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.phasediff, b.phasediff);
}

TEST(PhaseCrossCorrelation, BadInput) {
  using cuskimage::InvalidArgument;
  const Array a = cusktest::random_array({16, 16}, DType::float64, 1);
  const Array b = cusktest::random_array({16, 15}, DType::float64, 2);
  const Array m = Array::full({16, 16}, 1, DType::bool_);
  EXPECT_THROW(reg::phase_cross_correlation(a, b), InvalidArgument);  // images must be same shape
  EXPECT_THROW(reg::phase_cross_correlation(a, a, {.upsample_factor = 0.5}), InvalidArgument);
  EXPECT_THROW(reg::phase_cross_correlation(a, a, {.space = reg::Space::fourier}), InvalidArgument);
  EXPECT_THROW(reg::phase_cross_correlation(a, b, {.reference_mask = m.share()}), InvalidArgument);
  EXPECT_THROW(reg::phase_cross_correlation(a, a, {.moving_mask = m.share()}), InvalidArgument);
  EXPECT_THROW(reg::phase_cross_correlation(a, b, {.reference_mask = m.share(), .moving_mask = m.share()}),
               InvalidArgument);  // mask sizes must match their images
  Array nan = a.copy();
  nan.data<double>()[5] = std::nan("");
  EXPECT_THROW(reg::phase_cross_correlation(nan, a), InvalidArgument);  // NaN values found
  EXPECT_THROW(reg::phase_cross_correlation(Array::empty({0, 4}, DType::float64), Array::empty({0, 4}, DType::float64)),
               InvalidArgument);
}

TEST(PhaseCrossCorrelation, RecoversAKnownShift) {
  // A random image and its periodic shift by (5, -7): the shift that registers it back is (-5, 7).
  const Array a = cusktest::random_array({40, 52}, DType::float32, 7);
  Array b = Array::empty(a.shape(), DType::float32);
  for (std::int64_t i = 0; i < 40; ++i)
    for (std::int64_t j = 0; j < 52; ++j)
      b.data<float>()[((i + 5) % 40) * 52 + (j + 52 - 7) % 52] = a.data<float>()[i * 52 + j];
  const auto r = reg::phase_cross_correlation(a, b);
  EXPECT_EQ(r.shift, (std::vector<double>{-5, 7}));
  EXPECT_NEAR(r.error, 1.0, 1e-5);  // phase normalization: |CC| is 1 at the peak, the amplitudes are not
}

// ---- GPU tier ---------------------------------------------------------------------------------------

::testing::AssertionResult same(const reg::PhaseCrossCorrelationResult& cpu, const reg::PhaseCrossCorrelationResult& gpu,
                                bool f32) {
  const Tol t = tol_for(f32);
  if (cpu.shift.size() != gpu.shift.size()) return ::testing::AssertionFailure() << "ndim differs";
  for (std::size_t d = 0; d < cpu.shift.size(); ++d)
    if (!(std::abs(cpu.shift[d] - gpu.shift[d]) <= t.shift))
      return ::testing::AssertionFailure() << "shift[" << d << "] gpu " << gpu.shift[d] << " cpu " << cpu.shift[d];
  if (!(std::abs(cpu.error - gpu.error) <= t.error) && !(std::isnan(cpu.error) && std::isnan(gpu.error)))
    return ::testing::AssertionFailure() << "error gpu " << gpu.error << " cpu " << cpu.error;
  if (!(angle_diff(cpu.phasediff, gpu.phasediff) <= t.phase) && !(std::isnan(cpu.phasediff) && std::isnan(gpu.phasediff)))
    return ::testing::AssertionFailure() << "phasediff gpu " << gpu.phasediff << " cpu " << cpu.phasediff;
  return ::testing::AssertionSuccess();
}

TEST(GpuPhaseCrossCorrelation, Goldens) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(0), Stream());
  run_masked_goldens(Device::cuda(0), Stream());
}

/// A random image and a copy rolled (flat, by 3 rows and 5 samples) plus noise: a well separated
/// peak at -(3, 5) (the last axes), which both backends must find.
std::pair<Array, Array> rolled_pair(const Shape& shape, DType dt, std::uint64_t seed) {
  const Array a = cusktest::random_array(shape, dt, seed, 0, 100);
  const Array noise = cusktest::random_array(shape, DType::float64, seed + 1, 0, 10);
  Array b = Array::empty(shape, DType::float64);
  const Array a64 = a.astype(DType::float64);
  const std::int64_t n = a.size(), k = 3 * shape.back() + 5;
  for (std::int64_t i = 0; i < n; ++i) b.data<double>()[(i + k) % n] = a64.data<double>()[i] + noise.data<double>()[i];
  return {a.share(), b.astype(dt)};
}

const std::vector<Shape> kFreshShapes = {Shape{64, 80}, Shape{33, 47}, Shape{12, 10, 14}, Shape{101}};

TEST(PhaseCrossCorrelation, FindsRolledShifts) {
  for (const Shape& shape : kFreshShapes) {
    SCOPED_TRACE(cuskimage::shape_str(shape));
    const auto [a, b] = rolled_pair(shape, DType::uint16, 1);
    std::vector<double> expect(shape.size(), 0.0);
    expect.back() = -5;
    if (shape.size() > 1) expect[shape.size() - 2] = -3;
    EXPECT_EQ(reg::phase_cross_correlation(a, b).shift, expect);
  }
}

TEST(GpuPhaseCrossCorrelation, MatchesCpuOnFreshInputs) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 100;
  for (const Shape& shape : kFreshShapes)
    for (DType dt : {DType::float32, DType::float64, DType::uint16})
      for (double f : {1.0, 3.0, 20.0}) {
        SCOPED_TRACE(cuskimage::shape_str(shape) + " " + std::to_string(f));
        const auto [a, b] = rolled_pair(shape, dt, seed += 2);
        const reg::PhaseCrossCorrelationOptions o{.upsample_factor = f};
        EXPECT_TRUE(same(reg::phase_cross_correlation(a, b, o),
                         reg::phase_cross_correlation(a.to(Device::cuda(0)), b.to(Device::cuda(0)), o),
                         dt == DType::float32));
      }
}

TEST(GpuPhaseCrossCorrelation, StridedNonDefaultStreamAndMasked) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array big = cusktest::random_array({90, 70}, DType::float64, 5);
  const Array bigd = big.to(Device::cuda(0), s);
  const Array ref = big.slice({Slice{0, 90, 2}, Slice{5, 65}}), refd = bigd.slice({Slice{0, 90, 2}, Slice{5, 65}});
  const Array mov = big.slice({Slice{0, 90, 2}, Slice{3, 63}}), movd = bigd.slice({Slice{0, 90, 2}, Slice{3, 63}});
  const Array m = cusktest::random_array({45, 60}, DType::bool_, 9);
  for (bool masked : {false, true}) {
    SCOPED_TRACE(masked);
    auto opts = [&](const Array& mask) {
      reg::PhaseCrossCorrelationOptions o{.upsample_factor = 7};
      if (masked) o.reference_mask = mask.share();
      return o;
    };
    const Array md = m.to(Device::cuda(0), s);
    EXPECT_TRUE(same(reg::phase_cross_correlation(ref, mov, opts(m)),
                     reg::phase_cross_correlation(refd, movd, opts(md), s),
                     false));
  }
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    const Array a = ref.to(Device::cuda(0), st), b = mov.to(Device::cuda(0), st);
    (void)reg::phase_cross_correlation(a, b, {.upsample_factor = 10}, st);
  }));
}

}  // namespace
