/* The native ILU(0) / ICC(0) factor on the GPU (device/factor.cpp), reached
   from factor/factor_native.cpp through core/device_hooks.hpp. */
#pragma once

#include "device/device.hpp"

#include "pdiag/factor.hpp"
#include "pdiag/factor_levels.hpp"

/* Whether a solve with these vectors runs on the device (both CUDA, neither bound to the CPU). */
PETSC_INTERN PetscBool MatDiagFactorDeviceWantedCUDA_Private(Vec, Vec);
/* x = op(F)^{-1} b on the device (*done); *dev created on first use;
   *stale: the host factor changed since the last upload (cleared here).
   Not done when the solve's steps average fewer rows than
   -mat_diag_device_level_rows: the caller solves on the host. */
PETSC_INTERN PetscErrorCode MatDiagFactorDeviceSolve_Private(Mat, DiagFactorDevice **, const Hm &, const DiagFactorPattern &, PetscBool *, pdiag::FactorSolve, Vec, Vec, PetscBool *);
/* After a numeric factorization of A: the upload and schedules of the solve
   `what` done now (in the PC's set-up, as aijcusparse factors there) when A
   expects CUDA vectors (MatDiagWantsDevice_Private: diagcuda, a CUDA
   default vector type, a DM with CUDA vectors); otherwise nothing (the
   first device solve does it). */
PETSC_INTERN PetscErrorCode MatDiagFactorDevicePrepare_Private(Mat, Mat, DiagFactorDevice **, const Hm &, const DiagFactorPattern &, PetscBool *, pdiag::FactorSolve);
/* The numeric ILU(0) (ilu) or ICC(0) factorization of A's values `a` into
   the factor storage `factor` (plan, pattern: factor/factor_native.cpp's) on
   the device, when A expects CUDA vectors and -mat_diag_device_ilu_numeric is
   not false: *done then tells whether it gave the factor (left on the
   device and in `factor` on the host; *stale cleared). Not done: a pivot
   needs PETSc's shift policy (the caller factors on the host, as without a
   device), or A's vectors are the host's. The factorization's schedule is
   rebuilt when the pattern's version changed. */
PETSC_INTERN PetscErrorCode MatDiagFactorDeviceNumeric_Private(Mat, Mat, DiagFactorDevice **, const pdiag::HmView<const PetscScalar> &, Hm &, const pdiag::HmFactorPlan &, const DiagFactorPattern &, PetscBool, const MatFactorInfo *, PetscBool, PetscBool *, PetscBool *, PetscBool *, PetscBool *);
/* The device factor's values into the host copy (after a factorization on the device, for a host solve). */
PETSC_INTERN PetscErrorCode MatDiagFactorDeviceDownload_Private(DiagFactorDevice *, Hm &);
/* Frees the device copy (null: nothing); errors are ignored (called from a destructor). */
PETSC_INTERN void MatDiagFactorDeviceDestroy_Private(DiagFactorDevice *);
/* The smallest and largest magnitude on the diagonal of U of a dense LU
   factor computed on the device (PETSc's "cuda" package, seqdensecuda):
   its pivots, n values copied to the host. */
PETSC_INTERN PetscErrorCode MatDiagDenseFactorPivots_Private(Mat, PetscReal *, PetscReal *);
