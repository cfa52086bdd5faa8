"""Golden outputs of skimage.filters' local filters for tests/filters/test_local.cpp (loaded as
"filters_local/<name>.npy"): median (both behaviours), rank_order, correlate_sparse, window,
threshold_local/niblack/sauvola, apply_hysteresis_threshold and try_all_threshold's masks.
Inputs are saved next to their results (<case>_in.npy) so the C++ side replays the same call.
"""
import warnings

import numpy as np
import skimage.filters as sf
import skimage.morphology as sm

MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]


def gen_median(g):
    rng = g.rng(11)
    ins = {
        "u8": rng.integers(0, 256, (20, 23)).astype(np.uint8),
        "i16": rng.integers(-500, 500, (17, 19)).astype(np.int16),
        "f32": rng.normal(0, 1, (18, 21)).astype(np.float32),
        "u16_3d": rng.integers(0, 4000, (7, 8, 9)).astype(np.uint16),
        "f64_1d": rng.normal(0, 1, (33,)),
        "i64": rng.integers(-10**6, 10**6, (9, 12)).astype(np.int64),
    }
    fps = {
        "default": None,
        "disk2": sm.disk(2),
        "even": np.array([[1, 1, 0, 1], [0, 1, 1, 1]], np.uint8),
        "sq5": np.ones((5, 5), np.uint8),
        "row3": np.ones((1, 3), np.uint8),
    }
    for name, fp in fps.items():
        if fp is not None:
            g.save(f"median_fp_{name}", fp)
    for case, img in ins.items():
        g.save(f"median_{case}_in", img)
        for fname, fp in fps.items():
            if fp is not None and fp.ndim != img.ndim:
                continue
            for mode in MODES:
                cval = 3.5 if mode == "constant" else 0.0
                g.save(f"median_{case}_{fname}_{mode}", sf.median(img, fp, mode=mode, cval=cval))
    # 3-D with a 3-D footprint (ball) and a single-plane one
    v = ins["u16_3d"]
    g.save("median_fp_ball1", sm.ball(1))
    g.save("median_u16_3d_ball1_reflect", sf.median(v, sm.ball(1), mode="reflect"))
    # rank behaviour: uint8, uint16 and a float image (img_as_ubyte first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u8 = ins["u8"]
        g.save("median_rank_u8_disk2", sf.median(u8, sm.disk(2), behavior="rank"))
        g.save("median_rank_u8_even", sf.median(u8, fps["even"], behavior="rank"))
        u16 = rng.integers(0, 3000, (15, 16)).astype(np.uint16)
        g.save("median_rank_u16_in", u16)
        g.save("median_rank_u16_default", sf.median(u16, np.ones((3, 3), np.uint8), behavior="rank"))
        f = rng.uniform(0, 1, (12, 13))
        g.save("median_rank_f64_in", f)
        g.save("median_rank_f64_disk2", sf.median(f, sm.disk(2), behavior="rank"))
        g.save("median_rank_u16_3d_ball1", sf.median(v, sm.ball(1), behavior="rank"))


def gen_rank_order(g):
    rng = g.rng(12)
    a = rng.integers(0, 6, (7, 9)).astype(np.int32)
    b = np.round(rng.normal(0, 2, (300,)), 1) + 0.0  # no -0.0: its order among 0.0 is NumPy-sort specific
    for name, img in [("i32", a), ("f64", b)]:
        labels, vals = sf.rank_order(img)
        g.save(f"rank_order_{name}_in", img)
        g.save(f"rank_order_{name}_labels", labels)
        g.save(f"rank_order_{name}_values", vals)


def gen_correlate_sparse(g):
    rng = g.rng(13)
    f32 = rng.normal(0, 1, (19, 22)).astype(np.float32)
    u8 = rng.integers(0, 256, (16, 14)).astype(np.uint8)
    k = np.zeros((5, 3))
    k[0, 2], k[2, 1], k[4, 0], k[3, 2] = 0.25, -1.5, 2.0, 1.0 / 3
    k3 = np.zeros((3, 3, 3))
    k3[1, 1, 1], k3[0, 2, 1] = 1.0, -0.5
    v = rng.normal(0, 1, (6, 7, 8))
    g.save("sparse_kernel", k)
    g.save("sparse_kernel3", k3)
    g.save("sparse_f32_in", f32)
    g.save("sparse_u8_in", u8)
    g.save("sparse_f64_3d_in", v)
    for mode in MODES + ["valid"]:
        g.save(f"sparse_f32_{mode}", sf.correlate_sparse(f32, k, mode=mode))
        g.save(f"sparse_u8_{mode}", sf.correlate_sparse(u8, k, mode=mode))
    g.save("sparse_f64_3d_reflect", sf.correlate_sparse(v, k3, mode="reflect"))


WINDOWS = [("hann", [], (17, 23)), ("tukey", [0.3], (16, 16)), ("hamming", [], (9, 9, 7)),
           ("kaiser", [5.0], (20,)), ("boxcar", [], (10, 13)), ("gaussian", [3.0], (7, 30)),
           ("blackman", [], (12, 12)), ("triang", [], (11,)), ("triang", [], (12,)), ("bartlett", [], (9, 14)),
           ("flattop", [], (15,)), ("parzen", [], (13, 13)), ("parzen", [], (16,)), ("bohman", [], (10,)),
           ("blackmanharris", [], (11,)), ("nuttall", [], (11,)), ("barthann", [], (12,)), ("cosine", [], (9,)),
           ("exponential", [], (10,)), ("exponential", [np.nan, 3.0], (9,)), ("general_gaussian", [1.5, 2.0], (14,)),
           ("general_hamming", [0.6], (10,)), ("lanczos", [], (11,)), ("lanczos", [], (10,)),
           ("taylor", [], (20,)), ("taylor", [5, 35, 0], (21,)), ("hann_periodic", [], (10,)), ("tukey", [], (1,))]


def gen_window(g):
    out = []
    for i, (name, params, shape) in enumerate(WINDOWS):
        p = [None if (isinstance(x, float) and np.isnan(x)) else x for x in params]
        if name == "taylor" and p:
            p = [int(p[0]), p[1], bool(p[2])]
        wt = (name, *p) if p else name
        g.save(f"window_{i}", sf.window(wt, shape))


def gen_local_thresholds(g):
    rng = g.rng(14)
    u8 = g.camera()[::2, ::2][:40, :44]
    f32 = rng.normal(0.5, 0.2, (23, 29)).astype(np.float32)
    f64_3d = rng.uniform(0, 1, (6, 9, 8))
    g.save("local_u8_in", u8)
    g.save("local_f32_in", f32)
    g.save("local_f64_3d_in", f64_3d)
    for name, img in [("u8", u8), ("f32", f32)]:
        g.save(f"local_{name}_gaussian", sf.threshold_local(img, 7))
        g.save(f"local_{name}_gaussian_param", sf.threshold_local(img, 5, param=2.0, offset=0.1, mode="nearest"))
        g.save(f"local_{name}_mean", sf.threshold_local(img, (5, 3), method="mean", offset=-2, mode="constant",
                                                        cval=1.5))
        g.save(f"local_{name}_median", sf.threshold_local(img, 5, method="median", mode="wrap"))
        g.save(f"local_{name}_generic", sf.threshold_local(img, 3, method="generic", param=np.max))
        g.save(f"niblack_{name}", sf.threshold_niblack(img, window_size=7, k=0.3))
        g.save(f"niblack_{name}_rect", sf.threshold_niblack(img, window_size=(5, 9)))
        g.save(f"sauvola_{name}", sf.threshold_sauvola(img, window_size=9))
        g.save(f"sauvola_{name}_r", sf.threshold_sauvola(img, window_size=5, k=0.5, r=64.0))
    g.save("niblack_f64_3d", sf.threshold_niblack(f64_3d, window_size=3))
    g.save("sauvola_f64_3d", sf.threshold_sauvola(f64_3d, window_size=(3, 5, 3)))
    g.save("local_f64_3d_mean", sf.threshold_local(f64_3d, 3, method="mean"))


def gen_hysteresis(g):
    rng = g.rng(15)
    f32 = sf.gaussian(rng.uniform(0, 1, (40, 45)), 1.5).astype(np.float32)
    u8 = rng.integers(0, 256, (8, 10, 12)).astype(np.uint8)
    g.save("hyst_f32_in", f32)
    g.save("hyst_u8_in", u8)
    g.save("hyst_f32", sf.apply_hysteresis_threshold(f32, 0.48, 0.53))
    g.save("hyst_f32_swapped", sf.apply_hysteresis_threshold(f32, 0.55, 0.5))
    g.save("hyst_u8", sf.apply_hysteresis_threshold(u8, 150, 240))
    cam = g.camera()
    g.save("try_all_in", cam)
    masks = []
    for f in [sf.threshold_isodata, sf.threshold_li, sf.threshold_mean, sf.threshold_minimum, sf.threshold_otsu,
              sf.threshold_triangle, sf.threshold_yen]:
        masks.append(cam > f(cam))
    g.save("try_all_masks", np.stack(masks))


def generate(g):
    gen_median(g)
    gen_rank_order(g)
    gen_correlate_sparse(g)
    gen_window(g)
    gen_local_thresholds(g)
    gen_hysteresis(g)
