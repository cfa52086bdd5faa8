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
    warp_cases(g)
    more_cases(g)
    resize_cases(g)


def warp_cases(g):
    """warp / rotate goldens:
      in_<key>.npy                     inputs: f64, f32, u8, u16, b (bool), rgb (float64 3 channels),
                                       vol (3-D float64)
      warp_<key>_<H>_o<order>_<mode>   warp(in, mat_<H>, output_shape=(24, 28), order, mode, cval)
                                       (cval 0.25 for floats, 0 otherwise)
      warp_<key>_<H>_<variant>         noclip, cvalout (cval=-2), pr (preserve_range), shape3
      warp_coords_<key>_o<order>_<m>   warp(in, coordinate map co_<key>, order, mode)
      warp_shift_<key>_o<order>        warp(in, shift callable (x + 2.5, y - 1.25), order, mode wrap)
      rot_<key>_<angle>_<variant>      rotate(in, angle, ...)
    """
    from skimage.transform import warp, rotate, ProjectiveTransform
    rng = g.rng(77)
    ins = {
        "f64": rng.uniform(0, 1, (19, 23)),
        "f32": rng.uniform(-1, 2, (19, 23)).astype(np.float32),
        "u8": rng.integers(0, 256, (19, 23)).astype(np.uint8),
        "u16": rng.integers(0, 65536, (19, 23)).astype(np.uint16),
        "b": rng.uniform(0, 1, (19, 23)) > 0.5,
        "rgb": rng.uniform(0, 1, (13, 15, 3)),
        "vol": rng.uniform(0, 1, (6, 7, 8)),
    }
    for k, a in ins.items():
        g.save(f"in_{k}", a)
    mats = matrices()
    shape = (24, 28)

    def cv(a):
        return 0.25 if a.dtype.kind == "f" else 0.0

    for key in ("f64", "f32"):
        for order in range(6):
            for mode in MODES:
                g.save(f"warp_{key}_affine_o{order}_{mode}",
                       warp(ins[key], mats["affine"], output_shape=shape, order=order, mode=mode, cval=cv(ins[key])))
    for order in range(6):
        for mode in ("constant", "wrap"):
            g.save(f"warp_f64_proj_o{order}_{mode}",
                   warp(ins["f64"], ProjectiveTransform(mats["proj"]), output_shape=shape, order=order, mode=mode,
                        cval=0.25))
    for order in (0, 1, 3):
        for mode in ("constant", "reflect"):
            g.save(f"warp_u8_affine_o{order}_{mode}",
                   warp(ins["u8"], mats["affine"], output_shape=shape, order=order, mode=mode))
    for mode in MODES:
        g.save(f"warp_b_affine_o0_{mode}", warp(ins["b"], mats["affine"], output_shape=shape, mode=mode))
    g.save("warp_u16_affine_pr", warp(ins["u16"], mats["affine"], output_shape=shape, preserve_range=True))
    g.save("warp_u16_affine_o0", warp(ins["u16"], mats["affine"], output_shape=shape, order=0, mode="edge"))
    g.save("warp_f64_affine_noclip", warp(ins["f64"], mats["affine"], output_shape=shape, order=3, clip=False))
    for order in (1, 3, 5):
        g.save(f"warp_f64_affine_cvalout_o{order}",
               warp(ins["f64"], mats["affine"], output_shape=shape, order=order, cval=-2.0))
    for order in (0, 1, 3, 5):
        g.save(f"warp_rgb_affine_o{order}_reflect", warp(ins["rgb"], mats["affine"], order=order, mode="reflect"))
    g.save("warp_rgb_affine_shape2", warp(ins["rgb"], mats["affine"], output_shape=(10, 12), order=2))
    co2 = np.stack(np.meshgrid(np.linspace(-2.3, 20.1, 9), np.linspace(-1.7, 24.2, 11), indexing="ij"))
    g.save("co_f64", co2)
    co3 = rng.uniform(-1.5, 8.5, (3, 5, 6, 4))
    g.save("co_vol", co3)
    for order in range(6):
        for mode in ("constant", "symmetric"):
            g.save(f"warp_coords_f64_o{order}_{mode}", warp(ins["f64"], co2, order=order, mode=mode))
            g.save(f"warp_coords_vol_o{order}_{mode}", warp(ins["vol"], co3, order=order, mode=mode))

    def shift(xy):
        return xy + np.array([2.5, -1.25])

    for order in (0, 1, 3, 4):
        g.save(f"warp_shift_f64_o{order}", warp(ins["f64"], shift, order=order, mode="wrap"))
        g.save(f"warp_shift_rgb_o{order}", warp(ins["rgb"], shift, order=order, mode="wrap"))
    for key in ("f64", "f32", "u8", "rgb"):
        for angle in (30, -17.5):
            g.save(f"rot_{key}_{angle}_plain", rotate(ins[key], angle))
            g.save(f"rot_{key}_{angle}_resize", rotate(ins[key], angle, resize=True, mode="reflect", order=3))
            g.save(f"rot_{key}_{angle}_center", rotate(ins[key], angle, center=(3, 4.5), order=0, mode="edge"))
    g.save("rot_b_30_plain", rotate(ins["b"], 30))


def more_cases(g):
    """swirl, warp_polar, resize_local_mean, downscale_local_mean goldens:
      swirl_<key>_<variant>          swirl(in_<key>, ...)
      polar_<key>_<variant>          warp_polar(in_<key>, ...)
      rlm_<key>_<shape>_<grid>       resize_local_mean(in_<key>, shape, grid_mode)
      dlm_<key>_<factors>            downscale_local_mean(in_<key>, factors, cval)
    """
    from skimage.transform import swirl, warp_polar, resize_local_mean, downscale_local_mean
    rng = g.rng(78)
    f64 = rng.uniform(0, 1, (19, 23))
    rgb = rng.uniform(0, 1, (13, 15, 3))
    u8 = rng.integers(0, 256, (19, 23)).astype(np.uint8)
    f32 = rng.uniform(0, 1, (19, 23)).astype(np.float32)
    vol = rng.uniform(0, 1, (6, 7, 8))
    for k, a in {"f64": f64, "rgb": rgb, "u8": u8, "f32": f32, "vol": vol}.items():
        g.save(f"lm_in_{k}", a)
    g.save("swirl_f64_default", swirl(f64))
    g.save("swirl_f64_strong", swirl(f64, center=(5, 7.5), strength=4, radius=12, rotation=0.3, order=3,
                                     mode="constant", cval=0.5))
    g.save("swirl_rgb_o0", swirl(rgb, strength=2, radius=8, order=0, output_shape=(10, 11)))
    g.save("swirl_u8_pr", swirl(u8, strength=2, radius=10, preserve_range=True))
    g.save("polar_f64_linear", warp_polar(f64))
    g.save("polar_f64_log", warp_polar(f64, radius=9, output_shape=(40, 30), scaling="log", order=3))
    g.save("polar_f64_center", warp_polar(f64, center=(4, 6.5), radius=7, output_shape=(20, 16), mode="wrap"))
    g.save("polar_rgb_ca", warp_polar(rgb, channel_axis=-1, output_shape=(36, 10)))
    g.save("polar_rgb_ca0", warp_polar(np.moveaxis(rgb, -1, 0).copy(), channel_axis=0, output_shape=(36, 10)))
    g.save("lm_in_rgb0", np.moveaxis(rgb, -1, 0).copy())
    for key, a in (("f64", f64), ("u8", u8), ("f32", f32)):
        for shape in ((7, 9), (30, 41), (19, 5)):
            for grid in (True, False):
                g.save(f"rlm_{key}_{shape[0]}x{shape[1]}_{int(grid)}", resize_local_mean(a, shape, grid_mode=grid))
    g.save("rlm_rgb_ca", resize_local_mean(rgb, (7, 9), channel_axis=-1))
    g.save("rlm_rgb0_ca", resize_local_mean(np.moveaxis(rgb, -1, 0).copy(), (7, 9), channel_axis=0))
    g.save("rlm_vol", resize_local_mean(vol, (4, 9, 5)))
    g.save("rlm_u8_pr", resize_local_mean(u8, (8, 8), preserve_range=True))
    for key, a in (("f64", f64), ("u8", u8), ("f32", f32), ("vol", vol)):
        fac = (2, 3) if a.ndim == 2 else (2, 3, 3)
        g.save(f"dlm_{key}", downscale_local_mean(a, fac, cval=0.5))


def resize_cases(g):
    """resize / rescale goldens:
      rs_in_<key>                          inputs (f64, f32, u8, b, rgb, vol)
      rs_<key>_<shape>_o<order>_<mode>_aa<0|1|d>   resize(...) (d: anti_aliasing default)
      rsc_<key>_<variant>                  rescale(...)
    """
    from skimage.transform import resize, rescale
    rng = g.rng(79)
    ins = {
        "f64": rng.uniform(0, 1, (19, 23)),
        "f32": rng.uniform(-1, 2, (19, 23)).astype(np.float32),
        "u8": rng.integers(0, 256, (19, 23)).astype(np.uint8),
        "b": rng.uniform(0, 1, (19, 23)) > 0.5,
        "rgb": rng.uniform(0, 1, (13, 15, 3)),
        "vol": rng.uniform(0, 1, (6, 7, 8)),
    }
    for k, a in ins.items():
        g.save(f"rs_in_{k}", a)
    for key in ("f64", "f32"):
        for shape in ((9, 11), (30, 41)):
            for order in range(6):
                for mode in MODES:
                    g.save(f"rs_{key}_{shape[0]}x{shape[1]}_o{order}_{mode}_aad",
                           resize(ins[key], shape, order=order, mode=mode, cval=0.25))
    g.save("rs_f64_9x11_o1_reflect_aa0", resize(ins["f64"], (9, 11), anti_aliasing=False))
    g.save("rs_f64_9x30_o3_reflect_sig", resize(ins["f64"], (9, 30), order=3, anti_aliasing=True,
                                                anti_aliasing_sigma=(1.5, 0.0)))
    g.save("rs_u8_9x11_o0_reflect_aad", resize(ins["u8"], (9, 11), order=0))
    g.save("rs_u8_9x11_o1_reflect_aad", resize(ins["u8"], (9, 11)))
    g.save("rs_u8_9x11_o1_reflect_pr", resize(ins["u8"], (9, 11), preserve_range=True))
    g.save("rs_b_9x11_o0_reflect_aad", resize(ins["b"], (9, 11)))
    g.save("rs_b_30x41_o0_edge_aad", resize(ins["b"], (30, 41), mode="edge"))
    g.save("rs_rgb_7x9_o1_reflect_aad", resize(ins["rgb"], (7, 9)))
    g.save("rs_rgb_7x9x2_o1_reflect_aad", resize(ins["rgb"], (7, 9, 2)))
    g.save("rs_vol_3x9x4_o3_constant_aad", resize(ins["vol"], (3, 9, 4), order=3, mode="constant"))
    g.save("rs_f64_cvalout", resize(ins["f64"], (30, 41), order=3, mode="constant", cval=-1.0))
    g.save("rsc_f64_half", rescale(ins["f64"], 0.5))
    g.save("rsc_f64_axes", rescale(ins["f64"], (1.7, 0.6), order=3))
    g.save("rsc_rgb_ca", rescale(ins["rgb"], 0.5, channel_axis=-1))
    g.save("rsc_rgb0_ca", rescale(np.moveaxis(ins["rgb"], -1, 0).copy(), (2, 1.5), channel_axis=0))
    g.save("rs_in_rgb0", np.moveaxis(ins["rgb"], -1, 0).copy())
    g.save("rsc_vol", rescale(ins["vol"], 0.7))
