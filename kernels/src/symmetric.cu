// The symmetric HM kernels (CPU references in pdiag/symmetric.hpp): one
// thread per entry, grid capped and strided. The product reads the main and
// upper diagonals at i and, for the lower terms, at i - d: the second
// stream trails the first by d entries, which the L2 cache still holds for
// a 3D stencil's largest offset (nx ny entries), so the values move once.
#include "pdiag/symmetric_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;

// blockIdx.y: the pair; x: its entries.
template <class T>
__global__ void __launch_bounds__(kBlock) hm_values_symmetric_kernel(SymmetricHmView<T> S, real_t<T> rtol, int* mismatch) {
  const int k = int(blockIdx.y);
  const Index len = S.n - S.offset[k];
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index j = Index(blockIdx.x) * kBlock + threadIdx.x; j < len; j += stride)
    if (!symmetric_pair(S.upper[k][j], S.lower[k][j], rtol)) *mismatch = 1;
}

template <class T>
__global__ void __launch_bounds__(kBlock) hm_spmv_symmetric_kernel(SymmetricHmView<T> S, const T* __restrict__ x, T* y, T alpha, const T* z) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index i = Index(blockIdx.x) * kBlock + threadIdx.x; i < S.n; i += stride) y[i] = symmetric_spmv_entry(S, i, x, alpha, z);
}

}  // namespace

template <class T>
cudaError_t hm_values_symmetric(const SymmetricHmView<T>& S, real_t<T> rtol, int* mismatch, cudaStream_t stream) {
  if (S.n <= 0 || S.npairs <= 0) return cudaSuccess;
  const dim3 grid(grid::blocks_for(S.n, kBlock), unsigned(S.npairs));
  hm_values_symmetric_kernel<T><<<grid, kBlock, 0, stream>>>(S, rtol, mismatch);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_spmv_symmetric(const SymmetricHmView<T>& S, const T* x, T* y, nodeduce_t<T> alpha, const nodeduce_t<T>* z, cudaStream_t stream) {
  if (S.n <= 0) return cudaSuccess;
  hm_spmv_symmetric_kernel<T><<<grid::blocks_for(S.n, kBlock), kBlock, 0, stream>>>(S, x, y, alpha, z);
  return cudaGetLastError();
}

#define PDIAG_INSTANTIATE_SYMMETRIC(T)                                                          \
  template cudaError_t hm_values_symmetric<T>(const SymmetricHmView<T>&, real_t<T>, int*, cudaStream_t); \
  template cudaError_t hm_spmv_symmetric<T>(const SymmetricHmView<T>&, const T*, T*, T, const T*, cudaStream_t);
PDIAG_INSTANTIATE_SYMMETRIC(float)
PDIAG_INSTANTIATE_SYMMETRIC(double)
#undef PDIAG_INSTANTIATE_SYMMETRIC

}  // namespace pdiag::cuda
