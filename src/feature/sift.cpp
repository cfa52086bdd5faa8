// feature.SIFT: the scale space with the library's rescale and gaussian on the image's device,
// then detection, orientations and descriptors per keypoint on the backend (CPU loops here,
// kernels/feature/sift.cu), the keypoint lists ordered on the host as scikit-image orders them.
// Semantics: include/cuskimage/feature/sift.hpp; per-keypoint arithmetic: src/feature/sift.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
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
#include "src/feature/sift.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
using detail::SiftOctave;
using detail::SiftParams;
constexpr std::string_view kFn = "feature.SIFT";
constexpr int kKp = 6;  // keypoint rows: y, x, sigma, scale, octave, orientation

/// The scale space of one image: per octave the Gaussian layers and their differences.
struct ScaleSpace {
  std::vector<Array> g, dog;
  std::vector<double> deltas, sigmas;  // sigmas: octaves x layers, absolute
  Array sigmas_dev;
  std::vector<SiftOctave> views;
};

void cpu_dog(const Array& g, Array& dog) {
  const double* a = g.data<double>();
  double* d = dog.data<double>();
  const std::int64_t plane = g.shape(1) * g.shape(2);
  for (std::int64_t i = 0; i < dog.size(); ++i) d[i] = a[i + plane] - a[i];
}

ScaleSpace scale_space(const Array& image, const SiftOptions& o, std::int64_t n_oct, const Stream& s) {
  ScaleSpace sp;
  const std::int64_t layers = o.n_scales + 3;
  const double sigma_min = o.sigma_min / static_cast<double>(o.upsampling);
  const double delta_min = 1.0 / static_cast<double>(o.upsampling);
  for (std::int64_t k = 0; k < n_oct; ++k) sp.deltas.push_back(delta_min * std::pow(2.0, static_cast<double>(k)));
  std::vector<double> tmp;
  for (std::int64_t k = 0; k < layers; ++k)
    tmp.push_back(std::pow(2.0, static_cast<double>(k) / static_cast<double>(o.n_scales)) * sigma_min);
  for (std::int64_t k = 0; k < n_oct; ++k)
    for (std::int64_t l = 0; l < layers; ++l) sp.sigmas.push_back(sp.deltas[k] / sp.deltas[0] * tmp[l]);
  Array img = util::img_as_float(image, {}, s).astype(DType::float64, s);
  if (o.upsampling > 1) {
    transform::RescaleOptions ro;
    ro.order = 1;
    const double f = static_cast<double>(o.upsampling);
    img = transform::rescale(img, {f, f}, ro, s);
  }
  filters::GaussianOptions go;
  go.mode = ndimage::Mode::reflect;
  go.sigma = static_cast<double>(o.upsampling) * std::sqrt(sigma_min * sigma_min - o.sigma_in * o.sigma_in);
  img = filters::gaussian(img, go, s);
  const Device dev = image.device();
  for (std::int64_t k = 0; k < n_oct; ++k) {
    const std::int64_t R = img.shape(0), C = img.shape(1);
    Array g = Array::empty({layers, R, C}, DType::float64, dev, s);
    Array first = g.index(0, 0);
    first.copy_from(img, s);
    for (std::int64_t l = 1; l < layers; ++l) {
      const double a = sp.sigmas[k * layers + l - 1], b = sp.sigmas[k * layers + l];
      go.sigma = std::sqrt(b * b - a * a) / sp.deltas[k];
      Array out = g.index(0, l);
      filters::gaussian_into(g.index(0, l - 1), out, go, s);
    }
    if (k + 1 < n_oct)
      img = g.index(0, o.n_scales).slice({Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 2}}).contiguous(s);
    Array dog = Array::empty({layers - 1, R, C}, DType::float64, dev, s);
    cuskimage::detail::on_backend(g, s, [&] { cpu_dog(g, dog); }, [&](const Stream& st) { detail::cuda_sift_dog(g, dog, st); });
    sp.g.push_back(std::move(g));
    sp.dog.push_back(std::move(dog));
  }
  sp.sigmas_dev = Array::from_vector(sp.sigmas, {static_cast<std::int64_t>(sp.sigmas.size())}).to(dev, s);
  for (std::int64_t k = 0; k < n_oct; ++k)
    sp.views.push_back({sp.g[k].data<double>(), sp.dog[k].data<double>(), sp.g[k].shape(1), sp.g[k].shape(2), layers,
                        sp.deltas[k], sp.sigmas_dev.data<double>() + k * layers});
  return sp;
}

/// Refined extrema of every octave, in scikit-image's order: rows (y, x, sigma, scale, octave).
std::vector<double> detect_extrema(const ScaleSpace& sp, const SiftParams& p, const Device& dev, const Stream& s) {
  std::vector<double> kp;
  for (std::size_t k = 0; k < sp.views.size(); ++k) {
    const SiftOctave& o = sp.views[k];
    auto push = [&](const detail::SiftCandidate& c) {
      if (c.keep) kp.insert(kp.end(), {c.y, c.x, c.sigma, static_cast<double>(c.scale), static_cast<double>(k)});
    };
    if (dev.is_cpu()) {
      for (std::int64_t r = 1; r < o.rows - 1; ++r)
        for (std::int64_t c = 1; c < o.cols - 1; ++c)
          for (std::int64_t l = 1; l < o.layers - 2; ++l)
            if (detail::sift_extremum(o, r, c, l, p.threshold)) push(detail::sift_refine(o, p, r, c, l));
      continue;
    }
    auto rows = detail::cuda_sift_candidates(o, p, dev, s);
    const std::size_t n = rows.size() / 6;
    std::vector<std::size_t> idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return rows[6 * a] < rows[6 * b]; });
    for (std::size_t i : idx)
      if (rows[6 * i + 1] != 0)
        kp.insert(kp.end(), {rows[6 * i + 2], rows[6 * i + 3], rows[6 * i + 4], rows[6 * i + 5], static_cast<double>(k)});
  }
  return kp;
}

/// Orientations: each keypoint's first one, then the further ones appended in order.
std::vector<double> orient(const ScaleSpace& sp, const SiftParams& p, const std::vector<double>& kp, const Device& dev,
                           const Stream& s) {
  const std::size_t n = kp.size() / 5;
  std::vector<int> counts(n);
  std::vector<double> oris(n * p.n_bins);
  if (dev.is_cpu()) {
    std::vector<double> scratch(2 * p.n_bins);
    for (std::size_t i = 0; i < n; ++i) {
      const double* k = &kp[5 * i];
      counts[i] = detail::sift_orientations(sp.views[static_cast<std::size_t>(k[4])], p, k[0], k[1], k[2],
                                            static_cast<std::int64_t>(k[3]), scratch.data(), &oris[i * p.n_bins]);
    }
  } else {
    detail::cuda_sift_orientations(sp.views, p, kp, counts, oris, dev, s);
  }
  std::vector<double> out;
  out.reserve(n * kKp);
  for (std::size_t i = 0; i < n; ++i) {
    out.insert(out.end(), kp.begin() + 5 * i, kp.begin() + 5 * i + 5);
    out.push_back(counts[i] > 0 ? oris[i * p.n_bins] : 0.0);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 1; c < counts[i]; ++c) {
      out.insert(out.end(), kp.begin() + 5 * i, kp.begin() + 5 * i + 5);
      out.push_back(oris[i * p.n_bins + c]);
    }
  return out;
}

Array describe(const ScaleSpace& sp, const SiftParams& p, const std::vector<double>& kp, const Device& dev,
               const Stream& s) {
  const std::int64_t n = static_cast<std::int64_t>(kp.size() / kKp), len = p.n_hist * p.n_hist * p.n_ori;
  Array out = Array::empty({n, len}, DType::uint8, dev, s);
  if (n == 0) return out;
  if (!dev.is_cpu()) {
    detail::cuda_sift_descriptors(sp.views, p, kp, out, s);
    return out;
  }
  std::vector<double> scratch(static_cast<std::size_t>(len));
  for (std::int64_t i = 0; i < n; ++i) {
    const double* k = &kp[kKp * i];
    expect(static_cast<std::size_t>(k[4]) < sp.views.size(), kFn, "octaves", "names an octave past the image's");
    detail::sift_descriptor(sp.views[static_cast<std::size_t>(k[4])], p, k[0], k[1], k[2],
                            static_cast<std::int64_t>(k[3]), k[5], scratch.data(), out.data<std::uint8_t>() + i * len);
  }
  return out;
}

Array column(const std::vector<double>& kp, int col, DType dt, const Device& dev, const Stream& s) {
  std::vector<double> v;
  for (std::size_t i = col; i < kp.size(); i += kKp) v.push_back(kp[i]);
  return Array::from_vector(v, {static_cast<std::int64_t>(v.size())}).astype(dt).to(dev, s);
}

}  // namespace

SIFT::SIFT(SiftOptions opts) : opts_(opts) {
  expect(opts.upsampling == 1 || opts.upsampling == 2 || opts.upsampling == 4, kFn, "upsampling",
         "must be 1, 2 or 4, got ", opts.upsampling);
  expect(opts.n_octaves >= 1, kFn, "n_octaves", "must be >= 1");
  expect(opts.n_scales >= 1, kFn, "n_scales", "must be >= 1");
  const double sm = opts.sigma_min / static_cast<double>(opts.upsampling);
  expect(sm > opts.sigma_in && opts.sigma_in >= 0, kFn, "sigma_min",
         "/ upsampling must exceed sigma_in (the seed blur is sqrt(sigma_min^2 - sigma_in^2))");
  expect(opts.n_bins >= 6, kFn, "n_bins", "must be >= 6 (scikit-image pads the histogram by 6)");
  expect(opts.n_hist >= 1 && opts.n_ori >= 1, kFn, "n_hist", "and n_ori must be >= 1");
  expect(opts.c_edge > 0, kFn, "c_edge", "must be > 0");
}

void SIFT::detect(const Array& image, const Stream& stream) { run(image, true, false, stream); }
void SIFT::extract(const Array& image, const Stream& stream) { run(image, false, true, stream); }
void SIFT::detect_and_extract(const Array& image, const Stream& stream) { run(image, true, true, stream); }

void SIFT::run(const Array& image, bool det, bool ext, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 2);
  const double s0 = static_cast<double>(std::min(image.shape(0), image.shape(1)) * opts_.upsampling);
  const auto max_oct = static_cast<std::int64_t>(std::log2(s0 / 12) + 1);
  expect(max_oct >= 1, kFn, "image", "is too small: its smaller side times upsampling must be at least 6");
  opts_.n_octaves = std::min(opts_.n_octaves, max_oct);
  expect(det || positions.valid(), kFn, "extract", "needs the keypoints of detect first");
  const Device dev = image.device();
  std::optional<cuskimage::detail::DeviceGuard> guard;
  if (!dev.is_cpu()) guard.emplace(dev.index());
  const ScaleSpace sp = scale_space(image, opts_, opts_.n_octaves, stream);
  SiftParams p{};
  p.c_dog = (std::pow(2.0, 1.0 / static_cast<double>(opts_.n_scales)) - 1) / (std::pow(2.0, 1.0 / 3) - 1) * opts_.c_dog;
  p.threshold = p.c_dog * 0.8;
  p.edge_threshold = (opts_.c_edge + 1) * (opts_.c_edge + 1) / opts_.c_edge;
  p.sigmaratio = sp.sigmas[1] / sp.sigmas[0];
  p.lambda_ori = opts_.lambda_ori, p.c_max = opts_.c_max, p.lambda_descr = opts_.lambda_descr;
  p.n_bins = static_cast<int>(opts_.n_bins), p.n_hist = static_cast<int>(opts_.n_hist), p.n_ori = static_cast<int>(opts_.n_ori);
  p.img_rows = static_cast<double>(image.shape(0)), p.img_cols = static_cast<double>(image.shape(1));
  std::vector<double> kp;
  if (det) {
    const auto ext_kp = detect_extrema(sp, p, dev, stream);
    if (ext_kp.empty())
      throw Error(std::string(kFn) + ": SIFT found no features. Try passing in an image containing greater "
                                     "intensity contrasts between adjacent pixels.");
    kp = orient(sp, p, ext_kp, dev, stream);
    const std::int64_t n = static_cast<std::int64_t>(kp.size() / kKp);
    std::vector<double> pos;
    std::vector<std::int64_t> rounded;
    for (std::int64_t i = 0; i < n; ++i)
      for (int a = 0; a < 2; ++a) {
        pos.push_back(kp[kKp * i + a]);
        rounded.push_back(static_cast<std::int64_t>(std::nearbyint(kp[kKp * i + a])));
      }
    positions = Array::from_vector(pos, {n, 2}).to(dev, stream);
    keypoints = Array::from_vector(rounded, {n, 2}).to(dev, stream);
    sigmas = column(kp, 2, DType::float64, dev, stream);
    scales = column(kp, 3, DType::int64, dev, stream);
    octaves = column(kp, 4, DType::int64, dev, stream);
    orientations = column(kp, 5, DType::float64, dev, stream);
  } else {
    auto host = [&](const Array& a) { return a.to(Device::cpu(), stream).to_vector<double>(); };
    const auto pos = host(positions), sig = host(sigmas), ori = host(orientations);
    const auto sc = host(scales), oc = host(octaves);
    for (std::size_t i = 0; i < sig.size(); ++i) kp.insert(kp.end(), {pos[2 * i], pos[2 * i + 1], sig[i], sc[i], oc[i], ori[i]});
  }
  if (ext) descriptors = describe(sp, p, kp, dev, stream);
}

}  // namespace cuskimage::feature
