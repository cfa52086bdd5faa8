"""Golden outputs of scipy.ndimage.distance_transform_edt for tests/ndimage/test_edt.cpp (loaded as
"ndimage_edt/<name>.npy"). For every case the input is saved as in_<case>.npy, the distances as
dist_<case>.npy (float64) and the feature transform as ind_<case>.npy (int32); the sampling of each
case is listed in CASES (the C++ test holds the same table).
"""
import numpy as np
import scipy.ndimage as ndi

# name: sampling (None = unit)
CASES = {
    "blobs2": None,
    "blobs2_s21": (2.0, 1.0),
    "blobs2_s0713": (0.7, 1.3),
    "grid2": None,            # zeros on a lattice: many equidistant features (scipy's ties)
    "grid2_s": (1.5, 0.75),
    "sparse2": None,
    "line1": None,
    "line1_s": (0.3,),
    "vol3": None,
    "vol3_s": (1.0, 2.0, 0.5),
    "vol3_s2": (0.9, 1.1, 1.7),
    "grid3": None,
    "hyper4": None,
    "ones2": None,            # no background at all
    "ones3": (2.0, 1.0, 1.0),
    "float2": None,           # non-bool input: non-zero is foreground
}


def blobs(rng, shape, frac=0.5):
    noise = ndi.uniform_filter(rng.random(shape), 5, mode="wrap")
    return noise > np.quantile(noise, 1 - frac)


def inputs(g):
    rng = g.rng(2024)
    grid = np.ones((23, 29), bool)
    grid[::6, ::4] = False
    grid3 = np.ones((9, 10, 11), bool)
    grid3[::4, ::4, ::2] = False
    fl = rng.uniform(-1, 1, (17, 19))
    fl[rng.random(fl.shape) < 0.15] = 0.0
    b2 = blobs(rng, (37, 45))
    return {
        "blobs2": b2.astype(np.uint8),
        "blobs2_s21": b2,
        "blobs2_s0713": b2,
        "grid2": grid,
        "grid2_s": grid,
        "sparse2": rng.random((31, 26)) > 0.02,
        "line1": rng.random(40) > 0.2,
        "line1_s": rng.random(33) > 0.3,
        "vol3": blobs(rng, (12, 14, 16)),
        "vol3_s": blobs(rng, (10, 13, 9)),
        "vol3_s2": blobs(rng, (9, 11, 12)),
        "grid3": grid3,
        "hyper4": rng.random((4, 5, 6, 7)) > 0.1,
        "ones2": np.ones((5, 7), np.int32),
        "ones3": np.ones((3, 4, 5), bool),
        "float2": fl,
    }


def generate(g):
    for name, img in inputs(g).items():
        d, ind = ndi.distance_transform_edt(img, sampling=CASES[name], return_indices=True)
        g.save(f"in_{name}", img)
        g.save(f"dist_{name}", d)
        g.save(f"ind_{name}", ind)
