"""Golden outputs of skimage.feature's hog, daisy, haar_like_feature(_coord), draw_haar_like_feature
and match_template for tests/feature/test_{template,hog,haar,daisy}.cpp (loaded as
"feature_hog/<name>.npy").

match_template: images mt_img_<i>.npy, templates mt_tpl_<j>.npy; case c has parameters
mt_p_<c>.npy (float64: image, template, pad_input, mode index in MODES, constant_values) and
output mt_out_<c>.npy; mt_ncases.npy holds the count.

hog: images hog_img_<i>.npy; case c has parameters hog_p_<c>.npy (float64: image, orientations,
pixels_per_cell (2), cells_per_block (2), block_norm index in NORMS, visualize, transform_sqrt,
feature_vector, channel_axis (NaN: None)), features hog_out_<c>.npy and, with visualize, the
image hog_vis_<c>.npy; hog_ncases.npy holds the count.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage import data
from skimage.feature import hog, match_template

MODES = ["constant", "edge", "symmetric", "reflect", "wrap"]


def match_template_cases(g):
    rng = g.rng(2222)
    f64 = ndi.gaussian_filter(rng.normal(size=(64, 64)), 1.5)
    f32 = ndi.gaussian_filter(rng.normal(size=(48, 40)), 1.0).astype(np.float32)
    u8 = data.coins()[100:164, 40:104].copy()
    vol = ndi.gaussian_filter(rng.normal(size=(16, 18, 20)), 1.2)
    doc = np.zeros((6, 6))
    doc[1, 1], doc[4, 4] = 1, -1
    imgs = [f64, f32, u8, vol, doc]
    tdoc = np.zeros((3, 3))
    tdoc[1, 1] = 1
    tpls = [f64[20:29, 30:37] + 0.05 * rng.normal(size=(9, 7)), f32[10:18, 5:13].copy(), u8[20:32, 30:40].copy(),
            vol[4:9, 6:10, 3:9].copy(), tdoc, f64[:10, :10].copy(), f64.copy()]
    cases = [(0, 0, 0, 0, 0.0), (0, 0, 1, 0, 0.0), (0, 0, 1, 0, 0.5), (0, 0, 1, 1, 0), (0, 0, 1, 2, 0),
             (0, 0, 1, 3, 0), (0, 0, 1, 4, 0), (0, 5, 1, 3, 0), (0, 6, 0, 0, 0), (0, 6, 1, 2, 0),
             (1, 1, 0, 0, 0), (1, 1, 1, 1, 0), (2, 2, 0, 0, 0), (2, 2, 1, 0, 7.0), (3, 3, 0, 0, 0),
             (3, 3, 1, 3, 0), (4, 4, 0, 0, 0), (4, 4, 1, 0, 0)]
    for i, a in enumerate(imgs):
        g.save(f"mt_img_{i}", a)
    for j, t in enumerate(tpls):
        g.save(f"mt_tpl_{j}", t)
    for c, (i, j, pad, mode, cval) in enumerate(cases):
        kw = dict(pad_input=bool(pad), mode=MODES[mode])
        if MODES[mode] == "constant":
            kw["constant_values"] = cval
        out = match_template(imgs[i], tpls[j], **kw)
        g.save(f"mt_p_{c}", np.array([i, j, pad, mode, cval], np.float64))
        g.save(f"mt_out_{c}", out)
    g.save("mt_ncases", np.array([len(cases)], np.int64))


NORMS = ["L1", "L1-sqrt", "L2", "L2-Hys"]


def hog_cases(g):
    rng = g.rng(2223)
    cam = data.camera()[200:264, 180:244].copy()
    f64 = ndi.gaussian_filter(rng.normal(size=(70, 66)), 1.0)
    f32 = rng.uniform(0, 4, (40, 48)).astype(np.float32)
    rgb = data.astronaut()[100:164, 180:244].copy()
    chw = np.ascontiguousarray(np.moveaxis(rgb, -1, 0))
    small = rng.normal(size=(12, 13))
    imgs = [cam, f64, f32, rgb, chw, small]
    nan = np.nan
    cases = [(0, 9, 8, 8, 3, 3, 3, 1, 0, 1, nan), (0, 9, 8, 8, 3, 3, 3, 0, 1, 0, nan),
             (1, 7, 6, 5, 2, 3, 0, 1, 0, 0, nan), (1, 7, 6, 5, 2, 3, 1, 0, 0, 1, nan),
             (1, 12, 7, 7, 1, 2, 2, 1, 0, 1, nan), (1, 4, 16, 16, 2, 2, 3, 1, 0, 1, nan),
             (2, 9, 4, 4, 2, 2, 1, 1, 1, 1, nan), (2, 5, 3, 3, 3, 3, 3, 1, 0, 0, nan),
             (3, 9, 8, 8, 2, 2, 3, 1, 0, 1, -1), (4, 8, 6, 6, 3, 3, 2, 1, 1, 1, 0),
             (5, 6, 1, 1, 2, 2, 3, 1, 0, 1, nan), (5, 6, 2, 2, 1, 1, 0, 1, 0, 1, nan)]
    for i, a in enumerate(imgs):
        g.save(f"hog_img_{i}", a)
    for c, (i, n, cr, cc, br, bc, norm, vis, sq, fv, ax) in enumerate(cases):
        res = hog(imgs[i], orientations=n, pixels_per_cell=(cr, cc), cells_per_block=(br, bc),
                  block_norm=NORMS[norm], visualize=bool(vis), transform_sqrt=bool(sq), feature_vector=bool(fv),
                  channel_axis=None if np.isnan(ax) else int(ax))
        g.save(f"hog_p_{c}", np.array([i, n, cr, cc, br, bc, norm, vis, sq, fv, ax], np.float64))
        if vis:
            g.save(f"hog_out_{c}", res[0])
            g.save(f"hog_vis_{c}", res[1])
        else:
            g.save(f"hog_out_{c}", res)
    g.save("hog_ncases", np.array([len(cases)], np.int64))


def generate(g):
    match_template_cases(g)
    hog_cases(g)
