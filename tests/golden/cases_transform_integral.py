"""Golden outputs of skimage.transform.integral_image and integrate for
tests/transform/test_integral.cpp (loaded as "transform_integral/<name>.npy").

Inputs in_<key>.npy (1-D to 3-D; uint8, int16, bool, float32, float64, uint32 near wrap-around);
outputs ii_<key>.npy (default dtype) and ii_<key>_<dtype>.npy (explicit dtype). integrate: windows
win_start.npy / win_end.npy (n, 2, with negative coordinates) on ii_2u and their sums sums_2u.npy;
the 3-D windows win3_start / win3_end on ii_3f and sums_3f.npy.
"""
import numpy as np
from skimage.transform import integral_image, integrate


def generate(g):
    rng = g.rng(2020)
    ins = {
        "1i": rng.integers(-100, 100, 37).astype(np.int16),
        "2u": g.camera()[:64, :80],
        "2b": rng.random((33, 17)) > 0.4,
        "2f": rng.uniform(-5, 5, (70, 65)).astype(np.float32),
        "2d": rng.uniform(-1e3, 1e3, (40, 129)),
        "3f": rng.uniform(0, 1, (6, 9, 11)).astype(np.float32),
        "2w": rng.integers(2**31, 2**32, (9, 7), dtype=np.uint64).astype(np.uint32),
    }
    for key, a in ins.items():
        g.save(f"in_{key}", a)
        g.save(f"ii_{key}", integral_image(a))
    g.save("ii_2u_uint8", integral_image(ins["2u"], dtype=np.uint8))
    g.save("ii_2u_int32", integral_image(ins["2u"], dtype=np.int32))
    g.save("ii_2f_float32", integral_image(ins["2f"], dtype=np.float32))
    g.save("ii_2w_int32", integral_image(ins["2w"], dtype=np.int32))
    ii = integral_image(ins["2u"])
    start = np.array([(0, 0), (3, 5), (10, 0), (-5, -7), (63, 79), (0, 40)])
    end = np.array([(63, 79), (3, 9), (20, 30), (-1, -1), (63, 79), (5, -1)])
    g.save("win_start", start)
    g.save("win_end", end)
    g.save("sums_2u", integrate(ii, start, end))
    ii3 = integral_image(ins["3f"])
    s3 = np.array([(0, 0, 0), (1, 2, 3), (2, 0, 5)])
    e3 = np.array([(5, 8, 10), (4, 6, 9), (2, -1, -1)])
    g.save("win3_start", s3)
    g.save("win3_end", e3)
    g.save("sums_3f", integrate(ii3, s3, e3))
