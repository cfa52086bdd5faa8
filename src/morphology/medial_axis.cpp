// skimage.morphology.medial_axis on the CPU: the EDT (ndimage::distance_transform_edt), each pixel's
// cornerness, and one ordered pass of the 3x3 removal table, in scikit-image's order (distance, then
// cornerness, then numpy's default_rng(rng).permutation as the tie-break; the generator is
// reproduced below so that integer seeds give scikit-image's exact skeleton).
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::morphology {

namespace {

constexpr std::string_view kFn = "morphology.medial_axis";

// ---- numpy's default_rng(seed).permutation(n) ---------------------------------------------------------
// SeedSequence(seed).generate_state(4, uint64) seeds PCG64 (128-bit LCG, XSL-RR output); shuffle draws
// j = random_interval(i) for i = n-1 .. 1 (masked rejection on buffered 32-bit halves while i < 2^32).
class NumpyPermutation {
 public:
  explicit NumpyPermutation(std::uint64_t seed) {
    std::vector<std::uint32_t> entropy;
    do {
      entropy.push_back(static_cast<std::uint32_t>(seed));
      seed >>= 32;
    } while (seed != 0);
    std::uint32_t hash = 0x43b0d7e5u;
    auto hashmix = [&](std::uint32_t v) {
      v ^= hash;
      hash *= 0x931e8875u;
      v *= hash;
      v ^= v >> 16;
      return v;
    };
    auto mix = [](std::uint32_t x, std::uint32_t y) {
      std::uint32_t r = 0xca01f9ddu * x - 0x4973f715u * y;
      return r ^ (r >> 16);
    };
    std::array<std::uint32_t, 4> pool{};
    for (std::size_t i = 0; i < 4; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0u);
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = 0; b < 4; ++b)
        if (a != b) pool[b] = mix(pool[b], hashmix(pool[a]));
    for (std::size_t a = 4; a < entropy.size(); ++a)
      for (std::size_t b = 0; b < 4; ++b) pool[b] = mix(pool[b], hashmix(entropy[a]));
    std::uint32_t hb = 0x8b51f9ddu;
    std::uint64_t w[4];
    for (int i = 0; i < 8; ++i) {
      std::uint32_t v = pool[i % 4];
      v ^= hb;
      hb *= 0x58f38dedu;
      v *= hb;
      v ^= v >> 16;
      if (i % 2 == 0)
        w[i / 2] = v;
      else
        w[i / 2] |= static_cast<std::uint64_t>(v) << 32;
    }
    const U128 initstate = (static_cast<U128>(w[0]) << 64) | w[1];
    const U128 initseq = (static_cast<U128>(w[2]) << 64) | w[3];
    inc_ = (initseq << 1) | 1;
    state_ = 0;
    step();
    state_ += initstate;
    step();
  }

  std::vector<std::int64_t> permutation(std::int64_t n) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(n));
    std::iota(a.begin(), a.end(), 0);
    for (std::int64_t i = n - 1; i > 0; --i) std::swap(a[i], a[interval(static_cast<std::uint64_t>(i))]);
    return a;
  }

 private:
  using U128 = unsigned __int128;
  static constexpr U128 kMult = (static_cast<U128>(2549297995355413924ull) << 64) | 4865540595714422341ull;

  void step() { state_ = state_ * kMult + inc_; }
  std::uint64_t next64() {
    step();
    const std::uint64_t x = static_cast<std::uint64_t>(state_ >> 64) ^ static_cast<std::uint64_t>(state_);
    const unsigned rot = static_cast<unsigned>(state_ >> 122);
    return (x >> rot) | (x << ((64 - rot) & 63));
  }
  std::uint32_t next32() {
    if (has32_) {
      has32_ = false;
      return buf32_;
    }
    const std::uint64_t v = next64();
    has32_ = true;
    buf32_ = static_cast<std::uint32_t>(v >> 32);
    return static_cast<std::uint32_t>(v);
  }
  std::uint64_t interval(std::uint64_t max) {
    std::uint64_t mask = max;
    for (int sh : {1, 2, 4, 8, 16, 32}) mask |= mask >> sh;
    if (max <= 0xffffffffull) {
      for (;;) {
        const std::uint64_t v = next32() & mask;
        if (v <= max) return v;
      }
    }
    for (;;) {
      const std::uint64_t v = next64() & mask;
      if (v <= max) return v;
    }
  }

  U128 state_ = 0, inc_ = 0;
  bool has32_ = false;
  std::uint32_t buf32_ = 0;
};

// ---- the 3x3 tables (bit k of a configuration: neighbour (k / 3, k % 3), bit 4 the centre) -------------
/// Number of 8-connected components of the set bits of a 3x3 configuration.
int components(int config) {
  int seen = 0, count = 0;
  for (int start = 0; start < 9; ++start) {
    if (!(config >> start & 1) || (seen >> start & 1)) continue;
    ++count;
    int stack[9], top = 0;
    stack[top++] = start;
    seen |= 1 << start;
    while (top > 0) {
      const int p = stack[--top];
      for (int q = 0; q < 9; ++q) {
        if (!(config >> q & 1) || (seen >> q & 1)) continue;
        if (std::abs(p / 3 - q / 3) <= 1 && std::abs(p % 3 - q % 3) <= 1) {
          seen |= 1 << q;
          stack[top++] = q;
        }
      }
    }
  }
  return count;
}

/// scikit-image's table: keep the centre if removing it changes the number of components in the
/// 3x3 window, or if the window holds fewer than 3 pixels (an end point); never keep a background centre.
std::array<std::uint8_t, 512> keep_table() {
  std::array<std::uint8_t, 512> t{};
  for (int c = 0; c < 512; ++c) {
    const bool centre = c & 16;
    const bool changes = components(c) != components(c & ~16);
    const bool few = __builtin_popcount(static_cast<unsigned>(c)) < 3;
    t[c] = centre && (changes || few);
  }
  return t;
}

/// The 3x3 configuration of (i, j) in `img` (outside the image: background).
int config_at(const std::uint8_t* img, std::int64_t rows, std::int64_t cols, std::int64_t i, std::int64_t j) {
  int c = 0;
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj) {
      const std::int64_t y = i + di, x = j + dj;
      if (y < 0 || y >= rows || x < 0 || x >= cols) continue;
      if (img[y * cols + x]) c |= 1 << ((di + 1) * 3 + (dj + 1));
    }
  return c;
}

}  // namespace

MedialAxisResult medial_axis(const Array& image, const MedialAxisOptions& opts, const Stream& stream) {
  using cuskimage::detail::expect;
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  const bool has_mask = opts.mask.valid();
  if (has_mask) {
    cuskimage::detail::expect_same_shape(image, opts.mask, kFn, "image", "mask");
    cuskimage::detail::expect_same_device(image, opts.mask, kFn, "image", "mask");
  }
  if (image.device().is_cuda())
    cuskimage::detail::fail<NotSupported>(
        kFn, "argument 'image' is on ", image.device().str(),
        ": the ordered removal is sequential (each decision sees the earlier ones) and runs on the CPU only; "
        "copy the image to the host");
  const std::int64_t rows = image.shape(0), cols = image.shape(1), n = rows * cols;
  const std::vector<std::uint8_t> img = image.astype(DType::bool_).to_vector<std::uint8_t>();
  std::vector<std::uint8_t> msk(static_cast<std::size_t>(n), 1);
  if (has_mask) msk = opts.mask.astype(DType::bool_).to_vector<std::uint8_t>();
  std::vector<std::uint8_t> result(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) result[k] = img[k] && msk[k];

  MedialAxisResult r;
  const Array masked = Array::from_vector(result, image.shape()).astype(DType::bool_);
  Array dist = ndimage::distance_transform_edt(masked, {}, stream).distances;
  const double* dp = dist.data<double>();

  // Foreground pixels in C order, their cornerness (background pixels in the 3x3 window), and the order.
  std::vector<std::int64_t> fg;
  for (std::int64_t k = 0; k < n; ++k)
    if (result[k]) fg.push_back(k);
  const std::int64_t m = static_cast<std::int64_t>(fg.size());
  std::vector<int> corner(static_cast<std::size_t>(m));
  for (std::int64_t t = 0; t < m; ++t)
    corner[t] = 9 - __builtin_popcount(static_cast<unsigned>(config_at(result.data(), rows, cols, fg[t] / cols,
                                                                       fg[t] % cols)));
  const std::vector<std::int64_t> tiebreak = NumpyPermutation(opts.rng).permutation(m);
  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const double da = dp[fg[a]], db = dp[fg[b]];
    if (da != db) return da < db;
    if (corner[a] != corner[b]) return corner[a] < corner[b];
    return tiebreak[a] < tiebreak[b];
  });

  static const std::array<std::uint8_t, 512> table = keep_table();
  for (const std::int64_t t : order) {
    const std::int64_t k = fg[t];
    result[k] = table[config_at(result.data(), rows, cols, k / cols, k % cols) | 16];
  }
  if (has_mask)
    for (std::int64_t k = 0; k < n; ++k)
      if (!msk[k]) result[k] = img[k];
  r.skeleton = Array::from_vector(result, image.shape()).astype(DType::bool_);
  if (opts.return_distance) r.distance = std::move(dist);
  return r;
}

}  // namespace cuskimage::morphology
