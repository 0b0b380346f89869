// Assembly helpers: entries on diagonals not stored yet (staged until
// assembly), writing them into storage, and the COO value scatter.
#pragma once

#include "pdiag/convert.hpp"
#include "pdiag/format.hpp"
#include "pdiag/ops.hpp"

#include <algorithm>
#include <map>

namespace pdiag {

/// Entries set on a diagonal d that is not stored yet. They are kept as a
/// list (row, value, add or insert, in the order they were set) until the
/// list would take more memory than the diagonal itself, then in a dense
/// array over [lo(d), hi(d)): staging takes O(entries set) memory, whatever
/// the length of the diagonal, so that the diagonals and bytes a matrix
/// would take are known (and can be refused) before they are allocated.
template <class T>
struct StagedDiagonal {
  std::vector<Index> rows;
  std::vector<T> vals;
  std::vector<unsigned char> add;
  std::vector<T> dense;
  Index nset = 0;  ///< entries set, repeats included
  /// rows of dense-mode entries whose value became an exact zero when set
  /// (an aij matrix keeps such a position: see set_zero_rows)
  std::vector<Index> zero_rows;

  /// a(i, i + d) = v (insert) or += v (add); i a row of this block on d.
  void set(const Layout& L, Index d, Index i, T v, bool adding) {
    ++nset;
    if (!dense.empty()) {
      T& s = dense[static_cast<std::size_t>(i - L.lo(d))];
      s = adding ? s + v : v;
      if (s == T(0)) zero_rows.push_back(i);
      return;
    }
    rows.push_back(i);
    vals.push_back(v);
    add.push_back(adding ? 1 : 0);
    // a list entry takes 2 to 3 times the bytes of a dense one
    if (2 * static_cast<Index>(rows.size()) >= L.length(d)) {
      std::vector<T> full(static_cast<std::size_t>(L.length(d)), T(0));
      replay(L.lo(d), full.data());
      zero_rows = set_zero_rows(L.lo(d), full.data());
      dense = std::move(full);
      rows = {};
      vals = {};
      add = {};
    }
  }
  /// Writes the entries into out[0 .. length), out[0] being row lo(d).
  void replay(Index lo, T* out) const {
    if (!dense.empty()) {
      std::copy(dense.begin(), dense.end(), out);
      return;
    }
    for (std::size_t e = 0; e < rows.size(); ++e) {
      T& s = out[rows[e] - lo];
      s = add[e] ? s + vals[e] : vals[e];
    }
  }
  /// Before the entries turned dense (dense empty): the rows set,
  /// ascending and once each, with the values replay() would write over
  /// zeros.
  std::vector<std::pair<Index, T>> row_values() const {
    if (!dense.empty()) throw FormatError("StagedDiagonal::row_values: the entries are dense");
    std::map<Index, T> m;
    for (std::size_t e = 0; e < rows.size(); ++e) {
      T& s = m[rows[e]];
      s = add[e] ? s + vals[e] : vals[e];
    }
    return {m.begin(), m.end()};
  }
  /// The rows whose entry was set and is an exact zero in written[0 ..),
  /// written[0] being row lo (the diagonal as replay() wrote it): set
  /// positions that an aij matrix holds although their value is zero (e.g.
  /// element contributions that cancel). May name a row twice.
  std::vector<Index> set_zero_rows(Index lo, const T* written) const {
    std::vector<Index> z = zero_rows;
    for (Index i : rows)
      if (written[i - lo] == T(0)) z.push_back(i);
    return z;
  }
  /// f(i, v) once for every row i set, with the value replay() would
  /// write there over zeros (a set zero included); lo is row lo(d).
  template <class F>
  void for_each_set(Index lo, F&& f) const {
    if (dense.empty()) {
      for (const auto& [i, v] : row_values()) f(i, v);
      return;
    }
    for (std::size_t p = 0; p < dense.size(); ++p)
      if (dense[p] != T(0)) f(lo + static_cast<Index>(p), dense[p]);
    std::vector<Index> z = zero_rows;  // rows set to zero, some set again since
    std::sort(z.begin(), z.end());
    z.erase(std::unique(z.begin(), z.end()), z.end());
    for (Index i : z)
      if (dense[static_cast<std::size_t>(i - lo)] == T(0)) f(i, T(0));
  }
  void zero() {
    std::fill(vals.begin(), vals.end(), T(0));
    std::fill(dense.begin(), dense.end(), T(0));
  }
};

/// hm_to_csr_nonzeros(A, main_diagonal, also, remote) with the entries
/// staged on diagonals A does not store: the aij block of a matrix
/// assembled from entries set, built without storing the staged diagonals
/// (a structure too large, or too scattered, to store by diagonals).
template <class T>
Csr<T> hm_staged_to_csr_nonzeros(const HmMatrix<T>& A, bool main_diagonal, std::vector<std::pair<Index, Index>> also,
                                 const RemoteEntries<T>* remote, const std::map<Index, StagedDiagonal<T>>& staged) {
  const Layout& L = A.layout;
  std::vector<T> staged_vals;
  const std::size_t first = also.size();
  for (const auto& kv : staged) {
    const Index d = kv.first;  // not a structured binding: C++17 lambdas cannot capture one
    if (A.find_diagonal(d) >= 0) throw FormatError("hm_staged_to_csr_nonzeros: staged diagonal " + std::to_string(d) + " is stored");
    kv.second.for_each_set(L.lo(d), [&](Index i, T v) {
      also.emplace_back(i, i + d);
      staged_vals.push_back(v);
    });
  }
  Csr<T> C = hm_to_csr_nonzeros(A, main_diagonal, also, remote);
  for (std::size_t e = 0; e < staged_vals.size(); ++e) {  // columns ascend in each row
    const auto [i, j] = also[first + e];
    const Index il = i - L.row_begin;
    const auto pos = std::lower_bound(C.colidx.begin() + C.rowptr[il], C.colidx.begin() + C.rowptr[il + 1], j);
    C.vals[static_cast<std::size_t>(pos - C.colidx.begin())] = staged_vals[e];
  }
  return C;
}

/// Writes staged diagonals (by HM offset) into A, which stores each of them
/// (zero so far).
template <class T>
void hm_set_staged(HmMatrix<T>& A, const std::map<Index, StagedDiagonal<T>>& staged) {
  for (const auto& kv : staged) {
    const Index k = A.find_diagonal(kv.first);
    if (k < 0) throw FormatError("diagonal " + std::to_string(kv.first) + " is not stored");
    kv.second.replay(A.layout.lo(kv.first), A.val.data() + A.start[k]);
  }
}

/// The same for a CDM block: diagonal d lands in compact diagonal d mod N,
/// rows [lo(d), hi(d)).
template <class T>
void cdm_set_staged(CdmMatrix<T>& C, const std::map<Index, StagedDiagonal<T>>& staged) {
  const Layout& L = C.layout;
  for (const auto& kv : staged) {
    const Index d = kv.first;
    const Index k = C.find_diagonal(d < 0 ? d + L.ncols : d);
    if (k < 0) throw FormatError("diagonal " + std::to_string(d) + " is not stored");
    kv.second.replay(L.lo(d), C.val.data() + C.view().pos(k, L.lo(d)));
  }
}

/// val[slot[e]] += v[e] for every e with slot[e] >= 0 (COO values; repeated
/// slots are summed).
template <class T>
void scatter_add(T* val, const Index* slot, const T* v, Index n) {
  for (Index e = 0; e < n; ++e)
    if (slot[e] >= 0) val[slot[e]] += v[e];
}

}  // namespace pdiag
