"""Golden outputs of scipy.ndimage's spline_filter1d, spline_filter and map_coordinates for
tests/ndimage/test_spline.cpp (loaded as "ndimage_spline/<name>.npy").

Inputs: in_<key>.npy (1-D, 2-D, 3-D; float64, float32, uint8) and coordinates co_<key>.npy of
shape (ndim, ...) reaching a few samples past every edge, with integer and half-integer points
(ties of the even orders). Outputs:
  map_<key>_o<order>_<mode>.npy           map_coordinates(in, co, order, mode, cval)   (prefilter)
  map_<key>_o<order>_<mode>_nopf.npy      the same with prefilter=False (orders 2..5)
  sf1_<key>_o<order>_<mode>_ax<axis>.npy  spline_filter1d(in, order, axis, mode) (float64)
  sf_<key>_o<order>_<mode>.npy            spline_filter(in, order, mode) (float64)
  sf_<key>_o3_mirror_f32.npy              spline_filter(..., output=np.float32)
  long_o<order>_<mode>.npy                spline_filter1d of a 2500-sample line: samples [:40] and [-40:]
The cval is 2.5 for float inputs and 7 for uint8 (cval_for in the C++ test).
"""
import numpy as np
import scipy.ndimage as ndi

MODES = ["constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "grid-wrap", "wrap"]


def cval_for(a):
    return 2.5 if a.dtype.kind == "f" else 7.0


def coords_for(rng, shape, out_shape):
    """Random points from 3 samples before to 3 past each axis, then every integer and
    half-integer from -2 to n + 1 along the first output positions (cycled)."""
    nd = len(shape)
    c = np.empty((nd,) + out_shape)
    for a, n in enumerate(shape):
        c[a] = rng.uniform(-3.0, n + 2.0, out_shape)
        grid = np.arange(-2.0, n + 1.5, 0.5)
        flat = c[a].reshape(-1)
        m = min(flat.size, grid.size)
        flat[:m] = np.roll(grid, 3 * a)[:m]
    return c


def generate(g):
    rng = g.rng(1706)
    ins = {
        "1d": rng.uniform(-5, 5, 13),
        "2d": rng.uniform(-5, 5, (9, 11)),
        "2f": rng.uniform(-5, 5, (8, 7)).astype(np.float32),
        "2u": rng.integers(0, 256, (7, 10)).astype(np.uint8),
        "3d": rng.uniform(-5, 5, (5, 6, 4)),
        "2s": rng.uniform(-5, 5, (2, 3)),  # lines of 2 and 3 samples
    }
    outs = {"1d": (31,), "2d": (5, 7), "2f": (33,), "2u": (6, 6), "3d": (40,), "2s": (21,)}
    for key, a in ins.items():
        g.save(f"in_{key}", a)
        co = coords_for(rng, a.shape, outs[key])
        g.save(f"co_{key}", co)
        cv = cval_for(a)
        for order in range(6):
            for mode in MODES:
                g.save(f"map_{key}_o{order}_{mode}",
                       ndi.map_coordinates(a, co, order=order, mode=mode, cval=cv))
                if order >= 2 and key in ("2d", "2u"):
                    g.save(f"map_{key}_o{order}_{mode}_nopf",
                           ndi.map_coordinates(a, co, order=order, mode=mode, cval=cv, prefilter=False))
        for order in range(6):
            for mode in MODES:
                for axis in range(a.ndim) if key != "3d" else (1,):
                    g.save(f"sf1_{key}_o{order}_{mode}_ax{axis}",
                           ndi.spline_filter1d(a, order=order, axis=axis, mode=mode))
        if a.ndim >= 2:
            for order in range(2, 6):
                for mode in MODES:
                    g.save(f"sf_{key}_o{order}_{mode}", ndi.spline_filter(a, order=order, mode=mode))
            g.save(f"sf_{key}_o3_mirror_f32", ndi.spline_filter(a, order=3, mode="mirror", output=np.float32))
    # Output dtypes of map_coordinates: uint8 input into float64 / float32, float32 coordinates.
    a, co = ins["2u"], coords_for(rng, ins["2u"].shape, (4, 9))
    g.save("co_2u_b", co)
    g.save("map_2u_b_o3_reflect_f64", ndi.map_coordinates(a, co, output=np.float64, order=3, mode="reflect"))
    g.save("map_2u_b_o1_nearest_f32", ndi.map_coordinates(a, co, output=np.float32, order=1, mode="nearest"))
    co32 = co.astype(np.float32)
    g.save("co_2u_b32", co32)
    g.save("map_2u_b32_o4_mirror", ndi.map_coordinates(a, co32, order=4, mode="mirror"))
    # 4-D (the generic CPU path).
    a4 = rng.uniform(-1, 1, (3, 4, 3, 5))
    g.save("in_4d", a4)
    co4 = coords_for(rng, a4.shape, (17,))
    g.save("co_4d", co4)
    for order in (1, 3):
        g.save(f"map_4d_o{order}_reflect", ndi.map_coordinates(a4, co4, order=order, mode="reflect"))
    # A line long enough for z^i to underflow inside the init sums: ((37 i) mod 101) - 50.
    line = ((37 * np.arange(2500)) % 101 - 50).astype(np.float64)
    for order in (2, 3, 4, 5):
        for mode in ("mirror", "reflect", "grid-wrap"):
            r = ndi.spline_filter1d(line, order=order, mode=mode)
            g.save(f"long_o{order}_{mode}", np.concatenate([r[:40], r[-40:]]))
