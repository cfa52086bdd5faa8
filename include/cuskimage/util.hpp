// skimage.util: dtype conversion (img_as_*), invert, crop, montage, random_noise, block and window
// views, map_array and compare_images. Every function runs on CPU arrays (OpenMP) and on CUDA arrays
// (CUDA kernels, asynchronous on `stream`); the input's device picks the backend.
//
// dtype semantics are scikit-image 0.26's (skimage/util/dtype.py), reproduced exactly: the float
// computation type, round-half-to-even, clipping, the [-1, 1] range of signed types, bool
// thresholds, and the data-dependent "downcast without scaling" rule for integer downscaling.
// Functions that must inspect the data to decide (float -> integer range check, integer
// downscaling, random_noise's clipping floor, ...) synchronize `stream`; their doc says so.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"

namespace cuskimage::util {

// ---- dtype conversion -------------------------------------------------------------------------

/// Options of every img_as_* function.
struct ImgAsOptions {
  /// Copy even when the input already has the target dtype (otherwise that input is returned
  /// shared, as scikit-image returns the same ndarray).
  bool force_copy = false;
};
CUSK_OPTIONS(ImgAsOptions,
             (force_copy, "copy even when the image already has the target dtype"))

/// skimage.util.dtype_limits: the intensity range of a dtype, (imin, imax). Integer limits beyond
/// 2^53 are rounded to the nearest double (int64, uint64).
struct DtypeLimits {
  double imin;
  double imax;
};
DtypeLimits dtype_limits(DType dtype, bool clip_negative = false);
DtypeLimits dtype_limits(const Array& image, bool clip_negative = false);

/// Integer / bool input becomes float64 in [0, 1] (unsigned) or [-1, 1] (signed); float32 and
/// float64 input is returned as is (values not checked).
/// Synchronizes: no. Throws InvalidArgument for unsupported dtypes (none at present).
Array img_as_float(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});
/// As img_as_float with a float32 result (float64 input is rounded to float32).
Array img_as_float32(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});
/// As img_as_float with a float64 result.
Array img_as_float64(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});
/// uint8 result. Float input must lie in [-1, 1] (InvalidArgument otherwise; synchronizes to check);
/// negatives clip to 0. Integer input of more bits whose maximum fits in 8 bits is cast without
/// scaling (scikit-image's "downcasting without scaling"; synchronizes to find the maximum).
Array img_as_ubyte(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});
/// uint16 result; same rules as img_as_ubyte.
Array img_as_uint(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});
/// int16 result; unsigned input stays non-negative (scaled to [0, 32767]).
Array img_as_int(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});
/// bool result: the upper half of the dtype's positive range is true (float: > 0.5).
Array img_as_bool(const Array& image, const ImgAsOptions& opts = {}, const Stream& stream = {});

/// Options of the general conversion (scikit-image's deprecated `convert` / `_convert`).
struct ConvertOptions {
  bool force_copy = false;
  /// Quantize floats uniformly onto the integer range (floor/truncate) instead of rounding.
  bool uniform = false;
};
CUSK_OPTIONS(ConvertOptions,
             (force_copy, "copy even when the image already has the target dtype"),
             (uniform, "quantize floats uniformly onto the integer range"))
/// Converts to any dtype with img_as_* semantics. Conversions scikit-image cannot perform (a signed
/// integer to uint64 or int64 from a narrower signed type) raise InvalidArgument.
Array convert(const Array& image, DType dtype, const ConvertOptions& opts = {}, const Stream& stream = {});
/// Same into a preallocated array (its dtype is the target; same shape and device as `image`).
void convert_into(const Array& image, Array& out, const ConvertOptions& opts = {}, const Stream& stream = {});

// ---- invert, crop ------------------------------------------------------------------------------

struct InvertOptions {
  /// Float images: -x instead of 1 - x.
  bool signed_float = false;
};
CUSK_OPTIONS(InvertOptions,
             (signed_float, "floats are in [-1, 1]: invert as -x"))
/// bool: logical not; unsigned: max - x; signed integers: -1 - x; float: 1 - x (or -x).
Array invert(const Array& image, const InvertOptions& opts = {}, const Stream& stream = {});
void invert_into(const Array& image, Array& out, const InvertOptions& opts = {}, const Stream& stream = {});

/// Widths to crop, as scikit-image accepts them: one int for every side of every axis, one
/// (before, after) pair for every axis, or one pair per axis (a list of one pair applies to all).
struct CropWidth {
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  bool per_axis = false;
  CropWidth(std::int64_t w) : pairs{{w, w}} {}  // NOLINT(google-explicit-constructor)
  CropWidth(std::int64_t before, std::int64_t after) : pairs{{before, after}} {}
  CropWidth(std::vector<std::pair<std::int64_t, std::int64_t>> per_axis_pairs)  // NOLINT
      : pairs(std::move(per_axis_pairs)), per_axis(true) {}
};

struct CropOptions {
  /// Return a new array instead of a view of `ar`.
  bool copy = false;
  /// Memory order of the copy: 'K' (keep the input's), 'C', 'F' or 'A'.
  char order = 'K';
};
CUSK_OPTIONS(CropOptions,
             (copy, "return a copy instead of a view (the file is the same)"),
             (order, "memory order of the copy"))
/// ar[before:shape - after] along every axis. Widths must be non-negative; an axis cropped away
/// entirely has extent 0. A view unless `copy`.
Array crop(const Array& ar, const CropWidth& crop_width, const CropOptions& opts = {}, const Stream& stream = {});

// ---- montage -----------------------------------------------------------------------------------

struct MontageOptions {
  /// Value of the empty space: empty = scikit-image's 'mean' (per-channel mean of all images);
  /// one value for all channels; or one value per channel. Cast to the image dtype as astype.
  std::vector<double> fill = {};
  /// Rescale each image to its dtype's range first (exposure.rescale_intensity defaults).
  bool rescale_intensity = false;
  /// (rows, cols) of tiles; default: ceil(sqrt(n_images)) both.
  std::optional<std::array<std::int64_t, 2>> grid_shape = std::nullopt;
  /// Pixels between tiles and around the border.
  std::int64_t padding_width = 0;
  /// Axis of the channels in a 4-D input; none for a 3-D stack of grayscale images.
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(MontageOptions,
             (fill, "value of the padding and empty tiles: mean, a number, or one number per channel (0,0.5,1)"),
             (rescale_intensity, "rescale each image to [0, 1] first"),
             (grid_shape, "rows,cols of the grid (default: a square grid)"),
             (padding_width, "pixels between tiles and around the border"),
             (channel_axis, "axis of the channels in the stack (e.g. -1)"))
/// Tiles a stack (K, M, N) or (K, M, N, C) (channel_axis given) into one 2-D image (channels
/// last). `fill` = 'mean' and `rescale_intensity` synchronize the stream (they need reductions).
/// Float images: the mean is accumulated in float64 (scikit-image's float32 pairwise mean may
/// differ in the last bit).
Array montage(const Array& arr_in, const MontageOptions& opts = {}, const Stream& stream = {});

// ---- random_noise ------------------------------------------------------------------------------

enum class NoiseMode { gaussian, localvar, poisson, salt, pepper, s_and_p, speckle };
/// "gaussian", "localvar", "poisson", "salt", "pepper", "s&p", "speckle" (case-insensitive).
NoiseMode noise_mode_from_name(std::string_view name);
std::string_view noise_mode_name(NoiseMode mode);

struct RandomNoiseOptions {
  NoiseMode mode = NoiseMode::gaussian;
  /// Seed of the counter-based generator (Philox4x32-10); none: a fresh random seed. A seed gives
  /// bit-identical noise on CPU and GPU, but not NumPy's numbers.
  std::optional<std::uint64_t> rng = std::nullopt;
  /// Clip the result to [0, 1] ([-1, 1] when the input has negative values).
  bool clip = true;
  /// gaussian / speckle: mean and variance of the noise.
  double mean = 0.0;
  double var = 0.01;
  /// localvar: per-pixel variance, broadcastable to the image (an empty handle means 0.01 everywhere).
  Array local_vars = {};
  /// salt / pepper / s&p: fraction of pixels replaced.
  double amount = 0.05;
  /// s&p: fraction of the replaced pixels set to 1 (the rest to the floor, 0 or -1).
  double salt_vs_pepper = 0.5;
};
CUSK_OPTIONS(RandomNoiseOptions,
             (mode, "type of noise"),
             (rng, "seed (Philox; same noise on CPU and GPU, not NumPy's numbers)"),
             (clip, "clip to [0, 1] ([-1, 1] for signed input)"),
             (mean, "gaussian, speckle: mean of the noise"),
             (var, "gaussian, speckle: variance of the noise"),
             (local_vars, "localvar: per-pixel variance, broadcastable to the image; unset: 0.01 everywhere"),
             (amount, "salt, pepper, s&p: fraction of pixels replaced"),
             (salt_vs_pepper, "s&p: fraction of salt among the replaced pixels"))
/// Adds noise to img_as_float(image). The result is float64, or float32 for float32 input (cuCIM's
/// rule; scikit-image returns float64 for the additive modes). Synchronizes the stream (the input's
/// minimum picks the clipping floor; poisson counts distinct values).
Array random_noise(const Array& image, const RandomNoiseOptions& opts = {}, const Stream& stream = {});

// ---- views -------------------------------------------------------------------------------------

/// Non-overlapping blocks: shape (shape / block_shape..., block_shape...), a view (no copy).
/// Every extent must be a multiple of its block extent.
Array view_as_blocks(const Array& arr_in, const Shape& block_shape);

struct ViewAsWindowsOptions {
  /// Step between windows per axis; one value applies to every axis.
  Shape step = {1};
};
CUSK_OPTIONS(ViewAsWindowsOptions,
             (step, "step between windows per axis (one value: every axis)"))
/// Rolling windows: shape ((shape - window) / step + 1..., window...), a view (no copy).
/// `window_shape` of one value applies to every axis.
Array view_as_windows(const Array& arr_in, const Shape& window_shape, const ViewAsWindowsOptions& opts = {});

// ---- map_array, compare_images -----------------------------------------------------------------

/// out[i] = output_vals[j] where input_vals[j] == input_arr[i] (the last such j), else 0. input_arr
/// has an integer dtype; input_vals (cast to it as astype) and output_vals are 1-D of one length and
/// are moved to input_arr's device if needed. The result has output_vals' dtype.
Array map_array(const Array& input_arr, const Array& input_vals, const Array& output_vals,
                const Stream& stream = {});
/// Same into `out` (input_arr's shape and device, output_vals' dtype, any strides).
void map_array_into(const Array& input_arr, const Array& input_vals, const Array& output_vals, Array& out,
                    const Stream& stream = {});

enum class CompareMethod { diff, blend, checkerboard };
/// "diff", "blend", "checkerboard".
CompareMethod compare_method_from_name(std::string_view name);
std::string_view compare_method_name(CompareMethod method);

struct CompareImagesOptions {
  CompareMethod method = CompareMethod::diff;
  /// checkerboard: tiles along (rows, cols).
  std::array<std::int64_t, 2> n_tiles = {8, 8};
};
CUSK_OPTIONS(CompareImagesOptions,
             (method, "diff: |image1 - image0|; blend: their mean; checkerboard: alternating tiles"),
             (n_tiles, "checkerboard: tiles along rows,cols"))
/// diff: |img1 - img0|; blend: (img0 + img1) / 2; checkerboard: alternating tiles of image0 and
/// image1 (2-D only). Both images go through img_as_float first; the result is the wider float
/// type (checkerboard: image0's float type).
Array compare_images(const Array& image0, const Array& image1, const CompareImagesOptions& opts = {},
                     const Stream& stream = {});

// ---- scikit-image extras (not in cuCIM) ---------------------------------------------------------

/// skimage.util.slice_along_axes: image[a:b] along the given axes (all leading axes when empty).
/// Negative bounds count from the end. A view unless `copy`.
Array slice_along_axes(const Array& image, const std::vector<std::pair<std::int64_t, std::int64_t>>& slices,
                       const std::vector<int>& axes = {}, bool copy = false, const Stream& stream = {});

/// skimage.util.regular_grid: one Slice per axis spreading about `n_points` points evenly.
std::vector<Slice> regular_grid(const Shape& ar_shape, std::int64_t n_points);
/// skimage.util.regular_seeds: an image of `dtype` (default int64) with 1..n at the regular_grid
/// points (C order) and 0 elsewhere, on `device`.
Array regular_seeds(const Shape& ar_shape, std::int64_t n_points, DType dtype = DType::int64,
                    Device device = Device::cpu(), const Stream& stream = {});

/// skimage.util.label_points: uint64 image of `output_shape` with point i (rounded, row i of the
/// (N, ndim) `coords`) labelled i + 1; later points overwrite earlier ones. Same device as coords.
Array label_points(const Array& coords, const Shape& output_shape, const Stream& stream = {});

/// skimage.util.unique_rows: the distinct rows of a 2-D array, in lexicographic order of their
/// bytes (as NumPy's byte-string view sorts them). Synchronizes.
Array unique_rows(const Array& ar, const Stream& stream = {});

struct ApplyParallelOptions {
  /// Chunk extent per axis (one value: every axis); empty: scikit-image's default split into about
  /// one chunk per CPU thread.
  Shape chunks = {};
  /// Halo added on both sides of each chunk per axis (one value: every spatial axis), as `depth`.
  Shape depth = {0};
  /// Boundary of the halo at the array's edges, by scikit-image / dask names: "reflect" (=
  /// "symmetric": mirrored, edge repeated), "periodic" (= "wrap"), "nearest" (= "edge"), "none" (the
  /// halo is cut at the edges: chunks there are smaller), or "constant" (filled with `cval`).
  std::string mode = "reflect";
  double cval = 0.0;
  /// Output dtype; none: the dtype `function` returns for the first chunk.
  std::optional<DType> dtype = std::nullopt;
  /// Axis of the channels: never chunked nor given a halo.
  std::optional<int> channel_axis = std::nullopt;
  /// Worker threads for CPU arrays (0: hardware concurrency). Chunks of GPU arrays run one after
  /// another on `stream`.
  int num_workers = 0;
};
CUSK_OPTIONS(ApplyParallelOptions,
             (chunks, "chunk extent per axis (one value: every axis)"),
             (depth, "halo on both sides of each chunk per axis"),
             (mode, "boundary of the halo at the array's edges"),
             (cval, "value of the halo for mode 'constant'"),
             (dtype, "output dtype (none: the function's)"),
             (channel_axis, "axis of the channels (never chunked)"),
             (num_workers, "worker threads for CPU arrays (0: all)"))
/// skimage.util.apply_parallel: runs `function` on each chunk (with its halo, copied contiguous) and
/// stitches the central parts into the result. `function` must return an array of its input's shape.
Array apply_parallel(const std::function<Array(const Array& chunk, const Stream& stream)>& function,
                     const Array& array, const ApplyParallelOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::util
