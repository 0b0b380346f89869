#!/usr/bin/env bash
# Stages .gpu/ (git-ignored) for the device tool: the CUDA PETSc 3.18 and
# OpenMPI runtimes (../shared/gpu/stage.sh), the GPU build's programs and
# library, the Boost.Test runtime, and scripts/device/*.sh. Then, with the
# device tool: carry [".gpu"], command "bash .gpu/run-all.sh" (docs/gpu.md).
#   PETSC_VERSION=3.25   stages build-cuda-3.25/ (PETSC_VERSION=3.25
#                        scripts/build-gpu.sh) instead of build-cuda/
#   BUILD_DIR=<dir>      stages that CUDA build
#   COMPAT_WORK=<dir>    also stages compat.tar.xz for device/compat.sh and
#                        device/perf.sh: the tutorial runners and the
#                        battery's case list (tests/tutorials/*.py, *.json),
#                        the sources of the tutorials of the staged PETSc,
#                        and the binaries and petsc.json of a CPU run of
#                        tests/tutorials/run_compat.py or run_perf.py
#                        (--build-only) against that PETSc (its --work folder)
# A build that links another PETSc than the 3.18 of ../shared/gpu also
# carries that PETSc's libraries (petsc-lib.tar.xz, about 9 MiB for 3.25);
# .gpu/env.sh, which run-all.sh sources, puts them first on the device.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case ${PETSC_VERSION:-3.18} in
3.25) BUILD=${BUILD_DIR:-$ROOT/build-cuda-3.25} ;;
*) BUILD=${BUILD_DIR:-$ROOT/build-cuda} ;;
esac
[ -f "$BUILD/CMakeCache.txt" ] || { echo "no CUDA build in $BUILD: run scripts/build-gpu.sh first" >&2; exit 1; }
PETSC_PREFIX=$(sed -n 's/^PETSC_PREFIX:INTERNAL=//p' "$BUILD/CMakeCache.txt")
PETSC_VERSION_BUILT=$(sed -n 's/^PETSC_VERSION:INTERNAL=//p' "$BUILD/CMakeCache.txt")
DEST=$ROOT/.gpu
rm -rf "$DEST"
files=()
for f in "$BUILD"/tests/kernels/test_* "$BUILD"/lib/libpetscdiag.so "$BUILD"/solvers/* "$BUILD"/bench/bench_* \
         "$BUILD"/tests/plugin/test_* "$BUILD"/tests/tutorials/tut_* "$BUILD"/examples/ex*_*; do
  [ -f "$f" ] && [ -x "$f" -o "${f##*.}" = so ] && files+=("$f")
done
bash "$ROOT/../shared/gpu/stage.sh" "$DEST" "${files[@]}" >/dev/null
cp -L /usr/lib/x86_64-linux-gnu/libboost_unit_test_framework.so.1.74.0 "$DEST/lib/"
# solvers/mtx reads Matrix Market through CHOLMOD: SuiteSparse and METIS
# are not on the GPU machine
if [ -x "$BUILD/solvers/mtx" ]; then
  ldd "$BUILD/solvers/mtx" | awk '/cholmod|amd|colamd|suitesparseconfig|metis|gomp/ {print $3}' | xargs -r cp -L -t "$DEST/lib/"
fi
# the PETSc the build links, unless it is the 3.18 that device-env.sh unpacks
if [ "$PETSC_PREFIX" != /opt/petsc-cuda ]; then
  PACK=$BUILD/petsc-lib.tar.xz # compressed once per PETSc library (xz takes a minute)
  if [ ! -f "$PACK" ] || [ "$PETSC_PREFIX/lib/libpetsc.so" -nt "$PACK" ]; then
    tar cJf "$PACK.tmp" -C "$PETSC_PREFIX" $(cd "$PETSC_PREFIX" && ls -d lib/libpetsc.so*)
    mv "$PACK.tmp" "$PACK"
  fi
  cp "$PACK" "$DEST/petsc-lib.tar.xz"
  echo "$PETSC_VERSION_BUILT" >"$DEST/petsc-version"
fi
# test_pc's SuiteSparse pair, when this machine has the shared collection
SS=$ROOT/../shared/data/suitesparse
if [ -f "$SS/cdde1.mtx" ]; then mkdir -p "$DEST/ssmat" && cp "$SS/cdde1.mtx" "$SS/1138_bus.mtx" "$DEST/ssmat/"; fi
cp "$ROOT"/scripts/device/*.sh "$DEST/"
git -C "$ROOT" rev-parse --short=12 HEAD >"$DEST/commit" 2>/dev/null || rm -f "$DEST/commit" # results' stamp (device/perf.sh)
cp "$ROOT"/bench/scaling.sh "$DEST/"  # run-all.sh's scaling section
cp "$ROOT"/bench/pcs.py "$DEST/"      # run-all.sh's pcs section
cp "$ROOT"/bench/breakdown.py "$DEST/" # where a solve's time goes (pcs.py's runs, nested log)
cp "$ROOT"/tests/tutorials/compare.py "$DEST/"
if [ -n "${COMPAT_WORK:-}" ]; then
  EXAMPLES=$PETSC_PREFIX/share/petsc/examples/src
  [ -f "$COMPAT_WORK/petsc.json" ] && [ -d "$COMPAT_WORK/bin" ] || { echo "COMPAT_WORK=$COMPAT_WORK: no bin/ and petsc.json of a run_compat.py run" >&2; exit 1; }
  CX=$(mktemp -d)
  mkdir -p "$CX/runner" "$CX/src" "$CX/work"
  cp "$ROOT"/tests/tutorials/*.py "$ROOT"/tests/tutorials/*.json "$CX/runner/"
  (cd "$EXAMPLES" && cp -r --parents ksp/ksp/tutorials snes/tutorials ts/tutorials dm/impls/da/tutorials dm/tutorials "$CX/src/" 2>/dev/null || true)
  cp -r "$COMPAT_WORK/bin" "$COMPAT_WORK/petsc.json" "$CX/work/"
  tar cJf "$DEST/compat.tar.xz" -C "$CX" runner src work
  rm -rf "$CX"
fi
echo "staged $BUILD (PETSc $PETSC_VERSION_BUILT at $PETSC_PREFIX)"
du -sh "$DEST"
