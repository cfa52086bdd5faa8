// apply_hysteresis_threshold (CPU: sequential union-find over face neighbours, any ndim) and
// try_all_threshold (the seven global thresholds, then image > threshold).
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/filters/hysteresis.hpp"

namespace cuskimage::filters {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::expect;

std::int64_t find_root(std::vector<std::int64_t>& p, std::int64_t x) {
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}

template <class T>
void cpu_hysteresis(const Array& img, Array& out, double low, double high) {
  const Array c = img.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t n = c.size();
  const int nd = c.ndim();
  const Strides st = contiguous_strides(c.shape());
  std::vector<std::int64_t> parent(static_cast<std::size_t>(n), -1);
  for (std::int64_t i = 0; i < n; ++i)
    if (detail::greater<T>(v[i], low, false)) parent[i] = i;
  for (std::int64_t i = 0; i < n; ++i) {
    if (parent[i] < 0) continue;
    for (int d = 0; d < nd; ++d) {
      const std::int64_t coord = (i / st[d]) % c.shape()[d];
      if (coord == 0 || parent[i - st[d]] < 0) continue;
      const std::int64_t a = find_root(parent, i), b = find_root(parent, i - st[d]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<std::uint8_t> mark(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i)
    if (parent[i] >= 0 && detail::greater<T>(v[i], high, true)) mark[find_root(parent, i)] = 1;
  Array res = Array::empty(c.shape(), DType::bool_);
  bool* o = static_cast<bool*>(res.data());
  for (std::int64_t i = 0; i < n; ++i) o[i] = parent[i] >= 0 && mark[find_root(parent, i)] != 0;
  out = std::move(res);
}

template <class T>
void cpu_greater(const Array& img, Array& out, double t, bool f32) {
  const Array c = img.contiguous();
  const T* v = static_cast<const T*>(c.data());
  bool* o = static_cast<bool*>(out.data());
  for (std::int64_t i = 0; i < c.size(); ++i) o[i] = detail::greater<T>(v[i], t, f32);
}

/// image > t (bool, the image's shape and device), compared as NumPy does with a weak scalar.
Array greater_mask(const Array& image, double t, std::string_view fn, const Stream& stream) {
  Array out = Array::empty(image.shape(), DType::bool_, image.device(), stream);
  cuskimage::detail::dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_greater<T>(image, out, t, true); },
        [&](const Stream& s) {
          const Array c = image.contiguous(stream);
          detail::cuda_greater<T>(c, out, t, true, s);
        });
  });
  return out;
}

}  // namespace

Array apply_hysteresis_threshold(const Array& image, double low, double high, const Stream& stream) {
  constexpr std::string_view fn = "filters.apply_hysteresis_threshold";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1 && image.ndim() <= cuskimage::detail::kMaxDims, fn, "image", "must have 1 to ",
         cuskimage::detail::kMaxDims, " dimensions, got ", image.ndim());
  const double lo = low < high ? low : high;  // np.clip(low, None, high); NaN low stays NaN
  const double lo_c = low != low ? low : lo;
  Array out;
  cuskimage::detail::dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_hysteresis<T>(image, out, lo_c, high); },
        [&](const Stream& s) {
          if (image.ndim() > 3)
            cuskimage::detail::fail<NotSupported>(fn, "argument 'image' must be 1-D to 3-D on a CUDA device, got ",
                                                  image.ndim(), "-D");
          const Array c = image.contiguous(stream);
          out = Array::empty(image.shape(), DType::bool_, image.device(), stream);
          detail::cuda_hysteresis<T>(c, out, lo_c, high, s);
        });
  });
  return out;
}

std::vector<std::pair<std::string, Array>> try_all_threshold(const Array& image, const Stream& stream) {
  constexpr std::string_view fn = "filters.try_all_threshold";
  cuskimage::detail::expect_valid(image, fn, "image");
  std::vector<std::pair<std::string, Array>> r;
  r.emplace_back("Isodata", greater_mask(image, threshold_isodata(image, {}, stream), fn, stream));
  r.emplace_back("Li", greater_mask(image, threshold_li(image, {}, stream), fn, stream));
  r.emplace_back("Mean", greater_mask(image, threshold_mean(image, stream), fn, stream));
  r.emplace_back("Minimum", greater_mask(image, threshold_minimum(image, {}, stream), fn, stream));
  r.emplace_back("Otsu", greater_mask(image, threshold_otsu(image, {}, stream), fn, stream));
  r.emplace_back("Triangle", greater_mask(image, threshold_triangle(image, {}, stream), fn, stream));
  r.emplace_back("Yen", greater_mask(image, threshold_yen(image, {}, stream), fn, stream));
  return r;
}

}  // namespace cuskimage::filters
