"""segmentation ops for compare.py. Our benchmarks: bench/segmentation/. One block per part."""
from compare import Op, STANDARD_SHAPES, test_image

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

# level sets (bench/segmentation/bench_levelsets.cpp)
_L1024 = ((1024, 1024),)
OPS += [
    Op("morphological_chan_vese, 50 iterations", "float32", r"MorphChanVese_f32_1024/",
       cucim=lambda L, x: L.cucim.segmentation.morphological_chan_vese(x, 50),
       skimage=lambda L, x: L.skimage.segmentation.morphological_chan_vese(x, 50),
       shapes=_L1024),
    Op("morphological_geodesic_active_contour, 50 iterations, balloon 1", "float32", r"MorphGAC_f32_1024/",
       cucim=lambda L, x: L.cucim.segmentation.morphological_geodesic_active_contour(
           L.cucim.segmentation.inverse_gaussian_gradient(x, sigma=2.0), 50, threshold=0.5, balloon=1),
       skimage=lambda L, x: L.skimage.segmentation.morphological_geodesic_active_contour(
           L.skimage.segmentation.inverse_gaussian_gradient(x, sigma=2.0), 50, threshold=0.5, balloon=1),
       shapes=_L1024,
       note="ours times the contour alone (gimage precomputed); the others include inverse_gaussian_gradient"),
    Op("inverse_gaussian_gradient sigma 2", "float32", r"InverseGaussianGradient_f32_4096/",
       cucim=lambda L, x: L.cucim.segmentation.inverse_gaussian_gradient(x, sigma=2.0),
       skimage=lambda L, x: L.skimage.segmentation.inverse_gaussian_gradient(x, sigma=2.0),
       shapes=((4096, 4096),)),
    Op("chan_vese, 100 iterations", "float32", r"ChanVese_f32_1024/",
       cucim=lambda L, x: L.cucim.segmentation.chan_vese(x, tol=0.0, max_num_iter=100),
       skimage=lambda L, x: L.skimage.segmentation.chan_vese(x, tol=0.0, max_num_iter=100),
       shapes=_L1024),
]

# superpixels
OPS += [
    Op("slic 2000 segments", "uint8", r"Slic/2048",
       cupy=None, cucim=None,
       skimage=lambda L, x: L.skimage.segmentation.slic(x, n_segments=2000, compactness=10),
       shapes=((2048, 2048, 3),)),
    Op("felzenszwalb", "uint8", r"Felzenszwalb/2048",
       cupy=None, cucim=None,
       skimage=lambda L, x: L.skimage.segmentation.felzenszwalb(x),
       shapes=((2048, 2048, 3),)),
    Op("quickshift", "uint8", r"Quickshift/512",
       cupy=None, cucim=None,
       skimage=lambda L, x: L.skimage.segmentation.quickshift(x),
       shapes=((512, 512, 3),)),
]

# random_walker (bench/segmentation/bench_random_walker.cpp): the 512^2 float64 texture with label 1
# on its brightest 2 % and label 2 on its darkest 2 % (ties at the cut included).


def _rw_input(xp, shape, dtype):
    import numpy as np
    img = test_image(np, shape, "float64")
    s = np.sort(img.ravel())
    k = img.size // 50
    lab = np.zeros(shape, np.int32)
    lab[img <= s[k - 1]] = 2
    lab[img >= s[img.size - k]] = 1
    return (xp.asarray(img), xp.asarray(lab)) if xp is not np else (img, lab)


OPS += [
    Op("random_walker two labels, cg_j", "float64", r"RandomWalker_512/",
       cucim=lambda L, x: L.cucim.segmentation.random_walker(x[0], x[1]),
       skimage=lambda L, x: L.skimage.segmentation.random_walker(x[0], x[1]),
       shapes=((512, 512),), make_input=_rw_input),
]
