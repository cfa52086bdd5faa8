// Per-pixel dtype conversion with scikit-image's img_as_* semantics and the invert functor, shared
// by the CPU backend (src/util/*.cpp) and the CUDA kernels (kernels/util/*.cu).
//
// What scikit-image does (skimage/util/dtype.py, 0.26), restated per case:
// * any -> bool: x > T(max(T) / 2) for integers (computed in double, truncated), x > 0.5 for floats.
// * bool -> integer: 0 or max(Out); bool -> float: 0 or 1.
// * float -> float: a plain cast.
// * float -> integer (values must be in [-1, 1]): computed in the first of (In, float32, float64) at
//   least as wide as Out; unsigned: rint(x * max), signed: rint(x * (max - min) / 2 - 0.5), each
//   operation rounded separately; then clipped. `uniform`: x * (max + 1) truncated (unsigned), or
//   floor(x * (max - min + 1) / 2) (signed).
// * integer -> float: computed in the first of (Out, float32, float64) at least as wide as In:
//   x * (1 / max(In)), and for signed inputs max(., -1).
// * integer -> integer: see ConvertPlan / make_convert_plan (src/util/dtype.cpp): bit-width
//   scaling with scikit-image's intermediate types, including its data-dependent "downcast without
//   scaling" when the image's maximum already fits.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/convert.hpp"
#include "src/core/hd.hpp"
#include "src/util/rn_names.hpp"

namespace cuskimage::util::detail {

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>;
template <class T>
inline constexpr bool is_bool_v = std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Integer -> integer step (host-computed once per call).
enum class IntOp : std::int32_t {
  cast,         // w = x (wrapped to `mid_bits` signed first when mid_bits > 0)
  shift_down,   // w = floor(x / 2^shift)
  mul_shift,    // w = floor(x * k / 2^shift)
  shift_scale,  // w = (x - in_min) * k + out_min   (modulo 2^64; the true result fits Out)
};

struct ConvertPlan {
  bool uniform = false;
  IntOp op = IntOp::cast;
  std::int32_t shift = 0;
  std::int32_t mid_bits = 0;     // cast: wrap to this many bits (signed) first; 0: no intermediate
  bool clamp_negative = false;   // signed -> unsigned: max(w, 0) before the final cast
  std::uint64_t k = 1;
  std::int64_t in_min = 0;
  std::int64_t out_min = 0;
};

template <class In, class Out>
struct ImgConvert {
  using in_type = In;
  using out_type = Out;
  ConvertPlan p;

  CUSK_HD Out operator()(In x) const {
    if constexpr (std::is_same_v<In, Out>) {
      return x;
    } else if constexpr (is_bool_v<Out>) {
      if constexpr (is_float_v<In>) {
        return x > In(0.5);
      } else {
        // T(max / 2) with the division in double, as NumPy does for dtype_in(dtype_range[1] / 2).
        constexpr In thr = static_cast<In>(static_cast<double>(std::numeric_limits<In>::max()) / 2.0);
        return x > thr;
      }
    } else if constexpr (is_bool_v<In>) {
      if constexpr (is_float_v<Out>)
        return x ? Out(1) : Out(0);
      else
        return x ? std::numeric_limits<Out>::max() : Out(0);
    } else if constexpr (is_float_v<In> && is_float_v<Out>) {
      return static_cast<Out>(x);
    } else if constexpr (is_float_v<In>) {
      return float_to_int(x);
    } else if constexpr (is_float_v<Out>) {
      return int_to_float(x);
    } else {
      return int_to_int(x);
    }
  }

 private:
  CUSK_HD Out float_to_int(In x) const {
    using Comp = std::conditional_t<(sizeof(In) >= sizeof(Out)), In,
                                    std::conditional_t<(sizeof(float) >= sizeof(Out)), float, double>>;
    constexpr double omax = static_cast<double>(std::numeric_limits<Out>::max());
    constexpr double omin = static_cast<double>(std::numeric_limits<Out>::lowest());
    const Comp v = static_cast<Comp>(x);
    Comp t;
    if (!p.uniform) {
      if constexpr (std::is_unsigned_v<Out>) {
        t = rint_rn(mul_rn(v, static_cast<Comp>(omax)));
      } else {
        t = mul_rn(v, static_cast<Comp>((omax - omin) / 2.0));
        t = rint_rn(sub_rn(t, Comp(0.5)));
      }
    } else {
      if constexpr (std::is_unsigned_v<Out>) {
        t = mul_rn(v, static_cast<Comp>(omax + 1.0));
      } else {
        t = floor_rn(mul_rn(v, static_cast<Comp>((omax - omin + 1.0) / 2.0)));
      }
    }
    // np.clip with the bounds cast to Comp, then astype (saturating here where NumPy is undefined).
    const Comp lo = std::is_unsigned_v<Out> ? Comp(0) : static_cast<Comp>(omin);
    const Comp hi = static_cast<Comp>(omax);
    t = t < lo ? lo : (t > hi ? hi : t);
    return cuskimage::detail::convert<Out>(t);
  }

  CUSK_HD Out int_to_float(In x) const {
    using Comp = std::conditional_t<(sizeof(Out) >= sizeof(In)), Out,
                                    std::conditional_t<(sizeof(float) >= sizeof(In)), float, double>>;
    constexpr double scale = 1.0 / static_cast<double>(std::numeric_limits<In>::max());
    Comp t = mul_rn(static_cast<Comp>(x), static_cast<Comp>(scale));
    if constexpr (std::is_signed_v<In>) t = t < Comp(-1) ? Comp(-1) : t;
    return static_cast<Out>(t);
  }

  CUSK_HD Out int_to_int(In x) const {
    using W = std::conditional_t<std::is_signed_v<In>, std::int64_t, std::uint64_t>;
    W w = static_cast<W>(x);
    switch (p.op) {
      case IntOp::cast:
        if (p.mid_bits > 0 && p.mid_bits < 64) {
          // Wrap to a signed integer of mid_bits (NumPy's astype to scikit-image's intermediate).
          const std::uint64_t m = (std::uint64_t(1) << p.mid_bits) - 1;
          std::uint64_t u = static_cast<std::uint64_t>(w) & m;
          if (u >> (p.mid_bits - 1)) u |= ~m;
          w = static_cast<W>(static_cast<std::int64_t>(u));
        }
        break;
      case IntOp::shift_down:
        w = w >> p.shift;  // arithmetic for signed W: floor division
        break;
      case IntOp::mul_shift:
        w = static_cast<W>(w * static_cast<W>(p.k)) >> p.shift;
        break;
      case IntOp::shift_scale: {
        const std::uint64_t u = (static_cast<std::uint64_t>(w) - static_cast<std::uint64_t>(p.in_min)) * p.k +
                                static_cast<std::uint64_t>(p.out_min);
        w = static_cast<W>(u);
        break;
      }
    }
    if constexpr (std::is_signed_v<W>) {
      if (p.clamp_negative && w < 0) w = 0;
    }
    return static_cast<Out>(w);  // wraps modulo 2^bits (C++20), as NumPy's unsafe cast
  }
};

/// skimage.util.invert.
template <class T>
struct Invert {
  using in_type = T;
  using out_type = T;
  bool signed_float = false;
  CUSK_HD T operator()(T x) const {
    if constexpr (is_bool_v<T>) {
      return !x;
    } else if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(std::numeric_limits<T>::max() - x);
    } else if constexpr (is_int_v<T>) {
      return static_cast<T>(-1 - x);  // == ~x, no overflow for the minimum
    } else {
      return signed_float ? -x : sub_rn(T(1), x);
    }
  }
};

}  // namespace cuskimage::util::detail
