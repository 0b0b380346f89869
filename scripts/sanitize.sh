#!/usr/bin/env bash
# The sanitizer run (docs/reliability.md): builds build-asan/ with -DDIAG_SANITIZE=ON
# (AddressSanitizer + UBSan on petsc-diag's own targets; Debian PETSc 3.18)
# and runs, under it, the fault-injection suite (ctest label "faults") and
# the plugin tests that compare every operation with aij (test_ops_*,
# test_products). Any sanitizer report fails the run: UBSan and ASan stop
# at the first error, LeakSanitizer reports leaks at exit (leaks inside
# Open MPI and PETSc's initialization are suppressed by scripts/lsan.supp;
# leaks through our code are fatal). The address-space limit of the fault
# runs is off (ASan reserves terabytes of it): the cases' bytes limits
# (-mat_diag_max_bytes) keep allocations bounded instead.
#   scripts/sanitize.sh [extra ctest arguments]     BUILD_DIR overrides build-asan/
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-asan}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$(date +%s)
bash "$ROOT/scripts/setup.sh"
env -u PETSC_DIR cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDIAG_SANITIZE=ON -DDIAG_CUDA=OFF >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)" --target fault_driver mtx test_ops_assembly test_ops_mult test_ops_values test_ops_structure test_ops_io test_ops_factor test_ops_bad_input test_products
built=$(date +%s)
# full unwinding: Open MPI and PETSc are built without frame pointers, and
# the suppressions need the frames inside them
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_odr_violation=0:exitcode=86:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=$ROOT/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Open MPI unloads its components at MPI_Finalize: keep them loaded, so that
# the leak stacks name them (mca_*) and lsan.supp can match them
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
export FAULTS_NO_ULIMIT=1 FAULTS_TIMEOUT=${FAULTS_TIMEOUT:-180}
rc=0
# 1 and 2 processes (3 and 4 run in the ordinary builds): a run under ASan
# with full unwinding takes several times as long
(cd "$BUILD" && ctest --output-on-failure -j"$(nproc)" -L faults -R 'np[12]$' "$@") || rc=1
(cd "$BUILD" && ctest --output-on-failure -j"$(nproc)" -R 'plugin\.(test_ops_[a-z_]+|test_products)\.np[12]$' "$@") || rc=1
end=$(date +%s)
echo "== sanitize: build $((built - start)) s, tests $((end - built)) s, total $((end - start)) s: $([ $rc -eq 0 ] && echo PASSED || echo FAILED)"
exit $rc
