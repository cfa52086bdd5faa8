// Internal: SIFT's per-keypoint steps as CUSK_HD code shared by the CPU backend (sift.cpp) and
// the kernels (kernels/feature/sift.cu), each in scikit-image's arithmetic order.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

/// The resolved parameters of one SIFT run.
struct SiftParams {
  double threshold, c_dog, edge_threshold, sigmaratio, lambda_ori, c_max, lambda_descr;
  int n_bins, n_hist, n_ori;
  double img_rows, img_cols;  // the input image's shape (border filter)
};

/// One octave: Gaussian layers g (layers, rows, cols) and differences dog (layers - 1, rows,
/// cols), contiguous; its sampling distance and its layers' absolute sigmas.
struct SiftOctave {
  const double* g;
  const double* dog;
  std::int64_t rows, cols, layers;
  double delta;
  const double* sigmas;
};

CUSK_HD double sift_dog(const SiftOctave& o, std::int64_t r, std::int64_t c, std::int64_t s) {
  return o.dog[(s * o.rows + r) * o.cols + c];
}

/// _local_max: strictly below or strictly above its 26 neighbours, |value| >= threshold.
CUSK_HD bool sift_extremum(const SiftOctave& o, std::int64_t r, std::int64_t c, std::int64_t s, double thr) {
  const double v = sift_dog(o, r, c, s);
  if ((v < 0 ? -v : v) < thr) return false;
  bool lower = true, upper = true;
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -1; dc <= 1; ++dc)
      for (int ds = -1; ds <= 1; ++ds) {
        if (dr == 0 && dc == 0 && ds == 0) continue;
        const double n = sift_dog(o, r + dr, c + dc, s + ds);
        lower = lower && n > v;
        upper = upper && n < v;
      }
  return lower || upper;
}

/// A refined extremum: kept by the contrast, edge and border filters, its position (row, col in
/// input pixels), sigma and DoG layer.
struct SiftCandidate {
  bool keep;
  double y, x, sigma;
  std::int64_t scale;
};

/// Gradient and Hessian of the DoG at k, and the offset solving the quadratic fit.
CUSK_HD void sift_fit(const SiftOctave& o, const std::int64_t* k, double* g, double* h, double* off) {
  auto d = [&](int a, int b, int e) { return sift_dog(o, k[0] + a, k[1] + b, k[2] + e); };
  g[0] = (d(1, 0, 0) - d(-1, 0, 0)) * 0.5;
  g[1] = (d(0, 1, 0) - d(0, -1, 0)) * 0.5;
  g[2] = (d(0, 0, 1) - d(0, 0, -1)) * 0.5;
  const double two = 2 * d(0, 0, 0);
  const double h00 = d(-1, 0, 0) + d(1, 0, 0) - two, h11 = d(0, -1, 0) + d(0, 1, 0) - two;
  const double h22 = d(0, 0, -1) + d(0, 0, 1) - two;
  const double h01 = 0.25 * (d(1, 1, 0) - d(-1, 1, 0) - d(1, -1, 0) + d(-1, -1, 0));
  const double h02 = 0.25 * (d(1, 0, 1) - d(1, 0, -1) + d(-1, 0, -1) - d(-1, 0, 1));
  const double h12 = 0.25 * (d(0, 1, 1) - d(0, 1, -1) + d(0, -1, -1) - d(0, -1, 1));
  h[0] = h00, h[1] = h11, h[2] = h01;
  double det = h00 * h11 * h22;
  det -= h00 * h12 * h12;
  det -= h01 * h01 * h22;
  det += 2 * h01 * h02 * h12;
  det -= h02 * h02 * h11;
  const double aa = (h11 * h22 - h12 * h12) / det, ab = (h02 * h12 - h01 * h22) / det;
  const double ac = (h01 * h12 - h02 * h11) / det, bb = (h00 * h22 - h02 * h02) / det;
  const double bc = (h01 * h02 - h00 * h12) / det, cc = (h00 * h11 - h01 * h01) / det;
  off[0] = -aa * g[0] - ab * g[1] - ac * g[2];
  off[1] = -ab * g[0] - bb * g[1] - bc * g[2];
  off[2] = -ac * g[0] - bc * g[1] - cc * g[2];
}

/// scikit-image's refinement (five fits at most; a coordinate moves by one where its offset
/// passes 0.6 and the move stays inside), then its contrast, edge and border filters.
CUSK_HD SiftCandidate sift_refine(const SiftOctave& o, const SiftParams& p, std::int64_t r, std::int64_t c,
                                  std::int64_t s) {
  std::int64_t k[3] = {r, c, s};
  const std::int64_t dim[3] = {o.rows, o.cols, o.layers - 1};
  double g[3], h[3], off[3];
  for (int i = 0; i < 5; ++i) {
    sift_fit(o, k, g, h, off);
    if (i == 4) break;
    bool moved = false;
    std::int64_t step[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
      if (off[a] > 0.6 && k[a] + 1 < dim[a] - 1) step[a] = 1, moved = true;
      if (off[a] < -0.6 && k[a] - 1 > 0) step[a] = -1, moved = true;
    }
    if (!moved) break;
    for (int a = 0; a < 3; ++a) k[a] += step[a];
  }
  SiftCandidate out{false, 0, 0, 0, k[2]};
  for (int a = 0; a < 3; ++a)
    if (!((off[a] < 0 ? -off[a] : off[a]) < 0.6)) return out;
  double w = sift_dog(o, k[0], k[1], k[2]);
  for (int a = 0; a < 3; ++a) w += 0.5 * g[a] * off[a];
  if (!((w < 0 ? -w : w) > p.c_dog)) return out;
  const double tr = h[0] + h[1], det = h[0] * h[1] - h[2] * h[2];
  const double edge = tr * tr / det;
  if (!((edge < 0 ? -edge : edge) <= p.edge_threshold)) return out;
  out.y = (static_cast<double>(k[0]) + off[0]) * o.delta;
  out.x = (static_cast<double>(k[1]) + off[1]) * o.delta;
  out.sigma = o.sigmas[k[2]] * pow(p.sigmaratio, off[2]);
  out.keep = out.y - out.sigma > 0.0 && out.x - out.sigma > 0.0 && out.y + out.sigma < p.img_rows &&
             out.x + out.sigma < p.img_cols;
  return out;
}

/// np.gradient of Gaussian layer s along rows (axis 0) and columns (axis 1) at (r, c).
CUSK_HD void sift_gradient(const SiftOctave& o, std::int64_t s, std::int64_t r, std::int64_t c, double& gr,
                           double& gc) {
  const double* l = o.g + s * o.rows * o.cols;
  const std::int64_t C = o.cols;
  gr = r == 0 ? l[C + c] - l[c]
       : r == o.rows - 1 ? l[r * C + c] - l[(r - 1) * C + c]
                         : (l[(r + 1) * C + c] - l[(r - 1) * C + c]) / 2.0;
  gc = c == 0 ? l[r * C + 1] - l[r * C]
       : c == C - 1 ? l[r * C + c] - l[r * C + c - 1]
                    : (l[r * C + c + 1] - l[r * C + c - 1]) / 2.0;
}

/// numpy's float modulo (result has the divisor's sign).
CUSK_HD double py_mod(double a, double b) {
  double m = fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = b < 0 ? -0.0 : 0.0;
  }
  return m;
}

/// The pixel window of a keypoint's orientation histogram (inclusive) or descriptor (exclusive
/// ends), in octave pixels, and the keypoint's centre and sigma there.
struct SiftWindow {
  std::int64_t r0, c0, r1, c1;  // rows r0..r1, columns c0..c1 (bounds as scikit-image's loops use them)
  double cy, cx, sigma;
};

/// The window of a keypoint (input pixels y, x, sigma_abs) in its octave, `radius_of(sigma)` octave
/// pixels around it, clipped to the octave.
template <class Radius>
CUSK_HD SiftWindow sift_window(const SiftOctave& o, double y, double x, double sigma_abs, Radius radius_of) {
  SiftWindow w;
  w.cy = y / o.delta, w.cx = x / o.delta, w.sigma = sigma_abs / o.delta;
  const double radius = radius_of(w.sigma);
  auto lo = [](double v) { return static_cast<std::int64_t>(v > 0 ? v : 0.0); };
  auto hi = [](double v, std::int64_t m) {
    return static_cast<std::int64_t>(v < static_cast<double>(m) ? v : static_cast<double>(m));
  };
  w.r0 = lo(w.cy - radius + 0.5), w.c0 = lo(w.cx - radius + 0.5);
  w.r1 = hi(w.cy + radius + 0.5, o.rows - 1), w.c1 = hi(w.cx + radius + 0.5, o.cols - 1);
  return w;
}

/// One pixel's vote in the orientation histogram: its bin, and its weight returned.
CUSK_HD double sift_ori_vote(const SiftOctave& o, std::int64_t s, std::int64_t r, std::int64_t c, const SiftWindow& w,
                             double den, int nb, int& bin) {
  const double two_pi = 2 * 3.141592653589793;
  double gr, gc;
  sift_gradient(o, s, r, c, gr, gc);
  const double dr = static_cast<double>(r) - w.cy, dc = static_cast<double>(c) - w.cx;
  const double mag = sqrt(gr * gr + gc * gc);
  const double theta = py_mod(atan2(gc, gr), two_pi);
  const double kernel = exp((dr * dr + dc * dc) / den);
  bin = static_cast<int>(floor(py_mod(theta / two_pi * nb + 0.5, nb)));
  return kernel * mag;
}

/// The smoothed histogram's peaks as orientations (into ori; the count returned). tmp: nb doubles.
CUSK_HD int sift_ori_peaks(double* hist, double* tmp, int nb, double c_max, double* ori) {
  const double pi = 3.141592653589793, third = 1.0 / 3;
  for (int it = 0; it < 6; ++it) {
    for (int b = 0; b < nb; ++b)
      tmp[b] = hist[(b + nb - 1) % nb] * third + hist[b] * third + hist[(b + 1) % nb] * third;
    for (int b = 0; b < nb; ++b) hist[b] = tmp[b];
  }
  double mx = hist[0];
  for (int b = 1; b < nb; ++b) mx = hist[b] > mx ? hist[b] : mx;
  int n = 0;
  for (int m = 0; m < nb; ++m) {
    const double a = hist[(m + nb - 1) % nb], v = hist[m], b = hist[(m + 1) % nb];
    const double f = a > v ? (a > b ? a : b) : (v > b ? v : b);
    if (!(v >= c_max * mx && f == v)) continue;
    const double fit = (a - b) / (2 * (a + b - 2 * v));
    double t = (static_cast<double>(m) + fit + 0.5) * 2 * pi / nb;
    if (t > pi) t -= 2 * pi;
    ori[n++] = t;
  }
  return n;
}

/// The orientations of a keypoint (position y, x and sigma in input pixels, DoG layer s): up to
/// n_bins values into `ori`, the count returned. `hist` holds 2 * n_bins doubles of scratch.
CUSK_HD int sift_orientations(const SiftOctave& o, const SiftParams& p, double y, double x, double sigma_abs,
                              std::int64_t s, double* hist, double* ori) {
  const double k = 3 * p.lambda_ori;
  const SiftWindow w = sift_window(o, y, x, sigma_abs, [k](double sg) { return k * sg; });
  const double lam = p.lambda_ori * w.sigma, den = -2 * (lam * lam);
  for (int b = 0; b < p.n_bins; ++b) hist[b] = 0;
  for (std::int64_t r = w.r0; r <= w.r1; ++r)
    for (std::int64_t c = w.c0; c <= w.c1; ++c) {
      int bin;
      const double v = sift_ori_vote(o, s, r, c, w, den, p.n_bins, bin);
      hist[bin] += v;
    }
  return sift_ori_peaks(hist, hist + p.n_bins, p.n_bins, p.c_max, ori);
}

/// The descriptor's per-keypoint constants.
struct SiftDescr {
  SiftWindow w;
  double radius, co, si, den, spacing, inv, norm1, orientation;
};

CUSK_HD SiftDescr sift_descr_setup(const SiftOctave& o, const SiftParams& p, double y, double x, double sigma_abs,
                                   double orientation) {
  SiftDescr d;
  // scikit-image: radius = lambda_descr * (1 + 1 / n_hist) * sigma, the patch sqrt(2) * radius.
  const double per_sigma = p.lambda_descr * (1 + 1.0 / p.n_hist);
  d.w = sift_window(o, y, x, sigma_abs, [per_sigma](double sg) { return 1.4142135623730951 * (per_sigma * sg); });
  d.radius = per_sigma * d.w.sigma;
  d.co = cos(orientation), d.si = sin(orientation), d.orientation = orientation;
  const double lam_sig = p.lambda_descr * d.w.sigma;
  d.den = -2 * (lam_sig * lam_sig);
  d.spacing = 2 * lam_sig / p.n_hist, d.inv = 1 / d.spacing;
  d.norm1 = p.n_ori / (2 * 3.141592653589793);
  return d;
}

/// One pixel of the descriptor patch: inside the rotated square or not; its rotated position,
/// weighted magnitude, nearest orientation bin and the distance to it.
struct SiftSample {
  bool in;
  double rn, cn, mag, dist;
  int near;
};

CUSK_HD SiftSample sift_descr_sample(const SiftOctave& o, std::int64_t s, std::int64_t r, std::int64_t c,
                                     const SiftDescr& d, int no) {
  const double pi = 3.141592653589793;
  SiftSample q{false, 0, 0, 0, 0, 0};
  const double rn0 = static_cast<double>(r) - d.w.cy, cn0 = static_cast<double>(c) - d.w.cx;
  q.rn = d.co * rn0 + d.si * cn0, q.cn = -d.si * rn0 + d.co * cn0;
  const double ar = q.rn < 0 ? -q.rn : q.rn, ac = q.cn < 0 ? -q.cn : q.cn;
  if (!((ar > ac ? ar : ac) < d.radius)) return q;
  q.in = true;
  double gr, gc;
  sift_gradient(o, s, r, c, gr, gc);
  const double theta = atan2(gc, gr) - d.orientation;
  q.mag = sqrt(gr * gr + gc * gc) * exp((q.rn * q.rn + q.cn * q.cn) / d.den);
  q.dist = 100.;
  for (int j = 0; j < no; ++j) {
    double t = 2 * pi * (j + 1) / no - theta;
    if (t > 2 * pi)
      t -= 2 * pi;
    else if (t < 0)
      t += 2 * pi;
    if (t < q.dist) q.near = j, q.dist = t;
  }
  return q;
}

/// A sample's votes in the spatial cell (hr, hc), if it is within one spacing of it.
CUSK_HD void sift_descr_vote(double* hist, const SiftSample& q, const SiftDescr& d, int nh, int no, int hr, int hc) {
  const double bin_r = (hr + 1 - (1 + nh) / 2.0) * d.spacing, bin_c = (hc + 1 - (1 + nh) / 2.0) * d.spacing;
  const double dr = bin_r - q.rn < 0 ? q.rn - bin_r : bin_r - q.rn;
  const double dc = bin_c - q.cn < 0 ? q.cn - bin_c : bin_c - q.cn;
  if (dr > d.spacing || dc > d.spacing) return;
  const double w0 = (1 - d.inv * dr) * (1 - d.inv * dc) * q.mag;
  const double w1 = w0 * d.norm1 * q.dist, w2 = w0 - w1;
  hist[(hr * nh + hc) * no + q.near] += w1;
  hist[(hr * nh + hc) * no + (q.near + 1 == no ? 0 : q.near + 1)] += w2;
}

/// Clip at 0.2 of the norm, renormalise to 512 and quantise.
CUSK_HD void sift_descr_finish(double* hist, int len, std::uint8_t* out) {
  double n2 = 0;
  for (int i = 0; i < len; ++i) n2 += hist[i] * hist[i];
  const double cap = 0.2 * sqrt(n2);
  n2 = 0;
  for (int i = 0; i < len; ++i) {
    hist[i] = hist[i] < cap ? hist[i] : cap;
    n2 += hist[i] * hist[i];
  }
  const double norm = sqrt(n2);
  for (int i = 0; i < len; ++i) {
    const double v = floor(512 * hist[i] / norm);
    out[i] = static_cast<std::uint8_t>(v < 255 ? v : 255);
  }
}

/// The descriptor of a keypoint into out (n_hist^2 * n_ori bytes); `hist` is scratch of that
/// many doubles. Pixels in C order, each voting in the cells within one spacing (row cells outer).
CUSK_HD void sift_descriptor(const SiftOctave& o, const SiftParams& p, double y, double x, double sigma_abs,
                             std::int64_t s, double orientation, double* hist, std::uint8_t* out) {
  const int nh = p.n_hist, no = p.n_ori, len = nh * nh * no;
  const SiftDescr d = sift_descr_setup(o, p, y, x, sigma_abs, orientation);
  for (int i = 0; i < len; ++i) hist[i] = 0;
  for (std::int64_t r = d.w.r0; r < d.w.r1; ++r)
    for (std::int64_t c = d.w.c0; c < d.w.c1; ++c) {
      const SiftSample q = sift_descr_sample(o, s, r, c, d, no);
      if (!q.in) continue;
      for (int hr = 0; hr < nh; ++hr)
        for (int hc = 0; hc < nh; ++hc) sift_descr_vote(hist, q, d, nh, no, hr, hc);
    }
  sift_descr_finish(hist, len, out);
}

/// CUDA backend pieces (kernels/feature/sift.cu); octave tables and outputs on the device.
/// Differences of Gaussians of one octave.
void cuda_sift_dog(const Array& g, Array& dog, const Stream& stream);
/// Every interior extremum of one octave, refined: (key, keep, y, x, sigma, scale) rows, key the
/// C-order index (row, col, scale) that orders them. Returns them on the host.
std::vector<double> cuda_sift_candidates(const SiftOctave& o, const SiftParams& p, Device dev, const Stream& stream);
/// Orientations of n keypoints (y, x, sigma, scale, octave rows of `kp` on the device): counts
/// and values (n x n_bins) to the host.
void cuda_sift_orientations(const std::vector<SiftOctave>& octs, const SiftParams& p, const std::vector<double>& kp,
                            std::vector<int>& counts, std::vector<double>& oris, Device dev, const Stream& stream);
/// Descriptors of n keypoints (y, x, sigma, scale, octave, orientation rows) into out (n, len) uint8.
void cuda_sift_descriptors(const std::vector<SiftOctave>& octs, const SiftParams& p, const std::vector<double>& kp,
                           Array& out, const Stream& stream);

}  // namespace cuskimage::feature::detail
