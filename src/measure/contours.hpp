// Private interface of measure.find_contours: the per-cell marching-squares rule both backends use
// (so the segment coordinates agree bit for bit) and the CUDA entry.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::measure::detail {

/// One oriented segment (tail -> head) in (row, col) coordinates.
struct ContourSegment {
  double r0, c0, r1, c1;
};

/// Where `level` falls between two corner values (0 when they are equal), as scikit-image.
CUSK_HD double contour_fraction(double from, double to, double level) {
  if (to == from) return 0.0;
  return (level - from) / (to - from);
}

/// Marching-squares case of a cell: bit 0 ul, 1 ur, 2 ll, 3 lr set when the corner is > level.
CUSK_HD int contour_case(double ul, double ur, double ll, double lr, double level) {
  return (ul > level ? 1 : 0) | (ur > level ? 2 : 0) | (ll > level ? 4 : 0) | (lr > level ? 8 : 0);
}

/// Segments a case emits: 0 for cases 0 and 15, 2 for the saddles 6 and 9, else 1.
CUSK_HD int contour_case_segments(int sq) {
  return (sq == 0 || sq == 15) ? 0 : (sq == 6 || sq == 9) ? 2 : 1;
}

/// The segments of cell (r, c) with corners ul ur / ll lr, oriented with low values on the left,
/// in scikit-image's emission order; returns how many (0..2) were written.
CUSK_HD int contour_cell(double ul, double ur, double ll, double lr, std::int64_t r, std::int64_t c, double level,
                         bool vertex_connect_high, ContourSegment out[2]) {
  const int sq = contour_case(ul, ur, ll, lr, level);
  if (sq == 0 || sq == 15) return 0;
  const double rd = static_cast<double>(r), cd = static_cast<double>(c);
  // Edge points: top (r, c + f), bottom (r + 1, c + f), left (r + f, c), right (r + f, c + 1).
  const double tr = rd, tc = cd + contour_fraction(ul, ur, level);
  const double br = rd + 1.0, bc = cd + contour_fraction(ll, lr, level);
  const double lr_ = rd + contour_fraction(ul, ll, level), lc = cd;
  const double rr = rd + contour_fraction(ur, lr, level), rc = cd + 1.0;
  enum { T, B, L, R };
  const double pr[4] = {tr, br, lr_, rr}, pc[4] = {tc, bc, lc, rc};
  int a0 = 0, b0 = 0, a1 = -1, b1 = -1;
  switch (sq) {
    case 1: a0 = T, b0 = L; break;
    case 2: a0 = R, b0 = T; break;
    case 3: a0 = R, b0 = L; break;
    case 4: a0 = L, b0 = B; break;
    case 5: a0 = T, b0 = B; break;
    case 6:
      if (vertex_connect_high) a0 = L, b0 = T, a1 = R, b1 = B;
      else a0 = R, b0 = T, a1 = L, b1 = B;
      break;
    case 7: a0 = R, b0 = B; break;
    case 8: a0 = B, b0 = R; break;
    case 9:
      if (vertex_connect_high) a0 = T, b0 = R, a1 = B, b1 = L;
      else a0 = T, b0 = L, a1 = B, b1 = R;
      break;
    case 10: a0 = B, b0 = T; break;
    case 11: a0 = B, b0 = L; break;
    case 12: a0 = L, b0 = R; break;
    case 13: a0 = T, b0 = R; break;
    default: a0 = L, b0 = T; break;  // 14
  }
  out[0] = {pr[a0], pc[a0], pr[b0], pc[b0]};
  if (a1 < 0) return 1;
  out[1] = {pr[a1], pc[a1], pr[b1], pc[b1]};
  return 2;
}

/// The segments of every cell of the contiguous 2-D device image `image` (any real dtype, read as
/// float64) in raster order of the cells, skipping cells with a NaN corner or a false `mask`
/// corner (`mask`: contiguous bool of the same shape, or an invalid Array). Returns them on the
/// host (synchronises `stream`).
template <class T>
std::vector<ContourSegment> cuda_contour_segments(const Array& image, const Array& mask, double level,
                                                  bool vertex_connect_high, const Stream& stream);

}  // namespace cuskimage::measure::detail
