#!/usr/bin/env bash
# Session 4, device call B: the GPU tier of the suites fixed after call A, ncu of label, the new
# modules' target benchmarks (issues 5-7).
set -uo pipefail
cd "$(dirname "$0")/.."
TIERS=gpu TEST_ONLY="test_measure test_tiled test_exposure" bash scripts/h200.sh test
PROF_CASES="bench_measure:BM_Label_blobs/2/" PROF_LAUNCHES=12 PROF_TIMEOUT=40 bash scripts/h200.sh prof
export BENCH_TIMEOUT=50
BENCH_ONLY="bench_measure" BENCH_FILTER='^BM_(Label_blobs|RegionpropsTable_target|FindContours_4096)' bash scripts/h200.sh bench
mkdir -p /tmp/keep && cp /tmp/bench/*.txt /tmp/keep/
BENCH_ONLY="bench_color" BENCH_FILTER='^BM_Rgb2(Hed|Lab|Gray|Hsv)_u8' bash scripts/h200.sh bench; cp /tmp/bench/*.txt /tmp/keep/
BENCH_ONLY="bench_exposure" BENCH_FILTER='^BM_Clahe4096' bash scripts/h200.sh bench; cp /tmp/bench/*.txt /tmp/keep/
BENCH_ONLY="bench_pathology" BENCH_FILTER='^BM_(NormalizeColorsPca|StainExtractionPca)' bash scripts/h200.sh bench; cp /tmp/bench/*.txt /tmp/keep/
BENCH_ONLY="bench_morphology" BENCH_FILTER='^BM_ErosionBall5_u8_512cube' bash scripts/h200.sh bench; cp /tmp/bench/*.txt /tmp/keep/
for f in /tmp/keep/*.txt; do echo "== $f"; grep -E '^BM_' "$f" | cut -c1-150; done
tar -C /tmp -czf "${OUT:-/tmp/out}/keep.tgz" keep
