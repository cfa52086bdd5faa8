// haar_like_feature_coord, haar_like_feature and draw_haar_like_feature against scikit-image 0.26's
// goldens (tests/golden/cases_feature_hog.py): the coordinates and types exactly, in order; the
// features exactly (integer integral images) or within 1e-12 / 1e-5 (float64 / float32); the
// drawings within 1e-12 (float64) / 1e-6 (float32), including the seeded max_n_features choice
// (Floyd's algorithm and, past 10000 features, the tail shuffle). Then bad arguments and the GPU
// tier (device == CPU exactly: the same operations in the same order).
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/transform.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_hog/" + name + ".npy"); }

std::vector<ft::HaarFeatureType> types_from(const std::vector<std::int64_t>& v, std::size_t first) {
  std::vector<ft::HaarFeatureType> t;
  for (std::size_t i = first; i < v.size(); ++i) t.push_back(static_cast<ft::HaarFeatureType>(v[i]));
  return t;
}

ft::HaarFeatureCoord coords_of(int k) {
  const auto p = golden("haar_cp_" + std::to_string(k)).to_vector<std::int64_t>();
  return ft::haar_like_feature_coord(p[0], p[1], types_from(p, 2));
}

TEST(FeatureHaar, CoordGoldens) {
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    const ft::HaarFeatureCoord fc = coords_of(k);
    const auto want = golden("haar_c_" + std::to_string(k)).to_vector<std::int64_t>();
    const auto wt = golden("haar_ct_" + std::to_string(k)).to_vector<std::int64_t>();
    ASSERT_EQ(fc.coords.size(), wt.size());
    ASSERT_EQ(fc.types.size(), wt.size());
    for (std::size_t i = 0; i < wt.size(); ++i) {
      EXPECT_EQ(static_cast<std::int64_t>(fc.types[i]), wt[i]);
      for (std::size_t j = 0; j < 4; ++j) {
        const std::int64_t* w = &want[(i * 4 + j) * 4];
        if (j >= fc.coords[i].size()) {
          EXPECT_EQ(w[0], -1);
          continue;
        }
        const ft::HaarRect& r = fc.coords[i][j];
        EXPECT_EQ((std::array<std::int64_t, 4>{r.top_left[0], r.top_left[1], r.bottom_right[0], r.bottom_right[1]}),
                  (std::array<std::int64_t, 4>{w[0], w[1], w[2], w[3]}));
      }
    }
  }
}

void run_feature_goldens(const Device& dev, const Stream& s) {
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE(k);
    const auto p = golden("haar_fp_" + std::to_string(k)).to_vector<std::int64_t>();
    const Array ii = golden("haar_ii_" + std::to_string(p[0])).to(dev, s);
    Array got;
    if (p[5] < 0) {
      got = ft::haar_like_feature(ii, p[1], p[2], p[3], p[4], {.feature_type = types_from(p, 6)}, s);
    } else {
      const ft::HaarFeatureCoord all = ft::haar_like_feature_coord(5, 4);
      ft::HaarFeatureCoord sub;
      for (auto i : golden("haar_perm_" + std::to_string(k)).to_vector<std::int64_t>()) {
        sub.coords.push_back(all.coords[i]);
        sub.types.push_back(all.types[i]);
      }
      got = ft::haar_like_feature(ii, p[1], p[2], p[3], p[4], sub, s);
    }
    const Array want = golden("haar_f_" + std::to_string(k));
    EXPECT_EQ(got.device(), ii.device());
    const double tol = want.dtype() == DType::float32 ? 1e-5 : want.dtype() == DType::float64 ? 1e-12 : 0.0;
    if (tol == 0)
      EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(got)));
    else
      EXPECT_TRUE(cusktest::arrays_close(want, cusktest::host_copy(got), 0, tol));
  }
}

TEST(FeatureHaar, FeatureGoldens) { run_feature_goldens(Device::cpu(), Stream()); }

TEST(FeatureHaar, DrawGoldens) {
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    const auto p = golden("haar_dp_" + std::to_string(k)).to_vector<double>();
    const Array img = golden("haar_dimg_" + std::to_string(static_cast<int>(p[0])));
    ft::DrawHaarLikeFeatureOptions o{.alpha = p[6], .rng = static_cast<std::int64_t>(p[5])};
    if (p[4] >= 0) o.max_n_features = static_cast<std::int64_t>(p[4]);
    const Array got = ft::draw_haar_like_feature(img, static_cast<std::int64_t>(p[1]), static_cast<std::int64_t>(p[2]),
                                                 0, 0, coords_of(static_cast<int>(p[3])), o);
    const Array want = golden("haar_d_" + std::to_string(k));
    EXPECT_EQ(got.dtype(), want.dtype());
    EXPECT_TRUE(cusktest::arrays_close(want, got, 0, want.dtype() == DType::float32 ? 1e-6 : 1e-12));
  }
}

TEST(FeatureHaar, BadArguments) {
  const Array ii = Array::zeros({10, 10}, DType::float64);
  EXPECT_THROW(ft::haar_like_feature(ii, 6, 0, 5, 5), InvalidArgument);   // window outside
  EXPECT_THROW(ft::haar_like_feature(ii, -1, 0, 5, 5), InvalidArgument);
  EXPECT_THROW(ft::haar_like_feature(Array::zeros({10}, DType::float64), 0, 0, 5, 1), InvalidArgument);
  EXPECT_THROW(ft::haar_like_feature(ii, 0, 0, 5, 5, {.feature_type = {static_cast<ft::HaarFeatureType>(9)}}),
               InvalidArgument);
  ft::HaarFeatureCoord fc = ft::haar_like_feature_coord(5, 5, {ft::HaarFeatureType::type_2_x});
  fc.types.pop_back();
  EXPECT_THROW(ft::haar_like_feature(ii, 0, 0, 5, 5, fc), InvalidArgument);  // inconsistent sizes
  fc = ft::haar_like_feature_coord(6, 6, {ft::HaarFeatureType::type_2_x});
  EXPECT_THROW(ft::haar_like_feature(ii, 0, 0, 5, 5, fc), InvalidArgument);  // rectangles outside 5x5
  fc = ft::haar_like_feature_coord(5, 5, {ft::HaarFeatureType::type_2_x});
  fc.types[0] = ft::HaarFeatureType::type_4;
  EXPECT_THROW(ft::haar_like_feature(ii, 0, 0, 5, 5, fc), InvalidArgument);  // rectangle count
  EXPECT_THROW(ft::draw_haar_like_feature(ii, 0, 0, 5, 5, ft::haar_like_feature_coord(5, 5),
                                          {.max_n_features = 1000000}),
               InvalidArgument);
  EXPECT_THROW(ft::draw_haar_like_feature(ii, 8, 8, 5, 5, ft::haar_like_feature_coord(5, 5)), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureHaar, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_feature_goldens(Device::cuda(), s);
}

TEST(GpuFeatureHaar, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 30;
  for (DType dt : {DType::uint8, DType::float32, DType::float64, DType::int16}) {
    const Array img = cusktest::random_array({40, 50}, dt, seed++, 0, 100);
    const Array ii = cuskimage::transform::integral_image(img);
    const Array d = ii.to(Device::cuda(), s);
    const Array want = ft::haar_like_feature(ii, 5, 7, 19, 17);
    const Array got = ft::haar_like_feature(d, 5, 7, 19, 17, ft::HaarLikeFeatureOptions{}, s);
    EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(got)));
    const Array hv = ii.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 2}});
    const Array dv = d.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 2}});
    EXPECT_TRUE(cusktest::arrays_equal(ft::haar_like_feature(hv, 2, 3, 9, 8),
                                       cusktest::host_copy(ft::haar_like_feature(dv, 2, 3, 9, 8, ft::HaarLikeFeatureOptions{}, s))));
  }
  const Array g = cusktest::random_array({30, 30}, DType::uint8, seed++);
  const auto fc = ft::haar_like_feature_coord(6, 6);
  const Array want = ft::draw_haar_like_feature(g, 3, 4, 6, 6, fc, {.max_n_features = 20, .rng = 5});
  const Array got = ft::draw_haar_like_feature(g.to(Device::cuda(), s), 3, 4, 6, 6, fc, {.max_n_features = 20, .rng = 5}, s);
  EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(got)));
}

}  // namespace
