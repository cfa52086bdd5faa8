// numpy's np.random.default_rng(seed) draws the library reproduces exactly (host only), on the
// PCG64 generator of src/morphology/numpy_permutation.hpp: standard_normal (the ziggurat),
// random() (53-bit doubles) and integers() (Lemire's bounded draws on buffered 32-bit halves).
#pragma once

#include <cmath>
#include <cstdint>

#include "src/morphology/numpy_permutation.hpp"

namespace cuskimage::detail {

/// numpy's Generator.standard_normal: the 256-layer ziggurat on PCG64's 64-bit outputs. The layer
/// tables follow from the tail start r alone (Marsaglia and Tsang's recursion, computed here in
/// double); they agree with numpy's to ~1e-15 relative.
class NumpyNormal {  // also random() and integers(): one generator, numpy's draw order
 public:
  explicit NumpyNormal(std::uint64_t seed) : g_(seed) {
    const double r = kR, v = r * std::exp(-0.5 * r * r) + std::sqrt(M_PI / 2) * std::erfc(r / std::sqrt(2.0));
    const double m = 4503599627370496.0;  // 2^52
    double dn = r, tn = r;
    const double q = v / std::exp(-0.5 * dn * dn);
    ki_[0] = static_cast<std::uint64_t>(dn / q * m), ki_[1] = 0;
    wi_[0] = q / m, wi_[255] = dn / m;
    fi_[0] = 1.0, fi_[255] = std::exp(-0.5 * dn * dn);
    for (int i = 254; i >= 1; --i) {
      dn = std::sqrt(-2.0 * std::log(v / dn + std::exp(-0.5 * dn * dn)));
      ki_[i + 1] = static_cast<std::uint64_t>(dn / tn * m);
      tn = dn;
      fi_[i] = std::exp(-0.5 * dn * dn);
      wi_[i] = dn / m;
    }
  }
  /// Generator.random(): one double in [0, 1).
  double random() { return unit(); }
  /// Generator.integers(low, high) (int64, high exclusive), for high - low - 1 < 2^32 - 1: Lemire's
  /// multiply-shift on 32-bit draws with numpy's rejection threshold.
  std::int64_t integers(std::int64_t low, std::int64_t high) {
    const std::uint32_t rng = static_cast<std::uint32_t>(high - low - 1), excl = rng + 1;
    if (rng == 0) return low;
    std::uint64_t m = static_cast<std::uint64_t>(u32()) * excl;
    std::uint32_t left = static_cast<std::uint32_t>(m);
    if (left < excl) {
      const std::uint32_t threshold = (0xffffffffu - rng) % excl;
      while (left < threshold) {
        m = static_cast<std::uint64_t>(u32()) * excl;
        left = static_cast<std::uint32_t>(m);
      }
    }
    return low + static_cast<std::int64_t>(m >> 32);
  }
  /// Generator.standard_normal(): one draw.
  double next() {
    for (;;) {
      std::uint64_t u = u64();
      const int idx = static_cast<int>(u & 0xff);
      u >>= 8;
      const bool neg = u & 1;
      const std::uint64_t rabs = (u >> 1) & 0x000fffffffffffffull;
      double x = static_cast<double>(rabs) * wi_[idx];
      if (neg) x = -x;
      if (rabs < ki_[idx]) return x;
      if (idx == 0) {
        for (;;) {
          const double xx = -(1.0 / kR) * std::log1p(-unit());
          const double yy = -std::log1p(-unit());
          if (yy + yy > xx * xx) return ((rabs >> 8) & 1) ? -(kR + xx) : kR + xx;
        }
      }
      if ((fi_[idx - 1] - fi_[idx]) * unit() + fi_[idx] < std::exp(-0.5 * x * x)) return x;
    }
  }

 private:
  static constexpr double kR = 3.6541528853610088;
  std::uint32_t u32() { return static_cast<std::uint32_t>(g_.interval(0xffffffffull)); }
  std::uint64_t u64() { return g_.interval(~std::uint64_t(0)); }  // the full range: one 64-bit output
  double unit() { return static_cast<double>(u64() >> 11) * (1.0 / 9007199254740992.0); }
  morphology::detail::NumpyPermutation g_;
  std::uint64_t ki_[256];
  double wi_[256], fi_[256];
};

}  // namespace cuskimage::detail
