// feature.haar_like_feature_coord / haar_like_feature / draw_haar_like_feature: the enumeration and
// argument handling on the host, the CPU backend, and the drawing (host; numpy's Generator.choice
// reproduced for max_n_features). The CUDA backend of the features is kernels/feature/haar.cu.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "kernels/core/buffers.cuh"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/haar.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.haar_like_feature";

int rect_count(HaarFeatureType t) {
  return t == HaarFeatureType::type_4 ? 4 : (t == HaarFeatureType::type_3_x || t == HaarFeatureType::type_3_y) ? 3 : 2;
}

std::vector<HaarFeatureType> types_or_all(const std::vector<HaarFeatureType>& t, std::string_view fn) {
  for (auto v : t) {
    const int k = static_cast<int>(v);
    expect(k >= 0 && k <= 4, fn, "feature_type", "must be type-2-x, type-2-y, type-3-x, type-3-y or type-4");
  }
  if (!t.empty()) return t;
  return {HaarFeatureType::type_2_x, HaarFeatureType::type_2_y, HaarFeatureType::type_3_x, HaarFeatureType::type_3_y,
          HaarFeatureType::type_4};
}

/// scikit-image's enumeration of one type, appended to `out`.
void enumerate(std::int64_t width, std::int64_t height, HaarFeatureType t, HaarFeatureCoord& out) {
  auto R = [](std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1) {
    return HaarRect{{r0, c0}, {r1, c1}};
  };
  for (std::int64_t y = 0; y < height; ++y)
    for (std::int64_t x = 0; x < width; ++x)
      for (std::int64_t dy = 1; dy <= height; ++dy)
        for (std::int64_t dx = 1; dx <= width; ++dx) {
          std::vector<HaarRect> f;
          switch (t) {
            case HaarFeatureType::type_2_x:
              if (y + dy <= height && x + 2 * dx <= width)
                f = {R(y, x, y + dy - 1, x + dx - 1), R(y, x + dx, y + dy - 1, x + 2 * dx - 1)};
              break;
            case HaarFeatureType::type_2_y:
              if (y + 2 * dy <= height && x + dx <= width)
                f = {R(y, x, y + dy - 1, x + dx - 1), R(y + dy, x, y + 2 * dy - 1, x + dx - 1)};
              break;
            case HaarFeatureType::type_3_x:
              if (y + dy <= height && x + 3 * dx <= width)
                f = {R(y, x, y + dy - 1, x + dx - 1), R(y, x + dx, y + dy - 1, x + 2 * dx - 1),
                     R(y, x + 2 * dx, y + dy - 1, x + 3 * dx - 1)};
              break;
            case HaarFeatureType::type_3_y:
              if (y + 3 * dy <= height && x + dx <= width)
                f = {R(y, x, y + dy - 1, x + dx - 1), R(y + dy, x, y + 2 * dy - 1, x + dx - 1),
                     R(y + 2 * dy, x, y + 3 * dy - 1, x + dx - 1)};
              break;
            case HaarFeatureType::type_4:
              if (y + 2 * dy <= height && x + 2 * dx <= width)
                f = {R(y, x, y + dy - 1, x + dx - 1), R(y, x + dx, y + dy - 1, x + 2 * dx - 1),
                     R(y + dy, x + dx, y + 2 * dy - 1, x + 2 * dx - 1), R(y + dy, x, y + 2 * dy - 1, x + dx - 1)};
              break;
          }
          if (f.empty()) continue;
          out.coords.push_back(std::move(f));
          out.types.push_back(t);
        }
}

/// The features packed for haar_value, each checked against the window.
std::vector<std::int32_t> pack(const HaarFeatureCoord& fc, std::int64_t width, std::int64_t height) {
  expect(fc.coords.size() == fc.types.size(), kFn, "feature_coord",
         "inconsistent size between feature coordinates and feature types");
  std::vector<std::int32_t> p(fc.coords.size() * detail::kHaarPacked, 0);
  for (std::size_t i = 0; i < fc.coords.size(); ++i) {
    const int k = static_cast<int>(fc.types[i]);
    expect(k >= 0 && k <= 4, kFn, "feature_type", "holds an unknown feature type");
    const int n = rect_count(fc.types[i]);
    expect(static_cast<int>(fc.coords[i].size()) == n, kFn, "feature_coord", "feature ", i, " has ",
           fc.coords[i].size(), " rectangles, its type has ", n);
    std::int32_t* q = &p[i * detail::kHaarPacked];
    q[0] = n;
    for (int j = 0; j < n; ++j) {
      const HaarRect& r = fc.coords[i][j];
      expect(r.top_left[0] >= 0 && r.top_left[1] >= 0 && r.bottom_right[0] < height && r.bottom_right[1] < width &&
                 r.top_left[0] <= r.bottom_right[0] && r.top_left[1] <= r.bottom_right[1],
             kFn, "feature_coord", "feature ", i, " has a rectangle outside the ", height, "x", width, " window");
      q[1 + 4 * j] = static_cast<std::int32_t>(r.top_left[0]);
      q[2 + 4 * j] = static_cast<std::int32_t>(r.top_left[1]);
      q[3 + 4 * j] = static_cast<std::int32_t>(r.bottom_right[0]);
      q[4 + 4 * j] = static_cast<std::int32_t>(r.bottom_right[1]);
    }
  }
  return p;
}

Array features(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width, std::int64_t height,
               const std::vector<std::int32_t>& packed, const Stream& stream) {
  const std::int64_t n = static_cast<std::int64_t>(packed.size()) / detail::kHaarPacked;
  const DType dt = int_image.dtype();
  // Integers are summed in 64 bits (unsigned wraps to scikit-image's signed result).
  const DType work = is_floating(dt) ? dt : (dt == DType::uint64 ? DType::uint64 : DType::int64);
  const DType out_dt = is_floating(dt) ? dt : DType::int64;
  const Array img = dt == work ? int_image.share() : int_image.astype(work, stream);
  Array out = Array::empty({n}, out_dt, int_image.device(), stream);
  const std::int64_t sr = img.strides()[0], sc = img.strides()[1];
  auto run = [&]<class T, class O>() {
    const T* base = static_cast<const T*>(img.data()) + r * sr + c * sc;
    cuskimage::detail::on_backend(
        int_image, stream,
        [&] {
          O* o = static_cast<O*>(out.data());
          for (std::int64_t i = 0; i < n; ++i)
            o[i] = static_cast<O>(detail::haar_value(base, sr, sc, packed.data() + i * detail::kHaarPacked));
        },
        [&](auto) {
          const Array feats = cuskimage::detail::buf::upload(packed, int_image.device(), stream);
          detail::cuda_haar<T, O>(base, sr, sc, feats, out, stream);
        });
  };
  if (work == DType::float32)
    run.template operator()<float, float>();
  else if (work == DType::float64)
    run.template operator()<double, double>();
  else if (work == DType::uint64)
    run.template operator()<std::uint64_t, std::int64_t>();
  else
    run.template operator()<std::int64_t, std::int64_t>();
  return out;
}

void check_window(const Array& ii, std::int64_t r, std::int64_t c, std::int64_t width, std::int64_t height) {
  cuskimage::detail::expect_valid(ii, kFn, "int_image");
  cuskimage::detail::expect_ndim(ii, kFn, "int_image", 2, 2);
  expect(ii.dtype() != DType::bool_, kFn, "int_image", "must be numeric, got bool");
  expect(width >= 1 && height >= 1, kFn, "width", "and height must be positive");
  expect(r >= 0 && c >= 0 && r + height <= ii.shape(0) && c + width <= ii.shape(1), kFn, "r",
         "the window (", r, ", ", c, ", width ", width, ", height ", height, ") must lie inside the ", ii.str());
}

}  // namespace

HaarFeatureCoord haar_like_feature_coord(std::int64_t width, std::int64_t height,
                                         const std::vector<HaarFeatureType>& feature_type) {
  HaarFeatureCoord out;
  for (auto t : types_or_all(feature_type, "feature.haar_like_feature_coord")) enumerate(width, height, t, out);
  return out;
}

Array haar_like_feature(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width,
                        std::int64_t height, const HaarLikeFeatureOptions& opts, const Stream& stream) {
  check_window(int_image, r, c, width, height);
  HaarFeatureCoord fc;
  for (auto t : types_or_all(opts.feature_type, kFn)) enumerate(width, height, t, fc);
  return features(int_image, r, c, width, height, pack(fc, width, height), stream);
}

Array haar_like_feature(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width,
                        std::int64_t height, const HaarFeatureCoord& feature_coord, const Stream& stream) {
  check_window(int_image, r, c, width, height);
  return features(int_image, r, c, width, height, pack(feature_coord, width, height), stream);
}

}  // namespace cuskimage::feature
