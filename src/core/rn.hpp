// Floating-point operations rounded exactly once, on both backends.
//
// nvcc contracts `a * b + c` into one fused multiply-add by default (--fmad=true), the host
// compiler does not (ISO C++ mode, no FMA in the x86-64 baseline). Per-pixel code whose result must
// be bit-identical on CPU and GPU (scikit-image's separate multiply-then-subtract in img_as_int,
// the noise generators) spells every rounding step with these helpers; fused operations are
// written explicitly with fma(), which rounds once on both sides.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "src/core/hd.hpp"

namespace cuskimage::detail {

CUSK_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CUSK_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
CUSK_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
CUSK_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
CUSK_HD float sub_rn(float a, float b) { return add_rn(a, -b); }
CUSK_HD double sub_rn(double a, double b) { return add_rn(a, -b); }
CUSK_HD float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
CUSK_HD double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
CUSK_HD double sqrt_rn(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
CUSK_HD double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
/// Round half to even (NumPy's rint) in the current (default) rounding mode.
CUSK_HD float rint_rn(float x) {
#if defined(__CUDA_ARCH__)
  return rintf(x);
#else
  return std::rint(x);
#endif
}
CUSK_HD double rint_rn(double x) {
#if defined(__CUDA_ARCH__)
  return ::rint(x);
#else
  return std::rint(x);
#endif
}
CUSK_HD float floor_rn(float x) {
#if defined(__CUDA_ARCH__)
  return floorf(x);
#else
  return std::floor(x);
#endif
}
CUSK_HD double floor_rn(double x) {
#if defined(__CUDA_ARCH__)
  return ::floor(x);
#else
  return std::floor(x);
#endif
}

CUSK_HD std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}
CUSK_HD double double_of(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

/// A double whose arithmetic operators round exactly once per operation on both backends.
struct Rn {
  double v;
  CUSK_HD Rn() : v(0) {}
  CUSK_HD Rn(double x) : v(x) {}  // NOLINT(google-explicit-constructor)
  CUSK_HD friend Rn operator+(Rn a, Rn b) { return add_rn(a.v, b.v); }
  CUSK_HD friend Rn operator-(Rn a, Rn b) { return sub_rn(a.v, b.v); }
  CUSK_HD friend Rn operator*(Rn a, Rn b) { return mul_rn(a.v, b.v); }
  CUSK_HD friend Rn operator/(Rn a, Rn b) { return div_rn(a.v, b.v); }
  CUSK_HD Rn operator-() const { return -v; }
};

}  // namespace cuskimage::detail
