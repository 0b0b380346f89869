// Factors for the level-scheduled solve tests (test_factor_levels on the
// CPU, test_factor_solve_cuda on the device): ILU(0) and ICC(0) of the
// grid and random matrices of sor_testing.hpp, factored by pdiag/factor.hpp
// either over every stored entry or, as the plugin does, restricted to the
// matrix's nonzeros (so the factor keeps stored zeros); ICC from a
// symmetrized, diagonally dominant copy (positive pivots, so its halves
// are defined). Also the sequential reference of every FactorSolve.
#pragma once

#include "pdiag/convert.hpp"
#include "pdiag/factor_solve.hpp"
#include "pdiag/factor_levels.hpp"
#include "pdiag/factor_numeric.hpp"
#include "sor_testing.hpp"

#include <array>
#include <string>
#include <vector>

namespace pdiag::testing {

struct AcceptPivots {
  double begin_pass() { return 0.0; }
  PivotDecision<double> check(Index, double pv, double) { return {PivotAction::Accept, pv}; }
  bool again() { return false; }
};

/// A with its upper triangle mirrored below and the diagonal reset to
/// 1 + the row's absolute sum.
inline HmMatrix<double> symmetrized(const HmMatrix<double>& A) {
  std::vector<Index> offs = A.offsets;
  for (Index d : A.offsets) offs.push_back(-d);
  HmMatrix<double> S(A.layout, offs);
  const Index n = A.layout.nrows;
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    if (d <= 0) continue;
    for (Index i = A.layout.lo(d); i < A.layout.hi(d); ++i) *S.find(i, i + d) = *S.find(i + d, i) = *A.find(i, i + d);
  }
  for (Index i = 0; i < n; ++i) {
    double s = 0;
    for (Index k = 0; k < S.ndiag(); ++k) {
      const Index j = i + S.offsets[k];
      if (S.offsets[k] != 0 && j >= 0 && j < n) s += std::abs(*S.find(i, j));
    }
    *S.find(i, i) = 1.0 + s;
  }
  return S;
}

/// A factor with its plan.
struct TestFactor {
  bool ilu = true;
  HmFactorPlan plan;
  HmMatrix<double> F;
  std::vector<Index> base;
  FactorRowsView<double> rows() const {
    return {F.layout.nrows, F.ndiag(), main_diagonal_index(F.offsets.data(), F.ndiag()), F.offsets.data(), base.data(),
            F.val.data()};
  }
};

/// ILU(0) (ilu) or ICC(0) of A; restricted to A's nonzeros if `nonzeros_only`.
inline TestFactor make_factor(const HmMatrix<double>& A, bool ilu, bool nonzeros_only) {
  TestFactor t;
  t.ilu = ilu;
  const HmView<const double> v = A.view();
  t.F = ilu ? hm_ilu0_storage(v, &t.plan) : hm_icc0_storage(v, &t.plan);
  std::vector<unsigned char> mask, pattern;
  if (nonzeros_only) {
    mask = hm_entry_mask(A, [](Index, Index, double value) { return value != 0.0; });
    pattern = hm_factor_pattern(t.F, v, mask.data());
  }
  AcceptPivots accept;
  const bool ok = ilu ? hm_ilu0(v, t.plan, t.F, accept, nonzeros_only ? pattern.data() : nullptr)
                      : hm_icc0(v, t.plan, t.F, accept, nonzeros_only ? pattern.data() : nullptr);
  if (!ok) throw FormatError("test factorization stopped");
  t.base = hm_diagonal_bases(static_cast<const HmMatrix<double>&>(t.F).view());
  return t;
}

/// The inputs of the level-ordered numeric factorization (pdiag/
/// factor_numeric.hpp) of A: the factor's storage holding A's values, its
/// plan, the pattern (A's nonzeros if `nonzeros_only`, else none: every
/// stored entry), the bases and the schedule.
struct NumericFactorInputs {
  bool ilu = true;
  HmFactorPlan plan;
  HmMatrix<double> F;
  std::vector<unsigned char> pattern;
  std::vector<Index> base;
  LevelSchedule schedule;
  const unsigned char* pattern_or_null() const { return pattern.empty() ? nullptr : pattern.data(); }
  FactorValues<double> values() { return {F.layout.nrows, F.offsets.data(), base.data(), F.val.data()}; }
};

inline NumericFactorInputs numeric_factor_inputs(const HmMatrix<double>& A, bool ilu, bool nonzeros_only) {
  NumericFactorInputs t;
  t.ilu = ilu;
  const HmView<const double> v = A.view();
  t.F = ilu ? hm_ilu0_storage(v, &t.plan) : hm_icc0_storage(v, &t.plan);
  if (nonzeros_only) {
    const std::vector<unsigned char> mask = hm_entry_mask(A, [](Index, Index, double value) { return value != 0.0; });
    t.pattern = hm_factor_pattern(t.F, v, mask.data());
  }
  detail::load_values(v, t.F);
  t.base = hm_diagonal_bases(static_cast<const HmMatrix<double>&>(t.F).view());
  t.schedule = hm_factor_numeric_schedule(t.F, t.plan, ilu, t.pattern_or_null());
  return t;
}

/// The solves a factor has (ICC's transpose solve is its solve).
inline std::vector<FactorSolve> solves_of(const TestFactor& t) {
  if (t.ilu) return {FactorSolve::IluSolve, FactorSolve::IluSolveTranspose};
  return {FactorSolve::IccSolve, FactorSolve::IccForward, FactorSolve::IccBackward};
}

inline std::string solve_name(FactorSolve s) {
  switch (s) {
    case FactorSolve::IluSolve: return "ILU solve";
    case FactorSolve::IluSolveTranspose: return "ILU transpose solve";
    case FactorSolve::IccSolve: return "ICC solve";
    case FactorSolve::IccForward: return "ICC forward half";
    case FactorSolve::IccBackward: return "ICC backward half";
  }
  return "?";
}

/// The sequential CPU solve of pdiag/factor.hpp (false: ICC halves undefined).
inline bool reference_solve(const TestFactor& t, FactorSolve s, const std::vector<double>& b, std::vector<double>& x) {
  const HmView<const double> v = static_cast<const HmMatrix<double>&>(t.F).view();
  x.assign(b.size(), 0.0);
  switch (s) {
    case FactorSolve::IluSolve: hm_ilu_solve(v, t.plan, b.data(), x.data()); return true;
    case FactorSolve::IluSolveTranspose: hm_ilu_solve_transpose(v, t.plan, b.data(), x.data()); return true;
    case FactorSolve::IccSolve: hm_icc_solve(v, t.plan, b.data(), x.data()); return true;
    case FactorSolve::IccForward: return hm_icc_forward(v, t.plan, b.data(), x.data());
    case FactorSolve::IccBackward: return hm_icc_backward(v, t.plan, b.data(), x.data());
  }
  return false;
}

/// The four schedules of a factor (SolveScheduleKind order).
inline std::array<LevelSchedule, kSolveScheduleKinds> factor_schedules(const TestFactor& t) {
  std::array<LevelSchedule, kSolveScheduleKinds> s;
  const HmView<const double> v = static_cast<const HmMatrix<double>&>(t.F).view();
  for (int k = 0; k < kSolveScheduleKinds; ++k) s[static_cast<std::size_t>(k)] = hm_factor_schedule(v, SolveScheduleKind(k));
  return s;
}

}  // namespace pdiag::testing
