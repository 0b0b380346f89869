/* Fault cases of the public functions of petscdiag.h (included by fault_driver.cpp). */
namespace {

/* ---- MatCreateDiag / MatDiagSetPreallocation ---------------------------- */
CASE(create_null_output, Error, kOneTwo)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 10, 0, NULL, NULL));
  PetscFunctionReturn(0);
}

CASE(create_negative_ndiag, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, -3, NULL, &A));
  PetscFunctionReturn(0);
}

CASE(create_null_offsets, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 3, NULL, &A));
  PetscFunctionReturn(0);
}

CASE(create_null_offsets_one_rank, Error, kMulti)
{
  Mat            A = NULL;
  const PetscInt offs[] = {-1, 0, 1};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 3, c.last() ? NULL : offs, &A));
  PetscFunctionReturn(0);
}

CASE(create_offset_N, Error, kOneTwo)
{
  Mat            A = NULL;
  const PetscInt offs[] = {0, 10};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 2, offs, &A));
  PetscFunctionReturn(0);
}

CASE(create_offset_minus_M, Error, kOneTwo)
{
  Mat            A = NULL;
  const PetscInt offs[] = {-10, 0};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 2, offs, &A));
  PetscFunctionReturn(0);
}

CASE(create_offset_int_max, Error, kOneTwo)
{
  Mat            A = NULL;
  const PetscInt offs[] = {PETSC_MAX_INT, 0};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 2, offs, &A));
  PetscFunctionReturn(0);
}

CASE(create_offset_bad_one_rank, Error, kMulti)
{
  Mat            A = NULL;
  const PetscInt good[] = {-1, 0, 1}, bad[] = {-1, 0, 99};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 3, c.last() ? bad : good, &A));
  PetscFunctionReturn(0);
}

CASE(create_offset_extremes_ok, Ok, kAll)
{
  Mat            A = NULL;
  const PetscInt offs[] = {-9, 9};
  PetscInt       nd;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 10, 2, offs, &A));
  PetscCall(MatDiagGetDiagonals(A, &nd, NULL));
  PetscInt total;
  PetscCallMPI(MPI_Allreduce(&nd, &total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (total < 2) WRONG("the corner diagonals -9 and 9 are stored %d times in all, expected at least 2", (int)total);
  PetscFunctionReturn(0);
}

CASE(create_duplicate_offsets_20000, Ok, kOneTwo)
{
  Mat                   A = NULL;
  std::vector<PetscInt> offs(20000, 0);
  PetscInt              nd;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 100, (PetscInt)offs.size(), offs.data(), &A));
  PetscCall(MatDiagGetDiagonals(A, &nd, NULL));
  if (nd != 1) WRONG("20000 copies of offset 0 give %d stored diagonals, expected 1", (int)nd);
  PetscFunctionReturn(0);
}

CASE(create_too_many_diagonals, Error, kOneTwo)
{
  Mat                   A = NULL;
  std::vector<PetscInt> offs(10001);
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 10001; k++) offs[(std::size_t)k] = k;
  PetscCall(NewDiag(c, 100000, (PetscInt)offs.size(), offs.data(), &A));
  PetscFunctionReturn(0);
}

/* 10^4 diagonals of 10^5 rows: 8 GB for a matrix without entries, refused
   by the bytes limit (-mat_diag_max_bytes, given by run_faults.py) */
CASE(create_huge_bytes, Error, kOneTwo)
{
  Mat                   A = NULL;
  std::vector<PetscInt> offs(10000);
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 10000; k++) offs[(std::size_t)k] = k - 5000;
  PetscCall(NewDiag(c, 100000, (PetscInt)offs.size(), offs.data(), &A));
  PetscFunctionReturn(0);
}

CASE(create_huge_bytes_one_rank, Error, kMulti)
{
  Mat                   A = NULL;
  std::vector<PetscInt> offs;
  PetscFunctionBeginUser;
  /* only the last process's rows meet the far diagonals: it alone goes over */
  for (PetscInt k = 0; k < 5000; k++) offs.push_back(-99999 + k);
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_bytes", "1e8"));
  PetscCall(NewDiag(c, 100000, (PetscInt)offs.size(), offs.data(), &A));
  PetscFunctionReturn(0);
}

CASE(create_local_sizes_wrong, Error, kMulti)
{
  PetscFunctionBeginUser;
  c.mats.push_back(NULL);
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, 3, 3, 10 * c.size + 1, 10 * c.size + 1, 0, NULL, &c.mats.back()));
  PetscFunctionReturn(0);
}

CASE(create_empty_rank_ok, Ok, kMulti)
{
  Mat            A = NULL, B = NULL;
  const PetscInt offs[] = {-1, 0, 1};
  PetscInt       rs, re;
  PetscFunctionBeginUser;
  /* the last process owns no rows */
  c.mats.push_back(NULL);
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, c.last() ? 0 : 5, c.last() ? 0 : 5, PETSC_DETERMINE, PETSC_DETERMINE, 3, offs, &c.mats.back()));
  A = c.mats.back();
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscInt N;
  PetscCall(MatGetSize(A, &N, NULL));
  for (PetscInt i = rs; i < re; i++) {
    PetscCall(MatSetValue(A, i, i, 3.0, INSERT_VALUES));
    if (i + 1 < N) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(Assemble(A));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &c.mat()));
  B = c.mats.back();
  PetscCall(SameOperator(c, A, B, "diag with an empty process against aij"));
  PetscFunctionReturn(0);
}

CASE(create_zero_size_ok, Ok, kOneTwo)
{
  Mat A = NULL;
  Vec x = NULL, y = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 0, 0, NULL, &A));
  PetscCall(Assemble(A));
  PetscCall(NewVec(c, PETSC_DECIDE, 0, &x));
  PetscCall(NewVec(c, PETSC_DECIDE, 0, &y));
  PetscCall(MatMult(A, x, y));
  PetscFunctionReturn(0);
}

CASE(prealloc_null_matrix, Error, kOneTwo)
{
  PetscFunctionBeginUser;
  PetscCall(MatDiagSetPreallocation(NULL, 0, NULL));
  PetscFunctionReturn(0);
}

CASE(prealloc_not_a_matrix, Error, kOneTwo)
{
  Vec v = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewVec(c, PETSC_DECIDE, 10, &v));
  PetscCall(MatDiagSetPreallocation((Mat)v, 0, NULL));
  PetscFunctionReturn(0);
}

CASE(prealloc_on_aij_ignored, Ok, kOneTwo)
{
  Mat            A = NULL;
  const PetscInt offs[] = {0};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  PetscCall(MatDiagSetPreallocation(A, 1, offs)); /* PetscTryMethod: not a diag matrix, nothing to do */
  PetscFunctionReturn(0);
}

/* ---- MatDiagSetStorage / GetStorage / GetDiagonals ----------------------- */
CASE(storage_bad_enum, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 10, &A));
  PetscCall(MatDiagSetStorage(A, (MatDiagStorage)7));
  PetscFunctionReturn(0);
}

CASE(storage_cdm_rectangular, Error, kOneTwo)
{
  PetscFunctionBeginUser;
  c.mats.push_back(NULL);
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 12, 0, NULL, &c.mats.back()));
  PetscCall(MatDiagSetStorage(c.mats.back(), MAT_DIAG_STORAGE_CDM));
  PetscFunctionReturn(0);
}

/* CDM stores a whole compact diagonal for each corner diagonal of length 1:
   refused by the bytes limit before it is built */
CASE(storage_cdm_budget, Error, kOneTwo)
{
  Mat                   A = NULL;
  std::vector<PetscInt> offs;
  PetscInt              rs, re;
  PetscFunctionBeginUser;
  for (PetscInt k = 1; k <= 2000; k++) offs.push_back(100000 - k);
  PetscCall(NewDiag(c, 100000, (PetscInt)offs.size(), offs.data(), &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(A, i, i, 1.0, INSERT_VALUES));
  PetscCall(Assemble(A));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_bytes", "5e8"));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatDiagSetStorage(A, MAT_DIAG_STORAGE_CDM));
  PetscFunctionReturn(0);
}

CASE(get_storage_null, Faulted, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 10, &A));
  PetscCall(MatDiagGetStorage(A, NULL));
  PetscFunctionReturn(0);
}

CASE(get_storage_of_aij, Faulted, kOneTwo)
{
  Mat            A = NULL;
  MatDiagStorage s;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  PetscCall(MatDiagGetStorage(A, &s));
  PetscFunctionReturn(0);
}

CASE(get_diagonals_null_outputs_ok, Ok, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 10, &A));
  PetscCall(MatDiagGetDiagonals(A, NULL, NULL));
  PetscFunctionReturn(0);
}

CASE(get_diagonals_of_aij, Faulted, kOneTwo)
{
  Mat             A = NULL;
  PetscInt        nd;
  const PetscInt *o;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  PetscCall(MatDiagGetDiagonals(A, &nd, &o));
  PetscFunctionReturn(0);
}

CASE(get_diagonals_row_busy, Faulted, kOneTwo)
{
  Mat                A = NULL;
  PetscInt           nc, rs, nd;
  const PetscInt    *cols, *o;
  const PetscScalar *v;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 10, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCall(MatGetRow(A, rs, &nc, &cols, &v));
  PetscErrorCode ierr = MatDiagGetDiagonals(A, &nd, &o);
  PetscCall(MatRestoreRow(A, rs, &nc, &cols, &v));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* ---- options ----------------------------------------------------------- */
CASE(options_bad_storage, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", "bogus"));
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  PetscCall(MatSetType(A, MATDIAG));
  PetscCall(MatSetFromOptions(A));
  PetscFunctionReturn(0);
}

CASE(options_bad_max_diagonals, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", "many"));
  PetscCall(NewDiag(c, 10, 0, NULL, &A));
  PetscCall(MatSetFromOptions(A));
  PetscFunctionReturn(0);
}

CASE(options_fill_below_one, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "0.5"));
  PetscCall(NewDiag(c, 10, 0, NULL, &A));
  PetscCall(MatSetFromOptions(A));
  PetscFunctionReturn(0);
}

CASE(options_cdm_rectangular, Error, kOneTwo)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", "cdm"));
  c.mats.push_back(NULL);
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 12, 0, NULL, &c.mats.back()));
  PetscCall(MatSetFromOptions(c.mats.back()));
  PetscFunctionReturn(0);
}

CASE(options_bad_storage_convert, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", "bogus"));
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  PetscCall(MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  PetscFunctionReturn(0);
}

} // namespace
