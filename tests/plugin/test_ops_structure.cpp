/* MATDIAG against aij (ops_testing.hpp): whole matrices. Every case's
   MatDuplicate, MatCopy, MatGetRow, MatNorm, MatGetInfo (and
   MatGetRowSumAbs, MatMissingDiagonal where this PETSc has them),
   MatTranspose and MatConvert to and from aij, dense and diag. */
#include "ops_testing.hpp"

#include <map>
#include <string>

using namespace ops_testing;

namespace {

PetscErrorCode TestDuplicateCopy(const Case &c)
{
  Mat D, A, D2, A2, DB, AB;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D2));
  PetscCall(CheckSame(D2, A, c.name, "MatDuplicate MAT_COPY_VALUES"));
  PetscCall(MatScale(D2, 3.0));
  PetscCall(MatShift(D2, 1.0));
  PetscCall(CheckSame(D, A, c.name, "original unchanged after changing its duplicate"));
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDuplicate(D, MAT_DO_NOT_COPY_VALUES, &D2));
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &A2));
  PetscCall(CheckSame(D2, A2, c.name, "MatDuplicate MAT_DO_NOT_COPY_VALUES"));
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDestroy(&A2));

  /* diag -> diag, same pattern */
  PetscCall(c.build(5, &DB, &AB));
  PetscCall(MatCopy(D, DB, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(DB, A, c.name, "MatCopy diag->diag SAME_NONZERO_PATTERN"));
  { /* copying again into the same diagonals keeps the nonzero state, as for
       aij: PCs set up on DB reuse their symbolic work */
    PetscObjectState before, after;
    PetscCall(MatGetNonzeroState(DB, &before));
    PetscCall(MatScale(D, 2.0));
    PetscCall(MatCopy(D, DB, SAME_NONZERO_PATTERN));
    PetscCall(MatScale(D, 0.5));
    PetscCall(MatGetNonzeroState(DB, &after));
    PetscCall(Record(before == after, c.name, "MatCopy into the same diagonals keeps the nonzero state"));
  }
  /* diag -> aij */
  PetscCall(MatCopy(D, AB, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(AB, A, c.name, "MatCopy diag->aij", false));
  PetscCall(MatDestroy(&DB));
  PetscCall(MatDestroy(&AB));
  /* diag -> diag, different pattern */
  PetscCall(c.build_other(6, &DB, &AB));
  PetscCall(MatCopy(D, DB, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(DB, A, c.name, "MatCopy diag->diag DIFFERENT_NONZERO_PATTERN"));
  PetscCall(MatDestroy(&DB));
  PetscCall(MatDestroy(&AB));
  /* aij -> diag */
  PetscCall(c.build(7, &DB, &AB));
  PetscCall(MatCopy(A, DB, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(DB, A, c.name, "MatCopy aij->diag"));
  PetscCall(MatDestroy(&DB));
  PetscCall(MatDestroy(&AB));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestRowsNormsInfo(const Case &c)
{
  Mat      D, A;
  PetscInt r0, r1;
  bool     rows_ok = true, sorted = true;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatGetOwnershipRange(D, &r0, &r1));
  std::string detail;
  for (PetscInt i = r0; i < r1; i++) {
    PetscInt                      nd, na;
    const PetscInt               *cd, *ca;
    const PetscScalar            *vd, *va;
    std::map<PetscInt, PetscScalar> md, ma;
    PetscCall(MatGetRow(D, i, &nd, &cd, &vd));
    for (PetscInt k = 0; k < nd; k++) {
      md[cd[k]] += vd[k];
      if (k && cd[k] <= cd[k - 1]) sorted = false;
      if (cd[k] < 0 || cd[k] >= c.N) rows_ok = false;
    }
    PetscCall(MatRestoreRow(D, i, &nd, &cd, &vd));
    PetscCall(MatGetRow(A, i, &na, &ca, &va));
    for (PetscInt k = 0; k < na; k++) ma[ca[k]] += va[k];
    PetscCall(MatRestoreRow(A, i, &na, &ca, &va));
    for (auto &kv : ma)
      if (!(PetscAbsScalar(md[kv.first] - kv.second) <= kTol * PetscMax(1.0, PetscAbsScalar(kv.second)))) {
        rows_ok = false;
        if (detail.empty()) detail = Fmt("row %d column %d: %g vs %g", (int)i, (int)kv.first, (double)PetscRealPart(md[kv.first]), (double)PetscRealPart(kv.second));
      }
    for (auto &kv : md)
      if (!ma.count(kv.first) && kv.second != 0.0) {
        rows_ok = false;
        if (detail.empty()) detail = Fmt("row %d column %d: %g not in aij", (int)i, (int)kv.first, (double)PetscRealPart(kv.second));
      }
  }
  PetscCall(Record(rows_ok, c.name, "MatGetRow on every owned row", detail));
  PetscCall(Record(sorted, c.name, "MatGetRow columns ascending"));

  for (NormType t : {NORM_1, NORM_FROBENIUS, NORM_INFINITY}) {
    PetscReal nd, na;
    PetscCall(MatNorm(D, t, &nd));
    PetscCall(MatNorm(A, t, &na));
    PetscCall(Record(Close(nd, na), c.name, std::string("MatNorm ") + NormTypes[t], Fmt("%.17g vs %.17g", (double)nd, (double)na)));
  }

  MatInfo id, ia, il, im;
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &id));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(D, MAT_LOCAL, &il));
  PetscCall(MatGetInfo(D, MAT_GLOBAL_MAX, &im));
  PetscLogDouble lsum = 0;
  PetscCall(MPIU_Allreduce(&il.nz_used, &lsum, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  /* nz_used: the entries aij holds (GAMG's operator complexity counts them) */
  const bool info_ok = id.nz_used == ia.nz_used && id.nz_used <= (PetscLogDouble)c.M * (PetscLogDouble)c.N && lsum == id.nz_used && im.nz_used <= id.nz_used &&
                       id.nz_allocated >= id.nz_used && id.memory >= 0;
  PetscCall(Record(info_ok, c.name, "MatGetInfo", Fmt("nz_used %.0f (aij %.0f, local sum %.0f, max %.0f) of %.0f", id.nz_used, ia.nz_used, lsum, im.nz_used, (double)c.M * c.N)));

#if PDIAG_HAVE_MAT_GET_ROW_SUM_ABS /* PETSc 3.21 and later (PCJACOBI rowl1) */
  {
    Vec sd, sa;
    PetscCall(MatCreateVecs(A, NULL, &sa));
    PetscCall(VecDuplicate(sa, &sd));
    PetscCall(MatGetRowSumAbs(A, sa));
    PetscCall(MatGetRowSumAbs(D, sd));
    PetscReal e, na;
    PetscCall(VecNorm(sa, NORM_INFINITY, &na));
    PetscCall(VecAXPY(sd, -1.0, sa));
    PetscCall(VecNorm(sd, NORM_INFINITY, &e));
    PetscCall(Record(e <= 1e-13 * PetscMax(na, 1.0), c.name, "MatGetRowSumAbs", Fmt("max difference %g (aij's largest %g)", (double)e, (double)na)));
    PetscCall(VecDestroy(&sd));
    PetscCall(VecDestroy(&sa));
  }
#endif

#if PDIAG_HAVE_MAT_MISSING_DIAGONAL /* PETSc 3.25 removed MatMissingDiagonal() */
  /* MatMissingDiagonal: missing exactly when the main diagonal is not stored
     but crosses this process's rows */
  PetscBool missing;
  PetscInt  dd;
  PetscCall(MatMissingDiagonal(D, &missing, &dd));
  const bool crosses = PetscMax(r0, 0) < PetscMin(r1, c.N);
  const bool expect  = !c.has_main && crosses;
  PetscCall(Record((missing == PETSC_TRUE) == expect && (!missing || (dd >= r0 && dd < r1)), c.name, "MatMissingDiagonal", Fmt("missing %d (row %d), expected %d", (int)missing, (int)dd, (int)expect)));
#endif
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestTranspose(const Case &c)
{
  Mat D, A, Dt, At;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatTranspose(D, MAT_INITIAL_MATRIX, &Dt));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
  PetscCall(CheckSame(Dt, At, c.name, "MatTranspose MAT_INITIAL_MATRIX"));
  PetscCall(MatScale(D, 2.0));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatTranspose(D, MAT_REUSE_MATRIX, &Dt));
  PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &At));
  PetscCall(CheckSame(Dt, At, c.name, "MatTranspose MAT_REUSE_MATRIX"));
  PetscCall(MatTranspose(D, MAT_INPLACE_MATRIX, &D));
  PetscCall(MatTranspose(A, MAT_INPLACE_MATRIX, &A));
  PetscCall(CheckSame(D, A, c.name, "MatTranspose MAT_INPLACE_MATRIX"));
  PetscCall(CheckSame(D, At, c.name, "MatTranspose MAT_INPLACE_MATRIX vs INITIAL"));
  for (Mat *m : {&D, &A, &Dt, &At}) PetscCall(MatDestroy(m));
  PetscFunctionReturn(0);
}

PetscErrorCode TestConvert(const Case &c)
{
  Mat D, A, X, Y;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  /* diag -> aij */
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &X));
  PetscCall(Record(IsType(X, MATSEQAIJ, MATMPIAIJ), c.name, "MatConvert diag->aij INITIAL type"));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->aij INITIAL", false));
  PetscCall(MatScale(D, 2.0));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatConvert(D, MATAIJ, MAT_REUSE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->aij REUSE", false));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &X));
  PetscCall(MatConvert(X, MATAIJ, MAT_INPLACE_MATRIX, &X));
  PetscCall(Record(IsType(X, MATSEQAIJ, MATMPIAIJ), c.name, "MatConvert diag->aij INPLACE type"));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->aij INPLACE", false));
  PetscCall(MatDestroy(&X));

  /* diag -> diag */
  PetscCall(MatConvert(D, MATSAME, MAT_INITIAL_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->same INITIAL"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &X));
  PetscCall(MatConvert(X, MATDIAG, MAT_INPLACE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->diag INPLACE"));
  PetscCall(MatDestroy(&X));

  /* aij -> diag */
  PetscCall(MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert aij->diag INITIAL"));
  PetscCall(MatScale(A, -0.5));
  PetscCall(MatConvert(A, MATDIAG, MAT_REUSE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert aij->diag REUSE"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &X));
  PetscCall(MatConvert(X, MATDIAG, MAT_INPLACE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert aij->diag INPLACE"));
  PetscCall(MatDestroy(&X));

  /* dense -> diag */
  PetscCall(MatConvert(A, MATDENSE, MAT_INITIAL_MATRIX, &Y));
  PetscCall(MatConvert(Y, MATDIAG, MAT_INITIAL_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert dense->diag INITIAL"));
  PetscCall(MatScale(Y, 3.0));
  PetscCall(MatScale(A, 3.0));
  PetscCall(MatConvert(Y, MATDIAG, MAT_REUSE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert dense->diag REUSE"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatConvert(Y, MATDIAG, MAT_INPLACE_MATRIX, &Y));
  PetscCall(CheckSame(Y, A, c.name, "MatConvert dense->diag INPLACE"));
  PetscCall(MatDestroy(&Y));

  /* diag -> dense (D is 2 A_original; A is now -3 A_original) */
  PetscCall(MatScale(A, -2.0 / 3.0));
  PetscCall(MatConvert(D, MATDENSE, MAT_INITIAL_MATRIX, &Y));
  PetscCall(Record(IsType(Y, MATSEQDENSE, MATMPIDENSE), c.name, "MatConvert diag->dense INITIAL type"));
  PetscCall(CheckSame(Y, A, c.name, "MatConvert diag->dense INITIAL", false));
  PetscCall(MatScale(D, 0.25));
  PetscCall(MatScale(A, 0.25));
  PetscCall(MatConvert(D, MATDENSE, MAT_REUSE_MATRIX, &Y));
  PetscCall(CheckSame(Y, A, c.name, "MatConvert diag->dense REUSE", false));
  PetscCall(MatDestroy(&Y));
  PetscCall(MatConvert(D, MATDENSE, MAT_INPLACE_MATRIX, &D));
  PetscCall(Record(IsType(D, MATSEQDENSE, MATMPIDENSE), c.name, "MatConvert diag->dense INPLACE type"));
  PetscCall(CheckSame(D, A, c.name, "MatConvert diag->dense INPLACE", false));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG against aij: duplicates, copies, rows, norms, transposes, conversions",
              {
                {"duplicate/copy", TestDuplicateCopy},
                {"rows/norms/info", TestRowsNormsInfo},
                {"transpose", TestTranspose},
                {"convert", TestConvert}
              },
              {});
}
