/* Fault cases of the MatOps entries diag implements, of assembly and of
   conversions (included by fault_driver.cpp). */
namespace {

/* ---- vectors of the wrong size or layout ------------------------------- */
#define VEC_CASE(name, expr, nps) \
  CASE(name, Error, nps) \
  { \
    Mat A = NULL; \
    Vec good = NULL, bad = NULL; \
    PetscFunctionBeginUser; \
    PetscCall(NewTri(c, MATDIAG, 12, &A)); \
    PetscCall(NewVec(c, PETSC_DECIDE, 12, &good)); \
    PetscCall(NewVec(c, PETSC_DECIDE, 13, &bad)); \
    (void)good; \
    (void)bad; \
    PetscCall(expr); \
    PetscFunctionReturn(0); \
  }
VEC_CASE(mult_x_wrong_size, MatMult(A, bad, good), kAll)
VEC_CASE(mult_y_wrong_size, MatMult(A, good, bad), kOneTwo)
VEC_CASE(multadd_z_wrong_size, MatMultAdd(A, good, bad, good), kOneTwo)
VEC_CASE(multtranspose_wrong_size, MatMultTranspose(A, bad, good), kOneTwo)
VEC_CASE(multtransposeadd_wrong_size, MatMultTransposeAdd(A, good, bad, good), kOneTwo)
VEC_CASE(getdiagonal_wrong_size, MatGetDiagonal(A, bad), kAll)
VEC_CASE(getdiagonal_null, MatGetDiagonal(A, NULL), kOneTwo)
VEC_CASE(zerorows_x_wrong_size, MatZeroRows(A, 0, NULL, 1.0, bad, good), kAll)
VEC_CASE(zerorows_b_wrong_size, MatZeroRows(A, 0, NULL, 1.0, good, bad), kAll)
VEC_CASE(zerorowscolumns_b_wrong_size, MatZeroRowsColumns(A, 0, NULL, 1.0, good, bad), kOneTwo)
VEC_CASE(diagonalscale_l_wrong_size, MatDiagonalScale(A, bad, NULL), kOneTwo)
VEC_CASE(diagonalscale_r_wrong_size, MatDiagonalScale(A, NULL, bad), kOneTwo)
VEC_CASE(diagonalset_wrong_size, MatDiagonalSet(A, bad, INSERT_VALUES), kOneTwo)
VEC_CASE(sor_b_wrong_size, MatSOR(A, bad, 1.0, SOR_FORWARD_SWEEP, 0.0, 1, 1, good), kOneTwo)
VEC_CASE(mult_aliased, MatMult(A, good, good), kOneTwo)
VEC_CASE(multadd_aliased_x_z, MatMultAdd(A, good, bad, good), kOneTwo)

#define SKEW_CASE(name, expr) \
  CASE(name, Error, kMulti) \
  { \
    Mat A = NULL; \
    Vec good = NULL, skew = NULL; \
    PetscFunctionBeginUser; \
    PetscCall(NewTri(c, MATDIAG, 12, &A)); \
    PetscCall(NewVec(c, PETSC_DECIDE, 12, &good)); \
    PetscCall(NewSkewedVec(c, 12, &skew)); \
    PetscCall(expr); \
    PetscFunctionReturn(0); \
  }
SKEW_CASE(mult_x_wrong_layout, MatMult(A, skew, good))
SKEW_CASE(getdiagonal_wrong_layout, MatGetDiagonal(A, skew))
SKEW_CASE(zerorows_x_wrong_layout, MatZeroRows(A, 0, NULL, 1.0, skew, good))
SKEW_CASE(diagonalscale_wrong_layout, MatDiagonalScale(A, skew, NULL))

/* ---- rows of MatZeroRows ------------------------------------------------ */
CASE(zerorows_row_out_of_range_one_rank, Error, kMulti)
{
  Mat            A = NULL;
  const PetscInt rows[] = {c.last() ? (PetscInt)12 : (PetscInt)0};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(MatZeroRows(A, 1, rows, 1.0, NULL, NULL));
  PetscFunctionReturn(0);
}

CASE(zerorows_negative_row, Error, kOneTwo)
{
  Mat            A = NULL;
  const PetscInt rows[] = {-1};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(MatZeroRows(A, 1, rows, 1.0, NULL, NULL));
  PetscFunctionReturn(0);
}

CASE(zerorows_null_rows_one_rank, Error, kMulti)
{
  Mat            A = NULL;
  const PetscInt rows[] = {0};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(MatZeroRows(A, 1, c.last() ? NULL : rows, 1.0, NULL, NULL));
  PetscFunctionReturn(0);
}

CASE(zerorowscolumns_row_out_of_range_one_rank, Error, kMulti)
{
  Mat            A = NULL;
  const PetscInt rows[] = {c.last() ? PETSC_MAX_INT : (PetscInt)1};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(MatZeroRowsColumns(A, 1, rows, 1.0, NULL, NULL));
  PetscFunctionReturn(0);
}

CASE(zerorows_ok, Ok, kAll)
{
  Mat            A = NULL, B = NULL;
  const PetscInt rows[] = {0, 5, 11};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(NewTri(c, MATAIJ, 12, &B));
  PetscCall(MatZeroRows(A, c.rank == 0 ? 3 : 0, rows, 2.0, NULL, NULL));
  PetscCall(MatZeroRows(B, c.rank == 0 ? 3 : 0, rows, 2.0, NULL, NULL));
  PetscCall(SameOperator(c, A, B, "MatZeroRows"));
  PetscFunctionReturn(0);
}

/* ---- MatSetValues / MatGetValues (not collective) ------------------------ */
CASE(setvalues_row_out_of_range, Faulted, kAll)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatSetValue(A, 12, 0, 1.0, INSERT_VALUES));
  PetscFunctionReturn(0);
}

CASE(setvalues_col_out_of_range, Faulted, kAll)
{
  Mat      A = NULL;
  PetscInt rs;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCall(MatSetValue(A, rs, 12, 1.0, INSERT_VALUES));
  PetscFunctionReturn(0);
}

CASE(setvalues_col_int_max, Faulted, kOneTwo)
{
  Mat      A = NULL;
  PetscInt rs;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCall(MatSetValue(A, rs, PETSC_MAX_INT, 1.0, INSERT_VALUES));
  PetscFunctionReturn(0);
}

CASE(setvalues_null_rows, Faulted, kOneTwo)
{
  Mat            A = NULL;
  const PetscInt cols[] = {0};
  PetscScalar    v[]    = {1.0};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatSetValues(A, 1, NULL, 1, cols, v, INSERT_VALUES));
  PetscFunctionReturn(0);
}

CASE(setvalues_null_cols, Faulted, kOneTwo)
{
  Mat         A = NULL;
  PetscInt    rs;
  PetscScalar v[] = {1.0};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCall(MatSetValues(A, 1, &rs, 1, NULL, v, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* With -mat_diag_scattered_fill 0 a new diagonal over the limit is refused
   at MatSetValues itself (by default the assembly converts such a matrix
   to aij: assembly_random_1e5_aij_ok) */
CASE(setvalues_too_many_diagonals, Faulted, kOneTwo)
{
  Mat      A = NULL;
  PetscInt rs, re;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0")); /* refused, not converted to aij */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", "10"));
  PetscCall(NewDiag(c, 100, 0, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt j = 0; j < 20; j++) PetscCall(MatSetValue(A, rs, j, 1.0, INSERT_VALUES));
  PetscFunctionReturn(0);
}

CASE(getvalues_other_rows, Faulted, kMulti)
{
  Mat         A = NULL;
  PetscInt    re, col = 0;
  PetscScalar v;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(MatGetOwnershipRange(A, NULL, &re));
  PetscInt row = re % 12;
  PetscCall(MatGetValues(A, 1, &row, 1, &col, &v));
  PetscFunctionReturn(0);
}

CASE(getvalues_null_values, Faulted, kOneTwo)
{
  Mat      A = NULL;
  PetscInt rs, col = 0;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCall(MatGetValues(A, 1, &rs, 1, &col, NULL));
  PetscFunctionReturn(0);
}

/* ---- unassembled matrices ----------------------------------------------- */
#define UNASSEMBLED_CASE(name, expr) \
  CASE(name, Error, kOneTwo) \
  { \
    Mat A = NULL; \
    Vec x = NULL, y = NULL; \
    PetscFunctionBeginUser; \
    PetscCall(NewUnassembled(c, 12, &A)); \
    PetscCall(NewVec(c, PETSC_DECIDE, 12, &x)); \
    PetscCall(NewVec(c, PETSC_DECIDE, 12, &y)); \
    (void)x; \
    (void)y; \
    PetscCall(expr); \
    PetscFunctionReturn(0); \
  }
UNASSEMBLED_CASE(unassembled_mult, MatMult(A, x, y))
UNASSEMBLED_CASE(unassembled_multtranspose, MatMultTranspose(A, x, y))
UNASSEMBLED_CASE(unassembled_getdiagonal, MatGetDiagonal(A, y))
UNASSEMBLED_CASE(unassembled_norm, MatNorm(A, NORM_1, NULL))
UNASSEMBLED_CASE(unassembled_duplicate, MatDuplicate(A, MAT_COPY_VALUES, &c.mat()))
UNASSEMBLED_CASE(unassembled_convert, MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &c.mat()))
UNASSEMBLED_CASE(unassembled_transpose, MatTranspose(A, MAT_INITIAL_MATRIX, &c.mat()))
UNASSEMBLED_CASE(unassembled_scale, MatScale(A, 2.0))
UNASSEMBLED_CASE(unassembled_zerorows, MatZeroRows(A, 0, NULL, 1.0, NULL, NULL))
UNASSEMBLED_CASE(unassembled_sor, MatSOR(A, x, 1.0, SOR_FORWARD_SWEEP, 0.0, 1, 1, y))

/* ---- assembly: memory budget, staging ------------------------------------ */
/* The case: 10^5 x 10^5 with 10^5 random entries. Refused at
   assembly from the counts, in O(entries), without allocating diagonals
   (with -mat_diag_scattered_fill 0; by default it becomes aij: below). */
CASE(assembly_random_1e5, Error, kAll)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0")); /* refused, not converted to aij */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", "1000000"));
  PetscCall(NewDiag(c, 100000, 0, NULL, &A));
  PetscCall(SetScattered(A, 100000 / c.size, 7 + (unsigned)c.rank));
  PetscCall(Assemble(A));
  PetscFunctionReturn(0);
}

/* The same by default: the budget would refuse the structure (10^5
   diagonals), so the assembly converts the matrix to aij, built from the
   staged entries without storing a diagonal; it is the operator an aij
   matrix of the same entries is. */
CASE(assembly_random_1e5_aij_ok, Ok, kAll)
{
  Mat       A = NULL, B = NULL;
  PetscBool isaij;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 100000, 0, NULL, &A));
  PetscCall(SetScattered(A, 100000 / c.size, 7 + (unsigned)c.rank));
  PetscCall(Assemble(A));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isaij, MATSEQAIJ, MATMPIAIJ, ""));
  PetscCheck(isaij, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the over-budget matrix is not aij after its assembly");
  c.mats.push_back(NULL);
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 100000, 100000, 10, NULL, 10, NULL, &c.mats.back()));
  B = c.mats.back();
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(SetScattered(B, 100000 / c.size, 7 + (unsigned)c.rank));
  PetscCall(Assemble(B));
  PetscCall(SameOperator(c, A, B, "10^5 random entries, converted to aij"));
  PetscFunctionReturn(0);
}

/* Within the bytes limit but scattered: refused by the fill limit. */
CASE(assembly_scattered_fill, Error, kOneTwo)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0")); /* refused, not converted to aij */
  PetscCall(NewDiag(c, 100000, 0, NULL, &A));
  PetscCall(SetScattered(A, 3000, 11 + (unsigned)c.rank)); /* per process: under MPI the entries in other processes' columns are listed (pdiag/remote.hpp), those in its own go on diagonals */
  PetscCall(Assemble(A));
  PetscFunctionReturn(0);
}

CASE(assembly_scattered_one_rank, Error, kMulti)
{
  Mat      A = NULL;
  PetscInt rs, re;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0")); /* refused, not converted to aij */
  PetscCall(NewDiag(c, 100000, 0, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  if (c.last()) PetscCall(SetScattered(A, 3000, 5));
  else
    for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(A, i, i, 1.0, INSERT_VALUES));
  PetscCall(Assemble(A));
  PetscFunctionReturn(0);
}

CASE(assembly_scattered_allowed_ok, Ok, kOneTwo)
{
  Mat A = NULL, B = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_fill", "1e9"));
  PetscCall(NewDiag(c, 3000, 0, NULL, &A));
  PetscCall(SetScattered(A, 500, 3 + (unsigned)c.rank));
  PetscCall(Assemble(A));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &c.mat()));
  B = c.mats.back();
  PetscCall(SameOperator(c, A, B, "scattered entries"));
  PetscFunctionReturn(0);
}

/* Off-process entries: the receiving process goes over its budget (its
   own columns: entries in other processes' columns would be listed,
   pdiag/remote.hpp). */
CASE(assembly_stash_budget, Error, kMulti)
{
  Mat      A = NULL;
  PetscInt N = 100000;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0")); /* refused, not converted to aij */
  PetscCall(NewDiag(c, N, 0, NULL, &A));
  if (c.rank == 0) {
    std::mt19937 gen(1);
    std::uniform_int_distribution<PetscInt> col(N - N / c.size, N - 1);
    for (PetscInt e = 0; e < 3000; e++) PetscCall(MatSetValue(A, N - 1 - (e % 50), col(gen), 1.0, ADD_VALUES));
  }
  PetscCall(Assemble(A));
  PetscFunctionReturn(0);
}

/* The staging (entries on diagonals not stored yet) keeps insert and add
   semantics: a 2D Laplacian assembled without preallocation, with added
   duplicates and a flush between insert and add, against aij. */
CASE(assembly_stencil_ok, Ok, kAll)
{
  const PetscInt g = 23, N = g * g;
  Mat            M[2];
  PetscFunctionBeginUser;
  for (int t = 0; t < 2; t++) {
    PetscInt rs, re;
    c.mats.push_back(NULL);
    PetscCall(MatCreate(PETSC_COMM_WORLD, &c.mats.back()));
    M[t] = c.mats.back();
    PetscCall(MatSetSizes(M[t], PETSC_DECIDE, PETSC_DECIDE, N, N));
    PetscCall(MatSetType(M[t], t == 0 ? MATDIAG : MATAIJ));
    /* the aij reference preallocated: without, PETSc 3.25's aij assembles through a hash that refuses insert and add in one assembly, even across a flush */
    if (t == 1) PetscCall(MatSeqAIJSetPreallocation(M[t], 5, NULL));
    if (t == 1) PetscCall(MatMPIAIJSetPreallocation(M[t], 5, NULL, 5, NULL));
    PetscCall(MatSetUp(M[t]));
    PetscCall(MatGetOwnershipRange(M[t], &rs, &re));
    for (PetscInt i = rs; i < re; i++) { /* insert, then overwrite the main diagonal */
      PetscCall(MatSetValue(M[t], i, i, 1.0, INSERT_VALUES));
      PetscCall(MatSetValue(M[t], i, i, 4.0 + 0.001 * i, INSERT_VALUES));
      if (i % g) PetscCall(MatSetValue(M[t], i, i - 1, -1.0, INSERT_VALUES));
      if (i >= g) PetscCall(MatSetValue(M[t], i, i - g, -1.0, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[t], MAT_FLUSH_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[t], MAT_FLUSH_ASSEMBLY));
    for (PetscInt i = rs; i < re; i++) { /* added twice, one of them from the next process's rows */
      if ((i + 1) % g) PetscCall(MatSetValue(M[t], i, i + 1, -0.5, ADD_VALUES));
      if ((i + 1) % g) PetscCall(MatSetValue(M[t], i, i + 1, -0.5, ADD_VALUES));
      if (i + g < N) PetscCall(MatSetValue(M[t], i + g, i, -1.0, ADD_VALUES));
      if (i + g < N) PetscCall(MatSetValue(M[t], i, i + g, -0.25 * (1 + i % 3), ADD_VALUES));
    }
    PetscCall(Assemble(M[t]));
  }
  PetscCall(SameOperator(c, M[0], M[1], "stencil assembled without preallocation"));
  PetscFunctionReturn(0);
}

CASE(coo_out_of_range_one_rank, Error, kMulti)
{
  Mat      A = NULL;
  PetscInt i[1], j[1];
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  i[0] = 0;
  j[0] = c.last() ? 12 : 0;
  PetscCall(MatSetPreallocationCOO(A, 1, i, j));
  PetscFunctionReturn(0);
}

CASE(coo_null_indices_one_rank, Error, kMulti)
{
  Mat      A = NULL;
  PetscInt i[1] = {0}, j[1] = {0};
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatSetPreallocationCOO(A, 1, c.last() ? NULL : i, c.last() ? NULL : j));
  PetscFunctionReturn(0);
}

CASE(coo_null_values, Faulted, kOneTwo)
{
  Mat      A = NULL;
  PetscInt i[1], j[1];
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 12, 0, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &i[0], NULL));
  j[0] = i[0];
  PetscCall(MatSetPreallocationCOO(A, 1, i, j));
  PetscCall(MatSetValuesCOO(A, NULL, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* ---- conversions --------------------------------------------------------- */
CASE(convert_from_is_ok, Ok, kAll)
{
  Mat A = NULL, S = NULL, D = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATAIJ, 20, &A));
  PetscCall(MatConvert(A, MATIS, MAT_INITIAL_MATRIX, &c.mat()));
  S = c.mats.back();
  PetscCall(MatConvert(S, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  D = c.mats.back();
  PetscCall(SameOperator(c, D, A, "MATIS -> diag"));
  PetscFunctionReturn(0);
}

CASE(convert_from_nest_ok, Ok, kOneTwo)
{
  Mat A = NULL, Nest = NULL, D = NULL, blocks[4];
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  blocks[0] = A;
  blocks[1] = NULL;
  blocks[2] = NULL;
  blocks[3] = A;
  PetscCall(MatCreateNest(PETSC_COMM_WORLD, 2, NULL, 2, NULL, blocks, &c.mat()));
  Nest = c.mats.back();
  PetscCall(MatConvert(Nest, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  D = c.mats.back();
  PetscCall(SameOperator(c, D, Nest, "MATNEST -> diag"));
  PetscFunctionReturn(0);
}

PetscErrorCode ShellMult(Mat S, Vec x, Vec y)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &A));
  PetscCall(MatMult(A, x, y));
  PetscFunctionReturn(0);
}

CASE(convert_from_shell, Clean, kOneTwo)
{
  Mat      A = NULL, S = NULL, D = NULL;
  PetscInt m, n;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATAIJ, 10, &A));
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCall(MatCreateShell(PETSC_COMM_WORLD, m, n, 10, 10, A, &c.mat()));
  S = c.mats.back();
  PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))ShellMult));
  PetscCall(MatConvert(S, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  D = c.mats.back();
  PetscCall(SameOperator(c, D, A, "MATSHELL -> diag"));
  PetscFunctionReturn(0);
}

CASE(convert_to_is_ok, Ok, kAll)
{
  Mat A = NULL, S = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 20, &A));
  PetscCall(MatConvert(A, MATIS, MAT_INITIAL_MATRIX, &c.mat()));
  S = c.mats.back();
  PetscCall(SameOperator(c, S, A, "diag -> MATIS"));
  PetscFunctionReturn(0);
}

CASE(convert_from_sbaij_ok, Ok, kAll)
{
  Mat A = NULL, S = NULL, D = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewSymTri(c, MATAIJ, 20, &A));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatConvert(A, MATSBAIJ, MAT_INITIAL_MATRIX, &c.mat()));
  S = c.mats.back();
  PetscCall(MatConvert(S, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  D = c.mats.back();
  PetscCall(SameOperator(c, D, A, "sbaij -> diag (both triangles)"));
  PetscFunctionReturn(0);
}

CASE(convert_to_sbaij_nonsymmetric, Error, kAll)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 20, &A));
  PetscCall(MatConvert(A, MATSBAIJ, MAT_INITIAL_MATRIX, &c.mat()));
  PetscFunctionReturn(0);
}

CASE(convert_to_sbaij_symmetric_ok, Ok, kAll)
{
  Mat A = NULL, S = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewSymTri(c, MATDIAG, 20, &A));
  PetscCall(MatConvert(A, MATSBAIJ, MAT_INITIAL_MATRIX, &c.mat()));
  S = c.mats.back();
  PetscCall(SameOperator(c, S, A, "diag -> sbaij"));
  PetscFunctionReturn(0);
}

CASE(convert_dense_roundtrip_ok, Ok, kOneTwo)
{
  Mat A = NULL, Dn = NULL, D = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 15, &A));
  PetscCall(MatConvert(A, MATDENSE, MAT_INITIAL_MATRIX, &c.mat()));
  Dn = c.mats.back();
  PetscCall(MatConvert(Dn, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  D = c.mats.back();
  PetscCall(SameOperator(c, D, A, "diag -> dense -> diag"));
  PetscFunctionReturn(0);
}

/* aij -> diag of a scattered matrix: refused from the counts, before the
   storage (tens of GB) is allocated */
CASE(convert_scattered_aij, Error, kAll)
{
  Mat A = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, 1, 0, NULL, &A)); /* unused: keeps registration order simple */
  c.mats.push_back(NULL);
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 100000, 100000, 10, NULL, 10, NULL, &c.mats.back()));
  Mat B = c.mats.back();
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(SetScattered(B, 100000 / c.size, 3 + (unsigned)c.rank));
  PetscCall(Assemble(B));
  PetscCall(MatConvert(B, MATDIAG, MAT_INITIAL_MATRIX, &c.mat()));
  PetscFunctionReturn(0);
}

CASE(convert_inplace_refused, Error, kOneTwo)
{
  PetscFunctionBeginUser;
  c.mats.push_back(NULL);
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 50000, 50000, 10, NULL, 10, NULL, &c.mats.back()));
  PetscCall(MatSetOption(c.mats.back(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(SetScattered(c.mats.back(), 20000 / c.size, 9 + (unsigned)c.rank));
  PetscCall(Assemble(c.mats.back()));
  PetscCall(MatConvert(c.mats.back(), MATDIAG, MAT_INPLACE_MATRIX, &c.mats.back()));
  PetscFunctionReturn(0);
}

/* ---- other ops: sizes and types ------------------------------------------ */
CASE(axpy_different_sizes, Error, kOneTwo)
{
  Mat A = NULL, B = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(NewTri(c, MATDIAG, 13, &B));
  PetscCall(MatAXPY(A, 1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

CASE(copy_different_sizes, Error, kOneTwo)
{
  Mat A = NULL, B = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(NewTri(c, MATDIAG, 13, &B));
  PetscCall(MatCopy(A, B, DIFFERENT_NONZERO_PATTERN));
  PetscFunctionReturn(0);
}

CASE(axpy_with_aij_ok, Ok, kOneTwo)
{
  Mat A = NULL, B = NULL, R = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(NewTri(c, MATAIJ, 12, &B));
  PetscCall(NewTri(c, MATAIJ, 12, &R));
  PetscCall(MatAXPY(A, 2.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatScale(R, 3.0));
  PetscCall(SameOperator(c, A, R, "diag + 2 aij"));
  PetscFunctionReturn(0);
}

CASE(product_unknown_algorithm, Error, kOneTwo)
{
  Mat A = NULL, B = NULL, C = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(NewTri(c, MATDIAG, 12, &B));
  c.mats.push_back(NULL);
  PetscCall(MatProductCreate(A, B, NULL, &c.mats.back()));
  C = c.mats.back();
  PetscCall(MatProductSetType(C, MATPRODUCT_AB));
  PetscCall(MatProductSetAlgorithm(C, "no_such_algorithm"));
  PetscCall(MatProductSetFromOptions(C));
  PetscCall(MatProductSymbolic(C));
  PetscFunctionReturn(0);
}

CASE(product_wrong_sizes, Error, kOneTwo)
{
  Mat A = NULL, B = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  PetscCall(NewTri(c, MATDIAG, 13, &B));
  PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &c.mat()));
  PetscFunctionReturn(0);
}

CASE(product_too_many_diagonals, Error, kOneTwo)
{
  Mat A = NULL, B = NULL;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", "4"));
  PetscCall(NewTri(c, MATDIAG, 30, &A));
  PetscCall(NewTri(c, MATDIAG, 30, &B));
  PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &c.mat()));
  PetscCall(MatMatMult(c.mats.back(), B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &c.mat()));
  PetscFunctionReturn(0);
}

CASE(transpose_ok, Ok, kAll)
{
  Mat A = NULL, At = NULL, B = NULL, Bt = NULL;
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 17, &A));
  PetscCall(NewTri(c, MATAIJ, 17, &B));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &c.mat()));
  At = c.mats.back();
  PetscCall(MatTranspose(B, MAT_INITIAL_MATRIX, &c.mat()));
  Bt = c.mats.back();
  PetscCall(SameOperator(c, At, Bt, "transpose"));
  PetscFunctionReturn(0);
}

CASE(submatrix_bad_is, Clean, kOneTwo)
{
  Mat A = NULL;
  IS  is = NULL;
  PetscInt idx[] = {0, 40};
  PetscFunctionBeginUser;
  PetscCall(NewTri(c, MATDIAG, 12, &A));
  c.iss.push_back(NULL);
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, c.rank == 0 ? 2 : 0, idx, PETSC_COPY_VALUES, &c.iss.back()));
  is = c.iss.back();
  PetscCall(MatCreateSubMatrix(A, is, is, MAT_INITIAL_MATRIX, &c.mat()));
  PetscFunctionReturn(0);
}

/* MatLoad into diag of a file whose row lengths do not add up, and of one
   with a column out of range (run_faults.py writes both) */
PetscErrorCode LoadFile(Ctx &c, const char *option)
{
  char      path[PETSC_MAX_PATH_LEN];
  PetscBool set;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, option, path, sizeof(path), &set));
  if (!set) SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_USER, "faults: this case needs %s <path>", option);
  c.mats.push_back(NULL);
  PetscCall(MatCreate(PETSC_COMM_WORLD, &c.mats.back()));
  PetscCall(MatSetType(c.mats.back(), MATDIAG));
  c.viewers.push_back(NULL);
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, path, FILE_MODE_READ, &c.viewers.back()));
  PetscCall(MatLoad(c.mats.back(), c.viewers.back()));
  PetscFunctionReturn(0);
}

CASE(load_binary_junk, Error, kOneTwo)
{
  PetscFunctionBeginUser;
  PetscCall(LoadFile(c, "-junk_file"));
  PetscFunctionReturn(0);
}

CASE(load_binary_bad_column, Error, kAll)
{
  PetscFunctionBeginUser;
  PetscCall(LoadFile(c, "-badcol_file"));
  PetscFunctionReturn(0);
}

CASE(load_binary_ok, Ok, kAll)
{
  Mat A = NULL, B = NULL;
  PetscFunctionBeginUser;
  PetscCall(LoadFile(c, "-good_file"));
  A = c.mats.back();
  PetscCall(NewTri(c, MATAIJ, 4, &B));
  PetscCall(SameOperator(c, A, B, "MatLoad into diag"));
  PetscFunctionReturn(0);
}

} // namespace
