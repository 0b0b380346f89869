/* The GPU phases of diag products (device/product.cpp), reached from
   products/ through core/device_hooks.hpp. */
#pragma once

#include "device/device.hpp"

#include "pdiag/product.hpp"

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
