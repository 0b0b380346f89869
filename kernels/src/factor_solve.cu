// Triangular solves with ILU(0) / ICC(0) factors stored by diagonals
// (pdiag/factor_cuda.hpp's hm_factor_solve and hm_factor_solve_tiled).
// Level-scheduled: each pass of pdiag/factor_levels.hpp is one kernel
// launch per level of its schedule, one thread per row of the level (grid
// capped and strided), computing the row by the same factor_pass_row the CPU
// runner uses; launches of one stream run in order, so a level reads the
// final values of the levels before it. Tiled (pdiag/factor_tiles.hpp): one
// launch per pass, a block per tile (see factor_tile_kernel).
#include "pdiag/factor_cuda.hpp"

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

// ---- tiled passes (pdiag/factor_tiles.hpp) ----

// A row's terms in registers: K slots filled in order (the unrolled
// compare keeps the arrays out of local memory), each with the slot in the
// box of the row it reads (-1: another box), found by moving the row's grid
// point by the diagonal's step: no division.
template <class T, int K, SolvePass P>
struct TileTerms {
  const GridStep* steps;
  GridPoint p, origin;
  int nx, ny, tx, ty, tz;
  bool skewed;
  T a[K];
  int code[K];  // the slot (>= 0) of an in-box row, or -(k + 1) for diagonal k's row in another box (registers are scarce)
  int n;
  __device__ __forceinline__ void operator()(T av, Index, Index k) {
    const int sl = tile_slot_of(grid_move(p, steps[k], pass_step_sign<P>(), nx, ny), origin, tx, ty, tz, skewed);
#pragma unroll
    for (int q = 0; q < K; ++q)
      if (q == n) {
        a[q] = av;
        code[q] = sl >= 0 ? sl : -static_cast<int>(k) - 1;
      }
    ++n;
  }
};

// How long a warp sleeps between two reads of a flag it waits for. At
// 257^3 the kernel issued an instruction in about half the cycles of each
// scheduler and kept L2 60% busy (Nsight Compute), and polling adds to
// both (H200, PETSc 3.25, bench_matmult -ilu -n 257, MatSolve median, one
// run each: with the prefetch below 0 ns 3.20 ms, 32 ns 3.15 ms, 200 ns
// 3.07 ms; without it 200 ns 3.00 ms, 400 ns 2.94 ms, 800 ns 2.96 ms,
// 1600 ns 3.04 ms; 129^3: 32 ns with the prefetch 0.90 ms, 400 ns 0.79 ms,
// 800 ns 0.83 ms).
constexpr unsigned kFlagWaitSleepNs = 400;

// A pass's start: a new epoch (the value a finished tile's flag takes), so
// the flags need no clearing between passes: every flag holds an older
// epoch until its tile is done.
__global__ void tile_pass_begin_kernel(unsigned* state) { state[1] += 1; }

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}

// A row's terms by the pass's diagonals: slot q holds diagonal
// factor_pass_diagonal(q), or a zero where the row has no entry there (a
// stored zero, a row past the matrix's edge, a lane past the grid). The
// slots' loads are independent and known without a loop over the
// diagonals; a zero adds nothing to the row's sum (s - 0 * 0 is s, exactly),
// so the sum is the compacted terms' (TileTerms) to the last bit. in_box:
// the box slot of the row a term reads, -1 for a zero or another box's row.
template <SolvePass P, int K, class T>
__device__ __forceinline__ void tile_terms_by_diagonal(const FactorRowsView<T>& F, const Index* off, const Index* base,
                                                       const GridStep* steps, Index i, GridPoint p, GridPoint origin, int nx,
                                                       int ny, int tx, int ty, int tz, bool skewed, T (&a)[K], int (&in_box)[K]) {
  const Index count = factor_pass_count<P>(F.nd, F.main);
#pragma unroll
  for (int q = 0; q < K; ++q) {
    const Index k = factor_pass_diagonal<P>(q, F.nd, F.main);
    Index pos = 0, j = 0;
    a[q] = (i >= 0 && q < count && factor_pass_entry<P>(k, off, base, F.n, i, &pos, &j)) ? F.val[pos] : T(0);
  }
#pragma unroll
  for (int q = 0; q < K; ++q)
    in_box[q] = a[q] != T(0)
                    ? tile_slot_of(grid_move(p, steps[factor_pass_diagonal<P>(q, F.nd, F.main)], pass_step_sign<P>(), nx, ny),
                                   origin, tx, ty, tz, skewed)
                    : -1;
}

// One pass by tiles, a warp per tile (a box of at most 32 rows: lane k
// holds the box's slot k), so that the rounds inside a box synchronize by
// warp votes, not block barriers. The W warps of the grid (one per block,
// all resident: a cooperative launch) take tickets w, w + W, ...; a tile
// waits only for earlier tickets, so the earliest unfinished ticket always
// runs: no deadlock. For its tile a warp (1) loads each row's terms, in_i
// and the inverse, (2) waits for the flags of the tiles its rows read
// (acquire loads), (3) loads those rows' final values from L2 (ld.cg:
// another warp wrote them), (4) computes its rows in rounds: a row goes
// once the rows of the box it reads are done (a ballot), and writes x, (5)
// publishes the tile: after the warp's barrier, lane 0 sets the flag to the
// epoch (a release store: it orders the lanes' writes that the barrier
// ordered before it). Meanwhile it reads its next ticket's record.
//
// Two forms of (1) and (4), by ByDiagonal (the caller's choice: the pass's
// diagonals fit K slots):
// - by diagonal (tile_terms_by_diagonal): a slot per diagonal, loaded
//   without a loop; in the rounds a row reads the box's values once, when
//   it is ready, from shared memory where each row puts its value. The
//   rounds then cost the ready rows' work only (H200, PETSc 3.25,
//   bench_matmult -ilu -n 257: 2.70 ms a MatSolve against 2.80-2.81 ms
//   for the compacted form in the same runs);
// - compacted (TileTerms: the row's nonzeros in order, for rows of fewer
//   terms than the pass has diagonals): every round recomputes each row's
//   sum from the box's values passed by shuffles (a shuffle per slot and
//   round). The same kernel with the shared-memory rounds was slower (3.18
//   ms against 2.80 ms).
// Resident warps decide the speed (H200, bench_matmult -ilu -n 257: 80
// registers, 25 warps a SM, 3.25 ms a MatSolve; two rows a lane, 135
// registers, 15 warps, 4.9 ms; forced down to 64 registers with spills,
// 3.44 ms), hence 72 registers: a row's terms keep one int each (the box
// slot, or for the compacted form a diagonal), no index. The next tile's
// entries are not prefetched: with the rounds' bookkeeping once per tile
// and the longer flag-wait sleep, the prefetch's instructions cost more
// than it saved (3.00 ms without it, 3.07 ms with it, at 200 ns).
template <SolvePass P, int K, bool ByDiagonal, bool Skewed, class T>
__global__ void __launch_bounds__(kTileMaxRows)
    factor_tile_kernel(FactorRowsView<T> F, const T* in, T* x, TilesView S) {
  static_assert(kTileMaxRows == 32, "a tile is a warp");
  constexpr unsigned kAll = 0xffffffffu;
  __shared__ Index s_off[kTileMaxDiagonals], s_base[kTileMaxDiagonals];
  __shared__ GridStep s_step[kTileMaxDiagonals];
  __shared__ T s_box[ByDiagonal ? kTileMaxRows : 1];  // the box's finished rows (by diagonal)
  const int lane = static_cast<int>(threadIdx.x);
  for (Index k = lane; k < F.nd; k += kTileMaxRows) {
    s_off[k] = F.off[k];
    s_base[k] = F.base[k];
    s_step[k] = grid_step(F.off[k], S.grid);
  }
  __syncwarp();
  const unsigned epoch = *reinterpret_cast<volatile const unsigned*>(S.state + 1);
  const int tx = static_cast<int>(S.tx), ty = static_cast<int>(S.ty), tz = static_cast<int>(S.tz);
  const int nx = static_cast<int>(S.grid.nx), ny = static_cast<int>(S.grid.ny);
  const GridPoint local = tile_local(lane, tx, ty);
  Index t = blockIdx.x;
  if (t >= S.ntiles) return;
  int4 r0 = __ldg(reinterpret_cast<const int4*>(S.rec) + 2 * t), r1 = __ldg(reinterpret_cast<const int4*>(S.rec) + 2 * t + 1);
  for (;;) {
    const Index tn = t + gridDim.x;  // the next ticket's record, read now, used at the end
    int4 n0 = r0, n1 = r1;
    if (tn < S.ntiles) {
      n0 = __ldg(reinterpret_cast<const int4*>(S.rec) + 2 * tn);
      n1 = __ldg(reinterpret_cast<const int4*>(S.rec) + 2 * tn + 1);
    }
    const GridPoint origin{r0.x, r0.y, r0.z};
    const GridPoint p = tile_point(origin, local, Skewed);
    const Index i = tile_row_at(origin, local, F.n, S.grid, tz, Skewed);
    // (1) the row's terms: a[q] times x of the box's slot in_box[q], or of
    // the row i + sign off[diagonal[q]] in another box (in_box -1, a != 0)
    T a[K];
    int in_box[K], diagonal[K];
    int nterms = K;
    if constexpr (ByDiagonal) {
      tile_terms_by_diagonal<P, K>(F, s_off, s_base, s_step, i, p, origin, nx, ny, tx, ty, tz, Skewed, a, in_box);
#pragma unroll
      for (int q = 0; q < K; ++q) diagonal[q] = static_cast<int>(factor_pass_diagonal<P>(q, F.nd, F.main));
    } else {
      TileTerms<T, K, P> terms;
      terms.steps = s_step;
      terms.p = p;
      terms.origin = origin;
      terms.nx = nx, terms.ny = ny;
      terms.tx = tx, terms.ty = ty, terms.tz = tz;
      terms.skewed = Skewed;
      terms.n = 0;
      if (i >= 0) factor_pass_terms<P>(s_off, s_base, F.nd, F.main, F.n, F.val, i, terms);
      nterms = terms.n;
#pragma unroll
      for (int q = 0; q < K; ++q) {
        const bool used = q < terms.n;
        a[q] = used ? terms.a[q] : T(0);
        in_box[q] = used && terms.code[q] >= 0 ? terms.code[q] : -1;
        diagonal[q] = used && terms.code[q] < 0 ? -terms.code[q] - 1 : 0;
      }
    }
    T in_i = T(0), inv = T(1);
    if (i >= 0) {
      in_i = in[i];
      if (factor_pass_reads_inverse<P>()) inv = F.val[s_base[F.main] + i];
    }
    // (2) the tiles this one reads
    for (int q = lane; q < r0.w; q += kTileMaxRows) {
      const int dep = r0.w <= 3 ? (q == 0 ? r1.x : q == 1 ? r1.y : r1.z) : S.extra[r1.w + q];
      while (load_acquire(S.flags + dep) != epoch) __nanosleep(kFlagWaitSleepNs);
    }
    __syncwarp();
    // (3) their rows' values, and the lanes each row waits for
    T v[K];
    unsigned waits = 0;
#pragma unroll
    for (int q = 0; q < K; ++q) {
      v[q] = (a[q] != T(0) && in_box[q] < 0) ? __ldcg(x + i + pass_step_sign<P>() * s_off[diagonal[q]]) : T(0);
      if (in_box[q] >= 0) waits |= 1u << in_box[q];
    }
    // (4) the rounds
    bool pending = i >= 0;
    unsigned done = __ballot_sync(kAll, !pending);
    if constexpr (ByDiagonal) {
      for (int round = 0; done != kAll; ++round) {
        if (round > kTileMaxRows) __trap();  // no progress: a cycle inside the box (a broken schedule)
        if (pending && (done & waits) == waits) {
          T s = factor_pass_start<P>(in_i, inv);
#pragma unroll
          for (int q = 0; q < K; ++q) s = factor_pass_add<P>(s, a[q], in_box[q] >= 0 ? s_box[in_box[q]] : v[q]);
          const T xi = factor_pass_finish<P>(s, inv);
          s_box[lane] = xi;
          x[i] = xi;
          pending = false;
        }
        __syncwarp();  // orders the shared-memory writes before the next round's reads
        done = __ballot_sync(kAll, !pending);
      }
    } else {
      int src[K];  // each term's lane (the row's own for a value from outside the box)
#pragma unroll
      for (int q = 0; q < K; ++q) src[q] = in_box[q] >= 0 ? in_box[q] : lane;
      T mine = T(0);
      for (int round = 0; done != kAll; ++round) {
        if (round > kTileMaxRows) __trap();
        const bool ready = pending && (done & waits) == waits;
        T s = factor_pass_start<P>(in_i, inv);
#pragma unroll
        for (int q = 0; q < K; ++q) {
          const T w = __shfl_sync(kAll, mine, src[q]);  // every lane takes part
          if (q < nterms) s = factor_pass_add<P>(s, a[q], src[q] != lane ? w : v[q]);
        }
        if (ready) {
          mine = factor_pass_finish<P>(s, inv);
          x[i] = mine;
          pending = false;
        }
        done = __ballot_sync(kAll, !pending);
      }
    }
    // (5) publish
    __syncwarp();
    if (lane == 0) store_release(S.flags + t, epoch);
    if (tn >= S.ntiles) return;
    t = tn, r0 = n0, r1 = n1;
  }
}

// The warps a cooperative launch of the kernel may have (all resident at once).
template <SolvePass P, int K, bool ByDiagonal, bool Skewed, class T>
cudaError_t resident_warps(unsigned* warps) {
  static unsigned cached = 0;  // per instantiation; the device does not change under a process's kernels
  if (!cached) {
    int dev = 0, nsm = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, factor_tile_kernel<P, K, ByDiagonal, Skewed, T>, kTileMaxRows, 0);
    if (e != cudaSuccess) return e;
    if (nsm < 1 || per_sm < 1) return cudaErrorLaunchOutOfResources;
    cached = static_cast<unsigned>(nsm) * static_cast<unsigned>(per_sm);
  }
  *warps = cached;
  return cudaSuccess;
}

// (skewed boxes a template argument: as a runtime flag its selects cost
// 1.2% at 257^3, 2.656 / 2.661 ms against 2.626 ms, one H200, PETSc 3.25)
template <SolvePass P, int K, bool ByDiagonal, class T>
cudaError_t launch_tile_pass(const FactorRowsView<T>& F, const T* in, T* x, const TilesView& S, cudaStream_t stream) {
  unsigned warps = 0;
  cudaError_t e = S.skewed ? resident_warps<P, K, ByDiagonal, true, T>(&warps) : resident_warps<P, K, ByDiagonal, false, T>(&warps);
  if (e != cudaSuccess) return e;
  const unsigned blocks = S.ntiles < Index(warps) ? static_cast<unsigned>(S.ntiles) : warps;
  FactorRowsView<T> f = F;
  const T* i = in;
  T* o = x;
  TilesView s = S;
  void* args[] = {&f, &i, &o, &s};
  return cudaLaunchCooperativeKernel((S.skewed ? reinterpret_cast<const void*>(factor_tile_kernel<P, K, ByDiagonal, true, T>)
                                                : reinterpret_cast<const void*>(factor_tile_kernel<P, K, ByDiagonal, false, T>)), dim3(blocks),
                                     dim3(kTileMaxRows), args, 0, stream);
}

template <SolvePass P, class T>
cudaError_t run_tile_pass(const FactorRowsView<T>& F, const T* in, T* x, const TilesView& S, cudaStream_t stream) {
  tile_pass_begin_kernel<<<1, 1, 0, stream>>>(S.state);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  // K register slots a row: by diagonal when the pass's diagonals fit (3 for
  // 5/7-point passes, 4 for 9-point ones, 16 for 27-point ones), else the
  // row's nonzeros compacted (rows have at most max_terms)
  const Index count = factor_pass_count<P>(F.nd, F.main);
  if (count <= 3) return launch_tile_pass<P, 3, true, T>(F, in, x, S, stream);
  if (count <= 4) return launch_tile_pass<P, 4, true, T>(F, in, x, S, stream);
  if (count <= kTileMaxTerms) return launch_tile_pass<P, kTileMaxTerms, true, T>(F, in, x, S, stream);
  if (S.max_terms <= 3) return launch_tile_pass<P, 3, false, T>(F, in, x, S, stream);
  return S.max_terms <= 4 ? launch_tile_pass<P, 4, false, T>(F, in, x, S, stream)
                          : launch_tile_pass<P, kTileMaxTerms, false, T>(F, in, x, S, stream);
}

template <class T>
cudaError_t dispatch_tile_pass(SolvePass p, const FactorRowsView<T>& F, const T* in, T* x, const TilesView& S,
                               cudaStream_t stream) {
  switch (p) {
    case SolvePass::L: return run_tile_pass<SolvePass::L>(F, in, x, S, stream);
    case SolvePass::U: return run_tile_pass<SolvePass::U>(F, in, x, S, stream);
    case SolvePass::Ut: return run_tile_pass<SolvePass::Ut>(F, in, x, S, stream);
    case SolvePass::Lt: return run_tile_pass<SolvePass::Lt>(F, in, x, S, stream);
    case SolvePass::IccUt: return run_tile_pass<SolvePass::IccUt>(F, in, x, S, stream);
    case SolvePass::IccU: return run_tile_pass<SolvePass::IccU>(F, in, x, S, stream);
    case SolvePass::IccHalfU: return run_tile_pass<SolvePass::IccHalfU>(F, in, x, S, stream);
  }
  return cudaErrorInvalidValue;
}

// a tiled schedule the kernel can run (its contents are the caller's promise)
bool tiles_usable(const TilesView& S) {
  return S.ntiles > 0 && S.ntiles < (Index(1) << 31) && S.rec && S.extra && S.flags && S.state && S.max_terms >= 0 &&
         S.max_terms <= kTileMaxTerms && S.tx >= 1 && S.ty >= 1 && S.tz >= 1 && S.tx * S.ty * S.tz <= kTileMaxRows &&
         S.grid.nx >= 1 && S.grid.ny >= 1 && S.grid.nz >= 1 && S.grid.nx < kTileMaxSide && S.grid.ny < kTileMaxSide &&
         S.grid.nz < kTileMaxSide;
}

bool covers(const LevelsView& L, Index m) {
  if (L.nlevels < 0 || !L.level_ptr || (m > 0 && !L.rows) || L.level_ptr[0] != 0) return false;
  for (Index l = 0; l < L.nlevels; ++l)
    if (L.level_ptr[l + 1] < L.level_ptr[l]) return false;
  return L.level_ptr[L.nlevels] == m;
}

// The checks both solves make: a factor with its main diagonal (and, for
// the tiled passes, its offsets in shared memory), a solve with passes
// whose schedules `usable` accepts (by kind). cudaErrorInvalidValue, or cudaSuccess.
template <class Usable>
cudaError_t check_solve(Index n, Index nd, Index main, Index max_nd, FactorSolve what, Usable&& usable) {
  if (n < 0 || nd < 1 || nd > max_nd || main < 0 || main >= nd) return cudaErrorInvalidValue;
  const FactorSolveSteps st = factor_solve_steps(what);
  if (st.npasses < 1) return cudaErrorInvalidValue;
  for (int p = 0; p < st.npasses; ++p)
    if (!usable(static_cast<int>(pass_schedule(st.pass[static_cast<std::size_t>(p)])))) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// hm_factor_solve's checks
cudaError_t check_level_solve(Index n, Index nd, Index main, FactorSolve what, const LevelsView* schedules) {
  if (!schedules) return cudaErrorInvalidValue;
  return check_solve(n, nd, main, nd, what, [&](int kind) { return covers(schedules[kind], n); });
}

// The passes of a checked solve of n > 0 rows on stream, in order, each
// enqueued by run_pass(pass, kind, in, in_is_x) (the first reads b, the
// second x), then ICC's final scaling, with x or (io non-null) the x io
// holds when they run.
template <class T, class RunPass>
cudaError_t enqueue_passes(const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x, const SolveIo<T>* io,
                           cudaStream_t stream, RunPass&& run_pass) {
  const FactorSolveSteps st = factor_solve_steps(what);
  for (int p = 0; p < st.npasses; ++p) {
    const SolvePass pass = st.pass[static_cast<std::size_t>(p)];
    const cudaError_t e = run_pass(pass, static_cast<int>(pass_schedule(pass)), p == 0 ? b : static_cast<const T*>(x), p > 0);
    if (e != cudaSuccess) return e;
  }
  if (st.scale_sqrt) {
    factor_scale_sqrt_kernel<T><<<grid::blocks_for(F.n, kBlock), kBlock, 0, stream>>>(F, x, io);
    return cudaGetLastError();
  }
  return cudaSuccess;
}

// The level-scheduled launches of a checked solve, with the vectors b, x
// or (io non-null) those io holds when they run.
template <class T>
cudaError_t enqueue_solve(const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x, const SolveIo<T>* io,
                          const LevelsView* schedules, cudaStream_t stream) {
  return enqueue_passes(F, what, b, x, io, stream, [&](SolvePass pass, int kind, const T* in, bool in_is_x) {
    return dispatch_pass(pass, F, in, x, io, in_is_x, schedules[kind], stream);
  });
}

}  // namespace

template <class T>
cudaError_t hm_factor_solve(const FactorRowsView<nodeduce_t<T>>& F, FactorSolve what, const T* b, T* x,
                            const LevelsView* schedules, cudaStream_t stream) {
  const cudaError_t e = check_level_solve(F.n, F.nd, F.main, what, schedules);
  if (e != cudaSuccess || F.n == 0) return e;
  return enqueue_solve<T>(F, what, b, x, nullptr, schedules, stream);
}

template <class T>
cudaError_t hm_factor_solve_tiled(const FactorRowsView<nodeduce_t<T>>& F, FactorSolve what, const T* b, T* x,
                                  const TilesView* tiles, cudaStream_t stream) {
  if (!tiles) return cudaErrorInvalidValue;
  const cudaError_t e = check_solve(F.n, F.nd, F.main, kTileMaxDiagonals, what, [&](int kind) { return tiles_usable(tiles[kind]); });
  if (e != cudaSuccess || F.n == 0) return e;
  return enqueue_passes<T>(F, what, b, x, nullptr, stream, [&](SolvePass pass, int kind, const T* in, bool) {
    return dispatch_tile_pass(pass, F, in, x, tiles[kind], stream);
  });
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
  cudaError_t e = check_level_solve(F.n, F.nd, F.main, what, schedules);
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
template cudaError_t hm_factor_solve_tiled<double>(const FactorRowsView<double>&, FactorSolve, const double*, double*,
                                                   const TilesView*, cudaStream_t);
template cudaError_t hm_factor_solve_tiled<float>(const FactorRowsView<float>&, FactorSolve, const float*, float*,
                                                  const TilesView*, cudaStream_t);

}  // namespace pdiag::cuda
