"""Golden outputs of skimage.feature.peak_local_max and corner_peaks for
tests/feature/test_peak.cpp (loaded as "feature_peak/<name>.npy").

Images img_<i>.npy (2-D float64 with plateaus, float32, uint8, int16, a distance transform,
3-D float64), labels lab_<j>.npy, footprints fp_<k>.npy. Case c has parameters p_<c>.npy
(float64: image, min_distance, threshold_abs, threshold_rel, exclude_border kind (0 True,
1 False, 2 int, 3 tuple), three widths, num_peaks, num_peaks_per_label, p_norm, footprint,
labels, function (0 peak_local_max, 1 corner_peaks, 2 corner_peaks indices=False); NaN = None,
inf = no limit, -1 = no array) and output out_<c>.npy. ncases.npy holds the count.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage.feature import corner_peaks, peak_local_max

NAN = np.nan
INF = np.inf


def images(rng):
    smooth = ndi.gaussian_filter(rng.normal(size=(64, 64)), 2.0)
    plateaus = np.round(smooth * 12) / 12  # ties inside windows and between peaks
    f32 = ndi.gaussian_filter(rng.normal(size=(48, 56)), 1.5).astype(np.float32)
    u8 = (ndi.gaussian_filter(rng.uniform(0, 255, (64, 64)), 1.2)).astype(np.uint8)
    i16 = (ndi.gaussian_filter(rng.normal(size=(40, 44)), 1.0) * 800).astype(np.int16)
    blobs = np.zeros((64, 64), bool)
    yy, xx = np.mgrid[:64, :64]
    for cy, cx, r in [(15, 15, 9), (22, 28, 8), (45, 20, 11), (44, 45, 12), (50, 58, 6)]:
        blobs |= (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    edt = ndi.distance_transform_edt(blobs)
    vol = ndi.gaussian_filter(rng.normal(size=(20, 22, 24)), 1.5)
    return [plateaus, f32, u8, i16, edt, vol, smooth], blobs


def labels_for(imgs, blobs, rng):
    lab2 = ndi.label(blobs)[0]
    lab2[lab2 == 3] = 7  # a gap in the numbering
    vor = np.zeros((64, 64), np.int32)
    seeds = rng.integers(0, 64, (9, 2))
    d = np.stack([(np.mgrid[:64, :64][0] - s[0]) ** 2 + (np.mgrid[:64, :64][1] - s[1]) ** 2 for s in seeds])
    vor[:] = d.argmin(0) + 1
    vor[vor == 4] = 0
    lab3 = (ndi.gaussian_filter(rng.normal(size=(20, 22, 24)), 3) > 0).astype(np.uint8)
    lab3 = ndi.label(lab3)[0].astype(np.int16)
    lab40 = np.zeros((40, 44), np.uint8)
    lab40[5:20, 3:30] = 1
    lab40[22:38, 10:40] = 2
    return [lab2, vor, lab3, lab40]


def footprints():
    cross = ndi.generate_binary_structure(2, 1)
    ring = np.ones((5, 5), bool)
    ring[2, 2] = False
    odd = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]], bool)  # even width: centre size // 2
    ball = ndi.generate_binary_structure(3, 2)
    return [cross, ring, odd, ball]


def cases():
    c = []
    # image, md, tabs, trel, (ebkind, widths), num_peaks, nppl, p, fp, lab, fn
    for img in (0, 1, 2, 3, 4, 6):
        c.append((img, 1, NAN, NAN, (0, 0, 0, 0), INF, INF, INF, -1, -1, 0))
        c.append((img, 3, NAN, NAN, (0, 0, 0, 0), INF, INF, INF, -1, -1, 0))
        c.append((img, 5, NAN, 0.2, (1, 0, 0, 0), INF, INF, 2.0, -1, -1, 0))
    c += [
        (0, 4, 0.1, NAN, (2, 2, 0, 0), 7, INF, 1.0, -1, -1, 0),
        (0, 2, NAN, 0.5, (3, 0, 6, 0), INF, INF, 3.0, -1, -1, 0),
        (0, 0, 0.2, NAN, (0, 0, 0, 0), INF, INF, INF, -1, -1, 0),
        (0, 7, NAN, NAN, (1, 0, 0, 0), INF, INF, 1.5, -1, -1, 0),
        (0, 1, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, 0, -1, 0),
        (0, 3, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, 1, -1, 0),
        (6, 3, NAN, NAN, (1, 0, 0, 0), 12, INF, INF, 2, -1, 0),
        (2, 2, 100, NAN, (2, 4, 0, 0), INF, INF, INF, -1, -1, 0),
        (2, 3, NAN, NAN, (1, 0, 0, 0), 5, INF, INF, -1, -1, 0),
        (3, 2, -50, NAN, (1, 0, 0, 0), INF, INF, 2.0, -1, -1, 0),
        (1, 2, 0.1, NAN, (1, 0, 0, 0), INF, INF, INF, -1, -1, 0),
        (5, 1, NAN, NAN, (0, 0, 0, 0), INF, INF, INF, -1, -1, 0),
        (5, 2, NAN, 0.3, (3, 1, 2, 3), INF, INF, 2.0, -1, -1, 0),
        (5, 1, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, 3, -1, 0),
        # labels
        (4, 7, NAN, NAN, (0, 0, 0, 0), INF, INF, INF, -1, 0, 0),
        (4, 3, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 0, 0),
        (4, 2, NAN, NAN, (1, 0, 0, 0), INF, 2, 2.0, -1, 0, 0),
        (4, 2, NAN, NAN, (1, 0, 0, 0), 4, INF, INF, -1, 0, 0),
        (4, 1, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 0, 0),
        (0, 3, NAN, NAN, (0, 0, 0, 0), INF, INF, INF, -1, 1, 0),
        (0, 3, NAN, 0.1, (2, 5, 0, 0), 10, 3, 2.0, -1, 1, 0),
        (6, 1, NAN, NAN, (1, 0, 0, 0), INF, 4, INF, 1, 1, 0),
        (2, 4, NAN, NAN, (0, 0, 0, 0), 6, INF, 1.0, -1, 1, 0),
        (5, 2, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 2, 0),
        (5, 1, NAN, NAN, (1, 0, 0, 0), INF, 2, INF, 3, 2, 0),
        (3, 2, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 3, 0),
        (3, 9, 5000, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 3, 0),  # no peak
        (5, 2, 1e9, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 2, 0),  # 3-D, boxes but no peak: (0, 3)
        (5, 2, NAN, NAN, (2, 12, 0, 0), INF, INF, INF, -1, 2, 0),  # 3-D, no label box: (0, 2)
        (4, 3, NAN, NAN, (1, 0, 0, 0), 0, INF, INF, -1, 0, 0),  # num_peaks 0 with labels
        # corner_peaks
        (0, 1, NAN, NAN, (0, 0, 0, 0), INF, INF, INF, -1, -1, 1),
        (0, 3, NAN, NAN, (1, 0, 0, 0), INF, INF, 2.0, -1, -1, 1),
        (0, 2, NAN, 0.2, (1, 0, 0, 0), 5, INF, 1.0, -1, -1, 1),
        (4, 2, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, 0, 1),
        (2, 1, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, -1, 2),
        (5, 2, NAN, NAN, (1, 0, 0, 0), INF, INF, INF, -1, -1, 1),
    ]
    return c


def run(img, md, tabs, trel, eb, num, nppl, p, fp, lab):
    kind, *w = eb
    ebv = [True, False, w[0], tuple(w[: img.ndim])][kind]
    kw = dict(min_distance=md, threshold_abs=None if np.isnan(tabs) else tabs,
              threshold_rel=None if np.isnan(trel) else trel, exclude_border=ebv, num_peaks=num,
              footprint=fp, labels=lab, num_peaks_per_label=nppl, p_norm=p)
    return kw


def generate(g):
    rng = g.rng(2126)
    imgs, blobs = images(rng)
    labs = labels_for(imgs, blobs, rng)
    fps = footprints()
    for i, a in enumerate(imgs):
        g.save(f"img_{i}", a)
    for j, a in enumerate(labs):
        g.save(f"lab_{j}", a)
    for k, a in enumerate(fps):
        g.save(f"fp_{k}", a)
    all_cases = cases()
    for n, (img, md, tabs, trel, eb, num, nppl, p, fp, lab, fn) in enumerate(all_cases):
        kw = run(imgs[img], md, tabs, trel, eb, num, nppl, p, None if fp < 0 else fps[fp],
                 None if lab < 0 else labs[lab])
        if fn == 0:
            out = peak_local_max(imgs[img], **kw)
        else:
            kw.pop("p_norm")
            out = corner_peaks(imgs[img], indices=fn == 1, p_norm=p, **kw)
        g.save(f"p_{n}", np.array([img, md, tabs, trel, eb[0], eb[1], eb[2], eb[3], num, nppl, p, fp, lab, fn],
                                  np.float64))
        g.save(f"out_{n}", out.astype(np.int64) if fn < 2 else out)
    g.save("ncases", np.array([len(all_cases)], np.int64))
