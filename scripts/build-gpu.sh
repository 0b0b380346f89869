#!/usr/bin/env bash
# Builds the CUDA variant in build-cuda/ against the CUDA-enabled PETSc
# (/opt/petsc-cuda, unpacked from ../shared/petsc-cuda when missing), for
# runs on the GPU machine (scripts/device-stage.sh carries the result).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/scripts/setup.sh"
PETSC_CUDA=${PETSC_CUDA:-/opt/petsc-cuda}
if [ ! -f "$PETSC_CUDA/lib/pkgconfig/PETSc.pc" ]; then
  TARBALL="$ROOT/../shared/petsc-cuda/petsc-cuda-3.18.5-sm90.tar.xz"
  [ -f "$TARBALL" ] || { echo "no CUDA PETSc at $PETSC_CUDA and no $TARBALL" >&2; exit 1; }
  mkdir -p "$(dirname "$PETSC_CUDA")"
  tar xJf "$TARBALL" -C "$(dirname "$PETSC_CUDA")"
  mv "$(dirname "$PETSC_CUDA")/petsc-cuda-3.18.5-sm90" "$PETSC_CUDA"
fi
BUILD=${BUILD_DIR:-$ROOT/build-cuda}
PETSC_DIR=$PETSC_CUDA cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDIAG_CUDA=ON "$@" >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"
