"""Golden outputs of skimage.feature.multiscale_basic_features for tests/feature/test_basic_features.cpp
(loaded as "feature_basic_features/<name>.npy").

Images img_<i>: 0 a 40x36 uint8 texture, 1 a 30x34 float64 field, 2 a 24x22x3 uint8 RGB image,
3 the same with channels first, 4 a 14x16x18 float64 volume. Case c has parameters p_<c> (float64:
image, intensity, edges, texture, sigma_min, sigma_max, num_sigma (0 = None), channel_axis
(NaN = None)) and output out_<c>. ncases.npy holds the count.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage.feature import multiscale_basic_features

NAN = np.nan


def generate(g):
    rng = g.rng(2426)
    u8 = (ndi.gaussian_filter(rng.uniform(0, 255, (40, 36)), 1.0) * 1.5).clip(0, 255).astype(np.uint8)
    f64 = ndi.gaussian_filter(rng.normal(size=(30, 34)), 2.0)
    rgb = ndi.gaussian_filter(rng.uniform(0, 255, (24, 22, 3)), (1.5, 1.5, 0)).astype(np.uint8)
    vol = ndi.gaussian_filter(rng.normal(size=(14, 16, 18)), 1.5)
    imgs = [u8, f64, rgb, np.ascontiguousarray(np.moveaxis(rgb, -1, 0)), vol]
    for i, a in enumerate(imgs):
        g.save(f"img_{i}", a)
    cases = [
        (0, 1, 1, 1, 0.5, 16, 0, NAN),
        (0, 1, 0, 1, 1, 8, 3, NAN),
        (0, 0, 1, 0, 0.7, 5, 0, NAN),
        (1, 1, 1, 1, 0.5, 4, 0, NAN),
        (1, 0, 0, 1, 2, 2, 1, NAN),
        (2, 1, 1, 1, 1, 4, 0, -1),
        (3, 1, 1, 0, 1, 4, 2, 0),
        (4, 1, 1, 1, 1, 4, 0, NAN),
    ]
    for n, (img, it, ed, tx, lo, hi, num, ca) in enumerate(cases):
        out = multiscale_basic_features(imgs[img], intensity=bool(it), edges=bool(ed), texture=bool(tx),
                                        sigma_min=lo, sigma_max=hi, num_sigma=None if num == 0 else num,
                                        channel_axis=None if np.isnan(ca) else int(ca))
        g.save(f"p_{n}", np.array([img, it, ed, tx, lo, hi, num, ca], np.float64))
        g.save(f"out_{n}", out)
    g.save("ncases", np.array([len(cases)], np.int64))
