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
from skimage.feature import daisy, draw_haar_like_feature, haar_like_feature, haar_like_feature_coord, hog, match_template
from skimage.transform import integral_image

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


TYPES = ["type-2-x", "type-2-y", "type-3-x", "type-3-y", "type-4"]


def packed(coords, types):
    """(n, 4, 2, 2) int64 rectangles padded with -1, and the type indices."""
    out = np.full((len(coords), 4, 2, 2), -1, np.int64)
    for i, f in enumerate(coords):
        for k, rect in enumerate(f):
            out[i, k] = np.array(rect)
    return out, np.array([TYPES.index(t) for t in types], np.int64)


def haar_cases(g):
    """haar_c_<k>: coords of haar_like_feature_coord cases (width, height, types) in haar_cp_<k>
    (first two entries width, height, then type indices); haar_f_<k>: features, haar_fp_<k>
    parameters (integral image, r, c, width, height, coord case or -1, then type indices);
    haar_d_<k>: drawings (haar_dp_<k>: image, r, c, coord case, max_n_features or -1, seed, alpha)."""
    rng = g.rng(2224)
    coord_cases = [(5, 4, []), (4, 6, [4, 0]), (3, 3, [3]), (12, 12, [])]
    for k, (w, h, t) in enumerate(coord_cases):
        c, ty = haar_like_feature_coord(w, h, [TYPES[i] for i in t] or None)
        if k < 3:
            pc, pt = packed(c, ty)
            g.save(f"haar_c_{k}", pc)
            g.save(f"haar_ct_{k}", pt)
        g.save(f"haar_cp_{k}", np.array([w, h] + t, np.int64))
    u8 = data.camera()[300:316, 200:220].copy()
    iis = [integral_image(u8), integral_image(rng.uniform(-1, 1, (10, 12))),
           integral_image(rng.uniform(0, 1, (9, 9)).astype(np.float32)), integral_image(u8.astype(np.int32))]
    for i, a in enumerate(iis):
        g.save(f"haar_ii_{i}", a)
    feat_cases = [(0, 2, 3, 5, 6, -1, []), (1, 0, 0, 6, 5, -1, [4, 1]), (2, 1, 2, 7, 7, -1, [2, 3]),
                  (3, 0, 0, 4, 4, -1, []), (1, 3, 1, 5, 4, 0, [])]
    for k, (i, r, c, w, h, cc, t) in enumerate(feat_cases):
        if cc < 0:
            out = haar_like_feature(iis[i], r, c, w, h, [TYPES[j] for j in t] or None)
        else:
            coords, types = haar_like_feature_coord(5, 4)
            perm = rng.permutation(len(coords))[:40]
            g.save(f"haar_perm_{k}", perm.astype(np.int64))
            out = haar_like_feature(iis[i], r, c, w, h, feature_type=types[perm], feature_coord=coords[perm])
        g.save(f"haar_f_{k}", out)
        g.save(f"haar_fp_{k}", np.array([i, r, c, w, h, cc] + t, np.int64))
    grey = data.camera()[100:124, 100:124].copy()
    rgb32 = rng.uniform(0, 1, (20, 20, 3)).astype(np.float32)
    g.save("haar_dimg_0", grey)
    g.save("haar_dimg_1", rgb32)
    draw_cases = [(0, 2, 3, 0, 5, 0, 0.5), (0, 0, 0, 1, -1, 0, 0.3), (1, 1, 1, 2, 4, 7, 0.5), (0, 4, 2, 3, 300, 3, 0.6)]
    for k, (i, r, c, cc, mx, seed, alpha) in enumerate(draw_cases):
        w, h, t = coord_cases[cc]
        coords, _ = haar_like_feature_coord(w, h, [TYPES[j] for j in t] or None)
        img = grey if i == 0 else rgb32
        out = draw_haar_like_feature(img, r, c, w, h, coords, alpha=alpha, max_n_features=None if mx < 0 else mx,
                                     rng=seed)
        g.save(f"haar_d_{k}", out)
        g.save(f"haar_dp_{k}", np.array([i, r, c, cc, mx, seed, alpha], np.float64))


DNORMS = ["l1", "l2", "daisy", "off"]


def daisy_cases(g):
    """daisy: images daisy_img_<i>; case c: daisy_p_<c> (image, step, radius, rings, histograms,
    orientations, normalization index, visualize, sigmas case, ring_radii case; cases -1 = None),
    daisy_out_<c> and, with visualize, daisy_vis_<c>."""
    rng = g.rng(2225)
    cam = data.camera()[150:198, 250:298].copy()
    f32 = ndi.gaussian_filter(rng.uniform(0, 1, (40, 44)), 1.0).astype(np.float32)
    f64 = rng.uniform(0, 1, (36, 30))
    imgs = [cam, f32, f64]
    sig = [[1.0, 2.0, 3.0], [0.8, 1.5, 2.2, 3.1]]
    rad = [[3, 6], [2, 4, 7]]
    cases = [(0, 5, 8, 2, 6, 5, 0, 0, -1, -1), (0, 4, 10, 3, 8, 8, 1, 1, -1, -1), (1, 3, 6, 2, 6, 6, 2, 1, 0, 0),
             (1, 6, 7, 3, 4, 4, 3, 0, 1, 1), (2, 4, 6, 2, 5, 7, 0, 1, -1, 0), (2, 2, 5, 2, 4, 4, 1, 0, 0, -1)]
    for i, a in enumerate(imgs):
        g.save(f"daisy_img_{i}", a)
    for c, (i, step, radius, rings, hist, ori, norm, vis, sc, rc) in enumerate(cases):
        res = daisy(imgs[i], step=step, radius=radius, rings=rings, histograms=hist, orientations=ori,
                    normalization=DNORMS[norm], sigmas=None if sc < 0 else sig[sc],
                    ring_radii=None if rc < 0 else rad[rc], visualize=bool(vis))
        g.save(f"daisy_p_{c}", np.array([i, step, radius, rings, hist, ori, norm, vis, sc, rc], np.int64))
        if vis:
            g.save(f"daisy_out_{c}", res[0])
            g.save(f"daisy_vis_{c}", res[1])
        else:
            g.save(f"daisy_out_{c}", res)
    g.save("daisy_ncases", np.array([len(cases)], np.int64))


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
    haar_cases(g)
    daisy_cases(g)
