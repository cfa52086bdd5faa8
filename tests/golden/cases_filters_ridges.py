"""Golden outputs of skimage.filters' ridge filters (frangi, hessian, meijering, sato) and of
skimage.feature.hessian_matrix (use_gaussian_derivatives=True) / hessian_matrix_eigvals, for
tests/filters/test_ridges.cpp (loaded as "filters_ridges/<name>.npy").

Inputs are saved as in_<case>.npy; outputs as <function>_<variant>_<case>.npy. The C++ test table
lists the same calls with the same arguments.
"""
import numpy as np
import scipy.ndimage as ndi
import skimage.feature as sfeat
import skimage.filters as sf


def inputs(g):
    rng = g.rng(31)
    cam = g.camera()[60:108, 40:88].copy()                      # 48x48 uint8, real structure
    yy, xx = np.mgrid[0:40, 0:36]
    lines = (np.sin(xx / 3.0 + 0.3 * yy) > 0.85).astype(np.float32) * 2.0
    lines += rng.normal(0, 0.2, lines.shape).astype(np.float32)
    f32 = lines.astype(np.float32)                               # 40x36 float32, white ridges
    vol = ndi.gaussian_filter(rng.normal(0, 1, (12, 13, 11)), 1.5)   # smooth 3-D float64
    vol3_f32 = (vol * 10).astype(np.float32)
    tube = np.zeros((12, 12, 12))
    tube[:, 5:7, 5:7] = -1.0                                    # a dark tube along axis 0
    tube += rng.normal(0, 0.05, tube.shape)
    return {
        "cam": cam,
        "f32": f32,
        "vol": vol,
        "vol_f32": vol3_f32,
        "tube": tube,
        "i16": rng.integers(-300, 300, (20, 23)).astype(np.int16),
        "line1d": np.concatenate([np.zeros(10), -np.ones(4), np.zeros(12)]) + rng.normal(0, 0.01, 26),
        "four_d": rng.normal(0, 1, (4, 5, 4, 5)),
    }


# (function, variant, kwargs); the same table lives in test_ridges.cpp.
CALLS = [
    ("frangi", "default", {}),
    ("frangi", "white", {"black_ridges": False}),
    ("frangi", "small", {"sigmas": [0.5, 1.0], "mode": "constant", "cval": 3.0}),
    ("frangi", "gamma", {"sigmas": [1.5, 2.5], "alpha": 0.3, "beta": 0.8, "gamma": 2.0, "mode": "nearest"}),
    ("frangi", "range", {"scale_range": (1.0, 4.0), "scale_step": 1.5, "mode": "wrap"}),
    ("hessian", "default", {}),
    ("hessian", "auto", {"sigmas": [1.0, 2.0], "gamma": None, "black_ridges": False, "mode": "mirror"}),
    ("meijering", "default", {}),
    ("meijering", "white", {"sigmas": [1.0, 2.0], "black_ridges": False, "alpha": -0.2, "mode": "constant",
                            "cval": -1.0}),
    ("sato", "default", {}),
    ("sato", "white", {"sigmas": [0.8, 2.0], "black_ridges": False, "mode": "nearest"}),
]

CASES = {
    "frangi": ["cam", "f32", "vol", "vol_f32", "tube", "i16"],
    "hessian": ["cam", "f32", "vol", "tube"],
    "meijering": ["cam", "f32", "vol", "vol_f32", "tube", "line1d", "four_d"],
    "sato": ["cam", "f32", "vol", "vol_f32", "tube", "i16"],
}
# Large default sigma lists on the 4-D case would only repeat the others: it runs variant "white".
SKIP = {("meijering", "default", "four_d")}


def generate(g):
    ins = inputs(g)
    for name, a in ins.items():
        g.save(f"in_{name}", a)
    for fn, variant, kw in CALLS:
        for case in CASES[fn]:
            if (fn, variant, case) in SKIP:
                continue
            out = getattr(sf, fn)(ins[case], **kw)
            g.save(f"{fn}_{variant}_{case}", out)

    # hessian_matrix (Gaussian derivatives) and its eigenvalues.
    hm = [
        ("cam", {"sigma": 1.5}),
        ("f32", {"sigma": 0.7, "mode": "reflect"}),
        ("cam", {"sigma": 2.0, "order": "xy", "mode": "nearest"}),
        ("vol", {"sigma": 1.2, "mode": "mirror"}),
        ("vol_f32", {"sigma": 2.0, "mode": "wrap", "cval": 0}),
        ("tube", {"sigma": (1.0, 2.0, 1.5), "mode": "constant", "cval": 0.5}),
    ]
    for i, (case, kw) in enumerate(hm):
        h = sfeat.hessian_matrix(ins[case], use_gaussian_derivatives=True, **kw)
        g.save(f"hm{i}_elems_{case}", np.stack(h))
        g.save(f"hm{i}_eig_{case}", sfeat.hessian_matrix_eigvals(h))
    # Eigenvalues of hard 3x3 matrices: repeated roots, diagonal, tiny and huge scales.
    rng = g.rng(5)
    m = rng.normal(0, 1, (6, 40))
    m[:, 0] = [1, 0, 0, 1, 0, 1]            # identity: triple root
    m[:, 1] = [2, 1, 1, 2, 1, 2]            # roots 4, 1, 1
    m[:, 2] = [0, 0, 0, 0, 0, 0]
    m[:, 3] = [3, 0, 0, -1, 0, 2]           # diagonal
    m[:, 4] = [1e-300, 2e-300, 0, 1e-300, 0, 3e-300]
    m[:, 5] = [1e150, -2e150, 3e150, 0, 1e150, 5e150]
    m[:, 6] = [1, 1e-9, 0, 1, 0, 1]         # nearly a triple root
    m[:, 7] = [5, 1e-8, 2e-8, 5 + 1e-8, 0, -3]
    elems = [m[i].reshape(5, 8) for i in range(6)]
    g.save("eig3_hard_in", np.stack(elems))
    # The 3-D element order is H00 H01 H02 H11 H12 H22 over a (5, 8) "image" needs ndim 3: reshape.
    elems3 = [e.reshape(5, 8, 1) for e in elems]
    g.save("eig3_hard_out", sfeat.hessian_matrix_eigvals(elems3))
