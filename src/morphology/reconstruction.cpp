// skimage.morphology.reconstruction. CPU: Vincent's hybrid algorithm (a raster and an anti-raster
// scan, then a FIFO queue from the pixels that can still push) on a grid padded so that no offset
// needs a bounds check; erosion runs as the dilation of the negated images (exact for floats).
// scikit-image's rank-order algorithm computes the same fixed point. CUDA:
// kernels/morphology/recon_propagate.cu.
#include <cmath>
#include <deque>
#include <limits>

#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/recon_common.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;

namespace detail {
namespace {

using ReconTypes = cuskimage::detail::Types<bool, std::uint8_t, std::uint16_t, std::int32_t, float, double>;

template <class T>
void cpu_dilate_reconstruct(std::vector<T>& R, const std::vector<T>& M, const PaddedGrid& G,
                            const std::vector<Offset>& push) {
  std::vector<std::int64_t> d;
  for (const auto& o : push) d.push_back(G.delta(o));
  const std::vector<std::int64_t> in = G.interior();
  auto pull = [&](std::int64_t k) {
    T v = R[k];
    for (auto dk : d) v = std::max(v, R[k - dk]);
    v = std::min(v, M[k]);
    if (v > R[k]) R[k] = v;
  };
  for (std::size_t i = 0; i < in.size(); ++i) pull(in[i]);
  std::deque<std::int64_t> q;
  for (std::size_t i = in.size(); i-- > 0;) {
    const std::int64_t k = in[i];
    pull(k);
    for (auto dk : d)
      if (R[k + dk] < R[k] && R[k + dk] < M[k + dk]) {
        q.push_back(k);
        break;
      }
  }
  while (!q.empty()) {
    const std::int64_t p = q.front();
    q.pop_front();
    for (auto dk : d) {
      const std::int64_t r = p + dk;
      if (R[r] < R[p] && R[r] < M[r]) {
        R[r] = std::min(R[p], M[r]);
        q.push_back(r);
      }
    }
  }
}

template <class T>
Array cpu_reconstruct(const Array& seed, const Array& mask, const std::vector<Offset>& push, bool dilation) {
  const int nd = seed.ndim();
  Shape lo, hi;
  pad_for(push, nd, lo, hi);
  for (int a = 0; a < nd; ++a) lo[a] = hi[a] = std::max(lo[a], hi[a]);  // pushes and pulls both stay inside
  const PaddedGrid G(seed.shape(), lo, hi);
  const T low = -std::numeric_limits<T>::infinity();
  std::vector<T> R(static_cast<std::size_t>(G.size()), low), M(R.size(), low);
  const Array s = seed.astype(dtype_v<T>).contiguous(), m = mask.astype(dtype_v<T>).contiguous();
  const T* sp = s.data<T>();
  const T* mp = m.data<T>();
  const std::vector<std::int64_t> in = G.interior();
  const T sign = dilation ? T(1) : T(-1);
  for (std::size_t i = 0; i < in.size(); ++i) {
    R[in[i]] = sign * sp[i];
    M[in[i]] = sign * mp[i];
  }
  cpu_dilate_reconstruct(R, M, G, push);
  Array out = Array::empty(seed.shape(), dtype_v<T>);
  T* op = out.data<T>();
  for (std::size_t i = 0; i < in.size(); ++i) op[i] = sign * R[in[i]];
  return out;
}

}  // namespace

std::vector<Offset> reconstruction_offsets(std::string_view fn, int ndim, const Array& footprint,
                                           const std::vector<std::int64_t>& offset) {
  const Array fp = footprint.valid() ? footprint_bool(fn, footprint, ndim) : Array::full(Shape(ndim, 3), 1, DType::bool_);
  Offset centre(ndim);
  if (offset.empty()) {
    for (int d = 0; d < ndim; ++d) {
      expect(fp.shape()[d] % 2 == 1, fn, "footprint", "dimensions must all be odd, got shape ", shape_str(fp.shape()));
      centre[d] = fp.shape()[d] / 2;
    }
  } else {
    expect(static_cast<int>(offset.size()) == ndim, fn, "offset", "and footprint ndims must be equal, got ",
           offset.size(), " values for a ", ndim, "-D footprint");
    for (int d = 0; d < ndim; ++d) {
      expect(offset[d] >= 0 && offset[d] < fp.shape()[d], fn, "offset", "must be included inside footprint (shape ",
             shape_str(fp.shape()), ")");
      centre[d] = offset[d];
    }
  }
  std::vector<Offset> offs = true_offsets(fp, centre);
  std::erase_if(offs, [](const Offset& o) {
    for (auto v : o)
      if (v != 0) return false;
    return true;
  });
  return offs;
}

Array reconstruct(const Array& seed, const Array& mask, const std::vector<Offset>& push, bool dilation, DType ft,
                  const Stream& stream) {
  return cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(ft, "morphology.reconstruction", [&]<class T>() {
    return cuskimage::detail::on_backend(
        seed, stream, [&] { return cpu_reconstruct<T>(seed, mask, push, dilation); },
        [&](const Stream&) {
          Array rec = seed.astype(dtype_v<T>, stream).contiguous(stream);
          const Array m = mask.astype(dtype_v<T>, stream).contiguous(stream);
          cuda_propagate<T>(rec, m, offsets3(push), dilation, stream);
          return rec;
        });
  });
}

DType reconstruction_float_type(DType mask) { return mask == DType::float32 ? DType::float32 : DType::float64; }

}  // namespace detail

Array reconstruction(const Array& seed, const Array& mask, const ReconstructionOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "morphology.reconstruction";
  namespace cd = cuskimage::detail;
  cd::expect_valid(seed, fn, "seed");
  cd::expect_valid(mask, fn, "mask");
  cd::expect_same_shape(seed, mask, fn, "seed", "mask");
  cd::expect_same_device(seed, mask, fn, "seed", "mask");
  cd::dispatch<detail::ReconTypes>(seed.dtype(), fn, []<class T>() {});
  cd::dispatch<detail::ReconTypes>(mask.dtype(), fn, []<class T>() {});
  expect(seed.ndim() >= 1, fn, "seed", "must have at least one dimension, got 0");
  if (!seed.device().is_cpu())
    expect(seed.ndim() <= 3, fn, "seed", "must be 1-, 2- or 3-D on a CUDA device, got ", seed.ndim(), "-D");
  const bool dil = o.method == ReconstructionMethod::dilation;
  const std::vector<detail::Offset> push = detail::reconstruction_offsets(fn, seed.ndim(), o.footprint, o.offset);
  const DType ft = detail::reconstruction_float_type(mask.dtype());

  // seed > mask (dilation) / seed < mask (erosion) compared exactly: in float64, or in float32
  // when both are float32 (NumPy promotes a mixed comparison to float64).
  const DType ct = (seed.dtype() == DType::float32 && mask.dtype() == DType::float32) ? DType::float32 : DType::float64;
  auto violation = [&] {
    cd::fail(fn, dil ? "Intensity of seed image must be less than that of the mask image for reconstruction by dilation."
                     : "Intensity of seed image must be greater than that of the mask image for reconstruction by erosion.");
  };
  if (seed.device().is_cpu()) {
    const bool bad = cd::dispatch<cd::FloatTypes>(ct, fn, [&]<class T>() {
      const Array s = seed.astype(dtype_v<T>), m = mask.astype(dtype_v<T>);
      const T* sp = s.data<T>();
      const T* mp = m.data<T>();
      for (std::int64_t i = 0; i < s.size(); ++i)
        if (dil ? sp[i] > mp[i] : sp[i] < mp[i]) return true;
      return false;
    });
    if (bad) violation();
    return detail::reconstruct(seed, mask, push, dil, ft, stream);
  }
  // CUDA: convert once to the result type (rec is the converted seed, updated in place; a
  // contiguous mask of that type is used as is) and check on those copies when exact.
  return cd::dispatch<cd::FloatTypes>(ft, fn, [&]<class T>() {
    return cd::on_backend(seed, stream, [&] { return Array(); }, [&](const Stream&) {
      Array rec = seed.astype(dtype_v<T>, stream);
      const Array m = mask.dtype() == ft && mask.is_contiguous() ? mask.share() : mask.astype(dtype_v<T>, stream);
      const bool bad = ct == ft ? detail::cuda_any_violation<T>(rec, m, dil, stream)
                                : detail::cuda_any_violation<double>(seed.astype(DType::float64, stream),
                                                                     mask.astype(DType::float64, stream), dil, stream);
      if (bad) violation();
      detail::cuda_propagate<T>(rec, m, detail::offsets3(push), dil, stream);
      return rec;
    });
  });
}

}  // namespace cuskimage::morphology
