// Incomplete factorizations on the diagonals (CPU reference): ILU(0) and
// ICC(0) whose factors keep the matrix's stored diagonals (their
// triangular solves: pdiag/factor_solve.hpp). The pattern of a factor is
// the stored pattern of the matrix: every entry of every stored diagonal
// (docs/design.md, "Factorizations and preconditioners").
//
// ILU(0): A ~ L U, L unit lower (the diagonals d < 0 hold its entries),
// U upper (d > 0), the main diagonal holds 1 / U(i,i). The arithmetic is
// PETSc's row-oriented (IKJ) elimination in the same order: row i takes,
// for each lower entry k < i in ascending columns, m = a(i,k) / u(k,k) and
// a(i,j) -= m u(k,j) for the entries of row k's upper part that row i
// stores. The pairs (lower diagonal p, upper diagonal q) whose sum is a
// stored diagonal r are the same for every row: they are listed once per
// pattern (HmFactorPlan).
//
// ICC(0): A ~ U^T D U from the upper diagonals (PETSc's up-looking
// Cholesky); the factor stores -U(i,j) off the diagonal and 1 / D(i) on it,
// as PETSc's does.
//
// Pivots go through a caller-supplied policy (the PETSc plugin implements
// PETSc's shift strategies with it): begin_pass() gives the shift added to
// each diagonal entry, check(row, pivot, rowsum) accepts (possibly changing
// the pivot), asks for a restart of the whole factorization (a larger
// shift), or stops it; after a complete pass, again() may ask for one more
// (a smaller shift).
#pragma once

#include "pdiag/factor_levels.hpp"
#include "pdiag/format.hpp"
#include "pdiag/scalar.hpp"

#include <cmath>
#include <type_traits>
#include <vector>

namespace pdiag {

enum class PivotAction { Accept, Restart, Stop };

template <class T>
struct PivotDecision {
  PivotAction action = PivotAction::Accept;
  T pivot{};
};

/// Diagonal-pair lists of a factorization pattern, computed from the offsets.
struct HmFactorPlan {
  std::vector<Index> offsets;  // the factor's diagonals, ascending, main diagonal included
  Index main = -1;             // index of the main diagonal in offsets
  std::vector<Index> lower, upper;  // indices of d < 0 and d > 0, ascending
  // ILU: for lower index p (position in `lower`) and upper index q (position
  // in `upper`), the index of diagonal offsets[lower[p]] + offsets[upper[q]], or -1
  std::vector<Index> target;
  // ICC: for upper positions a < b, the index of offsets[upper[b]] - offsets[upper[a]] (> 0), or -1
  std::vector<Index> upper_target;

  Index target_of(std::size_t p, std::size_t q) const { return target[p * upper.size() + q]; }
  Index upper_target_of(std::size_t a, std::size_t b) const { return upper_target[a * upper.size() + b]; }
};

/// The plan for a factor over `offsets` (the main diagonal is added).
inline HmFactorPlan hm_factor_plan(std::vector<Index> offsets) {
  HmFactorPlan P;
  offsets.push_back(0);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  P.offsets = offsets;
  auto index_of = [&](Index d) {
    auto it = std::lower_bound(offsets.begin(), offsets.end(), d);
    return (it != offsets.end() && *it == d) ? Index(it - offsets.begin()) : Index(-1);
  };
  for (Index k = 0; k < Index(offsets.size()); ++k) {
    if (offsets[k] < 0) P.lower.push_back(k);
    else if (offsets[k] > 0) P.upper.push_back(k);
    else P.main = k;
  }
  P.target.assign(P.lower.size() * P.upper.size(), -1);
  for (std::size_t p = 0; p < P.lower.size(); ++p)
    for (std::size_t q = 0; q < P.upper.size(); ++q) P.target[p * P.upper.size() + q] = index_of(offsets[P.lower[p]] + offsets[P.upper[q]]);
  P.upper_target.assign(P.upper.size() * P.upper.size(), -1);
  for (std::size_t a = 0; a < P.upper.size(); ++a)
    for (std::size_t b = a + 1; b < P.upper.size(); ++b)
      P.upper_target[a * P.upper.size() + b] = index_of(offsets[P.upper[b]] - offsets[P.upper[a]]);
  return P;
}

/// max over rows of (sum_j |a(i,j)| - |a(i,i)| - Re a(i,i)): how far the
/// diagonal is from dominating its row, the scale PETSc's positive-definite
/// shift starts from.
template <class T>
double hm_max_row_excess(const HmView<const T>& A) {
  const Index n = A.layout.nrows;
  std::vector<double> excess(static_cast<std::size_t>(n), 0.0);
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k];
    for (Index i = A.layout.lo(d); i < A.layout.hi(d); ++i) {
      const T v = A.val[A.pos(k, i)];
      excess[i - A.layout.row_begin] += d == 0 ? -static_cast<double>(scalar_real(v)) : static_cast<double>(std::abs(v));
    }
  }
  double most = 0;
  for (Index i = 0; i < n; ++i) most = i ? std::max(most, excess[i]) : excess[i];
  return most;
}

namespace detail {
template <class T>
inline void require_square(const Layout& L, const char* what) {
  if (!L.is_full() || !L.is_square()) throw FormatError(std::string(what) + " needs a square sequential matrix");
}
/// F's values: A's entries on F's diagonals (F's diagonals include A's).
template <class T>
inline void load_values(const HmView<const nodeduce_t<T>>& A, HmMatrix<T>& F) {
  std::fill(F.val.begin(), F.val.end(), T(0));
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index kf = F.find_diagonal(A.offsets[k]);
    if (kf < 0) continue;
    const Index len = A.layout.length(A.offsets[k]);
    std::copy(A.val + A.start[k], A.val + A.start[k] + len, F.val.begin() + F.start[kf]);
  }
}
}  // namespace detail

// ---- the row computations, for host and device (pdiag/factor_numeric.hpp's
// level-ordered factorization and its CUDA kernels use them too) ----

/// An HmFactorPlan's tables as the row functions read them (host or device
/// arrays): the lower and upper diagonals' indices, the ILU pair targets
/// (nl x nu) and the ICC pair targets (nu x nu).
struct FactorPlanView {
  Index nl = 0, nu = 0, main = -1;
  const Index* lower = nullptr;
  const Index* upper = nullptr;
  const Index* target = nullptr;
  const Index* upper_target = nullptr;
};

inline FactorPlanView factor_plan_view(const HmFactorPlan& P) {
  return {Index(P.lower.size()), Index(P.upper.size()), P.main, P.lower.data(), P.upper.data(), P.target.data(),
          P.upper_target.data()};
}

/// The plan's tables in one array, lower | upper | target | upper_target
/// (one copy to the device).
inline std::vector<Index> factor_plan_tables(const HmFactorPlan& P) {
  std::vector<Index> t(P.lower);
  t.insert(t.end(), P.upper.begin(), P.upper.end());
  t.insert(t.end(), P.target.begin(), P.target.end());
  t.insert(t.end(), P.upper_target.begin(), P.upper_target.end());
  return t;
}

/// The view of P read from `tables` (host or device) holding factor_plan_tables(P).
inline FactorPlanView factor_plan_view(const HmFactorPlan& P, const Index* tables) {
  const Index nl = Index(P.lower.size()), nu = Index(P.upper.size());
  return {nl, nu, P.main, tables, tables + nl, tables + nl + nu, tables + nl + nu + nl * nu};
}

/// The factor being computed: n rows, F(i, i + off[k]) at val[base[k] + i].
template <class T>
struct FactorValues {
  Index n = 0;
  const Index* off = nullptr;
  const Index* base = nullptr;
  T* val = nullptr;
};

/// A row's pivot before inversion and the sum of its off-diagonal
/// magnitudes (MatPivotCheck's pv and rs).
template <class T>
struct FactorRowPivot {
  T pivot{};
  double rowsum = 0;
};

/// A value's magnitude and real part as doubles, as MatPivotCheck reads a
/// pivot (PetscAbsScalar, PetscRealPart) and sums a row (rs).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class T>
PDIAG_HD double factor_magnitude(const T& v) {
  return static_cast<double>(scalar_abs(v));
}
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class T>
PDIAG_HD double factor_real_part(const T& v) {
  return static_cast<double>(scalar_real(v));
}

/// ILU(0) elimination of row i (hm_ilu0's loop body; F holds A's values
/// with the pass's shift already on the main diagonal, rows i + d final).
/// Leaves the pivot in place; the caller stores its inverse.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class T>
PDIAG_HD FactorRowPivot<T> ilu0_row(const FactorValues<T>& F, const FactorPlanView& P, const unsigned char* pattern, Index i) {
  T* const val = F.val;
  for (Index p = 0; p < P.nl; ++p) {
    const Index kp = P.lower[p], row = i + F.off[kp];
    if (row < 0) continue;
    T& pc = val[F.base[kp] + i];
    if (pc == T(0)) continue;
    const T multiplier = pc * val[F.base[P.main] + row];
    pc = multiplier;
    for (Index q = 0; q < P.nu; ++q) {
      const Index r = P.target[p * P.nu + q], kq = P.upper[q];
      if (r < 0 || row + F.off[kq] >= F.n || (pattern && !pattern[F.base[r] + i])) continue;
      val[F.base[r] + i] -= multiplier * val[F.base[kq] + row];
    }
  }
  FactorRowPivot<T> out;
  for (Index p = 0; p < P.nl; ++p)
    if (i + F.off[P.lower[p]] >= 0) out.rowsum += factor_magnitude(val[F.base[P.lower[p]] + i]);
  for (Index q = 0; q < P.nu; ++q)
    if (i + F.off[P.upper[q]] < F.n) out.rowsum += factor_magnitude(val[F.base[P.upper[q]] + i]);
  out.pivot = val[F.base[P.main] + i];
  return out;
}

/// ICC(0) elimination of row k (hm_icc0's loop body, up-looking: the rows
/// above k are final; F holds A's upper values with the shift on the main
/// diagonal). Turns column k's entries into -U(i, k), updates row k, and
/// leaves D_k in place; the caller stores its inverse.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class T>
PDIAG_HD FactorRowPivot<T> icc0_row(const FactorValues<T>& F, const FactorPlanView& P, const unsigned char* pattern, Index k) {
  T* const val = F.val;
  T dk = val[F.base[P.main] + k];
  // rows i = k - e above k whose entry (i, k) is stored, nearest last
  for (Index a = P.nu; a-- > 0;) {
    const Index ka = P.upper[a], i = k - F.off[ka];
    if (i < 0) continue;
    T& w = val[F.base[ka] + i];  // (i, k), still A's updated value
    const T uikdi = -w * val[F.base[P.main] + i];  // -U(i,k)
    dk += uikdi * w;
    w = uikdi;
    for (Index b = a + 1; b < P.nu; ++b) {  // (i, j), j = i + e2 > k, into (k, j)
      const Index r = P.upper_target[a * P.nu + b], kb = P.upper[b];
      if (r < 0 || i + F.off[kb] >= F.n || (pattern && !pattern[F.base[r] + k])) continue;
      val[F.base[r] + k] += uikdi * val[F.base[kb] + i];
    }
  }
  FactorRowPivot<T> out;
  for (Index q = 0; q < P.nu; ++q)
    if (k + F.off[P.upper[q]] < F.n) out.rowsum += factor_magnitude(val[F.base[P.upper[q]] + k]);
  out.pivot = dk;
  return out;
}

/// The ILU(0) factor's storage for A (A's diagonals and the main one) and its plan.
template <class T>
HmMatrix<T> hm_ilu0_storage(const HmView<const T>& A, HmFactorPlan* plan) {
  detail::require_square<T>(A.layout, "ILU(0)");
  *plan = hm_factor_plan(std::vector<Index>(A.offsets, A.offsets + A.ndiag));
  return HmMatrix<T>(A.layout, plan->offsets);
}

/// ILU(0) of A into F (from hm_ilu0_storage). `pattern` (over F's stored
/// entries; null: all of them) restricts the factor to the entries it
/// marks, as a compressed-row ILU(0) restricted to its stored entries:
/// updates of unmarked entries are dropped (the matrix must be zero there).
/// Returns false if the pivot policy stopped it (F then holds a partial factor).
template <class T, class Pivot>
bool hm_ilu0(const HmView<const nodeduce_t<T>>& A, const HmFactorPlan& P, HmMatrix<T>& F, Pivot& pivot, const unsigned char* pattern = nullptr) {
  const Index n = A.layout.nrows;
  const auto f = F.view();
  auto at = [&](Index k, Index i) -> T& { return F.val[static_cast<std::size_t>(f.pos(k, i))]; };
  const std::vector<Index> base = hm_diagonal_bases(f);
  const FactorValues<T> values{n, F.offsets.data(), base.data(), F.val.data()};
  const FactorPlanView plan = factor_plan_view(P);
  for (;;) {
    const T shift = pivot.begin_pass();
    detail::load_values(A, F);
    bool restart = false;
    for (Index i = 0; i < n && !restart; ++i) {
      at(P.main, i) += shift;
      const FactorRowPivot<T> row = ilu0_row(values, plan, pattern, i);
      const PivotDecision<T> dec = pivot.check(i, row.pivot, row.rowsum);
      if (dec.action == PivotAction::Stop) return false;
      if (dec.action == PivotAction::Restart) {
        restart = true;
        break;
      }
      at(P.main, i) = T(1) / dec.pivot;
    }
    if (!restart && !pivot.again()) return true;
  }
}

/// ICC(0) storage: the main diagonal and A's diagonals d > 0.
template <class T>
HmMatrix<T> hm_icc0_storage(const HmView<const T>& A, HmFactorPlan* plan) {
  detail::require_square<T>(A.layout, "ICC(0)");
  std::vector<Index> upper;
  for (Index k = 0; k < A.ndiag; ++k)
    if (A.offsets[k] > 0) upper.push_back(A.offsets[k]);
  *plan = hm_factor_plan(upper);
  return HmMatrix<T>(A.layout, plan->offsets);
}

/// ICC(0) of the upper triangle of A into F (from hm_icc0_storage);
/// `pattern` as for hm_ilu0.
template <class T, class Pivot>
bool hm_icc0(const HmView<const nodeduce_t<T>>& A, const HmFactorPlan& P, HmMatrix<T>& F, Pivot& pivot, const unsigned char* pattern = nullptr) {
  const Index n = A.layout.nrows;
  const auto f = F.view();
  auto at = [&](Index k, Index i) -> T& { return F.val[static_cast<std::size_t>(f.pos(k, i))]; };
  const std::vector<Index> base = hm_diagonal_bases(f);
  const FactorValues<T> values{n, F.offsets.data(), base.data(), F.val.data()};
  const FactorPlanView plan = factor_plan_view(P);
  for (;;) {
    const T shift = pivot.begin_pass();
    detail::load_values(A, F);
    bool restart = false;
    for (Index k = 0; k < n && !restart; ++k) {
      at(P.main, k) += shift;
      const FactorRowPivot<T> row = icc0_row(values, plan, pattern, k);
      const PivotDecision<T> dec = pivot.check(k, row.pivot, row.rowsum);
      if (dec.action == PivotAction::Stop) return false;
      if (dec.action == PivotAction::Restart) {
        restart = true;
        break;
      }
      at(P.main, k) = T(1) / dec.pivot;
    }
    if (!restart && !pivot.again()) return true;
  }
}

/// A pattern over F's stored entries from one over A's (a_mask, null: all
/// of A's entries): F's diagonals that A stores take A's marks, the main
/// diagonal (which F may add) is always marked.
template <class T>
std::vector<unsigned char> hm_factor_pattern(const HmMatrix<T>& F, const HmView<const nodeduce_t<T>>& A, const unsigned char* a_mask) {
  std::vector<unsigned char> out(static_cast<std::size_t>(F.nstored()), 1);
  if (!a_mask) return out;
  for (Index k = 0; k < F.ndiag(); ++k) {
    const Index d = F.offsets[k];
    if (d == 0) continue;
    Index ka = -1;
    for (Index q = 0; q < A.ndiag; ++q)
      if (A.offsets[q] == d) ka = q;
    if (ka < 0) continue;
    const Index len = F.layout.length(d);
    std::copy(a_mask + A.start[ka], a_mask + A.start[ka] + len, out.begin() + F.start[k]);
  }
  return out;
}

}  // namespace pdiag
