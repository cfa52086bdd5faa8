#!/usr/bin/env python3
"""cuCIM's read_region on the benchmark slide, for the ratio against bench_wsi (same host).

Reads 256x256 regions of the 20000x20000 JPEG Q80 slide that bench/wsi/bench_wsi writes
($CUSK_WSI_BENCH_SLIDE, default /tmp/cuskimage_bench_20000.tif: run bench_wsi once first), aligned
to the tile grid and unaligned (4 tiles each), in a fixed random order, with cuCIM's batched
read_region at several worker counts; prints tiles/s per worker count and the best. With
--device cuda the regions land in device memory (cuCIM's nvJPEG path where it has one).

    python3 bench/wsi/compare_cucim.py [--workers 1,2,4,8,16] [--count 4096] [--device cpu|cuda]

Compare with bench_wsi's BM_wsi_cuskimage_read_regions/<workers> (aligned) and
BM_wsi_cuskimage_unaligned (threads) rows: the issue asks for >= 2x cuCIM at its best worker count.
"""
import argparse
import os
import random
import sys
import time

SIDE, TILE = 20000, 256


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", default="1,2,4,8,16")
    ap.add_argument("--count", type=int, default=4096)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    path = os.environ.get("CUSK_WSI_BENCH_SLIDE", "/tmp/cuskimage_bench_20000.tif")
    if not os.path.exists(path):
        sys.exit(f"{path} missing: run build/bench/bench_wsi once to write it")
    try:
        from cucim import CuImage
    except ImportError:
        sys.exit("cucim not installed (pip install cucim-cu13)")
    img = CuImage(path)
    n = SIDE // TILE
    grid = [(tx * TILE, ty * TILE) for ty in range(n) for tx in range(n)]
    random.Random(42).shuffle(grid)
    aligned = grid[: args.count]
    unaligned = [(min(x + 100, SIDE - 300), min(y + 77, SIDE - 300)) for x, y in aligned]
    for name, locs in (("aligned", aligned), ("unaligned", unaligned)):
        best = (0.0, 0)
        for w in [int(v) for v in args.workers.split(",")]:
            t0 = time.perf_counter()
            gen = img.read_region(locs, (TILE, TILE), 0, num_workers=w, batch_size=64, device=args.device)
            count = 0
            for batch in gen:
                count += len(batch) if hasattr(batch, "__len__") and getattr(batch, "ndim", 3) == 4 else 1
            dt = time.perf_counter() - t0
            rate = len(locs) / dt
            print(f"cucim {name} workers={w}: {rate:,.0f} tiles/s ({args.device})")
            best = max(best, (rate, w))
        print(f"cucim {name} best: {best[0]:,.0f} tiles/s at {best[1]} workers")


if __name__ == "__main__":
    main()
