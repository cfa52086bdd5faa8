// measure.regionprops' passes after pass 1: pass 2 (moments, intensity_std: sums about pass 1's
// centroids and means) and the local configurations (euler_number, perimeter, perimeter_crofton).
// Included by kernels/measure/regionprops.cu inside its anonymous namespace, after
// regionprops_warp.cuh and the Rows geometry.
#pragma once

struct Pass2Acc {
  const std::int64_t* lo;  // [n*nd]
  const double *cen, *wcen, *mean;
  double *m_raw, *m_cen, *wm_raw, *wm_cen, *sqdev;
  const double* sp;  // spacing [nd] (device)
  int nch, c0, cc;
  bool moments, weighted, sq;
};

__device__ __forceinline__ void pow4(double x, double* p) {
  p[0] = 1;
  p[1] = x;
  p[2] = x * x;
  p[3] = x * x * x;
}

/// Adds sum over (p_z, p_y, q) of Z^pz Y^py S[q] to m[k] (k in C order of the powers).
__device__ __forceinline__ void expand_add(double* m, int nd, const double* Z, const double* Y, const double* S) {
  if (nd == 2) {
#pragma unroll
    for (int p = 0; p < 4; ++p)
#pragma unroll
      for (int q = 0; q < 4; ++q) atomicAdd(m + p * 4 + q, Y[p] * S[q]);
  } else {
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int p = 0; p < 4; ++p)
#pragma unroll
        for (int q = 0; q < 4; ++q) atomicAdd(m + (r * 4 + p) * 4 + q, Z[r] * Y[p] * S[q]);
  }
}

template <class L, class T>
__global__ void __launch_bounds__(256) pass2_kernel(const L* __restrict__ lab, const T* __restrict__ inten, Rows g,
                                                    SlotMap map, Pass2Acc acc) {
  const std::int64_t total = g.nrows * g.segs;
  const int nd = g.nd;
  const double spx = acc.sp[nd - 1];
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row = t / g.segs;
    const std::int64_t x0 = (t % g.segs) * kSeg;
    const std::int64_t x1 = min(x0 + kSeg, g.W);
    const std::int64_t y = row % g.ny, z = row / g.ny;
    const L* p = lab + row * g.W;
    std::int64_t cur = 0, r = -1, n = 0;
    double lox = 0, cx = 0;
    double Sr[4], Sc[4], Wr[kMaxCh][4], Wc[kMaxCh][4], Q[kMaxCh], wcx[kMaxCh], mu[kMaxCh];
    auto reset = [&] {
      n = 0;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        Sr[q] = Sc[q] = 0;
#pragma unroll
        for (int c = 0; c < kMaxCh; ++c) Wr[c][q] = Wc[c][q] = 0;
      }
#pragma unroll
      for (int c = 0; c < kMaxCh; ++c) Q[c] = 0;
    };
    auto flush = [&] {
      if (n == 0 || r < 0) return;
      const std::int64_t* lo = acc.lo + r * nd;
      double Zr[4] = {1, 0, 0, 0}, Zc[4] = {1, 0, 0, 0}, Yr[4], Yc[4];
      const double yl = static_cast<double>((nd == 3 ? y : y) - lo[nd - 2]) * acc.sp[nd - 2];
      pow4(yl, Yr);
      pow4(yl - acc.cen[r * nd + nd - 2], Yc);
      double zl = 0;
      if (nd == 3) {
        zl = static_cast<double>(z - lo[0]) * acc.sp[0];
        pow4(zl, Zr);
        pow4(zl - acc.cen[r * nd], Zc);
      }
      const int M = nd == 2 ? 16 : 64;
      if (acc.moments) {
        expand_add(acc.m_raw + r * M, nd, Zr, Yr, Sr);
        expand_add(acc.m_cen + r * M, nd, Zc, Yc, Sc);
      }
#pragma unroll
      for (int c = 0; c < kMaxCh; ++c) {
        if (c >= acc.cc) break;
        const std::int64_t k = r * acc.nch + acc.c0 + c;
        if (acc.sq) atomicAdd(acc.sqdev + k, Q[c]);
        if (acc.weighted) {
          double Yw[4], Zw[4] = {1, 0, 0, 0};
          pow4(yl - acc.wcen[k * nd + nd - 2], Yw);
          if (nd == 3) pow4(zl - acc.wcen[k * nd], Zw);
          expand_add(acc.wm_raw + k * M, nd, Zr, Yr, Wr[c]);
          expand_add(acc.wm_cen + k * M, nd, Zw, Yw, Wc[c]);
        }
      }
    };
    reset();
    for (std::int64_t x = x0; x < x1; ++x) {
      const std::int64_t l = static_cast<std::int64_t>(p[x]);
      if (l != cur || n == 0) {
        flush();
        reset();
        cur = l;
        r = map.slot(l);
        if (r >= 0) {
          lox = static_cast<double>(acc.lo[r * nd + nd - 1]);
          cx = acc.cen[r * nd + nd - 1];
#pragma unroll
          for (int c = 0; c < kMaxCh; ++c) {
            if (c >= acc.cc) break;
            const std::int64_t k = r * acc.nch + acc.c0 + c;
            if (acc.weighted) wcx[c] = acc.wcen[k * nd + nd - 1];
            if (acc.sq) mu[c] = acc.mean[k];
          }
        }
      }
      ++n;
      if (r < 0) continue;
      const double X = (static_cast<double>(x) - lox) * spx;
      if (acc.moments) {
        const double Xc = X - cx;
        Sr[0] += 1;
        Sr[1] += X;
        Sr[2] += X * X;
        Sr[3] += X * X * X;
        Sc[0] += 1;
        Sc[1] += Xc;
        Sc[2] += Xc * Xc;
        Sc[3] += Xc * Xc * Xc;
      }
      if (acc.cc > 0) {
        const T* v = inten + (row * g.W + x) * acc.nch + acc.c0;
#pragma unroll
        for (int c = 0; c < kMaxCh; ++c) {
          if (c >= acc.cc) break;
          const double d = static_cast<double>(v[c]);
          if (acc.sq) Q[c] += (d - mu[c]) * (d - mu[c]);
          if (acc.weighted) {
            const double Xw = X - wcx[c];
            Wr[c][0] += d;
            Wr[c][1] += d * X;
            Wr[c][2] += d * X * X;
            Wr[c][3] += d * X * X * X;
            Wc[c][0] += d;
            Wc[c][1] += d * Xw;
            Wc[c][2] += d * Xw * Xw;
            Wc[c][3] += d * Xw * Xw * Xw;
          }
        }
      }
    }
    flush();
  }
}


// ---- local configurations: euler_number, perimeter_crofton, perimeter ---------------------------
// scikit-image measures these on each region's zero-padded crop; windows and neighbourhoods of the
// whole label image give the same counts per label (pixels outside a region's bbox never carry its
// label), so one pass serves every region. Only windows / border pixels with a non-zero
// coefficient add to a row.

__constant__ int c_euler2[16] = CUSK_EULER2D_8;
__constant__ int c_euler3[256] = CUSK_EULER3D_26;
__constant__ double c_crofton[16] = CUSK_CROFTON4;
__constant__ double c_perim[50] = CUSK_PERIMETER_WEIGHTS;

struct Vol {
  std::int64_t nz, ny, nx;
  int nd;
};

template <class L>
__device__ __forceinline__ std::int64_t lab_at(const L* __restrict__ lab, const Vol& v, std::int64_t z, std::int64_t y,
                                               std::int64_t x) {
  if (z < 0 || y < 0 || x < 0 || z >= v.nz || y >= v.ny || x >= v.nx) return 0;
  return static_cast<std::int64_t>(lab[(z * v.ny + y) * v.nx + x]);
}

/// One thread per 2x2 (2x2x2) window of the zero-extended image; bit k of a label's configuration
/// is scikit-image's convolution weight 2^k: (z, y, x), (z, y-1, x), (z, y, x-1), (z, y-1, x-1), then
/// the same at z-1.
template <class L>
__global__ void __launch_bounds__(256) windows_kernel(const L* __restrict__ lab, Vol v, SlotMap map,
                                                      double* __restrict__ euler, double* __restrict__ crofton) {
  const std::int64_t wx = v.nx + 1, wy = v.ny + 1, wz = v.nd == 3 ? v.nz + 1 : 1;
  const std::int64_t total = wz * wy * wx;
  const int np = v.nd == 3 ? 8 : 4;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t x = t % wx, y = (t / wx) % wy, z = t / (wx * wy);
    std::int64_t p[8];
    p[0] = lab_at(lab, v, z, y, x);
    p[1] = lab_at(lab, v, z, y - 1, x);
    p[2] = lab_at(lab, v, z, y, x - 1);
    p[3] = lab_at(lab, v, z, y - 1, x - 1);
    if (np == 8) {
      p[4] = lab_at(lab, v, z - 1, y, x);
      p[5] = lab_at(lab, v, z - 1, y - 1, x);
      p[6] = lab_at(lab, v, z - 1, y, x - 1);
      p[7] = lab_at(lab, v, z - 1, y - 1, x - 1);
    }
    for (int k = 0; k < np; ++k) {
      const std::int64_t l = p[k];
      if (l <= 0) continue;
      bool seen = false;
      for (int j = 0; j < k; ++j) seen |= p[j] == l;
      if (seen) continue;
      int code = 0;
      for (int j = 0; j < np; ++j) code |= (p[j] == l) << j;
      const std::int64_t r = map.slot(l);
      if (r < 0) continue;
      if (euler) {
        const int e = np == 8 ? c_euler3[code] : c_euler2[code];
        if (e != 0) atomicAdd(euler + r, static_cast<double>(e));
      }
      if (crofton && np == 4) {
        const double c = c_crofton[code];
        if (c != 0) atomicAdd(crofton + r, c);
      }
    }
  }
}

/// One thread per pixel of a 2-D label image: border pixels (a 4-neighbour with another label)
/// weigh scikit-image's 3x3 convolution of the region's border image.
template <class L>
__global__ void __launch_bounds__(256) perimeter_kernel(const L* __restrict__ lab, Vol v, SlotMap map,
                                                        double* __restrict__ perim) {
  const std::int64_t total = v.ny * v.nx;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t x = t % v.nx, y = t / v.nx;
    const std::int64_t l = lab_at(lab, v, 0, y, x);
    if (l <= 0) continue;
    auto border = [&](std::int64_t yy, std::int64_t xx) -> int {
      if (lab_at(lab, v, 0, yy, xx) != l) return 0;
      return (lab_at(lab, v, 0, yy - 1, xx) != l || lab_at(lab, v, 0, yy + 1, xx) != l ||
              lab_at(lab, v, 0, yy, xx - 1) != l || lab_at(lab, v, 0, yy, xx + 1) != l)
                 ? 1
                 : 0;
    };
    if (!border(y, x)) continue;
    const int val = 1 + 2 * (border(y - 1, x) + border(y + 1, x) + border(y, x - 1) + border(y, x + 1)) +
                    10 * (border(y - 1, x - 1) + border(y - 1, x + 1) + border(y + 1, x - 1) + border(y + 1, x + 1));
    const double w = c_perim[val];
    if (w == 0) continue;
    const std::int64_t r = map.slot(l);
    if (r >= 0) atomicAdd(perim + r, w);
  }
}
