"""Golden outputs of skimage.morphology's grey and binary operators for tests/morphology/
test_gray_binary.cpp (loaded as "morphology_ops/<name>.npy").

To keep the data small, every (image, footprint) case stores its input once and all results in one
stacked array:
  gray_<dtype>_<fp>.npy     shape (6 ops, 8 modes, *image.shape), image dtype
  bin_<input>_<fp>.npy      shape (4 ops, 3 modes, *image.shape), bool
Ops and modes are in the order of OPS / MODES / BIN_OPS / BIN_MODES below (the C++ test uses the same
tables). Footprints are rebuilt in C++ from the names in FOOTPRINTS.
"""
import warnings

import numpy as np
import skimage.morphology as sm

OPS = ["erosion", "dilation", "opening", "closing", "white_tophat", "black_tophat"]
MODES = ["reflect", "constant", "nearest", "mirror", "wrap", "max", "min", "ignore"]
BIN_OPS = ["binary_erosion", "binary_dilation", "binary_opening", "binary_closing"]
BIN_MODES = ["max", "min", "ignore"]
DTYPES = ["bool", "uint8", "uint16", "int32", "float32", "float64"]

ASYM = np.array([[1, 0, 1, 1], [0, 1, 1, 0]], dtype=np.uint8)  # even sizes, not symmetric


def footprints(ndim):
    if ndim == 2:
        return {
            "none": None,
            "asym": ASYM,
            "disk2": sm.disk(2),
            "diskseq3": sm.disk(3, decomposition="sequence"),
            "rectsep34": sm.footprint_rectangle((3, 4), decomposition="separable"),
            "iter0": [(ASYM, 0), (sm.diamond(1), 2)],
        }
    return {"none": None, "ball1": sm.ball(1), "asym3": np.ones((2, 1, 3), dtype=np.uint8)}


def cval_for(dt):
    return 2.5 if np.dtype(dt).kind == "f" else (1.0 if dt == "bool" else 7.0)


def make_input(rng, dt, shape):
    if dt == "bool":
        return rng.random(shape) < 0.6
    if np.dtype(dt).kind == "f":
        return rng.uniform(-10, 10, shape).astype(dt)
    if dt == "int32":
        return rng.integers(-1000, 1000, shape, endpoint=True).astype(dt)
    hi = 255 if dt == "uint8" else 60000
    return rng.integers(0, hi, shape, endpoint=True).astype(dt)


def gray_stack(img, fp, dt):
    out = []
    for op in OPS:
        f = getattr(sm, op)
        row = []
        for mode in MODES:
            kw = {"mode": mode}
            if mode == "constant":
                kw["cval"] = cval_for(dt)
            row.append(f(img, fp, **kw))
        out.append(row)
    return np.asarray(out)


def bin_stack(img, fp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return np.asarray([[getattr(sm, op)(img, fp, mode=m) for m in BIN_MODES] for op in BIN_OPS])


def generate(g):
    rng = g.rng(55)
    for nd, shape in ((2, (13, 14)), (3, (7, 8, 6))):
        for dt in DTYPES if nd == 2 else ["uint8", "float32"]:
            img = make_input(rng, dt, shape)
            g.save(f"in{nd}_{dt}", img)
            for name, fp in footprints(nd).items():
                g.save(f"gray{nd}_{dt}_{name}", gray_stack(img, fp, dt))
        for src in ("bool", "uint8") if nd == 2 else ("bool",):
            img = make_input(rng, src, shape)
            if src == "uint8":
                img[img < 100] = 0  # a non-bool image: non-zero is true
            g.save(f"binin{nd}_{src}", img)
            for name, fp in footprints(nd).items():
                g.save(f"bin{nd}_{src}_{name}", bin_stack(img, fp))
