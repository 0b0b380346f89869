/* Finite-difference Jacobians by coloring (companion/companion_ops.cpp) of a diag
   matrix on a DMDA against aij's on the host, on the GPU with CUDA vectors
   by default and with host vectors under -host_check, on any number of
   processes. The function, a two-species reaction-diffusion on a 2D grid,
   ends with a vector operation (F -= b, on the device with CUDA vectors),
   as a TS's function does. With PETSc's CUDA work vectors bound to the CPU
   the coloring's Jacobian came out wrong on several processes (off by 1e9
   here on 2 and 3 processes; ts ex26, snes ex14 on the GPU, diag and
   aijcusparse alike). Cases:
   - the coloring SNES makes from the DM (SNESComputeJacobianDefaultColor,
     no context), wp differencing;
   - a coloring made by the program (MatFDColoringCreate on the DM's global
     coloring) with ds differencing (MatFDColoringSetType), as snes ex14's
     -fdcoloring -fdcoloring_ds;
   each: the diag Jacobian (CUDA vectors on the GPU) equals aij's on host
   vectors to 1e-7 (relative, Frobenius; the wrong ones were off by 1e7)
   at a first state and at a second (the coloring reused).
   Without a CUDA device the default run is SKIPPED, exit 77. Ends with
   "N passed, M failed". */
#include "gpu_or_host.hpp"
#include "plugin_testing.hpp"

#include <petscdmda.h>
#include <petscsnes.h>

#include <string>

using namespace plugin_testing;

namespace {

bool g_device = true; /* false with -host_check */

struct Problem {
  DM  da;
  Vec b; /* a right-hand side: F(u) = G(u) - b */
};

/* G(u) for species (u, v): -lap u + u v^2 - 1.5 exp(-u), -lap v + u^2 v
   (5-point, zero outside the grid) */
PetscErrorCode FormFunction(SNES, Vec X, Vec F, void *ctx)
{
  Problem      *p = (Problem *)ctx;
  Vec           xl;
  PetscScalar ***x, ***f;
  PetscInt      xs, ys, xm, ym, M, N;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(p->da, NULL, &M, &N, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(p->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMGetLocalVector(p->da, &xl));
  PetscCall(DMGlobalToLocalBegin(p->da, X, INSERT_VALUES, xl));
  PetscCall(DMGlobalToLocalEnd(p->da, X, INSERT_VALUES, xl));
  PetscCall(DMDAVecGetArrayDOFRead(p->da, xl, &x));
  PetscCall(DMDAVecGetArrayDOF(p->da, F, &f));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      for (PetscInt c = 0; c < 2; c++) {
        auto at = [&](PetscInt ii, PetscInt jj) { return (ii < 0 || jj < 0 || ii >= M || jj >= N) ? 0.0 : x[jj][ii][c]; };
        const PetscScalar u = x[j][i][0], v = x[j][i][1];
        const PetscScalar lap = 4 * x[j][i][c] - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
        f[j][i][c] = lap + (c == 0 ? u * v * v - 1.5 * PetscExpScalar(-u) : u * u * v);
      }
  PetscCall(DMDAVecRestoreArrayDOFRead(p->da, xl, &x));
  PetscCall(DMDAVecRestoreArrayDOF(p->da, F, &f));
  PetscCall(DMRestoreLocalVector(p->da, &xl));
  PetscCall(VecAXPY(F, -1.0, p->b)); /* on the device for CUDA vectors */
  PetscFunctionReturn(0);
}

/* FormFunction as the coloring calls it (its first argument: the SNES) */
PetscErrorCode FormFunctionFD(void *snes, Vec X, Vec F, void *ctx)
{
  return FormFunction((SNES)snes, X, F, ctx);
}

/* x = a state determined by seed, the same on every type and layout */
PetscErrorCode SetState(DM da, unsigned seed, Vec x)
{
  PetscInt      xs, ys, xm, ym;
  PetscScalar ***xa;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOF(da, x, &xa));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      for (PetscInt c = 0; c < 2; c++) xa[j][i][c] = 0.5 + 0.4 * Unit(seed + (unsigned)c, i, j);
  PetscCall(DMDAVecRestoreArrayDOF(da, x, &xa));
  PetscFunctionReturn(0);
}

/* The grid, b and the starting state, identical for every type */
PetscErrorCode Setup(const char *mtype, const char *vtype, Problem *p, Vec *x)
{
  PetscInt xs, ys, xm, ym;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 13, 11, PETSC_DECIDE, PETSC_DECIDE, 2, 1, NULL, NULL, &p->da));
  PetscCall(DMSetMatType(p->da, mtype));
  PetscCall(DMSetVecType(p->da, vtype));
  PetscCall(DMSetUp(p->da));
  PetscCall(DMCreateGlobalVector(p->da, x));
  PetscCall(VecDuplicate(*x, &p->b));
  PetscCall(DMDAGetCorners(p->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscScalar ***ba;
  PetscCall(DMDAVecGetArrayDOF(p->da, p->b, &ba));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++)
      for (PetscInt c = 0; c < 2; c++) ba[j][i][c] = Unit(11 + (unsigned)c, i, j);
  PetscCall(DMDAVecRestoreArrayDOF(p->da, p->b, &ba));
  PetscCall(SetState(p->da, 3, *x));
  PetscFunctionReturn(0);
}

/* The Jacobians of two one-step Newton solves, from two given states (the
   same for every type: a state a solve reached would differ in rounding,
   which finite differences magnify), by coloring: own_coloring false lets SNES make it from the DM,
   true makes it here with ds differencing. J1, J2 are aij copies. */
PetscErrorCode Jacobians(const char *mtype, const char *vtype, bool own_coloring, Mat *J1, Mat *J2)
{
  Problem       p;
  Vec           x;
  Mat           J;
  SNES          snes;
  KSP           ksp;
  MatFDColoring fd = NULL;

  PetscFunctionBeginUser;
  PetscCall(Setup(mtype, vtype, &p, &x));
  PetscCall(DMCreateMatrix(p.da, &J));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetDM(snes, p.da));
  PetscCall(SNESSetFunction(snes, NULL, FormFunction, &p));
  if (own_coloring) {
    ISColoring iscoloring;
    PetscCall(DMCreateColoring(p.da, IS_COLORING_GLOBAL, &iscoloring));
    PetscCall(MatFDColoringCreate(J, iscoloring, &fd));
#if PETSC_VERSION_LT(3, 19, 0)
    PetscCall(MatFDColoringSetFunction(fd, (PetscErrorCode(*)(void))(void (*)(void))FormFunctionFD, &p)); /* 3.18 takes any function */
#else
    PetscCall(MatFDColoringSetFunction(fd, FormFunctionFD, &p));
#endif
    PetscCall(MatFDColoringSetType(fd, MATMFFD_DS));
    PetscCall(MatFDColoringSetUp(J, iscoloring, fd));
    PetscCall(ISColoringDestroy(&iscoloring));
  }
  PetscCall(SNESSetJacobian(snes, J, J, SNESComputeJacobianDefaultColor, fd));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(SNESSetTolerances(snes, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 1, PETSC_DEFAULT));
  PetscCall(SNESSolve(snes, NULL, x));
  PetscCall(MatConvert(J, MATAIJ, MAT_INITIAL_MATRIX, J1));
  PetscCall(SetState(p.da, 5, x));
  PetscCall(SNESSolve(snes, NULL, x)); /* the coloring reused */
  PetscCall(MatConvert(J, MATAIJ, MAT_INITIAL_MATRIX, J2));
  PetscCall(MatFDColoringDestroy(&fd));
  PetscCall(SNESDestroy(&snes));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&p.b));
  PetscCall(DMDestroy(&p.da));
  PetscFunctionReturn(0);
}

PetscErrorCode Compare(const std::string &cs, const char *what, Mat A, Mat Ref)
{
  PetscReal ref, diff;

  PetscFunctionBeginUser;
  PetscCall(MatNorm(Ref, NORM_FROBENIUS, &ref));
  PetscCall(MatAXPY(A, -1.0, Ref, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(A, NORM_FROBENIUS, &diff));
  /* the same differences of the same values; the bound leaves room for
     rounding of F (1e-16), which a difference step of 1e-8 magnifies, far
     below the wrong Jacobians' 1e7 */
  PetscCall(Record(diff <= 1e-7 * ref, cs, what, Fmt("|J - J_aij| %g, |J_aij| %g", (double)diff, (double)ref)));
  PetscFunctionReturn(0);
}

PetscErrorCode ColoringCase(const std::string &cs, bool own_coloring)
{
  Mat D1, D2, R1, R2;

  PetscFunctionBeginUser;
  PetscCall(Jacobians(MATDIAG, g_device ? VECCUDA : VECSTANDARD, own_coloring, &D1, &D2));
  PetscCall(Jacobians(MATAIJ, VECSTANDARD, own_coloring, &R1, &R2));
  PetscCall(Compare(cs, "first Jacobian", D1, R1));
  PetscCall(Compare(cs, "second Jacobian (coloring reused)", D2, R2));
  PetscCall(MatDestroy(&D1));
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDestroy(&R1));
  PetscCall(MatDestroy(&R2));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int code = 0;
  if (!GpuOrHostMode(argc, argv, "test_fdcoloring", &g_device)) return 77;
  PetscCall(Start(&argc, &argv, NULL));
  Run("SNES's coloring from the DM", "wp", []() { return ColoringCase("SNES's coloring, wp", false); });
  Run("the program's coloring", "ds", []() { return ColoringCase("the program's coloring, ds", true); });
  PetscCall(Summary(&code));
  PetscCall(PetscFinalize());
  return code;
}
