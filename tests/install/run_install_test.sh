#!/usr/bin/env bash
# ctest install.consumer: installs the build into a fresh prefix, then builds
# consumer/consumer.cpp out of tree against the installed package both ways,
# CMake (find_package(PetscDiag)) and pkg-config (petscdiag.pc), and runs
# each build on 1 and 2 processes.
#   run_install_test.sh CMAKE BUILD_DIR WORK_DIR MPIEXEC MPICXX PETSC_PKGCONFIG_DIR
set -euo pipefail
CMAKE=$1 BUILD=$2 WORK=$3 MPIEXEC=$4 MPICXX=$5 PETSC_PC_DIR=$6
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=$WORK/prefix
rm -rf "$WORK"
mkdir -p "$WORK"
unset PETSC_DIR PETSC_ARCH # nothing but the installed package tells where PETSc is

echo "== cmake --install $BUILD --prefix $PREFIX"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
for f in lib/libpetscdiag.so include/petscdiag.h lib/cmake/PetscDiag/PetscDiagConfig.cmake \
         lib/cmake/PetscDiag/PetscDiagConfigVersion.cmake lib/cmake/PetscDiag/PetscDiagTargets.cmake lib/pkgconfig/petscdiag.pc; do
  [ -f "$PREFIX/$f" ] || { echo "FAILED: $f not installed" >&2; exit 1; }
done

run() { # program: on 1 and 2 processes
  "$MPIEXEC" --oversubscribe -n 1 "$1"
  "$MPIEXEC" --oversubscribe -n 2 "$1" -n 37
}

echo "== CMake: find_package(PetscDiag) with CMAKE_PREFIX_PATH=$PREFIX"
"$CMAKE" -S "$HERE/consumer" -B "$WORK/cmake-build" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release >"$WORK/cmake-configure.log" 2>&1 ||
  { cat "$WORK/cmake-configure.log"; exit 1; }
"$CMAKE" --build "$WORK/cmake-build" >"$WORK/cmake-build.log" 2>&1 || { cat "$WORK/cmake-build.log"; exit 1; }
run "$WORK/cmake-build/consumer"

echo "== pkg-config: mpicxx consumer.cpp \$(pkg-config --cflags --libs petscdiag)"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig:$PETSC_PC_DIR
flags=$(pkg-config --cflags --libs petscdiag)
echo "   pkg-config --cflags --libs petscdiag: $flags"
"$MPICXX" -std=c++17 -O2 "$HERE/consumer/consumer.cpp" $flags -o "$WORK/consumer-pkgconfig"
run "$WORK/consumer-pkgconfig"
echo "install test: OK"
