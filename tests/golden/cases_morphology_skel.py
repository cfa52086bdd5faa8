"""Golden outputs of skimage.morphology.skeletonize / thin / convex_hull_image / convex_hull_object
for tests/morphology/test_skeletonize.cpp and test_convex_hull.cpp (loaded as
"morphology_skel/<name>.npy").

Inputs are stored next to their results: <case>_in.npy, and one file per function/option
(<case>_zhang, <case>_lee, <case>_thin, <case>_thin3 (max_num_iter=3), <case>_hull,
<case>_hull_nooff (offset_coordinates=False), <case>_hull_noborder (include_borders=False),
<case>_obj1 / <case>_obj2 (connectivity); hull case names start with "ch_"). The C++ tests iterate over the same case names.
"""
import warnings

import numpy as np
import skimage
import skimage.morphology as sm
from skimage.transform import resize


def blobs(rng_seed, length, fraction, ndim=2, volume_fraction=0.5):
    return skimage.data.binary_blobs(length=length, blob_size_fraction=fraction, n_dim=ndim,
                                     volume_fraction=volume_fraction, rng=rng_seed)


def horse():
    h = ~skimage.data.horse()  # 328x400, True = horse
    return h[::4, ::4]  # 82x100


def skel_cases(g):
    rng = g.rng(5)
    cases = {
        "horse": horse(),
        "blobs": blobs(1, 96, 0.2),
        "blobs_u8": blobs(2, 64, 0.15).astype(np.uint8) * rng.integers(1, 255, (64, 64)).astype(np.uint8),
        "random": rng.random((37, 53)) < 0.55,
        "noise_f32": np.where(rng.random((31, 29)) < 0.6, rng.uniform(-3, 3, (31, 29)), 0).astype(np.float32),
        "thin_line": np.pad(np.ones((3, 40), bool), 4),
        "edges": np.ones((12, 17), bool),  # touches the borders
    }
    for name, img in cases.items():
        g.save(f"{name}_in", img)
        g.save(f"{name}_zhang", sm.skeletonize(img))
        g.save(f"{name}_lee", sm.skeletonize(img, method="lee"))
        g.save(f"{name}_thin", sm.thin(img))
        g.save(f"{name}_thin3", sm.thin(img, max_num_iter=3))
    cases3 = {
        "blobs3": blobs(3, 40, 0.3, ndim=3),
        "random3": rng.random((12, 15, 17)) < 0.6,
        "ball": np.pad(sm.ball(7).astype(bool), 2),
    }
    for name, img in cases3.items():
        g.save(f"{name}_in", img)
        g.save(f"{name}_lee", sm.skeletonize(img))
    # The Guo-Hall tables scikit-image ships (the C++ test checks its derivation against them).
    from skimage.morphology._skeletonize import G123_LUT, G123P_LUT
    g.save("thin_luts", np.stack([G123_LUT, G123P_LUT]))


def hull_cases(g):
    rng = g.rng(9)
    sparse = np.zeros((45, 61), bool)
    sparse[rng.integers(0, 45, 9), rng.integers(0, 61, 9)] = True
    two = np.zeros((30, 40), np.uint8)  # touching objects of different values stay separate
    two[5:20, 5:8] = 1
    two[17:20, 8:25] = 2
    two[25, 30:38] = 3
    diag = np.eye(20, dtype=bool)
    single = np.zeros((7, 9), bool)
    single[3, 4] = True
    f = np.zeros((20, 24), np.float64)
    f[3:9, 4:7] = 0.5    # casts to uint8 0 (background for convex_hull_image)
    f[10:15, 10:20] = 2.7
    f[16, 2] = -1.0      # casts to 255
    f[17, 20] = 256.0    # casts to 0
    f[12, 3] = 1.2       # label: int64(1.2) = 1, a different value from int64(2.7) = 2
    cases = {
        "horse": horse(),
        "blobs": blobs(4, 96, 0.08),
        "blobs_many": blobs(5, 128, 0.04, volume_fraction=0.3),
        "random": rng.random((33, 47)) < 0.05,
        "sparse": sparse,
        "two": two,
        "diag": diag,
        "single": single,
        "float": f,
        "u16": (rng.integers(0, 3, (25, 27)) * 256 + (rng.random((25, 27)) < 0.03)).astype(np.uint16),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, img in cases.items():
            name = "ch_" + name  # distinct from the skeleton cases
            g.save(f"{name}_in", img)
            g.save(f"{name}_hull", sm.convex_hull_image(img))
            g.save(f"{name}_hull_nooff", sm.convex_hull_image(img, offset_coordinates=False))
            g.save(f"{name}_hull_noborder", sm.convex_hull_image(img, include_borders=False))
            g.save(f"{name}_obj1", sm.convex_hull_object(img, connectivity=1))
            g.save(f"{name}_obj2", sm.convex_hull_object(img, connectivity=2))


def hull3_cases(g):
    rng = g.rng(13)
    sparse = np.zeros((9, 11, 13), np.uint8)
    sparse[rng.integers(0, 9, 7), rng.integers(0, 11, 7), rng.integers(0, 13, 7)] = 3
    plane = np.zeros((5, 6, 7), bool)  # coplanar voxels: Qhull fails, scikit-image returns zeros
    plane[2, 1:5, 1:6] = True
    cases = {
        "blobs3": blobs(6, 24, 0.25, ndim=3, volume_fraction=0.2),
        "sparse3": sparse,
        "plane3": plane,
        "ball3": np.pad(sm.ball(4).astype(np.float32), ((1, 2), (0, 3), (2, 1))),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, img in cases.items():
            name = "ch_" + name
            g.save(f"{name}_in", img)
            g.save(f"{name}_hull", sm.convex_hull_image(img))
            g.save(f"{name}_hull_nooff", sm.convex_hull_image(img, offset_coordinates=False))
            g.save(f"{name}_hull_tol", sm.convex_hull_image(img, tolerance=0.3))


def generate(g):
    skel_cases(g)
    hull_cases(g)
    hull3_cases(g)
