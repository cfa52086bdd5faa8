"""transform ops for compare.py (see ops_util.py): the same work through cuCIM and scikit-image."""
from compare import Op, test_image

OPS = []  # each part of the module appends its block

# warps, pyramids

AFFINE = ((0.95, 0.1, 20.0), (-0.08, 1.05, -15.0), (0.0, 0.0, 1.0))
SHAPES_2D = ((512, 512), (2160, 3840), (8192, 8192))


def _affine(L):
    return L.np.array(AFFINE)


def _cucim_affine(L):
    return L.cucim.transform.AffineTransform(matrix=_affine(L))


def _sk_affine(L):
    return L.skimage.transform.AffineTransform(matrix=_affine(L))


OPS += [
    Op("warp AffineTransform order 1", "float32", r"WarpAffine/\d+/1/", shapes=SHAPES_2D,
       cucim=lambda L, x: L.cucim.transform.warp(x, _cucim_affine(L), order=1),
       skimage=lambda L, x: L.skimage.transform.warp(x, _sk_affine(L), order=1)),
    Op("warp AffineTransform order 3", "float32", r"WarpAffine/\d+/3/", shapes=SHAPES_2D,
       cucim=lambda L, x: L.cucim.transform.warp(x, _cucim_affine(L), order=3),
       skimage=lambda L, x: L.skimage.transform.warp(x, _sk_affine(L), order=3)),
    Op("rotate 30 (order 1)", "float32", r"TransformRotate", shapes=SHAPES_2D,
       cucim=lambda L, x: L.cucim.transform.rotate(x, 30, order=1),
       skimage=lambda L, x: L.skimage.transform.rotate(x, 30, order=1)),
    Op("swirl", "float32", r"Swirl", shapes=SHAPES_2D,
       cucim=lambda L, x: L.cucim.transform.swirl(x, strength=5, radius=500),
       skimage=lambda L, x: L.skimage.transform.swirl(x, strength=5, radius=500)),
    Op("warp_polar", "float32", r"WarpPolar", shapes=SHAPES_2D,
       cucim=lambda L, x: L.cucim.transform.warp_polar(x),
       skimage=lambda L, x: L.skimage.transform.warp_polar(x)),
    Op("resize_local_mean 2/3", "float32", r"ResizeLocalMean",
       skimage=lambda L, x: L.skimage.transform.resize_local_mean(x, tuple(s * 2 // 3 for s in x.shape))),
    Op("downscale_local_mean 2", "float32", r"DownscaleLocalMean",
       cucim=lambda L, x: L.cucim.transform.downscale_local_mean(x, (2,) * x.ndim),
       skimage=lambda L, x: L.skimage.transform.downscale_local_mean(x, (2,) * x.ndim)),
]


def _half(x):
    return tuple((s + 1) // 2 for s in x.shape)


OPS += [
    Op("resize 1/2 anti_aliasing", "float32", r"ResizeHalf/\d+/1/",
       cucim=lambda L, x: L.cucim.transform.resize(x, _half(x), anti_aliasing=True),
       skimage=lambda L, x: L.skimage.transform.resize(x, _half(x), anti_aliasing=True)),
    Op("rescale 0.5", "float32", r"RescaleHalf",
       cucim=lambda L, x: L.cucim.transform.rescale(x, 0.5),
       skimage=lambda L, x: L.skimage.transform.rescale(x, 0.5)),
    Op("pyramid_reduce", "float32", r"PyramidReduce",
       cucim=lambda L, x: L.cucim.transform.pyramid_reduce(x),
       skimage=lambda L, x: L.skimage.transform.pyramid_reduce(x)),
    Op("pyramid_gaussian 5 levels", "float32", r"PyramidGaussian5",
       cucim=lambda L, x: list(L.cucim.transform.pyramid_gaussian(x, max_layer=4)),
       skimage=lambda L, x: list(L.skimage.transform.pyramid_gaussian(x, max_layer=4))),
    Op("pyramid_laplacian 5 levels", "float32", r"PyramidLaplacian5", shapes=SHAPES_2D,
       cucim=lambda L, x: list(L.cucim.transform.pyramid_laplacian(x, max_layer=4)),
       skimage=lambda L, x: list(L.skimage.transform.pyramid_laplacian(x, max_layer=4))),
]

# hough, radon, integral


def _edge_map(xp, shape, dtype):
    """bench_hough's edge map: the texture's pixels within 3 grey levels of 128."""
    import numpy as np
    e = np.abs(test_image(np, shape, "uint8").astype(np.int16) - 128) < 4
    return xp.asarray(e.astype(np.uint8))


def _sinogram(shape):
    """radon of the texture (bench_radon's iradon input)."""
    import numpy as np
    from skimage.transform import radon
    return radon(test_image(np, shape, "float64"), theta=np.arange(180))


HOUGH_SHAPES = ((512, 512), (2048, 2048), (2160, 3840))
RADON_SHAPES = ((512, 512), (2048, 2048), (2160, 3840))

OPS += [
    Op("integral_image", "float32", r"IntegralImage_f32(?!_cpu)",
       cucim=lambda L, x: L.cucim.transform.integral_image(x),
       skimage=lambda L, x: L.skimage.transform.integral_image(x)),
    Op("integral_image", "uint8", r"IntegralImage_u8",
       cucim=lambda L, x: L.cucim.transform.integral_image(x),
       skimage=lambda L, x: L.skimage.transform.integral_image(x)),
    Op("hough_line", "uint8", r"HoughLine", shapes=HOUGH_SHAPES, make_input=_edge_map,
       skimage=lambda L, x: L.skimage.transform.hough_line(x)),
    Op("hough_circle (3 radii)", "uint8", r"HoughCircle3", shapes=HOUGH_SHAPES, make_input=_edge_map,
       skimage=lambda L, x: L.skimage.transform.hough_circle(x, [10, 20, 30])),
    Op("radon (180 angles)", "float64", r"Radon180", shapes=RADON_SHAPES,
       skimage=lambda L, x: L.skimage.transform.radon(x, theta=L.np.arange(180))),
    Op("iradon (180 angles)", "float64", r"Iradon180", shapes=((512, 512),),
       make_input=lambda xp, shape, dtype: xp.asarray(_sinogram(shape)),
       skimage=lambda L, x: L.skimage.transform.iradon(x)),
    Op("iradon_sart (180 angles)", "float64", r"IradonSart180", shapes=((512, 512),),
       make_input=lambda xp, shape, dtype: xp.asarray(_sinogram(shape)),
       skimage=lambda L, x: L.skimage.transform.iradon_sart(x)),
    Op("frt2", "uint16", r"Frt2_u16", shapes=((509, 509),),
       skimage=lambda L, x: L.skimage.transform.frt2(x[:min(x.shape), :min(x.shape)])),
]
