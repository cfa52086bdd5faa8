// medial_axis: exact scikit-image goldens for integer seeds (numpy's permutation reproduced), with a
// mask and return_distance, invariants on random images (subset of the image, 8-connected components
// preserved, the distance equal to the EDT), argument errors, and NotSupported for device arrays.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
namespace sm = cuskimage::morphology;

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

}  // namespace

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
    Array noise = cusktest::random_array(shape, DType::float64, seed);
    Array s = cuskimage::ndimage::uniform_filter(noise, {.size = {9}});
    std::vector<double> v = s.to_vector<double>();
    std::vector<std::uint8_t> img(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) img[i] = v[i] > 0.5 ? static_cast<std::uint8_t>(1 + i % 3) : 0;
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

TEST(GpuMedialAxis, DeviceInputNotSupported) {
  CUSK_REQUIRE_GPU();
  const Array d = golden("main_b2").to(Device::cuda());
  EXPECT_THROW(sm::medial_axis(d), cuskimage::NotSupported);
}
