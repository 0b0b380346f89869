#!/bin/bash
# Source this on the GPU machine from the staged folder (run-all.sh does):
#   source .gpu/env.sh
# It sources device-env.sh (CUDA PETSc 3.18 and OpenMPI runtimes, PETSC_OPTIONS)
# and, when the staged build links another PETSc (PETSC_VERSION=3.25
# scripts/device-stage.sh), unpacks that PETSc's libraries, carried as
# petsc-lib.tar.xz, into /tmp/gpu-rt/petsc-<version> and puts them first:
# PETSC_DIR and LD_LIBRARY_PATH then name that PETSc.
DIAG_KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$DIAG_KIT/device-env.sh"
if [ -f "$DIAG_KIT/petsc-lib.tar.xz" ]; then
  DIAG_PETSC_RT=/tmp/gpu-rt/petsc-$(cat "$DIAG_KIT/petsc-version")
  if [ ! -d "$DIAG_PETSC_RT/lib" ]; then
    mkdir -p "$DIAG_PETSC_RT"
    tar xJf "$DIAG_KIT/petsc-lib.tar.xz" -C "$DIAG_PETSC_RT"
  fi
  export PETSC_DIR=$DIAG_PETSC_RT
  export LD_LIBRARY_PATH=$DIAG_KIT/lib:$DIAG_PETSC_RT/lib:$LD_LIBRARY_PATH
fi
