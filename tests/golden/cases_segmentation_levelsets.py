"""Golden outputs of scikit-image 0.26's morphsnakes for tests/segmentation/test_morphsnakes.cpp
(loaded as "segmentation_levelsets/<name>.npy").

scikit-image cycles its smoothing operator (SI∘IS, IS∘SI) through a module-global iterator across
calls; every call here starts from a fresh cycle (SI∘IS first), as cuskimage does.
Inputs: img2 (64 x 72 float64: two discs and a bar over noise), img3 (16 x 20 x 24 float64),
img2u8 / img2f32 (img2 as uint8 / float32), init2 (a float64 level set with negative, zero and
fractional values). Outputs:
  acwe_<key>            morphological_chan_vese with the parameters listed in ACWE
  gac_<key>             morphological_geodesic_active_contour on igg2 / igg3 with GAC's parameters
  igg2, igg3, igg2f32, igg2u8   inverse_gaussian_gradient (alpha, sigma in IGG)
  cb_<key>, disk_<key>  checkerboard_level_set / disk_level_set
  cv_<key>_seg / _phi / _energies   chan_vese(..., extended_output=True) with CV's parameters
  snake_img (64 x 64: a blurred disc, float64), snake_rgb (48 x 56 x 3), valley (40 x 60: a dark
  curved line), snake_init / line_init: the starting snakes;
  ac_<key>              active_contour with AC's parameters
"""
import numpy as np
from skimage.filters import gaussian
from skimage.segmentation import active_contour, chan_vese
from skimage.segmentation import morphsnakes as ms


def fresh_cycle():
    ms._curvop = ms._fcycle([lambda u: ms.sup_inf(ms.inf_sup(u)), lambda u: ms.inf_sup(ms.sup_inf(u))])


def scene(rng, shape):
    grid = np.indices(shape).astype(float)
    c = [s / 2.0 for s in shape]
    img = 0.2 + 0.05 * rng.standard_normal(shape)
    r1 = np.sqrt(sum((g - cc * 0.7) ** 2 for g, cc in zip(grid, c)))
    r2 = np.sqrt(sum((g - cc * 1.3) ** 2 for g, cc in zip(grid, c)))
    img[r1 < min(shape) * 0.2] += 0.6
    img[r2 < min(shape) * 0.15] += 0.4
    img[..., 3:6] += 0.3
    return img


# key: (image key, num_iter, kwargs)
ACWE = {
    "cb": ("img2", 12, {}),
    "cb_s2": ("img2", 8, {"smoothing": 2}),
    "cb_s0": ("img2", 5, {"smoothing": 0, "lambda1": 2.0, "lambda2": 0.5}),
    "disk_s3": ("img2", 7, {"init_level_set": "disk", "smoothing": 3}),
    "arr": ("img2", 9, {"init_level_set": "init2", "lambda2": 1.5}),
    "u8": ("img2u8", 10, {}),
    "f32": ("img2f32", 10, {"smoothing": 2}),
    "3d": ("img3", 6, {}),
    "3d_disk": ("img3", 5, {"init_level_set": "disk", "smoothing": 2}),
    "zero": ("img2", 0, {}),
}
GAC = {
    "b0": ("igg2", 15, {}),
    "bp": ("igg2", 20, {"balloon": 1.0, "smoothing": 2}),
    "bn": ("igg2", 12, {"balloon": -1.0, "init_level_set": "checkerboard"}),
    "thr": ("igg2", 15, {"balloon": 2.0, "threshold": 0.6}),
    "3d": ("igg3", 6, {"balloon": 1.0}),
    "3d_neg": ("igg3", 2, {"balloon": -0.5, "threshold": 0.4}),
}
CV = {
    "default": ("img2", {}),
    "disk": ("img2", {"init_level_set": "disk", "mu": 0.1, "max_num_iter": 40}),
    "small": ("img2", {"init_level_set": "small disk", "lambda1": 2.0, "dt": 0.3, "tol": 1e-4}),
    "arr": ("img2", {"init_level_set": "init2", "max_num_iter": 25}),
    "f32": ("img2f32", {"max_num_iter": 30}),
    "u8": ("img2u8", {"max_num_iter": 30, "mu": 0.5, "lambda2": 0.7}),
}
AC = {
    "circle": ("snake_img", "snake_init", {"alpha": 0.015, "beta": 10, "gamma": 0.001}),
    "circle_line": ("snake_img", "snake_init", {"w_line": 0.5, "w_edge": 0.5, "max_num_iter": 200}),
    "circle_f32": ("snake_img_f32", "snake_init", {"alpha": 0.015, "beta": 10, "gamma": 0.001, "max_num_iter": 300}),
    "rgb": ("snake_rgb", "rgb_init", {"alpha": 0.02, "beta": 5, "gamma": 0.01, "max_num_iter": 400}),
    "fixed": ("valley", "line_init", {"boundary_condition": "fixed", "alpha": 0.1, "beta": 1.0, "w_line": -5,
                                      "w_edge": 0, "gamma": 0.1}),
    "free": ("valley", "line_init", {"boundary_condition": "free", "alpha": 0.1, "beta": 1.0, "w_line": -5,
                                     "w_edge": 0, "gamma": 0.1, "max_num_iter": 300}),
    "free_fixed": ("valley", "line_init", {"boundary_condition": "free-fixed", "alpha": 0.1, "beta": 1.0,
                                           "w_line": -5, "w_edge": 0, "gamma": 0.1, "max_num_iter": 300}),
    "fixed_free": ("valley", "line_init", {"boundary_condition": "fixed-free", "alpha": 0.1, "beta": 1.0,
                                           "w_line": -5, "w_edge": 0, "gamma": 0.1, "max_num_iter": 300}),
    "escape": ("snake_img", "wide_init", {"max_px_move": 0.5, "max_num_iter": 150}),
}
IGG = {"alpha": 100.0, "sigma": 2.0}


def generate(g):
    rng = g.rng(2121)
    ins = {
        "img2": scene(rng, (64, 72)),
        "img3": scene(rng, (16, 20, 24)),
    }
    ins["img2u8"] = np.clip(ins["img2"] * 200, 0, 255).astype(np.uint8)
    ins["img2f32"] = ins["img2"].astype(np.float32)
    init2 = rng.uniform(-1, 1, (64, 72))
    init2[:, :20] = 0.0
    init2[10:30, 30:60] = 0.25
    ins["init2"] = init2
    for k, a in ins.items():
        g.save(k, a)
    ins["igg2"] = ms.inverse_gaussian_gradient(ins["img2"], **IGG)
    ins["igg3"] = ms.inverse_gaussian_gradient(ins["img3"], **IGG)
    g.save("igg2", ins["igg2"])
    g.save("igg3", ins["igg3"])
    g.save("igg2f32", ms.inverse_gaussian_gradient(ins["img2f32"], **IGG))
    g.save("igg2u8", ms.inverse_gaussian_gradient(ins["img2u8"], alpha=10.0, sigma=1.0))
    for key, (im, n, kw) in ACWE.items():
        kw = dict(kw)
        if kw.get("init_level_set") in ins:
            kw["init_level_set"] = ins[kw["init_level_set"]]
        fresh_cycle()
        g.save(f"acwe_{key}", ms.morphological_chan_vese(ins[im], n, **kw))
    for key, (im, n, kw) in GAC.items():
        fresh_cycle()
        g.save(f"gac_{key}", ms.morphological_geodesic_active_contour(ins[im], n, **kw))
    for key, (im, kw) in CV.items():
        kw = dict(kw)
        if kw.get("init_level_set") in ins:
            kw["init_level_set"] = ins[kw["init_level_set"]]
        seg, phi, en = chan_vese(ins[im], extended_output=True, **kw)
        g.save(f"cv_{key}_seg", seg)
        g.save(f"cv_{key}_phi", phi)
        g.save(f"cv_{key}_energies", np.asarray(en, dtype=np.float64))
    r, c = np.indices((64, 64))
    ins["snake_img"] = gaussian(((r - 30) ** 2 + (c - 33) ** 2 < 18 ** 2).astype(float), sigma=2)
    ins["snake_img_f32"] = ins["snake_img"].astype(np.float32)
    r, c = np.indices((48, 56))
    rgb = np.zeros((48, 56, 3))
    rgb[..., 0] = ((r - 24) ** 2 + (c - 26) ** 2 < 14 ** 2)
    rgb[..., 1] = 0.5 * ((r - 22) ** 2 + (c - 28) ** 2 < 12 ** 2)
    rgb[..., 2] = rng.uniform(0, 0.1, (48, 56))
    ins["snake_rgb"] = gaussian(rgb, sigma=1.5, channel_axis=-1)
    r, c = np.indices((40, 60))
    ins["valley"] = gaussian(1.0 - np.exp(-((r - 20 - 6 * np.sin(c / 9.0)) ** 2) / 8.0), sigma=1)
    t = np.linspace(0, 2 * np.pi, 60)
    ins["snake_init"] = np.stack([30 + 25 * np.sin(t), 33 + 25 * np.cos(t)], axis=1)
    ins["rgb_init"] = np.stack([24 + 20 * np.sin(t[:40]), 26 + 22 * np.cos(t[:40])], axis=1)
    ins["wide_init"] = np.stack([30 + 40 * np.sin(t), 33 + 40 * np.cos(t)], axis=1)  # partly outside the image
    ins["line_init"] = np.stack([np.full(30, 14.0), np.linspace(2, 57, 30)], axis=1)
    for k in ("snake_img", "snake_img_f32", "snake_rgb", "valley", "snake_init", "rgb_init", "wide_init", "line_init"):
        g.save(k, ins[k])
    for key, (im, init, kw) in AC.items():
        g.save(f"ac_{key}", active_contour(ins[im], ins[init], **kw))
    g.save("cb_5x7", ms.checkerboard_level_set((5, 7)))
    g.save("cb_9x11_3", ms.checkerboard_level_set((9, 11), square_size=3))
    g.save("cb_4x5x6_2", ms.checkerboard_level_set((4, 5, 6), square_size=2))
    g.save("disk_20x30", ms.disk_level_set((20, 30)))
    g.save("disk_20x30_c", ms.disk_level_set((20, 30), center=(4, 25), radius=7.5))
    g.save("disk_7x8x9", ms.disk_level_set((7, 8, 9)))
