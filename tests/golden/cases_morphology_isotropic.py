"""Golden outputs of skimage.morphology's isotropic operators and medial_axis for
tests/morphology/test_isotropic.cpp and test_medial_axis.cpp (loaded as
"morphology_isotropic/<name>.npy").

  iso_<input>.npy    shape (4 ops, len(RADII), len(SPACINGS[ndim]), *image.shape), bool; ops in OPS order
  ma_<input>_rng<seed>.npy       medial_axis(image, rng=seed) (bool)
  ma_<input>_mask_rng<seed>.npy  medial_axis(image, mask, rng=seed)
  madist_<input>.npy             its return_distance output (float64)
"""
import numpy as np
import scipy.ndimage as ndi
import skimage.morphology as sm
from skimage import data

OPS = ["isotropic_erosion", "isotropic_dilation", "isotropic_opening", "isotropic_closing"]
RADII = [0.5, 1.0, 2.5, 4.0]
SPACINGS = {2: [None, (1.0, 2.0), (0.7, 1.3)], 3: [None, (2.0, 1.0, 0.5)]}
MA_SEEDS = [0, 7]


def blobs(rng, shape, frac=0.5):
    noise = ndi.uniform_filter(rng.random(shape), 5, mode="wrap")
    return noise > np.quantile(noise, 1 - frac)


def generate(g):
    rng = g.rng(99)
    b2 = blobs(rng, (40, 50))
    u8 = (blobs(rng, (21, 27), 0.6) * rng.integers(1, 4, (21, 27))).astype(np.uint8)
    b3 = blobs(rng, (10, 12, 14))
    for name, img in (("b2", b2), ("u8", u8), ("b3", b3)):
        g.save(f"in_{name}", img)
        g.save(f"iso_{name}", np.asarray([[[getattr(sm, op)(img, r, spacing=sp) for sp in SPACINGS[img.ndim]]
                                           for r in RADII] for op in OPS]))

    horse = ~data.horse()[::4, ::4]
    mask = np.ones(horse.shape, bool)
    mask[30:50, 20:70] = False
    for name, img in (("horse", horse), ("b2", b2)):
        g.save(f"main_{name}", img)
        for seed in MA_SEEDS:
            g.save(f"ma_{name}_rng{seed}", sm.medial_axis(img, rng=seed))
        sk, dist = sm.medial_axis(img, mask=mask if name == "horse" else None, return_distance=True, rng=3)
        g.save(f"ma_{name}_mask_rng3", sk)
        g.save(f"madist_{name}", dist)
    g.save("mamask_horse", mask)
