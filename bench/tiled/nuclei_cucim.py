#!/usr/bin/env python3
"""The nuclei job written with cuCIM + cucim.skimage, for a side-by-side time with
`cuskimage nuclei` (issue 8). Same steps per tile: read the tile with its halo (cuCIM's
read_region, `workers` threads), rgb2hed -> haematoxylin -> gaussian -> > threshold -> binary_opening
(disk) -> remove_small_objects -> label -> regionprops_table (area, centroid, bbox, intensity_mean).
cuCIM has no stitching, tissue skipping or outputs: this times the per-tile work only (reading,
decoding, compute), which favours cuCIM.

    python3 nuclei_cucim.py SLIDE [--tile 2048] [--threshold T] [--limit N]
"""
import argparse
import concurrent.futures as cf
import time

import cupy as cp
import numpy as np
from cucim import CuImage
from cucim.skimage import color, filters, measure, morphology


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("slide")
    ap.add_argument("--tile", type=int, default=2048)
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--radius", type=int, default=2)
    ap.add_argument("--max-size", type=int, default=30)
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--limit", type=int, default=0, help="process at most N tiles (0: all)")
    a = ap.parse_args()
    img = CuImage(a.slide)
    w, h = img.resolutions["level_dimensions"][0]
    halo = int(4 * a.sigma + 0.5) + 2 * a.radius
    thr = a.threshold
    if thr is None:  # Otsu of the haematoxylin of the lowest level, as cuskimage's job does
        lvl = img.resolutions["level_count"] - 1
        lw, lh = img.resolutions["level_dimensions"][lvl]
        low = cp.asarray(np.asarray(img.read_region(location=(0, 0), size=(lw, lh), level=lvl))[..., :3])
        hed = color.rgb2hed(low)[..., 0]
        thr = float(filters.threshold_otsu(hed))
    fp = morphology.disk(a.radius)
    tiles = [(x, y) for y in range(0, h, a.tile) for x in range(0, w, a.tile)]
    if a.limit:
        tiles = tiles[: a.limit]

    def read(t):
        x, y = t
        x0, y0 = max(0, x - halo), max(0, y - halo)
        x1, y1 = min(w, x + a.tile + halo), min(h, y + a.tile + halo)
        r = img.read_region(location=(x0, y0), size=(x1 - x0, y1 - y0), level=0, num_workers=4)
        return t, (x - x0, y - y0), np.asarray(r)[..., :3]

    t0 = time.perf_counter()
    t_read = t_comp = 0.0
    objects = 0
    with cf.ThreadPoolExecutor(max(1, a.workers // 4)) as pool:
        for (x, y), (cx, cy), rgb in pool.map(read, tiles):
            tc = time.perf_counter()
            g = cp.asarray(rgb)
            hem = color.rgb2hed(g)[..., 0]
            sm = filters.gaussian(hem, sigma=a.sigma, preserve_range=True)
            m = morphology.binary_opening(sm > thr, footprint=fp)
            tw, th = min(a.tile, w - x), min(a.tile, h - y)
            core = m[cy : cy + th, cx : cx + tw]
            try:
                core = morphology.remove_small_objects(core, max_size=a.max_size)
            except TypeError:  # releases before scikit-image 0.26's max_size
                core = morphology.remove_small_objects(core, min_size=a.max_size + 1)
            lab = measure.label(core)
            tab = measure.regionprops_table(lab, intensity_image=hem[cy : cy + th, cx : cx + tw],
                                            properties=("label", "area", "centroid", "bbox", "intensity_mean"))
            objects += len(tab["label"])
            cp.cuda.runtime.deviceSynchronize()
            t_comp += time.perf_counter() - tc
    total = time.perf_counter() - t0
    print(f"cucim nuclei: {len(tiles)} tiles, {objects} objects (unstitched), {total:.2f} s total, "
          f"compute {t_comp:.2f} s, {len(tiles) / total:.1f} tiles/s, threshold {thr:.5f}")


if __name__ == "__main__":
    main()
