// CUDA numeric phase of products of diagonal-stored matrices (docs/design.md, "Products";
// docs/kernels.md, "SpGEMM" and "SpMM"); the CPU references with the same
// semantics are in pdiag/product.hpp and pdiag/spmm.hpp.
//
// HM x HM, output-stationary (the default, hm_product_numeric):
//  - the work is a set of tasks (row tile of 1024 rows, output diagonal c)
//    taken in order of tile, then c: every code tile * ndiag + c in turn
//    (those that do not meet skipped), or, when C's diagonals are much
//    shorter than its rows, a list built once per plan on the host
//    (DeviceHmPlan::upload). The blocks that run together cover the same rows of C on
//    many output diagonals, so they read the same rows of A (and nearby rows
//    of B) and those stay in L2. Long diagonals give many tasks, short ones
//    one, so neither many short nor few long output diagonals leave the GPU
//    idle; uneven pair counts per diagonal are evened out by the hardware
//    block scheduler over the (many) tasks;
//  - a block (256 threads, 4 rows each, rows tx + 256 j: every warp load is
//    32 consecutive entries of one diagonal) stages the pair list of its
//    output diagonal in shared memory in chunks of 256 pairs: per pair the
//    value bases into A and B and the rows of the tile the pair covers,
//    computed once per block from the pair's diagonals (the transposes are
//    applied here: negated offsets, transposed layouts, the stored value
//    positions unchanged);
//  - each thread sums its 4 rows over the pairs in registers, two loads and
//    an FMA per term, and writes each entry of C once: no atomics, no
//    scatter, no zeroing pass, deterministic (pairs in plan order, as the
//    CPU reference).
// The paper's two kernels are kept as reference variants for bench/:
// Algorithm 2 (hm_product_numeric_atomic: a thread per stored entry of A,
// atomics into C) and Algorithm 1 (cdm_product_numeric_tiled: CDM, 16 x 16
// tiles of A's compact diagonals in shared memory).
//
// SpMM (hm_spmm, cdm_spmm): one kernel for both schemes, in the shape of the
// SpMV kernels (a thread per row, per-diagonal metadata staged in shared
// memory in chunks) with a group of up to 8 columns per thread: each loaded
// value of A serves all of them.
//
// Grids are capped in each dimension (grid.cuh) and blocks stride over the
// remaining work, as in spmv.cu.
#include "pdiag/product_cuda.hpp"

#include "grid.cuh"

#include <utility>
#include <vector>

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;  // threads per block (1D kernels), pairs / diagonals per shared-memory chunk
constexpr int kRows = 4;     // rows of C per thread in the output-stationary product kernel
static_assert(Index(kBlock) * kRows == DevicePlan::kTileRows, "tile of the product schedule");
constexpr int kT = 16;  // tile edge of Algorithm 1 (the paper's T = 2^4)

using grid::capped_blocks;

__host__ __device__ __forceinline__ Index imin(Index a, Index b) { return a < b ? a : b; }
__host__ __device__ __forceinline__ Index imax(Index a, Index b) { return a > b ? a : b; }
__device__ __forceinline__ int chunk(Index count, Index c0) {
  return count - c0 < kBlock ? static_cast<int>(count - c0) : kBlock;
}

// ---- HM x HM, output-stationary ------------------------------------------------
// Task (tile, c): rows [r0, r1) of C's diagonal c (dC, rows [clo, chi)), the
// tile's rows clipped to the diagonal's, local rows l = i - r0 in [0, nr).
// Pair (ka, kb) with effective offsets eA, eB contributes to rows [ib, ie)
// (detail::hm_pair_rows), with opA(i, i + eA) at A.val[start[ka] - LAe.lo(eA)
// + i] and opB(i + eA, i + dC) at B.val[start[kb] - LBe.lo(eB) + eA + i]; the
// shared arrays hold those bases shifted by r0 and [ib, ie) - r0 clipped to
// [0, nr], so the inner loop is val[base + l] for l in range.
template <class T>
__global__ void __launch_bounds__(kBlock)
    hm_product_kernel(DevicePlan P, HmView<const T> A, HmView<const T> B, HmView<T> C, Layout LAe, Layout LBe,
                      bool a_t, bool b_t) {
  __shared__ Index s_av[kBlock], s_bv[kBlock];
  __shared__ int s_lo[kBlock], s_hi[kBlock];
  const Layout LC = P.layout;
  const T* __restrict__ av = A.val;
  const T* __restrict__ bv = B.val;
  // Task and pair loop bounds are uniform across the block, so every thread
  // reaches the __syncthreads below.
  for (Index task = blockIdx.x; task < P.ntasks; task += gridDim.x) {
    const Index code = P.tasks ? P.tasks[task] : task;
    const Index tile = code / P.ndiag;
    const Index c = code - tile * P.ndiag;
    const Index dC = P.offsets[c];
    const Index clo = LC.lo(dC), chi = LC.hi(dC);
    const Index t0 = LC.row_begin + tile * DevicePlan::kTileRows;
    const Index r0 = imax(clo, t0), r1 = imin(chi, t0 + DevicePlan::kTileRows);
    if (r1 <= r0) continue;  // an enumerated (tile, c) that do not meet (no task list)
    const int nr = static_cast<int>(r1 - r0);
    T acc[kRows];
#pragma unroll
    for (int j = 0; j < kRows; ++j) acc[j] = T(0);
    const Index p0 = P.pair_start[c], p1 = P.pair_start[c + 1];
    for (Index q0 = p0; q0 < p1; q0 += kBlock) {
      const int np = chunk(p1, q0);
      if (int(threadIdx.x) < np) {
        const Index p = q0 + threadIdx.x;
        const Index ka = P.pair_a[p], kb = P.pair_b[p];
        const Index dA = A.offsets[ka], dB = B.offsets[kb];
        const Index eA = a_t ? -dA : dA, eB = b_t ? -dB : dB;
        const Index alo = LAe.lo(eA), blo = LBe.lo(eB);
        const Index ib = imax(alo, blo - eA), ie = imin(LAe.hi(eA), LBe.hi(eB) - eA);
        s_lo[threadIdx.x] = static_cast<int>(imin(imax(ib - r0, 0), nr));
        s_hi[threadIdx.x] = static_cast<int>(imin(imax(ie - r0, 0), nr));
        s_av[threadIdx.x] = A.start[ka] - alo + r0;
        s_bv[threadIdx.x] = B.start[kb] - blo + eA + r0;
      }
      __syncthreads();
#pragma unroll 2
      for (int t = 0; t < np; ++t) {
        const int lo = s_lo[t], hi = s_hi[t];
        const Index oa = s_av[t], ob = s_bv[t];
#pragma unroll
        for (int j = 0; j < kRows; ++j) {
          const int l = int(threadIdx.x) + j * kBlock;
          if (l >= lo && l < hi) acc[j] += __ldg(&av[oa + l]) * __ldg(&bv[ob + l]);
        }
      }
      __syncthreads();  // the chunk is overwritten next
    }
    const Index co = C.start[c] - clo + r0;  // C.val[co + l] = C(r0 + l, r0 + l + dC)
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const int l = int(threadIdx.x) + j * kBlock;
      if (l < nr) C.val[co + l] = acc[j];
    }
  }
}

// ---- HM x HM, the paper's Algorithm 2 ----------------------------------------------
// A thread per stored entry q of A (diagonal ka found by binary search over
// A.start, the paper's FindDiagonalByBS): row i of op(A), column i + eA.
// For every diagonal of B (metadata staged in shared memory in chunks) the
// entry opB(i + eA, i + eA + eB) exists when row i + eA is in the
// diagonal's range; the product goes to C(i, i + eA + eB) with an atomic
// add. The grid strides over entries in steps of whole blocks, so the loop
// bound is uniform across a block.
template <class T>
__global__ void __launch_bounds__(kBlock)
    hm_product_atomic_kernel(DevicePlan P, HmView<const T> A, HmView<const T> B, HmView<T> C, Layout LAe, Layout LBe,
                             bool a_t, bool b_t) {
  __shared__ Index s_eb[kBlock], s_bv[kBlock], s_blo[kBlock], s_bhi[kBlock];
  const Layout LC = P.layout;
  const Index nnz = A.start[A.ndiag];
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index base = Index(blockIdx.x) * kBlock; base < nnz; base += stride) {
    const Index q = base + threadIdx.x;
    const bool active = q < nnz;
    Index i = 0, eA = 0;
    T a = T(0);
    if (active) {
      Index lo = 0, hi = A.ndiag - 1;  // the last ka with start[ka] <= q (a non-empty diagonal)
      while (lo < hi) {
        const Index mid = (lo + hi + 1) / 2;
        if (A.start[mid] <= q)
          lo = mid;
        else
          hi = mid - 1;
      }
      const Index dA = A.offsets[lo];
      eA = a_t ? -dA : dA;
      i = LAe.lo(eA) + (q - A.start[lo]);
      a = A.val[q];
    }
    const Index j = i + eA;  // row of op(B)
    for (Index c0 = 0; c0 < B.ndiag; c0 += kBlock) {
      const int nc = chunk(B.ndiag, c0);
      if (int(threadIdx.x) < nc) {
        const Index kb = c0 + threadIdx.x;
        const Index dB = B.offsets[kb];
        const Index eB = b_t ? -dB : dB;
        const Index blo = LBe.lo(eB);
        s_eb[threadIdx.x] = eB;
        s_blo[threadIdx.x] = blo;
        s_bhi[threadIdx.x] = LBe.hi(eB);
        s_bv[threadIdx.x] = B.start[kb] - blo;
      }
      __syncthreads();
      if (active)
        for (int t = 0; t < nc; ++t) {
          if (j < s_blo[t] || j >= s_bhi[t]) continue;
          const Index dC = eA + s_eb[t];
          const Index m = dC - P.cmap_lo;
          if (m < 0 || m >= P.cmap_len) continue;  // only with a plan of other operands
          const int c = P.cmap[m];
          if (c < 0) continue;
          atomicAdd(&C.val[C.start[c] - LC.lo(dC) + i], a * B.val[s_bv[t] + j]);
        }
      __syncthreads();
    }
  }
}

// ---- CDM x CDM, the paper's Algorithm 1 -------------------------------------------
// Block (16 rows) x (16 compact diagonals of C); thread (tx, ty) computes
// C_{kc}[i], kc = C.koffsets[cb * 16 + ty], i = rb * 16 + tx. Per step over
// A's compact diagonals a0 .. a0 + 15:
//   s_a[t][tx]  = opA_{ea_t}[i] = A_{a0+t}[(i + sa) mod n], sa = ea_t if A is
//                 transposed, else 0 (thread (tx, t) loads it: coalesced);
//   s_kb[y][t]  = B's stored index of the compact diagonal eb = kc_y - ea_t
//                 (mod n) of op(B), -1 if absent;
// and C_{kc}[i] += s_a[t][tx] * opB_{eb}[(i + ea_t) mod n], opB_{eb}[r] =
// B_kb[(r + sb) mod n] with sb = 0 as stored, eb when transposed, so the
// index read is (i + (tb ? kc : ea_t)) mod n (pdiag/product.hpp).
__device__ __forceinline__ Index cdm_eff(Index kk, Index n, bool t) { return (t && kk != 0) ? n - kk : kk; }

__device__ __forceinline__ int find_koffset(const Index* __restrict__ koff, Index nd, Index kk) {
  Index lo = 0, hi = nd;  // first index with koff >= kk
  while (lo < hi) {
    const Index mid = (lo + hi) / 2;
    if (koff[mid] < kk)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < nd && koff[lo] == kk) ? static_cast<int>(lo) : -1;
}

template <class T>
__global__ void __launch_bounds__(kT* kT)
    cdm_tiled_kernel(CdmView<const T> A, CdmView<const T> B, CdmView<T> C, bool a_t, bool b_t) {
  __shared__ T s_a[kT][kT];
  __shared__ int s_kb[kT][kT];
  __shared__ Index s_ea[kT];
  const Index n = C.layout.ncols;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const Index nrt = (n + kT - 1) / kT, nct = (C.ndiag + kT - 1) / kT;
  for (Index cb = blockIdx.y; cb < nct; cb += gridDim.y)
    for (Index rb = blockIdx.x; rb < nrt; rb += gridDim.x) {
      const Index i = rb * kT + tx;
      const Index c = cb * kT + ty;
      const bool row_ok = i < n, diag_ok = c < C.ndiag;
      const Index kc = diag_ok ? C.koffsets[c] : 0;
      T acc = T(0);
      for (Index a0 = 0; a0 < A.ndiag; a0 += kT) {
        const int na = A.ndiag - a0 < kT ? static_cast<int>(A.ndiag - a0) : kT;
        if (ty < na) {  // the tile of A: diagonal a0 + ty, row i
          const Index ka = a0 + ty;
          const Index ea = cdm_eff(A.koffsets[ka], n, a_t);
          if (row_ok) {
            Index r = i + (a_t ? ea : 0);
            if (r >= n) r -= n;
            s_a[ty][tx] = A.val[ka * n + r];
          }
          if (tx == 0) s_ea[ty] = ea;
        }
        if (tx < na) {  // B's diagonal for (C diagonal ty, A diagonal a0 + tx)
          int kb = -1;
          if (diag_ok) {
            Index eb = kc - cdm_eff(A.koffsets[a0 + tx], n, a_t);
            if (eb < 0) eb += n;
            kb = find_koffset(B.koffsets, B.ndiag, cdm_eff(eb, n, b_t));
          }
          s_kb[ty][tx] = kb;
        }
        __syncthreads();
        if (row_ok && diag_ok)
          for (int t = 0; t < na; ++t) {
            const int kb = s_kb[ty][t];
            if (kb < 0) continue;
            Index r = i + (b_t ? kc : s_ea[t]);
            if (r >= n) r -= n;
            acc += s_a[t][tx] * B.val[Index(kb) * n + r];
          }
        __syncthreads();
      }
      if (row_ok && diag_ok) C.val[c * n + i] = acc;
    }
}

// ---- SpMM -------------------------------------------------------------------------
// Virtual block vb = (row tile, column group g), g fastest so that blocks
// running together share the rows of A. Thread: local row il, columns
// [j0, j0 + nc), nc <= KC, accumulated in registers. The schemes differ only
// in what a diagonal's metadata is (staged in shared memory per chunk) and
// how a row finds its value and X's row there: the two policies below.

// HM: diagonal q holds local rows [b, e) at val[va + il]; X's row il + xa.
template <class T>
struct HmSpmmScheme {
  using View = HmView<const T>;
  struct Meta {
    Index b, e, va, xa;
  };
  __device__ static Meta meta(const View& A, Index q, const Index* shift, Index xcol) {
    const Layout& L = A.layout;
    const Index d = A.offsets[q];
    const Index b = L.lo(d) - L.row_begin;
    return {b, L.hi(d) - L.row_begin, A.start[q] - b, (shift ? shift[q] : L.row_begin + d) + xcol};
  }
  __device__ static bool entry(const View& A, const Meta& s, Index /*q*/, Index il, T& v, Index& xo) {
    if (il < s.b || il >= s.e) return false;
    v = A.val[s.va + il];
    xo = s.xa + il;
    return true;
  }
};

// CDM: compact diagonal q is a full column of m values (val[q*m + il]); X is
// read at row il + shift[q] above the wrap row w, il + shift[nd + q] from it on.
template <class T>
struct CdmSpmmScheme {
  using View = CdmView<const T>;
  struct Meta {
    Index w, xs, xw;
  };
  __device__ static Meta meta(const View& A, Index q, const Index* shift, Index xcol) {
    const Layout& L = A.layout;
    const Index kk = A.koffsets[q];
    const Index w = L.ncols - kk - L.row_begin;
    return {w < 0 ? 0 : (w > L.nrows ? L.nrows : w), (shift ? shift[q] : L.row_begin + kk) + xcol,
            (shift ? shift[A.ndiag + q] : L.row_begin + kk - L.ncols) + xcol};
  }
  __device__ static bool entry(const View& A, const Meta& s, Index q, Index il, T& v, Index& xo) {
    v = A.val[q * A.layout.nrows + il];
    xo = (il < s.w ? s.xs : s.xw) + il;
    return true;
  }
};

template <class T, int KC, class Scheme>
__global__ void __launch_bounds__(kBlock)
    spmm_kernel(typename Scheme::View A, const T* __restrict__ X, Index ldx, Index k, T* C, Index ldc,
                const Index* __restrict__ shift, Index ngroups) {
  __shared__ typename Scheme::Meta s_meta[kBlock];
  const Index m = A.layout.nrows;
  const Index nvb = ((m + kBlock - 1) / kBlock) * ngroups;
  for (Index vb = blockIdx.x; vb < nvb; vb += gridDim.x) {
    const Index tile = vb / ngroups, g = vb - tile * ngroups;
    const Index il = tile * kBlock + threadIdx.x;
    const bool active = il < m;
    const Index j0 = g * KC;
    const int nc = k - j0 < KC ? static_cast<int>(k - j0) : KC;
    T acc[KC];
#pragma unroll
    for (int q = 0; q < KC; ++q) acc[q] = T(0);
    for (Index c0 = 0; c0 < A.ndiag; c0 += kBlock) {
      const int nd = chunk(A.ndiag, c0);
      if (int(threadIdx.x) < nd) s_meta[threadIdx.x] = Scheme::meta(A, c0 + threadIdx.x, shift, j0 * ldx);
      __syncthreads();
      if (active)
        for (int t = 0; t < nd; ++t) {
          T v;
          Index xo;
          if (!Scheme::entry(A, s_meta[t], c0 + t, il, v, xo)) continue;
#pragma unroll
          for (int q = 0; q < KC; ++q)
            if (q < nc) acc[q] += v * __ldg(&X[xo + q * ldx]);
        }
      __syncthreads();
    }
    if (active) {
#pragma unroll
      for (int q = 0; q < KC; ++q)
        if (q < nc) C[(j0 + q) * ldc + il] = acc[q];
    }
  }
}

// ---- host-side checks ---------------------------------------------------------------

// The layouts of op(A), op(B) and the checks that need no device data: the
// operations, C's layout and number of diagonals as planned, transposed
// operands full, inner dimensions, op(A)'s rows those of C, A and B having
// every diagonal index the pairs use.
bool hm_operands_ok(const DevicePlan& P, const Layout& LA, Index ndA, Trans ta, const Layout& LB, Index ndB, Trans tb,
                    const Layout& LCv, Index ndC, Layout& LAe, Layout& LBe) {
  if (ta != P.ta || tb != P.tb || !(LCv == P.layout) || ndC != P.ndiag) return false;
  if (ndA < P.min_ndiag_a || ndB < P.min_ndiag_b) return false;
  if ((ta == Trans::T && !LA.is_full()) || (tb == Trans::T && !LB.is_full())) return false;
  LAe = ta == Trans::T ? LA.transposed() : LA;
  LBe = tb == Trans::T ? LB.transposed() : LB;
  if (LAe.ncols != LBe.nrows_global) return false;
  return Layout::block(LAe.nrows_global, LBe.ncols, LAe.row_begin, LAe.nrows) == P.layout;
}

bool spmm_args_ok(const Layout& L, Index ldx, Index k, Index ldc, bool default_shift) {
  if (k < 0) return false;
  if (k > 0 && ldc < L.nrows) return false;
  return !(k > 0 && default_shift && ldx < L.ncols);
}

template <class T, int KC, class Scheme>
cudaError_t launch_spmm(const typename Scheme::View& A, const T* X, Index ldx, Index k, T* C, Index ldc,
                        const Index* shift, cudaStream_t stream) {
  const Index ngroups = (k + KC - 1) / KC;
  const Index nvb = ((A.layout.nrows + kBlock - 1) / kBlock) * ngroups;
  spmm_kernel<T, KC, Scheme><<<capped_blocks(nvb), kBlock, 0, stream>>>(A, X, ldx, k, C, ldc, shift, ngroups);
  return cudaGetLastError();
}

// Checks, then the kernel with the smallest column group that holds k (up to 8).
template <class T, class Scheme>
cudaError_t spmm(const typename Scheme::View& A, const T* X, Index ldx, Index k, T* C, Index ldc,
                 const Index* shift, cudaStream_t stream) {
  if (!spmm_args_ok(A.layout, ldx, k, ldc, shift == nullptr)) return cudaErrorInvalidValue;
  if (k == 0 || A.layout.nrows == 0) return cudaSuccess;
  if (k == 1) return launch_spmm<T, 1, Scheme>(A, X, ldx, k, C, ldc, shift, stream);
  if (k == 2) return launch_spmm<T, 2, Scheme>(A, X, ldx, k, C, ldc, shift, stream);
  if (k <= 4) return launch_spmm<T, 4, Scheme>(A, X, ldx, k, C, ldc, shift, stream);
  return launch_spmm<T, 8, Scheme>(A, X, ldx, k, C, ldc, shift, stream);
}

}  // namespace

// ---- DeviceHmPlan -----------------------------------------------------------------------

void DeviceHmPlan::reset() noexcept {
  if (buf_) cudaFree(buf_);  // errors surface at the caller's next checked call
  if (tasks_buf_) cudaFree(tasks_buf_);
  buf_ = nullptr;
  tasks_buf_ = nullptr;
  bytes_ = 0;
  view_ = DevicePlan{};
}

cudaError_t DeviceHmPlan::upload(const HmProductPlan& plan, cudaStream_t stream) {
  reset();
  const Layout& L = plan.layout;
  const Index nd = Index(plan.offsets.size());
  const Index np = Index(plan.pair_a.size());
  const bool no_start = plan.pair_start.empty() && nd == 0;  // a default-constructed plan
  if (!no_start && Index(plan.pair_start.size()) != nd + 1) return cudaErrorInvalidValue;
  if (Index(plan.pair_b.size()) != np || (no_start ? np != 0 : plan.pair_start.back() != np))
    return cudaErrorInvalidValue;
  if (nd > Index(0x7fffffff)) return cudaErrorInvalidValue;  // cmap holds int32 indices
  if (nd > 0 && plan.pair_start[0] != 0) return cudaErrorInvalidValue;
  DevicePlan v;
  v.layout = L;
  v.ta = plan.ta;
  v.tb = plan.tb;
  v.ndiag = nd;
  v.npairs = np;
  v.nmul = plan.nmul;
  for (Index c = 0; c < nd; ++c) {
    if (plan.pair_start[c + 1] < plan.pair_start[c]) return cudaErrorInvalidValue;
    if (c > 0 && plan.offsets[c] <= plan.offsets[c - 1]) return cudaErrorInvalidValue;
    if (!L.valid_offset(plan.offsets[c])) return cudaErrorInvalidValue;
    v.nstored += L.length(plan.offsets[c]);
  }
  for (Index p = 0; p < np; ++p) {
    if (plan.pair_a[p] < 0 || plan.pair_b[p] < 0) return cudaErrorInvalidValue;
    v.min_ndiag_a = imax(v.min_ndiag_a, plan.pair_a[p] + 1);
    v.min_ndiag_b = imax(v.min_ndiag_b, plan.pair_b[p] + 1);
  }

  // C's diagonal index by offset, over [offsets.front(), offsets.back()].
  std::vector<std::int32_t> cmap;
  if (nd > 0) {
    v.cmap_lo = plan.offsets.front();
    v.cmap_len = plan.offsets.back() - plan.offsets.front() + 1;
    cmap.assign(static_cast<std::size_t>(v.cmap_len), -1);
    for (Index c = 0; c < nd; ++c) cmap[plan.offsets[c] - v.cmap_lo] = static_cast<std::int32_t>(c);
  }

  // One buffer: offsets | pair_start | pair_a | pair_b (Index), cmap (int32),
  // each part copied from where it lies on the host; the schedule after.
  const Index zero = 0;
  const std::pair<const void*, std::size_t> parts[] = {
      {plan.offsets.data(), std::size_t(nd) * sizeof(Index)},
      {no_start ? &zero : plan.pair_start.data(), std::size_t(nd + 1) * sizeof(Index)},
      {plan.pair_a.data(), std::size_t(np) * sizeof(Index)},
      {plan.pair_b.data(), std::size_t(np) * sizeof(Index)},
      {cmap.data(), cmap.size() * sizeof(std::int32_t)}};
  std::size_t total = 0;
  for (const auto& part : parts) total += part.second;
  const std::size_t bytes_cmap = cmap.size() * sizeof(std::int32_t), bytes_index = total - bytes_cmap;
  void* buf = nullptr;
  cudaError_t e = cudaMalloc(&buf, total);
  if (e != cudaSuccess) return e;
  std::size_t at = 0;
  for (const auto& part : parts) {
    if (e == cudaSuccess && part.second)
      e = cudaMemcpyAsync(static_cast<char*>(buf) + at, part.first, part.second, cudaMemcpyHostToDevice, stream);
    at += part.second;
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);  // the host arrays may die on return
  if (e != cudaSuccess) {
    cudaFree(buf);
    return e;
  }
  const Index* d = static_cast<const Index*>(buf);
  v.offsets = d;
  v.pair_start = d + nd;
  v.pair_a = d + 2 * nd + 1;
  v.pair_b = v.pair_a + np;
  v.cmap = bytes_cmap ? reinterpret_cast<const std::int32_t*>(static_cast<const char*>(buf) + bytes_index) : nullptr;
  buf_ = buf;
  bytes_ = bytes_index + bytes_cmap;
  view_ = v;
  e = set_tasks(plan.offsets, stream);
  if (e != cudaSuccess) reset();
  return e;
}

// Schedule: tasks (tile, c) by tile, then c. When most (tile, c) meet (the
// usual case: C's diagonals are long), the kernel enumerates every code
// tile * nd + c in order and skips the few that do not: no task list to
// build or copy. Otherwise (C's diagonals much shorter than its rows) the
// list is built by a counting sort over tiles and copied to tasks_buf_.
cudaError_t DeviceHmPlan::set_tasks(const std::vector<Index>& offsets, cudaStream_t stream) {
  const Layout& L = view_.layout;
  const Index nd = Index(offsets.size());
  const Index tile = DevicePlan::kTileRows;
  const Index ntiles = (L.nrows + tile - 1) / tile;
  std::vector<Index> tlo(static_cast<std::size_t>(nd)), thi(static_cast<std::size_t>(nd));
  Index ntasks = 0;
  for (Index c = 0; c < nd; ++c) {
    const Index d = offsets[c];
    tlo[c] = thi[c] = 0;
    if (L.length(d) == 0) continue;
    tlo[c] = (L.lo(d) - L.row_begin) / tile;
    thi[c] = (L.hi(d) - 1 - L.row_begin) / tile + 1;
    ntasks += thi[c] - tlo[c];
  }
  view_.tasks = nullptr;
  if (ntiles * nd <= 2 * ntasks + 65536) {
    view_.ntasks = ntasks ? ntiles * nd : 0;
    return cudaSuccess;
  }
  std::vector<Index> first(static_cast<std::size_t>(ntiles) + 1, 0);  // tasks per tile, then their start
  for (Index c = 0; c < nd; ++c)
    for (Index t = tlo[c]; t < thi[c]; ++t) ++first[t + 1];
  for (Index t = 0; t < ntiles; ++t) first[t + 1] += first[t];
  std::vector<Index> tasks(static_cast<std::size_t>(ntasks));
  for (Index c = 0; c < nd; ++c)
    for (Index t = tlo[c]; t < thi[c]; ++t) tasks[first[t]++] = t * nd + c;
  const std::size_t bytes = tasks.size() * sizeof(Index);
  cudaError_t e = cudaMalloc(&tasks_buf_, bytes);
  if (e != cudaSuccess) {
    tasks_buf_ = nullptr;
    return e;
  }
  e = cudaMemcpyAsync(tasks_buf_, tasks.data(), bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);  // the host array dies on return
  if (e != cudaSuccess) return e;
  view_.tasks = static_cast<const Index*>(tasks_buf_);
  view_.ntasks = ntasks;
  bytes_ += bytes;
  return cudaSuccess;
}

// ---- entry points ----------------------------------------------------------------------

template <class T>
cudaError_t hm_product_numeric(const DevicePlan& plan, const HmView<const nodeduce_t<T>>& A, Trans ta,
                               const HmView<const nodeduce_t<T>>& B, Trans tb, const HmView<T>& C,
                               cudaStream_t stream) {
  Layout LAe, LBe;
  if (!hm_operands_ok(plan, A.layout, A.ndiag, ta, B.layout, B.ndiag, tb, C.layout, C.ndiag, LAe, LBe))
    return cudaErrorInvalidValue;
  if (plan.ntasks == 0) return cudaSuccess;
  hm_product_kernel<T><<<capped_blocks(plan.ntasks), kBlock, 0, stream>>>(plan, A, B, C, LAe, LBe, ta == Trans::T,
                                                                     tb == Trans::T);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_product_numeric_atomic(const DevicePlan& plan, const HmView<const nodeduce_t<T>>& A, Trans ta,
                                      const HmView<const nodeduce_t<T>>& B, Trans tb, const HmView<T>& C,
                                      cudaStream_t stream) {
  Layout LAe, LBe;
  if (!hm_operands_ok(plan, A.layout, A.ndiag, ta, B.layout, B.ndiag, tb, C.layout, C.ndiag, LAe, LBe))
    return cudaErrorInvalidValue;
  if (plan.nstored == 0) return cudaSuccess;
  cudaError_t e = cudaMemsetAsync(C.val, 0, std::size_t(plan.nstored) * sizeof(T), stream);
  if (e != cudaSuccess) return e;
  if (A.ndiag == 0 || B.ndiag == 0) return cudaSuccess;
  // A holds at most min(rows, columns) entries per diagonal; the kernel reads
  // the exact count (A.start[ndiag]) on the device and strides over it.
  const Index bound = A.ndiag * imin(A.layout.nrows, A.layout.ncols);
  if (bound <= 0) return cudaSuccess;
  hm_product_atomic_kernel<T><<<capped_blocks((bound + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      plan, A, B, C, LAe, LBe, ta == Trans::T, tb == Trans::T);
  return cudaGetLastError();
}

template <class T>
cudaError_t cdm_product_numeric_tiled(const CdmView<const nodeduce_t<T>>& A, Trans ta,
                                      const CdmView<const nodeduce_t<T>>& B, Trans tb, const CdmView<T>& C,
                                      cudaStream_t stream) {
  const Index n = C.layout.ncols;
  const Layout L = Layout::square(n);
  if (!(A.layout == L) || !(B.layout == L) || !(C.layout == L)) return cudaErrorInvalidValue;
  if (n == 0 || C.ndiag == 0) return cudaSuccess;
  const dim3 block(kT, kT);
  const dim3 grid(capped_blocks((n + kT - 1) / kT), capped_blocks((C.ndiag + kT - 1) / kT));
  cdm_tiled_kernel<T><<<grid, block, 0, stream>>>(A, B, C, ta == Trans::T, tb == Trans::T);
  return cudaGetLastError();
}

template <class T>
cudaError_t hm_spmm(const HmView<const nodeduce_t<T>>& A, const T* X, Index ldx, Index k, T* C, Index ldc,
                    const Index* shift, cudaStream_t stream) {
  return spmm<T, HmSpmmScheme<T>>(A, X, ldx, k, C, ldc, shift, stream);
}

template <class T>
cudaError_t cdm_spmm(const CdmView<const nodeduce_t<T>>& A, const T* X, Index ldx, Index k, T* C, Index ldc,
                     const Index* shift, cudaStream_t stream) {
  return spmm<T, CdmSpmmScheme<T>>(A, X, ldx, k, C, ldc, shift, stream);
}

#define PDIAG_INSTANTIATE(T)                                                                                       \
  template cudaError_t hm_product_numeric<T>(const DevicePlan&, const HmView<const T>&, Trans,                    \
                                             const HmView<const T>&, Trans, const HmView<T>&, cudaStream_t);      \
  template cudaError_t hm_product_numeric_atomic<T>(const DevicePlan&, const HmView<const T>&, Trans,             \
                                                    const HmView<const T>&, Trans, const HmView<T>&, cudaStream_t); \
  template cudaError_t cdm_product_numeric_tiled<T>(const CdmView<const T>&, Trans, const CdmView<const T>&, Trans, \
                                                    const CdmView<T>&, cudaStream_t);                              \
  template cudaError_t hm_spmm<T>(const HmView<const T>&, const T*, Index, Index, T*, Index, const Index*,         \
                                  cudaStream_t);                                                                   \
  template cudaError_t cdm_spmm<T>(const CdmView<const T>&, const T*, Index, Index, T*, Index, const Index*,       \
                                   cudaStream_t);

PDIAG_INSTANTIATE(double)
PDIAG_INSTANTIATE(float)
#undef PDIAG_INSTANTIATE

}  // namespace pdiag::cuda
