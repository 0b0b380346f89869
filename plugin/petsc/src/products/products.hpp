/* MatProduct of diag matrices (products/): the type's product operations,
   the products computed through the aij copy, Galerkin results. */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

/* products/product_companion.cpp */
PETSC_INTERN PetscErrorCode MatDiagProductViaCompanion_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagProductToDiag_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagGalerkinResultSetUp_Private(Mat, Mat, Mat);
PETSC_INTERN PetscErrorCode MatDiagGalerkinResultSetUpSized_Private(Mat, Mat, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode MatDiagGalerkinGeneralSymbolic_Private(Mat);

/* products/product.cpp */
PETSC_INTERN PetscErrorCode MatDiagSetProductOps_Private(Mat);
