"""segmentation ops for compare.py. Our benchmarks: bench/segmentation/. One block per part."""
from compare import Op, test_image

OPS = []

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
