// radon, iradon_sart and order_angles_golden_ratio against scikit-image's goldens
// (tests/golden/cases_transform_radon.py). radon is exact (scikit-image's warp arithmetic and
// column sums, step for step; the GPU evaluates the same code). iradon_sart runs scikit-image's float / double arithmetic
// step for step: equal to within a few ulps (1e-12 relative for float64, 1e-5 for float32, where
// libm's cos/sin/sqrt may differ from the build scikit-image used by an ulp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cuskimage/transform.hpp"
#include "src/transform/radon_sart.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace tf = cuskimage::transform;

Array golden(const std::string& name) { return cusktest::load_golden("transform_radon/" + name + ".npy"); }
std::vector<double> gvec(const std::string& name) { return golden(name).astype(DType::float64).to_vector<double>(); }

::testing::AssertionResult near(const Array& want, const Array& got) {
  if (want.dtype() != got.dtype()) return ::testing::AssertionFailure() << "dtype " << got.str();
  return want.dtype() == DType::float32 ? cusktest::arrays_close(want, got, 1e-5, 1e-6)
                                        : cusktest::arrays_close(want, got, 1e-12, 1e-13);
}

void sart_goldens(const Device& dev, const Stream& s) {
  const Array f64 = golden("sino_f64").to(dev, s);
  const std::vector<double> theta = gvec("golden_theta_0");
  EXPECT_TRUE(near(golden("sart_f64"), tf::iradon_sart(f64, {}, s)));
  EXPECT_TRUE(near(golden("sart_f64_theta"), tf::iradon_sart(f64, {.theta = theta}, s)));
  EXPECT_TRUE(near(golden("sart_f32"), tf::iradon_sart(golden("sino_f32").to(dev, s), {}, s)));
  EXPECT_TRUE(near(golden("sart_f64_as_f32"), tf::iradon_sart(f64, {.dtype = DType::float32}, s)));
  EXPECT_TRUE(near(golden("sart_u8"), tf::iradon_sart(golden("sino_u8").to(dev, s), {}, s)));
  const Array first = golden("sart_f64_theta").to(dev, s);
  EXPECT_TRUE(near(golden("sart_f64_second"),
                   tf::iradon_sart(f64, {.theta = theta, .image = first.copy(s), .clip = std::array<double, 2>{0, 1},
                                         .relaxation = 0.3},
                                   s)));
  EXPECT_TRUE(near(golden("sart_f64_shift"), tf::iradon_sart(f64, {.projection_shifts = gvec("sart_shifts")}, s)));
  EXPECT_TRUE(near(golden("sart_f32_second"),
                   tf::iradon_sart(golden("sino_f32").to(dev, s),
                                   {.image = first.astype(DType::float32, s), .clip = std::array<double, 2>{0.1, 0.9}},
                                   s)));
}

void radon_goldens(const Device& dev, const Stream& s) {
  const std::vector<double> theta = gvec("rtheta");
  const Array f64 = golden("rin_f64").to(dev, s), u8 = golden("rin_u8").to(dev, s), f32 = golden("rin_f32").to(dev, s);
  EXPECT_ARRAY_EQ(golden("radon_f64"), tf::radon(f64, {}, s));
  EXPECT_ARRAY_EQ(golden("radon_f64_theta"), tf::radon(f64, {.theta = theta}, s));
  EXPECT_ARRAY_EQ(golden("radon_f64_square"), tf::radon(f64, {.theta = theta, .circle = false}, s));
  EXPECT_ARRAY_EQ(golden("radon_u8"), tf::radon(u8, {.theta = theta}, s));
  EXPECT_ARRAY_EQ(golden("radon_u8_square"), tf::radon(u8, {.theta = theta, .circle = false}, s));
  EXPECT_ARRAY_EQ(golden("radon_u8_pr"), tf::radon(u8, {.theta = theta, .preserve_range = true}, s));
  EXPECT_ARRAY_EQ(golden("radon_f32"), tf::radon(f32, {.theta = theta}, s));
  EXPECT_ARRAY_EQ(golden("radon_f32_square"), tf::radon(f32, {.theta = theta, .circle = false}, s));
}

/// iradon: the filter by FFTW / cuFFT (float64 throughout) where scikit-image uses pocketfft (in
/// float32 for a float32 sinogram), so values agree to 1e-12 of the reconstruction's scale (float64;
/// measured ~1e-15; cubic: our not-a-knot spline by second derivatives where scipy solves for
/// B-spline coefficients), 1e-5 for float32 (measured ~5e-7). The same bounds hold GPU vs CPU.
::testing::AssertionResult close_to(const Array& want, const Array& got) {
  if (want.dtype() != got.dtype()) return ::testing::AssertionFailure() << "dtype " << got.str();
  const std::vector<double> w = want.astype(DType::float64).to_vector<double>();
  double scale = 0;
  for (double v : w) scale = std::max(scale, std::abs(v));
  return cusktest::arrays_close(want, got, 0, scale * (want.dtype() == DType::float32 ? 1e-5 : 1e-12));
}

void iradon_goldens(const Device& dev, const Stream& s) {
  using tf::IradonFilter;
  const std::vector<double> theta = gvec("rtheta_24");
  const Array sino = golden("isino").to(dev, s);
  const std::vector<std::pair<std::string, IradonFilter>> filters = {
      {"ramp", IradonFilter::ramp},       {"shepp-logan", IradonFilter::shepp_logan}, {"cosine", IradonFilter::cosine},
      {"hamming", IradonFilter::hamming}, {"hann", IradonFilter::hann},               {"None", IradonFilter::none}};
  for (const auto& [name, f] : filters)
    EXPECT_TRUE(close_to(golden("iradon_" + name), tf::iradon(sino, {.theta = theta, .filter_name = f}, s))) << name;
  EXPECT_TRUE(close_to(golden("iradon_default"), tf::iradon(sino, {}, s)));
  EXPECT_TRUE(close_to(golden("iradon_cubic"),
                       tf::iradon(sino, {.theta = theta, .interpolation = tf::IradonInterpolation::cubic}, s)));
  EXPECT_TRUE(close_to(golden("iradon_nearest"),
                       tf::iradon(sino, {.theta = theta, .interpolation = tf::IradonInterpolation::nearest}, s)));
  EXPECT_TRUE(close_to(golden("iradon_sq"), tf::iradon(golden("isino_sq").to(dev, s), {.theta = theta, .circle = false}, s)));
  EXPECT_TRUE(close_to(golden("iradon_size"), tf::iradon(sino, {.theta = theta, .output_size = 20}, s)));
  EXPECT_TRUE(close_to(golden("iradon_f32"), tf::iradon(sino.astype(DType::float32, s), {.theta = theta}, s)));
  EXPECT_TRUE(close_to(golden("iradon_u8"), tf::iradon(golden("isino_u8").to(dev, s), {.theta = theta, .preserve_range = false}, s)));
}

}  // namespace

TEST(TransformRadon, IradonGoldens) { iradon_goldens(Device::cpu(), Stream()); }

TEST(TransformRadon, IradonBadArguments) {
  const Array sino = golden("isino");
  EXPECT_THROW(tf::iradon(Array::zeros({3}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon(sino, {.theta = {1.0}}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon(Array::zeros({3, 2}, DType::float64), {.interpolation = tf::IradonInterpolation::cubic,
                                                                 .circle = false}),
               cuskimage::InvalidArgument);
}

TEST(TransformRadon, Goldens) { radon_goldens(Device::cpu(), Stream()); }

TEST(TransformRadon, SartGoldens) { sart_goldens(Device::cpu(), Stream()); }

TEST(TransformRadon, GoldenRatioOrder) {
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(tf::order_angles_golden_ratio(gvec("golden_theta_" + std::to_string(k))),
              golden("golden_" + std::to_string(k)).to_vector<std::int64_t>())
        << k;
  EXPECT_EQ(tf::order_angles_golden_ratio(gvec("golden_theta_f32"), true), golden("golden_f32").to_vector<std::int64_t>());
}

/// The CUDA backend's per-pixel gather (sart_pixel_update) against the CPU's ray-by-ray scatter, both
/// evaluated on the host: equal bit for bit on every pixel, for both float types, any angle and
/// shifted projections (the gather finds every contribution and adds them in the scatter's order).
template <class F>
void gather_equals_scatter(std::int64_t n, double deg, F shift) {
  namespace d = cuskimage::transform::detail;
  const Array r = cusktest::random_array({n, n}, DType::float64, static_cast<std::uint64_t>(n + deg * 10), 0, 1);
  const std::vector<double> rv = r.to_vector<double>();
  std::vector<F> img(rv.begin(), rv.end()), sino(static_cast<std::size_t>(n)), upd(img.size(), F(0)), dev(sino.size());
  for (std::int64_t p = 0; p < n; ++p) sino[p] = static_cast<F>(0.3 * static_cast<double>(p % 7));
  const F t = static_cast<F>(deg / 180. * 3.141592653589793);
  const double c = std::cos(static_cast<double>(t)), s = std::sin(static_cast<double>(t));
  for (std::int64_t p = 0; p < n; ++p) {
    const d::SartRay<F> g = d::sart_ray<F>(n, static_cast<F>(static_cast<F>(p) + shift), c, s);
    dev[p] = d::sart_deviation(img.data(), n, g, sino[p]);
    for (std::int64_t k = 0; g.ns > 0 && k <= g.ns; ++k) {
      std::int64_t i, j;
      F di, dj;
      d::sart_sample(g, k, i, j, di, dj);
      for (int q = 0; q < 4; ++q) {
        if (!d::sart_corner_in(q, i, j, n)) continue;
        F& u = upd[(i + (q >> 1)) * n + j + (q & 1)];
        u = static_cast<F>(static_cast<double>(u) +
                           d::sart_update_value(q, dev[p], di, dj, g.ds, d::sart_hamming<F>(k, g.ns)));
      }
    }
  }
  std::int64_t bad = 0;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = 0; b < n; ++b) bad += d::sart_pixel_update<F>(n, a, b, c, s, shift, dev.data()) != upd[a * n + b];
  EXPECT_EQ(bad, 0) << n << " " << deg << " " << shift;
}

TEST(TransformRadon, SartGatherEqualsScatter) {
  for (double deg : {0.0, 10.0, 45.0, 90.0, 133.3, 179.99, 270.0})
    for (std::int64_t n : {17, 32}) {
      gather_equals_scatter<double>(n, deg, 0.0);
      gather_equals_scatter<float>(n, deg, 0.0f);
      gather_equals_scatter<double>(n, deg, -1.25);
      gather_equals_scatter<float>(n, deg, 2.5f);
    }
}

TEST(TransformRadon, SartBadArguments) {
  const Array sino = golden("sino_f64");
  EXPECT_THROW(tf::iradon_sart(Array::zeros({4}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.theta = {1.0, 2.0}}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.projection_shifts = {1.0}}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.image = Array::zeros({3, 3}, DType::float64)}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.dtype = DType::int32}), cuskimage::InvalidArgument);
}

TEST(GpuTransformRadon, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  radon_goldens(Device::cuda(0), Stream());
}

TEST(GpuTransformRadon, MatchesCpuStridedAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({301, 260}, DType::float32, 12, 0, 1);
  const Array hv = h.slice({cuskimage::Slice{1, 301, 2}, cuskimage::Slice{0, 260}});
  const Array d = h.to(Device::cuda(0));
  const Array dv = d.slice({cuskimage::Slice{1, 301, 2}, cuskimage::Slice{0, 260}});
  EXPECT_ARRAY_EQ(tf::radon(h), tf::radon(d));
  EXPECT_ARRAY_EQ(tf::radon(hv, {.circle = false}), tf::radon(dv, {.circle = false}));
  const Array h64 = h.astype(DType::float64);
  // Only the device call runs under the legacy-stream guard (its 3 s bound); compared after.
  const Array d64 = h64.to(Device::cuda(0));
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { got = tf::radon(d64, {}, s); }));
  EXPECT_ARRAY_EQ(tf::radon(h64), got);
}

TEST(GpuTransformRadon, IradonOnDeviceEqualsCpu) {
  CUSK_REQUIRE_GPU();
  iradon_goldens(Device::cuda(0), Stream());
  const Array sino = golden("isino");
  for (auto interp : {tf::IradonInterpolation::linear, tf::IradonInterpolation::nearest, tf::IradonInterpolation::cubic})
    for (bool circle : {true, false}) {
      for (auto filter : {tf::IradonFilter::ramp, tf::IradonFilter::hamming}) {
        const tf::IradonOptions o{.filter_name = filter, .interpolation = interp, .circle = circle};
        EXPECT_TRUE(close_to(tf::iradon(sino, o), tf::iradon(sino.to(Device::cuda(0)), o)));
      }
    }
  // A longer sinogram (p = 1024) with a strided view of it on the device.
  const Array big = cusktest::random_array({300, 80}, DType::float64, 5);
  const Array view = big.slice({cuskimage::Slice{}, cuskimage::Slice{0, 80, 2}});
  EXPECT_TRUE(close_to(tf::iradon(view, {.filter_name = tf::IradonFilter::shepp_logan}),
                       tf::iradon(view.to(Device::cuda(0)), {.filter_name = tf::IradonFilter::shepp_logan})));
  const Array d32 = sino.to(Device::cuda(0)).astype(DType::float32);
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { got = tf::iradon(d32, {}, s); }));
  EXPECT_TRUE(close_to(tf::iradon(sino.astype(DType::float32)), got));
}

// The device's Hamming cosines may differ from the host's libm by an ulp: GPU SART agrees with the
// CPU backend to 1e-10 of the reconstruction's scale (float64), 1e-5 (float32), not bit for bit.
TEST(GpuTransformRadon, SartOnDevice) {
  CUSK_REQUIRE_GPU();
  sart_goldens(Device::cuda(0), Stream());
  const Array sino = golden("sino_f64");
  const tf::IradonSartOptions o{.projection_shifts = gvec("sart_shifts"), .clip = std::array<double, 2>{0, 1}};
  const Array want = tf::iradon_sart(sino, o);
  double scale = 0;
  for (double v : want.to_vector<double>()) scale = std::max(scale, std::abs(v));
  const Array d = sino.to(Device::cuda(0));
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { got = tf::iradon_sart(d, o, s); }));
  EXPECT_ARRAY_NEAR(want, got, 0, 1e-10 * scale);
}
