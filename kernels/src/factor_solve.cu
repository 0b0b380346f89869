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

// The vectors of a solve recorded as a CUDA graph (FactorSolveGraphs): the
// graph's kernels read them from this device struct, which the graph's first
// node (bind_kernel) writes, so that new vectors change one node's
// parameters instead of one per level.
template <class T>
struct SolveIo {
  const T* in;
  T* x;
};

template <class T>
__global__ void bind_kernel(SolveIo<T>* io, const T* in, T* x) {
  io->in = in;
  io->x = x;
}

// io null: the vectors are in and x (per-level launches); otherwise they are
// io's (x for a second pass's input: in_is_x)
template <SolvePass P, bool Shared, class T>
__global__ void __launch_bounds__(kBlock)
    factor_pass_kernel(FactorRowsView<T> F, const T* in, T* x, const SolveIo<T>* io, bool in_is_x,
                       const Index* __restrict__ rows, Index nrows) {
  if (io) {
    x = io->x;
    in = in_is_x ? io->x : io->in;
  }
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
__global__ void __launch_bounds__(kBlock) factor_scale_sqrt_kernel(FactorRowsView<T> F, T* x, const SolveIo<T>* io) {
  if (io) x = io->x;
  for (Index i = Index(blockIdx.x) * kBlock + threadIdx.x; i < F.n; i += Index(gridDim.x) * kBlock)
    x[i] = factor_scale_sqrt_row(F.base, F.main, F.val, x, i);
}

template <SolvePass P, class T>
cudaError_t run_pass(const FactorRowsView<T>& F, const T* in, T* x, const SolveIo<T>* io, bool in_is_x, const LevelsView& L,
                     cudaStream_t stream) {
  for (Index l = 0; l < L.nlevels; ++l) {
    const Index n = L.level_ptr[l + 1] - L.level_ptr[l];
    if (n == 0) continue;
    const unsigned blocks = grid::blocks_for(n, kBlock);
    if (F.nd <= kSharedDiagonals)
      factor_pass_kernel<P, true, T><<<blocks, kBlock, 0, stream>>>(F, in, x, io, in_is_x, L.rows + L.level_ptr[l], n);
    else
      factor_pass_kernel<P, false, T><<<blocks, kBlock, 0, stream>>>(F, in, x, io, in_is_x, L.rows + L.level_ptr[l], n);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <class T>
cudaError_t dispatch_pass(SolvePass p, const FactorRowsView<T>& F, const T* in, T* x, const SolveIo<T>* io, bool in_is_x,
                          const LevelsView& L, cudaStream_t stream) {
  switch (p) {
    case SolvePass::L: return run_pass<SolvePass::L>(F, in, x, io, in_is_x, L, stream);
    case SolvePass::U: return run_pass<SolvePass::U>(F, in, x, io, in_is_x, L, stream);
    case SolvePass::Ut: return run_pass<SolvePass::Ut>(F, in, x, io, in_is_x, L, stream);
    case SolvePass::Lt: return run_pass<SolvePass::Lt>(F, in, x, io, in_is_x, L, stream);
    case SolvePass::IccUt: return run_pass<SolvePass::IccUt>(F, in, x, io, in_is_x, L, stream);
    case SolvePass::IccU: return run_pass<SolvePass::IccU>(F, in, x, io, in_is_x, L, stream);
    case SolvePass::IccHalfU: return run_pass<SolvePass::IccHalfU>(F, in, x, io, in_is_x, L, stream);
  }
  return cudaErrorInvalidValue;
}

bool covers(const LevelsView& L, Index m) {
  if (L.nlevels < 0 || !L.level_ptr || (m > 0 && !L.rows) || L.level_ptr[0] != 0) return false;
  for (Index l = 0; l < L.nlevels; ++l)
    if (L.level_ptr[l + 1] < L.level_ptr[l]) return false;
  return L.level_ptr[L.nlevels] == m;
}

// hm_factor_solve's argument checks: cudaErrorInvalidValue, or cudaSuccess
cudaError_t check_solve(Index n, Index nd, Index main, FactorSolve what, const LevelsView* schedules) {
  if (n < 0 || nd < 1 || main < 0 || main >= nd || !schedules) return cudaErrorInvalidValue;
  const FactorSolveSteps st = factor_solve_steps(what);
  if (st.npasses < 1) return cudaErrorInvalidValue;
  for (int p = 0; p < st.npasses; ++p)
    if (!covers(schedules[static_cast<int>(pass_schedule(st.pass[static_cast<std::size_t>(p)]))], n))
      return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The launches of a checked solve of n > 0 rows on stream, with the vectors
// b, x or (io non-null) those io holds when they run.
template <class T>
cudaError_t enqueue_solve(const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x, const SolveIo<T>* io,
                          const LevelsView* schedules, cudaStream_t stream) {
  const FactorSolveSteps st = factor_solve_steps(what);
  for (int p = 0; p < st.npasses; ++p) {
    const SolvePass pass = st.pass[static_cast<std::size_t>(p)];
    const cudaError_t e = dispatch_pass(pass, F, p == 0 ? b : static_cast<const T*>(x), x, io, p > 0,
                                        schedules[static_cast<int>(pass_schedule(pass))], stream);
    if (e != cudaSuccess) return e;
  }
  if (st.scale_sqrt) {
    factor_scale_sqrt_kernel<T><<<grid::blocks_for(F.n, kBlock), kBlock, 0, stream>>>(F, x, io);
    return cudaGetLastError();
  }
  return cudaSuccess;
}

}  // namespace

template <class T>
cudaError_t hm_factor_solve(const FactorRowsView<nodeduce_t<T>>& F, FactorSolve what, const T* b, T* x,
                            const LevelsView* schedules, cudaStream_t stream) {
  const cudaError_t e = check_solve(F.n, F.nd, F.main, what, schedules);
  if (e != cudaSuccess || F.n == 0) return e;
  return enqueue_solve<T>(F, what, b, x, nullptr, schedules, stream);
}

template <class T>
FactorSolveGraphs<T>::~FactorSolveGraphs() {
  reset();
}

template <class T>
void FactorSolveGraphs<T>::drop(Graph& g) noexcept {
  // errors ignored: nothing left to do with a handle that cannot be freed
  if (g.exec) cudaGraphExecDestroy(g.exec);
  if (g.graph) cudaGraphDestroy(g.graph);
  if (g.io) cudaFree(g.io);
  g = Graph{};
}

template <class T>
void FactorSolveGraphs<T>::reset() noexcept {
  for (Graph& g : graphs_) drop(g);
}

template <class T>
cudaError_t FactorSolveGraphs<T>::record(Graph& g, const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x,
                                         const LevelsView* schedules) {
  drop(g);
  cudaError_t e = cudaMalloc(&g.io, sizeof(SolveIo<T>));
  if (e != cudaSuccess) {
    g.io = nullptr;
    return e;
  }
  // a private stream: the caller's may be the legacy default stream, which cannot be captured
  cudaStream_t cs = nullptr;
  e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    drop(g);
    return e;
  }
  e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
  if (e == cudaSuccess) {
    SolveIo<T>* io = static_cast<SolveIo<T>*>(g.io);
    bind_kernel<T><<<1, 1, 0, cs>>>(io, b, x);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = enqueue_solve<T>(F, what, nullptr, nullptr, io, schedules, cs);
    cudaGraph_t graph = nullptr;
    const cudaError_t ee = cudaStreamEndCapture(cs, &graph);  // always ends the capture
    if (e == cudaSuccess) e = ee;
    g.graph = graph;
  }
  const cudaError_t es = cudaStreamDestroy(cs);
  if (e == cudaSuccess) e = es;
  if (e == cudaSuccess && !g.graph) e = cudaErrorStreamCaptureInvalidated;
  // the bind node: the graph's one root (the capture is one chain)
  std::size_t nroots = 0;
  if (e == cudaSuccess) e = cudaGraphGetRootNodes(g.graph, nullptr, &nroots);
  if (e == cudaSuccess && nroots != 1) e = cudaErrorInvalidValue;
  if (e == cudaSuccess) e = cudaGraphGetRootNodes(g.graph, &g.bind, &nroots);
  if (e == cudaSuccess) e = cudaGraphInstantiate(&g.exec, g.graph, 0);
  if (e != cudaSuccess) {
    drop(g);
    return e;
  }
  g.in = b;
  g.x = x;
  g.F = F;
  for (int k = 0; k < kSolveScheduleKinds; ++k) {
    g.nlevels[static_cast<std::size_t>(k)] = schedules[k].nlevels;
    g.rows[static_cast<std::size_t>(k)] = schedules[k].rows;
  }
  ++recordings_;
  return cudaSuccess;
}

template <class T>
cudaError_t FactorSolveGraphs<T>::solve(const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x,
                                        const LevelsView* schedules, cudaStream_t stream) {
  cudaError_t e = check_solve(F.n, F.nd, F.main, what, schedules);
  if (e != cudaSuccess || F.n == 0) return e;
  const int w = static_cast<int>(what);
  if (w < 0 || w >= kSolves) return cudaErrorInvalidValue;
  Graph& g = graphs_[static_cast<std::size_t>(w)];
  bool same = g.exec && g.F.n == F.n && g.F.nd == F.nd && g.F.main == F.main && g.F.off == F.off &&
              g.F.base == F.base && g.F.val == F.val;
  // only the schedules the solve's passes use are baked in
  const FactorSolveSteps st = factor_solve_steps(what);
  for (int p = 0; same && p < st.npasses; ++p) {
    const int k = static_cast<int>(pass_schedule(st.pass[static_cast<std::size_t>(p)]));
    same = g.nlevels[static_cast<std::size_t>(k)] == schedules[k].nlevels &&
           g.rows[static_cast<std::size_t>(k)] == schedules[k].rows;
  }
  if (!same) {
    e = record(g, F, what, b, x, schedules);
    if (e != cudaSuccess) return e;
  } else if (g.in != b || g.x != x) {
    SolveIo<T>* io = static_cast<SolveIo<T>*>(g.io);
    void* args[] = {&io, &b, &x};
    cudaKernelNodeParams kp{};
    kp.func = reinterpret_cast<void*>(bind_kernel<T>);
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.sharedMemBytes = 0;
    kp.kernelParams = args;
    kp.extra = nullptr;
    e = cudaGraphExecKernelNodeSetParams(g.exec, g.bind, &kp);
    if (e != cudaSuccess) {
      drop(g);
      return e;
    }
    g.in = b;
    g.x = x;
  }
  e = cudaGraphLaunch(g.exec, stream);
  if (e != cudaSuccess) drop(g);
  return e;
}

template class FactorSolveGraphs<double>;
template class FactorSolveGraphs<float>;

template cudaError_t hm_factor_solve<double>(const FactorRowsView<double>&, FactorSolve, const double*, double*,
                                             const LevelsView*, cudaStream_t);
template cudaError_t hm_factor_solve<float>(const FactorRowsView<float>&, FactorSolve, const float*, float*,
                                            const LevelsView*, cudaStream_t);

}  // namespace pdiag::cuda
