"""Golden outputs of skimage.feature's corner.py and _canny.py for tests/feature/test_corner.cpp
and tests/feature/test_canny.cpp (loaded as "feature_corner/<name>.npy").

Inputs: cam (64x64 uint8 crop of camera), f32 (48x56 smoothed noise, float32), vol (12x14x16
float64), sq (two squares and a checker corner, float64). Each output is named after the
function and the case number the C++ test spells out with the same parameters.
"""
import warnings

import numpy as np
import scipy.ndimage as ndi
from skimage import feature
from skimage.morphology import octagon


def inputs(g):
    rng = g.rng(2201)
    cam = g.camera()[24:88, 40:104].copy()
    f32 = ndi.gaussian_filter(rng.normal(size=(48, 56)), 1.5).astype(np.float32)
    vol = ndi.gaussian_filter(rng.normal(size=(12, 14, 16)), 1.2)
    sq = np.zeros((40, 44))
    sq[8:20, 6:18] = 1
    sq[24:34, 26:40] = 0.6
    sq[26:, :10] = 0.3
    sq += 0.02 * rng.random(sq.shape)
    return dict(cam=cam, f32=f32, vol=vol, sq=sq)


def save_list(g, name, arrs):
    for k, a in enumerate(arrs):
        g.save(f"{name}_{k}", np.asarray(a))


def generate(g):
    im = inputs(g)
    for k, v in im.items():
        g.save(k, v)
    cam, f32, vol, sq = im["cam"], im["f32"], im["vol"], im["sq"]

    # structure_tensor (+ eigenvalues)
    st = [
        feature.structure_tensor(cam, sigma=1),
        feature.structure_tensor(f32, sigma=(1.5, 0.8), mode="reflect", order="xy"),
        feature.structure_tensor(vol, sigma=1, mode="nearest"),
        feature.structure_tensor(cam, sigma=2, mode="constant", cval=0.5),
        feature.structure_tensor(f32, sigma=1, mode="wrap"),
    ]
    for i, a in enumerate(st):
        save_list(g, f"st{i}", a)
        g.save(f"steig{i}", feature.structure_tensor_eigenvalues(a))

    # hessian_matrix (+ eigvals)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hm = [
            feature.hessian_matrix(cam, sigma=1.5),
            feature.hessian_matrix(f32, sigma=2, mode="reflect", use_gaussian_derivatives=True),
            feature.hessian_matrix(cam, sigma=1, order="xy", use_gaussian_derivatives=False),
            feature.hessian_matrix(vol, sigma=1.2, mode="mirror", use_gaussian_derivatives=False),
            feature.hessian_matrix(f32, sigma=0.8, use_gaussian_derivatives=True),
        ]
    for i, a in enumerate(hm):
        save_list(g, f"hm{i}", a)
        g.save(f"hmeig{i}", feature.hessian_matrix_eigvals(a))

    g.save("hdet0", feature.hessian_matrix_det(cam, sigma=3))
    g.save("hdet1", feature.hessian_matrix_det(f32, sigma=1.5))
    g.save("hdet2", feature.hessian_matrix_det(cam, sigma=2, approximate=False))
    g.save("hdet3", feature.hessian_matrix_det(vol, sigma=1))
    g.save("hdet4", feature.hessian_matrix_det(sq - 0.5, sigma=2.5))  # negative sums clamp

    g.save("si0", feature.shape_index(cam, sigma=2))
    g.save("si1", feature.shape_index(f32, sigma=1, mode="reflect"))

    g.save("harris0", feature.corner_harris(cam))
    g.save("harris1", feature.corner_harris(f32, method="eps", eps=1e-4, sigma=2))
    g.save("harris2", feature.corner_harris(sq, k=0.1, sigma=1.5))
    g.save("shi0", feature.corner_shi_tomasi(cam))
    g.save("shi1", feature.corner_shi_tomasi(f32, sigma=1.5))
    w, q = feature.corner_foerstner(sq)
    g.save("foer0_w", w)
    g.save("foer0_q", q)
    w, q = feature.corner_foerstner(f32, sigma=2)
    g.save("foer1_w", w)
    g.save("foer1_q", q)
    g.save("kr0", feature.corner_kitchen_rosenfeld(cam))
    g.save("kr1", feature.corner_kitchen_rosenfeld(f32, mode="reflect"))
    g.save("mor0", feature.corner_moravec(cam))
    g.save("mor1", feature.corner_moravec(f32, window_size=2))
    g.save("fast0", feature.corner_fast(cam))
    g.save("fast1", feature.corner_fast(f32, n=9, threshold=0.05))
    g.save("fast2", feature.corner_fast(sq, n=9, threshold=0.1))

    c0 = feature.corner_peaks(feature.corner_harris(sq), min_distance=3)
    c1 = feature.corner_peaks(feature.corner_harris(cam), min_distance=4, threshold_rel=0.05)
    g.save("sp0_corners", c0.astype(np.int64))
    g.save("sp1_corners", c1.astype(np.int64))
    g.save("sp0", feature.corner_subpix(sq, c0))
    g.save("sp1", feature.corner_subpix(cam, c1, window_size=7, alpha=0.9))
    g.save("or0_mask", octagon(3, 2))
    g.save("or0", feature.corner_orientations(cam, c1, octagon(3, 2)))
    mask = np.ones((5, 7), bool)
    mask[0, 0] = mask[-1, -1] = False
    g.save("or1_mask", mask)
    g.save("or1", feature.corner_orientations(sq, c0, mask))

    # canny
    m = np.ones(f32.shape, bool)
    m[:, :10] = False
    m[30:40, 20:30] = False
    g.save("canny_mask", m)
    g.save("canny0", feature.canny(cam))
    g.save("canny1", feature.canny(cam, sigma=2, low_threshold=10, high_threshold=40))
    g.save("canny2", feature.canny(f32, sigma=1.5, low_threshold=0.02, high_threshold=0.05, mask=m))
    g.save("canny3", feature.canny(cam, sigma=1.2, low_threshold=0.8, high_threshold=0.9, use_quantiles=True))
    g.save("canny4", feature.canny(sq, sigma=1, mode="reflect"))
    g.save("canny5", feature.canny(f32, sigma=1, low_threshold=0.0, high_threshold=0.03, mode="nearest"))
    g.save("canny6", feature.canny(sq, sigma=2, low_threshold=0.05, high_threshold=0.2, mode="constant", cval=0.3))
