// Grid transfers between two vertex-centred structured grids, the coarse one
// every other point of the fine one in each direction (fine = 2 coarse - 1
// points): the trilinear (Q1) interpolation P that a DMDA's
// DMCreateInterpolation makes for such grids, applied from its formula
// instead of from a stored sparse matrix. Along one direction, fine point f
// takes coarse point c with weight 1 if f = 2c, 1/2 if f = 2c +- 1; in two or
// three directions the weights multiply. P has one row per fine point and
// one column per coarse point, both numbered x fastest, then y, then z
// (a DMDA's natural order, which is its global order on one process).
//
// What a GPU multigrid cycle needs from P: y = P x (+ z), interpolation, and
// y = P^T x (+ z), restriction. As a CSR matrix, P at 257^3 holds 57 million
// entries (690 MB of values and column indices) that every product reads;
// from the formula a product reads only the two vectors. Whether a stored P
// is this operator is checked entry by entry (csr_is_vertex_q1), never
// assumed. CPU references of pdiag::cuda::vertex_q1_prolong / _restrict
// (kernels/src/transfer.cu); the row functions are shared with the device.
// No PETSc here.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/scalar.hpp"

#include <cmath>

namespace pdiag {

/// Points per direction of the fine and the coarse grid (1 for a direction
/// a grid of lower dimension does not have).
struct VertexGrids {
  Index fine[3] = {1, 1, 1};
  Index coarse[3] = {1, 1, 1};
  PDIAG_HD Index fine_points() const { return fine[0] * fine[1] * fine[2]; }
  PDIAG_HD Index coarse_points() const { return coarse[0] * coarse[1] * coarse[2]; }
};

/// Whether g is a 2:1 vertex-centred refinement: fine = 2 coarse - 1 >= 1 in
/// every direction.
inline bool is_vertex_refinement(const VertexGrids& g) {
  for (int d = 0; d < 3; ++d)
    if (g.coarse[d] < 1 || g.fine[d] != 2 * g.coarse[d] - 1) return false;
  return true;
}

/// Weight of coarse point c in fine point f along one direction.
PDIAG_HD double vertex_q1_weight(Index f, Index c) {
  const Index d = f - 2 * c;
  return d == 0 ? 1.0 : (d == 1 || d == -1) ? 0.5 : 0.0;
}

/// (P xc)[f] for the fine point (i, j, k): the one, two, four or eight
/// coarse points around it, weighted.
template <class T>
PDIAG_HD T vertex_q1_prolong_point(const VertexGrids& g, const T* xc, Index i, Index j, Index k) {
  const Index cx = g.coarse[0], cy = g.coarse[1];
  const Index i0 = i >> 1, j0 = j >> 1, k0 = k >> 1;  // the coarse point at or below
  const Index ni = (i & 1) + 1, nj = (j & 1) + 1, nk = (k & 1) + 1;
  const T wi = ni == 2 ? T(0.5) : T(1), wj = nj == 2 ? T(0.5) : T(1), wk = nk == 2 ? T(0.5) : T(1);
  T s = T(0);
  for (Index c = 0; c < nk; ++c)
    for (Index b = 0; b < nj; ++b) {
      const T* row = xc + ((k0 + c) * cy + (j0 + b)) * cx + i0;
      s += (ni == 2 ? row[0] + row[1] : row[0]) * (wj * wk);
    }
  return s * wi;
}

/// (P^T xf)[c] for the coarse point (i, j, k): the fine points within one of
/// 2i, 2j, 2k in every direction (inside the grid), weighted.
template <class T>
PDIAG_HD T vertex_q1_restrict_point(const VertexGrids& g, const T* xf, Index i, Index j, Index k) {
  const Index fx = g.fine[0], fy = g.fine[1], fz = g.fine[2];
  const Index x0 = 2 * i, y0 = 2 * j, z0 = 2 * k;
  T s = T(0);
  for (Index z = z0 > 0 ? z0 - 1 : z0; z <= z0 + 1 && z < fz; ++z) {
    const T wz = z == z0 ? T(1) : T(0.5);
    for (Index y = y0 > 0 ? y0 - 1 : y0; y <= y0 + 1 && y < fy; ++y) {
      const T* row = xf + (z * fy + y) * fx;
      T line = row[x0];
      if (x0 > 0) line += T(0.5) * row[x0 - 1];
      if (x0 + 1 < fx) line += T(0.5) * row[x0 + 1];
      s += line * (wz * (y == y0 ? T(1) : T(0.5)));
    }
  }
  return s;
}

/// yf = P xc (+ zf): the CPU reference. yf may alias zf.
template <class T>
void vertex_q1_prolong(const VertexGrids& g, const T* xc, T* yf, const T* zf = nullptr) {
  Index p = 0;
  for (Index k = 0; k < g.fine[2]; ++k)
    for (Index j = 0; j < g.fine[1]; ++j)
      for (Index i = 0; i < g.fine[0]; ++i, ++p) yf[p] = (zf ? zf[p] : T(0)) + vertex_q1_prolong_point(g, xc, i, j, k);
}

/// yc = P^T xf (+ zc): the CPU reference. yc may alias zc.
template <class T>
void vertex_q1_restrict(const VertexGrids& g, const T* xf, T* yc, const T* zc = nullptr) {
  Index p = 0;
  for (Index k = 0; k < g.coarse[2]; ++k)
    for (Index j = 0; j < g.coarse[1]; ++j)
      for (Index i = 0; i < g.coarse[0]; ++i, ++p) yc[p] = (zc ? zc[p] : T(0)) + vertex_q1_restrict_point(g, xf, i, j, k);
}

/// Whether the CSR matrix (rowptr, colidx, val; rows the fine points,
/// columns the coarse points, global numbering as above) is P of the
/// refinement g: every stored entry equals P's weight at its place (a stored
/// zero where P has none is allowed) to `tol`, and the stored weights of
/// each row add up to one, so that none of P's (positive) weights is
/// missing (complex values: a real weight, imaginary part zero). Columns of
/// a row must be distinct (as in any CSR matrix).
template <class I, class T>
bool csr_is_vertex_q1(const VertexGrids& g, const I* rowptr, const I* colidx, const T* val, double tol = 1e-12) {
  if (!is_vertex_refinement(g)) return false;
  const Index cx = g.coarse[0], cy = g.coarse[1], ncoarse = g.coarse_points();
  Index r = 0;
  for (Index k = 0; k < g.fine[2]; ++k)
    for (Index j = 0; j < g.fine[1]; ++j)
      for (Index i = 0; i < g.fine[0]; ++i, ++r) {
        // P's (at most eight) columns in this row, by comparison: the coarse
        // point at or below (i, j, k) and its neighbours up in each direction
        // where the fine point lies between two (no division per entry)
        const Index base = ((k >> 1) * cy + (j >> 1)) * cx + (i >> 1);
        const Index up[3] = {(i & 1) ? 1 : 0, (j & 1) ? cx : 0, (k & 1) ? cx * cy : 0};
        const double w = ((i & 1) ? 0.5 : 1.0) * ((j & 1) ? 0.5 : 1.0) * ((k & 1) ? 0.5 : 1.0);
        double total = 0;
        for (Index e = rowptr[r]; e < Index(rowptr[r + 1]); ++e) {
          const Index c = colidx[e];
          if (c < 0 || c >= ncoarse) return false;
          const Index d = c - base;
          bool of_p = false;
          for (int corner = 0; corner < 8 && !of_p; ++corner) {
            const Index dx = (corner & 1) ? up[0] : 0, dy = (corner & 2) ? up[1] : 0, dz = (corner & 4) ? up[2] : 0;
            // a corner counts once: a direction without a neighbour up gives 0 again
            if (((corner & 1) && !up[0]) || ((corner & 2) && !up[1]) || ((corner & 4) && !up[2])) continue;
            of_p = d == dx + dy + dz;
          }
          const double expect = of_p ? w : 0.0;
          if (scalar_imag(val[e]) != 0 || std::abs(double(scalar_real(val[e])) - expect) > tol) return false;
          total += expect;
        }
        if (std::abs(total - 1.0) > tol) return false;
      }
  return true;
}

}  // namespace pdiag
