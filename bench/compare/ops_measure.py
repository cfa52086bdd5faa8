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
