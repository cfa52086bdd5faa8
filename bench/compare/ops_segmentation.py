"""segmentation ops for compare.py, one block per part of the module. Our benchmarks:
bench/segmentation/.
"""
from compare import Op

OPS = []

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
