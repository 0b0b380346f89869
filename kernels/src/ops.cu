// CUDA operations on the stored values of a diag block, for the MatScale /
// MatShift / MatAXPY / MatDiagonalScale / MatZeroRows of a matrix whose
// values live on the device (the CPU references are pdiag::scale_values,
// hm_diagonal_scale / cdm_diagonal_scale (pdiag/cpu.hpp), zero_rows and
// set_scaled_entries (pdiag/ops.hpp)). Element-wise: one thread per value;
// per diagonal: blockIdx.y strides over the stored diagonals, x over rows;
// grids capped and strided.
#include "pdiag/ops_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;

using grid::capped_blocks;

unsigned grid_for(Index n) { return grid::blocks_for(n, kBlock); }

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

// a(i, j) *= l[i - row_begin], then *= r[...] (the CPU reference's two
// roundings). r is read as the x of hm_spmv / cdm_spmv: at il + shift[k]
// (CDM: shift[k] above the wrap, shift[nd + k] below), or with a null shift
// at the global column.
template <class T>
__global__ void __launch_bounds__(kBlock)
    hm_diagonal_scale_kernel(HmView<T> A, const T* __restrict__ l, const T* __restrict__ r, const Index* __restrict__ shift) {
  const Layout L = A.layout;
  for (Index k = blockIdx.y; k < A.ndiag; k += gridDim.y) {
    const Index d = A.offsets[k];
    const Index b = L.lo(d) - L.row_begin, e = L.hi(d) - L.row_begin;
    const Index s = shift ? shift[k] : L.row_begin + d;
    T* const v = A.val + (A.start[k] - b);
    for (Index il = b + Index(blockIdx.x) * kBlock + threadIdx.x; il < e; il += Index(gridDim.x) * kBlock) {
      T a = v[il];
      if (l) a *= l[il];
      if (r) a *= r[il + s];
      v[il] = a;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    cdm_diagonal_scale_kernel(CdmView<T> A, const T* __restrict__ l, const T* __restrict__ r, const Index* __restrict__ shift) {
  const Layout L = A.layout;
  for (Index k = blockIdx.y; k < A.ndiag; k += gridDim.y) {
    const Index kk = A.koffsets[k];
    const Index wrap = L.ncols - kk - L.row_begin; /* local rows below it are on the sub diagonal kk - N */
    const Index above = shift ? shift[k] : L.row_begin + kk, below = shift ? shift[A.ndiag + k] : L.row_begin + kk - L.ncols;
    T* const v = A.val + k * L.nrows;
    for (Index il = Index(blockIdx.x) * kBlock + threadIdx.x; il < L.nrows; il += Index(gridDim.x) * kBlock) {
      T a = v[il];
      if (l) a *= l[il];
      if (r) a *= r[il + (il < wrap ? above : below)];
      v[il] = a;
    }
  }
}

// rows[q] (global rows of the block): every stored entry 0, a(i, i) = diag
template <class T>
__global__ void __launch_bounds__(kBlock) hm_zero_rows_kernel(HmView<T> A, const Index* __restrict__ rows, Index n, T diag) {
  const Layout L = A.layout;
  for (Index k = blockIdx.y; k < A.ndiag; k += gridDim.y) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < n; q += Index(gridDim.x) * kBlock) {
      const Index i = rows[q];
      if (i >= lo && i < hi) A.val[A.start[k] + i - lo] = d == 0 ? diag : T(0);
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kBlock) cdm_zero_rows_kernel(CdmView<T> A, const Index* __restrict__ rows, Index n, T diag) {
  const Layout L = A.layout;
  for (Index k = blockIdx.y; k < A.ndiag; k += gridDim.y) {
    const bool main = A.koffsets[k] == 0;
    for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < n; q += Index(gridDim.x) * kBlock)
      A.val[k * L.nrows + rows[q] - L.row_begin] = main ? diag : T(0);
  }
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    set_scaled_kernel(T* dst, const T* __restrict__ src, const Index* __restrict__ rows, Index n, T alpha) {
  for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < n; q += Index(gridDim.x) * kBlock)
    dst[rows[q]] = alpha * src[rows[q]];
}

}  // namespace

template <class T>
cudaError_t hm_diagonal_scale(const HmView<T>& A, const nodeduce_t<T>* l, const nodeduce_t<T>* r, const Index* shift, cudaStream_t stream) {
  if (A.ndiag < 0 || A.layout.nrows < 0) return cudaErrorInvalidValue;
  if (A.ndiag == 0 || A.layout.nrows == 0 || (!l && !r)) return cudaSuccess;
  hm_diagonal_scale_kernel<T><<<dim3(grid_for(A.layout.nrows), capped_blocks(A.ndiag)), kBlock, 0, stream>>>(A, l, r, shift);
  return cudaGetLastError();
}

template <class T>
cudaError_t cdm_diagonal_scale(const CdmView<T>& A, const nodeduce_t<T>* l, const nodeduce_t<T>* r, const Index* shift, cudaStream_t stream) {
  if (A.ndiag < 0 || A.layout.nrows < 0) return cudaErrorInvalidValue;
  if (A.ndiag == 0 || A.layout.nrows == 0 || (!l && !r)) return cudaSuccess;
  cdm_diagonal_scale_kernel<T><<<dim3(grid_for(A.layout.nrows), capped_blocks(A.ndiag)), kBlock, 0, stream>>>(A, l, r, shift);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_zero_rows(const HmView<T>& A, const Index* rows, Index n, nodeduce_t<T> diag, cudaStream_t stream) {
  if (n < 0 || A.ndiag < 0) return cudaErrorInvalidValue;
  if (n == 0 || A.ndiag == 0) return cudaSuccess;
  hm_zero_rows_kernel<T><<<dim3(grid_for(n), capped_blocks(A.ndiag)), kBlock, 0, stream>>>(A, rows, n, diag);
  return cudaGetLastError();
}

template <class T>
cudaError_t cdm_zero_rows(const CdmView<T>& A, const Index* rows, Index n, nodeduce_t<T> diag, cudaStream_t stream) {
  if (n < 0 || A.ndiag < 0) return cudaErrorInvalidValue;
  if (n == 0 || A.ndiag == 0) return cudaSuccess;
  cdm_zero_rows_kernel<T><<<dim3(grid_for(n), capped_blocks(A.ndiag)), kBlock, 0, stream>>>(A, rows, n, diag);
  return cudaGetLastError();
}

template <class T>
cudaError_t set_scaled_entries(T* dst, const nodeduce_t<T>* src, const Index* rows, Index n, nodeduce_t<T> alpha, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  set_scaled_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(dst, src, rows, n, alpha);
  return cudaGetLastError();
}

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
  template cudaError_t axpy_values<T>(T*, T, const T*, Index, cudaStream_t);              \
  template cudaError_t hm_diagonal_scale<T>(const HmView<T>&, const T*, const T*, const Index*, cudaStream_t); \
  template cudaError_t cdm_diagonal_scale<T>(const CdmView<T>&, const T*, const T*, const Index*, cudaStream_t); \
  template cudaError_t hm_zero_rows<T>(const HmView<T>&, const Index*, Index, T, cudaStream_t); \
  template cudaError_t cdm_zero_rows<T>(const CdmView<T>&, const Index*, Index, T, cudaStream_t); \
  template cudaError_t set_scaled_entries<T>(T*, const T*, const Index*, Index, T, cudaStream_t);
PDIAG_OPS_INSTANTIATE(double)
PDIAG_OPS_INSTANTIATE(float)
#undef PDIAG_OPS_INSTANTIATE

}  // namespace pdiag::cuda
