// segmentation.expand_labels: scikit-image's recipe on the library's EDT (ndimage
// distance_transform_edt with return_indices, whose feature ties are scipy's), then one gather pass.
#include "cuskimage/segmentation/expand_labels.hpp"

#include <cstdint>
#include <string_view>

#include "cuskimage/ndimage.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/expand_labels.hpp"

namespace cuskimage::segmentation {

Array expand_labels(const Array& label_image, const ExpandLabelsOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "segmentation.expand_labels";
  cuskimage::detail::expect_valid(label_image, fn, "label_image");
  const int nd = label_image.ndim();
  cuskimage::detail::expect(nd >= 1 && nd <= cuskimage::detail::kMaxDims, fn, "label_image", "must have 1 to ",
                            cuskimage::detail::kMaxDims, " dimensions, got ", nd);
  Array out = Array::empty(label_image.shape(), label_image.dtype(), label_image.device(), stream);
  const std::int64_t n = out.size();
  if (n == 0) return out;
  const detail::Grid g = detail::grid_of(label_image);
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(label_image.dtype(), fn, [&]<class T>() {
    const T* lab = static_cast<const T*>(label_image.data());
    Array zero = Array::empty(label_image.shape(), DType::bool_, label_image.device(), stream);
    bool* z = static_cast<bool*>(zero.data());
    cuskimage::detail::on_backend(
        label_image, stream,
        [&] {
          for (std::int64_t i = 0; i < n; ++i) z[i] = lab[detail::grid_offset(g, i)] == T(0);
        },
        [&](auto) { detail::cuda_zero_mask<T>(lab, g, z, n, stream); });
    const ndimage::EdtResult edt = ndimage::distance_transform_edt(
        zero, {.sampling = opts.spacing, .return_distances = true, .return_indices = true}, stream);
    detail::ExpandRule<T> rule;
    rule.label = lab;
    rule.g = g;
    rule.dist = static_cast<const double*>(edt.distances.data());
    rule.ind = static_cast<const std::int32_t*>(edt.indices.data());
    rule.out = static_cast<T*>(out.data());
    rule.distance = opts.distance;
    rule.n = n;
    cuskimage::detail::on_backend(
        label_image, stream,
        [&] {
          for (std::int64_t i = 0; i < n; ++i) rule(i);
        },
        [&](auto) { detail::cuda_expand<T>(rule, stream); });
  });
  return out;
}

}  // namespace cuskimage::segmentation
