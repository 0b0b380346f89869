// The numeric ILU(0) / ICC(0) factorization by levels on the CPU
// (pdiag/factor_numeric.hpp: the CUDA kernels' schedule and row
// computations, the rows of each level in descending order so that a row
// reading an unfinished row of its own level shows) against the sequential
// hm_ilu0 / hm_icc0 of pdiag/factor.hpp. On 5/7/9/27-point grid stencils
// (the couplings that leave the grid stored as zeros, as a DMDA holds
// them) and random diagonal matrices with nonsymmetric patterns, factors
// restricted to the nonzeros (the plugin's) or over every stored entry.
// The same operations in the same order per entry: equal to 1e-15. The
// schedule: every dependency in an earlier level, and with the nonzero
// pattern the hyperplanes of the grid (the stored zeros are no
// dependency); a schedule that puts everything in one level gives another
// factor (so the comparison can fail). The pivot screen: the pivots PETSc's
// checks would act on, and pivots that are not finite, are flagged.
#define BOOST_TEST_MODULE factor_numeric
#include <boost/test/unit_test.hpp>

#include "factor_testing.hpp"
#include "testing.hpp"

#include <limits>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// The level-ordered factor of A against the sequential one; returns the number of levels.
Index compare_factor(const std::string& name, const HmMatrix<double>& A, bool ilu, bool nonzeros_only) {
  Index nlevels = 0;
  BOOST_TEST_CONTEXT(name << (ilu ? ", ILU" : ", ICC") << (nonzeros_only ? ", nonzero pattern" : ", stored pattern")) {
    const TestFactor ref = make_factor(A, ilu, nonzeros_only);
    NumericFactorInputs in = numeric_factor_inputs(A, ilu, nonzeros_only);
    const Index n = A.layout.nrows;
    BOOST_TEST_REQUIRE(in.schedule.level_ptr.back() == n);
    // every row after the rows it reads (the rule of factor_numeric.hpp)
    std::vector<Index> level(static_cast<std::size_t>(n));
    for (Index l = 0; l < in.schedule.nlevels(); ++l)
      for (Index q = in.schedule.level_ptr[l]; q < in.schedule.level_ptr[l + 1]; ++q) level[in.schedule.rows[q]] = l;
    const std::vector<Index>& deps = ilu ? in.plan.lower : in.plan.upper;
    for (Index i = 0; i < n; ++i)
      for (Index k : deps) {
        const Index d = in.F.offsets[k], j = ilu ? i + d : i - d;
        if (j < 0) continue;
        const Index pos = in.base[k] + (ilu ? i : j);
        if (in.pattern_or_null() && !in.pattern[pos]) continue;
        BOOST_TEST_REQUIRE(level[j] < level[i], "row " << i << " reads row " << j << " of a later level");
      }
    const bool clean = hm_factor_numeric_by_levels(in.values(), factor_plan_view(in.plan), ilu, in.pattern_or_null(), in.schedule, PivotScreen{1e-12, false, false});
    BOOST_TEST(clean);
    BOOST_TEST(max_rel_diff(in.F.val, ref.F.val) <= 1e-15);
    nlevels = in.schedule.nlevels();
  }
  return nlevels;
}

}  // namespace

BOOST_AUTO_TEST_CASE(grid_stencils) {
  std::mt19937_64 rng(31);
  for (const GridCase& g : grid_cases())
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = grid_matrix(g, rng);
      const Index ilu_levels = compare_factor(g.name, A, true, nonzeros_only);
      const Index icc_levels = compare_factor(g.name, symmetrized(A), false, nonzeros_only);
      if (nonzeros_only) {  // the hyperplanes: the stored zeros at the grid lines' ends are no dependency
        BOOST_TEST(ilu_levels == g.levels, g.name);
        BOOST_TEST(icc_levels == g.levels, g.name);
      } else {  // over every stored entry they chain the lines: more levels
        BOOST_TEST(ilu_levels > g.levels, g.name);
      }
    }
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(37);
  for (double density : {0.1, 0.5, 1.0})
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = random_diag_matrix(300, {-101, -57, -13, -2, -1, 3, 8, 41, 120}, density, rng);
      const std::string name = "random, density " + std::to_string(density);
      compare_factor(name, A, true, nonzeros_only);
      compare_factor(name, symmetrized(A), false, nonzeros_only);
    }
}

BOOST_AUTO_TEST_CASE(one_level_schedule_is_not_the_factor) {
  std::mt19937_64 rng(41);
  const HmMatrix<double> A = grid_matrix(grid_cases()[1], rng);
  for (bool ilu : {true, false}) {
    const HmMatrix<double> M = ilu ? A : symmetrized(A);
    const TestFactor ref = make_factor(M, ilu, true);
    NumericFactorInputs in = numeric_factor_inputs(M, ilu, true);
    LevelSchedule flat;
    flat.level_ptr = {0, M.layout.nrows};
    for (Index i = 0; i < M.layout.nrows; ++i) flat.rows.push_back(i);
    hm_factor_numeric_by_levels(in.values(), factor_plan_view(in.plan), ilu, in.pattern_or_null(), flat, PivotScreen{});
    BOOST_TEST(max_rel_diff(in.F.val, ref.F.val) > 1e-3, (ilu ? "ILU" : "ICC"));
  }
}

BOOST_AUTO_TEST_CASE(pivot_screen) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const PivotScreen none{1e-12, false, false}, nonzero{1e-12, true, false}, positive_definite{1e-12, true, true};
  BOOST_TEST(!pivot_needs_policy(none, 2.0, 10.0));
  BOOST_TEST(pivot_needs_policy(none, 0.0, 10.0));
  BOOST_TEST(pivot_needs_policy(none, -1e-13, 10.0));
  BOOST_TEST(!pivot_needs_policy(none, -1.0, 10.0));
  BOOST_TEST(pivot_needs_policy(nonzero, 5e-12, 10.0));  // |pv| <= zeropivot * rs
  BOOST_TEST(!pivot_needs_policy(none, 5e-12, 10.0));
  BOOST_TEST(pivot_needs_policy(positive_definite, -1.0, 10.0));  // Re(pv) <= zeropivot * rs
  BOOST_TEST(!pivot_needs_policy(nonzero, -1.0, 10.0));
  BOOST_TEST(pivot_needs_policy(none, nan, 1.0));
  BOOST_TEST(pivot_needs_policy(none, inf, 1.0));
  BOOST_TEST(pivot_needs_policy(none, -inf, 1.0));
  // a zero pivot in a factorization is flagged: row 1 of [[1 1],[1 1]]
  HmMatrix<double> S(Layout::square(2), {-1, 0, 1});
  *S.find(0, 0) = *S.find(0, 1) = *S.find(1, 0) = *S.find(1, 1) = 1.0;
  NumericFactorInputs in = numeric_factor_inputs(S, true, true);
  BOOST_TEST(!hm_factor_numeric_by_levels(in.values(), factor_plan_view(in.plan), true, in.pattern_or_null(), in.schedule, none));
}

BOOST_AUTO_TEST_CASE(schedule_refuses_non_square_blocks) {
  HmMatrix<double> R(Layout::rect(4, 5), {0, 1});
  HmFactorPlan P = hm_factor_plan({1});
  BOOST_CHECK_THROW(hm_factor_numeric_schedule(R, P, true, nullptr), FormatError);
}
