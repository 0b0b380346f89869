/* The GPU phases of diag products (diag_product_device.cpp), called
   by diag_product.cpp. In CPU builds the functions are stubs that are never
   reached: MatDiagOnDevice_Private() is false there. */
#pragma once

#include "diag_impl.hpp"

#include "pdiag/product.hpp"

/* -mat_product_algorithm: the default and the paper's two algorithms */
enum MatDiagProductVariant {
  MAT_DIAG_PRODUCT_OUTPUT_STATIONARY = 0, /* "diag" */
  MAT_DIAG_PRODUCT_ATOMIC            = 1, /* "diag_atomic": Algorithm 2 */
  MAT_DIAG_PRODUCT_TILED             = 2  /* "diag_tiled": Algorithm 1 (CDM) */
};

struct DiagDeviceProduct; /* the device plan and staging buffers */

#if defined(PDIAG_PETSC_CUDA)
PETSC_INTERN PetscErrorCode MatDiagDeviceProductCreate_Private(const pdiag::HmProductPlan &, DiagDeviceProduct **);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductSymbolic_Private(const pdiag::Layout &, const std::vector<Index> &, pdiag::Trans, const pdiag::Layout &, const std::vector<Index> &, pdiag::Trans, pdiag::HmProductPlan *, DiagDeviceProduct **);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductDestroy_Private(DiagDeviceProduct **);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductNumeric_Private(DiagDeviceProduct *, const pdiag::HmProductPlan &, Mat, pdiag::Trans, Mat, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble);
PETSC_INTERN PetscErrorCode MatDiagDeviceSpMM_Private(Mat, Mat, Mat);
#else
static inline PetscErrorCode MatDiagDeviceProductCreate_Private(const pdiag::HmProductPlan &, DiagDeviceProduct **)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceProductSymbolic_Private(const pdiag::Layout &, const std::vector<Index> &, pdiag::Trans, const pdiag::Layout &, const std::vector<Index> &, pdiag::Trans, pdiag::HmProductPlan *, DiagDeviceProduct **)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceProductDestroy_Private(DiagDeviceProduct **)
{
  return 0;
}
static inline PetscErrorCode MatDiagDeviceProductNumeric_Private(DiagDeviceProduct *, const pdiag::HmProductPlan &, Mat, pdiag::Trans, Mat, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceSpMM_Private(Mat, Mat, Mat)
{
  return PETSC_ERR_SUP;
}
#endif
