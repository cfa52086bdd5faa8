// skimage.morphology.skeletonize (Zhang, Lee) and thin.
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_skel.py) on a horse
// silhouette, binary blobs, random masks, a uint8 and a float32 (binarized) input, shapes touching
// the border; 3-D Lee on blobs, a random volume and a ball. All exact (bool results).
// GPU (Gpu*): device vs CPU on fresh random inputs (thin noise and thick blocks that need > 127
// iterations, so the marker clean-up and tile activity paths run), thin with iteration limits,
// Lee in 2-D and 3-D (its order-dependent re-check reproduced on the device), strided views, a
// non-default stream.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/stream.hpp"
#include "src/morphology/skeleton_ops.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kCases2 = {"horse", "blobs", "blobs_u8", "random", "noise_f32", "thin_line", "edges"};
const std::vector<std::string> kCases3 = {"blobs3", "random3", "ball"};

Array gold(const std::string& name) { return load_golden("morphology_skel/" + name + ".npy"); }

template <class E, class F>
void expect_throw(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one mentioning " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(MorphologySkeletonize, ZhangGolden) {
  for (const auto& c : kCases2) {
    SCOPED_TRACE(c);
    const Array img = gold(c + "_in");
    EXPECT_ARRAY_EQ(gold(c + "_zhang"), skeletonize(img));
    EXPECT_ARRAY_EQ(gold(c + "_zhang"), skeletonize(img, {.method = SkeletonMethod::zhang}));
  }
}

TEST(MorphologySkeletonize, LeeGolden2d) {
  for (const auto& c : kCases2) {
    SCOPED_TRACE(c);
    EXPECT_ARRAY_EQ(gold(c + "_lee"), skeletonize(gold(c + "_in"), {.method = SkeletonMethod::lee}));
  }
}

TEST(MorphologySkeletonize, LeeGolden3d) {
  for (const auto& c : kCases3) {
    SCOPED_TRACE(c);
    const Array img = gold(c + "_in");
    EXPECT_ARRAY_EQ(gold(c + "_lee"), skeletonize(img));  // Lee is the 3-D default
    EXPECT_ARRAY_EQ(gold(c + "_lee"), skeletonize(img, {.method = SkeletonMethod::lee}));
  }
}

TEST(MorphologyThin, Golden) {
  for (const auto& c : kCases2) {
    SCOPED_TRACE(c);
    const Array img = gold(c + "_in");
    EXPECT_ARRAY_EQ(gold(c + "_thin"), thin(img));
    EXPECT_ARRAY_EQ(gold(c + "_thin"), thin(img, {.max_num_iter = 0}));  // 0 is None, as in scikit-image
    EXPECT_ARRAY_EQ(gold(c + "_thin3"), thin(img, {.max_num_iter = 3}));
  }
}

TEST(MorphologyThin, TablesDerivedFromGuoHallConditions) {
  const Array luts = gold("thin_luts");  // scikit-image's G123_LUT, G123P_LUT
  std::vector<bool> want = luts.to_vector<bool>();
  ASSERT_EQ(want.size(), 512u);
  for (int n = 0; n < 256; ++n) {
    EXPECT_EQ(want[n], cuskimage::morphology::detail::kThinLuts.g123[n]) << n;
    EXPECT_EQ(want[256 + n], cuskimage::morphology::detail::kThinLuts.g123p[n]) << n;
  }
}

TEST(MorphologySkeletonize, InputUntouchedAndStridedView) {
  const Array img = gold("blobs_in");
  const Array before = img.copy();
  const Array skel = skeletonize(img);
  EXPECT_ARRAY_EQ(before, img);
  const Array view = img.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(skeletonize(view.copy()), skeletonize(view));
  EXPECT_ARRAY_EQ(thin(view.copy()), thin(view));
  EXPECT_ARRAY_EQ(skeletonize(view.copy(), {.method = SkeletonMethod::lee}),
                  skeletonize(view, {.method = SkeletonMethod::lee}));
  const Array t = img.transpose({1, 0});
  EXPECT_ARRAY_EQ(skeletonize(t.copy()), skeletonize(t));
}

TEST(MorphologySkeletonize, DegenerateShapes) {
  EXPECT_EQ(skeletonize(Array::zeros({0, 5}, DType::bool_)).shape(), (Shape{0, 5}));
  EXPECT_EQ(skeletonize(Array::zeros({0, 5}, DType::bool_), {.method = SkeletonMethod::lee}).shape(), (Shape{0, 5}));
  // A single pixel and a single row survive; an all-true image thins to its skeleton.
  const Array one = Array::full({1, 1}, 1, DType::bool_);
  EXPECT_ARRAY_EQ(one, skeletonize(one));
  EXPECT_ARRAY_EQ(one, thin(one));
  const Array row = Array::full({1, 7}, 1, DType::uint8);
  EXPECT_ARRAY_EQ(row.astype(DType::bool_), skeletonize(row));
  EXPECT_EQ(skeletonize(Array::zeros({1, 4, 5}, DType::uint8)).shape(), (Shape{1, 4, 5}));
}

TEST(MorphologySkeletonize, BadInput) {
  expect_throw<InvalidArgument>([] { skeletonize(Array::zeros({5}, DType::bool_)); }, "2D or 3D");
  expect_throw<InvalidArgument>([] { skeletonize(Array::zeros({2, 2, 2, 2}, DType::bool_)); }, "2D or 3D");
  expect_throw<InvalidArgument>(
      [] { skeletonize(Array::zeros({3, 3, 3}, DType::bool_), {.method = SkeletonMethod::zhang}); }, "zhang");
  expect_throw<InvalidArgument>([] { skeletonize(Array{}); }, "image");
  expect_throw<InvalidArgument>([] { skeleton_method_from_name("medial"); }, "method");
  EXPECT_EQ(skeleton_method_from_name("lee"), SkeletonMethod::lee);
  EXPECT_EQ(skeleton_method_from_name("zhang"), SkeletonMethod::zhang);
  EXPECT_EQ(skeleton_method_from_name("None"), SkeletonMethod::none);
  expect_throw<InvalidArgument>([] { thin(Array::zeros({3, 3, 3}, DType::bool_)); }, "2-dimensional");
  expect_throw<InvalidArgument>([] { thin(Array::zeros({0, 3}, DType::bool_)); }, "empty");
  expect_throw<InvalidArgument>([] { thin(Array::zeros({3, 3}, DType::bool_), {.max_num_iter = -1}); },
                                "max_num_iter");
}

TEST(MorphologySkeletonize, Cli) {
  const Array img = gold("horse_in");
  const std::string in = cusktest::temp_path("skel_cli_in.npy"), out = cusktest::temp_path("skel_cli_out.npy");
  io::imsave(in, img);
  auto run = [&](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli(args);
    if (r.rc != 0) ADD_FAILURE_AT(__FILE__, __LINE__) << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.skeletonize", in, out, "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("horse_zhang"), io::imread(out));
  ASSERT_EQ(run({"morphology.skeletonize", in, out, "--method", "lee", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("horse_lee"), io::imread(out));
  ASSERT_EQ(run({"morphology.thin", in, out, "--max_num_iter", "3", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("horse_thin3"), io::imread(out));
  EXPECT_EQ(cuskclitest::run_cli({"morphology.skeletonize", in, out, "--method", "medial"}).rc, 2);
}

// ---- GPU ------------------------------------------------------------------------------------------

/// Thick random shapes: a coarse random mask upsampled by `block` (nearest), so skeletons need
/// about block / 2 iterations per blob.
Array blocky(std::int64_t rows, std::int64_t cols, std::int64_t block, std::uint64_t seed, double p = 0.5) {
  const Array coarse = cusktest::random_array({rows / block + 1, cols / block + 1}, DType::float64, seed);
  const std::vector<double> v = coarse.to_vector<double>();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = v[(r / block) * (cols / block + 1) + c / block] < p;
  return Array::from_vector(out, {rows, cols});
}

/// The 3-D version: cubes of side `block`.
Array blocky3(const Shape& shape, std::int64_t block, std::uint64_t seed, double p = 0.5) {
  const Shape cs = {shape[0] / block + 1, shape[1] / block + 1, shape[2] / block + 1};
  const std::vector<double> v = cusktest::random_array(cs, DType::float64, seed).to_vector<double>();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(shape_size(shape)));
  std::size_t i = 0;
  for (std::int64_t a = 0; a < shape[0]; ++a)
    for (std::int64_t b = 0; b < shape[1]; ++b)
      for (std::int64_t c = 0; c < shape[2]; ++c)
        out[i++] = v[((a / block) * cs[1] + b / block) * cs[2] + c / block] < p;
  return Array::from_vector(out, shape);
}

std::vector<Array> gpu_inputs() {
  std::vector<Array> in;
  in.push_back(cusktest::random_array({131, 257}, DType::bool_, 3));
  in.push_back(cusktest::random_array({64, 33}, DType::uint8, 4, 0, 2));  // values 0..2
  in.push_back(blocky(300, 333, 37, 5));
  in.push_back(blocky(97, 1030, 9, 6, 0.7));
  in.push_back(Array::full({320, 300}, 1, DType::bool_));  // > 127 iterations: marker clean-up
  return in;
}

TEST(GpuMorphologySkeletonize, ZhangAndThinMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  int k = 0;
  for (const Array& h : gpu_inputs()) {
    SCOPED_TRACE(k++);
    const Array d = h.to(Device::cuda(), s);
    EXPECT_ARRAY_EQ(skeletonize(h), skeletonize(d, {}, s));
    EXPECT_ARRAY_EQ(thin(h), thin(d, {}, s));
    for (std::int64_t it : {1, 3, 7, 70}) EXPECT_ARRAY_EQ(thin(h, {.max_num_iter = it}), thin(d, {.max_num_iter = it}, s));
  }
}

TEST(GpuMorphologySkeletonize, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const auto& c : kCases2) {
    SCOPED_TRACE(c);
    const Array d = gold(c + "_in").to(Device::cuda());
    EXPECT_ARRAY_EQ(gold(c + "_zhang"), skeletonize(d));
    EXPECT_ARRAY_EQ(gold(c + "_thin3"), thin(d, {.max_num_iter = 3}));
  }
}

TEST(GpuMorphologySkeletonize, StridedViews) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = blocky(240, 250, 13, 8);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  const Array dv = h.to(Device::cuda(), s).slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(skeletonize(hv), skeletonize(dv, {}, s));
  EXPECT_ARRAY_EQ(thin(hv), thin(dv, {}, s));
}

TEST(GpuMorphologySkeletonize, LeeMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // 2-D: Lee's order-dependent re-check, reproduced on the device.
  int k = 0;
  for (const Array& h : gpu_inputs()) {
    SCOPED_TRACE(k++);
    EXPECT_ARRAY_EQ(skeletonize(h, {.method = SkeletonMethod::lee}),
                    skeletonize(h.to(Device::cuda(), s), {.method = SkeletonMethod::lee}, s));
  }
  // 3-D (the default method): random voxels, thick random blocks, the golden volumes.
  std::vector<Array> vols;
  vols.push_back(cusktest::random_array({17, 23, 29}, DType::bool_, 41));
  vols.push_back(blocky3({36, 40, 44}, 7, 42));
  for (const auto& c : kCases3) vols.push_back(gold(c + "_in"));
  for (const Array& h : vols) {
    SCOPED_TRACE(shape_str(h.shape()));
    EXPECT_ARRAY_EQ(skeletonize(h), skeletonize(h.to(Device::cuda(), s), {}, s));
  }
  for (const auto& c : kCases3) EXPECT_ARRAY_EQ(gold(c + "_lee"), skeletonize(gold(c + "_in").to(Device::cuda())));
  // Strided 3-D view.
  const Array h = cusktest::random_array({20, 30, 30}, DType::uint8, 43, 0, 3);
  const Array hv = h.slice({Slice{.step = 2}, Slice{.start = 1}, Slice{.step = 2}});
  const Array dv = h.to(Device::cuda(), s).slice({Slice{.step = 2}, Slice{.start = 1}, Slice{.step = 2}});
  EXPECT_ARRAY_EQ(skeletonize(hv), skeletonize(dv, {}, s));
}

TEST(GpuMorphologySkeletonize, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = blocky(200, 210, 21, 9).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = skeletonize(d, {}, s);
    Array b = thin(d, {.max_num_iter = 5}, s);
    Array c = skeletonize(d, {.method = SkeletonMethod::lee}, s);
    s.synchronize();
  }));
}

}  // namespace
