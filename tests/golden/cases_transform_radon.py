"""Golden outputs of skimage.transform.frt2 and ifrt2 for tests/transform/test_frt.cpp (loaded as
"transform_radon/<name>.npy"): in_<key>.npy square inputs (uint8 17x17, int16 with negatives 13x13,
float64 11x11, bool 7x7), frt_<key>.npy = frt2(in); ifrt_<key>.npy = ifrt2(frt_<key>) for the
uint32 transforms; ifrt_u8raw.npy = ifrt2 of a uint8 (18, 17) array (numpy's wrap-around).
"""
import numpy as np
from skimage.transform import frt2, ifrt2


def generate(g):
    rng = g.rng(77)
    ins = {
        "u8": rng.integers(0, 256, (17, 17)).astype(np.uint8),
        "i16": rng.integers(-300, 300, (13, 13)).astype(np.int16),
        "f64": rng.uniform(0, 50, (11, 11)),
        "b": rng.random((7, 7)) > 0.5,
    }
    for key, a in ins.items():
        g.save(f"in_{key}", a)
        f = frt2(a)
        g.save(f"frt_{key}", f)
        g.save(f"ifrt_{key}", ifrt2(f))
    raw = rng.integers(0, 256, (18, 17)).astype(np.uint8)
    g.save("raw_u8", raw)
    g.save("ifrt_u8raw", ifrt2(raw))
