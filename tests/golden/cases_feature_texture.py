"""Golden outputs of skimage.feature's texture functions for tests/feature/test_texture.cpp (loaded
as "feature_texture/<name>.npy").

Images: u8 (64x64 uint8, smooth noise with flat patches: ties decide the LBP bits), f64 (48x40
float64 with values on a coarse grid), u16 (40x44 uint16, values < 120), q8 (u8 // 32), i32 (32x30 int32 < 20).
- lbp_<img>_<P>_<R>_<method>: local_binary_pattern.
- glcm_<k>: graycomatrix case k with its parameters glcmp_<k> (image index, levels (0 = None),
  symmetric, normed) and distances glcmd_<k>, angles glcma_<k>; props_<k>_<prop>: graycoprops of it.
- mblbp: multiblock_lbp codes of the integral image of u8 for the rows of mblbp_args
  (r, c, width, height); draw_<k>: draw_multiblock_lbp of u8 (or f32 for k = 1) with draw_args_<k>.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage.feature import (draw_multiblock_lbp, graycomatrix, graycoprops, local_binary_pattern,
                             multiblock_lbp)
from skimage.transform import integral_image

METHODS = ["default", "ror", "uniform", "nri_uniform", "var"]
PROPS = ["contrast", "dissimilarity", "homogeneity", "energy", "correlation", "ASM", "mean", "variance", "std",
         "entropy"]


def images(rng):
    u8 = ndi.gaussian_filter(rng.uniform(0, 255, (64, 64)), 1.5)
    u8 = (u8 - u8.min()) / (u8.max() - u8.min()) * 255
    u8 = u8.astype(np.uint8)
    u8[10:20, 30:44] = 120  # a flat patch: every neighbour ties with its centre
    f64 = np.round(ndi.gaussian_filter(rng.normal(size=(48, 40)), 1.0) * 8) / 8
    u16 = rng.integers(0, 120, (40, 44)).astype(np.uint16)
    i32 = (ndi.gaussian_filter(rng.uniform(0, 19, (32, 30)), 1.0)).astype(np.int32)
    q8 = u8 // 32  # 8 grey levels: small co-occurrence matrices
    return {"u8": u8, "f64": f64, "u16": u16, "i32": i32, "q8": q8}


def generate(g):
    rng = g.rng(2226)
    imgs = images(rng)
    for k, a in imgs.items():
        g.save(f"img_{k}", a)
    for name, P, R in [("u8", 8, 1), ("u8", 16, 2), ("f64", 12, 2.5), ("u16", 8, 3),
                       ("i32", 6, 1)]:
        for m in METHODS:
            g.save(f"lbp_{name}_{P}_{R}_{m}", local_binary_pattern(imgs[name], P, R, m))
    glcm_cases = [
        ("u8", 0, False, False, [1], [0.0]),
        ("q8", 8, True, True, [1, 2, 5], [0, np.pi / 4, np.pi / 2, 3 * np.pi / 4]),
        ("q8", 16, False, True, [3], [np.pi, -np.pi / 3]),
        ("u16", 130, False, False, [2], [np.pi / 2]),
        ("q8", 9, True, False, [4], [np.pi / 4, 1.0]),
        ("i32", 20, True, True, [1, 70], [0.3, 2.0]),  # distance 70 leaves no pair
        ("i32", 24, False, False, [2.5], [np.pi / 6, 5 * np.pi / 4]),
    ]
    for k, (name, levels, sym, normed, d, a) in enumerate(glcm_cases):
        P = graycomatrix(imgs[name], d, a, levels=None if levels == 0 else levels, symmetric=sym, normed=normed)
        names = list(imgs)
        g.save(f"glcmp_{k}", np.array([names.index(name), levels, sym, normed], np.int64))
        g.save(f"glcmd_{k}", np.array(d, np.float64))
        g.save(f"glcma_{k}", np.array(a, np.float64))
        g.save(f"glcm_{k}", P)
        if k in (1, 3, 5):
            for p in PROPS:
                g.save(f"props_{k}_{p}", graycoprops(P, p))
    g.save("nglcm", np.array([len(glcm_cases)], np.int64))
    ii = integral_image(imgs["u8"])
    args = np.array([[0, 0, 3, 3], [5, 7, 4, 2], [20, 11, 6, 5], [40, 30, 8, 7], [9, 9, 1, 1], [0, 40, 8, 3]],
                    np.int64)
    g.save("mblbp_args", args)
    g.save("mblbp", np.array([multiblock_lbp(ii, *map(int, row)) for row in args], np.int64))
    f32 = (imgs["u8"] / 255.0).astype(np.float32)
    draws = [(imgs["u8"], (3, 4, 5, 6, 0b10110010), None),
             (f32, (10, 2, 7, 9, 0b01001101), dict(color_greater_block=(1, 0, 0), alpha=0.3)),
             (imgs["u8"], (50, 48, 6, 5, 255), dict(color_less_block=(0.2, 0.4, 0.6), alpha=0.8))]
    for k, (img, (r, c, w, h, code), kw) in enumerate(draws):
        kw = kw or {}
        out = draw_multiblock_lbp(img, r, c, w, h, lbp_code=code, **kw)
        cg = kw.get("color_greater_block", (1, 1, 1))
        cl = kw.get("color_less_block", (0, 0.69, 0.96))
        g.save(f"draw_args_{k}", np.array([r, c, w, h, code, *cg, *cl, kw.get("alpha", 0.5)], np.float64))
        g.save(f"draw_{k}", out)
