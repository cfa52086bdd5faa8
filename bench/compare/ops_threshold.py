"""Threshold and distance-transform ops for compare.py: threshold_otsu (the value reaches the host,
as ours does) through cuCIM and scikit-image; distance_transform_edt of thresholded texture (the
input of bench/ndimage/bench_edt.cpp) through CuPy (cupyx.scipy.ndimage) and scipy.
"""
from compare import Op, test_image


def _blobs(xp, shape, dtype):
    import numpy as np
    v = test_image(np, shape, "uint8") > 127
    return xp.asarray(v) if xp is not np else v


def _scipy_edt(x):
    import scipy.ndimage as ndi
    return ndi.distance_transform_edt(x)


OPS = [
    Op("threshold_otsu", "uint8", r"BM_ThresholdOtsu_u8",
       cupy=None,
       cucim=lambda L, x: float(L.cucim.filters.threshold_otsu(x)),
       skimage=lambda L, x: float(L.skimage.filters.threshold_otsu(x))),
    Op("distance_transform_edt blobs", "bool", r"BM_EdtDistances/",
       cupy=lambda L, x: L.ndi.distance_transform_edt(x),
       cucim=None,
       skimage=lambda L, x: _scipy_edt(x), make_input=_blobs, module="ndimage"),
]
