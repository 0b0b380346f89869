/* Scattered matrices become aij. A matrix whose entries lie on many
   diagonals that they fill sparsely (a finite-element operator on a
   refined or unstructured mesh, whose numbering scatters the couplings of
   a row over the whole matrix) stores, by diagonals, many times the entries
   aij stores, and every product and every pass over the matrix pays for
   them (high-order elements store hundreds of entries per aij entry; a
   reduced-space VI builds submatrices, and an aij copy of each for its LU,
   at every Newton step). Diagonals do not pay there; aij does. At the final assembly that gives a
   matrix such a structure, the plugin converts it in place to aij
   (aijcusparse when it computes on the GPU): the user's handle, its DM,
   options prefix, local-to-global mappings, null spaces and flags stay, and
   PETSc's aij kernels run the rest of the program. -info says so.
   -mat_diag_scattered_fill <r>: the stored entries per entry set (on the
   diagonals an assembly adds for entries set) above which a matrix is
   converted (default 16; 0: never). Below kScatteredFloor stored entries
   on every process a matrix stays diag whatever its fill: a pass over it
   costs little. A structure from entries set that the memory budget
   (core/checks.cpp) would refuse (more diagonals, bytes or fill than its
   limits) becomes aij the same way: snes ex17 with Q3 elements on two
   processes put its couplings on over 10000 diagonals, which aij runs
   and diag refused. Both are decided from the staged entries' counts
   (assembly/assembly.cpp, MatDiagMergeStaged) and the aij matrix is built
   from them: the new diagonals are never stored. HM matrices only: a CDM
   matrix, a DMDA's, and all with -mat_diag_scattered_fill 0 stay diag
   (or are refused by the budget). */
#include "core/mat_diag.hpp"

#include "pdiag/convert.hpp"

#include <petscdm.h>

#include <vector>

/* Below this many stored entries on a process (8 MB of values) a matrix is
   never converted: a pass over its storage takes a millisecond or two. */
static const Index kScatteredFloor = Index(1) << 20;

/* Whether `stored` entries by diagonals for `set` entries set are
   scattered: more than -mat_diag_scattered_fill (not 0) stored per entry
   set, and more than kScatteredFloor stored. */
static bool MatDiagScatteredFill(const Mat_Diag *a, double stored, double set)
{
  return a->opt.scattered_fill > 0 && stored > (double)kScatteredFloor && stored > a->opt.scattered_fill * PetscMax(set, 1.0);
}

/* Whether the entries staged on this process by an assembly (nset entries
   set, on new diagonals that would store staged.nstored entries) are
   scattered: more than scattered_fill stored entries per entry set, and
   more than kScatteredFloor stored (the fill the memory budget refuses
   beyond 256 MiB, core/checks.cpp). Diagonals already stored (the user's
   or a DMDA's preallocation) are not counted: their structure was chosen.
   Not collective. */
PetscErrorCode MatDiagStagedScattered_Private(Mat A, pdiag::StorageCount staged, PetscInt64 nset, PetscBool *scattered)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  *scattered = MatDiagScatteredFill(a, (double)staged.nstored, (double)nset) ? PETSC_TRUE : PETSC_FALSE;
  if (*scattered) PetscCall(PetscInfo(A, "diag: the %" PetscInt64_FMT " entries set on this process would take %" PetscInt64_FMT " stored entries, more than -mat_diag_scattered_fill %g per entry\n", nset, (PetscInt64)staged.nstored, (double)a->opt.scattered_fill));
  PetscFunctionReturn(0);
}

/* The aij type that stands in for the diag matrix A: aijcusparse when A
   computes on the GPU (diagcuda, or CUDA vectors), else aij. */
static PetscErrorCode MatDiagAIJTypeFor(Mat A, MatType *type)
{
  PetscFunctionBegin;
  *type = MATAIJ;
  PetscBool cuda;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if (cuda || MatDiagWantsDevice_Private(A)) *type = MATAIJCUSPARSE;
  PetscFunctionReturn(0);
}

/* -mat_diag_scattered_fill is 0 (never) or at least 1. */
PetscErrorCode MatDiagCheckScatteredFill_Private(const Mat_Diag *a)
{
  PetscFunctionBegin;
  PetscCheck(a->opt.scattered_fill == 0 || a->opt.scattered_fill >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: -mat_diag_scattered_fill %g is neither 0 nor at least 1", (double)a->opt.scattered_fill);
  PetscFunctionReturn(0);
}

/* Converts A in place to aij if its last assembly found its staged
   entries scattered or over the budget, on some process
   (Mat_Diag::staged_to_aij, agreed by every process in MatAssemblyEnd);
   *converted says whether it did: A is then no longer a diag matrix, and
   the caller must return at once. The aij matrix holds A's entries set
   (stored, listed and staged: the staged diagonals are never stored).
   With ncoo >= 0, A's structure came from MatSetPreallocationCOO() with
   these entries (global indices; -1 entries ignored), which the aij matrix
   is preallocated with in turn, so that MatSetValuesCOO() goes on with the
   same array of values. Collective. */
PetscErrorCode MatDiagConvertIfScattered_Private(Mat A, PetscCount ncoo, const PetscInt *coo_i, const PetscInt *coo_j, PetscBool *converted)
{
  Mat_Diag              *a = (Mat_Diag *)A->data;
  Mat                    B;
  DM                     dm;
  MatType                type;
  const char            *prefix;
  ISLocalToGlobalMapping rmap = A->rmap->mapping, cmap = A->cmap->mapping;

  PetscFunctionBegin;
  *converted = a->assembly.staged_to_aij;
  if (!*converted) PetscFunctionReturn(0);
  PetscCheck(a->scheme == pdiag::Scheme::HM, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: only an HM matrix becomes aij from its staged entries");
  PetscCall(MatDiagAIJTypeFor(A, &type));
  PetscCall(PetscInfo(A, "diag: its entries are scattered over many diagonals, or over diag's budget (-info above says which): converted in place to %s\n", type));
  if (ncoo >= 0) {
    std::vector<PetscInt> ci(coo_i, coo_i + ncoo), cj(coo_j, coo_j + ncoo); /* aij may reorder its arguments */
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
    PetscCall(MatSetSizes(B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatSetBlockSizesFromMats(B, A, A));
    PetscCall(MatSetType(B, type));
    PetscCall(MatSetPreallocationCOO(B, ncoo, ci.data(), cj.data()));
  } else { /* the entries set: the nonzeros and the set zeros, found a diagonal at a time, and those staged */
    pdiag::Csr<PetscScalar> csr;
    DiagCallKernel(csr = pdiag::hm_staged_to_csr_nonzeros(a->hm, A->rmap->N == A->cmap->N, a->assembly.zero_sets.list(), a->remote.empty() ? nullptr : &a->remote, a->assembly.staged));
    PetscCall(MatDiagAIJFromCSR_Private(A, csr, type, &B));
  }
  /* what the user and the DM gave A */
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(MatSetOptionsPrefix(B, prefix));
  if (A->factorprefix) PetscCall(MatSetOptionsPrefixFactor(B, A->factorprefix));
  if (((PetscObject)A)->name) PetscCall(PetscObjectSetName((PetscObject)B, ((PetscObject)A)->name));
  if (rmap && cmap) PetscCall(MatSetLocalToGlobalMapping(B, rmap, cmap));
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(MatSetDM(B, dm));
  PetscCall(MatDiagSyncProperties_Private(A, B));
  PetscCall(MatSetOption(B, MAT_ROW_ORIENTED, a->assembly.roworiented));
  if (a->assembly.donotstash) PetscCall(MatSetOption(B, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_LOCATIONS, a->assembly.new_diagonals_ignored ? PETSC_FALSE : PETSC_TRUE));
  PetscCall(MatSetOption(B, MAT_NEW_NONZERO_LOCATION_ERR, a->assembly.new_diagonals_error));
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
  if (a->opt.scattered_fill > 0) {
    PetscCall(MatGetOwnershipRange(S, &rstart, &rend));
    PetscCall(MatGetSize(S, &M, &N));
    PetscCall(MatDiagAIJLocalOffsets_Private(S, (std::size_t)a->opt.max_diagonals, &offs, &nnz, &over));
    const pdiag::Layout L      = pdiag::Layout::block(M, N, rstart, rend - rstart);
    double              stored = 0;
    for (const Index d : offs) stored += (double)L.length(d);
    mine = over || MatDiagScatteredFill(a, stored, nnz) ? PETSC_TRUE : PETSC_FALSE;
    if (mine) PetscCall(PetscInfo(A, "diag: a submatrix of %g entries on this process would store %s%g entries on %" PetscInt64_FMT " diagonals: it stays aij\n", nnz, over ? "more than " : "", stored, (PetscInt64)offs.size()));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mine, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  *scattered = mine;
  PetscFunctionReturn(0);
}
