// Level schedules of the SOR sweeps (pdiag/levels.hpp): on grid stencils
// (stored zeros where the stencil leaves the grid) and random diagonal
// matrices with nonsymmetric patterns, for both directions: every
// dependency (a nonzero a(i, j) or a(j, i), i after j in the sweep) in an
// earlier level; every row above level 0 with a dependency in the level
// just below (so the levels are the fewest possible: longest paths); the
// schedule a permutation of the rows grouped by level; and for stencils the
// number of hyperplanes.
#define BOOST_TEST_MODULE levels
#include <boost/test/unit_test.hpp>

#include "pdiag/levels.hpp"
#include "sor_testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// Checks levels and schedule of A for dir; returns the number of levels.
Index check_schedule(const HmMatrix<double>& A, SweepDirection dir) {
  const auto level = hm_sweep_levels(A.view(), dir);
  const Index m = A.layout.nrows;
  BOOST_REQUIRE_EQUAL(Index(level.size()), m);
  const bool fwd = dir == SweepDirection::Forward;
  std::vector<Index> best(static_cast<std::size_t>(m), -1);  // highest level among a row's dependencies
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    if (d == 0) continue;
    for (Index i = A.layout.lo(d); i < A.layout.hi(d); ++i) {
      if (A.val[A.view().pos(k, i)] == 0.0) continue;
      const Index j = i + d;
      const Index before = fwd ? std::min(i, j) : std::max(i, j), after = fwd ? std::max(i, j) : std::min(i, j);
      BOOST_TEST_REQUIRE(level[before] < level[after], "a(" << i << ", " << j << ") != 0: row " << after << " (level "
                                                            << level[after] << ") not after row " << before
                                                            << " (level " << level[before] << ")");
      best[after] = std::max(best[after], level[before]);
    }
  }
  for (Index i = 0; i < m; ++i) BOOST_TEST_REQUIRE(level[i] == best[i] + 1, "row " << i << " could be in an earlier level");
  const LevelSchedule s = hm_level_schedule(A.view(), dir);
  BOOST_TEST_REQUIRE(s.level_ptr.front() == 0);
  BOOST_TEST_REQUIRE(s.level_ptr.back() == m);
  std::vector<char> seen(static_cast<std::size_t>(m), 0);
  for (Index l = 0; l < s.nlevels(); ++l) {
    BOOST_TEST_REQUIRE(s.level_ptr[l + 1] > s.level_ptr[l], "level " << l << " is empty");
    for (Index p = s.level_ptr[l]; p < s.level_ptr[l + 1]; ++p) {
      const Index r = s.rows[p];
      BOOST_TEST_REQUIRE(level[r] == l);
      BOOST_TEST_REQUIRE(!seen[r]);
      seen[r] = 1;
      if (p > s.level_ptr[l]) BOOST_TEST_REQUIRE(r > s.rows[p - 1]);
    }
  }
  return s.nlevels();
}

}  // namespace

BOOST_AUTO_TEST_CASE(stencil_levels_are_hyperplanes) {
  std::mt19937_64 rng(7);
  for (const GridCase& g : grid_cases()) {
    BOOST_TEST_CONTEXT(g.name) {
      const HmMatrix<double> A = grid_matrix(g, rng);
      BOOST_TEST(check_schedule(A, SweepDirection::Forward) == g.levels);
      BOOST_TEST(check_schedule(A, SweepDirection::Backward) == g.levels);
    }
  }
}

BOOST_AUTO_TEST_CASE(random_patterns_valid_in_both_directions) {
  std::mt19937_64 rng(11);
  for (double density : {0.05, 0.3, 1.0}) {
    BOOST_TEST_CONTEXT("density " << density) {
      const HmMatrix<double> A = random_diag_matrix(200, {-57, -13, -2, -1, 3, 8, 41, 120}, density, rng);
      const Index f = check_schedule(A, SweepDirection::Forward), b = check_schedule(A, SweepDirection::Backward);
      BOOST_TEST(f >= 1);
      BOOST_TEST(b >= 1);
      if (density == 1.0) BOOST_TEST(f == 200);  // the full -1 diagonal chains every row
    }
  }
}

BOOST_AUTO_TEST_CASE(stored_zeros_are_no_dependency) {
  // tridiagonal with a(i, i-1) = a(i-1, i) = 0 every 4 rows: independent
  // chains of 4 rows, so 4 levels (a structural rule would give 16)
  HmMatrix<double> A(Layout::square(16), {-1, 0, 1});
  for (Index i = 0; i < 16; ++i) {
    *A.find(i, i) = 4.0;
    if (i % 4) *A.find(i, i - 1) = *A.find(i - 1, i) = -1.0;
  }
  BOOST_TEST(check_schedule(A, SweepDirection::Forward) == 4);
  BOOST_TEST(check_schedule(A, SweepDirection::Backward) == 4);
  // a diagonal matrix: one level; an empty one: none
  HmMatrix<double> D(Layout::square(5), {0});
  BOOST_TEST(check_schedule(D, SweepDirection::Forward) == 1);
  HmMatrix<double> E(Layout::square(0), {});
  BOOST_TEST(hm_level_schedule(E.view(), SweepDirection::Forward).nlevels() == 0);
}

BOOST_AUTO_TEST_CASE(refuses_non_square_or_row_blocks) {
  HmMatrix<double> R(Layout::rect(4, 5), {0, 1});
  BOOST_CHECK_THROW(hm_level_schedule(R.view(), SweepDirection::Forward), FormatError);
  HmMatrix<double> B(Layout::block(8, 8, 2, 3), {0});
  BOOST_CHECK_THROW(hm_level_schedule(B.view(), SweepDirection::Backward), FormatError);
}
