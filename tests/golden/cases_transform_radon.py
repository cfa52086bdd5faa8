"""Golden outputs of skimage.transform's radon_transform and finite_radon_transform for
tests/transform/test_radon.cpp and test_frt.cpp (loaded as "transform_radon/<name>.npy").
frt2 / ifrt2: in_<key>.npy square inputs (uint8 17x17, int16 with negatives 13x13,
float64 11x11, bool 7x7), frt_<key>.npy = frt2(in); ifrt_<key>.npy = ifrt2(frt_<key>) for the
uint32 transforms; ifrt_u8raw.npy = ifrt2 of a uint8 (18, 17) array (numpy's wrap-around).
"""
import warnings

import numpy as np
from skimage.transform import frt2, ifrt2


def _frt_cases(g):
    rng = g.rng(77)
    ins = {
        "u8": rng.integers(0, 256, (17, 17)).astype(np.uint8),
        "i16": rng.integers(-300, 300, (13, 13)).astype(np.int16),
        "f64": rng.uniform(0, 50, (11, 11)),
        "b": rng.random((7, 7)) > 0.5,
    }
    for key, a in ins.items():
        g.save(f"in_{key}", a)
        f = frt2(a)
        g.save(f"frt_{key}", f)
        g.save(f"ifrt_{key}", ifrt2(f))
    raw = rng.integers(0, 256, (18, 17)).astype(np.uint8)
    g.save("raw_u8", raw)
    g.save("ifrt_u8raw", ifrt2(raw))


def _sart_cases(g):
    """SART: sino_<k> sinograms (float64 from radon of a disc phantom, 32 x 18; a float32 copy; a
    uint8 one); sart_<case>.npy the reconstructions; golden_<k>.npy order_angles_golden_ratio."""
    from skimage.transform import iradon_sart, order_angles_golden_ratio, radon
    yy, xx = np.mgrid[:32, :32]
    ph = ((yy - 14) ** 2 + (xx - 17) ** 2 < 60).astype(float) + 0.5 * ((yy - 20) ** 2 + (xx - 10) ** 2 < 12)
    theta = np.linspace(0, 180, 18, endpoint=False)
    sino = radon(ph, theta=theta)
    g.save("sart_phantom", ph)
    g.save("sino_f64", sino)
    g.save("sino_f32", sino.astype(np.float32))
    g.save("sino_u8", np.clip(sino * 10, 0, 255).astype(np.uint8))
    warnings.simplefilter("ignore")  # iradon_sart's cast-to-float warning for the uint8 sinogram
    g.save("sart_f64", iradon_sart(sino))
    g.save("sart_f64_theta", iradon_sart(sino, theta=theta))
    g.save("sart_f32", iradon_sart(sino.astype(np.float32)))
    g.save("sart_f64_as_f32", iradon_sart(sino, dtype=np.float32))
    g.save("sart_u8", iradon_sart(np.clip(sino * 10, 0, 255).astype(np.uint8)))
    first = iradon_sart(sino, theta=theta)  # passed as copies: iradon_sart updates `image` in place
    g.save("sart_f64_second", iradon_sart(sino, theta=theta, image=first.copy(), clip=(0, 1), relaxation=0.3))
    shifts = np.linspace(-1.5, 1.5, 18)
    g.save("sart_shifts", shifts)
    g.save("sart_f64_shift", iradon_sart(sino, projection_shifts=shifts))
    g.save("sart_f32_second", iradon_sart(sino.astype(np.float32), image=first.astype(np.float32),
                                          clip=(0.1, 0.9)))
    rng = g.rng(5)
    for k, th in enumerate([theta, rng.uniform(0, 180, 25), np.array([5.0, 170.0, 90.0, 90.5, 0.0])]):
        g.save(f"golden_theta_{k}", th)
        g.save(f"golden_{k}", np.array(list(order_angles_golden_ratio(th)), dtype=np.int64))
    th32 = rng.uniform(0, 180, 30).astype(np.float32)
    g.save("golden_theta_f32", th32)
    g.save("golden_f32", np.array(list(order_angles_golden_ratio(th32)), dtype=np.int64))


def _radon_cases(g):
    """radon: rin_<key> inputs (float64 disc phantom 32x32 zero outside the circle, uint8 29x36,
    float32 27x27); radon_<case>.npy outputs; rtheta.npy the fractional angles."""
    from skimage.transform import radon
    rng = g.rng(9)
    yy, xx = np.mgrid[:32, :32]
    ph = ((yy - 14) ** 2 + (xx - 17) ** 2 < 60) + 0.5 * ((yy - 20) ** 2 + (xx - 10) ** 2 < 12)
    u8 = rng.integers(0, 256, (29, 36)).astype(np.uint8)
    f32 = rng.uniform(0, 1, (27, 27)).astype(np.float32)
    g.save("rin_f64", ph)
    g.save("rin_u8", u8)
    g.save("rin_f32", f32)
    theta = np.array([0.0, 7.5, 33.3, 45.0, 90.0, 100.25, 135.0, 179.9, 180.0, 250.0, -20.0])
    g.save("rtheta", theta)
    g.save("radon_f64", radon(ph))
    g.save("radon_f64_theta", radon(ph, theta=theta))
    g.save("radon_f64_square", radon(ph, theta=theta, circle=False))
    g.save("radon_u8", radon(u8, theta=theta))
    g.save("radon_u8_square", radon(u8, theta=theta, circle=False))
    g.save("radon_u8_pr", radon(u8, theta=theta, preserve_range=True))
    g.save("radon_f32", radon(f32, theta=theta))
    g.save("radon_f32_square", radon(f32, theta=theta, circle=False))


def _iradon_cases(g):
    """iradon of the radon goldens: iradon_<case>.npy."""
    from skimage.transform import iradon, radon
    ph = np.load(g.dir / "rin_f64.npy")
    theta = np.linspace(0, 180, 24, endpoint=False)
    sino = radon(ph, theta=theta)
    g.save("rtheta_24", theta)
    g.save("isino", sino)
    g.save("isino_sq", radon(ph, theta=theta, circle=False))
    for f in ("ramp", "shepp-logan", "cosine", "hamming", "hann", None):
        g.save(f"iradon_{f}", iradon(sino, theta=theta, filter_name=f))
    g.save("iradon_default", iradon(sino))
    g.save("iradon_nearest", iradon(sino, theta=theta, interpolation="nearest"))
    g.save("iradon_cubic", iradon(sino, theta=theta, interpolation="cubic"))
    g.save("iradon_sq", iradon(np.load(g.dir / "isino_sq.npy"), theta=theta, circle=False))
    g.save("iradon_size", iradon(sino, theta=theta, output_size=20))
    g.save("iradon_f32", iradon(sino.astype(np.float32), theta=theta))
    u8 = np.clip(sino * 10, 0, 255).astype(np.uint8)
    g.save("isino_u8", u8)
    g.save("iradon_u8", iradon(u8, theta=theta, preserve_range=False))


def generate(g):
    _frt_cases(g)
    _sart_cases(g)
    warnings.simplefilter("ignore")  # radon's warning for images nonzero outside the circle
    _radon_cases(g)
    _iradon_cases(g)
