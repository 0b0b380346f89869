// Entries of a distributed block kept in a list instead of on diagonals.
//
// A process grid whose neighbours have other widths (a DMDA of 1025 points
// split 513 + 512 in x) couples each boundary grid line to the neighbour
// through an offset of its own: hundreds (2D) or thousands (3D) of
// diagonals holding one entry each. Stored as diagonals they take a full
// diagonal's length each (a gigabyte per process for a 1025^2 grid on 4
// processes, 300 times aij's matrix); kept as a list they take what aij
// takes. The rule (lists_as_remote): a diagonal d != 0 whose entries on
// this block's rows all lie in other processes' columns and fill at most
// 1 / fill_ratio of it is listed.
#pragma once

#include "pdiag/format.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace pdiag {

/// The listed entries of a block: local rows (ascending, each with at
/// least one entry), entries ptr[q] .. ptr[q + 1] of rows[q], global
/// columns ascending within a row, values in the same order.
template <class T>
struct RemoteEntries {
  std::vector<Index> rows, ptr{0}, cols;
  std::vector<T> val;

  Index size() const { return static_cast<Index>(cols.size()); }
  bool empty() const { return cols.empty(); }
  /// Entries [first, second) of local row il (empty when it has none).
  std::pair<Index, Index> row_range(Index il) const {
    const auto r = std::lower_bound(rows.begin(), rows.end(), il);
    if (r == rows.end() || *r != il) return {0, 0};
    const std::size_t q = static_cast<std::size_t>(r - rows.begin());
    return {ptr[q], ptr[q + 1]};
  }
  /// Position of the entry (local row il, global column j), or -1.
  Index find(Index il, Index j) const {
    const auto [first, last] = row_range(il);
    const auto c = std::lower_bound(cols.begin() + first, cols.begin() + last, j);
    return (c != cols.begin() + last && *c == j) ? static_cast<Index>(c - cols.begin()) : Index(-1);
  }
};

/// One entry: local row, global column, value.
template <class T>
struct RemoteEntry {
  Index il, col;
  T v;
};

/// The list of the entries e (positions unique, any order).
template <class T>
RemoteEntries<T> remote_entries_from(std::vector<RemoteEntry<T>> e) {
  std::sort(e.begin(), e.end(), [](const RemoteEntry<T>& a, const RemoteEntry<T>& b) { return a.il != b.il ? a.il < b.il : a.col < b.col; });
  RemoteEntries<T> R;
  for (std::size_t k = 0; k < e.size(); ++k) {
    if (k > 0 && e[k].il == e[k - 1].il && e[k].col == e[k - 1].col) throw FormatError("remote_entries_from: a position is listed twice");
    if (R.rows.empty() || R.rows.back() != e[k].il) {
      R.rows.push_back(e[k].il);
      R.ptr.push_back(R.ptr.back());
    }
    ++R.ptr.back();
    R.cols.push_back(e[k].col);
    R.val.push_back(e[k].v);
  }
  return R;
}

/// R's entries, row by row.
template <class T>
std::vector<RemoteEntry<T>> remote_entries_list(const RemoteEntries<T>& R) {
  std::vector<RemoteEntry<T>> e;
  e.reserve(R.cols.size());
  for (std::size_t q = 0; q < R.rows.size(); ++q)
    for (Index p = R.ptr[q]; p < R.ptr[q + 1]; ++p) e.push_back({R.rows[q], R.cols[p], R.val[p]});
  return e;
}

/// R with the entries e added (at positions R does not hold).
template <class T>
void remote_entries_add(RemoteEntries<T>& R, const std::vector<RemoteEntry<T>>& e) {
  if (e.empty()) return;
  std::vector<RemoteEntry<T>> all = remote_entries_list(R);
  all.insert(all.end(), e.begin(), e.end());
  R = remote_entries_from(std::move(all));
}

/// How many entries R holds on each diagonal (global offset col - row,
/// rows numbered from r0).
template <class T>
std::map<Index, Index> remote_entries_per_diagonal(const RemoteEntries<T>& R, Index r0) {
  std::map<Index, Index> n;
  for (std::size_t q = 0; q < R.rows.size(); ++q)
    for (Index p = R.ptr[q]; p < R.ptr[q + 1]; ++p) ++n[R.cols[p] - (r0 + R.rows[q])];
  return n;
}

/// Removes R's entries on the diagonals `offsets` (ascending) and returns
/// them (rows numbered from r0).
template <class T>
std::vector<RemoteEntry<T>> remote_entries_take(RemoteEntries<T>& R, Index r0, const std::vector<Index>& offsets) {
  std::vector<RemoteEntry<T>> keep, taken;
  for (const RemoteEntry<T>& x : remote_entries_list(R))
    (std::binary_search(offsets.begin(), offsets.end(), x.col - (r0 + x.il)) ? taken : keep).push_back(x);
  if (!taken.empty()) R = remote_entries_from(std::move(keep));
  return taken;
}

/// Whether diagonal d of a block of layout L is listed rather than stored:
/// d != 0, its `count` entries on the block's rows all in other processes'
/// columns (`all_outside`), and count * fill_ratio at most its length.
inline bool lists_as_remote(const Layout& L, Index fill_ratio, Index d, Index count, bool all_outside) {
  return d != 0 && all_outside && count > 0 && count * fill_ratio <= L.length(d);
}

/// The split of a sparsity pattern of the rows of L (couplings(i): global
/// row i's columns, ascending) between stored diagonals (`offsets`,
/// ascending) and listed positions (`listed`, zero values), by
/// lists_as_remote. For a preallocation from a stencil.
template <class T>
struct PatternSplit {
  std::vector<Index> offsets;
  RemoteEntries<T> listed;
};

///
/// The rows walked are `rows` (global, ascending); the block's other rows
/// couple only to owned columns, on the offsets `inner_offsets`, which are
/// therefore stored. A grid stencil walks its boxes' faces this way
/// (GridStencilPattern::face_rows, interior_offsets): the cost is the
/// box's surface, not its volume.
template <class T, class Couplings>
PatternSplit<T> split_pattern_remote(const Layout& L, Index c0, Index c1, Index fill_ratio, const std::vector<Index>& rows,
                                     const std::vector<Index>& inner_offsets, Couplings&& couplings) {
  if (fill_ratio < 1) throw FormatError("split_pattern_remote: fill_ratio must be at least 1");
  struct Count {
    Index n = 0;
    bool outside = true;
  };
  std::map<Index, Count> per;
  for (const Index d : inner_offsets) per[d].outside = false;
  for (const Index i : rows) {
    if (i < L.row_begin || i >= L.row_end()) throw FormatError("split_pattern_remote: a row outside the block");
    for (const Index j : couplings(i)) {
      Count& c = per[j - i];
      ++c.n;
      c.outside = c.outside && (j < c0 || j >= c1);
    }
  }
  PatternSplit<T> s;
  std::vector<Index> listed;  // ascending
  for (const auto& [d, c] : per) (lists_as_remote(L, fill_ratio, d, c.n, c.outside) ? listed : s.offsets).push_back(d);
  if (listed.empty()) return s;
  for (const Index i : rows) {
    bool any = false;
    for (const Index j : couplings(i)) {
      if (!std::binary_search(listed.begin(), listed.end(), j - i)) continue;
      if (!any) {
        s.listed.rows.push_back(i - L.row_begin);
        s.listed.ptr.push_back(s.listed.ptr.back());
        any = true;
      }
      ++s.listed.ptr.back();
      s.listed.cols.push_back(j);
    }
  }
  s.listed.val.assign(s.listed.cols.size(), T(0));
  return s;
}

/// The split walking every row of the block.
template <class T, class Couplings>
PatternSplit<T> split_pattern_remote(const Layout& L, Index c0, Index c1, Index fill_ratio, Couplings&& couplings) {
  std::vector<Index> rows(static_cast<std::size_t>(L.nrows));
  for (Index k = 0; k < L.nrows; ++k) rows[static_cast<std::size_t>(k)] = L.row_begin + k;
  return split_pattern_remote<T>(L, c0, c1, fill_ratio, rows, {}, std::forward<Couplings>(couplings));
}

/// Takes out of COO triplets (global rows of L, global columns, values;
/// repeated positions add up) the entries of the diagonals that
/// lists_as_remote lists, counted over the triplets, as a list (local rows);
/// the triplets keep the others, in their order. For a block built from
/// another matrix's rows.
template <class T>
RemoteEntries<T> coo_take_remote(const Layout& L, Index c0, Index c1, Index fill_ratio, std::vector<Index>& rows, std::vector<Index>& cols, std::vector<T>& vals) {
  if (fill_ratio < 1) throw FormatError("coo_take_remote: fill_ratio must be at least 1");
  if (rows.size() != cols.size() || rows.size() != vals.size()) throw FormatError("coo_take_remote: triplet arrays of different lengths");
  struct Count {
    Index n = 0;
    bool outside = true;
  };
  std::map<Index, Count> per;
  for (std::size_t e = 0; e < rows.size(); ++e) {
    Count& c = per[cols[e] - rows[e]];
    ++c.n;
    c.outside = c.outside && (cols[e] < c0 || cols[e] >= c1);
  }
  std::vector<Index> listed;  // ascending
  for (const auto& [d, c] : per)
    if (lists_as_remote(L, fill_ratio, d, c.n, c.outside)) listed.push_back(d);
  if (listed.empty()) return {};
  std::vector<RemoteEntry<T>> taken;
  std::size_t kept = 0;
  for (std::size_t e = 0; e < rows.size(); ++e) {
    if (std::binary_search(listed.begin(), listed.end(), cols[e] - rows[e])) {
      taken.push_back({rows[e] - L.row_begin, cols[e], vals[e]});
      continue;
    }
    rows[kept] = rows[e];
    cols[kept] = cols[e];
    vals[kept] = vals[e];
    ++kept;
  }
  rows.resize(kept);
  cols.resize(kept);
  vals.resize(kept);
  // repeated positions add up
  std::sort(taken.begin(), taken.end(), [](const RemoteEntry<T>& a, const RemoteEntry<T>& b) { return a.il != b.il ? a.il < b.il : a.col < b.col; });
  std::vector<RemoteEntry<T>> unique;
  for (const RemoteEntry<T>& x : taken) {
    if (!unique.empty() && unique.back().il == x.il && unique.back().col == x.col) unique.back().v += x.v;
    else unique.push_back(x);
  }
  return remote_entries_from(std::move(unique));
}

/// Merges local row il's listed entries that keep(i, j, v) accepts into a
/// row (cols ascending, vals alongside) as a row copy returns it; i is the
/// global row.
template <class T, class Keep>
void remote_merge_row(const RemoteEntries<T>& R, Index il, Index i, Keep&& keep, std::vector<Index>& cols, std::vector<T>& vals) {
  const auto [first, last] = R.row_range(il);
  for (Index p = first; p < last; ++p) {
    if (!keep(i, R.cols[p], R.val[p])) continue;
    const auto at = std::lower_bound(cols.begin(), cols.end(), R.cols[p]) - cols.begin();
    cols.insert(cols.begin() + at, R.cols[p]);
    vals.insert(vals.begin() + at, R.val[p]);
  }
}

}  // namespace pdiag
