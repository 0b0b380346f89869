static const char help[] = "Poisson's equation -lap u = f on the unit square or cube, Dirichlet boundary,\n"
                           "second-order finite differences on a DMDA (5-point in 2D, 7-point in 3D),\n"
                           "with the manufactured solution u = sin(pi x) sin(pi y) [sin(pi z)] + x + 2y [+ 3z].\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...; vectors: -dm_vec_type cuda on a GPU.\n"
                           "Options:\n"
                           "  -dim <2,3>            dimension (default 3)\n"
                           "  -da_grid_x <n> ...    grid points per direction (default 65), -da_refine <k> refines\n"
                           "  -ksp_type, -pc_type   the solver (default cg + jacobi); -pc_type mg -pc_mg_levels <n>\n"
                           "                        rediscretizes on the DMDA's coarser grids (-pc_mg_galerkin: Galerkin)\n\n";

/* The README's main job. The boundary values are moved to the right-hand
   side so that the operator stays symmetric (CG applies): boundary rows are
   identity rows and interior rows couple only to interior points. */

#include <petscdiag.h>
#include <petscdmda.h>
#include <petscksp.h>
#include <petsctime.h>

#include "dm_inactive.hpp"

#include <cmath>

namespace {

struct Problem {
  PetscInt dim = 3;
};

PetscReal Exact(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  const PetscReal s = PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (dim == 3 ? PetscSinReal(PETSC_PI * z) : 1.0);
  return s + x + 2 * y + (dim == 3 ? 3 * z : 0.0);
}

PetscReal Source(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  const PetscReal s = PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (dim == 3 ? PetscSinReal(PETSC_PI * z) : 1.0);
  return dim * PETSC_PI * PETSC_PI * s;
}

/* Local index of grid point (i, j, k) in a DMDA global vector's owned part. */
inline PetscInt Local(const DMDALocalInfo &info, PetscInt i, PetscInt j, PetscInt k)
{
  return (i - info.xs) + info.xm * ((j - info.ys) + info.ym * (info.dim == 3 ? k - info.zs : 0));
}

inline bool OnBoundary(const DMDALocalInfo &info, PetscInt i, PetscInt j, PetscInt k)
{
  return i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1 || (info.dim == 3 && (k == 0 || k == info.mz - 1));
}

/* The operator scaled by h^2 times `scale`, point by point with
   MatSetValuesStencil and, given b and exact, the right-hand side and the
   exact solution on the grid. */
PetscErrorCode Assemble(DM da, Mat A, Vec b, Vec exact, PetscReal scale = 1.0)
{
  DMDALocalInfo info;
  PetscScalar  *ba = NULL, *ea = NULL;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  const PetscInt  di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
  if (b) PetscCall(VecGetArray(b, &ba));
  if (exact) PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7];
        PetscInt    n   = 0;
        PetscScalar rhs = 0;
        col[n] = row;
        if (ea) ea[Local(info, i, j, k)] = Exact(dim, i * h, j * h, k * h);
        if (OnBoundary(info, i, j, k)) {
          v[n++] = scale;
          rhs    = Exact(dim, i * h, j * h, k * h);
        } else {
          v[n++] = 2.0 * dim * scale;
          rhs    = h * h * Source(dim, i * h, j * h, k * h);
          for (PetscInt q = 0; q < 2 * dim; q++) {
            const PetscInt ii = i + di[q], jj = j + dj[q], kk = k + dk[q];
            if (OnBoundary(info, ii, jj, kk)) rhs += Exact(dim, ii * h, jj * h, kk * h); /* a known value moves to the right */
            else {
              col[n] = {kk, jj, ii, 0};
              v[n++] = -scale;
            }
          }
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
        if (ba) ba[Local(info, i, j, k)] = rhs;
      }
  if (b) PetscCall(VecRestoreArray(b, &ba));
  if (exact) PetscCall(VecRestoreArray(exact, &ea));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The operator on a coarser grid of the hierarchy (PCMG without
   -pc_mg_galerkin rediscretizes). Scaled by (H/h)^(dim-2) so that it matches
   the Galerkin operator P^T A P of PETSc's DMDA interpolation: the fine rows
   are scaled by h^2, a volume-weighted operator by h^dim. */
PetscErrorCode ComputeCoarseOperator(KSP ksp, Mat J, Mat jac, void *ctx)
{
  DM             da;
  DMDALocalInfo  info;
  const PetscInt fine_points = *(const PetscInt *)ctx;

  PetscFunctionBeginUser;
  (void)J;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscReal ratio = (PetscReal)(fine_points - 1) / (PetscReal)(info.mx - 1);
  PetscCall(MatZeroEntries(jac));
  PetscCall(Assemble(da, jac, NULL, NULL, PetscPowReal(ratio, (PetscReal)(info.dim - 2))));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  DM             da;
  Mat            A;
  Vec            x, b, exact;
  KSP            ksp;
  PetscInt       dim = 3, its, M, N, P;
  PetscReal      rnorm, errmax, errl2, h;
  PetscLogDouble t0, t1, t2, t3;
  MatType        mtype;
  PetscBool      isdiag;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, dim);
  PetscCall(PetscTime(&t0));
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 65, 65, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 65, 65, 65, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(M == N && (dim == 2 || N == P), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "use the same number of grid points in every direction (one h)");
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &exact));
  PetscCall(Assemble(da, A, b, exact));
  PetscCall(PetscTime(&t1));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  /* for -pc_type mg: the grid hierarchy, and the operator on its coarser
     grids (the fine one is A, assembled above) */
  PetscCall(DMKSPSetComputeOperators(da, ComputeCoarseOperator, &M));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetDMInactive(ksp));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t2));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t3));
  PetscCall(KSPGetIterationNumber(ksp, &its));

  /* true residual and discretization error */
  {
    Vec r;
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rnorm));
    PetscCall(VecDestroy(&r));
  }
  PetscCall(VecAXPY(x, -1.0, exact));
  PetscCall(VecNorm(x, NORM_INFINITY, &errmax));
  PetscCall(VecNorm(x, NORM_2, &errl2));
  h     = 1.0 / (M - 1);
  errl2 = errl2 * PetscPowReal(h, 0.5 * dim);

  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATSEQDIAG, MATMPIDIAG, ""));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Poisson %" PetscInt_FMT "D, %s-point stencil, grid %" PetscInt_FMT "^%" PetscInt_FMT " (h = %g), unknowns %" PetscInt_FMT "\n", dim, dim == 2 ? "5" : "7", M, dim, (double)h,
                        dim == 2 ? M * N : M * N * P));
  if (isdiag) {
    MatDiagStorage st;
    PetscInt       nd, ndmax;
    PetscCall(MatDiagGetStorage(A, &st));
    PetscCall(MatDiagGetDiagonals(A, &nd, NULL));
    PetscCall(MPIU_Allreduce(&nd, &ndmax, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s, storage %s, diagonals per process %" PetscInt_FMT "\n", mtype, MatDiagStorages[st], ndmax));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s\n", mtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT ", residual norm %.3e\n", its, (double)rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: max %.4e, L2 %.4e\n", (double)errmax, (double)errl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, solver set-up %.3f s, solve %.3f s\n", t1 - t0, t2 - t1, t3 - t2));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&exact));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
