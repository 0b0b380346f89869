/* The aij companion of a diag matrix (companion/, docs/design.md, "The aij
   companion"): the aij copy that operations on the graph of the matrix use,
   the pattern and count of the entries an aij matrix of it holds
   (Mat_Diag::aij), and the operations answered through the copy. */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include "pdiag/convert.hpp"

#include <cstdint>
#include <string>
#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

struct DiagAijCopy {
  /* the aij copy (companion/companion.cpp): current while its state equals A's */
  Mat              companion         = nullptr;
  PetscInt         companion_builds  = 0; /* aij copies built so far (a factorization checks it did not change) */
  PetscObjectState companion_state   = -1;
  PetscObjectState companion_nzstate = -1;
  PetscBool        taking            = PETSC_FALSE; /* A takes its values from the copy (MatDiagTakeCompanionValues_Private) */
  /* the entries an aij matrix of this operator holds (CSR pattern of the
     local rows, global columns): from the last aij copy, or from the aij
     matrix this one was converted from; valid while the nonzero state is
     pattern_nzstate */
  std::vector<Index> rowptr, colidx;
  PetscObjectState   pattern_nzstate     = -1;
  PetscBool          pattern_has_stencil = PETSC_FALSE; /* built by the aij copy's rule, which keeps a DMDA stencil's stored couplings */
  /* the stored entries that pattern leaves out (pdiag::hm_slots_outside_csr:
     slots of the HM storage the copy is read from, listed entries after
     them), found when the copy was built with the pattern or the pattern
     was checked against the rule (AijEntries). While they describe the
     structure (nonzero state, scheme, the HM storage's diagonals, the count
     of listed entries), the pattern stays the
     rule's as long as no left-out entry becomes nonzero and no zero is set
     outside it: a refresh checks that and copies the values by the slots,
     without the rule. outside_zeros: the stamp of the set zeros
     (Mat_Diag::assembly.zero_sets) the pattern holds; outside_checked: A's
     object state an assembly found the pattern current for. */
  std::vector<Index> outside;
  PetscObjectState   outside_nzstate = -1, outside_checked = -1;
  pdiag::Scheme      outside_scheme  = pdiag::Scheme::HM;
  std::vector<Index> outside_offsets;
  Index              outside_listed = -1;
  std::uint64_t      outside_zeros   = 0;
  void               ForgetOutside()
  {
    std::vector<Index>().swap(outside);
    outside_offsets.clear();
    outside_nzstate = outside_checked = -1;
  }
  /* how many local entries an aij matrix of this operator holds
     (MatGetInfo's nz_used), for the object and nonzero states named */
  Index            count         = 0;
  PetscObjectState count_state   = -1;
  PetscObjectState count_nzstate = -1;
  /* rows MatZeroRows emptied without MAT_KEEP_NONZERO_PATTERN (global,
     sorted): a DMDA's stencil no longer makes entries there, as aij's
     zeroed rows hold only their diagonal (companion/companion.cpp) */
  std::vector<Index> dropped_rows;
};

/* companion/companion.cpp */
PETSC_INTERN PetscErrorCode MatDiagLocalCSR_Private(Mat, pdiag::Csr<PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagAijCSR_Private(Mat, pdiag::Csr<PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagAijEntriesMask_Private(Mat, const Hm &, std::vector<unsigned char> *);
PETSC_INTERN PetscErrorCode MatDiagAijEntryCount_Private(Mat, Index *);
PETSC_INTERN PetscErrorCode MatDiagSetAijPattern_Private(Mat, Index, const Index *, const Index *);
PETSC_INTERN PetscErrorCode MatDiagSetAijPatternCSR_Private(Mat, PetscInt, const PetscInt *, const PetscInt *);
PETSC_INTERN PetscErrorCode MatDiagDropZeroedRows_Private(Mat, PetscInt, const PetscInt[]);
PETSC_INTERN PetscErrorCode MatDiagKeepZeroedRows_Private(Mat, PetscInt, const PetscInt[]);
PETSC_INTERN PetscErrorCode MatDiagAijRow_Private(Mat, PetscInt, std::vector<Index> *, std::vector<PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagBuildAIJ_Private(Mat, MatType, Mat *);
PETSC_INTERN PetscErrorCode MatDiagSyncProperties_Private(Mat, Mat);
PETSC_INTERN PetscErrorCode MatDiagAIJFromCSR_Private(Mat, const pdiag::Csr<PetscScalar> &, MatType, Mat *);
PETSC_INTERN PetscErrorCode MatDiagAIJPatternOnly_Private(Mat, MatType, Mat *);
PETSC_INTERN PetscErrorCode MatDiagGetCompanion_Private(Mat, const char *, Mat *);
PETSC_INTERN PetscErrorCode MatDiagCopyAIJValues_Private(Mat, Mat);
PETSC_INTERN PetscErrorCode MatDiagUsesInodes_Private(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagTakeCompanionValues_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagCompanionAssemblyEnd_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagCompanionDestroy_Private(Mat_Diag *);

/* companion/companion_ops.cpp */
PETSC_INTERN PetscErrorCode MatInodeAdjustForInodes_Diag(Mat, IS *, IS *);
PETSC_INTERN PetscErrorCode MatDiagFromAIJReuse_Private(Mat, Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatDiagSetCompanionOps_Private(Mat);

/* Runs f, which assembles B (directly or inside another call), with B under
   the options prefix "diag_internal_": MatAssemblyEnd acts on -mat_view
   (and -mat_view_*, -mat_is_symmetric, ...) with the matrix's prefix, and a
   matrix diag makes for itself (an aij copy for a conversion or a PC, the
   diagonal block) is not the program's assembly: aij's MatConvert,
   MatDuplicate and MatGetDiagonalBlock view nothing. B's prefix is
   restored, also when f fails. */
template <class F>
PetscErrorCode MatDiagAssembleInternal_Private(Mat B, F &&f)
{
  const char *prefix;
  std::string saved;

  PetscFunctionBegin;
  PetscCall(MatGetOptionsPrefix(B, &prefix));
  const bool had = prefix != nullptr;
  if (had) saved = prefix;
  PetscCall(MatSetOptionsPrefix(B, "diag_internal_"));
  const PetscErrorCode ierr = f();
  PetscCall(MatSetOptionsPrefix(B, had ? saved.c_str() : NULL));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
