/* KSPSetDMInactive: the KSP keeps its DM for the grid hierarchy (PCMG's
   interpolation, DMKSPSetComputeOperators on the coarser grids) but does not
   use it to compute the operator, right-hand side or initial guess, which the
   program assembles itself. PETSc 3.25 changed KSPSetDMActive's arguments
   (what to deactivate, then the flag); both forms mean the same here. */
#pragma once

#include <petscksp.h>

inline PetscErrorCode KSPSetDMInactive(KSP ksp)
{
#if PETSC_VERSION_LT(3, 25, 0)
  return KSPSetDMActive(ksp, PETSC_FALSE);
#else
  return KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, PETSC_FALSE);
#endif
}
