// Index bookkeeping for an HM row block whose columns are distributed (one
// contiguous range of columns owned per process), shared by host-library
// adapters that do their own communication (plugin/trilinos/): which rows
// read only owned columns (the interior), which columns the other rows and
// the transpose reach (as sorted disjoint intervals, concatenated into a
// compact ghost vector), and the per-diagonal shifts the SpMV kernels of
// pdiag/cpu.hpp take to read those vectors. Also the "reported pattern" of
// a block: a mask over stored positions marking the entries a row copy
// reports (stored zeros a caller never gave are left out).
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/remote.hpp"

#include <utility>

namespace pdiag {

/// Half-open column interval [first, second).
using Interval = std::pair<Index, Index>;

/// Sorted, disjoint, non-empty intervals covering the same columns as iv.
inline std::vector<Interval> merge_intervals(std::vector<Interval> iv) {
  iv.erase(std::remove_if(iv.begin(), iv.end(), [](const Interval& p) { return p.first >= p.second; }), iv.end());
  std::sort(iv.begin(), iv.end());
  std::vector<Interval> out;
  for (const Interval& p : iv) {
    if (!out.empty() && p.first <= out.back().second)
      out.back().second = std::max(out.back().second, p.second);
    else
      out.push_back(p);
  }
  return out;
}

/// Total number of columns of merged intervals.
inline Index intervals_size(const std::vector<Interval>& iv) {
  Index n = 0;
  for (const Interval& p : iv) n += p.second - p.first;
  return n;
}

/// The columns of merged intervals, ascending (the compact vector's order).
inline std::vector<Index> interval_columns(const std::vector<Interval>& iv) {
  std::vector<Index> cols;
  cols.reserve(static_cast<std::size_t>(intervals_size(iv)));
  for (const Interval& p : iv)
    for (Index j = p.first; j < p.second; ++j) cols.push_back(j);
  return cols;
}

/// Position of column j in the compact vector of merged intervals iv; j must
/// lie in one of them (FormatError otherwise).
inline Index interval_position(const std::vector<Interval>& iv, Index j) {
  Index base = 0;
  for (const Interval& p : iv) {
    if (j >= p.first && j < p.second) return base + (j - p.first);
    base += p.second - p.first;
  }
  throw FormatError("column " + std::to_string(j) + " is in no ghost interval");
}

/// Vector addressing of an HM block whose process owns columns [c0, c1).
/// Local rows [ib, ie) (the interior) read only owned columns: hm_spmv on
/// them with shift_local reads x indexed by column - c0. Rows [0, ib) and
/// [ie, nrows) read the compact vector over the columns `need` (owned ones
/// included) with shift_lo and shift_hi. The transpose y = A^T x of the
/// block writes the compact vector over `touched` (every column a stored
/// entry reaches) with tr_shift, which hm_diagonal_scale also takes.
struct GhostPlan {
  Index c0 = 0, c1 = 0;
  Index ib = 0, ie = 0;
  std::vector<Index> shift_local, shift_lo, shift_hi, tr_shift;
  std::vector<Interval> need, touched;
};

template <class T>
GhostPlan hm_ghost_plan(const HmView<T>& A, Index c0, Index c1) {
  const Layout& L = A.layout;
  if (c0 < 0 || c1 < c0 || c1 > L.ncols)
    throw FormatError("owned columns [" + std::to_string(c0) + ", " + std::to_string(c1) + ") outside [0, " +
                      std::to_string(L.ncols) + ")");
  const Index r0 = L.row_begin, r1 = L.row_end();
  const std::size_t nd = static_cast<std::size_t>(A.ndiag);
  GhostPlan g;
  g.c0 = c0;
  g.c1 = c1;
  g.shift_local.assign(nd, 0);
  g.shift_lo.assign(nd, 0);
  g.shift_hi.assign(nd, 0);
  g.tr_shift.assign(nd, 0);
  // Interior: no row of it reads a column outside [c0, c1). A diagonal d
  // leaves the owned columns on its rows below c0 - d and from c1 - d on.
  Index ib = r0, ie = r1;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    if (lo >= hi) continue;
    g.shift_local[k] = r0 + d - c0;
    if (std::min(hi, c0 - d) > lo) ib = std::max(ib, std::min(hi, c0 - d));
    if (std::max(lo, c1 - d) < hi) ie = std::min(ie, std::max(lo, c1 - d));
  }
  if (ib >= ie) ib = ie = r1;  // no interior: every row reads the ghost vector
  g.ib = ib - r0;
  g.ie = ie - r0;
  std::vector<Interval> need, touched;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    if (lo >= hi) continue;
    need.push_back({lo + d, std::min(hi, ib) + d});
    need.push_back({std::max(lo, ie) + d, hi + d});
    touched.push_back({lo + d, hi + d});
  }
  g.need = merge_intervals(need);
  g.touched = merge_intervals(touched);
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    if (lo >= hi) continue;
    if (lo < std::min(hi, ib)) g.shift_lo[k] = interval_position(g.need, lo + d) - (lo - r0);
    const Index lo2 = std::max(lo, ie);
    if (lo2 < hi) g.shift_hi[k] = interval_position(g.need, lo2 + d) - (lo2 - r0);
    g.tr_shift[k] = interval_position(g.touched, lo + d) - (lo - r0);
  }
  return g;
}

// ---- sparsely filled diagonals that reach other processes --------------------

/// Entries applied one by one instead of by diagonal passes: rows are local
/// rows (ascending, unique), entries ptr[q] .. ptr[q + 1] belong to rows[q];
/// pos[e] is an entry's position in the block's value array and cols[e] its
/// column (global, or wherever a caller maps it).
struct ListedEntries {
  std::vector<Index> rows, ptr{0}, pos, cols;
  Index size() const { return static_cast<Index>(pos.size()); }
};

/// Which diagonals of a distributed block its products pass over row by row
/// (`passes`: indices k, ascending) and which entries they leave to a list.
/// A process grid whose neighbours have other widths (a DMDA of 1025 points
/// split 513 + 512) couples each boundary grid line to its neighbour through
/// an offset of its own: hundreds of diagonals holding one entry each, which
/// row passes would read in full. A diagonal d != 0 is listed when it holds
/// at most length / fill_ratio nonzeros and one of them lies outside the
/// owned columns [c0, c1); `listed` holds the nonzeros of those diagonals.
/// A diagonal d != 0 reaching other processes' columns without any nonzero
/// (a preallocated block, couplings set to zero) is in neither: it adds
/// nothing, and `unknown` says that its role shows only once values come in.
struct DiagonalSplit {
  std::vector<Index> passes;
  ListedEntries listed;
  bool unknown = false;
};

template <class T>
DiagonalSplit hm_split_sparse_remote(const HmView<T>& A, Index c0, Index c1, Index fill_ratio) {
  const Layout& L = A.layout;
  if (fill_ratio < 1) throw FormatError("hm_split_sparse_remote: fill_ratio must be at least 1");
  DiagonalSplit s;
  struct Entry {
    Index il, col, pos;
  };
  std::vector<Entry> entries;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    Index nnz = 0;
    bool remote = false, reaches = false;
    for (Index i = lo; i < hi; ++i) {
      const bool outside = i + d < c0 || i + d >= c1;
      reaches = reaches || outside;
      if (A.val[A.pos(k, i)] == T(0)) continue;
      ++nnz;
      remote = remote || outside;
    }
    if (d != 0 && reaches && nnz == 0) {  // nothing to compute until values come in
      s.unknown = true;
      continue;
    }
    if (d == 0 || !remote || nnz * fill_ratio > hi - lo) {
      s.passes.push_back(k);
      continue;
    }
    for (Index i = lo; i < hi; ++i)
      if (A.val[A.pos(k, i)] != T(0)) entries.push_back({i - L.row_begin, i + d, A.pos(k, i)});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.il != b.il ? a.il < b.il : a.col < b.col; });
  for (const Entry& e : entries) {
    if (s.listed.rows.empty() || s.listed.rows.back() != e.il) {
      s.listed.rows.push_back(e.il);
      s.listed.ptr.push_back(s.listed.ptr.back());
    }
    ++s.listed.ptr.back();
    s.listed.pos.push_back(e.pos);
    s.listed.cols.push_back(e.col);
  }
  return s;
}

/// The listed entries of a split (positions in the diagonals' values)
/// together with the entries a block keeps in a list (R, at positions
/// pos_base + e: after the diagonals' values, as the plugin's device copy
/// holds them), by row, columns global and ascending within a row.
template <class T>
ListedEntries listed_with_remote(const ListedEntries& split, const RemoteEntries<T>& R, Index pos_base) {
  if (R.empty()) return split;
  struct Entry {
    Index il, col, pos;
  };
  std::vector<Entry> e;
  e.reserve(static_cast<std::size_t>(split.size() + R.size()));
  for (std::size_t q = 0; q < split.rows.size(); ++q)
    for (Index p = split.ptr[q]; p < split.ptr[q + 1]; ++p) e.push_back({split.rows[q], split.cols[p], split.pos[p]});
  for (std::size_t q = 0; q < R.rows.size(); ++q)
    for (Index p = R.ptr[q]; p < R.ptr[q + 1]; ++p) e.push_back({R.rows[q], R.cols[p], pos_base + p});
  std::sort(e.begin(), e.end(), [](const Entry& a, const Entry& b) { return a.il != b.il ? a.il < b.il : a.col < b.col; });
  ListedEntries out;
  for (const Entry& x : e) {
    if (out.rows.empty() || out.rows.back() != x.il) {
      out.rows.push_back(x.il);
      out.ptr.push_back(out.ptr.back());
    }
    ++out.ptr.back();
    out.pos.push_back(x.pos);
    out.cols.push_back(x.col);
  }
  return out;
}

// ---- padded diagonals (for moving rows between processes) -------------------

/// cols[k][il] = a(i, i + offsets[k]) for the local rows il of A, 0 where A
/// does not store that position; offsets is any list (a union over
/// processes, say). One column of nrows values per offset: the form in which
/// rows of a block travel as an ordinary multivector.
template <class T>
void hm_to_padded(const HmView<const T>& A, const std::vector<Index>& offsets, T* const* cols) {
  const Layout& L = A.layout;
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    T* c = cols[k];
    for (Index il = 0; il < L.nrows; ++il) c[il] = T(0);
    Index ka = -1;
    for (Index q = 0; q < A.ndiag; ++q)
      if (A.offsets[q] == offsets[k]) ka = q;
    if (ka < 0) continue;
    const Index d = offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) c[i - L.row_begin] = A.val[A.pos(ka, i)];
  }
}

/// The HM block of layout L on the diagonals offsets (strictly ascending)
/// from padded columns as hm_to_padded writes them (cols[k][il], local rows
/// of L); positions outside a diagonal's range are ignored.
template <class T>
HmMatrix<T> hm_from_padded(const Layout& L, const std::vector<Index>& offsets, const T* const* cols) {
  HmMatrix<T> A(L, offsets);
  if (A.ndiag() != Index(offsets.size())) throw FormatError("hm_from_padded: offsets must be strictly ascending");
  const auto v = A.view();
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) A.val[static_cast<std::size_t>(v.pos(k, i))] = cols[k][i - L.row_begin];
  }
  return A;
}

// ---- reported pattern -------------------------------------------------------

/// Mask over A's stored positions: 1 where the COO list (global rows of the
/// block, global columns) has an entry, 0 elsewhere. FormatError if an entry
/// is outside the block or on a diagonal A does not store.
template <class T>
std::vector<unsigned char> hm_mask_of_coo(const HmMatrix<T>& A, Index nnz, const Index* rows, const Index* cols) {
  std::vector<unsigned char> mask(static_cast<std::size_t>(A.nstored()), 0);
  for (Index e = 0; e < nnz; ++e) {
    const T* p = A.find(rows[e], cols[e]);
    if (!p)
      throw FormatError("entry (" + std::to_string(rows[e]) + ", " + std::to_string(cols[e]) +
                        ") is not stored in this block");
    mask[static_cast<std::size_t>(p - A.val.data())] = 1;
  }
  return mask;
}

namespace detail {
// counts[t] += mask[t] for t in [0, n); returns the OR of the bytes' bits
// above bit 0. A function of its own so that restrict tells the compiler
// that the counts (Index) do not overlap the mask (bytes may alias
// anything): the loop then vectorizes, ~10x the scalar one.
inline unsigned add_mask_bytes(Index* __restrict counts, const unsigned char* __restrict mask, Index n) {
  unsigned bad = 0;
  for (Index t = 0; t < n; ++t) {
    counts[t] += mask[t];
    bad |= mask[t] & 0xFEu;
  }
  return bad;
}
}  // namespace detail

/// counts[il] = number of masked entries of each local row (overwritten).
/// The mask's bytes must be 0 or 1: FormatError otherwise.
template <class T>
void hm_masked_row_counts(const HmView<const T>& A, const unsigned char* mask, Index* counts) {
  const Layout& L = A.layout;
  for (Index il = 0; il < L.nrows; ++il) counts[il] = 0;
  unsigned bad = 0;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    if (lo < hi) bad |= detail::add_mask_bytes(counts + (lo - L.row_begin), mask + A.pos(k, lo), hi - lo);
  }
  if (bad) throw FormatError("hm_masked_row_counts: the mask holds bytes other than 0 and 1");
}

/// The masked entries of global row i (in the block), columns ascending:
/// f(j, value) for each. Returns how many.
template <class T, class F>
Index hm_for_each_masked_in_row(const HmView<const T>& A, const unsigned char* mask, Index i, F&& f) {
  const Layout& L = A.layout;
  if (i < L.row_begin || i >= L.row_end())
    throw FormatError("row " + std::to_string(i) + " outside the block's rows [" + std::to_string(L.row_begin) + ", " +
                      std::to_string(L.row_end()) + ")");
  Index n = 0;
  // Offsets ascend, so columns i + d ascend.
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k];
    if (i < L.lo(d) || i >= L.hi(d)) continue;
    const Index p = A.pos(k, i);
    if (!mask[p]) continue;
    f(i + d, A.val[p]);
    ++n;
  }
  return n;
}

}  // namespace pdiag
