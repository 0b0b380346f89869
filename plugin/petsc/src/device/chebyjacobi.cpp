/* PCCHEBYJACOBI's steps on the device (pc/chebyjacobi.cpp decides which
   step runs; kernels/src/chebyshev.cu computes it). */
#include "device/device.hpp"

#include "pdiag/chebyshev_cuda.hpp"

/* d = 1 / d, 1 where d is zero (as PCJACOBI); *zeros: how many were. */
PetscErrorCode MatDiagJacobiInverseDevice_Private(Vec dinv, PetscReal *zeros)
{
  PetscScalar        *d;
  unsigned long long *count, host = 0;
  PetscInt            n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(dinv, &n));
  DiagCallCUDA(cudaMallocAsync((void **)&count, sizeof(*count), PetscDefaultCudaStream));
  DiagCallCUDA(cudaMemsetAsync(count, 0, sizeof(*count), PetscDefaultCudaStream));
  PetscCall(VecCUDAGetArray(dinv, &d));
  DiagCallCUDA(pdiag::cuda::jacobi_inverse((Index)n, d, count, PetscDefaultCudaStream));
  PetscCall(VecCUDARestoreArray(dinv, &d));
  DiagCallCUDA(cudaMemcpyAsync(&host, count, sizeof(host), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
  DiagCallCUDA(cudaFreeAsync(count, PetscDefaultCudaStream));
  DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
  *zeros = (PetscReal)host;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagChebyStepSymmetricDevice_Private(const pdiag::SymmetricHmView<PetscScalar> &S, PetscScalar a, const PetscScalar *xc, PetscScalar b, const PetscScalar *xo, PetscScalar g, const PetscScalar *r, PetscScalar *xn, PetscLogDouble flops)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(pdiag::cuda::chebyshev_jacobi_step_symmetric(S, a, xc, b, xo, g, r, xn, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagChebyStepCompressedDevice_Private(const pdiag::HmCompressedView<PetscScalar> &A, PetscScalar a, const PetscScalar *xc, PetscScalar b, const PetscScalar *xo, PetscScalar g, const PetscScalar *d, const PetscScalar *r, PetscScalar *xn, PetscLogDouble flops)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(pdiag::cuda::chebyshev_jacobi_step_compressed(A, a, xc, b, xo, g, d, r, xn, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagChebyUpdateDevice_Private(Index n, PetscScalar a, const PetscScalar *xc, PetscScalar b, const PetscScalar *xo, PetscScalar g, const PetscScalar *d, const PetscScalar *r, const PetscScalar *w, PetscScalar *xn, PetscLogDouble flops)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(pdiag::cuda::chebyshev_jacobi_update(n, a, xc, b, xo, g, d, r, w, xn, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscFunctionReturn(0);
}
