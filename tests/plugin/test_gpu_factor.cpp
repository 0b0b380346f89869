/* MatSOR and the native ILU(0) / ICC(0) factors of MATDIAG on the GPU:
   MatSOR with CUDA vectors (level-scheduled sweeps on the device) gives
   the host sweeps' result to rounding, and so do the solves with native
   ILU(0) / ICC(0) factors (tiled or level-scheduled triangular solves on
   the device, with and without CUDA graphs, after a refactorization), the
   numeric factorization on the device equals the host's, and a nonzero
   outside the factor's pattern grows it. -host_check: the same comparisons
   with host vectors in place of CUDA ones, on any machine. Without a CUDA
   device: prints SKIPPED and returns 77. Ends with the line "N passed, M
   failed". */
#include <petscdiag.h>

#include "petsc_compat.hpp"
#include "gpu_testing.hpp"
#include "plugin_testing.hpp" /* EventCount only */

#include <algorithm>
#include <array>
#include <string>
#include <vector>

using namespace gpu_testing;
using plugin_testing::EventCount;

namespace {

/* A box stencil's matrix (27 points, 9 when nz = 1) with random values on an
   nx x ny x nz grid, row x + nx (y + ny z), no coupling out of the grid: its
   factors' tiles are skewed boxes (straight ones read each other). */
PetscErrorCode RandomBoxStencil(PetscInt nx, PetscInt ny, PetscInt nz, MatType type, Mat *A)
{
  std::vector<PetscInt>                offs;
  std::vector<std::array<PetscInt, 3>> steps;

  PetscFunctionBeginUser;
  for (PetscInt dz = (nz > 1 ? -1 : 0); dz <= (nz > 1 ? 1 : 0); dz++)
    for (PetscInt dy = -1; dy <= 1; dy++)
      for (PetscInt dx = -1; dx <= 1; dx++) {
        offs.push_back(dx + nx * (dy + ny * dz));
        steps.push_back({dx, dy, dz});
      }
  const auto in_grid = [&](PetscInt i, std::size_t k) {
    const PetscInt x = i % nx + steps[k][0], y = (i / nx) % ny + steps[k][1], z = i / (nx * ny) + steps[k][2];
    return x >= 0 && x < nx && y >= 0 && y < ny && z >= 0 && z < nz;
  };
  PetscCall(RandomOnDiagonals(nx * ny * nz, offs, type, MAT_DIAG_STORAGE_AUTO, in_grid, A));
  PetscFunctionReturn(0);
}

/* MatSOR with CUDA vectors (on the device for HM storage) against host
   vectors (the sequential sweeps on the host): every sweep type (in
   parallel the local ones, as aij), with and without a zero initial
   guess, omega, shift, its and lits, to rounding, by the recorded CUDA
   graph and by one launch per level (-mat_diag_cuda_graphs 0), whatever the
   levels' sizes (-mat_diag_device_level_rows 0). On a copy of A made
   diagonally dominant (A has a main diagonal). Then the default rule: a
   matrix whose levels average fewer rows than -mat_diag_device_level_rows
   sweeps on the host (x's values are then newer there), one whose levels
   reach it on the device. */
PetscErrorCode CompareSOR(Mat A0, const std::string &name)
{
  Mat         A;
  Vec         bh, x0, xh, bd, xd;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A0), &size));
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
  PetscCall(MatShift(A, 20.0));
  MatDiagStorage storage;
  PetscCall(MatDiagGetStorage(A, &storage));
  /* a sequential CDM matrix sweeps on the host (device/sor.cpp); in
     parallel the sweeps are those of each process's diagonal block, HM */
  const bool hm = size > 1 || storage == MAT_DIAG_STORAGE_HM;
  /* a process without rows sweeps nothing: its vectors stay where they were */
  PetscInt   mlocal;
  PetscCall(MatGetLocalSize(A, &mlocal, NULL));
  const bool placed = device_is_gpu && mlocal > 0;
  PetscCall(HostVecs(A, &x0, &bh));
  PetscCall(VecSetRandom(x0, NULL));
  PetscCall(VecSetRandom(bh, NULL));
  PetscCall(Retyped(bh, device_vec, &bd));
  PetscCall(VecDuplicate(x0, &xh));
  const MatSORType global[] = {SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, SOR_SYMMETRIC_SWEEP};
  const MatSORType local[]  = {SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP};
  struct Param {
    PetscReal omega, shift;
    PetscInt  its, lits;
  };
  for (int g = size == 1 ? 0 : 1; g < 2; g++)
    for (int t = 0; t < 3; t++)
      for (PetscBool zero : {PETSC_FALSE, PETSC_TRUE})
        for (Param q : {Param{1.0, 0.0, 1, 1}, Param{1.3, 0.2, 2, 2}})
          for (PetscBool graphs : {PETSC_TRUE, PETSC_FALSE}) { /* the recorded CUDA graph, then one launch per level */
            const MatSORType flag = (MatSORType)((g == 0 ? global[t] : local[t]) | (zero ? SOR_ZERO_INITIAL_GUESS : 0));
            PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_cuda_graphs", graphs ? "1" : "0"));
            PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_device_level_rows", "0"));
            PetscCall(VecCopy(x0, xh));
            PetscCall(Retyped(x0, device_vec, &xd));
            PetscCall(MatSOR(A, bh, q.omega, flag, q.shift, q.its, q.lits, xh));
            PetscCall(MatSOR(A, bd, q.omega, flag, q.shift, q.its, q.lits, xd));
            PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_cuda_graphs"));
            PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_device_level_rows"));
            Check(!placed || OnDevice(xd) == hm, name + " MatSOR flag " + std::to_string((int)flag) + " with -mat_diag_device_level_rows 0 ran on the " + (hm ? "device" : "host (CDM)"));
            const PetscReal e = RelDiff(xd, xh);
            Check(e <= 1e-12, name + " MatSOR flag " + std::to_string((int)flag) + " omega " + std::to_string(q.omega) + " its " + std::to_string(q.its) + " lits " + std::to_string(q.lits) + (graphs ? "" : " (-mat_diag_cuda_graphs 0)") + ": " + std::to_string(e));
            PetscCall(VecDestroy(&xd));
          }
  /* the rule, with level sizes around the threshold: rows per level = m / levels */
  for (PetscInt per_level : {(PetscInt)1, (PetscInt)1000000000}) { /* at most m rows a level: 1 is always met, 10^9 never */
    const std::string v = std::to_string(per_level);
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_device_level_rows", v.c_str()));
    PetscCall(Retyped(x0, device_vec, &xd));
    PetscCall(MatSOR(A, bd, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, xd));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_device_level_rows"));
    const bool expect_device = hm && per_level == 1;
    Check(!placed || OnDevice(xd) == expect_device, name + " MatSOR with -mat_diag_device_level_rows " + v + (expect_device ? " ran on the device" : " ran on the host"));
    PetscCall(VecCopy(x0, xh));
    PetscCall(MatSOR(A, bh, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, xh));
    const PetscReal e = RelDiff(xd, xh);
    Check(e <= 1e-12, name + " MatSOR with -mat_diag_device_level_rows " + v + ": " + std::to_string(e));
    PetscCall(VecDestroy(&xd));
  }
  for (Vec v : {bh, x0, xh, bd}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* The "petsc" package's ILU(0) or ICC(0) factor of A after its symbolic
   phase, and info as PCILU / PCICC give it (no fill, PETSc's zero pivot). */
PetscErrorCode SymbolicFactor(Mat A, MatFactorType ft, MatFactorInfo *info, Mat *F)
{
  PetscFunctionBeginUser;
  PetscCall(MatFactorInfoInitialize(info));
  info->fill      = 1.0; /* ILU(0) / ICC(0): no fill */
  info->zeropivot = 100 * PETSC_MACHINE_EPSILON;
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, ft, F));
  if (ft == MAT_FACTOR_ILU) PetscCall(MatILUFactorSymbolic(*F, A, NULL, NULL, info));
  else PetscCall(MatICCFactorSymbolic(*F, A, NULL, info));
  PetscFunctionReturn(0);
}

/* The numeric phase of SymbolicFactor's factor F of A. */
PetscErrorCode NumericFactor(Mat F, Mat A, MatFactorType ft, const MatFactorInfo *info)
{
  PetscFunctionBeginUser;
  if (ft == MAT_FACTOR_ILU) PetscCall(MatLUFactorNumeric(F, A, info));
  else PetscCall(MatCholeskyFactorNumeric(F, A, info));
  PetscFunctionReturn(0);
}

/* The native ILU(0) / ICC(0) factor of a sequential A (PETSc's "petsc"
   package, zero fill: the factor on the diagonals) applied to CUDA vectors
   (level-scheduled triangular solves on the device) against host vectors
   (the sequential solves on the host): MatSolve, MatSolveTranspose and
   ICC's MatForwardSolve / MatBackwardSolve, to rounding, twice by default
   (tiled passes where the factor has tiles, else the recorded CUDA graph;
   the second solve reuses the uploaded factor and schedules), then with
   -mat_diag_factor_tiles 0 (level-scheduled, the graph) and with
   -mat_diag_cuda_graphs 0 too (one launch per level), and again after a numeric
   refactorization with new values (the device copy must follow). Each
   numeric factorization runs twice first, on the host (-mat_diag_device_ilu_numeric
   0) and by default (on the device for diagcuda), and host solves with the
   two factors must agree. All of it on the device whatever the steps'
   sizes (-mat_diag_device_level_rows 0). Then the default rule: a factor
   whose device steps (levels, or the tiles' wavefronts) average fewer rows
   than -mat_diag_device_level_rows is factored (no MatDiagFactNumGPU
   event) and solved (x's values newer on the host) on the host, one whose
   steps reach it on the device. On a copy of A made diagonally dominant. */
PetscErrorCode CompareFactorSolves(Mat A0, const std::string &name)
{
  Mat         A;
  Vec         bh, xh, bd, xd;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A0), &size));
  if (size > 1) PetscFunctionReturn(0); /* factors of sequential matrices (bjacobi / ASM blocks: the KSP tests) */
  Trace("factor solves " + name);
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
  PetscCall(MatShift(A, 20.0));
  PetscCall(HostVecs(A, &bh, &xh));
  PetscCall(VecSetRandom(bh, NULL));
  PetscCall(Retyped(bh, device_vec, &bd));
  PetscCall(Retyped(xh, device_vec, &xd));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_device_level_rows", "0"));
  for (MatFactorType ft : {MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    Mat           F;
    MatFactorInfo info;
    const char   *fname = ft == MAT_FACTOR_ILU ? "ILU(0)" : "ICC(0)";
    PetscCall(SymbolicFactor(A, ft, &info, &F));
    for (int round = 0; round < 2; round++) {
      if (round == 1) PetscCall(MatScale(A, 1.5)); /* new values, same pattern */
      { /* the numeric factorization on the device (A's vectors are CUDA ones: diagcuda) against the host's
           (-mat_diag_device_ilu_numeric 0): the same factor, seen through host solves (which copy it back) */
        Vec xref;
        PetscCall(VecDuplicate(xh, &xref));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_device_ilu_numeric", "0"));
        PetscCall(NumericFactor(F, A, ft, &info));
        PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_device_ilu_numeric"));
        PetscCall(MatSolve(F, bh, xref));
        PetscCall(NumericFactor(F, A, ft, &info));
        PetscCall(MatSolve(F, bh, xh));
        Check(RelDiff(xh, xref) <= 1e-12, name + " " + fname + (round ? " after refactorization" : "") + ": factored on the device (if used) and on the host: difference " + std::to_string(RelDiff(xh, xref)));
        PetscCall(VecDestroy(&xref));
      }
      for (int op = 0; op < (ft == MAT_FACTOR_ILU ? 2 : 4); op++)
        for (int rep = 0; rep < 4; rep++) { /* rep 0, 1: the default (tiled where the tiles fit), 2: level-scheduled with the CUDA graph, 3: one launch per level */
          const char *opname[] = {"MatSolve", "MatSolveTranspose", "MatForwardSolve", "MatBackwardSolve"};
          const char *repname[] = {"", " (again)", " (-mat_diag_factor_tiles 0)", " (-mat_diag_factor_tiles 0 -mat_diag_cuda_graphs 0)"};
          PetscErrorCode (*apply[])(Mat, Vec, Vec) = {MatSolve, MatSolveTranspose, MatForwardSolve, MatBackwardSolve};
          PetscCall(VecSet(xd, 7.0)); /* a stale x must not leak into the result */
          PetscCall(apply[op](F, bh, xh));
          if (rep >= 2) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_factor_tiles", "0"));
          if (rep == 3) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_cuda_graphs", "0"));
          PetscCall(apply[op](F, bd, xd));
          PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_factor_tiles"));
          PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_cuda_graphs"));
          const PetscReal e = RelDiff(xd, xh), moved = RelDiff(xh, bh);
          Check(e <= 1e-12 && moved > 1e-3, name + " " + fname + " " + opname[op] + (round ? " after refactorization" : "") + repname[rep] + ": difference " + std::to_string(e));
        }
    }
    { /* the rule's two sides: more rows a step than the factor has (every step has fewer) on the host, one on the
         device (no step has fewer); the device factorizations counted with the rule off */
      PetscInt m;
      int      c0, c1, forced;
      PetscCall(MatGetLocalSize(A, &m, NULL));
      PetscCall(EventCount("MatDiagFactNumGPU", &c0));
      PetscCall(NumericFactor(F, A, ft, &info));
      PetscCall(EventCount("MatDiagFactNumGPU", &c1));
      forced = c1 - c0;
      for (int side = 0; side < 2; side++) {
        const std::string v = side ? "1" : std::to_string(m + 1);
        PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_device_level_rows", v.c_str()));
        PetscCall(EventCount("MatDiagFactNumGPU", &c0));
        PetscCall(NumericFactor(F, A, ft, &info));
        PetscCall(EventCount("MatDiagFactNumGPU", &c1));
        PetscCall(VecSet(xd, 7.0));
        PetscCall(MatSolve(F, bd, xd));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_device_level_rows", "0"));
        PetscCall(MatSolve(F, bh, xh));
        const std::string what = name + " " + fname + " with -mat_diag_device_level_rows " + v;
        Check(c1 - c0 == (side ? forced : 0), what + ": " + std::to_string(c1 - c0) + " device factorizations (" + std::to_string(side ? forced : 0) + " expected)");
        Check(!device_is_gpu || OnDevice(xd) == (side == 1), what + ": MatSolve ran on the " + (side ? "device" : "host"));
        Check(RelDiff(xd, xh) <= 1e-12, what + ": MatSolve difference " + std::to_string(RelDiff(xd, xh)));
      }
    }
    PetscCall(MatDestroy(&F));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_device_level_rows"));
  for (Vec v : {bh, xh, bd, xd}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* The factor's pattern grows: a 5-point operator on an 8 x 8 grid whose
   diagonals +-1 are stored but never set where they cross a grid line's
   end (so aij's factor, and diag's, leave those entries out), ILU(0) and
   ICC(0) factored (on the device for diagcuda), then such a crossing entry
   set (and its mirror) and the matrix factored again: the device finds the
   new nonzero outside the pattern, the pattern grows on the host, and the
   factor must equal the host's factorization of the new matrix
   (-mat_diag_device_ilu_numeric 0, given here by its deprecated alias
   -mat_diag_factor_device, which must act the same), seen through host and
   device solves. */
PetscErrorCode TestFactorPatternGrowth(MatType type)
{
  const PetscInt nx = 8, n = nx * nx;
  Mat            A;
  Vec            bh, xh, xref, bd, xd;
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) PetscFunctionReturn(0); /* sequential factors */
  Trace(std::string("factor pattern growth ") + type);
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, n, n, n, n));
  PetscCall(MatSetType(A, type));
  {
    const PetscInt offs[] = {-nx, -1, 0, 1, nx};
    PetscCall(MatDiagSetPreallocation(A, 5, offs));
  }
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt x = i % nx;
    PetscCall(MatSetValue(A, i, i, 4.5, INSERT_VALUES));
    if (x > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (x < nx - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    if (i >= nx) PetscCall(MatSetValue(A, i, i - nx, -1.0, INSERT_VALUES));
    if (i + nx < n) PetscCall(MatSetValue(A, i, i + nx, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(HostVecs(A, &bh, &xh));
  PetscCall(VecDuplicate(xh, &xref));
  PetscCall(VecSetRandom(bh, NULL));
  PetscCall(Retyped(bh, device_vec, &bd));
  PetscCall(Retyped(xh, device_vec, &xd));
  for (MatFactorType ft : {MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    Mat           F;
    MatFactorInfo info;
    const char   *fname = ft == MAT_FACTOR_ILU ? "ILU(0)" : "ICC(0)";
    PetscCall(SymbolicFactor(A, ft, &info, &F));
    PetscCall(NumericFactor(F, A, ft, &info));
    /* a coupling across the end of grid line 2 (rows 23, 24), which the pattern left out */
    PetscCall(MatSetValue(A, 3 * nx - 1, 3 * nx, -0.5, INSERT_VALUES));
    PetscCall(MatSetValue(A, 3 * nx, 3 * nx - 1, -0.5, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_factor_device", "0"));
    PetscCall(NumericFactor(F, A, ft, &info));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_factor_device"));
    PetscCall(MatSolve(F, bh, xref));
    PetscCall(NumericFactor(F, A, ft, &info)); /* the default: on the device for diagcuda, growing the pattern */
    PetscCall(MatSolve(F, bd, xd));
    PetscCall(MatSolve(F, bh, xh));
    Check(RelDiff(xd, xref) <= 1e-12 && RelDiff(xh, xref) <= 1e-12, std::string(type) + " " + fname + " after a nonzero outside the pattern: device " + std::to_string(RelDiff(xd, xref)) + ", host " + std::to_string(RelDiff(xh, xref)));
    /* the new coupling is in the factor: the old pattern's factor solves differently */
    PetscCall(MatSetValue(A, 3 * nx - 1, 3 * nx, 0.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, 3 * nx, 3 * nx - 1, 0.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(NumericFactor(F, A, ft, &info));
    PetscCall(MatSolve(F, bd, xd));
    Check(RelDiff(xd, xref) > 1e-6, std::string(type) + " " + fname + ": the crossing entry changed the solve");
    PetscCall(MatDestroy(&F));
  }
  for (Vec v : {bh, xh, xref, bd, xd}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  bool device;
  if (!plugin_testing::GpuOrHostMode(argc, argv, "test_gpu_factor", &device)) return 77;
  const bool host_check = !device;
  PetscFunctionBeginUser;
  PetscCall(Start(&argc, &argv, "test_gpu_factor", device));
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA}) PetscCall(TestFactorPatternGrowth(type));
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA})
    for (MatDiagStorage st : {MAT_DIAG_STORAGE_HM, MAT_DIAG_STORAGE_CDM})
      for (PetscInt n : {1, 17, 1000}) {
        for (const std::vector<PetscInt> &offs : std::vector<std::vector<PetscInt>>{{0}, {-1, 0, 1}, {-(n - 1), -3, 0, 2, n - 1}, {-7, -1, 1, 5, 9}}) {
          Mat A;
          if (std::find(offs.begin(), offs.end(), 0) == offs.end()) continue; /* SOR and the factors: matrices with a main diagonal */
          PetscCall(RandomDiag(n, offs, type, st, &A));
          /* the values test_gpu_ops's CompareProducts leaves in the same matrix: halved, shifted by 2 */
          PetscCall(MatScale(A, 0.5));
          PetscCall(MatShift(A, 2.0));
          PetscCall(CompareSOR(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          PetscCall(CompareFactorSolves(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          PetscCall(MatDestroy(&A));
        }
      }
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA})
    for (const std::array<PetscInt, 3> &g : {std::array<PetscInt, 3>{12, 10, 8}, std::array<PetscInt, 3>{40, 30, 1}}) {
      Mat A;
      PetscCall(RandomBoxStencil(g[0], g[1], g[2], type, &A));
      PetscCall(CompareFactorSolves(A, std::string(type) + (g[2] > 1 ? " 27-point " : " 9-point ") + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2])));
      PetscCall(MatDestroy(&A));
    }
  return Finish();
}
