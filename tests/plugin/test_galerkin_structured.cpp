/* PCMG's Galerkin coarse operators from the interpolation's formula
   (pc/galerkin_structured.cpp): Galerkin PCMG on a diag operator of a
   1D, 2D and 3D DMDA (odd sizes: 2:1 vertex-centred coarsening; star and
   box stencils), with CUDA vectors (the products on the GPU) and, with
   -host_check, host vectors (on the host; on any machine), against the same
   PCMG on an aij operator (aijcusparse with CUDA vectors):
   - every coarse operator is computed from the formula (the event
     MatDiagPtAPQ1 counted once per coarse level), holds aij's values to
     rounding and, as aij, exactly aij's PtAP entries (its aij copy's
     pattern equals aij's coarse operator's);
   - the solve takes aij's iterations, the same solution to rounding, and
     the same as with -mat_diag_galerkin_structured 0 (the general path,
     event not counted);
   - a constant-coefficient operator (whose device copy holds only its
     compressed form, read as it is) likewise;
   - new values (MatScale, MatShift) and PCSetUp again: the coarse
     operators recomputed (MAT_REUSE_MATRIX), aij's again;
   - an operator with a nonzero coupling the end of a grid line with the
     next line's start (a stored entry of diag's +1 diagonal; a new entry
     for aij) is handed to the general path: aij's entries and values
     (the formula's would place that coupling wrongly), also when the
     nonzero is set after the set-up (the numeric phase hands over).
   One process (the path is sequential). Without a CUDA device the default
   run is SKIPPED, exit 77. Ends with "N passed, M failed". */
#include "gpu_or_host.hpp"
#include "plugin_testing.hpp"
#include "../../solvers/dm_inactive.hpp"

#include <petscdmda.h>
#include <petscksp.h>


#include <string>

using namespace plugin_testing;

namespace {

bool g_device = true; /* false with -host_check */

/* n points in x, about half as many in y, 2n - 1 in z (n odd). */
PetscErrorCode CreateGrid(PetscInt dim, PetscInt n, DMDAStencilType st, MatType type, DM *da)
{
  const PetscInt m = (n + 1) / 2;

  PetscFunctionBeginUser;
  if (dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, n, 1, 1, NULL, da));
  else if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n, m, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, st, n, m, 2 * n - 1, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetVecType(*da, g_device ? VECCUDA : VECSTANDARD));
  PetscCall(DMSetMatType(*da, type));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

/* A diagonally dominant variable-coefficient operator of da's stencil
   (star: 3, 5, 7 points; box: 3, 9, 27), values from the point numbers;
   with `wrap`, one more nonzero coupling the last point of the first grid
   line with the first point of the second. */
PetscErrorCode StencilOperator(DM da, bool wrap, Mat *A, bool constant = false)
{
  PetscInt        dim, xs, ys, zs, xm, ym, zm, M, N, P;
  DMDAStencilType st;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &st));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil     row = {k, j, i, 0}, col[27];
        PetscScalar    v[27];
        PetscInt       n  = 0;
        const PetscInt id = i + M * (j + N * k);
        for (PetscInt c = -1; c <= 1; c++)
          for (PetscInt b = -1; b <= 1; b++)
            for (PetscInt a = -1; a <= 1; a++) {
              const int moved = (a != 0) + (b != 0) + (c != 0);
              if ((st == DMDA_STENCIL_STAR && moved > 1) || (dim < 2 && b) || (dim < 3 && c)) continue;
              MatStencil s = {k + c, j + b, i + a, 0};
              if (s.i < 0 || s.i >= M || s.j < 0 || s.j >= N || s.k < 0 || s.k >= P) continue;
              col[n] = s;
              if (constant) v[n++] = moved ? -1.0 : 27.5;
              else v[n++] = moved ? -1.0 + 0.2 * Unit(7, id, a + 3 * b + 9 * c) : 2.0 * (moved + 27) + Unit(5, id, 0);
            }
        PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, v, INSERT_VALUES));
      }
  if (wrap && dim > 1) {
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValue(*A, M - 1, M, -0.5, INSERT_VALUES));
  }
  PetscCall(Assemble(*A));
  PetscFunctionReturn(0);
}

PetscErrorCode StructuredCount(PetscInt *count)
{
  PetscLogEvent      event;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId("MatDiagPtAPQ1", &event));
  PetscCall(PetscLogEventGetPerfInfo(0, event, &info));
  *count = info.count;
  PetscFunctionReturn(0);
}

/* A Galerkin PCMG with `levels` levels, options prefix `prefix`, set up. */
PetscErrorCode MGSetUp(DM da, Mat A, const char *prefix, PetscInt levels, KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetDM(*ksp, da));
  PetscCall(KSPSetDMInactive(*ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, levels, NULL));
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(0);
}

PetscErrorCode Solve(KSP ksp, Vec b, Vec *x, PetscInt *its)
{
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, x));
  PetscCall(KSPSolve(ksp, b, *x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscFunctionReturn(0);
}

/* Level l's operator of ksp's PCMG as a host seqaij matrix. */
PetscErrorCode LevelOperator(KSP ksp, PetscInt l, Mat *host)
{
  PC  pc;
  KSP smoother;
  Mat Al;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetSmoother(pc, l, &smoother));
  PetscCall(KSPGetOperators(smoother, &Al, NULL));
  PetscCall(MatConvert(Al, MATSEQAIJ, MAT_INITIAL_MATRIX, host));
  PetscFunctionReturn(0);
}

/* The coarse operators of diag's PCMG (dksp) against aij's (aksp): the
   same entries (row pointers and columns) and values to rounding. */
PetscErrorCode CompareCoarse(KSP dksp, KSP aksp, PetscInt levels, const std::string &cs, const std::string &when)
{
  PetscFunctionBeginUser;
  for (PetscInt l = 0; l + 1 < levels; l++) {
    Mat             D, R;
    const PetscInt *di, *dj, *ri, *rj;
    PetscInt        dn, rn;
    PetscBool       dd, rd, same = PETSC_TRUE;
    PetscReal       diff, ref;
    const std::string lv = " (level " + std::to_string(l) + ")" + when;
    PetscCall(LevelOperator(dksp, l, &D));
    PetscCall(LevelOperator(aksp, l, &R));
    PetscCall(MatGetRowIJ(D, 0, PETSC_FALSE, PETSC_FALSE, &dn, &di, &dj, &dd));
    PetscCall(MatGetRowIJ(R, 0, PETSC_FALSE, PETSC_FALSE, &rn, &ri, &rj, &rd));
    same = (dd && rd && dn == rn) ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt i = 0; same && i <= dn; i++) same = di[i] == ri[i] ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt e = 0; same && e < di[dn]; e++) same = dj[e] == rj[e] ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(Record(same, cs, "the coarse operator's aij entries are aij's PtAP's" + lv, Fmt("%d rows, %d / %d entries", (int)dn, (int)(dd ? di[dn] : -1), (int)(rd ? ri[rn] : -1))));
    PetscCall(MatRestoreRowIJ(D, 0, PETSC_FALSE, PETSC_FALSE, &dn, &di, &dj, &dd));
    PetscCall(MatRestoreRowIJ(R, 0, PETSC_FALSE, PETSC_FALSE, &rn, &ri, &rj, &rd));
    PetscCall(MatNorm(R, NORM_FROBENIUS, &ref));
    PetscCall(MatAXPY(D, -1.0, R, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(D, NORM_FROBENIUS, &diff));
    PetscCall(Record(diff <= 1e-13 * ref, cs, "the coarse operator holds aij's values" + lv, Fmt("relative difference %g", (double)(diff / ref))));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&R));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GridCase(PetscInt dim, PetscInt n, DMDAStencilType st, PetscInt levels, bool constant = false)
{
  DM                dda, ada;
  Mat               D, R;
  Vec               b, ab, x, ax, xoff;
  KSP               dksp, aksp, off;
  PetscInt          its, aits, its_off, before, after;
  PetscReal         rel;
  const std::string cs = std::to_string(dim) + "D n=" + std::to_string(n) + (st == DMDA_STENCIL_BOX ? " box" : " star") + (constant ? " constant" : "");

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(dim, n, st, MATDIAG, &dda));
  PetscCall(CreateGrid(dim, n, st, g_device ? MATAIJCUSPARSE : MATAIJ, &ada));
  PetscCall(StencilOperator(dda, false, &D, constant));
  PetscCall(StencilOperator(ada, false, &R, constant));
  PetscCall(MatCreateVecs(D, NULL, &b));
  PetscCall(MatCreateVecs(R, NULL, &ab));
  PetscCall(VecSet(b, 1.0));
  PetscCall(VecSet(ab, 1.0));

  PetscCall(StructuredCount(&before));
  PetscCall(MGSetUp(dda, D, "on_", levels, &dksp));
  PetscCall(StructuredCount(&after));
  PetscCall(Record(after - before == levels - 1, cs, "every coarse operator from the formula", Fmt("%d products counted, %d coarse levels", (int)(after - before), (int)(levels - 1))));
  PetscCall(MGSetUp(ada, R, "aij_", levels, &aksp));
  PetscCall(CompareCoarse(dksp, aksp, levels, cs, ""));
  PetscCall(Solve(dksp, b, &x, &its));
  PetscCall(Solve(aksp, ab, &ax, &aits));
  PetscCall(Record(its == aits, cs, "aij's iterations", Fmt("%d / %d", (int)its, (int)aits)));
  PetscCall(VecRelDiff(x, ax, &rel, NORM_INFINITY));
  PetscCall(Record(rel <= 1e-8, cs, "aij's solution", Fmt("relative difference %g", (double)rel)));

  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_galerkin_structured", "0"));
  PetscCall(StructuredCount(&before));
  PetscCall(MGSetUp(dda, D, "off_", levels, &off));
  PetscCall(StructuredCount(&after));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_galerkin_structured"));
  PetscCall(Record(after == before, cs, "-mat_diag_galerkin_structured 0: the general path"));
  PetscCall(Solve(off, b, &xoff, &its_off));
  PetscCall(Record(its == its_off, cs, "the general path's iterations", Fmt("%d / %d", (int)its, (int)its_off)));
  PetscCall(VecRelDiff(x, xoff, &rel, NORM_INFINITY));
  PetscCall(Record(rel <= 1e-8, cs, "the general path's solution", Fmt("relative difference %g", (double)rel)));

  /* new values, the same structure: the coarse operators' numeric phase */
  for (Mat M : {D, R}) {
    PetscCall(MatScale(M, 2.0));
    PetscCall(MatShift(M, 0.5));
  }
  PetscCall(StructuredCount(&before));
  PetscCall(KSPSetOperators(dksp, D, D)); /* PCMG's set-up again, the operators' new state seen */
  PetscCall(KSPSetOperators(aksp, R, R));
  for (KSP k : {dksp, aksp}) PetscCall(KSPSetUp(k));
  PetscCall(StructuredCount(&after));
  PetscCall(Record(after - before == levels - 1, cs, "new values: every coarse operator recomputed from the formula", Fmt("%d products counted", (int)(after - before))));
  PetscCall(CompareCoarse(dksp, aksp, levels, cs, " after MatScale and MatShift"));

  PetscCall(KSPDestroy(&dksp));
  PetscCall(KSPDestroy(&aksp));
  PetscCall(KSPDestroy(&off));
  for (Vec *v : {&b, &ab, &x, &ax, &xoff}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&dda));
  PetscCall(DMDestroy(&ada));
  PetscFunctionReturn(0);
}

/* A nonzero across a grid line's end: the general path, aij's values. */
PetscErrorCode WrapCase(PetscInt dim, PetscInt n)
{
  DM                dda, ada;
  Mat               D, R;
  KSP               dksp, aksp;
  const std::string cs = std::to_string(dim) + "D n=" + std::to_string(n) + " with a wrapping nonzero";

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(dim, n, DMDA_STENCIL_STAR, MATDIAG, &dda));
  PetscCall(CreateGrid(dim, n, DMDA_STENCIL_STAR, g_device ? MATAIJCUSPARSE : MATAIJ, &ada));
  PetscCall(StencilOperator(dda, true, &D));
  PetscCall(StencilOperator(ada, true, &R));
  PetscCall(MGSetUp(dda, D, "wrap_", 3, &dksp));
  PetscCall(MGSetUp(ada, R, "awrap_", 3, &aksp));
  PetscCall(CompareCoarse(dksp, aksp, 3, cs, ""));
  PetscCall(KSPDestroy(&dksp));
  PetscCall(KSPDestroy(&aksp));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&R));
  { /* the same nonzero appearing after the set-up: diag's numeric phase
       finds it (a stored entry of the +1 diagonal: no new structure) and
       hands the product over; aij's reference is set up afresh */
    PetscInt M;
    PetscCall(StencilOperator(dda, false, &D));
    PetscCall(MGSetUp(dda, D, "wrap2_", 3, &dksp));
    PetscCall(DMDAGetInfo(dda, NULL, &M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(MatSetOption(D, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValue(D, M - 1, M, -0.5, INSERT_VALUES));
    PetscCall(Assemble(D));
    PetscCall(KSPSetOperators(dksp, D, D));
    PetscCall(KSPSetUp(dksp));
    PetscCall(StencilOperator(ada, true, &R));
    PetscCall(MGSetUp(ada, R, "awrap2_", 3, &aksp));
    PetscCall(CompareCoarse(dksp, aksp, 3, cs, " (the nonzero set after the set-up)"));
    PetscCall(KSPDestroy(&dksp));
    PetscCall(KSPDestroy(&aksp));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&dda));
  PetscCall(DMDestroy(&ada));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int code = 0;
  if (!GpuOrHostMode(argc, argv, "test_galerkin_structured", &g_device)) return 77;
  PetscCall(Start(&argc, &argv, NULL));
  bool skipped;
  PetscCall(SkippedOnMoreProcesses("test_galerkin_structured", &skipped, &code));
  if (skipped) {
    PetscCall(PetscFinalize());
    return code;
  }
  PetscCall(PetscLogDefaultBegin());
  Run("1D n=1025", "structured Galerkin", []() { return GridCase(1, 1025, DMDA_STENCIL_STAR, 3); });
  Run("2D n=33 star", "structured Galerkin", []() { return GridCase(2, 33, DMDA_STENCIL_STAR, 3); });
  Run("2D n=17 box", "structured Galerkin", []() { return GridCase(2, 17, DMDA_STENCIL_BOX, 3); });
  Run("3D n=17 star", "structured Galerkin", []() { return GridCase(3, 17, DMDA_STENCIL_STAR, 3); });
  Run("3D n=9 box", "structured Galerkin", []() { return GridCase(3, 9, DMDA_STENCIL_BOX, 3); });
  Run("3D n=33 star", "structured Galerkin", []() { return GridCase(3, 33, DMDA_STENCIL_STAR, 4); });
  Run("3D n=33 star constant", "structured Galerkin", []() { return GridCase(3, 33, DMDA_STENCIL_STAR, 4, true); }); /* on the GPU: the operator's compressed form read as it is */
  Run("2D wrap", "structured Galerkin", []() { return WrapCase(2, 17); });
  Run("3D wrap", "structured Galerkin", []() { return WrapCase(3, 9); });
  PetscCall(Summary(&code));
  PetscCall(PetscFinalize());
  return code;
}
