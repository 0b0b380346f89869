static const char help[] = "Least squares through the normal equations: A^T A x = A^T b with CG, where A is a\n"
                           "nonsymmetric operator, convection-diffusion -eps lap u + v . grad u with upwind convection\n"
                           "(5-point in 2D, 7-point in 3D) on a DMDA, b = A x_exact for a known smooth x_exact.\n"
                           "N = A^T A is formed with MatTransposeMatMult (13 diagonals in 2D, 25 in 3D), c = A^T b with\n"
                           "MatMultTranspose; then A x = b is solved with GMRES directly for comparison.\n"
                           "x_exact = sin(pi x) sin(pi y) [sin(pi z)] + exp(x + y/2 [+ z/4]).\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>                 dimension (default 2)\n"
                           "  -eps <e>                   diffusion (default 0.1)\n"
                           "  -v <vx,vy[,vz]>            velocity (default 1,-0.5,0.25)\n"
                           "  -da_grid_x <n> ...         grid points per direction (default 33 in 2D, 17 in 3D), -da_refine <k>\n"
                           "  -ksp_type, -pc_type        the normal-equations solver (default cg + jacobi, rtol 1e-12)\n"
                           "  -gmres <bool>              also solve A x = b (default true), options prefix gmres_\n"
                           "                             (default gmres + jacobi, restart 100, rtol 1e-12)\n\n";

/* A is scaled by h^2: the row of an interior point is
     eps (2 dim u_p - sum_q u_q) + h sum_a v_a D_a u,
   D_a the one-sided difference towards the upwind side; boundary rows are
   identity rows. Every point is an unknown and b = A x_exact, so the exact
   solution of A x = b (and of A^T A x = A^T b) is x_exact on the grid: the
   error printed is the solvers' error alone. kappa(A^T A) = kappa(A)^2,
   which is why CG on the normal equations needs a tight tolerance and many
   iterations. */

#include "common.hpp"

#include <petsctime.h>

namespace {

using solvers::Local;
using solvers::Row;

struct Problem {
  PetscInt  dim   = 2;
  PetscReal eps   = 0.1;
  PetscReal v[3]  = {1.0, -0.5, 0.25};
  PetscBool gmres = PETSC_TRUE;
};

PetscReal Exact(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  const bool three = p.dim == 3;
  return PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (three ? PetscSinReal(PETSC_PI * z) : 1.0) + PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
}

PetscErrorCode Assemble(const Problem &p, DM da, Mat A, Vec exact)
{
  DMDALocalInfo info;
  PetscScalar  *ea;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        Row row;
        ea[Local(info, i, j, k)] = Exact(p, i * h, j * h, k * h);
        if (solvers::OnBoundary(info, i, j, k)) row.Add(i, j, k, 1.0);
        else {
          row.Add(i, j, k, 2.0 * dim * p.eps);
          for (PetscInt a = 0; a < dim; a++) {
            const PetscInt  e[3] = {a == 0, a == 1, a == 2};
            const PetscReal c    = h * p.v[a];
            PetscReal       cm, c0, cp; /* coefficients of u_{-a}, u_p, u_{+a} */
            if (c > 0) cm = -c, c0 = c, cp = 0;
            else cm = 0, c0 = -c, cp = c;
            row.Add(i, j, k, c0);
            row.Add(i - e[0], j - e[1], k - e[2], cm - p.eps); /* boundary points are unknowns too */
            row.Add(i + e[0], j + e[1], k + e[2], cp - p.eps);
          }
        }
        PetscCall(row.Set(A, i, j, k));
      }
  PetscCall(VecRestoreArray(exact, &ea));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode GetOptions(Problem &p)
{
  PetscInt nv = 3;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Normal equations", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, p.dim, &p.dim, NULL));
  PetscCall(PetscOptionsReal("-eps", "diffusion coefficient", NULL, p.eps, &p.eps, NULL));
  PetscCall(PetscOptionsRealArray("-v", "velocity (vx,vy[,vz])", NULL, p.v, &nv, NULL));
  PetscCall(PetscOptionsBool("-gmres", "also solve A x = b with GMRES", NULL, p.gmres, &p.gmres, NULL));
  PetscOptionsEnd();
  PetscCheck(p.dim == 2 || p.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, p.dim);
  PetscCheck(p.eps > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-eps must be positive");
  PetscFunctionReturn(0);
}

/* ||x - exact||_max / ||exact||_max */
PetscErrorCode RelError(Vec x, Vec exact, PetscReal *rel)
{
  Vec       e;
  PetscReal emax, xmax;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &e));
  PetscCall(VecWAXPY(e, -1.0, exact, x));
  PetscCall(VecNorm(e, NORM_INFINITY, &emax));
  PetscCall(VecNorm(exact, NORM_INFINITY, &xmax));
  *rel = emax / xmax;
  PetscCall(VecDestroy(&e));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Problem        p;
  DM             da;
  Mat            A, N;
  Vec            x, b, c, exact;
  PetscReal      err, resA, pcheck = 0, h = 0;
  PetscLogDouble t0, t1, t2, t3;
  char           title[160];
  MatType        ntype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(GetOptions(p));
  PetscCall(PetscTime(&t0));
  PetscCall(solvers::CreateGrid(p.dim, DMDA_STENCIL_STAR, 1, p.dim == 2 ? 33 : 17, &da));
  PetscCall(solvers::CreateSystem(da, &A, &x, &b, &exact));
  PetscCall(VecDuplicate(b, &c));
  PetscCall(Assemble(p, da, A, exact));
  PetscCall(MatMult(A, exact, b));
  PetscCall(PetscTime(&t1));

  /* N = A^T A and c = A^T b */
  PetscCall(MatTransposeMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &N));
  PetscCall(PetscTime(&t2));
  PetscCall(MatTransposeMatMult(A, A, MAT_REUSE_MATRIX, PETSC_DEFAULT, &N));
  PetscCall(PetscTime(&t3));
  PetscCall(MatMultTranspose(A, b, c));

  solvers::SolveStats st;
  PetscCall(solvers::Solve(N, c, x, KSPCG, 1e-12, 100, &st));
  PetscCall(solvers::TrueResidual(A, x, b, &resA));
  PetscCall(RelError(x, exact, &err));

  PetscCall(PetscSNPrintf(title, sizeof(title), "Normal equations A^T A x = A^T b %" PetscInt_FMT "D, A upwind convection-diffusion (%s-point)", p.dim, p.dim == 2 ? "5" : "7"));
  PetscCall(solvers::ReportGrid(da, title, &h));
  if (p.dim == 2) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eps %g, v = (%g, %g)\n", (double)p.eps, (double)p.v[0], (double)p.v[1]));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eps %g, v = (%g, %g, %g)\n", (double)p.eps, (double)p.v[0], (double)p.v[1], (double)p.v[2]));
  PetscCall(solvers::ReportMatrix(A));
  PetscCall(MatGetType(N, &ntype));
  {
    PetscInt ndmax;
    PetscCall(solvers::MaxDiagonals(N, &ndmax));
    if (ndmax >= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "product A^T A: %s, diagonals per process %" PetscInt_FMT "\n", ntype, ndmax));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "product A^T A: %s, diagonals n/a\n", ntype));
  }
  PetscCall(solvers::ProductCheck(N, A, PETSC_TRUE, A, &pcheck));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "product check: ||N y - A^T (A y)|| / ||N y|| = %.2e (y random)\n", (double)pcheck));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT " (%s on A^T A), residual norm %.3e, ||b - A x|| %.3e\n", st.its, st.ktype, (double)st.rnorm, (double)resA));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error (relative): max %.10e\n", (double)err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, MatTransposeMatMult %.4f s (reuse %.4f s), solver set-up %.3f s, solve %.3f s\n", t1 - t0, t2 - t1, t3 - t2, st.setup, st.solve));

  if (p.gmres) {
    solvers::SolveStats sg;
    PetscReal           errg;
    PetscCall(VecZeroEntries(x));
    PetscCall(solvers::Solve(A, b, x, KSPGMRES, 1e-12, 100, &sg, "gmres_"));
    PetscCall(RelError(x, exact, &errg));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "direct on A: iterations %" PetscInt_FMT " (%s), residual norm %.3e, error (relative) max %.10e, solve %.3f s\n", sg.its, sg.ktype, (double)sg.rnorm, (double)errg, sg.solve));
  }

  PetscCall(VecDestroy(&c));
  PetscCall(MatDestroy(&N));
  PetscCall(solvers::DestroySystem(&da, &A, &x, &b, &exact));
  PetscCall(PetscFinalize());
  return 0;
}
