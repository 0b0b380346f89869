#!/usr/bin/env bash
# Configures and builds petsc-diag in build/ (CPU PETSc from Debian; the
# CUDA kernels are compiled too when nvcc is found). Extra arguments go to
# cmake's configure step.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/scripts/setup.sh"
BUILD=${BUILD_DIR:-$ROOT/build}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "$@" >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"
