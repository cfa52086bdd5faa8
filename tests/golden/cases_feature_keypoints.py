"""Golden outputs of skimage.feature's BRIEF, match_descriptors, plot_matched_features' default
colours and SIFT for tests/feature/test_{brief,match,sift}.cpp (loaded as
"feature_keypoints/<name>.npy").

cam.npy: a 128x128 uint8 crop of camera. BRIEF case c: brief_p_<c>.npy (float64: descriptor_size,
patch_size, mode (0 normal, 1 uniform), sigma, seed, image (0 camera uint8, 1 camera float32)),
brief_kp_<c>.npy keypoints, brief_desc_<c>.npy and brief_mask_<c>.npy. match case c:
match_p_<c>.npy (metric index in MatchMetric's order, -1 none; p; max_distance; cross_check;
max_ratio; set (0 bool, 1 float)), match_out_<c>.npy. Descriptor sets: match_b1/b2 (bool),
match_f1/f2 (float64). SIFT case c (SIFT_CASES[c] on cam[:96, :112]): its attributes. ORB and CENSURE cases: see orb_cases, censure_cases.
"""
import numpy as np
import skimage
from skimage.feature import BRIEF, match_descriptors

METRICS = ["euclidean", "sqeuclidean", "cityblock", "minkowski", "chebyshev", "hamming", "cosine",
           "correlation", "braycurtis", "canberra", "jaccard"]


def camera_crop():
    return skimage.data.camera()[120:248, 200:328].copy()


def brief_cases(g, cam, rng):
    kp = np.concatenate([rng.uniform(-2, 130, (40, 2)), rng.integers(20, 108, (20, 2)).astype(float),
                         [[24, 24], [104, 104], [23.5, 60], [104.2, 60], [60, 103.9], [12, 12]]])
    cases = [(256, 49, 0, 1.0, 1, 0), (128, 25, 1, 2.0, 7, 0), (64, 16, 0, 0.5, 3, 1), (32, 9, 1, 1.0, 12345, 1),
             (256, 48, 1, 1.0, 5, 0)]
    for c, (d, ps, mode, sigma, seed, im) in enumerate(cases):
        img = cam if im == 0 else (cam / 255.0).astype(np.float32)
        kpc = kp if c % 2 == 0 else np.round(kp)
        if mode == 1:  # a 'uniform' sample of +patch_size // 2 on the last kept row reads past the image (UB)
            kpc = kpc[np.trunc(kpc[:, 0]) + ps // 2 < img.shape[0]]
        b = BRIEF(descriptor_size=d, patch_size=ps, mode=["normal", "uniform"][mode], sigma=sigma, rng=seed)
        b.extract(img, kpc)
        g.save(f"brief_p_{c}", np.array([d, ps, mode, sigma, seed, im], float))
        g.save(f"brief_kp_{c}", kpc)
        g.save(f"brief_desc_{c}", b.descriptors)
        g.save(f"brief_mask_{c}", b.mask)
    return len(cases)


def match_cases(g, rng):
    b1 = rng.random((60, 64)) < 0.5
    b2 = np.concatenate([b1[::2] ^ (rng.random((30, 64)) < 0.1), rng.random((25, 64)) < 0.5])
    f1 = rng.normal(size=(50, 16))
    f2 = np.concatenate([f1[::3] + 0.2 * rng.normal(size=(17, 16)), rng.normal(size=(20, 16))])
    f1[3] = f1[4]  # duplicate rows: ties in argmin
    g.save("match_b1", b1), g.save("match_b2", b2), g.save("match_f1", f1), g.save("match_f2", f2)
    cases = [(-1, 2, np.inf, 1, 1.0, 0), (-1, 2, np.inf, 0, 1.0, 0), (-1, 2, 0.3, 1, 0.8, 0), (-1, 2, np.inf, 1, 1.0, 1),
             (-1, 2, np.inf, 0, 0.9, 1), (-1, 2, 3.0, 1, 1.0, 1)]
    cases += [(m, 2, np.inf, 1, 0.95, 1) for m in range(len(METRICS)) if METRICS[m] not in ("hamming", "jaccard")]
    cases += [(3, 1.5, np.inf, 0, 1.0, 1), (3, 3, np.inf, 1, 0.9, 1), (5, 2, np.inf, 0, 1.0, 0), (10, 2, np.inf, 1, 1.0, 0),
              (0, 2, np.inf, 1, 0.9, 0)]
    for c, (m, p, md, cc, mr, s) in enumerate(cases):
        d1, d2 = (b1, b2) if s == 0 else (f1, f2)
        metric = None if m < 0 else METRICS[m]
        out = match_descriptors(d1, d2, metric=metric, p=p, max_distance=md, cross_check=bool(cc), max_ratio=mr)
        g.save(f"match_p_{c}", np.array([m, p, md, cc, mr, s], float))
        g.save(f"match_out_{c}", out.astype(np.int64))
    return len(cases)


def generate(g):
    rng = g.rng(22)
    cam = camera_crop()
    g.save("cam", cam)
    nb = brief_cases(g, cam, rng)
    nm = match_cases(g, rng)
    colours = np.random.default_rng(seed=0)
    g.save("plot_colours", np.array([colours.random(3) for _ in range(7)]))
    ns = sift_cases(g, cam)
    no = orb_cases(g, cam)
    nc = censure_cases(g, cam)
    g.save("ncases", np.array([nb, nm, ns, no, nc]))


SIFT_CASES = [dict(), dict(upsampling=1, n_scales=4, c_dog=0.01), dict(upsampling=4, sigma_min=2.4, n_octaves=3, n_bins=24, n_hist=3, n_ori=6)]


def sift_cases(g, cam):
    """SIFT case c: sift_<c>_{keypoints,positions,sigmas,scales,octaves,orientations,descriptors}."""
    from skimage.feature import SIFT
    img = cam[:96, :112]
    for c, kw in enumerate(SIFT_CASES):
        s = SIFT(**kw)
        s.detect_and_extract(img)
        for name in ("keypoints", "positions", "sigmas", "scales", "octaves", "orientations", "descriptors"):
            g.save(f"sift_{c}_{name}", getattr(s, name))
    return len(SIFT_CASES)


ORB_CASES = [dict(), dict(n_keypoints=40), dict(fast_n=12, fast_threshold=0.05, n_scales=4, downscale=1.5, harris_k=0.1)]


def orb_cases(g, cam):
    """ORB case c: orb_<c>_{keypoints,scales,orientations,responses,descriptors} of
    detect_and_extract (descriptors np.packbits along rows), orb_<c>_det_* of detect; orb_x_{descriptors,mask} of case 1's extract on
    case 0's detect output."""
    from skimage.feature import ORB
    for c, kw in enumerate(ORB_CASES):
        o = ORB(**kw)
        o.detect_and_extract(cam)
        for name in ("keypoints", "scales", "orientations", "responses"):
            g.save(f"orb_{c}_{name}", getattr(o, name))
        g.save(f"orb_{c}_descriptors", np.packbits(o.descriptors, axis=1))
        o.detect(cam)
        for name in ("keypoints", "scales", "orientations", "responses"):
            g.save(f"orb_{c}_det_{name}", getattr(o, name))
    d = ORB()
    d.detect(cam)
    x = ORB(n_keypoints=40)
    x.extract(cam, d.keypoints, d.scales, d.orientations)
    g.save("orb_x_descriptors", np.packbits(x.descriptors, axis=1))
    g.save("orb_x_mask", x.mask_)
    return len(ORB_CASES)


CENSURE_CASES = [dict(), dict(mode="Octagon", non_max_threshold=0.05), dict(mode="STAR", max_scale=6, non_max_threshold=0.05),
                 dict(min_scale=2, max_scale=6, line_threshold=5, non_max_threshold=0.02)]


def censure_cases(g, cam):
    """CENSURE case c (CENSURE_CASES[c] on cam): censure_<c>_{keypoints,scales}."""
    from skimage.feature import CENSURE
    for c, kw in enumerate(CENSURE_CASES):
        d = CENSURE(**kw)
        d.detect(cam)
        g.save(f"censure_{c}_keypoints", d.keypoints.astype(np.int64))
        g.save(f"censure_{c}_scales", d.scales.astype(np.int64))
    return len(CENSURE_CASES)
