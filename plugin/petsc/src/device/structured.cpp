/* The device side of PCMG's structured paths (pc/mg_structured.cpp,
   pc/galerkin_structured.cpp): a DMDA's Q1 interpolation applied from its
   formula, and the Galerkin product P^T A P from the formula and A's
   device diagonals (kernels/src/transfer.cu, galerkin_q1.cu). */
#include "device/device.hpp"

#include "pdiag/galerkin_q1_cuda.hpp"
#include "pdiag/transfer_cuda.hpp"

/* y = P x + z or y = P^T x + z (z may be null or y) from the formula, on
   device arrays. */
PetscErrorCode MatDiagQ1TransferDevice_Private(const pdiag::VertexGrids &g, bool transpose, const PetscScalar *x, PetscScalar *y, const PetscScalar *z, PetscLogDouble flops)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  if (transpose) DiagCallCUDA(pdiag::cuda::vertex_q1_restrict(g, x, y, z, PetscDefaultCudaStream));
  else DiagCallCUDA(pdiag::cuda::vertex_q1_prolong(g, x, y, z, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscFunctionReturn(0);
}

/* C's values on the device from A's device diagonals; *ok false when a
   nonzero of A couples fine points more than one apart. *failed: the
   device word the kernel reports that in (allocated on first use). */
PetscErrorCode MatDiagGalerkinQ1Device_Private(Mat C, Mat A, const pdiag::VertexGrids &g, const pdiag::Q1Places &places, unsigned **failed, PetscBool *ok)
{
  Mat_Diag                            *a = (Mat_Diag *)A->data, *c = (Mat_Diag *)C->data;
  const Index                         *meta;
  const PetscScalar                   *aval;
  PetscScalar                         *cval;
  PetscBool                            compressed;
  pdiag::HmCompressedView<PetscScalar> cview;
  unsigned                             host = 0;

  PetscFunctionBegin;
  if (!*failed) DiagCallCUDA(cudaMalloc((void **)failed, sizeof(unsigned)));
  PetscCall(MatDiagDeviceEntries_Private(A, &compressed, &cview, &meta, &aval)); /* a constant-coefficient operator's compressed form as it is */
  const DiagDevice &da = MatDiagDev(A);
  PetscCheck(da.hm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: a Galerkin product from the formula needs the operator's HM storage on the device");
  const pdiag::HmView<const PetscScalar> in{a->layout, da.nd, MatDiagDevOffsets(da), MatDiagDevStart(da), aval};
  PetscCall(MatDiagDeviceOutput_Private(C, &meta, &cval));
  const DiagDevice                &dc = MatDiagDev(C);
  const pdiag::HmView<PetscScalar> out{c->layout, dc.nd, MatDiagDevOffsets(dc), MatDiagDevStart(dc), cval};
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(cudaMemsetAsync(*failed, 0, sizeof(unsigned), PetscDefaultCudaStream));
  if (compressed) DiagCallCUDA(pdiag::cuda::vertex_q1_galerkin(g, cview, places, out, *failed, PetscDefaultCudaStream));
  else DiagCallCUDA(pdiag::cuda::vertex_q1_galerkin(g, in, places, out, *failed, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  DiagCallCUDA(cudaMemcpyAsync(&host, *failed, sizeof(host), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
  DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
  *ok = host ? PETSC_FALSE : PETSC_TRUE;
  if (!*ok) PetscFunctionReturn(0);
  PetscCall(MatDiagDeviceValuesWritten_Private(C));
  PetscCall(MatDiagDeviceCompressComputed_Private(C)); /* as an upload would: constant diagonals compressed */
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFreeWordDevice_Private(unsigned **word)
{
  PetscFunctionBegin;
  if (*word) DiagCallCUDA(cudaFree(*word));
  *word = nullptr;
  PetscFunctionReturn(0);
}
