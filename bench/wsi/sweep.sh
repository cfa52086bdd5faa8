#!/usr/bin/env bash
# Sweeps the device read's knobs (environment variables of src/wsi/nvjpeg_decode.cpp) on the GPU
# host: one bench_wsi process per setting, nvJPEG-only (mode 1) and hybrid (mode 2) reads of 512
# aligned tiles / unaligned 256² regions; about 70 s on the H200 once the slide exists.
#   bash bench/wsi/sweep.sh [path/to/bench_wsi] ["NAME=V NAME2=V" ...: more settings]
# Prints one line per setting: k tiles/s (regions/s) of each read, the GPU's share in brackets.
set -uo pipefail
B=${1:-build-nvj/bench/bench_wsi}
shift || true
FILTER=${SWEEP_FILTER:-BM_wsi_cuskimage_device/mode:(1|2)/}
"$B" --benchmark_filter='BM_wsi_prepare' >/dev/null 2>&1  # writes the slide once, warms the page cache
settings=("" "CUSK_WSI_NVJPEG_FEEDERS=1" "CUSK_WSI_NVJPEG_FEEDERS=3" "CUSK_WSI_NVJPEG_FEEDERS=4" "CUSK_WSI_NVJPEG_DEPTH=3"
          "CUSK_WSI_NVJPEG_DEPTH=4" "CUSK_WSI_NVJPEG_BATCH=64" "CUSK_WSI_NVJPEG_BATCH=256" "CUSK_WSI_HOST_WORKERS=14"
          "CUSK_WSI_HOST_WORKERS=16" "CUSK_WSI_NVJPEG_POW2=0" "CUSK_WSI_NVJPEG_SPIN=1" "CUSK_WSI_NVJPEG_RAMP=0"
          "CUSK_WSI_NVJPEG_MIN_CHUNK=32" "CUSK_WSI_NVJPEG_NO_PIPELINE=1" "CUSK_WSI_NVJPEG_COLOR=nvjpeg"
          "CUSK_WSI_NVJPEG_SHARE=50" "CUSK_WSI_NVJPEG_SHARE=60" "$@")
J=$(mktemp)
for s in "${settings[@]}"; do
  # shellcheck disable=SC2086
  env $s "$B" --benchmark_filter="$FILTER" --benchmark_format=json --benchmark_out="$J" >/dev/null 2>&1
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
