// The numeric ILU(0) / ICC(0) factorizations of pdiag/factor.hpp by
// levels: the level schedule, the pivot screen, and a CPU runner of the
// level order for the tests on machines without a GPU. The rows themselves
// are computed by factor.hpp's ilu0_row / icc0_row (PDIAG_HD), which the
// sequential hm_ilu0 / hm_icc0 and the CUDA kernels of
// kernels/src/factor_numeric.cu (one thread per row of a level, one launch
// per level) share.
//
// ILU(0) row i writes only row i's entries and reads the final rows i + d
// (d < 0) whose multiplier a(i, i + d) is nonzero; ICC(0) row k (up-looking)
// reads the rows k - e (e > 0) above it and writes their entries (k - e, k)
// of column k and its own row. So a row must come after the rows its lower
// entries (ILU) or its column's upper entries (ICC) name, where the pattern
// (the entries aij's factor holds, pdiag/factor.hpp) marks them: an unmarked
// entry is zero and stays zero (updates of it are dropped), so it is no
// dependency. A DMDA's stored zeros at the ends of grid lines are unmarked;
// counting them would chain every line into levels of one row.
//
// Pivots: on the device no pivot policy can run inside the elimination (a
// shift restarts the whole factorization). The kernels factor without shift
// and flag every row whose pivot PETSc's checks (MatPivotCheck) would act
// on, or which is not finite (PivotScreen); the caller then factors on the
// host with its policy, so the result is always the sequential one. Without
// such a pivot every check accepts the pivot unchanged, and the
// level-ordered factor equals hm_ilu0 / hm_icc0's up to rounding (the same
// operations in the same order per entry; reads of unmarked entries add
// signed zeros).
#pragma once

#include "pdiag/factor.hpp"
#include "pdiag/levels.hpp"

#include <type_traits>
#include <vector>

namespace pdiag {

/// Which pivots PETSc's pivot checks would act on (MatPivotCheck with
/// -pc_factor_shift_type and -pc_factor_zeropivot): |pv| <= zeropivot
/// (none, inblocks), |pv| <= zeropivot * rs (nonzero), Re(pv) <= zeropivot
/// * rs (positive_definite). A pivot that is not finite is flagged too:
/// PETSc accepts it, but it spreads through reads that the level order
/// makes in another order (see the top), so the host factors it.
struct PivotScreen {
  double zeropivot = 0;
  bool scaled_by_rowsum = false;
  bool real_part = false;
};

template <class T>
PDIAG_HD bool pivot_needs_policy(const PivotScreen& s, const T& pivot, double rowsum) {
  const double m = factor_magnitude(pivot);
  if (!(m - m == 0.0)) return true;  // NaN or infinite
  const double v = s.real_part ? factor_real_part(pivot) : m;
  return v <= s.zeropivot * (s.scaled_by_rowsum ? rowsum : 1.0);
}

/// The level schedule of the numeric factorization (the rule at the top):
/// ILU: level[i] = 1 + max level[i + d] over lower diagonals d with (i, i + d)
/// marked; ICC: level[k] = 1 + max level[k - e] over upper diagonals e with
/// (k - e, k) marked. pattern over F's stored entries, null: all marked.
template <class T>
LevelSchedule hm_factor_numeric_schedule(const HmMatrix<T>& F, const HmFactorPlan& P, bool ilu, const unsigned char* pattern) {
  if (!F.layout.is_full() || !F.layout.is_square()) throw FormatError("a factorization schedule needs a square sequential block");
  const Index n = F.layout.nrows;
  const std::vector<Index> base = hm_diagonal_bases(F.view());
  const std::vector<Index>& deps = ilu ? P.lower : P.upper;
  std::vector<Index> level(static_cast<std::size_t>(n), 0);
  for (Index i = 0; i < n; ++i) {
    Index lev = 0;
    for (Index k : deps) {
      const Index d = F.offsets[static_cast<std::size_t>(k)];
      const Index j = ilu ? i + d : i - d;  // the row read: i + d (d < 0) or i - e
      if (j < 0) continue;
      const Index pos = base[static_cast<std::size_t>(k)] + (ilu ? i : j);  // (i, i + d) or (j, i)
      if (pattern && !pattern[pos]) continue;
      lev = std::max(lev, level[static_cast<std::size_t>(j)] + 1);
    }
    level[static_cast<std::size_t>(i)] = lev;
  }
  return level_schedule_from_levels(level);
}

/// The level-ordered factorization on the host, the device kernels' order:
/// F holds A's values (detail::load_values, no shift); each level's rows
/// are computed in descending order (a row that read a row of its own level
/// would read it unfinished and show in the tests), and each pivot is
/// replaced by its inverse. Returns whether no pivot needs the policy
/// (`screen`); if one does, F is not the factor.
template <class T>
bool hm_factor_numeric_by_levels(const FactorValues<T>& F, const FactorPlanView& P, bool ilu, const unsigned char* pattern,
                                 const LevelSchedule& s, const PivotScreen& screen) {
  bool clean = true;
  for (Index l = 0; l < s.nlevels(); ++l)
    for (Index q = s.level_ptr[static_cast<std::size_t>(l) + 1]; q-- > s.level_ptr[static_cast<std::size_t>(l)];) {
      const Index i = s.rows[static_cast<std::size_t>(q)];
      const FactorRowPivot<T> r = ilu ? ilu0_row(F, P, pattern, i) : icc0_row(F, P, pattern, i);
      if (pivot_needs_policy(screen, r.pivot, r.rowsum)) clean = false;
      F.val[F.base[P.main] + i] = T(1) / r.pivot;
    }
  return clean;
}

}  // namespace pdiag
