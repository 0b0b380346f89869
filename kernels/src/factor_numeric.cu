// Numeric ILU(0) / ICC(0) factorization by levels (pdiag/factor_cuda.hpp's
// hm_factor_numeric): one launch per level of hm_factor_numeric_schedule,
// one thread per row of the level (grid capped and strided), each row
// computed by the same ilu0_row / icc0_row as the host's hm_ilu0 / hm_icc0
// and the CPU runner; launches of one stream run in order, so a level reads
// the final rows of the levels before it. A pivot that PETSc's checks would
// act on sets a bit in *needs_policy (the caller then factors on the host).
#include "pdiag/factor_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 128;

template <class T, bool Ilu>
__global__ void __launch_bounds__(kBlock)
    factor_numeric_kernel(FactorValues<T> F, FactorPlanView P, const unsigned char* __restrict__ pattern,
                          const Index* __restrict__ rows, Index nrows, PivotScreen screen, unsigned* needs_policy) {
  for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < nrows; q += Index(gridDim.x) * kBlock) {
    const Index i = rows[q];
    const FactorRowPivot<T> r = Ilu ? ilu0_row(F, P, pattern, i) : icc0_row(F, P, pattern, i);
    if (pivot_needs_policy(screen, r.pivot, r.rowsum)) atomicOr(needs_policy, 1u);
    F.val[F.base[P.main] + i] = T(1) / r.pivot;
  }
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    pattern_misses_kernel(const T* __restrict__ val, const unsigned char* __restrict__ marks, Index n, unsigned* flag) {
  bool miss = false;
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += Index(gridDim.x) * kBlock)
    miss = miss || (val[p] != T(0) && !marks[p]);
  if (__syncthreads_or(miss) && threadIdx.x == 0) atomicOr(flag, 1u);
}

}  // namespace

template <class T>
cudaError_t factor_pattern_misses(const T* val, const unsigned char* marks, Index n, unsigned* flag, cudaStream_t stream) {
  if (n < 0 || !flag || (n > 0 && (!val || !marks))) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  pattern_misses_kernel<T><<<grid::blocks_for(n, kBlock), kBlock, 0, stream>>>(val, marks, n, flag);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_factor_numeric(const FactorValues<T>& F, const FactorPlanView& P, bool ilu, const unsigned char* pattern,
                              const LevelsView& s, const PivotScreen& screen, unsigned* needs_policy, cudaStream_t stream) {
  if (P.main < 0 || !needs_policy || (F.n > 0 && (!s.level_ptr || s.nlevels < 1 || s.level_ptr[s.nlevels] != F.n || !s.rows)))
    return cudaErrorInvalidValue;
  for (Index l = 0; l < s.nlevels; ++l) {
    const Index n = s.level_ptr[l + 1] - s.level_ptr[l];
    if (n <= 0) continue;
    const unsigned blocks = grid::blocks_for(n, kBlock);
    if (ilu)
      factor_numeric_kernel<T, true><<<blocks, kBlock, 0, stream>>>(F, P, pattern, s.rows + s.level_ptr[l], n, screen, needs_policy);
    else
      factor_numeric_kernel<T, false><<<blocks, kBlock, 0, stream>>>(F, P, pattern, s.rows + s.level_ptr[l], n, screen, needs_policy);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template cudaError_t factor_pattern_misses<double>(const double*, const unsigned char*, Index, unsigned*, cudaStream_t);
template cudaError_t factor_pattern_misses<float>(const float*, const unsigned char*, Index, unsigned*, cudaStream_t);
template cudaError_t hm_factor_numeric<double>(const FactorValues<double>&, const FactorPlanView&, bool, const unsigned char*,
                                               const LevelsView&, const PivotScreen&, unsigned*, cudaStream_t);
template cudaError_t hm_factor_numeric<float>(const FactorValues<float>&, const FactorPlanView&, bool, const unsigned char*,
                                              const LevelsView&, const PivotScreen&, unsigned*, cudaStream_t);

}  // namespace pdiag::cuda
