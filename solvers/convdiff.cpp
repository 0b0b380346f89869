static const char help[] = "Convection-diffusion -eps lap u + b . grad u = f on the unit square or cube, Dirichlet boundary,\n"
                           "constant velocity b, 5-point (2D) / 7-point (3D) stencil; the operator is nonsymmetric.\n"
                           "Convection -scheme upwind (first order, an M-matrix for every h) or central (second order,\n"
                           "oscillation-free while the mesh Peclet number max|b_a| h / (2 eps) < 1; it is printed).\n"
                           "Manufactured solution u = sin(pi x) sin(pi y) [sin(pi z)] + exp(x + y/2 [+ z/4]).\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>                 dimension (default 2)\n"
                           "  -eps <e>                   diffusion (default 0.1)\n"
                           "  -b <bx,by[,bz]>            velocity (default 1,-0.5,0.25)\n"
                           "  -scheme <upwind,central>   convection differences (default upwind)\n"
                           "  -da_grid_x <n> ...         grid points per direction (default 33), -da_refine <k>\n"
                           "  -ksp_type <gmres,bcgs,...> the solver (default gmres + jacobi, rtol 1e-10)\n\n";

/* Row of an interior point, scaled by h^2:
     eps (2 dim u_p - sum_q u_q) + h sum_a b_a D_a u = h^2 f_p,
   D_a u = (u_{+a} - u_{-a}) / 2 (central) or the difference towards the
   upwind side, u_p - u_{-a} for b_a > 0, u_{+a} - u_p for b_a < 0 (upwind).
   Boundary rows are identity rows with the known values moved to the right
   side. */

#include "common.hpp"

#include <petsctime.h>

namespace {

using solvers::Local;
using solvers::Row;

struct Problem {
  PetscInt  dim    = 2;
  PetscReal eps    = 0.1;
  PetscReal b[3]   = {1.0, -0.5, 0.25};
  PetscBool upwind = PETSC_TRUE;
};

PetscReal Exact(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  const bool three = p.dim == 3;
  return PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (three ? PetscSinReal(PETSC_PI * z) : 1.0) + PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
}

/* f = -eps lap u + b . grad u */
PetscReal Source(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  const bool      three = p.dim == 3;
  const PetscReal pi    = PETSC_PI;
  const PetscReal sx = PetscSinReal(pi * x), sy = PetscSinReal(pi * y), sz = three ? PetscSinReal(pi * z) : 1.0;
  const PetscReal cx = PetscCosReal(pi * x), cy = PetscCosReal(pi * y), cz = three ? PetscCosReal(pi * z) : 0.0;
  const PetscReal e = PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
  const PetscReal lap = -p.dim * pi * pi * sx * sy * sz + (1.0 + 0.25 + (three ? 0.0625 : 0.0)) * e;
  const PetscReal ux = pi * cx * sy * sz + e, uy = pi * sx * cy * sz + e / 2, uz = three ? pi * sx * sy * cz + e / 4 : 0.0;
  return -p.eps * lap + p.b[0] * ux + p.b[1] * uy + (three ? p.b[2] * uz : 0.0);
}

PetscErrorCode Assemble(const Problem &p, DM da, Mat A, Vec rhs, Vec exact)
{
  DMDALocalInfo info;
  PetscScalar  *ba, *ea;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  auto            known = [&](PetscInt i, PetscInt j, PetscInt k) { return (PetscScalar)Exact(p, i * h, j * h, k * h); };
  PetscCall(VecGetArray(rhs, &ba));
  PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        Row row;
        ea[Local(info, i, j, k)] = known(i, j, k);
        if (solvers::OnBoundary(info, i, j, k)) {
          row.Add(i, j, k, 1.0);
          row.rhs = known(i, j, k);
        } else {
          row.rhs = h * h * Source(p, i * h, j * h, k * h);
          row.Add(i, j, k, 2.0 * dim * p.eps);
          for (PetscInt a = 0; a < dim; a++) {
            const PetscInt  e[3] = {a == 0, a == 1, a == 2};
            const PetscReal c    = h * p.b[a];
            PetscReal       cm, c0, cp; /* coefficients of u_{-a}, u_p, u_{+a} */
            if (!p.upwind) cm = -c / 2, c0 = 0, cp = c / 2;
            else if (c > 0) cm = -c, c0 = c, cp = 0;
            else cm = 0, c0 = -c, cp = c;
            row.Add(i, j, k, c0);
            row.Couple(info, i - e[0], j - e[1], k - e[2], cm - p.eps, known);
            row.Couple(info, i + e[0], j + e[1], k + e[2], cp - p.eps, known);
          }
        }
        PetscCall(row.Set(A, i, j, k));
        ba[Local(info, i, j, k)] = row.rhs;
      }
  PetscCall(VecRestoreArray(rhs, &ba));
  PetscCall(VecRestoreArray(exact, &ea));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode GetOptions(Problem &p)
{
  const char *const schemes[] = {"upwind", "central"};
  PetscInt          scheme = 0, nb = 3;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Convection-diffusion", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, p.dim, &p.dim, NULL));
  PetscCall(PetscOptionsReal("-eps", "diffusion coefficient", NULL, p.eps, &p.eps, NULL));
  PetscCall(PetscOptionsRealArray("-b", "velocity (bx,by[,bz])", NULL, p.b, &nb, NULL));
  PetscCall(PetscOptionsEList("-scheme", "convection differences", NULL, schemes, 2, schemes[0], &scheme, NULL));
  PetscOptionsEnd();
  PetscCheck(p.dim == 2 || p.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, p.dim);
  PetscCheck(p.eps > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-eps must be positive");
  p.upwind = scheme == 0 ? PETSC_TRUE : PETSC_FALSE;
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
  char           title[160];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(GetOptions(p));
  PetscCall(PetscTime(&t0));
  PetscCall(solvers::CreateGrid(p.dim, DMDA_STENCIL_STAR, 1, 33, &da));
  PetscCall(solvers::CreateSystem(da, &A, &x, &b, &exact));
  PetscCall(Assemble(p, da, A, b, exact));
  PetscCall(PetscTime(&t1));

  solvers::SolveStats st;
  PetscCall(solvers::Solve(A, b, x, KSPGMRES, 1e-10, 0, &st));
  PetscCall(solvers::GridSpacing(da, &h));
  PetscCall(solvers::ErrorNorms(x, exact, p.dim, h, &errmax, &errl2));

  PetscCall(PetscSNPrintf(title, sizeof(title), "Convection-diffusion %" PetscInt_FMT "D, %s-point stencil, %s convection", p.dim, p.dim == 2 ? "5" : "7", p.upwind ? "upwind (first-order)" : "central (second-order)"));
  PetscCall(solvers::ReportGrid(da, title, &h));
  {
    PetscReal bmax = PetscMax(PetscAbsReal(p.b[0]), PetscAbsReal(p.b[1]));
    if (p.dim == 3) bmax = PetscMax(bmax, PetscAbsReal(p.b[2]));
    if (p.dim == 2) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eps %g, b = (%g, %g), mesh Peclet number %.3g\n", (double)p.eps, (double)p.b[0], (double)p.b[1], (double)(bmax * h / (2 * p.eps))));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eps %g, b = (%g, %g, %g), mesh Peclet number %.3g\n", (double)p.eps, (double)p.b[0], (double)p.b[1], (double)p.b[2], (double)(bmax * h / (2 * p.eps))));
  }
  PetscCall(solvers::ReportMatrix(A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT " (%s), residual norm %.3e\n", st.its, st.ktype, (double)st.rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: max %.10e, L2 %.10e\n", (double)errmax, (double)errl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, solver set-up %.3f s, solve %.3f s\n", t1 - t0, st.setup, st.solve));

  PetscCall(solvers::DestroySystem(&da, &A, &x, &b, &exact));
  PetscCall(PetscFinalize());
  return 0;
}
