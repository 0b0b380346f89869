// Constant diagonals with exceptions for HM blocks (docs/kernels.md,
// "Constant diagonals"). A constant-coefficient stencil operator is constant
// along each diagonal except at few places (Dirichlet rows, the +-1 diagonal
// zero where a grid line ends, boundary-modified coefficients). Such a
// diagonal is stored as one scalar c plus a sparse list of exceptions, so
// that SpMV moves little more than x and y; the other diagonals keep their
// full values. No PETSc here.
//
// Storage (HmCompressed):
//  - per diagonal k: vbase[k] >= 0 for a full diagonal, whose entries sit at
//    packed[vbase[k] + i - lo(d)] (HM's val layout, full diagonals only), or
//    vbase[k] == -1 for a constant one, whose value is cval[k];
//  - the exceptions of the constant diagonals, grouped by local row in CSR
//    form: exc_rows (ascending local rows with at least one exception),
//    exc_ptr (nrows_exc + 1 entries), and per exception its diagonal index
//    exc_diag (ascending within a row) and exc_delta = a - c, so that
//    y[il] = sum_k c_k x[il + shift[k]] + sum_exc delta x[il + shift[k]].
//
// Equality is exact: an entry belongs to the constant iff a == c (value
// comparison: -0.0 == 0.0, NaN never equals). A constant is always finite,
// and a diagonal takes the constant form only if every exception value is
// recovered exactly as c + (a - c) (so decompression is exact and a huge c
// cannot swallow a small exception): otherwise it stays full.
//
// The candidate constant of a diagonal is its majority value (the only one
// that can pay off, see detail::pick_constant). Decision by bytes, per
// diagonal: constant iff
//   nexc * (sizeof(Index) + sizeof(T)) + new_rows * 2 * sizeof(Index) < len * sizeof(T)
// where nexc is its number of exceptions and new_rows the rows it adds to
// exc_rows/exc_ptr. Diagonals are decided in ascending order of nexc, so that
// a row shared by several diagonals' exceptions (a Dirichlet row) is charged
// once, to the first. A diagonal of 1024 entries or more is judged first by
// samples of its entries (detail::pick_constant): one whose sampled majority
// is below 60% stays full without a pass over its values, although the rule
// above might take it where earlier diagonals paid its rows (it would save
// at most a fifth of its bytes).
#pragma once

#include "pdiag/cpu.hpp"
#include "pdiag/format.hpp"
#include "pdiag/scalar.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pdiag {

/// Non-owning view of a compressed HM block, usable on host and device (raw
/// pointers, all read-only). See the file comment for the meaning of the
/// arrays; npacked and nrows_exc are the sizes of packed and exc_rows.
template <class T>
struct HmCompressedView {
  Layout layout;
  Index ndiag = 0;
  const Index* offsets = nullptr;
  const Index* vbase = nullptr;
  const T* cval = nullptr;
  const T* packed = nullptr;
  Index npacked = 0;
  Index nrows_exc = 0;
  const Index* exc_rows = nullptr;
  const Index* exc_ptr = nullptr;
  const Index* exc_diag = nullptr;
  const T* exc_delta = nullptr;
};

/// A compressed HM block (owning).
template <class T>
struct HmCompressed {
  Layout layout;
  std::vector<Index> offsets;  // ascending, as in the HmMatrix it came from
  std::vector<Index> vbase;    // ndiag: >= 0 base in packed, -1 constant
  std::vector<T> cval;         // ndiag: the constant (0 for full diagonals)
  std::vector<T> packed;       // values of the full diagonals, back to back
  std::vector<Index> exc_rows;
  std::vector<Index> exc_ptr{0};
  std::vector<Index> exc_diag;
  std::vector<T> exc_delta;

  Index ndiag() const { return Index(offsets.size()); }
  Index nrows_exc() const { return Index(exc_rows.size()); }
  Index nexceptions() const { return Index(exc_diag.size()); }
  bool is_constant(Index k) const { return vbase[static_cast<std::size_t>(k)] < 0; }
  Index nconstant() const { return Index(std::count(vbase.begin(), vbase.end(), Index(-1))); }

  /// Bytes of every array of the compressed form (what a device copy holds).
  std::size_t bytes() const { return bytes_of(ndiag(), Index(packed.size()), nrows_exc(), nexceptions()); }

  /// The same for a form of nd diagonals with npacked full values and nexc
  /// exceptions in nrows_exc rows (offsets, vbase, cval: nd each; exc_ptr:
  /// nrows_exc + 1), known before the form is built.
  static std::size_t bytes_of(Index nd, Index npacked, Index nrows_exc, Index nexc) {
    const std::size_t si = sizeof(Index), st = sizeof(T);
    return si * std::size_t(2 * nd + 2 * nrows_exc + 1 + nexc) + st * std::size_t(nd + npacked + nexc);
  }

  HmCompressedView<T> view() const {
    HmCompressedView<T> v;
    v.layout = layout;
    v.ndiag = ndiag();
    v.offsets = offsets.data();
    v.vbase = vbase.data();
    v.cval = cval.data();
    v.packed = packed.data();
    v.npacked = Index(packed.size());
    v.nrows_exc = nrows_exc();
    v.exc_rows = exc_rows.data();
    v.exc_ptr = exc_ptr.data();
    v.exc_diag = exc_diag.data();
    v.exc_delta = exc_delta.data();
    return v;
  }
};

/// Bytes of an HM block's arrays (offsets, start, val), to compare with
/// HmCompressed::bytes().
template <class T>
std::size_t hm_bytes(const HmMatrix<T>& A) {
  return sizeof(Index) * (A.offsets.size() + A.start.size()) + sizeof(T) * A.val.size();
}

namespace detail {

/// Whether the exception a of constant c is recovered exactly as c + (a - c).
template <class T>
bool exact_delta(T a, T c) {
  return c + (a - c) == a;
}

/// The majority vote (Boyer and Moore) over a[0, len): the only value that
/// can occur in more than half of the entries (if none does, some entry).
template <class T>
T majority_candidate(const T* a, Index len) {
  T cand = a[0];
  Index votes = 0;
  for (Index p = 0; p < len; ++p) {
    if (votes == 0) {
      cand = a[p];
      votes = 1;
    } else {
      votes += (a[p] == cand) ? 1 : -1;
    }
  }
  return cand;
}

/// A cheap guess at the majority value of a[0, len): the majority vote over
/// 61 positions spread over the array by a fixed pseudo-random sequence
/// (regularly spaced samples can all fall on a grid's boundary planes).
/// hits (if given): how many of the samples equal it.
constexpr int kSamples = 61;

/// The next position in [0, len) of a fixed pseudo-random sequence (a
/// linear congruential generator; its seed picks the sequence).
inline Index next_sample_position(std::uint64_t& state, Index len) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return Index((state >> 33) % std::uint64_t(len));
}

template <class T>
T sample_candidate(const T* a, Index len, int* hits = nullptr) {
  T sample[kSamples];
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (T& v : sample) v = a[next_sample_position(state, len)];
  const T c = majority_candidate(sample, Index(kSamples));
  if (hits) *hits = int(std::count_if(sample, sample + kSamples, [&](const T& v) { return v == c; }));
  return c;
}

/// How many of n entries of a[0, len), at positions spread by a fixed
/// pseudo-random sequence (another than sample_candidate's), equal c.
template <class T>
int count_sampled(const T* a, Index len, T c, int n) {
  std::uint64_t state = 0xD1B54A32D192ED03ull;
  int hits = 0;
  for (int s = 0; s < n; ++s) hits += a[next_sample_position(state, len)] == c;
  return hits;
}

/// The positions p in [0, len) where a[p] != c, ascending, into pos (cleared
/// first), unless there are more than max_exc of them: then false (pos holds
/// the first max_exc). exact says whether every exception found is
/// recovered exactly as c + (a - c).
template <class T>
bool collect_exceptions(const T* a, Index len, T c, Index max_exc, std::vector<Index>& pos, bool& exact) {
  pos.clear();
  exact = true;
  for (Index p = 0; p < len; ++p)
    if (!(a[p] == c)) {
      if (Index(pos.size()) == max_exc) return false;
      pos.push_back(p);
      exact = exact && exact_delta(a[p], c);
    }
  return true;
}

/// The candidate constant c of a[0, len) and the positions of the entries
/// that differ from it, ascending (pos). An exception costs sizeof(Index) +
/// sizeof(T) >= 2 sizeof(T) bytes, so the constant form can only win with
/// fewer than len * sizeof(T) / (sizeof(Index) + sizeof(T)) exceptions;
/// false when there are more (or the candidate is not finite): the diagonal
/// stays full. The candidate is the majority value when there is one, else
/// the majority vote's candidate. A guess (sample_candidate) is tried first:
/// if it is a strict majority it is the only one, and the single pass that
/// checks it also collected its exceptions; otherwise the vote (Boyer and
/// Moore) over all entries finds the candidate and a second pass collects.
/// (A sample alone is not enough: it may miss the majority, e.g. on a
/// 12 x 10 x 8 grid the +-1 diagonals' entries at 1/4, 1/2 and 3/4 all sit
/// at line ends.) Either way the result is the same; the guess only saves
/// passes. A zero constant is returned as +0.
constexpr Index kSampledLength = 1024;  // diagonals at least this long may be judged by their sample
constexpr int kMinSampleHits = 34;      // of sample_candidate's kSamples = 61 (56%)
constexpr int kWideSamples = 1024;      // the second sample of a long diagonal
constexpr int kMinWideHits = 615;       // of kWideSamples (60%)

template <class T>
bool pick_constant(const T* a, Index len, T& c, std::vector<Index>& pos, bool& exact) {
  c = T(0);
  pos.clear();
  if (len <= 0) return false;
  const Index max_exc = (len * Index(sizeof(T)) - 1) / Index(sizeof(Index) + sizeof(T));
  int hits = 0;
  const T guess = sample_candidate(a, len, &hits);
  // The constant form needs one value in more than half of the entries
  // (an exception costs at least two entries' bytes), and pays clearly only
  // well above half. On a long diagonal whose sample has no value in 34 of
  // its 61 entries the diagonal stays full, without the passes over its
  // values that would otherwise collect up to len / 2 exceptions twice
  // (a checkerboard coefficient: two values, each on half of the entries).
  // A value on 75% of the entries shows in fewer than 34 samples with
  // probability below 1e-4; only diagonals with a bare majority, which
  // the constant form would shrink by little if at all, can be missed.
  if (len >= kSampledLength && hits < kMinSampleHits) return false;
  // A value on about half of the entries (a checkerboard coefficient's: two
  // values, one of them a little more often) passes that test often (1 in
  // 5 diagonals at 50%), and then costs up to three passes over the values
  // to be refused. A second, wider sample settles it: below 60% the
  // constant form saves at most a fifth of the diagonal's bytes (each
  // exception costs two entries' bytes), and nothing if its rows are not
  // shared with another diagonal's exceptions. Its estimate is within 1.6
  // points (one standard deviation): a diagonal with 70% of one value is
  // refused with probability below 1e-10, one with 50% kept below 1e-9.
  if (len >= kSampledLength && count_sampled(a, len, guess, kWideSamples) < kMinWideHits) return false;
  T cand = guess;
  bool ok = scalar_isfinite(guess) && collect_exceptions(a, len, guess, std::min(max_exc, (len - 1) / 2), pos, exact);
  if (!ok) {
    cand = majority_candidate(a, len);
    if (!scalar_isfinite(cand)) return false;
    ok = collect_exceptions(a, len, cand, max_exc, pos, exact);
  }
  if (!ok) return false;
  c = cand == T(0) ? T(0) : cand;
  return true;
}

template <class T>
const Index* compressed_shift_or_default(const HmCompressedView<T>& A, const Index* shift, std::vector<Index>& buf) {
  if (shift) return shift;
  buf.resize(static_cast<std::size_t>(A.ndiag));
  for (Index k = 0; k < A.ndiag; ++k) buf[k] = A.layout.row_begin + A.offsets[k];
  return buf.data();
}

}  // namespace detail

/// A cheap test (61 sampled entries per diagonal, no pass over the values)
/// of whether hm_compress could pay off: whether some diagonal of at least
/// 64 entries has one value in more than half of its sample. False means
/// the block is very likely not worth compressing (random values, say, a
/// product's result); true means try hm_compress and compare bytes.
template <class T>
bool hm_compress_candidate(const HmMatrix<T>& A) {
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index len = A.start[k + 1] - A.start[k];
    if (len < 64) continue;
    int hits = 0;
    detail::sample_candidate(A.val.data() + A.start[k], len, &hits);
    if (2 * hits > detail::kSamples) return true;
  }
  return false;
}

namespace detail {

/// hm_compress's work. With only_if_smaller, gives up (false, C partly
/// filled) once the decisions show that the compressed form would hold no
/// constant diagonal or take at least A's bytes, before the copies of the
/// full diagonals' values and the exceptions are made (for a variable
/// coefficient, the copy of every value that would be thrown away).
template <class T>
bool compress_block(const HmMatrix<T>& A, bool only_if_smaller, HmCompressed<T>& C) {
  const Layout& L = A.layout;
  const Index nd = A.ndiag();
  const Index si = Index(sizeof(Index)), st = Index(sizeof(T));
  C = HmCompressed<T>();
  C.layout = L;
  C.offsets = A.offsets;
  C.vbase.assign(static_cast<std::size_t>(nd), 0);
  C.cval.assign(static_cast<std::size_t>(nd), T(0));

  // 1. A candidate constant per diagonal and the positions of its
  //    exceptions; a diagonal whose exceptions alone cost its full bytes, or
  //    with an inexact exception, is full already.
  std::vector<std::vector<Index>> exc_pos(static_cast<std::size_t>(nd));
  std::vector<Index> order;
  for (Index k = 0; k < nd; ++k) {
    const Index len = A.start[k + 1] - A.start[k];
    T c;
    bool exact = true;
    std::vector<Index>& pos = exc_pos[static_cast<std::size_t>(k)];
    if (!detail::pick_constant(A.val.data() + A.start[k], len, c, pos, exact) || !exact) {
      pos = std::vector<Index>();
      continue;
    }
    C.cval[k] = c;
    order.push_back(k);
  }
  // 2. Decide in ascending order of exceptions, charging each exception row
  //    to the first diagonal that needs it.
  const auto nexc = [&](Index k) { return Index(exc_pos[static_cast<std::size_t>(k)].size()); };
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return nexc(a) < nexc(b); });
  std::vector<unsigned char> has_row(order.empty() ? 0 : static_cast<std::size_t>(L.nrows), 0);
  std::vector<Index> accepted;
  Index nrows_exc = 0, nexc_total = 0, npacked = A.start[nd] - A.start[0];
  for (Index k : order) {
    const Index len = A.start[k + 1] - A.start[k];
    const Index b = L.lo(A.offsets[k]) - L.row_begin;
    std::vector<Index>& pos = exc_pos[static_cast<std::size_t>(k)];
    Index new_rows = 0;
    for (Index p : pos) new_rows += !has_row[b + p];
    if (nexc(k) * (si + st) + new_rows * 2 * si >= len * st) {
      pos = std::vector<Index>();
      continue;
    }
    C.vbase[k] = -1;
    for (Index p : pos) has_row[b + p] = 1;
    accepted.push_back(k);
    nrows_exc += new_rows;
    nexc_total += nexc(k);
    npacked -= len;
  }
  if (only_if_smaller && (accepted.empty() || HmCompressed<T>::bytes_of(nd, npacked, nrows_exc, nexc_total) >= hm_bytes(A)))
    return false;
  // 3. The full diagonals' values, back to back.
  Index np = 0;
  for (Index k = 0; k < nd; ++k)
    if (C.vbase[k] >= 0) {
      C.vbase[k] = np;
      C.cval[k] = T(0);
      np += A.start[k + 1] - A.start[k];
    }
  C.packed.resize(static_cast<std::size_t>(np));
  for (Index k = 0; k < nd; ++k)
    if (C.vbase[k] >= 0)
      std::copy(A.val.begin() + A.start[k], A.val.begin() + A.start[k + 1], C.packed.begin() + C.vbase[k]);
  // 4. The exceptions in CSR form by row, diagonals ascending within a row:
  //    the accepted diagonals' row-ascending lists, concatenated in
  //    ascending diagonal order, then merged pairwise by row (stable, so a
  //    row's exceptions keep ascending diagonals): E log K sequential work.
  std::sort(accepted.begin(), accepted.end());
  std::vector<std::pair<Index, Index>> exc;  // (local row, diagonal)
  std::vector<std::size_t> runs{0};
  for (Index k : accepted) {
    const Index b = L.lo(A.offsets[k]) - L.row_begin;
    for (Index p : exc_pos[static_cast<std::size_t>(k)]) exc.emplace_back(b + p, k);
    if (exc.size() > runs.back()) runs.push_back(exc.size());
  }
  const auto by_row = [](const std::pair<Index, Index>& x, const std::pair<Index, Index>& y) { return x.first < y.first; };
  for (std::size_t width = 1; width + 1 < runs.size(); width *= 2)
    for (std::size_t r = 0; r + width + 1 < runs.size(); r += 2 * width) {
      const std::size_t mid = runs[r + width], last = runs[std::min(r + 2 * width, runs.size() - 1)];
      std::inplace_merge(exc.begin() + std::ptrdiff_t(runs[r]), exc.begin() + std::ptrdiff_t(mid),
                         exc.begin() + std::ptrdiff_t(last), by_row);
    }
  C.exc_diag.reserve(exc.size());
  C.exc_delta.reserve(exc.size());
  for (std::size_t e = 0; e < exc.size(); ++e) {
    const auto [il, k] = exc[e];
    if (e == 0 || exc[e - 1].first != il) {
      if (e > 0) C.exc_ptr.push_back(Index(e));
      C.exc_rows.push_back(il);
    }
    const T a = A.val[static_cast<std::size_t>(A.start[k] + il - (L.lo(A.offsets[k]) - L.row_begin))];
    C.exc_diag.push_back(k);
    C.exc_delta.push_back(a - C.cval[k]);
  }
  if (!exc.empty()) C.exc_ptr.push_back(Index(exc.size()));
  return true;
}

}  // namespace detail

/// Compresses an HM block: per diagonal, the constant form (constant plus
/// exceptions) where it takes fewer bytes than the full values (see the file
/// comment for the rule), else the full values. Exact: hm_decompress gives
/// back A's values (compared with ==).
template <class T>
HmCompressed<T> hm_compress(const HmMatrix<T>& A) {
  HmCompressed<T> C;
  detail::compress_block(A, false, C);
  return C;
}

/// hm_compress when its result would be smaller than A and hold a constant
/// diagonal (true, C set); otherwise false, without copying A's values
/// (C's contents are then unspecified).
template <class T>
bool hm_compress_if_smaller(const HmMatrix<T>& A, HmCompressed<T>& C) {
  return detail::compress_block(A, true, C);
}

/// The HM block a compressed block stands for (values c, c + delta, or the
/// packed ones).
template <class T>
HmMatrix<T> hm_decompress(const HmCompressed<T>& C) {
  HmMatrix<T> A(C.layout, C.offsets);
  const Layout& L = C.layout;
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index len = A.start[k + 1] - A.start[k];
    T* a = A.val.data() + A.start[k];
    if (C.vbase[k] >= 0)
      std::copy(C.packed.begin() + C.vbase[k], C.packed.begin() + C.vbase[k] + len, a);
    else
      std::fill(a, a + len, C.cval[k]);
  }
  for (Index r = 0; r < C.nrows_exc(); ++r)
    for (Index e = C.exc_ptr[r]; e < C.exc_ptr[r + 1]; ++e) {
      const Index k = C.exc_diag[e], il = C.exc_rows[r];
      const Index p = A.start[k] + il - (L.lo(C.offsets[k]) - L.row_begin);
      A.val[static_cast<std::size_t>(p)] = C.cval[k] + C.exc_delta[e];
    }
  return A;
}

/// The main diagonal of a compressed block (MatGetDiagonal), over the local
/// rows (zero where the block stores no main diagonal): the packed values,
/// or the constant with its exceptions' c + delta (the stored entry, exactly).
template <class T>
void hm_compressed_get_diagonal(const HmCompressedView<nodeduce_t<T>>& A, T* out) {
  const Layout& L = A.layout;
  for (Index il = 0; il < L.nrows; ++il) out[il] = T(0);
  Index k0 = -1;
  for (Index k = 0; k < A.ndiag; ++k)
    if (A.offsets[k] == 0) k0 = k;
  if (k0 < 0) return;
  const Index b = L.lo(0) - L.row_begin, e = L.hi(0) - L.row_begin;
  for (Index il = b; il < e; ++il) out[il] = A.vbase[k0] >= 0 ? A.packed[A.vbase[k0] + il - b] : A.cval[k0];
  if (A.vbase[k0] >= 0) return;
  for (Index r = 0; r < A.nrows_exc; ++r)
    for (Index x = A.exc_ptr[r]; x < A.exc_ptr[r + 1]; ++x)
      if (A.exc_diag[x] == k0) out[A.exc_rows[r]] = A.cval[k0] + A.exc_delta[x];
}

/// New values for the same pattern (re-assembly): A must have C's layout and
/// offsets, every constant diagonal must again be constant apart from its
/// exceptions (the exceptions may now equal the constant), and every new
/// exception must be exact (see the file comment). Then the constants,
/// deltas and packed values are replaced and true is returned; otherwise
/// false is returned and C is left unchanged (re-compress with hm_compress).
template <class T>
bool update_values(HmCompressed<T>& C, const HmMatrix<T>& A) {
  if (!(C.layout == A.layout) || C.offsets != A.offsets) return false;
  const Layout& L = A.layout;
  const Index nd = A.ndiag(), ne = C.nexceptions();
  // The exceptions of each diagonal, rows ascending (counting sort by
  // diagonal of the row-ordered CSR): exception byk[q] is in row rowk[q].
  std::vector<Index> first(static_cast<std::size_t>(nd + 1), 0);
  std::vector<Index> byk(static_cast<std::size_t>(ne)), rowk(static_cast<std::size_t>(ne));
  for (Index e = 0; e < ne; ++e) ++first[C.exc_diag[e] + 1];
  for (Index k = 0; k < nd; ++k) first[k + 1] += first[k];
  {
    std::vector<Index> next(first.begin(), first.end() - 1);
    for (Index r = 0; r < C.nrows_exc(); ++r)
      for (Index e = C.exc_ptr[r]; e < C.exc_ptr[r + 1]; ++e) {
        const Index q = next[C.exc_diag[e]]++;
        byk[q] = e;
        rowk[q] = C.exc_rows[r];
      }
  }
  // Check everything before changing anything.
  std::vector<T> cval = C.cval, delta(static_cast<std::size_t>(ne));
  for (Index k = 0; k < nd; ++k) {
    if (!C.is_constant(k)) continue;
    const Index len = A.start[k + 1] - A.start[k];
    const Index b = L.lo(A.offsets[k]) - L.row_begin;
    const T* a = A.val.data() + A.start[k];
    const Index f = first[k], l = first[k + 1];
    // The new constant: the first entry that is not an exception (if all
    // are, the old constant stays).
    T c = cval[k];
    for (Index p = 0, q = f; p < len; ++p) {
      if (q < l && rowk[q] == b + p) {
        ++q;
        continue;
      }
      c = a[p] == T(0) ? T(0) : a[p];
      break;
    }
    if (!scalar_isfinite(c)) return false;
    for (Index p = 0, q = f; p < len; ++p) {
      if (q < l && rowk[q] == b + p) {
        if (!detail::exact_delta(a[p], c)) return false;
        delta[byk[q++]] = a[p] - c;
      } else if (!(a[p] == c)) {
        return false;
      }
    }
    cval[k] = c;
  }
  for (Index k = 0; k < nd; ++k)
    if (!C.is_constant(k))
      std::copy(A.val.begin() + A.start[k], A.val.begin() + A.start[k + 1], C.packed.begin() + C.vbase[k]);
  C.cval.swap(cval);
  C.exc_delta.swap(delta);
  return true;
}

/// y[il] = (z ? z[il] : 0) + sum_k a(i, i + d_k) x[il + shift[k]] for local
/// rows il in [row_lo, row_hi) (row_hi < 0: all rows), exactly hm_spmv's
/// semantics on the compressed form. Pass 1 applies the full and constant
/// diagonals, pass 2 adds the exception corrections of the rows in range.
/// y may alias z; rows outside the range are not touched. alpha and beta
/// as hm_spmv's (CPU only): y = alpha A x + beta z in the same passes.
template <class T>
void hm_compressed_spmv(const HmCompressedView<nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z = nullptr,
                        const Index* shift = nullptr, Index row_lo = 0, Index row_hi = -1, nodeduce_t<T> alpha = T(1),
                        nodeduce_t<T> beta = T(1)) {
  const Layout& L = A.layout;
  row_hi = detail::clamp_hi(row_hi, L.nrows);
  if (row_lo >= row_hi) return;
  std::vector<Index> buf;
  const Index* s = detail::compressed_shift_or_default(A, shift, buf);
  const bool plain = alpha == T(1) && beta == T(1);
  std::vector<T> scratch(plain ? 0 : static_cast<std::size_t>(detail::kRowChunk));
  for (Index c0 = row_lo; c0 < row_hi; c0 += detail::kRowChunk) {
    const Index c1 = std::min(row_hi, c0 + detail::kRowChunk);
    T* const out = plain ? y + c0 : scratch.data();  // out[il - c0] accumulates row il
    for (Index il = c0; il < c1; ++il) out[il - c0] = plain && z ? z[il] : T(0);
    detail::DiagonalGroup<T> full(out, c1 - c0);
    detail::DiagonalGroup<T, detail::DiagonalConstant<T>> cons(out, c1 - c0);
    for (Index k = 0; k < A.ndiag; ++k) {
      const Index d = A.offsets[k];
      const Index lo = L.lo(d) - L.row_begin;
      const Index b = std::max(c0, lo), e = std::min(c1, L.hi(d) - L.row_begin);
      if (b >= e) continue;
      const Index xa = s[k];
      if (A.vbase[k] < 0) {
        const T c = A.cval[k];
        if (b == c0 && e == c1)
          cons.add({c}, x + xa + c0);
        else
          for (Index il = b; il < e; ++il) out[il - c0] += c * x[xa + il];
      } else {
        const T* a = A.packed + (A.vbase[k] - lo);  // a[il] = a(r0 + il, r0 + il + d)
        if (b == c0 && e == c1)
          full.add(a + c0, x + xa + c0);
        else
          for (Index il = b; il < e; ++il) out[il - c0] += a[il] * x[xa + il];
      }
    }
    full.flush();
    cons.flush();
    if (!plain) detail::combine_chunk(y + c0, out, z ? z + c0 : nullptr, c1 - c0, alpha, beta);
  }
  // Pass 2: the exception rows in [row_lo, row_hi).
  const Index r0 = Index(std::lower_bound(A.exc_rows, A.exc_rows + A.nrows_exc, row_lo) - A.exc_rows);
  for (Index r = r0; r < A.nrows_exc && A.exc_rows[r] < row_hi; ++r) {
    const Index il = A.exc_rows[r];
    T acc = plain ? y[il] : T(0);
    for (Index e = A.exc_ptr[r]; e < A.exc_ptr[r + 1]; ++e) acc += A.exc_delta[e] * x[s[A.exc_diag[e]] + il];
    y[il] = plain ? acc : y[il] + alpha * acc;
  }
}

}  // namespace pdiag
