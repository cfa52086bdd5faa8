#!/usr/bin/env bash
# The issue-target benchmarks on the H200 in one bounded call (device tool), after scripts/h200.sh
# has unpacked the bundle (or with .devpack carried: h200.sh unpacks it). Writes bench.tgz,
# wsi_cucim.txt and compare.md to $OUT:
#   1. filters: gaussian / edges / median (issue 3 targets), every standard shape;
#   2. morphology, ndimage (EDT), measure (label): issue 5 and 6 targets;
#   3. wsi: cuskimage read_region / read_regions at 1..16 threads and the nvJPEG device path,
#      then cuCIM's read_region on the same slide (issue 4);
#   4. CuPy and cuCIM on the same ops at 8192² and 192³ (no scikit-image: the issues give it).
set -uo pipefail
cd "$(dirname "$0")/.."
export BENCH_TIMEOUT=${BENCH_TIMEOUT:-150}
BENCH_ONLY="bench_filters" \
  BENCH_FILTER='BM_(Gaussian3_f32|Gaussian3_f64|GaussianFilter3_u8|Sobel_f32|Farid_f32|Laplace_f32|DoG_f32|Median[0-9])' \
  bash scripts/h200.sh bench
BENCH_ONLY="bench_morphology bench_ndimage bench_measure" bash scripts/h200.sh bench
BENCH_ONLY="bench_wsi" BENCH_FILTER='cuskimage_(aligned|unaligned|read_regions|device)|raw_turbojpeg' \
  bash scripts/h200.sh bench
for f in /tmp/bench/*.txt; do echo "== $f"; grep -E '^BM_' "$f" | awk '{print $1, $2, $3}'; done
WSI_TIMEOUT=${WSI_TIMEOUT:-90} bash scripts/h200.sh wsi
COMPARE_TIMEOUT=${COMPARE_TIMEOUT:-150} \
  COMPARE_ARGS="--no-skimage --repeat 10 --shapes 8192x8192,192x192x192 --ops gaussian|sobel|median|erosion|binary_erosion|label|distance" \
  bash scripts/h200.sh compare
