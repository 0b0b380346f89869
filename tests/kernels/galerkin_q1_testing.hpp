// Cases of the Q1 Galerkin tests (test_galerkin_q1, test_galerkin_q1_cuda):
// operators on the fine grids of transfer_testing.hpp's refinements, stored
// by diagonals with random values (star: 7-point and lower-dimensional
// analogues, box: 27-point), their stored entries that wrap around a grid
// line zero as in a DMDA's matrix; and C = P^T A P computed independently
// of pdiag/galerkin_q1.hpp from P's Kronecker-product CSR, entry by entry
// in long double, as a dense coarse matrix.
#pragma once

#include "pdiag/galerkin_q1.hpp"
#include "transfer_testing.hpp"

#include <cmath>

namespace pdiag::testing {

/// The grid coordinates of point p of a grid of dims n.
inline std::array<Index, 3> grid_point(const Index n[3], Index p) { return {p % n[0], (p / n[0]) % n[1], p / (n[0] * n[1])}; }

/// A random operator on the fine grid of g: every coupling of a star or
/// box stencil of width one (inside the grid) holds a value in [-1, 1]
/// (the centre 8 + that: nonsingular), the other stored entries zero.
inline HmMatrix<double> stencil_operator(const VertexGrids& g, bool box, std::mt19937_64& rng) {
  const Index* n = g.fine;
  const Index np = g.fine_points();
  std::vector<Index> offs;
  for (Index dz = -1; dz <= 1; ++dz)
    for (Index dy = -1; dy <= 1; ++dy)
      for (Index dx = -1; dx <= 1; ++dx) {
        const int moved = (dx != 0) + (dy != 0) + (dz != 0);
        if ((!box && moved > 1) || (dx && n[0] < 2) || (dy && n[1] < 2) || (dz && n[2] < 2)) continue;
        offs.push_back(dx + n[0] * (dy + n[1] * dz));
      }
  HmMatrix<double> A(Layout::square(np), offs);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Index e = 0; e < A.ndiag(); ++e)
    for (Index i = A.layout.lo(A.offsets[e]); i < A.layout.hi(A.offsets[e]); ++i) {
      const auto a = grid_point(n, i), b = grid_point(n, i + A.offsets[e]);
      bool near = true;
      for (int d = 0; d < 3; ++d) near = near && std::abs(a[d] - b[d]) <= 1;
      if (near) A.val[A.start[e] + i - A.layout.lo(A.offsets[e])] = A.offsets[e] == 0 ? 8.0 + u(rng) : u(rng);
    }
  return A;
}

/// A constant-coefficient operator on the fine grid of g (the couplings of
/// a star or box stencil -1, the centre the number of couplings + 1), its
/// boundary rows the identity's (Dirichlet): constant diagonals whose
/// exceptions are the boundary rows and the wrapping entries, which the
/// compressed form (pdiag/compress.hpp) keeps as constants with exceptions.
inline HmMatrix<double> constant_operator(const VertexGrids& g, bool box) {
  std::mt19937_64 rng(0);
  HmMatrix<double> A = stencil_operator(g, box, rng);
  const Index* n = g.fine;
  for (Index e = 0; e < A.ndiag(); ++e)
    for (Index i = A.layout.lo(A.offsets[e]); i < A.layout.hi(A.offsets[e]); ++i) {
      double& a = A.val[A.start[e] + i - A.layout.lo(A.offsets[e])];
      const auto p = grid_point(n, i);
      bool boundary = false;
      for (int d = 0; d < 3; ++d) boundary = boundary || (n[d] > 1 && (p[d] == 0 || p[d] == n[d] - 1));
      if (boundary) a = A.offsets[e] == 0 ? 1.0 : 0.0;
      else if (a != 0.0) a = A.offsets[e] == 0 ? double(A.ndiag()) : -1.0;
    }
  return A;
}

/// P^T A P, dense (row-major, coarse x coarse), from P's CSR.
inline std::vector<long double> galerkin_reference(const VertexGrids& g, const HmMatrix<double>& A) {
  const TransferCsr P = transfer_csr(g);
  const Index nc = g.coarse_points();
  std::vector<long double> C(std::size_t(nc * nc), 0.0L);
  for (Index e = 0; e < A.ndiag(); ++e)
    for (Index i = A.layout.lo(A.offsets[e]); i < A.layout.hi(A.offsets[e]); ++i) {
      const long double a = A.val[A.start[e] + i - A.layout.lo(A.offsets[e])];
      const Index k = i + A.offsets[e];
      if (a == 0) continue;
      for (Index p = P.rowptr[i]; p < P.rowptr[i + 1]; ++p)
        for (Index q = P.rowptr[k]; q < P.rowptr[k + 1]; ++q) C[P.colidx[p] * nc + P.colidx[q]] += P.val[p] * a * P.val[q];
    }
  return C;
}

/// max |C - ref| / max |ref| over all entries: C's stored ones against
/// ref's, and ref's entries C stores nowhere (which must be zero).
inline double galerkin_rel_error(const HmMatrix<double>& C, const std::vector<long double>& ref, Index nc) {
  std::vector<char> seen(ref.size(), 0);
  long double err = 0, scale = 0;
  for (long double v : ref) scale = std::max(scale, std::abs(v));
  for (Index e = 0; e < C.ndiag(); ++e)
    for (Index i = C.layout.lo(C.offsets[e]); i < C.layout.hi(C.offsets[e]); ++i) {
      const std::size_t at = std::size_t(i * nc + i + C.offsets[e]);
      err = std::max(err, std::abs(C.val[C.start[e] + i - C.layout.lo(C.offsets[e])] - ref[at]));
      seen[at] = 1;
    }
  for (std::size_t at = 0; at < ref.size(); ++at)
    if (!seen[at]) err = std::max(err, std::abs(ref[at]));
  return double(err / std::max(scale, 1e-300L));
}

/// C's structure for g (values to be computed), and its places.
inline HmMatrix<double> galerkin_structure(const VertexGrids& g, Q1Places* places) {
  return HmMatrix<double>(Layout::square(g.coarse_points()), vertex_q1_galerkin_offsets(g, places));
}

}  // namespace pdiag::testing
