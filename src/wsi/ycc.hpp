// libjpeg-turbo's last two decode stages -- fancy (triangle) chroma upsampling and the YCbCr -> RGB
// conversion -- per output pixel, shared by the GPU's exact colour path (kernels/wsi/ycc_jobs.cu:
// nvJPEG decodes tiles to YCbCr planes, this turns them into RGB) and the CPU tests that check it
// against libjpeg-turbo's own full decode (tests/wsi: bit-identical on every JPEG fixture).
//
// The formulas are jdsample.c's h2v1/h2v2_fancy_upsample and jdcolor.c's ycc_rgb_convert (libjpeg-
// turbo 2.x/3.x; its SIMD versions give the same bytes):
//   * h2v2 (4:2:0): vertical first, colsum = 3 * nearer row + farther row (the row above for even
//     output rows, below for odd ones; the first and last chroma rows are duplicated past the
//     image's edge), then horizontally (3 * colsum[i] + colsum[i -/+ 1] + 8/7) >> 4 for even/odd
//     output columns, the first and last column duplicated at the edges;
//   * h2v1 (4:2:2): (3 * c[i] + c[i -/+ 1] + 1/2) >> 2 for even/odd output columns;
//   * 4:4:4: the samples themselves;
//   * R = Y + round(1.402 (Cr - 128)), B = Y + round(1.772 (Cb - 128)),
//     G = Y + ((-22554 (Cb - 128) - 46802 (Cr - 128) + 32768) >> 16), clamped to [0, 255], with the
//     16-bit fixed-point constants FIX(x) = (int)(x * 65536 + 0.5) of jdcolor.c.
// Edges are the JPEG frame's (a tile's JPEG frame is the tile: Engine::supports checks it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "src/core/hd.hpp"

namespace cuskimage::wsi::detail {

CUSK_HD int ycc_min(int a, int b) { return a < b ? a : b; }
CUSK_HD int ycc_max(int a, int b) { return a > b ? a : b; }
CUSK_HD unsigned char ycc_clamp(int v) { return static_cast<unsigned char>(v < 0 ? 0 : v > 255 ? 255 : v); }

/// One pixel of libjpeg-turbo's ycc_rgb_convert.
CUSK_HD void ycc_to_rgb(int y, int cb, int cr, unsigned char* out) {
  constexpr std::int32_t kCrR = 91881;   // FIX(1.40200)
  constexpr std::int32_t kCbB = 116130;  // FIX(1.77200)
  constexpr std::int32_t kCrG = 46802;   // FIX(0.71414)
  constexpr std::int32_t kCbG = 22554;   // FIX(0.34414)
  constexpr std::int32_t kHalf = 1 << 15;
  const std::int32_t xcb = cb - 128, xcr = cr - 128;
  out[0] = ycc_clamp(y + ((kCrR * xcr + kHalf) >> 16));
  out[1] = ycc_clamp(y + ((-kCbG * xcb + kHalf - kCrG * xcr) >> 16));
  out[2] = ycc_clamp(y + ((kCbB * xcb + kHalf) >> 16));
}

/// The chroma sample of output pixel (x, y) (frame pixels) of a component plane of cw x ch samples
/// (rows `pitch` bytes apart) subsampled by hs x vs: (1, 1), (2, 1) or (2, 2), upsampled as
/// libjpeg-turbo's fancy upsampling does.
CUSK_HD int fancy_chroma(const unsigned char* c, std::ptrdiff_t pitch, int cw, int ch, int hs, int vs, int x, int y) {
  if (hs == 1) return c[static_cast<std::ptrdiff_t>(y) * pitch + x];
  const int i = x >> 1;
  const int k = (x & 1) ? ycc_min(i + 1, cw - 1) : ycc_max(i - 1, 0);  // the farther column
  if (vs == 1) {
    const unsigned char* row = c + static_cast<std::ptrdiff_t>(y) * pitch;
    return (3 * row[i] + row[k] + ((x & 1) ? 2 : 1)) >> 2;
  }
  const int j = y >> 1;
  const int jf = (y & 1) ? ycc_min(j + 1, ch - 1) : ycc_max(j - 1, 0);  // the farther row
  const unsigned char* rn = c + static_cast<std::ptrdiff_t>(j) * pitch;
  const unsigned char* rf = c + static_cast<std::ptrdiff_t>(jf) * pitch;
  const int near_sum = 3 * rn[i] + rf[i], far_sum = 3 * rn[k] + rf[k];
  return (3 * near_sum + far_sum + ((x & 1) ? 7 : 8)) >> 4;
}

/// One rectangle of one decoded tile to write as RGB: the tile's Y, Cb, Cr planes (device memory
/// on the GPU path), its part [x0, x0 + w) x [y0, y0 + h) (tile pixels) and where it goes.
struct YccJob {
  const unsigned char* y = nullptr;
  const unsigned char* cb = nullptr;
  const unsigned char* cr = nullptr;
  unsigned char* dst = nullptr;  // pixel (x0, y0) of the part; rows dst_pitch bytes apart
  std::uint64_t dst_pitch = 0;
  std::int32_t y_pitch = 0, c_pitch = 0;  // plane row pitches, bytes
  std::int32_t cw = 0, ch = 0;            // chroma plane samples
  std::int32_t hs = 1, vs = 1;            // chroma subsampling factors
  std::int32_t x0 = 0, y0 = 0, w = 0, h = 0;
};

/// Output pixel p (row-major in the job's w x h part) of a job.
CUSK_HD void ycc_job_pixel(const YccJob& j, std::int32_t p) {
  const std::int32_t oy = p / j.w, ox = p - oy * j.w;
  const int x = j.x0 + ox, y = j.y0 + oy;
  const int luma = j.y[static_cast<std::ptrdiff_t>(y) * j.y_pitch + x];
  const int cb = fancy_chroma(j.cb, j.c_pitch, j.cw, j.ch, j.hs, j.vs, x, y);
  const int cr = fancy_chroma(j.cr, j.c_pitch, j.cw, j.ch, j.hs, j.vs, x, y);
  ycc_to_rgb(luma, cb, cr, j.dst + static_cast<std::ptrdiff_t>(oy) * static_cast<std::ptrdiff_t>(j.dst_pitch) + 3 * ox);
}

/// Runs `n` jobs (device array `jobs`) on `stream`: each writes its RGB part (kernels/wsi/ycc_jobs.cu).
/// `max_pixels` is the largest w * h among them.
void launch_ycc_jobs(const YccJob* jobs, int n, std::int64_t max_pixels, cudaStream_t stream);

}  // namespace cuskimage::wsi::detail
