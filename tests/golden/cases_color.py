"""Golden outputs of skimage.color for tests/color/ (loaded as "color/<name>.npy").

Inputs are stored once (in_<case>.npy) and every function's result on it as <fn>__<case>.npy, so
the C++ test walks the same (function, case) table (CONVERSIONS below and kConversions there).
Warnings scikit-image emits (negative Z clipped, ...) are silenced; the values are what is tested.
"""
import warnings

import numpy as np
import skimage.color as sc

# Functions whose input is an RGB image, and their inverses with the input domain they expect.
FROM_RGB = ["rgb2hsv", "rgb2xyz", "rgb2rgbcie", "rgb2gray", "rgb2lab", "rgb2luv", "rgb2hed", "rgb2yuv",
            "rgb2yiq", "rgb2ypbpr", "rgb2ycbcr", "rgb2ydbdr"]
TO_RGB = {  # function: the forward function whose output is a valid input
    "hsv2rgb": "rgb2hsv", "xyz2rgb": "rgb2xyz", "rgbcie2rgb": "rgb2rgbcie", "lab2rgb": "rgb2lab",
    "luv2rgb": "rgb2luv", "hed2rgb": "rgb2hed", "yuv2rgb": "rgb2yuv", "yiq2rgb": "rgb2yiq",
    "ypbpr2rgb": "rgb2ypbpr", "ycbcr2rgb": "rgb2ycbcr", "ydbdr2rgb": "rgb2ydbdr", "xyz2lab": "rgb2xyz",
    "lab2xyz": "rgb2lab", "xyz2luv": "rgb2xyz", "luv2xyz": "rgb2luv", "lab2lch": "rgb2lab",
    "lch2lab": None,
}
STAINS = ["hed", "hdx", "fgx", "bex", "rbd", "gdx", "hax", "bro", "bpx", "ahx", "hpx"]


def rgb_cases(g):
    rng = g.rng(7)
    f64 = rng.random((17, 23, 3))
    f64.reshape(-1, 3)[:8] = [[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0], [0, 1, 0], [0, 0, 1],
                              [0.04045, 0.0031308, 0.2], [1, 1, 0]]
    return {
        "astro": g.astronaut()[::2, ::2],                         # 32x32x3 uint8
        "f64": f64,
        "f32": rng.random((19, 13, 3)).astype(np.float32),
        "u16": rng.integers(0, 65536, (9, 11, 3), dtype=np.uint16),
        "vol": rng.random((4, 5, 6, 3)),                          # a channel-last volume
        "i16": rng.integers(0, 32768, (5, 7, 3)).astype(np.int16),  # read through img_as_float64
        "px": np.array([0.2, 0.5, 0.9]),                          # one pixel
    }


def issue7_cases(g):
    """rgb2lab / rgb2hsv inputs for the tight checks of tests/color/test_color.cpp (issue 7's fast
    paths): every grey level, ties between channels, primaries; float64 edge values."""
    rng = g.rng(77)
    u8 = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    px = u8.reshape(-1, 3)
    px[:256] = np.arange(256, dtype=np.uint8)[:, None]            # every grey level
    lv = rng.integers(0, 256, (3, 128, 2), dtype=np.uint8)
    hi, lo = np.maximum(lv[..., 0], lv[..., 1]), np.minimum(lv[..., 0], lv[..., 1])
    px[256:384] = np.stack([hi[0], hi[0], lo[0]], -1)              # r = g >= b
    px[384:512] = np.stack([hi[1], lo[1], hi[1]], -1)              # r = b >= g
    px[512:640] = np.stack([lo[2], hi[2], hi[2]], -1)              # g = b >= r
    px[640:646] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [1, 0, 0], [0, 1, 2]]
    g.save("in_u8_issue7", u8)
    g.save("rgb2lab__u8_issue7", sc.rgb2lab(u8))
    g.save("rgb2lab__u8_issue7_D50_10", sc.rgb2lab(u8, illuminant="D50", observer="10"))
    g.save("rgb2hsv__u8_issue7", sc.rgb2hsv(u8))
    f64 = rng.random((8, 9, 3))
    f = f64.reshape(-1, 3)
    f[:12] = [[0.5, -0.0, 0.0], [0.0, -0.0, -0.0], [1e-310, 0, 0], [2.0, 1.0, 0.5], [-0.5, -1.0, -0.2],
              [0.0, -0.5, -1.0], [1e3, 1e20, 1e60], [1e100, 1e-3, 0.5], [np.inf, 0.0, 0.0],
              [0.3, 0.3, 0.3], [0.04045, 0.0031308, 0.008856], [1e-5, 2e-5, 0.0]]
    g.save("in_f64_issue7", f64)
    g.save("rgb2hsv__f64_issue7", sc.rgb2hsv(f64))
    g.save("rgb2lab__f64_issue7", sc.rgb2lab(f64[1:]))  # row 0 holds the infinite pixel
    g.save("in_xyz_issue7", sc.rgb2xyz(f64[1:]))
    g.save("xyz2lab__xyz_issue7", sc.xyz2lab(sc.rgb2xyz(f64[1:])))


def generate(g):
    warnings.simplefilter("ignore")
    issue7_cases(g)
    cases = rgb_cases(g)
    for name, a in cases.items():
        g.save(f"in_{name}", a)
        for fn in FROM_RGB:
            g.save(f"{fn}__{name}", getattr(sc, fn)(a))
    # Inverses on the outputs of the forward functions (float64 and float32), and on a volume.
    for fn, fwd in TO_RGB.items():
        for name in ["f64", "f32", "vol"]:
            a = cases[name]
            if fwd is None:  # lch2lab: from lab2lch's output
                src = sc.lab2lch(sc.rgb2lab(a))
            else:
                src = getattr(sc, fwd)(a)
            if name == "f32":
                src = src.astype(np.float32)
            g.save(f"in_{fn}__{name}", src)
            g.save(f"{fn}__{name}", getattr(sc, fn)(src))
    # Inputs out of the forward range: random Lab / Luv / HSV / stains.
    rng = g.rng(11)
    lab = np.stack([rng.uniform(0, 100, (15, 16)), rng.uniform(-110, 110, (15, 16)),
                    rng.uniform(-110, 110, (15, 16))], axis=-1)
    g.save("in_lab_wide", lab)
    for fn in ["lab2rgb", "lab2xyz", "lab2lch"]:
        g.save(f"{fn}__lab_wide", getattr(sc, fn)(lab))
    luv = np.stack([rng.uniform(0, 100, (15, 16)), rng.uniform(-80, 80, (15, 16)),
                    rng.uniform(-80, 80, (15, 16))], axis=-1)
    luv.reshape(-1, 3)[0] = [5.0, 1.0, 2.0]  # L below the linear segment's end
    g.save("in_luv_wide", luv)
    for fn in ["luv2rgb", "luv2xyz"]:
        g.save(f"{fn}__luv_wide", getattr(sc, fn)(luv))
    hsv = rng.random((12, 14, 3))
    hsv.reshape(-1, 3)[:3, 0] = [1.0, 0.0, 0.999999]
    g.save("in_hsv_wide", hsv)
    g.save("hsv2rgb__hsv_wide", sc.hsv2rgb(hsv))
    stains = rng.uniform(0, 0.3, (10, 12, 3))
    g.save("in_stains", stains)
    # uint8 YCbCr: scikit-image subtracts the offsets in uint8 (wrapping) before img_as_float.
    ycc = rng.integers(0, 256, (8, 9, 3), dtype=np.uint8)
    g.save("in_ycc_u8", ycc)
    g.save("ycbcr2rgb__ycc_u8", sc.ycbcr2rgb(ycc))

    # Illuminants and observers.
    ills = ["A", "B", "C", "D50", "D55", "D65", "D75", "E"]
    obs = ["2", "10", "R"]
    g.save("tristimulus", np.array([[sc.xyz_tristimulus_values(illuminant=i, observer=o) for o in obs]
                                    for i in ills]))
    f64 = cases["f64"]
    for ill, ob in [("D50", "10"), ("A", "R"), ("e", "2")]:
        tag = f"{ill}_{ob}"
        g.save(f"rgb2lab__{tag}", sc.rgb2lab(f64, illuminant=ill, observer=ob))
        g.save(f"lab2rgb__{tag}", sc.lab2rgb(lab, illuminant=ill, observer=ob))
        g.save(f"xyz2lab__{tag}", sc.xyz2lab(sc.rgb2xyz(f64), illuminant=ill, observer=ob))
        g.save(f"lab2xyz__{tag}", sc.lab2xyz(lab, illuminant=ill, observer=ob))
        g.save(f"xyz2luv__{tag}", sc.xyz2luv(sc.rgb2xyz(f64), illuminant=ill, observer=ob))
        g.save(f"luv2xyz__{tag}", sc.luv2xyz(luv, illuminant=ill, observer=ob))

    # channel_axis
    astro_t = np.moveaxis(cases["astro"], -1, 0)
    g.save("in_astro_c0", astro_t)
    for fn in ["rgb2lab", "rgb2hed", "rgb2hsv", "rgb2gray", "rgb2ycbcr"]:
        g.save(f"{fn}__astro_c0", getattr(sc, fn)(astro_t, channel_axis=0))
    vol_t = np.moveaxis(cases["vol"], -1, 1)  # (4, 3, 5, 6)
    g.save("in_vol_c1", vol_t)
    g.save("rgb2lab__vol_c1", sc.rgb2lab(vol_t, channel_axis=1))
    g.save("lab2rgb__vol_c1", sc.lab2rgb(sc.rgb2lab(vol_t, channel_axis=1), channel_axis=1))

    # Stains with every matrix.
    for s in STAINS:
        g.save(f"separate_{s}", sc.separate_stains(f64, getattr(sc, f"{s}_from_rgb")))
        g.save(f"combine_{s}", sc.combine_stains(stains, getattr(sc, f"rgb_from_{s}")))
    g.save("separate_hed_astro", sc.separate_stains(cases["astro"], sc.hed_from_rgb))

    # lab2lch / lch2lab with a fourth channel carried over.
    lab4 = np.concatenate([lab, rng.random((15, 16, 1))], axis=-1)
    g.save("in_lab4", lab4)
    g.save("lab2lch__lab4", sc.lab2lch(lab4))
    g.save("lch2lab__lab4", sc.lch2lab(sc.lab2lch(lab4)))

    # RGBA
    rgba_u8 = rng.integers(0, 256, (10, 11, 4), dtype=np.uint8)
    rgba_f32 = rng.random((7, 8, 4)).astype(np.float32)
    g.save("in_rgba_u8", rgba_u8)
    g.save("in_rgba_f32", rgba_f32)
    g.save("rgba2rgb__rgba_u8", sc.rgba2rgb(rgba_u8))
    g.save("rgba2rgb__rgba_u8_bg", sc.rgba2rgb(rgba_u8, background=(0.2, 0.5, 0.0)))
    g.save("rgba2rgb__rgba_f32", sc.rgba2rgb(rgba_f32, background=(0.0, 0.3, 1.0)))
    g.save("rgba2rgb__rgba_c0", sc.rgba2rgb(np.moveaxis(rgba_u8, -1, 0), channel_axis=0))

    # gray2rgb / gray2rgba
    cam = g.camera()[:20, :30]
    g.save("in_cam", cam)
    g.save("gray2rgb__cam", sc.gray2rgb(cam))
    g.save("gray2rgb__cam_c0", sc.gray2rgb(cam, channel_axis=0))
    g.save("gray2rgba__cam", sc.gray2rgba(cam))
    g.save("gray2rgba__cam_a7", sc.gray2rgba(cam, alpha=7))
    g.save("gray2rgba__cam_c1", sc.gray2rgba(cam, channel_axis=1))
    gf = rng.random((6, 5)).astype(np.float32)
    g.save("in_grayf32", gf)
    g.save("gray2rgba__grayf32", sc.gray2rgba(gf))
    g.save("gray2rgba__grayf32_a", sc.gray2rgba(gf, alpha=0.25))
    alpha_row = rng.random((5,)).astype(np.float32)
    g.save("in_alpha_row", alpha_row)
    g.save("gray2rgba__grayf32_arr", sc.gray2rgba(gf, alpha=alpha_row))

    # convert_colorspace
    for fr, to in [("RGB", "HSV"), ("hsv", "YCbCr"), ("XYZ", "yiq"), ("RGB CIE", "ydbdr"), ("YPbPr", "RGB"),
                   ("yuv", "rgb cie")]:
        src = f64 if fr.lower() == "rgb" else sc.convert_colorspace(f64, "rgb", fr)
        tag = f"{fr}_{to}".replace(" ", "").lower()
        g.save(f"in_cs_{tag}", src)
        g.save(f"cs_{tag}", sc.convert_colorspace(src, fr, to))

    # deltaE
    lab1 = lab
    lab2 = lab + rng.normal(0, 8, lab.shape)
    lab2.reshape(-1, 3)[0] = lab1.reshape(-1, 3)[0]            # identical colours
    lab2.reshape(-1, 3)[1, 1:] = 0                               # achromatic
    lab1.reshape(-1, 3)[2, 1:] = 0
    lab2.reshape(-1, 3)[2, 1:] = 0
    g.save("in_lab1", lab1)
    g.save("in_lab2", lab2)
    ref = np.array([[[50.0, 10.0, -20.0]]])  # (1, 1, 3): broadcast over the pixels
    g.save("in_labref", ref)
    for tag, (x, y) in {"f64": (lab1, lab2), "f32": (lab1.astype(np.float32), lab2.astype(np.float32)),
                        "bcast": (lab1, ref)}.items():
        g.save(f"deltaE_cie76__{tag}", sc.deltaE_cie76(x, y))
        g.save(f"deltaE_ciede94__{tag}", sc.deltaE_ciede94(x, y))
        g.save(f"deltaE_ciede2000__{tag}", sc.deltaE_ciede2000(x, y))
        g.save(f"deltaE_cmc__{tag}", sc.deltaE_cmc(x, y))
    g.save("deltaE_ciede94__k", sc.deltaE_ciede94(lab1, lab2, kH=2, kC=0.5, kL=1.5, k1=0.048, k2=0.014))
    g.save("deltaE_ciede2000__k", sc.deltaE_ciede2000(lab1, lab2, kL=2, kC=0.7, kH=1.3))
    g.save("deltaE_cmc__k", sc.deltaE_cmc(lab1, lab2, kL=2, kC=1))
    g.save("deltaE_ciede2000__c0", sc.deltaE_ciede2000(np.moveaxis(lab1, -1, 0), np.moveaxis(lab2, -1, 0),
                                                      channel_axis=0))
    # Sharma, Wu & Dalal (2005) test pairs for CIEDE2000 (in scikit-image's test suite).
    # Kept as inputs with scikit-image's results.
    pairs = np.array([
        [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485],
        [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485],
        [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485],
        [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900],
        [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387],
        [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619],
        [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447],
    ])
    g.save("in_sharma", pairs)
    g.save("deltaE_ciede2000__sharma", sc.deltaE_ciede2000(pairs[:, :3], pairs[:, 3:]))

    # label2rgb
    lab_img = rng.integers(-1, 6, (16, 18))
    lab_img[0, 0] = 9
    g.save("in_labels", lab_img)
    ast = g.astronaut()[:16, :18]
    g.save("in_lbl_img", ast)
    gray = rng.random((16, 18))
    g.save("in_lbl_gray", gray)
    g.save("label2rgb__plain", sc.label2rgb(lab_img))
    g.save("label2rgb__bg_none", sc.label2rgb(lab_img, bg_color=None, bg_label=-1))
    g.save("label2rgb__colors", sc.label2rgb(lab_img, colors=["green", (0.1, 0.2, 0.3), "navy"], bg_label=3,
                                            bg_color=(0.5, 0.5, 1.0)))
    g.save("label2rgb__image", sc.label2rgb(lab_img, image=ast))
    g.save("label2rgb__image_opts", sc.label2rgb(lab_img, image=ast, alpha=0.5, bg_label=2, bg_color=None,
                                                image_alpha=0.7, saturation=0.5))
    g.save("label2rgb__image_f32", sc.label2rgb(lab_img, image=ast.astype(np.float32) / 255, saturation=1))
    g.save("label2rgb__gray", sc.label2rgb(lab_img, image=gray, alpha=0.4, bg_label=5))
    g.save("label2rgb__nobg", sc.label2rgb(lab_img, bg_label=100))
    g.save("label2rgb__avg", sc.label2rgb(lab_img, image=ast, kind="avg"))
    g.save("label2rgb__avg_f", sc.label2rgb(lab_img, image=ast / 255.0, kind="avg", bg_label=-1,
                                           bg_color=(0.2, 0.4, 0.6)))
    g.save("label2rgb__avg_gray", sc.label2rgb(lab_img, image=gray, kind="avg", bg_label=1))
    g.save("label2rgb__c0", sc.label2rgb(lab_img, image=np.moveaxis(ast, -1, 0), channel_axis=0))
    lab3 = rng.integers(0, 4, (3, 5, 6)).astype(np.uint16)
    g.save("in_labels3", lab3)
    g.save("label2rgb__vol", sc.label2rgb(lab3))

    # ycbcr2rgb on int16 / int32: offsets subtracted in that dtype, then img_as_float64.
    r2 = g.rng(99)
    for dt in ["int16", "int32"]:
        a = r2.integers(0, 256, (6, 7, 3)).astype(dt)
        g.save(f"in_ycc_{dt}", a)
        g.save(f"ycbcr2rgb__ycc_{dt}", sc.ycbcr2rgb(a))
