"""Golden outputs of skimage.exposure for tests/exposure/ (loaded as "exposure/<name>.npy").

Inputs are saved as in_<name>.npy; results as <function>_<case>.npy (histograms as hist_* and
centers_*). The C++ tests repeat each call with the same options.
"""
import warnings

import numpy as np
import skimage.exposure as ex


def inputs(g):
    rng = g.rng(77)
    cam = g.camera()
    ins = {
        "cam": cam,                                                        # 128x128 uint8
        "u8": rng.integers(20, 200, (37, 41), endpoint=True).astype(np.uint8),
        "u16": rng.integers(100, 3000, (33, 29), endpoint=True).astype(np.uint16),
        "i16": rng.integers(-300, 900, (31, 27), endpoint=True).astype(np.int16),
        "f32": (cam[::2, ::2].astype(np.float32) / 255 * 0.8 + 0.1).astype(np.float32),
        "f64": rng.random((35, 30)) ** 2,
        "f64neg": rng.uniform(-3, 5, (25, 22)),
        "vol": rng.integers(0, 255, (14, 17, 19), endpoint=True).astype(np.uint8),
        "volf": rng.random((12, 15, 13)).astype(np.float32),
        "rgb": g.astronaut(),                                              # 64x64x3 uint8
        "rgbf": (g.astronaut()[::2, ::2] / 255.0).astype(np.float32),
        "rgba": np.concatenate([g.astronaut()[::2, ::2], rng.integers(0, 255, (32, 32, 1), endpoint=True).astype(np.uint8)], axis=2),
    }
    for k, v in ins.items():
        g.save(f"in_{k}", v)
    return ins


def generate(g):
    warnings.simplefilter("ignore")
    ins = inputs(g)

    # histogram: (name, input, kwargs)
    hcases = [
        ("cam", "cam", {}), ("u16", "u16", {}), ("i16", "i16", {}), ("f32", "f32", {}), ("f64", "f64", {"nbins": 37}),
        ("f64neg", "f64neg", {"nbins": 10}), ("cam_dtype", "cam", {"source_range": "dtype"}),
        ("i16_norm", "i16", {"normalize": True}), ("f32_dtype", "f32", {"source_range": "dtype", "nbins": 33}),
        ("f64neg_dtype", "f64neg", {"source_range": "dtype", "nbins": 16}),
        ("rgb_ch", "rgb", {"channel_axis": -1}), ("rgbf_ch", "rgbf", {"channel_axis": 2, "nbins": 50}),
        ("rgbf_ch_norm", "rgbf", {"channel_axis": -1, "normalize": True, "nbins": 20}),
        ("vol", "vol", {}),
    ]
    for name, src, kw in hcases:
        h, c = ex.histogram(ins[src], **kw)
        g.save(f"hist_{name}", h)
        g.save(f"centers_{name}", c)

    for name in ["cam", "u16", "i16", "f32", "f64"]:
        cdf, c = ex.cumulative_distribution(ins[name], nbins=100 if name == "f64" else 256)
        g.save(f"cdf_{name}", cdf)
        g.save(f"cdfcenters_{name}", c)

    # equalize_hist
    for name in ["cam", "u8", "u16", "i16", "f32", "f64", "f64neg", "vol"]:
        g.save(f"eqhist_{name}", ex.equalize_hist(ins[name]))
    g.save("eqhist_f64_nbins17", ex.equalize_hist(ins["f64"], nbins=17))
    mask = np.zeros(ins["cam"].shape, bool)
    mask[20:90, 30:100] = True
    g.save("mask_cam", mask)
    g.save("eqhist_cam_mask", ex.equalize_hist(ins["cam"], mask=mask))
    g.save("eqhist_f32_mask", ex.equalize_hist(ins["f32"], mask=mask[::2, ::2]))

    # equalize_adapthist
    ah = [
        ("cam", "cam", {}), ("cam_k17", "cam", {"kernel_size": 17, "clip_limit": 0.03, "nbins": 128}),
        ("cam_ahe", "cam", {"clip_limit": 0, "kernel_size": (20, 30)}),
        ("cam_big", "cam", {"kernel_size": 300, "clip_limit": 0.2}),
        ("cam_tiny", "cam", {"kernel_size": 30, "clip_limit": 0.003}),  # excess beyond every bin's room
        ("u8", "u8", {"kernel_size": (7, 9)}), ("u16", "u16", {"nbins": 64}), ("f32", "f32", {"clip_limit": 0.05}),
        ("f64", "f64", {"kernel_size": 8, "nbins": 1000}), ("i16", "i16", {}),
        ("vol", "vol", {"kernel_size": (5, 6, 7)}), ("volf", "volf", {}),
        ("rgb", "rgb", {}), ("rgbf", "rgbf", {"kernel_size": 9}), ("rgba", "rgba", {}),
    ]
    for name, src, kw in ah:
        g.save(f"clahe_{name}", ex.equalize_adapthist(ins[src], **kw))

    # rescale_intensity
    rs = [
        ("cam", "cam", {}), ("cam_in", "cam", {"in_range": (50, 180)}), ("cam_out", "cam", {"out_range": (0, 127)}),
        ("cam_f32", "cam", {"out_range": "float32"}), ("cam_u12", "cam", {"out_range": "uint12"}),
        ("i16", "i16", {}), ("i16_dtype", "i16", {"in_range": "dtype"}), ("i16_out_u8", "i16", {"out_range": "uint8"}),
        ("i16_image", "i16", {"out_range": "image", "in_range": (0, 500)}),
        ("f32", "f32", {}), ("f32_pair", "f32", {"in_range": (0.2, 0.7), "out_range": (-1, 3)}),
        ("f64neg", "f64neg", {}), ("f64neg_dtype", "f64neg", {"in_range": "dtype"}),
        ("f64neg_int8", "f64neg", {"out_range": "int8"}), ("u16_const", "u16", {"in_range": (7, 7)}),
    ]
    for name, src, kw in rs:
        g.save(f"rescale_{name}", ex.rescale_intensity(ins[src], **kw))

    # adjust_*
    for name in ["cam", "u16", "f32", "f64"]:
        img = ins[name]
        g.save(f"gamma_{name}", ex.adjust_gamma(img, 2.2, 0.9))
        g.save(f"gamma05_{name}", ex.adjust_gamma(img, 0.5))
        g.save(f"log_{name}", ex.adjust_log(img, 0.8))
        g.save(f"loginv_{name}", ex.adjust_log(img, 1.1, inv=True))
        g.save(f"sigmoid_{name}", ex.adjust_sigmoid(img, 0.4, 7))
        g.save(f"sigmoidinv_{name}", ex.adjust_sigmoid(img, 0.6, 5, inv=True))

    # match_histograms
    rng = g.rng(5)
    ref_u8 = g.coins()
    g.save("in_coins", ref_u8)
    g.save("match_cam_coins", ex.match_histograms(ins["cam"], ref_u8))
    ref_f32 = rng.random((40, 44)).astype(np.float32) ** 3
    g.save("in_ref_f32", ref_f32)
    g.save("match_f32", ex.match_histograms(ins["f32"], ref_f32))
    g.save("match_i16_f64", ex.match_histograms(ins["i16"], ins["f64"]))
    ref_rgb = (rng.random((30, 30, 3)) * 255).astype(np.uint8)
    g.save("in_ref_rgb", ref_rgb)
    g.save("match_rgb_ch", ex.match_histograms(ins["rgb"], ref_rgb, channel_axis=-1))
    g.save("match_rgbf_ch", ex.match_histograms(ins["rgbf"], ref_rgb.astype(np.float32) / 255, channel_axis=-1))

    # is_low_contrast: one bool per case, in this order.
    lc = [
        ex.is_low_contrast(ins["cam"]),
        ex.is_low_contrast((ins["cam"] // 20 + 100).astype(np.uint8)),
        ex.is_low_contrast(ins["u16"]),
        ex.is_low_contrast((ins["u16"] // 40).astype(np.uint16)),
        ex.is_low_contrast(ins["f32"]),
        ex.is_low_contrast(ins["f32"] * 0.05),
        ex.is_low_contrast(ins["rgb"]),
        ex.is_low_contrast(ins["rgba"]),
        ex.is_low_contrast(ins["f64"], fraction_threshold=0.6, lower_percentile=10, upper_percentile=90),
        ex.is_low_contrast(ins["f64"], fraction_threshold=0.4, lower_percentile=10, upper_percentile=90),
        ex.is_low_contrast(ins["cam"] > 100),
        ex.is_low_contrast(np.zeros((4, 4), bool)),
        ex.is_low_contrast(ins["i16"], fraction_threshold=0.0178),
        ex.is_low_contrast(ins["i16"], fraction_threshold=0.0177),
    ]
    g.save("lowcontrast", np.array(lc, dtype=bool))
