"""exposure ops for compare.py: CLAHE (the issue-7 target shape 4096^2 and the standard shapes),
rescale_intensity, equalize_hist and adjust_gamma through cuCIM (cucim.skimage.exposure) and
scikit-image. Raw CuPy has no equivalent.

Each Op's `bench` regex finds our Google Benchmark (bench/exposure/bench_exposure.cpp) by name.
"""
from compare import Op

SHAPES_2D = ((512, 512), (2160, 3840), (8192, 8192))

OPS = [
    Op("equalize_adapthist_4096", "float32", r"Clahe4096_f32",
       cupy=None,
       cucim=lambda L, x: L.cucim.exposure.equalize_adapthist(x),
       skimage=lambda L, x: L.skimage.exposure.equalize_adapthist(x), shapes=((4096, 4096),)),
    Op("equalize_adapthist_4096_u8", "uint8", r"Clahe4096_u8",
       cupy=None,
       cucim=lambda L, x: L.cucim.exposure.equalize_adapthist(x),
       skimage=lambda L, x: L.skimage.exposure.equalize_adapthist(x), shapes=((4096, 4096),)),
    Op("equalize_adapthist", "float32", r"BM_Clahe/",
       cupy=None,
       cucim=lambda L, x: L.cucim.exposure.equalize_adapthist(x),
       skimage=lambda L, x: L.skimage.exposure.equalize_adapthist(x), shapes=SHAPES_2D),
    Op("rescale_intensity", "float32", r"RescaleIntensity_f32",
       cupy=None,
       cucim=lambda L, x: L.cucim.exposure.rescale_intensity(x),
       skimage=lambda L, x: L.skimage.exposure.rescale_intensity(x)),
    Op("equalize_hist", "uint8", r"EqualizeHist_u8",
       cupy=None,
       cucim=lambda L, x: L.cucim.exposure.equalize_hist(x),
       skimage=lambda L, x: L.skimage.exposure.equalize_hist(x)),
    Op("adjust_gamma", "float32", r"AdjustGamma_f32",
       cupy=None,
       cucim=lambda L, x: L.cucim.exposure.adjust_gamma(x, 2.2),
       skimage=lambda L, x: L.skimage.exposure.adjust_gamma(x, 2.2)),
]
