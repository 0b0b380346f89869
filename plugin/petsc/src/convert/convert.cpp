/* Conversions into diag from any type, to aij (exact preallocation from the
   stored entries), MatDuplicate, MatCopy, MatTranspose, MatView and MatLoad.
   Conversions to other types go through PETSc's generic converter
   (MatGetRow + MatSetValues). */
#include "core/mat_diag.hpp"

#include "pdiag/ops.hpp"

#include <sys/stat.h>
#include <unistd.h>

/* Collects the local rows of any assembled matrix as COO triplets (global
   indices). Dense sources drop exact zeros: their rows list every column. */
static PetscErrorCode MatDiagCollectRows(Mat A, PetscBool drop_zeros, std::vector<Index> *rows, std::vector<Index> *cols, std::vector<PetscScalar> *vals)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  if (!drop_zeros) { /* the triplets' room at once: grown by push_back, a Galerkin operator's 58 M (ex45 257^3) were copied and their pages cleared again at each doubling */
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    if (info.nz_used > 0 && info.nz_used <= (double)(rend - rstart) * (double)A->cmap->N) {
      const std::size_t nz = (std::size_t)info.nz_used;
      PetscCallCXX(rows->reserve(nz));
      PetscCallCXX(cols->reserve(nz));
      PetscCallCXX(vals->reserve(nz));
    }
  }
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

/* The COO triplets of A's local rows (returned) as the HM storage of the
   diag matrix B (layout set), checked against B's memory budget before it
   is allocated. */
static PetscErrorCode MatDiagHmFromRows(Mat A, Mat B, std::vector<Index> *rows, std::vector<Index> *cols, Hm *hm, pdiag::RemoteEntries<PetscScalar> *remote)
{
  PetscBool                dense;
  std::vector<PetscScalar> vals;
  Mat_Diag                *b = (Mat_Diag *)B->data;
  pdiag::StorageCount      count;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &dense, MATSEQDENSE, MATMPIDENSE, MATDENSE, ""));
  PetscCall(MatDiagCollectRows(A, dense, rows, cols, &vals));
  PetscCall(MatDiagSetLayout_Private(B));
  /* MPI: couplings to other processes on sparsely filled diagonals of their own are listed (assembly/remote.cpp) */
  std::vector<Index> hm_rows, hm_cols;
  const bool         list = b->opt.list_remote && b->opt.storage_req != MAT_DIAG_STORAGE_CDM && B->rmap->n < B->rmap->N;
  if (list) {
    PetscCallCXX(hm_rows = *rows);
    PetscCallCXX(hm_cols = *cols);
    DiagCallKernel(*remote = pdiag::coo_take_remote(b->layout, b->mpi.col_begin, b->mpi.col_end, kListFillRatio, hm_rows, hm_cols, vals));
  }
  const std::vector<Index> &r = list ? hm_rows : *rows, &c = list ? hm_cols : *cols;
  DiagCallKernel(count = pdiag::hm_count(b->layout, pdiag::coo_offsets(b->layout, (Index)vals.size(), r.data(), c.data())));
  PetscCall(MatDiagCheckBudget_Private(B, count, (PetscInt64)vals.size()));
  DiagCallKernel(*hm = pdiag::hm_from_coo<PetscScalar>(b->layout, (Index)vals.size(), r.data(), c.data(), vals.data()));
  PetscFunctionReturn(0);
}

/* MatConvert into diag (the convertfrom hook PETSc finds on the destination
   type): fills the diag matrix B with the rows of A. A type without
   MatGetRow (MATIS, MATNEST, MATSHELL, ...) and sbaij (whose rows hold only
   the upper triangle) go through their own conversion to aij. Collective:
   a refusal on one process (memory budget) is agreed on by all. */
static PetscErrorCode MatDiagFillFrom(Mat A, Mat B)
{
  PetscBool      via_aij;
  PetscErrorCode     ierr;
  Hm                 hm;
  std::vector<Index> rows, cols;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &via_aij, MATSEQSBAIJ, MATMPISBAIJ, MATSBAIJ, ""));
  if (via_aij || !A->ops->getrow) {
    Mat aij;
    PetscCall(PetscInfo(A, "diag: converting a %s matrix to diag through aij\n", ((PetscObject)A)->type_name));
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &aij));
    ierr = MatDiagFillFrom(aij, B);
    PetscCall(MatDestroy(&aij));
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }
  pdiag::RemoteEntries<PetscScalar> remote;
  ierr = MatDiagHmFromRows(A, B, &rows, &cols, &hm, &remote); /* reported by the error handler as it is raised */
  PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, "MatConvert() to diag"));
  /* a refill of the same structure sets new values only: nothing that depends on the structure is redone */
  PetscCall(MatDiagInstallHm_Private(B, std::move(hm), std::move(remote)));
  /* the source's entries, zeros included, stay entries for the preconditioners (not a dense source's zeros) */
  ((Mat_Diag *)B->data)->assembly.zero_sets.clear();
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
  PetscCall(MatSetBlockSizesFromMats(B, A, A)); /* a submatrix of a multi-field operator keeps its fields (hypre's nodal coarsening, GAMG) */
  { /* a refused conversion (a bad option, too many diagonals) leaves no half-built matrix */
    PetscErrorCode ierr = MatSetType(B, newtype);
    if (!ierr) ierr = MatDiagSetFromOptionsOnly_Private(B); /* not MatSetFromOptions: -mat_type must not turn B into another type */
    if (!ierr) ierr = MatDiagFillFrom(A, B);
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

/* MatConvert to types whose generic conversion (MatGetRow + MatSetValues)
   fails on a diag matrix: MATIS needs a local-to-global mapping, sbaij keeps
   only the upper triangle of the rows it is given. Both go through aij's own
   converters; sbaij only from a matrix that is exactly symmetric. */
PetscErrorCode MatConvert_Diag_ViaAIJ(Mat A, MatType newtype, MatReuse reuse, Mat *newmat)
{
  Mat       aij, B;
  PetscBool sbaij;

  PetscFunctionBegin;
  PetscCall(PetscStrendswith(newtype, "sbaij", &sbaij));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &aij));
  if (sbaij) {
    PetscBool sym;
    PetscErrorCode ierr = MatIsSymmetric(aij, 0.0, &sym);
    if (ierr || !sym) PetscCall(MatDestroy(&aij));
    PetscCall(ierr);
    PetscCheck(sym, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "diag: MatConvert() to %s stores only the upper triangle, and this matrix is not symmetric; convert it to aij instead", newtype);
    PetscCall(MatSetOption(aij, MAT_SYMMETRIC, PETSC_TRUE));
  }
  if (reuse == MAT_REUSE_MATRIX) {
    PetscErrorCode ierr = MatConvert(aij, newtype, MAT_REUSE_MATRIX, newmat);
    PetscCall(MatDestroy(&aij));
    PetscCall(ierr);
    PetscFunctionReturn(0);
  }
  {
    PetscErrorCode ierr = MatConvert(aij, newtype, MAT_INITIAL_MATRIX, &B);
    PetscCall(MatDestroy(&aij));
    PetscCall(ierr);
  }
  if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &B));
  else *newmat = B;
  PetscFunctionReturn(0);
}

/* Copies A's storage (values or zeros) into the diag matrix B of the same layout. */
static PetscErrorCode MatDiagCopyStorage(Mat A, Mat B, PetscBool values)
{
  Mat_Diag *a = (Mat_Diag *)A->data, *b = (Mat_Diag *)B->data;

  PetscFunctionBegin;
  PetscCheck(a->assembly.staged.empty(), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: assemble the matrix before copying it");
  /* B already holding A's diagonals keeps its nonzero state, as aij's
     MatCopy(SAME_NONZERO_PATTERN) does: a PC set up on B then reuses its
     symbolic work (GAMG's hierarchy, factorizations) */
  PetscBool same = (B->assembled && b->assembly.staged.empty() && b->scheme == a->scheme && b->layout == a->layout &&
                    (a->scheme == pdiag::Scheme::HM ? b->hm.offsets == a->hm.offsets : b->cdm.koffsets == a->cdm.koffsets) && b->remote.rows == a->remote.rows &&
                    b->remote.cols == a->remote.cols) /* with the layout, the offsets (and the listed positions) fix the structure */
                     ? PETSC_TRUE
                     : PETSC_FALSE,
            same_structure;
  PetscCall(MPIU_Allreduce(&same, &same_structure, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)B))); /* one nonzero state on every process */
  PetscCallCXX({
    b->layout = a->layout;
    b->scheme = a->scheme;
    b->hm     = a->hm;
    b->cdm    = a->cdm;
    b->remote = a->remote;
    b->opt.storage_req   = a->opt.storage_req;
    b->opt.max_diagonals = a->opt.max_diagonals;
    b->assembly.zero_sets     = a->assembly.zero_sets; /* positions, kept as aij keeps its pattern */
    b->aij.dropped_rows  = a->aij.dropped_rows;
  });
  b->aij.ForgetOutside(); /* found for B's aij pattern, which may change below */
  if (!values) {
    std::fill(b->hm.val.begin(), b->hm.val.end(), 0.0);
    std::fill(b->cdm.val.begin(), b->cdm.val.end(), 0.0);
    std::fill(b->remote.val.begin(), b->remote.val.end(), 0.0);
  }
  b->remote_any        = a->remote_any;
  b->opt.list_remote       = a->opt.list_remote;
  b->mpi.col_begin         = a->mpi.col_begin;
  b->mpi.col_end           = a->mpi.col_end;
  b->assembly.structure_changed = PETSC_FALSE;
  MatDiagValuesChanged(B);
  PetscCall(MatDiagGhostDestroy_Private(B));
  B->preallocated = PETSC_TRUE;
  if (!same_structure) B->nonzerostate++;
  /* and the aij pattern A carries (a matrix converted from aij, a
     submatrix): the copy's aij copy holds the same entries as A's, as an
     aij duplicate keeps its explicit zeros (PCRedundant on one process
     duplicates its submatrix; a copy without the pattern factored another
     structure than its refreshed values later had) */
  if (a->aij.pattern_nzstate == A->nonzerostate) {
    PetscCallCXX(b->aij.rowptr = a->aij.rowptr);
    PetscCallCXX(b->aij.colidx = a->aij.colidx);
    b->aij.pattern_nzstate     = B->nonzerostate;
    b->aij.pattern_has_stencil = a->aij.pattern_has_stencil;
  }
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
  ((Mat_Diag *)(*B)->data)->view_replaced = ((Mat_Diag *)A->data)->view_replaced; /* MatDuplicate() gives B A's view op */
  ((Mat_Diag *)(*B)->data)->assembly.keep_nonzero_pattern = ((Mat_Diag *)A->data)->assembly.keep_nonzero_pattern; /* as aij's duplicate */
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
  b->opt.storage_req = a->opt.storage_req;
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
  b->assembly.structure_changed = PETSC_FALSE;
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
    double listed = (double)a->remote.size(), listed_sum;
    PetscCall(MPIU_Allreduce(&listed, &listed_sum, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)A)));
    if (listed_sum > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  listed entries (couplings to other processes off the stored diagonals): %.0f\n", listed_sum));
    double dev = 0, devsum;
    PetscCall(MatDiagDeviceTry(bytes, A, &dev));
    PetscCall(MPIU_Allreduce(&dev, &devsum, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)A)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  bytes on host: %.0f, on device: %.0f\n", glob[3], devsum));
    PetscFunctionReturn(0);
  }
  if (ascii && format == PETSC_VIEWER_ASCII_FACTOR_INFO) PetscFunctionReturn(0);
  PetscBool string;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERSTRING, &string));
  if (string) PetscFunctionReturn(0); /* MatView() wrote the type; aij's view adds nothing to a string viewer (ts ex3 -test_string_viewer) */
  if (a->view_replaced) { /* a DMDA's: in the natural ordering, through MatCreateSubMatrix */
    PetscCall((*a->view_replaced)(A, viewer));
    PetscFunctionReturn(0);
  }
  Mat aij;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &aij));
  PetscCall(PetscObjectSetName((PetscObject)aij, ((PetscObject)A)->name));
  /* ascii: MatView() has printed A's header; aij's body follows it, as in
     aij's own view (MatView(aij) would print a second, nested header) */
  if (ascii) PetscCall((*aij->ops->view)(aij, viewer));
  else PetscCall(MatView(aij, viewer));
  PetscCall(MatDestroy(&aij));
  PetscFunctionReturn(0);
}

/* DMCreateMatrix of a DMDA on more than one process puts the DMDA's view
   (the natural ordering) in the matrix's ops table after its preallocating
   assembly. That view prints nothing for the ascii info formats (MatView()
   printed aij's info lines already), so -mat_view ::ascii_info at the
   program's assemblies lost diag's storage report on more than one
   process. At each final assembly the diag view goes back in the table
   and keeps the other one, which MatView_Diag calls for every format but
   ascii info. */
PetscErrorCode MatDiagKeepView_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  PetscErrorCode (*const own)(Mat, PetscViewer) = MATDIAG_HOST_OP(MatView_Diag);

  PetscFunctionBegin;
  if (A->ops->view && A->ops->view != own) {
    a->view_replaced = A->ops->view;
    A->ops->view     = own;
  }
  PetscFunctionReturn(0);
}

/* A submatrix, through aij. A DMDA's matrix in parallel is viewed and
   loaded in the natural ordering through MatCreateSubMatrix; without this
   op PETSc falls back to a virtual submatrix, which has no MatView (binary
   files stay empty, silently) and which MatLoad would leave in place of
   the diag matrix. */
/* The indices of an index set are in [0, N): aij's MatCreateSubMatrix
   trusts them in optimized builds. */
static PetscErrorCode MatDiagCheckIS(IS is, PetscInt N, const char *what)
{
  PetscInt n, lo, hi;

  PetscFunctionBegin;
  PetscCheck(is, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatCreateSubMatrix() got a NULL %s index set", what);
  PetscCall(ISGetLocalSize(is, &n));
  if (!n) PetscFunctionReturn(0);
  PetscCall(ISGetMinMax(is, &lo, &hi));
  PetscCheck(lo >= 0 && hi < N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: MatCreateSubMatrix() %s index %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", what, lo < 0 ? lo : hi, N);
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreateSubMatrix_Diag(Mat A, IS isrow, IS iscol, MatReuse reuse, Mat *B)
{
  Mat aij, sub;

  PetscFunctionBegin;
  {
    PetscErrorCode ierr = MatDiagCheckIS(isrow, A->rmap->N, "row"); /* reported by the error handler as it is raised */
    if (!ierr) ierr = MatDiagCheckIS(iscol, A->cmap->N, "column");
    PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, "MatCreateSubMatrix()"));
  }
  /* from the aij copy kept with A (refreshed only when A changed): a
     fieldsplit takes several blocks of one operator at each set-up, and
     converting the whole operator for each would cost far more than aij's
     extraction */
  PetscCall(MatDiagGetCompanion_Private(A, "MatCreateSubMatrix()", &aij));
  PetscCall(MatCreateSubMatrix(aij, isrow, iscol, MAT_INITIAL_MATRIX, &sub));
  { /* a scattered submatrix (a field of a multi-field operator) stays aij,
       as a scattered matrix assembled as diag becomes aij
       (convert/scattered.cpp). Host aij also with CUDA vectors: as
       aijcusparse, the off-diagonal blocks of a Stokes operator give its
       Schur complement products that differ from aij's on the GPU; as host
       aij they give aij's */
    PetscBool scattered;
    PetscCall(MatDiagAIJWouldScatter_Private(A, sub, &scattered));
    if (scattered) {
      if (reuse == MAT_REUSE_MATRIX) { /* into the caller's matrix: the same structure again */
        PetscCall(MatCopy(sub, *B, SAME_NONZERO_PATTERN));
        PetscCall(MatDestroy(&sub));
      } else *B = sub;
      PetscFunctionReturn(0);
    }
  }
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatConvert(sub, ((PetscObject)A)->type_name, MAT_REUSE_MATRIX, B));
    PetscCall(MatDestroy(&sub));
  } else {
    PetscCall(MatConvert(sub, ((PetscObject)A)->type_name, MAT_INPLACE_MATRIX, &sub));
    *B = sub;
  }
  PetscFunctionReturn(0);
}

/* The sparse matrix at the current position of a binary viewer, checked
   on the first process before PETSc's aij loader reads it (it trusts the
   file: a column out of range is written out of bounds, row lengths that do
   not add up leave it returning an error with its buffers leaked): class id,
   sizes, row lengths in [0, N) adding up to the count, the bytes they imply
   against the file size, columns in [0, N). The position is put back. */
static PetscErrorCode MatDiagCheckBinaryMatrix(int fd)
{
  PetscInt hdr[4], count;

  PetscFunctionBegin;
  const off_t pos = lseek(fd, 0, SEEK_CUR);
  struct stat st;
  PetscCheck(pos >= 0 && fstat(fd, &st) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "diag: MatLoad() cannot position in the file");
  PetscCall(PetscBinaryRead(fd, hdr, 4, &count, PETSC_INT));
  PetscCheck(count == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): the file ends inside the matrix header");
  PetscCheck(hdr[0] == MAT_FILE_CLASSID, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): not a matrix next in the file (class id %" PetscInt_FMT ")", hdr[0]);
  const PetscInt M = hdr[1], N = hdr[2], nz = hdr[3];
  PetscCheck(M >= 0 && N >= 0 && nz >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): the header declares a %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt_FMT " entries", M, N, nz);
  const double need = (double)(M + nz) * sizeof(PetscInt) + (double)nz * sizeof(PetscScalar), left = (double)st.st_size - (double)pos - 4.0 * sizeof(PetscInt);
  PetscCheck(need <= left, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): a %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt_FMT " entries takes %.0f bytes, the file has %.0f left", M, N, nz, need, left);
  std::vector<PetscInt> rowlens, cols;
  PetscCallCXX(rowlens.resize((std::size_t)M));
  PetscCall(PetscBinaryRead(fd, rowlens.data(), M, &count, PETSC_INT));
  PetscInt64 sum = 0;
  for (PetscInt r = 0; r < M; r++) {
    PetscCheck(rowlens[(std::size_t)r] >= 0 && rowlens[(std::size_t)r] <= N, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): row %" PetscInt_FMT " has length %" PetscInt_FMT, r, rowlens[(std::size_t)r]);
    sum += rowlens[(std::size_t)r];
  }
  PetscCheck(sum == nz, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): the row lengths add up to %" PetscInt64_FMT " entries, the header declares %" PetscInt_FMT, sum, nz);
  for (PetscInt64 done = 0; done < nz;) { /* the column indices, in chunks */
    const PetscInt chunk = (PetscInt)PetscMin((PetscInt64)(1 << 20), (PetscInt64)nz - done);
    PetscCallCXX(cols.resize((std::size_t)chunk));
    PetscCall(PetscBinaryRead(fd, cols.data(), chunk, &count, PETSC_INT));
    for (PetscInt k = 0; k < chunk; k++) PetscCheck(cols[(std::size_t)k] >= 0 && cols[(std::size_t)k] < N, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "diag: MatLoad(): column index %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", cols[(std::size_t)k], N);
    done += chunk;
  }
  PetscCheck(lseek(fd, pos, SEEK_SET) == pos, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "diag: MatLoad() cannot position in the file");
  PetscFunctionReturn(0);
}

/* The same from the viewer: binary viewers without MPI-IO, read on the
   first process; every process learns the verdict. Collective. */
static PetscErrorCode MatDiagCheckBinaryViewer(Mat A, PetscViewer viewer)
{
  PetscBool   binary, mpiio = PETSC_FALSE;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERBINARY, &binary));
  if (!binary) PetscFunctionReturn(0);
  PetscCall(PetscViewerBinaryGetUseMPIIO(viewer, &mpiio));
  if (mpiio) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)viewer), &rank));
  PetscErrorCode ierr = 0;
  int            fd   = -1;
  PetscCall(PetscViewerBinaryGetDescriptor(viewer, &fd)); /* collective: it may set the viewer up */
  if (rank == 0) ierr = MatDiagCheckBinaryMatrix(fd); /* reported by the error handler as it is raised */
  PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, "MatLoad()"));
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
  PetscCall(MatDiagCheckBinaryViewer(A, viewer));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &aij));
  { /* a file MatLoad refuses leaves no aij matrix behind */
    PetscErrorCode ierr = 0;
    if (sizes_set) ierr = MatSetSizes(aij, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N);
    if (!ierr) ierr = MatSetType(aij, MATAIJ);
    /* HDF5 finds the matrix by name; the options prefix and block size are read like A's */
    if (!ierr && ((PetscObject)A)->name) ierr = PetscObjectSetName((PetscObject)aij, ((PetscObject)A)->name);
    if (!ierr && ((PetscObject)A)->prefix) ierr = MatSetOptionsPrefix(aij, ((PetscObject)A)->prefix);
    /* A's block sizes, unless the file's .info sets -matload_block_size: A
       takes the ones aij's MatLoad settles on (MatLoad_Binary_BlockSizes) */
    if (!ierr) ierr = MatSetBlockSizes(aij, A->rmap->bs, A->cmap->bs);
    if (!ierr) ierr = MatLoad(aij, viewer);
    if (!ierr && (A->rmap->n < 0 || A->rmap->N < 0 || A->cmap->n < 0 || A->cmap->N < 0)) ierr = MatSetSizes(A, aij->rmap->n, aij->cmap->n, aij->rmap->N, aij->cmap->N);
    if (!ierr) ierr = MatSetBlockSizesFromMats(A, aij, aij);
    if (!ierr) ierr = MatConvertFrom_Diag(aij, ((PetscObject)A)->type_name, MAT_REUSE_MATRIX, &A);
    PetscCall(MatDestroy(&aij));
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}
