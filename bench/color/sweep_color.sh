#!/usr/bin/env bash
# Sweep of the colour tile kernel's temporary launch switches (CUSK_COLOR_*, documented in
# kernels/color/pixel.cuh) on one GPU: each line is one bench_color process under one setting
# (the switches are read once per process). ~4 s per setting on the H200 with the default filter.
#   bench/color/sweep_color.sh [bench_color binary] [benchmark filter]
# Defaults: build/bench/bench_color, the issue-7 targets 'BM_Rgb2(Lab|Hsv|Hed|Gray)_u8'. The other
# conversions: bench/color/sweep_color.sh build/bench/bench_color 'BM_Rgb2(Ycbcr|Luv)_u8|BM_Rgb2(Lab|Hed)_f32'
set -u
BIN=${1:-build/bench/bench_color}
FILTER=${2:-'BM_Rgb2(Lab|Hsv|Hed|Gray)_u8'}
configs=(
  ""                                          # the policy (tile_policy in pixel.cuh)
  "CUSK_COLOR_WAVES=1 CUSK_COLOR_GRAY_LUT=1"  # the previous commit: a persistent wave for every op, rgb2gray's table
  "CUSK_COLOR_WAVES=0"                        # one tile per block for every op
  "CUSK_COLOR_WAVES=1"                        # a persistent wave for every op
  "CUSK_COLOR_WAVES=2"
  "CUSK_COLOR_WAVES=4"
  "CUSK_COLOR_TILE=512"
  "CUSK_COLOR_TILE=512 CUSK_COLOR_WAVES=0"
  "CUSK_COLOR_TILE=512 CUSK_COLOR_WAVES=1"
  "CUSK_COLOR_REGCAP=1"
  "CUSK_COLOR_REGCAP=1 CUSK_COLOR_WAVES=0"
  "CUSK_COLOR_REGCAP=1 CUSK_COLOR_TILE=512"
  "CUSK_COLOR_TILE=2048"                      # rgb2gray only (the others keep 1024)
  "CUSK_COLOR_GRAY_LUT=1"
  "CUSK_COLOR_CARVEOUT=100"
)
for cfg in "${configs[@]}"; do
  printf '== %s\n' "${cfg:-policy}"
  # shellcheck disable=SC2086  # the setting splits into NAME=VALUE words for env
  env $cfg "$BIN" --benchmark_filter="$FILTER" --benchmark_min_time=0.1 2>/dev/null |
    awk '/^BM_/ {printf "  %-34s %8s %s\n", $1, $2, $3}'
done
