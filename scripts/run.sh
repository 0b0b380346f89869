#!/usr/bin/env bash
# The main job: a 3D Poisson solve (65^3 unknowns, CG + Jacobi) with
# -dm_mat_type diag, then the same run with aij for comparison. Installs and
# builds first (Debian's PETSc, or PETSC_DIR's). With an NVIDIA GPU
# (nvidia-smi answers) it builds against a CUDA-enabled PETSc
# (scripts/build-gpu.sh: PETSC_DIR's), runs on the GPU with -dm_vec_type
# cuda at 129^3 with the fastest GPU solver measured (docs/performance.md:
# CG with Galerkin multigrid, PCMG's Chebyshev/Jacobi smoothing as the
# plugin's fused PCCHEBYJACOBI), and compares with aijcusparse (same options). Extra arguments go to both runs (e.g. -pc_type jacobi,
# -log_view).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NP=${NP:-1}
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  bash "$ROOT/scripts/build-gpu.sh" >/dev/null
  GPU_BUILD=$ROOT/build-cuda
  [ -z "${PETSC_DIR:-}" ] && [ "${PETSC_VERSION:-}" = 3.25 ] && GPU_BUILD=$ROOT/build-cuda-3.25
  BIN=${BUILD_DIR:-$GPU_BUILD}/solvers/poisson
  GPU=(-dm_vec_type cuda -da_grid_x 129 -da_grid_y 129 -da_grid_z 129
       -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin -mg_levels_ksp_type richardson -mg_levels_pc_type chebyjacobi)
  PEER=aijcusparse
else
  bash "$ROOT/scripts/build.sh" >/dev/null
  BIN=${BUILD_DIR:-$ROOT/build}/solvers/poisson
  GPU=()
  PEER=aij
fi
echo "== diag"
mpiexec --oversubscribe -n "$NP" "$BIN" -dm_mat_type diag ${GPU[@]+"${GPU[@]}"} "$@"
echo "== $PEER (for comparison)"
mpiexec --oversubscribe -n "$NP" "$BIN" -dm_mat_type "$PEER" ${GPU[@]+"${GPU[@]}"} "$@"
