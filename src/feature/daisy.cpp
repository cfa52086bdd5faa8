// feature.daisy: argument handling, the CPU backend, and the drawing (host). The smoothing is
// ndimage::gaussian_filter on either backend; the CUDA kernels are kernels/feature/daisy.cu.
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/util.hpp"
#include "kernels/core/buffers.cuh"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/daisy.hpp"

namespace cuskimage::feature {

namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.daisy";

template <class T>
void cpu_daisy(const Array& img, const detail::DaisyGeom& g, const std::vector<double>& sig,
               const std::vector<std::int32_t>& offs, Array& descs) {
  const std::int64_t O = g.orientations;
  Array hist = Array::empty({O, g.rows, g.cols}, dtype_v<T>);
  for (std::int64_t r = 0; r < g.rows; ++r)
    for (std::int64_t c = 0; c < g.cols; ++c) detail::daisy_pixel(img.data<T>(), g, r, c, hist.data<T>());
  Array smooth = Array::empty({g.rings + 1, O, g.rows, g.cols}, dtype_v<T>);
  for (int i = 0; i <= g.rings; ++i) {
    Array dst = smooth.index(0, i);
    ndimage::gaussian_filter_into(hist, {sig[i]}, dst, {.axes = {1, 2}});
  }
  for (std::int64_t p = 0; p < g.P; ++p)
    for (std::int64_t q = 0; q < g.Q; ++q)
      detail::daisy_descriptor(smooth.data<T>(), g, offs.data(), p, q, descs.data<T>() + (p * g.Q + q) * g.D);
}

}  // namespace

DaisyResult daisy(const Array& image, const DaisyOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  expect(opts.sigmas.empty() || opts.ring_radii.empty() || opts.sigmas.size() - 1 == opts.ring_radii.size(), kFn,
         "sigmas", "len(sigmas) - 1 must equal len(ring_radii)");
  expect(opts.step >= 1, kFn, "step", "must be positive, got ", opts.step);
  expect(opts.histograms >= 1 && opts.orientations >= 1, kFn, "histograms", "and orientations must be positive");
  const int n = static_cast<int>(opts.normalization);
  expect(n >= 0 && n <= 3, kFn, "normalization", "must be l1, l2, daisy or off");
  std::int64_t rings = opts.rings;
  double radius = static_cast<double>(opts.radius);
  if (!opts.ring_radii.empty()) rings = static_cast<std::int64_t>(opts.ring_radii.size()), radius = opts.ring_radii.back();
  if (!opts.sigmas.empty()) {
    expect(opts.sigmas.size() >= 2, kFn, "sigmas", "needs the centre's and at least one ring's");
    rings = static_cast<std::int64_t>(opts.sigmas.size()) - 1;
  }
  expect(rings >= 1, kFn, "rings", "must be positive, got ", rings);
  expect(radius == std::floor(radius) && radius >= 1, kFn, "radius", "must be a positive integer, got ", radius);
  std::vector<double> sigmas = opts.sigmas, radii = opts.ring_radii;
  if (sigmas.empty())
    for (std::int64_t i = 0; i < rings; ++i) sigmas.push_back(radius * (i + 1) / static_cast<double>(2 * rings));
  if (radii.empty())
    for (std::int64_t i = 0; i < rings; ++i) radii.push_back(radius * (i + 1) / static_cast<double>(rings));
  expect(static_cast<std::int64_t>(radii.size()) == rings, kFn, "ring_radii", "must have one radius per ring");
  sigmas.insert(sigmas.begin(), sigmas[0]);  // scikit-image's [sigmas[0]] + sigmas
  for (std::int64_t i = 0; i <= rings; ++i) expect(sigmas[i] >= 0, kFn, "sigmas", "must be non-negative");
  detail::DaisyGeom g;
  g.rows = image.shape(0), g.cols = image.shape(1);
  g.radius = static_cast<std::int64_t>(radius), g.step = opts.step;
  expect(g.rows > 2 * g.radius && g.cols > 2 * g.radius, kFn, "image", "must be larger than 2 * radius (",
         2 * g.radius, ") on both axes, got ", image.str());
  g.P = (g.rows - 2 * g.radius + g.step - 1) / g.step, g.Q = (g.cols - 2 * g.radius + g.step - 1) / g.step;
  g.orientations = static_cast<int>(opts.orientations), g.rings = static_cast<int>(rings);
  g.histograms = static_cast<int>(opts.histograms);
  g.D = (rings * opts.histograms + 1) * opts.orientations;
  g.norm = opts.normalization;
  std::vector<std::int32_t> offs;
  for (std::int64_t i = 0; i < rings; ++i)
    for (std::int64_t j = 0; j < opts.histograms; ++j) {
      const double th = 2 * 3.141592653589793 * j / static_cast<double>(opts.histograms);
      // Python's round: half to even (the default rounding mode)
      const auto dy = static_cast<std::int32_t>(std::nearbyint(radii[i] * std::sin(th)));
      const auto dx = static_cast<std::int32_t>(std::nearbyint(radii[i] * std::cos(th)));
      expect(std::abs(dy) <= g.radius && std::abs(dx) <= g.radius, kFn, "ring_radii",
             "must not exceed the outermost radius");
      offs.push_back(dy), offs.push_back(dx);
    }
  const Array img = util::img_as_float(image, {}, stream).contiguous(stream);
  DaisyResult res;
  res.descs = Array::empty({g.P, g.Q, g.D}, img.dtype(), image.device(), stream);
  auto run = [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_daisy<T>(img, g, sigmas, offs, res.descs); },
        [&](auto) {
          Array hist = Array::empty({g.orientations, g.rows, g.cols}, dtype_v<T>, image.device(), stream);
          detail::cuda_daisy_hist<T>(img, g, hist, stream);
          Array smooth = Array::empty({g.rings + 1, g.orientations, g.rows, g.cols}, dtype_v<T>, image.device(), stream);
          for (int i = 0; i <= g.rings; ++i) {
            Array dst = smooth.index(0, i);
            ndimage::gaussian_filter_into(hist, {sigmas[i]}, dst, {.axes = {1, 2}}, stream);
          }
          const Array od = cuskimage::detail::buf::upload(offs, image.device(), stream);
          detail::cuda_daisy_descs<T>(smooth, g, od, res.descs, stream);
        });
  };
  if (img.dtype() == DType::float32)
    run.template operator()<float>();
  else
    run.template operator()<double>();
  if (opts.visualize) res.descs_img = detail::daisy_draw(img, res.descs, g, sigmas, radii, stream).to(image.device(), stream);
  return res;
}

}  // namespace cuskimage::feature
