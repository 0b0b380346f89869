/* KSP solves with MATDIAG on the GPU: a CG solve with CUDA vectors makes
   no host-device copies per iteration (the copy counts of KSPSolve are the
   same for 10 and 40 iterations, with Jacobi, SOR, bjacobi and ASM, and on
   one process ILU, ICC, LU and Cholesky), no more than aijcusparse's, and
   converges in the host solve's iterations (+-1); PCMG with Galerkin
   coarse operators uploads no more than aijcusparse's, has its operators
   and iterations, and solves its coarse LU on the device. Every check
   needs the GPU: -host_check runs none. Without a CUDA device: prints
   SKIPPED and returns 77. Ends with the line "N passed, M failed". */
#include <petscdiag.h>
#include <petscdmda.h>
#include <petscksp.h>

#include "petsc_compat.hpp"
#include "gpu_testing.hpp"
#include "../../solvers/dm_inactive.hpp"

#include <string>
#include <vector>

using namespace gpu_testing;

namespace {

/* KSPSolve(ksp, b, x) in a log stage of its own (name made unique), and
   the KSPSolve event's numbers in that stage (time, host<->device copies). */
PetscErrorCode SolveInOwnStage(KSP ksp, Vec b, Vec x, const std::string &name, PetscEventPerfInfo *info)
{
  static int    nstage = 0; /* stage names must be unique */
  PetscLogStage stage;
  PetscLogEvent ev;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister((name + "_" + std::to_string(nstage++)).c_str(), &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogEventGetId("KSPSolve", &ev));
  PetscCall(PetscLogEventGetPerfInfo(stage, ev, info));
  PetscFunctionReturn(0);
}

/* A CG solve with pctype on da's stencil matrix (da's matrix and vector
   types): its KSP after a first solve; *copies: the host<->device copies
   of a second solve, run for exactly `its` iterations if its > 0, else to
   rtol 1e-8 (*copies then -1). */
PetscErrorCode StencilSolve(DM da, PCType pctype, PetscInt its, PetscLogDouble *copies, PetscInt *iterations)
{
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  Trace("stencil solve " + std::string(pctype));
  PetscCall(StencilMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  {
    /* Jacobi's MatGetDiagonal into a CUDA vector (diag: from the compressed
       device copy) equals the host's */
    Vec d0, dh;
    PetscCall(MatCreateVecs(A, NULL, &d0));
    PetscCall(Retyped(d0, VECSTANDARD, &dh));
    PetscCall(VecDestroy(&d0));
    PetscCall(MatGetDiagonal(A, x));
    PetscCall(MatGetDiagonal(A, dh));
    MatType type;
    PetscCall(MatGetType(A, &type));
    Check(RelDiff(x, dh) == 0, std::string("MatGetDiagonal of the stencil matrix (") + type + ") on the device");
    PetscCall(VecDestroy(&dh));
  }
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  if (its > 0) {
    PetscCall(KSPSetTolerances(ksp, 1e-30, 1e-30, PETSC_DEFAULT, its));
    PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  } else PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPSolve(ksp, b, x)); /* first solve: uploads */
  PetscCall(SolveInOwnStage(ksp, b, x, "solve" + std::to_string(its), &info));
  *copies = its > 0 ? info.CpuToGpuCount + info.GpuToCpuCount : -1;
  {
    KSPConvergedReason reason;
    PetscCall(KSPGetIterationNumber(ksp, iterations));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    if (its <= 0) Check(reason > 0, std::string("CG with ") + pctype + " converges on the stencil matrix");
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* PCMG with Galerkin coarse operators on da (3 levels, Jacobi smoothers),
   da's matrix and vector types: the bytes copied to the device by the
   first KSPSolve after KSPSetUp (*bytes), its copies to the host
   (*to_host), the iterations to rtol 1e-8, the type of the coarse
   LU's factor matrix (*coarse_factor_type, 32 characters) and the
   Frobenius norms of the two Galerkin operators (level_norms[2], coarsest
   first). */
PetscErrorCode GalerkinMGFirstSolve(DM da, PetscLogDouble *bytes, PetscLogDouble *to_host, PetscInt *iterations, char coarse_factor_type[], PetscReal level_norms[])
{
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  Trace("Galerkin MG first solve");
  PetscCall(StencilMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetDMInactive(ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, 3, NULL));
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
  for (PetscInt l = 1; l < 3; l++) {
    KSP smoother;
    PC  spc;
    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetPC(smoother, &spc));
    PetscCall(PCSetType(spc, PCJACOBI));
  }
  PetscCall(KSPSetUp(ksp));
  PetscCall(SolveInOwnStage(ksp, b, x, "mgfirst", &info));
  *bytes   = info.CpuToGpuSize;
  *to_host = info.GpuToCpuCount;
  PetscCall(KSPGetIterationNumber(ksp, iterations));
  {
    KSP           coarse;
    PC            cpc;
    Mat           F;
    MatType       type;
    PetscCall(PCMGGetCoarseSolve(pc, &coarse));
    PetscCall(KSPGetPC(coarse, &cpc));
    PetscCall(PCFactorGetMatrix(cpc, &F));
    PetscCall(MatGetType(F, &type));
    PetscCall(PetscStrncpy(coarse_factor_type, type, 32));
  }
  for (PetscInt l = 0; l < 2; l++) {
    KSP level;
    Mat Al;
    PetscCall(PCMGGetSmoother(pc, l, &level));
    PetscCall(KSPGetOperators(level, &Al, NULL));
    PetscCall(MatNorm(Al, NORM_FROBENIUS, &level_norms[l]));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  bool device;
  if (!plugin_testing::GpuOrHostMode(argc, argv, "test_gpu_solvers", &device)) return 77;
  const bool host_check = !device;
  PetscFunctionBeginUser;
  PetscCall(Start(&argc, &argv, "test_gpu_solvers", device));
  if (!host_check) {
    DM             da;
    PetscLogDouble c10, c40;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 24, 24, 24, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetVecType(da, VECCUDA));
    PetscCall(DMSetUp(da));
    /* copies per iteration: none on one process; under MPI the ghost
       exchange stages through the host (this MPI is not CUDA-aware), and
       diag may copy no more than aijcusparse does */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    /* SOR: level-scheduled sweeps on the device (aijcusparse's run on the
       host); ILU / ICC (one process) and bjacobi / ASM with their default
       ILU(0) blocks: level-scheduled triangular solves on the device */
    std::vector<PCType> pcs = {PCJACOBI, PCSOR, PCBJACOBI, PCASM};
    if (size == 1) pcs.insert(pcs.end(), {PCILU, PCICC, PCLU, PCCHOLESKY}); /* 24^3 rows: LU and Cholesky by cuSPARSE's factor */
    for (PCType pctype : pcs) {
      PetscLogDouble grow[2];
      PetscInt       its;
      for (int t = 0; t < 2; t++) {
        PetscCall(DMSetMatType(da, t == 0 ? MATDIAG : MATAIJCUSPARSE));
        PetscCall(StencilSolve(da, pctype, 10, &c10, &its));
        PetscCall(StencilSolve(da, pctype, 40, &c40, &its));
        grow[t] = c40 - c10;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s: KSPSolve host<->device copies: %g for 10 iterations, %g for 40\n", t == 0 ? "diag" : "aijcusparse", pctype, c10, c40));
      }
      /* none on one process, unless aijcusparse's own solve copies too
         (PETSc 3.18 built with CUDA 13 solves cuSPARSE's Cholesky factors
         on the host: cuSPARSE 12 dropped the csrsv2 it used) */
      if (size == 1 && grow[1] == 0) Check(grow[0] == 0, std::string("no host-device copies per CG iteration with ") + pctype);
      Check(grow[0] <= grow[1], std::string("no more host-device copies per CG iteration than aijcusparse with ") + pctype);
      { /* the device solve converges as the host one: the same iterations (+-1) */
        DM       dh;
        PetscInt its_host, its_dev;
        PetscLogDouble none;
        PetscCall(DMSetMatType(da, MATDIAG));
        PetscCall(StencilSolve(da, pctype, 0, &none, &its_dev));
        PetscCall(DMClone(da, &dh));
        PetscCall(DMSetVecType(dh, VECSTANDARD));
        PetscCall(DMSetMatType(dh, MATDIAG));
        PetscCall(StencilSolve(dh, pctype, 0, &none, &its_host));
        PetscCall(DMDestroy(&dh));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diag, %s: CG iterations to rtol 1e-8: %" PetscInt_FMT " with CUDA vectors, %" PetscInt_FMT " with host vectors\n", pctype, its_dev, its_host));
        Check(PetscAbs(its_dev - its_host) <= 1, std::string("CG with ") + pctype + ": the iterations with CUDA vectors are the host's (+-1)");
      }
    }
    if (size == 1) {
      /* PCMG's grid transfers (host aij from the DMDA for diag) are converted
         to aijcusparse and placed on the device in the set-up: the first
         solve uploads no more than aijcusparse's, whose Galerkin products
         placed its transfers there (left on the host, or uploaded at their
         first use, they add their own bytes or the vectors' at every
         application). One process: PETSc 3.18's aijcusparse has no
         parallel Galerkin MG. */
      PetscLogDouble bytes[2], to_host[2];
      PetscInt       its[2], n = 25; /* coarsens to 13^3 and 7^3 */
      char           coarse_factor_type[2][32];
      PetscReal      level_norms[2][2];
      DM             dmg;
      PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &dmg));
      PetscCall(DMSetVecType(dmg, VECCUDA));
      PetscCall(DMSetUp(dmg));
      for (int t = 0; t < 2; t++) {
        PetscCall(DMSetMatType(dmg, t == 0 ? MATDIAG : MATAIJCUSPARSE));
        PetscCall(GalerkinMGFirstSolve(dmg, &bytes[t], &to_host[t], &its[t], coarse_factor_type[t], level_norms[t]));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, Galerkin MG: first KSPSolve copies %g bytes to the device and %g times to the host, %" PetscInt_FMT " iterations, coarse LU factor %s\n", t == 0 ? "diag" : "aijcusparse", bytes[t], to_host[t], its[t], coarse_factor_type[t]));
      }
      Check(bytes[0] <= bytes[1] + (PetscLogDouble)(n * n * n * sizeof(PetscScalar)), "Galerkin MG: the first KSPSolve uploads no more than aijcusparse's (plus one fine vector)");
      Check(PetscAbs(its[0] - its[1]) <= 1, "Galerkin MG: diag's iterations are aijcusparse's (+-1)");
      /* the Galerkin operators (computed as aij's on the host, stored as diag) are aijcusparse's */
      for (int l = 0; l < 2; l++) Check(PetscAbs(level_norms[0][l] - level_norms[1][l]) <= 1e-12 * level_norms[1][l], "Galerkin MG: diag's level " + std::to_string(l) + " operator has aijcusparse's Frobenius norm");
      /* the coarse LU (7^3 rows) is solved on the device, as aijcusparse's:
         the V-cycles copy nothing to the host (PETSc's host LU would copy
         the coarse vectors every cycle); densely by cuSOLVER, or with
         -mat_diag_dense_factor_max 0 by cuSPARSE as aijcusparse's */
      Check(std::string(coarse_factor_type[0]) == MATSEQDENSECUDA, std::string("Galerkin MG: diag's coarse LU is cuSOLVER's dense factor (") + coarse_factor_type[0] + ")");
      Check(to_host[0] <= to_host[1], "Galerkin MG: the first KSPSolve copies to the host no more often than aijcusparse's");
      PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_dense_factor_max", "0"));
      PetscCall(DMSetMatType(dmg, MATDIAG));
      PetscCall(GalerkinMGFirstSolve(dmg, &bytes[0], &to_host[0], &its[0], coarse_factor_type[0], level_norms[0]));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_dense_factor_max"));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diag, Galerkin MG, -mat_diag_dense_factor_max 0: %g copies to the host, %" PetscInt_FMT " iterations, coarse LU factor %s\n", to_host[0], its[0], coarse_factor_type[0]));
      Check(std::string(coarse_factor_type[0]) == coarse_factor_type[1], std::string("Galerkin MG, -mat_diag_dense_factor_max 0: diag's coarse LU factor is aijcusparse's (") + coarse_factor_type[1] + ")");
      Check(to_host[0] <= to_host[1] && PetscAbs(its[0] - its[1]) <= 1, "Galerkin MG, -mat_diag_dense_factor_max 0: no more copies to the host than aijcusparse, its iterations (+-1)");
      PetscCall(DMDestroy(&dmg));
    }
    PetscCall(DMDestroy(&da));
  }
  return Finish();
}
