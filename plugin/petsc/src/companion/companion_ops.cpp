/* The operations a diag matrix answers through its aij companion
   (companion/companion.cpp builds and refreshes the copy): those on the graph
   of the matrix (orderings, overlaps, AMG graphs, symmetry tests, block
   diagonals, row reductions), finite-difference Jacobians by coloring, and
   the submatrices of PCASM, PCGASM, PCBJACOBI on several processes,
   PCREDUNDANT and PCTELESCOPE. Each gives what aij gives for the same
   operator: the copy holds aij's entries (see companion/companion.cpp). */
#include "core/mat_diag.hpp"

#include <petscdm.h>

/* MatGetOrdering computes an ordering on the graph MatGetRowIJ gives; the
   aij copy gives its inode-compressed graph (one vertex per block of rows
   with the same pattern, as aij does), and PETSc then expands the ordering
   through this function of the matrix: the copy's, so the ordering is
   aij's. Without it the compressed ordering would be taken for the whole
   matrix (PETSc's LU then loops or reads past the end). */
PetscErrorCode MatInodeAdjustForInodes_Diag(Mat A, IS *rperm, IS *cperm)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(a->aij.companion, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: MatInodeAdjustForInodes() without MatGetRowIJ()");
  PetscCall(MatInodeAdjustForInodes(a->aij.companion, rperm, cperm));
  PetscFunctionReturn(0);
}

namespace {

PetscErrorCode MatGetRowIJ_Diag(Mat A, PetscInt shift, PetscBool symmetric, PetscBool inodecompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat C;

  PetscFunctionBegin;
  if (!ia && !ja) { /* the size only (the natural ordering asks it of every factored matrix): no aij copy for it */
    PetscBool inodes = PETSC_FALSE;
    if (inodecompressed) PetscCall(MatDiagUsesInodes_Private(A, &inodes));
    if (!inodes) { /* aij's answer without inodes: the rows (with them, the number of inodes: from the copy, below) */
      *n    = A->rmap->n;
      *done = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
  }
  PetscCall(MatDiagGetCompanion_Private(A, "MatGetRowIJ (orderings)", &C));
  PetscCall(MatGetRowIJ(C, shift, symmetric, inodecompressed, n, ia, ja, done));
  PetscFunctionReturn(0);
}

PetscErrorCode MatRestoreRowIJ_Diag(Mat A, PetscInt shift, PetscBool symmetric, PetscBool inodecompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (!ia && !ja && !a->aij.companion) { /* after a size-only MatGetRowIJ */
    *done = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCheck(a->aij.companion, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: MatRestoreRowIJ() without MatGetRowIJ()");
  PetscCall(MatRestoreRowIJ(a->aij.companion, shift, symmetric, inodecompressed, n, ia, ja, done));
  PetscFunctionReturn(0);
}

PetscErrorCode MatGetColumnIJ_Diag(Mat A, PetscInt shift, PetscBool symmetric, PetscBool inodecompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatGetColumnIJ (colorings)", &C));
  PetscCall(MatGetColumnIJ(C, shift, symmetric, inodecompressed, n, ia, ja, done));
  PetscFunctionReturn(0);
}

PetscErrorCode MatRestoreColumnIJ_Diag(Mat A, PetscInt shift, PetscBool symmetric, PetscBool inodecompressed, PetscInt *n, const PetscInt *ia[], const PetscInt *ja[], PetscBool *done)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(a->aij.companion, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: MatRestoreColumnIJ() without MatGetColumnIJ()");
  PetscCall(MatRestoreColumnIJ(a->aij.companion, shift, symmetric, inodecompressed, n, ia, ja, done));
  PetscFunctionReturn(0);
}

PetscErrorCode MatIncreaseOverlap_Diag(Mat A, PetscInt n, IS is[], PetscInt ov)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatIncreaseOverlap (overlapping subdomains)", &C));
  PetscCall(MatIncreaseOverlap(C, n, is, ov));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreateGraph_Diag(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatCreateGraph (algebraic multigrid)", &C));
  PetscCall(MatCreateGraph_Compat(C, sym, scale, filter, num_idx, index, graph));
  PetscFunctionReturn(0);
}

PetscErrorCode MatIsSymmetric_Diag(Mat A, PetscReal tol, PetscBool *flg)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatIsSymmetric", &C));
  PetscCall(MatIsSymmetric(C, tol, flg));
  PetscFunctionReturn(0);
}

PetscErrorCode MatIsHermitian_Diag(Mat A, PetscReal tol, PetscBool *flg)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatIsHermitian", &C));
  PetscCall(MatIsHermitian(C, tol, flg));
  PetscFunctionReturn(0);
}

PetscErrorCode MatIsStructurallySymmetric_Diag(Mat A, PetscBool *flg)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatIsStructurallySymmetric", &C));
  PetscCall(MatIsStructurallySymmetric(C, flg));
  PetscFunctionReturn(0);
}

PetscErrorCode MatInvertBlockDiagonal_Diag(Mat A, const PetscScalar **values)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatInvertBlockDiagonal (point-block Jacobi)", &C));
  PetscCall(MatInvertBlockDiagonal(C, values));
  PetscFunctionReturn(0);
}

PetscErrorCode MatInvertVariableBlockDiagonal_Diag(Mat A, PetscInt nblocks, const PetscInt *bsizes, PetscScalar *diag)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatInvertVariableBlockDiagonal (variable-block Jacobi)", &C));
  PetscCall(MatInvertVariableBlockDiagonal(C, nblocks, bsizes, diag));
  PetscFunctionReturn(0);
}

PetscErrorCode MatFindZeroDiagonals_Diag(Mat A, IS *zerorows)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatFindZeroDiagonals", &C));
  PetscCall(MatFindZeroDiagonals(C, zerorows));
  PetscFunctionReturn(0);
}

PetscErrorCode MatFindOffBlockDiagonalEntries_Diag(Mat A, IS *rows)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatFindOffBlockDiagonalEntries", &C));
  PetscCall(MatFindOffBlockDiagonalEntries(C, rows));
  PetscFunctionReturn(0);
}

/* MatGetRowMax & co.: row reductions PETSc's PCs ask for (e.g. GAMG, PCVPBJACOBI) */
template <PetscErrorCode (*F)(Mat, Vec, PetscInt[])>
PetscErrorCode RowReduction_Diag(Mat A, Vec v, PetscInt idx[])
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "a row reduction (MatGetRowMax/Min[Abs])", &C));
  PetscCall(F(C, v, idx));
  PetscFunctionReturn(0);
}

PetscErrorCode MatGetColumnReductions_Diag(Mat A, PetscInt type, PetscReal *reductions)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "column norms or sums", &C));
  PetscCheck(C->ops->getcolumnreductions, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: no column reductions for %s", ((PetscObject)C)->type_name);
  PetscCall((*C->ops->getcolumnreductions)(C, type, reductions));
  PetscFunctionReturn(0);
}

/* ---- finite-difference Jacobians by coloring ----------------------------
   The coloring is set up on the companion (PETSc's aij code keeps the
   address of each entry it computes); after each application the values
   come over to the diag matrix. */

PetscErrorCode MatFDColoringCreate_Diag(Mat J, ISColoring iscoloring, MatFDColoring c)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(J, "a finite-difference Jacobian by coloring", &C));
  PetscCall((*C->ops->fdcoloringcreate)(C, iscoloring, c));
  PetscFunctionReturn(0);
}

PetscErrorCode MatFDColoringApply_Diag(Mat, MatFDColoring, Vec, void *);

/* MatFDColoringCreate() makes the work vectors w1, w2 with MatCreateVecs()
   of J, CUDA vectors for a diag matrix with CUDA vectors, and binds them to
   the CPU. On several processes such bound CUDA work vectors give wrong
   Jacobians (with aijcusparse as with diag; tests/plugin/test_fdcoloring),
   while a host aij Jacobian, whose work vectors are host vectors, gives the
   CPU's. The differences are computed on the host companion anyway: they
   get its host vectors. */
static PetscErrorCode MatFDColoringHostWorkVectors(Mat C, MatFDColoring c)
{
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)c->w1, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  if (!cuda) PetscFunctionReturn(0);
  PetscCall(VecDestroy(&c->w1));
  PetscCall(VecDestroy(&c->w2));
  PetscCall(MatCreateVecs(C, NULL, &c->w1));
  PetscCall(VecDuplicate(c->w1, &c->w2));
  PetscFunctionReturn(0);
}

PetscErrorCode MatFDColoringSetUp_Diag(Mat J, ISColoring iscoloring, MatFDColoring c)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(J, "a finite-difference Jacobian by coloring", &C));
  PetscCall((*C->ops->fdcoloringsetup)(C, iscoloring, c));
  /* MatFDColoringUseDM() (an IS_COLORING_LOCAL coloring evaluated on the
     DM's ghosted vectors, snes ex14) replaces the matrix's apply by aij's,
     which would write the values into the companion and never into J: the
     DM variant goes to the companion instead, and J keeps its own apply. */
  if (J->ops->fdcoloringapply != MatFDColoringApply_Diag) {
    DM dm;
    PetscCall(MatGetDM(J, &dm));
    PetscCall(MatSetDM(C, dm));
    PetscCall(MatFDColoringUseDM(C, c));
    J->ops->fdcoloringapply = MatFDColoringApply_Diag;
  }
  PetscCall(MatFDColoringHostWorkVectors(C, c));
  PetscFunctionReturn(0);
}

PetscErrorCode MatFDColoringApply_Diag(Mat J, MatFDColoring c, Vec x, void *sctx)
{
  Mat_Diag *a = (Mat_Diag *)J->data;

  PetscFunctionBegin;
  PetscCheck(a->aij.companion && a->aij.companion_nzstate == J->nonzerostate, PetscObjectComm((PetscObject)J), PETSC_ERR_ARG_WRONGSTATE,
             "diag: the structure of the matrix changed since MatFDColoringSetUp(); create the coloring again");
  PetscCall((*a->aij.companion->ops->fdcoloringapply)(a->aij.companion, c, x, sctx));
  PetscCall(MatDiagTakeCompanionValues_Private(J));
  PetscFunctionReturn(0);
}
} // namespace

/* ---- submatrices ---------------------------------------------------------
   Taken from the companion with aij's code (any index sets, any overlap,
   sequential or parallel), then stored as diag when that is economical
   (MatDiagFromAIJIfCompact_Private): a subdomain of a stencil operator is
   still diagonally structured, and its sub-solves then run in diag kernels.
   Reuse refreshes the values in place. */

/* Puts the aij matrix S, taken from the diag matrix `from`, into *out: as a
   diag matrix of type `type` if its diagonals are few and full enough, else
   S itself, as aijcusparse where `from` computes on the GPU (a diagcuda
   type, or CUDA vectors): a host aij would run its sub-solves on the host
   and copy the vectors at every application. `from` NULL: S stays a host
   aij when it is not stored as diag, for callers that apply the block to
   host vectors (PCGASM, PCBJACOBI with several blocks a process: PETSc's
   aijcusparse computes nothing there, GASM returned a zero correction;
   test_pc -gpu, 1138_bus, 1 and 2 processes); only PCASM gets aijcusparse
   blocks (pc/asm.cpp). With reuse, *out
   is the matrix an earlier call returned and takes S's values. */

PetscErrorCode MatDiagFromAIJReuse_Private(Mat S, Mat from, MatType type, MatReuse reuse, Mat *out)
{
  PetscBool isdiag;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatDiagIsDiag_Private(*out, &isdiag));
    if (isdiag) PetscCall(MatConvertFrom_Diag(S, type, MAT_REUSE_MATRIX, out));
    else PetscCall(MatCopy(S, *out, SAME_NONZERO_PATTERN));
    PetscCall(MatDestroy(&S));
    PetscFunctionReturn(0);
  }
  PetscBool seqcuda, mpicuda, compact;
  PetscCall(PetscStrcmp(type, MATSEQDIAGCUDA, &seqcuda));
  PetscCall(PetscStrcmp(type, MATMPIDIAGCUDA, &mpicuda));
  const PetscBool device = (PetscBool)(from && (seqcuda || mpicuda || MatDiagWantsDevice_Private(from)));
  /* on the GPU a block is kept as diag only where its ILU(0), the default
     sub-solver, runs on the diagonals (diagonals at least half full: see
     MatDiagFactorNativeApplies_Private); else its factorization would run
     through the host aij copy, and aijcusparse's runs on the device */
  PetscCall(MatDiagAIJIsCompactFill_Private(S, device ? 2.0 : 4.0, &compact));
  if (compact) {
    PetscCall(MatConvertFrom_Diag(S, type, MAT_INITIAL_MATRIX, out));
    PetscCall(MatDestroy(&S));
  } else {
    if (device) { /* not in place: the caller's array may still hold S */
      Mat D;
      PetscCall(MatConvert(S, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &D));
      PetscCall(MatDestroy(&S));
      S = D;
    }
    PetscCall(PetscInfo(S, "diag: a submatrix has too many or too sparse diagonals for diag storage: it stays %s\n", ((PetscObject)S)->type_name));
    *out = S;
  }
  PetscFunctionReturn(0);
}

namespace {

/* The sequential type of a diag matrix's blocks: seqdiagcuda for the CUDA types */
MatType SeqTypeOf(Mat A)
{
  PetscBool cuda = PETSC_FALSE;
  PetscObjectTypeCompareAny((PetscObject)A, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, "");
  return cuda ? MATSEQDIAGCUDA : MATSEQDIAG;
}

MatType MpiTypeOf(Mat A)
{
  PetscBool cuda = PETSC_FALSE;
  PetscObjectTypeCompareAny((PetscObject)A, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, "");
  return cuda ? MATMPIDIAGCUDA : MATMPIDIAG;
}

PetscErrorCode MatCreateSubMatrices_Diag(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat  C, *aij;
  const MatType type = SeqTypeOf(A);

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatCreateSubMatrices (subdomain solvers)", &C));
  PetscCall(MatCreateSubMatrices(C, n, irow, icol, MAT_INITIAL_MATRIX, &aij));
  if (scall == MAT_INITIAL_MATRIX) PetscCall(PetscCalloc1(n + 1, submat));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscObjectReference((PetscObject)aij[i]));
    /* an aijcusparse block only for PCASM (pc/asm.cpp), which applies it to its own vectors */
    PetscCall(MatDiagFromAIJReuse_Private(aij[i], ((Mat_Diag *)A->data)->device_subdomains ? A : NULL, type, scall, &(*submat)[i]));
    if (A->defaultvectype && (*submat)[i] != aij[i]) {
      PetscCall(PetscFree((*submat)[i]->defaultvectype));
      PetscCall(PetscStrallocpy(A->defaultvectype, &(*submat)[i]->defaultvectype));
    }
  }
  PetscCall(MatDestroySubMatrices(n, &aij));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreateSubMatricesMPI_Diag(Mat A, PetscInt n, const IS irow[], const IS icol[], MatReuse scall, Mat *submat[])
{
  Mat  C, *aij;
  const MatType type = MpiTypeOf(A);

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatCreateSubMatricesMPI (parallel subdomain solvers)", &C));
  PetscCall(MatCreateSubMatricesMPI(C, n, irow, icol, MAT_INITIAL_MATRIX, &aij));
  if (scall == MAT_INITIAL_MATRIX) PetscCall(PetscCalloc1(n + 1, submat));
  for (PetscInt i = 0; i < n; i++) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)aij[i]), &size));
    PetscCall(PetscObjectReference((PetscObject)aij[i]));
    PetscCall(MatDiagFromAIJReuse_Private(aij[i], NULL, size == 1 ? SeqTypeOf(A) : type, scall, &(*submat)[i]));
  }
  /* MatCreateSubMatricesMPI's array has no trailing bookkeeping entry (as PCGASM notes):
     MatDestroySubMatrices would read past its end */
  PetscCall(MatDestroyMatrices(n, &aij));
  PetscFunctionReturn(0);
}

PetscErrorCode MatGetMultiProcBlock_Diag(Mat A, MPI_Comm subcomm, MatReuse scall, Mat *sub)
{
  Mat         C, S;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatGetMultiProcBlock (telescope, redundant)", &C));
  PetscCall(MatGetMultiProcBlock(C, subcomm, MAT_INITIAL_MATRIX, &S));
  PetscCallMPI(MPI_Comm_size(subcomm, &size));
  PetscCall(MatDiagFromAIJReuse_Private(S, A, size == 1 ? SeqTypeOf(A) : MpiTypeOf(A), scall, sub));
  PetscFunctionReturn(0);
}

PetscErrorCode MatGetSeqNonzeroStructure_Diag(Mat A, Mat *structure)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatGetSeqNonzeroStructure", &C));
  PetscCall(MatGetSeqNonzeroStructure(C, structure));
  PetscFunctionReturn(0);
}

/* The parallel matrix whose rows are the processes' sequential matrices
   stacked (PCTelescope, PCRedundant): aij's on the companions. */
PetscErrorCode MatCreateMPIMatConcatenateSeqMat_Diag(MPI_Comm comm, Mat seqmat, PetscInt n, MatReuse reuse, Mat *mpimat)
{
  Mat C, M;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(seqmat, "MatCreateMPIMatConcatenateSeqMat (telescope, redundant)", &C));
  PetscCall(MatCreateMPIMatConcatenateSeqMat(comm, C, n, MAT_INITIAL_MATRIX, &M));
  PetscCall(MatDiagFromAIJReuse_Private(M, seqmat, MpiTypeOf(seqmat), reuse, mpimat));
  PetscFunctionReturn(0);
}

PetscErrorCode MatPermute_Diag(Mat A, IS rowp, IS colp, Mat *B)
{
  Mat C, P;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, "MatPermute", &C));
  PetscCall(MatPermute(C, rowp, colp, &P));
  PetscCall(MatDiagFromAIJReuse_Private(P, A, ((PetscObject)A)->type_name, MAT_INITIAL_MATRIX, B));
  PetscFunctionReturn(0);
}

} // namespace

/* Installs the companion-backed entries of the ops table. */
PetscErrorCode MatDiagSetCompanionOps_Private(Mat A)
{
  struct _MatOps *ops = A->ops;

  PetscFunctionBegin;
  ops->getrowij                    = MatGetRowIJ_Diag;
  ops->restorerowij                = MatRestoreRowIJ_Diag;
  ops->getcolumnij                 = MatGetColumnIJ_Diag;
  ops->restorecolumnij             = MatRestoreColumnIJ_Diag;
  ops->increaseoverlap             = MatIncreaseOverlap_Diag;
  ops->creategraph                 = MatCreateGraphOp_Compat<decltype(ops->creategraph), MatCreateGraph_Diag>::call;
  ops->issymmetric                 = MatIsSymmetric_Diag;
  ops->ishermitian                 = MatIsHermitian_Diag;
  ops->isstructurallysymmetric     = MatIsStructurallySymmetric_Diag;
  ops->invertblockdiagonal         = MatInvertBlockDiagonal_Diag;
  ops->invertvariableblockdiagonal = MatInvertVariableBlockDiagonal_Diag;
  ops->findzerodiagonals           = MatFindZeroDiagonals_Diag;
  ops->findoffblockdiagonalentries = MatFindOffBlockDiagonalEntries_Diag;
  ops->getrowmax                   = RowReduction_Diag<MatGetRowMax>;
  ops->getrowmin                   = RowReduction_Diag<MatGetRowMin>;
  ops->getrowmaxabs                = RowReduction_Diag<MatGetRowMaxAbs>;
  ops->getrowminabs                = RowReduction_Diag<MatGetRowMinAbs>;
  ops->getcolumnreductions         = MatGetColumnReductions_Diag;
  ops->fdcoloringcreate            = MatFDColoringCreate_Diag;
  ops->fdcoloringsetup             = MatFDColoringSetUp_Diag;
  ops->fdcoloringapply             = MatFDColoringApply_Diag;
  ops->createsubmatrices           = MatCreateSubMatrices_Diag;
  ops->createsubmatricesmpi        = MatCreateSubMatricesMPI_Diag;
  ops->getmultiprocblock           = MatGetMultiProcBlock_Diag;
  ops->permute                     = MatPermute_Diag;
  ops->creatempimatconcatenateseqmat = MatCreateMPIMatConcatenateSeqMat_Diag;
  ops->getseqnonzerostructure        = MatGetSeqNonzeroStructure_Diag;
  PetscFunctionReturn(0);
}
