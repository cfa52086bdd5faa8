// Reinhard colour normalisation in CIE-LAB (color::rgb2lab / lab2rgb from the color module): LAB
// statistics by the fixed-order reduction shared with the CUDA backend, the per-channel affine map
// and the uint8 conversion.
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/pathology.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/pathology/common.hpp"

namespace cuskimage::pathology {

using namespace detail;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::Types;

namespace {

int check_reinhard(const Array& rgb, int channel_axis, std::string_view fn) {
  cuskimage::detail::expect_valid(rgb, fn, "image");
  expect(rgb.ndim() >= 1, fn, "image", "must have a channel axis, got a 0-d array");
  const int ax = cuskimage::detail::normalize_axis(channel_axis, rgb.ndim(), fn, "channel_axis");
  expect(rgb.shape()[ax] == 3, fn, "image", "must be an RGB image (3 channels on axis ", channel_axis, "), got ",
         rgb.shape()[ax], " channels");
  expect(rgb.size() > 0, fn, "image", "must not be empty");
  return ax;
}

/// The 6 LAB sums of a LAB image on the CPU (same order and bits as cuda_lab_moments).
std::vector<double> cpu_lab_moments(const Array& lab, int ax) {
  const PixelGeom g = pixel_geom(lab, ax);
  std::vector<double> part;
  dispatch<Types<float, double>>(lab.dtype(), "pathology.lab_stats", [&]<class F>() {
    const F* p = static_cast<const F*>(lab.data());
    part = reduce_level(g.n, 6, [&](std::int64_t i, double* m) {
      const std::int64_t o = g.px(i);
      lab_moments(p[o], p[o + g.cs], p[o + 2 * g.cs], m);
    });
  });
  return fold_to_one_cpu(std::move(part), 6);
}

void cpu_reinhard_apply(Array& lab, int ax, const std::vector<double>& m, const LabStats& t) {
  const PixelGeom g = pixel_geom(lab, ax);
  double mean[3], sd[3];
  lab_mean_std(m.data(), g.n, mean, sd);
  dispatch<Types<float, double>>(lab.dtype(), "pathology.normalize_reinhard", [&]<class F>() {
    F* p = static_cast<F*>(lab.data());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < g.n; ++i) {
      const std::int64_t o = g.px(i);
      for (int c = 0; c < 3; ++c)
        p[o + c * g.cs] = static_cast<F>(reinhard_px(p[o + c * g.cs], mean[c], sd[c], t.mean[c], t.std[c]));
    }
  });
}

}  // namespace

LabStats lab_stats(const Array& rgb, int channel_axis, const Stream& stream) {
  constexpr std::string_view fn = "pathology.lab_stats";
  const int ax = check_reinhard(rgb, channel_axis, fn);
  const Array lab = color::rgb2lab(rgb, {.channel_axis = ax}, stream);
  std::vector<double> m(6);
  std::int64_t n = 0;
  if (lab.device().is_cuda()) {
    Array dm = Array::empty({6}, DType::float64, lab.device(), stream);
    cuda_lab_moments(lab, ax, dm, stream);
    const Array h = dm.to(Device::cpu(), stream);
    for (int k = 0; k < 6; ++k) m[k] = h.data<double>()[k];
  } else {
    m = cpu_lab_moments(lab, ax);
  }
  n = pixel_geom(lab, ax).n;
  LabStats s;
  double mean[3], sd[3];
  lab_mean_std(m.data(), n, mean, sd);
  for (int c = 0; c < 3; ++c) {
    s.mean[c] = mean[c];
    s.std[c] = sd[c];
  }
  return s;
}

Array normalize_reinhard(const Array& rgb, const ReinhardOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.normalize_reinhard";
  const int ax = check_reinhard(rgb, opts.channel_axis, fn);
  for (int c = 0; c < 3; ++c)
    expect(opts.target.std[c] >= 0, fn, "target", "standard deviations must be non-negative, got ", opts.target.std[c]);
  Array lab = color::rgb2lab(rgb, {.channel_axis = ax}, stream);
  if (lab.device().is_cuda()) {
    Array dm = Array::empty({6}, DType::float64, lab.device(), stream);
    cuda_lab_moments(lab, ax, dm, stream);
    cuda_reinhard_apply(lab, ax, dm, opts.target, stream);
  } else {
    cpu_reinhard_apply(lab, ax, cpu_lab_moments(lab, ax), opts.target);
  }
  Array out = color::lab2rgb(lab, {.channel_axis = ax}, stream);
  if (rgb.dtype() != DType::uint8) return out;
  Array u8 = Array::empty(out.shape(), DType::uint8, out.device(), stream);
  if (out.device().is_cuda()) {
    cuda_unit_to_u8(out, u8, stream);
  } else {
    dispatch<Types<float, double>>(out.dtype(), fn, [&]<class F>() {
      cuskimage::detail::cpu_map<F, std::uint8_t>(out, u8, [](F v) { return unit_to_u8<F>(v); });
    });
  }
  return u8;
}

}  // namespace cuskimage::pathology
