"""Golden outputs of skimage.morphology's reconstruction, extrema, flood and small-object removal
for tests/morphology/test_{reconstruction,extrema,flood,remove_small}.cpp (loaded as
"morphology_recon/<name>.npy"). Footprints are rebuilt in C++ from the names in FOOTPRINTS;
local_maxima(indices=True) is stored as np.transpose(np.nonzero(...)) (int64 (k, ndim)).
"""
import warnings

import numpy as np
import skimage.morphology as sm
from scipy import ndimage as ndi

DTYPES = ["bool", "uint8", "uint16", "int32", "float32", "float64"]
ASYM = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=np.uint8)          # not symmetric
HOLLOW5 = np.array([[0, 0, 1, 0, 0], [0, 1, 0, 1, 0], [1, 0, 0, 0, 1],       # centre unset
                    [0, 1, 0, 1, 0], [0, 0, 1, 0, 0]], dtype=np.uint8)
FOOTPRINTS = {
    "none": None,
    "cross": ndi.generate_binary_structure(2, 1).astype(np.uint8),
    "asym": ASYM,
    "disk2": sm.disk(2),
    "hollow5": HOLLOW5,
    "ball1": sm.ball(1),
    "cross3": ndi.generate_binary_structure(3, 1).astype(np.uint8),
}


def values(rng, dt, shape, lo, hi):
    if dt == "bool":
        return rng.random(shape) < 0.5
    a = rng.integers(lo, hi, shape, endpoint=True)
    if np.dtype(dt).kind == "f":
        return (a * 0.5).astype(dt)
    return a.astype(dt)


def recon_inputs(rng, dt, shape):
    mask = values(rng, dt, shape, -20 if dt in ("int32", "float32", "float64") else 0, 40)
    markers = rng.random(shape) < 0.08
    if dt == "bool":
        return mask & markers, mask | ~markers, mask
    dil = np.where(markers, mask, mask.min()).astype(dt)
    ero = np.where(markers, mask, mask.max()).astype(dt)
    return dil, ero, mask


def generate(g):
    rng = g.rng(77)
    # ---- reconstruction ----
    for nd, shape, dts, fps in ((2, (15, 17), DTYPES, ["none", "cross", "asym", "disk2"]),
                                (3, (6, 7, 8), ["uint8", "float32"], ["none", "ball1", "cross3"])):
        for dt in dts:
            dil, ero, mask = recon_inputs(rng, dt, shape)
            tag = f"{nd}_{dt}"
            g.save(f"rec_seed_dil{tag}", dil)
            g.save(f"rec_seed_ero{tag}", ero)
            g.save(f"rec_mask{tag}", mask)
            for fp in fps:
                f = FOOTPRINTS[fp]
                g.save(f"rec_dil{tag}_{fp}", sm.reconstruction(dil, mask, "dilation", f))
                g.save(f"rec_ero{tag}_{fp}", sm.reconstruction(ero, mask, "erosion", f))
    # mixed dtypes (seed converted to the mask's float type) and 1-D with an even footprint + offset
    dil, _, mask = recon_inputs(rng, "float32", (15, 17))
    g.save("rec_mixed_seed", dil.astype(np.float64))
    g.save("rec_mixed_mask", mask)
    g.save("rec_mixed", sm.reconstruction(dil.astype(np.float64), mask))
    dil, ero, mask = recon_inputs(rng, "uint8", (40,))
    g.save("rec1_seed_dil", dil)
    g.save("rec1_seed_ero", ero)
    g.save("rec1_mask", mask)
    fp1 = np.array([1, 1, 0, 1], dtype=np.uint8)
    g.save("rec1_dil_off", sm.reconstruction(dil, mask, "dilation", fp1, np.array([1])))
    g.save("rec1_ero_off", sm.reconstruction(ero, mask, "erosion", fp1, np.array([2])))
    # a real image: regional maxima by reconstruction (coins)
    coins = g.coins()
    g.save("coins", coins)
    seed = np.copy(coins)
    seed[1:-1, 1:-1] = coins.min()
    g.save("rec_coins", sm.reconstruction(seed, coins, "dilation"))

    # ---- local extrema ----
    for nd, shape in ((1, (30,)), (2, (13, 14)), (3, (6, 7, 8))):
        for dt in DTYPES if nd == 2 else ["uint8", "float32"]:
            img = values(rng, dt, shape, -2 if dt in ("int32", "float32", "float64") else 0, 3)
            tag = f"{nd}_{dt}"
            g.save(f"ext_in{tag}", img)
            fps = {"none": (None, None), "c1": (None, 1)}
            if nd == 2:
                fps["cross"] = (FOOTPRINTS["cross"], None)
            if nd == 3:
                fps["c2"] = (None, 2)
            for name, (fp, conn) in fps.items():
                for ab in (True, False):
                    for kind in ("max", "min"):
                        f = sm.local_maxima if kind == "max" else sm.local_minima
                        g.save(f"ext_{kind}{tag}_{name}_{int(ab)}",
                               f(img, footprint=fp, connectivity=conn, allow_borders=ab))
    img = values(rng, "uint8", (13, 14), 0, 3)
    g.save("ext_asym_in", img)
    g.save("ext_asym_max", sm.local_maxima(img, footprint=ASYM))
    g.save("ext_idx", np.transpose(np.nonzero(sm.local_maxima(img, indices=False))).astype(np.int64))
    g.save("ext_thin_in", img[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.save("ext_thin_max0", sm.local_maxima(img[:2], allow_borders=False))
    g.save("ext_thin_max1", sm.local_maxima(img[:2]))

    # ---- h-extrema ----
    for nd, shape in ((2, (16, 18)), (3, (6, 7, 8))):
        for dt in ["uint8", "uint16", "int32", "float32", "float64"] if nd == 2 else ["uint8", "float32"]:
            base = ndi.gaussian_filter(rng.random(shape) * 60, 1.0)
            img = (base * (0.5 if np.dtype(dt).kind == "f" else 1)).astype(dt)
            if dt == "int32":
                img = img - 25
            tag = f"{nd}_{dt}"
            g.save(f"h_in{tag}", img)
            hs = [3, 2.5, 1000] if np.dtype(dt).kind != "f" else [1.5, 0.3]
            for hi, h in enumerate(hs):
                for fp in ("none", "cross" if nd == 2 else "cross3"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        g.save(f"hmax{tag}_{hi}_{fp}", sm.h_maxima(img, h, FOOTPRINTS[fp]))
                        g.save(f"hmin{tag}_{hi}_{fp}", sm.h_minima(img, h, FOOTPRINTS[fp]))

    # ---- flood ----
    for nd, shape in ((2, (14, 15)), (3, (6, 7, 8))):
        for dt in DTYPES if nd == 2 else ["uint8", "float32"]:
            img = values(rng, dt, shape, -2 if dt in ("int32", "float32", "float64") else 0, 3)
            tag = f"{nd}_{dt}"
            g.save(f"fl_in{tag}", img)
            seed = (3, 4) if nd == 2 else (2, -3, 4)
            tols = {"none": None, "t1": 1, "t15": 1.5, "tm1": -1}
            fps = {"none": (None, None), "c1": (None, 1)}
            if nd == 2:
                fps.update({"asym": (ASYM, None), "hollow5": (HOLLOW5, None)})
            for fn, (fp, conn) in fps.items():
                for tn, tol in tols.items():
                    g.save(f"fl{tag}_{fn}_{tn}", sm.flood(img, seed, footprint=fp, connectivity=conn, tolerance=tol))
            g.save(f"flfill{tag}", sm.flood_fill(img, seed, 1, tolerance=1))
    g.save("fl_coins", sm.flood(g.coins(), (40, 50), tolerance=20))

    # ---- remove_small_objects / remove_small_holes ----
    for nd, shape in ((2, (20, 21)), (3, (8, 9, 10))):
        ar = rng.random(shape) < 0.45
        tag = f"{nd}"
        g.save(f"rs_in{tag}", ar)
        for conn in (1, nd):
            for ms in (0, 3, 10):
                g.save(f"rso{tag}_c{conn}_m{ms}", sm.remove_small_objects(ar, max_size=ms, connectivity=conn))
                g.save(f"rsh{tag}_c{conn}_m{ms}", sm.remove_small_holes(ar, max_size=ms, connectivity=conn))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g.save(f"rso{tag}_c{conn}_min5", sm.remove_small_objects(ar, min_size=5, connectivity=conn))
                g.save(f"rsh{tag}_c{conn}_at5", sm.remove_small_holes(ar, area_threshold=5, connectivity=conn))
        lab = ndi.label(ar)[0]
        for dt in ("uint8", "uint16", "int32", "int64"):
            g.save(f"rs_lab{tag}_{dt}", lab.astype(dt) if dt != "uint8" else (lab % 256).astype(dt))
            g.save(f"rso_lab{tag}_{dt}",
                   sm.remove_small_objects(lab.astype(dt) if dt != "uint8" else (lab % 256).astype(dt), max_size=4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g.save(f"rsh_u8{tag}", sm.remove_small_holes(ar.astype(np.uint8) * 7, max_size=4))
