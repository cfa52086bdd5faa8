#!/usr/bin/env bash
# Runs on the H200 host (device tool): both test tiers, compute-sanitizer (memcheck, racecheck,
# synccheck) on the GPU tier,
# benchmarks and the CuPy/cuCIM/scikit-image comparison. Results go to $OUT.
#   scripts/h200.sh [build|test|sanitize|bench|compare|all]...
# Prefer binaries built here and packed by scripts/device-pack (carry .devpack): compiling there
# costs device time. Without .devcarry, `build` compiles there. Needs the carried .hostdeps
# (bundle-host-deps) and, for cuCIM, .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
# scripts/device-pack's bundle holds .devcarry and .hostdeps compressed (the carry limit is 64 MiB).
[[ -f .devpack/bundle.tar.xz && ! -d .devcarry ]] && xz -dc .devpack/bundle.tar.xz | tar -xf -
export LD_LIBRARY_PATH=$PWD/.hostdeps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=build-gpu
if [[ -d .devcarry ]]; then
  # The packed tests name /work/main/... (golden data, CLI path): make that this checkout.
  mkdir -p /work && ln -sfn "$PWD" /work/main
  bd=$(cat .devcarry/builddir 2>/dev/null || echo build)
  mkdir -p "$bd" && cp .devcarry/cuskimage "$bd/cuskimage"
  export LD_LIBRARY_PATH=$PWD/.devcarry/lib:$LD_LIBRARY_PATH
  B=.devcarry
  echo "binaries built from $(cat .devcarry/commit 2>/dev/null || echo "an unrecorded commit")"
fi
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(all)
has() { [[ " ${steps[*]} " == *" $1 "* || " ${steps[*]} " == *" all "* ]]; }
rc=0

if has build && [[ $B != .devcarry ]]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PWD/.hostdeps/usr >"$OUT/configure.log" 2>&1 \
    || { tail -30 "$OUT/configure.log"; exit 1; }
  grep -E "cuskimage|optional" "$OUT/configure.log"
  ninja -C $B >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -40; exit 1; }
  echo "build ok"
fi
if has test; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  : >"$OUT/tests.log"
  # Both tiers, one gtest run per module: Gpu* suites are the gpu tier, the rest the cpu tier.
  for t in $B/tests/test_*; do
    [[ -x $t && ! -d $t ]] || continue
    [[ -z ${TEST_ONLY:-} || " $TEST_ONLY " == *" $(basename "$t") "* ]] || continue
    for tier in ${TIERS:-gpu cpu}; do  # TIERS=gpu: the GPU tier only
      f=${GPU_FILTER:-Gpu*}; [[ $tier == cpu ]] && f='-Gpu*'
      log=/tmp/$(basename "$t").$tier.log
      timeout 300 "$t" --gtest_filter="$f" >"$log" 2>&1 || rc=1
      cat "$log" >>"$OUT/tests.log"  # one file: the device tool returns at most 8
      echo "$(basename "$t") $tier: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
      grep -E '^\[  FAILED  \]' "$log" | head -10
    done
  done
fi
if has sanitize; then
  # compute-sanitizer over the GPU tier, one pass per tool (SANITIZE_TOOLS, default all three):
  # memcheck (out-of-bounds and misaligned accesses, leaks of device memory), racecheck (shared-memory
  # hazards between threads of a block), synccheck (barriers reached by part of a block, invalid
  # warp masks). Each tool prints an exit line per binary and its summary counts; the logs are
  # appended to one file (the device tool returns at most 8), a "== tool binary" line before each.
  : >"$OUT/sanitizer.log"
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    log=/tmp/sanitizer-$tool.log
    : >"$log"
    for t in $B/tests/test_*; do
      [[ -x $t && ! -d $t ]] || continue
      [[ -z ${SANITIZE_ONLY:-} || " $SANITIZE_ONLY " == *" $(basename "$t") "* ]] || continue
      # The legacy-stream tests (runs_without_legacy_stream: *Legacy*, *NonDefaultStream*, *AndStream*)
      # are timing based (a 3 s deadline) and the sanitizers serialise kernels.
      echo "== $tool $(basename "$t")" >>"$log"
      timeout "${SANITIZE_TIMEOUT:-120}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$t" \
        --gtest_filter="${SANITIZE_FILTER:-Gpu*:-*Huge*:*Legacy*:*NonDefaultStream*:*AndStream*}" >>"$log" 2>&1
      s=$?; echo "$tool $(basename "$t"): exit $s"; [[ $s -eq 0 ]] || rc=1
    done
    echo "$tool: $(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | sed 's/^=* *//' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    cat "$log" >>"$OUT/sanitizer.log"
  done
fi
if has bench; then
  # All results in one archive: the device tool returns at most 8 files. BENCH_FILTER (a regex) and
  # BENCH_ONLY (binary names, e.g. "bench_filters bench_wsi") narrow the run.
  mkdir -p /tmp/bench
  for b in $B/bench/bench_*; do
    n=$(basename "$b")
    [[ -z ${BENCH_ONLY:-} || " $BENCH_ONLY " == *" $n "* ]] || continue
    timeout "${BENCH_TIMEOUT:-240}" "$b" --benchmark_filter="${BENCH_FILTER:-.}" --benchmark_format=console \
      --benchmark_out=/tmp/bench/$n.json --benchmark_min_time=0.2 >/tmp/bench/$n.txt 2>&1 || { e=$?; rc=1; echo "$n: exit $e"; }
  done
  tar -C /tmp -czf "$OUT/bench.tgz" bench
  echo "benchmarks written to bench.tgz"
fi
if (has compare || has wsi || has nuclei) && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
if has prof; then
  # Per-kernel time and DRAM traffic under Nsight Compute for a few benchmark cases, to see which
  # pass of an op misses its floor. PROF_CASES: "bench_binary:benchmark_regex ...".
  : >"$OUT/prof.txt"
  # A case may end in ":KERNEL_REGEX" to profile only kernels whose names match.
  for c in ${PROF_CASES:-}; do
    b=${c%%:*}; f=${c#*:}; k=""
    [[ $f == *:* ]] && k=${f#*:} && f=${f%%:*}
    echo "== $b $f ${k}" >>"$OUT/prof.txt"
    timeout "${PROF_TIMEOUT:-90}" ncu --clock-control none ${k:+--kernel-name regex:$k} --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      --launch-count "${PROF_LAUNCHES:-40}" "$PWD/$B/bench/$b" --benchmark_filter="$f" --benchmark_min_time=0.001 \
      >/tmp/prof.csv 2>/tmp/prof.err || echo "ncu exit $?" >>"$OUT/prof.txt"
    python3 scripts/ncu_summary.py /tmp/prof.csv ${PROF_BY_KERNEL:+--by-kernel} >>"$OUT/prof.txt" 2>&1
  done
  cat "$OUT/prof.txt"
fi
if has nuclei; then
  # Issue 8: the nuclei job end to end on a synthetic NUCLEI_SIZE^2 slide made here (JPEG tiles),
  # then the same per-tile work with cuCIM + cucim.skimage (bench/tiled/nuclei_cucim.py).
  n=${NUCLEI_SIZE:-40000}
  CLI=build/cuskimage; [[ -x $CLI ]] || CLI=$B/cuskimage
  # NUCLEI_SYNTH_ARGS="--touching 0.3": touching pairs; the JSON holds the true count ("nuclei").
  # NUCLEI_ARGS="--split none" or "--split watershed" (the default) times the job without/with the split.
  /usr/bin/time -f "synthetic slide: %e s" "$CLI" tiled.synthetic-slide /tmp/synth.svs --width "$n" --height "$n" \
    ${NUCLEI_SYNTH_ARGS:-} 2>&1 | tail -2 | tee "$OUT/nuclei_slide.txt"
  rm -rf /tmp/nuc
  timeout "${NUCLEI_TIMEOUT:-200}" "$CLI" nuclei /tmp/synth.svs --out /tmp/nuc --device cuda ${NUCLEI_ARGS:-} \
    | tee "$OUT/nuclei.json" || rc=1
  ls -la /tmp/nuc
  cp /tmp/nuc/overlay.png "$OUT/overlay_h200.png" 2>/dev/null || true
  thr=$(python3 -c "import json;print(json.load(open('$OUT/nuclei.json'))['threshold'])" 2>/dev/null)
  if ls .whl/*.whl >/dev/null 2>&1; then
    timeout "${NUCLEI_CUCIM_TIMEOUT:-200}" python3 bench/tiled/nuclei_cucim.py /tmp/synth.svs ${thr:+--threshold $thr} \
      ${NUCLEI_CUCIM_ARGS:-} 2>&1 | tail -3 | tee -a "$OUT/nuclei.json" || rc=1
  fi
fi
if has wsi; then
  # cuCIM's read_region on the slide bench_wsi wrote (run bench with bench_wsi first).
  timeout "${WSI_TIMEOUT:-150}" python3 bench/wsi/compare_cucim.py --workers 1,2,4,8,16 --count 2048 \
    >"$OUT/wsi_cucim.txt" 2>&1 || rc=1
  cat "$OUT/wsi_cucim.txt"
fi
if has compare; then
  # compare_rows.json: the same rows in bench/results' format (bench/compare/perf_tables.py update --rows).
  PYTHONUNBUFFERED=1 timeout "${COMPARE_TIMEOUT:-420}" python3 bench/compare/compare.py --bench-json /tmp/bench/bench_*.json --markdown \
    --results-out "$OUT/compare_rows.json" ${COMPARE_ARGS:-} \
    >"$OUT/compare.md" 2>"$OUT/compare.err" || rc=1
  cat "$OUT/compare.md"; tail -5 "$OUT/compare.err"
fi
exit $rc
