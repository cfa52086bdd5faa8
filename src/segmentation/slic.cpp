// segmentation.slic: scikit-image's preprocessing (img_as_float, rescaling to [0, 1] over the
// unmasked values, Lab, Gaussian smoothing, the compactness ratio) with the library's own ops on
// the image's device, the seed grid (or the mask's k-means seeds), then the k-means on the backend
// (src/segmentation/slic_cpu.cpp, kernels/segmentation/slic.cu) and the connectivity pass
// (scikit-image's sequential breadth-first search in raster order on the CPU; on the device
// kernels/segmentation/slic_connectivity.cu, equal to it).
#include "cuskimage/segmentation/slic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/slic.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "segmentation.slic";

template <class T>
void cpu_rescale(Array& image, const Array& mask, std::int64_t channels) {
  T* v = image.data<T>();
  const std::uint8_t* m = !mask.valid() ? nullptr : static_cast<const std::uint8_t*>(mask.data());
  const std::int64_t n = image.size();
  T lo = std::numeric_limits<T>::infinity(), hi = -lo;
  bool any = false, nan = false;
  for (std::int64_t i = 0; i < n; ++i) {
    if (m && !m[i / channels]) continue;
    any = true;
    nan |= std::isnan(v[i]);
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  expect(any, kFn, "mask", "selects no pixel");  // numpy: zero-size array to reduction operation minimum
  expect(!nan, kFn, "image", "has unmasked NaN values, which are not supported");
  expect(std::isfinite(lo) && std::isfinite(hi), kFn, "image", "has unmasked infinite values, which are not supported");
  const T span = hi - lo;
  for (std::int64_t i = 0; i < n; ++i) {
    v[i] -= lo;
    if (hi != lo) v[i] /= span;
  }
}

template <class T>
void rescale(Array& image, const Array& mask, std::int64_t channels, const Stream& stream) {
  cuskimage::detail::on_backend(
      image, stream, [&] { cpu_rescale<T>(image, mask, channels); },
      [&](auto) {
        double lo = 0, hi = 0;
        detail::cuda_slic_minmax(image, mask, channels, lo, hi, stream);
        expect(!std::isnan(lo) && !std::isnan(hi), kFn, "image", "has unmasked NaN values, which are not supported");
        expect(std::isfinite(lo) && std::isfinite(hi), kFn, "image",
               "has unmasked infinite values, which are not supported");
        detail::cuda_slic_shift_divide(image, lo, static_cast<double>(static_cast<T>(hi) - static_cast<T>(lo)), stream);
      });
}

/// Per spatial axis (z, y, x) values of spacing or sigma as scikit-image expands them.
std::vector<double> per_axis(const std::vector<double>& v, bool is_2d, double fill2d, const char* arg) {
  if (is_2d && v.size() == 2) return {fill2d, v[0], v[1]};
  expect(v.size() == 3, kFn, arg, "needs ", is_2d ? "2" : "3", " elements for a ", is_2d ? "2" : "3", "-D image, got ",
         v.size());
  return v;
}

struct Layout {
  Array image;  // (Z, Y, X, C), working float, contiguous, a private copy
  Array mask;   // (Z, Y, X) bool contiguous, or empty
  bool is_2d = false, multichannel = false;
  std::int64_t D = 1, H = 1, W = 1, C = 1;
};

Layout arrange(const Array& image, const SlicOptions& o, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.size() > 0, kFn, "image", "must not be empty");
  Layout L;
  int nd = image.ndim();
  Array img = image.share();
  L.multichannel = o.channel_axis.has_value();
  if (L.multichannel) {
    expect(nd != 2, kFn, "channel_axis", "=", *o.channel_axis,
           " indicates multichannel, which is not supported for a two-dimensional image; use channel_axis=None "
           "if the image is grayscale");
    const int ax = *o.channel_axis < 0 ? *o.channel_axis + nd : *o.channel_axis;
    expect(ax >= 0 && ax < nd, kFn, "channel_axis", "is out of range for a ", nd, "-D image, got ", *o.channel_axis);
    std::vector<int> perm;
    for (int a = 0; a < nd; ++a)
      if (a != ax) perm.push_back(a);
    perm.push_back(ax);
    img = img.transpose(perm);
    expect(nd == 3 || nd == 4, kFn, "image", "must be 2-D or 3-D with channels, got ", nd, " dimensions");
  } else {
    expect(nd == 2 || nd == 3, kFn, "image", "must be 2-D or 3-D without channels, got ", nd, " dimensions");
  }
  img = util::img_as_float(img, {}, stream);
  if (img.dtype() != DType::float32 && img.dtype() != DType::float64) img = img.astype(DType::float32, stream);
  img = img.copy(stream).contiguous(stream);
  const Shape& s = img.shape();
  L.is_2d = nd == 2 || (nd == 3 && L.multichannel);
  if (nd == 2) {
    L.H = s[0], L.W = s[1];
  } else if (nd == 3 && L.multichannel) {
    L.H = s[0], L.W = s[1], L.C = s[2];
  } else {
    L.D = s[0], L.H = s[1], L.W = s[2], L.C = nd == 4 ? s[3] : 1;
  }
  L.image = img.reshape({L.D, L.H, L.W, L.C});
  if (o.mask.valid()) {
    cuskimage::detail::expect_valid(o.mask, kFn, "mask");
    Shape spatial = L.is_2d ? Shape{L.H, L.W} : Shape{L.D, L.H, L.W};
    expect(o.mask.shape() == spatial, kFn, "mask", "must have the image's spatial shape ", shape_str(spatial), ", got ",
           shape_str(o.mask.shape()));
    cuskimage::detail::expect_same_device(image, o.mask, kFn, "image", "mask");
    L.mask = o.mask.astype(DType::bool_, stream).contiguous(stream).reshape({L.D, L.H, L.W});
  }
  return L;
}

template <class T>
Array run(Layout& L, const SlicOptions& o, const Stream& stream) {
  const bool on_cpu = L.image.device().is_cpu();
  rescale<T>(L.image, L.mask, L.C, stream);
  if (L.multichannel && o.convert2lab.value_or(true)) {
    expect(L.C == 3 || !o.convert2lab.has_value(), kFn, "convert2lab",
           "needs an RGB image (3 channels) for the Lab conversion, got ", L.C, " channels");
    if (L.C == 3) L.image = color::rgb2lab(L.image, {}, stream).astype(dtype_of<T>::value, stream).contiguous(stream);
  }
  // Seeds: the regular grid, or k-means seeds inside the mask.
  std::vector<double> cz;
  std::vector<double> steps;
  Array host_mask;
  if (L.mask.valid()) {
    host_mask = L.mask.to(Device::cpu(), stream);
    steps = detail::slic_mask_centroids(static_cast<const std::uint8_t*>(host_mask.data()), L.D, L.H, L.W, o.n_segments,
                                        L.multichannel, cz);
  } else {
    const auto grid = util::regular_grid({L.D, L.H, L.W}, o.n_segments);
    for (const Slice& g : grid) steps.push_back(static_cast<double>(g.step));
    const std::int64_t n[3] = {L.D, L.H, L.W};
    std::int64_t s0[3];
    for (int a = 0; a < 3; ++a) s0[a] = grid[a].start.value_or(0);
    for (std::int64_t z = s0[0]; z < n[0]; z += grid[0].step)
      for (std::int64_t y = s0[1]; y < n[1]; y += grid[1].step)
        for (std::int64_t x = s0[2]; x < n[2]; x += grid[2].step)
          cz.insert(cz.end(), {double(z), double(y), double(x)});
  }
  const std::int64_t ncent = static_cast<std::int64_t>(cz.size()) / 3;
  expect(ncent > 0, kFn, "n_segments", "gives no seed");
  std::vector<double> spacing =
      o.spacing.empty() ? std::vector<double>{1, 1, 1} : per_axis(o.spacing, L.is_2d, 1.0, "spacing");
  for (double& v : spacing) v = static_cast<T>(v);
  std::vector<double> sigma;
  if (o.sigma.size() == 1)
    for (double sp : spacing) sigma.push_back(static_cast<T>(static_cast<T>(o.sigma[0]) / static_cast<T>(sp)));
  else
    sigma = per_axis(o.sigma, L.is_2d, 0.0, "sigma");
  for (double& v : sigma) v = static_cast<T>(v);
  if (std::any_of(sigma.begin(), sigma.end(), [](double v) { return v > 0; }))
    L.image =
        filters::gaussian(
            L.image, {.sigma = std::vector<double>{sigma[0], sigma[1], sigma[2], 0.0}, .mode = ndimage::Mode::reflect},
            stream)
            .astype(dtype_of<T>::value, stream)
            .contiguous(stream);
  // Centres [z, y, x, colour...] in T; colours start at 0 as in scikit-image.
  const std::int64_t nf = 3 + L.C;
  std::vector<T> centres(static_cast<std::size_t>(ncent * nf), T(0));
  for (std::int64_t k = 0; k < ncent; ++k)
    for (int a = 0; a < 3; ++a) centres[k * nf + a] = static_cast<T>(cz[k * 3 + a]);
  detail::SlicProblem p;
  p.depth = L.D, p.height = L.H, p.width = L.W, p.channels = L.C;
  const auto grid = util::regular_grid({L.D, L.H, L.W}, ncent);  // the .pyx's windows use the seed count
  p.step_z = grid[0].step, p.step_y = grid[1].step, p.step_x = grid[2].step;
  for (int a = 0; a < 3; ++a) p.spacing[a] = spacing[a];
  const float step = static_cast<float>(*std::max_element(steps.begin(), steps.end()));
  p.spatial_weight = static_cast<T>(1.0 / static_cast<float>(step * step));
  p.max_num_iter = o.max_num_iter;
  p.slic_zero = o.slic_zero;
  p.start_label = o.start_label;
  const T ratio = static_cast<T>(1.0 / o.compactness);
  Array labels = Array::empty({L.D, L.H, L.W}, DType::int64, L.image.device(), stream);
  auto kmeans = [&](bool ignore_color) {
    p.ignore_color = ignore_color;
    if (on_cpu)
      detail::cpu_slic_kmeans<T>(L.image.data<T>(),
                                 !L.mask.valid() ? nullptr : static_cast<const std::uint8_t*>(L.mask.data()), centres,
                                 p, labels.data<std::int64_t>());
    else
      cuskimage::detail::on_backend(
          L.image, stream, [] {},
          [&](auto) { detail::cuda_slic_kmeans<T>(L.image, L.mask, centres, p, labels, stream); });
  };
  if (on_cpu) {
    T* v = L.image.data<T>();
    for (std::int64_t i = 0; i < L.image.size(); ++i) v[i] = v[i] * ratio;
  } else {
    cuskimage::detail::on_backend(
        L.image, stream, [] {}, [&](auto) { detail::cuda_slic_scale(L.image, ratio, stream); });
  }
  if (L.mask.valid()) kmeans(true);  // scikit-image's step 2: positions only
  kmeans(false);
  if (o.enforce_connectivity) {
    double count = static_cast<double>(L.D * L.H * L.W);
    if (L.mask.valid()) {
      count = 0;
      const auto* m = static_cast<const std::uint8_t*>(host_mask.data());
      for (std::int64_t i = 0; i < host_mask.size(); ++i) count += m[i] != 0;
    }
    const double segment_size = count / static_cast<double>(ncent);
    const auto min_size = static_cast<std::int64_t>(o.min_size_factor * segment_size);
    const auto max_size = static_cast<std::int64_t>(o.max_size_factor * segment_size);
    if (on_cpu)
      detail::enforce_label_connectivity(labels.data<std::int64_t>(), L.D, L.H, L.W, min_size, max_size,
                                         o.start_label);
    else
      cuskimage::detail::on_backend(
          labels, stream, [] {},
          [&](auto) {
            detail::cuda_enforce_label_connectivity(labels, L.D, L.H, L.W, min_size, max_size, o.start_label, stream);
          });
  }
  if (L.is_2d) return labels.reshape({L.H, L.W});
  return labels;
}

}  // namespace

Array slic(const Array& image, const SlicOptions& opts, const Stream& stream) {
  expect(opts.n_segments >= 1, kFn, "n_segments", "must be at least 1, got ", opts.n_segments);
  expect(opts.compactness > 0, kFn, "compactness", "must be positive, got ", opts.compactness);
  expect(opts.max_num_iter >= 0, kFn, "max_num_iter", "must be non-negative, got ", opts.max_num_iter);
  expect(opts.start_label == 0 || opts.start_label == 1, kFn, "start_label", "should be 0 or 1, got ",
         opts.start_label);
  expect(opts.sigma.size() == 1 || opts.sigma.size() == 2 || opts.sigma.size() == 3, kFn, "sigma",
         "needs one value or one per spatial axis, got ", opts.sigma.size());
  for (double s : opts.sigma) expect(s >= 0, kFn, "sigma", "must be non-negative, got ", s);
  Layout L = arrange(image, opts, stream);
  if (L.image.dtype() == DType::float32) return run<float>(L, opts, stream);
  return run<double>(L, opts, stream);
}

}  // namespace cuskimage::segmentation
