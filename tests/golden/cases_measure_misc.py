"""Golden outputs of skimage.measure's contour, polygon and image-measure functions for
tests/measure/test_contours.cpp and test_measure_misc.cpp (loaded as "measure_misc/<name>.npy").

find_contours: contours_<case>_in (the image), _mask (when the case has one), and per parameter set
_<p>_pts (every contour's points concatenated) and _<p>_len (points per contour, in order).
Scalars are saved as one-element float64 arrays.
"""
import numpy as np
import scipy.ndimage as ndi
from skimage import measure


def blobs(rng, shape, frac=0.35, sigma=1.5):
    noise = ndi.gaussian_filter(rng.random(shape), sigma)
    return noise > np.quantile(noise, 1 - frac)


def save_contours(g, name, contours):
    lens = np.array([len(c) for c in contours], dtype=np.int64)
    pts = np.concatenate(contours, axis=0) if contours else np.zeros((0, 2))
    g.save(f"{name}_pts", pts.astype(np.float64))
    g.save(f"{name}_len", lens)


def scalar(g, name, v):
    g.save(name, np.array([float(v)], dtype=np.float64))


# parameter sets of find_contours: (suffix, kwargs)
CONTOUR_PARAMS = [
    ("default", {}),
    ("high", {"fully_connected": "high"}),
    ("orient", {"positive_orientation": "high"}),
    ("both", {"fully_connected": "high", "positive_orientation": "high"}),
]


def generate(g):
    rng = g.rng(66)

    # ---- find_contours --------------------------------------------------------------------------
    smooth = ndi.gaussian_filter(rng.random((40, 50)), 3)
    nan_img = smooth.copy()
    nan_img[10:14, 20:23] = np.nan
    ints = rng.integers(0, 4, (23, 31)).astype(np.uint8)  # level 1.5 default; also exact-level cases
    cases = {
        "smooth": (smooth, None, [None, float(np.quantile(smooth, 0.3))]),
        "blobs": (blobs(rng, (45, 37)), None, [None]),
        "ints": (ints, None, [None, 1.0, 2.0]),
        "nan": (nan_img, None, [None]),
        "masked": (smooth, rng.random((40, 50)) > 0.1, [None]),
        "coins": (g.coins(), None, [None, 100.0]),
        "tiny": (np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), None, [0.5]),
    }
    for name, (img, mask, levels) in cases.items():
        g.save(f"contours_{name}_in", img)
        if mask is not None:
            g.save(f"contours_{name}_mask", mask)
        for li, level in enumerate(levels):
            for suffix, kw in CONTOUR_PARAMS:
                c = measure.find_contours(img, level, mask=mask, **kw)
                save_contours(g, f"contours_{name}_l{li}_{suffix}", c)
            if level is not None:
                scalar(g, f"contours_{name}_l{li}_level", level)

    # ---- meshes and polygons --------------------------------------------------------------------
    verts = rng.random((30, 3)) * 10
    faces = rng.integers(0, 30, (50, 3))
    g.save("mesh_verts", verts)
    g.save("mesh_faces", faces.astype(np.int64))
    scalar(g, "mesh_area", measure.mesh_surface_area(verts, faces))

    poly = np.array([[2.0, 1.5], [8.5, 3.0], [7.0, 9.0], [4.0, 6.0], [1.0, 8.0]])
    pts = np.concatenate([rng.random((200, 2)) * 10, poly, [[5.25, 2.25], [4.0, 6.0], [3.0, 7.0]]])
    g.save("pip_points", pts)
    g.save("pip_verts", poly)
    g.save("pip_out", measure.points_in_poly(pts, poly))
    g.save("grid_bool", measure.grid_points_in_poly((12, 11), poly))
    g.save("grid_labels", measure.grid_points_in_poly((12, 11), poly, binarize=False))
    square = np.array([[1, 1], [1, 4], [4, 4], [4, 1]], dtype=np.int64)
    g.save("grid_square", square)
    g.save("grid_square_labels", measure.grid_points_in_poly((6, 6), square, binarize=False))

    contour = measure.find_contours(smooth, 0.5)[0]
    g.save("approx_in", contour)
    for tol in (0.0, 0.5, 2.0):
        g.save(f"approx_t{tol}".replace(".", "_"), measure.approximate_polygon(contour, tol))

    closed = np.array([[0.0, 0.0], [0.0, 4.0], [3.0, 5.0], [6.0, 2.0], [4.0, -1.0], [0.0, 0.0]])
    open_ = np.array([[0.0, 0.0], [1.0, 3.0], [4.0, 4.0], [6.0, 1.0], [8.0, 3.0], [9.0, 7.0], [5.0, 9.0], [2.0, 8.0]])
    g.save("subdiv_closed", closed)
    g.save("subdiv_open", open_)
    for d in range(1, 8):
        g.save(f"subdiv_closed_d{d}", measure.subdivide_polygon(closed, degree=d))
        for pe in (False, True):
            g.save(f"subdiv_open_d{d}_pe{int(pe)}", measure.subdivide_polygon(open_, degree=d, preserve_ends=pe))

    # ---- profile_line ---------------------------------------------------------------------------
    cam = g.camera()
    camf = cam.astype(np.float64) / 255
    g.save("profile_cam", cam)
    g.save("profile_camf", camf)
    astro = g.astronaut()
    g.save("profile_astro", astro)
    lines = {
        # name: (src, dst, linewidth, order, mode, reduce)
        "diag": ((5, 7), (100, 90), 1, None, "reflect", "mean"),
        "wide": ((20, 3), (60, 120), 5, None, "reflect", "mean"),
        "outside": ((-4, -6), (130, 40), 3, 1, "constant", "mean"),
        "wrap": ((-3, 2), (50, 135), 4, 1, "wrap", "mean"),
        "mirror": ((126, -2), (-2, 60), 3, 1, "mirror", "mean"),
        "nearest": ((0, 0), (127, 131), 2, 0, "nearest", "mean"),
        "none": ((10, 10), (30, 50), 3, 1, "reflect", "none"),
        "reverse": ((90, 100), (10, 20), 1, 0, "reflect", "mean"),
    }
    for name, (src, dst, lw, order, mode, red) in lines.items():
        rf = np.mean if red == "mean" else None
        g.save(f"profile_{name}_cam", measure.profile_line(cam, src, dst, linewidth=lw, order=order, mode=mode,
                                                           reduce_func=rf))
        g.save(f"profile_{name}_camf", measure.profile_line(camf, src, dst, linewidth=lw, order=order, mode=mode,
                                                            reduce_func=rf))
    g.save("profile_astro_out", measure.profile_line(astro, (3, 4), (60, 50), linewidth=3))
    g.save("profile_astro_none", measure.profile_line(astro, (3, 4), (60, 50), linewidth=2, reduce_func=None))
    g.save("profile_max", measure.profile_line(camf, (5, 7), (100, 90), linewidth=4, reduce_func=np.max))
    bimg = cam > 100
    g.save("profile_bool_in", bimg)
    g.save("profile_bool", measure.profile_line(bimg, (5, 7), (100, 90), linewidth=3))

    # ---- block_reduce ---------------------------------------------------------------------------
    u8 = rng.integers(0, 256, (7, 9)).astype(np.uint8)
    f3 = rng.random((5, 6, 7))
    f3n = f3.copy()
    f3n[1, 2, 3] = np.nan
    i16 = rng.integers(-300, 300, (11, 10)).astype(np.int16)
    g.save("block_u8", u8)
    g.save("block_f3", f3)
    g.save("block_f3n", f3n)
    g.save("block_i16", i16)
    g.save("block_f32", f3.astype(np.float32))
    funcs = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "median": np.median}
    for fname, f in funcs.items():
        g.save(f"block_u8_{fname}", measure.block_reduce(u8, (2, 4), func=f))
        g.save(f"block_u8_{fname}_cval", measure.block_reduce(u8, (3, 2), func=f, cval=7))
        g.save(f"block_f3_{fname}", measure.block_reduce(f3, 2, func=f, cval=0.5))
        g.save(f"block_f3n_{fname}", measure.block_reduce(f3n, (2, 3, 3), func=f))
        g.save(f"block_i16_{fname}", measure.block_reduce(i16, (4, 3), func=f, cval=-5))
        g.save(f"block_f32_{fname}", measure.block_reduce(f3.astype(np.float32), (1, 3, 2), func=f))
    g.save("block_big_median", measure.block_reduce(f3, (5, 6, 3), func=np.median))

    # ---- shannon_entropy ------------------------------------------------------------------------
    fe = np.round(rng.random((20, 20)) * 5, 0) / 5
    fe[0, :5] = np.nan
    fe[1, :3] = -0.0
    g.save("entropy_f", fe)
    for b in (2, np.e, 10):
        tag = {2: "2", np.e: "e", 10: "10"}[b]
        scalar(g, f"entropy_cam_b{tag}", measure.shannon_entropy(cam, base=b))
        scalar(g, f"entropy_f_b{tag}", measure.shannon_entropy(fe, base=b))
    scalar(g, "entropy_bool", measure.shannon_entropy(bimg))

    # ---- perimeter, perimeter_crofton, euler_number ---------------------------------------------
    b2 = blobs(rng, (50, 60))
    b3 = blobs(rng, (12, 14, 16), sigma=1.0)
    g.save("perim_b2", b2)
    g.save("perim_b3", b3)
    g.save("perim_coins", g.coins() > 110)
    for name, img in (("b2", b2), ("coins", g.coins() > 110)):
        for n in (4, 8):
            scalar(g, f"perimeter_{name}_n{n}", measure.perimeter(img, neighborhood=n))
        for d in (2, 4):
            scalar(g, f"crofton_{name}_d{d}", measure.perimeter_crofton(img, directions=d))
        for c in (1, 2):
            scalar(g, f"euler_{name}_c{c}", measure.euler_number(img, connectivity=c))
    for c in (1, 3):
        scalar(g, f"euler_b3_c{c}", measure.euler_number(b3, connectivity=c))

    # ---- blur_effect ----------------------------------------------------------------------------
    for h in (11, 5):
        scalar(g, f"blur_cam_h{h}", measure.blur_effect(cam, h_size=h))
    g.save("blur_cam_axes", np.array(measure.blur_effect(cam, reduce_func=None)))
    scalar(g, "blur_camf_blurred", measure.blur_effect(ndi.gaussian_filter(camf, 2)))
    g.save("blur_camf_blurred_in", ndi.gaussian_filter(camf, 2))
    scalar(g, "blur_astro", measure.blur_effect(astro, channel_axis=-1))
    scalar(g, "blur_astro_mean", measure.blur_effect(astro, channel_axis=2, reduce_func=np.mean))
    scalar(g, "blur_f3", measure.blur_effect(f3, h_size=3))

    # ---- colocalisation -------------------------------------------------------------------------
    a = ndi.gaussian_filter(rng.random((30, 40)), 2)
    b = 0.6 * a + 0.4 * ndi.gaussian_filter(rng.random((30, 40)), 2)
    m = rng.random((30, 40)) > 0.3
    m1 = b > np.median(b)
    m0 = a > np.median(a)
    g.save("coloc_a", a)
    g.save("coloc_b", b)
    g.save("coloc_mask", m)
    g.save("coloc_m0", m0)
    g.save("coloc_m1", m1)
    r, p = measure.pearson_corr_coeff(a, b)
    g.save("pearson", np.array([r, p]))
    r, p = measure.pearson_corr_coeff(a, b, mask=m)
    g.save("pearson_mask", np.array([r, p]))
    small_a, small_b = a[:3, :2], b[:3, :2]
    g.save("coloc_small_a", small_a)
    g.save("coloc_small_b", small_b)
    r, p = measure.pearson_corr_coeff(small_a, small_b)
    g.save("pearson_small", np.array([r, p]))
    scalar(g, "manders_coloc", measure.manders_coloc_coeff(a, m1))
    scalar(g, "manders_coloc_mask", measure.manders_coloc_coeff(a, m1, mask=m))
    scalar(g, "manders_overlap", measure.manders_overlap_coeff(a, b))
    scalar(g, "manders_overlap_mask", measure.manders_overlap_coeff(a, b, mask=m))
    scalar(g, "intersection", measure.intersection_coeff(m0, m1))
    scalar(g, "intersection_mask", measure.intersection_coeff(m0, m1, mask=m))
    u16a = rng.integers(0, 200, (30, 40)).astype(np.uint16)
    u16b = rng.integers(0, 200, (30, 40)).astype(np.uint16)
    g.save("coloc_u16a", u16a)
    g.save("coloc_u16b", u16b)
    scalar(g, "manders_overlap_u16", measure.manders_overlap_coeff(u16a, u16b))
    r, p = measure.pearson_corr_coeff(u16a, u16b)
    g.save("pearson_u16", np.array([r, p]))
