// The Galerkin coarse operator C = P^T A P of a 2:1 vertex-centred
// refinement, P the Q1 interpolation of pdiag/transfer.hpp, computed from
// A's diagonals and P's formula: no stored P, no sparse matrix product.
//
// A couples the fine points (numbered x fastest, then y, then z); when each
// of its nonzeros couples points at most one apart in every direction (a
// 7- or 27-point stencil, or any part of one), C couples coarse points at
// most one apart: its rows are the box stencil of width one on the coarse
// grid, 27 places (dx, dy, dz) in {-1, 0, 1}^3, numbered
// (dx + 1) + 3 (dy + 1) + 9 (dz + 1). Row I of C is
//
//   C(I, J) = sum_i sum_k P(i, I) A(i, k) P(k, J)
//
// over the (at most 27) fine points i around 2I and the stored entries of
// their rows; each k's coordinates come from its index, so a stored entry
// that wraps around a grid line (a diagonal's "+1" from the end of a line)
// is placed where it really couples. A nonzero that couples farther makes
// the row report failure: C is then not this structure (the caller takes
// a general product). CPU reference of pdiag::cuda::vertex_q1_galerkin
// (kernels/src/galerkin_q1.cu); the row function is shared with the
// device. No PETSc here.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"
#include "pdiag/stencil.hpp"
#include "pdiag/transfer.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace pdiag {

constexpr int kQ1Places = 27;

/// Which of C's diagonals holds each place; -1 for a displacement along a
/// direction the coarse grid has one point in. Two places may share a
/// diagonal (a grid of two points a side: +1 in x and -1 in x, +1 in y
/// have the same offset); in any one row at most one of them couples
/// points inside the grid.
struct Q1Places {
  int diag[kQ1Places];
};

/// The offsets of C's diagonals (ascending, distinct) and the places they
/// hold.
inline std::vector<Index> vertex_q1_galerkin_offsets(const VertexGrids& g, Q1Places* places) {
  const Index cx = g.coarse[0], cy = g.coarse[1];
  std::vector<std::pair<Index, int>> placed;  // (offset, place)
  for (int p = 0; p < kQ1Places; ++p) {
    const Index d[3] = {p % 3 - 1, (p / 3) % 3 - 1, p / 9 - 1};
    bool fits = true;
    for (int a = 0; a < 3; ++a) fits = fits && (d[a] == 0 || g.coarse[a] > 1);
    places->diag[p] = -1;
    if (fits) placed.emplace_back(d[0] + cx * (d[1] + cy * d[2]), p);
  }
  std::sort(placed.begin(), placed.end());
  std::vector<Index> offsets;
  for (const auto& [offset, p] : placed) {
    if (offsets.empty() || offsets.back() != offset) offsets.push_back(offset);
    places->diag[p] = int(offsets.size()) - 1;
  }
  return offsets;
}

/// A's stored entries as the row function reads them: from HM values ...
template <class T>
struct HmEntries {
  HmView<const T> A;
  PDIAG_HD Index ndiag() const { return A.ndiag; }
  PDIAG_HD Index offset(Index e) const { return A.offsets[e]; }
  PDIAG_HD const Layout& layout() const { return A.layout; }
  /// a(i, i + offset(e)), for a row i the diagonal reaches.
  PDIAG_HD T operator()(Index e, Index i) const { return A.val[A.pos(e, i)]; }
};

/// ... or from the compressed form (constant diagonals with exceptions,
/// pdiag/compress.hpp) as it is, without expanding it: a constant-
/// coefficient operator's device copy holds only that form.
template <class T>
struct HmCompressedEntries {
  HmCompressedView<T> A;
  PDIAG_HD Index ndiag() const { return A.ndiag; }
  PDIAG_HD Index offset(Index e) const { return A.offsets[e]; }
  PDIAG_HD const Layout& layout() const { return A.layout; }
  PDIAG_HD T operator()(Index e, Index i) const {
    if (A.vbase[e] >= 0) return A.packed[A.vbase[e] + i - A.layout.lo(A.offsets[e])];
    // a constant diagonal: row i's exception on it, if any (rows ascending)
    const Index il = i - A.layout.row_begin;
    Index lo = 0, hi = A.nrows_exc;
    while (lo < hi) {
      const Index mid = lo + (hi - lo) / 2;
      if (A.exc_rows[mid] < il) lo = mid + 1;
      else hi = mid;
    }
    if (lo < A.nrows_exc && A.exc_rows[lo] == il)
      for (Index x = A.exc_ptr[lo]; x < A.exc_ptr[lo + 1]; ++x)
        if (A.exc_diag[x] == e) return A.cval[e] + A.exc_delta[x];
    return A.cval[e];
  }
};

/// Row I = (I0, I1, I2) of C into c[27] (by place). False when a nonzero
/// of A in the rows it reads couples fine points more than one apart in
/// some direction. IdxT: the type k's coordinates are computed in (32 bits
/// on the device where the grid allows).
template <class IdxT, class Entries, class T>
PDIAG_HD bool vertex_q1_galerkin_row(const VertexGrids& g, const Entries& A, const Index I[3], T c[kQ1Places]) {
  for (int p = 0; p < kQ1Places; ++p) c[p] = T(0);
  const Index fx = g.fine[0], fy = g.fine[1], n = g.fine_points();
  Index lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = 2 * I[a] > 0 ? 2 * I[a] - 1 : 0;
    hi[a] = 2 * I[a] + 1 < g.fine[a] ? 2 * I[a] + 1 : g.fine[a] - 1;
  }
  bool ok = true;
  for (Index z = lo[2]; z <= hi[2]; ++z)
    for (Index y = lo[1]; y <= hi[1]; ++y)
      for (Index x = lo[0]; x <= hi[0]; ++x) {
        const T w = (x == 2 * I[0] ? T(1) : T(0.5)) * (y == 2 * I[1] ? T(1) : T(0.5)) * (z == 2 * I[2] ? T(1) : T(0.5));
        const Index i = (z * fy + y) * fx + x;
        for (Index e = 0; e < A.ndiag(); ++e) {
          const Index k = i + A.offset(e);
          if (k < 0 || k >= n) continue;  // the diagonal misses row i
          const T a = A(e, i);
          if (a == T(0)) continue;
          const IdxT q = IdxT(k), line = q / IdxT(fx);
          const Index kc[3] = {Index(q - line * IdxT(fx)), Index(line % IdxT(fy)), Index(line / IdxT(fy))};
          // along each direction: the coarse point at or below k (relative
          // to I) and whether k lies between two (weights 1/2 each)
          Index j0[3], nj[3];
          T wk = w * a;
          for (int d = 0; d < 3; ++d) {
            j0[d] = (kc[d] >> 1) - I[d];
            nj[d] = (kc[d] & 1) + 1;
            if (nj[d] == 2) wk *= T(0.5);
            if (j0[d] < -1 || j0[d] + nj[d] - 1 > 1) ok = false;
          }
          if (!ok) continue;
          for (Index cz = 0; cz < nj[2]; ++cz)
            for (Index cy = 0; cy < nj[1]; ++cy)
              for (Index cx = 0; cx < nj[0]; ++cx) c[(j0[0] + cx + 1) + 3 * (j0[1] + cy + 1) + 9 * (j0[2] + cz + 1)] += wk;
        }
      }
  return ok;
}

/// Writes row I of C (every stored entry of the row) from c: each place
/// that couples I with a coarse point inside the grid into its diagonal,
/// zero where no such place falls.
template <class T>
PDIAG_HD void vertex_q1_galerkin_store(const VertexGrids& g, const Q1Places& places, const HmView<T>& C, const Index I[3], Index row, const T c[kQ1Places]) {
  T out[kQ1Places];
  for (Index e = 0; e < C.ndiag; ++e) out[e] = T(0);
  for (int p = 0; p < kQ1Places; ++p) {
    const Index d[3] = {p % 3 - 1, (p / 3) % 3 - 1, p / 9 - 1};
    bool inside = places.diag[p] >= 0;
    for (int a = 0; a < 3; ++a) inside = inside && I[a] + d[a] >= 0 && I[a] + d[a] < g.coarse[a];
    if (inside) out[places.diag[p]] = c[p];
  }
  for (Index e = 0; e < C.ndiag; ++e)
    if (row >= C.layout.lo(C.offsets[e]) && row < C.layout.hi(C.offsets[e])) C.val[C.pos(e, row)] = out[e];
}

/// Whether points i and j of a grid of n[0] x n[1] x n[2] points (numbered
/// x fastest) lie at most one apart in every direction.
inline bool grid_points_within_one(const Index n[3], Index i, Index j) {
  const Index pi[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
  const Index pj[3] = {j % n[0], (j / n[0]) % n[1], j / (n[0] * n[1])};
  for (int a = 0; a < 3; ++a)
    if (pi[a] - pj[a] > 1 || pj[a] - pi[a] > 1) return false;
  return true;
}

/// Whether every entry of a CSR pattern (rows numbered from 0) joins grid
/// points at most one apart.
inline bool csr_within_one(const Index n[3], Index nrows, const Index* rowptr, const Index* colidx) {
  for (Index i = 0; i < nrows; ++i)
    for (Index e = rowptr[i]; e < rowptr[i + 1]; ++e)
      if (!grid_points_within_one(n, i, colidx[e])) return false;
  return true;
}

/// Whether every (row, column) pair of a list joins grid points at most
/// one apart.
inline bool pairs_within_one(const Index n[3], const std::vector<std::pair<Index, Index>>& pairs) {
  for (const auto& [i, j] : pairs)
    if (!grid_points_within_one(n, i, j)) return false;
  return true;
}

/// Whether every coupling of the grid stencil s joins points of the grid
/// of n points a side at most one apart in every direction: one
/// component, width at most one, no periodic direction, the same grid.
inline bool stencil_within_one(const GridStencil& s, const Index n[3]) {
  if (s.dof != 1 || s.width > 1 || s.dim < 1 || s.dim > 3) return false;
  for (int a = 0; a < 3; ++a) {
    Index extent = 1;
    if (a < s.dim) {
      extent = 0;
      for (Index owned : s.owned[a]) extent += owned;
      if (s.periodic[a]) return false;
    }
    if (extent != n[a]) return false;
  }
  return true;
}

/// Whether A (its layout) and C fit g: A square with the fine grid's
/// points, C with the coarse grid's and at most 27 diagonals, both whole.
inline bool vertex_q1_galerkin_fits(const VertexGrids& g, const Layout& A, const Layout& C, Index c_ndiag) {
  return is_vertex_refinement(g) && A.nrows_global == g.fine_points() && A.ncols == g.fine_points() && A.is_full() &&
         C.nrows_global == g.coarse_points() && C.ncols == g.coarse_points() && C.is_full() && c_ndiag <= kQ1Places;
}

/// C = P^T A P, A's entries read through `entries` (HmEntries,
/// HmCompressedEntries), C with the diagonals of vertex_q1_galerkin_offsets
/// (places from it). Every stored entry of C is written. False when a
/// nonzero of A couples fine points more than one apart in some direction
/// (C's values then mean nothing) or the sizes do not fit.
template <class Entries, class T>
bool vertex_q1_galerkin_entries(const VertexGrids& g, const Entries& entries, const Q1Places& places, const HmView<T>& C) {
  if (!vertex_q1_galerkin_fits(g, entries.layout(), C.layout, C.ndiag)) return false;
  bool ok = true;
  T    c[kQ1Places];
  Index row = 0;
  for (Index k = 0; k < g.coarse[2]; ++k)
    for (Index j = 0; j < g.coarse[1]; ++j)
      for (Index i = 0; i < g.coarse[0]; ++i, ++row) {
        const Index I[3] = {i, j, k};
        ok = vertex_q1_galerkin_row<Index>(g, entries, I, c) && ok;
        vertex_q1_galerkin_store(g, places, C, I, row, c);
      }
  return ok;
}

/// C = P^T A P for an HM block A (see vertex_q1_galerkin_entries): the CPU
/// reference of pdiag::cuda::vertex_q1_galerkin.
template <class T>
bool vertex_q1_galerkin(const VertexGrids& g, const HmView<const nodeduce_t<T>>& A, const Q1Places& places, const HmView<T>& C) {
  return vertex_q1_galerkin_entries(g, HmEntries<T>{A}, places, C);
}

/// The same for A in compressed form (constant diagonals with exceptions).
template <class T>
bool vertex_q1_galerkin(const VertexGrids& g, const HmCompressedView<nodeduce_t<T>>& A, const Q1Places& places, const HmView<T>& C) {
  return vertex_q1_galerkin_entries(g, HmCompressedEntries<T>{A}, places, C);
}

}  // namespace pdiag
