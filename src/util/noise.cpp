// skimage.util.random_noise: public function and CPU backend. The generator (Philox4x32-10 per
// pixel, src/util/rng.hpp) makes CPU and GPU results bit-identical for a seed.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <string>

#include "cuskimage/util.hpp"
#include "src/core/elementwise.hpp"
#include "src/util/common.hpp"

namespace cuskimage::util {
namespace detail {

void cpu_noise(const Array& fimg, Array& out, const NoiseParams& p) {
  dispatch<cuskimage::detail::FloatTypes>(fimg.dtype(), "util.random_noise", [&]<class T>() {
    cuskimage::detail::cpu_map<T, T>(fimg, out, NoiseFn<T>{p});
  });
}

void cpu_localvar_noise(const Array& fimg, const Array& local_vars, Array& out, const NoiseParams& p) {
  dispatch<cuskimage::detail::FloatTypes>(fimg.dtype(), "util.random_noise", [&]<class T>() {
    cuskimage::detail::cpu_map2<T, double, T>(fimg, local_vars, out, LocalVarNoiseFn<T>{p});
  });
}

std::int64_t count_unique(const Array& a, const Stream& stream) {
  return on_backend(
      a, stream, [&] { return cpu_count_unique(a); }, [&](const Stream& s) { return cuda_count_unique(a, s); });
}

}  // namespace detail

namespace {

constexpr std::string_view kModes[] = {"gaussian", "localvar", "poisson", "salt", "pepper", "s&p", "speckle"};

/// `local_vars` as float64 on `image`'s device, broadcast (stride 0) to the image's shape.
Array broadcast_local_vars(const Array& lv, const Array& image, const Stream& stream, std::string_view fn) {
  detail::expect_valid(lv, fn, "local_vars");
  detail::expect(lv.dtype() != DType::bool_, fn, "local_vars", "must be numeric, got bool");
  const int nd = image.ndim(), nl = lv.ndim();
  detail::expect(nl <= nd, fn, "local_vars", "shape ", shape_str(lv.shape()), " cannot broadcast to the image shape ",
                 shape_str(image.shape()));
  Array f = lv.to(image.device(), stream);
  if (f.dtype() != DType::float64) f = f.astype(DType::float64, stream);
  Strides strides(nd, 0);
  for (int d = 0; d < nl; ++d) {
    const int id = nd - nl + d;
    const std::int64_t e = lv.shape()[d];
    detail::expect(e == image.shape()[id] || e == 1, fn, "local_vars", "shape ", shape_str(lv.shape()),
                   " cannot broadcast to the image shape ", shape_str(image.shape()));
    strides[id] = e == 1 ? 0 : f.strides()[d];
  }
  return f.as_strided(image.shape(), strides, 0);
}

}  // namespace

NoiseMode noise_mode_from_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::size_t i = 0; i < std::size(kModes); ++i)
    if (lower == kModes[i]) return static_cast<NoiseMode>(i);
  detail::fail("util.random_noise", "argument 'mode' must be one of 'gaussian', 'localvar', 'poisson', 'salt', ",
               "'pepper', 's&p', 'speckle', got '", std::string(name), "'");
}

std::string_view noise_mode_name(NoiseMode mode) { return kModes[static_cast<int>(mode)]; }

Array random_noise(const Array& image, const RandomNoiseOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "util.random_noise";
  detail::expect_valid(image, fn, "image");
  const int mode = static_cast<int>(opts.mode);
  detail::expect(mode >= 0 && mode < static_cast<int>(std::size(kModes)), fn, "mode", "is not a valid NoiseMode");
  const bool uses_var = opts.mode == NoiseMode::gaussian || opts.mode == NoiseMode::speckle;
  if (uses_var) detail::expect(opts.var >= 0, fn, "var", "must be non-negative, got ", opts.var);

  // The clipping floor follows the sign of the input (before conversion to float).
  const detail::Range range = detail::value_range(image, stream, fn);
  const double low_clip = range.any && range.lo < 0 ? -1.0 : 0.0;
  Array fimg = img_as_float(image, {}, stream);
  Array out = Array::empty(fimg.shape(), fimg.dtype(), fimg.device(), stream);

  detail::NoiseParams p;
  p.seed = opts.rng ? *opts.rng : (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  p.clip = opts.clip;
  p.low_clip = low_clip;
  p.mean = opts.mean;
  p.sd = std::sqrt(opts.var);
  p.amount = opts.amount;
  Array local_vars;
  switch (opts.mode) {
    case NoiseMode::gaussian:
      p.kind = detail::NoiseKind::gaussian;
      break;
    case NoiseMode::speckle:
      p.kind = detail::NoiseKind::speckle;
      break;
    case NoiseMode::salt:
    case NoiseMode::pepper:
    case NoiseMode::s_and_p:
      p.kind = detail::NoiseKind::salt_pepper;
      p.salt_vs_pepper = opts.mode == NoiseMode::salt ? 1.0 : opts.mode == NoiseMode::pepper ? 0.0 : opts.salt_vs_pepper;
      break;
    case NoiseMode::localvar:
      if (opts.local_vars.valid()) {
        local_vars = broadcast_local_vars(opts.local_vars, fimg, stream, fn);
        const std::int64_t bad = detail::on_backend(
            local_vars, stream, [&] { return detail::cpu_count_nonpositive(local_vars); },
            [&](const Stream& s) { return detail::cuda_count_nonpositive(local_vars, s); });
        detail::expect(bad == 0, fn, "local_vars", "must be > 0 everywhere, got ", bad, " values <= 0");
      } else {
        // scikit-image's default: 0.01 everywhere, i.e. gaussian noise of sd sqrt(0.01).
        p.kind = detail::NoiseKind::gaussian;
        p.mean = 0.0;
        p.sd = std::sqrt(0.01);
      }
      break;
    case NoiseMode::poisson: {
      p.kind = detail::NoiseKind::poisson;
      const std::int64_t distinct = detail::count_unique(fimg, stream);
      double vals = 1.0;
      while (vals < static_cast<double>(distinct)) vals *= 2.0;
      p.vals = vals;
      if (low_clip == -1.0) {
        const detail::Range fr = detail::value_range(fimg, stream, fn);
        detail::expect(!(fr.lo < -1.0), fn, "image", "must be >= -1 for poisson noise (negative means), got minimum ",
                       fr.lo);
        p.shift_negative = true;
        p.old_max = fr.hi;
      }
      break;
    }
  }
  if (fimg.size() == 0) return out;
  if (local_vars.valid()) {
    detail::on_backend(
        fimg, stream, [&] { detail::cpu_localvar_noise(fimg, local_vars, out, p); },
        [&](const Stream& s) { detail::cuda_localvar_noise(fimg, local_vars, out, p, s); });
  } else {
    detail::on_backend(
        fimg, stream, [&] { detail::cpu_noise(fimg, out, p); },
        [&](const Stream& s) { detail::cuda_noise(fimg, out, p, s); });
  }
  return out;
}

}  // namespace cuskimage::util
