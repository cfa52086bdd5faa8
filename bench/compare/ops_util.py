"""util ops for compare.py: the same work through raw CuPy, cuCIM and scikit-image.

Each Op's `bench` regex finds our Google Benchmark (bench/util) by name; the callables take
(L, x): L holds the libraries (L.cp, L.cucim, L.skimage, L.np), x the input on the right device.
"""
from compare import Op

_kernels = {}


def _kernel(cp, key, in_params, out_params, body):
    """An ElementwiseKernel, built once per process."""
    if key not in _kernels:
        _kernels[key] = cp.ElementwiseKernel(in_params, out_params, body, "cusk_compare_" + key)
    return _kernels[key]


def _cupy_to_ubyte(L, x):
    # One pass: clamp to [0, 1], scale, round half to even (as numpy.rint), narrow.
    k = _kernel(L.cp, "to_ubyte", "float32 x", "uint8 y",
                "y = (unsigned char)rintf(fminf(fmaxf(x, 0.f), 1.f) * 255.f)")
    return k(x)


def _cupy_gaussian_noise(L, x):
    cp = L.cp
    rng = cp.random.default_rng(0)
    noise = rng.standard_normal(x.shape, dtype=cp.float32)
    # x + sqrt(var) * noise, clipped to [0, 1] (var = 0.01, scikit-image's default)
    k = _kernel(cp, "add_noise", "float32 x, float32 n", "float32 y",
                "y = fminf(fmaxf(x + 0.1f * n, 0.f), 1.f)")
    return k(x, noise)


def _cucim_random_noise(L, x):
    try:
        return L.cucim.util.random_noise(x, mode="gaussian", rng=0)
    except TypeError:  # cuCIM releases before the rng keyword
        return L.cucim.util.random_noise(x, mode="gaussian", seed=0)


CROP = 16  # pixels removed from each side of each axis

OPS = [
    Op("img_as_float32", "uint8", r"img_?as_?float_?32|imgasfloat32",
       cupy=lambda L, x: L.cp.multiply(x, L.cp.float32(1 / 255), dtype=L.cp.float32),
       cucim=lambda L, x: L.cucim.util.img_as_float32(x),
       skimage=lambda L, x: L.skimage.util.img_as_float32(x)),
    Op("invert", "uint8", r"invert",
       cupy=lambda L, x: L.cp.invert(x),  # 255 - x for uint8
       cucim=lambda L, x: L.cucim.util.invert(x),
       skimage=lambda L, x: L.skimage.util.invert(x)),
    Op("img_as_ubyte", "float32", r"img_?as_?ubyte|imgasubyte",
       cupy=_cupy_to_ubyte,
       cucim=lambda L, x: L.cucim.util.img_as_ubyte(x),
       skimage=lambda L, x: L.skimage.util.img_as_ubyte(x)),
    Op("img_as_float", "uint16", r"img_?as_?float(?!_?32|_?64)|imgasfloat(?!32|64)",
       cupy=lambda L, x: L.cp.multiply(x, 1 / 65535, dtype=L.cp.float64),
       cucim=lambda L, x: L.cucim.util.img_as_float(x),
       skimage=lambda L, x: L.skimage.util.img_as_float(x)),
    Op("random_noise gaussian", "float32", r"random_?noise",
       cupy=_cupy_gaussian_noise,
       cucim=_cucim_random_noise,
       skimage=lambda L, x: L.skimage.util.random_noise(x, mode="gaussian", rng=0)),
    Op("crop (copy)", "uint8", r"crop",
       cupy=lambda L, x: x[(slice(CROP, -CROP),) * x.ndim].copy(),
       cucim=lambda L, x: L.cucim.util.crop(x, CROP, copy=True),
       skimage=lambda L, x: L.skimage.util.crop(x, CROP, copy=True)),
]
