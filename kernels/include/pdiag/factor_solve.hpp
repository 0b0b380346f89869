// The triangular solves of the incomplete factors of pdiag/factor.hpp on
// the CPU. A solve visits the factor a row at a time. Read from its
// diagonals, that is one memory stream per diagonal, and a CPU's
// prefetchers follow a few dozen streams at most: the factor of a
// three-component 27-point operator has 99 diagonals (ksp ex42's velocity
// block), and its solves took 23 times aij's, whose rows are contiguous.
// So the solves are written once over a factor's rows (row i's entries on
// its lower diagonals, on its upper ones, its main-diagonal entry) and read
// either the diagonals themselves (FactorByDiagonals: no copy) or a copy of
// the factor by rows (FactorByRows: each row's entries contiguous, made
// once per numeric factorization, which costs about what a few solves
// cost). factor_solves_by_rows() says which pays. Either way the rows
// that every diagonal reaches skip the column checks, and the arithmetic
// and its order are those of the factorization's diagonals (ascending
// offsets, except where noted): the two give the same results to the bit.
#pragma once

#include "pdiag/factor.hpp"
#include "pdiag/scalar.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pdiag {

/// The part of a factor of a square n x n block that the solves read:
/// its lower and upper diagonals (HmFactorPlan's order, ascending), the
/// rows that reach every one of them, and by row, for a layout L:
/// L::lower_row(i)[p], L::upper_row(i)[q], L::main(i).
struct FactorRowsShape {
  Index n = 0;
  std::vector<Index> lower_offsets, upper_offsets;
  Index lower_from = 0;  // rows i >= lower_from reach every lower diagonal (i + d >= 0)
  Index upper_to = 0;    // rows i < upper_to reach every upper diagonal (i + d < n)

  FactorRowsShape() = default;
  FactorRowsShape(const Layout& L, const Index* offsets, const HmFactorPlan& P) : n(L.nrows) {
    if (L.row_begin != 0 || L.ncols != n) throw FormatError("factor solves: the factor is not of a square block starting at row 0");
    for (Index k : P.lower) lower_offsets.push_back(offsets[k]);
    for (Index k : P.upper) upper_offsets.push_back(offsets[k]);
    lower_from = lower_offsets.empty() ? 0 : std::min(n, -lower_offsets.front());
    upper_to = upper_offsets.empty() ? n : std::max<Index>(0, n - upper_offsets.back());
  }
};

/// A factor read from its diagonals (no copy): row i's entry on the p-th
/// upper diagonal is upper_base[p][i]; on the p-th lower one, whose entries
/// start at row -d, lower_base[p][i + d] (d = lower_offsets[p]).
template <class T>
struct FactorByDiagonals : FactorRowsShape {
  std::vector<const T*> lower_base, upper_base;
  const T* main_base = nullptr;

  struct LowerRow {
    const T* const* base;
    const Index* offsets;
    Index i;
    T operator[](Index p) const { return base[p][i + offsets[p]]; }
  };
  struct UpperRow {
    const T* const* base;
    Index i;
    T operator[](Index p) const { return base[p][i]; }
  };
  LowerRow lower_row(Index i) const { return {lower_base.data(), lower_offsets.data(), i}; }
  UpperRow upper_row(Index i) const { return {upper_base.data(), i}; }
  T main(Index i) const { return main_base[i]; }
};

template <class T>
FactorByDiagonals<T> factor_by_diagonals(const HmView<const T>& F, const HmFactorPlan& P) {
  FactorByDiagonals<T> D;
  static_cast<FactorRowsShape&>(D) = FactorRowsShape(F.layout, F.offsets, P);
  for (Index k : P.lower) D.lower_base.push_back(F.val + F.start[k]);
  for (Index k : P.upper) D.upper_base.push_back(F.val + F.start[k]);
  D.main_base = F.val + F.start[P.main];
  return D;
}

/// A copy of a factor by rows: row i's entries on the lower diagonals at
/// lower[i * nl ..), on the upper ones at upper[i * nu ..), 0 where a
/// diagonal does not reach the row.
template <class T>
struct FactorByRows : FactorRowsShape {
  std::vector<T> lower, upper, main_entries;

  const T* lower_row(Index i) const { return lower.data() + i * static_cast<Index>(lower_offsets.size()); }
  const T* upper_row(Index i) const { return upper.data() + i * static_cast<Index>(upper_offsets.size()); }
  T main(Index i) const { return main_entries[static_cast<std::size_t>(i)]; }
};

template <class T>
FactorByRows<T> factor_by_rows(const HmView<const T>& F, const HmFactorPlan& P) {
  FactorByRows<T> R;
  static_cast<FactorRowsShape&>(R) = FactorRowsShape(F.layout, F.offsets, P);
  const Index n = R.n;
  const auto copy = [&](const std::vector<Index>& ks, std::vector<T>& rows) {
    const Index width = static_cast<Index>(ks.size());
    rows.assign(static_cast<std::size_t>(n * width), T(0));
    for (Index p = 0; p < width; ++p) {
      const Index k = ks[static_cast<std::size_t>(p)], d = F.offsets[k];
      for (Index i = std::max<Index>(0, -d); i < std::min(n, n - d); ++i) rows[static_cast<std::size_t>(i * width + p)] = F.val[F.pos(k, i)];
    }
  };
  copy(P.lower, R.lower);
  copy(P.upper, R.upper);
  R.main_entries.resize(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) R.main_entries[static_cast<std::size_t>(i)] = F.val[F.pos(P.main, i)];
  return R;
}

/// Whether a factor's solves should read a copy by rows: when one of its
/// triangles has more diagonals than the prefetchers follow well (from 9:
/// a 27-point factor's solves ran 1.5 times faster by rows, a 7-point
/// one's the same; the copy costs a few solves).
inline bool factor_solves_by_rows(const HmFactorPlan& P) { return std::max(P.lower.size(), P.upper.size()) > 8; }

namespace detail {

/// s -+ row[p] * x[i + off[p]] (Add: +=) over the p whose column is in
/// [0, n), in ascending p (Descending: descending); `every`: all are (the
/// loop without the check: most rows).
template <bool Add, bool Descending, class T, class Row>
inline T row_pull(T s, const Row& row, const std::vector<Index>& offsets, Index i, Index n, bool every, const T* x) {
  const Index count = static_cast<Index>(offsets.size());
  const Index* off = offsets.data();
  const auto term = [&](Index p) {
    if (Add) s += row[p] * x[i + off[p]];
    else s -= row[p] * x[i + off[p]];
  };
  if (every) {
    if (Descending)
      for (Index p = count - 1; p >= 0; --p) term(p);
    else
      for (Index p = 0; p < count; ++p) term(p);
    return s;
  }
  for (Index c = 0; c < count; ++c) {
    const Index p = Descending ? count - 1 - c : c, j = i + off[p];
    if (j >= 0 && j < n) term(p);
  }
  return s;
}

/// x[i + off[p]] -+= row[p] * c (Add: +=) over the p whose column is in [0, n).
template <bool Add, class T, class Row>
inline void row_push(T* x, const Row& row, const std::vector<Index>& offsets, Index i, Index n, bool every, T c) {
  const Index count = static_cast<Index>(offsets.size());
  const Index* off = offsets.data();
  const auto term = [&](Index p) {
    if (Add) x[i + off[p]] += row[p] * c;
    else x[i + off[p]] -= row[p] * c;
  };
  if (every) {
    for (Index p = 0; p < count; ++p) term(p);
    return;
  }
  for (Index p = 0; p < count; ++p) {
    const Index j = i + off[p];
    if (j >= 0 && j < n) term(p);
  }
}

/// Whether every main-diagonal entry (1 / D_i) is real and >= 0, as the
/// square roots of the symmetric halves need (PETSc's ICC halves require
/// the same; a complex symmetric factor has a complex D in general).
template <class Factor>
bool main_nonnegative(const Factor& F) {
  for (Index i = 0; i < F.n; ++i)
    if (!scalar_real_nonnegative(F.main(i))) return false;
  return true;
}

}  // namespace detail

/// Solves L U x = b with an ILU(0) factor F (FactorByDiagonals or
/// FactorByRows; x may alias b).
template <class Factor, class T>
void factor_ilu_solve(const Factor& F, const T* b, T* x) {
  const Index n = F.n;
  for (Index i = 0; i < n; ++i) x[i] = detail::row_pull<false, false>(b[i], F.lower_row(i), F.lower_offsets, i, n, i >= F.lower_from, x);
  for (Index i = n - 1; i >= 0; --i) x[i] = detail::row_pull<false, false>(x[i], F.upper_row(i), F.upper_offsets, i, n, i < F.upper_to, x) * F.main(i);
}

/// Solves (L U)^T x = b: U^T z = b, then L^T x = z; nothing is transposed
/// (A^T's entry (j, i) is A's (i, j): row j of the factor pushes into the
/// rows its columns name).
template <class Factor, class T>
void factor_ilu_solve_transpose(const Factor& F, const T* b, T* x) {
  const Index n = F.n;
  if (x != b) std::copy(b, b + n, x);
  for (Index j = 0; j < n; ++j) {  // U^T z = b: z_j = (b_j - sum_{i<j} U(i,j) z_i) / U(j,j)
    const T zj = x[j] * F.main(j);
    x[j] = zj;
    detail::row_push<false>(x, F.upper_row(j), F.upper_offsets, j, n, j < F.upper_to, zj);
  }
  for (Index j = n - 1; j >= 0; --j) detail::row_push<false>(x, F.lower_row(j), F.lower_offsets, j, n, j >= F.lower_from, T(x[j]));  // L^T x = z
}

/// Solves U^T D U x = b with an ICC(0) factor (x may alias b); the factor
/// holds -U off the diagonal and 1 / D on it.
template <class Factor, class T>
void factor_icc_solve(const Factor& F, const T* b, T* x) {
  const Index n = F.n;
  if (x != b) std::copy(b, b + n, x);
  for (Index i = 0; i < n; ++i) {
    const T xi = x[i];
    detail::row_push<true>(x, F.upper_row(i), F.upper_offsets, i, n, i < F.upper_to, xi);
    x[i] = xi * F.main(i);
  }
  for (Index i = n - 2; i >= 0; --i) x[i] = detail::row_pull<true, true>(x[i], F.upper_row(i), F.upper_offsets, i, n, i < F.upper_to, x);
}

/// The halves of an ICC(0) solve used for symmetric preconditioning:
/// forward solves U^T D^{1/2} x = b, backward solves D^{1/2} U x = b. They
/// need the factor's D real and > 0: return false (x untouched) otherwise.
template <class Factor, class T>
bool factor_icc_forward(const Factor& F, const T* b, T* x) {
  const Index n = F.n;
  if (!detail::main_nonnegative(F)) return false;
  if (x != b) std::copy(b, b + n, x);
  for (Index i = 0; i < n; ++i) {
    detail::row_push<true>(x, F.upper_row(i), F.upper_offsets, i, n, i < F.upper_to, T(x[i]));
    x[i] *= scalar_sqrt_real(F.main(i));
  }
  return true;
}

template <class Factor, class T>
bool factor_icc_backward(const Factor& F, const T* b, T* x) {
  const Index n = F.n;
  if (!detail::main_nonnegative(F)) return false;
  for (Index i = n - 1; i >= 0; --i) {
    x[i] = detail::row_pull<true, false>(T(scalar_sqrt_real(F.main(i)) * b[i]), F.upper_row(i), F.upper_offsets, i, n, i < F.upper_to, x);
  }
  return true;
}

/// The same solves on an HmView of the factor, read from its diagonals
/// (the CPU references of the device's solves).
template <class T>
void hm_ilu_solve(const HmView<const nodeduce_t<T>>& F, const HmFactorPlan& P, const T* b, T* x) {
  factor_ilu_solve(factor_by_diagonals(F, P), b, x);
}
template <class T>
void hm_ilu_solve_transpose(const HmView<const nodeduce_t<T>>& F, const HmFactorPlan& P, const T* b, T* x) {
  factor_ilu_solve_transpose(factor_by_diagonals(F, P), b, x);
}
template <class T>
void hm_icc_solve(const HmView<const nodeduce_t<T>>& F, const HmFactorPlan& P, const T* b, T* x) {
  factor_icc_solve(factor_by_diagonals(F, P), b, x);
}
template <class T>
bool hm_icc_forward(const HmView<const nodeduce_t<T>>& F, const HmFactorPlan& P, const T* b, T* x) {
  return factor_icc_forward(factor_by_diagonals(F, P), b, x);
}
template <class T>
bool hm_icc_backward(const HmView<const nodeduce_t<T>>& F, const HmFactorPlan& P, const T* b, T* x) {
  return factor_icc_backward(factor_by_diagonals(F, P), b, x);
}

}  // namespace pdiag
