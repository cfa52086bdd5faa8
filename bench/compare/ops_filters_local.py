"""filters local ops for compare.py: median, niblack and hysteresis through raw CuPy
(cupyx.scipy.ndimage), cuCIM (cucim.skimage.filters) and scikit-image.

Each Op's `bench` regex finds our Google Benchmark (bench/filters/bench_local.cpp) by name.
"""
import numpy as np

from compare import Op


SHAPES_2D = ((512, 512), (2160, 3840), (8192, 8192))  # the 2-D standard shapes (2-D footprints)


OPS = [
    Op("median_3x3", "uint8", r"Median3_u8",
       cupy=lambda L, x: L.ndi.median_filter(x, size=3, mode="nearest"),
       cucim=lambda L, x: L.cucim.filters.median(x, L.cp.ones((3, 3), bool)),
       skimage=lambda L, x: L.skimage.filters.median(x, np.ones((3, 3), bool)), shapes=SHAPES_2D),
    Op("median_5x5", "uint8", r"Median5_u8",
       cupy=lambda L, x: L.ndi.median_filter(x, size=5, mode="nearest"),
       cucim=lambda L, x: L.cucim.filters.median(x, L.cp.ones((5, 5), bool)),
       skimage=lambda L, x: L.skimage.filters.median(x, np.ones((5, 5), bool)), shapes=SHAPES_2D),
    Op("median_5x5_f32", "float32", r"Median5_f32",
       cupy=lambda L, x: L.ndi.median_filter(x, size=5, mode="nearest"),
       cucim=lambda L, x: L.cucim.filters.median(x, L.cp.ones((5, 5), bool)),
       skimage=lambda L, x: L.skimage.filters.median(x, np.ones((5, 5), bool)), shapes=SHAPES_2D),
    Op("threshold_niblack", "float32", r"Niblack_f32",
       cupy=None,
       cucim=lambda L, x: L.cucim.filters.threshold_niblack(x),
       skimage=lambda L, x: L.skimage.filters.threshold_niblack(x)),
    Op("apply_hysteresis_threshold", "float32", r"Hysteresis_f32",
       cupy=None,
       cucim=lambda L, x: L.cucim.filters.apply_hysteresis_threshold(x, 0.3, 0.6),
       skimage=lambda L, x: L.skimage.filters.apply_hysteresis_threshold(x, 0.3, 0.6)),
]
