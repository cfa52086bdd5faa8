// scikit-image's clip_histogram (skimage/exposure/_adapthist.py), sequential: the CPU backend's
// version and the specification of the block-parallel one in kernels/exposure/clahe.cu.
//
//  1. bins above the limit are cut to it; n_excess = the pixels cut;
//  2. every bin below limit - n_excess // nbins gets n_excess // nbins; bins then in
//     [limit - increment, limit) are raised to the limit (n_excess pays for both);
//  3. while pixels remain: for index = 0, 1, ...: step = max(1, (#bins below limit) // n_excess),
//     every step-th bin from index that is below the limit gets one pixel; stop when n_excess <= 0
//     (it may go negative: scikit-image hands out a whole stride at once), or when a full pass
//     over the indices changed nothing. Two early exits skip index steps that provably change
//     nothing (no bin below the limit; step 1 and no bin from index on below it).
#pragma once

#include <cstdint>

namespace cuskimage::exposure::detail {

inline void clip_histogram_seq(std::int64_t* h, std::int64_t nb, std::int64_t clim) {
  std::int64_t n_excess = 0;
  for (std::int64_t b = 0; b < nb; ++b)
    if (h[b] > clim) {
      n_excess += h[b] - clim;
      h[b] = clim;
    }
  const std::int64_t bin_incr = n_excess / nb;
  const std::int64_t upper = clim - bin_incr;
  for (std::int64_t b = 0; b < nb; ++b) {
    if (h[b] < upper) {
      h[b] += bin_incr;
      n_excess -= bin_incr;
    }
    if (h[b] >= upper && h[b] < clim) {
      n_excess += h[b] - clim;
      h[b] = clim;
    }
  }
  while (n_excess > 0) {
    const std::int64_t prev = n_excess;
    for (std::int64_t index = 0; index < nb; ++index) {
      std::int64_t under = 0;
      for (std::int64_t b = 0; b < nb; ++b) under += h[b] < clim;
      if (under == 0) break;  // the rest of the pass changes nothing
      const std::int64_t step = under / n_excess > 1 ? under / n_excess : 1;
      std::int64_t inc = 0;
      for (std::int64_t b = index; b < nb; b += step)
        if (h[b] < clim) {
          ++h[b];
          ++inc;
        }
      n_excess -= inc;
      if (n_excess <= 0) break;
      if (inc == 0 && step == 1) break;  // no bin >= index is below the limit: nor for later indices
    }
    if (prev == n_excess) break;
  }
}

}  // namespace cuskimage::exposure::detail
