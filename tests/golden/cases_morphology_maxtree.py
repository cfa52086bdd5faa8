"""Golden outputs of skimage.morphology.max_tree, area/diameter opening/closing,
max_tree_local_maxima and remove_objects_by_distance for tests/morphology/test_max_tree.cpp and
test_remove_by_distance.cpp (loaded as "morphology_maxtree/<name>.npy").

Max-tree cases (names in TREE_CASES): <case>_in, and for connectivity c in 1..ndim:
<case>_c<c>_parent, _trav, _ao (area_opening, area_threshold 20), _ac (area_closing 20),
_do (diameter_opening 6), _dc (diameter_closing 6), _lm (max_tree_local_maxima).
Distance cases (names in DIST_CASES): <case>_in, <case>_<variant> for the variants in VARIANTS.
"""
import numpy as np
import skimage.morphology as sm

TREE_CASES = ["cam_u8", "cam_u16", "cam_f32", "plateau_u8", "noise_f64", "vol_u8", "vol_f32", "row_i32"]
DIST_CASES = ["blobs", "random", "vol", "touching"]
# name -> (min_distance, kwargs); "prio" uses a priority array stored as <case>_prio_p.
VARIANTS = {
    "d0": (0, {}),
    "d3": (3, {}),
    "d5": (5, {}),
    "d2p1": (2, {"p_norm": 1}),
    "d3pinf": (3, {"p_norm": np.inf}),
    "d4p3": (4, {"p_norm": 3}),
    "d3sp": (3, {"spacing": None}),  # spacing filled per ndim
    "d2sq": (2 ** 0.5, {}),
    "prio": (4, {"priority": None}),
}


def tree_images(g):
    rng = g.rng(11)
    cam = g.camera()  # 128x128 uint8
    crop = cam[40:88, 30:90]
    plateau = rng.integers(0, 4, (33, 41)).astype(np.uint8) * 60
    plateau[10:20, 5:25] = 200  # a big flat maximum
    vol = (rng.integers(0, 5, (9, 12, 14)) * 50).astype(np.uint8)
    return {
        "cam_u8": crop,
        "cam_u16": (crop.astype(np.uint16) * 257 + rng.integers(0, 3, crop.shape)).astype(np.uint16),
        "cam_f32": (cam[60:100, 60:110] / 255.0).astype(np.float32),
        "plateau_u8": plateau,
        "noise_f64": np.round(rng.normal(size=(27, 31)), 1),
        "vol_u8": vol,
        "vol_f32": np.round(rng.random((8, 10, 11)), 2).astype(np.float32),
        "row_i32": rng.integers(-5, 5, (5, 57)).astype(np.int32),
    }


def tree_cases(g):
    for name, img in tree_images(g).items():
        g.save(f"{name}_in", img)
        for c in range(1, img.ndim + 1):
            p, t = sm.max_tree(img, connectivity=c)
            b = f"{name}_c{c}"
            g.save(f"{b}_parent", p)
            g.save(f"{b}_trav", t)
            g.save(f"{b}_ao", sm.area_opening(img, 20, connectivity=c))
            g.save(f"{b}_ac", sm.area_closing(img, 20, connectivity=c))
            g.save(f"{b}_do", sm.diameter_opening(img, 6, connectivity=c))
            g.save(f"{b}_dc", sm.diameter_closing(img, 6, connectivity=c))
            g.save(f"{b}_lm", sm.max_tree_local_maxima(img, connectivity=c))


def dist_images(g):
    from skimage.measure import label

    rng = g.rng(12)
    blobs = label(rng.random((60, 70)) < 0.08)  # small scattered objects
    blobs = sm.dilation(blobs, sm.disk(1)) * (rng.random((60, 70)) < 2)
    random = rng.integers(0, 40, (30, 35))
    random[rng.random((30, 35)) < 0.85] = 0
    vol = label(rng.random((12, 14, 16)) < 0.05)
    touching = np.zeros((25, 30), np.int32)
    touching[2:8, 2:9] = 3
    touching[8:14, 2:9] = 7  # shares a border with 3
    touching[2:5, 15:18] = 1
    touching[18:24, 20:29] = 2
    touching[20, 5] = 9
    return {
        "blobs": blobs.astype(np.int32),
        "random": random.astype(np.uint8),
        "vol": vol.astype(np.uint16),
        "touching": touching,
    }


def dist_cases(g):
    rng = g.rng(13)
    for name, img in dist_images(g).items():
        g.save(f"{name}_in", img)
        prio = rng.permutation(int(img.max()) + 1).astype(np.float64)
        g.save(f"{name}_prio_p", prio)
        for v, (d, kw) in VARIANTS.items():
            kw = dict(kw)
            if "spacing" in kw:
                kw["spacing"] = [1.5, 0.75, 1.0][: img.ndim]
            if "priority" in kw:
                kw["priority"] = prio
            g.save(f"{name}_{v}", sm.remove_objects_by_distance(img, d, **kw))


def generate(g):
    tree_cases(g)
    dist_cases(g)
