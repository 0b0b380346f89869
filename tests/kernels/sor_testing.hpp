// Matrices for the level-schedule and GPU sweep tests: grid stencils (star
// or box, 2D or 3D) stored by diagonals with the couplings that leave the
// grid as stored zeros (as a DMDA matrix holds them), and random diagonal
// matrices with a nonsymmetric pattern; all diagonally dominant.
#pragma once

#include "pdiag/format.hpp"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace pdiag::testing {

struct GridCase {
  std::string name;
  Index nx, ny, nz;
  bool box;           // 9 / 27 points, else 5 / 7
  Index levels;       // the hyperplanes: the expected number of levels
};

inline std::vector<GridCase> grid_cases() {
  return {
      {"5-point 12x9", 12, 9, 1, false, 12 + 9 - 1},
      {"7-point 6x5x4", 6, 5, 4, false, 6 + 5 + 4 - 2},
      {"9-point 10x7", 10, 7, 1, true, (10 - 1) + 2 * (7 - 1) + 1},     // x + 2y
      {"27-point 5x4x4", 5, 4, 4, true, (5 - 1) + 2 * (4 - 1) + 4 * (4 - 1) + 1},  // x + 2y + 4z
  };
}

/// The grid matrix: a(i, j) random in [-1, -0.1] for each stencil neighbour
/// j of i inside the grid, 0 on the stored positions that leave it, the
/// main diagonal 1 + the row's absolute sum.
inline HmMatrix<double> grid_matrix(const GridCase& g, std::mt19937_64& rng) {
  const Index n = g.nx * g.ny * g.nz;
  const bool three = g.nz > 1;
  std::vector<Index> offs;
  for (Index dz = three ? -1 : 0; dz <= (three ? 1 : 0); ++dz)
    for (Index dy = -1; dy <= 1; ++dy)
      for (Index dx = -1; dx <= 1; ++dx)
        if (g.box || (std::abs(dx) + std::abs(dy) + std::abs(dz) <= 1)) offs.push_back(dx + g.nx * (dy + g.ny * dz));
  HmMatrix<double> A(Layout::square(n), offs);
  std::uniform_real_distribution<double> val(-1.0, -0.1);
  for (Index z = 0; z < g.nz; ++z)
    for (Index y = 0; y < g.ny; ++y)
      for (Index x = 0; x < g.nx; ++x) {
        const Index i = x + g.nx * (y + g.ny * z);
        double s = 0;
        for (Index dz = three ? -1 : 0; dz <= (three ? 1 : 0); ++dz)
          for (Index dy = -1; dy <= 1; ++dy)
            for (Index dx = -1; dx <= 1; ++dx) {
              if ((dx | dy | dz) == 0 || !(g.box || std::abs(dx) + std::abs(dy) + std::abs(dz) <= 1)) continue;
              if (x + dx < 0 || x + dx >= g.nx || y + dy < 0 || y + dy >= g.ny || z + dz < 0 || z + dz >= g.nz) continue;
              const double v = val(rng);
              *A.find(i, i + dx + g.nx * (dy + g.ny * dz)) = v;
              s += std::abs(v);
            }
        *A.find(i, i) = 1.0 + s;
      }
  return A;
}

/// A random n x n matrix on `offsets` (0 added), each off-diagonal stored
/// entry nonzero with probability density: a nonsymmetric pattern.
inline HmMatrix<double> random_diag_matrix(Index n, std::vector<Index> offsets, double density, std::mt19937_64& rng) {
  offsets.push_back(0);
  HmMatrix<double> A(Layout::square(n), offsets);
  std::uniform_real_distribution<double> val(-1.0, 1.0), coin(0.0, 1.0);
  std::vector<double> rowsum(static_cast<std::size_t>(n), 0.0);
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    if (d == 0) continue;
    for (Index i = A.layout.lo(d); i < A.layout.hi(d); ++i) {
      if (coin(rng) > density) continue;
      const double v = val(rng);
      *A.find(i, i + d) = v;
      rowsum[i] += std::abs(v);
    }
  }
  for (Index i = 0; i < n; ++i) *A.find(i, i) = 0.5 + rowsum[i];
  return A;
}

}  // namespace pdiag::testing
