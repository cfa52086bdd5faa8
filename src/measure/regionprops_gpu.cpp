// measure.regionprops on CUDA: the per-region arrays (coords, intensity_median, image_filled,
// image_convex and the areas, solidity and Feret diameter derived from them) are built for every
// region together the first time any region asks (kernels/measure/regionprops_shape.cu), kept in
// the region set, and each region's value is then a slice of the packed result.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/regionprops.hpp"
#include "src/morphology/convex_hull3d.hpp"

namespace cuskimage::measure::detail {

using cuskimage::detail::DeviceGuard;
using cuskimage::detail::fail;

Array RegionSet::device_labels() const {
  const DType dt = labels.dtype();
  return (dt == DType::int32 || dt == DType::int64) ? labels.contiguous(stream) : labels.astype(DType::int64, stream);
}

DeviceShapes& RegionSet::device_shapes() const {
  if (labels.device().is_cpu())
    fail<std::logic_error>("measure.regionprops", "internal: device shapes of a host label image");
  if (dev) return *dev;
  auto d = std::make_shared<DeviceShapes>();
  d->labels = device_labels();
  d->pix_off.assign(static_cast<std::size_t>(st.n) + 1, 0);
  d->crop_off.assign(static_cast<std::size_t>(st.n) + 1, 0);
  for (std::int64_t r = 0; r < st.n; ++r) {
    std::int64_t vol = 1;
    for (int a = 0; a < ndim; ++a) vol *= st.hi[r * ndim + a] - st.lo[r * ndim + a];
    d->pix_off[r + 1] = d->pix_off[r] + st.count[r];
    d->crop_off[r + 1] = d->crop_off[r] + vol;
  }
  dev = std::move(d);
  return *dev;
}

namespace {

/// 3-D image_convex / area_convex of every region at once: morphology's block-per-hull device
/// quickhull over each region's bbox crop (default convex_hull_image options, as scikit-image's
/// regionprops uses); the crops are packed at crop_off when `image` is asked for.
void hull3d_all(const RegionSet& s, DeviceShapes& d, bool want_image) {
  namespace md = cuskimage::morphology::detail;
  bool* images = nullptr;
  if (want_image) {
    d.convex = Array::empty({std::max<std::int64_t>(d.crop_off.back(), 1)}, DType::bool_, s.labels.device(), s.stream);
    images = d.convex.data<bool>();
  }
  if (d.labels.dtype() == DType::int32)
    md::cuda_hull3d_regions<std::int32_t>(d.labels, s.st.label, s.st.lo, s.st.hi, images,
                                          want_image ? &d.crop_off : nullptr, d.area_convex, s.stream);
  else
    md::cuda_hull3d_regions<std::int64_t>(d.labels, s.st.label, s.st.lo, s.st.hi, images,
                                          want_image ? &d.crop_off : nullptr, d.area_convex, s.stream);
  d.has_area_convex = true;
}

/// Region r's crop of a packed bool buffer, as a new array of the crop's shape.
Array packed_crop(const RegionSet& s, const Array& packed, std::int64_t r) {
  Shape shape;
  for (int a = 0; a < s.ndim; ++a) shape.push_back(s.st.hi[r * s.ndim + a] - s.st.lo[r * s.ndim + a]);
  const auto& off = s.dev->crop_off;
  return packed.slice({Slice{off[r], off[r + 1]}}).reshape(shape).copy(s.stream);
}

void need_order(const RegionSet& s, DeviceShapes& d) {
  if (d.order.valid()) return;
  const std::int64_t maxl = s.st.n > 0 ? s.st.label.back() : 0;
  d.order = cuda_region_order(d.labels, maxl, d.pix_off.back(), s.stream);
}

}  // namespace

Array RegionSet::device_coords(std::int64_t r, bool scaled) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  Array& packed = scaled ? d.coords_scaled : d.coords;
  if (!packed.valid()) {
    need_order(*this, d);
    packed = cuda_order_coords(d.order, d.pix_off.back(), labels.shape(), offset, scaled ? &spacing : nullptr, stream);
  }
  return packed.slice({Slice{d.pix_off[r], d.pix_off[r + 1]}, Slice{}}).copy(stream);
}

std::vector<double> RegionSet::device_median(std::int64_t r) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  if (!d.has_median) {
    need_order(*this, d);
    d.median = cuda_region_median(intensity, nch, d.order, d.pix_off, stream);
    d.has_median = true;
  }
  return std::vector<double>(d.median.begin() + r * nch, d.median.begin() + (r + 1) * nch);
}

std::int64_t RegionSet::device_area_filled(std::int64_t r) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  if (!d.has_area_filled) {
    Array unused;
    cuda_region_filled(d.labels, st, d.crop_off, false, unused, d.area_filled, stream);
    d.has_area_filled = true;
  }
  return d.area_filled[r];
}

Array RegionSet::device_image_filled(std::int64_t r) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  if (!d.filled.valid()) {
    cuda_region_filled(d.labels, st, d.crop_off, true, d.filled, d.area_filled, stream);
    d.has_area_filled = true;
  }
  return packed_crop(*this, d.filled, r);
}

std::int64_t RegionSet::device_area_convex(std::int64_t r) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  if (!d.has_area_convex && ndim == 3) hull3d_all(*this, d, false);
  if (!d.has_area_convex) {
    Array unused;
    std::vector<double> none;
    cuda_region_convex(d.labels, st, d.crop_off, spacing, false, false, unused, d.area_convex, none, stream);
    d.has_area_convex = true;
  }
  return d.area_convex[r];
}

Array RegionSet::device_image_convex(std::int64_t r) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  if (!d.convex.valid() && ndim == 3) hull3d_all(*this, d, true);
  if (!d.convex.valid()) {
    std::vector<double> none;
    cuda_region_convex(d.labels, st, d.crop_off, spacing, true, false, d.convex, d.area_convex, none, stream);
    d.has_area_convex = true;
  }
  return packed_crop(*this, d.convex, r);
}

double RegionSet::device_feret(std::int64_t r) const {
  DeviceGuard guard(labels.device().index());
  DeviceShapes& d = device_shapes();
  if (!d.has_feret) {
    Array unused;
    cuda_region_convex(d.labels, st, d.crop_off, spacing, false, true, unused, d.area_convex, d.feret2, stream);
    d.has_area_convex = d.has_feret = true;
  }
  return std::sqrt(d.feret2[r]);
}

}  // namespace cuskimage::measure::detail
