// The projective family (Projective, Affine, Euclidean, Similarity) against scikit-image 0.26:
// estimated params to 1e-10 relative, implicit parameters, derived properties, composition, inverse,
// residuals, matrix_transform, and the failures and errors scikit-image reports.
#include <cmath>
#include <numbers>

#include "tests/transform/test_geometric_common.hpp"

namespace {

template <class T>
void check_estimate(const std::string& cls, const std::string& key) {
  const Array src = golden("src" + key);
  const Array dst = golden("dst" + key);
  const auto tf = T::from_estimate(src, dst);
  ASSERT_TRUE(tf) << tf.message;
  EXPECT_TRUE(tf.message.empty());
  expect_close(tf->params(), cls + "_" + key);
  expect_close((*tf)(src), cls + "_" + key + "_map", 1e-9);
  expect_close(tf->residuals(src, dst), cls + "_" + key + "_res", 1e-7);
  T legacy(src.shape(1));
  EXPECT_TRUE(legacy.estimate(src, dst));
  EXPECT_EQ(legacy.params(), tf->params());
}

TEST(Geometric, EstimateProjectiveFamily2D3D) {
  for (const std::string key : {"2", "3"}) {
    check_estimate<tr::ProjectiveTransform>("proj", key);
    check_estimate<tr::AffineTransform>("aff", key);
    check_estimate<tr::EuclideanTransform>("eucl", key);
    check_estimate<tr::SimilarityTransform>("sim", key);
  }
}

TEST(Geometric, EstimateWeighted) {
  const Array src = golden("src2");
  const Array dst = golden("dst2");
  const Array w = golden("w");
  expect_close(tr::ProjectiveTransform::from_estimate(src, dst, w)->params(), "proj_2w");
  expect_close(tr::AffineTransform::from_estimate(src, dst, w)->params(), "aff_2w");
  EXPECT_THROW(tr::AffineTransform::from_estimate(src, dst, golden("src3")), InvalidArgument);  // wrong length
}

TEST(Geometric, ImplicitParameters) {
  tr::TransformParams p;
  p.scale = {{1.5, 0.7}};
  p.rotation = {{0.4}};
  p.shear = {{0.3, -0.2}};
  p.translation = {{3.0, -4.0}};
  const tr::AffineTransform a(p);
  expect_close(a.params(), "aff_params", 1e-14);
  const auto props = golden("aff_props").to_vector<double>();
  const auto sc = a.scale();
  geomtest::expect_close({sc[0], sc[1], a.rotation(), a.shear()}, props, 1e-12, "aff_props");
  EXPECT_EQ(a.translation(), (std::vector<double>{3.0, -4.0}));

  tr::TransformParams s3;
  s3.scale = {{1.7}};
  s3.rotation = {{0.3, -0.5, 1.1}};
  s3.translation = {{1.0, 2.0, 3.0}};
  const tr::SimilarityTransform sim3(s3);
  expect_close(sim3.params(), "sim3_params", 1e-14);
  EXPECT_NEAR(sim3.scale(), 1.7, 1e-12);
  s3.scale.reset();
  const tr::EuclideanTransform e3(s3);
  expect_close(e3.params(), "eucl3_params", 1e-14);
  const auto rm = e3.rotation_matrix();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(rm(r, c), e3.params()(r, c));

  tr::TransformParams s2;
  s2.scale = {{0.8}};
  s2.rotation = {{-0.7}};
  s2.translation = {{2.0, 5.0}};
  const tr::SimilarityTransform sim2(s2);
  expect_close(sim2.params(), "sim2_params", 1e-14);
  EXPECT_NEAR(sim2.scale(), 0.8, 1e-14);
  EXPECT_NEAR(sim2.rotation(), -0.7, 1e-14);
}

TEST(Geometric, ImplicitParameterErrors) {
  tr::TransformParams p;
  p.rotation = {{0.1, 0.2}};
  EXPECT_THROW(tr::AffineTransform{p}, InvalidArgument);      // rotation must be scalar
  EXPECT_THROW(tr::EuclideanTransform{p}, InvalidArgument);   // scalar or 3 angles
  p.rotation = {{0.1}};
  p.translation = {{1.0}};
  EXPECT_THROW(tr::AffineTransform{p}, InvalidArgument);      // translation must be length 2
  p.translation.reset();
  p.dimensionality = 3;
  EXPECT_THROW(tr::AffineTransform{p}, InvalidArgument);      // implicit parameters only 2-D
  tr::TransformParams e;
  e.scale = {{2.0}};
  EXPECT_THROW(tr::EuclideanTransform{e}, InvalidArgument);   // no scale
  EXPECT_THROW(tr::ProjectiveTransform(tr::Matrix(3, 4)), InvalidArgument);
  EXPECT_THROW(tr::ProjectiveTransform(tr::Matrix::identity(3), 3), InvalidArgument);
  EXPECT_THROW(tr::ProjectiveTransform(tr::Matrix::identity(2)), NotSupported);  // 1-D
  EXPECT_THROW(tr::AffineTransform(3).rotation(), NotSupported);
  EXPECT_THROW(tr::SimilarityTransform(4).scale(), NotSupported);
}

TEST(Geometric, EstimationFailures) {
  // All points equal: the normalisation divides by zero.
  const Array same = points({1, 1, 1, 1, 1, 1, 1, 1}, 2);
  const Array other = points({0, 0, 1, 0, 0, 1, 1, 1}, 2);
  auto p = tr::ProjectiveTransform::from_estimate(same, other);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.message, "ProjectiveTransform: Scaling generated NaN values");
  EXPECT_THROW((void)p.value(), InvalidArgument);
  auto a = tr::AffineTransform::from_estimate(same, other);
  EXPECT_EQ(a.message, "AffineTransform: Scaling generated NaN values");
  auto e = tr::EuclideanTransform::from_estimate(same, other);
  EXPECT_FALSE(e);
  EXPECT_EQ(e.message, "EuclideanTransform: Poor conditioning for estimation");
  EXPECT_EQ(tr::SimilarityTransform::from_estimate(same, other).message,
            "SimilarityTransform: Poor conditioning for estimation");
  // Collinear points: the null vector's last entry vanishes.
  const Array line = points({0, 0, 1, 1, 2, 2, 3, 3, 4, 4}, 2);
  const Array any = points({0, 1, 3, 2, 5, 7, 1, 9, 4, 4}, 2);
  EXPECT_EQ(tr::ProjectiveTransform::from_estimate(line, any).message,
            "ProjectiveTransform: Right singular vector has 0 final element");
  EXPECT_EQ(tr::AffineTransform::from_estimate(line, any).message,
            "AffineTransform: Right singular vector has 0 final element");
  // Too few points for the unknowns (scikit-image returns an arbitrary null vector): falsy.
  const Array two = points({0, 0, 3, 1}, 2);
  const Array two_b = points({1, 0, 2, 5}, 2);
  EXPECT_FALSE(tr::AffineTransform::from_estimate(two, two_b));
  EXPECT_FALSE(tr::ProjectiveTransform::from_estimate(golden("src2").slice({cuskimage::Slice(0, 3)}),
                                                      golden("dst2").slice({cuskimage::Slice(0, 3)})));
  tr::AffineTransform legacy;
  EXPECT_FALSE(legacy.estimate(same, other));
  EXPECT_TRUE(std::isnan(legacy.params()(0, 0)));
  // Shapes.
  EXPECT_THROW(tr::AffineTransform::from_estimate(two, points({1, 2, 3, 4, 5, 6}, 2)), InvalidArgument);
  EXPECT_THROW(tr::AffineTransform::from_estimate(points({1, 2, 3}, 1), points({1, 2, 3}, 1)), NotSupported);
  EXPECT_THROW(tr::EuclideanTransform::from_estimate(points({}, 2), points({}, 2)), InvalidArgument);
}

TEST(Geometric, InverseCompositionMatrixTransform) {
  const Array src = golden("src2");
  const auto a = tr::AffineTransform::from_estimate(src, golden("dst2")).value();
  const auto inv = a.inverse();
  ASSERT_TRUE(std::dynamic_pointer_cast<tr::AffineTransform>(inv));
  const Array back = (*inv)(a(src));
  geomtest::expect_close(back.to_vector<double>(), src.to_vector<double>(), 1e-12, "round trip");

  const auto sum = a + *std::dynamic_pointer_cast<tr::AffineTransform>(inv);
  static_assert(std::is_same_v<decltype(sum), const tr::AffineTransform>);
  geomtest::expect_close(sum.params().data, tr::Matrix::identity(3).data, 1e-12, "a + a^-1");
  tr::TransformParams r;
  r.rotation = {{0.3}};
  const auto mixed = tr::EuclideanTransform(r) + tr::SimilarityTransform(r);
  static_assert(std::is_same_v<decltype(mixed), const tr::ProjectiveTransform>);
  EXPECT_NEAR(mixed.params()(1, 0), std::sin(0.6), 1e-15);

  // matrix_transform == ProjectiveTransform(matrix)(coords), exact zeros of the divisor -> eps.
  const tr::Matrix m(3, 3, {1, 0, 2, 0, 1, -1, 0, 0, 1});
  const Array out = tr::matrix_transform(points({1, 1, 4, 5}, 2), m);
  EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{3, 0, 6, 4}));
  const tr::Matrix proj(3, 3, {1, 0, 0, 0, 1, 0, 1, 0, 0});
  const Array inf = tr::matrix_transform(points({0, 3}, 2), proj);
  EXPECT_EQ(inf.to_vector<double>()[1], 3.0 / std::numeric_limits<double>::epsilon());
  EXPECT_THROW(tr::ProjectiveTransform(tr::Matrix(3, 3)).inverse(), InvalidArgument);  // singular
  EXPECT_THROW(a(golden("src3")), InvalidArgument);                                    // 3 columns
  EXPECT_EQ(tr::SimilarityTransform::identity(3).params(), tr::Matrix::identity(4));
  EXPECT_EQ(tr::PolynomialTransform::identity()(points({2, 5}, 2)).to_vector<double>(), (std::vector<double>{2, 5}));
  ASSERT_TRUE(a.homogeneous_matrix().has_value());
  EXPECT_EQ(a.homogeneous_matrix()->to_vector<double>(), a.params().data);
}

TEST(Geometric, EstimateTransformByName) {
  const Array src = golden("src2");
  const Array dst = golden("dst2");
  for (const auto& [name, gold] : {std::pair{"affine", "aff_2"}, {"Projective", "proj_2"}, {"euclidean", "eucl_2"},
                                   {"similarity", "sim_2"}}) {
    const auto tf = tr::estimate_transform(name, src, dst);
    ASSERT_TRUE(tf) << tf.message;
    const auto* p = dynamic_cast<const tr::ProjectiveTransform*>(tf->get());
    ASSERT_NE(p, nullptr);
    expect_close(p->params(), gold);
  }
  tr::EstimateTransformOptions o;
  o.order = 3;
  const auto poly = tr::estimate_transform(tr::TransformType::polynomial, src, dst, o);
  expect_close(dynamic_cast<const tr::PolynomialTransform&>(**poly).params(), "poly3");
  EXPECT_THROW(tr::estimate_transform("rigid", src, dst), InvalidArgument);
  EXPECT_THROW(tr::estimate_transform("euclidean", src, dst, {}, golden("w")), InvalidArgument);
  EXPECT_FALSE(tr::estimate_transform("affine", points({1, 1, 1, 1, 1, 1}, 2), points({0, 1, 2, 3, 4, 5}, 2)));
}

}  // namespace
