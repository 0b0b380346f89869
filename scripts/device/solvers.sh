#!/usr/bin/env bash
# GPU runs of the solvers of solvers/ (docs/solvers.md, "On a GPU"). Runs on
# the GPU machine from the staged folder (scripts/device-stage.sh: programs in
# .gpu/bin, libpetscdiag.so in .gpu/lib, this script as .gpu/solvers.sh), from
# the repository root (data/ is read from there), env.sh sourced:
#   source .gpu/env.sh && bash .gpu/solvers.sh
# Every DMDA solver runs on CUDA vectors once with diag and once with
# aijcusparse, 1 rank (poisson also 2), at a size of a few seconds. mtx
# compares the loaded matrix as aijcusparse with its diagcuda conversion
# (MTX_OPTS; both on the device, CUDA vectors). Logs:
# $OUT/solvers.<name>.<mattype>.log; a summary line per run; MatMult and
# KSPSolve lines of -log_view in $OUT/solvers.logview.txt.
# Dry run without a GPU (host vectors, aij as the peer; ~4 minutes on 2 cores):
#   VEC="-dm_vec_type standard" PEER=aij MTX_OPTS= bash scripts/device/solvers.sh   (with bin/ beside it)
set -u
STAGE=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$STAGE/bin}
DATA=${DATA:-$PWD/data}  # the repository's data/ (the working directory is the repository root)
MTX_FILE=${MTX_FILE:-$DATA/random_n400_d7_s1.mtx}
OUT=${OUT:-/tmp/out}
VEC=${VEC:--dm_vec_type cuda}
PEER=${PEER:-aijcusparse}
EXTRA=${EXTRA:-}  # appended to every DMDA run, e.g. -mat_diag_storage cdm
MTX_OPTS=${MTX_OPTS--aij_type aijcusparse -diag_type diagcuda}  # empty for a run on the host
# On both types, so that the solve times printed are taken the same way
# (-log_view_gpu_time synchronizes around every GPU event).
LOGVIEW="-log_view -log_view_gpu_time"
mkdir -p "$OUT"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/solvers.gpu.txt"
summary=("$(printf '%-16s %-12s %2s %3s %6s %16s %10s %9s' solver matrix np rc its error residual solve_s)")

run() { # name (program[.npN]), mat type, ranks, options...
  local name=$1 mt=$2 np=$3; shift 3
  local log=$OUT/solvers.$name.$mt.log
  mpiexec -n "$np" "$BIN/${name%%.*}" "$@" >"$log" 2>&1
  local rc=$?
  # the numbers every DMDA solver prints (docs/solvers.md): first match of each
  local its err res sol
  its=$(sed -nE 's/^KSP iterations ([0-9]+).*/\1/p' "$log" | head -1)
  err=$(sed -nE 's/^error[^:]*: max ([^,]+),.*/\1/p' "$log" | head -1)
  res=$(sed -nE 's/.*residual norm ([-+.e0-9]+).*/\1/p' "$log" | head -1)
  sol=$(sed -nE 's/^time: .*solve ([.0-9]+) s$/\1/p' "$log" | head -1)
  summary+=("$(printf '%-16s %-12s %2s %3s %6s %16s %10s %9s' "$name" "$mt" "$np" "$rc" "${its:--}" "${err:--}" "${res:--}" "${sol:--}")")
  grep -E "^(MatMult|KSPSolve) " "$log" | sed "s/^/$name.$mt: /" >>"$OUT/solvers.logview.txt"
}

# name, then the options of its run: sizes of a few seconds on one GPU
# (129^3 = 2.1M unknowns for the 7-point solvers, 65^3 for the wider stencils
# and for heat's 10 time steps).
declare -A OPTS=(
  [poisson]="-dim 3 -da_refine 1"
  [poisson_ext]="-dim 3 -da_refine 1"
  [diffusion]="-dim 3 -coef smooth -da_refine 2"
  [convdiff]="-dim 3 -scheme central -da_refine 2"
  [heat]="-dim 3 -ts_type cn -da_refine 1"
  [highorder]="-dim 3 -da_refine 1"
)
: >"$OUT/solvers.logview.txt"
for name in poisson poisson_ext diffusion convdiff heat highorder; do
  for mt in diag "$PEER"; do
    # shellcheck disable=SC2086 # option strings split on purpose
    run "$name" "$mt" 1 ${OPTS[$name]} $VEC -dm_mat_type "$mt" $LOGVIEW $EXTRA
  done
done
for mt in diag "$PEER"; do
  # shellcheck disable=SC2086
  run poisson.np2 "$mt" 2 ${OPTS[poisson]} $VEC -dm_mat_type "$mt" $LOGVIEW $EXTRA
done

# mtx: -check (MatMult of diag against aij) and -solve (the same KSP on both);
# its aij and diag lines each give a summary line. No -log_view: one run holds
# both types, whose events it would add up.
mlog=$OUT/solvers.mtx.log
where=$([ -n "$MTX_OPTS" ] && echo gpu || echo host)
# shellcheck disable=SC2086
mpiexec -n 1 "$BIN/mtx" -f "$MTX_FILE" -check -solve $MTX_OPTS >"$mlog" 2>&1
rc=$?
for t in aij diag; do
  line=$(grep -E "^  $t *:" "$mlog")  # "  aij :   11 iterations, CONVERGED_RTOL, ||x - ones|| = 2.204e-04, setup ..., solve 0.078 ms ..."
  its=$(sed -nE 's/^ +[a-z]+ *: +([0-9]+) iterations.*/\1/p' <<<"$line")
  err=$(sed -nE 's/.*\|\|x - ones\|\| = ([^,]+),.*/\1/p' <<<"$line")
  ms=$(sed -nE 's/.*solve ([.0-9]+) ms.*/\1/p' <<<"$line")  # best of 3 solves, in ms
  sol=$([ -n "$ms" ] && awk "BEGIN{print $ms/1e3}")
  summary+=("$(printf '%-16s %-12s %2s %3s %6s %16s %10s %9s' mtx "$t($where)" 1 "$rc" "${its:--}" "${err:--}" - "${sol:--}")")
done

printf '%s\n' "${summary[@]}" | tee "$OUT/solvers.summary.txt"
# The device tool brings back at most 8 files: the logs travel as one file
# unless KEEP_LOGS=1 (then they stay as $OUT/solvers.<name>.<mattype>.log).
if [ "${KEEP_LOGS:-0}" != 1 ]; then
  for f in "$OUT"/solvers.*.log; do echo "=================== $(basename "$f")"; cat "$f"; done >"$OUT/solvers.logs.txt"
  rm -f "$OUT"/solvers.*.log
fi
