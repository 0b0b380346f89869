/* MATDIAG against aij (ops_testing.hpp): assembly. Every case's
   MatSetValues / MatSetValuesStencil assembly (and what DMCreateMatrix
   predicts), re-assembly with new diagonals and with the same pattern, COO
   assembly; then MatSetValues options and -mat_diag_storage, and entries
   that cancel to an exact zero. */
#include "ops_testing.hpp"

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
                {"cancelled entries", TestCancelledEntries}
              });
}
