// feature.graycomatrix / graycoprops: argument handling, the CPU backend and the finishing steps.
// The counts come from cpu_glcm here or kernels/feature/texture.cu; symmetric and normed are one
// pass over the (levels, levels, distances, angles) matrix on the matrix's device (normed divides
// by the number of pairs counted, which is what NumPy's sum of the slice equals: every pixel pair
// is counted since every value is < levels). graycoprops reduces on the host (the matrix is small
// next to the image it summarises).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/feature/texture.hpp"

namespace cuskimage::feature {

namespace detail {

std::vector<GlcmPair> glcm_pairs(std::int64_t rows, std::int64_t cols, const std::vector<double>& distances,
                                 const std::vector<double>& angles) {
  std::vector<GlcmPair> v(distances.size() * angles.size());
  for (std::size_t a = 0; a < angles.size(); ++a)
    for (std::size_t d = 0; d < distances.size(); ++d) {
      GlcmPair p;
      p.dr = glcm_round(std::sin(angles[a]) * distances[d]);
      p.dc = glcm_round(std::cos(angles[a]) * distances[d]);
      p.r0 = std::max<std::int64_t>(0, -p.dr);
      p.r1 = std::min(rows, rows - p.dr);
      p.c0 = std::max<std::int64_t>(0, -p.dc);
      p.c1 = std::min(cols, cols - p.dc);
      v[d * angles.size() + a] = p;
    }
  return v;
}

}  // namespace detail

namespace {

using cuskimage::detail::expect;
using IntTypes = cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                          std::int32_t, std::uint64_t, std::int64_t>;

template <class T>
void cpu_glcm(const Array& img, const std::vector<detail::GlcmPair>& pairs, std::int64_t levels, Array& out) {
  const T* v = img.data<T>();
  const std::int64_t cols = img.shape(1), np = static_cast<std::int64_t>(pairs.size());
  auto* o = out.data<std::uint32_t>();
  for (std::int64_t p = 0; p < np; ++p) {
    const auto& q = pairs[p];
    for (std::int64_t r = q.r0; r < q.r1; ++r)
      for (std::int64_t c = q.c0; c < q.c1; ++c) {
        const auto i = static_cast<std::int64_t>(v[r * cols + c]);
        const auto j = static_cast<std::int64_t>(v[(r + q.dr) * cols + c + q.dc]);
        ++o[(i * levels + j) * np + p];
      }
  }
}

/// P + P^T (symmetric) and / the slice's sum (normed) from the raw counts.
void cpu_glcm_finish(const Array& counts, const std::vector<double>& sums, bool symmetric, Array& out) {
  const std::int64_t L = counts.shape(0), np = static_cast<std::int64_t>(sums.size());
  const auto* c = counts.data<std::uint32_t>();
  for (std::int64_t i = 0; i < L; ++i)
    for (std::int64_t j = 0; j < L; ++j)
      for (std::int64_t p = 0; p < np; ++p) {
        std::uint32_t v = c[(i * L + j) * np + p];
        if (symmetric) v += c[(j * L + i) * np + p];
        const std::int64_t k = (i * L + j) * np + p;
        if (out.dtype() == DType::float64)
          out.data<double>()[k] = static_cast<double>(v) / sums[p];
        else
          out.data<std::uint32_t>()[k] = v;
      }
}

/// The image's maximum and whether it has a negative value (NumPy's image.max(), np.any(image < 0)).
template <class T>
std::pair<double, bool> host_range(const Array& img) {
  const T* v = img.data<T>();
  T mx = v[0];
  bool neg = false;
  for (std::int64_t i = 0; i < img.size(); ++i) {
    mx = std::max(mx, v[i]);
    neg = neg || v[i] < T(0);
  }
  return {static_cast<double>(mx), neg};
}

}  // namespace

Array graycomatrix(const Array& image, const std::vector<double>& distances, const std::vector<double>& angles,
                   const GraycomatrixOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "feature.graycomatrix";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect_ndim(image, fn, "image", 2, 2);
  const DType t = image.dtype();
  expect(!is_floating(t), fn, "image",
         "Float images are not supported by graycomatrix. Convert the image to an unsigned integer type.");
  expect(is_integer(t), fn, "image", "must have an integer dtype, got ", dtype_name(t));
  expect(opts.levels || t == DType::uint8 || t == DType::int8, fn, "levels",
         "is required for data types other than uint8. The resulting matrix will be at least levels ** 2 in size.");
  const std::int64_t levels = opts.levels.value_or(256);
  expect(levels >= 1 && levels <= 65536, fn, "levels", "must be in [1, 65536], got ", levels);
  for (double d : distances) expect(std::isfinite(d), fn, "distances", "must be finite, got ", d);
  for (double a : angles) expect(std::isfinite(a), fn, "angles", "must be finite, got ", a);
  if (image.size() > 0) {
    // uint8 / uint16 device images: a device maximum (4 bytes back); other dtypes on the host.
    std::pair<double, bool> range;
    if (!image.device().is_cpu() && (t == DType::uint8 || t == DType::uint16)) {
      cuskimage::detail::on_backend(image, stream, [] {}, [&](const Stream& s) {
        range = {static_cast<double>(detail::cuda_glcm_max(image.contiguous(s), s)), false};
      });
    } else {
      const Array h = image.to(Device::cpu(), stream).contiguous();
      cuskimage::detail::dispatch<IntTypes>(t, fn, [&]<class T>() { range = host_range<T>(h); });
    }
    expect(!range.second, fn, "image", "Negative-valued images are not supported.");
    expect(range.first < static_cast<double>(levels), fn, "levels",
           "The maximum grayscale value in the image should be smaller than the number of levels (", levels,
           "), got a maximum of ", range.first);
  }
  const auto nd = static_cast<std::int64_t>(distances.size()), na = static_cast<std::int64_t>(angles.size());
  const auto pairs = detail::glcm_pairs(image.shape(0), image.shape(1), distances, angles);
  Array P = Array::zeros({levels, levels, nd, na}, DType::uint32, image.device(), stream);
  if (image.size() > 0 && !pairs.empty()) {
    cuskimage::detail::on_backend(
        image, stream,
        [&] {
          const Array c = image.contiguous();
          cuskimage::detail::dispatch<IntTypes>(t, fn, [&]<class T>() { cpu_glcm<T>(c, pairs, levels, P); });
        },
        [&](const Stream& s) {
          // Values are validated to be < levels <= 65536: uint8 / uint16 carry every image.
          const bool small = t == DType::uint8 || t == DType::uint16;
          const DType k = small ? t : (levels <= 256 ? DType::uint8 : DType::uint16);
          const Array c = small ? image.contiguous(s) : image.astype(k, s).contiguous(s);
          detail::cuda_glcm(c, pairs, levels, na, P, s);
        });
  }
  if (!opts.symmetric && !opts.normed) return P;
  // np.sum of each slice: the number of pairs counted (twice with symmetric), 1 when none.
  std::vector<double> inv(pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto& q = pairs[p];
    const double n = static_cast<double>(std::max<std::int64_t>(0, q.r1 - q.r0) *
                                         std::max<std::int64_t>(0, q.c1 - q.c0)) *
                     (opts.symmetric ? 2.0 : 1.0);
    inv[p] = n == 0 ? 1.0 : n;
  }
  Array out = Array::empty(P.shape(), opts.normed ? DType::float64 : DType::uint32, image.device(), stream);
  cuskimage::detail::on_backend(
      P, stream, [&] { cpu_glcm_finish(P, inv, opts.symmetric, out); },
      [&](const Stream& s) { detail::cuda_glcm_finish(P, inv, opts.symmetric, out, s); });
  return out;
}

Array graycoprops(const Array& P, GlcmProp prop, const Stream& stream) {
  constexpr std::string_view fn = "feature.graycoprops";
  cuskimage::detail::expect_valid(P, fn, "P");
  cuskimage::detail::expect_ndim(P, fn, "P", 4, 4);
  const std::int64_t L = P.shape(0), nd = P.shape(2), na = P.shape(3);
  expect(L == P.shape(1), fn, "P", "num_level and num_level2 must be equal, got ", L, " and ", P.shape(1));
  expect(nd > 0, fn, "P", "num_dist must be positive.");
  expect(na > 0, fn, "P", "num_angle must be positive.");
  const Array h = P.to(Device::cpu(), stream).astype(DType::float64).contiguous();
  const double* v = h.data<double>();
  const std::int64_t ns = nd * na;
  std::vector<double> out(static_cast<std::size_t>(ns));
  std::vector<double> pn(static_cast<std::size_t>(L * L));
  for (std::int64_t s = 0; s < ns; ++s) {
    double sum = 0;
    for (std::int64_t k = 0; k < L * L; ++k) sum += v[k * ns + s];
    if (sum == 0) sum = 1;
    for (std::int64_t k = 0; k < L * L; ++k) pn[k] = v[k * ns + s] / sum;
    double acc = 0, mi = 0, mj = 0;
    for (std::int64_t i = 0; i < L; ++i)
      for (std::int64_t j = 0; j < L; ++j) {
        mi += static_cast<double>(i) * pn[i * L + j];
        mj += static_cast<double>(j) * pn[i * L + j];
      }
    double vi = 0, vj = 0, cov = 0;
    for (std::int64_t i = 0; i < L; ++i)
      for (std::int64_t j = 0; j < L; ++j) {
        const double p = pn[i * L + j], d = static_cast<double>(i - j);
        const double di = static_cast<double>(i) - mi, dj = static_cast<double>(j) - mj;
        switch (prop) {
          case GlcmProp::contrast: acc += p * (d * d); break;
          case GlcmProp::dissimilarity: acc += p * std::abs(d); break;
          case GlcmProp::homogeneity: acc += p * (1.0 / (1.0 + d * d)); break;
          case GlcmProp::ASM:
          case GlcmProp::energy: acc += p * p; break;
          case GlcmProp::entropy: acc += p != 0 ? p * -std::log(p) : 0.0; break;
          default: break;
        }
        vi += p * (di * di);
        vj += p * (dj * dj);
        cov += p * (di * dj);
      }
    switch (prop) {
      case GlcmProp::energy: acc = std::sqrt(acc); break;
      case GlcmProp::mean: acc = mi; break;
      case GlcmProp::variance: acc = vi; break;
      case GlcmProp::std: acc = std::sqrt(vi); break;
      case GlcmProp::correlation: {
        const double si = std::sqrt(vi), sj = std::sqrt(vj);
        acc = (si < 1e-15 || sj < 1e-15) ? 1.0 : cov / (si * sj);
        break;
      }
      default: break;
    }
    out[s] = acc;
  }
  Array r = Array::from_vector(out, {nd, na});
  if (P.device().is_cpu()) return r;
  return r.to(P.device(), stream);
}

Array graycoprops(const Array& P, const std::string& prop, const Stream& stream) {
  const auto p = meta::enum_from_name<GlcmProp>(prop);
  expect(p.has_value(), "feature.graycoprops", "prop", prop, " is an invalid property");
  return graycoprops(P, *p, stream);
}

}  // namespace cuskimage::feature
