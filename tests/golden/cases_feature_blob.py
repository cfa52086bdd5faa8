"""Golden outputs of skimage.feature.blob_log and blob_dog for tests/feature/test_blob.cpp (loaded as
"feature_blob/<name>.npy").

Images img_<i>: 0 a 2-D float64 field of Gaussian blobs of several sizes (some overlapping) with
noise, 1 its uint8 version, 2 a 3-D float64 volume of Gaussian balls, 3 a 2-D float64 field of
elongated (anisotropic) blobs, 4 the float32 version of 0, 5 smoothed noise (many
blobs, long pruning chains). Case c has parameters p_<c> (float64:
function (0 log, 1 dog), image, count of min_sigma values, the values, count of max_sigma values,
the values, num_sigma (log) or sigma_ratio (dog), threshold (NaN = None), overlap, log_scale,
threshold_rel (NaN = None), count of exclude_border widths (0 = False), the widths) and the blobs
out_<c>. ncases.npy holds the count.
"""
import numpy as np
from skimage.feature import blob_dog, blob_log

NAN = np.nan


def blobs2d(rng, shape, specs, noise):
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    img = np.zeros(shape)
    for cy, cx, sy, sx, a in specs:
        img += a * np.exp(-((yy - cy) ** 2) / (2 * sy * sy) - ((xx - cx) ** 2) / (2 * sx * sx))
    return img + noise * rng.normal(size=shape)


def images(rng):
    specs = [(12, 12, 2, 2, 1.0), (14, 20, 3, 3, 0.8), (40, 15, 5, 5, 1.0), (45, 22, 2.5, 2.5, 0.9),
             (30, 45, 7, 7, 1.0), (52, 52, 1.5, 1.5, 1.0), (20, 50, 4, 4, 0.7), (8, 40, 1.2, 1.2, 0.9),
             (36, 36, 3, 3, 0.6), (58, 8, 2, 2, 1.0)]
    img0 = blobs2d(rng, (64, 64), specs, 0.02)
    img1 = (np.clip(img0, 0, 1) * 255).astype(np.uint8)
    zz, yy, xx = np.mgrid[:24, :26, :28]
    vol = np.zeros((24, 26, 28))
    for cz, cy, cx, s, a in [(6, 6, 7, 2, 1.0), (15, 15, 18, 3, 1.0), (8, 18, 8, 1.5, 0.8), (18, 6, 22, 2.5, 0.9),
                             (12, 10, 12, 2, 0.7)]:
        vol += a * np.exp(-((zz - cz) ** 2 + (yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
    vol += 0.01 * rng.normal(size=vol.shape)
    aniso = blobs2d(rng, (48, 56), [(12, 14, 2, 5, 1.0), (30, 30, 4, 2, 1.0), (36, 10, 3, 6, 0.8),
                                    (20, 44, 2, 2, 0.9)], 0.01)
    import scipy.ndimage as ndi
    noise = ndi.gaussian_filter(rng.normal(size=(64, 64)), 1.5)  # many blobs: long pruning chains
    return [img0, img1, vol, aniso, img0.astype(np.float32), noise]


def cases():
    # fn, img, min_sigma, max_sigma, num_sigma / ratio, threshold, overlap, log_scale, threshold_rel, eb
    return [
        (0, 0, [1], [10], 5, 0.1, 0.5, 0, NAN, []),
        (0, 0, [1], [8], 10, 0.05, 0.5, 0, NAN, []),
        (0, 0, [1], [8], 10, 0.05, 0.1, 0, NAN, []),
        (0, 0, [1], [8], 10, 0.05, 1.0, 0, NAN, []),
        (0, 0, [1.5], [12], 6, 0.05, 0.5, 1, NAN, []),
        (0, 0, [1], [10], 5, NAN, 0.5, 0, 0.3, []),
        (0, 0, [1], [10], 5, 0.02, 0.5, 0, NAN, [6]),
        (0, 0, [1], [10], 1, 0.05, 0.5, 0, NAN, []),
        (0, 1, [2], [9], 8, 0.1, 0.5, 0, NAN, [2, 5]),
        (0, 2, [1], [4], 4, 0.05, 0.5, 0, NAN, []),
        (0, 2, [1], [4], 4, 0.05, 0.2, 0, NAN, [2]),
        (0, 3, [1, 1], [6, 6], 6, 0.05, 0.5, 0, NAN, []),
        (0, 3, [1, 2], [5, 8], 6, 0.05, 0.5, 0, NAN, []),
        (0, 4, [1], [10], 5, 0.1, 0.5, 0, NAN, []),
        (1, 0, [1], [10], 1.6, 0.05, 0.5, 0, NAN, []),
        (1, 0, [1], [12], 1.3, 0.03, 0.3, 0, NAN, []),
        (1, 0, [1], [10], 1.6, NAN, 0.5, 0, 0.2, [4]),
        (1, 1, [1], [8], 1.6, 0.1, 0.5, 0, NAN, []),
        (1, 2, [1], [5], 1.6, 0.03, 0.5, 0, NAN, []),
        (1, 3, [1, 1], [5, 8], 1.6, 0.03, 0.5, 0, NAN, []),
        (1, 4, [1], [10], 1.6, 0.05, 0.5, 0, NAN, []),
        (0, 5, [1], [6], 6, 0.02, 0.5, 0, NAN, []),
        (0, 5, [1], [6], 6, 0.02, 0.2, 0, NAN, []),
        (1, 5, [1], [6], 1.4, 0.01, 0.5, 0, NAN, []),
    ]


def generate(g):
    rng = g.rng(2326)
    imgs = images(rng)
    for i, a in enumerate(imgs):
        g.save(f"img_{i}", a)
    all_cases = cases()
    for n, (fn, img, lo, hi, num, thr, ov, logs, trel, eb) in enumerate(all_cases):
        kw = dict(threshold=None if np.isnan(thr) else thr, overlap=ov,
                  threshold_rel=None if np.isnan(trel) else trel,
                  exclude_border=False if not eb else (eb[0] if len(eb) == 1 else tuple(eb)))
        mn = lo[0] if len(lo) == 1 else lo
        mx = hi[0] if len(hi) == 1 else hi
        if fn == 0:
            out = blob_log(imgs[img], min_sigma=mn, max_sigma=mx, num_sigma=num, log_scale=bool(logs), **kw)
        else:
            out = blob_dog(imgs[img], min_sigma=mn, max_sigma=mx, sigma_ratio=num, **kw)
        g.save(f"p_{n}", np.array([fn, img, len(lo), *lo, len(hi), *hi, num, thr, ov, logs, trel, len(eb), *eb],
                                  np.float64))
        g.save(f"out_{n}", out)
    g.save("ncases", np.array([len(all_cases)], np.int64))
    generate_doh(g, imgs)


def generate_doh(g, imgs):
    """blob_doh goldens: doh_p_<c> (image, min_sigma, max_sigma, num_sigma, threshold (NaN = None),
    overlap, log_scale, threshold_rel (NaN = None)) and doh_out_<c>; dohn.npy holds the count."""
    from skimage.feature import blob_doh
    cases = [(0, 1, 10, 5, 0.001, 0.5, 0, NAN), (0, 1, 8, 8, 0.0005, 0.3, 1, NAN), (1, 2, 12, 6, 0.002, 0.5, 0, NAN),
             (4, 1, 10, 5, 0.001, 0.5, 0, NAN), (5, 1, 6, 6, NAN, 0.5, 0, 0.05)]
    for n, (img, lo, hi, num, thr, ov, logs, trel) in enumerate(cases):
        out = blob_doh(imgs[img], min_sigma=lo, max_sigma=hi, num_sigma=num, threshold=None if np.isnan(thr) else thr,
                       overlap=ov, log_scale=bool(logs), threshold_rel=None if np.isnan(trel) else trel)
        g.save(f"doh_p_{n}", np.array([img, lo, hi, num, thr, ov, logs, trel], np.float64))
        g.save(f"doh_out_{n}", out)
    g.save("dohn", np.array([len(cases)], np.int64))
