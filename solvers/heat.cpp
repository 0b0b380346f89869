static const char help[] = "Heat equation u_t = lap u on the unit square or cube, u = 0 on the boundary, with TS:\n"
                           "-ts_type beuler (backward Euler, first order in time) or cn (Crank-Nicolson, second order).\n"
                           "Space: 5-point (2D) / 7-point (3D) Laplacian L, assembled once. Every step TS asks for the\n"
                           "Jacobian shift I - L of the implicit function F(t, u, u_t) = u_t - L u; -jacobian picks how it is built:\n"
                           "  copy      MatCopy(L, J) + MatScale(J, -1) + MatShift(J, shift)   (default)\n"
                           "  axpy      MatZeroEntries(J) + MatShift(J, shift) + MatAXPY(J, -1, L)\n"
                           "  assemble  MatSetValuesStencil of all entries into J again (in-place re-assembly)\n"
                           "Decaying solution from u(0) = g(x) g(y) [g(z)], g(x) = 64 x^3 (1 - x)^3: u is a product of 1D heat flows,\n"
                           "each a sine series. The exact solution of the ODE system u' = L u is the same\n"
                           "product with the discrete sine transform of g and the eigenvalues of L: the 'time error' against it is the\n"
                           "error of the time integrator alone; the 'error' against the PDE solution includes the O(h^2) space error.\n"
                           "Any matrix type: -dm_mat_type diag (default here), aij, ...\n"
                           "Options:\n"
                           "  -dim <2,3>                       dimension (default 2)\n"
                           "  -ts_type <beuler,cn>             integrator (default beuler)\n"
                           "  -ts_dt <dt>, -ts_max_time <T>    step and final time (defaults 0.01, 0.1)\n"
                           "  -jacobian <copy,axpy,assemble>   how shift I - L is built (default copy)\n"
                           "  -da_grid_x <n> ...               grid points per direction (default 33), -da_refine <k>\n"
                           "  -ksp_type, -pc_type              the linear solver of each step (default cg + jacobi, rtol 1e-10)\n\n";

/* Boundary rows of L are zero, so F = u_t there and the boundary values keep
   their initial value 0; interior rows couple only to interior points. */

#include "common.hpp"

#include <petscts.h>
#include <petsctime.h>

#include <vector>

namespace {

using solvers::Local;

enum class JacobianBuild { Copy, Axpy, Assemble };
const char *const JacobianNames[] = {"copy", "axpy", "assemble"};

struct Ctx {
  DM            da;
  Mat           L;
  JacobianBuild build = JacobianBuild::Copy;
  PetscInt      njac  = 0;
};

/* The initial value is g(x) g(y) [g(z)], g(x) = 64 x^3 (1 - x)^3: zero on the boundary
   with g'' = 0 there too, so that u(0) is compatible (lap u = 0 on the boundary, like u_t);
   its sine coefficients fall like m^-5, so every mode of L is present well above round-off
   and the Krylov solves of each step do real, reproducible work. Both heat flows are
   products of 1D flows along x, y, z:
     PDE:        v(x, t) = sum_m c_m exp(-pi^2 m^2 t) sin(m pi x),  c_m = 2 int_0^1 g sin(m pi x)
     ODE u'=Lu:  v_h(x_i, t) = sum_m d_m exp(-mu_m t) sin(m pi x_i), d_m the discrete sine
                 transform of g on the grid, mu_m = 4/h^2 sin^2(m pi h / 2) (L's eigenvalues). */
PetscReal G(PetscReal x) { return 64 * x * x * x * (1 - x) * (1 - x) * (1 - x); }

/* the 1D profile at time t on the N + 1 grid points */
std::vector<PetscReal> Profile(PetscInt N, PetscReal t, bool discrete)
{
  const PetscReal        h = 1.0 / N, pi = PETSC_PI;
  std::vector<PetscReal> v(N + 1, 0.0);
  if (discrete) {
    for (PetscInt m = 1; m < N; m++) {
      PetscReal d = 0;
      for (PetscInt i = 1; i < N; i++) d += G(i * h) * PetscSinReal(m * pi * i * h);
      const PetscReal s = PetscSinReal(m * pi * h / 2), a = 2.0 / N * d * PetscExpReal(-4 * s * s / (h * h) * t);
      for (PetscInt i = 1; i < N; i++) v[i] += a * PetscSinReal(m * pi * i * h);
    }
  } else {
    const PetscInt Q = 4096; /* trapezoid rule: error O(Q^-6) here (the integrand's odd derivatives vanish at 0 and 1 up to the fifth) */
    for (PetscInt m = 1; m <= 60; m++) {
      PetscReal c = 0;
      for (PetscInt q = 1; q < Q; q++) c += G((PetscReal)q / Q) * PetscSinReal(m * pi * q / Q);
      const PetscReal a = 2.0 / Q * c * PetscExpReal(-pi * pi * m * m * t);
      for (PetscInt i = 1; i < N; i++) v[i] += a * PetscSinReal(m * pi * i * h);
    }
  }
  return v;
}

/* u(t) on the grid: the PDE solution or the exact solution of u' = L u */
PetscErrorCode Solution(DM da, PetscReal t, bool discrete, Vec u)
{
  DMDALocalInfo info;
  PetscScalar  *ua;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const std::vector<PetscReal> v  = Profile(info.mx - 1, t, discrete);
  const PetscInt               zs = info.dim == 3 ? info.zs : 0, zm = info.dim == 3 ? info.zm : 1;
  PetscCall(VecGetArray(u, &ua));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) ua[Local(info, i, j, k)] = v[i] * v[j] * (info.dim == 3 ? v[k] : 1.0);
  PetscCall(VecRestoreArray(u, &ua));
  PetscFunctionReturn(0);
}

/* A = shift I + scale L, entry by entry (scale 1, shift 0: L itself) */
PetscErrorCode AssembleShifted(DM da, PetscReal shift, PetscReal scale, Mat A)
{
  DMDALocalInfo info;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt  dim = info.dim;
  const PetscReal h = 1.0 / (info.mx - 1), c = scale / (h * h);
  const PetscInt  zs = dim == 3 ? info.zs : 0, zm = dim == 3 ? info.zm : 1;
  const PetscInt  di[6] = {-1, 1, 0, 0, 0, 0}, dj[6] = {0, 0, -1, 1, 0, 0}, dk[6] = {0, 0, 0, 0, -1, 1};
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        solvers::Row row;
        if (solvers::OnBoundary(info, i, j, k)) row.Add(i, j, k, shift); /* L has a zero row here */
        else {
          row.Add(i, j, k, shift - 2.0 * dim * c);
          for (PetscInt q = 0; q < 2 * dim; q++) {
            const PetscInt ii = i + di[q], jj = j + dj[q], kk = k + dk[q];
            if (!solvers::OnBoundary(info, ii, jj, kk)) row.Add(ii, jj, kk, c);
          }
        }
        PetscCall(row.Set(A, i, j, k));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* F(t, u, u_t) = u_t - L u */
PetscErrorCode IFunction(TS, PetscReal, Vec U, Vec Udot, Vec F, void *ptr)
{
  Ctx *ctx = (Ctx *)ptr;

  PetscFunctionBeginUser;
  PetscCall(MatMult(ctx->L, U, F));
  PetscCall(VecAYPX(F, -1.0, Udot));
  PetscFunctionReturn(0);
}

/* dF/du + shift dF/du_t = shift I - L */
PetscErrorCode IJacobian(TS, PetscReal, Vec, Vec, PetscReal shift, Mat J, Mat P, void *ptr)
{
  Ctx *ctx = (Ctx *)ptr;

  PetscFunctionBeginUser;
  ctx->njac++;
  switch (ctx->build) {
  case JacobianBuild::Copy:
    PetscCall(MatCopy(ctx->L, P, SAME_NONZERO_PATTERN));
    PetscCall(MatScale(P, -1.0));
    PetscCall(MatShift(P, shift));
    break;
  case JacobianBuild::Axpy:
    PetscCall(MatZeroEntries(P));
    PetscCall(MatShift(P, shift));
    PetscCall(MatAXPY(P, -1.0, ctx->L, SAME_NONZERO_PATTERN));
    break;
  case JacobianBuild::Assemble:
    PetscCall(AssembleShifted(ctx->da, shift, -1.0, P));
    break;
  }
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Ctx            ctx;
  DM             da;
  Mat            J;
  Vec            u, ex;
  TS             ts;
  TSType         tstype;
  KSP            ksp;
  PetscInt       dim = 2, build = 0, steps, its;
  PetscReal      h = 0, dt, tfinal, rnorm, errmax, errl2, terrmax, terrl2;
  PetscLogDouble t0, t1, t2, t3;
  char           title[160];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Heat equation", NULL);
  PetscCall(PetscOptionsInt("-dim", "dimension (2 or 3)", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsEList("-jacobian", "how shift I - L is built", NULL, JacobianNames, 3, JacobianNames[0], &build, NULL));
  PetscOptionsEnd();
  ctx.build = (JacobianBuild)build;

  PetscCall(PetscTime(&t0));
  PetscCall(solvers::CreateGrid(dim, DMDA_STENCIL_STAR, 1, 33, &da));
  ctx.da = da;
  PetscCall(DMCreateMatrix(da, &ctx.L));
  PetscCall(DMCreateMatrix(da, &J));
  PetscCall(AssembleShifted(da, 0.0, 1.0, ctx.L));
  PetscCall(AssembleShifted(da, 1.0, -1.0, J)); /* the structure; TS overwrites the values */
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecDuplicate(u, &ex));
  PetscCall(PetscTime(&t1));

  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetDM(ts, da));
  PetscCall(TSSetProblemType(ts, TS_LINEAR));
  PetscCall(TSSetType(ts, TSBEULER));
  PetscCall(TSSetIFunction(ts, NULL, IFunction, &ctx));
  PetscCall(TSSetIJacobian(ts, J, J, IJacobian, &ctx));
  PetscCall(TSSetTimeStep(ts, 0.01));
  PetscCall(TSSetMaxTime(ts, 0.1));
  PetscCall(TSSetMaxSteps(ts, 100000000));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  {
    SNES snes;
    PC   pc;
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(SNESSetType(snes, SNESKSPONLY));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(TSSetFromOptions(ts));
  PetscCall(solvers::GalerkinUnlessRediscretized(ksp)); /* -pc_type mg: the DMDA gives the grids, the operators are Galerkin's */
  PetscCall(Solution(da, 0.0, true, u));
  PetscCall(TSSetUp(ts));
  PetscCall(PetscTime(&t2));
  PetscCall(TSSolve(ts, u));
  PetscCall(PetscTime(&t3));

  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetTime(ts, &tfinal));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetType(ts, &tstype));
  PetscCall(TSGetKSPIterations(ts, &its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(solvers::GridSpacing(da, &h));
  PetscCall(Solution(da, tfinal, false, ex));
  PetscCall(solvers::ErrorNorms(u, ex, dim, h, &errmax, &errl2));
  PetscCall(Solution(da, tfinal, true, ex));
  PetscCall(solvers::ErrorNorms(u, ex, dim, h, &terrmax, &terrl2));

  PetscCall(PetscSNPrintf(title, sizeof(title), "Heat equation %" PetscInt_FMT "D, %s-point Laplacian, TS %s", dim, dim == 2 ? "5" : "7", tstype));
  PetscCall(solvers::ReportGrid(da, title, &h));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time steps %" PetscInt_FMT " of dt %g to t = %g, Jacobian (shift I - L) built %" PetscInt_FMT " times by %s\n", steps, (double)dt, (double)tfinal, ctx.njac, JacobianNames[build]));
  PetscCall(solvers::ReportMatrix(J));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP iterations %" PetscInt_FMT " (all steps), residual norm %.3e (last step)\n", its, (double)rnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error: max %.10e, L2 %.10e\n", (double)errmax, (double)errl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time error: max %.10e, L2 %.10e\n", (double)terrmax, (double)terrl2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: assembly %.3f s, solver set-up %.3f s, solve %.3f s\n", t1 - t0, t2 - t1, t3 - t2));

  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&ex));
  PetscCall(MatDestroy(&J));
  PetscCall(MatDestroy(&ctx.L));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
