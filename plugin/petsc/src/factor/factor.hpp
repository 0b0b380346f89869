/* Factorizations of diag matrices (factor/): MatGetFactor for every package
   aij has, ILU(0)/ICC(0) on the diagonals, QR of normal matrices. */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

/* factor/factor.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterSolverTypes_Private(void);

/* factor/factor_normal.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterNormalFactors_Private(const char *const[], int);

/* factor/factor_native.cpp */
/* Whether ILU/ICC of `package` on A may run on the diagonals (the petsc package, a sequential
   matrix, ILU or ICC, -mat_diag_native_factor): the part of the decision known at MatGetFactor */
PETSC_INTERN PetscErrorCode MatDiagFactorNativeMayApply_Private(Mat, const char *, MatFactorType, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagFactorNativeApplies_Private(Mat, Mat, const char *, MatFactorType, IS, IS, const MatFactorInfo *, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagFactorNativeSymbolic_Private(Mat, Mat, MatFactorType, const MatFactorInfo *);
