/* interpose/aij_only.cpp: the PCs, colorings and orderings that accept only
   aij matrices get a diag matrix's aij copy. */
#pragma once

#include <petscmat.h>

PETSC_INTERN PetscErrorCode MatDiagRegisterPCs_Private(void);
