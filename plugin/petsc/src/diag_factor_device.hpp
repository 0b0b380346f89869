/* The native ILU(0) / ICC(0) factor's solves on the GPU
   (diag_factor_device.cpp, CUDA builds), called by diag_factor_native.cpp;
   in CPU builds the stubs below keep every solve on the host. */
#pragma once

#include "diag_impl.hpp"

#include "pdiag/factor_levels.hpp"

/* The factor's device copy: its diagonals and level schedules. */
struct DiagFactorDevice;

#if defined(PDIAG_PETSC_CUDA)
/* Whether a solve with these vectors runs on the device (both CUDA, neither bound to the CPU). */
PETSC_INTERN PetscBool MatDiagFactorDeviceWanted_Private(Vec, Vec);
/* x = op(F)^{-1} b on the device; *dev created on first use; *stale: the
   host factor changed since the last upload (cleared here). */
PETSC_INTERN PetscErrorCode MatDiagFactorDeviceSolve_Private(Mat, DiagFactorDevice **, const Hm &, PetscBool *, pdiag::FactorSolve, Vec, Vec);
/* After a numeric factorization of A: the upload and schedules of the solve
   `what` done now (in the PC's set-up, as aijcusparse factors there) when A
   expects CUDA vectors (MatDiagWantsDevice_Private: diagcuda, a CUDA
   default vector type, a DM with CUDA vectors); otherwise nothing (the
   first device solve does it). */
PETSC_INTERN PetscErrorCode MatDiagFactorDevicePrepare_Private(Mat, Mat, DiagFactorDevice **, const Hm &, PetscBool *, pdiag::FactorSolve);
/* Frees the device copy (null: nothing); errors are ignored (called from a destructor). */
PETSC_INTERN void MatDiagFactorDeviceDestroy_Private(DiagFactorDevice *);
#else
static inline PetscErrorCode MatDiagFactorDevicePrepare_Private(Mat, Mat, DiagFactorDevice **, const Hm &, PetscBool *, pdiag::FactorSolve)
{
  return 0;
}
static inline PetscBool MatDiagFactorDeviceWanted_Private(Vec, Vec)
{
  return PETSC_FALSE;
}
static inline PetscErrorCode MatDiagFactorDeviceSolve_Private(Mat, DiagFactorDevice **, const Hm &, PetscBool *, pdiag::FactorSolve, Vec, Vec)
{
  return PETSC_ERR_SUP;
}
static inline void MatDiagFactorDeviceDestroy_Private(DiagFactorDevice *) { }
#endif
