"""Smoothing and edge filters for compare.py: gaussian (sigma 1 and 3), difference_of_gaussians,
unsharp_mask, sobel/sobel_h/scharr/farid/laplace/roberts on float32 images through raw CuPy
(cupyx.scipy.ndimage with scikit-image's kernels), cuCIM and scikit-image. Our benchmarks:
bench/filters/bench_edges.cpp (BM_Gaussian3_f32, BM_Sobel_f32, ...).
"""
import math

from compare import Op

_SMOOTH = {"sobel": [0.25, 0.5, 0.25], "scharr": [3 / 16, 10 / 16, 3 / 16]}


def _edge_kernel(np, smooth, axis):
    edge = np.array([1.0, 0.0, -1.0])
    s = np.array(smooth)
    return np.outer(edge, s) if axis == 0 else np.outer(s, edge)


def _cupy_edge(name):
    def run(L, x):
        cp, ndi = L.cp, L.ndi
        h = ndi.convolve(x, cp.asarray(_edge_kernel(L.np, _SMOOTH[name], 0), dtype=x.dtype), mode="reflect")
        v = ndi.convolve(x, cp.asarray(_edge_kernel(L.np, _SMOOTH[name], 1), dtype=x.dtype), mode="reflect")
        return cp.sqrt(h * h + v * v) / cp.float32(math.sqrt(2))
    return run


def _cupy_unsharp(L, x):
    b = L.ndi.gaussian_filter(x, 2.0, mode="reflect")
    return x + (x - b) * 1.0


def _cupy_laplace(L, x):
    k = L.cp.asarray([[0, -1, 0], [-1, 4, -1], [0, -1, 0]], dtype=x.dtype)
    return L.ndi.convolve(x, k, mode="reflect")


PLANAR = ((512, 512), (2160, 3840), (8192, 8192))  # the 2-D-only filters


OPS = [
    Op("gaussian(sigma=3)", "float32", r"BM_Gaussian3_f32",
       cupy=lambda L, x: L.ndi.gaussian_filter(x, 3.0, mode="nearest"),
       cucim=lambda L, x: L.cucim.filters.gaussian(x, sigma=3.0),
       skimage=lambda L, x: L.skimage.filters.gaussian(x, sigma=3.0)),
    Op("gaussian(sigma=1)", "float32", r"BM_Gaussian1_f32",
       cupy=lambda L, x: L.ndi.gaussian_filter(x, 1.0, mode="nearest"),
       cucim=lambda L, x: L.cucim.filters.gaussian(x, sigma=1.0),
       skimage=lambda L, x: L.skimage.filters.gaussian(x, sigma=1.0)),
    Op("difference_of_gaussians(1)", "float32", r"BM_DoG_f32",
       cupy=lambda L, x: L.ndi.gaussian_filter(x, 1.0, mode="nearest") - L.ndi.gaussian_filter(x, 1.6, mode="nearest"),
       cucim=lambda L, x: L.cucim.filters.difference_of_gaussians(x, 1.0),
       skimage=lambda L, x: L.skimage.filters.difference_of_gaussians(x, 1.0)),
    Op("unsharp_mask(radius=2)", "float32", r"BM_Unsharp_f32",
       cupy=_cupy_unsharp,
       cucim=lambda L, x: L.cucim.filters.unsharp_mask(x, radius=2.0, preserve_range=True),
       skimage=lambda L, x: L.skimage.filters.unsharp_mask(x, radius=2.0, preserve_range=True)),
] + [
    Op(name, "float32", rf"BM_{bench}_f32",
       cupy=_cupy_edge(name) if name in _SMOOTH else None,
       cucim=(lambda fn: lambda L, x: getattr(L.cucim.filters, fn)(x))(name),
       skimage=(lambda fn: lambda L, x: getattr(L.skimage.filters, fn)(x))(name))
    for name, bench in (("sobel", "Sobel"), ("scharr", "Scharr"), ("farid", "Farid"))
] + [
    Op("sobel_h", "float32", r"BM_SobelH_f32",
       cupy=lambda L, x: L.ndi.convolve(x, L.cp.asarray(_edge_kernel(L.np, _SMOOTH["sobel"], 0), dtype=x.dtype)),
       cucim=lambda L, x: L.cucim.filters.sobel_h(x),
       skimage=lambda L, x: L.skimage.filters.sobel_h(x),
       shapes=PLANAR),
    Op("laplace", "float32", r"BM_Laplace_f32",
       cupy=_cupy_laplace,
       cucim=lambda L, x: L.cucim.filters.laplace(x),
       skimage=lambda L, x: L.skimage.filters.laplace(x),
       shapes=PLANAR),
    Op("roberts", "float32", r"BM_Roberts_f32",
       cucim=lambda L, x: L.cucim.filters.roberts(x),
       skimage=lambda L, x: L.skimage.filters.roberts(x),
       shapes=PLANAR),
]
