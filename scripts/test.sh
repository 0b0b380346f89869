#!/usr/bin/env bash
# The test command: installs, builds, and runs every test through ctest,
# against each PETSc version in turn (docs/design.md, "PETSc versions"):
#   3.18  Debian's petsc-dev, in build/ (BUILD_DIR overrides); also the
#         Trilinos adapter (DIAG_TRILINOS=AUTO: Debian's Trilinos 13.2)
#   3.25  PETSc 3.25 from scripts/petsc-3.25.sh (/opt/petsc-3.25, unpacked
#         from the cache ../shared/petsc-3.25 on this project's machines), in
#         build-3.25/, without the Trilinos adapter (it does not use PETSc);
#         skipped with a notice when it is not available. The fault suite
#         runs there on one process (its agreement across processes is the
#         plugin's, tested against 3.18)
#   3.18-int64  Debian's PETSc 3.18 with 64-bit indices, in build-int64/
#         (scripts/setup.sh installs it), with the plugin's PETSc-level tests
#         only (DIAG_TEST_SET=petsc: tests/plugin, tests/tutorials; the
#         kernels are the same templates), on 1 and 2 processes, host types
#         only; skipped with a notice when the package is not installed
#   3.18-complex  Debian's PETSc 3.18 with complex scalars, in
#         build-complex/, the same set (with test_ops_complex, ksp ex11 and
#         the complex tutorials of the compat smoke run; the kernels' complex
#         instantiations are tested in the 3.18 build: test_complex)
# PETSC_DIR=<prefix> instead tests against that PETSc alone (in build/).
# GPU tests report themselves skipped on a machine without a CUDA device.
# PETSC_VERSIONS="3.18" (or "3.25") runs one; extra arguments go to ctest.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
failed=()
skipped=()
times=() # "<part> <seconds>": each run's build and tests, printed at the end
if [ -n "${PETSC_DIR:-}" ]; then versions=PETSC_DIR; else versions=${PETSC_VERSIONS:-3.18 3.25 3.18-int64 3.18-complex}; fi
for version in $versions; do
  select=()
  start=$SECONDS
  case $version in
  PETSC_DIR)
    BUILD=${BUILD_DIR:-$ROOT/build}
    version="at $PETSC_DIR"
    BUILD_DIR="$BUILD" bash "$ROOT/scripts/build.sh"
    ;;
  3.18)
    BUILD=${BUILD_DIR:-$ROOT/build}
    env -u PETSC_DIR BUILD_DIR="$BUILD" bash "$ROOT/scripts/build.sh"
    ;;
  3.18-int64 | 3.18-complex)
    if [ "$version" = 3.18-int64 ]; then
      dir=/usr/lib/petscdir/petsc64-3.18/x86_64-linux-gnu-real
      BUILD=$ROOT/build-int64
    else
      dir=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-complex
      BUILD=$ROOT/build-complex
    fi
    if [ ! -f "$dir/lib/pkgconfig/PETSc.pc" ]; then
      echo "== PETSc $version: skipped (no $dir/lib/pkgconfig/PETSc.pc: scripts/setup.sh installs it)"
      skipped+=("$version")
      continue
    fi
    PETSC_DIR=$dir BUILD_DIR="$BUILD" bash "$ROOT/scripts/build.sh" -DDIAG_CUDA=OFF -DDIAG_TRILINOS=OFF -DDIAG_TEST_SET=petsc
    select=(-E '\.np[34]$' -LE 'tutorials-full|perf-smoke')
    ;;
  3.25)
    BUILD=$ROOT/build-3.25
    rc=0
    PREFIX=$(bash "$ROOT/scripts/petsc-3.25.sh") || rc=$?
    if [ $rc -eq 3 ]; then
      echo "== PETSc 3.25: skipped (see the notice above); the PETSc 3.18 run stands alone"
      skipped+=(3.25)
      continue
    fi
    [ $rc -eq 0 ] || exit $rc
    # The tutorial tests need the tutorial sources of the same PETSc: its
    # installation has them (share/petsc/examples); if not, the needed
    # folders come out of the cached source tarball.
    extra=()
    if [ ! -f "$PREFIX/share/petsc/examples/src/ksp/ksp/tutorials/ex2.c" ]; then
      SRC_TARBALL=${PETSC_325_CACHE:-$ROOT/../shared/petsc-3.25}/petsc-3.25.4-src.tar.xz
      if [ -f "$SRC_TARBALL" ]; then
        mkdir -p "$BUILD/petsc-src"
        tar xJf "$SRC_TARBALL" -C "$BUILD/petsc-src" --strip-components=1 \
          petsc-3.25.4/src/ksp/ksp/tutorials petsc-3.25.4/src/snes/tutorials
        extra=(-DDIAG_PETSC_EXAMPLES="$BUILD/petsc-src/src")
      fi
    fi
    # The Trilinos adapter does not use PETSc and both builds use the same
    # OpenMPI: it is built and tested once, in the PETSc 3.18 build.
    extra+=(-DDIAG_TRILINOS=OFF)
    PETSC_DIR=$PREFIX BUILD_DIR="$BUILD" bash "$ROOT/scripts/build.sh" ${extra[@]+"${extra[@]}"}
    select=(-E '^faults\..*\.np[234]$')
    ;;
  *)
    echo "unknown PETSc version '$version' in PETSC_VERSIONS (3.18, 3.25, 3.18-int64, 3.18-complex)" >&2
    exit 2
    ;;
  esac
  echo "== ctest against PETSc $version ($BUILD)"
  (cd "$BUILD" && ctest --output-on-failure -j"$(nproc)" ${select[@]+"${select[@]}"} "$@") || failed+=("tests against PETSc $version")
  times+=("PETSc $version: $((SECONDS - start)) s")
done
# The sanitizer run (docs/reliability.md): the fault-injection suite and the
# plugin tests under AddressSanitizer + UBSan, in build-asan/ against the
# Debian PETSc. It takes about as long as the rest of CI on 2 cores, so it
# runs only with DIAG_RUN_SANITIZE=1 (its latest result is in docs/reliability.md).
if [ -z "${PETSC_DIR:-}" ] && [ -n "${DIAG_RUN_SANITIZE:-}" ]; then
  echo "== sanitizer run (scripts/sanitize.sh)"
  start=$SECONDS
  env -u BUILD_DIR bash "$ROOT/scripts/sanitize.sh" || failed+=("sanitizer run")
  times+=("sanitizer run: $((SECONDS - start)) s")
fi
echo "== times (build and tests)"
for t in ${times[@]+"${times[@]}"}; do echo "  $t"; done
echo "  total: $SECONDS s"
[ ${#skipped[@]} -eq 0 ] || echo "notice: not tested against PETSc ${skipped[*]} (not available on this machine)"
if [ ${#failed[@]} -ne 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
