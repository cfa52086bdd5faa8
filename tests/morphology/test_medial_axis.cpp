// medial_axis: exact scikit-image goldens for integer seeds (numpy's permutation reproduced), with a
// mask and return_distance, invariants on random images (subset of the image, 8-connected components
// preserved, the distance equal to the EDT), argument errors.
// The device's building blocks, checked here on the CPU: numpy's shuffle targets (parallel blocks,
// one acceptance pass) against numpy's one-draw-at-a-time loop; the shuffle by reservation rounds
// and the decision waves (medial_decide) against their sequential definitions.
// GPU (Gpu*): the CUDA backend equals the CPU backend (skeleton and distance) on the goldens and on
// fresh random images (blobs, thin lines, single pixels, full and empty images, odd shapes, masks,
// dtypes, strided views, seeds), on a non-default stream without the legacy stream, and in the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/morphology/medial_axis_ops.hpp"
#include "src/morphology/numpy_permutation.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace sm = cuskimage::morphology;
namespace smd = cuskimage::morphology::detail;

Array golden(const std::string& name) { return cusktest::load_golden("morphology_isotropic/" + name + ".npy"); }

/// Number of 8-connected components of the non-zero pixels.
int components8(const std::vector<std::uint8_t>& img, std::int64_t rows, std::int64_t cols) {
  std::vector<std::uint8_t> seen(img.size(), 0);
  int count = 0;
  std::vector<std::int64_t> stack;
  for (std::int64_t k = 0; k < rows * cols; ++k) {
    if (!img[k] || seen[k]) continue;
    ++count;
    seen[k] = 1;
    stack.push_back(k);
    while (!stack.empty()) {
      const std::int64_t p = stack.back();
      stack.pop_back();
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
          const std::int64_t y = p / cols + di, x = p % cols + dj;
          if (y < 0 || y >= rows || x < 0 || x >= cols) continue;
          const std::int64_t q = y * cols + x;
          if (img[q] && !seen[q]) seen[q] = 1, stack.push_back(q);
        }
    }
  }
  return count;
}

/// Smoothed noise above a level: thick blobs with holes (uint8 0/1).
std::vector<std::uint8_t> blob_pixels(const Shape& shape, std::uint64_t seed, int size = 9, double level = 0.5) {
  const Array noise = cusktest::random_array(shape, DType::float64, seed);
  const Array s = cuskimage::ndimage::uniform_filter(noise, {.size = {size}});
  const std::vector<double> v = s.to_vector<double>();
  std::vector<std::uint8_t> img(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) img[i] = v[i] > level ? 1 : 0;
  return img;
}

/// Random 8-connected line segments, one pixel wide.
std::vector<std::uint8_t> line_pixels(std::int64_t rows, std::int64_t cols, std::uint64_t seed, int lines) {
  std::vector<std::uint8_t> img(static_cast<std::size_t>(rows * cols), 0);
  std::mt19937_64 g(seed);
  const int dy[] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx[] = {-1, 0, 1, -1, 1, -1, 0, 1};
  for (int l = 0; l < lines; ++l) {
    std::int64_t y = static_cast<std::int64_t>(g() % rows), x = static_cast<std::int64_t>(g() % cols);
    int dir = static_cast<int>(g() % 8);
    const int len = 5 + static_cast<int>(g() % 40);
    for (int k = 0; k < len; ++k) {
      if (y < 0 || y >= rows || x < 0 || x >= cols) break;
      img[y * cols + x] = 1;
      if (g() % 6 == 0) dir = static_cast<int>(g() % 8);
      y += dy[dir];
      x += dx[dir];
    }
  }
  return img;
}

/// Isolated pixels with probability p.
std::vector<std::uint8_t> dot_pixels(std::int64_t n, std::uint64_t seed, double p) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::uint8_t> img(static_cast<std::size_t>(n));
  for (auto& v : img) v = u(g) < p ? 1 : 0;
  return img;
}

Array as_image(const std::vector<std::uint8_t>& v, const Shape& shape) {
  return Array::from_vector(v, shape).astype(DType::bool_);
}

// ---- CPU ------------------------------------------------------------------------------------------

TEST(MedialAxis, GoldensExactForIntegerSeeds) {
  for (const std::string name : {"horse", "b2"}) {
    const Array img = golden("main_" + name);
    for (std::uint64_t seed : {0u, 7u}) {
      SCOPED_TRACE(name + " rng " + std::to_string(seed));
      const auto r = sm::medial_axis(img, {.rng = seed});
      EXPECT_FALSE(r.distance.valid());
      EXPECT_ARRAY_EQ(golden("ma_" + name + "_rng" + std::to_string(seed)), r.skeleton);
    }
  }
}

TEST(MedialAxis, MaskAndDistance) {
  const Array img = golden("main_horse");
  const auto r = sm::medial_axis(img, {.mask = golden("mamask_horse"), .return_distance = true, .rng = 3});
  EXPECT_ARRAY_EQ(golden("ma_horse_mask_rng3"), r.skeleton);
  EXPECT_ARRAY_EQ(golden("madist_horse"), r.distance);
  const auto b = sm::medial_axis(golden("main_b2"), {.return_distance = true, .rng = 3});
  EXPECT_ARRAY_EQ(golden("ma_b2_mask_rng3"), b.skeleton);
  EXPECT_ARRAY_EQ(golden("madist_b2"), b.distance);
}

TEST(MedialAxis, InvariantsOnRandomImages) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Shape shape{37 + static_cast<std::int64_t>(seed), 53};
    // Smoothed noise thresholded: thick blobs with holes; uint8 input (non-zero = true).
    std::vector<std::uint8_t> img = blob_pixels(shape, seed);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = img[i] ? static_cast<std::uint8_t>(1 + i % 3) : 0;
    const Array in = Array::from_vector(img, shape);
    const auto r = sm::medial_axis(in, {.return_distance = true, .rng = seed});
    const std::vector<std::uint8_t> sk = r.skeleton.to_vector<std::uint8_t>();
    std::vector<std::uint8_t> fg(img.size());
    for (std::size_t i = 0; i < img.size(); ++i) {
      fg[i] = img[i] != 0;
      EXPECT_TRUE(!sk[i] || fg[i]) << "skeleton pixel outside the image at " << i;
    }
    EXPECT_EQ(components8(fg, shape[0], shape[1]), components8(sk, shape[0], shape[1]));
    EXPECT_ARRAY_EQ(cuskimage::ndimage::distance_transform_edt(in).distances, r.distance);
    std::int64_t n_sk = 0, n_fg = 0;
    for (std::size_t i = 0; i < sk.size(); ++i) n_sk += sk[i], n_fg += fg[i];
    EXPECT_LT(n_sk * 2, n_fg);  // thin: well under half of the shapes (about a third here)
    EXPECT_GT(n_sk, 0);
  }
}

TEST(MedialAxis, Cli) {
  const std::string in = cusktest::golden_path("morphology_isotropic/main_horse.npy");
  const std::string mask = cusktest::golden_path("morphology_isotropic/mamask_horse.npy");
  const std::string out = cusktest::temp_path("ma.npy"), outm = cusktest::temp_path("ma_mask.npy");
  auto r = cuskclitest::run_cli_cpu({"morphology.medial_axis", in, out, "--rng", "7"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("ma_horse_rng7"), cuskimage::io::imread(out));
  r = cuskclitest::run_cli_cpu({"morphology.medial_axis", in, mask, outm, "--rng", "3"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("ma_horse_mask_rng3"), cuskimage::io::imread(outm));
}

TEST(MedialAxis, BadArguments) {
  EXPECT_THROW(sm::medial_axis(Array::zeros({3, 4, 5}, DType::bool_)), InvalidArgument);
  EXPECT_THROW(sm::medial_axis(Array()), InvalidArgument);
  EXPECT_THROW(sm::medial_axis(Array::zeros({5, 5}, DType::bool_), {.mask = Array::zeros({5, 4}, DType::bool_)}),
               InvalidArgument);
}

/// numpy's loop: random_interval(i) for i = n-1 .. 1, one draw at a time.
std::vector<std::uint32_t> reference_targets(std::uint64_t seed, std::int64_t n) {
  smd::NumpyPermutation g(seed);
  std::vector<std::uint32_t> t;
  for (std::int64_t i = n - 1; i > 0; --i) t.push_back(static_cast<std::uint32_t>(g.interval(static_cast<std::uint64_t>(i))));
  return t;
}

TEST(MedialAxisPermutation, ShuffleTargetsEqualNumpysLoop) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{7}, (std::uint64_t{1} << 40) + 3}) {
    for (std::int64_t n : {1, 2, 3, 5, 17, 100, 4097, 65536, 65537, 300001}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n));
      const std::vector<std::uint32_t> ref = reference_targets(seed, n);
      EXPECT_EQ(ref, smd::NumpyPermutation(seed).shuffle_targets(n));
      // Many small batches (one output each inline; 777 outputs, three producers when pipelined).
      if (n > 20000 && n < 70000) EXPECT_EQ(ref, smd::NumpyPermutation(seed).shuffle_targets(n, 1));
      if (n > 70000) {
        std::vector<std::uint32_t> got;
        smd::NumpyPermutation(seed).shuffle_target_pieces(
            n, 5000, [&](const std::uint32_t* t, std::int64_t, std::int64_t c) { got.insert(got.end(), t, t + c); }, 777, 3);
        EXPECT_EQ(ref, got);
      }
      // permutation() applies them as numpy's shuffle does.
      std::vector<std::int64_t> a(static_cast<std::size_t>(n));
      std::iota(a.begin(), a.end(), 0);
      for (std::int64_t k = 0; k + 1 < n; ++k) std::swap(a[n - 1 - k], a[ref[k]]);
      EXPECT_EQ(a, smd::NumpyPermutation(seed).permutation(n));
    }
  }
}

TEST(MedialAxisPermutation, TargetPiecesEqualNumpysLoop) {
  // The CUDA backend draws the targets in pieces (uploading each while the next is drawn): the
  // pieces are consecutive, full except the last, and together numpy's targets, for any piece size
  // (pieces ending inside an octave of the mask, on a batch boundary, or one target long).
  for (std::uint64_t seed : {std::uint64_t{3}, std::uint64_t{123456789}}) {
    for (std::int64_t n : {2, 3, 4, 5, 9, 1000, 65537, 600001}) {
      const std::vector<std::uint32_t> ref = reference_targets(seed, n);
      for (std::int64_t piece : {std::int64_t{1}, std::int64_t{2}, std::int64_t{7}, std::int64_t{1000},
                                 std::int64_t{1} << 18, n - 1, n + 5}) {
        if (piece == 1 && n > 70000) continue;  // a sink call per target: covered by the smaller n
        // Inline below 2^18 targets, pipelined above: default batches and producers, small batches
        // (one output inline; 1000 outputs with one producer, 4097 with three, when pipelined).
        for (int variant = 0; variant < 3; ++variant) {
          const bool piped = n > (1 << 18) + 1;
          const std::int64_t batch = variant == 0 ? 0 : !piped ? 1 : variant == 1 ? 1000 : 4097;
          const int producers = variant == 0 ? 0 : variant == 1 ? 1 : 3;
          if (variant == 2 && !piped) continue;
          SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n) + " piece " + std::to_string(piece) +
                       " batch " + std::to_string(batch) + " producers " + std::to_string(producers));
          std::vector<std::uint32_t> got;
          std::int64_t calls = 0, short_pieces = 0;
          bool ordered = true;
          smd::NumpyPermutation(seed).shuffle_target_pieces(
              n, piece,
              [&](const std::uint32_t* t, std::int64_t first, std::int64_t count) {
                ordered = ordered && first == static_cast<std::int64_t>(got.size()) && count > 0 &&
                          count <= std::min(piece, n - 1);
                short_pieces += count < std::min(piece, n - 1);
                ++calls;
                got.insert(got.end(), t, t + count);
              },
              batch, producers);
          EXPECT_TRUE(ordered);
          EXPECT_LE(short_pieces, 1);  // only the last piece may be shorter
          EXPECT_EQ((n - 1 + std::min(piece, n - 1) - 1) / std::min(piece, n - 1), calls);
          EXPECT_EQ(ref, got);
        }
      }
    }
  }
  std::int64_t calls = 0;
  smd::NumpyPermutation(0).shuffle_target_pieces(1, 4, [&](const std::uint32_t*, std::int64_t, std::int64_t) { ++calls; });
  smd::NumpyPermutation(0).shuffle_target_pieces(0, 4, [&](const std::uint32_t*, std::int64_t, std::int64_t) { ++calls; });
  EXPECT_EQ(0, calls);
}

TEST(MedialAxisPermutation, ReservationRoundsEqualFisherYates) {
  // The device's shuffle: every pending iteration i (swap i and t_i) reserves both positions with
  // max (round, i); one holding both swaps and retires. Commits are applied in a scrambled order.
  for (std::int64_t n : {2, 3, 10, 1000, 100000}) {
    const std::uint64_t seed = 11 + static_cast<std::uint64_t>(n);
    const std::vector<std::uint32_t> t = smd::NumpyPermutation(seed).shuffle_targets(n);
    std::vector<std::uint32_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0u);
    std::vector<std::uint64_t> res(static_cast<std::size_t>(n), 0);
    std::vector<std::uint32_t> pend;
    for (std::int64_t k = 0; k + 1 < n; ++k) pend.push_back(static_cast<std::uint32_t>(n - 1 - k));
    std::mt19937_64 g(seed);
    std::uint64_t round = 0;
    while (!pend.empty()) {
      ++round;
      std::shuffle(pend.begin(), pend.end(), g);
      for (std::uint32_t i : pend) {
        const std::uint32_t j = t[n - 1 - i];
        const std::uint64_t key = round << 32 | i;
        res[i] = std::max(res[i], key);
        res[j] = std::max(res[j], key);
      }
      std::vector<std::uint32_t> next;
      for (std::uint32_t i : pend) {
        const std::uint32_t j = t[n - 1 - i];
        const std::uint64_t key = round << 32 | i;
        if (res[i] == key && res[j] == key)
          std::swap(perm[i], perm[j]);
        else
          next.push_back(i);
      }
      ASSERT_LT(next.size(), pend.size()) << "no progress in round " << round;
      pend.swap(next);
    }
    const std::vector<std::int64_t> ref = smd::NumpyPermutation(seed).permutation(n);
    EXPECT_EQ(std::vector<std::uint32_t>(ref.begin(), ref.end()), perm) << "n " << n;
    EXPECT_LT(round, 80u) << "n " << n;  // O(log n) rounds (about 40 at n = 100000)
  }
}

TEST(MedialAxisWaves, EmulationEqualsSequentialRemoval) {
  // The device's waves on random images and random orders: a pending pixel decides when every
  // assignment of its undecided earlier neighbours gives the same answer (medial_decide), reading
  // decided values either at once (mode 0: as other threads' writes appear) or from the previous
  // wave's snapshot (mode 1). Both must equal the sequential pass in that order.
  const smd::MedialTable table = smd::medial_keep_table();
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const std::int64_t rows = 20 + static_cast<std::int64_t>(seed % 5) * 7, cols = 31 + static_cast<std::int64_t>(seed % 3) * 9;
    std::vector<std::uint8_t> img = seed % 3 == 0   ? line_pixels(rows, cols, seed, 12)
                                    : seed % 3 == 1 ? blob_pixels({rows, cols}, seed, 5 + 2 * static_cast<int>(seed % 4))
                                                    : dot_pixels(rows * cols, seed, 0.6);
    std::vector<std::int64_t> fg;
    for (std::int64_t k = 0; k < rows * cols; ++k)
      if (img[k]) fg.push_back(k);
    std::mt19937_64 g(seed);
    std::vector<std::int64_t> rank(static_cast<std::size_t>(rows * cols), -1);
    std::vector<std::int64_t> order = fg;
    std::shuffle(order.begin(), order.end(), g);
    for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<std::int64_t>(r);
    auto config = [&](const std::vector<std::uint8_t>& v, std::int64_t k) {
      unsigned c = 0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
          const std::int64_t y = k / cols + di, x = k % cols + dj;
          if (y >= 0 && y < rows && x >= 0 && x < cols && v[y * cols + x]) c |= 1u << ((di + 1) * 3 + (dj + 1));
        }
      return c;
    };
    std::vector<std::uint8_t> seq = img;
    for (std::int64_t k : order) seq[k] = table.keep(config(seq, k) | 16u);

    for (int mode = 0; mode < 2; ++mode) {
      std::vector<std::uint8_t> st(img.size(), 0);  // 0 background/removed, 1 kept, 2 pending
      for (std::int64_t k : fg) st[k] = 2;
      std::vector<std::int64_t> pending = fg;
      int waves = 0;
      while (!pending.empty()) {
        ++waves;
        const std::vector<std::uint8_t> snap = st;
        std::shuffle(pending.begin(), pending.end(), g);
        std::vector<std::int64_t> next;
        for (std::int64_t k : pending) {
          const std::vector<std::uint8_t>& view = mode == 0 ? st : snap;
          unsigned base = 16u, unknown = 0;
          for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj) {
              if (di == 0 && dj == 0) continue;
              const std::int64_t y = k / cols + di, x = k % cols + dj;
              if (y < 0 || y >= rows || x < 0 || x >= cols || !img[y * cols + x]) continue;
              const unsigned bit = 1u << ((di + 1) * 3 + (dj + 1));
              const std::int64_t q = y * cols + x;
              if (rank[q] > rank[k])
                base |= bit;  // later: still foreground
              else if (view[q] == 2)
                unknown |= bit;
              else if (view[q] == 1)
                base |= bit;
            }
          const int d = smd::medial_decide(table, base, unknown);
          if (d < 0)
            next.push_back(k);
          else
            st[k] = static_cast<std::uint8_t>(d);
        }
        ASSERT_LT(next.size(), pending.size()) << "no progress, seed " << seed;
        pending.swap(next);
      }
      std::vector<std::uint8_t> got(img.size());
      for (std::size_t k = 0; k < img.size(); ++k) got[k] = st[k] == 1;
      EXPECT_EQ(seq, got) << "seed " << seed << " mode " << mode << " waves " << waves;
    }
  }
}

// ---- GPU ------------------------------------------------------------------------------------------

/// The CUDA backend on the host image's device copy (or `view` of it) equals the CPU backend.
void expect_device_equals_cpu(const Array& host, const Array& host_mask, std::uint64_t seed, const Stream& s = {}) {
  const auto cpu = sm::medial_axis(host, {.mask = host_mask.valid() ? host_mask.share() : Array(),
                                          .return_distance = true, .rng = seed});
  const Array dimg = host.to(Device::cuda(), s);
  const Array dmask = host_mask.valid() ? host_mask.to(Device::cuda(), s) : Array();
  const auto dev = sm::medial_axis(dimg, {.mask = dmask.valid() ? dmask.share() : Array(), .return_distance = true,
                                          .rng = seed},
                                   s);
  ASSERT_TRUE(dev.skeleton.device().is_cuda());
  EXPECT_EQ(dev.skeleton.dtype(), DType::bool_);
  EXPECT_ARRAY_EQ(cpu.skeleton, dev.skeleton);
  EXPECT_ARRAY_EQ(cpu.distance, dev.distance);
}

TEST(GpuMedialAxis, GoldensExact) {
  CUSK_REQUIRE_GPU();
  for (const std::string name : {"horse", "b2"}) {
    const Array img = golden("main_" + name).to(Device::cuda());
    for (std::uint64_t seed : {0u, 7u}) {
      SCOPED_TRACE(name + " rng " + std::to_string(seed));
      const auto r = sm::medial_axis(img, {.rng = seed});
      EXPECT_FALSE(r.distance.valid());
      EXPECT_ARRAY_EQ(golden("ma_" + name + "_rng" + std::to_string(seed)), r.skeleton);
    }
  }
  const auto r = sm::medial_axis(golden("main_horse").to(Device::cuda()),
                                 {.mask = golden("mamask_horse").to(Device::cuda()), .return_distance = true, .rng = 3});
  EXPECT_ARRAY_EQ(golden("ma_horse_mask_rng3"), r.skeleton);
  EXPECT_ARRAY_EQ(golden("madist_horse"), r.distance);
  const auto b = sm::medial_axis(golden("main_b2").to(Device::cuda()), {.return_distance = true, .rng = 3});
  EXPECT_ARRAY_EQ(golden("ma_b2_mask_rng3"), b.skeleton);
  EXPECT_ARRAY_EQ(golden("madist_b2"), b.distance);
}

TEST(GpuMedialAxis, MatchesCpuOnRandomImages) {
  CUSK_REQUIRE_GPU();
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Shape shape{61 + 17 * static_cast<std::int64_t>(seed), 97 + 5 * static_cast<std::int64_t>(seed)};
    const std::int64_t n = shape[0] * shape[1];
    SCOPED_TRACE("seed " + std::to_string(seed));
    {
      SCOPED_TRACE("blobs");
      expect_device_equals_cpu(as_image(blob_pixels(shape, seed, 7 + 2 * static_cast<int>(seed)), shape), Array(), seed);
    }
    {
      SCOPED_TRACE("thin lines");
      expect_device_equals_cpu(as_image(line_pixels(shape[0], shape[1], seed, 60), shape), Array(), seed + 100);
    }
    {
      SCOPED_TRACE("single pixels");
      expect_device_equals_cpu(as_image(dot_pixels(n, seed, 0.05), shape), Array(), seed);
    }
    {
      SCOPED_TRACE("dense noise");
      expect_device_equals_cpu(as_image(dot_pixels(n, seed + 9, 0.7), shape), Array(), seed);
    }
    {
      SCOPED_TRACE("mask");
      expect_device_equals_cpu(as_image(blob_pixels(shape, seed), shape), as_image(blob_pixels(shape, seed + 50, 15, 0.48), shape),
                               seed);
    }
  }
}

TEST(GpuMedialAxis, LargeImageMatchesCpu) {
  // Thousands of wave blocks, shuffle rounds on the multi-kernel path before the one-block tail.
  CUSK_REQUIRE_GPU();
  const Shape shape{700, 1123};
  for (std::uint64_t seed : {5u, 123456789u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    expect_device_equals_cpu(as_image(blob_pixels(shape, seed, 25), shape), Array(), seed);
  }
  expect_device_equals_cpu(as_image(line_pixels(shape[0], shape[1], 3, 3000), shape), Array(), 3);
}

TEST(GpuMedialAxis, DegenerateAndOddShapes) {
  CUSK_REQUIRE_GPU();
  for (const Shape& shape : {Shape{0, 5}, Shape{1, 1}, Shape{1, 37}, Shape{29, 1}, Shape{2, 3}, Shape{5, 5}, Shape{64, 64}}) {
    SCOPED_TRACE(cuskimage::shape_str(shape));
    const std::int64_t n = shape[0] * shape[1];
    expect_device_equals_cpu(Array::full(shape, 1, DType::bool_), Array(), 0);
    expect_device_equals_cpu(Array::zeros(shape, DType::bool_), Array(), 0);
    expect_device_equals_cpu(as_image(dot_pixels(n, static_cast<std::uint64_t>(n), 0.5), shape), Array(), 2);
    expect_device_equals_cpu(Array::full(shape, 1, DType::bool_), as_image(dot_pixels(n, 3, 0.6), shape), 1);
  }
}

TEST(GpuMedialAxis, DtypesAndStridedViews) {
  CUSK_REQUIRE_GPU();
  const Shape shape{90, 130};
  const std::vector<std::uint8_t> px = blob_pixels(shape, 21);
  std::vector<float> f(px.size());
  std::vector<std::int32_t> l(px.size());
  for (std::size_t i = 0; i < px.size(); ++i) {
    f[i] = px[i] ? 0.25f * static_cast<float>(1 + i % 5) : 0.0f;
    l[i] = px[i] ? -3 + static_cast<std::int32_t>(i % 2) * 7 : 0;
  }
  expect_device_equals_cpu(Array::from_vector(f, shape), Array(), 4);
  expect_device_equals_cpu(Array::from_vector(l, shape), Array(), 4);
  // Strided device views against the CPU on the same host views.
  const Array host = as_image(px, shape);
  const Array dev = host.to(Device::cuda());
  const Array mask = as_image(blob_pixels(shape, 22, 21, 0.47), shape);
  const Array dmask = mask.to(Device::cuda());
  struct View {
    const char* name;
    Array (*make)(const Array&);
  };
  const View views[] = {
      {"rows step 2", [](const Array& a) { return a.slice({Slice{.step = 2}, Slice{}}); }},
      {"cols step 3 offset", [](const Array& a) { return a.slice({Slice{.start = 5}, Slice{.start = 1, .step = 3}}); }},
      {"transposed", [](const Array& a) { return a.transpose({1, 0}); }},
      {"reversed rows", [](const Array& a) { return a.slice({Slice{.step = -1}, Slice{}}); }},
  };
  for (const View& v : views) {
    SCOPED_TRACE(v.name);
    const Array hv = v.make(host), dv = v.make(dev), hm = v.make(mask), dm = v.make(dmask);
    const auto cpu = sm::medial_axis(hv, {.mask = hm.share(), .return_distance = true, .rng = 9});
    const auto gpu = sm::medial_axis(dv, {.mask = dm.share(), .return_distance = true, .rng = 9});
    EXPECT_ARRAY_EQ(cpu.skeleton, gpu.skeleton);
    EXPECT_ARRAY_EQ(cpu.distance, gpu.distance);
  }
}

TEST(GpuMedialAxis, NonDefaultStreamWithoutLegacyStream) {
  // Written so that a misbehaving op fails the test instead of crashing the binary: the input is
  // on the device before the guard, and the results are copied to the host inside the op, so no
  // device array made on the guard's stream outlives the guard (which destroys that stream).
  CUSK_REQUIRE_GPU();
  const Shape shape{150, 170};
  const Array host = as_image(blob_pixels(shape, 31, 11), shape);
  const Array host_mask = as_image(blob_pixels(shape, 32, 15, 0.47), shape);
  // Above 2^18 foreground pixels the host draws run with producer threads and go up in pieces.
  const Shape big_shape{760, 1000};
  const Array big = as_image(blob_pixels(big_shape, 33, 13, 0.49), big_shape);
  const auto cpu = sm::medial_axis(host, {.return_distance = true, .rng = 12});
  const auto cpu_m = sm::medial_axis(host, {.mask = host_mask.share(), .rng = 5});
  const Array cpu_big = sm::medial_axis(big, {.rng = 6}).skeleton;
  const Array d = host.to(Device::cuda()), dm = host_mask.to(Device::cuda()), dbig = big.to(Device::cuda());
  Stream().synchronize();
  Array skel, dist, skel_m, skel_big;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    {
      const auto r = sm::medial_axis(d, {.return_distance = true, .rng = 12}, s);
      skel = r.skeleton.to(Device::cpu(), s);
      dist = r.distance.to(Device::cpu(), s);
      const auto m = sm::medial_axis(d, {.mask = dm.share(), .rng = 5}, s);
      skel_m = m.skeleton.to(Device::cpu(), s);
      skel_big = sm::medial_axis(dbig, {.rng = 6}, s).skeleton.to(Device::cpu(), s);
    }
    s.synchronize();
  }));
  ASSERT_TRUE(skel.valid() && dist.valid() && skel_m.valid() && skel_big.valid());
  EXPECT_ARRAY_EQ(cpu.skeleton, skel);
  EXPECT_ARRAY_EQ(cpu.distance, dist);
  EXPECT_ARRAY_EQ(cpu_m.skeleton, skel_m);
  EXPECT_ARRAY_EQ(cpu_big, skel_big);
  std::int64_t fg = 0;
  for (std::uint8_t v : big.astype(DType::uint8).to_vector<std::uint8_t>()) fg += v;
  EXPECT_GT(fg, (std::int64_t(1) << 18) + 1);  // the pipelined draws and several pieces were used
  const Stream own = Stream::create();
  expect_device_equals_cpu(host, Array(), 12, own);
  expect_device_equals_cpu(host, host_mask, 13, own);
}

TEST(GpuMedialAxis, ResultOutlivesItsStream) {
  // The skeleton is allocated on the caller's stream and freed on it: it must keep that stream
  // alive after the caller's Stream object is gone (the first device run rewrapped the bare handle,
  // freed the skeleton on a destroyed stream and crashed). While the result lives, a new stream
  // cannot get the old one's handle; if it does, the result is leaked rather than freed on a
  // destroyed stream, so the failure is reported instead of crashing.
  CUSK_REQUIRE_GPU();
  const Shape shape{120, 133};
  const Array host = as_image(blob_pixels(shape, 41, 9), shape);
  const Array cpu = sm::medial_axis(host, {.rng = 2}).skeleton;
  const Array d = host.to(Device::cuda());
  Array skel;
  ASSERT_TRUE(cusktest::result_outlives_stream(
      [&](const Stream& s) { return sm::medial_axis(d, {.rng = 2}, s).skeleton; }, skel));
  EXPECT_ARRAY_EQ(cpu, skel);
}

TEST(GpuMedialAxis, BadArguments) {
  CUSK_REQUIRE_GPU();
  EXPECT_THROW(sm::medial_axis(Array::zeros({3, 4, 5}, DType::bool_, Device::cuda())), InvalidArgument);
  EXPECT_THROW(sm::medial_axis(Array::zeros({7}, DType::uint8, Device::cuda())), InvalidArgument);
  const Array d = Array::zeros({5, 5}, DType::bool_, Device::cuda());
  EXPECT_THROW(sm::medial_axis(d, {.mask = Array::zeros({5, 4}, DType::bool_, Device::cuda())}), InvalidArgument);
  EXPECT_THROW(sm::medial_axis(d, {.mask = Array::zeros({5, 5}, DType::bool_)}), InvalidArgument);  // host mask
}

TEST(GpuMedialAxis, Cli) {
  CUSK_REQUIRE_GPU();
  const std::string in = cusktest::golden_path("morphology_isotropic/main_horse.npy");
  const std::string mask = cusktest::golden_path("morphology_isotropic/mamask_horse.npy");
  const std::string out = cusktest::temp_path("ma_gpu.npy");
  auto r = cuskclitest::run_cli({"morphology.medial_axis", in, mask, out, "--rng", "3", "--device", "cuda"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("ma_horse_mask_rng3"), cuskimage::io::imread(out));
}

}  // namespace
