// Level-scheduled SOR sweeps (pdiag/sor_cuda.hpp): the steps of the CPU
// reference pdiag::hm_sor (pdiag/relax.hpp), one kernel launch per level of
// pdiag/levels.hpp's schedules, one thread per row of the level (grid
// capped and strided). Each phase below is one loop body of hm_sor; a row
// reads its stored entries in ascending offset (= ascending column) order as
// the reference does, skipping stored zeros: the schedule has no dependency
// for them, so x[j] may be changing under a zero entry, and 0 * x[j] adds
// nothing to a finite sum anyway.
#include "pdiag/sor_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 128;

// The loop bodies of hm_sor: forward with a zero initial guess, forward,
// backward after a zero-guess-only pass (xb == b), backward reading the
// forward pass's lower products t (xb == t), backward over the whole row.
enum class Phase { FwdZero, Fwd, BwdZeroB, BwdT, BwdFull };

// The diagonals' metadata a thread reads for every entry: offset d and
// base = start - lo(d) (a(i, i + d) at val[base + i]), staged in shared
// memory when they fit (Shared), else read from global memory.
constexpr Index kSharedDiagonals = 1024;  // 16 KiB of shared memory

template <bool Shared>
struct Meta {
  const Index* off;   // offsets (global or shared)
  const Index* base;  // shared only
  const Index* start;
  Layout layout;
  __device__ __forceinline__ Index d(Index k) const { return off[k]; }
  __device__ __forceinline__ Index b(Index k) const { return Shared ? base[k] : start[k] - layout.lo(off[k]); }
};

// sum -= the part of row i's stored entries that Part names (-1: lower,
// 0: the main diagonal, read as xi, 1: upper), ascending columns, stored
// zeros skipped. A row's loads do not depend on one another (x[j] is read
// whatever a(i, j) is, so that the loads of several diagonals are in flight
// together: the sweeps are latency-bound, a level being a few thousand
// rows). Under a zero a(i, j) x[j] may be written by another thread of the
// level meanwhile: the value read is then discarded.
template <int Part, bool Shared, class T>
__device__ __forceinline__ void subtract(const Meta<Shared>& M, Index nd, Index m, const T* __restrict__ val, Index i,
                                         const T* __restrict__ x, T xi, T& sum) {
#pragma unroll 4
  for (Index k = 0; k < nd; ++k) {
    const Index d = M.d(k), j = i + d;
    if ((Part < 0 && d >= 0) || (Part == 0 && d != 0) || (Part > 0 && d <= 0) || j < 0 || j >= m) continue;
    const T a = val[M.b(k) + i];
    const T xj = Part == 0 ? xi : x[j];
    if (a != T(0)) sum -= a * xj;
  }
}

// The vectors of sweeps recorded as a CUDA graph (SorGraph): the graph's
// kernels read them from this device struct, written by the graph's first
// node (bind_kernel), so that new vectors change that node's parameters
// only, not one launch's per level.
template <class T>
struct SorIo {
  const T* b;
  T* x;
};

template <class T>
__global__ void sor_bind_kernel(SorIo<T>* io, const T* b, T* x) {
  io->b = b;
  io->x = x;
}

// io null: the vectors are b and x (per-level launches); otherwise io's
template <Phase P, bool Shared, class T>
__global__ void __launch_bounds__(kBlock)
    sor_level_kernel(HmView<const T> A, const T* __restrict__ b, T* __restrict__ x, const SorIo<T>* io, T omega,
                     const T* __restrict__ mdiag, const T* __restrict__ idiag, T* __restrict__ t,
                     const Index* __restrict__ rows, Index n) {
  if (io) {
    b = io->b;
    x = io->x;
  }
  __shared__ Index s_meta[Shared ? 2 * kSharedDiagonals : 1];
  const Index nd = A.ndiag, m = A.layout.nrows;
  if (Shared) {
    for (Index k = threadIdx.x; k < nd; k += kBlock) {
      const Index d = A.offsets[k];
      s_meta[k] = d;
      s_meta[kSharedDiagonals + k] = A.start[k] - A.layout.lo(d);
    }
    __syncthreads();
  }
  const Meta<Shared> M{Shared ? s_meta : A.offsets, s_meta + (Shared ? kSharedDiagonals : 0), A.start, A.layout};
  const T* __restrict__ val = A.val;
  for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < n; q += Index(gridDim.x) * kBlock) {
    const Index i = rows[q];
    const T xi = x[i];
    T sum = (P == Phase::BwdT) ? t[i] : b[i];
    if (P == Phase::FwdZero || P == Phase::Fwd || P == Phase::BwdFull) subtract<-1>(M, nd, m, val, i, x, xi, sum);
    if (P == Phase::FwdZero) {
      t[i] = sum;
      x[i] = sum * idiag[i];
      continue;
    }
    if (P == Phase::Fwd) t[i] = sum;  // the lower part's application, reused by the backward sweep
    if (P == Phase::BwdFull) subtract<0>(M, nd, m, val, i, x, xi, sum);
    subtract<1>(M, nd, m, val, i, x, xi, sum);
    if (P == Phase::BwdZeroB) x[i] = sum * idiag[i];
    else if (P == Phase::BwdFull) x[i] = (T(1) - omega) * xi + (sum + mdiag[i] * xi) * idiag[i];
    else x[i] = (T(1) - omega) * xi + sum * idiag[i];
  }
}

template <Phase P, class T>
cudaError_t run_levels(const HmView<const T>& A, const T* b, T* x, const SorIo<T>* io, T omega, const T* mdiag,
                       const T* idiag, T* t, const LevelsView& L, cudaStream_t stream) {
  for (Index l = 0; l < L.nlevels; ++l) {
    const Index n = L.level_ptr[l + 1] - L.level_ptr[l];
    if (n == 0) continue;
    const unsigned blocks = grid::blocks_for(n, kBlock);
    if (A.ndiag <= kSharedDiagonals)
      sor_level_kernel<P, true, T><<<blocks, kBlock, 0, stream>>>(A, b, x, io, omega, mdiag, idiag, t, L.rows + L.level_ptr[l], n);
    else
      sor_level_kernel<P, false, T><<<blocks, kBlock, 0, stream>>>(A, b, x, io, omega, mdiag, idiag, t, L.rows + L.level_ptr[l], n);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

bool covers(const LevelsView& L, Index m) {
  if (L.nlevels < 0 || !L.level_ptr || (m > 0 && !L.rows) || L.level_ptr[0] != 0) return false;
  for (Index l = 0; l < L.nlevels; ++l)
    if (L.level_ptr[l + 1] < L.level_ptr[l]) return false;
  return L.level_ptr[L.nlevels] == m;
}

// hm_sor's argument checks: cudaErrorInvalidValue, or cudaSuccess
template <class T>
cudaError_t check_sor(const HmView<const T>& A, SorSweeps sw, Index its, const LevelsView& fwd, const LevelsView& bwd) {
  const Index m = A.layout.nrows;
  if (!A.layout.is_full() || !A.layout.is_square() || A.ndiag < 0 || its < 0) return cudaErrorInvalidValue;
  if ((sw.forward && !covers(fwd, m)) || (sw.backward && !covers(bwd, m))) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The launches of checked sweeps on stream, with the vectors b, x or (io
// non-null) those io holds when they run.
template <class T>
cudaError_t enqueue_sor(const HmView<const T>& A, const T* b, T* x, const SorIo<T>* io, T omega, SorSweeps sw, Index its,
                        const T* mdiag, const T* idiag, T* t, const LevelsView& fwd, const LevelsView& bwd,
                        cudaStream_t stream) {
  cudaError_t e = cudaSuccess;
  bool from_t = false;  // the reference's xb == t
  if (sw.zero_initial_guess && its > 0) {
    if (sw.forward) {
      if ((e = run_levels<Phase::FwdZero>(A, b, x, io, omega, mdiag, idiag, t, fwd, stream)) != cudaSuccess) return e;
      from_t = true;
    }
    if (sw.backward) {
      e = from_t ? run_levels<Phase::BwdT>(A, b, x, io, omega, mdiag, idiag, t, bwd, stream)
                 : run_levels<Phase::BwdZeroB>(A, b, x, io, omega, mdiag, idiag, t, bwd, stream);
      if (e != cudaSuccess) return e;
    }
    --its;
  }
  while (its-- > 0) {
    from_t = false;
    if (sw.forward) {
      if ((e = run_levels<Phase::Fwd>(A, b, x, io, omega, mdiag, idiag, t, fwd, stream)) != cudaSuccess) return e;
      from_t = true;
    }
    if (sw.backward) {
      e = from_t ? run_levels<Phase::BwdT>(A, b, x, io, omega, mdiag, idiag, t, bwd, stream)
                 : run_levels<Phase::BwdFull>(A, b, x, io, omega, mdiag, idiag, t, bwd, stream);
      if (e != cudaSuccess) return e;
    }
  }
  return cudaSuccess;
}

}  // namespace

template <class T>
cudaError_t hm_sor(const HmView<const nodeduce_t<T>>& A, const T* b, T* x, nodeduce_t<T> omega, SorSweeps sw, Index its,
                   const nodeduce_t<T>* mdiag, const nodeduce_t<T>* idiag, T* t, const LevelsView& fwd,
                   const LevelsView& bwd, cudaStream_t stream) {
  const cudaError_t e = check_sor<T>(A, sw, its, fwd, bwd);
  if (e != cudaSuccess || A.layout.nrows == 0) return e;
  return enqueue_sor<T>(A, b, x, nullptr, omega, sw, its, mdiag, idiag, t, fwd, bwd, stream);
}

template <class T>
SorGraph<T>::~SorGraph() {
  reset();
}

template <class T>
void SorGraph<T>::drop(Slot& s) noexcept {
  // errors ignored: nothing left to do with a handle that cannot be freed
  if (s.exec) cudaGraphExecDestroy(s.exec);
  if (s.graph) cudaGraphDestroy(s.graph);
  if (s.io) cudaFree(s.io);
  s = Slot{};
}

template <class T>
void SorGraph<T>::reset() noexcept {
  for (Slot& s : slots_) drop(s);
}

template <class T>
cudaError_t SorGraph<T>::record(Slot& s, const Key& key, const HmView<const T>& A, const T* b, T* x, T omega,
                                SorSweeps sw, Index its, const T* mdiag, const T* idiag, T* t, const LevelsView& fwd,
                                const LevelsView& bwd) {
  drop(s);
  cudaError_t e = cudaMalloc(&s.io, sizeof(SorIo<T>));
  if (e != cudaSuccess) {
    s.io = nullptr;
    return e;
  }
  // a private stream: the caller's may be the legacy default stream, which cannot be captured
  cudaStream_t cs = nullptr;
  if ((e = cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking)) != cudaSuccess) {
    drop(s);
    return e;
  }
  e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
  if (e == cudaSuccess) {
    SorIo<T>* io = static_cast<SorIo<T>*>(s.io);
    sor_bind_kernel<T><<<1, 1, 0, cs>>>(io, b, x);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = enqueue_sor<T>(A, nullptr, nullptr, io, omega, sw, its, mdiag, idiag, t, fwd, bwd, cs);
    cudaGraph_t graph = nullptr;
    const cudaError_t ee = cudaStreamEndCapture(cs, &graph);  // always ends the capture
    if (e == cudaSuccess) e = ee;
    s.graph = graph;
  }
  const cudaError_t es = cudaStreamDestroy(cs);
  if (e == cudaSuccess) e = es;
  if (e == cudaSuccess && !s.graph) e = cudaErrorStreamCaptureInvalidated;
  // the bind node: the graph's one root (the capture is one chain)
  std::size_t nroots = 0;
  if (e == cudaSuccess) e = cudaGraphGetRootNodes(s.graph, nullptr, &nroots);
  if (e == cudaSuccess && nroots != 1) e = cudaErrorInvalidValue;
  if (e == cudaSuccess) e = cudaGraphGetRootNodes(s.graph, &s.bind, &nroots);
  if (e == cudaSuccess) e = cudaGraphInstantiate(&s.exec, s.graph, 0);
  if (e != cudaSuccess) {
    drop(s);
    return e;
  }
  s.b = b;
  s.x = x;
  s.key = key;
  ++recordings_;
  return cudaSuccess;
}

template <class T>
cudaError_t SorGraph<T>::sweep(const HmView<const T>& A, const T* b, T* x, T omega, SorSweeps sw, Index its,
                               const T* mdiag, const T* idiag, T* t, const LevelsView& fwd, const LevelsView& bwd,
                               cudaStream_t stream) {
  cudaError_t e = check_sor<T>(A, sw, its, fwd, bwd);
  if (e != cudaSuccess || A.layout.nrows == 0) return e;
  const Key key{A.layout.nrows_global, A.layout.ncols, A.layout.row_begin, A.layout.nrows, A.ndiag, A.offsets, A.start,
                A.val, omega, sw.forward, sw.backward, sw.zero_initial_guess, its, mdiag, idiag, t,
                sw.forward ? fwd.nlevels : 0, sw.forward ? fwd.rows : nullptr, sw.backward ? bwd.nlevels : 0,
                sw.backward ? bwd.rows : nullptr};
  Slot* s = nullptr;
  for (Slot& c : slots_)
    if (c.exec && c.key == key) s = &c;
  if (!s) {  // an empty slot, else the least recently used
    for (Slot& c : slots_)
      if (!s && !c.exec) s = &c;
    if (!s) {
      s = &slots_[0];
      for (Slot& c : slots_)
        if (c.used < s->used) s = &c;
    }
    if ((e = record(*s, key, A, b, x, omega, sw, its, mdiag, idiag, t, fwd, bwd)) != cudaSuccess) return e;
  } else if (s->b != b || s->x != x) {
    SorIo<T>* io = static_cast<SorIo<T>*>(s->io);
    void* args[] = {&io, &b, &x};
    cudaKernelNodeParams kp{};
    kp.func = reinterpret_cast<void*>(sor_bind_kernel<T>);
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.sharedMemBytes = 0;
    kp.kernelParams = args;
    kp.extra = nullptr;
    if ((e = cudaGraphExecKernelNodeSetParams(s->exec, s->bind, &kp)) != cudaSuccess) {
      drop(*s);
      return e;
    }
    s->b = b;
    s->x = x;
  }
  s->used = ++clock_;
  e = cudaGraphLaunch(s->exec, stream);
  if (e != cudaSuccess) drop(*s);
  return e;
}

template class SorGraph<double>;
template class SorGraph<float>;

template cudaError_t hm_sor<double>(const HmView<const double>&, const double*, double*, double, SorSweeps, Index,
                                    const double*, const double*, double*, const LevelsView&, const LevelsView&,
                                    cudaStream_t);
template cudaError_t hm_sor<float>(const HmView<const float>&, const float*, float*, float, SorSweeps, Index,
                                   const float*, const float*, float*, const LevelsView&, const LevelsView&,
                                   cudaStream_t);

}  // namespace pdiag::cuda
