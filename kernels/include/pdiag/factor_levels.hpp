// Level-scheduled triangular solves with the ILU(0) / ICC(0) factors of
// pdiag/factor.hpp: the row computations the CUDA kernels run
// (kernels/src/factor_solve.cu, one thread per row of a level, one launch
// per level), written once for host and device (PDIAG_HD), and a CPU
// runner of the same computations level by level (hm_factor_solve_by_levels)
// that the tests compare with the sequential solves of factor.hpp: it
// checks the passes' index arithmetic and the schedules on machines without
// a GPU.
//
// Every solve is one or two passes, each a loop over the rows in the order
// of one level schedule of pdiag/levels.hpp (hm_solve_schedule). A pass
// computes row i from in[i] (b, or x of the previous pass) and the final
// values x[j] of the rows j < i (ascending passes) or j > i (descending)
// that row i's stored nonzero entries name, so every row of a level can be
// computed at once. Each row sums its terms in the order in which the
// sequential solve adds them to x[i] (the gather form of the reference's
// scatter loops for the transposed triangles), so the level-ordered result
// is the sequential one up to rounding of fused multiply-adds. Stored zeros
// are skipped, x[j] not even read: the schedules have no dependency there.
//
//  ILU(0), L unit lower (d < 0), U upper (d > 0), 1 / U(i,i) on the main diagonal:
//    solve            L:  x_i = b_i - sum_{d<0 asc} L(i,i+d) x_{i+d}
//                     U:  x_i = (x_i - sum_{d>0 asc} U(i,i+d) x_{i+d}) / U(i,i)
//    solve transpose  Ut: x_i = (b_i - sum_{d>0 desc} U(i-d,i) x_{i-d}) / U(i,i)
//                     Lt: x_i = x_i - sum_{d<0 asc} L(i-d,i) x_{i-d}
//  ICC(0), stored W = -U off the diagonal, 1 / D on it (A ~ U^T D U):
//    solve (= its transpose)  IccUt: y_i = b_i + sum_{d>0 desc} W(i-d,i) y_{i-d}
//                             IccU:  x_i = y_i / D_i + sum_{d>0 desc} W(i,i+d) x_{i+d}
//    forward half (U^T D^{1/2})  IccUt, then x_i = y_i sqrt(1 / D_i) for all rows
//    backward half (D^{1/2} U)   IccHalfU: x_i = sqrt(1 / D_i) b_i + sum_{d>0 asc} W(i,i+d) x_{i+d}
// (the ICC forward pass keeps y unscaled: later rows read y, as the
// reference's scatter does; the backward pass or the final scaling applies
// D).
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/levels.hpp"
#include "pdiag/scalar.hpp"

#include <array>
#include <cmath>
#include <vector>

namespace pdiag {

/// What a solve with a factor computes (MatSolve, MatSolveTranspose,
/// MatForwardSolve, MatBackwardSolve); ICC's transpose solve is its solve.
enum class FactorSolve { IluSolve, IluSolveTranspose, IccSolve, IccForward, IccBackward };

/// One level-scheduled loop over the rows (the table above).
enum class SolvePass { L, U, Ut, Lt, IccUt, IccU, IccHalfU };

/// The four schedules a factor's passes use, by (triangle, access).
enum class SolveScheduleKind { LowerRows = 0, UpperRows = 1, UpperColumns = 2, LowerColumns = 3 };
constexpr int kSolveScheduleKinds = 4;

/// The passes of a solve, in order (npasses 1 or 2), and whether the
/// result is scaled by sqrt(1 / D) afterwards (ICC's forward half).
struct FactorSolveSteps {
  std::array<SolvePass, 2> pass{};
  int npasses = 0;
  bool scale_sqrt = false;
};

inline FactorSolveSteps factor_solve_steps(FactorSolve what) {
  switch (what) {
    case FactorSolve::IluSolve: return {{SolvePass::L, SolvePass::U}, 2, false};
    case FactorSolve::IluSolveTranspose: return {{SolvePass::Ut, SolvePass::Lt}, 2, false};
    case FactorSolve::IccSolve: return {{SolvePass::IccUt, SolvePass::IccU}, 2, false};
    case FactorSolve::IccForward: return {{SolvePass::IccUt, SolvePass::IccUt}, 1, true};
    case FactorSolve::IccBackward: return {{SolvePass::IccHalfU, SolvePass::IccHalfU}, 1, false};
  }
  return {};
}

/// The triangle a pass reads and how (pdiag/levels.hpp's hm_solve_schedule arguments).
inline Triangle pass_triangle(SolvePass p) { return (p == SolvePass::L || p == SolvePass::Lt) ? Triangle::Lower : Triangle::Upper; }
inline SolveAccess pass_access(SolvePass p) {
  return (p == SolvePass::Ut || p == SolvePass::Lt || p == SolvePass::IccUt) ? SolveAccess::Columns : SolveAccess::Rows;
}
inline SolveScheduleKind pass_schedule(SolvePass p) {
  const bool lower = pass_triangle(p) == Triangle::Lower, rows = pass_access(p) == SolveAccess::Rows;
  return lower ? (rows ? SolveScheduleKind::LowerRows : SolveScheduleKind::LowerColumns)
               : (rows ? SolveScheduleKind::UpperRows : SolveScheduleKind::UpperColumns);
}

/// The schedule of one kind for the factor F.
template <class T>
LevelSchedule hm_factor_schedule(const HmView<T>& F, SolveScheduleKind kind) {
  switch (kind) {
    case SolveScheduleKind::LowerRows: return hm_solve_schedule(F, Triangle::Lower, SolveAccess::Rows);
    case SolveScheduleKind::UpperRows: return hm_solve_schedule(F, Triangle::Upper, SolveAccess::Rows);
    case SolveScheduleKind::UpperColumns: return hm_solve_schedule(F, Triangle::Upper, SolveAccess::Columns);
    case SolveScheduleKind::LowerColumns: return hm_solve_schedule(F, Triangle::Lower, SolveAccess::Columns);
  }
  return {};
}

/// A square sequential factor as the passes read it: n rows, nd diagonals
/// with ascending offsets off[k], main the index of offset 0 (lower
/// diagonals 0 .. main-1, upper main+1 .. nd-1), F(i, i + off[k]) at
/// val[base[k] + i]. Host or device pointers alike.
template <class T>
struct FactorRowsView {
  Index n = 0, nd = 0, main = -1;
  const Index* off = nullptr;
  const Index* base = nullptr;
  const T* val = nullptr;
};

/// base[k] = start[k] - lo(offsets[k]) of F's diagonals (FactorRowsView's base).
template <class T>
std::vector<Index> hm_diagonal_bases(const HmView<T>& F) {
  std::vector<Index> base(static_cast<std::size_t>(F.ndiag));
  for (Index k = 0; k < F.ndiag; ++k) base[static_cast<std::size_t>(k)] = F.start[k] - F.layout.lo(F.offsets[k]);
  return base;
}

/// The index of the main diagonal of ascending offsets, -1 if absent.
inline Index main_diagonal_index(const Index* off, Index nd) {
  for (Index k = 0; k < nd; ++k)
    if (off[k] == 0) return k;
  return -1;
}

/// How many diagonals pass P visits (those of its triangle), and the q-th
/// of them (q < factor_pass_count) in the order the sequential solve adds
/// their entries (the table at the top): the triangle's diagonals
/// ascending, or descending for Ut, IccUt and IccU.
template <SolvePass P>
PDIAG_HD constexpr Index factor_pass_count(Index nd, Index main) {
  return (P == SolvePass::L || P == SolvePass::Lt) ? main : nd - 1 - main;
}
template <SolvePass P>
PDIAG_HD constexpr Index factor_pass_diagonal(Index q, Index nd, Index main) {
  if (P == SolvePass::L || P == SolvePass::Lt) return q;
  if (P == SolvePass::U || P == SolvePass::IccHalfU) return main + 1 + q;
  return nd - 1 - q;
}

/// Whether row i's sum in pass P has an entry on diagonal k (one of the
/// pass's): its position in val (*pos) and the row j whose final x[j] it
/// multiplies (j = i + off[k] by rows, i - off[k] by columns), when that
/// row exists.
template <SolvePass P>
PDIAG_HD bool factor_pass_entry(Index k, const Index* off, const Index* base, Index n, Index i, Index* pos, Index* j) {
  if (P == SolvePass::L || P == SolvePass::U || P == SolvePass::IccHalfU || P == SolvePass::IccU) {  // row i of the factor
    *j = i + off[k];
    *pos = base[k] + i;
    return P == SolvePass::L ? *j >= 0 : *j < n;
  }
  *j = i - off[k];  // column i: F(r, i), r = i - d
  *pos = base[k] + *j;
  return P == SolvePass::Lt ? *j < n : *j >= 0;
}

/// The stored entries of row i's sum in pass P (the table at the top), in
/// the order the sequential solve adds them: visit(pos, j, k) for each, pos
/// its position in val, j the row whose final x[j] it multiplies, k its
/// diagonal. off / base may be any arrays indexable as the view's (the
/// kernels pass shared-memory copies).
// (nvcc: the visitor may be host-only, as the schedule builders' are; the
// function is then used on the host only)
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <SolvePass P, class Visit>
PDIAG_HD void factor_pass_positions(const Index* off, const Index* base, Index nd, Index main, Index n, Index i, Visit& visit) {
  const Index count = factor_pass_count<P>(nd, main);
  for (Index q = 0; q < count; ++q) {
    const Index k = factor_pass_diagonal<P>(q, nd, main);
    Index pos = 0, j = 0;
    if (factor_pass_entry<P>(k, off, base, n, i, &pos, &j)) visit(pos, j, k);
  }
}

namespace detail {
// factor_pass_terms' filter: the stored nonzeros
template <class T, class Visit>
struct NonzeroTerms {
  const T* val;
  Visit& visit;
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
  PDIAG_HD void operator()(Index pos, Index j, Index k) {
    const T a = val[pos];
    if (a != T(0)) visit(a, j, k);
  }
};
}  // namespace detail

/// The terms of row i in pass P: visit(a, j, k) for every stored nonzero a
/// of the row's sum (factor_pass_positions' entries, stored zeros skipped).
/// Shared by the level-ordered passes (factor_pass_row) and the tiled ones
/// (pdiag/factor_tiles.hpp), so both compute the same sums.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <SolvePass P, class T, class Visit>
PDIAG_HD void factor_pass_terms(const Index* off, const Index* base, Index nd, Index main, Index n, const T* val, Index i,
                                Visit& visit) {
  detail::NonzeroTerms<T, Visit> nonzero{val, visit};
  factor_pass_positions<P>(off, base, nd, main, n, i, nonzero);
}

/// Whether pass P reads 1 / U(i,i) or 1 / D_i (val[base[main] + i]).
template <SolvePass P>
PDIAG_HD constexpr bool factor_pass_reads_inverse() {
  return P == SolvePass::U || P == SolvePass::Ut || P == SolvePass::IccU || P == SolvePass::IccHalfU;
}

/// A row's sum before its terms: in_i, scaled for ICC's backward passes.
template <SolvePass P, class T>
PDIAG_HD T factor_pass_start(T in_i, T inv_i) {
  if (P == SolvePass::IccU) return in_i * inv_i;
  if (P == SolvePass::IccHalfU) return scalar_sqrt_real(inv_i) * in_i;
  return in_i;
}

/// The sum with one more term a x_j (ICC stores W = -U: its terms add).
template <SolvePass P, class T>
PDIAG_HD T factor_pass_add(T s, T a, T xj) {
  if (P == SolvePass::IccUt || P == SolvePass::IccU || P == SolvePass::IccHalfU) return s + a * xj;
  return s - a * xj;
}

/// The row's new x_i from its sum.
template <SolvePass P, class T>
PDIAG_HD T factor_pass_finish(T s, T inv_i) {
  return (P == SolvePass::U || P == SolvePass::Ut) ? s * inv_i : s;
}

namespace detail {
// factor_pass_row's visitor: the sum over x's final values
template <SolvePass P, class T>
struct PassSum {
  const T* x;
  T s;
  PDIAG_HD void operator()(T a, Index j, Index) { s = factor_pass_add<P>(s, a, x[j]); }
};
}  // namespace detail

/// The new x[i] of pass P (the table at the top). `in` is b for a first
/// pass, x for a second; x holds the final values of the rows i reads.
template <SolvePass P, class T>
PDIAG_HD T factor_pass_row(const Index* off, const Index* base, Index nd, Index main, Index n, const T* val, const T* in,
                           const T* x, Index i) {
  const T inv = factor_pass_reads_inverse<P>() ? val[base[main] + i] : T(1);
  detail::PassSum<P, T> sum{x, factor_pass_start<P>(in[i], inv)};
  factor_pass_terms<P>(off, base, nd, main, n, val, i, sum);
  return factor_pass_finish<P>(sum.s, inv);
}

/// ICC's forward half's last step for row i: y_i sqrt(1 / D_i).
template <class T>
PDIAG_HD T factor_scale_sqrt_row(const Index* base, Index main, const T* val, const T* x, Index i) {
  return x[i] * scalar_sqrt_real(val[base[main] + i]);
}

namespace detail {
template <SolvePass P, class T>
void run_pass_by_levels(const FactorRowsView<T>& F, const LevelSchedule& s, const T* in, T* x) {
  std::vector<T> next;
  for (Index l = 0; l < s.nlevels(); ++l) {
    // all rows of the level computed before any is written, as if at once:
    // a dependency inside a level would read a value not yet final and show
    const Index lo = s.level_ptr[static_cast<std::size_t>(l)], hi = s.level_ptr[static_cast<std::size_t>(l) + 1];
    next.resize(static_cast<std::size_t>(hi - lo));
    for (Index q = lo; q < hi; ++q)
      next[static_cast<std::size_t>(q - lo)] =
          factor_pass_row<P>(F.off, F.base, F.nd, F.main, F.n, F.val, in, x, s.rows[static_cast<std::size_t>(q)]);
    for (Index q = lo; q < hi; ++q) x[s.rows[static_cast<std::size_t>(q)]] = next[static_cast<std::size_t>(q - lo)];
  }
}
}  // namespace detail

/// The solve `what` with F by the level-ordered passes on the host: the
/// device algorithm's order and arithmetic. schedules[kind] (indexed by
/// SolveScheduleKind) must be hm_factor_schedule of F for each kind the
/// solve's passes use. x may alias b.
template <class T>
void hm_factor_solve_by_levels(const FactorRowsView<T>& F, FactorSolve what, const LevelSchedule* schedules, const T* b,
                               T* x) {
  const FactorSolveSteps st = factor_solve_steps(what);
  for (int p = 0; p < st.npasses; ++p) {
    const T* in = p == 0 ? b : x;
    const LevelSchedule& s = schedules[static_cast<int>(pass_schedule(st.pass[static_cast<std::size_t>(p)]))];
    switch (st.pass[static_cast<std::size_t>(p)]) {
      case SolvePass::L: detail::run_pass_by_levels<SolvePass::L>(F, s, in, x); break;
      case SolvePass::U: detail::run_pass_by_levels<SolvePass::U>(F, s, in, x); break;
      case SolvePass::Ut: detail::run_pass_by_levels<SolvePass::Ut>(F, s, in, x); break;
      case SolvePass::Lt: detail::run_pass_by_levels<SolvePass::Lt>(F, s, in, x); break;
      case SolvePass::IccUt: detail::run_pass_by_levels<SolvePass::IccUt>(F, s, in, x); break;
      case SolvePass::IccU: detail::run_pass_by_levels<SolvePass::IccU>(F, s, in, x); break;
      case SolvePass::IccHalfU: detail::run_pass_by_levels<SolvePass::IccHalfU>(F, s, in, x); break;
    }
  }
  if (st.scale_sqrt)
    for (Index i = 0; i < F.n; ++i) x[i] = factor_scale_sqrt_row(F.base, F.main, F.val, x, i);
}

/// Whether ICC's halves are defined for the factor: every 1 / D_i real and
/// >= 0 (hm_icc_forward / hm_icc_backward's condition, checked once per factor
/// on the host instead of in every solve).
template <class T>
bool hm_icc_halves_defined(const FactorRowsView<T>& F) {
  for (Index i = 0; i < F.n; ++i)
    if (!scalar_real_nonnegative(F.val[F.base[F.main] + i])) return false;
  return true;
}

}  // namespace pdiag
