// Level-scheduled triangular solves with ILU(0) / ICC(0) factors stored by
// diagonals (pdiag/cuda.hpp's hm_factor_solve): each pass of
// pdiag/factor_levels.hpp is one kernel launch per level of its schedule,
// one thread per row of the level (grid capped and strided), computing the
// row by the same factor_pass_row the CPU runner uses. Launches of one
// stream run in order, so a level reads the final values of the levels
// before it.
#include "pdiag/cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 128;
// offsets and bases staged in shared memory when they fit (every thread
// reads all of them for its row), as the SOR sweeps do
constexpr Index kSharedDiagonals = 1024;  // 16 KiB

template <SolvePass P, bool Shared, class T>
__global__ void __launch_bounds__(kBlock)
    factor_pass_kernel(FactorRowsView<T> F, const T* in, T* x, const Index* __restrict__ rows, Index nrows) {
  __shared__ Index s_meta[Shared ? 2 * kSharedDiagonals : 1];
  const Index* off = F.off;
  const Index* base = F.base;
  if (Shared) {
    for (Index k = threadIdx.x; k < F.nd; k += kBlock) {
      s_meta[k] = F.off[k];
      s_meta[kSharedDiagonals + k] = F.base[k];
    }
    __syncthreads();
    off = s_meta;
    base = s_meta + kSharedDiagonals;
  }
  // in and x may be the same array (a second pass, or b == x): no __restrict__
  for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < nrows; q += Index(gridDim.x) * kBlock) {
    const Index i = rows[q];
    x[i] = factor_pass_row<P>(off, base, F.nd, F.main, F.n, F.val, in, x, i);
  }
}

template <class T>
__global__ void __launch_bounds__(kBlock) factor_scale_sqrt_kernel(FactorRowsView<T> F, T* x) {
  for (Index i = Index(blockIdx.x) * kBlock + threadIdx.x; i < F.n; i += Index(gridDim.x) * kBlock)
    x[i] = factor_scale_sqrt_row(F.base, F.main, F.val, x, i);
}

template <SolvePass P, class T>
cudaError_t run_pass(const FactorRowsView<T>& F, const T* in, T* x, const LevelsView& L, cudaStream_t stream) {
  for (Index l = 0; l < L.nlevels; ++l) {
    const Index n = L.level_ptr[l + 1] - L.level_ptr[l];
    if (n == 0) continue;
    const unsigned blocks = grid::blocks_for(n, kBlock);
    if (F.nd <= kSharedDiagonals)
      factor_pass_kernel<P, true, T><<<blocks, kBlock, 0, stream>>>(F, in, x, L.rows + L.level_ptr[l], n);
    else
      factor_pass_kernel<P, false, T><<<blocks, kBlock, 0, stream>>>(F, in, x, L.rows + L.level_ptr[l], n);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <class T>
cudaError_t dispatch_pass(SolvePass p, const FactorRowsView<T>& F, const T* in, T* x, const LevelsView& L,
                          cudaStream_t stream) {
  switch (p) {
    case SolvePass::L: return run_pass<SolvePass::L>(F, in, x, L, stream);
    case SolvePass::U: return run_pass<SolvePass::U>(F, in, x, L, stream);
    case SolvePass::Ut: return run_pass<SolvePass::Ut>(F, in, x, L, stream);
    case SolvePass::Lt: return run_pass<SolvePass::Lt>(F, in, x, L, stream);
    case SolvePass::IccUt: return run_pass<SolvePass::IccUt>(F, in, x, L, stream);
    case SolvePass::IccU: return run_pass<SolvePass::IccU>(F, in, x, L, stream);
    case SolvePass::IccHalfU: return run_pass<SolvePass::IccHalfU>(F, in, x, L, stream);
  }
  return cudaErrorInvalidValue;
}

bool covers(const LevelsView& L, Index m) {
  if (L.nlevels < 0 || !L.level_ptr || (m > 0 && !L.rows) || L.level_ptr[0] != 0) return false;
  for (Index l = 0; l < L.nlevels; ++l)
    if (L.level_ptr[l + 1] < L.level_ptr[l]) return false;
  return L.level_ptr[L.nlevels] == m;
}

}  // namespace

template <class T>
cudaError_t hm_factor_solve(const FactorRowsView<nodeduce_t<T>>& F, FactorSolve what, const T* b, T* x,
                            const LevelsView* schedules, cudaStream_t stream) {
  if (F.n < 0 || F.nd < 1 || F.main < 0 || F.main >= F.nd || !schedules) return cudaErrorInvalidValue;
  const FactorSolveSteps st = factor_solve_steps(what);
  if (st.npasses < 1) return cudaErrorInvalidValue;
  for (int p = 0; p < st.npasses; ++p)
    if (!covers(schedules[static_cast<int>(pass_schedule(st.pass[static_cast<std::size_t>(p)]))], F.n))
      return cudaErrorInvalidValue;
  if (F.n == 0) return cudaSuccess;
  for (int p = 0; p < st.npasses; ++p) {
    const SolvePass pass = st.pass[static_cast<std::size_t>(p)];
    const cudaError_t e =
        dispatch_pass(pass, F, p == 0 ? b : static_cast<const T*>(x), x, schedules[static_cast<int>(pass_schedule(pass))], stream);
    if (e != cudaSuccess) return e;
  }
  if (st.scale_sqrt) {
    factor_scale_sqrt_kernel<T><<<grid::blocks_for(F.n, kBlock), kBlock, 0, stream>>>(F, x);
    return cudaGetLastError();
  }
  return cudaSuccess;
}

template cudaError_t hm_factor_solve<double>(const FactorRowsView<double>&, FactorSolve, const double*, double*,
                                             const LevelsView*, cudaStream_t);
template cudaError_t hm_factor_solve<float>(const FactorRowsView<float>&, FactorSolve, const float*, float*,
                                            const LevelsView*, cudaStream_t);

}  // namespace pdiag::cuda
