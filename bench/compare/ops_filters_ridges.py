"""Ridge filters for compare.py: frangi, hessian, meijering and sato with scikit-image's default
scales (1, 3, 5, 7, 9) on float32 images, through cuCIM, scikit-image and a raw CuPy version of the
same algorithm (cupyx.scipy.ndimage.gaussian_filter for the Hessian, the eigenvalues by formula in
2-D and cupy.linalg.eigvalsh in 3-D, the response as array expressions). Our benchmarks:
bench/filters/bench_ridges.cpp (BM_Frangi_f32, ...).
"""
import math

from compare import Op

SIGMAS = (1, 3, 5, 7, 9)


def _hessian(L, x, sigma):
    """skimage.feature.hessian_matrix(x, sigma, mode='reflect', use_gaussian_derivatives=True)."""
    ndi = L.ndi
    truncate = 8 if sigma > 1 else 100
    s = sigma / math.sqrt(2)
    n = x.ndim
    orders = [[int(d == a) for d in range(n)] for a in range(n)]
    grads = [ndi.gaussian_filter(x, s, order=orders[a], mode="reflect", truncate=truncate) for a in range(n)]
    return [ndi.gaussian_filter(grads[a], s, order=orders[b], mode="reflect", truncate=truncate)
            for a in range(n) for b in range(a, n)]


def _eigvals(L, h, n):
    """Decreasing eigenvalues, leading axis."""
    cp = L.cp
    if n == 2:
        a, b, c = h
        half = (a + c) / 2
        r = cp.sqrt(b * b + ((a - c) / 2) ** 2)
        return cp.stack([half + r, half - r])
    idx = {(0, 0): 0, (0, 1): 1, (0, 2): 2, (1, 1): 3, (1, 2): 4, (2, 2): 5}
    m = cp.empty(h[0].shape + (3, 3), h[0].dtype)
    for (i, j), k in idx.items():
        m[..., i, j] = h[k]
        m[..., j, i] = h[k]
    return cp.moveaxis(cp.linalg.eigvalsh(m)[..., ::-1], -1, 0)


def _cupy_ridge(kind):
    def run(L, x):
        cp = L.cp
        n = x.ndim
        out = cp.zeros_like(x)
        gamma = None
        for sigma in SIGMAS:
            e = _eigvals(L, _hessian(L, x, sigma), n)
            if kind == "sato":
                v = sigma ** 2 * cp.prod(cp.maximum(e[:-1], 0), 0) ** (1 / (n - 1))
            elif kind == "meijering":
                alpha = 1 / (n + 1)
                v = e + alpha * (e.sum(0) - e)
                v = cp.take_along_axis(v, cp.abs(v).argmax(0)[None], 0)[0]
                v = cp.maximum(v, 0)
                mx = v.max()
                v = cp.where(mx > 0, v / mx, v)
            else:  # frangi / hessian
                e = cp.take_along_axis(e, cp.abs(e).argsort(0), 0)
                l1 = e[0]
                if n == 2:
                    rb = cp.abs(l1) / cp.maximum(e[1], 1e-10)
                    plate = 1.0
                else:
                    l2, l3 = cp.maximum(e[1], 1e-10), cp.maximum(e[2], 1e-10)
                    rb = cp.abs(l1) / cp.sqrt(l2 * l3)
                    plate = 1 - cp.exp(-(l2 / l3) ** 2 / 0.5)
                s = cp.sqrt((e ** 2).sum(0))
                if kind == "hessian":
                    gamma = 15
                elif gamma is None:
                    gamma = s.max() / 2
                v = plate * cp.exp(-rb ** 2 / 0.5) * (1 - cp.exp(-s ** 2 / (2 * gamma ** 2)))
            out = cp.maximum(out, v)
        if kind == "hessian":
            out[out <= 0] = 1
        return out
    return run


OPS = [
    Op(name, "float32", rf"(?<![a-z]){name}(?![a-z])",
       cupy=_cupy_ridge(name),
       cucim=(lambda fn: lambda L, x: getattr(L.cucim.filters, fn)(x))(name),
       skimage=(lambda fn: lambda L, x: getattr(L.skimage.filters, fn)(x))(name),
       note="default sigmas (1, 3, 5, 7, 9)")
    for name in ("frangi", "hessian", "meijering", "sato")
]
