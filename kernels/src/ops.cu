// CUDA element-wise operations on the stored values of a diag block, for
// the MatScale / MatShift / MatAXPY of a matrix whose values live on the
// device (the CPU references are pdiag::scale_values and plain loops in
// pdiag/ops.hpp). One thread per value, grid capped and strided.
#include "pdiag/cuda.hpp"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;
constexpr Index kMaxBlocks = 65535;

unsigned grid_for(Index n) {
  const Index blocks = (n + kBlock - 1) / kBlock;
  return unsigned(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

template <class T>
__global__ void __launch_bounds__(kBlock) scale_kernel(T* val, Index n, T alpha) {
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += Index(gridDim.x) * kBlock) val[p] *= alpha;
}

template <class T>
__global__ void __launch_bounds__(kBlock) add_scalar_kernel(T* val, Index n, T alpha) {
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += Index(gridDim.x) * kBlock) val[p] += alpha;
}

template <class T>
__global__ void __launch_bounds__(kBlock) axpy_kernel(T* y, T alpha, const T* __restrict__ x, Index n) {
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += Index(gridDim.x) * kBlock) y[p] += alpha * x[p];
}

}  // namespace

template <class T>
cudaError_t scale_values(T* val, Index n, nodeduce_t<T> alpha, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  scale_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(val, n, alpha);
  return cudaGetLastError();
}

template <class T>
cudaError_t add_scalar(T* val, Index n, nodeduce_t<T> alpha, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  add_scalar_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(val, n, alpha);
  return cudaGetLastError();
}

template <class T>
cudaError_t axpy_values(T* y, nodeduce_t<T> alpha, const nodeduce_t<T>* x, Index n, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  axpy_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(y, alpha, x, n);
  return cudaGetLastError();
}

#define PDIAG_OPS_INSTANTIATE(T)                                                        \
  template cudaError_t scale_values<T>(T*, Index, T, cudaStream_t);                     \
  template cudaError_t add_scalar<T>(T*, Index, T, cudaStream_t);                       \
  template cudaError_t axpy_values<T>(T*, T, const T*, Index, cudaStream_t);
PDIAG_OPS_INSTANTIATE(double)
PDIAG_OPS_INSTANTIATE(float)
#undef PDIAG_OPS_INSTANTIATE

}  // namespace pdiag::cuda
