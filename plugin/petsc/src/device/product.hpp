/* The GPU phases of diag products (device/product.cpp), called
   by products/product.cpp. In CPU builds the functions are stubs that are never
   reached: MatDiagOnDevice_Private() is false there. */
#pragma once

#include "core/mat_diag.hpp"

#include "pdiag/product.hpp"

/* -mat_product_algorithm: the default and the paper's two algorithms */
enum MatDiagProductVariant {
  MAT_DIAG_PRODUCT_OUTPUT_STATIONARY = 0, /* "diag" */
  MAT_DIAG_PRODUCT_ATOMIC            = 1, /* "diag_atomic": Algorithm 2 */
  MAT_DIAG_PRODUCT_TILED             = 2  /* "diag_tiled": Algorithm 1 (CDM) */
};

struct DiagDeviceProduct; /* the device plan and staging buffers */
struct DiagDeviceDense;   /* MPI: the device gather of a dense operand's rows */

#if defined(PDIAG_PETSC_CUDA)
PETSC_INTERN PetscErrorCode MatDiagDeviceProductCreate_Private(const pdiag::HmProductPlan &, DiagDeviceProduct **);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductSymbolic_Private(const pdiag::Layout &, const std::vector<Index> &, pdiag::Trans, const pdiag::Layout &, const std::vector<Index> &, pdiag::Trans, pdiag::HmProductPlan *, DiagDeviceProduct **);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductDestroy_Private(DiagDeviceProduct **);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductNumeric_Private(DiagDeviceProduct *, const pdiag::HmProductPlan &, Mat, pdiag::Trans, Mat, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble);
PETSC_INTERN PetscErrorCode MatDiagDeviceGather_Private(DiagDeviceProduct *, int, Mat, VecScatter, const Hm &, pdiag::HmView<const PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagDeviceOperand_Private(DiagDeviceProduct *, Mat, pdiag::HmView<const PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagDeviceProductNumericViews_Private(DiagDeviceProduct *, const pdiag::HmProductPlan &, const pdiag::HmView<const PetscScalar> &, pdiag::Trans, const pdiag::HmView<const PetscScalar> &, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble);
PETSC_INTERN PetscErrorCode MatDiagDeviceDenseCreate_Private(MPI_Comm, PetscInt, Index, Index, const std::vector<Index> &, DiagDeviceDense **);
PETSC_INTERN PetscErrorCode MatDiagDeviceDenseDestroy_Private(DiagDeviceDense **);
PETSC_INTERN PetscErrorCode MatDiagDeviceSpMM_Private(Mat, Mat, Mat, VecScatter, DiagDeviceDense *);
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
static inline PetscErrorCode MatDiagDeviceGather_Private(DiagDeviceProduct *, int, Mat, VecScatter, const Hm &, pdiag::HmView<const PetscScalar> *)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceOperand_Private(DiagDeviceProduct *, Mat, pdiag::HmView<const PetscScalar> *)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceProductNumericViews_Private(DiagDeviceProduct *, const pdiag::HmProductPlan &, const pdiag::HmView<const PetscScalar> &, pdiag::Trans, const pdiag::HmView<const PetscScalar> &, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceDenseCreate_Private(MPI_Comm, PetscInt, Index, Index, const std::vector<Index> &, DiagDeviceDense **)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatDiagDeviceDenseDestroy_Private(DiagDeviceDense **)
{
  return 0;
}
static inline PetscErrorCode MatDiagDeviceSpMM_Private(Mat, Mat, Mat, VecScatter, DiagDeviceDense *)
{
  return PETSC_ERR_SUP;
}
#endif
