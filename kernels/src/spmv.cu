// CUDA SpMV kernels for HM and CDM blocks (docs/kernels.md); the CPU
// references with the same semantics are in pdiag/cpu.hpp.
//
// Common shape of all four kernels:
//  - one thread per output entry (row il for A x, position p for A^T x),
//    blocks of kBlock threads over consecutive outputs, so that the loads of
//    one diagonal by a warp are consecutive addresses (coalesced);
//  - per block, the per-diagonal metadata (row range, value base, vector
//    shift) is computed once and staged in shared memory in chunks of kBlock
//    diagonals, so any number of diagonals (up to 2n-1) works and the inner
//    loop reads only broadcast shared memory plus two global loads;
//  - the sum is kept in a register and y is written once; z is read by the
//    same thread before y is written, so y may alias z;
//  - transposes are in gather form (each output position p loops over the
//    diagonals and picks the one entry of each that lands on p): no atomics;
//  - every output is summed in a fixed order (z first, then the diagonals
//    in storage order), so results are deterministic run to run;
//  - the grid is capped (grid.cuh) and blocks stride over the remaining
//    tiles, so the grid size never overflows however many rows there are.
#include "pdiag/spmv_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

// Threads per block and diagonals per shared-memory chunk: equal, so that
// each thread stages exactly one diagonal of a chunk.
constexpr int kBlock = 256;
// Grids are capped (grid.cuh); beyond the cap blocks loop over tiles
// (cheap: the metadata restaging per tile is a few loads per diagonal next
// to 256 rows of work).
unsigned grid_for(Index n) { return grid::blocks_for(n, kBlock); }

// Number of diagonals in the chunk starting at c0.
__device__ __forceinline__ int chunk_size(Index ndiag, Index c0) {
  return ndiag - c0 < kBlock ? static_cast<int>(ndiag - c0) : kBlock;
}

// Local row where compact diagonal kk wraps (global row N - kk), clamped to
// [0, m]: rows below it are on the sub diagonal kk - N (cpu.hpp cdm_wrap_row).
__device__ __forceinline__ Index cdm_wrap(const Layout& L, Index kk) {
  const Index w = L.ncols - kk - L.row_begin;
  return w < 0 ? 0 : (w > L.nrows ? L.nrows : w);
}

// ---- HM: y = A x (+ z) --------------------------------------------------------
// Diagonal k covers local rows [b, e) (b = lo(d) - r0, e = hi(d) - r0; e <= b
// when it misses the block) and holds a(r0+il, r0+il+d) at val[va + il] with
// va = start[k] - b; x is read at xa + il, xa = shift[k] (default r0 + d).
// Subtract: y = z - A x (the residual; each term subtracted in turn from z).
template <class T, bool Subtract>
__global__ void __launch_bounds__(kBlock)
    hm_spmv_kernel(HmView<const T> A, const T* __restrict__ x, T* y, const T* z, const Index* __restrict__ shift,
                   Index row_lo, Index row_hi) {
  __shared__ Index s_b[kBlock], s_e[kBlock], s_va[kBlock], s_xa[kBlock];
  const Layout L = A.layout;
  const T* __restrict__ val = A.val;
  const Index stride = Index(gridDim.x) * kBlock;
  // The tile loop bound is uniform across the block, so the __syncthreads
  // below are reached by all threads.
  for (Index tile = row_lo + Index(blockIdx.x) * kBlock; tile < row_hi; tile += stride) {
    const Index il = tile + threadIdx.x;
    const bool active = il < row_hi;
    T acc = (active && z) ? z[il] : T(0);
    for (Index c0 = 0; c0 < A.ndiag; c0 += kBlock) {
      const int nc = chunk_size(A.ndiag, c0);
      if (int(threadIdx.x) < nc) {
        const Index k = c0 + threadIdx.x;
        const Index d = A.offsets[k];
        const Index b = L.lo(d) - L.row_begin;
        s_b[threadIdx.x] = b;
        s_e[threadIdx.x] = L.hi(d) - L.row_begin;
        s_va[threadIdx.x] = A.start[k] - b;
        s_xa[threadIdx.x] = shift ? shift[k] : L.row_begin + d;
      }
      __syncthreads();
      if (active) {
#pragma unroll 4
        for (int t = 0; t < nc; ++t)
          if (il >= s_b[t] && il < s_e[t]) {
            if constexpr (Subtract) acc -= val[s_va[t] + il] * __ldg(x + s_xa[t] + il);
            else acc += val[s_va[t] + il] * __ldg(x + s_xa[t] + il);
          }
      }
      __syncthreads();  // the chunk's metadata is overwritten next
    }
    if (active) y[il] = acc;
  }
}

// ---- HM: y = A^T x (+ z), gather -----------------------------------------------
// a(r0+il, r0+il+d) x[il] goes to y[il + s] (s = shift[k]). For output p,
// il = p - s, valid when b <= il < e, i.e. p in [b + s, e + s); the value
// is val[start[k] - b + il] = val[vb + p] with vb = start[k] - b - s.
template <class T>
__global__ void __launch_bounds__(kBlock)
    hm_spmv_t_kernel(HmView<const T> A, const T* __restrict__ x, T* y, Index ny, const T* z,
                     const Index* __restrict__ shift) {
  __shared__ Index s_plo[kBlock], s_phi[kBlock], s_vb[kBlock], s_s[kBlock];
  const Layout L = A.layout;
  const T* __restrict__ val = A.val;
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index tile = Index(blockIdx.x) * kBlock; tile < ny; tile += stride) {
    const Index p = tile + threadIdx.x;
    const bool active = p < ny;
    T acc = (active && z) ? z[p] : T(0);
    for (Index c0 = 0; c0 < A.ndiag; c0 += kBlock) {
      const int nc = chunk_size(A.ndiag, c0);
      if (int(threadIdx.x) < nc) {
        const Index k = c0 + threadIdx.x;
        const Index d = A.offsets[k];
        const Index b = L.lo(d) - L.row_begin, e = L.hi(d) - L.row_begin;
        const Index s = shift ? shift[k] : L.row_begin + d;
        s_plo[threadIdx.x] = b + s;
        s_phi[threadIdx.x] = e + s;
        s_vb[threadIdx.x] = A.start[k] - b - s;
        s_s[threadIdx.x] = s;
      }
      __syncthreads();
      if (active) {
#pragma unroll 4
        for (int t = 0; t < nc; ++t)
          if (p >= s_plo[t] && p < s_phi[t]) acc += val[s_vb[t] + p] * __ldg(x + (p - s_s[t]));
      }
      __syncthreads();
    }
    if (active) y[p] = acc;
  }
}

// ---- CDM: y = A x (+ z) --------------------------------------------------------
// Compact diagonal k is a full column of m values (val[k*m + il]); x is read
// at xs + il above the wrap row w and at xw + il from it on. No range check:
// the only per-row decision is that select, compiled to a SEL, not a branch.
template <class T>
__global__ void __launch_bounds__(kBlock)
    cdm_spmv_kernel(CdmView<const T> A, const T* __restrict__ x, T* y, const T* z, const Index* __restrict__ shift,
                    Index row_lo, Index row_hi) {
  __shared__ Index s_w[kBlock], s_xs[kBlock], s_xw[kBlock];
  const Layout L = A.layout;
  const Index m = L.nrows;
  const T* __restrict__ val = A.val;
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index tile = row_lo + Index(blockIdx.x) * kBlock; tile < row_hi; tile += stride) {
    const Index il = tile + threadIdx.x;
    const bool active = il < row_hi;
    T acc = (active && z) ? z[il] : T(0);
    for (Index c0 = 0; c0 < A.ndiag; c0 += kBlock) {
      const int nc = chunk_size(A.ndiag, c0);
      if (int(threadIdx.x) < nc) {
        const Index k = c0 + threadIdx.x;
        const Index kk = A.koffsets[k];
        s_w[threadIdx.x] = cdm_wrap(L, kk);
        s_xs[threadIdx.x] = shift ? shift[k] : L.row_begin + kk;
        s_xw[threadIdx.x] = shift ? shift[A.ndiag + k] : L.row_begin + kk - L.ncols;
      }
      __syncthreads();
      if (active) {
        Index v = c0 * m + il;  // val index of (c0 + t, il), advanced by m per diagonal
#pragma unroll 4
        for (int t = 0; t < nc; ++t, v += m) {
          const Index xa = il < s_w[t] ? s_xs[t] : s_xw[t];
          acc += val[v] * __ldg(x + xa + il);
        }
      }
      __syncthreads();
    }
    if (active) y[il] = acc;
  }
}

// ---- CDM: y = A^T x (+ z), gather ----------------------------------------------
// Compact diagonal k sends A_k[il] x[il] to y[ys + il] for il in [0, w) and
// to y[yw + il] for il in [w, m). Output p takes il = p - ys from the first
// part and il = p - yw from the second when in range. With default shifts
// at most one applies (the two differ by N >= m); arbitrary shifts may hit
// both, and the CPU reference then adds both, above first: so do we.
template <class T>
__global__ void __launch_bounds__(kBlock)
    cdm_spmv_t_kernel(CdmView<const T> A, const T* __restrict__ x, T* y, Index ny, const T* z,
                      const Index* __restrict__ shift) {
  __shared__ Index s_w[kBlock], s_ys[kBlock], s_yw[kBlock];
  const Layout L = A.layout;
  const Index m = L.nrows;
  const T* __restrict__ val = A.val;
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index tile = Index(blockIdx.x) * kBlock; tile < ny; tile += stride) {
    const Index p = tile + threadIdx.x;
    const bool active = p < ny;
    T acc = (active && z) ? z[p] : T(0);
    for (Index c0 = 0; c0 < A.ndiag; c0 += kBlock) {
      const int nc = chunk_size(A.ndiag, c0);
      if (int(threadIdx.x) < nc) {
        const Index k = c0 + threadIdx.x;
        const Index kk = A.koffsets[k];
        s_w[threadIdx.x] = cdm_wrap(L, kk);
        s_ys[threadIdx.x] = shift ? shift[k] : L.row_begin + kk;
        s_yw[threadIdx.x] = shift ? shift[A.ndiag + k] : L.row_begin + kk - L.ncols;
      }
      __syncthreads();
      if (active) {
        const T* a = val + c0 * m;  // compact diagonal c0 + t, advanced by m
#pragma unroll 4
        for (int t = 0; t < nc; ++t, a += m) {
          const Index w = s_w[t];
          const Index i1 = p - s_ys[t], i2 = p - s_yw[t];
          if (i1 >= 0 && i1 < w) acc += a[i1] * __ldg(x + i1);
          if (i2 >= w && i2 < m) acc += a[i2] * __ldg(x + i2);
        }
      }
      __syncthreads();
    }
    if (active) y[p] = acc;
  }
}

// Clamps row_hi as cpu.hpp does; false when there is nothing to launch.
bool row_range(Index m, Index row_lo, Index& row_hi) {
  if (row_hi < 0 || row_hi > m) row_hi = m;
  return row_lo < row_hi;
}

}  // namespace

template <class T>
cudaError_t hm_spmv(const HmView<const nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z, const Index* shift,
                    Index row_lo, Index row_hi, cudaStream_t stream) {
  if (row_lo < 0) return cudaErrorInvalidValue;
  if (!row_range(A.layout.nrows, row_lo, row_hi)) return cudaSuccess;
  hm_spmv_kernel<T, false><<<grid_for(row_hi - row_lo), kBlock, 0, stream>>>(A, x, y, z, shift, row_lo, row_hi);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_residual(const HmView<const nodeduce_t<T>>& A, const T* x, const nodeduce_t<T>* b, T* r, const Index* shift, Index row_lo,
                        Index row_hi, cudaStream_t stream) {
  if (row_lo < 0 || !b) return cudaErrorInvalidValue;
  if (!row_range(A.layout.nrows, row_lo, row_hi)) return cudaSuccess;
  hm_spmv_kernel<T, true><<<grid_for(row_hi - row_lo), kBlock, 0, stream>>>(A, x, r, b, shift, row_lo, row_hi);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_spmv_t(const HmView<const nodeduce_t<T>>& A, const T* x, T* y, Index ny, const nodeduce_t<T>* z,
                      const Index* shift, cudaStream_t stream) {
  if (ny <= 0) return cudaSuccess;
  hm_spmv_t_kernel<T><<<grid_for(ny), kBlock, 0, stream>>>(A, x, y, ny, z, shift);
  return cudaGetLastError();
}

template <class T>
cudaError_t cdm_spmv(const CdmView<const nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z,
                     const Index* shift, Index row_lo, Index row_hi, cudaStream_t stream) {
  if (row_lo < 0) return cudaErrorInvalidValue;
  if (!row_range(A.layout.nrows, row_lo, row_hi)) return cudaSuccess;
  cdm_spmv_kernel<T><<<grid_for(row_hi - row_lo), kBlock, 0, stream>>>(A, x, y, z, shift, row_lo, row_hi);
  return cudaGetLastError();
}

template <class T>
cudaError_t cdm_spmv_t(const CdmView<const nodeduce_t<T>>& A, const T* x, T* y, Index ny, const nodeduce_t<T>* z,
                       const Index* shift, cudaStream_t stream) {
  if (ny <= 0) return cudaSuccess;
  cdm_spmv_t_kernel<T><<<grid_for(ny), kBlock, 0, stream>>>(A, x, y, ny, z, shift);
  return cudaGetLastError();
}

#define PDIAG_INSTANTIATE(T)                                                                                   \
  template cudaError_t hm_spmv<T>(const HmView<const T>&, const T*, T*, const T*, const Index*, Index, Index,  \
                                  cudaStream_t);                                                               \
  template cudaError_t hm_residual<T>(const HmView<const T>&, const T*, const T*, T*, const Index*, Index,     \
                                      Index, cudaStream_t);                                                    \
  template cudaError_t hm_spmv_t<T>(const HmView<const T>&, const T*, T*, Index, const T*, const Index*,       \
                                    cudaStream_t);                                                             \
  template cudaError_t cdm_spmv<T>(const CdmView<const T>&, const T*, T*, const T*, const Index*, Index, Index, \
                                   cudaStream_t);                                                              \
  template cudaError_t cdm_spmv_t<T>(const CdmView<const T>&, const T*, T*, Index, const T*, const Index*,     \
                                     cudaStream_t);

PDIAG_INSTANTIATE(double)
PDIAG_INSTANTIATE(float)
#undef PDIAG_INSTANTIATE

}  // namespace pdiag::cuda
