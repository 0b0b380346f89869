/* MATDIAG with bad input (ops_testing.hpp): each call must give a PETSc
   error (with the words its message must hold), never a crash or a silent
   wrong answer, on the processes stated; and what looks like bad input
   but is not (negative indices, entries of other processes' rows) must
   work as for aij. The fault-injection suite (tests/faults) checks many
   more bad arguments, each in a process of its own; a MatMult with an x
   of the wrong size is its case mult_x_wrong_size. */
#include "ops_testing.hpp"

using namespace ops_testing;

namespace {

/* Calls f with PETSc's return error handler; on success of the call sets *ierr. */
PetscErrorCode Quietly(const std::function<PetscErrorCode()> &f, PetscErrorCode *ierr)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = f();
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
}

/* Expects f to fail (on this process; processes that do not call pass
   expect = false) with a message containing every one of `words`. */
PetscErrorCode ExpectError(const std::string &what, bool expect, const std::function<PetscErrorCode()> &f, std::vector<std::string> words = {})
{
  PetscErrorCode ierr = 0;
  std::string    msg;
  bool           ok = true;

  PetscFunctionBeginUser;
  if (expect) {
    PetscCall(Quietly(f, &ierr));
    msg = LastMessage();
    ok  = ierr != 0;
    for (const std::string &w : words)
      if (msg.find(w) == std::string::npos) ok = false;
  }
  PetscCall(Record(ok, "bad input", what, ierr ? "message: " + msg : "no error"));
  PetscFunctionReturn(0);
}

PetscErrorCode TestBadInput()
{
  const PetscInt n = 20;
  Mat            D;
  PetscInt       r0, r1;
  const PetscInt *ranges;

  PetscFunctionBeginUser;
  /* out-of-range rows and columns */
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
  PetscCall(MatGetOwnershipRange(D, &r0, &r1));
  PetscCall(MatGetOwnershipRanges(D, &ranges));
  PetscCall(ExpectError("MatSetValues row = M", true, [&] { return MatSetValue(D, n, 0, 1.0, INSERT_VALUES); }, {"row"}));
  PetscCall(ExpectError("MatSetValues row = M + 5 (ADD)", true, [&] { return MatSetValue(D, n + 5, 0, 1.0, ADD_VALUES); }));
  PetscCall(ExpectError("MatSetValues column = N on an owned row", r1 > r0, [&] { return MatSetValue(D, r0, n, 1.0, INSERT_VALUES); }, {"column"}));
  /* a column out of range on another process's row must fail here, not at the owner's assembly */
  const PetscInt other = ranges[(g_rank + 1) % g_size];
  PetscCall(ExpectError("MatSetValues column = N on another process's row", g_size > 1 && other < n && (other < r0 || other >= r1),
                        [&] { return MatSetValue(D, other, n + 1, 1.0, INSERT_VALUES); }, {"column"}));
  PetscCall(MatDestroy(&D));

  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
  {
    PetscErrorCode ierr = 0;
    PetscInt       neg  = -1, zero = 0;
    PetscScalar    big  = 1e30;
    PetscCall(Quietly([&] { return MatSetValues(D, 1, &neg, 1, &zero, &big, INSERT_VALUES); }, &ierr));
    PetscCall(Record(ierr == 0, "bad input", "MatSetValues negative row ignored"));
    if (r1 > r0) PetscCall(Quietly([&] { return MatSetValues(D, 1, &r0, 1, &neg, &big, INSERT_VALUES); }, &ierr));
    PetscCall(Record(ierr == 0, "bad input", "MatSetValues negative column ignored"));
    PetscCall(Assemble(D));
    PetscReal nrm;
    PetscCall(MatNorm(D, NORM_FROBENIUS, &nrm));
    PetscCall(Record(nrm == 0.0, "bad input", "negative indices set nothing", Fmt("norm %g", (double)nrm)));
  }
  PetscCall(MatDestroy(&D));

  /* preallocation offsets out of range */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n - 4));
  PetscCall(MatSetType(D, MATDIAG));
  {
    const PetscInt hi[] = {0, n - 4}, lo[] = {-n, 1}, okoffs[] = {-(n - 1), n - 5};
    PetscCall(ExpectError("MatDiagSetPreallocation offset N", true, [&] { return MatDiagSetPreallocation(D, 2, hi); }, {"offset"}));
    PetscCall(ExpectError("MatDiagSetPreallocation offset -M", true, [&] { return MatDiagSetPreallocation(D, 2, lo); }, {"offset"}));
    PetscCall(ExpectError("MatDiagSetPreallocation negative count", true, [&] { return MatDiagSetPreallocation(D, -1, okoffs); }));
    PetscErrorCode ierr;
    PetscCall(Quietly([&] { return MatDiagSetPreallocation(D, 2, okoffs); }, &ierr));
    PetscCall(Record(ierr == 0, "bad input", "MatDiagSetPreallocation extreme offsets -(M-1), N-1 accepted"));
  }
  /* CDM on a non-square matrix */
  PetscCall(ExpectError("MatDiagSetStorage CDM on a non-square matrix", true, [&] { return MatDiagSetStorage(D, MAT_DIAG_STORAGE_CDM); }, {"square"}));
  PetscCall(MatDestroy(&D));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n + 3));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", "cdm"));
  PetscCall(ExpectError("-mat_diag_storage cdm on a non-square matrix", true, [&] { return MatSetFromOptions(D); }, {"square"}));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_storage"));
  PetscCall(MatDestroy(&D));

  /* more diagonals than -mat_diag_max_diagonals, with -mat_diag_scattered_fill 0:
     refused (by default such a structure from entries set becomes aij at
     assembly: test_scattered) */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", "3"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0"));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(MatSetFromOptions(D));
  PetscCall(MatSetUp(D));
  if (r1 > r0) {
    PetscCall(ExpectError("MatSetValues on a 4th diagonal with -mat_diag_max_diagonals 3", true, [&] {
      PetscInt    cols[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
      PetscScalar v[10]  = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
      return MatSetValues(D, 1, &r0, 10, cols, v, ADD_VALUES);
    }, {"-mat_diag_max_diagonals", "store 4 diagonals", "limit 3"}));
  } else PetscCall(Record(true, "bad input", "MatSetValues on a 4th diagonal with -mat_diag_max_diagonals 3"));
  PetscCall(MatDestroy(&D));
  if (g_size > 1) {
    /* the limit is reached on the last process only, while it sets the
       entries process 0 sent it at assembly: every process must get an
       error (none may wait for the others) */
    PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
    PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(D, MATDIAG));
    PetscCall(MatSetFromOptions(D));
    PetscCall(MatSetUp(D));
    PetscCall(MatGetOwnershipRanges(D, &ranges));
    const PetscInt last = ranges[g_size - 1]; /* the last process's first row */
    PetscCall(ExpectError("off-process entries over the limit on one process only: error on all", true, [&] {
      PetscInt    cols[] = {last - 3, last - 2, last - 1, last};
      PetscScalar v[4]   = {1, 1, 1, 1};
      if (g_rank == 0) PetscCall(MatSetValues(D, 1, &last, 4, cols, v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
      return PetscErrorCode(0);
    }, {"MatAssemblyEnd"}));
    PetscCall(MatDestroy(&D));
  }
  {
    /* a COO entry out of range on the last process only: error on all */
    PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
    PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(D, MATDIAG));
    std::vector<PetscInt> ci = {0, 1}, cj = {0, 1};
    if (g_rank == g_size - 1) ci.push_back(n), cj.push_back(0);
    PetscCall(ExpectError("MatSetPreallocationCOO with a row = M on one process: error on all", true, [&] { return MatSetPreallocationCOO(D, (PetscCount)ci.size(), ci.data(), cj.data()); }, {"COO", "outside"}));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scattered_fill"));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(MatSetFromOptions(D));
  {
    const PetscInt five[] = {-2, -1, 0, 1, 2};
    PetscCall(ExpectError("MatDiagSetPreallocation of 5 diagonals with -mat_diag_max_diagonals 3", true, [&] { return MatDiagSetPreallocation(D, 5, five); }, {"-mat_diag_max_diagonals", "store 5 diagonals", "limit 3"}));
    /* far diagonals cross only the first and last process's rows: every process must still fail */
    const PetscInt uneven[] = {-(n - 1), -1, 0, 1, n - 1};
    PetscCall(ExpectError("MatDiagSetPreallocation over the limit on some processes only: error on all", true, [&] { return MatDiagSetPreallocation(D, 5, uneven); }, {"-mat_diag_max_diagonals", "limit 3"}));
  }
  PetscCall(MatDestroy(&D));
  {
    Mat A;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 5, NULL, 5, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &r0, &r1));
    for (PetscInt i = r0; i < r1; i++)
      for (PetscInt d : std::initializer_list<PetscInt>{-(n - 1), -1, 0, 1, n - 1})
        if (i + d >= 0 && i + d < n) PetscCall(MatSetValue(A, i, i + d, 1.0, INSERT_VALUES));
    PetscCall(Assemble(A));
    PetscCall(ExpectError("MatConvert aij->diag over the limit (some processes only): error on all", true, [&] { return MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &D); }, {"-mat_diag_max_diagonals"}));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_diagonals"));

  /* products with wrong sizes, before assembly, unsupported operations */
  {
    const PetscInt offs[] = {-1, 0, 2};
    Vec            x, y, xbad, ybad;
    Mat            S;
    IS             is;
    MatFactorInfo  info;
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, offs, &D));
    PetscCall(MatCreateVecs(D, &x, &y));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, n + 1, &xbad));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, n - 1, &ybad));
    PetscCall(ExpectError("MatMult before assembly", true, [&] { return MatMult(D, x, y); }));
    PetscCall(MatGetOwnershipRange(D, &r0, &r1));
    for (PetscInt i = r0; i < r1; i++) PetscCall(MatSetValue(D, i, i, 2.0, INSERT_VALUES));
    PetscCall(Assemble(D));
    PetscCall(VecSet(x, 1.0));
    PetscCall(ExpectError("MatMult with a wrong-size y", true, [&] { return MatMult(D, x, ybad); }));
    PetscCall(ExpectError("MatMultAdd with a wrong-size z", true, [&] { return MatMultAdd(D, x, ybad, y); }));
    PetscCall(ExpectError("MatMultTranspose with wrong-size vectors", true, [&] { return MatMultTranspose(D, ybad, x); }));
    PetscCall(ExpectError("MatMultTransposeAdd with a wrong-size z", true, [&] { return MatMultTransposeAdd(D, y, xbad, x); }));
    PetscCall(ExpectError("MatDiagonalScale with a wrong-size l", true, [&] { return MatDiagonalScale(D, ybad, NULL); }, {"MatDiagonalScale", "l"}));
    PetscCall(ExpectError("MatDiagonalScale with a wrong-size r", true, [&] { return MatDiagonalScale(D, NULL, xbad); }, {"MatDiagonalScale", "r"}));
    if (g_size % 2 == 0) {
      /* the right global size but another split over the processes */
      Vec      xs;
      PetscInt nl;
      PetscCall(VecGetLocalSize(x, &nl));
      PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl + (g_rank % 2 ? -1 : 1), n, &xs));
      PetscCall(ExpectError("MatMultTransposeAdd with a z of another layout", true, [&] { return MatMultTransposeAdd(D, y, xs, x); }));
      PetscCall(ExpectError("MatMultTransposeAdd with a y of another layout", true, [&] { return MatMultTransposeAdd(D, y, x, xs); }));
      PetscCall(ExpectError("MatMultAdd with a z of another layout", true, [&] { return MatMultAdd(D, x, xs, y); }));
      PetscCall(VecDestroy(&xs));
    }
    PetscCall(ExpectError("MatLUFactor (unsupported)", true, [&] { return MatLUFactor(D, NULL, NULL, NULL); }));
    PetscCall(MatFactorInfoInitialize(&info));
    /* PETSc's own LU is sequential (as for aij); in parallel it is refused */
    S = NULL;
    PetscCall(ExpectError("MatGetFactor LU petsc in parallel (unsupported, as for aij)", g_size > 1, [&] { return MatGetFactor(D, MATSOLVERPETSC, MAT_FACTOR_LU, &S); }));
    PetscCall(MatDestroy(&S));
    PetscCall(ExpectError("MatNorm NORM_2 (unsupported)", true, [&] {
      PetscReal nrm;
      return MatNorm(D, NORM_2, &nrm);
    }));
    {
      PetscScalar v[2] = {-1, -1};
      PetscInt    cols[2] = {r0, r0 + 1 < n ? r0 + 1 : r0};
      PetscCall(MatGetValues(D, 1, &r0, 2, cols, v));
      PetscCall(Record(v[0] == 2.0 && (cols[1] == r0 || v[1] == 0.0), "bad input", "MatGetValues of a stored entry and of an entry not stored", Fmt("got %g and %g", (double)PetscRealPart(v[0]), (double)PetscRealPart(v[1]))));
    }
    PetscCall(ExpectError("MatGetValues of a row this process does not own", g_size > 1, [&] {
      PetscScalar v;
      PetscInt    row = r1 < n ? r1 : 0;
      return MatGetValues(D, 1, &row, 1, &row, &v);
    }));
    {
      /* every other owned row, and the first half of the owned columns */
      IS             isc;
      PetscErrorCode ierr = 0;
      PetscInt       c0, c1;
      PetscCall(MatGetOwnershipRangeColumn(D, &c0, &c1));
      PetscCall(ISCreateStride(PETSC_COMM_WORLD, (r1 - r0 + 1) / 2, r0, 2, &is));
      PetscCall(ISCreateStride(PETSC_COMM_WORLD, (c1 - c0 + 1) / 2, c0, 1, &isc));
      for (PetscInt i = r0; i < r1; i++)
        for (PetscInt j : {i - 1, i + 2})
          if (j >= 0 && j < n) PetscCall(MatSetValue(D, i, j, 0.1 * (i + 1) + j, INSERT_VALUES));
      PetscCall(Assemble(D));
      S = NULL;
      PetscCall(Quietly([&] { return MatCreateSubMatrix(D, is, isc, MAT_INITIAL_MATRIX, &S); }, &ierr));
      if (!ierr) { /* supported: then it must be right, and REUSE too */
        Mat Sa, A;
        PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &A));
        PetscCall(MatCreateSubMatrix(A, is, isc, MAT_INITIAL_MATRIX, &Sa));
        PetscCall(CheckSame(S, Sa, "submatrix", "MatCreateSubMatrix INITIAL"));
        PetscCall(MatScale(D, -2.0));
        PetscCall(MatScale(A, -2.0));
        PetscCall(MatCreateSubMatrix(D, is, isc, MAT_REUSE_MATRIX, &S));
        PetscCall(MatCreateSubMatrix(A, is, isc, MAT_REUSE_MATRIX, &Sa));
        PetscCall(CheckSame(S, Sa, "submatrix", "MatCreateSubMatrix REUSE"));
        PetscCall(MatDestroy(&Sa));
        PetscCall(MatDestroy(&A));
      } else PetscCall(Record(true, "bad input", "MatCreateSubMatrix (unsupported) errors"));
      PetscCall(MatDestroy(&S));
      PetscCall(ISDestroy(&isc));
    }
    PetscCall(ISDestroy(&is));
    PetscCall(ExpectError("MatGetRow of a row this process does not own", g_size > 1, [&] {
      PetscInt row = r1 < n ? r1 : 0;
      return MatGetRow(D, row, NULL, NULL, NULL);
    }));
    for (Vec *v : {&x, &y, &xbad, &ybad}) PetscCall(VecDestroy(v));
    PetscCall(MatDestroy(&D));
  }

  /* MatGetLocalSubMatrix: PETSc's generic local reference; must not crash */
  {
    DaSpec s;
    DM     da;
    Mat    Dl, Sub;
    IS     is;
    PetscInt nl;
    PetscCall(CreateDA(s, &da));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &Dl));
    PetscCall(DMDAGetGhostCorners(da, NULL, NULL, NULL, &nl, &r0, NULL));
    nl *= r0;
    PetscCall(ISCreateStride(PETSC_COMM_SELF, nl, 0, 1, &is));
    PetscErrorCode ierr = 0;
    PetscCall(Quietly([&] { return MatGetLocalSubMatrix(Dl, is, is, &Sub); }, &ierr));
    if (!ierr) PetscCall(MatRestoreLocalSubMatrix(Dl, is, is, &Sub));
    PetscCall(Record(true, "bad input", "MatGetLocalSubMatrix does not crash"));
    PetscCall(ISDestroy(&is));
    PetscCall(MatDestroy(&Dl));
    PetscCall(DMDestroy(&da));
  }

  /* MatSetValues on another process's row arrives at its owner (INSERT and ADD) */
  for (InsertMode mode : {INSERT_VALUES, ADD_VALUES}) {
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
    PetscCall(MatGetOwnershipRanges(D, &ranges));
    PetscCall(MatGetOwnershipRange(D, &r0, &r1));
    const PetscInt target = ranges[(g_rank + 1) % g_size]; /* the first row of the next process */
    if (target < n) {
      PetscCall(MatSetValue(D, target, g_rank, 100.0 + g_rank, mode));
      if (mode == ADD_VALUES) PetscCall(MatSetValue(D, target, g_rank, 0.5, mode));
    }
    PetscCall(Assemble(D));
    bool ok = true;
    if (r1 > r0) {
      const PetscMPIInt  from = (g_rank - 1 + g_size) % g_size;
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscScalar        got  = 0;
      const PetscScalar  want = 100.0 + from + (mode == ADD_VALUES ? 0.5 : 0.0);
      PetscCall(MatGetRow(D, r0, &nc, &cols, &vals));
      for (PetscInt k = 0; k < nc; k++)
        if (cols[k] == from) got = vals[k];
      PetscCall(MatRestoreRow(D, r0, &nc, &cols, &vals));
      ok = got == want;
    }
    PetscCall(Record(ok, "bad input", mode == INSERT_VALUES ? "MatSetValues INSERT on another process's row arrives" : "MatSetValues ADD on another process's row arrives"));
    PetscCall(MatDestroy(&D));
  }
  if (g_size > 1) {
    /* MAT_NO_OFF_PROC_ENTRIES: an error on the setting process */
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
    PetscCall(MatGetOwnershipRanges(D, &ranges));
    PetscCall(MatSetOption(D, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    const PetscInt target = ranges[(g_rank + 1) % g_size];
    PetscCall(ExpectError("MatSetValues on another process's row with MAT_NO_OFF_PROC_ENTRIES", target < n, [&] { return MatSetValue(D, target, 0, 1.0, INSERT_VALUES); }));
    PetscCall(MatDestroy(&D));
    /* some processes insert while others add: an error at assembly, on every process */
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
    PetscCall(MatGetOwnershipRange(D, &r0, &r1));
    if (r1 > r0) PetscCall(MatSetValue(D, r0, r0, 1.0, g_rank % 2 ? ADD_VALUES : INSERT_VALUES));
    PetscCall(ExpectError("INSERT on some processes, ADD on others", true, [&] { return Assemble(D); }));
    PetscCall(MatDestroy(&D));
  }
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG with bad input",
              {},
              {
                {"bad input", TestBadInput}
              });
}
