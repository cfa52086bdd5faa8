// skimage.measure on both backends.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::measure {

// ---------------------------------------------------------------------------------------------
// label: connected regions of equal value.
// ---------------------------------------------------------------------------------------------

struct LabelOptions {
  /// Pixels of this value are background (label 0). Unset: 0. For a bool image, 1 labels the
  /// false pixels instead (scikit-image inverts it); any other value means false is background.
  std::optional<std::int64_t> background;
  /// Maximum number of orthogonal hops between neighbours, 1..ndim. Unset: ndim (full).
  std::optional<int> connectivity;
  /// int32 or int64. Unset: scikit-image's dtype, int32 for a bool image and int64 otherwise.
  std::optional<DType> dtype;
};
CUSK_OPTIONS(LabelOptions,
             (background, "background value (default 0; 1 on a bool image labels the false pixels)"),
             (connectivity, "maximum orthogonal hops between neighbours, 1..ndim (default ndim)"),
             (dtype, "int32 or int64 (default: int32 for bool images, else int64)"))

/// skimage.measure.label: neighbours (under `connectivity`) of the same value share a label; labels
/// are 1..num, numbered by each region's first pixel in C (raster) order exactly as scikit-image
/// numbers them. Any dtype; floats compare by their value truncated toward zero (NumPy's cast to
/// an integer, as scikit-image does; NaN and out-of-range values all become INT64_MIN). Any number
/// of dimensions >= 1 on the CPU, 1- to 3-D on a CUDA device (a block-based union-find of a fixed
/// number of passes, 64-bit indices past 2^31 pixels; kernels/measure/label.cu).
Array label(const Array& image, const LabelOptions& opts = {}, const Stream& stream = {});

struct LabelResult {
  Array labels;
  std::int64_t num = 0;  // the number of labels (the largest label)
};

/// label with return_num=True. The count is read back from the device (the call synchronises the
/// stream); `label` itself does not.
LabelResult label_with_num(const Array& image, const LabelOptions& opts = {}, const Stream& stream = {});

// @@measuremisc@@ begin
}  // namespace cuskimage::measure

#include <functional>
#include <utility>
#include <vector>

#include "cuskimage/ndimage.hpp"

namespace cuskimage::measure {

// ---------------------------------------------------------------------------------------------
// find_contours: marching squares (kernels/measure/contours.cu on CUDA).
// ---------------------------------------------------------------------------------------------

/// scikit-image's 'low' / 'high' choices of fully_connected and positive_orientation.
enum class LowHigh { low, high };
CUSK_ENUM(LowHigh, low, high)

struct FindContoursOptions {
  /// Iso-value. Unset: (nanmin + nanmax) / 2 computed in the image's dtype as NumPy does (integer
  /// sums wrap, a bool image gives 0.5).
  std::optional<double> level;
  /// Which side is 8-connected in the ambiguous saddle cells.
  LowHigh fully_connected = LowHigh::low;
  /// 'low': contours wind counter-clockwise around low-valued islands (low values on the left).
  LowHigh positive_orientation = LowHigh::low;
  /// Optional bool mask of the image's shape (other dtypes are rejected, as scikit-image's safe
  /// cast test); cells touching a false pixel (or a NaN) are skipped. Same device as the image.
  Array mask = {};
};
CUSK_OPTIONS(FindContoursOptions,
             (level, "iso-value (default (min + max) / 2)"),
             (fully_connected, "which side is 8-connected in saddles"),
             (positive_orientation, "'low': contours wind counter-clockwise around low-valued islands"),
             (mask, "bool mask; cells touching a false pixel are skipped"))

/// skimage.measure.find_contours: iso-contours of a 2-D image at sub-pixel precision, as (K, 2)
/// float64 (row, col) host arrays. The same contours, in the same order and orientation, with the
/// same coordinates (bit for bit) as scikit-image: on CUDA the cells are classified and their
/// segments computed and compacted in raster order on the device (CUB scan); the segments are then
/// copied back and joined on the host in scikit-image's order (the call synchronises the stream).
std::vector<Array> find_contours(const Array& image, const FindContoursOptions& opts = {},
                                 const Stream& stream = {});

// ---------------------------------------------------------------------------------------------
// Meshes and polygons.
// ---------------------------------------------------------------------------------------------

/// skimage.measure.mesh_surface_area: total area of the triangles `faces` ((F, 3) integer indices)
/// of `verts` ((V, 3) floats). Host and CUDA arrays (both on one device); returns a host value.
double mesh_surface_area(const Array& verts, const Array& faces, const Stream& stream = {});

/// skimage.measure.points_in_poly: for each (x, y) row of `points` ((N, 2)), whether it lies in the
/// polygon `verts` ((M, 2)) or on its boundary (O'Rourke's crossing test with a 1e-12 vertex
/// tolerance). Host function on short host vectors: a bool (N,) host array.
Array points_in_poly(const Array& points, const Array& verts);

struct GridPointsInPolyOptions {
  /// True: bool inside-or-on-boundary. False: uint8 labels 0 outside, 1 inside, 2 vertex, 3 edge.
  bool binarize = true;
  /// Device of the result grid (one thread per grid point on CUDA).
  Device device = Device::cpu();
};
CUSK_OPTIONS(GridPointsInPolyOptions,
             (binarize, "false: uint8 labels 0 out, 1 in, 2 vertex, 3 edge"),
             (device, "device of the result grid"))

/// skimage.measure.grid_points_in_poly: the test of points_in_poly for every (row, col) of a grid of
/// `shape` (2 entries). `verts` is a host (M, 2) array.
Array grid_points_in_poly(const Shape& shape, const Array& verts, const GridPointsInPolyOptions& opts = {},
                          const Stream& stream = {});

/// skimage.measure.approximate_polygon: Douglas-Peucker simplification of the (N, 2) `coords` with
/// scikit-image's distance rule. Host function (short host vectors); returns a float64 host array
/// (`coords` itself, converted to float64, when tolerance <= 0).
Array approximate_polygon(const Array& coords, double tolerance);

struct SubdividePolygonOptions {
  int degree = 2;               // B-spline degree, 1..7
  bool preserve_ends = false;   // keep the first and last point of an open polygon
};
CUSK_OPTIONS(SubdividePolygonOptions,
             (degree, "B-spline degree, 1..7"),
             (preserve_ends, "keep the end points of an open chain"))

/// skimage.measure.subdivide_polygon: one step of B-spline subdivision of the (N, 2) `coords`
/// (closed when the first and last points are equal). Host function; float64 host array.
Array subdivide_polygon(const Array& coords, const SubdividePolygonOptions& opts = {});

// ---------------------------------------------------------------------------------------------
// Image measures.
// ---------------------------------------------------------------------------------------------

/// How profile_line reduces the samples across the line width (scikit-image's reduce_func).
enum class ProfileReduce { mean, none, custom };
CUSK_ENUM(ProfileReduce, mean, none, custom)

struct ProfileLineOptions {
  std::int64_t linewidth = 1;
  /// Spline order (scipy.ndimage.map_coordinates). Unset: 0 for bool images, else 1. 0..5 are valid
  /// (InvalidArgument otherwise); orders 2..5 prefilter through ndimage::map_coordinates.
  std::optional<int> order;
  /// scikit-image maps 'constant' and 'wrap' to scipy's grid-constant / grid-wrap.
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
  ProfileReduce reduce = ProfileReduce::mean;
  /// ProfileReduce::custom: called on the `linewidth` samples of each point (host, in order).
  std::function<double(const std::vector<double>&)> reduce_func = {};
};
CUSK_OPTIONS(ProfileLineOptions,
             (linewidth, "samples across the line"),
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how points outside the image are sampled"),
             (cval, "value outside the image for mode constant"),
             (reduce, "reduction across the width: mean, none (every sample) or custom (reduce_func)"),
             (reduce_func, "the custom reduction of each point's samples"))

/// skimage.measure.profile_line: intensities along the line src -> dst (both ends included,
/// ceil(length + 1) points), `linewidth` parallel samples per point. 2-D images give (L,), 3-D
/// (channel-last) images (L, C); float64 for mean/custom, the image's dtype (scipy's rounding) and
/// an extra (L, linewidth[, C]) axis for none. The samples are taken on the image's device;
/// custom reductions run on the host.
Array profile_line(const Array& image, std::pair<double, double> src, std::pair<double, double> dst,
                   const ProfileLineOptions& opts = {}, const Stream& stream = {});

/// The reductions of block_reduce (scikit-image's func: np.sum, np.mean, np.max, np.min, np.median).
enum class BlockFunc { sum, mean, max, min, median };
CUSK_ENUM(BlockFunc, sum, mean, max, min, median)

struct BlockReduceOptions {
  BlockFunc func = BlockFunc::sum;
  /// Pad value (converted to the image's dtype) when a block size does not divide the shape.
  double cval = 0.0;
};
CUSK_OPTIONS(BlockReduceOptions,
             (func, "reduction of each block"),
             (cval, "padding value where the blocks overhang the image"))

/// skimage.measure.block_reduce: `func` over non-overlapping blocks (`block_size`: one value for
/// every axis or one per axis, each >= 1), padding the end of each axis with cval. dtypes as NumPy:
/// sum -> int64 / uint64 / float (bool -> int64), mean and median -> float64 (float32 stays),
/// max / min -> the image's dtype. One thread per output element on CUDA.
Array block_reduce(const Array& image, const std::vector<std::int64_t>& block_size,
                   const BlockReduceOptions& opts = {}, const Stream& stream = {});

/// skimage.measure.shannon_entropy: -sum p log(p) / log(base) over the distinct values (NaNs one
/// value, -0.0 == 0.0). CUDA: radix sort + run-length encoding (CUB) and a device reduction.
/// Synchronises (returns a host value).
double shannon_entropy(const Array& image, double base = 2.0, const Stream& stream = {});

/// skimage.measure.perimeter of a 2-D binary image (non-zero after NumPy's uint8 cast is object);
/// neighborhood 4, anything else is 8 (as scikit-image). Values other than 0/1 that make border codes
/// past scikit-image's weight table raise InvalidArgument. CUDA: border pass + code histogram.
/// Synchronises.
double perimeter(const Array& image, int neighborhood = 4, const Stream& stream = {});

/// skimage.measure.perimeter_crofton of a 2-D image (> 0 is object); directions 2, anything else is 4
/// (as scikit-image). CUDA: the 2x2 configuration histogram. Synchronises.
double perimeter_crofton(const Array& image, int directions = 4, const Stream& stream = {});

/// skimage.measure.euler_number of a 2-D or 3-D image (> 0 is object). connectivity (unset: ndim):
/// 1 is the 4- / 6-neighbourhood, anything else the full one, as scikit-image; 3-D with 2 raises
/// NotSupported (scikit-image's NotImplementedError). CUDA: a histogram of 2x2(x2) configurations.
/// Synchronises.
std::int64_t euler_number(const Array& image, std::optional<int> connectivity = std::nullopt,
                          const Stream& stream = {});

/// How blur_effect reduces the per-axis blur values.
enum class BlurReduce { max, mean, min };
CUSK_ENUM(BlurReduce, max, mean, min)

struct BlurEffectOptions {
  std::int64_t h_size = 11;
  /// Set: the image has colour channels on this axis (3, RGB) and is converted with rgb2gray.
  std::optional<int> channel_axis;
  BlurReduce reduce = BlurReduce::max;
};
CUSK_OPTIONS(BlurEffectOptions,
             (h_size, "size of the re-blurring filter"),
             (channel_axis, "axis of the RGB channels"),
             (reduce, "reduction of the per-axis values"))

/// skimage.measure.blur_effect (Crete et al.): per-axis blur in [0, 1] reduced by opts.reduce.
/// Filters (uniform_filter1d, sobel) and sums run on the image's device. Synchronises.
double blur_effect(const Array& image, const BlurEffectOptions& opts = {}, const Stream& stream = {});
/// blur_effect with reduce_func=None: one value per axis (of the grey image).
std::vector<double> blur_effect_axes(const Array& image, const BlurEffectOptions& opts = {},
                                     const Stream& stream = {});

struct PearsonResult {
  double statistic = 0.0;  // Pearson's r (NaN for a constant input)
  double pvalue = 0.0;     // two-sided, from the beta distribution of r as scipy.stats.pearsonr
};

/// Colocalisation measures (skimage.measure.*_coeff). Inputs share one shape and device; `mask`
/// (optional) and the *_mask arguments must be bool or hold only 0 and 1. Sums are device
/// reductions on CUDA; every call synchronises and returns host values.
PearsonResult pearson_corr_coeff(const Array& image0, const Array& image1, const Array& mask = {},
                                 const Stream& stream = {});
double manders_coloc_coeff(const Array& image0, const Array& image1_mask, const Array& mask = {},
                           const Stream& stream = {});
double manders_overlap_coeff(const Array& image0, const Array& image1, const Array& mask = {},
                             const Stream& stream = {});
double intersection_coeff(const Array& image0_mask, const Array& image1_mask, const Array& mask = {},
                          const Stream& stream = {});
// @@measuremisc@@ end

// @@regionprops@@ begin
// ---------------------------------------------------------------------------------------------
// regionprops, regionprops_table and the moments family (src/measure/regionprops*.cpp,
// kernels/measure/regionprops.cu).
// ---------------------------------------------------------------------------------------------

/// Ordered named columns of equal length: scikit-image's regionprops_table dict. Columns hold
/// int64 (label, bbox, num_pixels, euler_number) or double values.
class Table {
 public:
  using Column = std::variant<std::vector<std::int64_t>, std::vector<double>>;

  /// Appends a column; InvalidArgument on a duplicate name or a length unlike the others.
  void add_column(std::string name, Column values);
  std::size_t num_columns() const { return names_.size(); }
  std::size_t num_rows() const;
  const std::vector<std::string>& names() const { return names_; }
  bool contains(std::string_view name) const;
  /// InvalidArgument for an unknown name.
  const Column& column(std::string_view name) const;
  bool is_integer(std::string_view name) const;
  /// A column as doubles (int64 columns converted).
  std::vector<double> as_double(std::string_view name) const;
  /// CSV with a header row; doubles as the shortest text that reads back exactly ("nan", "inf").
  void write_csv(std::ostream& os) const;
  void write_csv(const std::string& path) const;

 private:
  std::vector<std::string> names_;
  std::vector<Column> columns_;
};

/// A user property (scikit-image's extra_properties). `fn` receives the region's mask (bool crop
/// of its bounding box) and, when `uses_intensity`, the masked intensity crop (one channel at a
/// time for a multichannel image; the results stack on the last axis as scikit-image stacks
/// them). Both arrays are on the label image's device. `scalar`: fn returns one value (column
/// `name`); else a fixed-length vector (columns `name-0`, `name-1`, ...).
struct ExtraProperty {
  std::string name;
  std::function<std::vector<double>(const Array& mask, const Array& intensity)> fn;
  bool uses_intensity = false;
  bool scalar = true;
};

struct RegionpropsOptions {
  /// Pixel spacing per axis; empty means 1, one value applies to every axis.
  std::vector<double> spacing;
  /// regionprops only: coordinates of the label image's origin (added to coords and centroid).
  std::vector<std::int64_t> offset;
  std::vector<ExtraProperty> extra_properties;
  /// regionprops_table: joins a property name and element indices ("bbox-0", "moments-0-1").
  std::string separator = "-";
};
CUSK_OPTIONS(RegionpropsOptions,
             (spacing, "pixel spacing per axis"),
             (offset, "regionprops only: coordinates of the label image's origin"),
             (extra_properties, "user properties (callables)"),
             (separator, "joins a property name and element indices"))

namespace detail {
struct RegionSet;
}

/// One region of regionprops (scikit-image's RegionProperties). Every property by its
/// scikit-image name through get() (values flattened in C order, shape from shape_of()), typed
/// accessors for the common ones. Statistics (area, bbox, centroids, moments, intensity) were
/// measured for all regions together; image-valued properties are built on demand from the
/// region's crop. On a CUDA device euler_number, perimeter and perimeter_crofton are batched passes
/// too, image and image_intensity are built on the device, and coords, coords_scaled,
/// intensity_median, image_filled, area_filled, image_convex, area_convex, solidity and
/// feret_diameter_max are built for every region together on first use (device arrays, cached in
/// the region set); the convex ones raise NotSupported for 3-D device regions (the 3-D hull runs on
/// the CPU only). 2-D-only properties (eccentricity, orientation, perimeter, perimeter_crofton,
/// moments_hu, moments_weighted_hu) raise NotSupported on 3-D regions, as scikit-image raises
/// NotImplementedError.
class RegionProperties {
 public:
  std::int64_t label() const;
  int ndim() const;
  std::vector<double> get(std::string_view property) const;
  Shape shape_of(std::string_view property) const;

  double area() const { return get("area")[0]; }
  double area_bbox() const { return get("area_bbox")[0]; }
  double area_convex() const { return get("area_convex")[0]; }
  double area_filled() const { return get("area_filled")[0]; }
  double axis_major_length() const { return get("axis_major_length")[0]; }
  double axis_minor_length() const { return get("axis_minor_length")[0]; }
  double eccentricity() const { return get("eccentricity")[0]; }
  double equivalent_diameter_area() const { return get("equivalent_diameter_area")[0]; }
  std::int64_t euler_number() const { return static_cast<std::int64_t>(get("euler_number")[0]); }
  double extent() const { return get("extent")[0]; }
  double feret_diameter_max() const { return get("feret_diameter_max")[0]; }
  std::int64_t num_pixels() const { return static_cast<std::int64_t>(get("num_pixels")[0]); }
  double orientation() const { return get("orientation")[0]; }
  double perimeter() const { return get("perimeter")[0]; }
  double perimeter_crofton() const { return get("perimeter_crofton")[0]; }
  double solidity() const { return get("solidity")[0]; }
  /// (min_0, ..., min_{n-1}, max_0, ..., max_{n-1}), max exclusive.
  std::vector<std::int64_t> bbox() const;
  /// The bounding box as slices of the label image.
  std::vector<Slice> slice() const;
  std::vector<double> centroid() const { return get("centroid"); }
  std::vector<double> centroid_local() const { return get("centroid_local"); }
  std::vector<double> centroid_weighted() const { return get("centroid_weighted"); }
  std::vector<double> centroid_weighted_local() const { return get("centroid_weighted_local"); }
  /// One value per channel.
  std::vector<double> intensity_max() const { return get("intensity_max"); }
  std::vector<double> intensity_mean() const { return get("intensity_mean"); }
  std::vector<double> intensity_median() const { return get("intensity_median"); }
  std::vector<double> intensity_min() const { return get("intensity_min"); }
  std::vector<double> intensity_std() const { return get("intensity_std"); }
  std::vector<double> inertia_tensor_eigvals() const { return get("inertia_tensor_eigvals"); }
  /// Host float64 arrays of scikit-image's shapes ((4,)*ndim moments, (ndim, ndim) tensor, (7,) Hu).
  Array moments() const { return array("moments"); }
  Array moments_central() const { return array("moments_central"); }
  Array moments_normalized() const { return array("moments_normalized"); }
  Array moments_hu() const { return array("moments_hu"); }
  Array moments_weighted() const { return array("moments_weighted"); }
  Array moments_weighted_central() const { return array("moments_weighted_central"); }
  Array moments_weighted_normalized() const { return array("moments_weighted_normalized"); }
  Array moments_weighted_hu() const { return array("moments_weighted_hu"); }
  Array inertia_tensor() const { return array("inertia_tensor"); }
  /// Any numeric property as a host float64 array of shape_of(property).
  Array array(std::string_view property) const;

  /// Bool crop of the bounding box (on the label image's device).
  Array image() const;
  Array image_convex() const;
  Array image_filled() const;
  /// The intensity crop times the mask (the intensity dtype; channels last).
  Array image_intensity() const;
  /// (num_pixels, ndim) int64 coordinates (+ offset), float64 scaled by spacing for coords_scaled.
  Array coords() const;
  Array coords_scaled() const;

  RegionProperties(std::shared_ptr<const detail::RegionSet> set, std::int64_t row) : set_(std::move(set)), row_(row) {}

 private:
  std::shared_ptr<const detail::RegionSet> set_;
  std::int64_t row_ = 0;
};

/// skimage.measure.regionprops: one entry per label > 0 present in `label_image` (2-D or 3-D,
/// an integer dtype), in increasing label order. `intensity_image` (leave it invalid, `{}`, for
/// none) has the label image's shape plus optionally a trailing channel axis. The statistics of
/// all regions are measured together (on a CUDA device: batched passes with per-label atomics,
/// kernels/measure/regionprops.cu); the call synchronises the stream. Sums run in double on both
/// backends (device sums in another order: within ~1e-12 relative of the CPU). NaN intensities give
/// unspecified intensity_min/max. Labels of unsigned 64-bit images above 2^63 are ignored.
std::vector<RegionProperties> regionprops(const Array& label_image, const Array& intensity_image = {},
                                          const RegionpropsOptions& opts = {}, const Stream& stream = {});

/// skimage.measure.regionprops_table: the named properties of every region as columns, multi-value
/// properties expanded as scikit-image names them ("bbox-0", "centroid-1", "moments-0-1",
/// "intensity_mean-2" per channel), extra properties appended. Object properties (image, coords,
/// slice, ...) have no table column and raise InvalidArgument. Synchronises the stream.
Table regionprops_table(const Array& label_image, const Array& intensity_image,
                        const std::vector<std::string>& properties = {"label", "bbox"},
                        const RegionpropsOptions& opts = {}, const Stream& stream = {});

// @@lead-devtable@@ begin
/// regionprops_table's columns left on the label image's device, as cuCIM returns CuPy arrays:
/// columns[i] (a 1-D int64 Array for integer properties, else float64) is named names[i] exactly
/// as regionprops_table names its columns. On a CUDA label image, label, num_pixels, area, bbox,
/// centroid, centroid_local and intensity_mean/min/max come straight from the batched device pass
/// (only the region count crosses to the host; the columns are ready when `stream` is); any other
/// property is measured as regionprops_table measures it and its columns uploaded. On the CPU the
/// columns are host Arrays of regionprops_table's values.
struct DeviceTable {
  std::vector<std::string> names;
  std::vector<Array> columns;
  /// InvalidArgument for an unknown name.
  const Array& column(std::string_view name) const;
};
DeviceTable regionprops_table_device(const Array& label_image, const Array& intensity_image,
                                     const std::vector<std::string>& properties, const RegionpropsOptions& opts = {},
                                     const Stream& stream = {});
// @@lead-devtable@@ end

// ---- moments of a whole image (skimage.measure._moments) ------------------------------------

struct MomentsOptions {
  int order = 3;
  /// Pixel spacing per axis (empty: 1).
  std::vector<double> spacing;
};
CUSK_OPTIONS(MomentsOptions,
             (order, "maximum power per axis"),
             (spacing, "pixel spacing per axis"))

struct MomentsCentralOptions {
  /// Empty: the image's centroid.
  std::vector<double> center;
  int order = 3;
  std::vector<double> spacing;
};
CUSK_OPTIONS(MomentsCentralOptions,
             (center, "centre per axis (default: the centroid)"),
             (order, "maximum power per axis"),
             (spacing, "pixel spacing per axis"))

/// Raw moments M[i, j, ...] = sum I(x) (x0 s0)^i (x1 s1)^j ..., shape (order+1,)*ndim; float32
/// for float32 images, else float64 (accumulated in double on both backends). Any ndim >= 1.
Array moments(const Array& image, const MomentsOptions& opts = {}, const Stream& stream = {});
/// Central moments about `center`, computed directly about the centre. Without a center (the
/// centroid), entries are those of scikit-image's raw-to-central conversion: power sums up to
/// `order` (the first-order ones exactly 0), the rest 0.
Array moments_central(const Array& image, const MomentsCentralOptions& opts = {}, const Stream& stream = {});
/// Moments of a (K, ndim) point list (skimage.measure.moments_coords[_central]).
Array moments_coords(const Array& coords, int order = 3, const Stream& stream = {});
Array moments_coords_central(const Array& coords, const std::vector<double>& center = {}, int order = 3,
                             const Stream& stream = {});
/// nu = mu / min(spacing)^s / mu0^(s/ndim + 1) for s = i+j+... >= 2, NaN below.
Array moments_normalized(const Array& mu, int order = 3, const std::vector<double>& spacing = {},
                         const Stream& stream = {});
/// The seven Hu invariants of 2-D normalized moments (shape (7,)).
Array moments_hu(const Array& nu, const Stream& stream = {});
/// Centroid (ndim,) of an image's intensity, in spacing units.
Array centroid(const Array& image, const std::vector<double>& spacing = {}, const Stream& stream = {});
/// Inertia tensor (ndim, ndim); `mu` (central moments of order >= 2) is computed when invalid.
Array inertia_tensor(const Array& image, const Array& mu = {}, const std::vector<double>& spacing = {},
                     const Stream& stream = {});
/// Eigenvalues of the inertia tensor (clipped at 0) in decreasing order; `T` when valid, else
/// from `mu` / the image. Synchronises the stream.
std::vector<double> inertia_tensor_eigvals(const Array& image, const Array& mu = {}, const Array& T = {},
                                           const std::vector<double>& spacing = {}, const Stream& stream = {});
// @@regionprops@@ end

// @@mcubes@@ begin
}  // namespace cuskimage::measure

#include <array>

namespace cuskimage::measure {

// ---------------------------------------------------------------------------------------------
// marching_cubes: iso-surfaces of 3-D volumes (src/measure/marching_cubes.cpp,
// kernels/measure/marching_cubes.cu).
// ---------------------------------------------------------------------------------------------

enum class GradientDirection { descent, ascent };
CUSK_ENUM(GradientDirection, descent, ascent)
enum class MarchingCubesMethod { lewiner, lorensen };
CUSK_ENUM(MarchingCubesMethod, lewiner, lorensen)

struct MarchingCubesOptions {
  /// Iso-value. Unset: (min + max) / 2 of the volume as float32 (scikit-image's default); a set
  /// level outside [min, max] raises InvalidArgument.
  std::optional<double> level;
  /// Voxel spacing per axis (z, y, x); vertices are scaled by it.
  std::array<double, 3> spacing = {1.0, 1.0, 1.0};
  /// descent: the object is brighter than the exterior (faces wound as scikit-image's default).
  GradientDirection gradient_direction = GradientDirection::descent;
  /// Cube size in voxels (>= 1).
  std::int64_t step_size = 1;
  /// false: faces with two equal vertices are dropped and the vertices they join merged into the
  /// lowest index (scikit-image's rule with its merge chains resolved); faces become int64. Which
  /// faces are degenerate depends on the diagonals, so the count can differ slightly from
  /// scikit-image's (the distinct vertex positions do not).
  bool allow_degenerate = true;
  MarchingCubesMethod method = MarchingCubesMethod::lewiner;
  /// Optional mask of the volume's shape (bool; other dtypes are read as != 0), same device: a cube
  /// is marched when the mask is true at its far corner (as scikit-image tests it).
  Array mask = {};
};
CUSK_OPTIONS(MarchingCubesOptions,
             (level, "iso-value (default (min + max) / 2)"),
             (spacing, "voxel spacing per axis (z, y, x)"),
             (gradient_direction, "descent: the object is brighter than the exterior"),
             (step_size, "cube size in voxels"),
             (allow_degenerate, "keep zero-area triangles"),
             (method, "case resolution"),
             (mask, "bool mask of the volume's shape"))

struct MarchingCubesResult {
  Array verts;    // (V, 3) float32, (z, y, x) times spacing
  Array faces;    // (F, 3) int32 (int64 when allow_degenerate is false, as scikit-image)
  Array normals;  // (V, 3) float32 unit normals from the data gradient
  Array values;   // (V,) float32, the largest corner spread of the cubes around each vertex
};

/// skimage.measure.marching_cubes on a 3-D volume of any real dtype (read as float32, as
/// scikit-image does). Each cube is classified and triangulated by rules built from the cube's edge
/// polygons (no lookup tables): 'lorensen' separates the positive corners on every ambiguous
/// face (the classic table's choice); 'lewiner' resolves face and interior ambiguities with
/// Lewiner et al.'s tests as scikit-image applies them. Vertex positions (scikit-image's
/// weighted interpolation), values, the vertex set and the number of faces of every cube are
/// scikit-image's; the diagonals chosen inside a polygon of 4+ vertices, and therefore the
/// per-vertex normals there (sums over triangles), may differ. Vertices are unique per crossed edge,
/// ordered by (z, y, x) of their edge; faces follow cube raster order; both backends return the same
/// arrays bit for bit. Output on the volume's device; the call synchronises the stream. Throws
/// InvalidArgument for a non-3-D volume, a dimension < 2, step_size < 1, a mask of another shape,
/// a level outside the data range, or when no surface is found (scikit-image's RuntimeError).
/// float32 vertices: scikit-image returns float64 when spacing is not 1 (the same products,
/// rounded here to float32).
MarchingCubesResult marching_cubes(const Array& volume, const MarchingCubesOptions& opts = {},
                                   const Stream& stream = {});
// @@mcubes@@ end

}  // namespace cuskimage::measure
