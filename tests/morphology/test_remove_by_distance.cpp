// skimage.morphology.remove_objects_by_distance.
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_maxtree.py) on scattered
// labelled blobs (int32), random sparse labels (uint8), a labelled volume (uint16) and touching
// objects (int32): distances 0, 3, 5 and sqrt(2) (boundary ties), p-norms 1, 3 and inf,
// anisotropic spacing and a given priority. All exact. Also `out=` (a strided view and in place),
// a brute-force check of the rule on random images, and bad arguments.
// GPU (Gpu*): device inputs throw NotSupported (objects are decided sequentially; CPU only).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

const std::vector<std::string> kCases = {"blobs", "random", "vol", "touching"};

Array gold(const std::string& name) { return load_golden("morphology_maxtree/" + name + ".npy"); }

std::vector<double> spacing_for(int nd) {
  const std::vector<double> s = {1.5, 0.75, 1.0};
  return {s.begin(), s.begin() + nd};
}

TEST(MorphologyRemoveByDistance, Golden) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array img = gold(c + "_in");
    auto run = [&](double d, RemoveObjectsByDistanceOptions o = {}) { return remove_objects_by_distance(img, d, o); };
    EXPECT_ARRAY_EQ(gold(c + "_d0"), run(0));
    EXPECT_ARRAY_EQ(gold(c + "_d3"), run(3));
    EXPECT_ARRAY_EQ(gold(c + "_d5"), run(5));
    EXPECT_ARRAY_EQ(gold(c + "_d2p1"), run(2, {.p_norm = 1}));
    EXPECT_ARRAY_EQ(gold(c + "_d3pinf"), run(3, {.p_norm = std::numeric_limits<double>::infinity()}));
    EXPECT_ARRAY_EQ(gold(c + "_d4p3"), run(4, {.p_norm = 3}));
    EXPECT_ARRAY_EQ(gold(c + "_d3sp"), run(3, {.spacing = spacing_for(img.ndim())}));
    EXPECT_ARRAY_EQ(gold(c + "_d2sq"), run(std::sqrt(2.0)));
    EXPECT_ARRAY_EQ(gold(c + "_prio"), run(4, {.priority = gold(c + "_prio_p")}));
  }
}

TEST(MorphologyRemoveByDistance, GoldenRemovesSomething) {
  // The goldens are not trivial: each case loses objects at distance 5.
  for (const auto& c : kCases) {
    EXPECT_FALSE(cusktest::arrays_equal(gold(c + "_in"), gold(c + "_d5"))) << c;
  }
}

TEST(MorphologyRemoveByDistance, Out) {
  const Array img = gold("blobs_in");
  // A strided `out`.
  Array big = Array::zeros({img.shape()[0], img.shape()[1] * 2}, DType::int32);
  Array view = big.slice({Slice{}, Slice{.step = 2}});
  remove_objects_by_distance_into(img, 3, view);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), view);
  // In place.
  Array inplace = img.copy();
  remove_objects_by_distance_into(inplace, 5, inplace);
  EXPECT_ARRAY_EQ(gold("blobs_d5"), inplace);
  // A strided input.
  const Array wide = Array::zeros({img.shape()[0], img.shape()[1] * 2}, DType::int32);
  Array wv = wide.slice({Slice{}, Slice{.step = 2}});
  wv.copy_from(img);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), remove_objects_by_distance(wv, 3));
}

/// The rule stated directly: objects by (priority desc, label desc); a present object is kept and
/// removes every present object with a boundary pixel within the distance (Euclidean, unit spacing).
std::vector<std::int32_t> brute(const std::vector<std::int32_t>& lab, std::int64_t rows, std::int64_t cols, double r) {
  const std::int32_t maxl = *std::max_element(lab.begin(), lab.end());
  std::vector<std::int64_t> size(maxl + 1, 0);
  for (auto v : lab) ++size[v];
  auto border = [&](std::int64_t y, std::int64_t x) {
    const std::int32_t v = lab[y * cols + x];
    const int dy[] = {-1, 1, 0, 0}, dx[] = {0, 0, -1, 1};
    for (int k = 0; k < 4; ++k) {
      const std::int64_t yy = y + dy[k], xx = x + dx[k];
      if (yy >= 0 && yy < rows && xx >= 0 && xx < cols && lab[yy * cols + xx] != v) return true;
    }
    return false;
  };
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> pts(maxl + 1);
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < cols; ++x)
      if (lab[y * cols + x] && border(y, x)) pts[lab[y * cols + x]].push_back({y, x});
  std::vector<int> ids;
  for (int l = 1; l <= maxl; ++l)
    if (!pts[l].empty()) ids.push_back(l);
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return size[a] != size[b] ? size[a] > size[b] : a > b; });
  std::vector<bool> gone(maxl + 1, false);
  for (int a : ids) {
    if (gone[a]) continue;
    for (int b : ids) {
      if (b == a || gone[b]) continue;
      bool near = false;
      for (auto [y0, x0] : pts[a])
        for (auto [y1, x1] : pts[b])
          near = near || double((y0 - y1) * (y0 - y1) + (x0 - x1) * (x0 - x1)) <= r * r;
      if (near) gone[b] = true;
    }
  }
  std::vector<std::int32_t> out = lab;
  for (auto& v : out)
    if (gone[v]) v = 0;
  return out;
}

TEST(MorphologyRemoveByDistance, MatchesBruteForce) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::int64_t rows = 20 + seed, cols = 25 + 2 * seed;
    const Array u = cusktest::random_array({rows, cols}, DType::float64, seed);
    std::vector<double> uv = u.to_vector<double>();
    std::vector<std::int32_t> lab(uv.size());
    for (std::size_t i = 0; i < uv.size(); ++i) lab[i] = uv[i] < 0.12 ? 1 + static_cast<std::int32_t>(uv[i] * 150) : 0;
    const Array img = Array::from_vector(lab, {rows, cols});
    for (double r : {1.0, 2.5, 6.0}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " r " + std::to_string(r));
      EXPECT_EQ(brute(lab, rows, cols, r), remove_objects_by_distance(img, r).to_vector<std::int32_t>());
    }
  }
}

TEST(MorphologyRemoveByDistance, Degenerate) {
  // No objects, one object filling the image, 1-D.
  const Array zero = Array::zeros({5, 6}, DType::uint8);
  EXPECT_ARRAY_EQ(zero, remove_objects_by_distance(zero, 3));
  const Array full = Array::full({4, 4}, 2, DType::int64);
  EXPECT_ARRAY_EQ(full, remove_objects_by_distance(full, 10));
  const Array line = Array::from_vector<std::int32_t>({1, 1, 0, 2, 0, 0, 3, 3, 3}, {9});
  EXPECT_EQ(remove_objects_by_distance(line, 2).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 1, 0, 0, 0, 0, 3, 3, 3}));
  EXPECT_EQ(remove_objects_by_distance(line, 3).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 1, 0, 0, 0, 0, 3, 3, 3}));
  EXPECT_EQ(remove_objects_by_distance(line, 5).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 0, 0, 0, 0, 0, 3, 3, 3}));
}

TEST(MorphologyRemoveByDistance, BadInput) {
  const Array img = gold("touching_in");
  EXPECT_THROW(remove_objects_by_distance(img, -1), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img.astype(DType::float32), 2), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img.astype(DType::bool_), 2), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({5}, DType::float64)}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({2, 10}, DType::float64)}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.p_norm = 0.5}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.spacing = {1.0}}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.spacing = {1.0, 0.0}}), InvalidArgument);
  Array neg = img.copy();
  neg.data<std::int32_t>()[0] = -4;
  EXPECT_THROW(remove_objects_by_distance(neg, 2), InvalidArgument);
  Array wrong = Array::zeros(img.shape(), DType::int64);
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, wrong), InvalidArgument);
  Array small = Array::zeros({3, 3}, DType::int32);
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, small), InvalidArgument);
}

TEST(MorphologyRemoveByDistance, Cli) {
  const std::string in = cusktest::golden_path("morphology_maxtree/blobs_in.npy");
  const std::string prio = cusktest::golden_path("morphology_maxtree/blobs_prio_p.npy");
  const std::string out = cusktest::temp_path("rod_cli_out.npy");
  auto run = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    if (r.rc != 0) ADD_FAILURE() << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.remove_objects_by_distance", in, out, "--min_distance", "3"}), 0);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), io::imread(out));
  ASSERT_EQ(run({"morphology.remove_objects_by_distance", in, out, "--min_distance", "3", "--spacing", "1.5,0.75"}), 0);
  EXPECT_ARRAY_EQ(gold("blobs_d3sp"), io::imread(out));
  ASSERT_EQ(run({"morphology.remove_objects_by_distance", in, prio, out, "--min_distance", "4"}), 0);
  EXPECT_ARRAY_EQ(gold("blobs_prio"), io::imread(out));
  EXPECT_NE(cuskclitest::run_cli_cpu({"morphology.remove_objects_by_distance", in, out, "--min_distance", "-1"}).rc, 0);
}

// ---- GPU ------------------------------------------------------------------------------------------

TEST(GpuMorphologyRemoveByDistance, DeviceInputNotSupported) {
  CUSK_REQUIRE_GPU();
  const Array d = gold("blobs_in").to(Device::cuda());
  EXPECT_THROW(remove_objects_by_distance(d, 3), NotSupported);
  Array host_out = Array::zeros(d.shape(), d.dtype());
  EXPECT_THROW(remove_objects_by_distance_into(d, 3, host_out), NotSupported);
}

}  // namespace
