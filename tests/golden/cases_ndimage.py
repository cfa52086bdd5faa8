"""Golden outputs of scipy.ndimage for tests/ndimage/ (loaded as "ndimage/<name>.npy").

Inputs and weights are saved next to the outputs (in_*.npy, w_*.npy) so the C++ tests run exactly the
same data. Output names: <case>_<mode>_<dtype>.npy; the C++ test table lists the same cases.
"""
import numpy as np
import scipy.ndimage as ndi

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
DTYPES = ["uint8", "uint16", "int32", "float32", "float64"]


def cval_for(dt):
    # Constant mode: an exact cval for every dtype (a fractional one has its own cases).
    return 2.5 if np.dtype(dt).kind == "f" else 7.0


def make_input(g, dt, shape, seed):
    rng = g.rng(seed)
    if dt == "uint8" and len(shape) == 2 and shape[0] <= 128:
        return g.camera()[40:40 + shape[0], 50:50 + shape[1]].copy()
    if dt == "bool":
        return rng.random(shape) < 0.5
    kind = np.dtype(dt).kind
    if kind == "f":
        return rng.uniform(-10, 10, shape).astype(dt)
    if dt == "int32":
        return rng.integers(-1000, 1000, shape, endpoint=True).astype(dt)
    hi = 255 if dt == "uint8" else 60000
    return rng.integers(0, hi, shape, endpoint=True).astype(dt)


def generate(g):
    w5 = np.array([0.1, 0.25, 0.3, 0.25, 0.1])            # symmetric
    w4 = np.array([0.5, -1.25, 2.0, 0.75])                 # even length, asymmetric
    w3a = np.array([-1.0, 0.0, 1.0])                       # antisymmetric
    w7n = np.array([0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3])    # inexact, asymmetric: summation order shows
    w2d = g.rng(7).uniform(-1, 1, (3, 5)).round(3)
    w2d[1, 2] = 0.0                                        # a skipped zero tap
    w3d = g.rng(8).uniform(-1, 1, (3, 2, 3)).round(3)
    fp2 = np.array([[0, 1, 0, 0, 1], [1, 1, 1, 0, 0], [0, 1, 0, 1, 0]], bool)
    fp3 = np.zeros((3, 3, 3), bool)
    fp3[1, 1, :] = fp3[1, :, 1] = fp3[:, 1, 1] = True
    for name, w in [("w5", w5), ("w4", w4), ("w3a", w3a), ("w7n", w7n), ("w2d", w2d), ("w3d", w3d), ("fp2", fp2), ("fp3", fp3)]:
        g.save(f"w_{name}", w)

    for i, dt in enumerate(DTYPES + ["bool"]):
        a2 = make_input(g, dt, (19, 24), 100 + i)
        a3 = make_input(g, dt, (5, 6, 7), 200 + i)
        g.save(f"in2_{dt}", a2)
        g.save(f"in3_{dt}", a3)
        for mode in MODES:
            kw = dict(mode=mode, cval=cval_for(dt))
            suffix = f"{mode}_{dt}"
            if dt != "bool":
                g.save(f"c1d_w5_ax0_{suffix}", ndi.correlate1d(a2, w5, axis=0, **kw))
                g.save(f"c1d_w4_o1_{suffix}", ndi.correlate1d(a2, w4, axis=-1, origin=1, **kw))
                g.save(f"c1d_w3a_{suffix}", ndi.correlate1d(a2, w3a, axis=1, **kw))
                g.save(f"c1d_w7n_{suffix}", ndi.correlate1d(a2, w7n, axis=0, **kw))
                g.save(f"cv1d_w4_{suffix}", ndi.convolve1d(a2, w4, axis=1, origin=-1, **kw))
                g.save(f"c2d_{suffix}", ndi.correlate(a2, w2d, origin=(0, 1), **kw))
                g.save(f"cv2d_{suffix}", ndi.convolve(a2, w2d, **kw))
                g.save(f"c3d_{suffix}", ndi.correlate(a3, w3d, **kw))
                g.save(f"u1d_{suffix}", ndi.uniform_filter1d(a2, 4, axis=0, **kw))
                g.save(f"u2d_{suffix}", ndi.uniform_filter(a2, (3, 5), origin=(1, 0), **kw))
                g.save(f"u3d_{suffix}", ndi.uniform_filter(a3, 3, **kw))
            g.save(f"min1d_{suffix}", ndi.minimum_filter1d(a2, 4, axis=1, **kw))
            g.save(f"max1d_{suffix}", ndi.maximum_filter1d(a2, 5, axis=0, origin=-2, **kw))
            g.save(f"min2d_{suffix}", ndi.minimum_filter(a2, size=(3, 4), **kw))
            g.save(f"max2d_{suffix}", ndi.maximum_filter(a2, size=(5, 2), **kw))
            g.save(f"minfp_{suffix}", ndi.minimum_filter(a2, footprint=fp2, **kw))
            g.save(f"maxfp_{suffix}", ndi.maximum_filter(a2, footprint=fp2, origin=(1, -1), **kw))
            g.save(f"max3d_{suffix}", ndi.maximum_filter(a3, footprint=fp3, **kw))

    # Tiny axes with windows wider than the axis (periodic reflect/mirror/wrap extension).
    for shape in [(1, 7), (2, 3), (3, 1)]:
        tag = "x".join(map(str, shape))
        for dt in ["uint8", "float64"]:
            a = make_input(g, dt, shape, 300 + shape[0] * 10 + shape[1])
            if dt == "uint8":
                a = (np.arange(a.size).reshape(shape) * 37 % 251).astype(np.uint8)
            g.save(f"in_small{tag}_{dt}", a)
            for mode in MODES:
                kw = dict(mode=mode, cval=cval_for(dt))
                s = f"small{tag}_{mode}_{dt}"
                w9 = np.arange(1, 10, dtype=float) / 7
                g.save(f"c1d_{s}", ndi.correlate1d(a, w9, axis=0, **kw))
                g.save(f"c2d_{s}", ndi.correlate(a, np.outer(np.arange(1, 6), np.arange(1, 8)) / 20.0, **kw))
                g.save(f"u_{s}", ndi.uniform_filter(a, 7, **kw))
                g.save(f"max_{s}", ndi.maximum_filter(a, size=(5, 9), **kw))
                g.save(f"min_{s}", ndi.minimum_filter1d(a, 8, axis=1, **kw))

    # 4-D (CPU backend only for N-d windows).
    a4 = g.rng(400).uniform(-1, 1, (3, 4, 5, 6))
    w4d = g.rng(401).uniform(-1, 1, (2, 3, 1, 2)).round(3)
    g.save("in4_float64", a4)
    g.save("w_w4d", w4d)
    g.save("c4d_mirror_float64", ndi.correlate(a4, w4d, mode="mirror", origin=(0, 1, 0, -1)))
    g.save("min4d_wrap_float64", ndi.minimum_filter(a4, size=(2, 3, 1, 4), mode="wrap"))

    # A fractional cval on integer inputs (kept as double in the sum, as scipy).
    a = make_input(g, "uint8", (19, 24), 100)
    g.save("cval_c2d_uint8", ndi.correlate(a, w2d, mode="constant", cval=3.7))
    g.save("cval_u1d_uint8", ndi.uniform_filter1d(a, 5, mode="constant", cval=100.6))
    g.save("cval_max1d_uint8", ndi.maximum_filter1d(a, 3, mode="constant", cval=300.5))
