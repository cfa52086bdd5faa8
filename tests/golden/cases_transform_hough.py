"""Golden outputs of skimage.transform's Hough transforms for tests/transform/test_hough.cpp
(loaded as "transform_hough/<name>.npy").

lines.npy (40x50 bool: lines and noise), lines_u8.npy (the same as uint8 x 3):
  hl_default.npy (hspace as uint16; the C++ side checks uint64), hl_angles.npy, hl_dists.npy;
  hl_theta.npy / hl_custom.npy: 45 angles over [0, pi); peaks_<k>_{h,a,d}.npy for PEAKS[k].
circles.npy (48x48 bool, two circles): hc_<variant>.npy for radii RADII; hcp_<k>_{h,x,y,r}.npy for
  CPEAKS[k] on hc_norm.
phl_<k>.npy: probabilistic_hough_line on lines.npy for PHL[k], as (n, 2, 2) int64.
ellipse.npy (25x25) and he_<k>.npy: hough_ellipse rows (acc, yc, xc, a, b, orientation) for HE[k].
"""
import numpy as np
from skimage.draw import circle_perimeter, ellipse_perimeter, line
from skimage.transform import (hough_circle, hough_circle_peaks, hough_ellipse, hough_line, hough_line_peaks,
                               probabilistic_hough_line)

RADII = [4, 7, 10]
PEAKS = [dict(), dict(num_peaks=3), dict(min_distance=3, min_angle=4, threshold=6), dict(min_angle=200)]
CPEAKS = [dict(), dict(min_xdistance=5, min_ydistance=5), dict(total_num_peaks=3, normalize=True),
          dict(num_peaks=2, threshold=0.3, min_xdistance=3, min_ydistance=2)]
PHL = [dict(rng=7), dict(threshold=5, line_length=10, line_gap=3, rng=123),
       dict(threshold=3, line_length=5, line_gap=1, rng=2**40 + 5),
       dict(threshold=4, line_length=8, line_gap=2, theta=np.linspace(0, np.pi, 30, endpoint=False), rng=0)]
HE = [dict(threshold=8), dict(threshold=4, accuracy=2, min_size=3, max_size=9)]


def generate(g):
    rng = g.rng(4242)
    img = np.zeros((40, 50), dtype=bool)
    for r0, c0, r1, c1 in [(2, 3, 35, 45), (20, 0, 20, 49), (0, 30, 39, 30), (38, 5, 5, 20)]:
        rr, cc = line(r0, c0, r1, c1)
        img[rr, cc] = True
    img |= rng.random(img.shape) > 0.97
    g.save("lines", img)
    g.save("lines_u8", img.astype(np.uint8) * 3)
    h, a, d = hough_line(img)
    assert h.max() < 2**16
    g.save("hl_default", h.astype(np.uint16))
    g.save("hl_angles", a)
    g.save("hl_dists", d)
    theta = np.linspace(0, np.pi, 45, endpoint=False)
    g.save("hl_theta", theta)
    g.save("hl_custom", hough_line(img, theta=theta)[0])
    for k, kw in enumerate(PEAKS):
        ph, pa, pd = hough_line_peaks(h, a, d, **kw)
        g.save(f"peaks_{k}_h", np.asarray(ph, dtype=np.float64))
        g.save(f"peaks_{k}_a", pa)
        g.save(f"peaks_{k}_d", pd)
    circ = np.zeros((48, 48), dtype=bool)
    for r, c, rad in [(15, 20, 7), (30, 28, 10), (44, 3, 4)]:
        rr, cc = circle_perimeter(r, c, rad, shape=circ.shape)
        circ[rr, cc] = True
    g.save("circles", circ)
    hc = hough_circle(circ, RADII)
    g.save("hc_norm", hc)
    g.save("hc_raw", hough_circle(circ, RADII, normalize=False))
    g.save("hc_full", hough_circle(circ, [3, 6], full_output=True))
    for k, kw in enumerate(CPEAKS):
        for name, v in zip("hxyr", hough_circle_peaks(hc, RADII, **kw)):
            g.save(f"hcp_{k}_{name}", np.asarray(v, dtype=np.float64 if name == "h" else np.int64))
    g.save("phl_theta", PHL[3]["theta"])
    for k, kw in enumerate(PHL):
        segs = probabilistic_hough_line(img, **kw)
        g.save(f"phl_{k}", np.asarray(segs, dtype=np.int64).reshape(-1, 2, 2))
    ell = np.zeros((25, 25), dtype=np.uint8)
    rr, cc = ellipse_perimeter(10, 10, 6, 8)
    ell[cc, rr] = 1
    rr, cc = ellipse_perimeter(12, 13, 4, 7, orientation=0.5)
    ell[rr, cc] = 1
    g.save("ellipse", ell)
    for k, kw in enumerate(HE):
        res = hough_ellipse(ell, **kw)
        g.save(f"he_{k}", np.array([list(r) for r in res], dtype=np.float64).reshape(-1, 6))
