#!/usr/bin/env bash
# Stages .gpu/ (git-ignored) for the device tool: the CUDA PETSc and OpenMPI
# runtimes (../shared/gpu/stage.sh), the GPU build's programs and library,
# the Boost.Test runtime, and scripts/device/*.sh. Then, with the device
# tool: carry [".gpu"], command "bash .gpu/run-all.sh" (see docs/gpu.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-cuda}
DEST=$ROOT/.gpu
rm -rf "$DEST"
files=()
for f in "$BUILD"/tests/kernels/test_* "$BUILD"/lib/libpetscdiag.so "$BUILD"/solvers/* "$BUILD"/bench/bench_* \
         "$BUILD"/tests/plugin/test_* "$BUILD"/tests/tutorials/tut_*; do
  [ -f "$f" ] && [ -x "$f" -o "${f##*.}" = so ] && files+=("$f")
done
bash "$ROOT/../shared/gpu/stage.sh" "$DEST" "${files[@]}" >/dev/null
cp -L /usr/lib/x86_64-linux-gnu/libboost_unit_test_framework.so.1.74.0 "$DEST/lib/"
# solvers/mtx reads Matrix Market through CHOLMOD: SuiteSparse and METIS
# are not on the GPU machine
if [ -x "$BUILD/solvers/mtx" ]; then
  ldd "$BUILD/solvers/mtx" | awk '/cholmod|amd|colamd|suitesparseconfig|metis|gomp/ {print $3}' | xargs -r cp -L -t "$DEST/lib/"
fi
cp "$ROOT"/scripts/device/*.sh "$DEST/"
cp "$ROOT"/tests/tutorials/compare.py "$DEST/"
du -sh "$DEST"
