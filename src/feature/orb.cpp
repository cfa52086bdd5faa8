// feature.ORB: the pyramid, corner_fast, corner_peaks, corner_orientations and structure_tensor are
// the library's ops on the image's device; the Harris responses at the keypoints and the
// descriptors run on the backend (CPU loops here, kernels/feature/orb.cu); the keypoint lists are
// assembled and ranked on the host. Semantics: include/cuskimage/feature/orb.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/transform.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/brief.hpp"
#include "src/feature/orb.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.ORB";

/// One pyramid layer's keypoints (row, col pairs in the layer), orientations, responses and,
/// when extracted, descriptors (256 bytes each).
struct LayerKeys {
  std::vector<std::int64_t> kp;
  std::vector<double> ori, resp;
  std::vector<std::uint8_t> desc;
  bool found = false;  // keypoints left after the 16-pixel border (scikit-image's "features found")
};

/// scikit-image's OFAST_MASK: the 31x31 disc of half-heights OFAST_UMAX per column offset.
Array ofast_mask() {
  constexpr int kUmax[16] = {15, 15, 15, 15, 14, 14, 14, 13, 13, 12, 11, 10, 9, 8, 6, 3};
  std::vector<std::uint8_t> m(31 * 31, 0);
  for (int i = -15; i <= 15; ++i)
    for (int j = -kUmax[i < 0 ? -i : i]; j <= kUmax[i < 0 ? -i : i]; ++j) m[(15 + j) * 31 + 15 + i] = 1;
  return Array::from_vector(m, {31, 31}).astype(DType::bool_);
}

std::vector<std::int64_t> kept(const std::vector<std::int64_t>& kp, const std::vector<std::uint8_t>& mask) {
  std::vector<std::int64_t> out;
  for (std::size_t k = 0; k < mask.size(); ++k)
    if (mask[k]) out.push_back(kp[2 * k]), out.push_back(kp[2 * k + 1]);
  return out;
}

template <class T>
std::vector<T> kept1(const std::vector<T>& v, const std::vector<std::uint8_t>& mask) {
  std::vector<T> out;
  for (std::size_t k = 0; k < mask.size(); ++k)
    if (mask[k]) out.push_back(v[k]);
  return out;
}

std::vector<double> as_double(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }

/// _orb_loop: descriptors of integer keypoints with their orientations.
std::vector<std::uint8_t> describe(const Array& img, const std::vector<std::int64_t>& kp, const std::vector<double>& ori,
                                   const Stream& s) {
  const std::int64_t n = static_cast<std::int64_t>(ori.size());
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n * 256));
  if (n == 0) return out;
  cuskimage::detail::on_backend(
      img, s,
      [&] {
        for (std::int64_t i = 0; i < n; ++i) {
          const double sn = std::sin(ori[i]), cs = std::cos(ori[i]);
          for (int j = 0; j < 256; ++j)
            out[i * 256 + j] = detail::orb_bit(img.data<double>(), img.shape(1), kp[2 * i], kp[2 * i + 1], sn, cs,
                                               detail::kOrbPairs[j]);
        }
      },
      [&](const Stream& st) {
        const Device dev = img.device();
        const Array k = Array::from_vector(kp, {n, 2}).to(dev, st);
        const Array o = Array::from_vector(ori, {n}).to(dev, st);
        Array d = Array::empty({n, 256}, DType::bool_, dev, st);
        detail::cuda_orb_descriptors(img, k, o, d, st);
        const auto v = d.to(Device::cpu(), st).to_vector<std::uint8_t>();
        std::copy(v.begin(), v.end(), out.begin());
      });
  return out;
}

/// _detect_octave (and, with `extract`, _extract_octave on its keypoints).
LayerKeys detect_layer(const Array& img, const OrbOptions& o, bool extract, const Stream& s) {
  LayerKeys L;
  CornerPeaksOptions cp;
  cp.min_distance = 1;
  CornerFastOptions fo;
  fo.n = o.fast_n;
  fo.threshold = o.fast_threshold;
  const auto peaks = corner_peaks(corner_fast(img, fo, s), cp, s).to(Device::cpu(), s).to_vector<std::int64_t>();
  if (peaks.empty()) return L;
  const std::int64_t R = img.shape(0), C = img.shape(1);
  L.kp = kept(peaks, detail::mask_border_keypoints(R, C, as_double(peaks), 16));
  const std::int64_t n = static_cast<std::int64_t>(L.kp.size() / 2);
  L.found = n > 0;
  L.ori.resize(n);
  L.resp.resize(n);
  if (n > 0) {
    const Device dev = img.device();
    const Array k = Array::from_vector(L.kp, {n, 2}).to(dev, s);
    L.ori = corner_orientations(img, k, ofast_mask().to(dev, s), s).to(Device::cpu(), s).to_vector<double>();
    StructureTensorOptions so;
    so.sigma = 1.0;
    const auto t = structure_tensor(img, so, s);
    cuskimage::detail::on_backend(
        img, s,
        [&] {
          for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t at = L.kp[2 * i] * C + L.kp[2 * i + 1];
            L.resp[i] = detail::harris_k(t[0].data<double>()[at], t[1].data<double>()[at], t[2].data<double>()[at],
                                         o.harris_k);
          }
        },
        [&](const Stream& st) {
          Array resp = Array::empty({n}, DType::float64, dev, st);
          detail::cuda_orb_harris_at(t[0], t[1], t[2], k, o.harris_k, resp, st);
          L.resp = resp.to(Device::cpu(), st).to_vector<double>();
        });
  }
  if (extract) {
    const auto m = detail::mask_border_keypoints(R, C, as_double(L.kp), 20);
    L.kp = kept(L.kp, m);
    L.ori = kept1(L.ori, m);
    L.resp = kept1(L.resp, m);
    L.desc = describe(img, L.kp, L.ori, s);
  }
  return L;
}

std::vector<Array> pyramid(const Array& image, const OrbOptions& o, const Stream& s) {
  transform::PyramidOptions po;
  po.max_layer = static_cast<int>(o.n_scales - 1);
  po.downscale = o.downscale;
  const Array img = util::img_as_float(image, {}, s).astype(DType::float64, s);
  std::vector<Array> layers = transform::pyramid_gaussian(img, po, s);
  for (auto& l : layers) l = l.astype(DType::float64, s).contiguous(s);
  return layers;
}

}  // namespace

ORB::ORB(OrbOptions opts) : opts_(opts) {
  expect(opts.downscale > 1, kFn, "downscale", "must be > 1, got ", opts.downscale);
  expect(opts.n_scales >= 1, kFn, "n_scales", "must be >= 1");
  expect(opts.n_keypoints >= 0, kFn, "n_keypoints", "must be >= 0");
  expect(opts.fast_n >= 1 && opts.fast_n <= 16, kFn, "fast_n", "must be in 1..16, got ", opts.fast_n);
}

void ORB::detect(const Array& image, const Stream& stream) { run(image, false, stream); }
void ORB::detect_and_extract(const Array& image, const Stream& stream) { run(image, true, stream); }

void ORB::run(const Array& image, bool extract, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  const Device dev = image.device();
  std::optional<cuskimage::detail::DeviceGuard> guard;
  if (!dev.is_cpu()) guard.emplace(dev.index());
  const auto layers = pyramid(image, opts_, stream);
  std::vector<double> kp, sc, ori, resp;
  std::vector<std::uint8_t> desc;
  bool any = false;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    if (layers[l].shape(0) < 2 || layers[l].shape(1) < 2) break;
    const LayerKeys L = detect_layer(layers[l], opts_, extract, stream);
    any = any || L.found;
    const double f = std::pow(opts_.downscale, static_cast<double>(l));
    for (std::size_t i = 0; i < L.ori.size(); ++i) {
      kp.push_back(static_cast<double>(L.kp[2 * i]) * f);
      kp.push_back(static_cast<double>(L.kp[2 * i + 1]) * f);
      sc.push_back(f);
      ori.push_back(L.ori[i]);
      resp.push_back(L.resp[i]);
    }
    desc.insert(desc.end(), L.desc.begin(), L.desc.end());
  }
  if (extract && !any)
    throw Error(std::string(kFn) + ": ORB found no features. Try passing in an image containing greater intensity "
                                   "contrasts between adjacent pixels.");
  std::vector<std::int64_t> order(sc.size());
  std::iota(order.begin(), order.end(), 0);
  if (static_cast<std::int64_t>(order.size()) >= opts_.n_keypoints) {
    // argsort()[::-1]: highest first, the later of equal responses first.
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return resp[a] > resp[b] || (resp[a] == resp[b] && a > b);
    });
    order.resize(static_cast<std::size_t>(opts_.n_keypoints));
  }
  const std::int64_t n = static_cast<std::int64_t>(order.size());
  std::vector<double> k2, s1, o1, r1;
  std::vector<std::uint8_t> d2;
  for (std::int64_t i : order) {
    k2.push_back(kp[2 * i]), k2.push_back(kp[2 * i + 1]);
    s1.push_back(sc[i]), o1.push_back(ori[i]), r1.push_back(resp[i]);
    if (extract) d2.insert(d2.end(), desc.begin() + i * 256, desc.begin() + (i + 1) * 256);
  }
  keypoints = Array::from_vector(k2, {n, 2}).to(dev, stream);
  scales = Array::from_vector(s1, {n}).to(dev, stream);
  orientations = Array::from_vector(o1, {n}).to(dev, stream);
  responses = Array::from_vector(r1, {n}).to(dev, stream);
  if (extract) descriptors = Array::from_vector(d2, {n, 256}).astype(DType::bool_).to(dev, stream);
}

void ORB::extract(const Array& image, const Array& kps, const Array& scl, const Array& oris, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  expect(kps.valid() && kps.ndim() == 2 && kps.shape(1) == 2, kFn, "keypoints", "must have shape (N, 2)");
  expect(scl.valid() && oris.valid() && scl.size() == kps.shape(0) && oris.size() == kps.shape(0), kFn, "scales",
         "and orientations must have one value per keypoint");
  const Device dev = image.device();
  std::optional<cuskimage::detail::DeviceGuard> guard;
  if (!dev.is_cpu()) guard.emplace(dev.index());
  const auto layers = pyramid(image, opts_, stream);
  const auto k = kps.to(Device::cpu(), stream).to_vector<double>();
  const auto sv = scl.to(Device::cpu(), stream).to_vector<double>();
  const auto ov = oris.to(Device::cpu(), stream).to_vector<double>();
  std::vector<std::uint8_t> desc, mask_all;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    std::vector<double> lk, lo;
    const double f = std::pow(opts_.downscale, static_cast<double>(l));
    for (std::size_t i = 0; i < sv.size(); ++i)
      if (static_cast<std::int64_t>(std::log(sv[i]) / std::log(opts_.downscale)) == static_cast<std::int64_t>(l))
        lk.push_back(k[2 * i] / f), lk.push_back(k[2 * i + 1] / f), lo.push_back(ov[i]);
    if (lo.empty()) continue;
    const auto m = detail::mask_border_keypoints(layers[l].shape(0), layers[l].shape(1), lk, 20);
    std::vector<std::int64_t> ik;
    for (std::size_t i = 0; i < m.size(); ++i)
      if (m[i]) ik.push_back(static_cast<std::int64_t>(lk[2 * i])), ik.push_back(static_cast<std::int64_t>(lk[2 * i + 1]));
    const auto d = describe(layers[l], ik, kept1(lo, m), stream);
    desc.insert(desc.end(), d.begin(), d.end());
    mask_all.insert(mask_all.end(), m.begin(), m.end());
  }
  expect(!mask_all.empty(), kFn, "scales", "place no keypoint in a pyramid layer");
  const std::int64_t n = static_cast<std::int64_t>(desc.size() / 256);
  descriptors = Array::from_vector(desc, {n, 256}).astype(DType::bool_).to(dev, stream);
  mask = Array::from_vector(mask_all, {static_cast<std::int64_t>(mask_all.size())}).astype(DType::bool_).to(dev, stream);
}

}  // namespace cuskimage::feature
