#!/usr/bin/env python3
"""A/B benchmark of two builds on the GPU host: before and after a change, in one run.

Each build is a folder holding bench/bench_<module> and the shared libraries it needs (lib/, or
the build folder itself). The selected benchmarks of every binary run alternately A, B, A, B, ...
(`--rounds`), so clock and thermal drift fall on both sides alike; each round is a Google
Benchmark run with repetitions, and a case's figure is the median over all its repetitions.
Prints one table (case, A ms, B ms, B/A) and flags cases where B is slower than A by more than
`--tolerance` (default 5 %); --json writes the rows.

  scripts/ab-bench.py --a .before --b build-gpu --rounds 2 --json $OUT/ab.json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# The headline cases: binary -> Google Benchmark filter.
HEADLINE = {
    "bench_filters": r"^BM_(Gaussian3_f32|Sobel_f32|Median5_u8|ThresholdOtsu_u8)/",
    "bench_morphology": r"^BM_ErosionDisk10_u8/",
    "bench_measure": r"^BM_(Label_blobs|RegionpropsTableDevice_target)/",
    "bench_ndimage": r"^BM_EdtDistances/",
    "bench_color": r"^BM_Rgb2Hed_u8/",
    "bench_exposure": r"^BM_Clahe(4096_u8)?/",
    # BM_wsi_prepare writes the slide fixture and warms the page cache; its time is not compared.
    "bench_wsi": r"^BM_wsi_(prepare|cuskimage_device)",
}


def lib_path(build):
    for d in (os.path.join(build, "lib"), build):
        if os.path.isdir(d) and any(f.startswith("libcuskimage.so") for f in os.listdir(d)):
            return d
    raise SystemExit(f"ab-bench: no libcuskimage.so under {build}")


def run_once(build, binary, flt, reps, min_time):
    exe = os.path.join(build, "bench", binary)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = lib_path(build) + ":" + env.get("LD_LIBRARY_PATH", "")
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [exe, f"--benchmark_filter={flt}", f"--benchmark_repetitions={reps}",
           f"--benchmark_min_time={min_time}", "--benchmark_format=console",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=600)
    if r.returncode != 0:
        print(f"ab-bench: {exe} exited {r.returncode}: {r.stderr[-400:]}", file=sys.stderr)
    times = {}
    try:
        with open(out) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return times
    finally:
        os.unlink(out)
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the 'before' build folder")
    ap.add_argument("--b", required=True, help="the 'after' build folder")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--only", default="", help="comma-separated binaries (default: all headline ones)")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()

    only = [s for s in args.only.split(",") if s]
    rows = []
    for binary, flt in HEADLINE.items():
        if only and binary not in only:
            continue
        if not all(os.path.exists(os.path.join(d, "bench", binary)) for d in (args.a, args.b)):
            print(f"ab-bench: {binary} missing in a build, skipped", file=sys.stderr)
            continue
        acc = {"a": {}, "b": {}}
        for _ in range(args.rounds):
            for side, build in (("a", args.a), ("b", args.b)):
                for name, t in run_once(build, binary, flt, args.repetitions, args.min_time).items():
                    acc[side].setdefault(name, []).extend(t)
        for name in sorted(set(acc["a"]) & set(acc["b"])):
            ma, mb = statistics.median(acc["a"][name]), statistics.median(acc["b"][name])
            rows.append({"binary": binary, "case": name, "a_ms": ma, "b_ms": mb, "ratio": mb / ma})

    worse = [r for r in rows if r["ratio"] > 1 + args.tolerance]
    print(f"| case | before (ms) | after (ms) | after / before |\n|---|---:|---:|---:|")
    for r in rows:
        flag = " **slower**" if r in worse else ""
        print(f"| {r['case']} | {r['a_ms']:.4f} | {r['b_ms']:.4f} | {r['ratio']:.3f}{flag} |")
    print(f"\n{len(rows)} cases, {len(worse)} slower by more than {args.tolerance:.0%}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
