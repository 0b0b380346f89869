#!/usr/bin/env bash
# CPU benchmark of the CPU issue: MatMult and assembly of diag against
# seqaij on one core, 3D 7-point and 27-point operators, 64^3 to 160^3.
# Writes docs/results/cpu-bench.csv and prints the tables.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BUILD_DIR:-$ROOT/build}/bench/bench_matmult
CSV=$ROOT/docs/results/cpu-bench.csv
echo "dim,points,coef,n,rows,ranks,ours,asm_s,mult_s,multt_s,peer,peer_asm_s,peer_mult_s,peer_multt_s,agree" > "$CSV"
for n in 64 96 128 160; do "$BIN" -n "$n" -reps 30 -csv "$CSV"; done
for n in 64 96 128; do "$BIN" -n "$n" -stencil box -reps 20 -csv "$CSV"; done
"$BIN" -n 128 -coef constant -reps 30 -csv "$CSV"
# the paper's structured sparse matrices: n = 10^4, random diagonals within +-n/4
for k in 9 109 200 600; do "$BIN" -random_diagonals "$k" -n 10000 -reps 30 -csv "$CSV"; done
