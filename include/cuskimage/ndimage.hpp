// cuskimage::ndimage — the scipy.ndimage building blocks that filters and morphology rest on:
// boundary modes, 1-D and N-d correlation/convolution, uniform and rank (minimum/maximum) filters.
//
// Semantics are scipy.ndimage's (1.17), including its dtype rules: the output has the input's dtype;
// correlations and means accumulate in double and are cast to an integer output by truncation toward
// zero with wrap-around (as C's cast does in scipy: 255.9 -> 255, 256 -> 0 for uint8, -1.5 -> 255).
// Multi-axis uniform/min/max filters run one 1-D pass per axis, each pass storing its result in the
// output dtype, exactly as scipy does.
//
//   auto out = ndimage::correlate(img, kernel, {.mode = ndimage::Mode::constant, .cval = 0});
//   auto mx  = ndimage::maximum_filter(img, {.size = {15}});
//
// Supported dtypes: uint8, uint16, int32, float32, float64 (plus bool for minimum/maximum filters).
// The CPU backend handles any ndim; the CUDA backend handles 1-D, 2-D and 3-D arrays (N-d correlate and
// footprint filters) and any ndim for the 1-D passes. Weights and footprints may live on either
// device; device-resident ones are copied to the host first (which synchronizes `stream`).
// Both backends add and multiply in scipy's order without fused multiply-adds, so correlations and
// all integer results are identical to scipy's; the GPU's float uniform filters restart their running
// sums per chunk (and sum very wide windows directly), so they may differ in the last bits.
// Not supported (yet): scipy's `output=` dtype; per-axis `mode` sequences and `axes=` except in
// gaussian_filter. Rank filters on float data holding NaN are unspecified (scipy's own result
// depends on its algorithm).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::ndimage {

/// How a filter sees beyond the edge (input `a b c d`):
///   reflect  d c b a | a b c d | d c b a   (scipy 'reflect', alias 'grid-mirror')
///   mirror     d c b | a b c d | c b a     (scipy 'mirror')
///   nearest  a a a a | a b c d | d d d d
///   wrap     a b c d | a b c d | a b c d   (scipy 'grid-wrap' semantics, alias 'grid-wrap')
///   constant k k k k | a b c d | k k k k   (k = cval; alias 'grid-constant')
/// Halos wider than the axis extend reflect/mirror/wrap periodically, as scipy does.
enum class Mode { reflect, mirror, nearest, wrap, constant };

/// Parses scipy's mode names and aliases; InvalidArgument for anything else.
Mode mode_from_name(std::string_view name);
/// "reflect", "mirror", "nearest", "wrap", "constant".
std::string_view mode_name(Mode mode);

/// Options of the 1-D filters (scipy's keyword names and defaults).
struct Filter1dOptions {
  int axis = -1;
  Mode mode = Mode::reflect;
  double cval = 0.0;
  /// Shifts the window: output[i] sees input[i - size/2 - origin + j], j in [0, size).
  std::int64_t origin = 0;
};
CUSK_OPTIONS(Filter1dOptions,
             (axis, "axis along which to filter"),
             (mode, "how the input is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (origin, "shift of the window"))

/// Options of the N-d filters. `origin`: one value for every axis, or one per axis.
struct FilterOptions {
  Mode mode = Mode::reflect;
  double cval = 0.0;
  std::vector<std::int64_t> origin = {0};
};
CUSK_OPTIONS(FilterOptions,
             (mode, "how the input is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (origin, "window shift, one value or one per axis"))

/// scipy.ndimage.correlate1d: output[i] = sum_j weights[j] * input[i + j - size/2 - origin] along axis.
Array correlate1d(const Array& input, const Array& weights, const Filter1dOptions& opts = {},
                  const Stream& stream = {});
/// scipy.ndimage.convolve1d: correlate1d with the weights reversed (and origin mirrored).
Array convolve1d(const Array& input, const Array& weights, const Filter1dOptions& opts = {},
                 const Stream& stream = {});
/// N-d correlation with a weights array of the input's ndim (zero weights are skipped, as scipy).
Array correlate(const Array& input, const Array& weights, const FilterOptions& opts = {}, const Stream& stream = {});
/// N-d convolution (weights flipped on every axis).
Array convolve(const Array& input, const Array& weights, const FilterOptions& opts = {}, const Stream& stream = {});

/// The `_into` forms write into `output` (same shape, dtype and device as the input, any strides;
/// it must not overlap the input).
void correlate1d_into(const Array& input, const Array& weights, Array& output, const Filter1dOptions& opts = {},
                      const Stream& stream = {});
void correlate_into(const Array& input, const Array& weights, Array& output, const FilterOptions& opts = {},
                    const Stream& stream = {});

/// scipy.ndimage.uniform_filter1d: mean over `size` samples along opts.axis.
Array uniform_filter1d(const Array& input, std::int64_t size, const Filter1dOptions& opts = {},
                       const Stream& stream = {});
/// scipy.ndimage.minimum_filter1d / maximum_filter1d (van Herk/Gil-Werman: O(1) work per pixel).
Array minimum_filter1d(const Array& input, std::int64_t size, const Filter1dOptions& opts = {},
                       const Stream& stream = {});
Array maximum_filter1d(const Array& input, std::int64_t size, const Filter1dOptions& opts = {},
                       const Stream& stream = {});

struct UniformFilterOptions {
  /// One size for every axis or one per axis (axes of size 1 are left alone).
  std::vector<std::int64_t> size = {3};
  Mode mode = Mode::reflect;
  double cval = 0.0;
  std::vector<std::int64_t> origin = {0};
};
CUSK_OPTIONS(UniformFilterOptions,
             (size, "window size, one value or one per axis"),
             (mode, "how the input is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (origin, "window shift, one value or one per axis"))

/// scipy.ndimage.uniform_filter: separable mean filter.
Array uniform_filter(const Array& input, const UniformFilterOptions& opts = {}, const Stream& stream = {});

struct RankFilterOptions {
  /// Rectangle sizes (one, or one per axis). Exactly one of size and footprint must be given.
  std::vector<std::int64_t> size = {};
  /// Boolean (or numeric, non-zero = in) array of the input's ndim. An all-true footprint is run as
  /// the separable rectangle, as scipy does.
  Array footprint = {};
  Mode mode = Mode::reflect;
  double cval = 0.0;
  std::vector<std::int64_t> origin = {0};
};
CUSK_OPTIONS(RankFilterOptions,
             (size, "rectangle size, one value or one per axis"),
             (footprint, "boolean footprint (.npy path); overrides size"),
             (mode, "how the input is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (origin, "window shift, one value or one per axis"))

/// scipy.ndimage.minimum_filter / maximum_filter.
Array minimum_filter(const Array& input, const RankFilterOptions& opts = {}, const Stream& stream = {});
Array maximum_filter(const Array& input, const RankFilterOptions& opts = {}, const Stream& stream = {});

// ==== gaussian_filter / gaussian_filter1d (scipy.ndimage) ============================================
// Semantics are scipy.ndimage 1.17's: the kernel is exp(-x^2 / (2 sigma^2)) over x in [-radius, radius]
// (radius = int(truncate * sigma + 0.5) unless given), normalised by its NumPy (pairwise) sum, times
// the order-th derivative polynomial for order > 0; one correlate1d pass per axis in axis order, each
// stored in the input's dtype. Axes with sigma <= 1e-15 are skipped.
// CPU: double accumulation in scipy's order (bit-exact for integer outputs). CUDA: the last two
// passes (axes -2, -1) of float32/float64/uint8/uint16 images run one fused tile kernel (axis 0
// then axis 1 in shared memory, no intermediate array; 3-D runs the axis-0 pass first, then the
// fused kernel per plane). Integer images keep the CPU's double sums and truncation (bit-exact);
// float32 images accumulate in float32: |result - scipy| <= 1e-5 * sum|w0| * sum|w1| * max|input|
// (typically ~1e-7 relative); float64 images in double (~1e-14 relative). Float windows wider than
// 33 taps or differing per axis take a general fused kernel; int32 runs per-axis double passes.

/// Boundary mode for every axis, or one per filtered axis (scipy's `mode` sequence).
struct Modes {
  std::vector<Mode> v;
  Modes(Mode m) : v{m} {}  // NOLINT(google-explicit-constructor): `.mode = Mode::nearest`
  Modes(std::initializer_list<Mode> l) : v(l) {}
  Modes(std::vector<Mode> l) : v(std::move(l)) {}  // NOLINT
};

struct GaussianFilter1dOptions {
  int axis = -1;
  /// 0: smoothing; 1..3: convolution with that derivative of the Gaussian.
  int order = 0;
  Mode mode = Mode::reflect;
  double cval = 0.0;
  double truncate = 4.0;
  /// Kernel radius (2 * radius + 1 taps); unset: int(truncate * sigma + 0.5). Must be >= 0.
  std::optional<std::int64_t> radius = std::nullopt;
};
CUSK_OPTIONS(GaussianFilter1dOptions,
             (axis, "axis to filter"),
             (order, "derivative order 0..3"),
             (mode, "how the input is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (truncate, "kernel radius in standard deviations"),
             (radius, "kernel radius (overrides truncate)"))

struct GaussianFilterOptions {
  /// One order for every filtered axis, or one per filtered axis.
  std::vector<int> order = {0};
  Modes mode = Mode::reflect;
  double cval = 0.0;
  double truncate = 4.0;
  /// Empty: from truncate; else one radius or one per filtered axis (each >= 0).
  std::vector<std::int64_t> radius = {};
  /// Axes to filter (empty: all). sigma/order/mode/radius sequences then follow this list.
  std::vector<int> axes = {};
};
CUSK_OPTIONS(GaussianFilterOptions,
             (order, "derivative order 0..3, one or one per axis"),
             (mode, "how the input is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (truncate, "kernel radius in standard deviations"),
             (radius, "kernel radius, one or one per axis (overrides truncate)"),
             (axes, "axes to filter (default all)"))

/// The 1-D Gaussian correlation weights scipy builds (already reversed for correlate1d), in double.
std::vector<double> gaussian_kernel1d(double sigma, int order, std::int64_t radius);

/// scipy.ndimage.gaussian_filter1d. sigma > 0.
Array gaussian_filter1d(const Array& input, double sigma, const GaussianFilter1dOptions& opts = {},
                        const Stream& stream = {});
/// scipy.ndimage.gaussian_filter: `sigma` one value or one per filtered axis (>= 0).
Array gaussian_filter(const Array& input, const std::vector<double>& sigma, const GaussianFilterOptions& opts = {},
                      const Stream& stream = {});
inline Array gaussian_filter(const Array& input, double sigma, const GaussianFilterOptions& opts = {},
                             const Stream& stream = {}) {
  return gaussian_filter(input, std::vector<double>{sigma}, opts, stream);
}
/// Writes into `output` (the input's shape, dtype and device; any strides; not overlapping input).
void gaussian_filter_into(const Array& input, const std::vector<double>& sigma, Array& output,
                          const GaussianFilterOptions& opts = {}, const Stream& stream = {});
// @@gaussian@@

// @@edt@@ begin
// ==== distance_transform_edt (scipy.ndimage) =========================================================
// The exact Euclidean distance transform: every non-zero element of `input` (any dtype; non-zero =
// foreground) gets its distance to the nearest zero element, with `sampling` the spacing of each axis.
// The feature transform (`indices`) gives, per element, the coordinates of that nearest zero element:
// int32 of shape (ndim, *input.shape), as scipy returns. Distances are float64.
// The algorithm is scipy's (Maurer et al.'s separable feature transform, one pass per axis in axis
// order) and so are its ties: the nearest feature of each pass with the smaller position wins. The CPU
// backend computes scipy's double arithmetic step by step (the same features and bit-identical
// distances as scipy for any sampling). The CUDA backend (1-D, 2-D, 3-D) builds the last axis'
// envelopes in bands and merges them; it equals the CPU backend bit for bit whenever the envelope
// tests are exact in double, i.e. without sampling or with sampling whose products are exact
// (integers, dyadic fractions such as 0.5, 1.25); with other samplings a feature at a distance equal to
// another's up to rounding may be picked instead (the distance then differs by rounding only).
// An input without any zero element gives scipy's values (feature -1 on axis 0, 0 on the others).
// Deviation: sampling must be positive and finite (scipy also accepts 0 and negative spacings).
struct EdtOptions {
  /// Empty: unit spacing; else one value for every axis or one per axis (each > 0).
  std::vector<double> sampling = {};
  bool return_distances = true;
  bool return_indices = false;
};
CUSK_OPTIONS(EdtOptions,
             (sampling, "spacing of the elements, one value or one per axis"),
             (return_distances, "write the distances (float64)"),
             (return_indices, "write the feature transform (int32, shape (ndim, ...))"))

struct EdtResult {
  Array distances;  // float64, input's shape (invalid unless return_distances)
  Array indices;    // int32, (ndim, *input.shape) (invalid unless return_indices)
};

/// scipy.ndimage.distance_transform_edt. At least one of return_distances / return_indices must be
/// true. A 0-d input is treated as shape (1,), as scipy's atleast_1d.
EdtResult distance_transform_edt(const Array& input, const EdtOptions& opts = {}, const Stream& stream = {});
/// scipy's `distances=` / `indices=` outputs: writes into `distances` (float64, input's shape) when
/// opts.return_distances and into `indices` (int32, (ndim, *shape)) when opts.return_indices; both on
/// the input's device, any strides. The one not requested may be an invalid Array.
void distance_transform_edt_into(const Array& input, Array& distances, Array& indices, const EdtOptions& opts = {},
                                 const Stream& stream = {});
// @@edt@@ end

// @@spline@@ begin
// ==== B-spline interpolation (scipy.ndimage spline_filter1d / spline_filter / map_coordinates) =====
// Semantics are scipy.ndimage 1.17's (ni_splines.c, ni_interpolation.c): the prefilter is the
// recursive B-spline filter (poles of order 2..5, gain first, the causal init of the mode), run per
// axis in double on each line and stored in the output dtype; map_coordinates evaluates the
// (order + 1)^ndim taps around each coordinate, C order, value times the axes' weights in axis
// order, with the mode's coordinate folding and tap folding; orders > 1 prefilter a copy padded by
// 12 samples for 'nearest' and 'grid-constant' (as scipy). Both backends follow scipy's operation
// order without fused multiply-adds (the CPU gives scipy's bits; GPU == CPU bit for bit, barring
// libm-vs-CUDA floor/cast differences that cannot occur for finite inputs). Coordinates that are
// non-finite or beyond 2^52 give cval (scipy's casts are undefined there).
// CUDA: spline lines run one thread per line with the line streamed through shared-memory tiles
// (coalesced whether the lines or the samples are adjacent in memory); map_coordinates runs one
// thread per output point (1-D to 3-D inputs; more dimensions raise NotSupported on the device).

/// scipy's interpolation modes. reflect is also 'grid-mirror'; 'wrap' is scipy's legacy periodic
/// extension with period len - 1, 'grid-wrap' the periodic one with period len; 'constant' gives
/// cval outside [0, len - 1] without interpolating, 'grid-constant' interpolates cval padding.
enum class InterpMode { constant, grid_constant, nearest, reflect, mirror, grid_wrap, wrap };

/// Parses scipy's names ('constant', 'grid-constant', 'nearest', 'reflect', 'grid-mirror', 'mirror',
/// 'grid-wrap', 'wrap'); InvalidArgument for anything else.
InterpMode interp_mode_from_name(std::string_view name);
/// scipy's name of a mode ('reflect' for reflect/grid-mirror).
std::string_view interp_mode_name(InterpMode mode);

struct SplineFilter1dOptions {
  /// 0..5; 0 and 1 copy the input into the output dtype.
  int order = 3;
  int axis = -1;
  InterpMode mode = InterpMode::mirror;
  /// float32 or float64 (scipy's `output` dtype; intermediate sums are double either way).
  DType output = DType::float64;
};
CUSK_OPTIONS(SplineFilter1dOptions,
             (order, "spline order 0..5"),
             (axis, "axis along which to filter"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (output, "float32 or float64"))

struct SplineFilterOptions {
  /// 2..5 (scipy's spline_filter refuses 0 and 1).
  int order = 3;
  InterpMode mode = InterpMode::mirror;
  /// float32 or float64; each axis' pass is stored in it, as scipy does.
  DType output = DType::float64;
};
CUSK_OPTIONS(SplineFilterOptions,
             (order, "spline order 2..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (output, "float32 or float64"))

struct MapCoordinatesOptions {
  /// Output dtype: unset = the input's; else the input's dtype, float32 or float64.
  std::optional<DType> output = std::nullopt;
  /// Spline order 0..5.
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  /// Run spline_filter (float64, `mode`) first when order > 1 (scipy's prefilter=True).
  bool prefilter = true;
};
CUSK_OPTIONS(MapCoordinatesOptions,
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// scipy.ndimage.spline_filter1d: the B-spline coefficients along one axis. Any real input dtype.
Array spline_filter1d(const Array& input, const SplineFilter1dOptions& opts = {}, const Stream& stream = {});
/// scipy.ndimage.spline_filter: spline_filter1d along every axis in turn.
Array spline_filter(const Array& input, const SplineFilterOptions& opts = {}, const Stream& stream = {});
/// scipy.ndimage.map_coordinates: `coordinates` is (input.ndim, *out_shape) of any real dtype on the
/// input's device (float32/float64 are read directly); the result has shape out_shape. Integer
/// outputs round half away from zero and saturate, as scipy's.
Array map_coordinates(const Array& input, const Array& coordinates, const MapCoordinatesOptions& opts = {},
                      const Stream& stream = {});
// @@spline@@ end

// @@geometry@@ begin
// ==== geometry (scipy.ndimage zoom / shift / affine_transform / rotate / geometric_transform) ======
// Semantics are scipy.ndimage 1.17's, on the map_coordinates machinery above (same prefilter, same
// per-sample arithmetic, same output dtype rules: unset = the input's dtype; else the input's,
// float32 or float64): zoom and shift are NI_ZoomShift (coordinate i + shift, times the zoom factor
// (in_len - 1) / (out_len - 1), or in_len / out_len with grid_mode where the sample is taken at
// (i + 0.5) * zoom - 0.5; an axis whose divisor is 0 keeps factor 1), affine_transform is
// NI_GeometricTransform's affine branch (c = offset + matrix . i, summed in column order), rotate
// builds scipy's matrix from cosdg/sindg (exact at multiples of 90 degrees) and rotates each plane of
// `axes` separately (prefilter per plane). The CPU backend gives scipy's bits; the CUDA backend
// computes every coordinate in-kernel with the same operations (GPU == CPU bit for bit), 1-D to
// 3-D (more axes raise NotSupported on a device). geometric_transform calls the C++ mapping on the
// host for every output point; on a CUDA array the coordinates are computed on the host by the
// callable, copied to the device and sampled there.
// rotate's offset is formed as numpy's matmul forms it on x86-64 (one fused multiply-add per row),
// so its bits, and so every sample's, are scipy's there. Deviations: scipy's grid_mode warnings for
// 'constant'/'wrap' are not emitted; rotate refuses two equal axes; zoom refuses negative factors
// (scipy fails later on the negative shape); any output dtype other than the input's, float32 and
// float64 is refused (scipy allows every dtype).

struct ZoomOptions {
  /// Output dtype: unset = the input's; else the input's dtype, float32 or float64.
  std::optional<DType> output = std::nullopt;
  /// Spline order 0..5.
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  /// Run spline_filter (float64, `mode`) first when order > 1.
  bool prefilter = true;
  /// Pixels as areas (zoom = in_len / out_len, edges at -0.5 and len - 0.5) instead of points.
  bool grid_mode = false;
};
CUSK_OPTIONS(ZoomOptions,
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"),
             (grid_mode, "treat pixels as areas (zoom from the full extents)"))

/// scipy.ndimage.zoom: `zoom` one factor or one per axis (> 0); the output shape is
/// round(in_len * zoom) per axis. Factors of 1 with prefilter return a copy of the input (scipy's
/// early exit) in the output dtype.
Array zoom(const Array& input, const std::vector<double>& zoom, const ZoomOptions& opts = {}, const Stream& stream = {});
inline Array zoom(const Array& input, double z, const ZoomOptions& opts = {}, const Stream& stream = {}) {
  return zoom(input, std::vector<double>{z}, opts, stream);
}

/// shift's keywords are map_coordinates' (output, order, mode, cval, prefilter).
using ShiftOptions = MapCoordinatesOptions;

/// scipy.ndimage.shift: out[i] = input[i - shift], `shift` one value or one per axis.
Array shift(const Array& input, const std::vector<double>& shift, const ShiftOptions& opts = {},
            const Stream& stream = {});
inline Array shift(const Array& input, double s, const ShiftOptions& opts = {}, const Stream& stream = {}) {
  return shift(input, std::vector<double>{s}, opts, stream);
}

struct AffineTransformOptions {
  /// One value or one per axis; ignored when the matrix carries the translation ((ndim, ndim + 1)
  /// or homogeneous (ndim + 1, ndim + 1)).
  std::vector<double> offset = {0.0};
  /// Empty: the input's shape; else one length per input axis.
  std::vector<std::int64_t> output_shape = {};
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(AffineTransformOptions,
             (offset, "offset into the input, one value or one per axis"),
             (output_shape, "shape of the output (default: the input's)"),
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// scipy.ndimage.affine_transform: the input sampled at matrix . o + offset for every output index
/// o. `matrix` (host array of any real dtype) is (ndim,) (a diagonal: scipy's zoom_shift path),
/// (ndim, ndim), (ndim, ndim + 1) (last column = offset) or homogeneous (ndim + 1, ndim + 1)
/// (bottom row must be 0..0 1).
Array affine_transform(const Array& input, const Array& matrix, const AffineTransformOptions& opts = {},
                       const Stream& stream = {});
/// The same with the matrix as row-major values and its shape ({ndim} or {rows, cols}).
Array affine_transform(const Array& input, const std::vector<double>& matrix, const Shape& matrix_shape,
                       const AffineTransformOptions& opts = {}, const Stream& stream = {});

struct RotateOptions {
  /// The plane of rotation (two distinct axes, negative counts from the end).
  std::vector<int> axes = {1, 0};
  /// Enlarge the output so that the whole rotated input fits; else keep the input's shape.
  bool reshape = true;
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(RotateOptions,
             (axes, "the two axes of the rotation plane"),
             (reshape, "enlarge the output to contain the whole rotated input"),
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// scipy.ndimage.rotate by `angle` degrees (input at least 2-D).
Array rotate(const Array& input, double angle, const RotateOptions& opts = {}, const Stream& stream = {});

struct GeometricTransformOptions {
  /// Empty: the input's shape.
  std::vector<std::int64_t> output_shape = {};
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(GeometricTransformOptions,
             (output_shape, "shape of the output (default: the input's)"),
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// The mapping of geometric_transform: output index (output_shape.size() entries) -> input
/// coordinates (input.ndim() entries).
using GeometricMapping = std::function<void(const std::int64_t* out_index, double* in_coord)>;

/// scipy.ndimage.geometric_transform with a C++ mapping, called on the host once per output point in
/// C order (on a CUDA array the coordinates are computed on the host, then sampled on the device).
Array geometric_transform(const Array& input, const GeometricMapping& mapping,
                          const GeometricTransformOptions& opts = {}, const Stream& stream = {});

/// scipy.special.cosdg / sindg (cephes): cosine and sine of degrees, exact at multiples of 90.
double cosdg(double degrees);
double sindg(double degrees);
// @@geometry@@ end

}  // namespace cuskimage::ndimage
