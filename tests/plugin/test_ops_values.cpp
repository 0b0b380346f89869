/* MATDIAG against aij (ops_testing.hpp): operations on the values. Every
   case's MatDiagonalScale, MatDiagonalSet, MatScale, MatShift, MatAXPY
   (diag and aij operands, same and other patterns), MatZeroEntries,
   MatZeroRows, MatZeroRowsColumns and MatEqual. */
#include "ops_testing.hpp"

using namespace ops_testing;

namespace {

PetscErrorCode TestScaling(const Case &c)
{
  Mat D, A;
  Vec l, r;

  PetscFunctionBeginUser;
  for (int which = 0; which < 3; which++) {
    const char *what[] = {"MatDiagonalScale left", "MatDiagonalScale right", "MatDiagonalScale both"};
    PetscCall(c.build(1, &D, &A));
    PetscCall(MatCreateVecs(A, &r, &l));
    PetscCall(FillVec(l, 21, true));
    PetscCall(FillVec(r, 22, true));
    PetscCall(MatDiagonalScale(D, which != 1 ? l : NULL, which != 0 ? r : NULL));
    PetscCall(MatDiagonalScale(A, which != 1 ? l : NULL, which != 0 ? r : NULL));
    PetscCall(CheckSame(D, A, c.name, what[which]));
    PetscCall(VecDestroy(&l));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  if (c.square()) {
    for (InsertMode mode : {INSERT_VALUES, ADD_VALUES}) {
      PetscCall(c.build(1, &D, &A));
      PetscCall(MatCreateVecs(A, NULL, &l));
      PetscCall(FillVec(l, 23));
      PetscCall(MatDiagonalSet(D, l, mode));
      PetscCall(MatDiagonalSet(A, l, mode));
      PetscCall(CheckSame(D, A, c.name, mode == INSERT_VALUES ? "MatDiagonalSet INSERT" : "MatDiagonalSet ADD"));
      PetscCall(VecDestroy(&l));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
    }
  }
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatScale(D, -1.75));
  PetscCall(MatScale(A, -1.75));
  PetscCall(CheckSame(D, A, c.name, "MatScale"));
  PetscCall(MatShift(D, 3.25));
  PetscCall(MatShift(A, 3.25));
  PetscCall(CheckSame(D, A, c.name, c.has_main ? "MatShift" : "MatShift (no main diagonal stored)"));
  PetscCall(MatShift(D, -0.5));
  PetscCall(MatShift(A, -0.5));
  PetscCall(CheckSame(D, A, c.name, "MatShift twice"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestAXPY(const Case &c)
{
  Mat D, A, DX, AX, DY, AY;

  PetscFunctionBeginUser;
  /* same diagonals (same pattern, other values) */
  PetscCall(c.build(1, &D, &A));
  PetscCall(c.build(2, &DX, &AX));
  PetscCall(MatAXPY(D, 0.7, DX, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, 0.7, AX, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+diag same diagonals"));
  /* different diagonals (the other pattern; for square random cases also the other storage) */
  PetscCall(c.build_other(3, &DY, &AY));
  PetscCall(MatAXPY(D, -1.3, DY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, -1.3, AY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+diag different diagonals"));
  PetscCall(MatAXPY(DY, 2.5, D, UNKNOWN_NONZERO_PATTERN));
  PetscCall(MatAXPY(AY, 2.5, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(DY, AY, c.name, "MatAXPY diag+diag different diagonals, other way"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&DY));
  PetscCall(MatDestroy(&AY));

  /* diag Y, aij X: PETSc's generic path (MatGetRow of X, MatSetValues into Y) */
  PetscCall(c.build(1, &D, &A));
  PetscCall(c.build_other(4, &DY, &AY));
  PetscCall(MatAXPY(D, 0.5, AY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, 0.5, AY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+aij different pattern"));
  PetscCall(MatAXPY(D, -0.25, AX, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, -0.25, AX, SUBSET_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+aij subset pattern"));
  /* aij Y, diag X */
  {
    Mat B;
    PetscCall(MatDuplicate(AY, MAT_COPY_VALUES, &B));
    PetscCall(AllowNew(B));
    PetscCall(MatAXPY(B, 1.5, DX, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(AY, 1.5, AX, DIFFERENT_NONZERO_PATTERN));
    PetscCall(CheckSame(B, AY, c.name, "MatAXPY aij+diag", false));
    PetscCall(MatDestroy(&B));
  }
  for (Mat *m : {&D, &A, &DX, &AX, &DY, &AY}) PetscCall(MatDestroy(m));
  PetscFunctionReturn(0);
}

/* The rows a process passes to MatZeroRows: a few of anyone's rows. */
std::vector<PetscInt> SomeRows(PetscInt M)
{
  std::vector<PetscInt> rows;
  if (M == 0) return rows;
  for (PetscInt k = 0; k < 4; k++) rows.push_back((7 * k + 3 * g_rank + 1) % M);
  rows.push_back(rows[0]); /* repeats are allowed */
  return rows;
}

/* Explicit zeros on the main diagonal of an aij matrix (values unchanged). */
PetscErrorCode ZeroDiagonalEntries(Mat A)
{
  PetscInt r0, r1, N;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  PetscCall(MatGetSize(A, NULL, &N));
  for (PetscInt i = r0; i < PetscMin(r1, N); i++) PetscCall(MatSetValue(A, i, i, 0.0, ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* D reports aij's pattern: MatGetInfo's nz_used, the columns of every
   owned row (MatGetRow), and the entries of its conversion to aij. */
PetscErrorCode CheckPattern(Mat D, Mat A, const std::string &cs, const std::string &what)
{
  MatInfo  id, ia, ic;
  Mat      C;
  PetscInt r0, r1, bad = -1;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &id));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatGetInfo(C, MAT_GLOBAL_SUM, &ic));
  PetscCall(MatDestroy(&C));
  PetscCall(Record(id.nz_used == ia.nz_used && ic.nz_used == ia.nz_used, cs, what + ": aij's entries (MatGetInfo, MatConvert)", Fmt("diag %.0f, its aij conversion %.0f, aij %.0f", id.nz_used, ic.nz_used, ia.nz_used)));
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  for (PetscInt i = r0; i < r1 && bad < 0; i++) {
    PetscInt              nd, na;
    const PetscInt       *cd, *ca;
    std::vector<PetscInt> cols;
    PetscCall(MatGetRow(A, i, &na, &ca, NULL));
    cols.assign(ca, ca + na);
    PetscCall(MatRestoreRow(A, i, &na, &ca, NULL));
    PetscCall(MatGetRow(D, i, &nd, &cd, NULL));
    if (nd != (PetscInt)cols.size() || !std::equal(cols.begin(), cols.end(), cd)) bad = i;
    PetscCall(MatRestoreRow(D, i, &nd, &cd, NULL));
  }
  PetscCall(Record(bad < 0, cs, what + ": MatGetRow gives aij's columns", Fmt("first row that differs %d", (int)bad)));
  PetscFunctionReturn(0);
}

PetscErrorCode TestZero(const Case &c)
{
  Mat D, A;
  Vec x, b1, b2;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatZeroEntries(D));
  PetscCall(MatZeroEntries(A));
  PetscCall(CheckSame(D, A, c.name, "MatZeroEntries"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));

  const std::vector<PetscInt> rows = SomeRows(c.M);
  for (PetscScalar diag : {0.0, 2.5}) {
    const bool withxb = c.square();
    PetscCall(c.build(1, &D, &A));
    PetscCall(MatCreateVecs(A, &x, &b1));
    PetscCall(VecDuplicate(b1, &b2));
    PetscCall(FillVec(x, 31));
    PetscCall(FillVec(b1, 32));
    PetscCall(VecCopy(b1, b2));
    /* seqaij's MatZeroRows writes into freed memory when it has to insert a
       missing diagonal entry (PETSc 3.18): give the reference explicit zeros there */
    if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
    PetscCall(MatZeroRows(D, (PetscInt)rows.size(), rows.data(), diag, withxb ? x : NULL, withxb ? b1 : NULL));
    PetscCall(MatZeroRows(A, (PetscInt)rows.size(), rows.data(), diag, withxb ? x : NULL, withxb ? b2 : NULL));
    std::string what = diag == 0.0 ? "MatZeroRows diag 0" : "MatZeroRows diag 2.5";
    PetscCall(CheckSame(D, A, c.name, what));
    if (withxb) PetscCall(CheckVec(b1, b2, c.name, what + " b"));
    /* aij drops the rows' other entries (diag 0: the whole row; diag keeps
       a square matrix's main diagonal entry, a stored zero). Not where
       the reference got explicit zeros on the diagonal above. */
    if (diag != 0.0 && c.has_main) PetscCall(CheckPattern(D, A, c.name, what));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
    /* MAT_KEEP_NONZERO_PATTERN: the rows keep their entries, as zeros */
    PetscCall(c.build(1, &D, &A));
    if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
    for (Mat M : {D, A}) {
      PetscCall(MatSetOption(M, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
      PetscCall(MatZeroRows(M, (PetscInt)rows.size(), rows.data(), diag, NULL, NULL));
    }
    PetscCall(CheckSame(D, A, c.name, what + " keeping the pattern"));
    if (c.has_main) PetscCall(CheckPattern(D, A, c.name, what + " keeping the pattern"));
    if (c.square()) {
      PetscCall(c.build(1, &D, &A));
      PetscCall(FillVec(b1, 33));
      PetscCall(VecCopy(b1, b2));
      if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
      PetscCall(MatZeroRowsColumns(D, (PetscInt)rows.size(), rows.data(), diag, x, b1));
      PetscCall(MatZeroRowsColumns(A, (PetscInt)rows.size(), rows.data(), diag, x, b2));
      what = diag == 0.0 ? "MatZeroRowsColumns diag 0" : "MatZeroRowsColumns diag 2.5";
      PetscCall(CheckSame(D, A, c.name, what));
      PetscCall(CheckVec(b1, b2, c.name, what + " b"));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
      PetscCall(c.build(1, &D, &A));
      if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
      PetscCall(MatZeroRowsColumns(D, (PetscInt)rows.size(), rows.data(), diag, NULL, NULL));
      PetscCall(MatZeroRowsColumns(A, (PetscInt)rows.size(), rows.data(), diag, NULL, NULL));
      PetscCall(CheckSame(D, A, c.name, what + " without x, b"));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b1));
    PetscCall(VecDestroy(&b2));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TestEqual(const Case &c)
{
  Mat       D, A, D2, A2, D3;
  PetscBool e1, e2;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D2));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
  PetscCall(MatEqual(D, D2, &e1));
  PetscCall(MatEqual(A, A2, &e2));
  PetscCall(Record(e1 && e2, c.name, "MatEqual of equal matrices", Fmt("diag %d, aij %d", (int)e1, (int)e2)));
  PetscCall(MatEqual(D, A, &e1));
  PetscCall(Record(e1, c.name, "MatEqual diag vs aij (equal)"));
  /* the same values with other stored diagonals: an extra zero diagonal */
  if (c.M > 1) {
    Mat D4;
    PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D4));
    PetscCall(MatSetValue(D4, c.M - 1, 0, 0.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(D4, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(D4, MAT_FINAL_ASSEMBLY));
    PetscCall(MatEqual(D, D4, &e1));
    PetscCall(Record(e1, c.name, "MatEqual with an extra zero diagonal"));
    PetscCall(MatDestroy(&D4));
  }
  if (c.square()) {
    MatDiagStorage st;
    PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D3));
    PetscCall(MatDiagGetStorage(D3, &st));
    PetscCall(MatDiagSetStorage(D3, st == MAT_DIAG_STORAGE_HM ? MAT_DIAG_STORAGE_CDM : MAT_DIAG_STORAGE_HM));
    PetscCall(MatEqual(D, D3, &e1));
    PetscCall(Record(e1, c.name, "MatEqual HM vs CDM storage of equal matrices"));
    PetscCall(CheckSame(D3, A, c.name, "MatDiagSetStorage on an assembled matrix"));
    PetscCall(MatDestroy(&D3));
  }
  if (c.M > 0 && c.N > 0) {
    PetscCall(MatShift(D2, 1e-3));
    PetscCall(MatShift(A2, 1e-3));
    PetscCall(MatEqual(D, D2, &e1));
    PetscCall(MatEqual(A, A2, &e2));
    PetscCall(Record(!e1 && !e2, c.name, "MatEqual of unequal matrices", Fmt("diag %d, aij %d", (int)e1, (int)e2)));
    PetscCall(MatEqual(D2, A, &e1));
    PetscCall(Record(!e1, c.name, "MatEqual diag vs aij (unequal)"));
  }
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG against aij: operations on the values",
              {
                {"scaling", TestScaling},
                {"axpy", TestAXPY},
                {"zero", TestZero},
                {"equal", TestEqual}
              },
              {});
}
