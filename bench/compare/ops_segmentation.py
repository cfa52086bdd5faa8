"""segmentation ops for compare.py. Our benchmarks: bench/segmentation/. One block per function."""
from compare import Op, test_image

OPS = []

# watershed
# The 4096^2 -EDT of the blobs (the texture above its 65th percentile, as bench/measure/blobs.hpp
# makes them), markers = the labelled EDT maxima inside the blobs, mask = the blobs
# (bench/segmentation/bench_watershed.cpp). cuCIM has no watershed.


def _watershed_input(xp, shape, dtype):
    import numpy as np
    from scipy import ndimage as ndi
    from skimage.morphology import local_maxima
    v = test_image(np, shape, "float64")
    blobs = v > np.quantile(v.ravel()[::97], 0.65)
    dist = ndi.distance_transform_edt(blobs)
    peaks = local_maxima(dist) & blobs
    markers = ndi.label(peaks, structure=np.ones((3,) * len(shape), bool))[0].astype(np.int32)
    out = (-dist, markers, blobs)
    return tuple(xp.asarray(a) for a in out) if xp is not np else out


OPS.append(
    Op("watershed (-EDT of blobs, EDT-maxima markers, mask)", "float64", r"Watershed_edt_blobs",
       cupy=None,
       cucim=None,
       skimage=lambda L, x: L.skimage.segmentation.watershed(x[0], x[1], mask=x[2]),
       shapes=((4096, 4096),),
       make_input=_watershed_input))
