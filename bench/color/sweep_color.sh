#!/usr/bin/env bash
# The colour tile kernel's grids side by side on one GPU: the four targets under the policy's
# automatic choice (BM_Rgb2*_u8) and forced one tile per block (/1) or persistent (/2)
# (BM_ColorGrid_*: tuning::ColorPolicy, kernels/color/pixel.cuh). ~10 s on the H200.
#   bench/color/sweep_color.sh [bench_color binary]
set -u
BIN=${1:-build/bench/bench_color}
"$BIN" --benchmark_filter='^BM_(ColorGrid_)?Rgb2(Lab|Hsv|Hed|Gray)_u8/4096' --benchmark_min_time=0.1 2>/dev/null |
  awk '/^BM_/ {printf "  %-40s %8s %s\n", $1, $2, $3}'
