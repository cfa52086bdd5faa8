"""Golden outputs of skimage.transform.pyramids (scikit-image 0.26) for tests/transform/test_pyramids.cpp
(loaded as "transform_pyramids/<name>.npy").

  in_<key>                              inputs: f64 (37x29), f32, u8, rgb (21x17x3), vol (9x10x7)
  reduce_<key>_<variant>                pyramid_reduce
  expand_<key>_<variant>                pyramid_expand
  gauss_<key>_<variant>_<layer>         pyramid_gaussian layers
  lap_<key>_<variant>_<layer>           pyramid_laplacian layers
"""
import numpy as np
from skimage.transform import pyramid_reduce, pyramid_expand, pyramid_gaussian, pyramid_laplacian


def generate(g):
    rng = g.rng(80)
    ins = {
        "f64": rng.uniform(0, 1, (37, 29)),
        "f32": rng.uniform(0, 1, (37, 29)).astype(np.float32),
        "u8": rng.integers(0, 256, (37, 29)).astype(np.uint8),
        "rgb": rng.uniform(0, 1, (21, 17, 3)),
        "vol": rng.uniform(0, 1, (9, 10, 7)),
    }
    for k, a in ins.items():
        g.save(f"in_{k}", a)
    for key in ("f64", "f32", "u8", "vol"):
        g.save(f"reduce_{key}_default", pyramid_reduce(ins[key]))
        g.save(f"expand_{key}_default", pyramid_expand(ins[key]))
    g.save("reduce_f64_3", pyramid_reduce(ins["f64"], downscale=3, sigma=0.8, order=3, mode="constant", cval=0.5))
    g.save("reduce_f64_wrap", pyramid_reduce(ins["f64"], downscale=1.5, order=0, mode="wrap"))
    g.save("reduce_u8_pr", pyramid_reduce(ins["u8"], preserve_range=True))
    g.save("reduce_rgb_ca", pyramid_reduce(ins["rgb"], channel_axis=-1))
    g.save("expand_f64_3", pyramid_expand(ins["f64"], upscale=2.5, order=3, mode="constant", cval=0.5))
    g.save("expand_rgb_ca", pyramid_expand(ins["rgb"], channel_axis=-1))
    cases = {
        "f64_default": (ins["f64"], {}),
        "f32_default": (ins["f32"], {}),
        "f64_3": (ins["f64"], dict(max_layer=2, downscale=3, order=3)),
        "rgb_ca": (ins["rgb"], dict(channel_axis=-1)),
        "vol_default": (ins["vol"], {}),
    }
    for name, (a, kw) in cases.items():
        for i, layer in enumerate(pyramid_gaussian(a, **kw)):
            g.save(f"gauss_{name}_{i}", layer)
        for i, layer in enumerate(pyramid_laplacian(a, **kw)):
            g.save(f"lap_{name}_{i}", layer)
