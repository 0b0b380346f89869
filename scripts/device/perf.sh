#!/usr/bin/env bash
# The performance battery over PETSc's tutorials on the GPU (docs/performance.md,
# "Performance battery over PETSc's tutorials"): tests/tutorials/run_perf.py
# --gpu --prebuilt --scale gpu, diag against aijcusparse with CUDA vectors, on
# the kit staged as compat.tar.xz (COMPAT_WORK=<work of a CPU run of
# run_perf.py --build-only or run_compat.py> PETSC_VERSION=3.25
# scripts/device-stage.sh: the runners, perf_cases.json, the tutorial sources
# and the binaries that CPU run built). A perf-results.json beside this script
# (the previous call's results.json, carried back) is continued (--resume).
# LIMIT seconds end the runner (killed 15 s after an interrupt): results.json
# holds every case that finished (saved after each), which the next call
# continues. Writes results.json, table.md, ratios.png (where matplotlib is
# importable) and the runner's log under $OUT. Extra arguments go to the
# runner (e.g. --only REGEX, --scale cpu, --repeat 2).
#   device: LIMIT=540 bash .gpu/perf.sh [--only REGEX]
#   several GPUs: JOBS=<number of GPUs> (one case a GPU at a time)
cd "$(dirname "$0")" && source ./env.sh 2>/dev/null
export PMIX_MCA_pcompress_base_silence_warning=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
KIT=$PWD
W=/tmp/perf-gpu
OUT=${OUT:-/tmp/out}
mkdir -p "$W" "$OUT" "$W/perf"
tar xJf compat.tar.xz -C "$W"
resume=()
if [ -f perf-results.json ]; then cp perf-results.json "$W/perf/results.json"; resume=(--resume); fi
commit=()
[ -f commit ] && commit=(--commit "$(cat commit)")
timeout -k 15 -s INT "${LIMIT:-540}" python3 "$W/runner/run_perf.py" --gpu --prebuilt --scale gpu --work "$W/work" \
  --out "$W/perf" --examples "$W/src" --plugin "$KIT/lib/libpetscdiag.so" --jobs "${JOBS:-1}" --timeout "${TIMEOUT:-240}" \
  "${commit[@]}" "${resume[@]}" "$@" >"$OUT/perf.log" 2>&1
echo "runner exit $?" >>"$OUT/perf.log"
python3 "$W/runner/run_perf.py" --report --out "$W/perf" >>"$OUT/perf.log" 2>&1
cp "$W/perf/results.json" "$W/perf/table.md" "$OUT/" 2>/dev/null
[ -f "$W/perf/ratios.png" ] && cp "$W/perf/ratios.png" "$OUT/"
tail -4 "$OUT/perf.log"
