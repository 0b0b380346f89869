// Values between an HM block and a CSR pattern owned elsewhere (cuSPARSE's,
// through PETSc's aijcusparse): the CUDA versions of pdiag/csr_values.hpp,
// one thread per CSR row running the same row function as the CPU
// reference, so the results are identical (values are copied, not
// computed). A Galerkin product on the device reads a diag operator's
// values into an aijcusparse copy of its pattern, and gathers the
// aijcusparse result's values back onto diagonals.
#include "pdiag/csr_values.hpp"
#include "pdiag/csr_values_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;

template <class T, class I>
__global__ void __launch_bounds__(kBlock) values_at_csr_kernel(HmView<const T> A, const I* __restrict__ rowptr, const I* __restrict__ colidx, T* __restrict__ out) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index r = Index(blockIdx.x) * kBlock + threadIdx.x; r < A.layout.nrows; r += stride)
    hm_row_values_at_csr(A, r, rowptr, colidx, out);
}

template <class T, class I>
__global__ void __launch_bounds__(kBlock) set_from_csr_kernel(HmView<T> C, const I* __restrict__ rowptr, const I* __restrict__ colidx, const T* __restrict__ vals, unsigned long long* misses) {
  const Index stride = Index(gridDim.x) * kBlock;
  Index missed = 0;
  for (Index r = Index(blockIdx.x) * kBlock + threadIdx.x; r < C.layout.nrows; r += stride)
    missed += hm_row_set_from_csr(C, r, rowptr, colidx, vals);
  if (missed) atomicAdd(misses, static_cast<unsigned long long>(missed));
}

template <class T>
__global__ void __launch_bounds__(kBlock) count_nonzeros_kernel(const T* __restrict__ v, Index n, unsigned long long* count) {
  const Index stride = Index(gridDim.x) * kBlock;
  unsigned long long mine = 0;
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += stride) mine += v[p] != T(0);
  for (int lane = 16; lane > 0; lane /= 2) mine += __shfl_down_sync(0xffffffffu, mine, lane);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(count, mine);
}

}  // namespace

template <class T>
cudaError_t count_nonzeros(const T* v, Index n, unsigned long long* count, cudaStream_t stream) {
  if (!count || n < 0 || (n > 0 && !v)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  count_nonzeros_kernel<T><<<grid::blocks_for(n, kBlock), kBlock, 0, stream>>>(v, n, count);
  return cudaGetLastError();
}

template cudaError_t count_nonzeros<double>(const double*, Index, unsigned long long*, cudaStream_t);
template cudaError_t count_nonzeros<float>(const float*, Index, unsigned long long*, cudaStream_t);

template <class T, class I>
cudaError_t hm_values_at_csr(const HmView<const T>& A, const I* rowptr, const I* colidx, T* out, cudaStream_t stream) {
  if (A.layout.nrows <= 0) return cudaSuccess;
  if (!rowptr || !colidx || !out || (A.ndiag > 0 && (!A.offsets || !A.start || !A.val))) return cudaErrorInvalidValue;
  values_at_csr_kernel<T, I><<<grid::blocks_for(A.layout.nrows, kBlock), kBlock, 0, stream>>>(A, rowptr, colidx, out);
  return cudaGetLastError();
}

template <class T, class I>
cudaError_t hm_set_from_csr(const HmView<T>& C, Index nstored, const I* rowptr, const I* colidx, const T* vals, unsigned long long* misses, cudaStream_t stream) {
  if (!misses || nstored < 0 || (nstored > 0 && (!C.offsets || !C.start || !C.val))) return cudaErrorInvalidValue;
  if (C.layout.nrows <= 0) return cudaSuccess;
  if (!rowptr || !colidx || !vals) return cudaErrorInvalidValue;
  if (nstored > 0) {
    const cudaError_t e = cudaMemsetAsync(C.val, 0, std::size_t(nstored) * sizeof(T), stream);
    if (e != cudaSuccess) return e;
  }
  set_from_csr_kernel<T, I><<<grid::blocks_for(C.layout.nrows, kBlock), kBlock, 0, stream>>>(C, rowptr, colidx, vals, misses);
  return cudaGetLastError();
}

#define PDIAG_CSR_VALUES_INSTANTIATE(T, I)                                                                       \
  template cudaError_t hm_values_at_csr<T, I>(const HmView<const T>&, const I*, const I*, T*, cudaStream_t);     \
  template cudaError_t hm_set_from_csr<T, I>(const HmView<T>&, Index, const I*, const I*, const T*,              \
                                             unsigned long long*, cudaStream_t);
PDIAG_CSR_VALUES_INSTANTIATE(double, std::int32_t)
PDIAG_CSR_VALUES_INSTANTIATE(double, std::int64_t)
PDIAG_CSR_VALUES_INSTANTIATE(float, std::int32_t)
PDIAG_CSR_VALUES_INSTANTIATE(float, std::int64_t)
#undef PDIAG_CSR_VALUES_INSTANTIATE

}  // namespace pdiag::cuda
