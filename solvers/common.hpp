/* common.hpp: the pieces the solvers in this directory share: the grid, the
   rows of a finite-difference operator with Dirichlet values moved to the
   right-hand side, and the report every program prints. */
#ifndef SOLVERS_COMMON_HPP
#define SOLVERS_COMMON_HPP

#include <petscdiag.h>
#include <petscdmda.h>
#include <petscksp.h>

#include "dm_inactive.hpp"

namespace solvers {

/* A DMDA on the unit square (dim 2) or cube (dim 3) with n points per
   direction by default (-da_grid_x ..., -da_refine change it) and the diag
   matrix type by default (-dm_mat_type changes it). Every direction must get
   the same number of points (one h). */
inline PetscErrorCode CreateGrid(PetscInt dim, DMDAStencilType stype, PetscInt width, PetscInt n, DM *da)
{
  PetscInt M, N, P;

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, dim);
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, stype, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, width, NULL, NULL, da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, stype, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, width, NULL, NULL, NULL, da));
  PetscCall(DMSetMatType(*da, MATDIAG));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMDASetUniformCoordinates(*da, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0));
  PetscCall(DMDAGetInfo(*da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(M == N && (dim == 2 || N == P), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "use the same number of grid points in every direction (one h)");
  PetscFunctionReturn(0);
}

/* Index of grid point (i, j, k) in the owned part of a DMDA global vector. */
inline PetscInt Local(const DMDALocalInfo &info, PetscInt i, PetscInt j, PetscInt k)
{
  return (i - info.xs) + info.xm * ((j - info.ys) + info.ym * (info.dim == 3 ? k - info.zs : 0));
}

/* On the boundary or outside the domain. */
inline bool OnBoundary(const DMDALocalInfo &info, PetscInt i, PetscInt j, PetscInt k)
{
  return i <= 0 || j <= 0 || i >= info.mx - 1 || j >= info.my - 1 || (info.dim == 3 && (k <= 0 || k >= info.mz - 1));
}

/* One matrix row under construction: the columns, their values, and the
   right-hand side. Couple() adds a term c * u(i, j, k) to the left side; a
   value known from the boundary condition (a boundary point, or a point
   outside the domain) goes to the right side instead, so that the unknowns
   couple only to unknowns (the operator stays symmetric where it is).
   Repeated columns are summed. */
struct Row {
  static constexpr PetscInt max = 32;
  MatStencil                col[max];
  PetscScalar               v[max];
  PetscInt                  n   = 0;
  PetscScalar               rhs = 0;

  void Add(PetscInt i, PetscInt j, PetscInt k, PetscScalar c)
  {
    for (PetscInt q = 0; q < n; q++)
      if (col[q].i == i && col[q].j == j && col[q].k == k) {
        v[q] += c;
        return;
      }
    col[n] = {k, j, i, 0};
    v[n++] = c;
  }
  template <class Known>
  void Couple(const DMDALocalInfo &info, PetscInt i, PetscInt j, PetscInt k, PetscScalar c, Known known)
  {
    if (OnBoundary(info, i, j, k)) rhs -= c * known(i, j, k);
    else Add(i, j, k, c);
  }
  PetscErrorCode Set(Mat A, PetscInt i, PetscInt j, PetscInt k) const
  {
    MatStencil row = {k, j, i, 0};
    return MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES);
  }
};

/* The operator of a DMDA grid and the vectors of a steady solve: solution,
   right-hand side and exact solution. */
inline PetscErrorCode CreateSystem(DM da, Mat *A, Vec *x, Vec *b, Vec *exact)
{
  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMCreateGlobalVector(da, x));
  PetscCall(VecDuplicate(*x, b));
  PetscCall(VecDuplicate(*x, exact));
  PetscFunctionReturn(0);
}

inline PetscErrorCode DestroySystem(DM *da, Mat *A, Vec *x, Vec *b, Vec *exact)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(x));
  PetscCall(VecDestroy(b));
  PetscCall(VecDestroy(exact));
  PetscCall(MatDestroy(A));
  PetscCall(DMDestroy(da));
  PetscFunctionReturn(0);
}

/* What a solve reports. */
struct SolveStats {
  PetscInt       its = 0;
  char           ktype[64] = "";
  PetscReal      rnorm = 0; /* true residual || b - A x || */
  PetscLogDouble setup = 0, solve = 0;
};

PetscErrorCode TrueResidual(Mat A, Vec x, Vec b, PetscReal *rnorm);

/* Gives the KSP the DMDA A was created from (not to compute the operator:
   the program assembles it), so that geometric multigrid finds its grid
   hierarchy: -pc_type mg -pc_mg_levels N interpolates with the DMDA's
   interpolation. Without a rediscretization callback on the DMDA
   (DMKSPSetComputeOperators) the coarse operators are Galerkin's, set after
   KSPSetFromOptions by GalerkinUnlessRediscretized. */
inline PetscErrorCode AttachGrid(KSP ksp, Mat A, DM dm = nullptr)
{
  PetscFunctionBeginUser;
  if (!dm) PetscCall(MatGetDM(A, &dm));
  if (!dm) PetscFunctionReturn(0);
  PetscCall(KSPSetDM(ksp, dm));
  PetscCall(KSPSetDMInactive(ksp));
  PetscFunctionReturn(0);
}

/* PCMG on a DMDA that cannot rediscretize: Galerkin coarse operators,
   unless -pc_mg_galerkin says otherwise. Call after KSPSetFromOptions. */
inline PetscErrorCode GalerkinUnlessRediscretized(KSP ksp)
{
  PC          pc;
  DM          dm;
  PetscBool   mg, set;
  const char *prefix;
  PetscErrorCode (*compute)(KSP, Mat, Mat, void *) = NULL;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &mg));
  PetscCall(KSPGetDM(ksp, &dm));
  if (!mg || !dm) PetscFunctionReturn(0);
  PetscCall(DMKSPGetComputeOperators(dm, &compute, NULL));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-pc_mg_galerkin", &set));
  if (!compute && !set) PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
  PetscFunctionReturn(0);
}

/* Solves A x = b with a KSP of the given default type (GMRES restart
   `restart` when > 0), Jacobi preconditioning and relative tolerance rtol,
   all overridable from the options database (with `prefix`, if given, for
   a second solver in one program); times set-up and solve. `grid`: the
   DMDA for -pc_type mg when A does not know it (AttachGrid). */
inline PetscErrorCode Solve(Mat A, Vec b, Vec x, KSPType type, PetscReal rtol, PetscInt restart, SolveStats *s, const char *prefix = nullptr, DM grid = nullptr)
{
  KSP            ksp;
  PC             pc;
  KSPType        used;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  if (prefix) PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(AttachGrid(ksp, A, grid));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, 100000));
  if (restart > 0) PetscCall(KSPGMRESSetRestart(ksp, restart));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(GalerkinUnlessRediscretized(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t2));
  PetscCall(KSPGetIterationNumber(ksp, &s->its));
  PetscCall(KSPGetType(ksp, &used));
  { /* a solve that stopped without converging must not pass for a result */
    KSPConvergedReason reason;
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    if (reason < 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "warning: %s did not converge: %s after %" PetscInt_FMT " iterations (the numbers below are not a solution)\n", used, KSPConvergedReasons[reason], s->its));
  }
  PetscCall(PetscStrncpy(s->ktype, used, sizeof(s->ktype)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(TrueResidual(A, x, b, &s->rnorm));
  s->setup = t1 - t0;
  s->solve = t2 - t1;
  PetscFunctionReturn(0);
}

/* || b - A x ||_2 */
inline PetscErrorCode TrueResidual(Mat A, Vec x, Vec b, PetscReal *rnorm)
{
  Vec r;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, rnorm));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* max and grid-L2 (sqrt(h^dim sum e^2)) norms of x - exact */
inline PetscErrorCode ErrorNorms(Vec x, Vec exact, PetscInt dim, PetscReal h, PetscReal *errmax, PetscReal *errl2)
{
  Vec e;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &e));
  PetscCall(VecWAXPY(e, -1.0, exact, x));
  PetscCall(VecNorm(e, NORM_INFINITY, errmax));
  PetscCall(VecNorm(e, NORM_2, errl2));
  *errl2 *= PetscPowReal(h, 0.5 * dim);
  PetscCall(VecDestroy(&e));
  PetscFunctionReturn(0);
}

/* The most diagonals a process stores (-1 for a matrix that is not diag).
   Collective. */
inline PetscErrorCode MaxDiagonals(Mat A, PetscInt *ndmax)
{
  PetscBool isdiag;

  PetscFunctionBeginUser;
  *ndmax = -1;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if (!isdiag) PetscFunctionReturn(0);
  PetscInt nd;
  PetscCall(MatDiagGetDiagonals(A, &nd, NULL));
  PetscCall(MPIU_Allreduce(&nd, ndmax, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(0);
}

/* MaxDiagonals as text: "13", or "n/a" for a matrix that is not diag. */
inline PetscErrorCode DiagonalsLabel(Mat A, char *s, size_t len)
{
  PetscInt ndmax;

  PetscFunctionBeginUser;
  PetscCall(MaxDiagonals(A, &ndmax));
  if (ndmax >= 0) PetscCall(PetscSNPrintf(s, len, "%" PetscInt_FMT, ndmax));
  else PetscCall(PetscStrncpy(s, "n/a", len));
  PetscFunctionReturn(0);
}

/* "matrix seqdiag, storage hm, diagonals per process 9" (diag types) or
   "matrix seqaij" (others). */
inline PetscErrorCode ReportMatrix(Mat A)
{
  MatType  mtype;
  PetscInt ndmax;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(A, &mtype));
  PetscCall(MaxDiagonals(A, &ndmax));
  if (ndmax >= 0) {
    MatDiagStorage st;
    PetscCall(MatDiagGetStorage(A, &st));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s, storage %s, diagonals per process %" PetscInt_FMT "\n", mtype, MatDiagStorages[st], ndmax));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s\n", mtype));
  PetscFunctionReturn(0);
}

/* || P y - X (Y y) || / || P y ||, y random: the product P checked against
   applying its factors one after the other (Xt: X^T applied). */
inline PetscErrorCode ProductCheck(Mat P, Mat X, PetscBool Xt, Mat Y, PetscReal *rel)
{
  Vec         y, z, w, v;
  PetscRandom rnd;
  PetscReal   nd, np;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(P, &y, &z));
  PetscCall(MatCreateVecs(Y, NULL, &w));
  PetscCall(VecDuplicate(z, &v));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(y, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatMult(P, y, z));
  PetscCall(MatMult(Y, y, w));
  if (Xt) PetscCall(MatMultTranspose(X, w, v));
  else PetscCall(MatMult(X, w, v));
  PetscCall(VecAXPY(v, -1.0, z));
  PetscCall(VecNorm(v, NORM_2, &nd));
  PetscCall(VecNorm(z, NORM_2, &np));
  *rel = nd / np;
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* h = 1 / (points per direction - 1) */
inline PetscErrorCode GridSpacing(DM da, PetscReal *h)
{
  PetscInt M;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  *h = 1.0 / (M - 1);
  PetscFunctionReturn(0);
}

/* "<title>, grid 33^2 (h = 0.03125), unknowns 1089" */
inline PetscErrorCode ReportGrid(DM da, const char *title, PetscReal *h)
{
  PetscInt dim, M, N, P;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  *h = 1.0 / (M - 1);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, grid %" PetscInt_FMT "^%" PetscInt_FMT " (h = %g), unknowns %" PetscInt_FMT "\n", title, M, dim, (double)*h, dim == 2 ? M * N : M * N * P));
  PetscFunctionReturn(0);
}

} // namespace solvers

#endif
