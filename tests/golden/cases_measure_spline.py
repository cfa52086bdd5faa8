"""Golden outputs of skimage.measure.profile_line with the prefiltered spline orders 2..5 (scipy's
map_coordinates with prefilter=True) for tests/measure/test_profile_spline.cpp (loaded as
"measure_spline/<name>.npy"). Inputs: cam (camera()[::4, ::4], uint8; the test also runs
cam / 255 as float64) and astro (astronaut()[::8, ::8], uint8 RGB).
  prof_<line>_o<order>_<img>.npy   profile_line(img, src, dst, linewidth, order, mode, reduce_func)
with the lines of LINES below (the C++ test holds the same table).
"""
import numpy as np
from skimage import measure

LINES = {
    # name: (src, dst, linewidth, mode, reduce)
    "diag": ((5, 7), (100, 90), 1, "reflect", "mean"),
    "outside": ((-4, -6), (130, 40), 3, "constant", "mean"),
    "wrap": ((-3, 2), (50, 135), 2, "wrap", "mean"),
    "mirror": ((126, -2), (-2, 60), 3, "mirror", "mean"),
    "nearest": ((0, 0), (127, 131), 2, "nearest", "mean"),
    "none": ((10, 10), (30, 50), 3, "reflect", "none"),
}


def generate(g):
    cam = g.camera()
    camf = cam.astype(np.float64) / 255
    astro = g.astronaut()
    g.save("cam", cam)
    g.save("astro", astro)
    for name, (src, dst, lw, mode, red) in LINES.items():
        rf = np.mean if red == "mean" else None
        for order in (2, 3, 4, 5):
            for key, img in (("cam", cam), ("camf", camf)):
                g.save(f"prof_{name}_o{order}_{key}",
                       measure.profile_line(img, src, dst, linewidth=lw, order=order, mode=mode, reduce_func=rf))
    for order in (3, 5):
        g.save(f"prof_astro_o{order}", measure.profile_line(astro, (3, 4), (60, 50), linewidth=3, order=order))
        g.save(f"prof_astro_none_o{order}",
               measure.profile_line(astro, (3, 4), (60, 50), linewidth=2, order=order, mode="constant", cval=9,
                                    reduce_func=None))
