"""morphology ops for compare.py: grey erosion by disk(10) (full footprint, and the 'crosses' and
'sequence' decompositions in the libraries that take them), binary erosion by a 3x3 square, 3-D
grey erosion by ball(5), reconstruction, remove_small_objects and skeletonize. Our benchmarks:
bench/morphology/bench_morphology.cpp, bench_recon.cpp, bench_skel.cpp.
"""
from compare import Op, test_image

PLANAR = ((512, 512), (2160, 3840), (8192, 8192))
VOLUME = ((192, 192, 192),)


def _disk(L, decomposition=None):
    return L.skimage.morphology.disk(10, decomposition=decomposition)


OPS = [
    Op("erosion disk(10)", "uint8", r"ErosionDisk10_u8",
       cupy=lambda L, x: L.ndi.grey_erosion(x, footprint=L.cp.asarray(_disk(L)), mode="reflect"),
       cucim=lambda L, x: L.cucim.morphology.erosion(x, L.cp.asarray(_disk(L))),
       skimage=lambda L, x: L.skimage.morphology.erosion(x, _disk(L)),
       shapes=PLANAR),
    Op("erosion disk(10, crosses)", "uint8", r"ErosionDisk10Crosses",
       cucim=lambda L, x: L.cucim.morphology.erosion(
           x, tuple((L.cp.asarray(f), n) for f, n in _disk(L, "crosses"))),
       skimage=lambda L, x: L.skimage.morphology.erosion(x, _disk(L, "crosses")),
       shapes=PLANAR),
    Op("erosion disk(10, sequence)", "uint8", r"ErosionDisk10Sequence",
       cucim=lambda L, x: L.cucim.morphology.erosion(
           x, tuple((L.cp.asarray(f), n) for f, n in _disk(L, "sequence"))),
       skimage=lambda L, x: L.skimage.morphology.erosion(x, _disk(L, "sequence")),
       shapes=PLANAR),
    Op("binary_erosion 3x3", "bool", r"BinaryErosion3x3",
       cupy=lambda L, x: L.ndi.binary_erosion(x, structure=L.cp.ones((3,) * x.ndim, bool)),
       cucim=lambda L, x: L.cucim.morphology.binary_erosion(x, L.cp.ones((3,) * x.ndim, bool)),
       skimage=lambda L, x: L.skimage.morphology.binary_erosion(x, L.np.ones((3,) * x.ndim, bool))),
    Op("erosion ball(5)", "uint8", r"ErosionBall5",
       cupy=lambda L, x: L.ndi.grey_erosion(x, footprint=L.cp.asarray(L.skimage.morphology.ball(5))),
       cucim=lambda L, x: L.cucim.morphology.erosion(x, L.cp.asarray(L.skimage.morphology.ball(5))),
       skimage=lambda L, x: L.skimage.morphology.erosion(x, L.skimage.morphology.ball(5)),
       shapes=VOLUME + ((512, 512, 512),)),  # 512^3: the 3-D case (ours: BM_ErosionBall5_u8_512cube)
]


def _hdome(xp, shape, dtype):
    """(seed, mask) as bench_recon.cpp makes them: mask the float32 texture, seed mask - 0.2 >= 0."""
    import numpy as np
    mask = test_image(np, shape, "float32")
    seed = np.maximum(mask - np.float32(0.2), np.float32(0))
    return (xp.asarray(seed), xp.asarray(mask)) if xp is not np else (seed, mask)


OPS += [
    Op("reconstruction (dilation) float32", "float32", r"ReconstructionDilation_f32",
       cucim=lambda L, x: L.cucim.morphology.reconstruction(x[0], x[1]),
       skimage=lambda L, x: L.skimage.morphology.reconstruction(x[0], x[1]),
       shapes=((8192, 8192),) + VOLUME, make_input=_hdome),
    # scikit-image 0.26 removes objects of max_size pixels or fewer; cuCIM keeps the older
    # min_size (objects smaller than it are removed): min_size = 65 is the same selection.
    Op("remove_small_objects (max_size 64)", "bool", r"RemoveSmallObjects_b8",
       cucim=lambda L, x: L.cucim.morphology.remove_small_objects(x, min_size=65),
       skimage=lambda L, x: L.skimage.morphology.remove_small_objects(x, max_size=64),
       shapes=((8192, 8192),) + VOLUME),
    Op("skeletonize (Zhang, 2-D)", "bool", r"SkeletonizeZhang_b8",
       cucim=lambda L, x: L.cucim.morphology.skeletonize(x),
       skimage=lambda L, x: L.skimage.morphology.skeletonize(x),
       shapes=((512, 512), (8192, 8192))),
]
