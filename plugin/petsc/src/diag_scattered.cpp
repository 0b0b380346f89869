/* Scattered matrices become aij. A matrix whose entries lie on many
   diagonals that they fill sparsely (a finite-element operator on a
   refined or unstructured mesh, whose numbering scatters the couplings of
   a row over the whole matrix) stores, by diagonals, many times the entries
   aij stores, and every product and every pass over the matrix pays for
   them: snes ex17 with Q3 elements stored 185 entries per aij entry and took
   ten times aij's time, snes ex34's reduced-space VI forty times (each of
   its Newton steps builds submatrices, and each an aij copy for its LU).
   Diagonals do not pay there; aij does. At the final assembly that gives a
   matrix such a structure, the plugin converts it in place to aij
   (aijcusparse when it computes on the GPU): the user's handle, its DM,
   options prefix, local-to-global mappings, null spaces and flags stay, and
   PETSc's aij kernels run the rest of the program. -info says so.
   -mat_diag_scattered_fill <r>: the stored entries per entry set (on the
   diagonals an assembly adds for entries set) above which a matrix is
   converted (default 16; 0: never). Below kScatteredFloor stored entries
   on every process a matrix stays diag whatever its fill: a pass over it
   costs little. A structure from entries set that the memory budget
   (diag_checks.cpp) would refuse (more diagonals, bytes or fill than its
   limits) becomes aij the same way, built from the entries still staged,
   without storing them by diagonals: snes ex17 with Q3 elements on two
   processes put its couplings on over 10000 diagonals, which aij runs
   and diag refused. The budget still refuses such a structure for a
   DMDA's matrix, CDM storage, and with -mat_diag_scattered_fill 0. */
#include "diag_impl.hpp"

#include "pdiag/convert.hpp"
#include "pdiag/stencil.hpp"

#include <petscdm.h>

#include <vector>

/* Below this many stored entries on a process (8 MB of values) a matrix is
   never converted: a pass over its storage takes a millisecond or two. */
static const Index kScatteredFloor = Index(1) << 20;

/* Whether the new diagonals of A's last assembly (its structure from
   entries set, or from a COO preallocation) store more than
   scattered_fill entries per entry set on them on some process, and more
   than kScatteredFloor there: the fill the memory budget refuses beyond
   256 MiB (diag_checks.cpp). Diagonals the user or a DMDA preallocated
   are not counted: their structure was chosen. A DMDA's matrix is never
   scattered. Collective. */
static PetscErrorCode MatDiagIsScattered(Mat A, PetscBool *scattered)
{
  Mat_Diag                        *a    = (Mat_Diag *)A->data;
  PetscBool                        mine = PETSC_FALSE;
  PetscMPIInt                      size;
  const pdiag::GridStencilPattern *grid;

  PetscFunctionBegin;
  if (a->staged_to_aij) { /* every process agreed at MatDiagMergeStaged() */
    a->grown_stored = a->grown_set = 0;
    *scattered      = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (a->scattered_fill > 0 && a->grown_stored > kScatteredFloor) {
    PetscCall(MatDiagGridPattern_Private(A, &grid));
    mine = !grid && (PetscReal)a->grown_stored > a->scattered_fill * (PetscReal)PetscMax(a->grown_set, (Index)1) ? PETSC_TRUE : PETSC_FALSE;
    if (mine) PetscCall(PetscInfo(A, "diag: the %" PetscInt64_FMT " entries set on this process take %" PetscInt64_FMT " stored entries, more than -mat_diag_scattered_fill %g per entry\n", (PetscInt64)a->grown_set, (PetscInt64)a->grown_stored, (double)a->scattered_fill));
  }
  a->grown_stored = a->grown_set = 0;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MPIU_Allreduce(&mine, scattered, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  else *scattered = mine;
  PetscFunctionReturn(0);
}

/* The aij type that stands in for the diag matrix A: aijcusparse when A
   computes on the GPU (diagcuda, or CUDA vectors), else aij. */
PetscErrorCode MatDiagAIJTypeFor_Private(Mat A, MatType *type)
{
  PetscFunctionBegin;
  *type = MATAIJ;
#if defined(PDIAG_PETSC_CUDA)
  PetscBool cuda;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if (cuda || MatDiagWantsDevice_Private(A)) *type = MATAIJCUSPARSE;
#else
  (void)A;
#endif
  PetscFunctionReturn(0);
}

/* -mat_diag_scattered_fill is 0 (never) or at least 1. */
PetscErrorCode MatDiagCheckScatteredFill_Private(const Mat_Diag *a)
{
  PetscFunctionBegin;
  PetscCheck(a->scattered_fill == 0 || a->scattered_fill >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: -mat_diag_scattered_fill %g is neither 0 nor at least 1", (double)a->scattered_fill);
  PetscFunctionReturn(0);
}

/* Converts the assembled A in place to aij if it is scattered (above);
   *converted says whether it did: A is then no longer a diag matrix, and
   the caller must return at once. With ncoo >= 0, A's structure came from
   MatSetPreallocationCOO() with these entries (global indices; -1 entries
   ignored), which the aij matrix is preallocated with in turn, so that
   MatSetValuesCOO() goes on with the same array of values. Collective. */
PetscErrorCode MatDiagConvertIfScattered_Private(Mat A, PetscCount ncoo, const PetscInt *coo_i, const PetscInt *coo_j, PetscBool *converted)
{
  Mat_Diag              *a = (Mat_Diag *)A->data;
  Mat                    B;
  DM                     dm;
  MatType                type;
  const char            *prefix;
  ISLocalToGlobalMapping rmap = A->rmap->mapping, cmap = A->cmap->mapping;

  PetscFunctionBegin;
  *converted = PETSC_FALSE;
  PetscCall(MatDiagIsScattered(A, converted));
  if (!*converted) PetscFunctionReturn(0);
  PetscCall(MatDiagAIJTypeFor_Private(A, &type));
  if (a->staged_to_aij) PetscCall(PetscInfo(A, "diag: its entries would take more than diag's budget allows (-info says which limit): converted in place to %s\n", type));
  else PetscCall(PetscInfo(A, "diag: its entries fill the diagonals that hold them sparsely (a scattered matrix): converted in place to %s, which stores such a matrix better\n", type));
  if (ncoo >= 0) {
    std::vector<PetscInt> ci(coo_i, coo_i + ncoo), cj(coo_j, coo_j + ncoo); /* aij may reorder its arguments */
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatSetBlockSizesFromMats(B, A, A));
    PetscCall(MatSetType(B, type));
    PetscCall(MatSetPreallocationCOO(B, ncoo, ci.data(), cj.data()));
  } else if (a->scheme == pdiag::Scheme::HM) { /* the entries set: the nonzeros and the set zeros, found a diagonal at a time, and those still staged */
    pdiag::Csr<PetscScalar> csr;
    DiagCallKernel(csr = pdiag::hm_staged_to_csr_nonzeros(a->hm, A->rmap->N == A->cmap->N, a->zero_sets, a->remote.empty() ? nullptr : &a->remote, a->staged));
    PetscCall(MatDiagAIJFromCSR_Private(A, csr, type, &B));
  } else PetscCall(MatDiagBuildAIJ_Private(A, type, &B));
  /* what the user and the DM gave A */
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(MatSetOptionsPrefix(B, prefix));
  if (A->factorprefix) PetscCall(MatSetOptionsPrefixFactor(B, A->factorprefix));
  if (((PetscObject)A)->name) PetscCall(PetscObjectSetName((PetscObject)B, ((PetscObject)A)->name));
  if (rmap && cmap) PetscCall(MatSetLocalToGlobalMapping(B, rmap, cmap));
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(MatSetDM(B, dm));
  PetscCall(MatDiagSyncProperties_Private(A, B));
  PetscCall(MatSetOption(B, MAT_ROW_ORIENTED, a->roworiented));
  if (a->donotstash) PetscCall(MatSetOption(B, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_LOCATIONS, a->new_diagonals_ignored ? PETSC_FALSE : PETSC_TRUE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_LOCATION_ERR, a->new_diagonals_error));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* diag would store a new diagonal */
  B->nooffprocentries = A->nooffprocentries;
  B->nonzerostate     = A->nonzerostate + 1; /* a new structure for whoever set up with A */
  PetscCall(MatHeaderReplace(A, &B));
  PetscFunctionReturn(0);
}

/* Whether the aij matrix S (a submatrix of the diag matrix A) would be
   scattered stored by diagonals: on some process its entries would take
   more than A's -mat_diag_scattered_fill stored entries each, over
   kScatteredFloor, or more diagonals than A may store (a field of a
   multi-field operator, whose numbering skips the other fields: the
   velocity block of a Stokes problem split by PCFIELDSPLIT). The submatrix
   then stays aij. Collective. */
PetscErrorCode MatDiagAIJWouldScatter_Private(Mat A, Mat S, PetscBool *scattered)
{
  Mat_Diag          *a    = (Mat_Diag *)A->data;
  PetscBool          mine = PETSC_FALSE, over;
  std::vector<Index> offs;
  double             nnz;
  PetscInt           rstart, rend, M, N;

  PetscFunctionBegin;
  if (a->scattered_fill > 0) {
    PetscCall(MatGetOwnershipRange(S, &rstart, &rend));
    PetscCall(MatGetSize(S, &M, &N));
    PetscCall(MatDiagAIJLocalOffsets_Private(S, (std::size_t)a->max_diagonals, &offs, &nnz, &over));
    const pdiag::Layout L      = pdiag::Layout::block(M, N, rstart, rend - rstart);
    double              stored = 0;
    for (const Index d : offs) stored += (double)L.length(d);
    mine = over || (stored > (double)kScatteredFloor && stored > a->scattered_fill * PetscMax(nnz, 1.0)) ? PETSC_TRUE : PETSC_FALSE;
    if (mine) PetscCall(PetscInfo(A, "diag: a submatrix of %g entries on this process would store %s%g entries on %" PetscInt64_FMT " diagonals: it stays aij\n", nnz, over ? "more than " : "", stored, (PetscInt64)offs.size()));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mine, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  *scattered = mine;
  PetscFunctionReturn(0);
}
