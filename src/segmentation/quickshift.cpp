// segmentation.quickshift: scikit-image's preprocessing (img_as_float, Lab, Gaussian, the ratio)
// with the library's ops on the image's device, the tie-breaking noise of numpy's
// default_rng(rng).normal(scale=1e-5) on the host, then densities, parents, the max_dist cut and
// the labels on the backend (CPU here, kernels/segmentation/quickshift.cu).
#include "cuskimage/segmentation/quickshift.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/core/numpy_random.hpp"
#include "src/segmentation/quickshift.hpp"
#include "src/segmentation/slic.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "segmentation.quickshift";

template <class T>
void cpu_quickshift(const Array& image, const std::vector<T>& noise, const detail::QsProblem& p, T max_dist,
                    Array& labels, Array& parent, Array& dist_parent) {
  const T* img = image.data<T>();
  const std::int64_t n = p.height * p.width;
  std::vector<T> dens(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < p.height; ++r)
    for (std::int64_t c = 0; c < p.width; ++c)
      dens[r * p.width + c] = detail::qs_density(img, p, r, c, noise[r * p.width + c]);
  std::int64_t* par = parent.data<std::int64_t>();
  T* dp = dist_parent.data<T>();
  for (std::int64_t r = 0; r < p.height; ++r)
    for (std::int64_t c = 0; c < p.width; ++c)
      detail::qs_parent(img, dens.data(), p, r, c, par[r * p.width + c], dp[r * p.width + c]);
  // Cut long links, follow every chain to its root, number the roots in index order (np.unique).
  std::vector<std::int64_t> cut(par, par + n);
  for (std::int64_t i = 0; i < n; ++i)
    if (dp[i] > max_dist) cut[i] = i;
  std::vector<std::int64_t> rank(static_cast<std::size_t>(n), -1);
  std::int64_t next = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (cut[i] == i) rank[i] = next++;
  std::int64_t* lab = labels.data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t j = i;
    while (cut[j] != j) j = cut[j];
    lab[i] = rank[j];
  }
}

template <class T>
QuickshiftTree run(const Array& img, const QuickshiftOptions& o, const Stream& stream) {
  detail::QsProblem p{img.shape(0), img.shape(1), img.shape(2), 0, 0};
  const T ks = static_cast<T>(o.kernel_size);
  p.kernel_width = static_cast<int>(std::ceil(static_cast<double>(static_cast<T>(3 * ks))));
  p.inv_kernel_size_sqr = static_cast<T>(-0.5 / static_cast<double>(static_cast<T>(ks * ks)));
  const std::int64_t n = p.height * p.width;
  std::vector<T> noise(static_cast<std::size_t>(n));
  const std::uint64_t seed = o.rng ? *o.rng : std::random_device{}();
  cuskimage::detail::NumpyNormal normal(seed);
  for (auto& v : noise) v = static_cast<T>(T(0) + static_cast<T>(0.0 + 1e-5 * normal.next()));
  QuickshiftTree t;
  const Device dev = img.device();
  t.labels = Array::empty({p.height, p.width}, DType::int64, dev, stream);
  t.parent = Array::empty({p.height, p.width}, DType::int64, dev, stream);
  t.dist_parent = Array::empty({p.height, p.width}, dtype_of<T>::value, dev, stream);
  const T md = static_cast<T>(o.max_dist);
  cuskimage::detail::on_backend(
      img, stream, [&] { cpu_quickshift<T>(img, noise, p, md, t.labels, t.parent, t.dist_parent); },
      [&](auto) { detail::cuda_quickshift<T>(img, noise, p, md, t.labels, t.parent, t.dist_parent, stream); });
  return t;
}

}  // namespace

QuickshiftTree quickshift_tree(const Array& image, const QuickshiftOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.size() > 0, kFn, "image", "must not be empty");
  const int nd = image.ndim() < 3 ? 3 : image.ndim();
  expect(nd == 3, kFn, "image", "must be a 2-D image (with channels), got ", image.ndim(), " dimensions");
  expect(opts.kernel_size >= 1, kFn, "kernel_size", "should be >= 1, got ", opts.kernel_size);
  expect(opts.sigma >= 0, kFn, "sigma", "must be non-negative, got ", opts.sigma);
  // np.atleast_3d: (N,) -> (1, N, 1), (M, N) -> (M, N, 1).
  Array img = image.ndim() == 1   ? image.expand_dims(0).expand_dims(2)
              : image.ndim() == 2 ? image.expand_dims(2)
                                  : image.share();
  const int ca = opts.channel_axis.value_or(-1);
  const int ax = ca < 0 ? ca + 3 : ca;
  expect(ax >= 0 && ax < 3, kFn, "channel_axis", "is out of range for a 3-D image, got ", ca);
  std::vector<int> perm;
  for (int a = 0; a < 3; ++a)
    if (a != ax) perm.push_back(a);
  perm.push_back(ax);
  img = util::img_as_float(img.transpose(perm), {}, stream);
  if (img.dtype() != DType::float32 && img.dtype() != DType::float64) img = img.astype(DType::float32, stream);
  if (opts.convert2lab) {
    expect(img.shape(2) == 3, kFn, "image", "must be RGB (3 channels) to be converted to Lab, got ", img.shape(2),
           " channels");
    img = color::rgb2lab(img, {}, stream).astype(img.dtype(), stream);
  }
  const DType dt = img.dtype();
  img = filters::gaussian(
            img, {.sigma = std::vector<double>{opts.sigma, opts.sigma, 0.0}, .mode = ndimage::Mode::reflect}, stream)
            .astype(dt, stream);
  // image * ratio in the working float (numpy casts the Python float to float32 for a float32 image).
  img = img.copy(stream);
  cuskimage::detail::on_backend(
      img, stream,
      [&] {
        if (dt == DType::float32)
          for (float* v = img.data<float>(); v != img.data<float>() + img.size(); ++v)
            *v *= static_cast<float>(opts.ratio);
        else
          for (double* v = img.data<double>(); v != img.data<double>() + img.size(); ++v) *v *= opts.ratio;
      },
      [&](auto) { detail::cuda_slic_scale(img, opts.ratio, stream); });
  if (dt == DType::float32) return run<float>(img, opts, stream);
  return run<double>(img, opts, stream);
}

Array quickshift(const Array& image, const QuickshiftOptions& opts, const Stream& stream) {
  return quickshift_tree(image, opts, stream).labels;
}

}  // namespace cuskimage::segmentation
