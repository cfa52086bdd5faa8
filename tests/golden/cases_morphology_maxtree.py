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

TREE_CASES = ["cam_u8", "cam_u16", "cam_f32", "plateau_u8", "noise_f64", "vol_u8", "vol_f32", "row_i32", "nan_f32",
              "nan_f64"]
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


def nan_image(rng, dtype):
    """Floats in [-0.5, 1.5) (1 - x is inexact, so a closing's double inversion does not give x back),
    a band of plateaus (ties), +0 and -0, values that 1 - x rounds to 1, and NaNs of every kind: quiet
    and signalling, either sign, with payloads, scattered and in a block. util.invert's 1 - x keeps a
    NaN's sign and payload and sets its quiet bit (x86 SSE/AVX); openings copy NaN bits unchanged."""
    ui = np.uint32 if dtype == np.float32 else np.uint64
    if dtype == np.float32:
        nans = [0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F812345, 0xFF800001]
    else:
        nans = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000012345, 0x7FF0000000012345,
                0xFFF0000000000001]
    a = rng.random((23, 29)) * 2 - 0.5
    a[:7] = np.round(a[:7] * 4) / 4
    a = a.astype(dtype)
    flat = a.reshape(-1)
    tiny = np.finfo(dtype).eps / 8  # 1 - tiny == 1
    idx = np.arange(flat.size)
    flat[idx % 13 == 5] = 0.0
    flat[idx % 13 == 6] = -0.0
    flat[idx % 17 == 9] = tiny
    flat[idx % 19 == 2] = -tiny
    bits = flat.view(ui)
    scattered = np.flatnonzero(idx % 7 == 3)
    bits[scattered] = np.array(nans, dtype=ui)[np.arange(scattered.size) % len(nans)]
    block = a[12:16, 4:13].reshape(-1).view(ui).copy()
    block[:] = np.array(nans, dtype=ui)[np.arange(block.size) % len(nans)]
    a.view(ui)[12:16, 4:13] = block.reshape(4, 9)
    # Plateaus of zeros of both signs, big enough to survive the filters: one the image's maximum
    # there (an opening keeps it; its node's canonical pixel, the first, is -0), one a minimum (a
    # closing keeps it, as 1 - (1 - x)). Set last: no NaN in them or in their rims.
    a[0:9, 16:29] = -0.4
    a[2:7, 18:27] = np.where((np.arange(45) % 2 == 0).reshape(5, 9), -0.0, 0.0)
    a[15:23, 14:28] = 0.9
    a[17:22, 16:26] = np.where((np.arange(50) % 3 == 0).reshape(5, 10), 0.0, -0.0)
    return a


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
        "nan_f32": nan_image(g.rng(14), np.float32),
        "nan_f64": nan_image(g.rng(15), np.float64),
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
