#!/usr/bin/env bash
# Multi-GPU scaling, one MPI process per GPU (PETSc gives process r the GPU
# r % number of GPUs): bench_scaling (weak: WEAK_N^3 rows per GPU; strong:
# STRONG_N^3 rows in all; MatMult and CG + Jacobi, diag against aijcusparse
# in one run) on 1, 2, 4, 8 processes up to the GPUs present, which GPU each
# process's matrix uses (diag's -info line and -device_view), and the
# paper's Table 2 product (bench_products, n = 10^4, 200 x 200 diagonals) on
# those of 1, 2 and 4 processes in NPS. Usage:
#   bash bench/scaling.sh OUTDIR
# Writes OUTDIR/scaling.csv, OUTDIR/scaling-products.csv, one log per run and
# OUTDIR/scaling-summary.txt; bench/plot_scaling.py OUTDIR/scaling.csv makes
# the plots. Environment (defaults in brackets):
#   BIN       folder of bench_scaling and bench_products [bin/ beside this
#             script if there (the staged .gpu/), else build-cuda/bench]
#   NPS       process counts ["1 2 4 8", those <= NGPU]; more processes than
#             GPUs share them (a correctness run, e.g. NPS="1 2 4" on one GPU)
#   NGPU      GPUs to use [nvidia-smi -L | wc -l; 0: CPU run, NPS as given]
#   WEAK_N [256]  STRONG_N [512]  REPS [100]  ITS [200]
#   TYPES     [diagcuda,aijcusparse; diag,aij when NGPU=0]
#   PRODUCTS  [1] 0 leaves out bench_products   EXTRA: more options
#   MPIEXEC   [mpiexec]
set -uo pipefail
OUTDIR=${1:?usage: bash bench/scaling.sh OUTDIR}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${BIN:-}" ]; then
  if [ -x "$HERE/bin/bench_scaling" ]; then BIN=$HERE/bin; else BIN=$HERE/../build-cuda/bench; fi
fi
NGPU=${NGPU:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
if [ -z "${NPS:-}" ]; then
  NPS=""
  for np in 1 2 4 8; do [ "$NGPU" -eq 0 ] || [ "$np" -le "$NGPU" ] && NPS="$NPS $np"; done
fi
if [ "$NGPU" -eq 0 ]; then TYPES=${TYPES:-diag,aij}; VEC="-bench_vec_type standard"; else TYPES=${TYPES:-diagcuda,aijcusparse}; VEC="-bench_vec_type cuda"; fi
MPIEXEC=${MPIEXEC:-mpiexec}
WEAK_N=${WEAK_N:-256} STRONG_N=${STRONG_N:-512} REPS=${REPS:-100} ITS=${ITS:-200}
CSV=$OUTDIR/scaling.csv
echo "case,np,format,n,rows,nnz,setup_s,mult_s,mult_mean_s,cg_it_s,cg_its,relres,local_s,exchange_s,hidden,mult_reldiff,cg_resdiff,x_reldiff" >"$CSV"
status=0
{
  echo "GPUs: $NGPU; processes: $NPS; types $TYPES; weak ${WEAK_N}^3 per process, strong ${STRONG_N}^3; $REPS MatMults, $ITS CG iterations"
  nvidia-smi -L 2>/dev/null
} | tee "$OUTDIR/scaling-summary.txt"
for np in $NPS; do
  # which device each process's matrix is on: a tiny run with diag's -info line and PETSc's view of its devices
  if [ "$NGPU" -gt 0 ]; then
    $MPIEXEC -n "$np" "$BIN/bench_scaling" -case strong -strong_n 16 -reps 2 -its 2 -types "$TYPES" $VEC -info :mat -device_view >"$OUTDIR/devices.np$np.log" 2>&1
    grep -h "CUDA device" "$OUTDIR/devices.np$np.log" | sed 's/^/  /' | sort -u | tee -a "$OUTDIR/scaling-summary.txt"
  fi
  log=$OUTDIR/scaling.np$np.log
  $MPIEXEC -n "$np" "$BIN/bench_scaling" -weak_n "$WEAK_N" -strong_n "$STRONG_N" -reps "$REPS" -its "$ITS" -types "$TYPES" $VEC -csv "$CSV" ${EXTRA:-} >"$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "np=$np rc=$rc" | tee -a "$OUTDIR/scaling-summary.txt"
  grep -v "^SCALING" "$log" | grep -E "scaling:|setup|exchange alone|ratio|FAILED|rror" | tee -a "$OUTDIR/scaling-summary.txt"
done
if [ "${PRODUCTS:-1}" = 1 ]; then
  # the paper's Table 2 row 1 (AB, n = 10^4, 200 x 200 diagonals) on 1, 2 and 4 processes
  PCSV=$OUTDIR/scaling-products.csv
  echo "n,dga,dgb,nza,nzb,nzc,ranks,product,ours,first_s,reuse_s,peer,peer_first_s,peer_reuse_s" >"$PCSV"
  for np in 1 2 4; do
    [[ " $NPS " == *" $np "* ]] || continue  # the process counts of the scaling runs
    log=$OUTDIR/products.np$np.log
    $MPIEXEC -n "$np" "$BIN/bench_products" -types "$TYPES" -n 10000 -dga 200 -dgb 200 -reps 3 -products AB -csv "$PCSV" >"$log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "products np=$np rc=$rc" | tee -a "$OUTDIR/scaling-summary.txt"
    grep -E "rank\(s\)|first|agrees|FAILED|rror" "$log" | tee -a "$OUTDIR/scaling-summary.txt"
  done
fi
exit $status
