// Conversions between COO, CSR, HM and CDM, and the structure report.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/positions.hpp"
#include "pdiag/remote.hpp"

#include <cmath>
#include <cstddef>

namespace pdiag {

/// Sorted unique diagonal offsets j - i of the entries (i, j) of a COO list.
/// Throws FormatError when an entry lies outside the block of rows L holds
/// or outside [0, ncols).
inline std::vector<Index> coo_offsets(const Layout& L, Index nnz, const Index* rows, const Index* cols) {
  check_layout(L);
  // One mark per possible offset d in (-M, N): O(nnz + M + N), no sort of entries.
  std::vector<bool> seen(static_cast<std::size_t>(L.nrows_global + L.ncols), false);
  Index count = 0;
  for (Index e = 0; e < nnz; ++e) {
    const Index i = rows[e], j = cols[e];
    if (i < L.row_begin || i >= L.row_end())
      throw FormatError("row index " + std::to_string(i) + " outside rows [" + std::to_string(L.row_begin) + ", " +
                        std::to_string(L.row_end()) + ")");
    if (j < 0 || j >= L.ncols)
      throw FormatError("column index " + std::to_string(j) + " outside [0, " + std::to_string(L.ncols) + ")");
    const std::size_t slot = static_cast<std::size_t>(j - i + L.nrows_global);
    if (!seen[slot]) {
      seen[slot] = true;
      ++count;
    }
  }
  std::vector<Index> offs;
  offs.reserve(static_cast<std::size_t>(count));
  for (std::size_t s = 0; s < seen.size() && Index(offs.size()) < count; ++s)
    if (seen[s]) offs.push_back(Index(s) - L.nrows_global);
  return offs;
}

/// HM block from a COO list in any order; duplicates are summed. Entries
/// given with value zero still create their diagonal (they are structural).
template <class T>
HmMatrix<T> hm_from_coo(const Layout& L, Index nnz, const Index* rows, const Index* cols, const T* vals) {
  HmMatrix<T> A(L, coo_offsets(L, nnz, rows, cols));
  auto v = A.view();
  Index k = 0;  // last diagonal hit: stencil entries come in few offsets
  for (Index e = 0; e < nnz; ++e) {
    const Index d = cols[e] - rows[e];
    if (A.offsets[static_cast<std::size_t>(k)] != d) k = A.find_diagonal(d);
    A.val[static_cast<std::size_t>(v.pos(k, rows[e]))] += vals[e];
  }
  return A;
}

/// HM block from CSR rows (local rows 0..nrows-1 of L, global columns).
template <class I, class T>
HmMatrix<T> hm_from_csr(const Layout& L, const I* rowptr, const I* colidx, const T* vals) {
  check_layout(L);
  std::vector<Index> rows, cols;
  const Index nnz = static_cast<Index>(rowptr[L.nrows]) - static_cast<Index>(rowptr[0]);
  rows.reserve(static_cast<std::size_t>(nnz));
  cols.reserve(static_cast<std::size_t>(nnz));
  for (Index il = 0; il < L.nrows; ++il)
    for (I p = rowptr[il]; p < rowptr[il + 1]; ++p) {
      rows.push_back(L.row_begin + il);
      cols.push_back(static_cast<Index>(colidx[p]));
    }
  return hm_from_coo<T>(L, nnz, rows.data(), cols.data(), vals + rowptr[0]);
}

/// COO triplets (global indices) of an HM block, by row then column. With
/// keep_zeros false, stored entries equal to zero are left out.
template <class T>
struct Coo {
  std::vector<Index> rows, cols;
  std::vector<T> vals;
};

/// CSR of an HM block: rowptr over local rows, global columns ascending.
template <class T>
struct Csr {
  std::vector<Index> rowptr{0}, colidx;
  std::vector<T> vals;
};

namespace detail {

/// Visits every stored entry of A, and of the list the block keeps (remote,
/// if given), row by row, each row's in ascending column order:
/// entry(i, j, s) for each, s its slot (its index in A.val; A.nstored() + e
/// for the list's entry e), then row_done(i) after each row. The diagonals
/// are read as parallel streams, so what the visitor writes in visiting
/// order (CSR arrays) is written in order, where a diagonal-by-diagonal
/// pass would scatter each diagonal's entries.
template <class T, class Entry, class RowDone>
void for_each_stored_by_row(const HmMatrix<T>& A, Entry&& entry, RowDone&& row_done, const RemoteEntries<T>* remote = nullptr) {
  const Layout& L = A.layout;
  const Index nd = A.ndiag(), ns = A.nstored();
  std::vector<Index> first(static_cast<std::size_t>(nd)), last(first), base(first);
  for (Index k = 0; k < nd; ++k) {
    const Index d = A.offsets[k];
    first[k] = L.lo(d);
    last[k] = L.hi(d);
    base[k] = A.start[k] - first[k];  // slot of (i, i + d): base[k] + i
  }
  std::size_t q = 0;  // the next listed row
  for (Index i = L.row_begin; i < L.row_end(); ++i) {
    Index p = 0, pend = 0;  // the row's listed entries
    if (remote && q < remote->rows.size() && remote->rows[q] == i - L.row_begin) {
      p = remote->ptr[q];
      pend = remote->ptr[q + 1];
      ++q;
    }
    for (Index k = 0; k < nd; ++k) {
      if (i < first[k] || i >= last[k]) continue;
      const Index j = i + A.offsets[k];
      for (; p < pend && remote->cols[p] < j; ++p) entry(i, remote->cols[p], ns + p);
      entry(i, j, base[k] + i);
    }
    for (; p < pend; ++p) entry(i, remote->cols[p], ns + p);
    row_done(i);
  }
}

/// The value at slot s (for_each_stored_by_row's numbering).
template <class T>
const T& stored_value(const HmMatrix<T>& A, const RemoteEntries<T>* remote, Index ns, Index s) {
  return s < ns ? A.val[static_cast<std::size_t>(s)] : remote->val[static_cast<std::size_t>(s - ns)];
}

/// Visits the stored entries (i, j, v) of A that keep(i, j, v) accepts, in
/// for_each_stored_by_row's order: entry(i, j, v) for each, then
/// row_done(i) after each row.
template <class T, class Keep, class Entry, class RowDone>
void for_each_kept_by_row(const HmMatrix<T>& A, Keep&& keep, Entry&& entry, RowDone&& row_done, const RemoteEntries<T>* remote = nullptr) {
  const Index ns = A.nstored();
  for_each_stored_by_row(
      A,
      [&](Index i, Index j, Index s) {
        const T& a = stored_value(A, remote, ns, s);
        if (keep(i, j, a)) entry(i, j, a);
      },
      row_done, remote);
}

/// The CSR row pointer (over the local rows) of the entries keep accepts.
template <class T, class Keep>
void kept_rowptr(const HmMatrix<T>& A, Keep&& keep, std::vector<Index>& rowptr, const RemoteEntries<T>* remote) {
  const Layout& L = A.layout;
  rowptr.assign(static_cast<std::size_t>(L.nrows + 1), 0);
  Index n = 0;
  for_each_kept_by_row(
      A, keep, [&](Index, Index, const T&) { ++n; }, [&](Index i) { rowptr[static_cast<std::size_t>(i - L.row_begin + 1)] = n; }, remote);
}

}  // namespace detail

/// The CSR pattern of the stored entries (i, j) with value v of A for
/// which keep(i, j, v) holds: rowptr over the local rows, global columns
/// ascending in each row. With hm_csr_values_if, the two halves of
/// hm_to_csr_if for a caller that keeps the pattern and puts the values in
/// arrays of its own (an aij matrix's). The entries of a list the block
/// keeps (remote, if given) join their rows, here and in the functions
/// below.
template <class T, class Keep>
void hm_csr_pattern_if(const HmMatrix<T>& A, Keep&& keep, std::vector<Index>& rowptr, std::vector<Index>& colidx, const RemoteEntries<T>* remote = nullptr) {
  detail::kept_rowptr(A, keep, rowptr, remote);
  colidx.resize(static_cast<std::size_t>(rowptr.back()));
  std::size_t p = 0;
  detail::for_each_kept_by_row(A, keep, [&](Index, Index j, const T&) { colidx[p++] = j; }, [](Index) {}, remote);
}

/// hm_csr_pattern_if in one pass into the caller's arrays, of any integer
/// type I wide enough for the columns: rowptr (nrows + 1 entries) and
/// colidx (room for A.nstored() + remote->size() entries, the most that
/// can be kept; the first rowptr[nrows] are written). For a caller that
/// hands the arrays to a library (an aij matrix's own), with no copy and no
/// second pass.
template <class T, class Keep, class I>
void hm_csr_pattern_if_into(const HmMatrix<T>& A, Keep&& keep, I* rowptr, I* colidx, const RemoteEntries<T>* remote = nullptr) {
  const Layout& L = A.layout;
  Index p = 0;
  rowptr[0] = 0;
  detail::for_each_kept_by_row(
      A, keep, [&](Index, Index j, const T&) { colidx[p++] = static_cast<I>(j); },
      [&](Index i) { rowptr[i - L.row_begin + 1] = static_cast<I>(p); }, remote);
}

/// Whether the kept entries' pattern is (rowptr, colidx), checked without
/// building it.
template <class T, class Keep>
bool hm_csr_pattern_equals_if(const HmMatrix<T>& A, Keep&& keep, const std::vector<Index>& rowptr, const std::vector<Index>& colidx,
                              const RemoteEntries<T>* remote = nullptr) {
  const Layout& L = A.layout;
  if (rowptr.size() != static_cast<std::size_t>(L.nrows + 1) || rowptr.back() != Index(colidx.size())) return false;
  bool same = true;
  Index p = 0;  // kept entries seen so far
  const auto entry = [&](Index, Index j, const T&) {
    if (p >= Index(colidx.size()) || colidx[static_cast<std::size_t>(p)] != j) same = false;
    ++p;
  };
  const auto row_done = [&](Index i) {
    if (rowptr[static_cast<std::size_t>(i - L.row_begin + 1)] != p) same = false;
  };
  detail::for_each_kept_by_row(A, keep, entry, row_done, remote);
  return same && p == Index(colidx.size());
}

/// The kept entries' values in CSR order (hm_csr_pattern_if's) into out.
template <class T, class Keep>
void hm_csr_values_if(const HmMatrix<T>& A, Keep&& keep, T* out, const RemoteEntries<T>* remote = nullptr) {
  std::size_t p = 0;
  detail::for_each_kept_by_row(A, keep, [&](Index, Index, const T& a) { out[p++] = a; }, [](Index) {}, remote);
}

/// The slots (for_each_stored_by_row's numbering) of the stored entries of
/// A, and of its list, that the CSR pattern (rowptr over A's rows, global
/// columns ascending) does not hold, in the walk's order (by rows, columns
/// ascending). With them the pattern's values are hm_csr_values_except's,
/// and whether a stored entry outside the pattern became nonzero is
/// hm_slots_any_nonzero's, without the rule that chose the pattern. False,
/// with `outside` empty, when the pattern holds a position A does not store.
template <class T>
bool hm_slots_outside_csr(const HmMatrix<T>& A, const std::vector<Index>& rowptr, const std::vector<Index>& colidx, std::vector<Index>& outside,
                          const RemoteEntries<T>* remote = nullptr) {
  const Layout& L = A.layout;
  outside.clear();
  if (rowptr.size() != static_cast<std::size_t>(L.nrows + 1) || rowptr.front() != 0 || rowptr.back() != Index(colidx.size())) return false;
  bool subset = true;
  Index p = 0;  // the pattern's next entry in the row
  detail::for_each_stored_by_row(
      A,
      [&](Index i, Index j, Index s) {
        const Index end = rowptr[static_cast<std::size_t>(i - L.row_begin + 1)];
        for (; p < end && colidx[static_cast<std::size_t>(p)] < j; ++p) subset = false;  // a pattern column not stored
        if (p < end && colidx[static_cast<std::size_t>(p)] == j) ++p;
        else outside.push_back(s);
      },
      [&](Index i) {
        const Index end = rowptr[static_cast<std::size_t>(i - L.row_begin + 1)];
        if (p != end) subset = false;
        p = end;
      },
      remote);
  if (!subset) outside.clear();
  return subset;
}

/// Whether a stored entry at one of `slots` (for_each_stored_by_row's
/// numbering) is nonzero.
template <class T>
bool hm_slots_any_nonzero(const HmMatrix<T>& A, const std::vector<Index>& slots, const RemoteEntries<T>* remote = nullptr) {
  const Index ns = A.nstored();
  for (const Index s : slots)
    if (detail::stored_value(A, remote, ns, s) != T(0)) return true;
  return false;
}

/// The values of the stored entries of A, and of its list, but those at
/// the slots `outside` (hm_slots_outside_csr's, in its order), into out in
/// the walk's order: the CSR values of the pattern the slots were found for.
template <class T>
void hm_csr_values_except(const HmMatrix<T>& A, const std::vector<Index>& outside, T* out, const RemoteEntries<T>* remote = nullptr) {
  const Index ns = A.nstored();
  std::size_t q = 0, p = 0;
  detail::for_each_stored_by_row(
      A,
      [&](Index, Index, Index s) {
        if (q < outside.size() && outside[q] == s) ++q;
        else out[p++] = detail::stored_value(A, remote, ns, s);
      },
      [](Index) {}, remote);
}

/// The reverse of hm_csr_values_except: the stored entries but those at
/// `outside` take the values in (in the walk's order), those at `outside`
/// become zero, and zero(i, j) is called for each position given an exact
/// zero from in (an aij matrix's explicit zeros, which stay entries).
template <class T, class Zero>
void hm_csr_values_take_except(HmMatrix<T>& A, const std::vector<Index>& outside, const T* in, Zero&& zero, RemoteEntries<T>* remote = nullptr) {
  const Index ns = A.nstored();
  std::size_t q = 0, p = 0;
  detail::for_each_stored_by_row(
      A,
      [&](Index i, Index j, Index s) {
        T& a = s < ns ? A.val[static_cast<std::size_t>(s)] : remote->val[static_cast<std::size_t>(s - ns)];
        if (q < outside.size() && outside[q] == s) {
          ++q;
          a = T(0);
          return;
        }
        a = in[p++];
        if (a == T(0)) zero(i, j);
      },
      [](Index) {}, remote);
}

/// Whether the CSR pattern (rowptr over the rows from row_begin, columns
/// ascending in each row) holds every position of `positions` (global).
inline bool csr_holds_positions(const std::vector<Index>& rowptr, const std::vector<Index>& colidx, Index row_begin, const std::vector<Position>& positions) {
  const Index nrows = Index(rowptr.size()) - 1;
  for (const auto& [i, j] : positions) {
    const Index il = i - row_begin;
    if (il < 0 || il >= nrows) return false;
    const auto first = colidx.begin() + rowptr[static_cast<std::size_t>(il)], last = colidx.begin() + rowptr[static_cast<std::size_t>(il + 1)];
    if (!std::binary_search(first, last, j)) return false;
  }
  return true;
}

/// The stored entries (i, j) with value v of A for which keep(i, j, v)
/// holds, as CSR of the local rows (global columns, ascending in each row).
template <class T, class Keep>
Csr<T> hm_to_csr_if(const HmMatrix<T>& A, Keep&& keep, const RemoteEntries<T>* remote = nullptr) {
  Csr<T> C;
  detail::kept_rowptr(A, keep, C.rowptr, remote);
  C.colidx.resize(static_cast<std::size_t>(C.rowptr.back()));
  C.vals.resize(C.colidx.size());
  std::size_t p = 0;  // columns and values in one pass
  detail::for_each_kept_by_row(
      A, keep,
      [&](Index, Index j, const T& a) {
        C.colidx[p] = j;
        C.vals[p++] = a;
      },
      [](Index) {}, remote);
  return C;
}

/// The CSR pattern (rowptr over the block's rows, columns ascending and
/// unique in each row) of nnz COO positions of the block's rows.
inline void coo_pattern(const Layout& L, Index nnz, const Index* rows, const Index* cols, std::vector<Index>& rowptr, std::vector<Index>& colidx) {
  rowptr.assign(static_cast<std::size_t>(L.nrows + 1), 0);
  for (Index e = 0; e < nnz; ++e) {
    if (rows[e] < L.row_begin || rows[e] >= L.row_end()) throw FormatError("coo_pattern: row outside the block");
    ++rowptr[rows[e] - L.row_begin + 1];
  }
  for (Index il = 0; il < L.nrows; ++il) rowptr[il + 1] += rowptr[il];
  colidx.assign(static_cast<std::size_t>(nnz), 0);
  std::vector<Index> next(rowptr.begin(), rowptr.end() - 1);
  for (Index e = 0; e < nnz; ++e) colidx[next[rows[e] - L.row_begin]++] = cols[e];
  Index out = 0;  // sort and deduplicate each row, compacting in place
  for (Index il = 0; il < L.nrows; ++il) {
    const auto first = colidx.begin() + rowptr[il], last = colidx.begin() + rowptr[il + 1];
    std::sort(first, last);
    const Index begin = out;
    for (auto it = first; it != last; ++it)
      if (out == begin || colidx[out - 1] != *it) colidx[out++] = *it;
    rowptr[il] = begin;
  }
  rowptr[L.nrows] = out;
  colidx.resize(static_cast<std::size_t>(out));
}

/// The CSR (global columns) of A's entries that are nonzero, on the stored
/// main diagonal (main_diagonal: a square matrix's), at the positions `also` (global (row, column), rows of the block,
/// zero when not stored) and in the list `remote` (all of its entries):
/// an aij matrix of a block built from entries set, whose set zeros are
/// `also`. Found a diagonal at a time: for a block whose diagonals hold
/// mostly zeros (a scattered matrix) a row-by-row walk visits every
/// diagonal for every row.
template <class T>
Csr<T> hm_to_csr_nonzeros(const HmMatrix<T>& A, bool main_diagonal, const std::vector<std::pair<Index, Index>>& also, const RemoteEntries<T>* remote = nullptr) {
  const Layout& L = A.layout;
  std::vector<Index> rows, cols;
  const auto v = A.view();
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    if (lo >= hi) continue;
    const T* a = A.val.data() + v.pos(k, lo);
    for (Index i = lo; i < hi; ++i)
      if (a[i - lo] != T(0)) {
        rows.push_back(i);
        cols.push_back(i + d);
      }
  }
  if (main_diagonal && A.find_diagonal(0) >= 0)
    for (Index i = L.row_begin; i < L.row_end() && i < L.ncols; ++i) {
      rows.push_back(i);
      cols.push_back(i);
    }
  for (const auto& [i, j] : also) {
    rows.push_back(i);
    cols.push_back(j);
  }
  if (remote)
    for (std::size_t q = 0; q < remote->rows.size(); ++q)
      for (Index p = remote->ptr[q]; p < remote->ptr[q + 1]; ++p) {
        rows.push_back(L.row_begin + remote->rows[q]);
        cols.push_back(remote->cols[p]);
      }
  Csr<T> C;
  coo_pattern(L, static_cast<Index>(rows.size()), rows.data(), cols.data(), C.rowptr, C.colidx);
  C.vals.assign(C.colidx.size(), T(0));
  for (Index il = 0; il < L.nrows; ++il)
    for (Index p = C.rowptr[il]; p < C.rowptr[il + 1]; ++p) {
      const Index i = L.row_begin + il, j = C.colidx[p];
      if (const T* a = A.find(i, j)) C.vals[p] = *a;
      else if (remote) {
        const Index r = remote->find(il, j);
        if (r >= 0) C.vals[p] = remote->val[r];
      }
    }
  return C;
}

/// The positions of a CSR block's entries in the columns [c0, c1), as COO
/// of a matrix of its own: rows 0..nrows-1, columns shifted by -c0.
template <class T>
void csr_column_block_coo(const Csr<T>& C, Index c0, Index c1, std::vector<Index>& rows, std::vector<Index>& cols) {
  rows.clear();
  cols.clear();
  for (Index il = 0; il + 1 < Index(C.rowptr.size()); ++il)
    for (Index p = C.rowptr[il]; p < C.rowptr[il + 1]; ++p)
      if (C.colidx[p] >= c0 && C.colidx[p] < c1) {
        rows.push_back(il);
        cols.push_back(C.colidx[p] - c0);
      }
}

/// keep(i, j, v) for every stored entry of A, in storage order (1 or 0).
template <class T, class Keep>
std::vector<unsigned char> hm_entry_mask(const HmMatrix<T>& A, Keep&& keep) {
  const Layout& L = A.layout;
  std::vector<unsigned char> mask(static_cast<std::size_t>(A.nstored()), 0);
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) {
      const std::size_t p = static_cast<std::size_t>(A.start[k] + i - L.lo(d));
      mask[p] = keep(i, i + d, A.val[p]) ? 1 : 0;
    }
  }
  return mask;
}

/// How many stored entries of A keep(i, j, v) takes (the ones of
/// hm_entry_mask, without the mask).
template <class T, class Keep>
Index hm_count_if(const HmMatrix<T>& A, Keep&& keep, const RemoteEntries<T>* remote = nullptr) {
  Index n = 0;
  detail::for_each_kept_by_row(A, keep, [&](Index, Index, const T&) { ++n; }, [](Index) {}, remote);
  return n;
}

template <class T>
Csr<T> hm_to_csr(const HmMatrix<T>& A, bool keep_zeros = true) {
  const Layout& L = A.layout;
  const auto v = A.view();
  Csr<T> C;
  C.rowptr.assign(static_cast<std::size_t>(L.nrows + 1), 0);
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i)
      if (keep_zeros || A.val[static_cast<std::size_t>(v.pos(k, i))] != T(0)) ++C.rowptr[i - L.row_begin + 1];
  }
  for (Index il = 0; il < L.nrows; ++il) C.rowptr[il + 1] += C.rowptr[il];
  C.colidx.resize(static_cast<std::size_t>(C.rowptr.back()));
  C.vals.resize(static_cast<std::size_t>(C.rowptr.back()));
  std::vector<Index> next(C.rowptr.begin(), C.rowptr.end() - 1);
  // Offsets ascend, so each row receives its columns in ascending order.
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) {
      const T a = A.val[static_cast<std::size_t>(v.pos(k, i))];
      if (!keep_zeros && a == T(0)) continue;
      const Index p = next[i - L.row_begin]++;
      C.colidx[p] = i + d;
      C.vals[p] = a;
    }
  }
  return C;
}

template <class T>
Coo<T> hm_to_coo(const HmMatrix<T>& A, bool keep_zeros = true) {
  const Csr<T> C = hm_to_csr(A, keep_zeros);
  Coo<T> out;
  out.cols = C.colidx;
  out.vals = C.vals;
  out.rows.resize(C.colidx.size());
  for (Index il = 0; il < A.layout.nrows; ++il)
    for (Index p = C.rowptr[il]; p < C.rowptr[il + 1]; ++p) out.rows[p] = A.layout.row_begin + il;
  return out;
}

/// Compact diagonals (d mod N) of a set of HM offsets.
inline std::vector<Index> cdm_offsets_of(const Layout& L, const std::vector<Index>& offsets) {
  std::vector<Index> kk;
  kk.reserve(offsets.size());
  for (Index d : offsets) kk.push_back(d < 0 ? d + L.ncols : d);
  std::sort(kk.begin(), kk.end());
  kk.erase(std::unique(kk.begin(), kk.end()), kk.end());
  return kk;
}

/// CDM block holding the same entries as an HM block (square matrices).
template <class T>
CdmMatrix<T> cdm_from_hm(const HmMatrix<T>& A) {
  CdmMatrix<T> C(A.layout, cdm_offsets_of(A.layout, A.offsets));
  const auto hv = A.view();
  const auto cv = C.view();
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    const Index kc = C.find_diagonal(d < 0 ? d + A.layout.ncols : d);
    for (Index i = A.layout.lo(d); i < A.layout.hi(d); ++i)
      C.val[static_cast<std::size_t>(cv.pos(kc, i))] = A.val[static_cast<std::size_t>(hv.pos(k, i))];
  }
  return C;
}

/// HM diagonals of a CDM block that hold at least one nonzero in this block:
/// each compact diagonal kk covers the super diagonal kk and the sub
/// diagonal kk - N. (Under MPI, the union over ranks is the global set.)
namespace detail {
/// Whether HM diagonal d, one half of compact diagonal k of C, holds a nonzero.
template <class T>
bool cdm_half_has_nonzero(const CdmMatrix<T>& C, Index k, Index d) {
  const auto cv = C.view();
  for (Index i = C.layout.lo(d); i < C.layout.hi(d); ++i)
    if (C.val[static_cast<std::size_t>(cv.pos(k, i))] != T(0)) return true;
  return false;
}
}  // namespace detail

template <class T>
std::vector<Index> cdm_nonzero_offsets(const CdmMatrix<T>& C) {
  const Layout& L = C.layout;
  std::vector<Index> out;
  for (Index k = 0; k < C.ndiag(); ++k) {
    const Index kk = C.koffsets[k];
    for (Index d : {kk - L.ncols, kk})
      if (d != -L.ncols && detail::cdm_half_has_nonzero(C, k, d)) out.push_back(d);  // kk = 0 has no sub part
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The part of a row block in the columns [c0, c1), as a sequential matrix
/// of its own (rows 0..nrows-1, columns 0..c1-c0-1): diagonal d of the block
/// becomes diagonal d + row_begin - c0. Diagonals that miss the columns are
/// left out; every other entry is copied (stored zeros included).
template <class T>
HmMatrix<T> hm_column_block(const HmMatrix<T>& A, Index c0, Index c1, const std::vector<Index>* keep = nullptr) {
  const Layout& L = A.layout;
  if (c0 < 0 || c1 < c0 || c1 > L.ncols) throw FormatError("column block outside the matrix");
  const Layout B = Layout::rect(L.nrows, c1 - c0);
  const Index shift = L.row_begin - c0;  // block offset = global offset + shift
  std::vector<Index> offs;
  for (Index d : A.offsets)
    if (B.length(d + shift) > 0 && (!keep || std::binary_search(keep->begin(), keep->end(), d + shift))) offs.push_back(d + shift);
  HmMatrix<T> out(B, offs);
  const auto a = A.view();
  for (Index k = 0; k < out.ndiag(); ++k) {
    const Index db = out.offsets[k], ka = A.find_diagonal(db - shift);
    // block rows [lo, hi) of diagonal db are global rows row_begin + [lo, hi)
    const Index lo = B.lo(db), hi = B.hi(db);
    std::copy(A.val.begin() + a.pos(ka, L.row_begin + lo), A.val.begin() + a.pos(ka, L.row_begin + lo) + (hi - lo),
              out.val.begin() + out.start[k]);
  }
  return out;
}

/// hm_column_block keeping only the block's main diagonal and the diagonals
/// that hold one of the positions (rows[e], cols[e]) of the block (its
/// numbering): a distributed block's diagonals with nothing of the pattern
/// in the owned columns (a process grid of unequal widths couples each
/// boundary line through a diagonal of its own, whose entries all lie in
/// other processes' columns) are left out, as aij's diagonal block has none.
template <class T>
HmMatrix<T> hm_column_block_of_pattern(const HmMatrix<T>& A, Index c0, Index c1, const std::vector<Index>& rows,
                                       const std::vector<Index>& cols) {
  if (rows.size() != cols.size()) throw FormatError("hm_column_block_of_pattern: rows and cols differ in length");
  std::vector<Index> keep{0};
  for (std::size_t e = 0; e < rows.size(); ++e) keep.push_back(cols[e] - rows[e]);
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  return hm_column_block(A, c0, c1, &keep);
}

/// The HM diagonals a CDM block keeps when it goes back to HM storage: the
/// halves of each compact diagonal that hold a nonzero in this block (as
/// cdm_nonzero_offsets), and for a compact diagonal without any nonzero its
/// longer half, so that an all-zero structure (a DMDA's matrix before its
/// values) keeps its diagonals.
template <class T>
std::vector<Index> cdm_hm_offsets(const CdmMatrix<T>& C) {
  const Layout& L = C.layout;
  std::vector<Index> out;
  for (Index k = 0; k < C.ndiag(); ++k) {
    const Index kk = C.koffsets[k];
    bool any = false;
    for (Index d : {kk - L.ncols, kk})
      if (d != -L.ncols && detail::cdm_half_has_nonzero(C, k, d)) {  // kk = 0 has no sub part
        out.push_back(d);
        any = true;
      }
    if (!any) {
      const Index longer = kk == 0 || L.length(kk) >= L.length(kk - L.ncols) ? kk : kk - L.ncols;
      if (L.length(longer) > 0) out.push_back(longer);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Every HM offset a CDM block's compact diagonals cover (both halves of
/// each, where they cross the block), whatever the values: the structure.
template <class T>
std::vector<Index> cdm_structural_offsets(const CdmMatrix<T>& C) {
  const Layout& L = C.layout;
  std::vector<Index> out;
  for (Index kk : C.koffsets)
    for (Index d : {kk - L.ncols, kk})
      if (d != -L.ncols && L.length(d) > 0) out.push_back(d);
  std::sort(out.begin(), out.end());
  return out;
}

/// HM block with the given diagonals, filled from a CDM block. Every offset
/// must belong to a stored compact diagonal; entries of the CDM block that
/// fall on diagonals not listed must be zero, else FormatError.
template <class T>
HmMatrix<T> hm_from_cdm(const CdmMatrix<T>& C, const std::vector<Index>& offsets) {
  const Layout& L = C.layout;
  HmMatrix<T> A(L, offsets);
  const auto hv = A.view();
  const auto cv = C.view();
  for (Index k = 0; k < C.ndiag(); ++k) {
    const Index kk = C.koffsets[k];
    for (Index d : {kk - L.ncols, kk}) {
      if (d == -L.ncols) continue;
      const Index kh = A.find_diagonal(d);
      for (Index i = L.lo(d); i < L.hi(d); ++i) {
        const T c = C.val[static_cast<std::size_t>(cv.pos(k, i))];
        if (kh >= 0)
          A.val[static_cast<std::size_t>(hv.pos(kh, i))] = c;
        else if (c != T(0))
          throw FormatError("CDM entry on diagonal " + std::to_string(d) + " not in the requested HM diagonal set");
      }
    }
  }
  for (Index kh = 0; kh < A.ndiag(); ++kh) {
    const Index d = A.offsets[kh];
    if (C.find_diagonal(d < 0 ? d + L.ncols : d) < 0)
      throw FormatError("HM diagonal " + std::to_string(d) + " has no compact diagonal in the CDM block");
  }
  return A;
}

/// What a block costs in each scheme. fill = nonzeros / stored entries of
/// the scheme (1 means nothing stored in vain).
struct StructureReport {
  Index nrows = 0, ncols = 0;
  Index ndiag_hm = 0, ndiag_cdm = 0;
  Index stored_hm = 0, stored_cdm = 0;
  Index nonzeros = 0;
  double fill_hm = 1.0, fill_cdm = 1.0;
  std::size_t bytes_hm = 0, bytes_cdm = 0, bytes_csr = 0;
};

/// Report on an HM block. nonzeros < 0 counts the stored values that are
/// not zero; pass the structural count when it is known (e.g. from aij).
/// CSR bytes assume 32-bit column indices and row pointers (PETSc's default).
template <class T>
StructureReport structure_report(const HmMatrix<T>& A, Index nonzeros = -1) {
  StructureReport r;
  const Layout& L = A.layout;
  r.nrows = L.nrows;
  r.ncols = L.ncols;
  r.ndiag_hm = A.ndiag();
  r.stored_hm = A.nstored();
  if (nonzeros < 0) {
    nonzeros = 0;
    for (const T& a : A.val) nonzeros += (a != T(0));
  }
  r.nonzeros = nonzeros;
  r.bytes_hm = sizeof(T) * std::size_t(r.stored_hm) + sizeof(Index) * std::size_t(2 * A.ndiag() + 1);
  r.bytes_csr = (sizeof(T) + 4) * std::size_t(nonzeros) + 4 * std::size_t(L.nrows + 1);
  r.fill_hm = r.stored_hm ? double(nonzeros) / double(r.stored_hm) : 1.0;
  if (L.is_square()) {
    r.ndiag_cdm = Index(cdm_offsets_of(L, A.offsets).size());
    r.stored_cdm = r.ndiag_cdm * L.nrows;
    r.bytes_cdm = sizeof(T) * std::size_t(r.stored_cdm) + sizeof(Index) * std::size_t(r.ndiag_cdm);
    r.fill_cdm = r.stored_cdm ? double(nonzeros) / double(r.stored_cdm) : 1.0;
  }
  return r;
}

/// The scheme that stores a block in fewer bytes (CDM only for square).
enum class Scheme { HM, CDM };
inline Scheme cheaper_scheme(const StructureReport& r, const Layout& L) {
  return (L.is_square() && r.bytes_cdm < r.bytes_hm) ? Scheme::CDM : Scheme::HM;
}

}  // namespace pdiag
