/* Conversions into diag from any type, to aij (exact preallocation from the
   stored entries), MatDuplicate, MatCopy, MatTranspose, MatView and MatLoad.
   Conversions to other types go through PETSc's generic converter
   (MatGetRow + MatSetValues). */
#include "diag_impl.hpp"

#include "pdiag/ops.hpp"

/* Collects the local rows of any assembled matrix as COO triplets (global
   indices). Dense sources drop exact zeros: their rows list every column. */
static PetscErrorCode MatDiagCollectRows(Mat A, PetscBool drop_zeros, std::vector<Index> *rows, std::vector<Index> *cols, std::vector<PetscScalar> *vals)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nc;
    const PetscInt    *c;
    const PetscScalar *v;
    PetscCall(MatGetRow(A, i, &nc, &c, &v));
    for (PetscInt e = 0; e < nc; e++) {
      if (drop_zeros && v[e] == 0.0) continue;
      rows->push_back(i);
      cols->push_back(c[e]);
      vals->push_back(v[e]);
    }
    PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
  }
  PetscFunctionReturn(0);
}

/* MatConvert into diag from any type with MatGetRow (the convertfrom hook
   PETSc finds on the destination type). */
/* Fills the diag matrix B (layout set) with the rows of A. */
static PetscErrorCode MatDiagFillFrom(Mat A, Mat B)
{
  PetscBool                dense;
  std::vector<Index>       rows, cols;
  std::vector<PetscScalar> vals;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &dense, MATSEQDENSE, MATMPIDENSE, MATDENSE, ""));
  PetscCall(MatDiagCollectRows(A, dense, &rows, &cols, &vals));
  PetscCall(MatDiagSetLayout_Private(B));
  Mat_Diag *b = (Mat_Diag *)B->data;
  Hm        hm;
  DiagCallKernel(hm = pdiag::hm_from_coo<PetscScalar>(b->layout, (Index)vals.size(), rows.data(), cols.data(), vals.data()));
  /* a refill of the same structure sets new values only: nothing that depends on the structure is redone */
  PetscCall(MatDiagInstallHm_Private(B, std::move(hm)));
  /* the source's entries, zeros included, stay entries for the preconditioners (not a dense source's zeros) */
  PetscCall(MatDiagSetAijPattern_Private(B, (Index)rows.size(), rows.data(), cols.data()));
  PetscFunctionReturn(0);
}

PetscErrorCode MatConvertFrom_Diag(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  Mat B;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatDiagFillFrom(A, *newmat));
    PetscFunctionReturn(0);
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetType(B, newtype));
  PetscCall(MatDiagSetFromOptionsOnly_Private(B)); /* not MatSetFromOptions: -mat_type must not turn B into another type */
  { /* a refused conversion (e.g. too many diagonals) leaves no half-built matrix */
    PetscErrorCode ierr = MatDiagFillFrom(A, B);
    if (ierr) {
      PetscCall(MatDestroy(&B));
      PetscCall(ierr);
    }
  }
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(0);
}

/* MatConvert to an aij type: the CSR of the local rows (global columns) that
   an aij matrix of this operator holds (MatDiagLocalCSR_Private: for a
   DMDA's matrix without the stored zeros that couple no grid points) gives
   aij its exact preallocation and values in one call. */
PetscErrorCode MatConvert_Diag_AIJ(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  Mat B;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    pdiag::Csr<PetscScalar> csr;
    PetscCall(MatDiagLocalCSR_Private(A, &csr));
    std::vector<PetscInt> rowptr(csr.rowptr.begin(), csr.rowptr.end()), colidx(csr.colidx.begin(), csr.colidx.end());
    B = *newmat;
    PetscCall(MatZeroEntries(B));
    for (PetscInt il = 0; il < A->rmap->n; il++) {
      const PetscInt i = A->rmap->rstart + il;
      PetscCall(MatSetValues(B, 1, &i, rowptr[il + 1] - rowptr[il], colidx.data() + rowptr[il], csr.vals.data() + rowptr[il], INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagBuildAIJ_Private(A, newtype, &B));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(0);
}

/* Copies A's storage (values or zeros) into the diag matrix B of the same layout. */
static PetscErrorCode MatDiagCopyStorage(Mat A, Mat B, PetscBool values)
{
  Mat_Diag *a = (Mat_Diag *)A->data, *b = (Mat_Diag *)B->data;

  PetscFunctionBegin;
  PetscCheck(a->staged.empty(), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: assemble the matrix before copying it");
  PetscCallCXX({
    b->layout = a->layout;
    b->scheme = a->scheme;
    b->hm     = a->hm;
    b->cdm    = a->cdm;
    b->storage_req   = a->storage_req;
    b->max_diagonals = a->max_diagonals;
  });
  if (!values) {
    std::fill(b->hm.val.begin(), b->hm.val.end(), 0.0);
    std::fill(b->cdm.val.begin(), b->cdm.val.end(), 0.0);
  }
  b->col_begin         = a->col_begin;
  b->col_end           = a->col_end;
  b->structure_changed = PETSC_FALSE;
  MatDiagValuesChanged(b);
  PetscCall(MatDiagGhostDestroy_Private(b));
  B->preallocated = PETSC_TRUE;
  B->nonzerostate++;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDuplicate_Diag(Mat A, MatDuplicateOption op, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(PetscLayoutReference(A->rmap, &(*B)->rmap));
  PetscCall(PetscLayoutReference(A->cmap, &(*B)->cmap));
  PetscCall(MatSetType(*B, ((PetscObject)A)->type_name));
  PetscCall(MatDiagCopyStorage(A, *B, op == MAT_COPY_VALUES ? PETSC_TRUE : PETSC_FALSE));
  (*B)->assembled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* B = A. With the same type B takes A's structure and values. */
PetscErrorCode MatCopy_Diag(Mat A, Mat B, MatStructure str)
{
  PetscBool same;

  PetscFunctionBegin;
  (void)str;
  PetscCall(PetscObjectTypeCompare((PetscObject)B, ((PetscObject)A)->type_name, &same));
  if (same) {
    PetscCall(MatDiagCopyStorage(A, B, PETSC_TRUE));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  } else {
    /* any other type: through its own MatSetValues */
    PetscInt rstart, rend;
    PetscCall(MatZeroEntries(B));
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt           nc;
      const PetscInt    *c;
      const PetscScalar *v;
      PetscCall(MatGetRow(A, i, &nc, &c, &v));
      PetscCall(MatSetValues(B, 1, &i, nc, c, v, INSERT_VALUES));
      PetscCall(MatRestoreRow(A, i, &nc, &c, &v));
    }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* A^T. Sequentially the storage is re-read with negated offsets (HM: whole
   diagonal blocks move; CDM: compact diagonals are rotated), nothing is
   transposed entry by entry. Under MPI the rows of A^T live on other
   processes: they are gathered through aij. */
PetscErrorCode MatTranspose_Diag(Mat A, MatReuse reuse, Mat *At)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscMPIInt size;
  Mat         B;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) {
    Mat aij, aijt;
    PetscCall(PetscInfo(A, "diag: parallel transpose goes through aij\n"));
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &aij));
    PetscCall(MatTranspose(aij, MAT_INITIAL_MATRIX, &aijt));
    PetscCall(MatDestroy(&aij));
    if (reuse == MAT_REUSE_MATRIX) {
      PetscCall(MatConvert(aijt, ((PetscObject)A)->type_name, MAT_REUSE_MATRIX, At));
      PetscCall(MatDestroy(&aijt));
    } else {
      PetscCall(MatConvert(aijt, ((PetscObject)A)->type_name, MAT_INPLACE_MATRIX, &aijt));
      if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &aijt));
      else *At = aijt;
    }
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_REUSE_MATRIX) B = *At;
  else {
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, A->cmap->n, A->rmap->n, A->cmap->N, A->rmap->N));
    PetscCall(MatSetType(B, ((PetscObject)A)->type_name));
  }
  PetscCall(MatDiagSetLayout_Private(B));
  Mat_Diag *b = (Mat_Diag *)B->data;
  b->storage_req = a->storage_req;
  if (a->scheme == pdiag::Scheme::HM) {
    Hm t;
    DiagCallKernel(t = pdiag::transpose_hm(a->hm));
    PetscCall(MatDiagReplaceStorage_Private(B, std::move(t)));
  } else {
    Cdm t;
    DiagCallKernel(t = pdiag::transpose_cdm(a->cdm));
    PetscCall(MatDiagReplaceStorage_Private(B, Hm(b->layout, {})));
    b->cdm    = std::move(t);
    b->scheme = pdiag::Scheme::CDM;
  }
  b->structure_changed = PETSC_FALSE;
  B->preallocated      = PETSC_TRUE;
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *At = B;
  PetscFunctionReturn(0);
}

/* PETSc binary (and any other format but ascii info): through an aij copy,
   so the files are the standard ones any PETSc program reads. */
PETSC_INTERN PetscErrorCode MatView_Diag(Mat A, PetscViewer viewer)
{
  Mat_Diag         *a = (Mat_Diag *)A->data;
  PetscBool         ascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (ascii && (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL)) {
    const Index nd     = a->scheme == pdiag::Scheme::HM ? a->hm.ndiag() : a->cdm.ndiag();
    const Index stored = a->nstored();
    Index       nnz;
    DiagCallKernel(nnz = a->scheme == pdiag::Scheme::HM ? pdiag::count_nonzeros(a->hm.view()) : pdiag::count_nonzeros(a->cdm.view()));
    double loc[4] = {(double)nd, (double)stored, (double)nnz, (double)(stored * sizeof(PetscScalar) + nd * sizeof(Index))}, glob[4], maxd;
    PetscCall(MPIU_Allreduce(loc, glob, 4, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)A)));
    PetscCall(MPIU_Allreduce(&loc[0], &maxd, 1, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)A)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  diag storage: %s, diagonals per process: at most %.0f (%.0f in all)\n", a->scheme == pdiag::Scheme::HM ? "HM" : "CDM", maxd, glob[0]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  stored entries: %.0f, nonzeros: %.0f, fill (nonzeros / stored): %.4f\n", glob[1], glob[2], glob[1] > 0 ? glob[2] / glob[1] : 1.0));
    double dev = (double)((a->dev.val_cap + a->dev.cval_cap) * sizeof(PetscScalar) + (a->dev.meta_cap + a->dev.cmeta_cap) * sizeof(Index)), devsum;
    PetscCall(MPIU_Allreduce(&dev, &devsum, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)A)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  bytes on host: %.0f, on device: %.0f\n", glob[3], devsum));
    PetscFunctionReturn(0);
  }
  if (ascii && format == PETSC_VIEWER_ASCII_FACTOR_INFO) PetscFunctionReturn(0);
  Mat aij;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &aij));
  PetscCall(PetscObjectSetName((PetscObject)aij, ((PetscObject)A)->name));
  PetscCall(MatView(aij, viewer));
  PetscCall(MatDestroy(&aij));
  PetscFunctionReturn(0);
}

/* A submatrix, through aij. A DMDA's matrix in parallel is viewed and
   loaded in the natural ordering through MatCreateSubMatrix; without this
   op PETSc falls back to a virtual submatrix, which has no MatView (binary
   files stay empty, silently) and which MatLoad would leave in place of
   the diag matrix. */
PetscErrorCode MatCreateSubMatrix_Diag(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  Mat aij, sub;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &aij));
  PetscCall(MatCreateSubMatrix(aij, isrow, iscol, MAT_INITIAL_MATRIX, &sub));
  PetscCall(MatDestroy(&aij));
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatConvert(sub, ((PetscObject)A)->type_name, MAT_REUSE_MATRIX, B));
    PetscCall(MatDestroy(&sub));
  } else {
    PetscCall(MatConvert(sub, ((PetscObject)A)->type_name, MAT_INPLACE_MATRIX, &sub));
    *B = sub;
  }
  PetscFunctionReturn(0);
}

/* MatLoad: reads the standard aij file and fills A with it in place, so
   that A keeps its name, options prefix, DM and local-to-global mapping, as
   after aij's MatLoad (replacing A's header would lose them). */
PetscErrorCode MatLoad_Diag(Mat A, PetscViewer viewer)
{
  Mat       aij;
  PetscBool sizes_set = (A->rmap->n >= 0 || A->rmap->N >= 0) ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &aij));
  if (sizes_set) PetscCall(MatSetSizes(aij, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetType(aij, MATAIJ));
  PetscCall(MatLoad(aij, viewer));
  if (A->rmap->n < 0 || A->rmap->N < 0 || A->cmap->n < 0 || A->cmap->N < 0) PetscCall(MatSetSizes(A, aij->rmap->n, aij->cmap->n, aij->rmap->N, aij->cmap->N));
  PetscCall(MatConvertFrom_Diag(aij, ((PetscObject)A)->type_name, MAT_REUSE_MATRIX, &A));
  PetscCall(MatDestroy(&aij));
  PetscFunctionReturn(0);
}
