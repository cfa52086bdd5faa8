// Element-wise pieces of h_maxima / h_minima, shared by the CPU maps (extrema.cpp) and the CUDA
// maps (kernels/morphology/recon_maps.cu) so both backends compute the same values.
#pragma once

#include <cstdint>
#include <limits>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::morphology::detail {

/// Integer image, integer h: image - h clipped at the dtype minimum (maxima), image + h clipped
/// at the maximum (minima): scikit-image's _subtract/_add_constant_clip.
template <class T>
struct HShiftInt {
  std::int64_t h;
  bool maxima;
  CUSK_HD T operator()(T x) const {
    const std::int64_t v = static_cast<std::int64_t>(x);
    if (maxima) {
      const std::int64_t lo = static_cast<std::int64_t>(std::numeric_limits<T>::lowest());
      return static_cast<T>(v - h < lo ? lo : v - h);
    }
    const std::int64_t hi = static_cast<std::int64_t>(std::numeric_limits<T>::max());
    return static_cast<T>(v + h > hi ? hi : v + h);
  }
};

/// Float image: image - h - 2 * resolution * |image| (maxima) or image + h + ... (minima), each
/// step rounded in F as NumPy evaluates it (h converted to F first; resolution 1e-6 / 1e-15).
template <class F>
struct HShiftFloat {
  F h;
  bool maxima;
  CUSK_HD F operator()(F x) const {
    using namespace cuskimage::detail;  // once-rounded steps: no fused multiply-add on the GPU
    const F two_res = sizeof(F) == 4 ? F(2e-6f) : F(2e-15);
    const F res = mul_rn(two_res, x < F(0) ? -x : x);
    return maxima ? sub_rn(sub_rn(x, h), res) : add_rn(add_rn(x, h), res);
  }
};

/// (image - rec >= h) for maxima, (rec - image >= h) for minima, in the reconstruction's float
/// type F; uint8 0/1.
template <class F>
struct HResidue {
  F h;
  bool maxima;
  template <class T>
  CUSK_HD std::uint8_t operator()(T x, F rec) const {
    const F r = maxima ? static_cast<F>(static_cast<F>(x) - rec) : static_cast<F>(rec - static_cast<F>(x));
    return r >= h ? 1 : 0;
  }
};

template <class T>
void cuda_h_shift_int(const Array& in, Array& out, std::int64_t h, bool maxima, const Stream& stream);
template <class F>
void cuda_h_shift_float(const Array& in, Array& out, F h, bool maxima, const Stream& stream);
template <class T, class F>
void cuda_h_residue(const Array& image, const Array& rec, Array& out, F h, bool maxima, const Stream& stream);

}  // namespace cuskimage::morphology::detail
