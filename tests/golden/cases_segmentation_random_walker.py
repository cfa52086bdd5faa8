"""Golden outputs of scikit-image 0.26's random_walker for tests/segmentation/test_random_walker.cpp
(loaded as "segmentation_random_walker/<name>.npy").

Inputs: img2 (40 x 44 float64: a bright disc and a bar over noise), img2u8 (img2 as uint8), img3
(10 x 12 x 14 float64), rgb2 (36 x 40 x 3 float64); seed images lab2 (labels 1, 2), lab2n (labels
2, 5, 9 and an inactive -1 band that walls off a pocket of unlabelled pixels), lab3 (1, 2),
labrgb (1, 2, 3), labiso (an inactive wall, and a seed region with no unlabelled pixel beside it),
laball (every unlabelled pixel cut off from the seeds). Outputs, for each case key in CASES:
  rw_<key>       random_walker(...) labels
  rw_all         random_walker(img2, laball): scikit-image returns the labels, -1 on the cut-off pixels
  rwp_<key>      random_walker(..., return_full_prob=True) probabilities (float64)
"""
import warnings

import numpy as np
from skimage.segmentation import random_walker


def scene2(rng, shape):
    yy, xx = np.indices(shape).astype(float)
    img = 0.15 * rng.random(shape)
    img[(yy - 14) ** 2 + (xx - 15) ** 2 < 64] += 0.8
    img[26:31, 8:38] += 0.5
    return img


def inputs(rng):
    img2 = scene2(rng, (40, 44))
    lab2 = np.zeros(img2.shape, np.int32)
    lab2[14, 15] = 1
    lab2[2:4, 2:6] = 2
    lab2[36, 40] = 2
    lab2n = np.zeros(img2.shape, np.int32)
    lab2n[14, 15] = 5
    lab2n[28, 20] = 9
    lab2n[1, 1] = 2
    lab2n[:, 33] = -1          # inactive column: the right part is reached only around its gap
    lab2n[20:22, 33] = 0
    lab2n[0:5, 38] = -1         # a walled-off pocket of unlabelled pixels at the top right
    lab2n[5, 38:] = -1
    labiso = np.zeros(img2.shape, np.int8)  # a wall (-1), a seed region with no unlabelled pixel
    labiso[:, 22] = -1
    labiso[0:3, 23:26] = 3
    labiso[3, 23:26] = -1
    labiso[0:3, 26] = -1
    labiso[14, 15] = 1
    labiso[30, 35] = 2
    laball = np.zeros(img2.shape, np.int8)  # every unlabelled pixel cut off from the seeds
    laball[:, :20] = 1
    laball[:, 20] = -1
    img3 = 0.1 * rng.random((10, 12, 14))
    zz, yy, xx = np.indices(img3.shape)
    img3[(zz - 5) ** 2 + (yy - 6) ** 2 + (xx - 7) ** 2 < 12] += 1.0
    lab3 = np.zeros(img3.shape, np.int16)
    lab3[5, 6, 7] = 1
    lab3[0, 0, 0] = 2
    lab3[9, 11, 13] = 2
    rgb2 = np.stack([scene2(rng, (36, 40)), 0.2 * rng.random((36, 40)), scene2(rng, (36, 40))[::-1]], axis=-1)
    labrgb = np.zeros((36, 40), np.int64)
    labrgb[14, 15] = 1
    labrgb[0, 0] = 2
    labrgb[21, 15] = 3
    return {"img2": img2, "img2u8": (img2 / img2.max() * 255).astype(np.uint8), "img3": img3, "rgb2": rgb2,
            "lab2": lab2, "lab2n": lab2n, "labiso": labiso, "laball": laball, "lab3": lab3, "labrgb": labrgb}


# key: (image, labels, keyword arguments)
CASES = {
    "default": ("img2", "lab2", {}),
    "cg": ("img2", "lab2", {"mode": "cg", "beta": 90}),
    "mg": ("img2", "lab2", {"mode": "cg_mg"}),
    "tol": ("img2", "lab2", {"tol": 1e-6, "beta": 300}),
    "spacing": ("img2", "lab2", {"spacing": (1.0, 2.5)}),
    "u8": ("img2u8", "lab2", {}),
    "neg": ("img2", "lab2n", {}),
    "neg_cg": ("img2", "lab2n", {"mode": "cg", "tol": 1e-5}),
    "iso": ("img2", "labiso", {}),
    "vol": ("img3", "lab3", {}),
    "vol_sp": ("img3", "lab3", {"spacing": (2.0, 1.0, 0.5), "beta": 50}),
    "rgb": ("rgb2", "labrgb", {"channel_axis": -1}),
    "rgb0": ("rgb2", "labrgb", {"channel_axis": 0}),
}


def generate(g):
    ins = inputs(g.rng(2106))
    for k, a in ins.items():
        g.save(k, a)
    g.save("rgb2c0", np.ascontiguousarray(np.moveaxis(ins["rgb2"], -1, 0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.save("rw_all", random_walker(ins["img2"], ins["laball"]))
    for key, (im, lab, kw) in CASES.items():
        data = ins[im]
        if key == "rgb0":
            data = np.moveaxis(data, -1, 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g.save(f"rw_{key}", random_walker(data, ins[lab], **kw))
            g.save(f"rwp_{key}", random_walker(data, ins[lab], return_full_prob=True, **kw))
