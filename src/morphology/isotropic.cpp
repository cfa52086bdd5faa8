// skimage.morphology.isotropic_{erosion,dilation,opening,closing}: thresholds of the exact Euclidean
// distance transform (ndimage::distance_transform_edt) on the image's device.
#include <cmath>
#include <string>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/isotropic_ops.hpp"

namespace cuskimage::morphology {

namespace {

using cuskimage::detail::expect;

void check(const Array& image, const Array& out, const IsotropicOptions& o, std::string_view fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least 1 dimension, got 0-D");
  cuskimage::detail::expect_valid(out, fn, "out");
  expect(out.dtype() == DType::bool_, fn, "out", "must be bool, got ", dtype_name(out.dtype()));
  cuskimage::detail::expect_same_shape(image, out, fn, "image", "out");
  cuskimage::detail::expect_same_device(image, out, fn, "image", "out");
  const auto& s = o.spacing;
  expect(s.size() <= 1 || static_cast<int>(s.size()) == image.ndim(), fn, "spacing",
         "must have one value or one per axis (", image.ndim(), "), got ", s.size(), " values");
  for (double v : s) expect(std::isfinite(v) && v > 0.0, fn, "spacing", "must be positive and finite, got ", v);
}

/// out = threshold(EDT(src)), where src is the image (erosion) or its inverse (dilation).
void threshold_edt(const Array& src, Array& out, double radius, bool erode, const IsotropicOptions& o,
                   const Stream& stream) {
  const Array dist = ndimage::distance_transform_edt(src, {.sampling = o.spacing}, stream).distances;
  const detail::EdtThreshold f{radius, erode};
  if (out.device().is_cpu()) {
    cuskimage::detail::cpu_map<double, bool>(dist, out, f);
  } else {
    cuskimage::detail::DeviceGuard g(out.device().index());
    detail::cuda_edt_threshold(dist, out, f, stream);
  }
}

void erode(const Array& image, double radius, Array& out, const IsotropicOptions& o, const Stream& stream) {
  threshold_edt(image, out, radius, true, o, stream);
}

void dilate(const Array& image, double radius, Array& out, const IsotropicOptions& o, const Stream& stream) {
  Array inv = image.astype(DType::bool_, stream);  // a fresh contiguous copy, inverted in place
  if (inv.device().is_cpu()) {
    cuskimage::detail::cpu_map<bool, bool>(inv, inv, detail::LogicalNot{});
  } else {
    cuskimage::detail::DeviceGuard g(inv.device().index());
    detail::cuda_logical_not(inv, inv, stream);
  }
  threshold_edt(inv, out, radius, false, o, stream);
}

Array new_out(const Array& image, std::string_view fn, const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  return Array::empty(image.shape(), DType::bool_, image.device(), stream);
}

}  // namespace

void isotropic_erosion_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts,
                            const Stream& stream) {
  check(image, out, opts, "morphology.isotropic_erosion");
  erode(image, radius, out, opts, stream);
}

void isotropic_dilation_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts,
                             const Stream& stream) {
  check(image, out, opts, "morphology.isotropic_dilation");
  dilate(image, radius, out, opts, stream);
}

void isotropic_opening_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts,
                            const Stream& stream) {
  check(image, out, opts, "morphology.isotropic_opening");
  erode(image, radius, out, opts, stream);
  dilate(out, radius, out, opts, stream);
}

void isotropic_closing_into(const Array& image, double radius, Array& out, const IsotropicOptions& opts,
                            const Stream& stream) {
  check(image, out, opts, "morphology.isotropic_closing");
  dilate(image, radius, out, opts, stream);
  erode(out, radius, out, opts, stream);
}

Array isotropic_erosion(const Array& image, double radius, const IsotropicOptions& opts, const Stream& stream) {
  Array out = new_out(image, "morphology.isotropic_erosion", stream);
  isotropic_erosion_into(image, radius, out, opts, stream);
  return out;
}

Array isotropic_dilation(const Array& image, double radius, const IsotropicOptions& opts, const Stream& stream) {
  Array out = new_out(image, "morphology.isotropic_dilation", stream);
  isotropic_dilation_into(image, radius, out, opts, stream);
  return out;
}

Array isotropic_opening(const Array& image, double radius, const IsotropicOptions& opts, const Stream& stream) {
  Array out = new_out(image, "morphology.isotropic_opening", stream);
  isotropic_opening_into(image, radius, out, opts, stream);
  return out;
}

Array isotropic_closing(const Array& image, double radius, const IsotropicOptions& opts, const Stream& stream) {
  Array out = new_out(image, "morphology.isotropic_closing", stream);
  isotropic_closing_into(image, radius, out, opts, stream);
  return out;
}

}  // namespace cuskimage::morphology
