// Cases of the Q1 grid-transfer tests (test_transfer, test_transfer_cuda):
// 2:1 vertex-centred refinements in one, two and three dimensions, and P
// of each built independently of pdiag/transfer.hpp, as the Kronecker
// product of the one-dimensional interpolations (fine f takes coarse f/2
// when f is even, (f-1)/2 and (f+1)/2 by halves when odd), in CSR.
#pragma once

#include "pdiag/transfer.hpp"

#include <random>
#include <string>
#include <vector>

namespace pdiag::testing {

struct TransferCase {
  std::string name;
  VertexGrids g;
};

inline std::vector<TransferCase> transfer_cases() {
  auto grids = [](Index cx, Index cy, Index cz) {
    VertexGrids g;
    const Index c[3] = {cx, cy, cz};
    for (int d = 0; d < 3; ++d) g.coarse[d] = c[d], g.fine[d] = 2 * c[d] - 1;
    return g;
  };
  return {{"one point", grids(1, 1, 1)}, {"1D 9 <- 5", grids(5, 1, 1)}, {"2D 9x5 <- 5x3", grids(5, 3, 1)},
          {"3D 9x7x5 <- 5x4x3", grids(5, 4, 3)}, {"3D 3x3x3 <- 2x2x2", grids(2, 2, 2)}, {"3D 33x17x9 <- 17x9x5", grids(17, 9, 5)},
          {"2D, y only", grids(1, 6, 1)}};
}

/// P of g in CSR (columns ascending in each row), by Kronecker products.
struct TransferCsr {
  std::vector<Index> rowptr{0}, colidx;
  std::vector<double> val;
};

inline TransferCsr transfer_csr(const VertexGrids& g) {
  auto line = [](Index f) {  // the coarse points of fine f along one direction, with weights
    std::vector<std::pair<Index, double>> w;
    if (f % 2 == 0) w.push_back({f / 2, 1.0});
    else w.push_back({(f - 1) / 2, 0.5}), w.push_back({(f + 1) / 2, 0.5});
    return w;
  };
  TransferCsr P;
  for (Index k = 0; k < g.fine[2]; ++k)
    for (Index j = 0; j < g.fine[1]; ++j)
      for (Index i = 0; i < g.fine[0]; ++i) {
        for (auto [ck, wk] : line(k))
          for (auto [cj, wj] : line(j))
            for (auto [ci, wi] : line(i)) {
              P.colidx.push_back((ck * g.coarse[1] + cj) * g.coarse[0] + ci);
              P.val.push_back(wi * wj * wk);
            }
        P.rowptr.push_back(Index(P.colidx.size()));
      }
  return P;
}

/// y = P x (+ z) from the CSR, in long double.
inline std::vector<double> csr_apply(const TransferCsr& P, const std::vector<double>& x, const std::vector<double>* z) {
  std::vector<double> y(P.rowptr.size() - 1);
  for (std::size_t r = 0; r + 1 < P.rowptr.size(); ++r) {
    long double s = z ? (*z)[r] : 0.0L;
    for (Index e = P.rowptr[r]; e < P.rowptr[r + 1]; ++e) s += (long double)P.val[e] * x[P.colidx[e]];
    y[r] = double(s);
  }
  return y;
}

/// y = P^T x (+ z) from the CSR, in long double.
inline std::vector<double> csr_apply_transpose(const TransferCsr& P, Index ncols, const std::vector<double>& x, const std::vector<double>* z) {
  std::vector<long double> s(ncols, 0.0L);
  if (z)
    for (Index c = 0; c < ncols; ++c) s[c] = (*z)[c];
  for (std::size_t r = 0; r + 1 < P.rowptr.size(); ++r)
    for (Index e = P.rowptr[r]; e < P.rowptr[r + 1]; ++e) s[P.colidx[e]] += (long double)P.val[e] * x[r];
  return std::vector<double>(s.begin(), s.end());
}

inline std::vector<double> random_vector(std::mt19937_64& rng, Index n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& e : v) e = u(rng);
  return v;
}

/// max |a - b| / max(1, |b|) over the entries.
inline double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = a.size() == b.size() ? 0.0 : 1e300;
  for (std::size_t p = 0; p < a.size() && p < b.size(); ++p) m = std::max(m, std::abs(a[p] - b[p]) / std::max(1.0, std::abs(b[p])));
  return m;
}

}  // namespace pdiag::testing
