/* MATDIAG against aij (ops_testing.hpp): assembly. Every case's
   MatSetValues / MatSetValuesStencil assembly (and what DMCreateMatrix
   predicts), re-assembly with new diagonals and with the same pattern, COO
   assembly; then MatSetValues options and -mat_diag_storage, and entries
   that cancel to an exact zero. */
#include "ops_testing.hpp"

#include <petscksp.h>

#include <algorithm>
#include <cstring>

using namespace ops_testing;

namespace {

PetscErrorCode TestBuild(const Case &c)
{
  Mat D, A;
  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(CheckSame(D, A, c.name, "assembly"));
  if (!c.dmda && c.spec.storage != MAT_DIAG_STORAGE_AUTO) {
    MatDiagStorage st;
    PetscCall(MatDiagGetStorage(D, &st));
    PetscCall(Record(st == c.spec.storage, c.name, "MatDiagGetStorage", Fmt("got %s, asked for %s", MatDiagStorages[st], MatDiagStorages[c.spec.storage])));
  }
  /* the layouts of both types agree */
  PetscInt r0, r1, s0, s1, c0, c1, d0, d1;
  PetscCall(MatGetOwnershipRange(D, &r0, &r1));
  PetscCall(MatGetOwnershipRange(A, &s0, &s1));
  PetscCall(MatGetOwnershipRangeColumn(D, &c0, &c1));
  PetscCall(MatGetOwnershipRangeColumn(A, &d0, &d1));
  PetscCall(Record(r0 == s0 && r1 == s1 && c0 == d0 && c1 == d1, c.name, "ownership ranges"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  if (c.dmda) {
    /* DMCreateMatrix knows the stencil: setting its values adds no diagonal */
    DM               da;
    PetscObjectState before, after;
    PetscInt         nbefore, nafter;
    PetscCall(c.create_da(&da));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &D));
    PetscCall(MatDiagSetStorage(D, MAT_DIAG_STORAGE_HM));
    PetscCall(MatDiagGetDiagonals(D, &nbefore, NULL));
    PetscCall(MatGetNonzeroState(D, &before));
    PetscCall(FillDA(D, da, c.da, 1));
    PetscCall(MatGetNonzeroState(D, &after));
    PetscCall(MatDiagGetDiagonals(D, &nafter, NULL));
    PetscCall(Record(before == after && nbefore == nafter, c.name, "DMCreateMatrix predicts every diagonal of the stencil", Fmt("%d diagonals before the values, %d after", (int)nbefore, (int)nafter)));
    PetscCall(MatDestroy(&D));
    /* a duplicate of the matrix DMCreateMatrix returns, taken before any value is set */
    {
      Mat D2;
      PetscCall(DMCreateMatrix(da, &D));
      PetscCall(MatDuplicate(D, MAT_DO_NOT_COPY_VALUES, &D2));
      PetscCall(FillDA(D2, da, c.da, 1));
      PetscCall(DMSetMatType(da, MATAIJ));
      PetscCall(DMCreateMatrix(da, &A));
      PetscCall(FillDA(A, da, c.da, 1));
      PetscCall(CheckSame(D2, A, c.name, "MatDuplicate of an unassembled DMDA matrix, then MatSetValuesStencil"));
      PetscCall(MatDestroy(&D2));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
    }
    PetscCall(DMDestroy(&da));
  }
  PetscFunctionReturn(0);
}

/* New diagonals after a product (the ghost exchange must be rebuilt, on
   every process, even where nothing changed), then a re-assembly of the
   same pattern. */
PetscErrorCode TestReassembly(const Case &c)
{
  Mat D, A;

  PetscFunctionBeginUser;
  if (c.M == 0 || c.N == 0) PetscFunctionReturn(0);
  PetscCall(c.build(1, &D, &A));
  PetscCall(CheckSame(D, A, c.name, "before re-assembly"));
  for (int round = 0; round < 2; round++) {
    for (Mat X : {D, A}) {
      for (int t = 0; t < 3; t++) {
        const std::uint64_t h = Mix((std::uint64_t)(1000 * round + 10 * g_rank + t));
        const PetscInt      i = (PetscInt)(h % (std::uint64_t)c.M), j = (PetscInt)((h >> 20) % (std::uint64_t)c.N);
        PetscCall(MatSetValue(X, i, j, Value(round, i, j), ADD_VALUES));
      }
      PetscCall(MatAssemblyBegin(X, round ? MAT_FINAL_ASSEMBLY : MAT_FLUSH_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, round ? MAT_FINAL_ASSEMBLY : MAT_FLUSH_ASSEMBLY));
    }
  }
  PetscCall(CheckSame(D, A, c.name, "re-assembly with new diagonals from any process"));
  /* the same pattern again: values written in place */
  PetscCall(MatZeroEntries(D));
  PetscCall(MatZeroEntries(A));
  PetscCall(CheckSame(D, A, c.name, "MatZeroEntries after re-assembly"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  if (!c.dmda) {
    const std::vector<Entry> e = Pattern(c.spec);
    const PetscInt          *ranges;
    PetscObjectState         before, after;
    PetscCall(c.build(1, &D, &A));
    PetscCall(MatGetOwnershipRanges(A, &ranges));
    PetscCall(MatGetNonzeroState(D, &before));
    for (Mat X : {D, A}) {
      PetscCall(SetEntries(X, c.spec, e, ranges, 2, 0, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
    }
    PetscCall(MatGetNonzeroState(D, &after));
    PetscCall(CheckSame(D, A, c.name, "re-assembly of the same pattern with new values"));
    PetscCall(Record(before == after, c.name, "re-assembly of the same pattern keeps the structure"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* COO: each process passes the entries it would set (remote rows too), each
   split into two duplicates, plus entries with a negative index (ignored). */
PetscErrorCode TestCOO(const Case &c)
{
  const RandSpec          &s = c.spec;
  const std::vector<Entry> e = Pattern(s);
  Mat                      D, A;
  const PetscInt          *ranges;
  std::vector<PetscInt>    ci, cj;
  std::vector<Entry>       mine;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, s.mloc, s.nloc, s.M, s.N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, s.mloc, s.nloc, s.M, s.N));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(MatDiagSetStorage(D, s.storage));
  PetscLayout rmap;
  PetscCall(PetscLayoutCreate(PETSC_COMM_WORLD, &rmap));
  PetscCall(PetscLayoutSetLocalSize(rmap, s.mloc));
  PetscCall(PetscLayoutSetSize(rmap, s.M));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutGetRanges(rmap, &ranges));
  for (const Entry &x : e)
    if (Setter(s, ranges, x.i, x.j) == g_rank) mine.push_back(x);
  PetscCall(PetscLayoutDestroy(&rmap));
  for (const Entry &x : mine) {
    ci.push_back(x.i);
    cj.push_back(x.j);
    ci.push_back(x.i);
    cj.push_back(x.j);
  }
  if (s.M > 0 && s.N > 0) { /* ignored entries */
    ci.push_back(-1);
    cj.push_back(0);
    ci.push_back(0);
    cj.push_back(-1);
  }
  {
    std::vector<PetscInt> i1 = ci, j1 = cj, i2 = ci, j2 = cj; /* the arrays may be modified */
    PetscCall(MatSetPreallocationCOO(D, (PetscCount)ci.size(), i1.data(), j1.data()));
    PetscCall(MatSetPreallocationCOO(A, (PetscCount)ci.size(), i2.data(), j2.data()));
  }
  for (int round = 0; round < 3; round++) {
    const InsertMode         mode = round == 1 ? ADD_VALUES : INSERT_VALUES;
    std::vector<PetscScalar> v;
    for (std::size_t k = 0; k < mine.size(); k++) {
      const PetscScalar x = Value(40 + round, mine[k].i, mine[k].j);
      v.push_back(0.3 * x);
      v.push_back(0.7 * x);
    }
    if (s.M > 0 && s.N > 0) {
      v.push_back(1e30);
      v.push_back(1e30);
    }
    PetscCall(MatSetValuesCOO(D, v.data(), mode));
    PetscCall(MatSetValuesCOO(A, v.data(), mode));
    PetscCall(CheckSame(D, A, c.name, Fmt("MatSetValuesCOO round %d %s", round, mode == ADD_VALUES ? "ADD" : "INSERT")));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  /* COO on a matrix that already holds values: the new structure starts from zeros */
  {
    std::vector<PetscInt>    i1 = ci, j1 = cj, i2 = ci, j2 = cj;
    std::vector<PetscScalar> v(ci.size(), 0.0);
    for (std::size_t k = 0; k < mine.size(); k++) v[2 * k] = v[2 * k + 1] = Value(50, mine[k].i, mine[k].j);
    PetscCall(c.build_other(9, &D, &A));
    PetscCall(MatSetPreallocationCOO(D, (PetscCount)ci.size(), i1.data(), j1.data()));
    PetscCall(MatSetPreallocationCOO(A, (PetscCount)ci.size(), i2.data(), j2.data()));
    PetscCall(MatSetValuesCOO(D, v.data(), ADD_VALUES));
    PetscCall(MatSetValuesCOO(A, v.data(), ADD_VALUES));
    PetscCall(CheckSame(D, A, c.name, "MatSetPreallocationCOO + MatSetValuesCOO ADD on an assembled matrix"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* MatSetValues options (column-oriented blocks, ignored off-process
   entries, MAT_NO_OFF_PROC_ENTRIES) and -mat_diag_storage. */
PetscErrorCode TestOptions()
{
  const PetscInt n = 30;
  RandSpec       s;
  Mat            D, A;
  const PetscInt *ranges;

  PetscFunctionBeginUser;
  s.M = s.N = n;
  s.offsets = {-3, 0, 7};
  s.mode    = SET_ADD;
  s.offproc = true;
  for (PetscBool ignore : {PETSC_FALSE, PETSC_TRUE}) {
    PetscCall(BuildRandom(s, 1, &D, &A));
    PetscCall(MatGetOwnershipRanges(A, &ranges));
    for (Mat X : {D, A}) {
      /* a 2 x 3 block on rows of this and the next process, values by columns */
      const PetscInt    rows[] = {ranges[g_rank] % n, ranges[(g_rank + 1) % g_size] % n};
      const PetscInt    cols[] = {(rows[0] + 1) % n, (rows[0] + 12) % n, -1};
      const PetscScalar v[]    = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
      PetscCall(MatSetOption(X, MAT_ROW_ORIENTED, PETSC_FALSE));
      PetscCall(MatSetOption(X, MAT_IGNORE_OFF_PROC_ENTRIES, ignore));
      PetscCall(MatSetValues(X, 2, rows, 3, cols, v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatSetOption(X, MAT_ROW_ORIENTED, PETSC_TRUE));
      PetscCall(MatSetOption(X, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_FALSE));
    }
    PetscCall(CheckSame(D, A, "options", ignore ? "MAT_ROW_ORIENTED false, MAT_IGNORE_OFF_PROC_ENTRIES" : "MAT_ROW_ORIENTED false"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  /* -mat_diag_storage through MatSetFromOptions, and in MatConvert */
  for (const char *st : {"cdm", "hm"}) {
    Mat            E;
    MatDiagStorage got, got2;
    PetscCall(BuildRandom(s, 1, &D, &A));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", st));
    PetscCall(MatSetFromOptions(D));
    PetscCall(MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &E));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_storage"));
    PetscCall(MatDiagGetStorage(D, &got));
    PetscCall(MatDiagGetStorage(E, &got2));
    PetscCall(Record(!strcmp(MatDiagStorages[got], st) && !strcmp(MatDiagStorages[got2], st), "options", Fmt("-mat_diag_storage %s", st), Fmt("got %s and %s", MatDiagStorages[got], MatDiagStorages[got2])));
    PetscCall(CheckSame(D, A, "options", Fmt("-mat_diag_storage %s on an assembled matrix", st)));
    PetscCall(CheckSame(E, A, "options", Fmt("-mat_diag_storage %s in MatConvert", st)));
    PetscCall(MatDestroy(&E));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  /* MAT_NO_OFF_PROC_ENTRIES when every process sets only its own rows */
  s.offproc = false;
  PetscCall(BuildRandom(s, 1, &D, &A));
  for (Mat X : {D, A}) {
    PetscInt r0, r1;
    PetscCall(MatSetOption(X, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    PetscCall(MatGetOwnershipRange(X, &r0, &r1));
    for (PetscInt i = r0; i < r1; i++) PetscCall(MatSetValue(X, i, (i + 5) % n, 0.5, ADD_VALUES));
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(CheckSame(D, A, "options", "MAT_NO_OFF_PROC_ENTRIES"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* Positions whose contributions cancel to an exact zero stay entries, as
   in aij (GAMG builds its graph and eigenvalue estimate from diag's aij
   copy): MatGetRow of diag lists aij's columns, after a first assembly
   (new diagonals, staged) and after a second (stored diagonals). */
PetscErrorCode TestCancelledEntries()
{
  const PetscInt n = 12;
  Mat            M[2];
  PetscInt       rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(CreateAijDiagPair(n, M));
  PetscCall(MatGetOwnershipRange(M[0], &rstart, &rend));
  for (int round = 0; round < 2; round++) {
    for (Mat X : M) {
      for (PetscInt i = rstart; i < rend; i++) {
        const PetscScalar four = 4.0, zero = 0.0, plus = 1.0 + round, minus = -(1.0 + round);
        const PetscInt    right = (i + 2 + round) % n, left = (i + n - 1) % n;
        PetscCall(MatSetValues(X, 1, &i, 1, &i, &four, ADD_VALUES));
        PetscCall(MatSetValues(X, 1, &i, 1, &right, &plus, ADD_VALUES)); /* cancels */
        PetscCall(MatSetValues(X, 1, &i, 1, &right, &minus, ADD_VALUES));
        PetscCall(MatSetValues(X, 1, &i, 1, &left, &zero, ADD_VALUES)); /* an explicit zero */
      }
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
    }
    bool same = true;
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt        nc[2];
      const PetscInt *c[2];
      std::vector<PetscInt> cols[2];
      for (int t = 0; t < 2; t++) {
        PetscCall(MatGetRow(M[t], i, &nc[t], &c[t], NULL));
        cols[t].assign(c[t], c[t] + nc[t]);
        PetscCall(MatRestoreRow(M[t], i, &nc[t], &c[t], NULL));
      }
      same = same && cols[0] == cols[1];
    }
    PetscCall(Record(same, "cancelled entries", Fmt("MatGetRow lists aij's columns after assembly %d", round + 1)));
  }
  for (Mat &X : M) PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

/* The values of round `round` at (row, col) of a dof-2 matrix on a 1D
   grid, as a Jacobian of two coupled fields: the blocks coupling
   neighbouring points are diagonal, their other two positions set to
   explicit zeros; the diagonal block's (0, 1) is zero before round 2, its
   (1, 0) zero from round 3 on. */
PetscScalar BlockValue(int round, PetscInt row, PetscInt col)
{
  const PetscInt p = row / 2, q = col / 2, c = row % 2, d = col % 2;
  if (p != q && c != d) return 0.0;
  if (p == q && c == 0 && d == 1 && round < 2) return 0.0;
  if (p == q && c == 1 && d == 0 && round >= 3) return 0.0;
  return (p == q && c == d ? 4.0 : 1.0) + 0.01 * round + 0.1 * (PetscReal)(row % 7) + 0.03 * (PetscReal)(col % 5);
}

/* Sets every stencil coupling of the owned rows of X (a DMDA's 1D dof-2
   matrix) to BlockValue(round, ...) and assembles. */
PetscErrorCode FillBlocks(Mat X, DM da, int round)
{
  PetscInt xs, xm, M;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (PetscInt p = xs; p < xs + xm; p++)
    for (PetscInt c = 0; c < 2; c++) {
      const PetscInt           row = 2 * p + c;
      std::vector<PetscInt>    cols;
      std::vector<PetscScalar> vals;
      for (PetscInt q = PetscMax(p - 1, 0); q <= PetscMin(p + 1, M - 1); q++)
        for (PetscInt d = 0; d < 2; d++) {
          cols.push_back(2 * q + d);
          vals.push_back(BlockValue(round, row, 2 * q + d));
        }
      PetscCall(MatSetValues(X, 1, &row, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
    }
  PetscCall(Assemble(X));
  PetscFunctionReturn(0);
}

/* D's entries are the aij matrix A's: as MatGetRow lists them, their count
   (MatGetInfo's nz_used), their values through D's aij copy
   (MatGetRowMaxAbs), on one process their structure in the copy
   (MatGetRowIJ), and as matrices and operators (CheckSame). */
PetscErrorCode CheckEntries(Mat D, Mat A, const std::string &cs, const std::string &op)
{
  PetscInt rstart, rend;
  bool     rows_same = true;
  MatInfo  infoD, infoA;
  Vec      mD, mA;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt              nc[2];
    const PetscInt       *c[2];
    const PetscScalar    *v[2];
    std::vector<PetscInt> cols[2];
    std::vector<PetscScalar> vals[2];
    Mat                   X[2] = {D, A};
    for (int t = 0; t < 2; t++) {
      PetscCall(MatGetRow(X[t], i, &nc[t], &c[t], &v[t]));
      cols[t].assign(c[t], c[t] + nc[t]);
      vals[t].assign(v[t], v[t] + nc[t]);
      PetscCall(MatRestoreRow(X[t], i, &nc[t], &c[t], &v[t]));
    }
    rows_same = rows_same && cols[0] == cols[1] && vals[0] == vals[1];
  }
  PetscCall(Record(rows_same, cs, op + ": MatGetRow lists aij's entries and values"));
  PetscCall(MatGetInfo(D, MAT_LOCAL, &infoD));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &infoA));
  PetscCall(Record(infoD.nz_used == infoA.nz_used, cs, op + ": MatGetInfo nz_used", Fmt("%g, aij %g", infoD.nz_used, infoA.nz_used)));
  PetscCall(MatCreateVecs(A, NULL, &mA));
  PetscCall(VecDuplicate(mA, &mD));
  PetscCall(MatGetRowMaxAbs(D, mD, NULL));
  PetscCall(MatGetRowMaxAbs(A, mA, NULL));
  PetscCall(CheckVec(mD, mA, cs, op + ": MatGetRowMaxAbs (the aij copy's values)"));
  PetscCall(VecDestroy(&mD));
  PetscCall(VecDestroy(&mA));
  if (g_size == 1) {
    const PetscInt *ia[2], *ja[2];
    PetscInt        n[2];
    PetscBool       done[2];
    Mat             X[2] = {D, A};
    bool            same = true;
    for (int t = 0; t < 2; t++) PetscCall(MatGetRowIJ(X[t], 0, PETSC_FALSE, PETSC_FALSE, &n[t], &ia[t], &ja[t], &done[t]));
    same = done[0] && done[1] && n[0] == n[1] && std::equal(ia[0], ia[0] + n[0] + 1, ia[1]) && std::equal(ja[0], ja[0] + ia[0][n[0]], ja[1]);
    for (int t = 0; t < 2; t++) PetscCall(MatRestoreRowIJ(X[t], 0, PETSC_FALSE, PETSC_FALSE, &n[t], &ia[t], &ja[t], &done[t]));
    PetscCall(Record(same, cs, op + ": MatGetRowIJ (the aij copy's structure)"));
  }
  PetscCall(CheckSame(D, A, cs, op));
  PetscFunctionReturn(0);
}

/* Re-assembly of a DMDA's dof-2 matrix with the same structure, its blocks
   holding explicit zeros, while D keeps an aij copy (MatGetRowMaxAbs and
   MatGetRowIJ make one, as colorings and factorizations do): the copy's
   pattern is not derived from the values again (the -log_view event
   MatDiagAijPattern does not begin) and D's nonzero state stays, while its
   entries stay aij's, also when a zero becomes nonzero and a nonzero zero.
   A nonzero, or an explicit zero, set on a stored diagonal where aij has no
   entry is a new nonzero location (the nonzero state increases and the
   copy is rebuilt, as aij's structure grows), as is an entry on a new
   diagonal; re-assemblies after them derive nothing again either. HM and
   CDM storage. */
PetscErrorCode TestReassemblyZeros()
{
  const PetscInt M = 40;

  PetscFunctionBeginUser;
  PetscCall(PetscLogDefaultBegin()); /* event counts */
  for (MatDiagStorage st : {MAT_DIAG_STORAGE_HM, MAT_DIAG_STORAGE_CDM}) {
    const std::string cs = Fmt("re-assembly with explicit zeros, %s", MatDiagStorages[st]);
    DM                da;
    Mat               D, A;
    PetscObjectState  sD, sA, sD1, sA1;
    int               k0, k1;
    PetscInt          xs, xm;
    int               round = 0;

    PetscCall(DMDACreate1d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, M, 2, 1, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(DMDAGetCorners(da, &xs, NULL, NULL, &xm, NULL, NULL));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &D));
    PetscCall(MatDiagSetStorage(D, st));
    PetscCall(DMSetMatType(da, MATAIJ));
    PetscCall(DMCreateMatrix(da, &A));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    for (Mat X : {D, A}) PetscCall(FillBlocks(X, da, round));
    PetscCall(CheckEntries(D, A, cs, "first assembly"));
    PetscCall(EventCount("MatDiagAijPattern", &k0));
    PetscCall(Record(k0 > 0, cs, "the aij copy's pattern was derived once", Fmt("%d times", k0)));
    /* the same structure, new values */
    auto reassemble = [&](const std::string &what, int times) -> PetscErrorCode {
      int k;
      PetscFunctionBeginUser;
      PetscCall(EventCount("MatDiagAijPattern", &k0));
      PetscCall(MatGetNonzeroState(D, &sD));
      PetscCall(MatGetNonzeroState(A, &sA));
      for (int t = 0; t < times; t++) {
        ++round;
        for (Mat X : {D, A}) PetscCall(FillBlocks(X, da, round));
        PetscCall(CheckEntries(D, A, cs, Fmt("%s, round %d", what.c_str(), round)));
        PetscCall(EventCount("MatDiagAijPattern", &k));
        PetscCall(Record(k == k0, cs, Fmt("%s, round %d: the aij copy's pattern is not derived again", what.c_str(), round), Fmt("MatDiagAijPattern began %d times", k - k0)));
        PetscCall(MatGetNonzeroState(D, &sD1));
        PetscCall(MatGetNonzeroState(A, &sA1));
        PetscCall(Record(sD1 == sD && sA1 == sA, cs, Fmt("%s, round %d: the nonzero state stays", what.c_str(), round)));
      }
      PetscFunctionReturn(0);
    };
    PetscCall(reassemble("re-assembly", 4)); /* rounds 2 and 3: a zero becomes nonzero, a nonzero zero */
    /* a new nonzero location, then an explicit zero where aij has no entry,
       each on a stored diagonal of every process (offsets -3 and 3: the
       blocks reach -2 .. 3 from an even row, -3 .. 2 from an odd one), then
       an entry on a new diagonal (offset 14, on the first process) */
    for (int step = 0; step < 3; step++) {
      const char *what[] = {"a nonzero on a stored diagonal where aij has no entry", "an explicit zero on a stored diagonal where aij has no entry", "an entry on a new diagonal"};
      PetscCall(MatGetNonzeroState(D, &sD));
      PetscCall(MatGetNonzeroState(A, &sA));
      PetscCall(EventCount("MatDiagAijPattern", &k0));
      for (Mat X : {D, A}) {
        const PetscInt p = PetscMax(xs, 2);
        if (step == 0 && p < xs + xm) PetscCall(MatSetValue(X, 2 * p, 2 * p - 3, 0.5, INSERT_VALUES));
        if (step == 1 && xm > 0 && 2 * xs + 4 < 2 * M) PetscCall(MatSetValue(X, 2 * xs + 1, 2 * xs + 4, 0.0, INSERT_VALUES));
        if (step == 2 && g_rank == 0) PetscCall(MatSetValue(X, 0, 14, 2.0, INSERT_VALUES));
        PetscCall(Assemble(X));
      }
      PetscCall(CheckEntries(D, A, cs, what[step]));
      PetscCall(MatGetNonzeroState(D, &sD1));
      PetscCall(MatGetNonzeroState(A, &sA1));
      PetscCall(EventCount("MatDiagAijPattern", &k1));
      PetscCall(Record(sA1 > sA, cs, Fmt("%s: aij's nonzero state increases", what[step])));
      PetscCall(Record(sD1 > sD, cs, Fmt("%s: the nonzero state increases", what[step])));
      PetscCall(Record(k1 > k0, cs, Fmt("%s: the aij copy's pattern is derived again", what[step])));
      PetscCall(reassemble(what[step], 2));
    }
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
  }
  PetscFunctionReturn(0);
}

/* A 1D three-point operator of round `round` on the owned rows of X (a
   DMDA's matrix, one field), assembled. */
PetscErrorCode FillThreePoint(Mat X, DM da, int round)
{
  PetscInt xs, xm, M;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, NULL, NULL, &xm, NULL, NULL));
  for (PetscInt i = xs; i < xs + xm; i++) {
    PetscInt    cols[3], n = 0;
    PetscScalar vals[3];
    if (i > 0) cols[n] = i - 1, vals[n++] = -1.0 - 0.3 * round * (PetscReal)(i % 3);
    cols[n] = i, vals[n++] = 2.5 + 0.7 * round * (PetscReal)(i % 5);
    if (i < M - 1) cols[n] = i + 1, vals[n++] = -1.0 + 0.2 * round * (PetscReal)(i % 2);
    PetscCall(MatSetValues(X, 1, &i, n, cols, vals, INSERT_VALUES));
  }
  PetscCall(Assemble(X));
  PetscFunctionReturn(0);
}

/* A preconditioner set up on D's aij copy (PCML builds its finest level on
   it) and reused after a re-assembly (KSPSetReusePreconditioner) applies
   the new values, as it applies an aij operator whose values changed: five
   GMRES iterations with ML on D give aij's iterate, before and after. */
PetscErrorCode TestSharedCompanion()
{
  const PetscInt M = 200;
  DM             da;
  Mat            D, A;
  KSP            ksp[2];
  Vec            b, x[2];
  PetscBool      ml;

  PetscFunctionBeginUser;
  PetscCall(PetscHasExternalPackage("ml", &ml));
  if (!ml) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "shared aij copy: skipped (PETSc without ML)\n"));
    PetscFunctionReturn(0);
  }
  PetscCall(DMDACreate1d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, M, 1, 1, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMCreateMatrix(da, &D));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(MatCreateVecs(A, &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(FillVec(b, 7));
  Mat X[2] = {D, A};
  for (int t = 0; t < 2; t++) {
    PetscCall(FillThreePoint(X[t], da, 0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[t]));
    PetscCall(KSPSetOperators(ksp[t], X[t], X[t]));
    PetscCall(KSPSetType(ksp[t], KSPGMRES));
    PetscCall(KSPSetTolerances(ksp[t], 1e-30, 1e-30, PETSC_DEFAULT, 5));
    PetscCall(KSPSetNormType(ksp[t], KSP_NORM_UNPRECONDITIONED));
    PC pc;
    PetscCall(KSPGetPC(ksp[t], &pc));
    PetscCall(PCSetType(pc, PCML));
  }
  for (int round = 0; round < 2; round++) {
    for (int t = 0; t < 2; t++) {
      if (round) {
        PetscCall(FillThreePoint(X[t], da, 1));
        PetscCall(KSPSetReusePreconditioner(ksp[t], PETSC_TRUE));
      }
      PetscCall(VecZeroEntries(x[t]));
      PetscCall(KSPSolve(ksp[t], b, x[t]));
    }
    PetscReal rel;
    PetscCall(VecRelDiff(x[0], x[1], &rel));
    PetscCall(Record(rel <= 1e-10, "shared aij copy", round ? "ML reused after a re-assembly: aij's iterate" : "ML on the aij copy: aij's iterate", Fmt("relative difference %.3e", (double)rel)));
  }
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPDestroy(&ksp[t]));
    PetscCall(VecDestroy(&x[t]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG against aij: assembly",
              {
                {"build", TestBuild},
                {"re-assembly", TestReassembly},
                {"coo", TestCOO, true}
              },
              {
                {"options", TestOptions},
                {"cancelled entries", TestCancelledEntries},
                {"re-assembly with explicit zeros", TestReassemblyZeros},
                {"shared aij copy", TestSharedCompanion}
              });
}
