static const char help[] = "Variable-coefficient diffusion -div(k grad u) = f on the unit square or cube, Dirichlet boundary,\n"
                           "5-point (2D) / 7-point (3D) flux form: k at the grid points, harmonic averages at the faces.\n"
                           "Coefficient fields (-coef), all with max k / min k = contrast:\n"
                           "  smooth        k = contrast^(phi/2), phi = sin(2 pi x) sin(2 pi y) [sin(2 pi z)]; manufactured solution\n"
                           "                u = sin(pi x) sin(pi y) [sin(pi z)] + x + 2y [+ 3z], the error is printed (second order)\n"
                           "  layered       k = contrast in every other of -layers horizontal layers (along y in 2D, z in 3D), else 1\n"
                           "  checkerboard  k = contrast on the dark squares of a -blocks^dim checkerboard, else 1\n"
                           "  random        k = contrast^r, r uniform in [0,1) per block of a -blocks^dim grid (-seed)\n"
                           "The discontinuous fields solve f = 1, u = 0 on the boundary: iterations and residual only.\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>                                  dimension (default 2)\n"
                           "  -coef <smooth,layered,checkerboard,random>  coefficient field (default smooth)\n"
                           "  -contrast <c>                               max k / min k (default 100)\n"
                           "  -layers <n>, -blocks <n>, -seed <s>         field details (defaults 4; 4 checkerboard, 8 random; 1)\n"
                           "  -da_grid_x <n> ...                          grid points per direction (default 33), -da_refine <k>\n"
                           "  -ksp_type, -pc_type                         the solver (default cg + jacobi, rtol 1e-10)\n\n";

/* Row of point p (scaled by h^2): sum over its 2 dim faces f of
   k_f (u_p - u_q), q the neighbour across f, k_f = 2 k_p k_q / (k_p + k_q).
   The harmonic average is the exact face conductance of two half cells in
   series, the classical choice for jumping coefficients; for a smooth k it
   is k at the face midpoint + O(h^2), so the scheme is second order.
   Dirichlet values move to the right side: the operator is symmetric
   positive definite (CG). */

#include "common.hpp"

#include <petsctime.h>

#include <cstdint>
#include <cstring>

namespace {

using solvers::Local;
using solvers::Row;

enum class Coef { Smooth, Layered, Checkerboard, Random };
const char *const CoefNames[] = {"smooth", "layered", "checkerboard", "random"};

struct Problem {
  PetscInt  dim      = 2;
  Coef      coef     = Coef::Smooth;
  PetscReal contrast = 100;
  PetscInt  layers = 4, blocks = 4;
  PetscInt  seed   = 1;
};

/* a uniform number in [0,1) from integers (splitmix64): the same on every process */
PetscReal Hash01(std::uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}

inline PetscReal Phi(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  return PetscSinReal(2 * PETSC_PI * x) * PetscSinReal(2 * PETSC_PI * y) * (p.dim == 3 ? PetscSinReal(2 * PETSC_PI * z) : 1.0);
}

PetscReal K(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  auto cell = [](PetscReal t, PetscInt n) { return PetscMin((PetscInt)(t * n), n - 1); }; /* 0..n-1, t = 1 in the last */
  switch (p.coef) {
  case Coef::Smooth:
    return PetscPowReal(p.contrast, 0.5 * Phi(p, x, y, z));
  case Coef::Layered:
    return cell(p.dim == 3 ? z : y, p.layers) % 2 ? p.contrast : 1.0;
  case Coef::Checkerboard:
    return (cell(x, p.blocks) + cell(y, p.blocks) + (p.dim == 3 ? cell(z, p.blocks) : 0)) % 2 ? p.contrast : 1.0;
  case Coef::Random: {
    const std::uint64_t b = (std::uint64_t)cell(x, p.blocks) + (std::uint64_t)p.blocks * ((std::uint64_t)cell(y, p.blocks) + (std::uint64_t)p.blocks * (p.dim == 3 ? (std::uint64_t)cell(z, p.blocks) : 0));
    return PetscPowReal(p.contrast, Hash01(b ^ ((std::uint64_t)p.seed << 40)));
  }
  }
  return 1.0;
}

/* smooth case: u = s + x + 2y [+ 3z], s = prod sin(pi x_a), f = -div(k grad u) = -k lap u - grad k . grad u */
PetscReal Exact(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  if (p.coef != Coef::Smooth) return 0.0;
  const PetscReal s = PetscSinReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y) * (p.dim == 3 ? PetscSinReal(PETSC_PI * z) : 1.0);
  return s + x + 2 * y + (p.dim == 3 ? 3 * z : 0.0);
}

PetscReal Source(const Problem &p, PetscReal x, PetscReal y, PetscReal z)
{
  if (p.coef != Coef::Smooth) return 1.0;
  const bool      three = p.dim == 3;
  const PetscReal pi = PETSC_PI, X[3] = {x, y, z};
  PetscReal       sn[3], cs[3], s2[3], c2[3];
  for (int a = 0; a < 3; a++) {
    sn[a] = PetscSinReal(pi * X[a]), cs[a] = PetscCosReal(pi * X[a]);
    s2[a] = PetscSinReal(2 * pi * X[a]), c2[a] = PetscCosReal(2 * pi * X[a]);
  }
  if (!three) sn[2] = 1, cs[2] = 0, s2[2] = 1, c2[2] = 0;
  const PetscReal k = K(p, x, y, z), a = 0.5 * PetscLogReal(p.contrast);
  const PetscReal s = sn[0] * sn[1] * sn[2];
  /* grad u and grad phi, component by component */
  const PetscReal gu[3]   = {pi * cs[0] * sn[1] * sn[2] + 1, pi * sn[0] * cs[1] * sn[2] + 2, three ? pi * sn[0] * sn[1] * cs[2] + 3 : 0.0};
  const PetscReal gphi[3] = {2 * pi * c2[0] * s2[1] * s2[2], 2 * pi * s2[0] * c2[1] * s2[2], three ? 2 * pi * s2[0] * s2[1] * c2[2] : 0.0};
  const PetscReal lapu    = -p.dim * pi * pi * s;
  return -k * lapu - a * k * (gphi[0] * gu[0] + gphi[1] * gu[1] + gphi[2] * gu[2]);
}

PetscErrorCode Assemble(const Problem &p, DM da, Mat A, Vec b, Vec exact, PetscReal krange[2])
{
  DMDALocalInfo info;
  PetscScalar  *ba, *ea;
  PetscReal     kmin = PETSC_MAX_REAL, kmax = 0;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h   = 1.0 / (info.mx - 1);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  const PetscInt  di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
  auto            known = [&](PetscInt i, PetscInt j, PetscInt k) { return (PetscScalar)Exact(p, i * h, j * h, k * h); };
  PetscCall(VecGetArray(b, &ba));
  PetscCall(VecGetArray(exact, &ea));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        Row             row;
        const PetscReal kp = K(p, i * h, j * h, k * h);
        kmin = PetscMin(kmin, kp), kmax = PetscMax(kmax, kp);
        ea[Local(info, i, j, k)] = known(i, j, k);
        if (solvers::OnBoundary(info, i, j, k)) {
          row.Add(i, j, k, 1.0);
          row.rhs = known(i, j, k);
        } else {
          PetscReal diag = 0;
          row.rhs        = h * h * Source(p, i * h, j * h, k * h);
          for (PetscInt q = 0; q < 2 * dim; q++) {
            const PetscInt  ii = i + di[q], jj = j + dj[q], kk = k + dk[q];
            const PetscReal kq = K(p, ii * h, jj * h, kk * h), kf = 2 * kp * kq / (kp + kq);
            diag += kf;
            row.Couple(info, ii, jj, kk, -kf, known);
          }
          row.Add(i, j, k, diag);
        }
        PetscCall(row.Set(A, i, j, k));
        ba[Local(info, i, j, k)] = row.rhs;
      }
  PetscCall(VecRestoreArray(b, &ba));
  PetscCall(VecRestoreArray(exact, &ea));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MPIU_Allreduce(&kmin, &krange[0], 1, MPIU_REAL, MPIU_MIN, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&kmax, &krange[1], 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

PetscErrorCode GetOptions(Problem &p)
{
  PetscInt coef = 0;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Variable-coefficient diffusion", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, p.dim, &p.dim, NULL));
  PetscCall(PetscOptionsEList("-coef", "coefficient field", NULL, CoefNames, 4, CoefNames[0], &coef, NULL));
  PetscCall(PetscOptionsReal("-contrast", "max k / min k", NULL, p.contrast, &p.contrast, NULL));
  PetscCall(PetscOptionsInt("-layers", "layers of the layered field", NULL, p.layers, &p.layers, NULL));
  p.coef   = (Coef)coef;
  p.blocks = p.coef == Coef::Random ? 8 : 4;
  PetscCall(PetscOptionsInt("-blocks", "blocks per direction (checkerboard, random)", NULL, p.blocks, &p.blocks, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the random field", NULL, p.seed, &p.seed, NULL));
  PetscOptionsEnd();
  PetscCheck(p.dim == 2 || p.dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, p.dim);
  PetscCheck(p.contrast >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-contrast must be >= 1");
  PetscCheck(p.layers >= 1 && p.blocks >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-layers and -blocks must be >= 1");
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Problem        p;
  DM             da;
  Mat            A;
  Vec            x, b, exact;
  PetscReal      bnorm, errmax, errl2, h = 0, krange[2];
  PetscLogDouble t0, t1;
  char           title[160];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCall(GetOptions(p));
  PetscCall(PetscTime(&t0));
  PetscCall(solvers::CreateGrid(p.dim, DMDA_STENCIL_STAR, 1, 33, &da));
  PetscCall(solvers::CreateSystem(da, &A, &x, &b, &exact));
  PetscCall(Assemble(p, da, A, b, exact, krange));
  PetscCall(PetscTime(&t1));

  solvers::SolveStats st;
  PetscCall(solvers::Solve(A, b, x, KSPCG, 1e-10, 0, &st));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(solvers::GridSpacing(da, &h));

  PetscCall(PetscSNPrintf(title, sizeof(title), "Diffusion %" PetscInt_FMT "D, %s-point flux form (harmonic face averages)", p.dim, p.dim == 2 ? "5" : "7"));
  PetscCall(solvers::ReportGrid(da, title, &h));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "coefficient %s, contrast %g (k in [%g, %g] on the grid)\n", CoefNames[(int)p.coef], (double)p.contrast, (double)krange[0], (double)krange[1]));
  PetscCall(solvers::ReportMatrix(A));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT ", residual norm %.3e (relative %.3e)\n", st.its, (double)st.rnorm, (double)(st.rnorm / bnorm)));
  if (p.coef == Coef::Smooth) {
    PetscCall(solvers::ErrorNorms(x, exact, p.dim, h, &errmax, &errl2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: max %.10e, L2 %.10e\n", (double)errmax, (double)errl2));
  } else {
    PetscReal umax, ul2;
    PetscCall(VecNorm(x, NORM_INFINITY, &umax));
    PetscCall(VecNorm(x, NORM_2, &ul2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: n/a (no exact solution for a discontinuous coefficient); solution max %.10e, L2 %.10e\n", (double)umax, (double)(ul2 * PetscPowReal(h, 0.5 * p.dim))));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, solver set-up %.3f s, solve %.3f s\n", t1 - t0, st.setup, st.solve));

  PetscCall(solvers::DestroySystem(&da, &A, &x, &b, &exact));
  PetscCall(PetscFinalize());
  return 0;
}
