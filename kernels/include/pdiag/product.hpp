// CPU reference kernels for products of two diagonal-stored matrices
// (C = op(A) op(B), op = identity or transpose), in HM and in CDM, split
// into a symbolic phase (offsets only) and a numeric phase (values only),
// as docs/design.md ("Products") describes. Products with a dense block
// (SpMM) are in pdiag/spmm.hpp, included at the end.
//
// Math. C = A B has diagonal dC = dA + dB for every pair (dA, dB), and
//   C(i, i + dC) += A(i, i + dA) * B(i + dA, i + dC).
// A transpose is never formed: A^T has diagonal -d wherever A has d, with
// the same values. In HM, for a full M x K matrix A, the transposed
// diagonal e = -d holds (A^T)(i, i + e) = A(i + e, i) at the same position
//   val[start[k] + i - lo_T(e)],   lo_T = the lo() of A^T's layout (K x M),
// because lo_T(-d) = lo(d) + d and hi_T(-d) = hi(d) + d. So a transposed
// operand is A's own storage read with negated offsets and the transposed
// layout, and AB, AtB, ABt and AtBt run the same numeric loop, every access
// stride-1. In CDM (N x N), (A^T)_k[i] = A_{(N-k) mod N}[(i + k) mod N]: the
// paper's reverse compact diagonal, read in place.
//
// Numeric phase, output-stationary: for each output diagonal, for a chunk
// of its rows, sum the diagonal's pair list into the chunk (no atomics, no
// scatter; the chunk stays in L1 while the pairs pass over it, four pairs
// per pass where they cover the whole chunk). This is the
// loop structure of the CUDA kernel (one thread per output row); the
// paper's Algorithm 2 (one thread per nonzero of A, thirteen cases,
// atomics) is only a test oracle here (tests/kernels/test_products_cpu.cpp).
#pragma once

#include "pdiag/cpu.hpp"
#include "pdiag/format.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace pdiag {

/// Which operand is used as stored (N) or transposed (T), without forming it.
enum class Trans { N, T };

inline const char* trans_name(Trans t) { return t == Trans::T ? "T" : "N"; }

/// Symbolic result of an HM product C = op(A) op(B): C's layout and
/// diagonals, and for each of C's diagonals c the pairs (pair_a[p],
/// pair_b[p]), p in [pair_start[c], pair_start[c+1]), of indices into A's
/// and B's stored diagonal arrays whose (possibly negated) offsets sum to
/// offsets[c] and whose row ranges overlap. Pairs of one output diagonal are
/// ordered by A's index, then B's.
struct HmProductPlan {
  Layout layout;                  ///< C's layout (the row block of op(A), op(B)'s columns)
  std::vector<Index> offsets;     ///< C's diagonals, ascending; each has at least one pair
  std::vector<Index> pair_start;  ///< size offsets.size() + 1
  std::vector<Index> pair_a, pair_b;
  Trans ta = Trans::N, tb = Trans::N;  ///< the operations the plan was made for
  Index nmul = 0;                      ///< scalar multiply-adds of the numeric phase (flops = 2 nmul)
};

/// Symbolic result of a CDM product: C's compact diagonals and, for each,
/// the pairs of A's and B's compact-diagonal indices with (ka' + kb') mod n
/// == koffsets[c], ka', kb' the effective (transposed where asked) ones.
struct CdmProductPlan {
  Index n = 0;
  std::vector<Index> koffsets;  ///< C's compact diagonals, ascending
  std::vector<Index> pair_start;
  std::vector<Index> pair_a, pair_b;
  Trans ta = Trans::N, tb = Trans::N;
  Index nmul = 0;  ///< n * number of pairs
};

namespace detail {

inline std::string layout_str(const Layout& L) {
  std::string s = std::to_string(L.nrows_global) + "x" + std::to_string(L.ncols);
  if (!L.is_full()) s += " (rows [" + std::to_string(L.row_begin) + ", " + std::to_string(L.row_end()) + "))";
  return s;
}

/// The layout of op(X): X's own, or (full layouts only) its transpose.
inline Layout op_layout(const Layout& L, Trans t, const char* name) {
  check_layout(L);
  if (t == Trans::N) return L;
  if (!L.is_full())
    throw FormatError(std::string("product: transposed operand ") + name + " must hold all its rows, not the block " +
                      layout_str(L));
  return L.transposed();
}

/// Offset of stored diagonal d as seen in op(X).
inline Index op_offset(Index d, Trans t) { return t == Trans::T ? -d : d; }

template <class OffsetAt>
inline void check_offsets(const Layout& L, Index nd, OffsetAt off, const char* name) {
  for (Index q = 0; q < nd; ++q) {
    const Index d = off(q);
    if (!L.valid_offset(d))
      throw FormatError(std::string("product: diagonal ") + std::to_string(d) + " of " + name + " outside the matrix " +
                        layout_str(L));
    if (q > 0 && off(q - 1) >= d) throw FormatError(std::string("product: offsets of ") + name + " not ascending");
  }
}

/// Checks op(A) op(B) for an HM product and returns C's layout. LAe, LBe
/// are the layouts of op(A), op(B); offA(q) is A's stored offset q. Throws
/// FormatError on a dimension mismatch, a transposed row block, or a row
/// block of B missing rows that A's entries reach.
template <class OffsetAt>
inline Layout hm_product_layout(const Layout& LA, Index ndA, OffsetAt offA, Trans ta, const Layout& LB, Trans tb,
                                Layout& LAe, Layout& LBe) {
  LAe = op_layout(LA, ta, "A");
  LBe = op_layout(LB, tb, "B");
  if (LAe.ncols != LBe.nrows_global)
    throw FormatError("product: inner dimensions differ: op(A) is " + layout_str(LAe) + " (op = " + trans_name(ta) +
                      "), op(B) is " + layout_str(LBe) + " (op = " + trans_name(tb) + ")");
  if (!LBe.is_full())
    for (Index q = 0; q < ndA; ++q) {
      const Index e = op_offset(offA(q), ta);
      if (LAe.length(e) == 0) continue;
      const Index c0 = LAe.lo(e) + e, c1 = LAe.hi(e) + e;  // columns of op(A) this diagonal reaches
      if (c0 < LBe.row_begin || c1 > LBe.row_end())
        throw FormatError("product: diagonal " + std::to_string(e) + " of op(A) reaches rows [" + std::to_string(c0) +
                          ", " + std::to_string(c1) + ") of B, but the block of B holds rows [" +
                          std::to_string(LBe.row_begin) + ", " + std::to_string(LBe.row_end()) + ")");
    }
  return Layout::block(LAe.nrows_global, LBe.ncols, LAe.row_begin, LAe.nrows);
}

/// Rows i of C where pair (eA, eB) contributes: i in A's rows of eA and
/// i + eA in B's rows of eB. Empty when first >= second.
inline void hm_pair_rows(const Layout& LAe, Index eA, const Layout& LBe, Index eB, Index& ib, Index& ie) {
  ib = std::max(LAe.lo(eA), LBe.lo(eB) - eA);
  ie = std::min(LAe.hi(eA), LBe.hi(eB) - eA);
}

/// One pair record of the symbolic phase, sorted by (c, a, b).
struct PairRec {
  Index c, a, b;
  bool operator<(const PairRec& o) const { return c != o.c ? c < o.c : (a != o.a ? a < o.a : b < o.b); }
};

/// Builds the pair lists of a symbolic phase: offsets (the output diagonals
/// that get pairs, ascending), pair_start, pair_a, pair_b, with the pairs
/// of each output diagonal in (a, b) order. pair(a, b, c) says whether
/// A's diagonal a and B's diagonal b contribute, and to which output
/// diagonal c, which lies in [cmin, cmax]; it is asked once or twice per
/// pair. pair_a gets a_index[a] (a itself without a_index).
/// When that range is not much wider than the ndA * ndB candidate pairs,
/// two passes over the pairs (count per c, then place) write the plan's
/// arrays directly: a stable counting sort without an intermediate record
/// array (the first product's host time is mostly allocation and memory
/// traffic, so none is spent on records). Otherwise records are sorted.
template <class Plan, class PairOf>
inline void group_pairs(Index ndA, Index ndB, Index cmin, Index cmax, PairOf pair, Plan& plan,
                        std::vector<Index>& offsets, const Index* a_index = nullptr) {
  const auto a_of = [&](Index a) { return a_index ? a_index[a] : a; };
  offsets.clear();
  plan.pair_start.assign(1, 0);
  plan.pair_a.clear();
  plan.pair_b.clear();
  if (ndA == 0 || ndB == 0 || cmax < cmin) return;
  const Index range = cmax - cmin + 1;
  Index c;
  if (range <= 4 * ndA * ndB + 4096) {
    std::vector<Index> pos(static_cast<std::size_t>(range), 0);  // pairs per c, then where c's next pair goes
    Index* const cnt = pos.data() - cmin;                          // cnt[c] for c in [cmin, cmax]
    for (Index a = 0; a < ndA; ++a)
      for (Index b = 0; b < ndB; ++b)
        if (pair(a, b, c)) ++cnt[c];
    Index np = 0, nc = 0;
    for (Index q = 0; q < range; ++q) nc += pos[static_cast<std::size_t>(q)] != 0;
    offsets.reserve(static_cast<std::size_t>(nc));
    plan.pair_start.reserve(static_cast<std::size_t>(nc) + 1);
    for (Index q = 0; q < range; ++q) {
      const Index k = pos[static_cast<std::size_t>(q)];
      if (k == 0) continue;
      offsets.push_back(cmin + q);
      pos[static_cast<std::size_t>(q)] = np;
      np += k;
      plan.pair_start.push_back(np);
    }
    plan.pair_a.resize(static_cast<std::size_t>(np));
    plan.pair_b.resize(static_cast<std::size_t>(np));
    Index* const pa = plan.pair_a.data();
    Index* const pb = plan.pair_b.data();
    for (Index a = 0; a < ndA; ++a) {
      const Index ia = a_of(a);
      for (Index b = 0; b < ndB; ++b)
        if (pair(a, b, c)) {
          const Index p = cnt[c]++;
          pa[p] = ia;
          pb[p] = b;
        }
    }
    return;
  }
  std::vector<PairRec> recs;
  for (Index a = 0; a < ndA; ++a)
    for (Index b = 0; b < ndB; ++b)
      if (pair(a, b, c)) recs.push_back({c, a_of(a), b});
  std::sort(recs.begin(), recs.end());
  plan.pair_a.resize(recs.size());
  plan.pair_b.resize(recs.size());
  for (std::size_t p = 0; p < recs.size(); ++p) {
    if (offsets.empty() || offsets.back() != recs[p].c) {
      if (!offsets.empty()) plan.pair_start.push_back(Index(p));
      offsets.push_back(recs[p].c);
    }
    plan.pair_a[p] = recs[p].a;
    plan.pair_b[p] = recs[p].b;
  }
  if (!offsets.empty()) plan.pair_start.push_back(Index(recs.size()));
}

template <class Plan>
inline void check_plan_pairs(const Plan& plan, Index ndA, Index ndB, Index ndC, const char* what) {
  if (Index(plan.pair_start.size()) != ndC + 1 || plan.pair_a.size() != plan.pair_b.size() ||
      plan.pair_start.back() != Index(plan.pair_a.size()))
    throw FormatError(std::string(what) + ": plan and C do not match (number of diagonals)");
  for (std::size_t p = 0; p < plan.pair_a.size(); ++p)
    if (plan.pair_a[p] < 0 || plan.pair_a[p] >= ndA || plan.pair_b[p] < 0 || plan.pair_b[p] >= ndB)
      throw FormatError(std::string(what) + ": plan refers to diagonals A or B does not have (stale plan?)");
}

}  // namespace detail

namespace detail {
/// What both symbolic phases (pdiag::hm_product_symbolic here, the device's
/// cuda::DeviceHmPlan::symbolic) start from, after checking the operands
/// (FormatError as hm_product_symbolic): C's layout, op(A)'s diagonals that
/// meet its rows (eA, with A's index ka), op(B)'s diagonals (eB, B's order),
/// the row range of every diagonal, and the range [cmin, cmax] of the sums.
/// Pair (q, b) contributes to rows [ib, ie) of C's diagonal eA[q] + eB[b].
struct HmPairSpace {
  Layout layout, LAe, LBe;
  std::vector<Index> eA, ka, eB, loA, hiA, loB, hiB;
  Index cmin = 0, cmax = -1;
  void rows(std::size_t q, std::size_t b, Index& ib, Index& ie) const {
    ib = std::max(loA[q], loB[b] - eA[q]);
    ie = std::min(hiA[q], hiB[b] - eA[q]);
  }
};

inline HmPairSpace hm_pair_space(const Layout& LA, const std::vector<Index>& offA, Trans ta, const Layout& LB,
                                 const std::vector<Index>& offB, Trans tb) {
  const Index ndA = Index(offA.size()), ndB = Index(offB.size());
  const auto offA_at = [&](Index q) { return offA[std::size_t(q)]; };
  const auto offB_at = [&](Index q) { return offB[std::size_t(q)]; };
  check_offsets(LA, ndA, offA_at, "A");
  check_offsets(LB, ndB, offB_at, "B");
  HmPairSpace ps;
  ps.layout = hm_product_layout(LA, ndA, offA_at, ta, LB, tb, ps.LAe, ps.LBe);
  for (Index a = 0; a < ndA; ++a) {
    const Index e = op_offset(offA[std::size_t(a)], ta);
    if (ps.LAe.length(e) == 0) continue;
    ps.eA.push_back(e);
    ps.ka.push_back(a);
    ps.loA.push_back(ps.LAe.lo(e));
    ps.hiA.push_back(ps.LAe.hi(e));
  }
  for (Index b = 0; b < ndB; ++b) {
    const Index e = op_offset(offB[std::size_t(b)], tb);
    ps.eB.push_back(e);
    ps.loB.push_back(ps.LBe.lo(e));
    ps.hiB.push_back(ps.LBe.hi(e));
  }
  if (!ps.eA.empty() && !ps.eB.empty()) {
    const auto [amin, amax] = std::minmax_element(ps.eA.begin(), ps.eA.end());
    const auto [bmin, bmax] = std::minmax_element(ps.eB.begin(), ps.eB.end());
    ps.cmin = *amin + *bmin;
    ps.cmax = *amax + *bmax;
  }
  return ps;
}
}  // namespace detail

/// Symbolic phase of the HM product C = op(A) op(B) from layouts and stored
/// offsets alone (ascending, as in HmMatrix), O(ndiagA * ndiagB) pairs, no
/// value touched. C's diagonals are the sums eA + eB of the (negated where
/// transposed) offsets whose row ranges overlap, i.e. the sum set clipped to
/// the offsets C can hold; pairs that meet no row are dropped, so a product
/// that is structurally zero has no diagonals.
/// A may be a row block (A's layout.row_begin > 0) with ta = N; then C is
/// the same row block of the product, and B (tb = N) may be a row block
/// that must hold every row A's entries reach. Transposed operands must be
/// full. Throws FormatError for mismatched dimensions or such blocks.
inline HmProductPlan hm_product_symbolic(const Layout& LA, const std::vector<Index>& offA, Trans ta, const Layout& LB,
                                         const std::vector<Index>& offB, Trans tb) {
  const detail::HmPairSpace ps = detail::hm_pair_space(LA, offA, ta, LB, offB, tb);
  HmProductPlan plan;
  plan.layout = ps.layout;
  plan.ta = ta;
  plan.tb = tb;
  plan.pair_start.assign(1, 0);
  const Index nA = Index(ps.eA.size()), nB = Index(ps.eB.size());
  if (nA == 0 || nB == 0) return plan;
  const auto pair = [&](Index q, Index b, Index& c) {
    Index ib, ie;
    ps.rows(std::size_t(q), std::size_t(b), ib, ie);
    c = ps.eA[std::size_t(q)] + ps.eB[std::size_t(b)];
    return ie > ib;
  };
  detail::group_pairs(nA, nB, ps.cmin, ps.cmax, pair, plan, plan.offsets, ps.ka.data());
  // the multiply-adds: per diagonal of op(A), the rows of its pairs
  for (Index q = 0; q < nA; ++q)
    for (Index b = 0; b < nB; ++b) {
      Index ib, ie;
      ps.rows(std::size_t(q), std::size_t(b), ib, ie);
      plan.nmul += ie > ib ? ie - ib : 0;
    }
  return plan;
}

/// Convenience overload: the plan of op(A) op(B) for two HM matrices.
template <class T>
HmProductPlan hm_product_symbolic(const HmMatrix<T>& A, Trans ta, const HmMatrix<T>& B, Trans tb) {
  return hm_product_symbolic(A.layout, A.offsets, ta, B.layout, B.offsets, tb);
}

/// A zero HM matrix with the plan's layout and diagonals, ready for
/// hm_product_numeric.
template <class T>
HmMatrix<T> hm_product_alloc(const HmProductPlan& plan) {
  return HmMatrix<T>(plan.layout, plan.offsets);
}

/// Numeric phase of the HM product: C = op(A) op(B), C overwritten (every
/// stored entry of C is written). A, B must have the layouts and diagonals
/// the plan was made from, and C the plan's (hm_product_alloc). Each output
/// diagonal is computed from its pair list, row chunk by row chunk:
///   C(i, i + dC) = sum over pairs of opA(i, i + eA) * opB(i + eA, i + dC),
/// three stride-1 streams per pair. Throws FormatError when the views do not
/// match the plan (layouts, number of diagonals, offsets of the pairs).
/// With nonzero (C's nstored() entries), nonzero[p] = (C.val[p] != 0) is
/// written too, from each row chunk while it is still in cache: the mask of
/// a result's nonzero entries without a second pass over C's values.
template <class T>
void hm_product_numeric(const HmProductPlan& plan, const HmView<const T>& A, Trans ta, const HmView<const T>& B,
                        Trans tb, const HmView<T>& C, unsigned char* nonzero = nullptr) {
  if (ta != plan.ta || tb != plan.tb)
    throw FormatError("hm_product_numeric: the plan was made for op(A) = " + std::string(trans_name(plan.ta)) +
                      ", op(B) = " + trans_name(plan.tb));
  Layout LAe, LBe;
  const auto offA_at = [&](Index q) { return A.offsets[q]; };
  const Layout LC = detail::hm_product_layout(A.layout, A.ndiag, offA_at, ta, B.layout, tb, LAe, LBe);
  if (!(LC == plan.layout) || !(C.layout == plan.layout))
    throw FormatError("hm_product_numeric: layouts of A, B or C differ from the plan's (C " +
                      detail::layout_str(plan.layout) + ")");
  detail::check_plan_pairs(plan, A.ndiag, B.ndiag, C.ndiag, "hm_product_numeric");
  for (Index c = 0; c < C.ndiag; ++c) {
    const Index dC = C.offsets[c];
    if (dC != plan.offsets[std::size_t(c)])
      throw FormatError("hm_product_numeric: C's diagonals differ from the plan's");
    for (Index p = plan.pair_start[std::size_t(c)]; p < plan.pair_start[std::size_t(c) + 1]; ++p)
      if (detail::op_offset(A.offsets[plan.pair_a[std::size_t(p)]], ta) +
              detail::op_offset(B.offsets[plan.pair_b[std::size_t(p)]], tb) !=
          dC)
        throw FormatError("hm_product_numeric: A's or B's diagonals differ from the plan's (stale plan?)");
  }

  for (Index c = 0; c < C.ndiag; ++c) {
    const Index dC = C.offsets[c];
    const Index clo = LC.lo(dC), chi = LC.hi(dC);
    T* const cv = C.val;
    const Index co = C.start[c] - clo;  // cv[co + i] = C(i, i + dC), i in [clo, chi)
    const Index p0 = plan.pair_start[std::size_t(c)], p1 = plan.pair_start[std::size_t(c) + 1];
    for (Index r0 = clo; r0 < chi; r0 += detail::kRowChunk) {
      const Index r1 = std::min(chi, r0 + detail::kRowChunk);
      for (Index i = r0; i < r1; ++i) cv[co + i] = T(0);
      // Pairs covering the whole chunk go four at a time (one pass over the
      // chunk of C per four pairs, as hm_spmv groups diagonals); the others,
      // near the ends of the diagonals, one at a time over their rows.
      detail::DiagonalGroup<T> group(cv + co + r0, r1 - r0);
      for (Index p = p0; p < p1; ++p) {
        const Index ka = plan.pair_a[std::size_t(p)], kb = plan.pair_b[std::size_t(p)];
        const Index eA = detail::op_offset(A.offsets[ka], ta), eB = detail::op_offset(B.offsets[kb], tb);
        Index ib, ie;
        detail::hm_pair_rows(LAe, eA, LBe, eB, ib, ie);
        ib = std::max(ib, r0);
        ie = std::min(ie, r1);
        if (ie <= ib) continue;
        // av[i] = opA(i, i + eA); bv[i] = opB(i + eA, i + dC): offsets into val,
        // kept as indices so that no pointer leaves its array.
        const Index av = A.start[ka] - LAe.lo(eA);
        const Index bv = B.start[kb] - LBe.lo(eB) + eA;
        const T* const a = A.val;
        const T* const b = B.val;
        if (ib == r0 && ie == r1)
          group.add(a + av + r0, b + bv + r0);
        else
          for (Index i = ib; i < ie; ++i) cv[co + i] += a[av + i] * b[bv + i];
      }
      group.flush();
      if (nonzero)
        for (Index i = r0; i < r1; ++i) nonzero[co + i] = cv[co + i] != T(0) ? 1 : 0;
    }
  }
}

/// Convenience: C = op(A) op(B) for HM matrices, symbolic + alloc + numeric.
template <class T>
HmMatrix<T> hm_product(const HmMatrix<T>& A, Trans ta, const HmMatrix<T>& B, Trans tb) {
  const HmProductPlan plan = hm_product_symbolic(A, ta, B, tb);
  HmMatrix<T> C = hm_product_alloc<T>(plan);
  hm_product_numeric<T>(plan, A.view(), ta, B.view(), tb, C.view());
  return C;
}

// ---------------------------------------------------------------- CDM -----

namespace detail {
/// Effective compact offset of stored compact diagonal kk in op(X).
inline Index cdm_op_offset(Index kk, Index n, Trans t) { return (t == Trans::T && kk != 0) ? n - kk : kk; }

inline void check_cdm_offsets(Index n, const std::vector<Index>& koff, const char* name) {
  for (std::size_t q = 0; q < koff.size(); ++q) {
    if (koff[q] < 0 || koff[q] >= n)
      throw FormatError(std::string("cdm product: compact diagonal ") + std::to_string(koff[q]) + " of " + name +
                        " outside [0, " + std::to_string(n) + ")");
    if (q > 0 && koff[q - 1] >= koff[q])
      throw FormatError(std::string("cdm product: compact diagonals of ") + name + " not ascending");
  }
}

/// c[i] += a[(i + sa) mod n] * b[(i + sb) mod n] for i in [r0, r1), sa, sb
/// in [0, n): split where either index wraps, each piece stride-1.
template <class T>
inline void cdm_axpy_shifted(T* c, const T* a, Index sa, const T* b, Index sb, Index n, Index r0, Index r1) {
  const Index wa = n - sa, wb = n - sb;  // first i whose index wraps
  Index i = r0;
  while (i < r1) {
    Index e = r1;
    if (i < wa) e = std::min(e, wa);
    if (i < wb) e = std::min(e, wb);
    const Index oa = i < wa ? sa : sa - n, ob = i < wb ? sb : sb - n;
    for (Index t = i; t < e; ++t) c[t] += a[t + oa] * b[t + ob];
    i = e;
  }
}
}  // namespace detail

/// Symbolic phase of the CDM product C = op(A) op(B), N x N, from compact
/// offsets alone (each ascending in [0, n)). Every pair (ka, kb) feeds the
/// compact diagonal (ka' + kb') mod n, ka', kb' the effective offsets
/// (n - k mod n where transposed); every compact entry is a matrix
/// position, so no pair is dropped. O(ndiagA * ndiagB) pairs.
inline CdmProductPlan cdm_product_symbolic(Index n, const std::vector<Index>& koffA, Trans ta,
                                           const std::vector<Index>& koffB, Trans tb) {
  if (n < 0) throw FormatError("cdm product: negative size");
  detail::check_cdm_offsets(n, koffA, "A");
  detail::check_cdm_offsets(n, koffB, "B");
  CdmProductPlan plan;
  plan.n = n;
  plan.ta = ta;
  plan.tb = tb;
  const Index ndA = Index(koffA.size()), ndB = Index(koffB.size());
  std::vector<Index> ea(koffA.size()), eb(koffB.size());
  for (std::size_t a = 0; a < koffA.size(); ++a) ea[a] = detail::cdm_op_offset(koffA[a], n, ta);
  for (std::size_t b = 0; b < koffB.size(); ++b) eb[b] = detail::cdm_op_offset(koffB[b], n, tb);
  const auto pair = [&](Index a, Index b, Index& k) {
    k = ea[std::size_t(a)] + eb[std::size_t(b)];
    if (k >= n) k -= n;
    return true;
  };
  detail::group_pairs(ndA, ndB, Index(0), n - 1, pair, plan, plan.koffsets);
  plan.nmul = n * Index(plan.pair_a.size());
  return plan;
}

template <class T>
CdmProductPlan cdm_product_symbolic(const CdmMatrix<T>& A, Trans ta, const CdmMatrix<T>& B, Trans tb) {
  if (!A.layout.is_full() || !B.layout.is_full() || !(A.layout == B.layout))
    throw FormatError("cdm product: A (" + detail::layout_str(A.layout) + ") and B (" + detail::layout_str(B.layout) +
                      ") must be full N x N matrices of the same N");
  return cdm_product_symbolic(A.layout.ncols, A.koffsets, ta, B.koffsets, tb);
}

/// A zero N x N CDM matrix with the plan's compact diagonals.
template <class T>
CdmMatrix<T> cdm_product_alloc(const CdmProductPlan& plan) {
  return CdmMatrix<T>(Layout::square(plan.n), plan.koffsets);
}

/// Numeric phase of the CDM product: C = op(A) op(B), C overwritten:
///   C_k[i] = sum over pairs of opA_{ka'}[i] * opB_{kb'}[(i + ka') mod N],
/// with (X^T)_k[i] = X_{(N-k) mod N}[(i + k) mod N] read in place: each
/// term is an element-wise product of two cyclically shifted stored
/// vectors, split at the wraps into stride-1 pieces. Full N x N layouts
/// only; throws FormatError when the views do not match the plan.
template <class T>
void cdm_product_numeric(const CdmProductPlan& plan, const CdmView<const T>& A, Trans ta, const CdmView<const T>& B,
                         Trans tb, const CdmView<T>& C) {
  const Index n = plan.n;
  const Layout L = Layout::square(n);
  if (!(A.layout == L) || !(B.layout == L) || !(C.layout == L))
    throw FormatError("cdm_product_numeric: A, B and C must be full " + std::to_string(n) + "x" + std::to_string(n) +
                      " matrices (A " + detail::layout_str(A.layout) + ", B " + detail::layout_str(B.layout) + ", C " +
                      detail::layout_str(C.layout) + ")");
  if (ta != plan.ta || tb != plan.tb)
    throw FormatError("cdm_product_numeric: the plan was made for op(A) = " + std::string(trans_name(plan.ta)) +
                      ", op(B) = " + trans_name(plan.tb));
  detail::check_plan_pairs(plan, A.ndiag, B.ndiag, C.ndiag, "cdm_product_numeric");
  for (Index c = 0; c < C.ndiag; ++c) {
    const Index k = C.koffsets[c];
    if (k != plan.koffsets[std::size_t(c)])
      throw FormatError("cdm_product_numeric: C's compact diagonals differ from the plan's");
    for (Index p = plan.pair_start[std::size_t(c)]; p < plan.pair_start[std::size_t(c) + 1]; ++p) {
      const Index s = detail::cdm_op_offset(A.koffsets[plan.pair_a[std::size_t(p)]], n, ta) +
                      detail::cdm_op_offset(B.koffsets[plan.pair_b[std::size_t(p)]], n, tb);
      if (s != k && s != k + n)
        throw FormatError("cdm_product_numeric: A's or B's compact diagonals differ from the plan's (stale plan?)");
    }
  }

  for (Index c = 0; c < C.ndiag; ++c) {
    const Index k = C.koffsets[c];
    T* const cv = C.val + c * n;
    const Index p0 = plan.pair_start[std::size_t(c)], p1 = plan.pair_start[std::size_t(c) + 1];
    for (Index r0 = 0; r0 < n; r0 += detail::kRowChunk) {
      const Index r1 = std::min(n, r0 + detail::kRowChunk);
      for (Index i = r0; i < r1; ++i) cv[i] = T(0);
      for (Index p = p0; p < p1; ++p) {
        const Index ka = plan.pair_a[std::size_t(p)], kb = plan.pair_b[std::size_t(p)];
        const Index ea = detail::cdm_op_offset(A.koffsets[ka], n, ta);
        // opA_{ea}[i] = A_ka[i + sa]: sa = 0 as stored, ea when transposed.
        // opB_{eb}[i + ea] = B_kb[i + sb]: sb = ea as stored, k (= ea + eb) when transposed.
        const Index sa = ta == Trans::T ? ea : 0;
        const Index sb = tb == Trans::T ? k : ea;
        detail::cdm_axpy_shifted(cv, A.val + ka * n, sa, B.val + kb * n, sb, n, r0, r1);
      }
    }
  }
}

/// Convenience: C = op(A) op(B) for CDM matrices (full N x N).
template <class T>
CdmMatrix<T> cdm_product(const CdmMatrix<T>& A, Trans ta, const CdmMatrix<T>& B, Trans tb) {
  const CdmProductPlan plan = cdm_product_symbolic(A, ta, B, tb);
  CdmMatrix<T> C = cdm_product_alloc<T>(plan);
  cdm_product_numeric<T>(plan, A.view(), ta, B.view(), tb, C.view());
  return C;
}

}  // namespace pdiag

#include "pdiag/spmm.hpp"
