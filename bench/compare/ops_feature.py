"""feature ops for compare.py.

# peak_local_max
peak_local_max on the distance transform of binary blobs (the test texture above its middle grey,
as bench/feature/bench_peak.cpp makes them), min_distance 7, with and without the blobs' labels.
Our benchmarks: bench/feature/bench_peak.cpp.

# blobs/texture
blob_log / blob_dog on the float32 test texture (max_sigma 10; blob_log 5 scales),
multiscale_basic_features on the uint8 texture (default sigmas), local_binary_pattern P=8 R=1 and
graycomatrix (distance 1, four angles, 256 levels) on the uint8 texture. cuCIM has blob_log,
blob_dog and multiscale_basic_features; LBP and the GLCM are scikit-image only.
Our benchmarks: bench/feature/bench_blob.cpp, bench/feature/bench_texture.cpp.
"""
import math
from compare import Op, test_image


def _edt(xp, shape, dtype):
    import numpy as np
    import scipy.ndimage as ndi
    m = test_image(np, shape, "uint8") > 127
    d = ndi.distance_transform_edt(m)
    return xp.asarray(d) if xp is not np else d


def _edt_labels(xp, shape, dtype):
    import numpy as np
    import scipy.ndimage as ndi
    from skimage.measure import label
    m = test_image(np, shape, "uint8") > 127
    d = ndi.distance_transform_edt(m)
    lab = label(m).astype(np.int32)
    return (xp.asarray(d), xp.asarray(lab)) if xp is not np else (d, lab)


_SHAPES = ((1024, 1024), (4096, 4096))

OPS = [
    # peak_local_max
    Op("peak_local_max EDT, min_distance 7", "float64", r"PeakLocalMaxEdt/",
       cucim=lambda L, x: L.cucim.feature.peak_local_max(x, min_distance=7),
       skimage=lambda L, x: L.skimage.feature.peak_local_max(x, min_distance=7),
       shapes=_SHAPES, make_input=_edt),
    Op("peak_local_max EDT, min_distance 7, labels", "float64", r"PeakLocalMaxEdtLabels/",
       cucim=lambda L, x: L.cucim.feature.peak_local_max(x[0], min_distance=7, labels=x[1]),
       skimage=lambda L, x: L.skimage.feature.peak_local_max(x[0], min_distance=7, labels=x[1]),
       shapes=_SHAPES, make_input=_edt_labels),
    # --- blobs/texture ---
    Op("blob_log max_sigma 10, 5 scales", "float32", r"BlobLog/",
       cucim=lambda L, x: L.cucim.feature.blob_log(x, max_sigma=10, num_sigma=5),
       skimage=lambda L, x: L.skimage.feature.blob_log(x, max_sigma=10, num_sigma=5),
       shapes=((1024, 1024), (2048, 2048))),
    Op("blob_dog max_sigma 10", "float32", r"BlobDog/",
       cucim=lambda L, x: L.cucim.feature.blob_dog(x, max_sigma=10),
       skimage=lambda L, x: L.skimage.feature.blob_dog(x, max_sigma=10),
       shapes=((1024, 1024),)),
    Op("multiscale_basic_features", "uint8", r"MultiscaleBasicFeatures/",
       cucim=lambda L, x: L.cucim.feature.multiscale_basic_features(x),
       skimage=lambda L, x: L.skimage.feature.multiscale_basic_features(x),
       shapes=((1024, 1024), (2048, 2048))),
    Op("local_binary_pattern P=8 R=1", "uint8", r"LocalBinaryPattern/",
       skimage=lambda L, x: L.skimage.feature.local_binary_pattern(x, 8, 1),
       shapes=((2048, 2048), (4096, 4096))),
    Op("graycomatrix distance 1, 4 angles", "uint8", r"Graycomatrix/",
       skimage=lambda L, x: L.skimage.feature.graycomatrix(x, [1], [0, math.pi / 4, math.pi / 2, 3 * math.pi / 4]),
       shapes=((2048, 2048), (4096, 4096))),
]
