"""registration ops for compare.py: phase_cross_correlation (and the optical flows) through cuCIM
and scikit-image on the same image pairs as bench/registration/bench_registration.cpp.

The callables take (L, x) with x the (reference, moving) pair on the right device.
"""
from compare import Op, STANDARD_SHAPES, test_image


# ---- phase_cross_correlation ---------------------------------------------------------------------

def _pair(xp, shape, dtype):
    # The moving image is the reference rolled by (13, -7), as in the C++ benchmark.
    ref = test_image(xp, shape, dtype)
    return ref, xp.roll(ref, (13, -7), axis=(0, 1 if len(shape) > 1 else 0))


def _pcc(lib, upsample):
    return lambda L, x: getattr(L, lib).registration.phase_cross_correlation(x[0], x[1], upsample_factor=upsample)


def _flow(lib, name):
    return lambda L, x: getattr(getattr(L, lib).registration, name)(x[0], x[1])


OPS = [
    Op("phase_cross_correlation 4096^2", "float32", r"^BM_PhaseCrossCorrelation_4096/1\b",
       cucim=_pcc("cucim", 1), skimage=_pcc("skimage", 1), shapes=((4096, 4096),), make_input=_pair),
    Op("phase_cross_correlation 4096^2 upsample 10", "float32", r"^BM_PhaseCrossCorrelation_4096/10\b",
       cucim=_pcc("cucim", 10), skimage=_pcc("skimage", 10), shapes=((4096, 4096),), make_input=_pair),
    Op("phase_cross_correlation", "float32", r"^BM_PhaseCrossCorrelation_f32",
       cucim=_pcc("cucim", 1), skimage=_pcc("skimage", 1), shapes=STANDARD_SHAPES, make_input=_pair),

    # ---- optical flow ----
    Op("optical_flow_tvl1", "float32", r"^BM_OpticalFlowTvl1_f32",
       cucim=_flow("cucim", "optical_flow_tvl1"), skimage=_flow("skimage", "optical_flow_tvl1"),
       shapes=((512, 512), (1024, 1024)), make_input=_pair),
    Op("optical_flow_ilk", "float32", r"^BM_OpticalFlowIlk_f32",
       cucim=_flow("cucim", "optical_flow_ilk"), skimage=_flow("skimage", "optical_flow_ilk"),
       shapes=((512, 512), (1024, 1024)), make_input=_pair),
]
