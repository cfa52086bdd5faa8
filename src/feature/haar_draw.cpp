// feature.draw_haar_like_feature on the host (a drawing of a few rectangles; device images are
// copied over and back), with numpy's Generator.choice(replace=False) reproduced for max_n_features.
#include <cstdint>
#include <random>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/util.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/numpy_permutation.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.draw_haar_like_feature";

/// numpy's random_bounded_uint64(0, rng) for rng < 2^32: Lemire's method on buffered 32-bit draws
/// (interval(0xffffffff) is exactly one buffered 32-bit draw).
std::uint64_t bounded(morphology::detail::NumpyPermutation& g, std::uint64_t rng) {
  if (rng == 0) return 0;
  auto next32 = [&] { return static_cast<std::uint32_t>(g.interval(0xffffffffull)); };
  if (rng == 0xffffffffull) return next32();
  const std::uint32_t excl = static_cast<std::uint32_t>(rng) + 1;
  std::uint64_t m = static_cast<std::uint64_t>(next32()) * excl;
  std::uint32_t left = static_cast<std::uint32_t>(m);
  if (left < excl) {
    const std::uint32_t threshold = static_cast<std::uint32_t>((0xffffffffu - static_cast<std::uint32_t>(rng)) % excl);
    while (left < threshold) {
      m = static_cast<std::uint64_t>(next32()) * excl;
      left = static_cast<std::uint32_t>(m);
    }
  }
  return m >> 32;
}

/// np.random.default_rng(seed).choice(pop, size, replace=False) as indices (shuffle=True).
std::vector<std::int64_t> numpy_choice(std::uint64_t seed, std::int64_t pop, std::int64_t size) {
  morphology::detail::NumpyPermutation g(seed);
  std::vector<std::int64_t> idx;
  if (pop > 10000 && size > pop / 50) {  // tail shuffle
    idx.resize(static_cast<std::size_t>(pop));
    for (std::int64_t i = 0; i < pop; ++i) idx[i] = i;
    for (std::int64_t i = pop - 1; i >= std::max<std::int64_t>(pop - size, 1); --i)
      std::swap(idx[i], idx[bounded(g, static_cast<std::uint64_t>(i))]);
    return {idx.begin() + (pop - size), idx.end()};
  }
  std::unordered_set<std::int64_t> seen;  // Floyd's algorithm
  for (std::int64_t j = pop - size; j < pop; ++j) {
    const auto v = static_cast<std::int64_t>(bounded(g, static_cast<std::uint64_t>(j)));
    const std::int64_t pick = seen.count(v) ? j : v;
    seen.insert(pick);
    idx.push_back(pick);
  }
  for (std::int64_t i = size - 1; i >= 1; --i) std::swap(idx[i], idx[bounded(g, static_cast<std::uint64_t>(i))]);
  return idx;
}

template <class T>
void blend(Array& out, std::int64_t r, std::int64_t c, const HaarRect& rect, const std::vector<double>& color,
           double alpha) {
  T* p = out.data<T>();
  const std::int64_t cols = out.shape(1), ch = out.shape(2);
  for (std::int64_t y = rect.top_left[0] + r; y <= rect.bottom_right[0] + r; ++y)
    for (std::int64_t x = rect.top_left[1] + c; x <= rect.bottom_right[1] + c; ++x)
      for (std::int64_t k = 0; k < ch; ++k) {
        T& v = p[(y * cols + x) * ch + k];
        // numpy: (1 - alpha) * out is in the image's float dtype, + alpha * color in float64
        const T kept = static_cast<T>(1.0 - alpha) * v;
        v = static_cast<T>(static_cast<double>(kept) + alpha * color[static_cast<std::size_t>(k % 3)]);
      }
}

}  // namespace

Array draw_haar_like_feature(const Array& image, std::int64_t r, std::int64_t c, std::int64_t width,
                             std::int64_t height, const HaarFeatureCoord& feature_coord,
                             const DrawHaarLikeFeatureOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() == 2 || (image.ndim() == 3 && image.shape(2) == 3), kFn, "image",
         "must be 2-D or RGB (M, N, 3), got ", image.str());
  expect(opts.color_positive_block.size() == 3 && opts.color_negative_block.size() == 3, kFn, "color_positive_block",
         "and color_negative_block must be RGB triples");
  expect(feature_coord.coords.size() == feature_coord.types.size() || feature_coord.types.empty(), kFn,
         "feature_coord", "inconsistent size between feature coordinates and feature types");
  const std::int64_t n = static_cast<std::int64_t>(feature_coord.coords.size());
  for (const auto& f : feature_coord.coords)
    for (const auto& q : f)
      expect(q.top_left[0] >= 0 && q.top_left[1] >= 0 && q.bottom_right[0] + r < image.shape(0) &&
                 q.bottom_right[1] + c < image.shape(1) && r >= 0 && c >= 0,
             kFn, "feature_coord", "holds a rectangle outside the image");
  (void)width, (void)height;  // scikit-image takes them but draws from the coordinates alone
  std::vector<std::int64_t> pick;
  if (opts.max_n_features) {
    expect(*opts.max_n_features >= 0 && *opts.max_n_features <= n, kFn, "max_n_features",
           "must be in [0, number of features], got ", *opts.max_n_features);
    const std::uint64_t seed =
        opts.rng ? static_cast<std::uint64_t>(*opts.rng) : std::random_device{}();
    pick = numpy_choice(seed, n, *opts.max_n_features);
  } else {
    for (std::int64_t i = 0; i < n; ++i) pick.push_back(i);
  }
  Array host = image.to(Device::cpu(), stream);
  stream.synchronize();
  if (host.ndim() == 2) host = color::gray2rgb(host);
  Array out = util::img_as_float(host);
  out = out.data() == host.data() || out.data() == image.data() ? out.copy() : out.contiguous();
  for (std::int64_t i : pick)
    for (std::size_t k = 0; k < feature_coord.coords[i].size(); ++k) {
      const auto& col = (k + 1) % 2 == 0 ? opts.color_positive_block : opts.color_negative_block;
      if (out.dtype() == DType::float32)
        blend<float>(out, r, c, feature_coord.coords[i][k], col, opts.alpha);
      else
        blend<double>(out, r, c, feature_coord.coords[i][k], col, opts.alpha);
    }
  return out.to(image.device(), stream);
}

}  // namespace cuskimage::feature
