#!/usr/bin/env bash
# Makes PETSc 3.25 available for this machine's second test run and GPU
# build; prints its prefix. Users with their own PETSc do not need this:
# they configure with PETSC_DIR=<their PETSc> (docs/install.md).
#   PETSC_325_DIR  the prefix (default /opt/petsc-3.25); used as it is when
#                  it holds lib/pkgconfig/PETSc.pc
#   otherwise it is unpacked from the cache ../shared/petsc-3.25/ beside the
#   checkout (PETSc 3.25.4 built with CUDA for sm_90, prefix /opt/petsc-3.25).
# Exit status 3, with a notice on stderr, when neither is there.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${PETSC_325_DIR:-/opt/petsc-3.25}
CACHE=${PETSC_325_CACHE:-$ROOT/../shared/petsc-3.25}
TARBALL=$CACHE/petsc-3.25.4-cuda13-sm90.tar.xz
if [ ! -f "$PREFIX/lib/pkgconfig/PETSc.pc" ]; then
  if [ ! -f "$TARBALL" ]; then
    echo "notice: no PETSc 3.25 at $PREFIX and no cached build at $TARBALL;" >&2
    echo "notice: set PETSC_325_DIR to a PETSc 3.25 installation to run against it" >&2
    exit 3
  fi
  # the tarball's top folder is petsc-3.25, built for the prefix /opt/petsc-3.25
  [ "$PREFIX" = /opt/petsc-3.25 ] || { echo "$TARBALL unpacks to /opt/petsc-3.25 only (PETSC_325_DIR=$PREFIX)" >&2; exit 1; }
  echo "petsc-3.25: unpacking $TARBALL into /opt" >&2
  mkdir -p /opt
  tar xJf "$TARBALL" -C /opt
fi
# a CUDA-enabled PETSc needs the CUDA runtime libraries to load at all
if missing=$(ldd "$PREFIX/lib/libpetsc.so" 2>/dev/null | grep "not found"); then
  echo "notice: $PREFIX/lib/libpetsc.so cannot load here (missing: $(echo "$missing" | awk '{print $1}' | tr '\n' ' '))" >&2
  exit 3
fi
echo "$PREFIX"
