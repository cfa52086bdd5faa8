// segmentation.slic with a mask: scikit-image's _get_mask_centroids on the host. Seeds are numpy's
// legacy RandomState(123).choice(n, size, replace=False) (MT19937 seeded by init_genrand, a
// Fisher-Yates permutation drawing bounded integers by masked rejection on 32-bit outputs), refined
// by scipy.cluster.vq.kmeans2 (5 rounds of nearest code, first minimum on ties, then cluster means;
// an empty cluster keeps its code), and the steps are the mean absolute offset of each centroid to
// its nearest other centroid.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "src/segmentation/slic.hpp"

namespace cuskimage::segmentation::detail {
namespace {

class LegacyMt19937 {
 public:
  explicit LegacyMt19937(std::uint32_t seed) {
    mt_[0] = seed;
    for (int i = 1; i < 624; ++i)
      mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
    pos_ = 624;
  }
  std::uint32_t next32() {
    if (pos_ == 624) regenerate();
    std::uint32_t y = mt_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  std::uint64_t interval(std::uint64_t max) {  // numpy's random_interval (max < 2^32 here)
    if (max == 0) return 0;
    std::uint64_t mask = max;
    for (int sh : {1, 2, 4, 8, 16, 32}) mask |= mask >> sh;
    for (;;) {
      const std::uint64_t v = next32() & mask;
      if (v <= max) return v;
    }
  }
  /// permutation(n)[:size], sorted (the callers sort it).
  std::vector<std::int64_t> choice_sorted(std::int64_t n, std::int64_t size) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(n));
    std::iota(a.begin(), a.end(), 0);
    for (std::int64_t i = n - 1; i >= 1; --i) std::swap(a[i], a[interval(static_cast<std::uint64_t>(i))]);
    a.resize(static_cast<std::size_t>(size));
    std::sort(a.begin(), a.end());
    return a;
  }

 private:
  void regenerate() {
    for (int i = 0; i < 624; ++i) {
      const std::uint32_t y = (mt_[i] & 0x80000000u) | (mt_[(i + 1) % 624] & 0x7fffffffu);
      mt_[i] = mt_[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    pos_ = 0;
  }
  std::uint32_t mt_[624];
  int pos_ = 624;
};

}  // namespace

std::vector<double> slic_mask_centroids(const std::uint8_t* mask, std::int64_t depth, std::int64_t height,
                                        std::int64_t width, std::int64_t n_centroids, bool multichannel,
                                        std::vector<double>& centroids) {
  std::vector<double> coord;
  for (std::int64_t z = 0; z < depth; ++z)
    for (std::int64_t y = 0; y < height; ++y)
      for (std::int64_t x = 0; x < width; ++x)
        if (mask[(z * height + y) * width + x]) coord.insert(coord.end(), {double(z), double(y), double(x)});
  const std::int64_t npts = static_cast<std::int64_t>(coord.size()) / 3;
  LegacyMt19937 rng(123);
  const std::int64_t nc = std::min(n_centroids, npts);
  const std::vector<std::int64_t> idx = rng.choice_sorted(npts, nc);
  // The mask is 3-D here; scikit-image counts one axis fewer for a multichannel image.
  const int ndim_spatial = multichannel ? 2 : 3;
  const auto n_dense = static_cast<std::int64_t>(std::pow(10.0, ndim_spatial) * static_cast<double>(n_centroids));
  std::vector<std::int64_t> dense;
  if (npts > n_dense) {
    dense = rng.choice_sorted(npts, n_dense);
  } else {
    dense.resize(static_cast<std::size_t>(npts));
    std::iota(dense.begin(), dense.end(), 0);
  }
  std::vector<double> code(static_cast<std::size_t>(nc * 3));
  for (std::int64_t k = 0; k < nc; ++k)
    for (int a = 0; a < 3; ++a) code[k * 3 + a] = coord[idx[k] * 3 + a];
  std::vector<std::int64_t> label(dense.size());
  std::vector<double> sum(code.size());
  std::vector<std::int64_t> count(static_cast<std::size_t>(nc));
  for (int it = 0; it < 5; ++it) {
    for (std::size_t i = 0; i < dense.size(); ++i) {
      const double* o = &coord[dense[i] * 3];
      double best = std::numeric_limits<double>::infinity();
      std::int64_t bk = 0;
      for (std::int64_t k = 0; k < nc; ++k) {
        double d = 0;
        for (int a = 0; a < 3; ++a) {
          const double t = o[a] - code[k * 3 + a];
          d += t * t;
        }
        if (d < best) best = d, bk = k;
      }
      label[i] = bk;
    }
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t i = 0; i < dense.size(); ++i) {
      ++count[label[i]];
      for (int a = 0; a < 3; ++a) sum[label[i] * 3 + a] += coord[dense[i] * 3 + a];
    }
    for (std::int64_t k = 0; k < nc; ++k)
      if (count[k] > 0)
        for (int a = 0; a < 3; ++a) code[k * 3 + a] = sum[k * 3 + a] / static_cast<double>(count[k]);
  }
  // Nearest other centroid (Euclidean, first minimum), then the mean absolute offset per axis.
  std::vector<double> steps(3, 0.0);
  for (std::int64_t k = 0; k < nc; ++k) {
    double best = std::numeric_limits<double>::infinity();
    std::int64_t bj = 0;
    for (std::int64_t j = 0; j < nc; ++j) {
      if (j == k) continue;
      double d = 0;
      for (int a = 0; a < 3; ++a) {
        const double t = code[k * 3 + a] - code[j * 3 + a];
        d += t * t;
      }
      d = std::sqrt(d);
      if (d < best) best = d, bj = j;
    }
    for (int a = 0; a < 3; ++a) steps[a] += std::abs(code[k * 3 + a] - code[bj * 3 + a]);
  }
  for (double& s : steps) s /= static_cast<double>(nc);
  centroids.insert(centroids.end(), code.begin(), code.end());
  return steps;
}

}  // namespace cuskimage::segmentation::detail
