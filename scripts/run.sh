#!/usr/bin/env bash
# The main job: a 3D Poisson solve (65^3 unknowns, CG + Jacobi) with
# -dm_mat_type diag, then the same run with aij for comparison. Installs and
# builds first. Extra arguments go to both runs (e.g. -da_refine 1, -log_view).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bash "$ROOT/scripts/build.sh" >/dev/null
BIN=${BUILD_DIR:-$ROOT/build}/solvers/poisson
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NP=${NP:-1}
echo "== diag"
mpiexec --oversubscribe -n "$NP" "$BIN" -dm_mat_type diag "$@"
echo "== aij (for comparison)"
mpiexec --oversubscribe -n "$NP" "$BIN" -dm_mat_type aij "$@"
