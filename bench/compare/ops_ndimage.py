"""scipy.ndimage operations for compare.py: cupyx.scipy.ndimage (the cuCIM column: cuCIM's own
resize/rotate run on it) and scipy.ndimage on the CPU (the scikit-image column) against our
bench/ndimage benchmarks.
"""
import importlib

from compare import Op


def _scipy_ndi():
    return importlib.import_module("scipy.ndimage")


# ---- ndimage geometry (bench/ndimage/bench_geometry.cpp) ----------------------------------------
def _zoom_factor(x):
    return 1.5 if x.ndim == 3 else 0.5


def _affine_matrix(np, n):
    m = np.eye(n) * 0.95
    m[0, 1], m[1, 0] = 0.1, -0.1
    return m


def _geometry_ops():
    ops = []
    for order in (1, 3):
        pf = dict(order=order)
        ops += [
            Op(f"ndimage.zoom(order={order})", "float32", rf"BM_Zoom/\d+/{order}\b",
               cupy=(lambda kw: lambda L, x: L.ndi.zoom(x, _zoom_factor(x), mode="reflect", grid_mode=True, **kw))(pf),
               skimage=(lambda kw: lambda L, x: _scipy_ndi().zoom(x, _zoom_factor(x), mode="reflect", grid_mode=True,
                                                                 **kw))(pf)),
            Op(f"ndimage.shift(order={order})", "float32", rf"BM_Shift/\d+/{order}\b",
               cupy=(lambda kw: lambda L, x: L.ndi.shift(x, 2.3, mode="reflect", **kw))(pf),
               skimage=(lambda kw: lambda L, x: _scipy_ndi().shift(x, 2.3, mode="reflect", **kw))(pf)),
            Op(f"ndimage.affine_transform(order={order})", "float32", rf"BM_AffineTransform/\d+/{order}\b",
               cupy=(lambda kw: lambda L, x: L.ndi.affine_transform(
                   x, L.cp.asarray(_affine_matrix(L.np, x.ndim)), 2.5, mode="reflect", **kw))(pf),
               skimage=(lambda kw: lambda L, x: _scipy_ndi().affine_transform(
                   x, _affine_matrix(L.np, x.ndim), 2.5, mode="reflect", **kw))(pf)),
            Op(f"ndimage.rotate(30, order={order})", "float32", rf"BM_Rotate/\d+/{order}\b",
               cupy=(lambda kw: lambda L, x: L.ndi.rotate(x, 30, reshape=False, **kw))(pf),
               skimage=(lambda kw: lambda L, x: _scipy_ndi().rotate(x, 30, reshape=False, **kw))(pf)),
        ]
    return ops


OPS = _geometry_ops()
