/* The preconditioners diag takes part in (pc/): PCMG's transfers and
   Galerkin products from a DMDA's formula, PCASM's subdomain blocks,
   PCCHEBYJACOBI. */
#pragma once

#include <petscmat.h>

#include "pdiag/format.hpp"

#include <petscpc.h>

#include "pdiag/transfer.hpp"

#include <vector>

struct Mat_Diag;
using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;

/* pc/chebyjacobi.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterChebyJacobi_Private(void);
PETSC_INTERN PetscErrorCode MatDiagChebyJacobiKeepInterval_Private(PC);

/* pc/galerkin_structured.cpp */
PETSC_INTERN PetscErrorCode MatDiagGalerkinStructuredSymbolic_Private(Mat, PetscBool *);

/* pc/mg.cpp */
PETSC_INTERN PetscErrorCode MatDiagMGTransferInPlace_Private(Mat, Mat, PetscBool *);
PETSC_INTERN PC             MatDiagMGInSetUp_Private(void);
PETSC_INTERN PetscErrorCode MatDiagRegisterMG_Private(void);

/* pc/mg_structured.cpp */
PETSC_INTERN PetscErrorCode MatDiagMGStructuredTransfer_Private(PC, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagMGQ1Interpolation_Private(Mat, pdiag::VertexGrids *, PetscBool *);

/* pc/asm.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterASM_Private(void);
