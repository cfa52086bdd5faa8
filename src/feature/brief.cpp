// feature.BRIEF: the sample pairs (numpy's draws, src/core/numpy_random.hpp), the border mask and
// the CPU backend; the CUDA backend is kernels/feature/brief.cu. Semantics: brief.hpp.
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/numpy_random.hpp"
#include "src/core/validate.hpp"
#include "src/feature/brief.hpp"

namespace cuskimage::feature {
namespace detail {

std::vector<std::uint8_t> mask_border_keypoints(std::int64_t rows, std::int64_t cols, const std::vector<double>& kp,
                                                std::int64_t distance) {
  std::vector<std::uint8_t> m(kp.size() / 2);
  const double lo = static_cast<double>(distance - 1);
  for (std::size_t k = 0; k < m.size(); ++k) {
    const double r = kp[2 * k], c = kp[2 * k + 1];
    m[k] = lo < r && r < static_cast<double>(rows - distance + 1) && lo < c &&
           c < static_cast<double>(cols - distance + 1);
  }
  return m;
}

}  // namespace detail

namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.BRIEF";

std::int64_t floordiv(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/// (D, 4) int32 rows (r1, c1, r2, c2) as scikit-image draws them.
std::vector<std::int32_t> sample_pairs(const BriefOptions& o, std::uint64_t seed) {
  const std::int64_t d = o.descriptor_size, ps = o.patch_size;
  const std::int64_t lo = floordiv(-(ps - 2), 2), hi = ps / 2;
  cuskimage::detail::NumpyNormal g(seed);
  std::vector<std::int32_t> s;  // C-order (row, col) samples
  if (o.mode == BriefMode::normal) {
    for (std::int64_t i = 0; i < d * 8; ++i) {
      const auto v = static_cast<std::int32_t>(static_cast<double>(ps) / 5.0 * g.next());
      if (v < hi && v > lo) s.push_back(v);
    }
    expect(static_cast<std::int64_t>(s.size()) >= 4 * d, kFn, "patch_size",
           "is too small: fewer than 4 * descriptor_size normal samples fall in the patch");
  } else {
    for (std::int64_t i = 0; i < d * 4; ++i) s.push_back(static_cast<std::int32_t>(g.integers(lo, hi + 1)));
  }
  std::vector<std::int32_t> pos(static_cast<std::size_t>(4 * d));
  for (std::int64_t p = 0; p < d; ++p) {
    pos[4 * p] = s[2 * p], pos[4 * p + 1] = s[2 * p + 1];
    pos[4 * p + 2] = s[2 * d + 2 * p], pos[4 * p + 3] = s[2 * d + 2 * p + 1];
  }
  return pos;
}

template <class T>
void cpu_brief(const Array& img, const std::vector<std::int64_t>& kp, const std::vector<std::int32_t>& pos,
               Array& out) {
  const T* im = img.data<T>();
  bool* o = static_cast<bool*>(out.data());
  const std::int64_t nd = out.shape(1);
  for (std::size_t k = 0; k < kp.size() / 2; ++k)
    for (std::int64_t p = 0; p < nd; ++p)
      o[k * nd + p] = detail::brief_bit(im, img.shape(0), img.shape(1), kp[2 * k], kp[2 * k + 1], pos.data() + 4 * p);
}

BriefDescriptors run(const Array& image, const Array& keypoints, const BriefOptions& o, std::uint64_t seed,
                     const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  cuskimage::detail::expect_valid(keypoints, kFn, "keypoints");
  expect(keypoints.ndim() == 2 && keypoints.shape(1) == 2, kFn, "keypoints", "must have shape (N, 2)");
  expect(o.descriptor_size >= 1, kFn, "descriptor_size", "must be >= 1, got ", o.descriptor_size);
  expect(o.patch_size >= 1, kFn, "patch_size", "must be >= 1, got ", o.patch_size);
  expect(o.sigma >= 0, kFn, "sigma", "must be >= 0, got ", o.sigma);
  const auto pos = sample_pairs(o, seed);
  filters::GaussianOptions go;
  go.sigma = o.sigma;
  go.mode = ndimage::Mode::reflect;
  const Array smooth = filters::gaussian(image, go, stream).contiguous(stream);
  const auto kpd = keypoints.to(Device::cpu(), stream).to_vector<double>();
  const auto mask = detail::mask_border_keypoints(image.shape(0), image.shape(1), kpd, o.patch_size / 2);
  std::vector<std::int64_t> kept;
  for (std::size_t k = 0; k < mask.size(); ++k)
    if (mask[k]) kept.push_back(static_cast<std::int64_t>(kpd[2 * k])), kept.push_back(static_cast<std::int64_t>(kpd[2 * k + 1]));
  const Device dev = image.device();
  const std::int64_t nk = static_cast<std::int64_t>(kept.size() / 2);
  BriefDescriptors r;
  r.descriptors = Array::zeros({nk, o.descriptor_size}, DType::bool_, dev, stream);
  Array mh = Array::empty({static_cast<std::int64_t>(mask.size())}, DType::bool_);
  for (std::size_t k = 0; k < mask.size(); ++k) static_cast<bool*>(mh.data())[k] = mask[k] != 0;
  r.mask = mh.to(dev, stream);
  const bool f32 = smooth.dtype() == DType::float32;
  cuskimage::detail::on_backend(
      smooth, stream,
      [&] { f32 ? cpu_brief<float>(smooth, kept, pos, r.descriptors) : cpu_brief<double>(smooth, kept, pos, r.descriptors); },
      [&](const Stream& s) {
        if (nk == 0) return;
        const Array kd = Array::from_vector(kept, {nk, 2}).to(dev, s);
        const Array pd = Array::from_vector(pos, {o.descriptor_size, 4}).to(dev, s);
        f32 ? detail::cuda_brief<float>(smooth, kd, pd, r.descriptors, s)
            : detail::cuda_brief<double>(smooth, kd, pd, r.descriptors, s);
      });
  return r;
}

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) | rd();
}

}  // namespace

BriefDescriptors brief(const Array& image, const Array& keypoints, const BriefOptions& opts, const Stream& stream) {
  return run(image, keypoints, opts, opts.rng ? *opts.rng : fresh_seed(), stream);
}

BRIEF::BRIEF(BriefOptions opts) : opts_(opts) {
  if (!opts_.rng) opts_.rng = fresh_seed();
}

void BRIEF::extract(const Array& image, const Array& keypoints, const Stream& stream) {
  auto r = run(image, keypoints, opts_, *opts_.rng, stream);
  descriptors = std::move(r.descriptors);
  mask = std::move(r.mask);
}

}  // namespace cuskimage::feature
