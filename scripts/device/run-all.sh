#!/usr/bin/env bash
# Runs on the GPU machine from the staged .gpu/ folder: every CUDA kernel
# test, then the same tests under compute-sanitizer memcheck and racecheck.
# Logs go to $OUT. Prints a summary table last.
cd "$(dirname "$0")"
source ./device-env.sh
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
summary=()
run() { # name, command...
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  local last=$(tail -n 1 "$OUT/$name.log" | sed 's/\x1b\[[0-9;]*m//g' | cut -c1-70)
  summary+=("$(printf '%-44s rc=%-3s %7.1fs  %s' "$name" "$rc" "$(awk "BEGIN{print ($t1 - $t0)/1e9}")" "$last")")
}
for t in bin/test_*cuda*; do
  n=$(basename "$t")
  run "$n" "$t" --log_level=test_suite
  run "$n.memcheck" compute-sanitizer --tool memcheck --error-exitcode 1 "$t"
  run "$n.racecheck" compute-sanitizer --tool racecheck --error-exitcode 1 "$t"
done
# The plugin and a solver against the CUDA PETSc (host matrices, CUDA build).
if [ -x bin/poisson ]; then
  run poisson.diag.np1 bin/poisson -dm_mat_type diag
  run poisson.diag.np2 mpiexec -n 2 bin/poisson -dm_mat_type diag
fi
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
