#!/usr/bin/env bash
# CPU product benchmark: the paper's Table 1 configurations and Table 2 row 1
# (n = 10^4, 200 x 200 diagonals), diag against seqaij on one core, the same
# matrices in the same run. Writes docs/results/cpu-products.csv.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BUILD_DIR:-$ROOT/build}/bench/bench_products
CSV=$ROOT/docs/results/cpu-products.csv
echo "n,dga,dgb,nza,nzb,nzc,ranks,product,ours,first_s,reuse_s,peer,peer_first_s,peer_reuse_s" > "$CSV"
while read -r n a b; do
  "$BIN" -n "$n" -dga "$a" -dgb "$b" -reps 3 -csv "$CSV"
done <<'TABLE1'
1000 9 5
2000 9 15
3000 29 15
4000 29 35
5000 59 35
6000 89 75
7000 99 75
8000 109 35
9000 59 75
10000 109 35
TABLE1
"$BIN" -n 10000 -dga 200 -dgb 200 -reps 1 -csv "$CSV"
