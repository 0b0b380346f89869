/* The remaining operations of MATDIAG and the operation table. Unsupported
   operations are left NULL: PETSc then reports "No support for this
   operation for this object type ... Mat type seqdiag" (or mpidiag). */
#include "core/mat_diag.hpp"

#include "pdiag/cpu.hpp"
#include "pdiag/ops.hpp"


/* Runs f on the view of whichever scheme is stored. */
template <class F>
static void WithView(Mat_Diag *a, F &&f)
{
  if (a->scheme == pdiag::Scheme::HM) f(a->hm.view());
  else f(a->cdm.view());
}

/* Every process learns whether any process changed its structure, so that
   all rebuild their ghost scatters (a collective step) together. */
PetscErrorCode MatDiagSyncStructure_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  PetscBool valid;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&a->mpi.ghost_valid, &valid, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (!valid) PetscCall(MatDiagGhostDestroy_Private(A));
  PetscFunctionReturn(0);
}

/* Adds the main diagonal to the storage if it is missing (local, no values change). */
static PetscErrorCode MatDiagEnsureMainDiagonal(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (a->layout.length(0) == 0) PetscFunctionReturn(0);
  if (a->scheme == pdiag::Scheme::HM) {
    if (a->hm.find_diagonal(0) >= 0) PetscFunctionReturn(0);
    std::vector<Index> offs = a->hm.offsets;
    offs.push_back(0);
    Hm grown;
    DiagCallKernel(grown = pdiag::hm_regrid(a->hm, offs));
    PetscCall(MatDiagReplaceStorage_Private(A, std::move(grown)));
  } else {
    if (a->cdm.find_diagonal(0) >= 0) PetscFunctionReturn(0);
    std::vector<Index> koffs = a->cdm.koffsets;
    koffs.push_back(0);
    Cdm grown;
    DiagCallKernel(grown = pdiag::cdm_regrid(a->cdm, koffs));
    a->cdm         = std::move(grown);
    a->mpi.ghost_valid = PETSC_FALSE;
    A->nonzerostate++;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_Diag(Mat A, Vec v)
{
  Mat_Diag    *a = (Mat_Diag *)A->data;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWrite(v, &va));
  if (a->scheme == pdiag::Scheme::HM) pdiag::hm_get_diagonal(a->hm.view(), va);
  else pdiag::cdm_get_diagonal(a->cdm.view(), va);
  PetscCall(VecRestoreArrayWrite(v, &va));
  PetscFunctionReturn(0);
}


/* A <- diag(l) A diag(r); r is gathered over the columns the rows reach. */
static PetscErrorCode MatDiagonalScale_Diag(Mat A, Vec l, Vec r)
{
  Mat_Diag          *a  = (Mat_Diag *)A->data;
  const PetscScalar *la = NULL, *ra = NULL;
  const Index       *shift = NULL;

  PetscFunctionBegin;
  MatDiagValuesChanged(A);
  if (l) PetscCall(VecGetArrayRead(l, &la));
  if (r) PetscCall(MatDiagGatherColumns_Private(A, r, &ra, &shift));
  if (a->scheme == pdiag::Scheme::HM) pdiag::hm_diagonal_scale(a->hm.view(), la, ra, shift);
  else pdiag::cdm_diagonal_scale(a->cdm.view(), la, ra, shift);
  if (l) PetscCall(VecRestoreArrayRead(l, &la));
  if (r) PetscCall(MatDiagRestoreColumns_Private(A, r, &ra));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatScale_Diag(Mat A, PetscScalar alpha)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  MatDiagValuesChanged(A);
  pdiag::scale_values(a->values(), a->nstored(), alpha);
  pdiag::scale_values(a->remote.val.data(), a->remote.size(), alpha);
  PetscCall(PetscLogFlops((PetscLogDouble)(a->nstored() + a->remote.size())));
  PetscFunctionReturn(0);
}

/* MatConjugate, MatRealPart and MatImaginaryPart: every stored value, the
   diagonals' and the listed entries', as aij's change every stored value;
   the structure stays (an entry whose part is zero remains an entry, as in
   aij). PETSc's MatRealPart and MatImaginaryPart leave the object state
   as it is: it is increased here, so that the aij copy and the device copy
   take the new values. For real scalars the first two change nothing and
   the third zeroes the values. */
template <void (*Kernel)(PetscScalar *, Index)>
static PetscErrorCode MatValuesMap_Diag(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  MatDiagValuesChanged(A);
  Kernel(a->values(), a->nstored());
  Kernel(a->remote.val.data(), a->remote.size());
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatShift_Diag(Mat A, PetscScalar alpha)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  MatDiagValuesChanged(A);
  PetscCall(MatDiagEnsureMainDiagonal(A));
  DiagCallKernel(WithView(a, [&](auto v) { pdiag::add_to_diagonal(v, (const PetscScalar *)NULL, alpha, false); }));
  PetscCall(MatDiagSyncStructure_Private(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDiagonalSet_Diag(Mat A, Vec D, InsertMode mode)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const PetscScalar *d;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckVec_Private(D, A->rmap, "D of MatDiagonalSet()"));
  PetscCall(MatDiagEnsureMainDiagonal(A));
  MatDiagValuesChanged(A);
  PetscCall(VecGetArrayRead(D, &d));
  DiagCallKernel(WithView(a, [&](auto v) { pdiag::add_to_diagonal(v, d, (PetscScalar)1.0, mode == INSERT_VALUES); }));
  PetscCall(VecRestoreArrayRead(D, &d));
  PetscCall(MatDiagSyncStructure_Private(A));
  PetscFunctionReturn(0);
}

/* Y += a X for two diag matrices of one layout: Y grows to the union of the diagonals. */
static PetscErrorCode MatAXPY_Diag(Mat Y, PetscScalar alpha, Mat X, MatStructure str)
{
  Mat_Diag *y = (Mat_Diag *)Y->data, *x = (Mat_Diag *)X->data;

  PetscFunctionBegin;
  (void)str;
  PetscCall(MatDiagDeviceTry(sync_host, X));
  if (x->scheme != y->scheme) { /* bring X into Y's scheme through a copy */
    Mat Xc;
    PetscCall(MatDuplicate(X, MAT_COPY_VALUES, &Xc));
    PetscCall(MatDiagSetStorage(Xc, y->scheme == pdiag::Scheme::HM ? MAT_DIAG_STORAGE_HM : MAT_DIAG_STORAGE_CDM));
    PetscCall(MatAXPY_Diag(Y, alpha, Xc, str));
    PetscCall(MatDestroy(&Xc));
    PetscFunctionReturn(0);
  }
  if (y->scheme == pdiag::Scheme::HM) {
    std::vector<Index> offs = y->hm.offsets;
    offs.insert(offs.end(), x->hm.offsets.begin(), x->hm.offsets.end());
    std::sort(offs.begin(), offs.end());
    offs.erase(std::unique(offs.begin(), offs.end()), offs.end());
    if (offs != y->hm.offsets) {
      Hm grown;
      DiagCallKernel(grown = pdiag::hm_regrid(y->hm, offs));
      PetscCall(MatDiagReplaceStorage_Private(Y, std::move(grown)));
    }
    MatDiagValuesChanged(Y);
    DiagCallKernel(pdiag::axpy(y->hm.view(), alpha, x->hm.view()));
  } else {
    std::vector<Index> koffs = y->cdm.koffsets;
    koffs.insert(koffs.end(), x->cdm.koffsets.begin(), x->cdm.koffsets.end());
    std::sort(koffs.begin(), koffs.end());
    koffs.erase(std::unique(koffs.begin(), koffs.end()), koffs.end());
    if (koffs != y->cdm.koffsets) {
      Cdm grown;
      DiagCallKernel(grown = pdiag::cdm_regrid(y->cdm, koffs));
      y->cdm         = std::move(grown);
      y->mpi.ghost_valid = PETSC_FALSE;
      Y->nonzerostate++;
    }
    MatDiagValuesChanged(Y);
    DiagCallKernel(pdiag::axpy(y->cdm.view(), alpha, x->cdm.view()));
  }
  PetscCall(MatDiagSyncStructure_Private(Y));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)x->nstored()));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatNorm_Diag(Mat A, NormType type, PetscReal *nrm)
{
  Mat_Diag *a    = (Mat_Diag *)A->data;
  MPI_Comm  comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatNorm()")); /* reads diagonals only */
  if (type == NORM_FROBENIUS) {
    double loc = 0, sum;
    WithView(a, [&](auto v) { loc = pdiag::local_sum_squares(v); });
    PetscCall(MPIU_Allreduce(&loc, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
    *nrm = PetscSqrtReal((PetscReal)sum);
  } else if (type == NORM_INFINITY) {
    std::vector<PetscReal> rows((std::size_t)a->layout.nrows, 0.0);
    WithView(a, [&](auto v) { pdiag::local_abs_row_sums(v, rows.data()); });
    PetscReal loc = rows.empty() ? 0.0 : *std::max_element(rows.begin(), rows.end());
    PetscCall(MPIU_Allreduce(&loc, nrm, 1, MPIU_REAL, MPIU_MAX, comm));
  } else if (type == NORM_1) {
    std::vector<PetscReal> cols((std::size_t)a->layout.ncols, 0.0), sum(cols.size());
    WithView(a, [&](auto v) { pdiag::local_abs_col_sums(v, cols.data()); });
    PetscCall(MPIU_Allreduce(cols.data(), sum.data(), (PetscMPIInt)cols.size(), MPIU_REAL, MPIU_SUM, comm));
    *nrm = sum.empty() ? 0.0 : *std::max_element(sum.begin(), sum.end());
  } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: MatNorm type %d is not supported by Mat type diag", (int)type);
  PetscFunctionReturn(0);
}

/* MatGetRowSumAbs (PETSc 3.21 and later; PCJACOBI's -pc_jacobi_type
   rowl1): sum_j |a_ij| of each owned row, over the stored diagonals (a
   stored zero adds nothing), the off-process columns included. */
static PetscErrorCode MatGetRowSumAbs_Diag(Mat A, Vec v)
{
  Mat_Diag    *a = (Mat_Diag *)A->data;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckVec_Private(v, A->rmap, "v of MatGetRowSumAbs()"));
  PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatGetRowSumAbs()")); /* reads diagonals only */
  PetscCall(VecGetArrayWrite(v, &va));
  WithView(a, [&](auto view) { pdiag::local_abs_row_sums(view, va); });
  PetscCall(VecRestoreArrayWrite(v, &va));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetRow_Diag(Mat A, PetscInt row, PetscInt *nz, PetscInt **idx, PetscScalar **v)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  std::vector<Index> cols;

  PetscFunctionBegin;
  PetscCheck(!a->row_busy, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: MatRestoreRow() must be called before MatGetRow() again");
  PetscCheck(row >= a->layout.row_begin && row < a->layout.row_end(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: MatGetRow() row %" PetscInt_FMT " is not in the owned rows [%" PetscInt64_FMT ", %" PetscInt64_FMT ")", row,
             (PetscInt64)a->layout.row_begin, (PetscInt64)a->layout.row_end());
  /* the row's entries as aij holds them (see companion/companion.cpp), not every stored zero */
  PetscCall(MatDiagAijRow_Private(A, row, &cols, &a->row_vals));
  a->row_cols.assign(cols.begin(), cols.end());
  a->row_busy = PETSC_TRUE;
  if (nz) *nz = (PetscInt)cols.size();
  if (idx) *idx = a->row_cols.data();
  if (v) *v = a->row_vals.data();
  PetscFunctionReturn(0);
}

static PetscErrorCode MatRestoreRow_Diag(Mat A, PetscInt row, PetscInt *nz, PetscInt **idx, PetscScalar **v)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  (void)row;
  a->row_busy = PETSC_FALSE;
  if (nz) *nz = 0;
  if (idx) *idx = NULL;
  if (v) *v = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatEqual_Diag(Mat A, Mat B, PetscBool *flg)
{
  Mat_Diag *a = (Mat_Diag *)A->data, *b = (Mat_Diag *)B->data;
  PetscBool same, loc = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, ((PetscObject)A)->type_name, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: MatEqual() compares two diag matrices; convert the other one first");
  PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatEqual()"));
  PetscCall(MatDiagRemoteToDiagonals_Private(B, "MatEqual()"));
  PetscCall(MatDiagDeviceTry(sync_host, B));
  if (a->layout == b->layout) {
    bool eq = false;
    DiagCallKernel(WithView(a, [&](auto va) { WithView(b, [&](auto vb) { eq = pdiag::values_equal(va, vb); }); }));
    loc = eq ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(MPIU_Allreduce(&loc, flg, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(0);
}

/* nz_used counts the entries an aij matrix of the operator holds (as
   aij's, what GAMG's operator complexity and the views count), nz_allocated
   and memory the stored diagonals (stored zeros included). */
static PetscErrorCode MatGetInfo_Diag(Mat A, MatInfoType flag, MatInfo *info)
{
  Mat_Diag      *a = (Mat_Diag *)A->data;
  PetscLogDouble loc[4], out[4];
  Index          used = 0;

  PetscFunctionBegin;
  if (A->assembled) PetscCall(MatDiagAijEntryCount_Private(A, &used));
  loc[0] = (PetscLogDouble)(a->nstored() + a->remote.size());
  loc[1] = (PetscLogDouble)(a->nstored() * sizeof(PetscScalar) + a->remote.size() * (sizeof(PetscScalar) + sizeof(Index)));
  loc[2] = (PetscLogDouble)A->num_ass;
  loc[3] = (PetscLogDouble)used;
  if (flag == MAT_LOCAL) for (int i = 0; i < 4; i++) out[i] = loc[i];
  else PetscCall(MPIU_Allreduce(loc, out, 4, MPIU_PETSCLOGDOUBLE, flag == MAT_GLOBAL_MAX ? MPI_MAX : MPI_SUM, PetscObjectComm((PetscObject)A)));
  info->block_size        = 1.0;
  info->nz_allocated      = out[0];
  info->nz_used           = out[3];
  info->nz_unneeded       = out[0] - out[3];
  info->memory            = out[1];
  info->assemblies        = loc[2];
  info->mallocs           = 0.0;
  info->fill_ratio_given  = 0;
  info->fill_ratio_needed = 0;
  info->factor_mallocs    = 0;
  PetscFunctionReturn(0);
}

/* Zeroes rows (any process may name any rows), puts diag on their diagonal and, given x and b, sets b = diag x there. */
static PetscErrorCode MatZeroRowsLocal_Diag(Mat A, PetscInt nloc, const PetscInt lrows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  std::vector<Index> local(lrows, lrows + nloc), rows(nloc);
  bool               missing = false;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < nloc; r++) rows[r] = a->layout.row_begin + lrows[r];
  if (x && b) {
    const PetscScalar *xa;
    PetscScalar       *ba;
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(b, &ba));
    pdiag::set_scaled_entries(ba, xa, local.data(), (Index)nloc, diag);
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArray(b, &ba));
  }
  MatDiagValuesChanged(A);
  DiagCallKernel(WithView(a, [&](auto v) { pdiag::zero_rows(v, rows.data(), (Index)nloc, diag, missing); }));
  if (missing) {
    PetscCall(MatDiagEnsureMainDiagonal(A));
    DiagCallKernel(WithView(a, [&](auto v) { pdiag::zero_rows(v, rows.data(), (Index)nloc, diag, missing); }));
  }
  PetscCall(MatDiagSyncStructure_Private(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatZeroRows_Diag(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscInt nloc, *lrows;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++)
    PetscCheck(rows[r] >= 0 && rows[r] < A->rmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: MatZeroRows() row %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", rows[r], A->rmap->N);
  PetscCall(PetscLayoutMapLocal(A->rmap, n, rows, &nloc, &lrows, NULL));
  PetscCall(MatZeroRowsLocal_Diag(A, nloc, lrows, diag, x, b));
  PetscCall(PetscFree(lrows));
  PetscFunctionReturn(0);
}

/* Zeroes rows and the same columns: b -= A(:, zeroed) x(zeroed) first, so the
   remaining system keeps its solution. */
static PetscErrorCode MatZeroRowsColumns_Diag(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscInt    nloc, *lrows;
  PetscMPIInt size, nl;

  PetscFunctionBegin;
  PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatZeroRowsColumns()")); /* reads diagonals only */
  PetscCheck(A->rmap->N == A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: MatZeroRowsColumns() needs a square matrix");
  PetscCall(MatDiagCheckZeroRowsArgs_Private(A, n, rows, x, b, "MatZeroRowsColumns()"));
  PetscCall(PetscLayoutMapLocal(A->rmap, n, rows, &nloc, &lrows, NULL));
  if (x && b) {
    Vec                xz, Ax;
    const PetscScalar *xa;
    PetscScalar       *za;
    PetscCall(VecDuplicate(x, &xz));
    PetscCall(VecDuplicate(b, &Ax));
    PetscCall(VecSet(xz, 0.0));
    std::vector<Index> local(lrows, lrows + nloc);
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(xz, &za));
    pdiag::set_scaled_entries(za, xa, local.data(), (Index)nloc, (PetscScalar)1.0);
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArray(xz, &za));
    PetscCall(MatMult(A, xz, Ax));
    PetscCall(VecAXPY(b, -1.0, Ax));
    PetscCall(VecDestroy(&xz));
    PetscCall(VecDestroy(&Ax));
  }
  /* every process zeroes the listed columns in its rows: gather the full list */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  std::vector<PetscMPIInt> counts(size), displs(size + 1, 0);
  nl = (PetscMPIInt)nloc;
  PetscCallMPI(MPI_Allgather(&nl, 1, MPI_INT, counts.data(), 1, MPI_INT, PetscObjectComm((PetscObject)A)));
  for (PetscMPIInt p = 0; p < size; p++) displs[p + 1] = displs[p] + counts[p];
  std::vector<PetscInt> mine(nloc), all(displs[size]);
  for (PetscInt r = 0; r < nloc; r++) mine[r] = A->rmap->rstart + lrows[r];
  PetscCallMPI(MPI_Allgatherv(mine.data(), nl, MPIU_INT, all.data(), counts.data(), displs.data(), MPIU_INT, PetscObjectComm((PetscObject)A)));
  std::vector<Index> cols(all.begin(), all.end());
  MatDiagValuesChanged(A);
  DiagCallKernel(WithView(a, [&](auto v) { pdiag::zero_columns(v, cols.data(), (Index)cols.size()); }));
  PetscCall(MatZeroRowsLocal_Diag(A, nloc, lrows, diag, x, b));
  PetscCall(PetscFree(lrows));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMissingDiagonal_Diag(Mat A, PetscBool *missing, PetscInt *dd)
{
  Mat_Diag *a   = (Mat_Diag *)A->data;
  Index     key = 0;

  PetscFunctionBegin;
  const bool stored = a->scheme == pdiag::Scheme::HM ? a->hm.find_diagonal(key) >= 0 : a->cdm.find_diagonal(key) >= 0;
  *missing          = (a->layout.length(0) > 0 && !stored) ? PETSC_TRUE : PETSC_FALSE;
  if (dd) *dd = *missing ? (PetscInt)a->layout.lo(0) : -1;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetOption_Diag(Mat A, MatOption op, PetscBool flg)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  switch (op) {
  case MAT_ROW_ORIENTED:
    a->assembly.roworiented = flg;
    break;
  case MAT_IGNORE_OFF_PROC_ENTRIES:
    a->assembly.donotstash = flg;
    break;
  case MAT_NEW_NONZERO_LOCATIONS: /* false: entries on diagonals not stored are dropped */
    a->assembly.new_diagonals_ignored = flg ? PETSC_FALSE : PETSC_TRUE;
    break;
  case MAT_NEW_NONZERO_LOCATION_ERR: /* an entry on a diagonal not stored is a new location */
    a->assembly.new_diagonals_error = flg;
    break;
  case MAT_KEEP_NONZERO_PATTERN: /* MatZeroRows keeps the rows' entries (zeros) */
    a->assembly.keep_nonzero_pattern = flg;
    break;
  case MAT_NEW_NONZERO_ALLOCATION_ERR:
    /* ignored: aij's preallocation calls (no-ops for diag) set it, and diag
       does not learn its diagonals from them */
    break;
  default:
    PetscCall(PetscInfo(A, "diag: option %s ignored\n", MatOptions[op]));
  }
  PetscFunctionReturn(0);
}

/* Gathers the entries of a column-layout vector that the local rows reach
   (the transpose work layout covers every run) for right scaling. */
PetscErrorCode MatDiagGatherColumns_Private(Mat A, Vec r, const PetscScalar **ra, const Index **shift)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) {
    *shift = NULL;
    PetscCall(VecGetArrayRead(r, ra));
    PetscFunctionReturn(0);
  }
  if (!a->mpi.ghost_valid) PetscCall(MatDiagGhostSetUp_Private(A));
  PetscCall(VecScatterBegin(a->mpi.tr_scatter, r, a->mpi.tr_work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(a->mpi.tr_scatter, r, a->mpi.tr_work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(a->mpi.tr_work, ra));
  *shift = a->mpi.tr_shift.data();
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagRestoreColumns_Private(Mat A, Vec r, const PetscScalar **ra)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscCall(VecRestoreArrayRead(r, ra));
  else PetscCall(VecRestoreArrayRead(a->mpi.tr_work, ra));
  PetscFunctionReturn(0);
}

/* The ops-table entries that may run on the device copy
   (device/ops.cpp, -mat_diag_device_ops); otherwise the host
   operation, after the values come back from the device. */
static PetscErrorCode MatScale_DiagAny(Mat A, PetscScalar alpha)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  if (((Mat_Diag *)A->data)->remote_any) done = PETSC_FALSE; /* the device op scales the diagonals' values only */
  else PetscCall(MatDiagDeviceTry(scale, A, alpha, &done));
  if (!done) PetscCall(MATDIAG_HOST_OP(MatScale_Diag)(A, alpha));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatShift_DiagAny(Mat A, PetscScalar alpha)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(shift, A, alpha, &done));
  if (!done) PetscCall(MATDIAG_HOST_OP(MatShift_Diag)(A, alpha));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_DiagAny(Mat A, Vec v)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckVec_Private(v, A->rmap, "v of MatGetDiagonal()"));
  PetscCall(MatDiagDeviceTry(get_diagonal, A, v, &done));
  if (!done) PetscCall(MATDIAG_HOST_OP(MatGetDiagonal_Diag)(A, v));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDiagonalScale_DiagAny(Mat A, Vec l, Vec r)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  /* MatDiagonalScale does not check sizes: a wrong vector would be read out of bounds */
  if (l) PetscCall(MatDiagCheckVec_Private(l, A->rmap, "l of MatDiagonalScale()"));
  if (r) PetscCall(MatDiagCheckVec_Private(r, A->cmap, "r of MatDiagonalScale()"));
  PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatDiagonalScale()")); /* reads diagonals only */
  PetscCall(MatDiagDeviceTry(diagonal_scale, A, l, r, &done));
  if (!done) PetscCall(MATDIAG_HOST_OP(MatDiagonalScale_Diag)(A, l, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatZeroRows_DiagAny(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckZeroRowsArgs_Private(A, n, rows, x, b, "MatZeroRows()"));
  PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatZeroRows()")); /* reads diagonals only */
  /* the pattern the matrix reports, as aij's (companion/companion.cpp) */
  const PetscBool keep = ((Mat_Diag *)A->data)->assembly.keep_nonzero_pattern;
  if (keep) PetscCall(MatDiagKeepZeroedRows_Private(A, n, rows)); /* the rows' entries stay, as zeros */
  PetscCall(MatDiagDeviceTry(zero_rows, A, n, rows, diag, x, b, &done));
  if (!done) PetscCall(MATDIAG_HOST_OP(MatZeroRows_Diag)(A, n, rows, diag, x, b));
  if (!keep) PetscCall(MatDiagDropZeroedRows_Private(A, n, rows)); /* the rows hold their diagonal only */
  PetscFunctionReturn(0);
}

static PetscErrorCode MatAXPY_DiagAny(Mat Y, PetscScalar alpha, Mat X, MatStructure str)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatDiagRemoteToDiagonals_Private(Y, "MatAXPY()")); /* reads diagonals only */
  {
    PetscBool xdiag;
    PetscCall(PetscObjectTypeCompare((PetscObject)X, ((PetscObject)Y)->type_name, &xdiag));
    if (xdiag && X != Y) PetscCall(MatDiagRemoteToDiagonals_Private(X, "MatAXPY()"));
  }
  PetscCall(MatDiagDeviceTry(axpy, Y, alpha, X, &done));
  if (!done) PetscCall(MATDIAG_HOST_OP(MatAXPY_Diag)(Y, alpha, X, str));
  PetscFunctionReturn(0);
}

/* MatGetValues of owned rows (entries not stored are zero, as in aij). */
static PetscErrorCode MatGetValues_Diag(Mat A, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], PetscScalar v[])
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck((m <= 0 || rows) && (n <= 0 || cols) && (m <= 0 || n <= 0 || v), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatGetValues() got a NULL array");
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt i = rows[r];
    if (i < 0) continue;
    PetscCheck(i >= a->layout.row_begin && i < a->layout.row_end(), PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: MatGetValues() of row %" PetscInt_FMT ": only rows of this process [%" PetscInt64_FMT ", %" PetscInt64_FMT ")", i,
               (PetscInt64)a->layout.row_begin, (PetscInt64)a->layout.row_end());
    for (PetscInt c = 0; c < n; c++) {
      const PetscInt j = cols[c];
      if (j < 0) continue;
      PetscCheck(j < A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: MatGetValues() column %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", j, A->cmap->N);
      const PetscScalar *slot = a->scheme == pdiag::Scheme::HM ? a->hm.find(i, j) : a->cdm.find(i, j);
      const Index        e    = slot || a->remote.empty() ? -1 : a->remote.find(i - a->layout.row_begin, j);
      v[r * n + c]            = slot ? *slot : (e >= 0 ? a->remote.val[e] : 0.0);
    }
  }
  PetscFunctionReturn(0);
}

/* MatStoreValues / MatRetrieveValues: a copy of the stored values. */
static PetscErrorCode MatStoreValues_Diag(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(sync_host, A));
  PetscCallCXX(a->stored_values.assign(a->values(), a->values() + a->nstored()));
  PetscCallCXX(a->stored_values.insert(a->stored_values.end(), a->remote.val.begin(), a->remote.val.end())); /* the listed entries' after the diagonals' */
  PetscFunctionReturn(0);
}

static PetscErrorCode MatRetrieveValues_Diag(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(a->stored_values.size() == (std::size_t)(a->nstored() + a->remote.size()), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: MatRetrieveValues() needs MatStoreValues() on the same structure first");
  PetscCall(MatDiagDeviceTry(host_values_ensure, A));
  std::copy(a->stored_values.begin(), a->stored_values.begin() + a->nstored(), a->values());
  std::copy(a->stored_values.begin() + a->nstored(), a->stored_values.end(), a->remote.val.begin());
  MatDiagValuesChanged(A);
  a->mpi.split_state = -1; /* PETSc leaves the state as it is: the products' split is examined again */
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagSetOps_Private(Mat A)
{
  struct _MatOps *ops = A->ops;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(ops, sizeof(struct _MatOps)));
  /* MATDIAG_HOST_OP: values computed on the device come back first */
  ops->setvalues           = MATDIAG_HOST_OP(MatSetValues_Diag);
  ops->assemblybegin       = MatAssemblyBegin_Diag;
  ops->assemblyend         = MatAssemblyEnd_Diag;
  ops->zeroentries         = MatZeroEntries_Diag;
  ops->mult                = MatMult_Diag;
  ops->multadd             = MatMultAdd_Diag;
  ops->residual            = MatResidual_Diag;
  ops->multtranspose       = MatMultTranspose_Diag;
  ops->multtransposeadd    = MatMultTransposeAdd_Diag;
#if defined(PETSC_USE_COMPLEX) /* with real scalars PETSc's are the transpose's */
  ops->multhermitiantranspose    = MatMultHermitianTranspose_Diag;
  ops->multhermitiantransposeadd = MatMultHermitianTransposeAdd_Diag;
#endif
  ops->getdiagonal         = MatGetDiagonal_DiagAny;
  ops->diagonalscale       = MatDiagonalScale_DiagAny;
  ops->diagonalset         = MATDIAG_HOST_OP(MatDiagonalSet_Diag);
  ops->scale               = MatScale_DiagAny;
  ops->conjugate           = MATDIAG_HOST_OP(MatValuesMap_Diag<pdiag::conjugate_values<PetscScalar>>);
  ops->realpart            = MATDIAG_HOST_OP(MatValuesMap_Diag<pdiag::real_part_values<PetscScalar>>);
  ops->imaginarypart       = MATDIAG_HOST_OP(MatValuesMap_Diag<pdiag::imaginary_part_values<PetscScalar>>);
  ops->shift               = MatShift_DiagAny;
  ops->axpy                = MatAXPY_DiagAny;
  ops->norm                = MATDIAG_HOST_OP(MatNorm_Diag);
  ops->getrow              = MATDIAG_HOST_OP(MatGetRow_Diag);
  ops->restorerow          = MatRestoreRow_Diag;
  ops->equal               = MATDIAG_HOST_OP(MatEqual_Diag);
  ops->getinfo             = MatGetInfo_Diag;
  ops->zerorows            = MatZeroRows_DiagAny;
  ops->zerorowscolumns     = MATDIAG_HOST_OP(MatZeroRowsColumns_Diag);
  MatOpsSetMissingDiagonal_Compat(ops, MATDIAG_HOST_OP(MatMissingDiagonal_Diag));
  MatOpsSetGetRowSumAbs_Compat(ops, MATDIAG_HOST_OP(MatGetRowSumAbs_Diag));
  ops->setoption           = MatSetOption_Diag;
  ops->duplicate           = MATDIAG_HOST_OP(MatDuplicate_Diag);
  ops->copy                = MATDIAG_HOST_OP(MatCopy_Diag);
  ops->transpose           = MATDIAG_HOST_OP(MatTranspose_Diag);
  ops->view                = MATDIAG_HOST_OP(MatView_Diag);
  ops->load                = MatLoad_Diag;
  ops->createsubmatrix     = MATDIAG_HOST_OP(MatCreateSubMatrix_Diag);
  ops->convertfrom         = MatConvertFrom_Diag;
  ops->getvalues           = MATDIAG_HOST_OP(MatGetValues_Diag);
  ops->sor                 = MatSOR_Diag;
  ops->multdiagonalblock   = MATDIAG_HOST_OP(MatMultDiagonalBlock_Diag);
  { /* only in parallel, as aij: PCASM splits a process into several blocks
       by a partitioning only when the matrix has this operation, so a
       sequential diag with it would get other subdomains than seqaij */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    ops->getdiagonalblock = size > 1 ? MatGetDiagonalBlock_Diag : NULL;
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatStoreValues_C", MatStoreValues_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatRetrieveValues_C", MatRetrieveValues_Diag));
  PetscCall(MatDiagSetProductOps_Private(A));   /* ops->productsetfromoptions (products/product.cpp) */
  PetscCall(MatDiagSetCompanionOps_Private(A)); /* graph operations through the aij copy (companion/companion_ops.cpp) */
  PetscFunctionReturn(0);
}
