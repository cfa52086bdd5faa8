// skimage.morphology.medial_axis: the EDT (ndimage::distance_transform_edt), each pixel's
// cornerness, and one ordered pass of the 3x3 removal table, in scikit-image's order (distance, then
// cornerness, then numpy's default_rng(rng).permutation as the tie-break; the generator is
// reproduced in numpy_permutation.hpp so that integer seeds give scikit-image's exact skeleton).
//
// CPU: the order is sorted and the pass runs pixel by pixel. CUDA (kernels/morphology/medial_axis.cu):
// everything runs on the device except the acceptance scan of numpy's bounded draws (the Fisher-Yates
// targets), which is sequential through the number of accepted draws and runs here on the host
// (parallel PCG64 blocks, one sequential pass); the targets are uploaded piece by piece while the
// scan goes on, and the swaps, the order and the removal run on the device.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/medial_axis_ops.hpp"
#include "src/morphology/numpy_permutation.hpp"

namespace cuskimage::morphology {

namespace {

constexpr std::string_view kFn = "morphology.medial_axis";
constexpr std::int64_t kTargetPiece = std::int64_t(1) << 18;  // targets drawn and uploaded at a time (1 MiB)

/// The 3x3 configuration of (i, j) in `img` (outside the image: background).
int config_at(const std::uint8_t* img, std::int64_t rows, std::int64_t cols, std::int64_t i, std::int64_t j) {
  int c = 0;
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj) {
      const std::int64_t y = i + di, x = j + dj;
      if (y < 0 || y >= rows || x < 0 || x >= cols) continue;
      if (img[y * cols + x]) c |= 1 << ((di + 1) * 3 + (dj + 1));
    }
  return c;
}

MedialAxisResult medial_axis_cpu(const Array& image, const MedialAxisOptions& opts, const Stream& stream) {
  const bool has_mask = opts.mask.valid();
  const std::int64_t rows = image.shape(0), cols = image.shape(1), n = rows * cols;
  const std::vector<std::uint8_t> img = image.astype(DType::bool_).to_vector<std::uint8_t>();
  std::vector<std::uint8_t> msk(static_cast<std::size_t>(n), 1);
  if (has_mask) msk = opts.mask.astype(DType::bool_).to_vector<std::uint8_t>();
  std::vector<std::uint8_t> result(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) result[k] = img[k] && msk[k];

  MedialAxisResult r;
  const Array masked = Array::from_vector(result, image.shape()).astype(DType::bool_);
  Array dist = ndimage::distance_transform_edt(masked, {}, stream).distances;
  const double* dp = dist.data<double>();

  // Foreground pixels in C order, their cornerness (background pixels in the 3x3 window), and the order.
  std::vector<std::int64_t> fg;
  for (std::int64_t k = 0; k < n; ++k)
    if (result[k]) fg.push_back(k);
  const std::int64_t m = static_cast<std::int64_t>(fg.size());
  std::vector<int> corner(static_cast<std::size_t>(m));
  for (std::int64_t t = 0; t < m; ++t)
    corner[t] = 9 - __builtin_popcount(static_cast<unsigned>(config_at(result.data(), rows, cols, fg[t] / cols,
                                                                       fg[t] % cols)));
  const std::vector<std::int64_t> tiebreak = detail::NumpyPermutation(opts.rng).permutation(m);
  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const double da = dp[fg[a]], db = dp[fg[b]];
    if (da != db) return da < db;
    if (corner[a] != corner[b]) return corner[a] < corner[b];
    return tiebreak[a] < tiebreak[b];
  });

  static const detail::MedialTable table = detail::medial_keep_table();
  for (const std::int64_t t : order) {
    const std::int64_t k = fg[t];
    result[k] = table.keep(static_cast<unsigned>(config_at(result.data(), rows, cols, k / cols, k % cols) | 16));
  }
  if (has_mask)
    for (std::int64_t k = 0; k < n; ++k)
      if (!msk[k]) result[k] = img[k];
  r.skeleton = Array::from_vector(result, image.shape()).astype(DType::bool_);
  if (opts.return_distance) r.distance = std::move(dist);
  return r;
}

MedialAxisResult medial_axis_cuda(const Array& image, const MedialAxisOptions& opts, const Stream& stream) {
  cuskimage::detail::DeviceGuard guard(image.device().index());
  const Array image_b = image.astype(DType::bool_, stream);
  const Array mask_b = opts.mask.valid() ? opts.mask.astype(DType::bool_, stream) : Array();
  MedialAxisResult r;
  if (image.size() == 0) {
    r.skeleton = image_b.share();
    if (opts.return_distance) r.distance = Array::empty(image.shape(), DType::float64, image.device(), stream);
    return r;
  }
  const detail::MedialForeground f = detail::cuda_medial_foreground(image_b, mask_b, stream);
  if (f.count - 1 > 0xffffffffll)
    cuskimage::detail::fail<NotSupported>(kFn, "argument 'image' has ", f.count,
                                          " foreground pixels; the CUDA backend handles up to 2^32");
  // The EDT is queued first so that the device works while the host draws numpy's targets. The
  // targets go up a piece at a time as they are drawn (stream-ordered through pinned staging, each
  // copy returns once its piece is staged), so the upload hides under the scan and the host touches
  // only a reused 1 MiB piece and a 2 MiB batch of generator outputs, not 4 B + 6 B per foreground pixel of
  // fresh memory (kernels/morphology/medial_axis.cu has the time split).
  Array dist = ndimage::distance_transform_edt(f.masked, {}, stream).distances;
  const Array d_targets = detail::cuda_medial_targets(opts.rng, f.count, image.device(), stream);
  r.skeleton = detail::cuda_medial_axis(image_b, mask_b, f, dist, d_targets, stream);
  if (opts.return_distance) r.distance = std::move(dist);
  return r;
}

}  // namespace

namespace detail {

Array cuda_medial_targets(std::uint64_t rng, std::int64_t count, Device device, const Stream& stream) {
  Array d_targets = Array::empty({std::max<std::int64_t>(count - 1, 1)}, DType::uint32, device, stream);
  NumpyPermutation(rng).shuffle_target_pieces(
      count, kTargetPiece, [&](const std::uint32_t* t, std::int64_t first, std::int64_t n) {
        const Array piece = Array::wrap(const_cast<std::uint32_t*>(t), {n}, DType::uint32, Device::cpu());
        Array dst = d_targets.slice({Slice{.start = first, .stop = first + n}});
        dst.copy_from(piece, stream);  // returns once the piece is in pinned staging
      });
  return d_targets;
}

}  // namespace detail

MedialAxisResult medial_axis(const Array& image, const MedialAxisOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  if (opts.mask.valid()) {
    cuskimage::detail::expect_same_shape(image, opts.mask, kFn, "image", "mask");
    cuskimage::detail::expect_same_device(image, opts.mask, kFn, "image", "mask");
  }
  if (image.device().is_cuda()) return medial_axis_cuda(image, opts, stream);
  return medial_axis_cpu(image, opts, stream);
}

}  // namespace cuskimage::morphology
