static const char help[] = "Poisson's equation -lap u = f on the unit square or cube, Dirichlet boundary, with the fourth-order\n"
                           "wide stencil along the axes: u_xx ~ (-u[i-2] + 16 u[i-1] - 30 u[i] + 16 u[i+1] - u[i+2]) / (12 h^2),\n"
                           "9 points in 2D, 13 in 3D (a DMDA star stencil of width 2: the band is twice as wide).\n"
                           "Next to the boundary the stencil reaches one point outside the domain; -closure picks the remedy:\n"
                           "  second  the 3-point second-order stencil along that axis at the points next to the boundary\n"
                           "          (no values outside needed; the operator is then nonsymmetric: GMRES by default)\n"
                           "  exact   the exact solution's value at the point outside (symmetric: CG by default)\n"
                           "Both give fourth-order errors: an O(h^2) truncation error on one layer of points next to the\n"
                           "boundary costs only O(h^4) in the solution.\n"
                           "Manufactured solution u = sin(pi x) sin(pi y) [sin(pi z)] + exp(x + y/2 [+ z/4]).\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>                dimension (default 2)\n"
                           "  -closure <second,exact>   boundary closure (default second)\n"
                           "  -order <4,2>              4: the wide stencil (default); 2: the 5/7-point stencil, for comparison\n"
                           "  -da_grid_x <n> ...        grid points per direction (default 33), -da_refine <k>\n"
                           "  -ksp_type, -pc_type       the solver (default gmres(100) or cg + jacobi, rtol 1e-14)\n\n";

/* Rows scaled by 12 h^2. Boundary rows are identity rows; known values
   (boundary points, and for -closure exact the points outside) move to the
   right side. Why the second-order closure keeps fourth order: the error e
   solves A e = tau with tau = O(h^4) inside and O(h^2) on the layer next to
   the boundary; the discrete Green's function from a point at distance h of
   the boundary is O(h) times that of an interior point, so the layer
   contributes h * O(h) * O(h^2) = O(h^4). */

#include "common.hpp"

#include <petsctime.h>

namespace {

using solvers::Local;
using solvers::Row;

struct Problem {
  PetscInt  dim   = 2;
  PetscBool exact = PETSC_FALSE; /* closure by exact values outside */
  PetscInt  order = 4;
};

PetscReal Exact(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  const bool three = dim == 3;
  return PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (three ? PetscSinReal(PETSC_PI * z) : 1.0) + PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
}

PetscReal Source(PetscInt dim, PetscReal x, PetscReal y, PetscReal z)
{
  const bool three = dim == 3;
  return dim * PETSC_PI * PETSC_PI * PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (three ? PetscSinReal(PETSC_PI * z) : 1.0) - (1.0 + 0.25 + (three ? 0.0625 : 0.0)) * PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
}

PetscErrorCode Assemble(const Problem &p, DM da, Mat A, Vec b, Vec exact)
{
  DMDALocalInfo info;
  PetscScalar  *ba, *ea;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  const PetscInt  m[3] = {info.mx, info.my, info.mz};
  auto            known = [&](PetscInt i, PetscInt j, PetscInt k) { return (PetscScalar)Exact(dim, i * h, j * h, k * h); };
  PetscCall(VecGetArray(b, &ba));
  PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        Row            row;
        const PetscInt I[3] = {i, j, k};
        ea[Local(info, i, j, k)] = known(i, j, k);
        if (solvers::OnBoundary(info, i, j, k)) {
          row.Add(i, j, k, 1.0);
          row.rhs = known(i, j, k);
        } else {
          row.rhs = 12 * h * h * Source(dim, i * h, j * h, k * h);
          for (PetscInt a = 0; a < dim; a++) {
            const PetscInt e[3] = {a == 0, a == 1, a == 2};
            /* 12 h^2 (-d^2/dx_a^2): wide (1, -16, 30, -16, 1) or 3-point 12 (-1, 2, -1) */
            const bool     wide = p.order == 4 && (p.exact || (I[a] > 1 && I[a] < m[a] - 2));
            row.Add(i, j, k, wide ? 30.0 : 24.0);
            for (PetscInt s = -1; s <= 1; s += 2) {
              row.Couple(info, i + s * e[0], j + s * e[1], k + s * e[2], wide ? -16.0 : -12.0, known);
              if (wide) row.Couple(info, i + 2 * s * e[0], j + 2 * s * e[1], k + 2 * s * e[2], 1.0, known); /* outside: the exact value */
            }
          }
        }
        PetscCall(row.Set(A, i, j, k));
        ba[Local(info, i, j, k)] = row.rhs;
      }
  PetscCall(VecRestoreArray(b, &ba));
  PetscCall(VecRestoreArray(exact, &ea));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode GetOptions(Problem &p)
{
  const char *const closures[] = {"second", "exact"};
  PetscInt          closure    = 0;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Fourth-order Poisson", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, p.dim, &p.dim, NULL));
  PetscCall(PetscOptionsEList("-closure", "boundary closure of the wide stencil", NULL, closures, 2, closures[0], &closure, NULL));
  PetscCall(PetscOptionsInt("-order", "4: wide stencil, 2: 5/7-point stencil", NULL, p.order, &p.order, NULL));
  PetscOptionsEnd();
  PetscCheck(p.dim == 2 || p.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, p.dim);
  PetscCheck(p.order == 2 || p.order == 4, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-order must be 2 or 4, not %" PetscInt_FMT, p.order);
  p.exact = closure == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Problem        p;
  DM             da;
  Mat            A;
  Vec            x, b, exact;
  PetscReal      errmax, errl2, h = 0;
  PetscLogDouble t0, t1;
  char           title[200];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(GetOptions(p));
  PetscCall(PetscTime(&t0));
  PetscCall(solvers::CreateGrid(p.dim, DMDA_STENCIL_STAR, p.order == 4 ? 2 : 1, 33, &da));
  PetscCall(solvers::CreateSystem(da, &A, &x, &b, &exact));
  PetscCall(Assemble(p, da, A, b, exact));
  PetscCall(PetscTime(&t1));

  solvers::SolveStats st;
  PetscCall(solvers::Solve(A, b, x, p.order == 4 && !p.exact ? KSPGMRES : KSPCG /* the second-order closure is nonsymmetric */, 1e-14, 100, &st));
  PetscCall(solvers::GridSpacing(da, &h));
  PetscCall(solvers::ErrorNorms(x, exact, p.dim, h, &errmax, &errl2));

  if (p.order == 4)
    PetscCall(PetscSNPrintf(title, sizeof(title), "Poisson %" PetscInt_FMT "D, fourth-order %s-point wide stencil, %s closure", p.dim, p.dim == 2 ? "9" : "13", p.exact ? "exact-value" : "second-order"));
  else PetscCall(PetscSNPrintf(title, sizeof(title), "Poisson %" PetscInt_FMT "D, second-order %s-point stencil", p.dim, p.dim == 2 ? "5" : "7"));
  PetscCall(solvers::ReportGrid(da, title, &h));
  PetscCall(solvers::ReportMatrix(A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT " (%s), residual norm %.3e\n", st.its, st.ktype, (double)st.rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: max %.10e, L2 %.10e\n", (double)errmax, (double)errl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, solver set-up %.3f s, solve %.3f s\n", t1 - t0, st.setup, st.solve));

  PetscCall(solvers::DestroySystem(&da, &A, &x, &b, &exact));
  PetscCall(PetscFinalize());
  return 0;
}
