// PolynomialTransform, PiecewiseAffineTransform (Qhull's Delaunay against scipy's, random points and a
// co-circular grid), ThinPlateSplineTransform, Fundamental/EssentialMatrixTransform against
// scikit-image 0.26, their failures and errors, and the CLI commands.
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_support.hpp"
#include "tests/transform/test_geometric_common.hpp"

namespace {

TEST(GeometricPolynomial, EstimateAndApply) {
  const Array src = golden("src2");
  const Array dst = golden("dst2");
  for (int o = 1; o <= 3; ++o) {
    const auto tf = tr::PolynomialTransform::from_estimate(src, dst, o);
    ASSERT_TRUE(tf);
    expect_close(tf->params(), "poly" + std::to_string(o));  // relative to the largest coefficient
  }
  expect_close(tr::PolynomialTransform::from_estimate(src, dst, 2, golden("w"))->params(), "poly2w");
  expect_close((*tr::PolynomialTransform::from_estimate(src, dst, 2))(golden("q")), "poly2_map", 1e-9);
  const tr::PolynomialTransform id;
  EXPECT_EQ(id(points({3, 4}, 2)).to_vector<double>(), (std::vector<double>{3, 4}));
  EXPECT_THROW(id.inverse(), NotSupported);
  EXPECT_THROW(tr::PolynomialTransform(3), NotSupported);
  EXPECT_THROW(tr::PolynomialTransform(tr::Matrix(3, 3)), InvalidArgument);
  EXPECT_THROW(tr::PolynomialTransform::from_estimate(golden("src3"), golden("dst3")), NotSupported);
  EXPECT_FALSE(tr::PolynomialTransform::from_estimate(points({0, 0, 1, 2}, 2), points({0, 1, 1, 2}, 2), 2));
}

std::vector<std::vector<std::int64_t>> rows_of(const Array& a) {
  const auto v = a.to_vector<std::int64_t>();
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t r = 0; r < a.shape(0); ++r) out.emplace_back(v.begin() + r * a.shape(1), v.begin() + (r + 1) * a.shape(1));
  return out;
}

TEST(GeometricPiecewise, DelaunayMatchesScipy) {
  // Random points and a regular grid (co-circular quadruples: the split of each square is Qhull's
  // choice, the same with scipy's options).
  EXPECT_EQ(tr::delaunay(tr::Matrix::from_array(golden("src2"))).simplices, rows_of(golden("pw_simplices")));
  EXPECT_EQ(tr::delaunay(tr::Matrix::from_array(golden("dst2"))).simplices, rows_of(golden("pw_inv_simplices")));
  std::vector<double> grid;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) grid.insert(grid.end(), {double(x), double(y)});
  EXPECT_EQ(tr::delaunay(tr::Matrix(20, 2, grid)).simplices, rows_of(golden("grid_simplices")));
  // The grid's warp at its vertices, on edges and diagonals (points of two or more simplices) and
  // outside the mesh (-1).
  for (double& v : grid) v *= 10;
  const auto tf = tr::PiecewiseAffineTransform::from_estimate(geomtest::points(grid, 2), golden("grid_dst"));
  ASSERT_TRUE(tf) << tf.message;
  expect_close((*tf)(golden("grid_q")), "grid_map", 1e-12);
}

TEST(GeometricPiecewise, FindSimplex) {
  // scipy's find_simplex on 2000 random points, then the bucket grid against a search of every
  // simplex on points near the edges (midpoints nudged by +-eps).
  const auto mesh = tr::delaunay(tr::Matrix::from_array(golden("src2")));
  auto indexed = mesh;
  indexed.index();
  const auto q = tr::Matrix::from_array(golden("pw_find_q"));
  EXPECT_EQ(indexed.find_simplex(q), golden("pw_find").to_vector<std::int64_t>());
  std::vector<double> near;
  for (const auto& s : mesh.simplices)
    for (std::size_t a = 0; a < s.size(); ++a)
      for (const double t : {-1e-14, 0.0, 2e-14}) {
        const auto b = s[(a + 1) % s.size()];
        for (int j = 0; j < 2; ++j) near.push_back(0.5 * (mesh.points(s[a], j) + mesh.points(b, j)) + t);
      }
  const tr::Matrix nq(static_cast<std::int64_t>(near.size() / 2), 2, near);
  const auto got = indexed.find_simplex(nq);
  for (std::int64_t n = 0; n < nq.rows; ++n) {
    std::int64_t want = -1;
    for (std::size_t k = 0; k < mesh.simplices.size() && want < 0; ++k) {
      auto one = indexed;
      one.cells.assign(1, {static_cast<std::int64_t>(k)});
      one.cells_per_axis.assign(2, 1);
      if (one.find_simplex(tr::Matrix(1, 2, {nq(n, 0), nq(n, 1)}))[0] == static_cast<std::int64_t>(k)) want = static_cast<std::int64_t>(k);
    }
    EXPECT_EQ(got[static_cast<std::size_t>(n)], want) << n;
  }
}

TEST(GeometricPiecewise, EstimateAndApply) {
  const Array src = golden("src2");
  const Array dst = golden("dst2");
  const auto tf = tr::PiecewiseAffineTransform::from_estimate(src, dst);
  ASSERT_TRUE(tf) << tf.message;
  expect_close((*tf)(golden("q")), "pw_map", 1e-9);  // -1 outside the mesh
  expect_close((*tf->inverse())(dst.slice({cuskimage::Slice(0, 5)})), "pw_inv_map", 1e-9);
  EXPECT_EQ(tf->affines().size(), tf->tesselation().simplices.size());
  EXPECT_THROW(tr::PiecewiseAffineTransform::from_estimate(points({}, 2), points({}, 2)), InvalidArgument);
  EXPECT_THROW(tr::PiecewiseAffineTransform::from_estimate(points({0, 0, 1, 1}, 2), points({0, 0, 1, 1}, 2)),
               InvalidArgument);  // QhullError: not enough points
  const Array line = points({0, 0, 1, 1, 2, 2, 3, 3}, 2);
  EXPECT_THROW(tr::PiecewiseAffineTransform::from_estimate(line, line), InvalidArgument);  // flat simplex
  EXPECT_THROW(tr::PiecewiseAffineTransform::from_estimate(points({1, 2, 3}, 1), points({1, 2, 3}, 1)),
               InvalidArgument);
  // 3-D: tetrahedra.
  const auto t3 = tr::PiecewiseAffineTransform::from_estimate(golden("src3"), golden("dst3"));
  ASSERT_TRUE(t3);
  EXPECT_EQ(t3->tesselation().simplices.front().size(), 4u);
}

TEST(GeometricTps, EstimateAndApply) {
  const auto s = golden("src2").slice({cuskimage::Slice(0, 10)});
  const auto d = golden("dst2").slice({cuskimage::Slice(0, 10)});
  const auto tf = tr::ThinPlateSplineTransform::from_estimate(s, d);
  ASSERT_TRUE(tf);
  expect_close((*tf)(golden("q")), "tps_map", 1e-8);
  const Array same = points({1, 1, 1, 1, 1, 1, 1, 1}, 2);
  EXPECT_EQ(tr::ThinPlateSplineTransform::from_estimate(same, points({0, 1, 2, 3, 4, 5, 6, 7}, 2)).message,
            "ThinPlateSplineTransform: Unable to solve for spline mappings");
  EXPECT_THROW(tr::ThinPlateSplineTransform::from_estimate(points({0, 0, 1, 1}, 2), points({0, 0, 1, 1}, 2)),
               InvalidArgument);  // fewer than 3 points
  EXPECT_THROW(tr::ThinPlateSplineTransform::from_estimate(s, golden("dst2")), InvalidArgument);
  EXPECT_THROW(tr::ThinPlateSplineTransform()(s), InvalidArgument);  // not estimated
  EXPECT_THROW(tf->inverse(), NotSupported);
}

/// Fundamental and essential params have no sign of their own: compare with the golden's sign.
void expect_close_up_to_sign(const tr::Matrix& got, const std::string& name) {
  const auto want = golden(name).to_vector<double>();
  std::vector<double> g = got.data;
  double dot = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) dot += g[i] * want[i];
  if (dot < 0)
    for (double& v : g) v = -v;
  geomtest::expect_close(g, want, 1e-9, name);
}

TEST(GeometricEpipolar, EstimateResidualsErrors) {
  const Array src = golden("src2");
  const Array dst = golden("dst2");
  const auto f = tr::FundamentalMatrixTransform::from_estimate(src, dst);
  ASSERT_TRUE(f);
  expect_close_up_to_sign(f->params(), "fund");
  expect_close(f->residuals(src, dst), "fund_res", 1e-8);
  std::vector<double> s(src.to_vector<double>()), d(dst.to_vector<double>());
  for (double& v : s) v /= 100;
  for (double& v : d) v /= 100;
  const auto e = tr::EssentialMatrixTransform::from_estimate(points(s, 2), points(d, 2));
  ASSERT_TRUE(e);
  expect_close_up_to_sign(e->params(), "ess");
  EXPECT_THROW(tr::FundamentalMatrixTransform::from_estimate(points({0, 0, 1, 1}, 2), points({0, 0, 1, 1}, 2)),
               InvalidArgument);  // fewer than 8
  EXPECT_THROW(tr::FundamentalMatrixTransform::from_estimate(golden("src3"), golden("dst3")), NotSupported);
  std::vector<double> same(16, 2.0);
  EXPECT_EQ(tr::EssentialMatrixTransform::from_estimate(points(same, 2), dst.slice({cuskimage::Slice(0, 8)})).message,
            "EssentialMatrixTransform: Scaling failed for input points");
  const tr::Matrix rot = tr::Matrix::identity(3);
  const tr::EssentialMatrixTransform rt(rot, {1, 0, 0});
  EXPECT_EQ(rt.params().data, (std::vector<double>{0, 0, 0, 0, 0, -1, 0, 1, 0}));
  EXPECT_THROW(tr::EssentialMatrixTransform(rot, {1, 1, 0}), InvalidArgument);   // not unit length
  EXPECT_THROW(tr::EssentialMatrixTransform(tr::Matrix(3, 3), {1, 0, 0}), InvalidArgument);  // det 0
  const auto lines = (*f)(points({1, 2}, 2)).to_vector<double>();
  EXPECT_EQ(lines.size(), 3u);
  EXPECT_EQ(std::dynamic_pointer_cast<tr::FundamentalMatrixTransform>(f->inverse())->params()(0, 1), f->params()(1, 0));
}

TEST(GeometricCli, EstimateAndMatrixTransform) {
  using cuskclitest::run_cli_cpu;
  const std::string src = cusktest::temp_path("src.csv");
  const std::string dst = cusktest::temp_path("dst.csv");
  {
    std::ofstream a(src), b(dst);
    a << "x,y\n0,0\n1,0\n0,1\n1,1\n";
    b << "# shifted by (2, 3)\n2 3\n3 3\n2 4\n3 4\n";
  }
  const auto est = run_cli_cpu({"transform.estimate_transform", src, dst, "--ttype", "euclidean"});
  ASSERT_EQ(est.rc, 0) << cuskclitest::describe(est);
  const auto j = nlohmann::json::parse(est.out);
  EXPECT_TRUE(j["success"].get<bool>());
  EXPECT_NEAR(j["params"][0][2].get<double>(), 2.0, 1e-12);
  EXPECT_NEAR(j["params"][1][2].get<double>(), 3.0, 1e-12);
  const auto fail = run_cli_cpu({"transform.estimate_transform", src, src, "--ttype", "fundamental"});
  EXPECT_NE(fail.rc, 0);  // fewer than 8 points: InvalidArgument
  const auto mt = run_cli_cpu({"transform.matrix_transform", src, "--matrix", "1,0,2,0,1,3"});
  ASSERT_EQ(mt.rc, 0) << cuskclitest::describe(mt);
  EXPECT_TRUE(cuskclitest::contains(mt.out, "x,y"));
  EXPECT_TRUE(cuskclitest::contains(mt.out, "3.0,4.0") || cuskclitest::contains(mt.out, "3,4")) << mt.out;
  const auto rot = run_cli_cpu({"transform.matrix_transform", src, "--rotation", "1.5707963267948966",
                                "--transform", "euclidean"});
  ASSERT_EQ(rot.rc, 0) << cuskclitest::describe(rot);
  // 3-D: a 4x4 matrix, and three Euler angles (a SimilarityTransform by default).
  const std::string p3 = cusktest::temp_path("p3.txt");
  std::ofstream(p3) << "1 2 3\n";
  const auto m4 = run_cli_cpu({"transform.matrix_transform", p3, "--matrix", "2,0,0,1,0,2,0,1,0,0,2,1,0,0,0,1"});
  ASSERT_EQ(m4.rc, 0) << cuskclitest::describe(m4);
  EXPECT_TRUE(cuskclitest::contains(m4.out, "x,y,z\n3.0,5.0,7.0")) << m4.out;
  const auto r3 = run_cli_cpu({"transform.matrix_transform", p3, "--rotation", "0,0,0", "--translation", "1,1,1",
                               "--scale", "3"});
  ASSERT_EQ(r3.rc, 0) << cuskclitest::describe(r3);
  EXPECT_TRUE(cuskclitest::contains(r3.out, "4.0,7.0,10.0")) << r3.out;
  const auto bad = run_cli_cpu({"transform.matrix_transform", p3, "--matrix", "1,2,3,4,5"});
  EXPECT_EQ(bad.rc, 2);  // neither 3x3, 4x4, 2x3 nor 3x4
  const auto both = run_cli_cpu({"transform.matrix_transform", src, "--matrix", "1,0,0,0,1,0,0,0,1", "--scale", "2"});
  EXPECT_EQ(both.rc, 2);  // UsageError
}

}  // namespace
