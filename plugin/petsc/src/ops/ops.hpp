/* The operations of a diag matrix (ops/): the ops table, products with a
   vector and their MPI ghost exchange (Mat_Diag::mpi), MatSOR and the
   matrices derived for it (Mat_Diag::cache). */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include "pdiag/distributed.hpp"
#include "pdiag/remote.hpp"

#include <utility>
#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

/* MPI products: a diagonal reaching other processes with at most 1 /
   kListFillRatio of its entries nonzero is listed rather than passed over
   (pdiag::hm_split_sparse_remote, ops/mult.cpp) */
constexpr Index kListFillRatio = 8;

/* The vectors a MatMult-like product reaches beyond the owned part of x (or
   of y for transposes): gathered into a sequential work vector whose layout
   is a sorted list of merged column intervals. shift[] gives, per stored
   diagonal (2 per compact diagonal for CDM), the kernels' vector shift. */
struct DiagGhost {
  Vec                                  work    = nullptr; /* sequential, the gathered columns */
  VecScatter                           scatter = nullptr; /* global x -> work */
  std::vector<std::pair<Index, Index>> need;              /* the global column intervals work holds, in order */
  std::vector<Index>                   shift_lo, shift_hi; /* boundary rows below / above the interior */
  Index                                own_begin = 0, own_end = 0; /* the positions of work holding owned columns */
};

/* A process's part of a parallel product (docs/design.md, "MPI: interior,
   ghosts and listed couplings"). */
struct DiagMPI {
  /* owned columns [col_begin, col_end); interior rows [ib, ie) (local)
     read only owned x; the others read the ghost work vector */
  Index              col_begin = 0, col_end = 0;
  Index              ib = 0, ie = 0;
  std::vector<Index> shift_local; /* x index of owned columns: il + shift */
  DiagGhost          ghost;       /* for MatMult */
  Vec                tr_work    = nullptr; /* for MatMultTranspose: contributions per touched column */
  VecScatter         tr_scatter = nullptr;
  std::vector<Index> tr_shift;
  std::vector<Index> tr_listed; /* the tr_work position of each listed entry's column (remote.cols' order) */
  PetscBool          ghost_valid = PETSC_FALSE;
  /* the diagonals the product's row passes run over (pass_slots: hm
     indices; pass_offsets, pass_start: the view over them; all empty when
     the passes run over every diagonal) and the nonzeros of sparsely filled
     diagonals reaching other processes, listed with work-vector columns
     (pdiag::hm_split_sparse_remote). split_watch (the same on every
     process): values may change the split, so it is examined again when the
     matrix's state has moved on from split_state. pass_entries: the stored
     entries a product reads (its flops / 2). */
  PetscBool            split_active = PETSC_FALSE; /* pass_* and listed hold the split; otherwise passes run over every diagonal */
  std::vector<Index>   pass_slots, pass_offsets, pass_start;
  pdiag::ListedEntries listed;
  PetscBool            split_watch  = PETSC_FALSE;
  PetscObjectState     split_state  = -1;
  Index                pass_entries = 0;
};

/* What MatSOR and the factors derive from the matrix, kept until it changes. */
/* MatSOR on the host: a(i,i) and omega / (fshift + a(i,i)) for the values
   of `state` (and the first row with a zero diagonal, or -1), and the
   sweeps' work vector */
struct DiagSorCache {
  PetscObjectState         state  = -1;
  PetscReal                omega  = 0;
  PetscReal                fshift = 0;
  Index                    zero_row = -1;
  std::vector<PetscScalar> mdiag, idiag, work;
};

struct DiagCache {
  /* MPI: the block of owned rows and columns as a seqdiag
     (MatGetDiagonalBlock; bjacobi, local SOR sweeps), refreshed like the companion */
  Mat              diag_block         = nullptr;
  PetscObjectState diag_block_state   = -1;
  PetscObjectState diag_block_nzstate = -1;
  /* whether aij would run this matrix's SOR on inodes (MatDiagUsesInodes_Private), for the values of inode_state */
  PetscObjectState inode_state = -1;
  PetscBool        inode_use   = PETSC_FALSE;
  /* an HM copy of CDM storage for the kernels that work on HM (SOR, factors), kept until A changes */
  Hm               hm_of_cdm;
  PetscObjectState hm_of_cdm_state = -1;
  /* whether the diagonals are mostly zeros (MatDiagIsScattered_Private), for the values of scattered_state */
  PetscObjectState scattered_state = -1;
  PetscBool        scattered       = PETSC_FALSE;
  DiagSorCache     sor; /* ops/sor.cpp */
};

/* ops/mult.cpp */
PETSC_INTERN PetscErrorCode MatDiagGhostDestroy_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagGhostSetUp_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagProductPlanEnsure_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSplitReadBytes_Private(Mat, PetscBool *, double *);
PETSC_INTERN PetscErrorCode MatDiagGhostExchange_Diag(Mat, Vec);
PETSC_INTERN PetscErrorCode MatDiagRemoteCouplingsAdd_Private(Mat, Vec, PetscScalar, Vec);
PETSC_INTERN PetscErrorCode MatMult_Diag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultAdd_Diag(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatResidual_Diag(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTranspose_Diag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_Diag(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultHermitianTranspose_Diag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultHermitianTransposeAdd_Diag(Mat, Vec, Vec, Vec);

/* ops/ops.cpp */
PETSC_INTERN PetscErrorCode MatDiagSetOps_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncStructure_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagGatherColumns_Private(Mat, Vec, const PetscScalar **, const Index **);
PETSC_INTERN PetscErrorCode MatDiagRestoreColumns_Private(Mat, Vec, const PetscScalar **);

/* ops/sor.cpp */
PETSC_INTERN PetscErrorCode MatDiagHm_Private(Mat, const Hm **);
PETSC_INTERN PetscErrorCode MatDiagInstallHm_Private(Mat, Hm &&, pdiag::RemoteEntries<PetscScalar> && = pdiag::RemoteEntries<PetscScalar>());
PETSC_INTERN PetscErrorCode MatGetDiagonalBlock_Diag(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatSOR_Diag(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN PetscErrorCode MatMultDiagonalBlock_Diag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatDiagSORZeroRow_Private(Mat, PetscReal, Index); /* MatSOR's answer to a zero diagonal (aij's) */
