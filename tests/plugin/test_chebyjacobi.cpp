/* PCCHEBYJACOBI (pc/chebyjacobi.cpp) against PETSc's KSPCHEBYSHEV with
   PCJACOBI, with diag and aij operators on a 3D DMDA (variable
   coefficients), on the GPU with CUDA vectors by default and with host
   vectors under -host_check, on any number of processes:
   - KSPRICHARDSON + chebyjacobi with -pc_chebyjacobi_eigenvalues gives
     KSPCHEBYSHEV + PCJACOBI's iterate on the same interval to rounding,
     for 1 to 5 steps from a zero and a nonzero guess, also with a zero on
     the diagonal (both use 1 there) and with values that are not
     symmetric; on one process a diag operator with symmetric values takes
     the fused symmetric steps (GPU or host), others do not; on the GPU a
     constant-coefficient diag operator (its compressed form) takes the
     fused compressed steps, on the host one that is not symmetric the
     full steps (the product inside, by chunks of rows), whose iterate is
     the separate product and update's bit for bit;
   - with the estimate (the default) the same, so the interval is the one
     KSPCHEBYSHEV estimates (PCMG's transform 0, 0.1, 0, 1.1);
   - as PCMG's smoother: the same iterations and residual as KSPCHEBYSHEV
     + PCJACOBI smoothers (Galerkin MG, 3 levels); as PCGAMG's, diag's iterations and
     residual are aij's;
   - PCApply: a symmetric operator (u . P v = v . P u) that CG converges with;
   - with CUDA vectors a smoothing copies nothing between host and device;
   - on the GPU, a matrix whose MatCreateVecs makes host vectors smoothing
     CUDA vectors: the same iterate, and (diag, one process) the fused
     symmetric steps set up on the device once the vectors moved;
   - bad options are refused with a PETSc error.
   Without a CUDA device the default run is SKIPPED, exit 77. Ends with
   "N passed, M failed". */
#include "gpu_or_host.hpp"
#include "plugin_testing.hpp"
#include "../../solvers/dm_inactive.hpp"

#include <petscdmda.h>
#include <petscksp.h>

#include <string>

using namespace plugin_testing;

namespace {

bool g_device = true; /* false with -host_check */

/* host_vectors: the DM (so the matrix's MatCreateVecs) makes host vectors
   even on the GPU */
PetscErrorCode CreateGrid(PetscInt n, const char *mtype, DM *da, bool host_vectors = false)
{
  PetscFunctionBeginUser;
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n - 4, n + 4, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetVecType(*da, g_device && !host_vectors ? VECCUDA : VECSTANDARD));
  PetscCall(DMSetMatType(*da, mtype));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

/* -div(k grad u) by the 7-point flux form, k varying by a factor 10 (SPD,
   symmetric to the last bit); zero_diagonal: row 0's diagonal set to zero;
   skew: the coupling to the -x neighbour scaled by 1.1 (values no longer
   symmetric). Both for the fixed-interval comparisons only. constant: k = 1
   (constant diagonals but at the boundary rows: diag's compressed form on
   the GPU). */
PetscErrorCode Operator(DM da, bool zero_diagonal, Mat *A, bool skew = false, bool constant = false)
{
  PetscInt M, N, P, xs, ys, zs, xm, ym, zm;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  auto k = [constant](PetscInt i, PetscInt j, PetscInt l) { return constant ? 1.0 : 1.0 + 4.5 * (1.0 + Unit(7, i + 1000 * j, l)); };
  for (PetscInt l = zs; l < zs + zm; l++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {l, j, i, 0}, col[7];
        PetscScalar v[7], diag = 0;
        PetscInt    n = 0;
        const PetscInt nb[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        for (const auto &d : nb) {
          const PetscInt ii = i + d[0], jj = j + d[1], ll = l + d[2];
          const double   kf = 2.0 / (1.0 / k(i, j, l) + 1.0 / k(ii, jj, ll));
          diag += kf; /* Dirichlet outside: the face still counts on the diagonal */
          if (ii < 0 || jj < 0 || ll < 0 || ii >= M || jj >= N || ll >= P) continue;
          col[n] = {ll, jj, ii, 0}, v[n++] = (skew && d[0] == -1) ? -1.1 * kf : -kf;
        }
        col[n] = row, v[n++] = (zero_diagonal && i == 0 && j == 0 && l == 0) ? 0.0 : diag;
        PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode FillVector(Vec v, unsigned seed)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = Unit(seed, i, 0);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}

/* A smoother KSP of `steps` iterations, no norms, on A; prefix for its options. */
PetscErrorCode Smoother(Mat A, const char *ktype, const char *ptype, const char *prefix, PetscInt steps, bool nonzero_guess, KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, ktype));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, ptype));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NONE));
  PetscCall(KSPSetConvergenceTest(*ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetTolerances(*ksp, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, steps));
  PetscCall(KSPSetInitialGuessNonzero(*ksp, nonzero_guess ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(0);
}

/* `steps` steps of Richardson + chebyjacobi (options prefix cj_) and of
   KSPCHEBYSHEV + PCJACOBI from x0 on b: the same iterate to 1e-12. The
   interval: given (emin > 0) to KSPCHEBYSHEV here, to chebyjacobi by the
   caller's -cj_pc_chebyjacobi_eigenvalues; else both estimate it. */
PetscErrorCode CompareWithChebyshev(Mat A, Vec b, Vec x0, Vec x_cj, Vec x_ch, PetscInt steps, bool nonzero, PetscReal emin, PetscReal emax, const std::string &cs)
{
  KSP       cj, ch;
  PetscReal rel;

  PetscFunctionBeginUser;
  PetscCall(Smoother(A, KSPRICHARDSON, PCCHEBYJACOBI, "cj_", steps, nonzero, &cj));
  PetscCall(Smoother(A, KSPCHEBYSHEV, PCJACOBI, "ch_", steps, nonzero, &ch));
  if (emin > 0) PetscCall(KSPChebyshevSetEigenvalues(ch, emax, emin));
  else PetscCall(KSPChebyshevEstEigSet(ch, 0.0, 0.1, 0.0, 1.1));
  PetscCall(VecCopy(x0, x_cj));
  PetscCall(VecCopy(x0, x_ch));
  PetscCall(KSPSolve(cj, b, x_cj));
  PetscCall(KSPSolve(ch, b, x_ch));
  PetscCall(VecRelDiff(x_cj, x_ch, &rel));
  PetscCall(Record(rel < 1e-12, cs, Fmt("%" PetscInt_FMT " steps from a %s guess: KSPCHEBYSHEV + PCJACOBI's iterate", steps, nonzero ? "nonzero" : "zero"), Fmt("relative difference %.3e", (double)rel)));
  PetscCall(KSPDestroy(&cj));
  PetscCall(KSPDestroy(&ch));
  PetscFunctionReturn(0);
}

/* chebyjacobi under Richardson against KSPCHEBYSHEV + PCJACOBI: the given
   interval (emin > 0) or both estimating (emin == 0). On one process a
   diag operator with symmetric values takes the fused symmetric steps
   (event PCChebyJacSym), others (aijcusparse, skew values, the option
   off) the product and the update. */
PetscErrorCode StepsCase(const char *mtype, bool zero_diagonal, PetscReal emin, PetscReal emax, bool skew = false, bool symmetric_off = false, bool constant = false)
{
  DM                da;
  Mat               A;
  Vec               b, x0, x_cj, x_ch;
  int               fused0, fused1, cmp0, cmp1, full0, full1;
  const std::string cs = Fmt("%s%s%s%s%s, %s", mtype, zero_diagonal ? ", zero on the diagonal" : "", skew ? ", values not symmetric" : "", symmetric_off ? ", -pc_chebyjacobi_symmetric 0" : "", constant ? ", constant coefficients" : "", emin > 0 ? "given interval" : "estimated interval");

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(9, mtype, &da));
  PetscCall(Operator(da, zero_diagonal, &A, skew, constant));
  PetscCall(EventCount("PCChebyJacSym", &fused0));
  PetscCall(EventCount("PCChebyJacCmp", &cmp0));
  PetscCall(EventCount("PCChebyJacFull", &full0));
  if (symmetric_off) PetscCall(PetscOptionsSetValue(NULL, "-cj_pc_chebyjacobi_symmetric", "0"));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecDuplicate(b, &x_cj));
  PetscCall(VecDuplicate(b, &x_ch));
  PetscCall(FillVector(b, 1));
  PetscCall(FillVector(x0, 2));
  if (emin > 0) PetscCall(PetscOptionsSetValue(NULL, "-cj_pc_chebyjacobi_eigenvalues", Fmt("%.17g,%.17g", (double)emin, (double)emax).c_str()));
  for (PetscInt steps = 1; steps <= 5; steps++)
    for (int nonzero = 0; nonzero < 2; nonzero++) PetscCall(CompareWithChebyshev(A, b, x0, x_cj, x_ch, steps, nonzero, emin, emax, cs));
  if (emin > 0) PetscCall(PetscOptionsClearValue(NULL, "-cj_pc_chebyjacobi_eigenvalues"));
  if (symmetric_off) PetscCall(PetscOptionsClearValue(NULL, "-cj_pc_chebyjacobi_symmetric"));
  PetscCall(EventCount("PCChebyJacSym", &fused1));
  PetscCall(EventCount("PCChebyJacCmp", &cmp1));
  PetscCall(EventCount("PCChebyJacFull", &full1));
  /* on the GPU diag keeps a constant-coefficient operator in its compressed form: the compressed steps, not the symmetric ones */
  const bool expect_cmp   = g_device && g_size == 1 && IsDiag(A) && constant;
  const bool expect_fused = g_size == 1 && IsDiag(A) && !skew && !symmetric_off && !expect_cmp;
  PetscCall(Record(expect_fused ? fused1 > fused0 : fused1 == fused0, cs, expect_fused ? "the fused symmetric steps ran" : "no fused symmetric step", Fmt("%d of them", fused1 - fused0)));
  PetscCall(Record(expect_cmp ? cmp1 > cmp0 : cmp1 == cmp0, cs, expect_cmp ? "the fused compressed steps ran" : "no fused compressed step", Fmt("%d of them", cmp1 - cmp0)));
  /* on the host a diag operator the symmetric steps do not take takes the full ones */
  const bool expect_full = !g_device && g_size == 1 && IsDiag(A) && !expect_fused;
  PetscCall(Record(expect_full ? full1 > full0 : full1 == full0, cs, expect_full ? "the fused full steps ran" : "no fused full step", Fmt("%d of them", full1 - full0)));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x_cj));
  PetscCall(VecDestroy(&x_ch));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* On the host: a diag operator whose values are not symmetric takes the
   full steps (the product inside, a chunk of 2048 rows at a time; 4641
   rows here), and their iterate is the one of the separate product and
   update (-pc_chebyjacobi_full 0) bit for bit: the same sums in the same
   order. */
PetscErrorCode FullStepsCase()
{
  DM                da;
  Mat               A;
  Vec               b, x0, x_on, x_off;
  KSP               on, off;
  PetscBool         equal;
  int               full0, full1;
  const std::string cs = "diag, values not symmetric, host";

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(17, MATDIAG, &da));
  PetscCall(Operator(da, false, &A, true));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecDuplicate(b, &x_on));
  PetscCall(VecDuplicate(b, &x_off));
  PetscCall(FillVector(b, 1));
  PetscCall(FillVector(x0, 2));
  PetscCall(PetscOptionsSetValue(NULL, "-on_pc_chebyjacobi_eigenvalues", "0.25,2.2"));
  PetscCall(PetscOptionsSetValue(NULL, "-off_pc_chebyjacobi_eigenvalues", "0.25,2.2"));
  PetscCall(PetscOptionsSetValue(NULL, "-off_pc_chebyjacobi_full", "0"));
  PetscCall(Smoother(A, KSPRICHARDSON, PCCHEBYJACOBI, "on_", 5, true, &on));
  PetscCall(Smoother(A, KSPRICHARDSON, PCCHEBYJACOBI, "off_", 5, true, &off));
  PetscCall(PetscOptionsClearValue(NULL, "-on_pc_chebyjacobi_eigenvalues"));
  PetscCall(PetscOptionsClearValue(NULL, "-off_pc_chebyjacobi_eigenvalues"));
  PetscCall(PetscOptionsClearValue(NULL, "-off_pc_chebyjacobi_full"));
  PetscCall(VecCopy(x0, x_on));
  PetscCall(VecCopy(x0, x_off));
  PetscCall(EventCount("PCChebyJacFull", &full0));
  PetscCall(KSPSolve(on, b, x_on));
  PetscCall(EventCount("PCChebyJacFull", &full1));
  PetscCall(KSPSolve(off, b, x_off));
  PetscCall(VecEqual(x_on, x_off, &equal));
  PetscCall(Record(g_size > 1 ? full1 == full0 : full1 - full0 == 5, cs, g_size > 1 ? "no full step on more processes" : "5 steps from a nonzero guess, all full", Fmt("%d of them", full1 - full0)));
  PetscCall(Record(equal == PETSC_TRUE, cs, "the iterate is -pc_chebyjacobi_full 0's, bit for bit", equal ? "equal" : "differs"));
  PetscCall(KSPDestroy(&on));
  PetscCall(KSPDestroy(&off));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x_on));
  PetscCall(VecDestroy(&x_off));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* On the GPU: a matrix whose MatCreateVecs makes host vectors (its DM's
   vector type) smoothing CUDA vectors. The PC's work vectors and D^-1 move
   to the device at the first step, and with them the fused symmetric steps
   (diag on one process) are set up on the device: the same iterate as
   KSPCHEBYSHEV + PCJACOBI on the same CUDA vectors, and the fused steps ran. */
PetscErrorCode ConvertedVectorsCase(const char *mtype)
{
  DM                da;
  Mat               A;
  Vec               b, x0, x_cj, x_ch;
  PetscInt          n;
  int               fused0, fused1;
  const std::string cs = Fmt("%s, host vectors from MatCreateVecs, CUDA vectors solved", mtype);

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(9, mtype, &da, true));
  PetscCall(Operator(da, false, &A));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &b));
  PetscCall(VecSetSizes(b, n, PETSC_DECIDE));
  PetscCall(VecSetType(b, VECCUDA));
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecDuplicate(b, &x_cj));
  PetscCall(VecDuplicate(b, &x_ch));
  PetscCall(FillVector(b, 1));
  PetscCall(FillVector(x0, 2));
  PetscCall(EventCount("PCChebyJacSym", &fused0));
  PetscCall(PetscOptionsSetValue(NULL, "-cj_pc_chebyjacobi_eigenvalues", "0.25,2.2"));
  for (int nonzero = 0; nonzero < 2; nonzero++) PetscCall(CompareWithChebyshev(A, b, x0, x_cj, x_ch, 4, nonzero, 0.25, 2.2, cs));
  PetscCall(PetscOptionsClearValue(NULL, "-cj_pc_chebyjacobi_eigenvalues"));
  PetscCall(EventCount("PCChebyJacSym", &fused1));
  const bool expect_fused = g_size == 1 && IsDiag(A);
  PetscCall(Record(expect_fused ? fused1 > fused0 : fused1 == fused0, cs, expect_fused ? "the fused symmetric steps ran (set up on the device after the vectors moved)" : "no fused symmetric step", Fmt("%d of them", fused1 - fused0)));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x_cj));
  PetscCall(VecDestroy(&x_ch));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* CG preconditioned by Galerkin MG (3 levels) with PCMG's Chebyshev + Jacobi smoother and
   with chebyjacobi under Richardson: the same iterations and residuals. */
PetscErrorCode MGCase(const char *mtype)
{
  DM                 da;
  Mat                A;
  Vec                b, x;
  PetscInt           its[2];
  PetscReal          rnorm[2];
  KSPConvergedReason reason[2];
  const std::string  cs = Fmt("%s, Galerkin MG", mtype);

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(17, mtype, &da));
  PetscCall(Operator(da, false, &A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(FillVector(b, 3));
  for (int variant = 0; variant < 2; variant++) {
    KSP ksp;
    PC  pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(KSPSetDMInactive(ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 100));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCMG));
    PetscCall(PCMGSetLevels(pc, 3, NULL));
    PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
    PetscCall(KSPSetOptionsPrefix(ksp, variant ? "mgcj_" : "mgch_"));
    if (variant) {
      PetscCall(PetscOptionsSetValue(NULL, "-mgcj_mg_levels_ksp_type", "richardson"));
      PetscCall(PetscOptionsSetValue(NULL, "-mgcj_mg_levels_pc_type", "chebyjacobi"));
    } else PetscCall(PetscOptionsSetValue(NULL, "-mgch_mg_levels_pc_type", "jacobi"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecSet(x, 0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its[variant]));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm[variant]));
    PetscCall(KSPGetConvergedReason(ksp, &reason[variant]));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mgcj_mg_levels_ksp_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-mgcj_mg_levels_pc_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-mgch_mg_levels_pc_type"));
  const PetscReal rel = PetscAbsReal(rnorm[1] - rnorm[0]) / rnorm[0];
  PetscCall(Record(reason[1] > 0 && reason[0] > 0, cs, "both converge", Fmt("reasons %d, %d", (int)reason[0], (int)reason[1])));
  PetscCall(Record(its[1] == its[0] && rel < 1e-8, cs, "chebyjacobi smoothers: Chebyshev + Jacobi's iterations and residual",
                   Fmt("iterations %" PetscInt_FMT " / %" PetscInt_FMT ", residuals %.10e / %.10e", its[1], its[0], (double)rnorm[1], (double)rnorm[0])));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* PCGAMG (set up on a diag operator's aij copy, then smoothing with the diag
   operator: interpose/aij_only.cpp) with chebyjacobi smoothers: diag takes aij's
   iterations and residual. */
PetscErrorCode GamgCase(void)
{
  PetscInt          its[2];
  PetscReal         rnorm[2];
  const char *const types[2] = {MATDIAG, MATAIJ};

  PetscFunctionBeginUser;
  for (int t = 0; t < 2; t++) {
    DM  da;
    Mat A;
    Vec b, x;
    KSP ksp;
    PC  pc;
    PetscCall(CreateGrid(13, g_device && t ? MATAIJCUSPARSE : types[t], &da));
    PetscCall(Operator(da, false, &A));
    PetscCall(DMCreateGlobalVector(da, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(FillVector(b, 8));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 100));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetOptionsPrefix(ksp, "gcj_"));
    PetscCall(PetscOptionsSetValue(NULL, "-gcj_mg_levels_ksp_type", "richardson"));
    PetscCall(PetscOptionsSetValue(NULL, "-gcj_mg_levels_pc_type", "chebyjacobi"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its[t]));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm[t]));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-gcj_mg_levels_ksp_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-gcj_mg_levels_pc_type"));
  const PetscReal rel = PetscAbsReal(rnorm[0] - rnorm[1]) / rnorm[1];
  PetscCall(Record(its[0] == its[1] && rel < 1e-6, "GAMG", "chebyjacobi smoothers: diag takes aij's iterations and residual",
                   Fmt("iterations %" PetscInt_FMT " / %" PetscInt_FMT ", residuals %.10e / %.10e", its[0], its[1], (double)rnorm[0], (double)rnorm[1])));
  PetscFunctionReturn(0);
}

/* PCApply: symmetric, CG converges with it; a smoothing copies nothing
   between host and device (CUDA vectors). */
PetscErrorCode ApplyCase(const char *mtype)
{
  DM                 da;
  Mat                A;
  Vec                u, v, pu, pv, b, x;
  KSP                ksp;
  PC                 pc;
  PetscScalar        upv, vpu;
  KSPConvergedReason reason;
  PetscInt           its;
  const std::string  cs = Fmt("%s, PCApply", mtype);

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(11, mtype, &da));
  PetscCall(Operator(da, false, &A));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecDuplicate(u, &v));
  PetscCall(VecDuplicate(u, &pu));
  PetscCall(VecDuplicate(u, &pv));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecDuplicate(u, &x));
  PetscCall(FillVector(u, 4));
  PetscCall(FillVector(v, 5));
  PetscCall(FillVector(b, 6));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCCHEBYJACOBI));
  PetscCall(KSPSetOptionsPrefix(ksp, "app_"));
  PetscCall(PetscOptionsSetValue(NULL, "-app_pc_chebyjacobi_degree", "3"));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCApply(pc, u, pu));
  PetscCall(PCApply(pc, v, pv));
  PetscCall(VecDot(u, pv, &upv));
  PetscCall(VecDot(v, pu, &vpu));
  PetscCall(Record(PetscAbsScalar(upv - vpu) <= 1e-12 * PetscAbsScalar(upv), cs, "u . P v = v . P u", Fmt("%.17g, %.17g", (double)PetscRealPart(upv), (double)PetscRealPart(vpu))));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(Record(reason > 0, cs, "CG converges", Fmt("reason %d after %" PetscInt_FMT " iterations", (int)reason, its)));
  if (g_device) { /* one more application: no copy either way */
    int to0, from0, to1, from1;
    PetscCall(EventCount("VecCUDACopyTo", &to0));
    PetscCall(EventCount("VecCUDACopyFrom", &from0));
    PetscCall(PCApply(pc, u, pu));
    PetscCall(EventCount("VecCUDACopyTo", &to1));
    PetscCall(EventCount("VecCUDACopyFrom", &from1));
    PetscCall(Record(to1 == to0 && from1 == from0, cs, "CUDA vectors: no host/device copy in PCApply", Fmt("copies to %d, from %d", to1 - to0, from1 - from0)));
    /* the result in a host vector (PCREDISTRIBUTE mixes host and CUDA vectors: ksp ex84) */
    Vec                ph;
    PetscInt           n, N;
    const PetscScalar *a, *h;
    PetscReal          diff = 0, size = 0;
    PetscCall(VecGetLocalSize(u, &n));
    PetscCall(VecGetSize(u, &N));
    PetscCall(VecCreate(PETSC_COMM_WORLD, &ph));
    PetscCall(VecSetSizes(ph, n, N));
    PetscCall(VecSetType(ph, VECSTANDARD));
    PetscCall(PCApply(pc, u, ph));
    PetscCall(VecGetArrayRead(pu, &a));
    PetscCall(VecGetArrayRead(ph, &h));
    for (PetscInt i = 0; i < n; i++) {
      diff = PetscMax(diff, PetscAbsScalar(a[i] - h[i]));
      size = PetscMax(size, PetscAbsScalar(a[i]));
    }
    PetscCall(VecRestoreArrayRead(pu, &a));
    PetscCall(VecRestoreArrayRead(ph, &h));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &diff, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &size, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(Record(size > 0 && diff <= 1e-12 * size, cs, "PCApply of a CUDA vector into a host vector gives the CUDA result", Fmt("max difference %g of %g", (double)diff, (double)size)));
    PetscCall(VecDestroy(&ph));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-app_pc_chebyjacobi_degree"));
  PetscCall(KSPDestroy(&ksp));
  for (Vec *w : {&u, &v, &pu, &pv, &b, &x}) PetscCall(VecDestroy(w));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* An option value refused with a PETSc error naming it. */
PetscErrorCode RefusedCase(const char *option, const char *value)
{
  PC             pc;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, PCCHEBYJACOBI));
  PetscCall(PetscOptionsSetValue(NULL, option, value));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCSetFromOptions(pc);
  PetscCall(PetscPopErrorHandler());
  const std::string msg = LastMessage();
  PetscCall(PetscOptionsClearValue(NULL, option));
  PetscCall(Record(ierr != 0 && msg.find(option) != std::string::npos, "bad options", Fmt("%s %s refused", option, value), msg));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int code = 0;
  if (!GpuOrHostMode(argc, argv, "test_chebyjacobi", &g_device)) return 77;
  PetscCall(Start(&argc, &argv, NULL));
  PetscCall(PetscLogDefaultBegin()); /* the copy counts need the log (PETSc 3.18 keeps none without it) */
  for (const char *mtype : {MATDIAG, g_device ? MATAIJCUSPARSE : MATAIJ}) {
    const std::string t = mtype;
    Run(t, "steps, given interval", [&]() { return StepsCase(mtype, false, 0.25, 2.2); });
    Run(t, "steps, zero on the diagonal", [&]() { return StepsCase(mtype, true, 0.25, 2.2); });
    Run(t, "steps, estimated interval", [&]() { return StepsCase(mtype, false, 0, 0); });
    Run(t, "steps, values not symmetric", [&]() { return StepsCase(mtype, false, 0.25, 2.2, true); });
    Run(t, "steps, symmetric steps off", [&]() { return StepsCase(mtype, false, 0.25, 2.2, false, true); });
    Run(t, "steps, constant coefficients", [&]() { return StepsCase(mtype, false, 0.25, 2.2, false, false, true); });
    Run(t, "steps, constant coefficients, estimated interval", [&]() { return StepsCase(mtype, false, 0, 0, false, false, true); });
    Run(t, "Galerkin MG", [&]() { return MGCase(mtype); });
    Run(t, "PCApply", [&]() { return ApplyCase(mtype); });
    if (g_device) Run(t, "converted vectors", [&]() { return ConvertedVectorsCase(mtype); });
  }
  Run("GAMG", "chebyjacobi smoothers", []() { return GamgCase(); });
  if (!g_device) Run("diag", "full steps on the host", []() { return FullStepsCase(); });
  Run("bad options", "eigenvalues", []() { return RefusedCase("-pc_chebyjacobi_eigenvalues", "2,1"); });
  Run("bad options", "degree", []() { return RefusedCase("-pc_chebyjacobi_degree", "0"); });
  Run("bad options", "esteig", []() { return RefusedCase("-pc_chebyjacobi_esteig", "0,0.1,1.1"); });
  Run("bad options", "symmetric rtol", []() { return RefusedCase("-pc_chebyjacobi_symmetric_rtol", "-1"); });
  PetscCall(Summary(&code));
  PetscCall(PetscFinalize());
  return code;
}
