// Level-scheduled triangular solves with ILU(0) / ICC(0) factors on the
// CPU (pdiag/levels.hpp's hm_solve_schedule, pdiag/factor_levels.hpp): the
// algorithm of the CUDA kernels run on the host, level by level, every row
// of a level computed before any of them is written (as if at once), against
// the sequential solves of pdiag/factor.hpp. On 5/7/9/27-point grid
// stencils and random diagonal matrices with nonsymmetric patterns, factors
// over every stored entry or restricted to the nonzeros (stored zeros kept
// in the factor); every solve (ILU solve and transpose solve, ICC solve and
// its halves), b and x distinct or the same array. The passes add the same
// terms in the same order as the reference, so the results agree to the
// last bit here (checked to 1e-15: an index error or a dependency broken by
// the schedule gives order-one differences). The schedules: every
// dependency of a pass in an earlier level, every row as early as possible,
// the hyperplanes for stencils.
#define BOOST_TEST_MODULE factor_levels
#include <boost/test/unit_test.hpp>

#include "factor_testing.hpp"
#include "testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// Checks the schedule of `kind` for F against its definition; returns its number of levels.
Index check_schedule(const HmMatrix<double>& F, SolveScheduleKind kind) {
  const HmView<const double> v = F.view();
  const Triangle part = (kind == SolveScheduleKind::LowerRows || kind == SolveScheduleKind::LowerColumns) ? Triangle::Lower : Triangle::Upper;
  const SolveAccess access = (kind == SolveScheduleKind::LowerRows || kind == SolveScheduleKind::UpperRows) ? SolveAccess::Rows : SolveAccess::Columns;
  const std::vector<Index> level = hm_solve_levels(v, part, access);
  const Index m = F.layout.nrows;
  BOOST_TEST_REQUIRE(Index(level.size()) == m);
  std::vector<Index> best(static_cast<std::size_t>(m), -1);
  // every nonzero entry (r, c) of the triangle: by rows, row r reads x[c];
  // by columns (the transposed triangle), row c reads x[r]
  for (Index k = 0; k < F.ndiag(); ++k) {
    const Index d = F.offsets[k];
    if (part == Triangle::Lower ? d >= 0 : d <= 0) continue;
    for (Index r = F.layout.lo(d); r < F.layout.hi(d); ++r) {
      if (*F.find(r, r + d) == 0.0) continue;
      const Index reader = access == SolveAccess::Rows ? r : r + d, read = access == SolveAccess::Rows ? r + d : r;
      BOOST_TEST_REQUIRE(level[read] < level[reader], "row " << reader << " reads row " << read << " of a later level");
      best[reader] = std::max(best[reader], level[read]);
    }
  }
  for (Index i = 0; i < m; ++i) BOOST_TEST_REQUIRE(level[i] == best[i] + 1, "row " << i << " could be in an earlier level");
  const LevelSchedule s = hm_factor_schedule(v, kind);
  BOOST_TEST_REQUIRE(s.level_ptr.back() == m);
  std::vector<char> seen(static_cast<std::size_t>(m), 0);
  for (Index l = 0; l < s.nlevels(); ++l)
    for (Index p = s.level_ptr[l]; p < s.level_ptr[l + 1]; ++p) {
      BOOST_TEST_REQUIRE(level[s.rows[p]] == l);
      BOOST_TEST_REQUIRE(!seen[s.rows[p]]);
      seen[s.rows[p]] = 1;
    }
  return s.nlevels();
}

/// Every solve of t by levels against the sequential one.
void compare_solves(const std::string& name, const TestFactor& t, std::mt19937_64& rng) {
  const Index n = t.F.layout.nrows;
  const auto sched = factor_schedules(t);
  for (int k = 0; k < kSolveScheduleKinds; ++k) check_schedule(t.F, SolveScheduleKind(k));
  const FactorRowsView<double> rows = t.rows();
  if (!t.ilu) BOOST_TEST_REQUIRE(hm_icc_halves_defined(rows));
  for (FactorSolve s : solves_of(t)) {
    BOOST_TEST_CONTEXT(name << ", " << solve_name(s)) {
      const std::vector<double> b = random_vector(n, rng);
      std::vector<double> ref, x(static_cast<std::size_t>(n), 0.0);
      BOOST_TEST_REQUIRE(reference_solve(t, s, b, ref));
      hm_factor_solve_by_levels(rows, s, sched.data(), b.data(), x.data());
      BOOST_TEST(max_rel_diff(x, ref) <= 1e-15);
      BOOST_TEST(max_rel_diff(ref, b) > 1e-3);  // the solve did something
      std::vector<double> y = b;  // in place
      hm_factor_solve_by_levels(rows, s, sched.data(), y.data(), y.data());
      BOOST_TEST(max_rel_diff(y, ref) <= 1e-15);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(grid_stencils) {
  std::mt19937_64 rng(21);
  for (const GridCase& g : grid_cases())
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = grid_matrix(g, rng);
      const std::string name = g.name + (nonzeros_only ? " (nonzero pattern)" : " (stored pattern)");
      const TestFactor ilu = make_factor(A, true, nonzeros_only);
      const TestFactor icc = make_factor(symmetrized(A), false, nonzeros_only);
      compare_solves(name + ", ILU", ilu, rng);
      compare_solves(name + ", ICC", icc, rng);
      if (nonzeros_only) {  // no fill: every triangle's levels are the hyperplanes
        BOOST_TEST_CONTEXT(name) {
          for (int k = 0; k < kSolveScheduleKinds; ++k) BOOST_TEST(check_schedule(ilu.F, SolveScheduleKind(k)) == g.levels);
          BOOST_TEST(check_schedule(icc.F, SolveScheduleKind::UpperRows) == g.levels);
          BOOST_TEST(check_schedule(icc.F, SolveScheduleKind::UpperColumns) == g.levels);
        }
      }
    }
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(23);
  for (double density : {0.1, 0.5, 1.0})
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = random_diag_matrix(300, {-101, -57, -13, -2, -1, 3, 8, 41, 120}, density, rng);
      const std::string name = "random, density " + std::to_string(density) + (nonzeros_only ? ", nonzero pattern" : "");
      compare_solves(name + ", ILU", make_factor(A, true, nonzeros_only), rng);
      compare_solves(name + ", ICC", make_factor(symmetrized(A), false, nonzeros_only), rng);
    }
}

BOOST_AUTO_TEST_CASE(stored_zeros_split_levels) {
  // tridiagonal, the couplings between rows 4q-1 and 4q zero: chains of 4
  // rows, so 4 levels in each pass (the sequential order would need 16)
  HmMatrix<double> A(Layout::square(16), {-1, 0, 1});
  for (Index i = 0; i < 16; ++i) {
    *A.find(i, i) = 4.0;
    if (i % 4) *A.find(i, i - 1) = *A.find(i - 1, i) = -1.0;
  }
  const TestFactor t = make_factor(A, true, true);
  for (int k = 0; k < kSolveScheduleKinds; ++k) BOOST_TEST(check_schedule(t.F, SolveScheduleKind(k)) == 4);
  std::mt19937_64 rng(2);
  compare_solves("tridiagonal chains", t, rng);
}

BOOST_AUTO_TEST_CASE(schedules_refuse_non_square_blocks) {
  HmMatrix<double> R(Layout::rect(4, 5), {0, 1});
  BOOST_CHECK_THROW(hm_solve_levels(R.view(), Triangle::Upper, SolveAccess::Rows), FormatError);
  HmMatrix<double> B(Layout::block(8, 8, 2, 3), {0});
  BOOST_CHECK_THROW(hm_solve_levels(B.view(), Triangle::Lower, SolveAccess::Columns), FormatError);
}
