// The CPU references of pdiag/csr_values.hpp (and hm_csr_pattern_if_into,
// the pattern those values go to, against hm_csr_pattern_if): an HM block's values at a
// CSR pattern's positions (zero off its diagonals) against its dense copy,
// and an HM block filled from CSR values (every other stored entry zeroed,
// entries on missing diagonals counted), on square, rectangular, row-block
// and random blocks.
#define BOOST_TEST_MODULE csr_values
#include <boost/test/unit_test.hpp>

#include "csr_values_testing.hpp"
#include "pdiag/csr_values.hpp"

using namespace pdiag;
using namespace pdiag::testing;

BOOST_AUTO_TEST_CASE(find_offset_in_sorted_offsets) {
  const std::vector<Index> off{-9, -1, 0, 4, 100};
  for (Index k = 0; k < Index(off.size()); ++k) BOOST_TEST(find_offset(off.data(), Index(off.size()), off[k]) == k);
  for (Index d : {-10, -2, 1, 5, 101}) BOOST_TEST(find_offset(off.data(), Index(off.size()), d) == -1);
  BOOST_TEST(find_offset(off.data(), 0, 0) == -1);
}

BOOST_AUTO_TEST_CASE(pattern_into_arrays_equals_pattern) {
  std::mt19937_64 rng(9);
  for (const CsrValuesCase& c : csr_values_cases(rng)) {
    BOOST_TEST_CONTEXT(c.name) {
      HmMatrix<double> A = c.A;
      for (std::size_t p = 0; p < A.val.size(); p += 3) A.val[p] = 0.0; /* entries the rule below drops */
      const auto keep = [](Index i, Index j, double v) { return v != 0.0 || (i + j) % 5 == 0; };
      std::vector<Index> rowptr, colidx;
      hm_csr_pattern_if(A, keep, rowptr, colidx);
      std::vector<std::int32_t> rp(std::size_t(A.layout.nrows + 1), -1), ci(std::size_t(A.nstored()), -1);
      hm_csr_pattern_if_into(A, keep, rp.data(), ci.data());
      BOOST_TEST(std::vector<Index>(rp.begin(), rp.end()) == rowptr);
      BOOST_TEST(std::vector<Index>(ci.begin(), ci.begin() + rp.back()) == colidx);
    }
  }
}

BOOST_AUTO_TEST_CASE(values_at_pattern_against_dense) {
  std::mt19937_64 rng(7);
  for (const CsrValuesCase& c : csr_values_cases(rng)) {
    BOOST_TEST_CONTEXT(c.name) {
      const Dense D = to_dense(c.A);
      std::vector<double> out(c.colidx.size(), -99.0);
      hm_values_at_csr(c.A.view(), c.rowptr.data(), c.colidx.data(), out.data());
      for (Index r = 0; r < c.A.layout.nrows; ++r)
        for (Index e = c.rowptr[r]; e < c.rowptr[r + 1]; ++e) BOOST_TEST(out[e] == D(r, c.colidx[e]));
    }
  }
}

BOOST_AUTO_TEST_CASE(set_from_pattern_round_trip_and_misses) {
  std::mt19937_64 rng(8);
  for (const CsrValuesCase& c : csr_values_cases(rng)) {
    BOOST_TEST_CONTEXT(c.name) {
      std::vector<double> vals(c.colidx.size());
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      for (double& v : vals) v = u(rng);
      /* C with the pattern's diagonals: every entry lands, the rest is zero */
      std::vector<Index> offs;
      for (Index r = 0; r < c.A.layout.nrows; ++r)
        for (Index e = c.rowptr[r]; e < c.rowptr[r + 1]; ++e) offs.push_back(c.colidx[e] - (c.A.layout.row_begin + r));
      HmMatrix<double> C(c.A.layout, offs);
      std::fill(C.val.begin(), C.val.end(), 5.0); /* stale values must go */
      BOOST_TEST(hm_set_from_csr(C.view(), c.rowptr.data(), c.colidx.data(), vals.data()) == 0);
      Dense expect(c.A.layout.nrows, c.A.layout.ncols);
      for (Index r = 0; r < c.A.layout.nrows; ++r)
        for (Index e = c.rowptr[r]; e < c.rowptr[r + 1]; ++e) expect(r, c.colidx[e]) = vals[e];
      BOOST_TEST(to_dense(C).a == expect.a);
      /* C with A's diagonals only: the entries elsewhere are counted, not placed */
      HmMatrix<double> CA(c.A.layout, c.A.offsets);
      Index expect_misses = 0;
      Dense expect_a(c.A.layout.nrows, c.A.layout.ncols);
      for (Index r = 0; r < c.A.layout.nrows; ++r)
        for (Index e = c.rowptr[r]; e < c.rowptr[r + 1]; ++e) {
          if (CA.find_diagonal(c.colidx[e] - (c.A.layout.row_begin + r)) < 0) ++expect_misses;
          else expect_a(r, c.colidx[e]) = vals[e];
        }
      BOOST_TEST(hm_set_from_csr(CA.view(), c.rowptr.data(), c.colidx.data(), vals.data()) == expect_misses);
      BOOST_TEST(to_dense(CA).a == expect_a.a);
    }
  }
}
