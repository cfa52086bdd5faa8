"""Golden outputs of skimage.filters for tests/filters/ (loaded as "filters/<name>.npy").

Thresholding: each input is saved as threshold_in_<case>.npy and its thresholds as
threshold_res_<case>.npy (float64, the order of RESULTS; NaN where scikit-image raises), plus
threshold_isodata_all_<case>.npy and the hist= cases threshold_hist_*.npy.
"""
import warnings

import numpy as np
import skimage.color
import skimage.filters as sf

RESULTS = ["otsu", "yen", "isodata", "mean", "minimum", "triangle", "multiotsu3_0", "multiotsu3_1", "li"]


def _try(f):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f()
    except (RuntimeError, ValueError, IndexError):
        return None


def _thresholds(img):
    out = []
    for name in ["otsu", "yen", "isodata", "mean", "minimum", "triangle"]:
        v = _try(lambda: getattr(sf, f"threshold_{name}")(img))
        out.append(np.nan if v is None else float(v))
    m = _try(lambda: sf.threshold_multiotsu(img, classes=3))
    out += [np.nan, np.nan] if m is None else [float(x) for x in m]
    v = _try(lambda: sf.threshold_li(img))
    out.append(np.nan if v is None else float(v))
    return np.array(out, dtype=np.float64)


def threshold_inputs(g):
    rng = g.rng(7)
    astro = skimage.color.rgb2gray(g.astronaut())
    bimodal = np.concatenate([rng.normal(60, 12, 700), rng.normal(170, 20, 500)]).clip(0, 255)
    return {
        "camera": g.camera(),
        "coins": g.coins(),
        "astronaut_gray": astro,                       # float64 64x64
        "astronaut_gray_f32": astro.astype(np.float32),
        "u8": rng.integers(0, 256, (31, 37)).astype(np.uint8),
        "u8_bimodal_3d": bimodal.astype(np.uint8)[:1200].reshape(10, 12, 10),
        "u16": rng.integers(1000, 1700, (23, 29)).astype(np.uint16),
        "i16": rng.integers(-300, 301, (17, 19)).astype(np.int16),
        "i8": np.concatenate([rng.normal(-60, 15, 120), rng.normal(50, 25, 90)]).clip(-128, 127)
                .astype(np.int8).reshape(14, 15),
        "f32_3d": rng.normal(0.3, 1.0, (8, 9, 10)).astype(np.float32),
        "f64": np.concatenate([rng.normal(-2, 1, 200), rng.normal(3, 0.5, 199)]).reshape(21, 19),
        "u8_constant": np.full((5, 7), 42, np.uint8),
        # Stress cases for float rounding and tie-breaking: several distributions and seeds.
        "f32_gamma": rng.gamma(2.0, 1.5, (33, 47)).astype(np.float32),
        "f32_uniform": rng.uniform(-5, 5, (41, 29)).astype(np.float32),
        "f64_mixture": np.concatenate([rng.normal(0.2, 0.05, 900), rng.normal(0.7, 0.1, 700)]).reshape(40, 40),
        "u8_mixture": np.concatenate([rng.normal(50, 10, 900), rng.normal(200, 20, 700)]).clip(0, 255)
                        .astype(np.uint8).reshape(32, 50),
        "f32_constant": np.full((4, 6), 0.25, np.float32),
    }


def gen_threshold(g):
    for case, img in threshold_inputs(g).items():
        g.save(f"threshold_in_{case}", img)
        g.save(f"threshold_res_{case}", _thresholds(img))
        iso = _try(lambda: sf.threshold_isodata(img, return_all=True))
        g.save(f"threshold_isodata_all_{case}", np.asarray([] if iso is None else iso, dtype=np.float64))
    # More classes and other nbins on real images.
    cam = g.camera()
    g.save("threshold_multiotsu4_camera", np.asarray(sf.threshold_multiotsu(cam, classes=4), np.float64))
    astro = skimage.color.rgb2gray(g.astronaut())
    g.save("threshold_nbins64_astronaut_gray",
           np.array([sf.threshold_otsu(astro, nbins=64), sf.threshold_yen(astro, nbins=64),
                     sf.threshold_isodata(astro, nbins=64), sf.threshold_triangle(astro, nbins=64),
                     *sf.threshold_multiotsu(astro, classes=3, nbins=64)], np.float64))
    # threshold_li options: tolerance, initial_guess (integer and float images).
    f32 = threshold_inputs(g)["f32_3d"]
    g.save("threshold_li_options",
           np.array([sf.threshold_li(cam, tolerance=2.0), sf.threshold_li(cam, initial_guess=30),
                     sf.threshold_li(cam, initial_guess=200.5), sf.threshold_li(f32, tolerance=0.01),
                     sf.threshold_li(f32, initial_guess=1.5), sf.threshold_li(astro, initial_guess=0.2)], np.float64))
    # hist= forms: counts with empty ends, with and without centres.
    rng = g.rng(11)
    data = np.concatenate([rng.normal(40, 8, 3000), rng.normal(120, 15, 2000)])
    counts, edges = np.histogram(data, bins=200, range=(0, 200))
    centers = (edges[:-1] + edges[1:]) / 2
    g.save("threshold_hist_counts", counts.astype(np.int64))
    g.save("threshold_hist_centers", centers)
    res = []
    for h in [counts, (counts, centers)]:
        res += [sf.threshold_otsu(hist=h), sf.threshold_yen(hist=h), sf.threshold_isodata(hist=h),
                sf.threshold_minimum(hist=h), *sf.threshold_multiotsu(hist=h, classes=3)]
    g.save("threshold_hist_res", np.array(res, np.float64))


def generate(g):
    gen_threshold(g)
