/* A DMDA split over processes of unequal widths, the layout of any grid of
   2^k + 1 points on a 2D process grid (ksp ex50 at 1025^2 on 4 processes:
   513 + 512): each boundary grid line couples to its neighbour through a
   global offset of its own, hundreds of diagonals holding one entry each.
   diag keeps those couplings as a list (pdiag/remote.hpp, Mat_Diag::remote)
   and its products leave sparsely filled diagonals to a list
   (pdiag::hm_split_sparse_remote). Checked against aij on the same
   operator: the storage (within 1.5 times aij's entries; the diagonals
   would take several times that, as -mat_diag_list_remote 0 shows), every
   row (MatGetRow, MatGetValues, MatConvert to aij), MatMult, MatMultAdd
   (host HM storage: aij's vectors bit for bit, the sums in mpiaij's order),
   MatResidual, a Krylov solve with SOR and with bjacobi/ILU(0) (iterations
   equal); the work MatMult logs (flops) is within twice aij's, not the
   stored diagonals' (which would fail this by an order of magnitude), also
   after the values change, after a preallocated structure of zeros takes
   its values, after couplings set to zero take values again, and after
   MatRetrieveValues. MatMultTranspose and MatMultTransposeAdd read the list
   where it is: against aij's, and the storage (MatGetInfo's entries and
   bytes) the same after them. The operations that read diagonals only
   (MatNorm, MatDiagonalScale, MatZeroRows, MatAXPY) on a duplicate, which
   stores its list as diagonals first, and the original keeps its list.
   -dm_vec_type cuda runs the device path. */
#include "plugin_testing.hpp"

#include <petscdmda.h>
#include <petscksp.h>

using namespace plugin_testing;

static const char help[] = "diag products on a DMDA split into processes of unequal widths, against aij\n";

namespace {

/* A variable-coefficient 9-point operator on the DMDA (box stencil), values
   a function of the global grid point and the seed, identical for any
   process count; zero_east: the couplings to the east neighbour of every
   other grid line are explicit zeros (still entries of aij's pattern). */
PetscErrorCode FillOperator(DM da, Mat A, unsigned seed, bool zero_east = false)
{
  DMDALocalInfo info;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt j = info.ys; j < info.ys + info.ym; ++j)
    for (PetscInt i = info.xs; i < info.xs + info.xm; ++i) {
      MatStencil  row = {0, j, i, 0}, col[9];
      PetscScalar v[9];
      PetscInt    n   = 0;
      PetscScalar sum = 0;
      for (PetscInt dj = -1; dj <= 1; ++dj)
        for (PetscInt di = -1; di <= 1; ++di) {
          if (!di && !dj) continue;
          if (i + di < 0 || i + di >= info.mx || j + dj < 0 || j + dj >= info.my) continue;
          col[n] = {0, j + dj, i + di, 0};
          v[n]   = -1.0 - 0.5 * Unit(seed, j * info.mx + i, (dj + 1) * 3 + di + 1) * Unit(seed, 1, 2);
          if (zero_east && di == 1 && j % 2 == 0) v[n] = 0;
          sum += PetscAbsScalar(v[n]);
          ++n;
        }
      col[n] = row;
      v[n]   = sum + 0.5;
      ++n;
      PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The flops MatMult logs for one product on this process. */
PetscErrorCode MultFlops(Mat A, Vec x, Vec y, PetscLogDouble *flops)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo before, after;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId("MatMult", &ev));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &before));
  PetscCall(MatMult(A, x, y));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &after));
  *flops = after.flops - before.flops;
  PetscFunctionReturn(0);
}

PetscErrorCode CheckProducts(const std::string &cs, Mat D, Mat R)
{
  Vec            x, y, yr, z;
  PetscReal      rel;
  bool           exact;
  PetscLogDouble fd, fr;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(R, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(z, NULL));
  { /* host products of HM storage sum each row in aij's order (owned
       columns first, then the others): the same vector, bit for bit */
    MatDiagStorage st;
    PetscBool      cuda;
    PetscCall(MatDiagGetStorage(D, &st));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    exact = st == MAT_DIAG_STORAGE_HM && !cuda;
  }
  PetscCall(MultFlops(D, x, y, &fd));
  PetscCall(MultFlops(R, x, yr, &fr));
  PetscCall(VecRelDiff(y, yr, &rel));
  PetscCall(Record(rel <= (exact ? 0 : kTol), cs, exact ? "MatMult equals aij's bit for bit" : "MatMult", Fmt("rel %g", (double)rel)));
  PetscCall(Record(fd <= 2.0 * fr + 1, cs, "MatMult's work within twice aij's", Fmt("diag %g flops, aij %g", fd, fr)));
  PetscCall(MatMultAdd(D, x, z, y));
  PetscCall(MatMultAdd(R, x, z, yr));
  PetscCall(VecRelDiff(y, yr, &rel));
  PetscCall(Record(rel <= (exact ? 0 : kTol), cs, exact ? "MatMultAdd equals aij's bit for bit" : "MatMultAdd", Fmt("rel %g", (double)rel)));
  PetscCall(MatResidual(D, z, x, y));
  PetscCall(MatResidual(R, z, x, yr));
  PetscCall(VecRelDiff(y, yr, &rel));
  PetscCall(Record(rel <= kTol, cs, "MatResidual", Fmt("rel %g", (double)rel)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(0);
}

/* The entries D stores (diagonals and list) against the entries aij holds,
   summed over the processes. */
PetscErrorCode StoredRatio(Mat D, Mat R, double *ratio)
{
  MatInfo di, ri;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &di));
  PetscCall(MatGetInfo(R, MAT_GLOBAL_SUM, &ri));
  *ratio = (double)di.nz_allocated / (double)ri.nz_used;
  PetscFunctionReturn(0);
}

/* Every owned row of D as aij's: MatGetRow, MatGetValues at aij's
   columns, and MatConvert to aij equal to R. */
PetscErrorCode CheckRows(const std::string &cs, Mat D, Mat R)
{
  PetscInt  rstart, rend, bad = -1;
  PetscBool eq;
  Mat       C;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(R, &rstart, &rend));
  for (PetscInt i = rstart; i < rend && bad < 0; ++i) {
    PetscInt           nd, nr;
    const PetscInt    *cd, *cr;
    const PetscScalar *vd, *vr;
    std::vector<PetscInt>    cols;
    std::vector<PetscScalar> got;
    PetscCall(MatGetRow(R, i, &nr, &cr, &vr));
    cols.assign(cr, cr + nr);
    got.resize(nr);
    PetscCall(MatGetValues(D, 1, &i, nr, cols.data(), got.data()));
    for (PetscInt k = 0; k < nr; ++k)
      if (got[k] != vr[k]) bad = i;
    PetscCall(MatGetRow(D, i, &nd, &cd, &vd));
    if (nd != nr) bad = i;
    for (PetscInt k = 0; k < nd && k < nr; ++k)
      if (cd[k] != cr[k] || vd[k] != vr[k]) bad = i;
    PetscCall(MatRestoreRow(D, i, &nd, &cd, &vd));
    PetscCall(MatRestoreRow(R, i, &nr, &cr, &vr));
  }
  PetscCall(Record(bad < 0, cs, "MatGetRow and MatGetValues give aij's rows", Fmt("first row that differs %d", (int)bad)));
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatEqual(C, R, &eq));
  PetscCall(Record(eq, cs, "MatConvert to aij equals aij"));
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

/* MatMultTranspose and MatMultTransposeAdd of D against R's; D's storage
   (entries and bytes, MatGetInfo) is the same after them: they read the
   listed entries where they are. */
PetscErrorCode CheckTranspose(const std::string &cs, Mat D, Mat R)
{
  Vec       x, t, tr, z;
  PetscReal rel;
  MatInfo   before, after;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &before));
  PetscCall(MatCreateVecs(R, &t, &x));
  PetscCall(VecDuplicate(t, &tr));
  PetscCall(VecDuplicate(t, &z));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(z, NULL));
  PetscCall(MatMultTranspose(D, x, t));
  PetscCall(MatMultTranspose(R, x, tr));
  PetscCall(VecRelDiff(t, tr, &rel));
  PetscCall(Record(rel <= kTol, cs, "MatMultTranspose", Fmt("rel %g", (double)rel)));
  PetscCall(MatMultTransposeAdd(D, x, z, t));
  PetscCall(MatMultTransposeAdd(R, x, z, tr));
  PetscCall(VecRelDiff(t, tr, &rel));
  PetscCall(Record(rel <= kTol, cs, "MatMultTransposeAdd", Fmt("rel %g", (double)rel)));
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &after));
  PetscCall(Record(after.nz_allocated == before.nz_allocated && after.memory == before.memory, cs, "MatMultTranspose keeps the storage",
                   Fmt("stored entries %.0f -> %.0f, bytes %.0f -> %.0f", before.nz_allocated, after.nz_allocated, before.memory, after.memory)));
  for (Vec v : {x, t, tr, z}) PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* The operations that read diagonals only, on a duplicate of D (which
   stores its list as diagonals for them) against aij. */
PetscErrorCode CheckDiagonalsOnly(const std::string &cs, Mat D, Mat R)
{
  Mat       E, F;
  Vec       x, y, yr, l, r;
  PetscReal rel, nd, nr;
  PetscInt  row;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &E));
  PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &F));
  PetscCall(MatCreateVecs(R, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(y, &l));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(CheckTranspose(cs, E, F));
  for (NormType t : {NORM_FROBENIUS, NORM_1, NORM_INFINITY}) {
    PetscCall(MatNorm(E, t, &nd));
    PetscCall(MatNorm(F, t, &nr));
    PetscCall(Record(PetscAbsReal(nd - nr) <= kTol * nr, cs, Fmt("MatNorm %d", (int)t), Fmt("diag %g, aij %g", (double)nd, (double)nr)));
  }
  PetscCall(VecSetRandom(l, NULL));
  PetscCall(VecSetRandom(r, NULL));
  PetscCall(MatDiagonalScale(E, l, r));
  PetscCall(MatDiagonalScale(F, l, r));
  { /* X with its list too */
    Mat Ex, Fx;
    PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &Ex));
    PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &Fx));
    PetscCall(MatAXPY(E, 0.5, Ex, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(F, 0.5, Fx, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&Ex));
    PetscCall(MatDestroy(&Fx));
  }
  PetscCall(MatGetOwnershipRange(R, &row, NULL));
  PetscCall(MatZeroRows(E, 1, &row, 2.0, NULL, NULL));
  PetscCall(MatZeroRows(F, 1, &row, 2.0, NULL, NULL));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(E, x, y));
  PetscCall(MatMult(F, x, yr));
  PetscCall(VecRelDiff(y, yr, &rel));
  PetscCall(Record(rel <= kTol, cs, "MatDiagonalScale, MatAXPY, MatZeroRows", Fmt("rel %g", (double)rel)));
  for (Vec v : {x, y, yr, l, r}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&E));
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(0);
}

/* KSP iterations and residual norm of a GMRES solve with `pc` (sub-PC
   `sub` for bjacobi). */
PetscErrorCode Solve(Mat A, const char *pc, PetscInt *its, PetscReal *rnorm)
{
  KSP ksp;
  PC  p;
  Vec b, u;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &u, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &p));
  PetscCall(PCSetType(p, pc));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, rnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

CaseFilter g_filter; /* -case <text>: only the grids whose name contains it */

/* One grid: mx x my points on processes split m x n (PETSC_DECIDE allowed). */
PetscErrorCode CheckGrid(PetscInt mx, PetscInt my, PetscInt m, PetscInt n)
{
  DM                da;
  Mat               D, R;
  const std::string cs = Fmt("grid %dx%d on %dx%d", (int)mx, (int)my, (int)m, (int)n);

  PetscFunctionBeginUser;
  if (!g_filter(cs)) PetscFunctionReturn(0);
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, mx, my, m, n, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &R));
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMCreateMatrix(da, &D)); /* the stencil's structure of zeros first, as DMCreateMatrix gives it */
  Run(cs, "products", [&]() -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscCall(FillOperator(da, R, 1));
    PetscCall(FillOperator(da, D, 1));
    PetscCall(Record(IsDiag(D), cs, "DMCreateMatrix gives diag"));
    double ratio, ratio_off;
    PetscCall(StoredRatio(D, R, &ratio));
    PetscCall(Record(ratio <= 1.5, cs, "stores within 1.5 times aij's entries", Fmt("%.3f", ratio)));
    { /* the same without the list: several times more when the widths differ */
      Mat Doff;
      PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_list_remote", "0"));
      PetscCall(DMCreateMatrix(da, &Doff));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_list_remote"));
      PetscCall(FillOperator(da, Doff, 1));
      PetscCall(StoredRatio(Doff, R, &ratio_off));
      PetscCall(PetscInfo(NULL, "%s: stored / aij's entries %.3f with the list, %.3f without\n", cs.c_str(), ratio, ratio_off));
      PetscCall(CheckProducts(cs + " without the list", Doff, R));
      PetscCall(MatDestroy(&Doff));
    }
    PetscCall(CheckRows(cs, D, R));
    PetscCall(CheckProducts(cs, D, R));
    for (const char *pc : {PCSOR, PCBJACOBI}) {
      PetscInt  itd, itr;
      PetscReal rd, rr;
      PetscCall(Solve(D, pc, &itd, &rd));
      PetscCall(Solve(R, pc, &itr, &rr));
      PetscCall(Record(itd == itr, cs, Fmt("GMRES + %s iterations", pc), Fmt("diag %d, aij %d", (int)itd, (int)itr)));
    }
    /* new values (a Newton step's Jacobian): the split is examined again */
    PetscCall(FillOperator(da, R, 2));
    PetscCall(FillOperator(da, D, 2));
    PetscCall(CheckProducts(cs + " new values", D, R));
    /* couplings that were zero (passed over, the split unknown) take values:
       the split is examined again and lists them */
    PetscCall(FillOperator(da, R, 3, true));
    PetscCall(FillOperator(da, D, 3, true));
    PetscCall(CheckProducts(cs + " zero couplings", D, R));
    PetscCall(FillOperator(da, R, 4));
    PetscCall(FillOperator(da, D, 4));
    PetscCall(CheckProducts(cs + " couplings back", D, R));
    /* MatRetrieveValues brings couplings back without a new state */
    for (Mat M : {R, D}) {
      PetscCall(MatSetOption(M, MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
      PetscCall(MatStoreValues(M));
      PetscCall(FillOperator(da, M, 5, true));
    }
    PetscCall(CheckProducts(cs + " zero couplings again", D, R));
    for (Mat M : {R, D}) PetscCall(MatRetrieveValues(M));
    PetscCall(CheckProducts(cs + " retrieved", D, R));
    PetscCall(CheckRows(cs + " retrieved", D, R));
    PetscCall(CheckDiagonalsOnly(cs, D, R));
    double after;
    PetscCall(StoredRatio(D, R, &after));
    PetscCall(Record(after == ratio, cs, "keeps its list", Fmt("stored / aij's %.3f, was %.3f", after, ratio)));
    /* its own transposes, with its list; the products after them */
    PetscCall(CheckTranspose(cs, D, R));
    PetscCall(CheckProducts(cs + " after transposes", D, R));
    PetscFunctionReturn(0);
  });
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&R));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int exit_code = 0;

  PetscCall(Start(&argc, &argv, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(g_filter.FromOptions());
  /* unequal widths in x (the direction whose neighbours' offsets change
     with the grid line), in y, both, and an even split for reference */
  PetscCall(CheckGrid(33, 17, g_size, 1));
  PetscCall(CheckGrid(17, 33, 1, g_size));
  PetscCall(CheckGrid(33, 33, PETSC_DECIDE, PETSC_DECIDE));
  PetscCall(CheckGrid(32, 16, g_size, 1));
  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}
