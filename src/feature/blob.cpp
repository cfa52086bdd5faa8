// feature.blob_log / blob_dog: argument handling and the scale-space pipeline on the image's device
// (ndimage::gaussian_filter derivatives, one layer pass per scale into the (..., K) cube, then
// peak_local_max of the cube); the sigma lookup and the pruning run on the host (src/feature/
// blob_prune.cpp). See include/cuskimage/feature/blob.hpp for the semantics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/blob.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;

/// A per-axis sigma: one value repeated, or one per axis, in the cube's dtype T.
template <class T>
std::vector<T> per_axis(const filters::Sigma& s, int nd, std::string_view fn, std::string_view arg) {
  expect(s.v.size() == 1 || static_cast<int>(s.v.size()) == nd, fn, arg, "must have one value or one per axis (", nd,
         "), got ", s.v.size());
  std::vector<T> out(nd);
  for (int a = 0; a < nd; ++a) {
    out[a] = static_cast<T>(s.v.size() == 1 ? s.v[0] : s.v[a]);
    expect(out[a] > 0 && std::isfinite(static_cast<double>(out[a])), fn, arg, "must be positive, got ",
           static_cast<double>(out[a]));
  }
  return out;
}

/// np.linspace(start, stop, num) per axis in T: i * step + start, the last value stop.
template <class T>
std::vector<std::vector<T>> linspace(const std::vector<T>& start, const std::vector<T>& stop, std::int64_t num) {
  std::vector<std::vector<T>> out(num, std::vector<T>(start.size()));
  for (std::size_t a = 0; a < start.size(); ++a) {
    const T delta = stop[a] - start[a];
    const T step = num > 1 ? delta / static_cast<T>(num - 1) : T(0);
    for (std::int64_t i = 0; i < num; ++i) {
      if (num > 1 && step == 0)
        out[i][a] = static_cast<T>(i) / static_cast<T>(num - 1) * delta + start[a];
      else
        out[i][a] = static_cast<T>(i) * step + start[a];
    }
    if (num > 1) out[num - 1][a] = stop[a];
  }
  return out;
}

/// _format_exclude_border: widths of the image axes (the scale axis gets 0).
std::vector<std::int64_t> blob_border(const ExcludeBorder& eb, int nd, std::string_view fn) {
  expect(eb.widths.has_value(), fn, "exclude_border", "cannot be True");
  const auto& w = *eb.widths;
  expect(w.size() == 1 || static_cast<int>(w.size()) == nd, fn, "exclude_border",
         "should have the same length as the dimensionality of the image (", nd, "), got ", w.size(), " values");
  std::vector<std::int64_t> out(nd + 1, 0);
  for (int a = 0; a < nd; ++a) out[a] = w.size() == 1 ? w[0] : w[a];
  return out;
}

/// Fills cube[..., k] from the terms (each the image's shape, the cube's dtype).
void write_layer(const std::vector<Array>& terms, bool dog, double scale, Array& cube, std::int64_t k,
                 const Stream& stream) {
  cuskimage::detail::on_backend(
      cube, stream,
      [&] {
        const std::int64_t K = cube.shape(cube.ndim() - 1), n = cube.size() / K;
        auto run = [&]<class T>() {
          std::vector<Array> c;
          const T* p[detail::kBlobMaxTerms] = {};
          for (std::size_t a = 0; a < terms.size(); ++a) {
            c.push_back(terms[a].contiguous());
            p[a] = c.back().template data<T>();
          }
          T* o = cube.data<T>();
          for (std::int64_t i = 0; i < n; ++i)
            o[i * K + k] = detail::blob_layer_value<T>([&](int a) { return p[a][i]; }, static_cast<int>(terms.size()),
                                                       dog, static_cast<T>(scale));
        };
        if (cube.dtype() == DType::float32)
          run.template operator()<float>();
        else
          run.template operator()<double>();
      },
      [&](const Stream& s) { detail::cuda_blob_layer(terms, dog, scale, cube, k, s); });
}

/// peak_local_max of the cube, the sigma of each peak's scale, then the pruning (host).
template <class T>
Array finish(const Array& cube, const std::vector<std::vector<T>>& sigmas, bool scalar_sigma,
             std::optional<double> threshold, std::optional<double> threshold_rel,
             const std::vector<std::int64_t>& border, double overlap, Device dev, const Stream& stream) {
  const int nd = cube.ndim() - 1;
  PeakLocalMaxOptions po{.threshold_abs = threshold, .threshold_rel = threshold_rel, .exclude_border = border};
  const Array peaks = peak_local_max(cube, po, stream);
  const std::int64_t n = peaks.shape(0);
  const int sdim = scalar_sigma ? 1 : nd, cols = nd + sdim;
  if (n == 0) return Array::zeros({0, cols}, DType::float64, dev, stream);
  const std::vector<std::int64_t> c = peaks.to(Device::cpu(), stream).template to_vector<std::int64_t>();
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>(n * cols));
  for (std::int64_t i = 0; i < n; ++i) {
    for (int a = 0; a < nd; ++a) rows.push_back(static_cast<double>(static_cast<T>(c[i * (nd + 1) + a])));
    const auto& s = sigmas[c[i * (nd + 1) + nd]];
    for (int a = 0; a < sdim; ++a) rows.push_back(static_cast<double>(s[a]));
  }
  const std::vector<double> kept = detail::prune_blobs(std::move(rows), cols, sdim, overlap);
  Array out = Array::from_vector(kept, {static_cast<std::int64_t>(kept.size()) / cols, cols});
  if (std::is_same_v<T, float>) out = out.astype(DType::float32);
  if (dev.is_cpu()) return out;
  return out.to(dev, stream);
}

/// img_as_float, checked: the float image blob_log / blob_dog work on.
Array float_image(const Array& image, std::string_view fn, const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1 && image.ndim() <= detail::kBlobMaxTerms, fn, "image", "must have 1 to ",
         detail::kBlobMaxTerms, " dimensions, got ", image.ndim());
  expect(image.size() > 0, fn, "image", "must not be empty");
  return util::img_as_float(image, {}, stream);
}

template <class T>
Array log_impl(const Array& img, const BlobLogOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "feature.blob_log";
  const int nd = img.ndim();
  const auto lo = per_axis<T>(o.min_sigma, nd, fn, "min_sigma");
  const auto hi = per_axis<T>(o.max_sigma, nd, fn, "max_sigma");
  expect(o.num_sigma >= 1, fn, "num_sigma", "must be positive, got ", o.num_sigma);
  const auto border = blob_border(o.exclude_border, nd, fn);
  std::vector<std::vector<T>> sig;
  if (o.log_scale) {
    std::vector<T> a(nd), b(nd);
    for (int k = 0; k < nd; ++k) a[k] = std::log10(lo[k]), b[k] = std::log10(hi[k]);
    sig = linspace(a, b, o.num_sigma);
    for (auto& s : sig)
      for (auto& v : s) v = std::pow(T(10), v);
  } else {
    sig = linspace(lo, hi, o.num_sigma);
  }
  Shape cs = img.shape();
  cs.push_back(static_cast<std::int64_t>(sig.size()));
  Array cube = Array::empty(cs, img.dtype(), img.device(), stream);
  for (std::size_t k = 0; k < sig.size(); ++k) {
    std::vector<double> s(sig[k].begin(), sig[k].end());
    std::vector<Array> terms;
    for (int a = 0; a < nd; ++a) {
      std::vector<int> order(nd, 0);
      order[a] = 2;
      terms.push_back(ndimage::gaussian_filter(img, s, {.order = order}, stream));
    }
    T mean = 0;  // np.mean(s): a sum in T, then / n
    for (T v : sig[k]) mean += v;
    mean = mean / static_cast<T>(nd);
    write_layer(terms, false, static_cast<double>(mean * mean), cube, static_cast<std::int64_t>(k), stream);
  }
  const bool scalar = o.min_sigma.v.size() == 1 && o.max_sigma.v.size() == 1;
  return finish<T>(cube, sig, scalar, o.threshold, o.threshold_rel, border, o.overlap, img.device(), stream);
}

template <class T>
Array dog_impl(const Array& img, const BlobDogOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "feature.blob_dog";
  const int nd = img.ndim();
  const auto lo = per_axis<T>(o.min_sigma, nd, fn, "min_sigma");
  const auto hi = per_axis<T>(o.max_sigma, nd, fn, "max_sigma");
  expect(o.sigma_ratio > 1.0, fn, "sigma_ratio", "must be > 1.0, got ", o.sigma_ratio);
  const auto border = blob_border(o.exclude_border, nd, fn);
  // k = int(np.mean(np.log(max / min) / np.log(ratio) + 1)): the log in T, the rest in float64.
  double acc = 0;
  for (int a = 0; a < nd; ++a) acc += static_cast<double>(std::log(hi[a] / lo[a])) / std::log(o.sigma_ratio) + 1;
  const auto k = static_cast<std::int64_t>(acc / nd);
  expect(k >= 1, fn, "max_sigma", "must give at least one difference of scales (max_sigma >= min_sigma * sigma_ratio)");
  std::vector<std::vector<T>> sig(k + 1, std::vector<T>(nd));
  for (std::int64_t i = 0; i <= k; ++i)
    for (int a = 0; a < nd; ++a) sig[i][a] = lo[a] * static_cast<T>(std::pow(o.sigma_ratio, static_cast<double>(i)));
  Shape cs = img.shape();
  cs.push_back(k);
  Array cube = Array::empty(cs, img.dtype(), img.device(), stream);
  auto smooth = [&](const std::vector<T>& s) {
    return ndimage::gaussian_filter(img, std::vector<double>(s.begin(), s.end()), {}, stream);
  };
  Array prev = smooth(sig[0]);
  const double sf = 1 / (o.sigma_ratio - 1);
  for (std::int64_t i = 0; i < k; ++i) {
    Array cur = smooth(sig[i + 1]);
    std::vector<Array> terms;
    terms.push_back(prev.share());
    terms.push_back(cur.share());
    write_layer(terms, true, sf, cube, i, stream);
    prev = std::move(cur);
  }
  std::vector<std::vector<T>> used(sig.begin(), sig.begin() + k);
  const bool scalar = o.min_sigma.v.size() == 1 && o.max_sigma.v.size() == 1;
  return finish<T>(cube, used, scalar, o.threshold, o.threshold_rel, border, o.overlap, img.device(), stream);
}

}  // namespace

Array blob_log(const Array& image, const BlobLogOptions& opts, const Stream& stream) {
  const Array img = float_image(image, "feature.blob_log", stream);
  if (img.dtype() == DType::float32) return log_impl<float>(img, opts, stream);
  return log_impl<double>(img, opts, stream);
}

Array doh_impl(const Array& img, const BlobDohOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "feature.blob_doh";
  expect(o.min_sigma > 0 && o.max_sigma > 0, fn, "min_sigma", "and max_sigma must be positive, got ", o.min_sigma,
         " and ", o.max_sigma);
  expect(o.num_sigma >= 1, fn, "num_sigma", "must be positive, got ", o.num_sigma);
  std::vector<std::vector<double>> sig;
  if (o.log_scale) {
    // math.log(x, 10): log(x) / log(10); then np.logspace.
    sig = linspace<double>({std::log(o.min_sigma) / std::log(10.0)}, {std::log(o.max_sigma) / std::log(10.0)},
                           o.num_sigma);
    for (auto& s : sig) s[0] = std::pow(10.0, s[0]);
  } else {
    sig = linspace<double>({o.min_sigma}, {o.max_sigma}, o.num_sigma);
  }
  Shape cs = img.shape();
  cs.push_back(static_cast<std::int64_t>(sig.size()));
  Array cube = Array::empty(cs, img.dtype(), img.device(), stream);
  for (std::size_t k = 0; k < sig.size(); ++k) {
    // The float64 determinant stored into the cube's dtype.
    Array layer = cube.index(2, static_cast<std::int64_t>(k));
    layer.copy_from(hessian_matrix_det(img, {.sigma = sig[k][0]}, stream).astype(img.dtype(), stream), stream);
  }
  return finish<double>(cube, sig, true, o.threshold, o.threshold_rel, {0, 0, 0}, o.overlap, img.device(), stream);
}

Array blob_dog(const Array& image, const BlobDogOptions& opts, const Stream& stream) {
  const Array img = float_image(image, "feature.blob_dog", stream);
  if (img.dtype() == DType::float32) return dog_impl<float>(img, opts, stream);
  return dog_impl<double>(img, opts, stream);
}

Array blob_doh(const Array& image, const BlobDohOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "feature.blob_doh";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect_ndim(image, fn, "image", 2, 2);
  return doh_impl(float_image(image, fn, stream), opts, stream);
}

}  // namespace cuskimage::feature
