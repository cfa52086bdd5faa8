"""measure ops for compare.py: label of binary blobs (the test texture above its 65th percentile,
~35% foreground, as bench/measure/bench_label.cpp makes them). Our benchmarks: bench/measure/.
"""
from compare import Op, test_image


def _blobs(xp, shape, dtype):
    import numpy as np
    v = test_image(np, shape, "float64")
    t = np.quantile(v.ravel()[::97], 0.65)
    out = v > t
    return xp.asarray(out) if xp is not np else out


OPS = [
    Op("label blobs", "bool", r"Label_blobs/",
       cupy=lambda L, x: L.ndi.label(x, structure=L.cp.ones((3,) * x.ndim, bool))[0],
       cucim=lambda L, x: L.cucim.measure.label(x),
       skimage=lambda L, x: L.skimage.measure.label(x),
       make_input=_blobs),
]


def _labels_and_intensity(xp, shape, dtype):
    """(labels of the blobs, uint8 texture) as bench/measure/bench_regionprops.cpp makes them."""
    import numpy as np
    from skimage.measure import label
    lab = label(_blobs(np, shape, "bool")).astype(np.int32)
    inten = test_image(np, shape, "uint8")
    return (xp.asarray(lab), xp.asarray(inten)) if xp is not np else (lab, inten)


_TARGET = ("area", "centroid", "bbox", "intensity_mean")

OPS.append(
    # cuCIM returns device arrays: compared with our device columns (regionprops_table_device).
    Op("regionprops_table (area, centroid, bbox, intensity_mean)", "int32", r"RegionpropsTableDevice_target/",
       cupy=None,
       cucim=lambda L, x: L.cucim.measure.regionprops_table(x[0], x[1], properties=_TARGET),
       skimage=lambda L, x: L.skimage.measure.regionprops_table(x[0], x[1], properties=_TARGET),
       make_input=_labels_and_intensity))
