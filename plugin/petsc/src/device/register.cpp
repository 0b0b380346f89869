/* The device layer's registration: the diagcuda types and the table of
   entry points that host code reaches the device through
   (core/device_hooks.hpp). Called once by MatDiagRegisterAll() in builds
   against a CUDA-enabled PETSc. */
#include "device/device.hpp"
#include "device/factor.hpp"
#include "device/product.hpp"

namespace {

/*MC
   MATDIAGCUDA - "diagcuda" - `MATDIAG` whose `MatCreateVecs()` hands out CUDA vectors, so
   products run on the GPU; resolves to "seqdiagcuda" or "mpidiagcuda". A `MATDIAG` matrix
   multiplied with CUDA vectors runs on the GPU too; `MatBindToCPU()` keeps either on the host.

   Level: beginner

.seealso: `MATDIAG`
M*/
PetscErrorCode MatCreate_SeqDiagCUDA(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCreateNamed_Private(A, MATSEQDIAGCUDA));
  PetscCall(MatDiagDeviceCreate_Private(A, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreate_MPIDiagCUDA(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCreateNamed_Private(A, MATMPIDIAGCUDA));
  PetscCall(MatDiagDeviceCreate_Private(A, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode RegisterTypes(void)
{
  PetscFunctionBegin;
  PetscCall(MatRegister(MATSEQDIAGCUDA, MatCreate_SeqDiagCUDA));
  PetscCall(MatRegister(MATMPIDIAGCUDA, MatCreate_MPIDiagCUDA));
  PetscCall(MatRegisterRootName(MATDIAGCUDA, MATSEQDIAGCUDA, MATMPIDIAGCUDA));
  PetscFunctionReturn(0);
}

DiagDeviceOps MakeOps()
{
  DiagDeviceOps o{};
  o.register_types = RegisterTypes;

  o.vec_on_device = MatDiagVecOnDeviceCUDA_Private;
  o.use_device    = MatDiagUseDeviceCUDA_Private;
  o.wants_device  = MatDiagWantsDeviceCUDA_Private;
  o.on_device     = MatDiagOnDeviceCUDA_Private;

  o.create         = MatDiagDeviceCreate_Private;
  o.destroy        = MatDiagDeviceDestroy_Private;
  o.ghost_reset    = MatDiagDeviceGhostReset_Private;
  o.values_changed = MatDiagDeviceValuesChanged_Private;
  o.bytes          = MatDiagDeviceBytes_Private;

  o.sync_host          = MatDiagSyncHost_Private;
  o.sync_host_data     = MatDiagSyncHostData_Private;
  o.host_values_ensure = MatDiagHostValuesEnsure_Private;
  o.assembly_end       = MatDiagDeviceAssemblyEnd_Private;

  o.values            = MatDiagDeviceValues_Private;
  o.entries           = MatDiagDeviceEntries_Private;
  o.output            = MatDiagDeviceOutput_Private;
  o.values_written    = MatDiagDeviceValuesWritten_Private;
  o.compress_computed = MatDiagDeviceCompressComputed_Private;
  o.values_symmetric  = MatDiagDeviceValuesSymmetric_Private;

  o.mult           = MatMultKernel_DiagCUDA;
  o.mult_transpose = MatMultTransposeKernel_DiagCUDA;
  o.residual       = MatResidual_DiagCUDA;
  o.ghost_exchange = MatDiagGhostExchangeDevice_Private;
  o.scale          = MatDiagScaleDevice_Private;
  o.shift          = MatDiagShiftDevice_Private;
  o.get_diagonal   = MatDiagGetDiagonalDevice_Private;
  o.axpy           = MatDiagAXPYDevice_Private;
  o.diagonal_scale = MatDiagDiagonalScaleDevice_Private;
  o.zero_rows      = MatDiagZeroRowsDevice_Private;
  o.set_values_coo = MatDiagSetValuesCOODevice_Private;

  o.sor_wanted = MatDiagSORDeviceWantedCUDA_Private;
  o.sor        = MatSOR_SeqDiagCUDA;

  o.arrays = {VecCUDAGetArrayRead, VecCUDARestoreArrayRead, VecCUDAGetArray, VecCUDARestoreArray, VecCUDAGetArrayWrite, VecCUDARestoreArrayWrite, VecCreateSeqCUDAWithArray};

  o.factor_wanted       = MatDiagFactorDeviceWantedCUDA_Private;
  o.factor_solve        = MatDiagFactorDeviceSolve_Private;
  o.factor_prepare      = MatDiagFactorDevicePrepare_Private;
  o.factor_numeric      = MatDiagFactorDeviceNumeric_Private;
  o.factor_download     = MatDiagFactorDeviceDownload_Private;
  o.factor_destroy      = MatDiagFactorDeviceDestroy_Private;
  o.dense_factor_pivots = MatDiagDenseFactorPivots_Private;

  o.product_symbolic      = MatDiagDeviceProductSymbolic_Private;
  o.product_destroy       = MatDiagDeviceProductDestroy_Private;
  o.product_numeric       = MatDiagDeviceProductNumeric_Private;
  o.product_gather        = MatDiagDeviceGather_Private;
  o.product_operand       = MatDiagDeviceOperand_Private;
  o.product_numeric_views = MatDiagDeviceProductNumericViews_Private;
  o.dense_create          = MatDiagDeviceDenseCreate_Private;
  o.dense_destroy         = MatDiagDeviceDenseDestroy_Private;
  o.spmm                  = MatDiagDeviceSpMM_Private;

  o.galerkin_symbolic = MatDiagGalerkinDeviceSymbolic_Private;
  o.galerkin_q1       = MatDiagGalerkinQ1Device_Private;
  o.free_word         = MatDiagFreeWordDevice_Private;
  o.q1_transfer       = MatDiagQ1TransferDevice_Private;

  o.jacobi_inverse        = MatDiagJacobiInverseDevice_Private;
  o.cheby_step_symmetric  = MatDiagChebyStepSymmetricDevice_Private;
  o.cheby_step_compressed = MatDiagChebyStepCompressedDevice_Private;
  o.cheby_update          = MatDiagChebyUpdateDevice_Private;
  return o;
}

} // namespace

PetscErrorCode MatDiagRegisterDevice_Private(void)
{
  static const DiagDeviceOps ops = MakeOps();

  PetscFunctionBegin;
  MatDiagDeviceOps_Private = &ops;
  PetscCall(ops.register_types());
  PetscFunctionReturn(0);
}
