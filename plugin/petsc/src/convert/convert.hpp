/* Conversions of diag matrices (convert/): to and from aij and other types,
   duplicates, copies, transposes, MatView/MatLoad, submatrices, and the
   decisions to be aij instead (scattered matrices, compact operands). */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include "pdiag/compress.hpp"

#include <cstddef>
#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

/* convert/convert.cpp */
PETSC_INTERN PetscErrorCode MatConvertFrom_Diag(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_Diag_AIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_Diag_ViaAIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatDuplicate_Diag(Mat, MatDuplicateOption, Mat *);
PETSC_INTERN PetscErrorCode MatCopy_Diag(Mat, Mat, MatStructure);
PETSC_INTERN PetscErrorCode MatTranspose_Diag(Mat, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatLoad_Diag(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatDiagKeepView_Private(Mat);
PETSC_INTERN PetscErrorCode MatCreateSubMatrix_Diag(Mat, IS, IS, MatReuse, Mat *);

/* convert/scattered.cpp */
PETSC_INTERN PetscErrorCode MatDiagConvertIfScattered_Private(Mat, PetscCount, const PetscInt *, const PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagStagedScattered_Private(Mat, pdiag::StorageCount, PetscInt64, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAIJWouldScatter_Private(Mat, Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagCheckScatteredFill_Private(const Mat_Diag *);

/* convert/compact.cpp */
PETSC_INTERN PetscErrorCode MatDiagAIJIsCompact_Private(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAIJIsCompactFill_Private(Mat, double, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAIJCompactOffsets_Private(Mat, double, PetscBool *, std::vector<Index> *);
PETSC_INTERN PetscErrorCode MatDiagAIJLocalOffsets_Private(Mat, std::size_t, std::vector<Index> *, double *, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagIsScattered_Private(Mat, PetscBool *);
