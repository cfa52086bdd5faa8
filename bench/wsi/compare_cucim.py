#!/usr/bin/env python3
"""cuCIM's read_region on the benchmark slide, for the ratio against bench_wsi (same host).

Reads 256x256 regions of the 20000x20000 JPEG Q80 slide that bench/wsi/bench_wsi writes
($CUSK_WSI_BENCH_SLIDE, default /tmp/cuskimage_bench_20000.tif: run bench_wsi once first), aligned
to the tile grid and unaligned (4 tiles each), in a fixed random order (the order bench_wsi uses is
its own; both are uniform over the slide), with cuCIM's batched read_region at several worker
counts; prints regions/s per worker count and the best, for each device asked:

  * cpu: regions decoded into host memory (cuCIM's libjpeg-turbo path);
  * cuda: regions delivered into device memory (cuCIM's nvJPEG path where it has one). When cuCIM
    cannot read this slide to the GPU, the error is printed and the cpu figures still stand.

    python3 bench/wsi/compare_cucim.py [--workers 1,2,4,8,16] [--count 2048] [--device cpu,cuda]

Compare with bench_wsi's rows: host reads BM_wsi_cuskimage_aligned / _unaligned (threads) and
BM_wsi_cuskimage_read_regions/<workers>; device reads BM_wsi_cuskimage_device/mode:1|2/aligned:1|0. The issue
asks for >= 2x cuCIM at its best worker count.
"""
import argparse
import os
import random
import sys
import time

SIDE, TILE = 20000, 256


def consume(gen, device, cupy):
    """Iterates cuCIM's batches, touching each (device batches: as CuPy arrays, then a sync)."""
    n = 0
    for batch in gen:
        if device == "cuda" and cupy is not None:
            cupy.asarray(batch)
        n += 1
    if device == "cuda" and cupy is not None:
        cupy.cuda.runtime.deviceSynchronize()
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", default="1,2,4,8,16")
    ap.add_argument("--count", type=int, default=2048)
    ap.add_argument("--device", default="cpu,cuda")
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    path = os.environ.get("CUSK_WSI_BENCH_SLIDE", "/tmp/cuskimage_bench_20000.tif")
    if not os.path.exists(path):
        sys.exit(f"{path} missing: run build/bench/bench_wsi once to write it")
    try:
        import cucim
        from cucim import CuImage
    except ImportError:
        sys.exit("cucim not installed (pip install cucim-cu13)")
    try:
        import cupy
    except ImportError:
        cupy = None
    print(f"cuCIM {getattr(cucim, '__version__', '?')}, slide {path}")
    img = CuImage(path)
    n = SIDE // TILE
    grid = [(tx * TILE, ty * TILE) for ty in range(n) for tx in range(n)]
    random.Random(42).shuffle(grid)
    aligned = grid[: args.count]
    unaligned = [(min(x + 100, SIDE - 300), min(y + 77, SIDE - 300)) for x, y in aligned]
    workers = [int(v) for v in args.workers.split(",")]
    for device in args.device.split(","):
        if device == "cuda":
            # Does cuCIM deliver this slide's regions to the GPU at all?
            try:
                probe = img.read_region([aligned[0], aligned[1]], (TILE, TILE), 0, num_workers=1, batch_size=2, device="cuda")
                first = next(iter(probe))
                where = getattr(first, "device", None)
                print(f"cucim device='cuda': batches are {type(first).__name__} on {where}"
                      + ("" if cupy is not None else " (cupy missing: not synchronised per batch)"))
            except Exception as e:  # noqa: BLE001 - report whatever cuCIM raises
                print(f"cucim device='cuda' is not supported for this slide: {type(e).__name__}: {e}")
                continue
        for name, locs in (("aligned", aligned), ("unaligned", unaligned)):
            best = (0.0, 0)
            for w in workers:
                try:
                    t0 = time.perf_counter()
                    gen = img.read_region(locs, (TILE, TILE), 0, num_workers=w, batch_size=args.batch, device=device)
                    consume(gen, device, cupy)
                    dt = time.perf_counter() - t0
                except Exception as e:  # noqa: BLE001
                    print(f"cucim {name} workers={w} device={device}: failed: {type(e).__name__}: {e}")
                    continue
                rate = len(locs) / dt
                gbs = rate * TILE * TILE * 3 / 1e9
                print(f"cucim {name} workers={w}: {rate:,.0f} tiles/s, {gbs:.2f} GB/s ({device})")
                best = max(best, (rate, w))
            print(f"cucim {name} best: {best[0]:,.0f} tiles/s at {best[1]} workers ({device})")


if __name__ == "__main__":
    main()
