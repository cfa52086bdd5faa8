"""filters frequency-domain ops for compare.py: butterworth, wiener and gabor through CuPy
(cupy.fft / cupyx.scipy.ndimage doing scikit-image's steps), cuCIM and scikit-image.

Each Op's `bench` regex finds our Google Benchmark (bench/filters/bench_frequency.cpp) by name; the
callables take (L, x): L holds the libraries, x the input on the right device.
"""
from compare import Op, STANDARD_SHAPES

SHAPES_2D = tuple(s for s in STANDARD_SHAPES if len(s) == 2)


def _gauss(xp):
    def h(r, c):
        return xp.exp(-(r**2 + c**2) / 2)
    return h


def _cupy_butterworth(L, x):
    # scikit-image's defaults: squared high-pass, cutoff 0.005, order 2, rfftn -> gain -> irfftn.
    cp = L.cp
    f = x.astype(cp.float32) if x.dtype != cp.float32 else x
    q2 = None
    for i, d in enumerate(f.shape):
        n = d // 2 + 1 if i == f.ndim - 1 else d
        k = cp.fft.fftfreq(d)[:n] * d / (d * 0.005)
        k = (k * k).reshape((-1,) + (1,) * (f.ndim - 1 - i))
        q2 = k if q2 is None else q2 + k
    q2 = cp.power(q2.astype(cp.float32), 2.0)
    w = q2 / (1 + q2)
    return cp.fft.irfftn(w * cp.fft.rfftn(f), s=f.shape)


def _cupy_wiener(L, x):
    # LPIFilter2D's steps: odd impulse grid, zero padding to (2M-1, 2N-1), fftn, Wiener gain, ifftn,
    # ifftshift, centre crop (the impulse spectrum is recomputed each call here; ours is cached).
    cp = L.cp
    m, n = x.shape
    o = (2 * m - 1, 2 * n - 1)
    d0, d1 = m + (m % 2 == 0), n + (n % 2 == 0)
    r = cp.arange(d0, dtype=cp.float32)[:, None] + (m % 2 == 0) - (d0 - 1) / 2
    c = cp.arange(d1, dtype=cp.float32)[None, :] + (n % 2 == 0) - (d1 - 1) / 2
    F = cp.fft.fftn(_gauss(cp)(r, c), s=o)
    G = cp.fft.fftn(x, s=o)
    H = cp.abs(F) ** 2
    out = cp.abs(cp.fft.ifftshift(cp.fft.ifftn(G * (1 / F * H / (H + 0.25)))))
    s0, s1 = (o[0] - m) // 2, (o[1] - n) // 2
    return out[s0:s0 + m, s1:s1 + n]


def _cupy_gabor(L, x):
    import skimage.filters as skf
    g = L.cp.asarray(skf.gabor_kernel(0.2, dtype=L.np.complex64))
    return (L.ndi.convolve(x, g.real.astype(L.cp.float32)), L.ndi.convolve(x, g.imag.astype(L.cp.float32)))


def _cucim_wiener(L, x):
    return L.cucim.filters.wiener(x, _gauss(L.cp))


def _skimage_wiener(L, x):
    return L.skimage.filters.wiener(x, _gauss(L.np))


OPS = [
    Op("butterworth", "float32", r"^BM_Butterworth_f32",
       cupy=_cupy_butterworth,
       cucim=lambda L, x: L.cucim.filters.butterworth(x),
       skimage=lambda L, x: L.skimage.filters.butterworth(x)),
    Op("butterworth (uint8 in)", "uint8", r"^BM_Butterworth_u8",
       cupy=lambda L, x: _cupy_butterworth(L, x.astype(L.cp.float64)),
       cucim=lambda L, x: L.cucim.filters.butterworth(x),
       skimage=lambda L, x: L.skimage.filters.butterworth(x)),
    Op("wiener (gaussian impulse)", "float32", r"^BM_Wiener_f32",
       cupy=_cupy_wiener, cucim=_cucim_wiener, skimage=_skimage_wiener, shapes=SHAPES_2D,
       note="our LPIFilter2D caches the impulse spectrum across calls, as scikit-image's does"),
    Op("gabor", "float32", r"^BM_Gabor_f32",
       cupy=_cupy_gabor,
       cucim=lambda L, x: L.cucim.filters.gabor(x, 0.2),
       skimage=lambda L, x: L.skimage.filters.gabor(x, 0.2),
       shapes=SHAPES_2D),
]
