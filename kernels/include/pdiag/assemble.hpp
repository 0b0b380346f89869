// Assembly helpers: writing staged diagonals into storage, and the COO
// value scatter.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/ops.hpp"

#include <map>

namespace pdiag {

/// Copies whole diagonals, given by HM offset with their values over
/// [lo(d), hi(d)), into A. Every offset must be stored in A.
template <class T>
void hm_set_diagonals(HmMatrix<T>& A, const std::map<Index, std::vector<T>>& diags) {
  for (const auto& kv : diags) {
    const Index k = A.find_diagonal(kv.first);
    if (k < 0 || Index(kv.second.size()) != A.layout.length(kv.first))
      throw FormatError("diagonal " + std::to_string(kv.first) + " is not stored with that length");
    std::copy(kv.second.begin(), kv.second.end(), A.val.begin() + A.start[k]);
  }
}

/// The same for a CDM block: diagonal d lands in compact diagonal d mod N,
/// rows [lo(d), hi(d)).
template <class T>
void cdm_set_diagonals(CdmMatrix<T>& C, const std::map<Index, std::vector<T>>& diags) {
  const Layout& L = C.layout;
  for (const auto& kv : diags) {
    const Index d = kv.first;
    const Index k = C.find_diagonal(d < 0 ? d + L.ncols : d);
    if (k < 0 || Index(kv.second.size()) != L.length(d))
      throw FormatError("diagonal " + std::to_string(d) + " is not stored with that length");
    std::copy(kv.second.begin(), kv.second.end(), C.val.begin() + C.view().pos(k, L.lo(d)));
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
