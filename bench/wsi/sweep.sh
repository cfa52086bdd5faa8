#!/usr/bin/env bash
# Sweeps the device read's scheduler (tuning::WsiNvjpegPolicy, set through bench_wsi's
# $CUSK_WSI_BENCH_NVJPEG) on the GPU host: one bench_wsi process per setting, nvJPEG-only (mode 1)
# and hybrid (mode 2) reads of 512 aligned tiles / unaligned 256² regions; about 50 s on the H200
# once the slide exists.
#   bash bench/wsi/sweep.sh [path/to/bench_wsi] ["name=v,name2=v" ...: more settings]
# Host worker and feeder counts follow ReadOptions::workers (src/wsi/slide.cpp), not this sweep.
# Prints one line per setting: k tiles/s (regions/s) of each read, the GPU's share in brackets.
set -uo pipefail
B=${1:-build-nvj/bench/bench_wsi}
shift || true
FILTER=${SWEEP_FILTER:-BM_wsi_cuskimage_device/mode:(1|2)/}
"$B" --benchmark_filter='BM_wsi_prepare' >/dev/null 2>&1  # writes the slide once, warms the page cache
settings=("" "depth=3" "depth=4" "batch=64" "batch=256" "stack=1" "stack=4" "stack=16" "ramp=-1" "min_chunk=32"
          "colour=nvjpeg_rgb" "$@")
J=$(mktemp)
for s in "${settings[@]}"; do
  CUSK_WSI_BENCH_NVJPEG="$s" "$B" --benchmark_filter="$FILTER" --benchmark_format=json --benchmark_out="$J" >/dev/null 2>&1
  python3 - "$J" "${s:-default}" <<'PY'
import json, re, sys
try:
    runs = json.load(open(sys.argv[1]))["benchmarks"]
except Exception as e:  # noqa: BLE001
    print(f"{sys.argv[2]}: no results ({e})"); sys.exit()
cells = []
for r in runs:
    m = re.search(r"(mode:\d/aligned:\d)", r["name"])
    name = m.group(1) if m else r["name"].split("/")[0]
    if "error_message" in r:
        cells.append(f"{name} error: {r['error_message']}"); continue
    share = r.get("gpu_share")
    cells.append(f"{name} {r.get('tiles_per_s', 0) / 1e3:.1f}k" + (f" [{share:.2f}]" if share is not None else ""))
print(f"{sys.argv[2]}: " + ", ".join(cells))
PY
done
rm -f "$J"
