// CUDA SpMV for compressed HM blocks: constant diagonals with exceptions
// (docs/kernels.md, "Constant diagonals"; format and CPU reference in
// pdiag/compress.hpp). y = A x (+ z) in two kernels on one stream (the same
// two passes also run the residual b - A x, hm_compressed_residual, and a
// Chebyshev/Jacobi step with the product inside,
// chebyshev_jacobi_step_compressed: they differ only in what they store,
// StoreProduct, StoreResidual or StoreChebyshevStep):
//
//  - pass 1: the shape of hm_spmv_kernel in spmv.cu (per-diagonal metadata
//    staged in shared memory in chunks of kBlock diagonals, one thread per
//    output row, sum in a register, y written once, z read by the same
//    thread first so y may alias z, grid capped and strided). A constant
//    diagonal reads its scalar from shared memory and loads no values, so an
//    all-constant stencil moves x (through the cache) and y only. Each
//    thread owns kRows rows kBlock apart (il and il + kBlock): the loads of a
//    warp stay coalesced and every staged metadata read serves kRows rows
//    and gives kRows independent load streams. Tiles that every diagonal
//    covers wholly or misses take a path without per-row range tests. When
//    the block has no full diagonal with values (npacked == 0), a variant
//    without the full path is launched.
//  - pass 2: one thread per exception row in range, y[il] += sum of
//    delta * x over the row's exceptions, in storage order. Ordered after
//    pass 1 by the stream; each row has one owner, so no atomics and the
//    result is deterministic.
//
// hm_compressed_get_diagonal (MatGetDiagonal without the full values): one
// kernel writes every local row (the main diagonal's packed value or its
// constant, 0 off it), a second the exception rows' c + delta.
#include "pdiag/chebyshev_cuda.hpp"
#include "pdiag/spmv_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;  // threads per block = diagonals per staged chunk
constexpr int kRows = 2;     // rows per thread in pass 1
using grid::blocks_for;

__device__ __forceinline__ int chunk_size(Index ndiag, Index c0) {
  return ndiag - c0 < kBlock ? static_cast<int>(ndiag - c0) : kBlock;
}

// A zero block a tile's loads may be pointed at: a diagonal that misses the
// tile reads zeros here with c = 0 in the branch-free path (all bits zero,
// so it serves float as well as double).
__device__ double g_zeros[kBlock * kRows];

// What the passes do with a row's sums. The product (y = A x + z): pass 1
// starts a row from z, stores its sum in y; pass 2 adds an exception row's
// corrections to y in storage order. A Chebyshev/Jacobi step
// (chebyshev_jacobi_step_compressed): pass 1 stores the step's update of
// the row from its constant-and-full sum, pass 2 subtracts g dinv times
// the exception row's corrections from it (the update is linear in A x).
template <class T>
struct StoreProduct {
  T* y;
  const T* z;
  __device__ __forceinline__ T start(Index il) const { return z ? z[il] : T(0); }
  __device__ __forceinline__ void row(Index il, T sum) const { y[il] = sum; }
  __device__ __forceinline__ T exceptions_start(Index il) const { return y[il]; }
  __device__ __forceinline__ void exceptions(Index il, T sum) const { y[il] = sum; }
};

// The residual r = b - A x (PETSc's MatResidual without A x written): pass
// 1 stores b minus the row's constant-and-full sum, pass 2 subtracts an
// exception row's corrections. r may alias b (a row is read and written by
// one thread).
template <class T>
struct StoreResidual {
  T* r;
  const T* b;
  __device__ __forceinline__ T start(Index) const { return T(0); }
  __device__ __forceinline__ void row(Index il, T sum) const { r[il] = b[il] - sum; }
  __device__ __forceinline__ T exceptions_start(Index) const { return T(0); }
  __device__ __forceinline__ void exceptions(Index il, T sum) const { r[il] -= sum; }
};

template <class T>
struct StoreChebyshevStep {
  T a, b, g;
  const T* x_cur;
  const T* x_old;  // null: zeros; may be x_new
  const T* dinv;
  const T* rhs;
  T* x_new;
  __device__ __forceinline__ T start(Index) const { return T(0); }
  __device__ __forceinline__ void row(Index il, T sum) const {
    x_new[il] = chebyshev_jacobi_value(il, a, x_cur, b, x_old, g, dinv, rhs, sum);
  }
  __device__ __forceinline__ T exceptions_start(Index) const { return T(0); }
  __device__ __forceinline__ void exceptions(Index il, T sum) const { x_new[il] -= g * (dinv[il] * sum); }
};

// Diagonal k covers local rows [b, e) of the call (b = lo(d) - r0, e =
// min(hi(d) - r0, row_hi)); a full one holds a(r0+il, r0+il+d) at
// packed[vbase[k] - b + il]; x is read at xa + il. Per tile of kTile rows
// starting at `tile`, the staged metadata is tile-relative: rows [lo, hi)
// of the tile (clamped to [0, kTile]) and pointers xp, ap such that row
// tile + t reads xp[t] and ap[t]. A tile where every diagonal of the chunk
// covers all kTile rows or none of them (the interior of a stencil: all
// tiles but those at the block's first and last rows) takes the
// branch-free path: no per-row range test, the loads of consecutive
// diagonals independent of each other.
template <class T, bool kHasFull, class Store>
__global__ void __launch_bounds__(kBlock)
    hm_compressed_pass1(HmCompressedView<T> A, const T* __restrict__ x, Store out,
                        const Index* __restrict__ shift, Index row_lo, Index row_hi) {
  constexpr int kTile = kBlock * kRows;
  __shared__ const T* s_xp[kBlock];
  __shared__ const T* s_ap[kBlock];
  __shared__ T s_c[kBlock];
  __shared__ int s_lo[kBlock], s_hi[kBlock];
  __shared__ bool s_full[kBlock];
  const Layout L = A.layout;
  const T* zeros = reinterpret_cast<const T*>(g_zeros);
  const Index stride = Index(gridDim.x) * kTile;
  // The tile loop bound is uniform across the block, so every thread reaches
  // the barriers below.
  for (Index tile = row_lo + Index(blockIdx.x) * kTile; tile < row_hi; tile += stride) {
    int lt[kRows];  // tile-relative rows of this thread
    T acc[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      lt[r] = int(threadIdx.x) + r * kBlock;
      acc[r] = tile + lt[r] < row_hi ? out.start(tile + lt[r]) : T(0);
    }
    for (Index c0 = 0; c0 < A.ndiag; c0 += kBlock) {
      const int nc = chunk_size(A.ndiag, c0);
      bool uniform = true;  // this thread's diagonal covers the tile wholly or not at all
      if (int(threadIdx.x) < nc) {
        const Index k = c0 + threadIdx.x;
        const Index d = A.offsets[k];
        const Index b = L.lo(d) - L.row_begin, e0 = L.hi(d) - L.row_begin;
        const Index e = e0 < row_hi ? e0 : row_hi;
        const Index lo = b - tile, hi = e - tile;
        const int l = lo < 0 ? 0 : lo > kTile ? kTile : int(lo);
        const int h = hi < 0 ? 0 : hi > kTile ? kTile : int(hi);
        const bool none = l >= h;
        const Index vb = A.vbase[k];
        const Index xa = shift ? shift[k] : L.row_begin + d;
        s_lo[threadIdx.x] = none ? 0 : l;
        s_hi[threadIdx.x] = none ? 0 : h;
        s_xp[threadIdx.x] = none ? zeros : x + (xa + tile);
        s_c[threadIdx.x] = none ? T(0) : A.cval[k];
        s_full[threadIdx.x] = kHasFull && !none && vb >= 0;
        if (kHasFull) s_ap[threadIdx.x] = none ? zeros : A.packed + (vb - b + tile);
        uniform = none || (l == 0 && h == kTile);
      }
      if (__syncthreads_and(uniform)) {
#pragma unroll 4
        for (int t = 0; t < nc; ++t) {
          const T* xp = s_xp[t];
          if (!kHasFull || !s_full[t]) {
            const T c = s_c[t];
#pragma unroll
            for (int r = 0; r < kRows; ++r) acc[r] += c * __ldg(xp + lt[r]);
          } else {
            const T* ap = s_ap[t];
#pragma unroll
            for (int r = 0; r < kRows; ++r) acc[r] += __ldg(ap + lt[r]) * __ldg(xp + lt[r]);
          }
        }
      } else {
#pragma unroll 4
        for (int t = 0; t < nc; ++t) {
          const int l = s_lo[t], h = s_hi[t];
          const T* xp = s_xp[t];
          if (!kHasFull || !s_full[t]) {
            const T c = s_c[t];
#pragma unroll
            for (int r = 0; r < kRows; ++r)
              if (lt[r] >= l && lt[r] < h) acc[r] += c * __ldg(xp + lt[r]);
          } else {
            const T* ap = s_ap[t];
#pragma unroll
            for (int r = 0; r < kRows; ++r)
              if (lt[r] >= l && lt[r] < h) acc[r] += __ldg(ap + lt[r]) * __ldg(xp + lt[r]);
          }
        }
      }
      __syncthreads();  // the chunk's metadata is overwritten next
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r)
      if (tile + lt[r] < row_hi) out.row(tile + lt[r], acc[r]);
  }
}

// Exception row r (local row il = exc_rows[r]) in [row_lo, row_hi): y[il] +=
// exc_delta[e] * x[il + shift[exc_diag[e]]] for e in [exc_ptr[r], exc_ptr[r+1]).
template <class T, class Store>
__global__ void __launch_bounds__(kBlock)
    hm_compressed_pass2(HmCompressedView<T> A, const T* __restrict__ x, Store out, const Index* __restrict__ shift,
                        Index row_lo, Index row_hi) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index r = Index(blockIdx.x) * kBlock + threadIdx.x; r < A.nrows_exc; r += stride) {
    const Index il = A.exc_rows[r];
    if (il < row_lo || il >= row_hi) continue;
    T acc = out.exceptions_start(il);
    const Index e1 = A.exc_ptr[r + 1];
    for (Index e = A.exc_ptr[r]; e < e1; ++e) {
      const Index k = A.exc_diag[e];
      const Index xa = shift ? shift[k] : A.layout.row_begin + A.offsets[k];
      acc += A.exc_delta[e] * __ldg(x + (xa + il));
    }
    out.exceptions(il, acc);
  }
}

// MatGetDiagonal: out[il] over all local rows, the main diagonal k0's
// value where it covers the row (packed or the constant), else 0; then one
// thread per exception row writes c + delta where its exception is on k0
// (only constant diagonals have exceptions; ordered after by the stream).
template <class T>
__global__ void __launch_bounds__(kBlock) hm_compressed_diag_fill(HmCompressedView<T> A, Index k0, T* out) {
  const Layout L = A.layout;
  const Index b = k0 < 0 ? 0 : L.lo(0) - L.row_begin, e = k0 < 0 ? 0 : L.hi(0) - L.row_begin;
  const Index vb = k0 < 0 ? -1 : A.vbase[k0];
  const T c = k0 < 0 ? T(0) : A.cval[k0];
  for (Index il = Index(blockIdx.x) * kBlock + threadIdx.x; il < L.nrows; il += Index(gridDim.x) * kBlock)
    out[il] = (il < b || il >= e) ? T(0) : (vb >= 0 ? A.packed[vb + il - b] : c);
}

template <class T>
__global__ void __launch_bounds__(kBlock) hm_compressed_diag_exceptions(HmCompressedView<T> A, Index k0, T* out) {
  for (Index r = Index(blockIdx.x) * kBlock + threadIdx.x; r < A.nrows_exc; r += Index(gridDim.x) * kBlock)
    for (Index x = A.exc_ptr[r]; x < A.exc_ptr[r + 1]; ++x)
      if (A.exc_diag[x] == k0) out[A.exc_rows[r]] = A.cval[k0] + A.exc_delta[x];
}

}  // namespace

// Both passes over local rows [row_lo, row_hi) with `out` storing.
template <class T, class Store>
cudaError_t compressed_passes(const HmCompressedView<T>& A, const T* x, const Store& out, const Index* shift, Index row_lo, Index row_hi,
                              cudaStream_t stream) {
  if (row_lo < 0) return cudaErrorInvalidValue;
  const Index m = A.layout.nrows;
  if (row_hi < 0 || row_hi > m) row_hi = m;
  if (row_lo >= row_hi) return cudaSuccess;
  const unsigned grid1 = blocks_for(row_hi - row_lo, Index(kBlock) * kRows);
  if (A.npacked > 0)
    hm_compressed_pass1<T, true, Store><<<grid1, kBlock, 0, stream>>>(A, x, out, shift, row_lo, row_hi);
  else
    hm_compressed_pass1<T, false, Store><<<grid1, kBlock, 0, stream>>>(A, x, out, shift, row_lo, row_hi);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || A.nrows_exc == 0) return e;
  hm_compressed_pass2<T, Store><<<blocks_for(A.nrows_exc, kBlock), kBlock, 0, stream>>>(A, x, out, shift, row_lo, row_hi);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_compressed_spmv(const HmCompressedView<nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z,
                               const Index* shift, Index row_lo, Index row_hi, cudaStream_t stream) {
  return compressed_passes(A, x, StoreProduct<T>{y, z}, shift, row_lo, row_hi, stream);
}

template <class T>
cudaError_t hm_compressed_residual(const HmCompressedView<nodeduce_t<T>>& A, const T* x, const nodeduce_t<T>* b, T* r,
                                   const Index* shift, Index row_lo, Index row_hi, cudaStream_t stream) {
  if (!b) return cudaErrorInvalidValue;
  return compressed_passes(A, x, StoreResidual<T>{r, b}, shift, row_lo, row_hi, stream);
}

template <class T>
cudaError_t chebyshev_jacobi_step_compressed(const HmCompressedView<T>& A, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv,
                                             const T* rhs, T* x_new, cudaStream_t stream) {
  if (!A.layout.is_full() || !A.layout.is_square() || !x_cur || x_cur == x_new) return cudaErrorInvalidValue;
  return compressed_passes(A, x_cur, StoreChebyshevStep<T>{a, b, g, x_cur, x_old, dinv, rhs, x_new}, nullptr, 0, -1, stream);
}

template <class T>
cudaError_t hm_compressed_get_diagonal(const HmCompressedView<nodeduce_t<T>>& A, Index k0, T* out, cudaStream_t stream) {
  if (k0 < -1 || k0 >= A.ndiag || A.layout.nrows < 0) return cudaErrorInvalidValue;
  if (A.layout.nrows == 0) return cudaSuccess;
  hm_compressed_diag_fill<T><<<blocks_for(A.layout.nrows, kBlock), kBlock, 0, stream>>>(A, k0, out);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || k0 < 0 || A.nrows_exc == 0) return e;
  hm_compressed_diag_exceptions<T><<<blocks_for(A.nrows_exc, kBlock), kBlock, 0, stream>>>(A, k0, out);
  return cudaGetLastError();
}

#define PDIAG_INSTANTIATE(T)                                                                                      \
  template cudaError_t hm_compressed_spmv<T>(const HmCompressedView<T>&, const T*, T*, const T*, const Index*, Index, \
                                             Index, cudaStream_t);                                                 \
  template cudaError_t hm_compressed_residual<T>(const HmCompressedView<T>&, const T*, const T*, T*, const Index*, Index, \
                                                 Index, cudaStream_t);                                                 \
  template cudaError_t hm_compressed_get_diagonal<T>(const HmCompressedView<T>&, Index, T*, cudaStream_t);              \
  template cudaError_t chebyshev_jacobi_step_compressed<T>(const HmCompressedView<T>&, T, const T*, T, const T*, T, const T*, \
                                                           const T*, T*, cudaStream_t);

PDIAG_INSTANTIATE(double)
PDIAG_INSTANTIATE(float)
#undef PDIAG_INSTANTIATE

}  // namespace pdiag::cuda
