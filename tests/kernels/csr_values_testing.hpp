// Fixtures of the CSR value tests (test_csr_values, test_csr_values_cuda):
// an HM block and a CSR pattern over its rows that holds some stored
// positions, skips others, and has positions on diagonals the block does
// not store (their values are zero).
#pragma once

#include "testing.hpp"

#include <cstdint>

namespace pdiag::testing {

struct CsrValuesCase {
  std::string name;
  HmMatrix<double> A;
  std::vector<std::int32_t> rowptr, colidx;
};

/// A CSR pattern over A's local rows: each stored position with
/// probability 0.8, plus an extra column (often on no stored diagonal) in
/// one row of three; columns ascending and unique in each row.
inline void random_pattern(const HmMatrix<double>& A, std::mt19937_64& rng, std::vector<std::int32_t>& rowptr, std::vector<std::int32_t>& colidx) {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<Index> col(0, std::max<Index>(A.layout.ncols - 1, 0));
  rowptr.assign(1, 0);
  colidx.clear();
  for (Index r = 0; r < A.layout.nrows; ++r) {
    const Index i = A.layout.row_begin + r;
    std::set<Index> cols;
    for (Index d : A.offsets)
      if (i + d >= 0 && i + d < A.layout.ncols && coin(rng) < 0.8) cols.insert(i + d);
    if (A.layout.ncols > 0 && coin(rng) < 1.0 / 3) cols.insert(col(rng));
    for (Index j : cols) colidx.push_back(std::int32_t(j));
    rowptr.push_back(std::int32_t(colidx.size()));
  }
}

inline std::vector<CsrValuesCase> csr_values_cases(std::mt19937_64& rng) {
  std::vector<CsrValuesCase> cases;
  auto add = [&](const std::string& name, const Layout& L, const std::vector<Index>& offsets) {
    CsrValuesCase c{name, random_hm(L, offsets, rng), {}, {}};
    random_pattern(c.A, rng, c.rowptr, c.colidx);
    cases.push_back(std::move(c));
  };
  add("1x1", Layout::square(1), {0});
  add("7-point 9^3", Layout::square(729), {-81, -9, -1, 0, 1, 9, 81});
  add("27 diagonals of a coarse grid 5^3", Layout::square(125), {-31, -30, -29, -26, -25, -24, -21, -20, -19, -6, -5, -4, -1, 0, 1, 4, 5, 6, 19, 20, 21, 24, 25, 26, 29, 30, 31});
  add("rectangular 300x200", Layout::rect(300, 200), {-150, -3, 0, 7, 120});
  add("row block 400..700 of 1000", Layout::block(1000, 1000, 400, 300), {-500, -2, 0, 2, 600});
  add("random 2000", Layout::square(2000), random_offsets(40, 1999, 2000, rng));
  add("no diagonals", Layout::square(50), {});
  return cases;
}

}  // namespace pdiag::testing
