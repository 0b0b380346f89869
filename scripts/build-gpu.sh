#!/usr/bin/env bash
# Builds the CUDA variant (nvcc, -DDIAG_CUDA=ON) against a CUDA-enabled PETSc
# 3.18-3.25. Extra arguments go to cmake's configure step.
#   PETSC_DIR=<prefix>   any CUDA-enabled PETSc installation: build-cuda/
# Without PETSC_DIR, this project's machines use their cached builds
# (../shared beside the checkout):
#   PETSC_VERSION=3.18   (default) /opt/petsc-cuda, unpacked from
#                        ../shared/petsc-cuda when missing: build-cuda/
#   PETSC_VERSION=3.25   /opt/petsc-3.25 (scripts/petsc-3.25.sh): build-cuda-3.25/
# BUILD_DIR overrides the build folder. scripts/device-stage.sh carries the
# result to the GPU machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/scripts/setup.sh"
if [ -n "${PETSC_DIR:-}" ]; then
  PETSC=$PETSC_DIR
  BUILD=${BUILD_DIR:-$ROOT/build-cuda}
else
  case ${PETSC_VERSION:-3.18} in
  3.18)
    PETSC=${PETSC_CUDA:-/opt/petsc-cuda}
    BUILD=${BUILD_DIR:-$ROOT/build-cuda}
    if [ ! -f "$PETSC/lib/pkgconfig/PETSc.pc" ]; then
      TARBALL="$ROOT/../shared/petsc-cuda/petsc-cuda-3.18.5-sm90.tar.xz"
      [ -f "$TARBALL" ] || { echo "no CUDA-enabled PETSc at $PETSC and no cached build at $TARBALL: set PETSC_DIR to a CUDA-enabled PETSc (docs/install.md)" >&2; exit 1; }
      mkdir -p "$(dirname "$PETSC")"
      tar xJf "$TARBALL" -C "$(dirname "$PETSC")"
      mv "$(dirname "$PETSC")/petsc-cuda-3.18.5-sm90" "$PETSC"
    fi
    ;;
  3.25)
    PETSC=$(bash "$ROOT/scripts/petsc-3.25.sh") || { echo "no PETSc 3.25: set PETSC_DIR to a CUDA-enabled PETSc (docs/install.md)" >&2; exit 1; }
    BUILD=${BUILD_DIR:-$ROOT/build-cuda-3.25}
    ;;
  *)
    echo "PETSC_VERSION=${PETSC_VERSION} has no cached build here (3.18, 3.25): set PETSC_DIR instead" >&2
    exit 2
    ;;
  esac
fi
# petscconf.h: include/ of an installation, PETSC_ARCH/include/ of a source tree built in place
{ cat "$PETSC/include/petscconf.h" "$PETSC/${PETSC_ARCH:-none}/include/petscconf.h" 2>/dev/null || true; } | grep -q "define PETSC_HAVE_CUDA 1" ||
  { echo "$PETSC is not a CUDA-enabled PETSc (no PETSC_HAVE_CUDA in its petscconf.h): configure PETSc with --with-cuda (docs/install.md)" >&2; exit 1; }
PETSC_DIR=$PETSC cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDIAG_CUDA=ON "$@" >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"
