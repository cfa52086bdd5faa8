"""color ops for compare.py: the issue-7 conversions on 4096^2 x 3 uint8 through cuCIM
(cucim.skimage.color) and scikit-image. Our benchmarks: bench/color/bench_color.cpp (BM_<op>_u8/4096;
its name gives the pixel shape, the input adds the channel axis).
"""
from compare import Op, test_image


def _rgb(xp, shape, dtype):
    import numpy as np
    v = test_image(np, tuple(shape) + (3,), dtype)
    return xp.asarray(v) if xp is not np else v


def _op(name, bench, fn):
    return Op(name, "uint8", bench,
              cupy=None,
              cucim=lambda L, x: getattr(L.cucim.color, fn)(x),
              skimage=lambda L, x: getattr(L.skimage.color, fn)(x),
              shapes=((4096, 4096),), make_input=_rgb)


OPS = [
    _op("rgb2hed", r"BM_Rgb2Hed_u8/", "rgb2hed"),
    _op("rgb2lab", r"BM_Rgb2Lab_u8/", "rgb2lab"),
    _op("rgb2gray", r"BM_Rgb2Gray_u8/", "rgb2gray"),
    _op("rgb2hsv", r"BM_Rgb2Hsv_u8/", "rgb2hsv"),
]
