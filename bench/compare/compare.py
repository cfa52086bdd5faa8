#!/usr/bin/env python3
"""Time the operations of cuskimage's benchmarks through CuPy, cuCIM and scikit-image, and print one
table of times and ratios against cuskimage's own Google Benchmark results.

Run on the GPU host, after the C++ benchmarks:

    build/bench/bench_util --benchmark_format=json --benchmark_out=util.json
    python3 bench/compare/compare.py --bench-json util.json            # text table
    python3 bench/compare/compare.py --bench-json util.json --markdown # for docs/PERFORMANCE.md
    python3 bench/compare/compare.py --run-bench build/bench/bench_util # runs it for you

Columns: cuskimage (our GPU time, Google Benchmark manual time = CUDA events), CuPy (raw CuPy /
cupyx.scipy.ndimage doing the same work), cuCIM (cucim.skimage, when installed), scikit-image (CPU),
and the ratios others / ours (> 1: cuskimage is faster). A library that is missing, or an op it does
not have, shows "—".

Timing: GPU calls are timed with CUDA events on the current stream after warm-up calls, with the L2
cache flushed before each timed call (as our harness does); the median of --repeat runs is reported.
CPU calls use time.perf_counter; slow ones get fewer repeats (--cpu-budget seconds per cell).

The ops live in ops_<module>.py files next to this script, each defining OPS = [Op(...), ...];
every such file is loaded, so a module adds its comparisons by adding one file.

--skimage-only needs only NumPy and scikit-image (no GPU): handy to check the script anywhere.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

HERE = pathlib.Path(__file__).resolve().parent
DASH = "—"

# DESIGN.md §7 standard shapes, (rows, cols) / (planes, rows, cols).
STANDARD_SHAPES = ((512, 512), (2160, 3840), (8192, 8192), (192, 192, 192))
DTYPE_NAMES = ("bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
               "float32", "float64")
# Short dtype tokens in benchmark names (BM_Invert_u8).
DTYPE_ALIASES = {"b": "bool", "b8": "bool", "u8": "uint8", "i8": "int8", "u16": "uint16", "i16": "int16",
                 "u32": "uint32", "i32": "int32", "u64": "uint64", "i64": "int64", "f32": "float32",
                 "f64": "float64", **{n: n for n in DTYPE_NAMES}}


# ---- the op table --------------------------------------------------------------------------------

@dataclass
class Op:
    """One row group of the table: an operation timed on every shape.

    name     -- row label ("img_as_float32")
    dtype    -- input dtype name
    bench    -- regex searched (case-insensitive) in our Google Benchmark names
    cupy, cucim, skimage -- callables (L, x) -> result, L the Libs namespace, x the input (a CuPy
                array for cupy/cucim, a NumPy array for skimage); None when that library has no
                equivalent
    shapes   -- shapes to time (default: the standard shapes)
    make_input -- (xp, shape, dtype) -> array, or a tuple of arrays for an op with several inputs;
                default: test_image, the deterministic texture
    module   -- the module whose results table (bench/results/<module>.json) holds its rows;
                default: the ops file's name (ops_filters_edges.py -> filters)
    """
    name: str
    dtype: str
    bench: str
    cupy: Optional[Callable[[Any, Any], Any]] = None
    cucim: Optional[Callable[[Any, Any], Any]] = None
    skimage: Optional[Callable[[Any, Any], Any]] = None
    shapes: tuple = STANDARD_SHAPES
    make_input: Optional[Callable[[Any, tuple, str], Any]] = None
    note: str = ""
    module: str = ""  # the bench/results file its rows go to; default from the ops file's name


class Libs:
    """The libraries the callables use; a missing one is None."""

    def __init__(self, want_gpu: bool = True):
        import numpy
        self.np = numpy
        self.skimage = _try_import("skimage.util") and _try_import("skimage")
        if self.skimage is not None:
            for sub in ("util", "filters", "morphology", "measure", "color", "exposure", "transform",
                        "segmentation", "feature", "restoration", "registration", "metrics"):
                _try_import("skimage." + sub)
        self.cp = self.cupyx = self.ndi = self.cucim = None
        if want_gpu:
            self.cp = _try_import("cupy")
            if self.cp is not None:
                try:
                    self.cp.cuda.runtime.getDeviceCount()
                except Exception as e:  # no driver / no device
                    print(f"compare: CuPy present but no usable GPU ({e}); GPU columns skipped",
                          file=sys.stderr)
                    self.cp = None
            if self.cp is not None:
                self.cupyx = _try_import("cupyx")
                self.ndi = _try_import("cupyx.scipy.ndimage")
                cucim = _try_import("cucim.skimage")
                if cucim is not None:
                    for sub in ("util", "filters", "morphology", "measure", "color", "exposure",
                                "transform", "segmentation", "feature", "restoration",
                                "registration", "metrics"):
                        _try_import("cucim.skimage." + sub)
                self.cucim = cucim

    def versions(self) -> str:
        parts = [f"numpy {self.np.__version__}"]
        for label, mod in (("scikit-image", self.skimage), ("CuPy", self.cp)):
            if mod is not None:
                parts.append(f"{label} {getattr(mod, '__version__', '?')}")
        if self.cucim is not None:
            import cucim
            parts.append(f"cuCIM {getattr(cucim, '__version__', '?')}")
        if self.cp is not None:
            try:
                props = self.cp.cuda.runtime.getDeviceProperties(self.cp.cuda.Device().id)
                name = props["name"]
                parts.append(name.decode() if isinstance(name, bytes) else str(name))
            except Exception:
                pass
        return ", ".join(parts)


def _try_import(name: str):
    try:
        return importlib.import_module(name)
    except Exception:
        return None


# ops files whose name is not their module's
MODULE_OF_FILE = {"threshold": "filters"}


def load_ops(directory: pathlib.Path = HERE) -> list[Op]:
    """Every OPS list of ops_*.py beside this script, in file-name order."""
    ops: list[Op] = []
    sys.modules.setdefault("compare", sys.modules[__name__])  # ops files do `from compare import Op`
    for path in sorted(directory.glob("ops_*.py")):
        spec = importlib.util.spec_from_file_location(f"cusk_compare_{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        default = MODULE_OF_FILE.get(path.stem[4:], path.stem[4:].split("_")[0])
        for op in getattr(mod, "OPS", []):
            op.module = op.module or default
            ops.append(op)
    return ops


# ---- inputs --------------------------------------------------------------------------------------

_input_cache: dict = {}


def test_image(np, shape: tuple, dtype: str):
    """Deterministic texture like bench/common's test_image: smooth waves, edges and fine grain,
    in [0, 1] for floats, scaled to the full range for uint8/uint16, thresholded for bool."""
    key = (tuple(shape), dtype)
    if key in _input_cache:
        return _input_cache[key]
    n = math.prod(shape)
    w = shape[-1]
    i = np.arange(n, dtype=np.uint64)
    x = (i % w).astype(np.float64)
    y = (i // w).astype(np.float64)
    v = 0.5 + 0.25 * np.sin(x * 0.05) * np.cos(y * 0.031) + 0.2 * np.sin((x + 2 * y) * 0.4)
    del x, y
    v += ((i * np.uint64(2654435761)) % np.uint64(1000)).astype(np.float64) * 5e-5
    del i
    np.clip(v, 0.0, 1.0, out=v)
    v = v.reshape(shape)
    if dtype == "bool":
        out = v > 0.5
    elif dtype in ("uint8", "uint16"):
        out = np.round(v * (255.0 if dtype == "uint8" else 65535.0)).astype(dtype)
    elif dtype.startswith("int"):
        out = np.round(v * 1000).astype(dtype)
    else:
        out = v.astype(dtype)
    _input_cache[key] = out
    return out


# ---- timing --------------------------------------------------------------------------------------

class GpuTimer:
    """CUDA-event timing on the current stream with an L2 flush before each timed call."""

    def __init__(self, cp, repeat: int, warmup: int):
        self.cp = cp
        self.repeat = repeat
        self.warmup = warmup
        try:
            l2 = cp.cuda.Device().attributes.get("L2CacheSize", 64 << 20)
        except Exception:
            l2 = 64 << 20
        self.flush_buf = cp.empty(max(2 * int(l2), 1 << 22) // 4, dtype=cp.float32)

    def __call__(self, fn: Callable[[], Any]) -> float:
        cp = self.cp
        for _ in range(self.warmup):
            fn()
        cp.cuda.get_current_stream().synchronize()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(self.repeat):
            self.flush_buf.fill(1.0)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        return statistics.median(times)


class CpuTimer:
    """Wall-clock timing; repeats shrink so one cell takes about `budget` seconds at most."""

    def __init__(self, repeat: int, budget: float):
        self.repeat = repeat
        self.budget = budget

    def __call__(self, fn: Callable[[], Any]) -> float:
        t0 = time.perf_counter()
        fn()
        first = time.perf_counter() - t0
        n = max(1, min(self.repeat, int(self.budget / max(first, 1e-9))))
        if first * (n + 1) > self.budget * 2:  # slow: the first (warm-up) call is the only sample
            return first * 1e3
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e3


# ---- our Google Benchmark results ----------------------------------------------------------------

_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


@dataclass
class OurResult:
    name: str
    shape: Optional[tuple]
    ms: float
    cpu: bool  # our CPU backend (run_cpu) rather than the GPU
    floor_ms: Optional[float] = None  # the harness's floor_ms counter (bytes moved / 4.2 TB/s)


def parse_shape(text: str) -> Optional[tuple]:
    """Shape from a benchmark label or name: '[2160, 3840]' (our harness labels shapes so),
    '8192x8192', '192x192x192', or the integer arguments of 'BM_Op/2160/3840'. A single argument
    N is an index into the standard shapes when N < 4 (our benchmarks' DenseRange(0, 3)), else
    N x N."""
    m = re.search(r"\[\s*(\d+(?:\s*,\s*\d+)+)\s*\]", text)
    if m:
        return tuple(int(v) for v in m.group(1).split(","))
    m = re.search(r"(?<![\d.])(\d+)x(\d+)(?:x(\d+))?(?![\d.])", text)
    if m:
        return tuple(int(g) for g in m.groups() if g is not None)
    nums = [int(p) for p in text.split("/") if p.isdigit()]
    if len(nums) in (2, 3):
        return tuple(nums)
    if len(nums) == 1:
        n = nums[0]
        return STANDARD_SHAPES[n] if n < len(STANDARD_SHAPES) else (n, n)
    return None


def shape_key(shape: Optional[tuple]) -> Optional[tuple]:
    """Shapes compare without caring whether a name says 3840x2160 or 2160x3840."""
    return None if shape is None else tuple(sorted(shape))


def read_bench_json(paths: list[str]) -> list[OurResult]:
    results: list[OurResult] = []
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            # A benchmark program cut by its time limit leaves a truncated file: skip it, keep the rest.
            print(f"compare: skipping {path}: {e}", file=sys.stderr)
            continue
        by_name: dict[str, list] = {}
        medians: dict[str, float] = {}
        floors: dict[str, Optional[float]] = {}
        for b in doc.get("benchmarks", []):
            if b.get("error_occurred") or b.get("skipped"):
                continue
            scale = _UNIT_MS.get(b.get("time_unit", "ns"), 1e-6)
            name = b.get("run_name", b.get("name", ""))
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    medians[name] = b["real_time"] * scale
                continue
            by_name.setdefault(name, []).append((b["real_time"] * scale, b.get("label", "")))
            floors.setdefault(name, b.get("floor_ms"))
        for name in set(by_name) | set(medians):
            if name in medians:
                ms = medians[name]
                label = by_name.get(name, [(0, "")])[0][1]
            else:
                ms = statistics.median(t for t, _ in by_name[name])
                label = by_name[name][0][1]
            cpu = bool(re.search(r"(^|[/_])cpu($|[/_])", name, re.I)) or "cpu" in label.lower().split()
            results.append(OurResult(name, parse_shape(label or "") or parse_shape(name), ms, cpu,
                                     floors.get(name)))
    return results


def match_ours(op: Op, shape: tuple, ours: list[OurResult], cpu: bool) -> Optional[float]:
    """Our time for `op` on `shape` (GPU, or CPU backend when cpu=True), None when not benchmarked."""
    r = match_result(op, shape, ours, cpu)
    return None if r is None else r.ms


def match_result(op: Op, shape: tuple, ours: list[OurResult], cpu: bool) -> Optional[OurResult]:
    """The benchmark result matching `op` on `shape`, None when not benchmarked."""
    pat = re.compile(op.bench, re.I)
    for r in sorted(ours, key=lambda r: r.name):
        m = pat.search(r.name)
        if not m or r.cpu != cpu or shape_key(r.shape) != shape_key(shape):
            continue
        rest = (r.name[:m.start()] + "/" + r.name[m.end():]).lower()
        named = {DTYPE_ALIASES[t] for t in re.split(r"[^a-z0-9]+", rest) if t in DTYPE_ALIASES}
        if named and op.dtype not in named:
            continue
        return r
    return None


def run_bench_exe(exe: str, extra: list[str]) -> str:
    out = tempfile.NamedTemporaryFile(prefix="cusk_bench_", suffix=".json", delete=False).name
    cmd = [exe, "--benchmark_format=json", f"--benchmark_out={out}", "--benchmark_out_format=json", *extra]
    print("compare: running " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


# ---- the table -----------------------------------------------------------------------------------

@dataclass
class Row:
    op: str
    shape: tuple
    dtype: str
    ours: Optional[float] = None
    ours_cpu: Optional[float] = None
    cupy: Optional[float] = None
    cucim: Optional[float] = None
    skimage: Optional[float] = None
    notes: list = field(default_factory=list)
    module: str = ""
    bench: Optional[str] = None  # our benchmark's run name
    floor: Optional[float] = None


def fmt_shape(shape: tuple) -> str:
    return "x".join(str(s) for s in shape)


def fmt_ms(v: Optional[float]) -> str:
    if v is None:
        return DASH
    if v >= 100:
        return f"{v:.0f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(other: Optional[float], ours: Optional[float]) -> str:
    if other is None or ours is None or ours <= 0:
        return DASH
    r = other / ours
    return f"{r:.1f}x" if r >= 10 else f"{r:.2f}x"


def table_lines(rows: list[Row], markdown: bool) -> list[str]:
    with_cpu = any(r.ours_cpu is not None for r in rows)
    head = ["op", "shape", "dtype", "cuskimage ms"]
    if with_cpu:
        head.append("cuskimage CPU ms")
    head += ["CuPy ms", "cuCIM ms", "skimage ms", "CuPy/ours", "cuCIM/ours", "skimage/ours"]
    body = []
    for r in rows:
        cells = [r.op, fmt_shape(r.shape), r.dtype, fmt_ms(r.ours)]
        if with_cpu:
            cells.append(fmt_ms(r.ours_cpu))
        cells += [fmt_ms(r.cupy), fmt_ms(r.cucim), fmt_ms(r.skimage),
                  fmt_ratio(r.cupy, r.ours), fmt_ratio(r.cucim, r.ours), fmt_ratio(r.skimage, r.ours)]
        body.append(cells)
    numeric = [i >= 3 for i in range(len(head))]
    if markdown:
        out = ["| " + " | ".join(head) + " |",
               "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
        out += ["| " + " | ".join(c) + " |" for c in body]
        return out
    widths = [max(len(h), *(len(c[i]) for c in body)) if body else len(h) for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric)).rstrip()

    out = [line(head), "  ".join("-" * w for w in widths)]
    out += [line(c) for c in body]
    return out


def measure(ops: list[Op], libs: Libs, ours: list[OurResult], args) -> list[Row]:
    np = libs.np
    gpu_timer = GpuTimer(libs.cp, args.repeat, args.warmup) if libs.cp is not None else None
    cpu_timer = CpuTimer(args.cpu_repeat, args.cpu_budget)
    rows = []
    for op in ops:
        for shape in op.shapes:
            if args.shapes and fmt_shape(shape) not in args.shapes:
                continue
            row = Row(op.name, shape, op.dtype, module=op.module)
            mine = match_result(op, shape, ours, cpu=False)
            if mine is not None:
                row.ours, row.floor = mine.ms, mine.floor_ms
                row.bench = re.sub(r"/(manual|real)_time$", "", mine.name)
            row.ours_cpu = match_ours(op, shape, ours, cpu=True)
            make = op.make_input or test_image
            host = make(np, shape, op.dtype)

            if libs.skimage is not None and op.skimage is not None and not args.no_skimage:
                if args.skip_slow_skimage and math.prod(shape) > args.skip_slow_skimage:
                    row.notes.append("skimage skipped (size)")
                else:
                    row.skimage = _timed(cpu_timer, lambda: op.skimage(libs, host), row, "skimage")

            if gpu_timer is not None:
                # An op with several inputs (make_input returns a tuple) gets them as a tuple.
                dev = (tuple(libs.cp.asarray(h) for h in host) if isinstance(host, tuple)
                       else libs.cp.asarray(host))
                if op.cupy is not None:
                    row.cupy = _timed(gpu_timer, lambda: op.cupy(libs, dev), row, "CuPy")
                if libs.cucim is not None and op.cucim is not None:
                    row.cucim = _timed(gpu_timer, lambda: op.cucim(libs, dev), row, "cuCIM")
                del dev
                libs.cp.get_default_memory_pool().free_all_blocks()
            rows.append(row)
            if args.verbose:
                print(f"compare: {op.name} {fmt_shape(shape)} done", file=sys.stderr)
        _input_cache.clear()
    return rows


def _timed(timer, fn, row: Row, lib: str) -> Optional[float]:
    try:
        return timer(fn)
    except Exception as e:  # an op a library version lacks, out of memory, ...
        row.notes.append(f"{lib}: {type(e).__name__}: {e}")
        return None


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-json", nargs="+", default=[], metavar="FILE",
                    help="our Google Benchmark JSON output(s) (--benchmark_out=FILE)")
    ap.add_argument("--run-bench", nargs="+", default=[], metavar="EXE",
                    help="run these benchmark programs (e.g. build/bench/bench_util) and use their results")
    ap.add_argument("--bench-filter", default=None,
                    help="passed to --run-bench programs as --benchmark_filter")
    ap.add_argument("--ops", default=None, help="regex: only ops whose name matches")
    ap.add_argument("--shapes", default=None,
                    help="comma-separated shapes to time, e.g. 512x512,192x192x192 (default: all)")
    ap.add_argument("--repeat", type=int, default=20, help="timed GPU calls per cell (median)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed GPU calls before timing")
    ap.add_argument("--cpu-repeat", type=int, default=5, help="most timed CPU calls per cell")
    ap.add_argument("--cpu-budget", type=float, default=3.0, help="seconds a CPU cell may take")
    ap.add_argument("--skip-slow-skimage", type=int, default=0, metavar="PIXELS",
                    help="skip scikit-image for inputs with more elements than this (0: never)")
    ap.add_argument("--skimage-only", action="store_true",
                    help="time scikit-image only (no CuPy/cuCIM import; runs without a GPU)")
    ap.add_argument("--no-skimage", action="store_true", help="skip the scikit-image column")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table (docs/PERFORMANCE.md)")
    ap.add_argument("--json-out", default=None, metavar="FILE", help="also write the raw rows as JSON")
    ap.add_argument("--results-out", default=None, metavar="FILE",
                    help="also write the rows in bench/results' format, for `perf_tables.py update --rows`")
    ap.add_argument("--list", action="store_true", help="list the ops and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.shapes = set(s.strip() for s in args.shapes.split(",")) if args.shapes else None

    ops = load_ops()
    if args.ops:
        ops = [o for o in ops if re.search(args.ops, o.name)]
    if args.list:
        for o in ops:
            print(f"{o.name}\t{o.dtype}\t{o.bench}")
        return 0
    if not ops:
        print("compare: no ops selected", file=sys.stderr)
        return 2

    jsons = list(args.bench_json)
    for exe in args.run_bench:
        extra = [f"--benchmark_filter={args.bench_filter}"] if args.bench_filter else []
        jsons.append(run_bench_exe(exe, extra))
    ours = read_bench_json(jsons)

    libs = Libs(want_gpu=not args.skimage_only)
    if libs.skimage is None and not args.no_skimage:
        print("compare: scikit-image not importable; its column shows " + DASH, file=sys.stderr)
    if not args.skimage_only and libs.cp is None:
        print("compare: CuPy not available; CuPy and cuCIM columns show " + DASH, file=sys.stderr)
    elif libs.cp is not None and libs.cucim is None:
        print("compare: cuCIM not installed; its column shows " + DASH, file=sys.stderr)

    rows = measure(ops, libs, ours, args)
    timing = (f"GPU: median of {args.repeat} after {args.warmup} warm-up calls (CUDA events, L2 flushed)"
              if libs.cp is not None else "no GPU timings")
    header = f"cuskimage comparison: {libs.versions()}; {timing}; CPU: median of up to {args.cpu_repeat}"
    if args.markdown:
        print(f"<!-- {header} -->")
    else:
        print(header)
    for line in table_lines(rows, args.markdown):
        print(line)
    notes = [f"{r.op} {fmt_shape(r.shape)}: {n}" for r in rows for n in r.notes]
    if notes:
        print("", file=sys.stderr)
        for n in notes:
            print("note: " + n, file=sys.stderr)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump([{"op": r.op, "shape": list(r.shape), "dtype": r.dtype, "cuskimage_ms": r.ours,
                        "cuskimage_cpu_ms": r.ours_cpu, "cupy_ms": r.cupy, "cucim_ms": r.cucim,
                        "skimage_ms": r.skimage, "notes": r.notes} for r in rows], f, indent=1)
    if args.results_out:
        with open(args.results_out, "w") as f:
            json.dump(results_rows(rows, header), f, indent=1, ensure_ascii=False)
    return 0


def results_rows(rows: list[Row], source: str) -> list[dict]:
    """Rows as bench/results/<module>.json holds them (bench/compare/perf_tables.py); date and commit
    are stamped by `perf_tables.py update`."""
    out = []
    for r in rows:
        d = {"module": r.module, "op": r.op, "shape": fmt_shape(r.shape), "dtype": r.dtype, "ours": r.ours,
             "floor": r.floor, "cupy": r.cupy, "cucim": r.cucim, "skimage": r.skimage,
             "source": "compare.py: " + source}
        if r.bench:
            d["bench"] = r.bench
        out.append(d)
    return out


if __name__ == "__main__":
    sys.exit(main())
