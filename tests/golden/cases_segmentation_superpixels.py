"""Golden outputs of skimage.segmentation's superpixel methods for
tests/segmentation/test_{slic,felzenszwalb,quickshift}.cpp (loaded as "segmentation_superpixels/<name>.npy").

slic: inputs in_<img>.npy (smooth seeded random fields, astronaut crops, a 3-D volume), masks
mask_<img>.npy, outputs slic_<case>.npy for the parameter sets in SLIC_CASES (the C++ test holds
the same table). felzenszwalb: fz_<case>.npy for FZ_CASES (the float images have no ties
among the edge weights; the uint8 astronaut does). quickshift: qs_<case>.npy for QS_CASES (seeded) and
qs_tree_parent / qs_tree_dist of return_tree=True.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage.segmentation import felzenszwalb, quickshift, slic

# name: (image key, keyword arguments); channel_axis is None unless given.
SLIC_CASES = {
    "grey": ("g2", dict(n_segments=30, compactness=0.1, channel_axis=None)),
    "grey_sigma": ("g2", dict(n_segments=40, compactness=0.2, sigma=1.5, channel_axis=None)),
    "grey_f32": ("g2f", dict(n_segments=25, compactness=0.1, channel_axis=None)),
    "grey_spacing": ("g2", dict(n_segments=30, compactness=0.1, spacing=[1.0, 2.0], channel_axis=None)),
    "grey_zero": ("g2", dict(n_segments=30, compactness=0.1, slic_zero=True, channel_axis=None)),
    "grey_nocon": ("g2", dict(n_segments=30, compactness=0.1, enforce_connectivity=False, start_label=0,
                              channel_axis=None)),
    "grey_factors": ("g2", dict(n_segments=50, compactness=0.05, min_size_factor=0.8, max_size_factor=1.5,
                                channel_axis=None)),
    "rgb_nolab": ("rgb", dict(n_segments=40, compactness=10, convert2lab=False)),
    "rgb_lab": ("rgb", dict(n_segments=40, compactness=10)),
    "rgb_lab_sigma": ("rgb", dict(n_segments=60, compactness=20, sigma=1.0, max_num_iter=5)),
    "two_channel_first": ("c2", dict(n_segments=20, compactness=0.5, channel_axis=0)),
    "vol": ("g3", dict(n_segments=40, compactness=0.1, channel_axis=None)),
    "vol_spacing_sigma": ("g3", dict(n_segments=30, compactness=0.2, spacing=[2.0, 1.0, 1.0], sigma=[0.5, 1.0, 1.0],
                                     channel_axis=None)),
    "vol_rgb": ("v3c", dict(n_segments=25, compactness=5, convert2lab=False)),
    "grey_mask": ("g2", dict(n_segments=20, compactness=0.1, mask="disc", channel_axis=None)),
    "rgb_mask": ("rgb", dict(n_segments=30, compactness=10, mask="disc", convert2lab=False)),
    "rgb_mask_start0": ("rgb", dict(n_segments=30, compactness=10, mask="disc", start_label=0, convert2lab=False)),
    "iter0": ("g2", dict(n_segments=30, max_num_iter=0, channel_axis=None)),
}

FZ_CASES = {
    "fz_grey": ("g2", dict(scale=1, sigma=0.8, min_size=20)),
    "fz_grey_scale": ("g2", dict(scale=50, sigma=0.5, min_size=5)),
    "fz_grey_nosmooth": ("g2", dict(scale=10, sigma=0, min_size=1)),
    "fz_rgb_float": ("frgb", dict(scale=100, sigma=1.0, min_size=10)),
    "fz_rgb_float_big": ("frgb", dict(scale=400, sigma=0.8, min_size=50)),
    "fz_astro": ("rgb", dict(scale=100, sigma=0.5, min_size=15)),
    "fz_astro_default": ("rgb", dict()),
    "fz_two_channel_first": ("c2", dict(scale=30, sigma=0.7, min_size=8, channel_axis=0)),
}

QS_CASES = {
    "qs_astro": ("rgb", dict()),
    "qs_astro_small": ("rgb", dict(ratio=0.5, kernel_size=3, max_dist=6, sigma=1.0, rng=7)),
    "qs_rgb_float_nolab": ("frgb", dict(ratio=1.0, kernel_size=2, max_dist=0.5, convert2lab=False, rng=3)),
    "qs_rgb_f32": ("frgb32", dict(kernel_size=2.5, max_dist=20, rng=11)),
    "qs_grey": ("g2", dict(kernel_size=2, max_dist=3, convert2lab=False, rng=0)),
    "qs_two_channel_first": ("c2", dict(kernel_size=2, max_dist=4, convert2lab=False, channel_axis=0)),
}


def smooth(rng, shape, s):
    return ndi.gaussian_filter(rng.random(shape), s)


def generate(g):
    rng = g.rng(2107)
    a = g.astronaut()
    imgs = {
        "g2": smooth(rng, (64, 72), 3),
        "g2f": smooth(rng, (60, 64), 2).astype(np.float32),
        "rgb": a,
        "c2": np.stack([smooth(rng, (48, 56), 3), smooth(rng, (48, 56), 2)]),
        "g3": smooth(rng, (14, 24, 28), 2),
        "frgb": smooth(rng, (50, 60, 3), 1.5),
        "frgb32": smooth(rng, (40, 44, 3), 1.0).astype(np.float32),
        "v3c": (smooth(rng, (10, 20, 24, 3), 2) * 255).astype(np.uint8),
    }
    yy, xx = np.mgrid[:64, :72]
    masks = {"g2": (yy - 30) ** 2 + (xx - 36) ** 2 < 26 ** 2, "rgb": (yy[:, :64] - 32) ** 2 + (xx[:, :64] - 30) ** 2 < 27 ** 2}
    for k, v in imgs.items():
        g.save(f"in_{k}", v)
    for k, v in masks.items():
        g.save(f"mask_{k}", v)
    for name, (key, kw) in SLIC_CASES.items():
        kw = dict(kw)
        if kw.get("mask") == "disc":
            kw["mask"] = masks[key]
        g.save(f"slic_{name}", slic(imgs[key], **kw).astype(np.int32))
    for name, (key, kw) in FZ_CASES.items():
        g.save(name, felzenszwalb(imgs[key], **kw).astype(np.int32))
    for name, (key, kw) in QS_CASES.items():
        g.save(name, quickshift(imgs[key], **kw).astype(np.int32))
    lab, parent, dist = quickshift(imgs["rgb"], ratio=0.5, kernel_size=3, max_dist=6, sigma=1.0, rng=7,
                                   return_tree=True)
    g.save("qs_tree_parent", np.asarray(parent).astype(np.int32))
    g.save("qs_tree_dist", np.asarray(dist))
