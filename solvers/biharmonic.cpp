static const char help[] = "The biharmonic (plate) equation lap lap u = f on the unit square or cube, simply supported:\n"
                           "u = 0 and lap u = 0 on the boundary. The operator is a matrix product: B = L L, L the\n"
                           "second-order Laplacian (5-point in 2D, 7-point in 3D) with zero boundary values on a DMDA,\n"
                           "B formed with MatMatMult (13 diagonals in 2D, 25 in 3D), solved with CG.\n"
                           "Manufactured solution u = sin(pi x) sin(pi y) [sin(pi z)], f = (dim pi^2)^2 u.\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>            dimension (default 2)\n"
                           "  -da_grid_x <n> ...    grid points per direction, boundary included (default 33), -da_refine <k>\n"
                           "  -ksp_type, -pc_type   the solver (default cg + jacobi, rtol 1e-10)\n\n";

/* L is -lap_h scaled by h^2 on the interior points: the row of an interior
   point is 2 dim u_p - sum of its interior neighbours (a boundary neighbour
   is zero, u = 0 there, and drops out); boundary rows are identity rows,
   decoupled from the interior. So L = diag(I, L_int), and
     B = L L = diag(I, L_int^2),
   L_int^2 = h^4 lap_h lap_h with u = 0 and lap_h u = 0 on the boundary: the
   simply supported plate. The right-hand side is h^4 f inside, 0 on the
   boundary. sin(pi x) ... is an eigenvector of L_int, so the discrete
   solution is ((dim pi^2) / lambda_h)^2 u and the error is O(h^2). */

#include "common.hpp"

#include <petsctime.h>

namespace {

using solvers::Local;
using solvers::Row;

PetscReal Exact(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  return PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (dim == 3 ? PetscSinReal(PETSC_PI * z) : 1.0);
}

/* f = lap lap u = (dim pi^2)^2 u */
PetscReal Source(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  const PetscReal l = dim * PETSC_PI * PETSC_PI;
  return l * l * Exact(dim, x, y, z);
}

PetscErrorCode Assemble(DM da, Mat L, Vec rhs, Vec exact)
{
  DMDALocalInfo info;
  PetscScalar  *ba, *ea;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  auto            zero = [](PetscInt, PetscInt, PetscInt) { return (PetscScalar)0; };
  PetscCall(VecGetArray(rhs, &ba));
  PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        Row row;
        if (solvers::OnBoundary(info, i, j, k)) {
          row.Add(i, j, k, 1.0);
          ea[Local(info, i, j, k)] = 0;
          ba[Local(info, i, j, k)] = 0;
        } else {
          row.Add(i, j, k, 2.0 * dim);
          for (PetscInt a = 0; a < dim; a++) {
            const PetscInt e[3] = {a == 0, a == 1, a == 2};
            row.Couple(info, i - e[0], j - e[1], k - e[2], -1.0, zero);
            row.Couple(info, i + e[0], j + e[1], k + e[2], -1.0, zero);
          }
          ea[Local(info, i, j, k)] = Exact(dim, i * h, j * h, k * h);
          ba[Local(info, i, j, k)] = h * h * h * h * Source(dim, i * h, j * h, k * h);
        }
        PetscCall(row.Set(L, i, j, k));
      }
  PetscCall(VecRestoreArray(rhs, &ba));
  PetscCall(VecRestoreArray(exact, &ea));
  PetscCall(MatAssemblyBegin(L, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(L, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  PetscInt       dim = 2;
  DM             da;
  Mat            L, B;
  Vec            x, b, exact;
  PetscReal      errmax, errl2, pcheck = 0, h = 0;
  PetscLogDouble t0, t1, t2, t3;
  char           title[160], ndl[32], ndb[32];
  MatType        btype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Biharmonic", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, dim, &dim, NULL));
  PetscOptionsEnd();
  PetscCall(PetscTime(&t0));
  PetscCall(solvers::CreateGrid(dim, DMDA_STENCIL_STAR, 1, 33, &da));
  PetscCall(solvers::CreateSystem(da, &L, &x, &b, &exact));
  PetscCall(Assemble(da, L, b, exact));
  PetscCall(PetscTime(&t1));

  /* the product: symbolic + numeric, then numeric again on the same pattern */
  PetscCall(MatMatMult(L, L, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &B));
  PetscCall(PetscTime(&t2));
  PetscCall(MatMatMult(L, L, MAT_REUSE_MATRIX, PETSC_DEFAULT, &B));
  PetscCall(PetscTime(&t3));

  solvers::SolveStats st;
  PetscCall(solvers::Solve(B, b, x, KSPCG, 1e-10, 0, &st, nullptr, da)); /* B = L L comes from a product: the grid for -pc_type mg is the DMDA's */
  PetscCall(solvers::GridSpacing(da, &h));
  PetscCall(solvers::ErrorNorms(x, exact, dim, h, &errmax, &errl2));

  PetscCall(PetscSNPrintf(title, sizeof(title), "Biharmonic %" PetscInt_FMT "D, B = L L (L the %s-point Laplacian), simply supported", dim, dim == 2 ? "5" : "7"));
  PetscCall(solvers::ReportGrid(da, title, &h));
  PetscCall(solvers::ReportMatrix(L));
  PetscCall(solvers::DiagonalsLabel(L, ndl, sizeof(ndl)));
  PetscCall(solvers::DiagonalsLabel(B, ndb, sizeof(ndb)));
  PetscCall(MatGetType(B, &btype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "product %s, diagonals per process: L %s, B %s\n", btype, ndl, ndb));
  PetscCall(solvers::ProductCheck(B, L, PETSC_FALSE, L, &pcheck));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "product check: ||B y - L (L y)|| / ||B y|| = %.2e (y random)\n", (double)pcheck));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT " (%s), residual norm %.3e\n", st.its, st.ktype, (double)st.rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: max %.10e, L2 %.10e\n", (double)errmax, (double)errl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, MatMatMult %.4f s (reuse %.4f s), solver set-up %.3f s, solve %.3f s\n", t1 - t0, t2 - t1, t3 - t2, st.setup, st.solve));

  PetscCall(MatDestroy(&B));
  PetscCall(solvers::DestroySystem(&da, &L, &x, &b, &exact));
  PetscCall(PetscFinalize());
  return 0;
}
