"""transform ops for compare.py (see ops_util.py): the same work through cuCIM and scikit-image."""
from compare import Op, test_image

OPS = []  # each part of the module appends its block

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
