// segmentation.watershed: argument handling (scikit-image's _validate_inputs and
// _validate_connectivity) and the CPU backend, scikit-image's priority flood reproduced step for
// step so that ties resolve identically: the image is padded by the footprint offset, neighbours
// are raveled offsets in the padded layout sorted by distance, and a binary heap orders the queue
// by (value, age) with the same sift-up / sift-down rules (equal-age markers then pop in the same
// order as scikit-image's).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/segmentation/watershed.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/watershed.hpp"

namespace cuskimage::segmentation {
namespace detail {

namespace {

struct HeapItem {
  double value;
  std::int32_t age;  // scikit-image stores the age as int32
  std::int64_t index;
  std::int64_t source;
};

inline bool smaller(const HeapItem& a, const HeapItem& b) {
  if (a.value != b.value) return a.value < b.value;
  return a.age < b.age;
}

/// scikit-image's heap (heap_general.pxi): push sifts up while strictly smaller than the parent;
/// pop moves the last item to the root and sifts it down, preferring the left child on ties.
class Heap {
 public:
  bool empty() const { return v_.empty(); }
  void push(const HeapItem& e) {
    v_.push_back(e);
    std::size_t c = v_.size() - 1;
    while (c > 0) {
      const std::size_t p = (c + 1) / 2 - 1;
      if (!smaller(v_[c], v_[p])) break;
      std::swap(v_[c], v_[p]);
      c = p;
    }
  }
  HeapItem pop() {
    const HeapItem top = v_[0];
    v_[0] = v_.back();
    v_.pop_back();
    const std::size_t n = v_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t l = 2 * i + 1, r = 2 * i + 2;
      std::size_t s = i;
      if (l >= n) break;
      if (smaller(v_[l], v_[i])) s = l;
      if (r < n && smaller(v_[r], v_[s])) s = r;
      if (s == i) break;
      std::swap(v_[i], v_[s]);
      i = s;
    }
    return top;
  }

 private:
  std::vector<HeapItem> v_;
};

double euclid_dist(std::int64_t a, std::int64_t b, const std::vector<std::int64_t>& strides) {
  double r = 0;
  for (const std::int64_t s : strides) {
    const double c = static_cast<double>(a / s - b / s);
    r += c * c;
    a %= s;
    b %= s;
  }
  return std::sqrt(r);
}

/// scikit-image's _diff_neighbors: true (and the pixel becomes line: mask cleared) when a
/// neighbour inside the mask carries another non-zero label.
bool diff_neighbours(const FloodGrid& g, std::vector<std::int8_t>& mask, std::vector<std::int64_t>& out,
                     std::int64_t index, std::int64_t label) {
  if (!mask[index]) return true;
  for (const std::int64_t o : g.neighbours) {
    const std::int64_t j = index + o;
    if (j < 0 || j >= g.size || !mask[j]) continue;
    if (out[j] != 0 && out[j] != label) {
      mask[index] = 0;
      return true;
    }
  }
  return false;
}

}  // namespace

void flood(const FloodGrid& g, const std::vector<double>& image, std::vector<std::int8_t>& mask,
           std::vector<std::int64_t>& out, double compactness, bool watershed_line) {
  const bool compact = compactness > 0;
  Heap heap;
  for (std::int64_t i = 0; i < g.size; ++i)
    if (out[i] != 0) heap.push({image[i], 0, i, i});
  std::int64_t age = 1;
  while (!heap.empty()) {
    const HeapItem e = heap.pop();
    if (compact || watershed_line) {
      // Labelled as it leaves the queue: a pixel may be queued more than once.
      if (out[e.index] != 0 && e.index != e.source) continue;
      if (compact || !diff_neighbours(g, mask, out, e.index, out[e.source])) out[e.index] = out[e.source];
    }
    for (const std::int64_t o : g.neighbours) {
      const std::int64_t j = e.index + o;
      if (j < 0 || j >= g.size || !mask[j] || out[j] != 0) continue;
      ++age;
      HeapItem n{image[j], static_cast<std::int32_t>(age), j, e.source};
      if (compact)
        n.value += compactness * euclid_dist(j, e.source, g.strides);
      else if (!watershed_line)
        out[j] = out[e.index];
      if (n.value < e.value) n.value = e.value;  // never cheaper than the pixel it spills from
      heap.push(n);
    }
  }
}

}  // namespace detail

namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "segmentation.watershed";

enum class MarkerKind { array, count, none };

/// scipy's generate_binary_structure(ndim, connectivity) as uint8.
Array binary_structure(int nd, int connectivity) {
  const Shape s(static_cast<std::size_t>(nd), 3);
  Array fp = Array::zeros(s, DType::uint8);
  auto* p = fp.data<std::uint8_t>();
  for (std::int64_t i = 0; i < fp.size(); ++i) {
    std::int64_t r = i;
    int hops = 0;
    for (int k = 0; k < nd; ++k, r /= 3) hops += (r % 3) != 1;
    p[i] = hops <= connectivity ? 1 : 0;
  }
  return fp;
}

/// The neighbour offsets of scikit-image's _offsets_to_raveled_neighbors in the padded layout.
std::vector<std::int64_t> raveled_neighbours(const Array& fp_host, const std::vector<int>& center,
                                             const Shape& padded) {
  const int nd = fp_host.ndim();
  const Array fp = fp_host.astype(DType::bool_).contiguous();
  const bool* f = fp.data<bool>();
  const Shape& fs = fp.shape();
  std::vector<std::int64_t> pst(nd, 1);
  for (int k = nd - 2; k >= 0; --k) pst[k] = pst[k + 1] * padded[k + 1];
  std::vector<std::int64_t> offs;
  std::vector<double> dist;
  std::vector<std::int64_t> c(nd, 0);
  for (std::int64_t i = 0; i < fp.size(); ++i) {
    std::int64_t r = i;
    for (int k = nd - 1; k >= 0; --k) {
      c[k] = r % fs[k];
      r /= fs[k];
    }
    if (!f[i]) continue;
    std::int64_t o = 0;
    double d2 = 0;
    for (int k = 0; k < nd; ++k) {
      const std::int64_t dk = c[k] - center[k];
      o += dk * pst[k];
      d2 += static_cast<double>(dk * dk);
    }
    offs.push_back(o);
    dist.push_back(std::sqrt(d2));
  }
  std::vector<std::size_t> ord(offs.size());
  std::iota(ord.begin(), ord.end(), 0);
  std::stable_sort(ord.begin(), ord.end(), [&](std::size_t a, std::size_t b) { return dist[a] < dist[b]; });
  std::vector<std::int64_t> sorted;
  for (const std::size_t i : ord) sorted.push_back(offs[i]);
  bool small = false;
  for (int k = 0; k < nd; ++k) small |= padded[k] < fs[k];
  if (small) {  // duplicates possible: keep each offset's first occurrence
    std::vector<std::int64_t> u;
    for (const std::int64_t o : sorted)
      if (std::find(u.begin(), u.end(), o) == u.end()) u.push_back(o);
    sorted = std::move(u);
  }
  if (!sorted.empty()) sorted.erase(sorted.begin());  // scikit-image drops the first (the centre)
  return sorted;
}

/// Labels of the markers=None case: label(local_minima(image) * mask).
Array minima_markers(const Array& image, const Array& mask, int connectivity, const Stream& stream) {
  const int nd = image.ndim();
  expect(connectivity >= 1, kFn, "connectivity", "must be >= 1 when markers are the local minima, got ",
         connectivity);
  const DType dt = image.dtype();
  const bool native = dt == DType::bool_ || dt == DType::uint8 || dt == DType::uint16 || dt == DType::int32 ||
                      dt == DType::float32 || dt == DType::float64;
  const bool widen = dt == DType::int8 || dt == DType::int16;
  const Array conv = native ? image.share() : image.astype(widen ? DType::int32 : DType::float64, stream);
  morphology::LocalExtremaOptions lo;
  lo.connectivity = std::min(connectivity, nd);
  Array minima = morphology::local_minima(conv, lo, stream);
  if (mask.valid()) minima = minima.astype(DType::uint8, stream);
  Array host = minima.to(Device::cpu(), stream);
  stream.synchronize();
  if (mask.valid()) {
    auto* m = host.data<std::uint8_t>();
    const Array mh = mask.to(Device::cpu(), stream).astype(DType::bool_).contiguous();
    const bool* mp = mh.data<bool>();
    for (std::int64_t i = 0; i < host.size(); ++i) m[i] = mp[i] ? m[i] : 0;
  }
  measure::LabelOptions lab;
  lab.connectivity = std::min(connectivity, nd);
  lab.dtype = DType::int32;
  return measure::label(host, lab);
}

/// The validated footprint (host) and its centre.
struct Neighbourhood {
  Array fp;
  std::vector<int> center;
};

Neighbourhood neighbourhood(int nd, const WatershedOptions& opts, const Stream& stream) {
  Neighbourhood nb;
  nb.fp = opts.footprint.valid() ? opts.footprint.to(Device::cpu(), stream) : binary_structure(nd, opts.connectivity);
  stream.synchronize();
  expect(nb.fp.ndim() == nd, kFn, "connectivity", "dimension must be same as image: footprint of ", nb.fp.ndim(),
         " dimensions for a ", nd, "-D image");
  nb.center = opts.offset;
  if (nb.center.empty()) {
    for (int k = 0; k < nd; ++k) {
      expect(nb.fp.shape()[k] % 2 == 1, kFn, "connectivity", "array must have an unambiguous center, got shape ",
             shape_str(nb.fp.shape()));
      nb.center.push_back(static_cast<int>(nb.fp.shape()[k] / 2));
    }
  }
  expect(static_cast<int>(nb.center.size()) == nd, kFn, "offset", "must have one entry per axis (", nd, "), got ",
         nb.center.size());
  for (const int c : nb.center) expect(c >= 0, kFn, "offset", "entries must be non-negative, got ", c);
  return nb;
}

/// The (dz, dy, dx) steps of a 3^nd footprint centred at 1 that contains its centre (the device
/// relaxation's neighbourhood); empty when the footprint is any other (the exact flood then runs).
std::vector<int> device_steps(const Neighbourhood& nb) {
  const int nd = nb.fp.ndim();
  if (nd > 3) return {};
  for (int k = 0; k < nd; ++k)
    if (nb.fp.shape()[k] != 3 || nb.center[k] != 1) return {};
  const Array f = nb.fp.astype(DType::bool_).contiguous();
  const bool* p = f.data<bool>();
  std::int64_t mid = 0;
  for (int k = 0; k < nd; ++k) mid = mid * 3 + 1;
  if (!p[mid]) return {};
  std::vector<int> steps;
  for (std::int64_t i = 0; i < f.size(); ++i) {
    if (!p[i] || i == mid) continue;
    int d[3] = {0, 0, 0};
    std::int64_t r = i;
    for (int k = nd - 1; k >= 0; --k, r /= 3) d[3 - nd + k] = static_cast<int>(r % 3) - 1;
    steps.insert(steps.end(), {d[0], d[1], d[2]});
  }
  return steps;
}

/// The exact flood on the host: scikit-image's padded raveled layout.
Array host_flood(const Array& image, const Array& mk, const Array& mask_b, const Neighbourhood& nb,
                 const WatershedOptions& opts, const Stream& stream) {
  const int nd = image.ndim();
  const Shape& shape = image.shape();
  const std::int64_t size = image.size();
  const std::vector<int>& center = nb.center;
  Shape padded(nd);
  for (int k = 0; k < nd; ++k) padded[k] = shape[k] + 2 * center[k];
  detail::FloodGrid g;
  g.size = 1;
  for (const auto s : padded) g.size *= s;
  g.strides.assign(nd, 1);
  for (int k = nd - 2; k >= 0; --k) g.strides[k] = g.strides[k + 1] * padded[k + 1];
  g.neighbours = raveled_neighbours(nb.fp, center, padded);

  const Array img = image.to(Device::cpu(), stream).astype(DType::float64).contiguous();
  stream.synchronize();
  std::vector<double> pimg(g.size, 0.0);
  std::vector<std::int8_t> pmask(g.size, 0);
  std::vector<std::int64_t> pout(g.size, 0);
  const double* ip = img.data<double>();
  const std::int64_t* mp = mk.data<std::int64_t>();
  const bool* maskp = mask_b.valid() ? mask_b.data<bool>() : nullptr;
  auto padded_index = [&](std::int64_t i) {
    std::int64_t r = i, p = 0;
    for (int k = nd - 1; k >= 0; --k) {
      p += (r % shape[k] + center[k]) * g.strides[k];
      r /= shape[k];
    }
    return p;
  };
  for (std::int64_t i = 0; i < size; ++i) {
    const std::int64_t p = padded_index(i);
    const bool in = maskp ? maskp[i] : true;
    pimg[p] = ip[i];
    pmask[p] = in ? 1 : 0;
    pout[p] = in ? mp[i] : 0;
  }
  detail::flood(g, pimg, pmask, pout, opts.compactness, opts.watershed_line);

  Array res = Array::empty(shape, DType::int64);
  auto* rp = res.data<std::int64_t>();
  for (std::int64_t i = 0; i < size; ++i) rp[i] = pout[padded_index(i)];
  return res;
}

Array run(const Array& image, MarkerKind kind, const Array* markers_in, std::int64_t n_markers,
          const WatershedOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  const int nd = image.ndim();
  expect(nd >= 1, kFn, "image", "must have at least one dimension, got a 0-D array");
  expect(!(opts.compactness < 0) && !std::isnan(opts.compactness), kFn, "compactness",
         "must be non-negative, got ", opts.compactness);
  const Shape& shape = image.shape();
  const std::int64_t size = image.size();
  if (opts.mask.valid())
    expect(opts.mask.shape() == shape, kFn, "mask", "(shape ", shape_str(opts.mask.shape()),
           ") must have same shape as `image` (shape ", shape_str(shape), ")");
  const Neighbourhood nb = neighbourhood(nd, opts, stream);
  DType out_dt = kind == MarkerKind::none ? DType::int32 : DType::int64;
  if (kind == MarkerKind::array) {
    const Array& m = *markers_in;
    cuskimage::detail::expect_valid(m, kFn, "markers");
    expect(m.shape() == shape, kFn, "markers", "(shape ", shape_str(m.shape()), ") must have same shape as `image` (shape ",
           shape_str(shape), ")");
    expect(is_integer(m.dtype()), kFn, "markers", "must have an integer dtype, got ", dtype_name(m.dtype()));
    out_dt = m.dtype();
  }
  if (kind == MarkerKind::none)
    expect(!opts.footprint.valid(), kFn, "connectivity",
           "must be an integer when the markers are the local minima (markers=None)");

  // CUDA: the parallel relaxation where it applies (see watershed.hpp); else the exact flood.
  const std::vector<int> steps = device_steps(nb);
  const bool on_device = !image.device().is_cpu();
  const bool relax = on_device && kind != MarkerKind::none && opts.compactness == 0 && !opts.watershed_line &&
                     !steps.empty() && size < (std::int64_t(1) << 31);
  Array mask_b;
  std::int64_t n_pixels = size;
  if (opts.mask.valid() && (!relax || kind == MarkerKind::count)) {
    mask_b = opts.mask.to(Device::cpu(), stream).astype(DType::bool_).contiguous();
    stream.synchronize();
    n_pixels = 0;
    for (std::int64_t i = 0; i < size; ++i) n_pixels += mask_b.data<bool>()[i];
  }
  std::int64_t n_seeds = 0;
  if (kind == MarkerKind::count) {  // scikit-image asks for n_markers within the mask
    expect(n_pixels > 0, kFn, "mask", "has no pixel set: cannot place ", n_markers, " markers");
    const double frac = static_cast<double>(n_pixels) / static_cast<double>(size);
    n_seeds = static_cast<std::int64_t>(static_cast<double>(n_markers) / frac);
  }
  if (relax) {
    const Device dev = image.device();
    const cuskimage::detail::DeviceGuard guard(dev.index());
    const Array img = image.astype(DType::float64, stream).contiguous(stream);
    const Array mk = kind == MarkerKind::array
                         ? markers_in->to(dev, stream).astype(DType::int64, stream).contiguous(stream)
                         : util::regular_seeds(shape, n_seeds, DType::int64, dev, stream);
    const Array msk = opts.mask.valid() ? opts.mask.to(dev, stream).astype(DType::bool_, stream).contiguous(stream)
                                        : Array::full(shape, 1, DType::bool_, dev, stream);
    Array out = Array::empty(shape, DType::int64, dev, stream);
    detail::cuda_relax(img, msk, mk, steps, out, stream);
    return out_dt == DType::int64 ? std::move(out) : out.astype(out_dt, stream);
  }

  Array mk;
  if (kind == MarkerKind::array)
    mk = markers_in->to(Device::cpu(), stream).astype(DType::int64).contiguous();
  else if (kind == MarkerKind::count)
    mk = util::regular_seeds(shape, n_seeds, DType::int64);
  else
    mk = minima_markers(image, mask_b, opts.connectivity, stream).astype(DType::int64);
  stream.synchronize();
  Array typed = host_flood(image, mk, mask_b, nb, opts, stream).astype(out_dt);
  return on_device ? typed.to(image.device(), stream) : std::move(typed);
}

}  // namespace

Array watershed(const Array& image, const Array& markers, const WatershedOptions& opts, const Stream& stream) {
  return run(image, MarkerKind::array, &markers, 0, opts, stream);
}

Array watershed(const Array& image, std::int64_t n_markers, const WatershedOptions& opts, const Stream& stream) {
  return run(image, MarkerKind::count, nullptr, n_markers, opts, stream);
}

Array watershed(const Array& image, const WatershedOptions& opts, const Stream& stream) {
  return run(image, MarkerKind::none, nullptr, 0, opts, stream);
}

}  // namespace cuskimage::segmentation
