// Private interface of measure.regionprops: the per-region statistics both backends measure in
// batched passes (src/measure/regionprops.cpp on the CPU, kernels/measure/regionprops.cu on CUDA),
// and the region set RegionProperties reads them from.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/measure.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::measure::detail {

/// intensity_median of an even-sized region from its two middle values, as numpy.median takes it
/// (np.mean of the two, in the intensity's dtype): float32 intensity rounds the float32 sum and
/// halves it (e.g. 1 and the next float32 give 1, not their exact mean); every other dtype is
/// averaged in float64. Both backends (src/measure/regionprops_region.cpp, regionprops_shape.cu).
CUSK_HD double median_of_middle(double lo, double hi, bool float32) {
  if (float32) return static_cast<double>((static_cast<float>(lo) + static_cast<float>(hi)) * 0.5f);
  return 0.5 * (lo + hi);
}

/// What a measurement needs beyond count, bbox and coordinate sums.
struct StatsRequest {
  bool intensity_sum = false;     // intensity_mean, intensity_std
  bool intensity_minmax = false;  // intensity_min / intensity_max
  bool weighted_first = false;    // sum I * x (weighted centroids)
  bool moments = false;           // pass 2: raw local + central moments, order 3
  bool weighted_moments = false;  // pass 2: the same weighted by intensity
  bool intensity_sqdev = false;   // pass 2: sum (I - mean)^2 (intensity_std)
  bool euler = false;             // CUDA: batched 2x2(x2) configuration pass
  bool perimeter = false;         // CUDA: batched border pass (2-D)
  bool crofton = false;           // CUDA: batched 2x2 configuration pass (2-D)
  bool any_pass2() const { return moments || weighted_moments || intensity_sqdev; }
  bool any_local() const { return euler || perimeter || crofton; }
};

/// Statistics of n regions (rows in increasing label order). Coordinates are global pixel
/// indices; moments are of the bbox-local coordinates scaled by spacing, order 3 per axis
/// (4^ndim monomials in C order of the powers).
struct RegionStats {
  int ndim = 0;
  int nch = 0;  // intensity channels (0: no intensity image)
  std::int64_t n = 0;
  std::vector<std::int64_t> label, count;   // n
  std::vector<std::int64_t> lo, hi;         // n * ndim, hi exclusive
  std::vector<double> coord_sum;            // n * ndim (exact integer sums)
  std::vector<double> isum, imin, imax;     // n * nch
  std::vector<double> iwsum;                // n * nch * ndim: sum I * x_a (global x)
  std::vector<double> m_raw, m_cen;         // n * M
  std::vector<double> wm_raw, wm_cen;       // n * nch * M
  std::vector<double> isqdev;               // n * nch
  // CUDA only (the CPU measures these on each region's crop): per-row sums of scikit-image's
  // Euler coefficients (3-D: before the /8), perimeter weights and Crofton coefficients.
  std::vector<double> euler, perimeter, crofton;
  int monomials() const { return ndim == 2 ? 16 : 64; }
};

/// Per-row inputs of pass 2 (computed on the host from pass 1).
struct Pass2Params {
  std::vector<std::int64_t> lo;     // n * ndim
  std::vector<double> cen;          // n * ndim: centroid_local (spaced)
  std::vector<double> wcen;         // n * nch * ndim: centroid_weighted_local (spaced)
  std::vector<double> mean;         // n * nch
};

/// CPU backend of the measurement (any integer label dtype, any intensity dtype and strides).
void cpu_region_stats(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
                      const StatsRequest& req, RegionStats& stats);
/// Pass 2's per-row inputs from pass 1's statistics.
Pass2Params pass2_params(const RegionStats& stats, const std::vector<double>& spacing);

/// CUDA backend of the measurement: `labels` contiguous int32/int64 2-D or 3-D on the device,
/// `intensity` invalid or contiguous uint8/uint16/float32/float64 with `nch` channels last.
/// Fills `stats` (host) for every label > 0 present; synchronises the stream.
void cuda_region_stats(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
                       const StatsRequest& req, RegionStats& stats, const Stream& stream);

/// Bool mask `labels[crop] == label` into `out` (contiguous bool of the crop's shape), device.
void cuda_region_mask(const Array& label_crop, std::int64_t label, Array& out, const Stream& stream);
/// out = intensity_crop * mask (broadcast over a trailing channel axis), device, same dtype.
void cuda_masked_intensity(const Array& intensity_crop, const Array& mask, Array& out, const Stream& stream);

// ---- CUDA: the per-region arrays of every region at once (kernels/measure/regionprops_shape.cu) ----
// `labels` is the contiguous int32/int64 device label image, `st` its statistics; packed crops are
// the regions' bbox crops one after another in row order (crop_off: n + 1 offsets).

/// Linear indices of every labelled pixel (`total` of them), region after region in increasing
/// label order, raster order inside a region (np.nonzero's order on each crop).
Array cuda_region_order(const Array& labels, std::int64_t max_label, std::int64_t total, const Stream& stream);
/// (total, ndim) coordinates of `order`'s pixels: int64 + offset, or (spacing given) float64
/// x * spacing + offset.
Array cuda_order_coords(const Array& order, std::int64_t total, const Shape& shape,
                        const std::vector<std::int64_t>& offset, const std::vector<double>* spacing,
                        const Stream& stream);
/// numpy.median per region and channel (n * nch, host) of the intensities of `order`'s pixels;
/// pix_off: n + 1 offsets of the regions in `order`.
std::vector<double> cuda_region_median(const Array& intensity, std::int64_t nch, const Array& order,
                                       const std::vector<std::int64_t>& pix_off, const Stream& stream);
/// binary_fill_holes (full structure) of every region's crop: the packed bool crops into `filled`
/// when asked, the filled pixel counts into `area`.
void cuda_region_filled(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off,
                        bool want_image, Array& filled, std::vector<std::int64_t>& area, const Stream& stream);
/// convex_hull_image of every (2-D) region's crop: packed bool crops when asked, pixel counts, and
/// when asked the squared maximum Feret diameter (feret_max's value before the square root).
void cuda_region_convex(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off,
                        const std::vector<double>& spacing, bool want_image, bool want_feret, Array& image,
                        std::vector<std::int64_t>& area, std::vector<double>& feret2, const Stream& stream);

/// What the CUDA backend built for every region so far (src/measure/regionprops_gpu.cpp).
struct DeviceShapes {
  Array labels;                       // contiguous int32 / int64
  std::vector<std::int64_t> pix_off;  // n + 1, into order / coords
  std::vector<std::int64_t> crop_off; // n + 1, into the packed crops
  Array order, coords, coords_scaled;
  std::vector<double> median;  // n * nch
  std::vector<std::int64_t> area_filled, area_convex;
  std::vector<double> feret2;
  Array filled, convex;  // packed crops
  bool has_median = false, has_area_filled = false, has_area_convex = false, has_feret = false;
};

/// The regions of one regionprops call: the inputs (shared), the options and the statistics.
struct RegionSet {
  int ndim = 0;
  std::int64_t nch = 0;  // 0 without an intensity image
  bool multichannel = false;
  Array labels, intensity;
  Stream stream;
  std::vector<double> spacing;
  std::vector<std::int64_t> offset;
  std::vector<ExtraProperty> extras;
  RegionStats st;

  /// scikit-image's shape of a built-in property's value (empty: scalar).
  Shape prop_shape(std::string_view canon) const;
  /// The current name of `name` after scikit-image's checks (unknown, needs intensity, 2-D only,
  /// spacing rules, host-only on a device image).
  std::string resolve(std::string_view name, std::string_view fn) const;
  static StatsRequest request_for(std::string_view canon);
  /// The value of a numeric property of row r, flattened in C order.
  std::vector<double> value(std::int64_t r, std::string_view canon) const;

  // Per-region arrays, built on demand (src/measure/regionprops_region.cpp).
  Array image(std::int64_t r) const;      // bool crop, labels' device
  Array host_mask(std::int64_t r) const;  // bool crop on the host
  Array image_convex(std::int64_t r) const;
  Array image_filled(std::int64_t r) const;
  Array image_intensity(std::int64_t r) const;
  Array coords(std::int64_t r, bool scaled) const;
  std::vector<double> intensity_median(std::int64_t r) const;
  std::vector<double> extra_value(std::int64_t r, const ExtraProperty& e) const;
  Shape extra_shape(const ExtraProperty& e) const;

  // CUDA: the same arrays for every region in batched passes, built on first use and kept
  // (src/measure/regionprops_gpu.cpp). Like scikit-image's property cache, not thread-safe.
  mutable std::shared_ptr<DeviceShapes> dev;
  Array device_labels() const;  // contiguous int32 / int64 labels on the device
  DeviceShapes& device_shapes() const;
  Array device_coords(std::int64_t r, bool scaled) const;
  std::vector<double> device_median(std::int64_t r) const;
  std::int64_t device_area_filled(std::int64_t r) const;
  Array device_image_filled(std::int64_t r) const;
  std::int64_t device_area_convex(std::int64_t r) const;
  Array device_image_convex(std::int64_t r) const;
  double device_feret(std::int64_t r) const;
};

/// Host measures of one region's bool mask (scikit-image's _regionprops_utils on the crop).
std::int64_t count_true(const Array& mask);
std::int64_t euler_number_of(const Array& mask);  // connectivity = ndim
double perimeter4(const Array& mask);             // perimeter(image, 4)
double crofton4(const Array& mask);               // perimeter_crofton(image, 4)
/// Maximum Feret diameter of a convex mask: the largest distance between the level-0.5 contour
/// (2-D) / isosurface (3-D) vertices, scaled by spacing.
double feret_max(const Array& convex_mask, const std::vector<double>& spacing);

// ---- CUDA: regionprops_table_device's columns straight from pass 1 (kernels/measure/regionprops.cu) --
enum DeviceColumnKind : int {
  kColLabel,
  kColArea,
  kColNumPixels,
  kColBboxLo,
  kColBboxHi,
  kColCentroid,
  kColCentroidLocal,
  kColIntensityMean,
  kColIntensityMin,
  kColIntensityMax,
};
struct DeviceColumnSpec {
  int kind = kColLabel;
  int index = 0;  // axis or channel
  bool integer = false;  // int64 column (else float64)
};
/// One 1-D device Array per spec (rows: present labels > 0 in increasing order). Same inputs as
/// cuda_region_stats; reads one value (the region count) back to the host.
std::vector<Array> cuda_region_columns(const Array& labels, const Array& intensity, int nch,
                                       const std::vector<double>& spacing, const std::vector<std::int64_t>& offset,
                                       const std::vector<DeviceColumnSpec>& specs, const Stream& stream);

}  // namespace cuskimage::measure::detail
