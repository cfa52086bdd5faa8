"""Golden outputs of skimage.measure for tests/measure/ (loaded as "measure/<name>.npy").

label: every input is saved as label_<case>_in and its labels for connectivity c as
label_<case>_c<c> (background default) and, where the case sets one, label_<case>_bg<b>_c<c>.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage.measure import label


def blobs(rng, shape, frac=0.35, sigma=1.5):
    noise = ndi.gaussian_filter(rng.random(shape), sigma)
    return noise > np.quantile(noise, 1 - frac)


def generate(g):
    rng = g.rng(61)
    cases = {
        # bool blobs (scipy's path in scikit-image, int32 labels)
        "bool2": (blobs(rng, (37, 45)), [None, 1]),
        "bool3": (blobs(rng, (9, 11, 13), sigma=1.0), [None, 1]),
        # multi-valued images: equal neighbours connect (scikit-image's own union-find, int64)
        "u8_2": ((rng.integers(0, 4, (31, 29)) * (blobs(rng, (31, 29)) > 0)).astype(np.uint8), [None, 2, 255]),
        "i32_3": (rng.integers(-1, 3, (7, 9, 10)).astype(np.int32), [None, -1]),
        "u16_1": (rng.integers(0, 3, 200).astype(np.uint16), [None]),
        # floats truncate toward zero before comparing
        "f64_2": (np.round(rng.uniform(-2.5, 2.5, (17, 19)), 1), [None]),
        # a snake: one region that winds across many tiles of the CUDA kernel
        "snake": (np.zeros((70, 70), bool), [None]),
    }
    snake = cases["snake"][0]
    for r in range(0, 70, 4):
        snake[r, 1:69] = True
        snake[r:r + 4, 68 if (r // 4) % 2 == 0 else 1] = True
    snake[68:, :] = False
    for name, (img, backgrounds) in cases.items():
        g.save(f"label_{name}_in", img)
        for c in range(1, img.ndim + 1):
            for b in backgrounds:
                suffix = f"_c{c}" if b is None else f"_bg{b}_c{c}"
                g.save(f"label_{name}{suffix}", label(img, background=b, connectivity=c))
