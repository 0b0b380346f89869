#!/usr/bin/env bash
# PETSc's own tutorials on the GPU, diag against aijcusparse (docs/compatibility.md,
# "With CUDA vectors"): tests/tutorials/run_compat.py --gpu --prebuilt on the
# tutorials staged as compat.tar.xz (COMPAT_WORK=<work of a CPU run>
# PETSC_VERSION=3.25 scripts/device-stage.sh: the runner, the tutorial sources
# and the binaries that CPU run built). A results.json beside this script (the
# previous call's, carried back) is continued (--resume). LIMIT seconds end
# the runner (killed 15 s after an interrupt): its results.json then holds the
# runs up to its last snapshot (every 10 runs), which the next call continues.
# Writes results.json, report.md and the runner's log under $OUT. Extra
# arguments go to the runner.
#   device: LIMIT=540 JOBS=14 bash .gpu/compat.sh [--only REGEX]
cd "$(dirname "$0")" && source ./env.sh 2>/dev/null
export PMIX_MCA_pcompress_base_silence_warning=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
KIT=$PWD
W=/tmp/compat-gpu
OUT=${OUT:-/tmp/out}
mkdir -p "$W" "$OUT"
tar xJf compat.tar.xz -C "$W"
resume=()
if [ -f results.json ]; then cp results.json "$W/work/"; resume=(--resume); fi
timeout -k 15 -s INT "${LIMIT:-540}" python3 "$W/runner/run_compat.py" --gpu --prebuilt --work "$W/work" --examples "$W/src" \
  --plugin "$KIT/lib/libpetscdiag.so" --jobs "${JOBS:-14}" --timeout "${TIMEOUT:-90}" --keep-outputs "${resume[@]}" "$@" \
  >"$OUT/compat.log" 2>&1
echo "runner exit $?" >>"$OUT/compat.log"
python3 "$W/runner/run_compat.py" --work "$W/work" --report --plugin "$KIT/lib/libpetscdiag.so" >>"$OUT/compat.log" 2>&1
cp "$W/work/results.json" "$W/work/report.md" "$OUT/"
tail -3 "$OUT/compat.log"
