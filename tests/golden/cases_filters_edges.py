"""Golden outputs for tests/ndimage/test_gaussian.cpp and tests/filters/test_edges.cpp.

scipy.ndimage.gaussian_filter(1d) and skimage.filters' gaussian, difference_of_gaussians,
unsharp_mask and edge filters on small seeded inputs (saved as in_*.npy next to the outputs).
Loaded as "filters_edges/<name>.npy".
"""
import numpy as np
import scipy.ndimage as ndi
import skimage.filters as F

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
ND_DTYPES = ["uint8", "uint16", "int32", "float32", "float64"]


def make(g, dt, shape, seed):
    rng = g.rng(seed)
    kind = np.dtype(dt).kind
    if kind == "f":
        return rng.uniform(-10, 10, shape).astype(dt)
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt == "int32":
        return rng.integers(-1000, 1000, shape, endpoint=True).astype(dt)
    if dt in ("int8", "int16"):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dt)
    hi = 255 if dt == "uint8" else 60000
    return rng.integers(0, hi, shape, endpoint=True).astype(dt)


def gen_ndimage(g):
    for i, dt in enumerate(ND_DTYPES):
        a2 = make(g, dt, (23, 30), 300 + i)
        a3 = make(g, dt, (6, 9, 11), 400 + i)
        g.save(f"nd_in2_{dt}", a2)
        g.save(f"nd_in3_{dt}", a3)
        cval = 2.5 if np.dtype(dt).kind == "f" else 7.0
        for mode in MODES:
            s = f"{mode}_{dt}"
            g.save(f"g1d_{s}", ndi.gaussian_filter1d(a2, 1.5, axis=0, mode=mode, cval=cval))
            g.save(f"g2d_{s}", ndi.gaussian_filter(a2, (1.2, 2.0), mode=mode, cval=cval))
            g.save(f"g3d_{s}", ndi.gaussian_filter(a3, 1.0, mode=mode, cval=cval))
            if np.dtype(dt).kind == "f":
                # Derivatives (float only: a last-bit weight difference could flip an integer).
                g.save(f"gord_{s}", ndi.gaussian_filter(a2, 1.3, order=(1, 2), mode=mode, cval=cval))
                g.save(f"g1dord3_{s}", ndi.gaussian_filter1d(a2, 0.8, axis=1, order=3, mode=mode, cval=cval))
        # Other parameters: radius, truncate, axes, per-axis modes, tiny sigma skipped, big sigma on a small axis.
        g.save(f"grad_{dt}", ndi.gaussian_filter(a2, 2.0, radius=(1, 3)))
        g.save(f"gtrunc_{dt}", ndi.gaussian_filter(a2, 1.7, truncate=2.2))
        g.save(f"gaxes_{dt}", ndi.gaussian_filter(a3, (2.0, 0.7), axes=(2, 0), mode=("wrap", "mirror")))
        g.save(f"gmodes_{dt}", ndi.gaussian_filter(a2, 1.5, mode=("constant", "nearest"), cval=cval))
        g.save(f"gzero_{dt}", ndi.gaussian_filter(a2, (0.0, 1.0)))
        g.save(f"gwide_{dt}", ndi.gaussian_filter(a2, 9.0, mode="reflect"))
    # Kernels themselves (reversed, as correlate1d takes them).
    for sigma, order, radius in [(1.0, 0, 4), (2.5, 0, 10), (0.7, 1, 3), (1.3, 2, 5), (3.0, 3, 12)]:
        w = ndi._filters._gaussian_kernel1d(sigma, order, radius)[::-1]
        g.save(f"kern_{sigma}_{order}_{radius}", w)


FILTER_DTYPES = ["uint8", "int16", "uint16", "float32", "float64"]


def gen_filters(g):
    rng = g.rng(11)
    cam = g.camera()[20:60, 30:77]  # 40x47 uint8
    g.save("cam", cam)
    for i, dt in enumerate(FILTER_DTYPES):
        a = make(g, dt, (21, 26), 500 + i)
        if np.dtype(dt).kind == "f":
            a = (a / 10).astype(dt)  # [-1, 1)
        g.save(f"f_in2_{dt}", a)
        g.save(f"gauss_{dt}", F.gaussian(a, sigma=1.5))
        g.save(f"gauss_pr_{dt}", F.gaussian(a, sigma=(1.0, 2.0), preserve_range=True, mode="reflect"))
        g.save(f"dog_{dt}", F.difference_of_gaussians(a, 1.0, 2.5, mode="constant", cval=0.25))
        g.save(f"unsharp_{dt}", F.unsharp_mask(a, radius=2.0, amount=1.5))
        g.save(f"unsharp_pr_{dt}", F.unsharp_mask(a, radius=1.0, amount=0.7, preserve_range=True))
        for name in ["sobel", "scharr", "prewitt", "farid", "roberts", "laplace",
                     "sobel_h", "sobel_v", "scharr_h", "scharr_v", "prewitt_h", "prewitt_v",
                     "roberts_pos_diag", "roberts_neg_diag", "farid_h", "farid_v"]:
            g.save(f"{name}_{dt}", getattr(F, name)(a))
    g.save("gauss_cam", F.gaussian(cam, sigma=3.0))
    g.save("sobel_cam", F.sobel(cam))
    # Modes, axis subsets, masks.
    a = make(g, "float64", (21, 26), 600) / 10
    g.save("f_in2m", a)
    mask = rng.random(a.shape) < 0.8
    g.save("mask2", mask)
    for mode in MODES:
        g.save(f"sobel_{mode}", F.sobel(a, mode=mode, cval=0.3))
        g.save(f"farid_{mode}", F.farid(a, mode=mode, cval=0.3))
        g.save(f"gaussm_{mode}", F.gaussian(a, sigma=1.2, mode=mode, cval=0.3))
    for name in ["sobel", "scharr", "prewitt", "farid", "roberts", "laplace", "sobel_h", "roberts_pos_diag",
                 "farid_v"]:
        fn = getattr(F, name)
        g.save(f"{name}_mask", fn(a, mask=mask))
    g.save("sobel_axis1", F.sobel(a, axis=1))
    g.save("scharr_axes", F.scharr(a, axis=(1, 0)))
    g.save("laplace_k5", F.laplace(a, ksize=5))
    # 3-D.
    v = make(g, "float32", (7, 9, 10), 700) / 10
    g.save("f_in3", v)
    m3 = g.rng(12).random(v.shape) < 0.85
    g.save("mask3", m3)
    for name in ["sobel", "scharr", "prewitt", "farid", "laplace"]:
        g.save(f"{name}_3d", getattr(F, name)(v))
    g.save("sobel_3d_mask", F.sobel(v, mask=m3))
    g.save("prewitt_3d_axis2", F.prewitt(v, axis=2, mode="wrap"))
    g.save("gauss_3d", F.gaussian(v, sigma=(1.0, 0.5, 1.5)))
    # channel_axis.
    rgb = g.astronaut()[:24, :20]
    g.save("rgb", rgb)
    g.save("gauss_rgb", F.gaussian(rgb, sigma=1.0, channel_axis=-1))
    g.save("dog_rgb", F.difference_of_gaussians(rgb, 1.0, channel_axis=-1))
    g.save("unsharp_rgb", F.unsharp_mask(rgb, radius=1.5, amount=2.0, channel_axis=2))  # -1 hits a 0.26 bug (slices axis 0)
    g.save("gauss_rgb_ax0", F.gaussian(np.moveaxis(rgb, -1, 0).copy(), sigma=(1.0, 2.0), channel_axis=0))
    g.save("bool_in", rng.random((12, 13)) < 0.5)
    g.save("sobel_bool", F.sobel(np.load(g.dir / "bool_in.npy")))
    g.save("gauss_bool", F.gaussian(np.load(g.dir / "bool_in.npy"), sigma=1.0))


def generate(g):
    gen_ndimage(g)
    gen_filters(g)
