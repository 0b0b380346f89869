/* The assembly of a diag matrix (assembly/): its state (Mat_Diag::assembly)
   and functions. MatSetValues writes stored diagonals in place and stages
   entries on new ones until MatAssemblyEnd, which merges them after the
   memory budget is checked; entries of other processes' rows go through a
   stash; COO assembly maps each entry to its slot once. assembly/remote.cpp
   keeps the sparse couplings to other processes as a list. */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include "pdiag/assemble.hpp"
#include "pdiag/positions.hpp"
#include "pdiag/remote.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

struct DiagAssembly {
  /* entries on diagonals not yet stored, by HM offset (as lists until they
     fill half their diagonal): merged into the storage at MatAssemblyEnd
     (new diagonals discovered), after the memory budget is checked */
  std::map<Index, pdiag::StagedDiagonal<PetscScalar>> staged;
  /* positions (row, column) that MatSetValues set and that held an exact
     zero after the write (element contributions that cancel, explicit
     zeros): aij keeps them, so the aij copy does (companion/companion.cpp).
     A position the set holds is found from the previous one's place and
     adds nothing, so a re-assembly setting the same zeros sorts nothing;
     new ones join at MatAssemblyEnd (list() sorted and unique after it). */
  pdiag::PositionSet zero_sets;
  /* MatSetValues: the diagonal the entry at each position of the previous
     call's columns (modulo kSlotHints) lay on. A stencil's rows come with
     the same offsets at the same positions, in whatever order the program
     lists them (a flux-form assembly: -x, +x, -y, +y, -z, +z, centre). */
  static constexpr int kSlotHints = 16;
  Index                slot_hint[kSlotHints] = {};
  void                 ForgetSlotHints() { std::fill(slot_hint, slot_hint + kSlotHints, Index(0)); }
  PetscBool            structure_changed = PETSC_TRUE;

  /* entries of other processes' rows, sent to their owners at assembly */
  std::vector<PetscInt>    stash_i, stash_j;
  std::vector<PetscScalar> stash_v;
  /* MatSetValues options */
  PetscBool roworiented = PETSC_TRUE;
  PetscBool donotstash  = PETSC_FALSE;
  /* MAT_NEW_NONZERO_LOCATIONS (false: entries on new diagonals are dropped),
     MAT_NEW_NONZERO_LOCATION_ERR (an error) */
  PetscBool new_diagonals_ignored = PETSC_FALSE;
  PetscBool new_diagonals_error   = PETSC_FALSE;
  PetscBool keep_nonzero_pattern  = PETSC_FALSE; /* MAT_KEEP_NONZERO_PATTERN (MatZeroRows) */

  /* COO assembly: owned entry e adds into values()[coo_slot[e]] (-1: not
     owned or ignored); entries of other processes' rows go through the stash */
  std::vector<PetscInt> coo_i, coo_j;
  std::vector<Index>    coo_slot;
  PetscObjectState      coo_state  = -1; /* A->nonzerostate the slots were computed for */
  PetscBool             coo_remote = PETSC_FALSE;

  PetscBool internal_assembly = PETSC_FALSE; /* an assembly inside the plugin, which goes on with this matrix as diag: no conversion */
  PetscBool staged_to_aij     = PETSC_FALSE; /* this assembly's staged entries are scattered, or over the budget, on some process: the matrix becomes aij instead of storing them (convert/scattered.cpp) */
  PetscBool defer_upload      = PETSC_FALSE; /* set while a product assembles its zero result: no upload at assembly end */
};

/* assembly/assembly.cpp */
PETSC_INTERN PetscErrorCode MatSetValues_Diag(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatAssemblyBegin_Diag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatAssemblyEnd_Diag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatZeroEntries_Diag(Mat);
PETSC_INTERN PetscErrorCode MatSetPreallocationCOO_Diag(Mat, PetscCount, PetscInt[], PetscInt[]);
PETSC_INTERN PetscErrorCode MatSetValuesCOO_Diag(Mat, const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatDiagCOOSlots_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSetValuesCOOHost_Private(Mat, const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatDiagApplyStorage_Private(Mat);

/* assembly/remote.cpp */
PETSC_INTERN PetscErrorCode MatDiagRemoteAgree_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagRemoteToDiagonals_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagStagedToRemote_Private(Mat, std::vector<pdiag::RemoteEntry<PetscScalar>> *, std::vector<Index> *);
PETSC_INTERN PetscErrorCode MatDiagGridRemoteSplit_Private(Mat, std::vector<Index> *);
