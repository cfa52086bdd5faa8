// skimage.morphology.extrema: local_maxima, local_minima, h_maxima, h_minima.
// CPU local extrema: scikit-image's algorithm step for step (candidates: the row runs that are 1-D
// maxima when the last axis' neighbours are in the footprint, else every pixel; each candidate's
// plateau is flooded through the footprint and kept only if no neighbour is higher and it does
// not touch the border), on a double copy of the image (negated
// for minima: the same order as scikit-image's invert). CUDA: kernels/morphology/recon_extrema.cu.
// h-extrema: the shift, reconstruction and residue steps of scikit-image (recon_ops.hpp).
#include <cmath>
#include <algorithm>
#include <deque>
#include <limits>

#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/recon_common.hpp"
#include "src/morphology/recon_ops.hpp"
#include "src/util/common.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;
namespace cd = cuskimage::detail;

namespace {

using ExtremaTypes = cd::Types<bool, std::uint8_t, std::uint16_t, std::int32_t, float, double>;
using HTypes = cd::Types<std::uint8_t, std::uint16_t, std::int32_t, float, double>;

void expect_image(std::string_view fn, const Array& image) {
  cd::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least one dimension, got 0");
  if (!image.device().is_cpu())
    expect(image.ndim() <= 3, fn, "image", "must be 1-, 2- or 3-D on a CUDA device, got ", image.ndim(), "-D");
}

// ---- local extrema ------------------------------------------------------------------------------

Array cpu_local_maxima(const Array& image, const std::vector<detail::Offset>& offs, bool allow_borders, bool negate) {
  const int nd = image.ndim();
  const Shape pad(nd, allow_borders ? 1 : 0);
  const detail::PaddedGrid G(image.shape(), pad, pad);
  std::vector<double> v = detail::host_doubles(image, Stream());
  if (negate)
    for (auto& x : v) x = -x;
  double lo = v.empty() ? 0.0 : v[0];
  for (double x : v) lo = (std::isnan(x) || std::isnan(lo)) ? std::numeric_limits<double>::quiet_NaN() : std::min(lo, x);
  std::vector<double> P(static_cast<std::size_t>(G.size()), lo);
  const std::vector<std::int64_t> in = G.interior();
  for (std::size_t i = 0; i < in.size(); ++i) P[in[i]] = v[i];

  Array out = Array::zeros(image.shape(), DType::bool_);
  for (auto s : G.padded)
    if (s < 3) return out;  // no maximum can exist (scikit-image warns)
  const std::int64_t n = G.size();
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t r = i;
    for (int d = nd - 1; d >= 0; --d) {
      const std::int64_t c = r % G.padded[d];
      r /= G.padded[d];
      if (c == 0 || c == G.padded[d] - 1) flags[i] = 3;
    }
  }
  std::vector<std::int64_t> deltas;
  for (const auto& o : offs) deltas.push_back(G.delta(o));

  // Stage 1 (candidates, flag 2): when both last-axis neighbours are in the neighbourhood, only
  // the row runs that are maxima along the last axis; otherwise every non-border pixel.
  const bool last_axis = std::find(deltas.begin(), deltas.end(), -1) != deltas.end() &&
                         std::find(deltas.begin(), deltas.end(), 1) != deltas.end();
  if (last_axis) {
    for (std::int64_t i = 1; i < n;) {
      if (P[i - 1] < P[i] && flags[i] != 3) {
        std::int64_t ahead = i + 1;
        while (P[i] == P[ahead] && flags[ahead] != 3) ++ahead;
        if (P[i] > P[ahead])
          for (std::int64_t k = i; k < ahead; ++k) flags[k] = 2;
        i = ahead;
      } else {
        ++i;
      }
    }
  } else {
    for (std::int64_t i = 1; i < n; ++i)
      if (flags[i] != 3) flags[i] = 2;
  }
  // Stage 2: flood each flagged plateau; 1 if it is a true maximum, else 0.
  std::vector<std::int64_t> seen;
  for (std::int64_t s = 0; s < n; ++s) {
    if (flags[s] != 2) continue;
    const double h = P[s];
    bool is_max = true;
    seen.assign(1, s);
    flags[s] = 1;
    for (std::size_t q = 0; q < seen.size(); ++q) {
      const std::int64_t cur = seen[q];
      for (auto d : deltas) {
        const std::int64_t nb = cur + d;
        if (P[nb] == h) {
          if (flags[nb] == 3) {
            is_max = false;
          } else if (flags[nb] != 1) {
            flags[nb] = 1;
            seen.push_back(nb);
          }
        } else if (P[nb] > h) {
          is_max = false;
        }
      }
    }
    if (!is_max)
      for (auto k : seen) flags[k] = 0;
  }
  bool* op = out.data<bool>();
  for (std::size_t i = 0; i < in.size(); ++i) op[i] = flags[in[i]] == 1;
  return out;
}

Array cpu_nonzero_coords(const Array& mask) {
  const int nd = mask.ndim();
  const bool* p = mask.data<bool>();
  std::vector<std::int64_t> idx;
  for (std::int64_t i = 0; i < mask.size(); ++i)
    if (p[i]) {
      std::int64_t r = i;
      const std::size_t base = idx.size();
      idx.resize(base + nd);
      for (int d = nd - 1; d >= 0; --d) {
        idx[base + d] = r % mask.shape()[d];
        r /= mask.shape()[d];
      }
    }
  const std::int64_t k = static_cast<std::int64_t>(idx.size()) / std::max(nd, 1);
  if (k == 0) return Array::empty({0, nd}, DType::int64);
  return Array::from_vector(idx, {k, nd});
}

Array local_extrema(std::string_view fn, const Array& image, const LocalExtremaOptions& o, bool minima,
                    const Stream& stream) {
  expect_image(fn, image);
  cd::dispatch<ExtremaTypes>(image.dtype(), fn, []<class T>() {});
  const int nd = image.ndim();
  Array fp;
  if (o.footprint.valid()) {
    fp = detail::footprint_bool(fn, o.footprint, nd);
    for (auto s : fp.shape()) expect(s == 3, fn, "footprint", "dimension size in footprint is not 3, got shape ", shape_str(fp.shape()));
  } else {
    fp = detail::binary_structure(nd, o.connectivity == 0 ? nd : o.connectivity);
  }
  const std::vector<detail::Offset> offs = detail::neighbour_offsets(fp, detail::Offset(nd, 1));
  Array mask;
  if (image.size() == 0) {
    mask = Array::zeros(image.shape(), DType::bool_, image.device(), stream);
  } else {
    mask = cd::on_backend(
        image, stream, [&] { return cpu_local_maxima(image, offs, o.allow_borders, minima); },
        [&](const Stream&) {
          if (!detail::symmetric(offs))
            cd::fail<NotSupported>(fn, "argument 'footprint' must be symmetric on a CUDA device (scikit-image's result "
                                       "for an asymmetric one depends on its scan order)");
          Array out = Array::empty(image.shape(), DType::bool_, image.device(), stream);
          for (auto s : image.shape())
            if (s + (o.allow_borders ? 2 : 0) < 3) {
              out.fill(0, stream);
              return out;
            }
          Array padded;
          if (o.allow_borders) {
            const auto range = util::detail::value_range(image, stream, fn);
            Shape ps = image.shape();
            std::vector<Slice> inner;
            for (auto& s : ps) {
              inner.push_back(Slice{.start = 1, .stop = s + 1});
              s += 2;
            }
            padded = Array::full(ps, minima ? range.hi : range.lo, image.dtype(), image.device(), stream);
            Array view = padded.slice(inner);
            view.copy_from(image, stream);
          } else {
            padded = image.contiguous(stream);
          }
          cd::dispatch<ExtremaTypes>(image.dtype(), fn, [&]<class T>() {
            detail::cuda_local_extrema<T>(padded, out, nd, o.allow_borders, minima, detail::offsets3(offs), stream);
          });
          return out;
        });
  }
  if (!o.indices) return mask;
  return cd::on_backend(
      mask, stream, [&] { return cpu_nonzero_coords(mask); },
      [&](const Stream&) { return detail::cuda_nonzero_coords(mask, stream); });
}

// ---- h-extrema ----------------------------------------------------------------------------------

Array h_extrema(std::string_view fn, const Array& image, double h, const HExtremaOptions& o, bool maxima,
                const Stream& stream) {
  expect_image(fn, image);
  cd::dispatch<HTypes>(image.dtype(), fn, []<class T>() {});
  expect(!std::isnan(h), fn, "h", "must be a number, got nan");
  expect(h >= 0, fn, "h", "must be non-negative, got ", h);
  const std::vector<detail::Offset> push = detail::reconstruction_offsets(fn, image.ndim(), o.footprint, {});
  if (image.size() == 0) return Array::zeros(image.shape(), DType::uint8, image.device(), stream);
  const auto range = util::detail::value_range(image, stream, fn);
  if (h > range.hi - range.lo) return Array::zeros(image.shape(), DType::uint8, image.device(), stream);
  expect(h != 0, fn, "h", "= 0 is ambiguous, use local_", maxima ? "maxima" : "minima", "() instead?");

  const bool is_int = image.dtype() != DType::float32 && image.dtype() != DType::float64;
  const bool int_path = is_int && h == std::floor(h);
  // An integer image with a fractional h becomes float64 (scikit-image warns about precision).
  const Array work = is_int && !int_path ? image.astype(DType::float64, stream) : image.share();
  Array shifted = Array::empty(work.shape(), work.dtype(), work.device(), stream);
  cd::dispatch<HTypes>(work.dtype(), fn, [&]<class T>() {
    if constexpr (std::is_integral_v<T>) {
      const detail::HShiftInt<T> f{static_cast<std::int64_t>(h), maxima};
      cd::on_backend(
          work, stream, [&] { cd::cpu_map<T, T>(work, shifted, f); },
          [&](const Stream& s) { detail::cuda_h_shift_int<T>(work, shifted, f.h, maxima, s); });
    } else {
      const detail::HShiftFloat<T> f{static_cast<T>(h), maxima};
      cd::on_backend(
          work, stream, [&] { cd::cpu_map<T, T>(work, shifted, f); },
          [&](const Stream& s) { detail::cuda_h_shift_float<T>(work, shifted, f.h, maxima, s); });
    }
  });
  const DType ft = detail::reconstruction_float_type(work.dtype());
  const Array rec = detail::reconstruct(shifted, work, push, maxima, ft, stream);
  Array out = Array::empty(work.shape(), DType::uint8, work.device(), stream);
  cd::dispatch<HTypes>(work.dtype(), fn, [&]<class T>() {
    using F = std::conditional_t<std::is_same_v<T, float>, float, double>;
    const detail::HResidue<F> f{static_cast<F>(h), maxima};
    cd::on_backend(
        work, stream, [&] { cd::cpu_map2<T, F, std::uint8_t>(work, rec, out, f); },
        [&](const Stream& s) { detail::cuda_h_residue<T, F>(work, rec, out, f.h, maxima, s); });
  });
  return out;
}

}  // namespace

Array local_maxima(const Array& image, const LocalExtremaOptions& o, const Stream& s) {
  return local_extrema("morphology.local_maxima", image, o, false, s);
}
Array local_minima(const Array& image, const LocalExtremaOptions& o, const Stream& s) {
  return local_extrema("morphology.local_minima", image, o, true, s);
}
Array h_maxima(const Array& image, double h, const HExtremaOptions& o, const Stream& s) {
  return h_extrema("morphology.h_maxima", image, h, o, true, s);
}
Array h_minima(const Array& image, double h, const HExtremaOptions& o, const Stream& s) {
  return h_extrema("morphology.h_minima", image, h, o, false, s);
}

}  // namespace cuskimage::morphology
