// Chebyshev/Jacobi smoothing steps on the device (CPU references in
// pdiag/chebyshev.hpp): one thread per entry, grid capped and strided. The
// update reads at most five vectors and writes one, so it runs at the
// device's copy bandwidth; its arithmetic is the reference's, to rounding
// (each element is computed by the reference's own entry function; the
// compiler may fuse a multiply and an add).
#include "pdiag/chebyshev_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;

template <class T>
__global__ void __launch_bounds__(kBlock)
    chebyshev_jacobi_update_kernel(Index n, T a, const T* __restrict__ x_cur, T b, const T* x_old, T g, const T* __restrict__ dinv,
                                   const T* __restrict__ rhs, const T* __restrict__ ax, T* x_new) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index i = Index(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) x_new[i] = chebyshev_jacobi_entry(i, a, x_cur, b, x_old, g, dinv, rhs, ax);
}

template <class T>
__global__ void __launch_bounds__(kBlock) jacobi_inverse_kernel(Index n, T* d, unsigned long long* zeros) {
  const Index stride = Index(gridDim.x) * kBlock;
  unsigned long long mine = 0;
  for (Index i = Index(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) mine += jacobi_inverse_entry(d[i]) ? 1 : 0;
  if (zeros && mine) atomicAdd(zeros, mine);
}

// One thread a row (grid-strided). The upper diagonals are read at i and
// at i - d: the second stream trails the first by d entries, which the L2
// cache still holds for a 3D stencil's largest offset (nx ny entries).
template <class T>
__global__ void __launch_bounds__(kBlock) chebyshev_jacobi_step_symmetric_kernel(SymmetricHmView<T> S, T a, const T* __restrict__ x_cur, T b, const T* x_old, T g,
                                                                                 const T* __restrict__ rhs, T* x_new) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index i = Index(blockIdx.x) * kBlock + threadIdx.x; i < S.n; i += stride) x_new[i] = chebyshev_jacobi_symmetric_entry(S, i, a, x_cur, b, x_old, g, rhs);
}

}  // namespace

template <class T>
cudaError_t chebyshev_jacobi_step_symmetric(const SymmetricHmView<T>& S, T a, const T* x_cur, T b, const T* x_old, T g, const T* rhs, T* x_new,
                                            cudaStream_t stream) {
  if (S.n <= 0) return cudaSuccess;
  chebyshev_jacobi_step_symmetric_kernel<T><<<grid::blocks_for(S.n, kBlock), kBlock, 0, stream>>>(S, a, x_cur, b, x_old, g, rhs, x_new);
  return cudaGetLastError();
}

template <class T>
cudaError_t chebyshev_jacobi_update(Index n, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, const T* ax, T* x_new,
                                    cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  chebyshev_jacobi_update_kernel<T><<<grid::blocks_for(n, kBlock), kBlock, 0, stream>>>(n, a, x_cur, b, x_old, g, dinv, rhs, ax, x_new);
  return cudaGetLastError();
}

template <class T>
cudaError_t jacobi_inverse(Index n, T* d, unsigned long long* zeros, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  jacobi_inverse_kernel<T><<<grid::blocks_for(n, kBlock), kBlock, 0, stream>>>(n, d, zeros);
  return cudaGetLastError();
}

#define PDIAG_INSTANTIATE_CHEBYSHEV(T)                                                                                                       \
  template cudaError_t chebyshev_jacobi_update<T>(Index, T, const T*, T, const T*, T, const T*, const T*, const T*, T*, cudaStream_t); \
  template cudaError_t jacobi_inverse<T>(Index, T*, unsigned long long*, cudaStream_t);                                                 \
  template cudaError_t chebyshev_jacobi_step_symmetric<T>(const SymmetricHmView<T>&, T, const T*, T, const T*, T, const T*, T*, cudaStream_t);
PDIAG_INSTANTIATE_CHEBYSHEV(float)
PDIAG_INSTANTIATE_CHEBYSHEV(double)
#undef PDIAG_INSTANTIATE_CHEBYSHEV

}  // namespace pdiag::cuda
