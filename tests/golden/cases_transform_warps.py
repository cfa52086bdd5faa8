"""Golden outputs of skimage.transform._warps (scikit-image 0.26) for tests/transform/test_warps*.cpp
(loaded as "transform_warps/<name>.npy").

  fast_<f32|f64>_<H>_o<order>_<mode>.npy   _warp_fast (scikit-image's own interpolation, orders
                                           0..3) of in_fast_<dtype> under the matrices mat_<H>
                                           (metric, affine, projective), output (24, 28), cval 0.25
"""
import numpy as np
from skimage.transform._warps_cy import _warp_fast

MODES = ["constant", "edge", "symmetric", "reflect", "wrap"]


def matrices():
    a = np.deg2rad(23.0)
    return {
        "metric": np.array([[1.3, 0.0, -4.25], [0.0, 0.7, 3.5], [0.0, 0.0, 1.0]]),
        "affine": np.array([[np.cos(a) * 1.2, -np.sin(a), 6.3], [np.sin(a), np.cos(a) * 0.9, -7.1], [0, 0, 1]]),
        "proj": np.array([[0.9, 0.12, 3.0], [-0.07, 1.1, -2.0], [0.002, -0.003, 1.0]]),
    }


def generate(g):
    rng = g.rng(2026)
    img = rng.uniform(-3, 5, (19, 23))
    g.save("in_fast_f64", img)
    g.save("in_fast_f32", img.astype(np.float32))
    for hname, m in matrices().items():
        g.save(f"mat_{hname}", m)
        for key, dt, ct in (("f64", np.float64, "float64_t"), ("f32", np.float32, "float32_t")):
            im = img.astype(dt)
            for order in range(4):
                for mode in MODES:
                    out = _warp_fast[ct](im, m.astype(dt), output_shape=np.array([24, 28]), order=order,
                                         mode=mode, cval=0.25)
                    g.save(f"fast_{key}_{hname}_o{order}_{mode}", out)
