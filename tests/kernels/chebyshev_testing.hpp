// A symmetric stencil operator in HM storage for the tests of
// pdiag/chebyshev.hpp's symmetric step (CPU and CUDA).
#pragma once

#include "pdiag/format.hpp"

#include <cstdlib>
#include <random>
#include <vector>

namespace pdiag::testing {

/// A symmetric 3D 7-point (or, box, 27-point) operator on nx x ny x nz
/// points with random coefficients: a(i, j) = a(j, i) = -c_ij for
/// neighbours, a(i, i) = sum + 0.5.
inline HmMatrix<double> symmetric_stencil(Index nx, Index ny, Index nz, bool box, std::mt19937_64& rng) {
  const Index n = nx * ny * nz;
  std::vector<Index> offs;
  for (Index dz = -1; dz <= 1; ++dz)
    for (Index dy = -1; dy <= 1; ++dy)
      for (Index dx = -1; dx <= 1; ++dx)
        if (box || std::abs(dx) + std::abs(dy) + std::abs(dz) <= 1) offs.push_back(dx + nx * (dy + ny * dz));
  HmMatrix<double> A(Layout::square(n), offs);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  for (Index z = 0; z < nz; ++z)
    for (Index y = 0; y < ny; ++y)
      for (Index x = 0; x < nx; ++x) {
        const Index i = x + nx * (y + ny * z);
        for (Index d : offs) {
          if (d <= 0) continue;
          const Index dz = (d + nx * ny + nx + 1) / (nx * ny) - 1;  // the (dx, dy, dz) of d
          const Index r = d - dz * nx * ny, dy = (r + nx + 1) / nx - 1, dx = r - dy * nx;
          const Index X = x + dx, Y = y + dy, Z = z + dz;
          if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz) continue;
          const double c = u(rng);
          *A.find(i, i + d) = -c, *A.find(i + d, i) = -c;
          *A.find(i, i) += c, *A.find(i + d, i + d) += c;
        }
        *A.find(i, i) += 0.5;
      }
  return A;
}


}  // namespace pdiag::testing
