// feature.CENSURE: the filter responses with the library's integral image / convolve and the
// 3x3x3 rank filters on the image's device, the DoB planes and the keypoint masks on the backend
// (CPU loops here, kernels/feature/censure.cu), the keypoints listed on the host in C order.
// Semantics: include/cuskimage/feature/censure.hpp.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/transform.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/brief.hpp"
#include "src/feature/censure.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.CENSURE";

// scikit-image's filter shapes per scale (scale s uses entry s - 1).
constexpr std::int64_t kOctOuter[11][2] = {{5, 2}, {5, 3}, {7, 3}, {9, 4}, {9, 7}, {13, 7},
                                           {15, 10}, {15, 11}, {15, 12}, {17, 13}, {17, 14}};
constexpr std::int64_t kOctInner[11][2] = {{3, 0}, {3, 1}, {3, 2}, {5, 2}, {5, 3}, {5, 4},
                                           {5, 5}, {7, 5}, {7, 6}, {9, 6}, {9, 7}};
constexpr std::int64_t kStar[17] = {1, 2, 3, 4, 6, 8, 11, 12, 16, 22, 23, 32, 45, 46, 64, 90, 128};
constexpr std::int64_t kStarFilter[12][2] = {{1, 0}, {3, 1}, {4, 2}, {5, 3}, {7, 4}, {8, 5},
                                             {9, 6}, {11, 8}, {13, 10}, {14, 11}, {15, 12}, {16, 14}};

/// outer_w * outer - (outer_w + inner_w) * inner, the inner footprint centred in the outer one.
Array bilevel(const Array& outer, const Array& inner, double outer_w, double inner_w) {
  const std::int64_t n = outer.shape(0), m = inner.shape(0), c = (n - m) / 2;
  const auto o = outer.to_vector<double>(), in = inner.to_vector<double>();
  std::vector<double> k(static_cast<std::size_t>(n * n));
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t q = 0; q < n; ++q) {
      const bool ins = r >= c && r < c + m && q >= c && q < c + m;
      const double iv = ins ? in[(r - c) * m + q - c] : 0.0;
      k[r * n + q] = outer_w * o[r * n + q] - (outer_w + inner_w) * iv;
    }
  return Array::from_vector(k, {n, n});
}

Array octagon_kernel(std::int64_t s) {
  const auto [mo, no] = kOctOuter[s - 1];
  const auto [mi, ni] = kOctInner[s - 1];
  const std::int64_t outer = (mo + 2 * no) * (mo + 2 * no) - 2 * no * (no + 1);
  const std::int64_t inner = (mi + 2 * ni) * (mi + 2 * ni) - 2 * ni * (ni + 1);
  return bilevel(morphology::octagon(mo, no).array(), morphology::octagon(mi, ni).array(),
                 1.0 / static_cast<double>(outer - inner), 1.0 / static_cast<double>(inner));
}

Array star_kernel(std::int64_t s) {
  const Array outer = morphology::star(kStar[kStarFilter[s - 1][0]]), inner = morphology::star(kStar[kStarFilter[s - 1][1]]);
  const auto o = outer.to_vector<std::int64_t>(), in = inner.to_vector<std::int64_t>();
  std::int64_t so = 0, si = 0;
  for (auto v : o) so += v;
  for (auto v : in) si += v;
  return bilevel(outer, inner, 1.0 / static_cast<double>(so - si), 1.0 / static_cast<double>(si));
}

/// The response planes (scales, rows, cols) of _filter_image.
Array responses(const Array& img, const CensureOptions& o, const Stream& s) {
  const std::int64_t ns = o.max_scale - o.min_scale + 1, R = img.shape(0), C = img.shape(1);
  Array resp = Array::zeros({ns, R, C}, DType::float64, img.device(), s);
  const Array integral = o.mode == CensureMode::dob ? transform::integral_image(img, {}, s).contiguous(s) : Array();
  for (std::int64_t i = 0; i < ns; ++i) {
    const std::int64_t n = o.min_scale + i;
    Array plane = resp.index(0, i);
    if (o.mode != CensureMode::dob) {
      const Array k = o.mode == CensureMode::octagon ? octagon_kernel(n) : star_kernel(n);
      plane.copy_from(ndimage::convolve(img, k.to(img.device(), s), {}, s), s);
      continue;
    }
    const double iw = 1.0 / static_cast<double>((2 * n + 1) * (2 * n + 1));
    const double ow = 1.0 / static_cast<double>(12 * n * n + 4 * n);
    cuskimage::detail::on_backend(
        img, s,
        [&] {
          const double* I = integral.data<double>();
          double* out = plane.data<double>();
          for (std::int64_t r = 2 * n; r < R - 2 * n; ++r)
            for (std::int64_t c = 2 * n; c < C - 2 * n; ++c) out[r * C + c] = detail::censure_dob(I, C, r, c, n, iw, ow);
        },
        [&](const Stream& st) { detail::cuda_censure_dob(integral, n, iw, ow, plane, st); });
  }
  return resp;
}

}  // namespace

CENSURE::CENSURE(CensureOptions opts) : opts_(opts) {
  expect(opts.min_scale >= 1 && opts.max_scale >= 1 && opts.max_scale - opts.min_scale >= 2, kFn, "max_scale",
         "the scales must be >= 1 and the number of scales should be >= 3");
  expect(opts.mode != CensureMode::octagon || opts.max_scale <= 11, kFn, "max_scale", "must be <= 11 for Octagon");
  expect(opts.mode != CensureMode::star || opts.max_scale <= 12, kFn, "max_scale", "must be <= 12 for STAR");
}

void CENSURE::detect(const Array& image, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  const std::int64_t R = image.shape(0), C = image.shape(1);
  expect(opts_.mode != CensureMode::dob || (R > 4 * opts_.max_scale && C > 4 * opts_.max_scale), kFn, "image",
         "is too small for the DoB filter of max_scale ", opts_.max_scale, ": needs more than ", 4 * opts_.max_scale,
         " rows and columns");
  const Device dev = image.device();
  std::optional<cuskimage::detail::DeviceGuard> guard;
  if (!dev.is_cpu()) guard.emplace(dev.index());
  const Array img = util::img_as_float(image, {}, stream).astype(DType::float64, stream).contiguous(stream);
  const Array resp = responses(img, opts_, stream);
  ndimage::RankFilterOptions rf;
  rf.size = {3};
  const Array mn = ndimage::minimum_filter(resp, rf, stream), mx = ndimage::maximum_filter(resp, rf, stream);
  const std::int64_t num = opts_.max_scale - opts_.min_scale;
  std::vector<std::vector<std::uint8_t>> planes;  // inner scales 1 .. num - 1
  for (std::int64_t i = 1; i < num; ++i) {
    StructureTensorOptions so;
    so.sigma = 1 + static_cast<double>(opts_.min_scale + i - 1) / 3.0;
    const auto t = structure_tensor(img, so, stream);
    const Array v = resp.index(0, i), a = mn.index(0, i), b = mx.index(0, i);
    Array m = Array::empty({R, C}, DType::uint8, dev, stream);
    cuskimage::detail::on_backend(
        img, stream,
        [&] {
          for (std::int64_t p = 0; p < R * C; ++p)
            m.data<std::uint8_t>()[p] = detail::censure_keep(
                v.data<double>()[p], a.data<double>()[p], b.data<double>()[p], opts_.non_max_threshold,
                t[0].data<double>()[p], t[1].data<double>()[p], t[2].data<double>()[p], opts_.line_threshold);
        },
        [&](const Stream& st) {
          detail::cuda_censure_mask(v, a, b, t[0], t[1], t[2], opts_.non_max_threshold, opts_.line_threshold, m, st);
        });
    planes.push_back(m.to(Device::cpu(), stream).to_vector<std::uint8_t>());
  }
  std::vector<std::int64_t> kp, sc;
  for (std::int64_t p = 0; p < R * C; ++p)
    for (std::int64_t i = 1; i < num; ++i)
      if (planes[i - 1][p]) {
        const std::int64_t scale = i + opts_.min_scale;
        if (opts_.mode != CensureMode::dob) {  // the filter of this scale must fit around the keypoint
          const std::int64_t c = opts_.mode == CensureMode::octagon
                                     ? (kOctOuter[scale - 1][0] - 1) / 2 + kOctOuter[scale - 1][1]
                                     : kStar[kStarFilter[scale - 1][0]] + kStar[kStarFilter[scale - 1][0]] / 2;
          if (!detail::mask_border_keypoints(R, C, {static_cast<double>(p / C), static_cast<double>(p % C)}, c)[0])
            continue;
        }
        kp.push_back(p / C), kp.push_back(p % C), sc.push_back(scale);
      }
  const std::int64_t n = static_cast<std::int64_t>(sc.size());
  keypoints = Array::from_vector(kp, {n, 2}).to(dev, stream);
  scales = Array::from_vector(sc, {n}).to(dev, stream);
}

}  // namespace cuskimage::feature
