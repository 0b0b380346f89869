// The symbolic phase of the HM product on the device
// (cuda::DeviceHmPlan::symbolic): the same plan as pdiag::hm_product_symbolic
// (pdiag/product.hpp), built where the numeric kernels read it, so that a
// first product does not pay for planning on the host and copying the pair
// lists (hundreds of thousands of pairs for the paper's Table 2).
//
// From the operands' offsets (detail::hm_pair_space, on the host: O(nd)):
//  1. count: a block per candidate output diagonal c in [cmin, cmax]; its
//     threads take op(A)'s diagonals q and look for eB = c - eA[q] among
//     op(B)'s (sorted, binary search); a pair counts if its rows meet. Block
//     sums: pairs per c, and the multiply-adds (one atomic per block);
//  2. scan (one block): where each c's pairs start, and C's index of each c
//     that has pairs;
//  3. fill: a block per c with pairs writes C's offset, pair_start and the
//     pairs in order of q (a stable compaction with warp ballots), i.e. in
//     the host plan's order; and cmap over [cmin, cmax].
// Work O(range * ndA * log ndB) on the device, three kernels and two small
// copies back (the totals, then C's offsets, which the host needs for C's
// structure). A range much wider than the pairs is left to the host.
#include "pdiag/product_cuda.hpp"

#include "grid.cuh"

#include <algorithm>
#include <vector>

namespace pdiag::cuda {

namespace {

constexpr int kSymBlock = 128;   // threads per candidate diagonal (count, fill)
constexpr int kScanBlock = 1024; // the single scan block

struct PairSpaceView {
  Index nA = 0, nB = 0, cmin = 0, range = 0;
  const Index *eA, *loA, *hiA, *ka;  // op(A)'s diagonals that meet its rows
  const Index *eB, *loB, *hiB, *kb;  // op(B)'s diagonals, eB ascending, kb: B's index
};

// Index of x in the ascending v[0, n), or -1.
__device__ __forceinline__ Index find_sorted(const Index* v, Index n, Index x) {
  Index lo = 0, hi = n;
  while (lo < hi) {
    const Index mid = (lo + hi) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return (lo < n && v[lo] == x) ? lo : -1;
}

// B's diagonal of the pair (q, c), or -1 when there is none or its rows do not meet; rows in [ib, ie).
__device__ __forceinline__ Index pair_of(const PairSpaceView& S, Index q, Index c, Index& ib, Index& ie) {
  const Index ea = S.eA[q];
  const Index b = find_sorted(S.eB, S.nB, c - ea);
  if (b < 0) return -1;
  ib = max(S.loA[q], S.loB[b] - ea);
  ie = min(S.hiA[q], S.hiB[b] - ea);
  return ie > ib ? b : -1;
}

__global__ void __launch_bounds__(kSymBlock)
    count_kernel(PairSpaceView S, Index* __restrict__ count, unsigned long long* __restrict__ nmul) {
  __shared__ Index s_cnt[kSymBlock / 32];
  __shared__ unsigned long long s_mul[kSymBlock / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (Index r = blockIdx.x; r < S.range; r += gridDim.x) {  // uniform across the block
    const Index c = S.cmin + r;
    Index n = 0;
    unsigned long long m = 0;
    for (Index q = threadIdx.x; q < S.nA; q += kSymBlock) {
      Index ib, ie;
      if (pair_of(S, q, c, ib, ie) >= 0) {
        ++n;
        m += static_cast<unsigned long long>(ie - ib);
      }
    }
    for (int o = 16; o > 0; o /= 2) {
      n += __shfl_down_sync(0xffffffffu, n, o);
      m += __shfl_down_sync(0xffffffffu, m, o);
    }
    if (lane == 0) s_cnt[warp] = n, s_mul[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
      Index tn = 0;
      unsigned long long tm = 0;
      for (int w = 0; w < kSymBlock / 32; ++w) tn += s_cnt[w], tm += s_mul[w];
      count[r] = tn;
      if (tm) atomicAdd(nmul, tm);
    }
    __syncthreads();  // s_cnt is reused for the next c
  }
}

// One block: start[r] = pairs of the candidates before r; index[r] = C's
// index of candidate r (-1 without pairs); totals = {pairs, diagonals}.
__global__ void __launch_bounds__(kScanBlock)
    scan_kernel(const Index* __restrict__ count, Index range, Index* __restrict__ start, Index* __restrict__ index,
                Index* __restrict__ totals) {
  __shared__ Index s_p[kScanBlock], s_d[kScanBlock];
  const Index chunk = (range + kScanBlock - 1) / kScanBlock;
  const Index r0 = min(range, Index(threadIdx.x) * chunk), r1 = min(range, r0 + chunk);
  Index p = 0, d = 0;
  for (Index r = r0; r < r1; ++r) p += count[r], d += count[r] > 0;
  s_p[threadIdx.x] = p;
  s_d[threadIdx.x] = d;
  __syncthreads();
  for (int o = 1; o < kScanBlock; o *= 2) {  // inclusive scan (Hillis-Steele)
    const Index ap = threadIdx.x >= o ? s_p[threadIdx.x - o] : 0, ad = threadIdx.x >= o ? s_d[threadIdx.x - o] : 0;
    __syncthreads();
    s_p[threadIdx.x] += ap;
    s_d[threadIdx.x] += ad;
    __syncthreads();
  }
  p = s_p[threadIdx.x] - p;  // exclusive
  d = s_d[threadIdx.x] - d;
  for (Index r = r0; r < r1; ++r) {
    start[r] = p;
    index[r] = count[r] > 0 ? d : -1;
    p += count[r];
    d += count[r] > 0;
  }
  if (threadIdx.x == kScanBlock - 1) totals[0] = s_p[kScanBlock - 1], totals[1] = s_d[kScanBlock - 1];
}

__global__ void __launch_bounds__(kSymBlock)
    fill_kernel(PairSpaceView S, const Index* __restrict__ count, const Index* __restrict__ start,
                const Index* __restrict__ index, DevicePlan P, Index* __restrict__ offsets, Index* __restrict__ pair_start,
                Index* __restrict__ pair_a, Index* __restrict__ pair_b, std::int32_t* __restrict__ cmap) {
  __shared__ int s_warp[kSymBlock / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (Index r = blockIdx.x; r < S.range; r += gridDim.x) {  // uniform across the block
    const Index k = index[r];
    if (threadIdx.x == 0) cmap[r] = static_cast<std::int32_t>(k);
    if (k < 0) continue;
    const Index c = S.cmin + r;
    Index at = start[r];
    if (threadIdx.x == 0) {
      offsets[k] = c;
      pair_start[k] = at;
      if (k + 1 == P.ndiag) pair_start[k + 1] = at + count[r];
    }
    for (Index q0 = 0; q0 < S.nA; q0 += kSymBlock) {
      const Index q = q0 + threadIdx.x;
      Index ib = 0, ie = 0, b = -1;
      if (q < S.nA) b = pair_of(S, q, c, ib, ie);
      const unsigned ballot = __ballot_sync(0xffffffffu, b >= 0);
      if (lane == 0) s_warp[warp] = __popc(ballot);
      __syncthreads();
      int before = 0, total = 0;
      for (int w = 0; w < kSymBlock / 32; ++w) {
        before += w < warp ? s_warp[w] : 0;
        total += s_warp[w];
      }
      if (b >= 0) {
        const Index p = at + before + __popc(ballot & ((1u << lane) - 1u));
        pair_a[p] = S.ka[q];
        pair_b[p] = S.kb[b];
      }
      at += total;
      __syncthreads();  // s_warp is rewritten next
    }
  }
}

unsigned grid_for(Index range) { return grid::capped_blocks(range); }

}  // namespace

cudaError_t DeviceHmPlan::symbolic(const Layout& LA, const std::vector<Index>& offA, Trans ta, const Layout& LB,
                                   const std::vector<Index>& offB, Trans tb, HmProductPlan* host,
                                   cudaStream_t stream) {
  const detail::HmPairSpace ps = detail::hm_pair_space(LA, offA, ta, LB, offB, tb);  // throws for bad operands
  const Index nA = Index(ps.eA.size()), nB = Index(ps.eB.size());
  const Index range = ps.cmax - ps.cmin + 1;
  if (nA == 0 || nB == 0 || range > 4 * nA * nB + 65536) return cudaErrorNotSupported;
  reset();
  *host = HmProductPlan();
  host->layout = ps.layout;
  host->ta = ta;
  host->tb = tb;

  // inputs: op(A)'s eA, loA, hiA, ka; op(B)'s diagonals in ascending eB
  std::vector<Index> in;
  in.reserve(std::size_t(4 * (nA + nB)));
  for (const std::vector<Index>* v : {&ps.eA, &ps.loA, &ps.hiA, &ps.ka}) in.insert(in.end(), v->begin(), v->end());
  std::vector<Index> order(static_cast<std::size_t>(nB));
  for (Index b = 0; b < nB; ++b) order[b] = tb == Trans::T ? nB - 1 - b : b;  // negated offsets descend
  for (const std::vector<Index>* v : {&ps.eB, &ps.loB, &ps.hiB})
    for (Index b : order) in.push_back((*v)[b]);
  in.insert(in.end(), order.begin(), order.end());
  // scratch: inputs | count | start | index | totals (2) | nmul
  const std::size_t n_scratch = in.size() + 3 * std::size_t(range) + 3;
  void* scratch = nullptr;
  cudaError_t e = cudaMalloc(&scratch, n_scratch * sizeof(Index));
  if (e != cudaSuccess) return e;
  Index* const sp = static_cast<Index*>(scratch);
  PairSpaceView S;
  S.nA = nA;
  S.nB = nB;
  S.cmin = ps.cmin;
  S.range = range;
  S.eA = sp;
  S.loA = sp + nA;
  S.hiA = sp + 2 * nA;
  S.ka = sp + 3 * nA;
  S.eB = sp + 4 * nA;
  S.loB = S.eB + nB;
  S.hiB = S.eB + 2 * nB;
  S.kb = S.eB + 3 * nB;
  Index* const count = sp + in.size();
  Index* const start = count + range;
  Index* const index = start + range;
  Index* const totals = index + range;
  unsigned long long* const nmul = reinterpret_cast<unsigned long long*>(totals + 2);
  Index tot[3] = {0, 0, 0};
  e = cudaMemcpyAsync(sp, in.data(), in.size() * sizeof(Index), cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(nmul, 0, sizeof(unsigned long long), stream);
  if (e == cudaSuccess) {
    count_kernel<<<grid_for(range), kSymBlock, 0, stream>>>(S, count, nmul);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) {
    scan_kernel<<<1, kScanBlock, 0, stream>>>(count, range, start, index, totals);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(tot, totals, 3 * sizeof(Index), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  const Index np = tot[0], nd = tot[1];
  host->nmul = tot[2];
  // the plan's buffer: offsets | pair_start | pair_a | pair_b (Index), cmap over [cmin, cmax] (int32)
  const std::size_t bytes_index = std::size_t(nd + nd + 1 + 2 * np) * sizeof(Index);
  const std::size_t bytes_cmap = std::size_t(range) * sizeof(std::int32_t);
  if (e == cudaSuccess && nd > Index(0x7fffffff)) e = cudaErrorInvalidValue;  // cmap holds int32 indices
  if (e == cudaSuccess) e = cudaMalloc(&buf_, bytes_index + bytes_cmap);
  if (e != cudaSuccess) {
    buf_ = nullptr;
    cudaFree(scratch);
    return e;
  }
  bytes_ = bytes_index + bytes_cmap;
  Index* const d = static_cast<Index*>(buf_);
  DevicePlan v;
  v.layout = ps.layout;
  v.ta = ta;
  v.tb = tb;
  v.ndiag = nd;
  v.npairs = np;
  v.nmul = host->nmul;
  v.min_ndiag_a = ps.ka.back() + 1;
  v.min_ndiag_b = nB;
  v.offsets = d;
  v.pair_start = d + nd;
  v.pair_a = d + 2 * nd + 1;
  v.pair_b = v.pair_a + np;
  v.cmap_lo = ps.cmin;
  v.cmap_len = range;
  v.cmap = reinterpret_cast<const std::int32_t*>(static_cast<const char*>(buf_) + bytes_index);
  if (nd == 0) e = cudaMemsetAsync(d, 0, sizeof(Index), stream);  // pair_start = {0}
  if (e == cudaSuccess) {
    fill_kernel<<<grid_for(range), kSymBlock, 0, stream>>>(S, count, start, index, v, d, d + nd, d + 2 * nd + 1,
                                                           d + 2 * nd + 1 + np, const_cast<std::int32_t*>(v.cmap));
    e = cudaGetLastError();
  }
  host->offsets.resize(static_cast<std::size_t>(nd));
  if (e == cudaSuccess && nd)
    e = cudaMemcpyAsync(host->offsets.data(), d, std::size_t(nd) * sizeof(Index), cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  const cudaError_t ef = cudaFree(scratch);
  if (e == cudaSuccess) e = ef;
  if (e == cudaSuccess) {
    for (Index c : host->offsets) v.nstored += ps.layout.length(c);
    view_ = v;
    e = set_tasks(host->offsets, stream);
  }
  if (e != cudaSuccess) {
    reset();
    *host = HmProductPlan();
  }
  return e;
}

}  // namespace pdiag::cuda
