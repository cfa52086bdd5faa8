"""Golden outputs of scipy.ndimage's zoom, shift, affine_transform, rotate and geometric_transform
for tests/ndimage/test_geometry.cpp (loaded as "ndimage_geometry/<name>.npy").

Inputs in_<key>.npy: 2d (9, 11) and 3d (5, 6, 4) float64, 2u (7, 10) uint8, 2f (8, 7) float32.
For every order 0..5 and every mode (grid-mirror is reflect):
  zoom_<key>_o<order>_<mode>_g<0|1>.npy   zoom(in, ZOOM[key], grid_mode) (2d, 3d)
  shift_<key>_o<order>_<mode>.npy          shift(in, SHIFT[key])          (2d, 3d)
  aff_<key>_o<order>_<mode>.npy            affine_transform(in, MAT[key], OFF[key], OUT[key]) (2d, 3d)
  rot_2d_o<order>_<mode>_r<0|1>.npy        rotate(in, 30, reshape)
and a few dtype / matrix-form / 3-D rotate / geometric_transform cases listed in generate().
cval: 2.5 for float inputs, 7 for uint8.
"""
import numpy as np
import scipy.ndimage as ndi
import scipy.special as sp

MODES = ["constant", "grid-constant", "nearest", "reflect", "mirror", "grid-wrap", "wrap"]
ZOOM = {"2d": 1.7, "3d": [0.6, 1.5, 2.0]}
SHIFT = {"2d": [0.3, -1.7], "3d": [1.25, -0.5, 2.6]}
MAT = {"2d": [[0.9, 0.35], [-0.2, 1.15]], "3d": [[0.8, 0.1, -0.2], [0.15, 1.1, 0.05], [-0.1, 0.2, 0.9]]}
OFF = {"2d": [-1.2, 0.7], "3d": [0.5, -0.8, 0.3]}
OUT = {"2d": (10, 12), "3d": (6, 5, 5)}


def geo_map(o):
    """The geometric_transform mapping the C++ test repeats."""
    return (o[0] * 0.9 + 0.3, o[1] * 1.1 - 0.7)


def generate(g):
    rng = g.rng(2020)
    ins = {
        "2d": rng.uniform(-5, 5, (9, 11)),
        "3d": rng.uniform(-5, 5, (5, 6, 4)),
        "2u": rng.integers(0, 256, (7, 10)).astype(np.uint8),
        "2f": rng.uniform(-5, 5, (8, 7)).astype(np.float32),
    }
    for k, a in ins.items():
        g.save(f"in_{k}", a)
    for key in ("2d", "3d"):
        a = ins[key]
        for order in range(6):
            for mode in MODES:
                kw = dict(order=order, mode=mode, cval=2.5)
                for gm in (0, 1):
                    g.save(f"zoom_{key}_o{order}_{mode}_g{gm}", ndi.zoom(a, ZOOM[key], grid_mode=bool(gm), **kw))
                g.save(f"shift_{key}_o{order}_{mode}", ndi.shift(a, SHIFT[key], **kw))
                g.save(f"aff_{key}_o{order}_{mode}",
                       ndi.affine_transform(a, np.array(MAT[key]), OFF[key], output_shape=OUT[key], **kw))
                if key == "2d":
                    for r in (0, 1):
                        g.save(f"rot_2d_o{order}_{mode}_r{r}", ndi.rotate(a, 30, reshape=bool(r), **kw))
    a2, a3 = ins["2d"], ins["3d"]
    # zoom without prefilter, a 1-D-per-axis-of-1 input, uint8 / float32 inputs and outputs.
    g.save("zoom_2d_o3_mirror_nopf", ndi.zoom(a2, 1.3, order=3, mode="mirror", prefilter=False))
    g.save("zoom_2u_o1_nearest", ndi.zoom(ins["2u"], [1.5, 0.7], order=1, mode="nearest"))
    g.save("zoom_2u_o3_reflect_f64", ndi.zoom(ins["2u"], 2.0, order=3, mode="reflect", output=np.float64))
    g.save("zoom_2f_o3_grid-constant_g1", ndi.zoom(ins["2f"], 0.5, order=3, mode="grid-constant", grid_mode=True,
                                                   cval=2.5))
    g.save("shift_2u_o2_wrap", ndi.shift(ins["2u"], [0.5, -2.5], order=2, mode="wrap", cval=7))
    # affine_transform matrix forms: diagonal, (nd, nd + 1), homogeneous.
    g.save("aff_2d_diag_o3_reflect", ndi.affine_transform(a2, np.array([0.8, 1.3]), [0.4, -0.6], order=3,
                                                          mode="reflect"))
    m = np.array(MAT["2d"])
    mo = np.hstack([m, np.array(OFF["2d"])[:, None]])
    g.save("aff_2d_o1_nearest_n1", ndi.affine_transform(a2, mo, output_shape=OUT["2d"], order=1, mode="nearest"))
    mh = np.vstack([mo, [0, 0, 1]])
    g.save("aff_2d_o3_mirror_h", ndi.affine_transform(a2, mh, output_shape=OUT["2d"], order=3, mode="mirror"))
    # rotate: other angles, 3-D planes.
    for ang in (90, -45, 137.5):
        g.save(f"rot_2d_a{ang}_o1_constant", ndi.rotate(a2, ang, order=1, mode="constant", cval=2.5))
    for axes in ((0, 2), (2, 1), (0, 1)):
        for order in (0, 1, 3):
            for mode in ("constant", "nearest", "grid-wrap"):
                n = f"rot_3d_ax{axes[0]}{axes[1]}_o{order}_{mode}"
                g.save(n, ndi.rotate(a3, 25, axes=axes, order=order, mode=mode, cval=2.5))
    g.save("rot_2u_o3_reflect", ndi.rotate(ins["2u"], 20, order=3, mode="reflect"))
    # geometric_transform with a Python mapping; the C++ test's lambda is the same.
    for order in (0, 1, 3, 5):
        g.save(f"geo_2d_o{order}_reflect", ndi.geometric_transform(a2, geo_map, output_shape=(8, 12), order=order,
                                                                   mode="reflect"))
    # A bool input (scipy samples it as 0/1 and stores t != 0).
    b = g.rng(2021).uniform(0, 1, (7, 9)) > 0.5
    g.save("in_2b", b)
    for order in (1, 3):
        g.save(f"zoom_2b_o{order}_reflect", ndi.zoom(b, 1.6, order=order, mode="reflect"))
    # scipy.special.cosdg / sindg.
    ang = np.array([0, 30, 45, 60, 90, 120, 135, 180, 270, 360, 400, -37.5, 12.345, 1000, -1e5, 7.5e6, 1e15])
    g.save("deg_angles", ang)
    g.save("deg_cos", sp.cosdg(ang))
    g.save("deg_sin", sp.sindg(ang))
