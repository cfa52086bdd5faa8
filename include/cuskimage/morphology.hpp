// cuskimage::morphology — skimage.morphology.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::morphology {

// =================================================================================================
// Footprints (skimage.morphology.footprints)
//
// Footprints are small host arrays of 0/1 in the requested dtype (uint8 by default), exactly the
// arrays scikit-image returns. With a `decomposition`, a function returns scikit-image's *sequence*
// form instead: a list of (footprint, num_iter) pairs whose repeated application equals (or, for
// disk/ball 'sequence' and the 'crosses' forms, approximates as scikit-image documents) the single
// footprint. Bad sizes or an unsupported decomposition throw InvalidArgument naming
// "morphology.<function>" and the argument.
// =================================================================================================

/// scikit-image's `decomposition` strings: None, 'sequence', 'separable', 'crosses'.
enum class Decomposition { none, sequence, separable, crosses };

/// "None", "sequence", "separable", "crosses".
std::string_view decomposition_name(Decomposition d);
/// Inverse of decomposition_name; also accepts "none". Throws InvalidArgument for other names.
Decomposition decomposition_from_name(std::string_view name);

/// One (footprint, num_iter) pair of a footprint sequence.
struct FootprintElement {
  Array footprint;
  std::int64_t num_iter = 1;
};

/// A footprint as scikit-image's morphology functions accept it: a single array, or a sequence of
/// (footprint, num_iter) pairs applied one after another. Move-only like Array; share() gives
/// another handle to the same arrays.
class Footprint {
 public:
  Footprint() = default;
  /// A single footprint array (implicit, so an Array can be passed where a Footprint is expected).
  Footprint(Array footprint);  // NOLINT(google-explicit-constructor)
  /// A sequence of (footprint, num_iter) pairs (may be empty: disk(0, 'sequence') is ()).
  explicit Footprint(std::vector<FootprintElement> sequence);
  Footprint(Footprint&&) noexcept = default;
  Footprint& operator=(Footprint&&) noexcept = default;
  Footprint(const Footprint&) = delete;
  Footprint& operator=(const Footprint&) = delete;

  bool is_sequence() const { return is_sequence_; }
  /// The single array; InvalidArgument when this is a sequence.
  const Array& array() const;
  /// The (footprint, num_iter) pairs; InvalidArgument when this is a single array.
  const std::vector<FootprintElement>& sequence() const;
  /// Number of dimensions (of the first element for a sequence; 0 for an empty sequence).
  int ndim() const;
  /// Shape of the equivalent single footprint: the array's shape, or for a sequence the extent
  /// reached by applying every element (scikit-image's _shape_from_sequence).
  Shape shape() const;
  /// Another handle to the same arrays.
  Footprint share() const;

 private:
  bool is_sequence_ = false;
  Array array_;
  std::vector<FootprintElement> sequence_;
};

/// Keywords of diamond, octahedron, octagon, ellipse and footprint_rectangle.
struct FootprintOptions {
  DType dtype = DType::uint8;
  Decomposition decomposition = Decomposition::none;
};
CUSK_OPTIONS(FootprintOptions,
             (dtype, "data type of the footprint"),
             (decomposition, "None for one array, else a sequence of smaller footprints"))

/// Keywords of disk and ball.
struct SphereOptions {
  DType dtype = DType::uint8;
  /// False extends the radius by 0.5 (a rounder shape in the same (2r+1)^n box); ignored by
  /// decompositions other than 'crosses', as in scikit-image.
  bool strict_radius = true;
  Decomposition decomposition = Decomposition::none;
};
CUSK_OPTIONS(SphereOptions,
             (dtype, "data type of the footprint"),
             (strict_radius, "false extends the radius by 0.5"),
             (decomposition, "None for one array, else a sequence of smaller footprints"))

/// Disk of Euclidean `radius` >= 0, shape (2r+1, 2r+1). decomposition: none, sequence (3x3
/// elements from scikit-image's precomputed table, radius <= 250; approximate), crosses (cross-
/// shaped elements; often exact).
Footprint disk(std::int64_t radius, const SphereOptions& options = {});
/// Ball of Euclidean `radius` >= 0, shape (2r+1)^3. decomposition: none, sequence (radius <= 100;
/// approximate).
Footprint ball(std::int64_t radius, const SphereOptions& options = {});
/// Diamond (city-block distance <= radius), shape (2r+1, 2r+1). decomposition: none, sequence.
Footprint diamond(std::int64_t radius, const FootprintOptions& options = {});
/// Octahedron (3-D diamond), shape (2r+1)^3. decomposition: none, sequence.
Footprint octahedron(std::int64_t radius, const FootprintOptions& options = {});
/// Octagon with horizontal/vertical sides of size m and slanted sides of height n, shape
/// (m + 2n, m + 2n); m, n >= 0 and not both 0. decomposition: none, sequence.
Footprint octagon(std::int64_t m, std::int64_t n, const FootprintOptions& options = {});
/// Star: a (2a+1) square overlapped with its 45-degree rotation; side 2a + 1 + 2*floor(a/2); a >= 0.
Array star(std::int64_t a, DType dtype = DType::uint8);
/// Ellipse with half-axes width (columns) and height (rows) >= 0, shape (2h+1, 2w+1).
/// decomposition: none, crosses.
Footprint ellipse(std::int64_t width, std::int64_t height, const FootprintOptions& options = {});
/// All-ones N-d footprint of `shape` (every length >= 1). decomposition: none, separable (one 1-D
/// footprint per axis), sequence (3^n cubes plus 1-D remainders; with any even length it falls
/// back to separable, where scikit-image also warns).
Footprint footprint_rectangle(const Shape& shape, const FootprintOptions& options = {});

/// Deprecated in scikit-image 0.25 (removed in 0.27): footprint_rectangle({width, width}).
[[deprecated("use footprint_rectangle")]] Footprint square(std::int64_t width,
                                                           const FootprintOptions& options = {});
/// Deprecated in scikit-image 0.25 (removed in 0.27): footprint_rectangle({nrows, ncols}).
[[deprecated("use footprint_rectangle")]] Footprint rectangle(std::int64_t nrows, std::int64_t ncols,
                                                              const FootprintOptions& options = {});
/// Deprecated in scikit-image 0.25 (removed in 0.27): footprint_rectangle({width, width, width}).
[[deprecated("use footprint_rectangle")]] Footprint cube(std::int64_t width, const FootprintOptions& options = {});

/// The single footprint equivalent to a (non-empty) sequence, computed as scikit-image does: a
/// bool image of the sequence's shape with its centre pixel set, dilated by the sequence (same
/// boundary handling, so even-sized elements give scikit-image's result too). Returns bool.
Array footprint_from_sequence(const Footprint& footprints);

/// The footprint reversed along every axis (each element of a sequence), as a new contiguous
/// array of the same dtype.
Array mirror_footprint(const Array& footprint);
Footprint mirror_footprint(const Footprint& footprint);

struct PadFootprintOptions {
  /// Pad at the end of each even-sized axis (else at the front).
  bool pad_end = true;
};
CUSK_OPTIONS(PadFootprintOptions,
             (pad_end, "pad at the end of each even axis (else at the front)"))
/// The footprint zero-padded by one to an odd size along each even-sized axis (each element of a
/// sequence).
Array pad_footprint(const Array& footprint, const PadFootprintOptions& options = {});
Footprint pad_footprint(const Footprint& footprint, const PadFootprintOptions& options = {});

// =================================================================================================
// Grey and binary morphology (skimage.morphology.gray / binary)
//
// Grey erosion/dilation are scipy.ndimage.grey_erosion/grey_dilation exactly as scikit-image calls
// them: the footprint is first zero-padded at the *front* of each even-sized axis (so its centre is
// size // 2 and no origin shift is needed), and dilation uses the footprint unmirrored (scikit-image
// mirrors it once, scipy mirrors it back). They run on ndimage::minimum_filter / maximum_filter, so
// all-ones elements take the separable van Herk passes and other shapes the footprint kernel.
// A footprint sequence applies each element num_iter times in turn (the first element at least
// once, as scikit-image does). The binary functions (deprecated in scikit-image 0.26, kept for
// compatibility) treat the image as bool (non-zero = true), pad even footprints at the *end*, mirror
// the footprint for dilation (scipy's binary_dilation) and return bool.
// Supported image dtypes: bool, uint8, uint16, int32, float32, float64 (ndimage's rank-filter
// types; the binary functions accept any dtype). CUDA arrays: 1-, 2- and 3-D.
// Performance (disk(10) on 8192^2 uint8, target <= 0.5 ms): each element application is one
// ndimage pass of 64 MiB read + 64 MiB written (32 us at 4.2 TB/s; an all-ones element runs as two
// separable van Herk passes). disk(10, decomposition='crosses') is 6 applications of small crosses
// (3x9, 3x5, 3x3 twice, 5x3, 9x3: ~0.19 ms at the floor) and 'sequence' 10 applications of 3x3
// squares/crosses (~0.32-0.5 ms), where the direct 21x21 footprint is compute bound (317 taps per
// pixel). So the target needs the footprint kernel near the floor for these small shapes; if it is
// not, the next step is fusing consecutive elements in one shared-memory tile (temporal blocking:
// one read and one write for the whole sequence, ~32 us).
// =================================================================================================

/// scikit-image's morphology `mode`: scipy's boundary modes plus 'max' / 'min' (constant at the
/// dtype's max / min: +-inf for floats, true/false for bool) and 'ignore' (outside pixels never win).
enum class MorphMode { reflect, constant, nearest, mirror, wrap, max, min, ignore };
/// Parses "reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore".
MorphMode morph_mode_from_name(std::string_view name);
std::string_view morph_mode_name(MorphMode mode);

/// Keywords of erosion, dilation, opening, closing, white_tophat and black_tophat.
struct GrayOptions {
  /// None (an invalid, non-sequence Footprint) is the cross of connectivity 1 of the image's ndim.
  Footprint footprint = {};
  MorphMode mode = MorphMode::reflect;
  /// Value outside the image for mode constant (cast as scipy does).
  double cval = 0.0;
};
CUSK_OPTIONS(GrayOptions,
             (footprint, "footprint array (.npy path, non-zero = in); default: the cross of connectivity 1"),
             (mode, "how the image is extended beyond its edges ('ignore': outside pixels never win)"),
             (cval, "value outside the edges for mode 'constant'"))

/// Keywords of the binary_* functions: mode is one of max, min, ignore.
struct BinaryOptions {
  Footprint footprint = {};
  MorphMode mode = MorphMode::ignore;
};
CUSK_OPTIONS(BinaryOptions,
             (footprint, "footprint array (.npy path, non-zero = in); default: the cross of connectivity 1"),
             (mode, "border handling: 'max' (outside is true), 'min' (false), 'ignore'"))

/// Grey morphology; the result has the image's shape and dtype.
Array erosion(const Array& image, const GrayOptions& opts = {}, const Stream& stream = {});
Array dilation(const Array& image, const GrayOptions& opts = {}, const Stream& stream = {});
Array opening(const Array& image, const GrayOptions& opts = {}, const Stream& stream = {});
Array closing(const Array& image, const GrayOptions& opts = {}, const Stream& stream = {});
/// image - opening(image) (wrapping for integers, xor for bool).
Array white_tophat(const Array& image, const GrayOptions& opts = {}, const Stream& stream = {});
/// closing(image) - image (wrapping for integers, xor for bool).
Array black_tophat(const Array& image, const GrayOptions& opts = {}, const Stream& stream = {});

/// scikit-image's `out=`: `out` has the image's shape, dtype and device (any strides; it may be
/// the image itself).
void erosion_into(const Array& image, Array& out, const GrayOptions& opts = {}, const Stream& stream = {});
void dilation_into(const Array& image, Array& out, const GrayOptions& opts = {}, const Stream& stream = {});
void opening_into(const Array& image, Array& out, const GrayOptions& opts = {}, const Stream& stream = {});
void closing_into(const Array& image, Array& out, const GrayOptions& opts = {}, const Stream& stream = {});
void white_tophat_into(const Array& image, Array& out, const GrayOptions& opts = {}, const Stream& stream = {});
void black_tophat_into(const Array& image, Array& out, const GrayOptions& opts = {}, const Stream& stream = {});

/// Binary morphology; the result is bool with the image's shape. A footprint element with
/// num_iter < 1 repeats until the result stops changing (scipy's iterations < 1).
Array binary_erosion(const Array& image, const BinaryOptions& opts = {}, const Stream& stream = {});
Array binary_dilation(const Array& image, const BinaryOptions& opts = {}, const Stream& stream = {});
Array binary_opening(const Array& image, const BinaryOptions& opts = {}, const Stream& stream = {});
Array binary_closing(const Array& image, const BinaryOptions& opts = {}, const Stream& stream = {});
/// `out=`: a bool array of the image's shape on its device (any strides).
void binary_erosion_into(const Array& image, Array& out, const BinaryOptions& opts = {}, const Stream& stream = {});
void binary_dilation_into(const Array& image, Array& out, const BinaryOptions& opts = {}, const Stream& stream = {});
void binary_opening_into(const Array& image, Array& out, const BinaryOptions& opts = {}, const Stream& stream = {});
void binary_closing_into(const Array& image, Array& out, const BinaryOptions& opts = {}, const Stream& stream = {});

// @@recon@@ begin
// =================================================================================================
// Reconstruction, extrema, flood fill and small-object removal (skimage.morphology.grayreconstruct,
// extrema, _flood_fill, misc). Results equal scikit-image 0.26 exactly (the CPU backend is the
// oracle; the CUDA backend computes the same function). Strided inputs are accepted everywhere.
// CPU: any ndim >= 1; CUDA: 1-, 2- and 3-D. Footprints are host arrays (any dtype, non-zero = in).
// =================================================================================================

enum class ReconstructionMethod { dilation, erosion };
CUSK_ENUM(ReconstructionMethod, dilation, erosion)

/// Keywords of reconstruction.
struct ReconstructionOptions {
  ReconstructionMethod method = ReconstructionMethod::dilation;
  /// None (invalid Array): all ones of shape 3^ndim. Otherwise of the image's ndim; every length
  /// odd unless `offset` is given.
  Array footprint = {};
  /// Index of the footprint's centre (None: length // 2 per axis). scikit-image 0.26 only accepts
  /// an offset for 1-D images (its check compares the offset array's ndim); here it is the
  /// documented per-axis centre for any ndim.
  std::vector<std::int64_t> offset = {};
};
CUSK_OPTIONS(ReconstructionOptions,
             (method, "reconstruction by dilation or erosion"),
             (footprint, "neighbourhood (.npy, non-zero = in); default: all ones 3^ndim"),
             (offset, "index of the footprint's centre; default: its middle"))

/// Morphological reconstruction by dilation (seed <= mask) or erosion (seed >= mask): the fixed
/// point of rec = min(mask, dilation(rec)) (max / erosion), with every pixel p pushing its value
/// to p + o for each footprint offset o (relative to the centre). seed and mask: same shape, any
/// of bool, uint8, uint16, int32, float32, float64. The result is float32 for a float32 mask and
/// float64 otherwise (scikit-image's _supported_float_type), the seed converted to that type.
/// seed > mask (dilation) / seed < mask (erosion) anywhere throws InvalidArgument, as scikit-image
/// raises; on CUDA that check reads one flag back (the one host synchronisation).
/// CUDA: tiles in shared memory swept along each axis in both directions until stable, repeated
/// over the image until no tile changes (batches of sweeps per host check; converged sweeps exit
/// on the device).
Array reconstruction(const Array& seed, const Array& mask, const ReconstructionOptions& options = {},
                     const Stream& stream = {});

/// Keywords of local_maxima and local_minima.
struct LocalExtremaOptions {
  /// None: scipy's generate_binary_structure(ndim, connectivity). Else 3 along every axis.
  Array footprint = {};
  /// None (0): full connectivity (ndim). Ignored when a footprint is given.
  int connectivity = 0;
  /// false: the bool mask; true: coordinates as int64 (k, ndim), row i the index of the i-th
  /// extremum pixel in C order (np.transpose(np.nonzero(mask)); scikit-image returns the tuple
  /// np.nonzero(mask), i.e. this array's columns). On CUDA the count is read back (one sync).
  bool indices = false;
  /// Pixels on the image border may be extrema (the image is padded with its minimum).
  bool allow_borders = true;
};
CUSK_OPTIONS(LocalExtremaOptions,
             (footprint, "3^ndim neighbourhood (.npy, non-zero = in); default from connectivity"),
             (connectivity, "neighbour connectivity, 1..ndim; 0 (None): ndim"),
             (indices, "the int64 (k, ndim) coordinates instead of the mask"),
             (allow_borders, "pixels on the border may be extrema"))

/// Local maxima: connected plateaus (footprint adjacency, equal values) whose neighbours are all
/// strictly lower, found with scikit-image's two-stage scan (a plateau qualifies only if one of
/// its row runs is a 1-D maximum along the last axis). Dtypes: bool, uint8, uint16, int32,
/// float32, float64. CUDA: symmetric footprints only (asymmetric ones make scikit-image's result
/// depend on its scan order; NotSupported).
Array local_maxima(const Array& image, const LocalExtremaOptions& options = {}, const Stream& stream = {});
/// Local minima: local_maxima of the inverted image (scikit-image's invert, signed_float=True).
Array local_minima(const Array& image, const LocalExtremaOptions& options = {}, const Stream& stream = {});

/// Keywords of h_maxima and h_minima.
struct HExtremaOptions {
  /// None: the full 3^ndim footprint (reconstruction's default).
  Array footprint = {};
};
CUSK_OPTIONS(HExtremaOptions,
             (footprint, "footprint (.npy, non-zero = in); default: all ones 3^ndim"))

/// Maxima of height >= h (uint8 0/1), scikit-image's algorithm: reconstruction by dilation of
/// image - h (integer images: clipped at the dtype minimum; float images and integer images with a
/// fractional h (converted to float64): image - h - 2 * finfo.resolution * |image|), then
/// image - rec >= h. h > ptp(image) gives zeros; h == 0 and h < 0 (scikit-image would overflow or
/// return every pixel) throw InvalidArgument. Dtypes: uint8, uint16, int32, float32, float64.
Array h_maxima(const Array& image, double h, const HExtremaOptions& options = {}, const Stream& stream = {});
/// Minima of depth >= h (the dual, by reconstruction by erosion of image + h).
Array h_minima(const Array& image, double h, const HExtremaOptions& options = {}, const Stream& stream = {});

/// Keywords of flood and flood_fill.
struct FloodOptions {
  /// None: generate_binary_structure(ndim, connectivity). Odd lengths, any size.
  Array footprint = {};
  /// None (0): full connectivity (ndim). Ignored when a footprint is given.
  int connectivity = 0;
  /// None: equal to the seed value; else |v - seed| <= |tolerance| with the bounds clipped to the
  /// dtype's range and cast to it (truncated toward zero for integer images), as scikit-image.
  std::optional<double> tolerance = {};
  /// flood_fill only: fill the image itself (it must then be a writable array).
  bool in_place = false;
};
CUSK_OPTIONS(FloodOptions,
             (footprint, "footprint (.npy, odd lengths, non-zero = in); default from connectivity"),
             (connectivity, "neighbour connectivity, 1..ndim; 0 (None): ndim"),
             (tolerance, "accept |value - seed value| <= tolerance; default: equal values"),
             (in_place, "flood_fill only: fill the image itself"))

/// Bool mask of the pixels reachable from `seed_point` (negative indices count from the end)
/// through pixels within tolerance, stepping along the footprint's offsets. Dtypes: bool, uint8,
/// uint16, int32, float32, float64. CUDA: the in-tolerance mask, then propagation from the seed
/// with reconstruction's tile sweeps (one sync to learn convergence, no other host reads).
Array flood(const Array& image, const std::vector<std::int64_t>& seed_point, const FloodOptions& options = {},
            const Stream& stream = {});
/// The image (a copy, or the image itself with in_place) with flood(...) set to `new_value`
/// (converted to the dtype as NumPy's assignment).
Array flood_fill(const Array& image, const std::vector<std::int64_t>& seed_point, double new_value,
                 const FloodOptions& options = {}, const Stream& stream = {});

/// Keywords of remove_small_objects (scikit-image 0.26: `min_size` is deprecated for `max_size`).
struct RemoveSmallObjectsOptions {
  /// Objects of at most this many pixels are removed (0.26's max_size, default 64).
  std::int64_t max_size = 64;
  /// Deprecated min_size: when set it replaces max_size (scikit-image 0.26 forwards it, so objects
  /// of at most min_size pixels go); setting it with a non-default max_size throws, as there.
  std::optional<std::int64_t> min_size = {};
  /// Bool images: scipy's generate_binary_structure(ndim, connectivity) (< 1: no neighbours).
  int connectivity = 1;
};
CUSK_OPTIONS(RemoveSmallObjectsOptions,
             (max_size, "objects of at most this many pixels are removed"),
             (min_size, "deprecated: remove objects of at most this many pixels instead"),
             (connectivity, "neighbour connectivity for bool input, 1..ndim"))

/// Removes connected components (bool input) or labels (integer input: each label's pixel count,
/// connectivity unused) of size <= max_size; the result has the input's dtype. Dtypes: bool,
/// uint8, uint16, int32, int64; other dtypes, negative labels and negative sizes throw
/// InvalidArgument (scikit-image quietly removes nothing for a negative size). CUDA, all on the
/// device: bool input is labelled by measure::label (its label count is read back once; with
/// connectivity < 1 every pixel is its own component), sizes come from block-cached atomics, then
/// the filtering map; label input reads its min/max back once to size the histogram.
Array remove_small_objects(const Array& ar, const RemoveSmallObjectsOptions& options = {},
                           const Stream& stream = {});
/// `out=`: same shape as `ar`, its dtype and device, any strides (may be `ar` itself).
void remove_small_objects_into(const Array& ar, Array& out, const RemoveSmallObjectsOptions& options = {},
                               const Stream& stream = {});

/// Keywords of remove_small_holes (0.26: `area_threshold` is deprecated for `max_size`).
struct RemoveSmallHolesOptions {
  std::int64_t max_size = 64;
  /// Deprecated area_threshold: replaces max_size (0.26 forwards it: holes of at most this size).
  std::optional<std::int64_t> area_threshold = {};
  int connectivity = 1;
};
CUSK_OPTIONS(RemoveSmallHolesOptions,
             (max_size, "holes of at most this many pixels are filled"),
             (area_threshold, "deprecated: fill holes of at most this many pixels instead"),
             (connectivity, "neighbour connectivity, 1..ndim"))

/// Fills holes (connected components of the background) of size <= max_size; returns bool.
/// Dtypes as remove_small_objects (non-zero = foreground).
Array remove_small_holes(const Array& ar, const RemoveSmallHolesOptions& options = {}, const Stream& stream = {});
/// `out=`: a bool array of ar's shape on its device (any strides).
void remove_small_holes_into(const Array& ar, Array& out, const RemoveSmallHolesOptions& options = {},
                             const Stream& stream = {});
// @@recon@@ end

// @@skel@@ begin
// =================================================================================================
// Skeletonization and convex hulls (skimage.morphology._skeletonize / convex_hull)
//
// Every function binarizes its input (non-zero = foreground, NaN included) and returns bool of the
// image's shape on its device. CPU and CUDA compute the same function bit for bit.
// =================================================================================================

/// skeletonize's `method`: None (Zhang for 2-D, Lee for 3-D), 'zhang' (2-D only), 'lee'.
enum class SkeletonMethod { none, zhang, lee };
CUSK_ENUM(SkeletonMethod, none, zhang, lee)
/// Parses "zhang", "lee", "None"/"none"; anything else is InvalidArgument (scikit-image's ValueError).
SkeletonMethod skeleton_method_from_name(std::string_view name);

struct SkeletonizeOptions {
  SkeletonMethod method = SkeletonMethod::none;
};
CUSK_OPTIONS(SkeletonizeOptions,
             (method, "'zhang' (2-D) or 'lee' (2-D and 3-D); None: zhang for 2-D, lee for 3-D"))

/// Skeleton of a 2-D or 3-D binary image. Zhang (scikit-image's _fast_skeletonize: its 256-entry
/// lookup table, two parallel sub-iterations until nothing changes; 2-D). Lee (Lee, Kashyap & Chu
/// 1994 as scikit-image's _compute_thin_image: six border directions -- four for a single plane --,
/// each collecting deletable candidates in raster order and re-checking them sequentially; 2-D and
/// 3-D). Lee's result depends on that visiting order; the CUDA backend reproduces it exactly (each
/// candidate is decided once its earlier neighbouring candidates are, or earlier when its result
/// does not depend on them), synchronizing the stream a few times per border direction. Zhang on
/// CUDA synchronizes once per batch of iterations (4, 8, ..., 64) to test for convergence.
/// InvalidArgument: ndim not 2 or 3, 'zhang' with 3-D.
Array skeletonize(const Array& image, const SkeletonizeOptions& opts = {}, const Stream& stream = {});

struct ThinOptions {
  /// Upper bound on the iterations; 0 (scikit-image's None, and its 0) runs until nothing changes.
  /// Negative values are InvalidArgument (scikit-image silently returns the image unthinned).
  std::int64_t max_num_iter = 0;
};
CUSK_OPTIONS(ThinOptions,
             (max_num_iter, "upper bound on the iterations; 0 (None): until stable"))

/// Morphological thinning of a 2-D binary image (Guo & Hall 1989, two sub-iterations, each a
/// parallel lookup of the 8-neighbourhood in the G123 / G123' tables built from the paper's
/// conditions as scikit-image builds them). InvalidArgument: not 2-D, empty image. CUDA: as
/// skeletonize's Zhang (one synchronisation per batch of iterations).
Array thin(const Array& image, const ThinOptions& opts = {}, const Stream& stream = {});

struct ConvexHullOptions {
  /// Represent each pixel by the midpoints of its four edges (r +- 0.5, c +- 0.5) when building the
  /// hull (else by its centre).
  bool offset_coordinates = true;
  /// Inclusion tolerance of 3-D hulls (scikit-image uses it for N-d images only): a voxel is inside
  /// when its signed distance to every facet plane is < tolerance. Evaluated exactly; for any
  /// 0 < tolerance <= 1 / (16 (P^2 + R^2 + C^2)) (the default for every axis up to ~14400) it
  /// changes no voxel of the closed hull. With tolerance <= 0 the voxels on the hull's boundary are
  /// out here, while scikit-image keeps those its rounding puts a hair inside.
  double tolerance = 1e-10;
  /// Keep pixels whose centre lies on the hull's boundary (else only strictly inside).
  bool include_borders = true;
};
CUSK_OPTIONS(ConvexHullOptions,
             (offset_coordinates, "represent pixels by their edge midpoints"),
             (tolerance, "N-d inclusion tolerance (unused in 2-D)"),
             (include_borders, "keep pixels whose centre is on the hull's boundary"))

/// Convex hull image of a 2-D binary image: the pixels whose centre lies in the convex hull of the
/// foreground (exact integer geometry, so equal to scikit-image's Qhull + grid_points_in_poly).
/// As in scikit-image the image is cast to uint8 first (NumPy's cast: integers wrap, floats
/// truncate), so e.g. 0.5 or 256 is background. An all-zero image, or a hull of zero area (possible
/// only without offset_coordinates, where Qhull fails), gives an all-false image (scikit-image
/// warns); where scikit-image raises "No points given" (non-zero values that all cast to 0) this
/// returns all false too. 3-D images follow scikit-image's N-d path on both backends: the hull of
/// the non-zero voxels (no uint8 cast, NaN is non-zero; fewer than 4, collinear or coplanar voxels
/// -- a single voxel, a 1 x N x M volume -- give all false, as Qhull fails), with
/// offset_coordinates the hull of the 6 face centres (+-0.5 along each axis) of its vertices,
/// then the voxels whose centre satisfies every facet's unit-normal equation n.x + d < tolerance
/// (include_borders is unused, as in scikit-image). The geometry is exact (integer planes on the
/// half-voxel lattice, src/morphology/convex_hull_ops.hpp), so the result is scikit-image's wherever
/// Qhull's rounding does not decide a voxel (never for the default tolerance up to ~14400 voxels
/// per axis). CPU: an incremental hull; CUDA: a block-parallel quickhull on the device (no host
/// geometry), synchronising the stream twice (to size the hull's scratch, and to check it). Every
/// axis <= 262144 voxels (else NotSupported). 4-D and up: NotSupported; 1-D: InvalidArgument.
Array convex_hull_image(const Array& image, const ConvexHullOptions& opts = {}, const Stream& stream = {});

struct ConvexHullObjectOptions {
  /// 1: 4-connected objects, 2: 8-connected.
  int connectivity = 2;
};
CUSK_OPTIONS(ConvexHullObjectOptions,
             (connectivity, "1: 4-connected objects, 2: 8-connected"))

/// Union of the convex hull images of each object (skimage.measure.label: connected pixels of the
/// same non-zero value, so touching objects of different values are separate). 2-D only, as
/// scikit-image 0.26 (a 3-D image is InvalidArgument, its ValueError, on both backends; per-region
/// 3-D hulls are measure.regionprops' image_convex). On CUDA it synchronizes the stream once (to
/// size per-object scratch).
Array convex_hull_object(const Array& image, const ConvexHullObjectOptions& opts = {}, const Stream& stream = {});
// @@skel@@ end

// @@edt@@ begin
// =================================================================================================
// Isotropic morphology and the medial axis (skimage.morphology.isotropic, _skeletonize.medial_axis),
// built on ndimage::distance_transform_edt (CPU and CUDA).
//
// isotropic_erosion(image, radius) = EDT(image) > radius; isotropic_dilation = EDT(!image) <= radius;
// opening = dilation(erosion), closing = erosion(dilation), each with the same radius and spacing.
// The image is binary (non-zero = true, any dtype); the result is bool. `spacing`: one value or one
// per axis (> 0), as the EDT's sampling. Exactly scikit-image's result for unit or dyadic spacings
// on both backends; the CPU backend also for any other spacing (see distance_transform_edt).
// =================================================================================================

struct IsotropicOptions {
  /// Empty: unit spacing; else one value or one per axis.
  std::vector<double> spacing = {};
};
CUSK_OPTIONS(IsotropicOptions,
             (spacing, "spacing of the elements, one value or one per axis"))

Array isotropic_erosion(const Array& image, double radius, const IsotropicOptions& opts = {}, const Stream& stream = {});
Array isotropic_dilation(const Array& image, double radius, const IsotropicOptions& opts = {}, const Stream& stream = {});
Array isotropic_opening(const Array& image, double radius, const IsotropicOptions& opts = {}, const Stream& stream = {});
Array isotropic_closing(const Array& image, double radius, const IsotropicOptions& opts = {}, const Stream& stream = {});
/// scikit-image's `out=`: a bool array of the image's shape on its device (any strides; it may be the
/// image itself when that is bool).
void isotropic_erosion_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts = {},
                            const Stream& stream = {});
void isotropic_dilation_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts = {},
                             const Stream& stream = {});
void isotropic_opening_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts = {},
                            const Stream& stream = {});
void isotropic_closing_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts = {},
                            const Stream& stream = {});

struct MedialAxisOptions {
  /// Optional mask (non-zero = use the pixel), the image's shape. Outside it the result is the image.
  Array mask = {};
  bool return_distance = false;
  /// scikit-image's `rng` as an integer seed: the tie-break order is numpy's
  /// default_rng(rng).permutation, reproduced exactly (PCG64 seeded by SeedSequence), so the result
  /// equals medial_axis(image, mask, rng=rng). (scikit-image's rng=None draws fresh entropy; here
  /// the default is seed 0.)
  std::uint64_t rng = 0;
};
CUSK_OPTIONS(MedialAxisOptions,
             (mask, "only pixels where the mask is non-zero are used"),
             (return_distance, "also return the distance transform"),
             (rng, "seed of numpy's default_rng used for tie-breaking"))

struct MedialAxisResult {
  Array skeleton;  // bool, the image's shape
  Array distance;  // float64 EDT of the (masked) image; invalid unless return_distance
};

/// Medial axis of a 2-D binary image (any dtype, any strides, non-zero = foreground): the EDT, each
/// pixel's cornerness, then scikit-image's one ordered pass of the 3x3 removal table in (distance,
/// cornerness, random tie-break) order. Both backends give scikit-image's exact skeleton. CUDA: the
/// ordered pass is reproduced by decision waves (a pixel decides as soon as its earlier neighbours'
/// decisions fix its answer); numpy's Fisher-Yates targets are drawn on the host (a sequential
/// rejection scan, ~2-3 ms per million foreground pixels) and uploaded, everything else runs on the
/// device. The call synchronises the stream a few times (the foreground count, the shuffle's and
/// the waves' progress) and supports up to 2^32 foreground pixels. `mask` must be on the image's
/// device.
MedialAxisResult medial_axis(const Array& image, const MedialAxisOptions& opts = {}, const Stream& stream = {});
// @@edt@@ end

// @@maxtree@@ begin
// =================================================================================================
// Max-tree and attribute filters (skimage.morphology.max_tree), remove_objects_by_distance
// (skimage.morphology.misc).
//
// max_tree, area/diameter openings and closings and max_tree_local_maxima run on both backends
// and give scikit-image 0.26's results exactly, including parent and traverser (flat C-order
// indices, NaN handled as scikit-image: NaNs sort last and never share a node) and the labels of
// max_tree_local_maxima. CPU: Berger's sequential union-find. CUDA: the stable argsort by a radix
// sort, then a parallel build of the same (canonical) tree: levels in batches from the top, the
// edges of a batch merged concurrently into the tree (lock-free), attributes accumulated leaf to
// root, the direct filter by pointer jumping. A device call synchronizes its stream once (the
// number of grey levels sizes the batches), and once more to check a caller's tree. Fast for 8-
// and 16-bit data; images of mostly distinct values (float, wide-range int) make deep trees, which
// cost far more (many batches, long leaf-to-root chains). CUDA limits: up to 8 axes, 80 neighbours
// (e.g. 4-D full connectivity), 2^32 - 2 pixels (else NotSupported).
// Images: uint8, uint16, int32, int64, float32, float64, any number of dimensions >= 1.
// connectivity: 1..ndim (orthogonal steps to a neighbour, as generate_binary_structure).
// remove_objects_by_distance runs on both backends (see its comment below).
// =================================================================================================

/// max_tree's result: `parent` (int64, the image's shape: each pixel's parent as a flat index; the
/// parent of a non-canonical pixel is the canonical pixel of its component) and `traverser` (int64,
/// 1-D: a pixel order in which every parent comes before its children; the root first).
struct MaxTree {
  Array parent;
  Array traverser;
};

struct MaxTreeOptions {
  int connectivity = 1;
};
CUSK_OPTIONS(MaxTreeOptions,
             (connectivity, "orthogonal steps to a neighbour, 1..ndim"))

MaxTree max_tree(const Array& image, const MaxTreeOptions& opts = {}, const Stream& stream = {});

/// Keywords of area_opening / area_closing. `parent` / `tree_traverser`: a precomputed max_tree of
/// the image (for closings: of its inverse, as scikit-image); both or neither, int64, on the image's
/// device. They must form a tree (indices inside the image, tree_traverser a permutation, every
/// pixel's parent before it in tree_traverser, tree_traverser[0] the root), else InvalidArgument.
struct AreaFilterOptions {
  double area_threshold = 64;
  int connectivity = 1;
  Array parent = {};
  Array tree_traverser = {};
};
CUSK_OPTIONS(AreaFilterOptions,
             (area_threshold, "smallest area (pixels) kept"),
             (connectivity, "orthogonal steps to a neighbour, 1..ndim"),
             (parent, "precomputed max-tree parent (int64), given with tree_traverser"),
             (tree_traverser, "precomputed max-tree traverser (int64), given with parent"))

/// Keywords of diameter_opening / diameter_closing (diameter: the longest bounding-box side).
struct DiameterFilterOptions {
  double diameter_threshold = 8;
  int connectivity = 1;
  Array parent = {};
  Array tree_traverser = {};
};
CUSK_OPTIONS(DiameterFilterOptions,
             (diameter_threshold, "smallest bounding-box side kept"),
             (connectivity, "orthogonal steps to a neighbour, 1..ndim"),
             (parent, "precomputed max-tree parent (int64), given with tree_traverser"),
             (tree_traverser, "precomputed max-tree traverser (int64), given with parent"))

/// Removes bright (opening) or dark (closing) structures whose area / diameter is below the
/// threshold. Closings filter util::invert(image) and invert back, as scikit-image (floats:
/// 1 - x in the image's precision). Same dtype and shape as the image.
Array area_opening(const Array& image, const AreaFilterOptions& opts = {}, const Stream& stream = {});
Array area_closing(const Array& image, const AreaFilterOptions& opts = {}, const Stream& stream = {});
Array diameter_opening(const Array& image, const DiameterFilterOptions& opts = {}, const Stream& stream = {});
Array diameter_closing(const Array& image, const DiameterFilterOptions& opts = {}, const Stream& stream = {});

struct MaxTreeLocalMaximaOptions {
  int connectivity = 1;
  Array parent = {};
  Array tree_traverser = {};
};
CUSK_OPTIONS(MaxTreeLocalMaximaOptions,
             (connectivity, "orthogonal steps to a neighbour, 1..ndim"),
             (parent, "precomputed max-tree parent (int64), given with tree_traverser"),
             (tree_traverser, "precomputed max-tree traverser (int64), given with parent"))

/// Local maxima labelled 1, 2, ... in scikit-image's order (uint64, as scikit-image), 0 elsewhere.
Array max_tree_local_maxima(const Array& image, const MaxTreeLocalMaximaOptions& opts = {},
                            const Stream& stream = {});

/// Keywords of remove_objects_by_distance.
struct RemoveObjectsByDistanceOptions {
  /// 1-D priority per label (index = label, length >= max label + 1, any real dtype); empty: each
  /// object's pixel count. Higher priority objects are kept first; ties go to the higher label.
  Array priority = {};
  /// Minkowski p-norm of the distance, >= 1 (infinity allowed), as scipy's cKDTree.
  double p_norm = 2;
  /// Empty: unit spacing; else one positive value per axis.
  std::vector<double> spacing = {};
};
CUSK_OPTIONS(RemoveObjectsByDistanceOptions,
             (priority, "1-D priority per label (default: object sizes)"),
             (p_norm, "Minkowski p-norm (>= 1; inf allowed)"),
             (spacing, "pixel spacing, one per axis"))

/// Removes objects (pixels sharing a non-zero label) in priority order until the remaining ones are
/// more than min_distance apart (objects at distance <= min_distance of a kept object go).
/// Integer label images only (negative labels are rejected). Same dtype and shape as the input.
/// Both backends give scikit-image's exact result. CUDA (up to 8 dimensions): the pairs of objects
/// with boundary pixels within min_distance are found once on a grid, then the greedy order is
/// resolved in rounds; the call synchronises the stream a few times. `priority` may be a host array
/// or on the label image's device. For p-norms other than 1, 2 and inf, point pairs whose distance
/// the device's pow cannot separate from min_distance (within 1e-12, not integer powers) are decided
/// on the host with the CPU's arithmetic. The work grows with the number of object pairs within
/// min_distance, so a distance spanning very many objects costs much more than on the CPU, whose
/// greedy scan stops at the first kept object.
Array remove_objects_by_distance(const Array& label_image, double min_distance,
                                 const RemoveObjectsByDistanceOptions& opts = {}, const Stream& stream = {});
/// scikit-image's `out=`: an array of the label image's shape and dtype on its device (any strides;
/// it may be the label image itself).
void remove_objects_by_distance_into(const Array& label_image, double min_distance, Array& out,
                                     const RemoveObjectsByDistanceOptions& opts = {}, const Stream& stream = {});
// @@maxtree@@ end

}  // namespace cuskimage::morphology
