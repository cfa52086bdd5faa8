// Per-window evaluation of an LBP cascade, shared by the host sweep (src/feature/cascade.cpp) and
// the device one (kernels/feature/cascade.cu) so both backends run the same float32 operations in
// the same order: scikit-image's integrate, _multiblock_lbp and Cascade.classify.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/device.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

struct Mblbp {
  std::int64_t r, c, width, height;
};
struct Stump {
  std::int64_t feature_id, lut_idx;
  float left, right;
};
struct Stage {
  std::int64_t first_idx, amount;
  float threshold;
};

/// The cascade's tables (host or device pointers).
struct CascadeView {
  const Mblbp* features;
  const Stump* stumps;
  const Stage* stages;
  const std::uint32_t* luts;  // 8 words (256 bits) per stump
  std::int64_t n_stages;
  float eps;
};

/// A row-major float32 integral image.
struct IntegralView {
  const float* v;
  std::int64_t rows, cols;
};

/// scikit-image's _shared.transform.integrate in float32, its order of operations.
CUSK_HD float window_sum(const IntegralView& ii, std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1) {
  float s = 0;
  s += ii.v[r1 * ii.cols + c1];
  if (r0 >= 1 && c0 >= 1) s += ii.v[(r0 - 1) * ii.cols + (c0 - 1)];
  if (r0 >= 1) s -= ii.v[(r0 - 1) * ii.cols + c1];
  if (c0 >= 1) s -= ii.v[r1 * ii.cols + (c0 - 1)];
  return s;
}

/// scikit-image's _multiblock_lbp: the 8 neighbour blocks, clockwise from the top left, against the
/// centre block; bit 7 first.
CUSK_HD int multiblock_lbp(const IntegralView& ii, std::int64_t r, std::int64_t c, std::int64_t w, std::int64_t h) {
  const int dr[8] = {-1, -1, -1, 0, 1, 1, 1, 0};
  const int dc[8] = {-1, 0, 1, 1, 1, 0, -1, -1};
  const std::int64_t cr = r + h, cc = c + w;
  const float centre = window_sum(ii, cr, cc, cr + h - 1, cc + w - 1);
  int code = 0;
  for (int e = 0; e < 8; ++e) {
    const std::int64_t rr = cr + dr[e] * h, c0 = cc + dc[e] * w;
    code |= static_cast<int>(window_sum(ii, rr, c0, rr + h - 1, c0 + w - 1) >= centre) << (7 - e);
  }
  return code;
}

/// scikit-image's Cascade.classify: every stage's float32 sum of stump leaves against its threshold.
CUSK_HD bool classify(const CascadeView& d, const IntegralView& ii, std::int64_t row, std::int64_t col, float scale) {
  for (std::int64_t s = 0; s < d.n_stages; ++s) {
    const Stage stage = d.stages[s];
    float points = 0;
    for (std::int64_t k = 0; k < stage.amount; ++k) {
      const Stump stump = d.stumps[stage.first_idx + k];
      const Mblbp f = d.features[stump.feature_id];
      // Py_ssize_t * float32 is float32 in C, then truncated.
      const auto r = static_cast<std::int64_t>(static_cast<float>(f.r) * scale);
      const auto c = static_cast<std::int64_t>(static_cast<float>(f.c) * scale);
      const auto w = static_cast<std::int64_t>(static_cast<float>(f.width) * scale);
      const auto h = static_cast<std::int64_t>(static_cast<float>(f.height) * scale);
      const int code = multiblock_lbp(ii, row + r, col + c, w, h);
      const bool bit = (d.luts[stump.lut_idx + (code >> 5)] >> (code & 31)) & 1U;
      points += bit ? stump.left : stump.right;
    }
    if (points < stage.threshold - d.eps) return false;
  }
  return true;
}

/// One scale's grid of window positions: (r, c) = (i * step, j * step) for i < n_rows, j < n_cols;
/// its flags start at `offset` of the sweep's flag array.
struct ScaleGrid {
  float scale;
  std::int64_t step, n_rows, n_cols, offset;
};

/// The device sweep: flags[offset + i * n_cols + j] = classify(...) for every grid of `grids`, the
/// integral image and tables uploaded from the host to `device`; returns the flags on the host.
std::vector<std::uint8_t> cascade_sweep_cuda(const std::vector<Mblbp>& features, const std::vector<Stump>& stumps,
                                             const std::vector<Stage>& stages, const std::vector<std::uint32_t>& luts,
                                             float eps, const std::vector<float>& ii, std::int64_t rows,
                                             std::int64_t cols, const std::vector<ScaleGrid>& grids,
                                             Device device, const Stream& stream);

}  // namespace cuskimage::feature::detail
