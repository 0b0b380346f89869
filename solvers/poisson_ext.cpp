static const char help[] = "Poisson's equation -lap u = f on the unit square or cube with the compact stencils:\n"
                           "9-point in 2D, 27-point in 3D (also 5 and 7 for comparison), Dirichlet or pure Neumann boundary.\n"
                           "With the Mehrstellen right side f + h^2/12 lap_h f the compact stencils are fourth order;\n"
                           "with the plain right side f (and the 5/7-point stencils) second order.\n"
                           "Manufactured solutions: Dirichlet  u = sin(pi x) sin(pi y) [sin(pi z)] + exp(x + y/2 [+ z/4]),\n"
                           "                        Neumann    u = exp(cos(pi x) cos(pi y) [cos(pi z)])  (du/dn = 0).\n"
                           "The Neumann problem is singular (constants): the constant null space is attached to the matrix,\n"
                           "the right side is made consistent, and the error is measured after removing the mean.\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>                   dimension (default 2)\n"
                           "  -stencil <5,9,7,27>          points of the stencil (default 9 in 2D, 27 in 3D)\n"
                           "  -bc <dirichlet,neumann>      boundary condition (default dirichlet)\n"
                           "  -rhs <mehrstellen,plain>     right side of the compact stencils (default mehrstellen)\n"
                           "  -da_grid_x <n> ...           grid points per direction (default 33), -da_refine <k> refines\n"
                           "  -ksp_type, -pc_type          the solver (default cg + jacobi, rtol 1e-12)\n\n";

/* Both compact stencils are lap + h^2/12 lap^2 + O(h^4) (as h^-2 times
   the weights below), so with the right side f + h^2/12 lap f they are fourth
   order ("Mehrstellen", Collatz). lap f is taken with the 5/7-point stencil on
   the grid values of f.

   Dirichlet: boundary rows are identity rows, known values move to the right
   side, so the operator stays symmetric (CG applies).
   Neumann: every grid point is an unknown; a neighbour outside the domain is
   its mirror image inside (u_{-1} = u_1, the ghost-point form of du/dn = 0),
   and a row on the boundary is scaled by 1/2 per boundary direction (the
   share of its control volume inside the domain), which makes the matrix
   symmetric, with the constants as null space. The mirror is exact for the
   manufactured solution (it is even about every face, all odd normal
   derivatives vanish), so the Neumann runs keep the order of the stencil; for
   a solution whose third normal derivative does not vanish on the boundary
   the mirror closure is second order. */

#include "common.hpp"

#include <petsctime.h>

#include <cstring>

namespace {

using solvers::Local;
using solvers::Row;

struct Problem {
  PetscInt  dim     = 2;
  PetscInt  stencil = 9;
  PetscBool neumann = PETSC_FALSE;
  PetscBool mehr    = PETSC_TRUE; /* Mehrstellen right side */
  PetscReal w[4]    = {0, 0, 0, 0}; /* h^2 (-lap_h) weight of a neighbour with m nonzero offsets */
};

PetscReal Exact(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  const bool three = p.dim == 3;
  if (p.neumann) return PetscExpReal(PetscCosReal(PETSC_PI * x) * PetscCosReal(PETSC_PI * y) * (three ? PetscCosReal(PETSC_PI * z) : 1.0));
  return PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (three ? PetscSinReal(PETSC_PI * z) : 1.0) + PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
}

/* f = -lap u */
PetscReal Source(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  const bool      three = p.dim == 3;
  const PetscReal pi2   = PETSC_PI * PETSC_PI;
  if (p.neumann) { /* u = exp(c), c = prod cos(pi x_a): -lap u = pi^2 u (dim c - sum_a sin^2(pi x_a) prod_{b != a} cos^2(pi x_b)) */
    const PetscReal cx = PetscCosReal(PETSC_PI * x), cy = PetscCosReal(PETSC_PI * y), cz = three ? PetscCosReal(PETSC_PI * z) : 1.0;
    const PetscReal sx = PetscSinReal(PETSC_PI * x), sy = PetscSinReal(PETSC_PI * y), sz = three ? PetscSinReal(PETSC_PI * z) : 0.0;
    const PetscReal c = cx * cy * cz, g = sx * sx * cy * cy * cz * cz + cx * cx * sy * sy * cz * cz + cx * cx * cy * cy * sz * sz;
    return pi2 * PetscExpReal(c) * (p.dim * c - g);
  }
  return p.dim * pi2 * PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (three ? PetscSinReal(PETSC_PI * z) : 1.0) - (1.0 + 0.25 + (three ? 0.0625 : 0.0)) * PetscExpReal(x + y / 2 + (three ? z / 4 : 0.0));
}

/* Mirror index for the Neumann problem: -1 -> 1, m -> m - 2. */
inline PetscInt Mirror(PetscInt i, PetscInt m) { return i < 0 ? -i : (i > m - 1 ? 2 * (m - 1) - i : i); }

PetscErrorCode Assemble(const Problem &p, DM da, Mat A, Vec b, Vec exact)
{
  DMDALocalInfo info;
  PetscScalar  *ba, *ea;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1, kr = dim == 3 ? 1 : 0;
  auto            known = [&](PetscInt i, PetscInt j, PetscInt k) { return (PetscScalar)Exact(p, i * h, j * h, k * h); };
  /* f at a grid point; for Neumann mirrored into the domain like u */
  auto f = [&](PetscInt i, PetscInt j, PetscInt k) {
    if (p.neumann) i = Mirror(i, info.mx), j = Mirror(j, info.my), k = dim == 3 ? Mirror(k, info.mz) : 0;
    return Source(p, i * h, j * h, k * h);
  };
  PetscCall(VecGetArray(b, &ba));
  PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        Row row;
        ea[Local(info, i, j, k)] = known(i, j, k);
        if (!p.neumann && solvers::OnBoundary(info, i, j, k)) {
          row.Add(i, j, k, 1.0);
          row.rhs = known(i, j, k);
        } else {
          PetscReal scale = 1.0, rhs = f(i, j, k);
          if (p.neumann) { /* the share of the control volume inside the domain */
            if (i == 0 || i == info.mx - 1) scale *= 0.5;
            if (j == 0 || j == info.my - 1) scale *= 0.5;
            if (dim == 3 && (k == 0 || k == info.mz - 1)) scale *= 0.5;
          }
          if (p.mehr) { /* f + h^2/12 lap_h f */
            const PetscReal f0 = rhs;
            rhs -= 2 * dim * f0 / 12;
            for (PetscInt s = -1; s <= 1; s += 2) {
              rhs += (f(i + s, j, k) + f(i, j + s, k) + (dim == 3 ? f(i, j, k + s) : 0.0)) / 12;
            }
          }
          row.rhs = scale * h * h * rhs;
          for (PetscInt dk = -kr; dk <= kr; dk++)
            for (PetscInt dj = -1; dj <= 1; dj++)
              for (PetscInt di = -1; di <= 1; di++) {
                const PetscReal c = p.w[(di != 0) + (dj != 0) + (dk != 0)];
                if (c == 0) continue;
                if (p.neumann) row.Add(Mirror(i + di, info.mx), Mirror(j + dj, info.my), dim == 3 ? Mirror(k + dk, info.mz) : 0, scale * c);
                else row.Couple(info, i + di, j + dj, k + dk, c, known);
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
  char      bc[32] = "dirichlet", rhs[32] = "mehrstellen";
  PetscBool set;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Poisson with compact stencils", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, p.dim, &p.dim, NULL));
  p.stencil = p.dim == 2 ? 9 : 27;
  PetscCall(PetscOptionsInt("-stencil", "points of the stencil (5, 9 in 2D; 7, 27 in 3D)", NULL, p.stencil, &p.stencil, NULL));
  PetscCall(PetscOptionsString("-bc", "boundary condition (dirichlet, neumann)", NULL, bc, bc, sizeof(bc), NULL));
  PetscCall(PetscOptionsString("-rhs", "right side of the compact stencils (mehrstellen, plain)", NULL, rhs, rhs, sizeof(rhs), &set));
  PetscOptionsEnd();
  PetscCheck(p.dim == 2 || p.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, p.dim);
  PetscCheck(!std::strcmp(bc, "dirichlet") || !std::strcmp(bc, "neumann"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-bc must be dirichlet or neumann, not %s", bc);
  PetscCheck(!std::strcmp(rhs, "mehrstellen") || !std::strcmp(rhs, "plain"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-rhs must be mehrstellen or plain, not %s", rhs);
  p.neumann = std::strcmp(bc, "neumann") ? PETSC_FALSE : PETSC_TRUE;
  p.mehr    = std::strcmp(rhs, "plain") ? PETSC_TRUE : PETSC_FALSE;
  /* h^2 (-lap_h): weights by the number of nonzero offsets (centre, face, edge, corner) */
  if (p.dim == 2 && p.stencil == 5) p.w[0] = 4, p.w[1] = -1;
  else if (p.dim == 2 && p.stencil == 9) p.w[0] = 20.0 / 6, p.w[1] = -4.0 / 6, p.w[2] = -1.0 / 6;
  else if (p.dim == 3 && p.stencil == 7) p.w[0] = 6, p.w[1] = -1;
  else if (p.dim == 3 && p.stencil == 27) p.w[0] = 128.0 / 30, p.w[1] = -14.0 / 30, p.w[2] = -3.0 / 30, p.w[3] = -1.0 / 30;
  else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stencil %" PetscInt_FMT " is not one of 5, 9 (2D) or 7, 27 (3D) in %" PetscInt_FMT "D", p.stencil, p.dim);
  if (p.stencil == 5 || p.stencil == 7) {
    PetscCheck(!set || !p.mehr, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-rhs mehrstellen needs a compact stencil (9 or 27 points)");
    p.mehr = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* x - mean(x) */
PetscErrorCode RemoveMean(Vec x)
{
  PetscScalar sum;
  PetscInt    n;

  PetscFunctionBeginUser;
  PetscCall(VecSum(x, &sum));
  PetscCall(VecGetSize(x, &n));
  PetscCall(VecShift(x, -sum / n));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Problem        p;
  DM             da;
  Mat            A;
  Vec            x, b, exact;
  MatNullSpace   nullsp = NULL;
  PetscReal      errmax, errl2, h = 0, bmean = 0;
  PetscLogDouble t0, t1;
  char           title[128];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(GetOptions(p));
  PetscCall(PetscTime(&t0));
  /* the compact stencils couple along edges and corners: a box stencil */
  PetscCall(solvers::CreateGrid(p.dim, p.stencil == 5 || p.stencil == 7 ? DMDA_STENCIL_STAR : DMDA_STENCIL_BOX, 1, 33, &da));
  PetscCall(solvers::CreateSystem(da, &A, &x, &b, &exact));
  PetscCall(Assemble(p, da, A, b, exact));
  if (p.neumann) {
    PetscScalar sum;
    PetscInt    n;
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nullsp));
    PetscCall(MatSetNullSpace(A, nullsp));
    /* consistent right side: b orthogonal to the constants (the matrix is symmetric) */
    PetscCall(VecSum(b, &sum));
    PetscCall(VecGetSize(b, &n));
    bmean = PetscAbsScalar(sum) / n;
    PetscCall(MatNullSpaceRemove(nullsp, b));
  }
  PetscCall(PetscTime(&t1));

  solvers::SolveStats st;
  PetscCall(solvers::Solve(A, b, x, KSPCG, 1e-12, 0, &st));
  if (p.neumann) { /* the solution is defined up to a constant */
    PetscCall(RemoveMean(x));
    PetscCall(RemoveMean(exact));
  }
  PetscCall(solvers::GridSpacing(da, &h));
  PetscCall(solvers::ErrorNorms(x, exact, p.dim, h, &errmax, &errl2));

  PetscCall(PetscSNPrintf(title, sizeof(title), "Poisson %" PetscInt_FMT "D, %" PetscInt_FMT "-point stencil, %s boundary, right side %s", p.dim, p.stencil, p.neumann ? "Neumann" : "Dirichlet",
                          p.mehr ? "f + h^2/12 lap f (fourth order)" : "f (second order)"));
  PetscCall(solvers::ReportGrid(da, title, &h));
  PetscCall(solvers::ReportMatrix(A));
  if (p.neumann) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "null space: constants; mean %.2e removed from the right side\n", (double)bmean));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT ", residual norm %.3e\n", st.its, (double)st.rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error%s: max %.10e, L2 %.10e\n", p.neumann ? " (mean removed)" : "", (double)errmax, (double)errl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, solver set-up %.3f s, solve %.3f s\n", t1 - t0, st.setup, st.solve));

  PetscCall(MatNullSpaceDestroy(&nullsp));
  PetscCall(solvers::DestroySystem(&da, &A, &x, &b, &exact));
  PetscCall(PetscFinalize());
  return 0;
}
