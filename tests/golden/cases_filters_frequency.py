"""Golden outputs of skimage.filters' frequency-domain filters for tests/filters/test_frequency.cpp
(loaded as "filters_frequency/<name>.npy"): butterworth, LPIFilter2D / filter_forward /
filter_inverse / wiener, gabor_kernel and gabor. Inputs are saved next to the outputs (in_*.npy).

The impulse responses used here are written again in C++ by the test (same names):
  gauss1:   exp(-(r^2 + c^2) / 2)                  (sigma 1, the docstring's example)
  skewed:   exp(-((r - 1)^2 + 2 (c + 0.5)^2))       (not symmetric: shows the grid's offsets; narrow, so
            its spectrum stays far from zero and filter_inverse is well conditioned)
Complex kernels are saved as their real and imaginary parts.
"""
import numpy as np
import skimage.filters as F


def gauss1(r, c):
    return np.exp(-(r**2 + c**2) / 2)


def skewed(r, c):
    return np.exp(-((r - 1) ** 2 + 2 * (c + 0.5) ** 2))


def generate(g):
    rng = g.rng(2024)
    cam = g.camera()[32:96, 32:96].copy()                       # 64x64 uint8
    astro = g.astronaut()                                       # 64x64x3 uint8
    f32 = rng.uniform(-1, 1, (37, 50)).astype(np.float32)
    f64_3d = rng.uniform(0, 10, (9, 10, 11))
    f32_c0 = rng.uniform(0, 1, (3, 20, 21)).astype(np.float32)
    f64_1d = rng.uniform(-5, 5, 33)
    i16 = rng.integers(-300, 300, (16, 15)).astype(np.int16)
    for name, a in [("cam", cam), ("astro", astro), ("f32", f32), ("f64_3d", f64_3d), ("f32_c0", f32_c0),
                    ("f64_1d", f64_1d), ("i16", i16)]:
        g.save(f"in_{name}", a)

    # ---- butterworth: (output name, input name, keyword arguments); the C++ test lists the same.
    bw = [
        ("bw_cam_default", "cam", {}),
        ("bw_cam_low", "cam", dict(cutoff_frequency_ratio=0.1, high_pass=False, order=4.0)),
        ("bw_cam_sqrt_npad", "cam", dict(cutoff_frequency_ratio=0.05, squared_butterworth=False, npad=5)),
        ("bw_f32_low", "f32", dict(cutoff_frequency_ratio=0.2, high_pass=False, order=3.0)),
        ("bw_f32_high_npad", "f32", dict(cutoff_frequency_ratio=0.15, order=1.5, npad=4)),
        ("bw_f64_3d", "f64_3d", dict(cutoff_frequency_ratio=0.1)),
        ("bw_f64_3d_low_npad", "f64_3d", dict(cutoff_frequency_ratio=0.3, high_pass=False, npad=2)),
        ("bw_astro_rgb", "astro", dict(cutoff_frequency_ratio=0.05, high_pass=False, channel_axis=-1, npad=3)),
        ("bw_f32_c0", "f32_c0", dict(cutoff_frequency_ratio=0.25, channel_axis=0, squared_butterworth=False)),
        ("bw_f64_1d", "f64_1d", dict(cutoff_frequency_ratio=0.2, high_pass=False, npad=1)),
        ("bw_i16", "i16", dict(cutoff_frequency_ratio=0.4, order=2.5)),
    ]
    inputs = dict(cam=cam, astro=astro, f32=f32, f64_3d=f64_3d, f32_c0=f32_c0, f64_1d=f64_1d, i16=i16)
    for out, inp, kw in bw:
        g.save(out, F.butterworth(inputs[inp], **kw))

    # ---- LPIFilter2D family on even (cam: 64x64 -> 40x50 crop) and odd/float32 shapes.
    coins = g.coins()[10:50, 20:70].copy()                      # 40x50 uint8
    odd32 = rng.uniform(0, 1, (31, 27)).astype(np.float32)
    odd64 = rng.uniform(0, 1, (17, 22))
    for name, a in [("coins", coins), ("odd32", odd32), ("odd64", odd64)]:
        g.save(f"in_{name}", a)
    for dname, d in [("coins", coins), ("odd32", odd32), ("odd64", odd64)]:
        for hname, h in [("gauss1", gauss1), ("skewed", skewed)]:
            g.save(f"lpi_{dname}_{hname}", F.LPIFilter2D(h)(d))
            g.save(f"fwd_{dname}_{hname}", F.filter_forward(d, h))
            g.save(f"inv_{dname}_{hname}", F.filter_inverse(d, h))
            g.save(f"inv10_{dname}_{hname}", F.filter_inverse(d, h, max_gain=10))
            g.save(f"wien_{dname}_{hname}", F.wiener(d, h))
            g.save(f"wien001_{dname}_{hname}", F.wiener(d, h, K=0.01))
    # K as an array (broadcast over rows) on float64 data.
    krow = rng.uniform(0.01, 0.5, (1, 2 * odd64.shape[1] - 1))
    kfull = rng.uniform(0.01, 0.5, (2 * odd64.shape[0] - 1, 2 * odd64.shape[1] - 1))
    g.save("K_row", krow)
    g.save("K_full", kfull)
    g.save("wienKrow_odd64_skewed", F.wiener(odd64, skewed, K=krow))
    g.save("wienKfull_odd64_gauss1", F.wiener(odd64, gauss1, K=kfull))

    # ---- gabor_kernel: (name, frequency, kwargs)
    gk = [
        ("gk_f01", 0.1, {}),
        ("gk_f02_t45_b2", 0.2, dict(theta=np.pi / 4, bandwidth=2)),
        ("gk_sig_off", 0.3, dict(theta=1.0, sigma_x=2.0, sigma_y=4.0, n_stds=2, offset=0.5)),
        ("gk_c64", 0.15, dict(theta=2.0, bandwidth=1.5, dtype=np.complex64)),
    ]
    for name, f, kw in gk:
        k = F.gabor_kernel(f, **kw)
        g.save(f"{name}_re", k.real)
        g.save(f"{name}_im", k.imag)

    # ---- gabor: integer images keep their dtype (scipy truncates), float32 stays float32.
    gf64 = rng.uniform(-1, 1, (30, 40))
    gf32 = rng.uniform(0, 1, (24, 26)).astype(np.float32)
    gu16 = rng.integers(0, 60000, (20, 22)).astype(np.uint16)
    for name, a in [("gf64", gf64), ("gf32", gf32), ("gu16", gu16)]:
        g.save(f"in_{name}", a)
    gab_inputs = dict(cam=cam, gf64=gf64, gf32=gf32, gu16=gu16)
    gab = [
        ("gab_cam", "cam", 0.2, {}),
        ("gab_gf64_t60", "gf64", 0.3, dict(theta=np.pi / 3)),
        ("gab_gf64_const", "gf64", 0.25, dict(mode="constant", cval=0.5, bandwidth=0.8)),
        ("gab_gf64_wrap", "gf64", 0.1, dict(mode="wrap", sigma_x=1.5, sigma_y=3.0, offset=1.0)),
        ("gab_gf32_nearest", "gf32", 0.4, dict(mode="nearest", theta=0.7)),
        ("gab_gf32_mirror", "gf32", 0.2, dict(mode="mirror", n_stds=2)),
        ("gab_gu16", "gu16", 0.3, dict(theta=1.2)),
    ]
    for name, inp, f, kw in gab:
        re, im = F.gabor(gab_inputs[inp], f, **kw)
        g.save(f"{name}_re", re)
        g.save(f"{name}_im", im)
