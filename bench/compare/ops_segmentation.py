"""segmentation ops for compare.py. Our benchmarks: bench/segmentation/.
"""
from compare import STANDARD_SHAPES, Op, test_image

OPS = []

# boundaries, labels: find_boundaries, clear_border, expand_labels, relabel_sequential and
# mark_boundaries on int32 labels of the blobs (measure.label of the test texture above its 65th
# percentile), as bench/segmentation/bench_boundaries.cpp makes them; 4096^2 is the case.


def _blob_labels(xp, shape, dtype):
    import numpy as np
    from skimage.measure import label
    v = test_image(np, shape, "float64")
    t = np.quantile(v.ravel()[::97], 0.65)
    lab = label(v > t).astype(np.int32)
    return xp.asarray(lab) if xp is not np else lab


def _gray_and_labels(xp, shape, dtype):
    import numpy as np
    img = test_image(np, shape, "float64")
    lab = _blob_labels(np, shape, dtype)
    return (xp.asarray(img), xp.asarray(lab)) if xp is not np else (img, lab)


_LABEL_SHAPES = ((4096, 4096),) + tuple(STANDARD_SHAPES)
_SHAPES_2D = ((4096, 4096),) + tuple(s for s in STANDARD_SHAPES if len(s) == 2)

OPS += [
    Op("find_boundaries", "int32", r"FindBoundaries/",
       cucim=lambda L, x: L.cucim.segmentation.find_boundaries(x),
       skimage=lambda L, x: L.skimage.segmentation.find_boundaries(x),
       shapes=_LABEL_SHAPES, make_input=_blob_labels),
    Op("find_boundaries outer", "int32", r"FindBoundaries_outer/",
       cucim=lambda L, x: L.cucim.segmentation.find_boundaries(x, mode="outer"),
       skimage=lambda L, x: L.skimage.segmentation.find_boundaries(x, mode="outer"),
       shapes=((4096, 4096),), make_input=_blob_labels),
    Op("clear_border", "int32", r"ClearBorder/",
       cucim=lambda L, x: L.cucim.segmentation.clear_border(x),
       skimage=lambda L, x: L.skimage.segmentation.clear_border(x),
       shapes=_LABEL_SHAPES, make_input=_blob_labels),
    Op("expand_labels (3)", "int32", r"ExpandLabels3/",
       cucim=lambda L, x: L.cucim.segmentation.expand_labels(x, distance=3),
       skimage=lambda L, x: L.skimage.segmentation.expand_labels(x, distance=3),
       shapes=_LABEL_SHAPES, make_input=_blob_labels),
    Op("relabel_sequential", "int32", r"RelabelSequential/",
       cucim=lambda L, x: L.cucim.segmentation.relabel_sequential(x, offset=5),
       skimage=lambda L, x: L.skimage.segmentation.relabel_sequential(x, offset=5),
       shapes=_LABEL_SHAPES, make_input=_blob_labels),
    Op("mark_boundaries", "float64", r"MarkBoundaries/",
       cucim=lambda L, x: L.cucim.segmentation.mark_boundaries(x[0], x[1]),
       skimage=lambda L, x: L.skimage.segmentation.mark_boundaries(x[0], x[1]),
       shapes=_SHAPES_2D, make_input=_gray_and_labels),
]
