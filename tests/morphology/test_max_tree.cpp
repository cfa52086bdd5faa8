// skimage.morphology.max_tree, area/diameter opening/closing, max_tree_local_maxima.
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_maxtree.py) on camera
// crops (uint8, uint16, float32), random images with plateaus (uint8, float64, int32) and 3-D
// volumes (uint8, float32), every connectivity; parent, traverser and all filters exact. Also a
// precomputed tree passed back in, a strided view, degenerate shapes and bad arguments.
// GPU (Gpu*): device inputs throw NotSupported (the union-find is sequential; CPU only).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kCases = {"cam_u8",    "cam_u16", "cam_f32", "plateau_u8",
                                         "noise_f64", "vol_u8",  "vol_f32", "row_i32"};

Array gold(const std::string& name) { return load_golden("morphology_maxtree/" + name + ".npy"); }

TEST(MorphologyMaxTree, TreeGolden) {
  for (const auto& c : kCases) {
    const Array img = gold(c + "_in");
    for (int conn = 1; conn <= img.ndim(); ++conn) {
      SCOPED_TRACE(c + " connectivity " + std::to_string(conn));
      const std::string b = c + "_c" + std::to_string(conn);
      const MaxTree t = max_tree(img, {.connectivity = conn});
      EXPECT_ARRAY_EQ(gold(b + "_parent"), t.parent);
      EXPECT_ARRAY_EQ(gold(b + "_trav"), t.traverser);
    }
  }
}

TEST(MorphologyMaxTree, FiltersGolden) {
  for (const auto& c : kCases) {
    const Array img = gold(c + "_in");
    for (int conn = 1; conn <= img.ndim(); ++conn) {
      SCOPED_TRACE(c + " connectivity " + std::to_string(conn));
      const std::string b = c + "_c" + std::to_string(conn);
      EXPECT_ARRAY_EQ(gold(b + "_ao"), area_opening(img, {.area_threshold = 20, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_ac"), area_closing(img, {.area_threshold = 20, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_do"), diameter_opening(img, {.diameter_threshold = 6, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_dc"), diameter_closing(img, {.diameter_threshold = 6, .connectivity = conn}));
      EXPECT_ARRAY_EQ(gold(b + "_lm"), max_tree_local_maxima(img, {.connectivity = conn}));
    }
  }
}

TEST(MorphologyMaxTree, PrecomputedTree) {
  const Array img = gold("cam_u8_in");
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ao"), area_opening(img, {.area_threshold = 20,
                                                           .parent = gold("cam_u8_c2_parent"),
                                                           .tree_traverser = gold("cam_u8_c2_trav")}));
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_do"), diameter_opening(img, {.diameter_threshold = 6,
                                                               .parent = gold("cam_u8_c1_parent"),
                                                               .tree_traverser = gold("cam_u8_c1_trav")}));
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_lm"), max_tree_local_maxima(img, {.parent = gold("cam_u8_c2_parent"),
                                                                    .tree_traverser = gold("cam_u8_c2_trav")}));
  // A closing uses the tree of the inverted image: the tree of the image itself gives another result.
  const Array wrong = area_closing(img, {.area_threshold = 20, .parent = gold("cam_u8_c1_parent"),
                                         .tree_traverser = gold("cam_u8_c1_trav")});
  EXPECT_FALSE(cusktest::arrays_equal(gold("cam_u8_c1_ac"), wrong));
}

TEST(MorphologyMaxTree, StridedView) {
  const Array img = gold("plateau_u8_in");
  const Array v = img.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  const Array c = v.copy();
  const MaxTree tv = max_tree(v, {.connectivity = 2}), tc = max_tree(c, {.connectivity = 2});
  EXPECT_ARRAY_EQ(tc.parent, tv.parent);
  EXPECT_ARRAY_EQ(tc.traverser, tv.traverser);
  EXPECT_ARRAY_EQ(area_opening(c, {.area_threshold = 5}), area_opening(v, {.area_threshold = 5}));
  EXPECT_ARRAY_EQ(diameter_closing(c, {.diameter_threshold = 3}), diameter_closing(v, {.diameter_threshold = 3}));
}

TEST(MorphologyMaxTree, DegenerateShapes) {
  // A constant image: one node; everything is one maximum (label 1), the filters keep or clear it.
  const Array flat = Array::full({4, 5}, 7.0, DType::uint8);
  const MaxTree t = max_tree(flat);
  for (auto p : t.parent.to_vector<std::int64_t>()) EXPECT_EQ(p, 0);
  EXPECT_EQ(t.traverser.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                                              13, 14, 15, 16, 17, 18, 19}));
  for (auto x : max_tree_local_maxima(flat).to_vector<std::uint64_t>()) EXPECT_EQ(x, 1u);
  for (auto x : area_opening(flat, {.area_threshold = 21}).to_vector<int>()) EXPECT_EQ(x, 0);
  for (auto x : area_opening(flat, {.area_threshold = 20}).to_vector<int>()) EXPECT_EQ(x, 7);
  // 1-D: the maxima of a small profile, and an empty image.
  const Array line = Array::from_vector<std::int32_t>({1, 3, 3, 2, 5, 0, 5}, {7});
  EXPECT_EQ(max_tree_local_maxima(line).to_vector<std::uint64_t>(),
            (std::vector<std::uint64_t>{0, 3, 3, 0, 2, 0, 1}));
  EXPECT_EQ(area_opening(line, {.area_threshold = 2}).to_vector<int>(), (std::vector<int>{1, 3, 3, 2, 2, 0, 0}));
  EXPECT_EQ(max_tree(Array::zeros({0, 3}, DType::float32)).traverser.size(), 0);
  EXPECT_EQ(area_closing(Array::zeros({0, 3}, DType::float32)).size(), 0);
}

TEST(MorphologyMaxTree, BadInput) {
  const Array img = gold("cam_u8_in");
  EXPECT_THROW(max_tree(img, {.connectivity = 0}), InvalidArgument);
  EXPECT_THROW(max_tree(img, {.connectivity = 3}), InvalidArgument);
  EXPECT_THROW(area_opening(img, {.area_threshold = -1}), InvalidArgument);
  EXPECT_THROW(area_closing(img, {.area_threshold = -0.5}), InvalidArgument);
  EXPECT_THROW(diameter_opening(img, {.diameter_threshold = -2}), InvalidArgument);
  EXPECT_THROW(diameter_closing(img, {.connectivity = 5}), InvalidArgument);
  EXPECT_THROW(max_tree_local_maxima(img, {.connectivity = -1}), InvalidArgument);
  EXPECT_THROW(max_tree(Array::zeros({3, 3}, DType::bool_)), InvalidArgument);
  EXPECT_THROW(max_tree(Array()), InvalidArgument);
  // Precomputed trees: both or neither, int64, the image's size, indices inside the image.
  EXPECT_THROW(area_opening(img, {.parent = gold("cam_u8_c1_parent")}), InvalidArgument);
  EXPECT_THROW(area_opening(img, {.tree_traverser = gold("cam_u8_c1_trav")}), InvalidArgument);
  EXPECT_THROW(area_opening(img, {.parent = gold("cam_u8_c1_parent").astype(DType::int32),
                                  .tree_traverser = gold("cam_u8_c1_trav")}),
               InvalidArgument);
  EXPECT_THROW(area_opening(img, {.parent = gold("plateau_u8_c1_parent"), .tree_traverser = gold("plateau_u8_c1_trav")}),
               InvalidArgument);  // another image's tree
  Array bad = gold("cam_u8_c1_trav").copy();
  bad.data<std::int64_t>()[3] = bad.size();
  EXPECT_THROW(max_tree_local_maxima(img, {.parent = gold("cam_u8_c1_parent"), .tree_traverser = std::move(bad)}),
               InvalidArgument);
}

TEST(MorphologyMaxTree, Cli) {
  const std::string in = cusktest::golden_path("morphology_maxtree/cam_u8_in.npy");
  const std::string out = cusktest::temp_path("maxtree_cli_out.npy"), out2 = cusktest::temp_path("maxtree_cli_out2.npy");
  auto run = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    if (r.rc != 0) ADD_FAILURE() << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.area_opening", in, out, "--area_threshold", "20"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_ao"), io::imread(out));
  ASSERT_EQ(run({"morphology.area_closing", in, out, "--area_threshold", "20", "--connectivity", "2"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_ac"), io::imread(out));
  ASSERT_EQ(run({"morphology.diameter_opening", in, out, "--diameter_threshold", "6"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_do"), io::imread(out));
  ASSERT_EQ(run({"morphology.diameter_closing", in, out, "--diameter_threshold", "6", "--connectivity", "2"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_dc"), io::imread(out));
  ASSERT_EQ(run({"morphology.max_tree_local_maxima", in, out}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c1_lm"), io::imread(out));
  ASSERT_EQ(run({"morphology.max_tree", in, out, out2, "--connectivity", "2"}), 0);
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_parent"), io::imread(out));
  EXPECT_ARRAY_EQ(gold("cam_u8_c2_trav"), io::imread(out2));
  EXPECT_NE(cuskclitest::run_cli_cpu({"morphology.area_opening", in, out, "--area_threshold", "-3"}).rc, 0);
}

// ---- GPU ------------------------------------------------------------------------------------------

TEST(GpuMorphologyMaxTree, DeviceInputNotSupported) {
  CUSK_REQUIRE_GPU();
  const Array d = gold("cam_u8_in").to(Device::cuda());
  EXPECT_THROW(max_tree(d), NotSupported);
  EXPECT_THROW(area_opening(d), NotSupported);
  EXPECT_THROW(area_closing(d), NotSupported);
  EXPECT_THROW(diameter_opening(d), NotSupported);
  EXPECT_THROW(diameter_closing(d), NotSupported);
  EXPECT_THROW(max_tree_local_maxima(d), NotSupported);
}

}  // namespace
