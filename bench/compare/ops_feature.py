"""feature ops for compare.py.

# peak_local_max
peak_local_max on the distance transform of binary blobs (the test texture above its middle grey,
as bench/feature/bench_peak.cpp makes them), min_distance 7, with and without the blobs' labels.
Our benchmarks: bench/feature/bench_peak.cpp.

# learned features
Cascade.detect_multi_scale with scikit-image's LBP frontal-face cascade on the uint8 test texture,
scale_factor 1.2, step_ratio 1, windows 24 to 200 (cuCIM has no Cascade).
Our benchmarks: bench/feature/bench_learned.cpp (device sweep; BM_Cpu_* the host sweep).
"""
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
    # learned features
    Op("Cascade.detect_multi_scale, face cascade", "uint8", r"^BM_CascadeDetect/",
       skimage=lambda L, x: L.skimage.feature.Cascade(L.skimage.data.lbp_frontal_face_cascade_filename())
       .detect_multi_scale(x, scale_factor=1.2, step_ratio=1, min_size=(24, 24), max_size=(200, 200)),
       shapes=((512, 512), (2048, 2048))),
]
