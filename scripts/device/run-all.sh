#!/usr/bin/env bash
# Runs on the GPU machine from the staged .gpu/ folder. Sections (default:
# all): kernels (CUDA kernel tests), sanitize (the same under compute-
# sanitizer memcheck and racecheck; SANITIZE="bin/test_x ..." picks tests,
# SANITIZE_FILTER a Boost.Test --run_test filter), devops (test_gpu_* with
# -mat_diag_device_ops, and under memcheck), mpisan (MPI device paths under
# memcheck and initcheck on 2 ranks), profile (-log_view of a product),
# plugin (test_gpu_ops, test_gpu_factor and test_gpu_solvers on 1, 2 and 4
# ranks; test_products with GPU operands),
# pc (test_pc -gpu: every PC, aijcusparse against diagcuda, 1-3 ranks or
# PC_NPS),
# tutorials (PETSc tutorials with CUDA vectors: aijcusparse vs diag),
# examples (examples/ex2 with CUDA vectors, ex5 with -mat_type diagcuda), bench
# and bench256 (bench_matmult tables, CSV in $OUT/bench.csv), sor (MatSOR
# on the device against aijcusparse, and ex45 with CG + SOR), ilu (ILU(0)/
# ICC(0) solves on the device: kernel tests, sanitizers, test_gpu_*, MatSolve
# and PCApply against aijcusparse, ex45 with CG + ILU), benchprod
# (bench_products: the paper's Table 2, banded and dense, CSV in
# $OUT/products.csv), program (ex45 at 257^3), solvers (solvers.sh), scaling
# (bench/scaling.sh: multi-GPU weak/strong scaling, $OUT/scaling.csv), pcs
# (bench/pcs.py: the preconditioner table, diag against aijcusparse, ex45 and
# solvers/diffusion at PCS_N^3, default 257, PCS_QUICK=1: 65; $OUT/pcs.csv). Logs
# under $OUT; a summary table is printed last.
cd "$(dirname "$0")"
source ./env.sh  # device-env.sh, and the staged PETSc when it is not 3.18
export PMIX_MCA_pcompress_base_silence_warning=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
sections=${*:-kernels sanitize plugin pc tutorials examples bench program}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
echo "PETSc: $(basename "$(readlink -f "$PETSC_DIR/lib/libpetsc.so")") in $PETSC_DIR" | tee -a "$OUT/gpu.txt"
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
has() { [[ " $sections " == *" $1 "* ]]; }
# the plugin's GPU tests, by area: products with a vector and value
# operations, MatSOR and ILU(0)/ICC(0) solves, KSP solves and Galerkin MG
GPU_TESTS="test_gpu_ops test_gpu_factor test_gpu_solvers"
if has kernels; then
  for t in bin/test_*cuda*; do run "$(basename "$t")" "$t"; done
fi
if has sanitize; then
  for t in ${SANITIZE:-bin/test_*cuda*}; do
    n=$(basename "$t")
    # the grid-stride case (tens of millions of rows) is left out under the tools: it takes them many minutes
    run "$n.memcheck" compute-sanitizer --tool memcheck --error-exitcode 1 "$t" "--run_test=${SANITIZE_FILTER:-!*/grid_stride_large}"
    run "$n.racecheck" compute-sanitizer --tool racecheck --error-exitcode 1 "$t" "--run_test=${SANITIZE_FILTER:-!*/grid_stride_large}"
  done
fi
if has plugin; then
  for t in $GPU_TESTS; do
    run $t.np1 mpiexec -n 1 bin/$t
    run $t.np2 mpiexec -n 2 bin/$t
    run $t.np4 mpiexec -n 4 bin/$t
  done
  # every MatProduct case with the diag operands' values on the GPU (products
  # on the device, on 1, 2 and 3 ranks), dense operands as CUDA matrices;
  # then the paper's Algorithm 2 on the paper-style cases (1 and 2 ranks)
  G="-diag_vec_type cuda -dense_type seqdensecuda"
  GM="-diag_vec_type cuda -dense_type mpidensecuda"
  run test_products.gpu.np1 mpiexec -n 1 bin/test_products $G
  run test_products.gpu.np2 mpiexec -n 2 bin/test_products $GM
  run test_products.gpu.np3 mpiexec -n 3 bin/test_products $GM
  # one process per GPU on a 4-GPU machine (the multi-GPU issue)
  run test_products.gpu.np4 mpiexec -n 4 bin/test_products $GM
  run test_products.gpu.atomic mpiexec -n 1 bin/test_products $G -case paper-style -mat_product_algorithm diag_atomic
  run test_products.gpu.atomic.np2 mpiexec -n 2 bin/test_products $GM -case paper-style -mat_product_algorithm diag_atomic
fi
if has pc; then
  # the PC matrix of the drop-in issue with CUDA vectors: aijcusparse against
  # diagcuda (test_pc -gpu), on 1-3 ranks; the SuiteSparse pair is staged in ssmat/
  for np in ${PC_NPS:-1 2 3}; do run test_pc.gpu.np$np mpiexec -n $np bin/test_pc "$PWD/ssmat" -gpu; done
fi
if has devops; then
  # the device versions of MatScale/Shift/AXPY/GetDiagonal for every test_gpu_*
  # case, and test_gpu_* (COO with device arrays, device ops) under memcheck
  for t in $GPU_TESTS; do
    run $t.devops.np1 mpiexec -n 1 bin/$t -mat_diag_device_ops
    run $t.devops.np2 mpiexec -n 2 bin/$t -mat_diag_device_ops
    run $t.memcheck compute-sanitizer --tool memcheck --error-exitcode 1 bin/$t
  done
fi
if has mpisan; then
  # the MPI device paths (device gathers of products, device ops with a
  # gathered right scaling) under memcheck on 2 ranks
  GM="-diag_vec_type cuda -dense_type mpidensecuda"
  run test_products.memcheck.np2 mpiexec -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 bin/test_products $GM -case rectangular
  run test_products.dense.memcheck.np2 mpiexec -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 bin/test_products $GM -case dense
  for t in $GPU_TESTS; do run $t.memcheck.np2 mpiexec -n 2 compute-sanitizer --tool memcheck --error-exitcode 1 bin/$t; done
  # device reads of memory never written (a gathered block's entries that no process stores)
  run test_products.initcheck.np2 mpiexec -n 2 compute-sanitizer --tool initcheck --error-exitcode 1 bin/test_products $GM -case far-off
fi
if has profile; then
  # where the first product's time goes (-log_view events): Table 2 row 1, AB
  run profile.t2.200 bin/bench_products -types diagcuda,aijcusparse -n 10000 -dga 200 -dgb 200 -reps 3 -products AB -show_reps -log_view -log_view_gpu_time
fi
if has examples; then
  # examples/ on the device: each checks its own result and ends with "exN: OK"
  # (ex5, an unmodified program, prints the matrix type and its error)
  for np in 1 2; do
    run ex2_dmda_ksp.cuda.np$np mpiexec -n $np bin/ex2_dmda_ksp -dm_mat_type diag -dm_vec_type cuda -ksp_type cg -pc_type jacobi
    run ex5_dll_append.cuda.np$np mpiexec -n $np bin/ex5_dll_append -dll_append $PWD/lib/libpetscdiag.so -mat_type diagcuda
  done
fi
if has tutorials; then
  K="-ksp_converged_reason -ksp_monitor -ksp_norm_type unpreconditioned"
  for np in 1 2; do
    run tut.ex45.np$np python3 compare.py --np $np --exe bin/tut_ksp_ex45 --common "-ksp_type cg -pc_type jacobi $K" \
      --ref "-dm_mat_type aijcusparse -dm_vec_type cuda" --diag "-dm_mat_type diag -dm_vec_type cuda -dll_append $PWD/lib/libpetscdiag.so"
    run tut.ex50.np$np python3 compare.py --np $np --exe bin/tut_ksp_ex50 --common "-da_grid_x 64 -da_grid_y 64 -ksp_type cg -pc_type jacobi $K" \
      --ref "-dm_mat_type aijcusparse -dm_vec_type cuda" --diag "-dm_mat_type diag -dm_vec_type cuda -dll_append $PWD/lib/libpetscdiag.so"
    run tut.ex2.np$np python3 compare.py --np $np --exe bin/tut_ksp_ex2 --common "-m 40 -n 37 -ksp_type gmres -pc_type jacobi $K" \
      --ref "-mat_type aijcusparse -vec_type cuda" --diag "-mat_type diag -vec_type cuda -dll_append $PWD/lib/libpetscdiag.so"
    run tut.ex2cheb.np$np python3 compare.py --np $np --exe bin/tut_ksp_ex2 --common "-m 40 -n 37 -ksp_type chebyshev -pc_type jacobi -ksp_max_it 50 $K" \
      --ref "-mat_type aijcusparse -vec_type cuda" --diag "-mat_type diagcuda -dll_append $PWD/lib/libpetscdiag.so"
    # GAMG: diag's hierarchy is built on an aijcusparse copy, its finest level smooths with diagcuda
    run tut.ex45gamg.np$np python3 compare.py --np $np --exe bin/tut_ksp_ex45 --rtol 1e-6 --common "-da_grid_x 65 -da_grid_y 65 -da_grid_z 65 -ksp_type cg -pc_type gamg $K" \
      --ref "-dm_mat_type aijcusparse -dm_vec_type cuda" --diag "-dm_mat_type diag -dm_vec_type cuda -dll_append $PWD/lib/libpetscdiag.so"
    # Newton: the Krylov counts (about 200 Jacobi-CG iterations a step) move by
    # one or two with the GPU's rounding (cuSPARSE and diag sum rows in different
    # orders); the Newton iterations and function norms must agree
    run tut.ex5.np$np python3 compare.py --np $np --exe bin/tut_snes_ex5 --atol 1e-10 --rtol 1e-6 --common "-da_grid_x 32 -da_grid_y 32 -snes_monitor -snes_converged_reason -ksp_rtol 1e-9 -pc_type jacobi" \
      --ref "-dm_mat_type aijcusparse -dm_vec_type cuda" --diag "-dm_mat_type diag -dm_vec_type cuda -dll_append $PWD/lib/libpetscdiag.so"
  done
fi
if has bench256; then  # the reference case only: 3D 7-point at 256^3, variable and constant coefficients
  B="bin/bench_matmult -dm_vec_type cuda -types diag,aijcusparse -csv $OUT/bench.csv -reps 30"
  echo "dim,points,coef,n,rows,ranks,ours,asm_s,mult_s,multt_s,peer,peer_asm_s,peer_mult_s,peer_multt_s,agree" > "$OUT/bench.csv"
  run bench.3d7.random.n256 $B -n 256
  run bench.3d7.constant.n256 $B -n 256 -coef constant
  run bench.3d7.constant.n256.nocompress $B -n 256 -coef constant -mat_diag_compress_constant 0
  grep -h -A5 "rank(s)" "$OUT"/bench.*.log > "$OUT/bench-tables.txt"
fi
if has bench; then
  B="bin/bench_matmult -dm_vec_type cuda -types diag,aijcusparse -csv $OUT/bench.csv -reps 50"
  echo "dim,points,coef,n,rows,ranks,ours,asm_s,mult_s,multt_s,peer,peer_asm_s,peer_mult_s,peer_multt_s,agree" > "$OUT/bench.csv"
  for n in 64 128 256; do run bench.3d7.random.n$n $B -n $n; done
  run bench.3d7.constant.n256 $B -n 256 -coef constant
  run bench.3d7.constant.n256.nocompress $B -n 256 -coef constant -mat_diag_compress_constant 0
  run bench.3d7.random.n256.cdm $B -n 256 -mat_diag_storage cdm
  run bench.3d27.random.n160 $B -n 160 -stencil box
  run bench.2d5.random.n4096 $B -dim 2 -n 4096
  run bench.2d9.random.n4096 $B -dim 2 -n 4096 -stencil box
  grep -h -A4 "rank(s)" "$OUT"/bench.*.log > "$OUT/bench-tables.txt"
fi
if has sor; then
  # MatSOR on the device (diag: level-scheduled sweeps, kernels/src/sor.cu)
  # against aijcusparse (its sweeps run on the host): one symmetric sweep
  # with a zero initial guess (PCSOR's apply), 3D 7-point at 129^3 and 257^3;
  # then CG + SOR in ex45 at 129^3 with both types (same iterations, KSPSolve time).
  # diag's sweeps replay a CUDA graph of the level launches; bench_matmult
  # also times them with one launch per level (-mat_diag_cuda_graphs 0), and
  # ex45 runs diag both ways; test_sor_cuda checks both paths
  run sor.test_sor_cuda bin/test_sor_cuda
  run sor.test_sor_cuda.memcheck compute-sanitizer --tool memcheck --error-exitcode 1 bin/test_sor_cuda
  B="bin/bench_matmult -dm_vec_type cuda -types diag,aijcusparse -sor -sor_reps 5 -reps 5"
  run sor.3d7.random.n129 $B -n 129
  run sor.3d7.random.n257 $B -n 257 -log_view -log_view_gpu_time
  for t in aijcusparse diag; do
    P="bin/tut_ksp_ex45 -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -ksp_type cg -pc_type sor -ksp_rtol 1e-8 -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t -log_view -log_view_gpu_time"
    [ $t = diag ] && P="$P -dll_append $PWD/lib/libpetscdiag.so"
    run sor.ex45.129.$t $P
  done
  run sor.ex45.129.diag-nographs $P -mat_diag_cuda_graphs 0
  { grep -h -A7 "rank(s)" "$OUT"/sor.3d7.*.log; grep -H -E "converged|^KSPSolve |^PCApply |^MatSOR " "$OUT"/sor.ex45.*.log; } > "$OUT/sor-tables.txt"
fi
if has ilu; then
  # ILU(0) / ICC(0) on the device (diag: level-scheduled triangular solves,
  # kernels/src/factor_solve.cu; the numeric factorization on the host,
  # uploaded once per factorization): the CPU check of the level-ordered
  # algorithm, the kernel test and it under memcheck and racecheck; test_gpu_*
  # (factor solves with CUDA against host vectors; PCILU, PCICC, bjacobi, ASM:
  # iterations and host<->device copies per iteration) on 1 and 2 ranks;
  # one ILU(0) MatSolve and PCApply against aijcusparse's (cuSPARSE), 3D
  # 7-point random coefficients at 129^3 and 257^3, with the host
  # factorization and upload times; then CG + ILU in ex45 at 129^3 with both
  # types (same iterations, KSPSolve time). diag's solves run by tiles
  # (pdiag/factor_tiles.hpp) where the factor has them; bench_matmult also
  # times MatSolve level-scheduled (-mat_diag_factor_tiles 0, CUDA graphs of
  # the level launches), ex45 runs diag both ways, and
  # test_factor_solve_cuda checks every path
  run ilu.test_factor_levels bin/test_factor_levels
  run ilu.test_factor_tiles bin/test_factor_tiles
  run ilu.test_factor_solve_cuda bin/test_factor_solve_cuda
  run ilu.test_factor_solve_cuda.memcheck compute-sanitizer --tool memcheck --error-exitcode 1 bin/test_factor_solve_cuda
  run ilu.test_factor_solve_cuda.racecheck compute-sanitizer --tool racecheck --error-exitcode 1 bin/test_factor_solve_cuda
  for t in $GPU_TESTS; do
    run ilu.$t.np1 mpiexec -n 1 bin/$t
    run ilu.$t.np2 mpiexec -n 2 bin/$t
  done
  B="bin/bench_matmult -dm_vec_type cuda -types diag,aijcusparse -ilu -ilu_reps 5 -reps 5"
  run ilu.3d7.random.n129 $B -n 129
  run ilu.3d7.random.n257 $B -n 257 -log_view -log_view_gpu_time
  for t in aijcusparse diag; do
    P="bin/tut_ksp_ex45 -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -ksp_type cg -pc_type ilu -ksp_rtol 1e-8 -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t -log_view -log_view_gpu_time"
    [ $t = diag ] && P="$P -dll_append $PWD/lib/libpetscdiag.so"
    run ilu.ex45.129.$t $P
  done
  run ilu.ex45.129.diag-levels $P -mat_diag_factor_tiles 0
  { grep -h -A9 "rank(s)" "$OUT"/ilu.3d7.*.log; grep -H -E "converged|^KSPSolve |^PCApply |^PCSetUp |^MatSolve |^MatLUFactorNum |^MatDiagFactToGPU " "$OUT"/ilu.ex45.*.log "$OUT"/ilu.3d7.*.log; grep -h -E "passed, .* failed|FAILED|iterations to rtol|copies" "$OUT"/ilu.test_gpu_*.log; } > "$OUT/ilu-tables.txt"
fi
if has benchprod; then
  # the paper's Table 2 (n = 10^4, 200-600 diagonals; dgB of row 3 is 400 by its nzB),
  # banded n = 10^6 (9 x 9, 21 x 21), diag x dense (band of 9, n = 10^6, k = 32, 128)
  P="bin/bench_products -types diagcuda,aijcusparse -csv $OUT/products.csv"
  echo "n,dga,dgb,nza,nzb,nzc,ranks,product,ours,first_s,reuse_s,peer,peer_first_s,peer_reuse_s" > "$OUT/products.csv"
  run benchprod.t2.200 $P -n 10000 -dga 200 -dgb 200 -reps 3 -algs diag,diag_atomic
  for d in ${T2_ROWS:-300 400 500}; do
    run benchprod.t2.$d $P -n 10000 -dga $d -dgb $d -reps 3 -algs diag,diag_atomic -products AB
  done
  # aijcusparse fails at 600 x 600; its ABt after two failures has crashed the whole
  # process once (SEGV inside the peer): ABt in a process of its own
  run benchprod.t2.600 $P -n 10000 -dga 600 -dgb 600 -reps 3 -algs diag,diag_atomic -products AB,AtB
  run benchprod.t2.600.ABt $P -n 10000 -dga 600 -dgb 600 -reps 3 -algs diag,diag_atomic -products ABt
  # the paper's Algorithm 1 needs CDM operands and result: all three variants on CDM storage
  echo "n,dga,dgb,nza,nzb,nzc,ranks,product,ours,first_s,reuse_s,peer,peer_first_s,peer_reuse_s" > "$OUT/products-cdm.csv"
  run benchprod.t2.200.cdm ${P/products.csv/products-cdm.csv} -n 10000 -dga 200 -dgb 200 -reps 3 -algs diag,diag_atomic,diag_tiled -products AB -mat_diag_storage cdm -mat_diag_max_diagonals 20000
  run benchprod.band9 $P -n 1000000 -dga 9 -dgb 9 -banded -reps 5 -algs diag,diag_atomic
  run benchprod.band21 $P -n 1000000 -dga 21 -dgb 21 -banded -reps 5 -algs diag,diag_atomic
  for k in 32 128; do
    run benchprod.dense$k $P -n 1000000 -dga 9 -banded -dense $k -dense_type seqdensecuda -reps 5
  done
  grep -h -B1 -A8 "rank(s)" "$OUT"/benchprod.*.log > "$OUT/benchprod-tables.txt"
fi
if has scaling; then
  # multi-GPU scaling (bench/scaling.sh, staged beside this script): one
  # process per GPU on 1, 2, 4, 8 up to the GPUs present, weak and strong,
  # diag against aijcusparse; the Table 2 product on 1, 2 and 4 processes.
  # $OUT/scaling.csv, scaling-products.csv, scaling-summary.txt; the logs go
  # into all-logs.txt. scaling.sh's variables pass through, e.g.
  # WEAK_N=128 STRONG_N=256 NPS="1 2" bash .gpu/run-all.sh scaling
  run scaling bash ./scaling.sh "$OUT"
fi
if has solvers && [ -f ./solvers.sh ]; then
  run solvers env DATA="$PWD/../data" bash ./solvers.sh
fi
if has pcs; then
  # every preconditioner of the table (Jacobi, SOR, bjacobi+ILU(0), MG rediscretized and
  # Galerkin, GAMG) with CG rtol 1e-8, diag and aijcusparse on CUDA vectors,
  # one program run each with its own time limit (PCS_TIMEOUT, default 120 s)
  # and a budget for the whole section (PCS_BUDGET, default 540 s: what does
  # not fit is listed as skipped); PCS_CASES, PCS_PCS, PCS_TYPES pick a part,
  # e.g. PCS_CASES=diffusion PCS_PCS="mg_galerkin_jacobi gamg" bash .gpu/run-all.sh pcs
  run pcs env BIN="$PWD/bin" OUT="$OUT" PCS_PETSC="$(basename "$(readlink -f "$PETSC_DIR/lib/libpetsc.so")" | sed -n 's/^libpetsc\.so\.//p')" python3 ./pcs.py
fi
if has program; then
  # PETSc's ex45 (3D Poisson, DMDA, assembled with MatSetValuesStencil) at 257^3,
  # CG + Jacobi, 200 iterations: the whole program's wall time and -log_view.
  for t in aijcusparse diag; do
    P="bin/tut_ksp_ex45 -da_grid_x 257 -da_grid_y 257 -da_grid_z 257 -ksp_type cg -pc_type jacobi -ksp_max_it 200 -ksp_rtol 1e-50 -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t -log_view -log_view_gpu_time"
    [ $t = diag ] && P="$P -dll_append $PWD/lib/libpetscdiag.so"
    run program.ex45.257.$t bash -c "s=\$(date +%s%N); $P; e=\$(date +%s%N); echo wall_s \$(awk \"BEGIN{print (\$e-\$s)/1e9}\")"
  done
  grep -E "^(wall_s|KSPSolve |MatMult |MatAssemblyEnd|KSPSetUp )" "$OUT"/program.*.log > "$OUT/program-tables.txt"
fi
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
# at most 8 files come back: keep the tables and one file of all the logs
for f in "$OUT"/*.log; do echo "=================== $(basename "$f")"; cat "$f"; done > "$OUT/all-logs.txt"
rm -f "$OUT"/*.log
