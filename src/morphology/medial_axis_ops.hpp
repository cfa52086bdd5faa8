// Pieces of morphology.medial_axis shared by the CPU backend, the CUDA backend and the tests:
// scikit-image's 3x3 removal table, the decision of one pixel of the ordered removal when some of
// its earlier neighbours are still undecided (the device's waves), and the CUDA entry points.
// numpy's permutation (host only) is in numpy_permutation.hpp.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

// ---- the 3x3 table (bit k of a configuration: neighbour (k / 3, k % 3), bit 4 the centre) -----------

/// 512 bits: bit c says whether the centre of configuration c is kept.
struct MedialTable {
  std::uint32_t bits[16];
  CUSK_HD bool keep(unsigned config) const { return (bits[config >> 5] >> (config & 31u)) & 1u; }
};

/// Number of 8-connected components of the set bits of a 3x3 configuration.
inline int medial_components(int config) {
  int seen = 0, count = 0;
  for (int start = 0; start < 9; ++start) {
    if (!(config >> start & 1) || (seen >> start & 1)) continue;
    ++count;
    int stack[9], top = 0;
    stack[top++] = start;
    seen |= 1 << start;
    while (top > 0) {
      const int p = stack[--top];
      for (int q = 0; q < 9; ++q) {
        if (!(config >> q & 1) || (seen >> q & 1)) continue;
        if (std::abs(p / 3 - q / 3) <= 1 && std::abs(p % 3 - q % 3) <= 1) {
          seen |= 1 << q;
          stack[top++] = q;
        }
      }
    }
  }
  return count;
}

/// scikit-image's table: keep the centre if removing it changes the number of components in the
/// 3x3 window, or if the window holds fewer than 3 pixels (an end point); never keep a background centre.
inline MedialTable medial_keep_table() {
  MedialTable t{};
  for (int c = 0; c < 512; ++c) {
    const bool centre = c & 16;
    const bool changes = medial_components(c) != medial_components(c & ~16);
    const bool few = std::popcount(static_cast<unsigned>(c)) < 3;
    if (centre && (changes || few)) t.bits[c >> 5] |= 1u << (c & 31);
  }
  return t;
}

/// The ordered removal's decision for a pixel whose configuration is `base` (centre, later
/// neighbours and kept earlier neighbours set) except for the earlier neighbours in `unknown`, whose
/// decisions are not known yet: 1 keep, 0 remove when every assignment of the unknown ones gives
/// that answer, else -1 (undetermined). With unknown == 0 this is the sequential decision.
CUSK_HD int medial_decide(const MedialTable& t, unsigned base, unsigned unknown) {
  const bool first = t.keep(base);
  for (unsigned sub = unknown; sub != 0; sub = (sub - 1) & unknown)
    if (t.keep(base | sub) != first) return -1;
  return first ? 1 : 0;
}

// ---- CUDA backend (kernels/morphology/medial_axis.cu) ---------------------------------------------

// Every entry point takes the caller's Stream itself, never a bare cudaStream_t: arrays allocated
// here (the skeleton above all) are freed stream-ordered on the Stream they were allocated with and
// keep an owning copy of it, so a result may outlive the caller's Stream object.

/// The masked image (`image_b` and `mask_b`, both contiguous bool on one device; mask_b may be
/// invalid) as a bool array and the C-order indices (int64) of its foreground; `count` receives the
/// foreground size (synchronises the stream once).
struct MedialForeground {
  Array masked;
  Array fg;
  std::int64_t count = 0;
};
MedialForeground cuda_medial_foreground(const Array& image_b, const Array& mask_b, const Stream& stream);

/// numpy's Fisher-Yates targets for default_rng(rng).permutation(count) (uint32, max(count - 1, 1)
/// elements) on `device`: drawn on the host (numpy_permutation.hpp) a piece at a time, each piece
/// copied up stream-ordered as soon as it is drawn (host code, src/morphology/medial_axis.cpp).
/// Needs count - 1 <= 2^32 - 1.
Array cuda_medial_targets(std::uint64_t rng, std::int64_t count, Device device, const Stream& stream);

/// The skeleton (bool, contiguous): the ordered removal over `fg` in scikit-image's order given the
/// EDT `dist` of `masked` and numpy's shuffle targets (`targets`, uint32, count - 1 elements, on the
/// device); outside a valid mask_b the result is image_b.
Array cuda_medial_axis(const Array& image_b, const Array& mask_b, const MedialForeground& f, const Array& dist,
                       const Array& targets, const Stream& stream);

}  // namespace cuskimage::morphology::detail
