// filters.rank_order: sort, mark value changes, cumulative sum, scatter back (scikit-image's steps).
// CPU: std::sort of the indices; CUDA: CUB radix sort in kernels/filters/local_threshold.cu.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/filters/local_threshold.hpp"

namespace cuskimage::filters {
namespace {

constexpr std::string_view kFn = "filters.rank_order";
using RankOrderTypes = cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                                std::int32_t, std::uint64_t, std::int64_t, float, double>;

/// np.min_scalar_type(size) for a non-negative size.
DType min_scalar_type(std::int64_t n) {
  if (n <= 255) return DType::uint8;
  if (n <= 65535) return DType::uint16;
  if (n <= 4294967295LL) return DType::uint32;
  return DType::uint64;
}

template <class T>
Array cpu_rank_order(const Array& img, Array& labels) {
  const Array c = img.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t n = c.size();
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // NaNs sort last (as NumPy's sort); each NaN counts as a new value (NaN != NaN).
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    if constexpr (std::is_floating_point_v<T>) return v[a] < v[b] || (v[a] == v[a] && v[b] != v[b]);
    else return v[a] < v[b];
  });
  std::vector<std::uint64_t> rank(static_cast<std::size_t>(n));
  std::vector<T> uniq;
  std::uint64_t r = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0 && v[order[i]] != v[order[i - 1]]) ++r;
    if (i == 0 || v[order[i]] != v[order[i - 1]]) uniq.push_back(v[order[i]]);
    rank[order[i]] = r;
  }
  Array lab64 = Array::from_vector(rank, c.shape());
  labels = lab64.astype(labels.dtype());
  return Array::from_vector(uniq, {static_cast<std::int64_t>(uniq.size())});
}

}  // namespace

RankOrderResult rank_order(const Array& image, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect(image.size() > 0, kFn, "image", "must not be empty, got shape ",
                            shape_str(image.shape()));
  RankOrderResult res;
  const DType ldt = min_scalar_type(image.size());
  cuskimage::detail::dispatch<RankOrderTypes>(image.dtype(), kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream,
        [&] {
          res.labels = Array::empty(image.shape(), ldt);
          res.original_values = cpu_rank_order<T>(image, res.labels);
        },
        [&](const Stream&) {
          const Array c = image.contiguous(stream);
          res.labels = Array::empty(image.shape(), ldt, image.device(), stream);
          res.original_values = detail::cuda_rank_order<T>(c, res.labels, stream);
        });
  });
  return res;
}

}  // namespace cuskimage::filters
