// segmentation.slic internals shared by the CPU backend (src/segmentation/slic_cpu.cpp) and the
// CUDA backend (kernels/segmentation/slic.cu): the k-means problem after scikit-image's
// preprocessing, and the per-pixel distance of _slic.pyx written once for both.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::segmentation::detail {

/// One k-means run of _slic_cython. The image is contiguous (Z, Y, X, C) of T (the working float);
/// centres are n x (3 + C) of T as [z, y, x, colour...], updated in place.
struct SlicProblem {
  std::int64_t depth = 1, height = 1, width = 1, channels = 1;
  std::int64_t step_z = 1, step_y = 1, step_x = 1;  // regular_grid's steps for the centre count
  double spacing[3] = {1, 1, 1};
  double spatial_weight = 1;  // 1 / step^2 with step rounded to float32, as the .pyx takes it
  std::int64_t max_num_iter = 10;
  bool slic_zero = false;
  bool ignore_color = false;
  std::int64_t start_label = 1;
};

/// The search window of one centre along an axis, [lo, hi), as the .pyx truncates it.
/// false for a centre of an empty segment (NaN coordinates): it assigns nothing.
template <class T>
CUSK_HD bool slic_window(T c, std::int64_t step, std::int64_t n, std::int64_t& lo, std::int64_t& hi) {
  if (!(c == c)) return false;
  T a = cuskimage::detail::sub_rn(c, static_cast<T>(2 * step));
  T b = cuskimage::detail::add_rn(cuskimage::detail::add_rn(c, static_cast<T>(2 * step)), T(1));
  lo = static_cast<std::int64_t>(a < T(0) ? T(0) : a);
  hi = static_cast<std::int64_t>(static_cast<T>(n) < b ? static_cast<T>(n) : b);
  return true;
}

/// Squared, spacing-weighted offset along one axis: (s * (c - i))^2.
template <class T>
CUSK_HD T slic_axis_term(T c, std::int64_t i, T s) {
  const T d = cuskimage::detail::mul_rn(s, cuskimage::detail::sub_rn(c, static_cast<T>(i)));
  return cuskimage::detail::mul_rn(d, d);
}

/// The distance of _slic_cython from the pixel (terms dz, dy, dx, colour `px`) to centre `seg`.
template <class T>
CUSK_HD T slic_distance(T dz, T dy, T dx, T weight, const T* px, const T* seg, std::int64_t channels, bool ignore_color,
                        bool slic_zero, T max_dist_color) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  T d = mul_rn(add_rn(add_rn(dz, dy), dx), weight);
  if (ignore_color) return d;
  T col = 0;
  for (std::int64_t c = 0; c < channels; ++c) {
    const T t = cuskimage::detail::sub_rn(px[c], seg[3 + c]);
    col = add_rn(col, mul_rn(t, t));
  }
  if (slic_zero) col = cuskimage::detail::div_rn(col, max_dist_color);
  return add_rn(d, col);
}

/// _slic_cython on the host: labels (int64, Z*Y*X) receive start_label + k; masked-out pixels
/// and pixels no window reached keep start_label - 1. mask: Z*Y*X bytes or nullptr.
template <class T>
void cpu_slic_kmeans(const T* image, const std::uint8_t* mask, std::vector<T>& centres, const SlicProblem& p,
                     std::int64_t* labels);

/// The same on the device: image, mask (or empty) and labels are device arrays; centres move to
/// the device and back.
template <class T>
void cuda_slic_kmeans(const Array& image, const Array& mask, std::vector<T>& centres, const SlicProblem& p,
                      Array& labels, const Stream& stream);

/// _enforce_label_connectivity_cython on host labels (Z*Y*X), in place.
void enforce_label_connectivity(std::int64_t* labels, std::int64_t depth, std::int64_t height, std::int64_t width,
                                std::int64_t min_size, std::int64_t max_size, std::int64_t start_label);

/// The same on device labels (int64, contiguous Z*Y*X), equal to it
/// (kernels/segmentation/slic_connectivity.cu).
void cuda_enforce_label_connectivity(Array& labels, std::int64_t depth, std::int64_t height, std::int64_t width,
                                     std::int64_t min_size, std::int64_t max_size, std::int64_t start_label,
                                     const Stream& stream);

}  // namespace cuskimage::segmentation::detail

namespace cuskimage::segmentation::detail {

/// _get_mask_centroids: seeds drawn by numpy's legacy RandomState(123) inside the (Z, Y, X) byte
/// mask, refined by scipy's kmeans2 (5 iterations); appends n x 3 coordinates, returns the steps.
std::vector<double> slic_mask_centroids(const std::uint8_t* mask, std::int64_t depth, std::int64_t height,
                                        std::int64_t width, std::int64_t n_centroids, bool multichannel,
                                        std::vector<double>& centroids);

/// image[i] = image[i] * T(ratio) on the device (float32 or float64, contiguous).
void cuda_slic_scale(Array& image, double ratio, const Stream& stream);
/// slic_rescale's device part: min and max where unmasked (the host reads them back).
void cuda_slic_minmax(const Array& image, const Array& mask, std::int64_t channels, double& lo, double& hi,
                      const Stream& stream);
/// image = (image - lo) / span in T (span 0: no division).
void cuda_slic_shift_divide(Array& image, double lo, double span, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
