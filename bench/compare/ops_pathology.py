"""pathology ops for compare.py: Macenko normalisation (fit + apply) of a 4096^2 H&E-like RGB tile
through cuCIM (cucim.core.operations.color); scikit-image has no counterpart. Our benchmark:
bench/pathology/bench_pathology.cpp (BM_NormalizeColorsPca, the same tile).
"""
from compare import Op, test_image


def _he_tile(xp, shape, dtype):
    """bench_pathology's tile: two texture fields as H and E concentrations through the reference
    stain matrix, 240 * exp(-S c), with a near-transparent band of 64 rows in every 512."""
    import numpy as np
    h = test_image(np, shape, "uint8").astype(np.float64)
    e = np.ascontiguousarray(test_image(np, tuple(shape[::-1]), "uint8").astype(np.float64).T)
    rows = (np.arange(shape[0]) % 512 < 64)[:, None]
    ch = np.where(rows, 0.01, 1.8 * h / 255.0)
    ce = np.where(rows, 0.01, 1.0 * e / 255.0)
    S = np.array([[0.5626, 0.2159], [0.7201, 0.8012], [0.4062, 0.5581]])
    rgb = np.stack([np.round(240.0 * np.exp(-(S[k, 0] * ch + S[k, 1] * ce))) for k in range(3)], axis=-1)
    rgb = rgb.astype(np.uint8)
    return xp.asarray(rgb) if xp is not np else rgb


def _cucim_macenko(L, x):
    from cucim.core.operations.color import normalize_colors_pca
    return normalize_colors_pca(x, channel_axis=-1)


OPS = [
    Op("normalize_colors_pca (Macenko fit + apply)", "uint8", r"BM_NormalizeColorsPca(/|$)",
       cucim=_cucim_macenko, shapes=((4096, 4096),), make_input=_he_tile),
]
