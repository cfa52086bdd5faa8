// skimage.morphology.convex_hull_image / convex_hull_object (2-D).
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_skel.py, "ch_*" cases):
// horse, blobs, many small blobs, sparse points, touching objects of different values, a diagonal
// line and a single pixel (flat hulls without offset coordinates), float and uint16 inputs (NumPy's
// uint8 cast; measure.label's int64 cast); every option; 3-D hulls (CPU only) on blobs, sparse
// voxels, a coplanar set (Qhull fails: zeros) and a padded ball, with a non-default tolerance.
// Exact (bool results).
// GPU (Gpu*): device vs CPU on fresh random inputs of several dtypes and densities, strided views,
// a non-default stream.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/stream.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kCases = {"horse", "blobs", "blobs_many", "random", "sparse",
                                         "two",   "diag",  "single",     "float",  "u16"};

Array gold(const std::string& c, const std::string& what) {
  return load_golden("morphology_skel/ch_" + c + "_" + what + ".npy");
}

template <class E, class F>
void expect_throw(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one mentioning " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(MorphologyConvexHull, ImageGolden) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array img = gold(c, "in");
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(img));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(img, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "hull_noborder"), convex_hull_image(img, {.include_borders = false}));
  }
}

TEST(MorphologyConvexHull, ObjectGolden) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array img = gold(c, "in");
    EXPECT_ARRAY_EQ(gold(c, "obj1"), convex_hull_object(img, {.connectivity = 1}));
    EXPECT_ARRAY_EQ(gold(c, "obj2"), convex_hull_object(img));
  }
}

TEST(MorphologyConvexHull, Image3dGolden) {
  for (const std::string c : {"blobs3", "sparse3", "plane3", "ball3"}) {
    SCOPED_TRACE(c);
    const Array img = gold(c, "in");
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(img));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(img, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "hull_tol"), convex_hull_image(img, {.tolerance = 0.3}));
  }
}

TEST(MorphologyConvexHull, StridedAndDegenerate) {
  const Array img = gold("blobs", "in");
  const Array v = img.slice({Slice{.start = 2, .step = 2}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(convex_hull_image(v.copy()), convex_hull_image(v));
  EXPECT_ARRAY_EQ(convex_hull_object(v.copy()), convex_hull_object(v));
  const Array t = img.transpose({1, 0});
  EXPECT_ARRAY_EQ(convex_hull_image(t.copy()), convex_hull_image(t));
  EXPECT_EQ(convex_hull_image(Array::zeros({0, 3}, DType::bool_)).shape(), (Shape{0, 3}));
  EXPECT_EQ(convex_hull_object(Array::zeros({0, 3}, DType::bool_)).shape(), (Shape{0, 3}));
  // An all-zero image has no hull (scikit-image warns and returns zeros).
  const Array z = Array::zeros({4, 6}, DType::uint8);
  EXPECT_ARRAY_EQ(z.astype(DType::bool_), convex_hull_image(z));
  EXPECT_ARRAY_EQ(z.astype(DType::bool_), convex_hull_object(z));
  // One pixel: its diamond holds its centre strictly inside.
  const Array one = Array::full({1, 1}, 1, DType::bool_);
  EXPECT_ARRAY_EQ(one, convex_hull_image(one));
  EXPECT_ARRAY_EQ(one, convex_hull_image(one, {.include_borders = false}));
}

TEST(MorphologyConvexHull, BadInput) {
  expect_throw<InvalidArgument>([] { convex_hull_image(Array::zeros({5}, DType::bool_)); }, "2D");
  expect_throw<NotSupported>([] { convex_hull_image(Array::zeros({2, 2, 2, 2}, DType::bool_)); }, "4-D");
  expect_throw<InvalidArgument>([] { convex_hull_object(Array::zeros({3, 3, 3}, DType::bool_)); }, "2D");
  expect_throw<InvalidArgument>([] { convex_hull_object(Array::zeros({3, 3}, DType::bool_), {.connectivity = 3}); },
                                "connectivity");
  expect_throw<InvalidArgument>([] { convex_hull_image(Array{}); }, "image");
}

TEST(MorphologyConvexHull, Cli) {
  const Array img = gold("two", "in");
  const std::string in = cusktest::temp_path("hull_cli_in.npy"), out = cusktest::temp_path("hull_cli_out.npy");
  io::imsave(in, img);
  auto run = [&](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli(args);
    if (r.rc != 0) ADD_FAILURE_AT(__FILE__, __LINE__) << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.convex_hull_image", in, out, "--include_borders", "false", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("two", "hull_noborder"), io::imread(out));
  ASSERT_EQ(run({"morphology.convex_hull_object", in, out, "--connectivity", "1", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("two", "obj1"), io::imread(out));
  EXPECT_EQ(cuskclitest::run_cli({"morphology.convex_hull_object", in, out, "--connectivity", "3"}).rc, 1);
}

// ---- GPU ------------------------------------------------------------------------------------------

Array sparse_mask(const Shape& shape, double p, std::uint64_t seed, DType dt) {
  const Array r = cusktest::random_array(shape, DType::float64, seed);
  std::vector<double> v = r.to_vector<double>();
  const Array vals = cusktest::random_array(shape, DType::uint8, seed + 100, 1, 3);
  const std::vector<double> w = vals.to_vector<double>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] < p ? w[i] : 0.0;
  return Array::from_vector(v, shape).astype(dt);
}

TEST(GpuMorphologyConvexHull, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 31;
  for (DType dt : {DType::bool_, DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64})
    for (double p : {0.0005, 0.01, 0.2, 0.7})
      for (const Shape& shape : {Shape{211, 317}, Shape{1, 50}, Shape{64, 1}, Shape{1030, 77}}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " p=" + std::to_string(p) + " " + shape_str(shape));
        const Array h = sparse_mask(shape, p, seed++, dt);
        const Array d = h.to(Device::cuda(), s);
        EXPECT_ARRAY_EQ(convex_hull_image(h), convex_hull_image(d, {}, s));
        EXPECT_ARRAY_EQ(convex_hull_image(h, {.offset_coordinates = false}),
                        convex_hull_image(d, {.offset_coordinates = false}, s));
        EXPECT_ARRAY_EQ(convex_hull_image(h, {.include_borders = false}),
                        convex_hull_image(d, {.include_borders = false}, s));
        EXPECT_ARRAY_EQ(convex_hull_object(h, {.connectivity = 1}), convex_hull_object(d, {.connectivity = 1}, s));
        EXPECT_ARRAY_EQ(convex_hull_object(h), convex_hull_object(d, {}, s));
      }
}

TEST(GpuMorphologyConvexHull, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array d = gold(c, "in").to(Device::cuda());
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(d));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(d, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "obj2"), convex_hull_object(d));
  }
}

TEST(GpuMorphologyConvexHull, StridedViewsAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = sparse_mask({300, 280}, 0.01, 77, DType::uint8);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  const Array d = h.to(Device::cuda());
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(convex_hull_image(hv), convex_hull_image(dv));
  EXPECT_ARRAY_EQ(convex_hull_object(hv), convex_hull_object(dv));
  Stream().synchronize();
  expect_throw<NotSupported>([] { convex_hull_image(Array::zeros({3, 3, 3}, DType::bool_, Device::cuda())); }, "3-D");
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = convex_hull_image(d, {}, s);
    Array b = convex_hull_object(d, {}, s);
    s.synchronize();
  }));
}

}  // namespace
