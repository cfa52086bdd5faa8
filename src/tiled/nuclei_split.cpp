// The nuclei job's watershed split of touching nuclei, per tile (tiled::nuclei explains the pipeline
// and how its halo is chosen): the library's EDT, peak_local_max and watershed on the tile's device
// and stream, glued by the small steps below (kernels/tiled/nuclei_ops.cu on the CUDA backend).
#include <algorithm>
#include <climits>
#include <cstdint>

#include "cuskimage/error.hpp"
#include "cuskimage/feature/peak.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/segmentation/watershed.hpp"
#include "src/tiled/nuclei_ops.hpp"

namespace cuskimage::tiled::detail {
namespace {

Array negate(const Array& x, const Stream& s) {
  Array out = Array::empty(x.shape(), DType::float64, x.device(), s);
  if (x.device().is_cuda()) {
    cuda_negate(x.data<double>(), x.size(), out.data<double>(), s);
    return out;
  }
  const double* p = x.data<double>();
  double* o = out.data<double>();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < x.size(); ++i) o[i] = -p[i];
  return out;
}

/// int32 (h, w) markers numbered 1..n in peak order.
Array peak_markers(const Array& peaks, std::int64_t h, std::int64_t w, const Stream& s) {
  Array m = Array::empty({h, w}, DType::int32, peaks.device(), s);
  const std::int64_t n = peaks.shape(0);
  if (peaks.device().is_cuda()) {
    cuda_peak_markers(peaks.data<std::int64_t>(), n, h, w, m.data<std::int32_t>(), s);
    return m;
  }
  std::int32_t* q = m.data<std::int32_t>();
  std::fill(q, q + h * w, 0);
  const std::int64_t* p = peaks.data<std::int64_t>();
  for (std::int64_t k = 0; k < n; ++k) q[p[2 * k] * w + p[2 * k + 1]] = static_cast<std::int32_t>(k + 1);
  return m;
}

/// The watershed's labels, a component without a peak (left 0 by the masked flood) as label
/// n_peaks + its component label, and each label's key: its first pixel on the level.
TileObjects finish(const Array& ws, const Array& comp, std::int64_t n_peaks, std::int64_t n_comp, std::int64_t y0,
                   std::int64_t x0, const Stream& s) {
  const std::int64_t h = ws.shape(0), w = ws.shape(1), n = n_peaks + n_comp;
  if (n > INT32_MAX) throw InvalidArgument("tiled::nuclei: too many objects in one tile for int32 labels");
  TileObjects r;
  r.labels = Array::empty({h, w}, DType::int32, ws.device(), s);
  Array first = Array::empty({n}, DType::int64, ws.device(), s);
  if (ws.device().is_cuda()) {
    cuda_split_finish(ws.data<std::int32_t>(), comp.data<std::int32_t>(), h, w, n_peaks, n, y0, x0,
                      r.labels.data<std::int32_t>(), first.data<std::int64_t>(), s);
    const Array hf = first.to(Device::cpu(), s);
    r.keys.assign(hf.data<std::int64_t>(), hf.data<std::int64_t>() + n);
    return r;
  }
  const std::int32_t *a = ws.data<std::int32_t>(), *c = comp.data<std::int32_t>();
  std::int32_t* o = r.labels.data<std::int32_t>();
  r.keys.assign(static_cast<std::size_t>(n), -1);
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x) {
      const std::int64_t i = y * w + x;
      const std::int32_t l = a[i] > 0 ? a[i] : (c[i] > 0 ? static_cast<std::int32_t>(n_peaks) + c[i] : 0);
      o[i] = l;
      if (l > 0 && r.keys[l - 1] < 0) r.keys[l - 1] = ((y0 + y) << 32) | (x0 + x);  // raster order: the first
    }
  return r;
}

}  // namespace

TileObjects split_nuclei(const Array& mask, std::int64_t y0, std::int64_t x0, std::int64_t min_distance,
                         std::int64_t footprint, int connectivity, const Stream& s) {
  measure::LabelOptions lo;
  lo.connectivity = connectivity;
  lo.dtype = DType::int32;
  const measure::LabelResult comp = measure::label_with_num(mask, lo, s);
  const Array edt = ndimage::distance_transform_edt(mask, {}, s).distances;
  feature::PeakLocalMaxOptions po;
  po.min_distance = min_distance;
  po.exclude_border = false;  // per label, the border is the label's bounding box: keep its peaks
  po.footprint = Array::full({2 * footprint + 1, 2 * footprint + 1}, 1.0, DType::bool_);
  po.labels = comp.labels.share();
  const Array peaks = feature::peak_local_max(edt, po, s).contiguous(s);
  const std::int64_t h = mask.shape(0), w = mask.shape(1);
  segmentation::WatershedOptions wo;
  wo.connectivity = connectivity;
  wo.mask = mask.share();
  const Array ws = segmentation::watershed(negate(edt, s), peak_markers(peaks, h, w, s), wo, s).contiguous(s);
  return finish(ws, comp.labels.contiguous(s), peaks.shape(0), comp.num, y0, x0, s);
}

}  // namespace cuskimage::tiled::detail
