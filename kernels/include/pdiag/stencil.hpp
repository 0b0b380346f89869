// Diagonal offsets of structured-grid stencil matrices, in the numbering a
// distributed grid uses (PETSc's DMDA "PETSc ordering"): processes form an
// m x n x p array, rank r = px + m (py + n pz) owns a box of grid points,
// and numbers its points consecutively (component fastest, then x, y, z)
// after all points of lower ranks. No PETSc here: sizes come as arrays.
#pragma once

#include "pdiag/format.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace pdiag {

struct GridStencil {
  int   dim = 1;     // 1, 2 or 3
  Index dof = 1;     // components per point; every component couples with every other
  Index width = 1;   // stencil width s
  bool  box = false; // box (all |o_a| <= s) or star (one axis at a time)
  std::array<bool, 3> periodic{false, false, false};
  std::array<std::vector<Index>, 3> owned;  // points owned by each process along each axis
  // Optional dof x dof couplings (row-major, nonzero = coupled) within a
  // point (dfill) and between neighbouring points (ofill); empty: all couple.
  std::vector<char> dfill, ofill;
};

namespace detail {
struct GridNumbering {
  const GridStencil& g;
  std::array<Index, 3> extent{1, 1, 1};
  std::array<std::vector<Index>, 3> first;  // first point of each process along each axis
  std::vector<Index> rank_start;            // first global index of each rank

  explicit GridNumbering(const GridStencil& gs) : g(gs) {
    for (int a = 0; a < 3; ++a) {
      const std::vector<Index> own = a < g.dim ? g.owned[a] : std::vector<Index>{1};
      if (own.empty()) throw FormatError("grid axis with no process");
      first[a].assign(own.size() + 1, 0);
      for (std::size_t p = 0; p < own.size(); ++p) first[a][p + 1] = first[a][p] + own[p];
      extent[a] = first[a].back();
    }
    const Index np = Index(first[0].size() - 1), nq = Index(first[1].size() - 1), nr = Index(first[2].size() - 1);
    rank_start.assign(std::size_t(np * nq * nr + 1), 0);
    for (Index r = 0; r < np * nq * nr; ++r) {
      const Index px = r % np, py = (r / np) % nq, pz = r / (np * nq);
      rank_start[r + 1] = rank_start[r] + g.dof * size(0, px) * size(1, py) * size(2, pz);
    }
  }
  Index size(int a, Index p) const { return first[a][p + 1] - first[a][p]; }
  Index owner(int a, Index x) const {
    return Index(std::upper_bound(first[a].begin(), first[a].end(), x) - first[a].begin()) - 1;
  }
  Index nprocs(int a) const { return Index(first[a].size() - 1); }
  /// Global index of component c of point (x, y, z).
  Index global(Index x, Index y, Index z, Index c) const {
    const Index px = owner(0, x), py = owner(1, y), pz = owner(2, z);
    const Index r = px + nprocs(0) * (py + nprocs(1) * pz);
    const Index lx = x - first[0][px], ly = y - first[1][py], lz = z - first[2][pz];
    return rank_start[r] + c + g.dof * (lx + size(0, px) * (ly + size(1, py) * lz));
  }
  /// The neighbour coordinate along axis a, or -1 outside a non-periodic grid.
  Index neighbour(int a, Index x, Index o) const {
    Index y = x + o;
    if (y >= 0 && y < extent[a]) return y;
    if (!g.periodic[a] || a >= g.dim) return -1;
    y %= extent[a];
    return y < 0 ? y + extent[a] : y;
  }
};
}  // namespace detail

namespace detail {
/// Calls visit(x, y, z) (coordinates inside a box of n points, from 0, x
/// fastest) for each point within s of one of the box's faces along the
/// first dim axes; the interior of each grid line is skipped at once, so
/// the cost is the box's surface.
template <class Visit>
void for_each_near_face(const std::array<Index, 3>& n, int dim, Index s, Visit&& visit) {
  auto near_face = [&](int a, Index x) { return a < dim && (x < s || n[a] - 1 - x < s); };
  for (Index z = 0; z < n[2]; ++z) {
    const bool fz = near_face(2, z);
    for (Index y = 0; y < n[1]; ++y) {
      const bool fy = fz || near_face(1, y);
      for (Index x = 0; x < n[0]; ++x) {
        if (fy || near_face(0, x)) visit(x, y, z);
        else x = std::max(x, n[0] - s - 1);  // on to the far x face
      }
    }
  }
}
}  // namespace detail

/// The stencil's displacement vectors (o_x, o_y, o_z), centre included.
inline std::vector<std::array<Index, 3>> stencil_points(const GridStencil& g) {
  std::vector<std::array<Index, 3>> pts;
  const Index s = g.width;
  const Index sy = g.dim >= 2 ? s : 0, sz = g.dim >= 3 ? s : 0;
  for (Index oz = -sz; oz <= sz; ++oz)
    for (Index oy = -sy; oy <= sy; ++oy)
      for (Index ox = -s; ox <= s; ++ox) {
        const int nonzero = (ox != 0) + (oy != 0) + (oz != 0);
        if (g.box || nonzero <= 1) pts.push_back({ox, oy, oz});
      }
  return pts;
}

/// Sorted distinct offsets j - i of the stencil matrix rows owned by the
/// process at (px, py, pz). Points at least `width` away from every face of
/// the box share the interior offsets; only the faces are enumerated, so
/// the cost is the box's surface, not its volume.
inline std::vector<Index> grid_stencil_offsets(const GridStencil& g, Index px, Index py, Index pz) {
  if (g.dim < 1 || g.dim > 3 || g.dof < 1 || g.width < 0) throw FormatError("bad grid stencil description");
  const detail::GridNumbering num(g);
  const std::array<Index, 3> p{px, py, pz};
  std::array<Index, 3> lo{}, n{};
  for (int a = 0; a < 3; ++a) {
    if (p[a] < 0 || p[a] >= num.nprocs(a)) throw FormatError("process coordinate outside the process grid");
    lo[a] = num.first[a][p[a]];
    n[a] = num.size(a, p[a]);
  }
  std::vector<Index> offs;
  if (n[0] * n[1] * n[2] == 0) return offs;
  const auto pts = stencil_points(g);
  // Interior points: a displacement that stays inside the box for some point.
  for (const auto& o : pts) {
    bool fits = true;
    for (int a = 0; a < 3; ++a) fits = fits && (o[a] < 0 ? -o[a] : o[a]) < n[a];
    if (!fits) continue;
    for (Index c1 = 0; c1 < g.dof; ++c1)
      for (Index c2 = 0; c2 < g.dof; ++c2) offs.push_back(c2 - c1 + g.dof * (o[0] + n[0] * (o[1] + n[1] * o[2])));
  }
  // Points within `width` of a face: their neighbours may lie in other boxes or wrap.
  detail::for_each_near_face(n, g.dim, g.width, [&](Index bx, Index by, Index bz) {
    const Index x = lo[0] + bx, y = lo[1] + by, z = lo[2] + bz;
    const std::array<Index, 3> q{x, y, z};
    for (const auto& o : pts) {
      std::array<Index, 3> r{};
      bool inside = true;
      for (int a = 0; a < 3 && inside; ++a) {
        r[a] = num.neighbour(a, q[a], o[a]);
        inside = r[a] >= 0;
      }
      if (!inside) continue;
      for (Index c1 = 0; c1 < g.dof; ++c1) {
        const Index row = num.global(x, y, z, c1);
        for (Index c2 = 0; c2 < g.dof; ++c2) offs.push_back(num.global(r[0], r[1], r[2], c2) - row);
      }
    }
    if (offs.size() > (1u << 20)) {  // keep the list short while walking faces
      std::sort(offs.begin(), offs.end());
      offs.erase(std::unique(offs.begin(), offs.end()), offs.end());
    }
  });
  std::sort(offs.begin(), offs.end());
  offs.erase(std::unique(offs.begin(), offs.end()), offs.end());
  return offs;
}

/// The couplings of a grid stencil matrix: entry (row, col) is one when the
/// grid point of col lies within the stencil of the point of row (across
/// periodic boundaries too) and their components couple. A stored diagonal
/// of such a matrix also crosses entries that couple no points: the
/// neighbour "+1" of the last point of a grid line is the first point of
/// the next line. Those entries are stored zeros, not part of the stencil;
/// this pattern tells them apart (a matrix in aij storage would not hold
/// them, and preconditioners built on the graph of the matrix must not see
/// them).
class GridStencilPattern {
 public:
  explicit GridStencilPattern(const GridStencil& g) : g_(g), num_(g_) {
    if (g_.dim < 1 || g_.dim > 3 || g_.dof < 1 || g_.width < 0) throw FormatError("bad grid stencil description");
    const std::size_t w2 = static_cast<std::size_t>(g_.dof * g_.dof);
    if ((!g_.dfill.empty() && g_.dfill.size() != w2) || (!g_.ofill.empty() && g_.ofill.size() != w2))
      throw FormatError("grid stencil fill patterns must be dof x dof");
    pts_ = stencil_points(g_);
  }
  GridStencilPattern(const GridStencilPattern&) = delete;  // num_ refers to g_
  GridStencilPattern& operator=(const GridStencilPattern&) = delete;

  /// Number of rows of the matrix (all grid points, all components).
  Index size() const { return num_.rank_start.back(); }

  /// The stencil this pattern is of.
  const GridStencil& stencil() const { return g_; }
  /// Whether (row, col), global indices in the grid's numbering, couple.
  bool contains(Index row, Index col) const {
    const Point r = point_of(row), c = point_of(col);
    bool same = true, reach[3], still[3];
    for (int a = 0; a < 3; ++a) {
      still[a] = r.x[a] == c.x[a];
      reach[a] = still[a] || reaches(a, r.x[a], c.x[a]);
      same = same && still[a];
    }
    if (!(reach[0] && reach[1] && reach[2])) return false;
    if (!g_.box && !same) {
      // star: the points differ along one axis only
      const int moved = !still[0] + !still[1] + !still[2];
      if (moved > 1) return false;
    }
    const std::vector<char>& fill = same ? g_.dfill : g_.ofill;
    return fill.empty() || fill[static_cast<std::size_t>(r.c * g_.dof + c.c)] != 0;
  }

  /// The columns row couples to (contains' set for the row), sorted: for a
  /// caller with many questions about one row.
  std::vector<Index> couplings(Index row) const {
    std::vector<Index> cols;
    couplings_into(row, cols);
    return cols;
  }
  /// The same into cols (replaced), for a caller asking row after row.
  void couplings_into(Index row, std::vector<Index>& cols) const {
    const Point r = point_of(row);
    cols.clear();
    for (const auto& o : pts_) {
      std::array<Index, 3> q{};
      bool inside = true, same = true;
      for (int a = 0; a < 3 && inside; ++a) {
        q[a] = a < g_.dim ? num_.neighbour(a, r.x[a], o[a]) : r.x[a];
        inside = q[a] >= 0;
        same = same && q[a] == r.x[a];
      }
      if (!inside) continue;
      const std::vector<char>& fill = same ? g_.dfill : g_.ofill;
      for (Index c = 0; c < g_.dof; ++c)
        if (fill.empty() || fill[static_cast<std::size_t>(r.c * g_.dof + c)] != 0) cols.push_back(num_.global(q[0], q[1], q[2], c));
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  }

  /// The rows of rank's box (global, ascending) whose points lie within
  /// the stencil width of one of the box's faces: only they can couple to
  /// other boxes' points or across a periodic boundary. For the split of a
  /// process's couplings, whose cost is then the box's surface.
  std::vector<Index> face_rows(Index rank) const {
    const Box b = box(rank);
    std::vector<Index> rows;
    detail::for_each_near_face(b.n, g_.dim, g_.width, [&](Index x, Index y, Index z) {
      const Index first = b.start + g_.dof * (x + b.n[0] * (y + b.n[1] * z));
      for (Index c = 0; c < g_.dof; ++c) rows.push_back(first + c);
    });
    return rows;
  }

  /// The offsets col - row of the other rows of rank's box (those not in
  /// face_rows), whose columns all lie in the box: one interior point's
  /// couplings, which every interior point shares. Empty when the box has
  /// no interior point.
  std::vector<Index> interior_offsets(Index rank) const {
    const Box b = box(rank);
    for (int a = 0; a < g_.dim; ++a)
      if (b.n[a] <= 2 * g_.width) return {};
    const Index first = b.start + g_.dof * (g_.width + b.n[0] * ((g_.dim > 1 ? g_.width : 0) + b.n[1] * (g_.dim > 2 ? g_.width : 0)));
    std::vector<Index> offs;
    for (Index c = 0; c < g_.dof; ++c)
      for (const Index j : couplings(first + c)) offs.push_back(j - (first + c));
    std::sort(offs.begin(), offs.end());
    offs.erase(std::unique(offs.begin(), offs.end()), offs.end());
    return offs;
  }

 private:
  struct Box {
    Index start;              // first global row
    std::array<Index, 3> n;   // points along each axis
  };
  Box box(Index rank) const {
    const Index np = num_.nprocs(0), nq = num_.nprocs(1);
    if (rank < 0 || rank >= np * nq * num_.nprocs(2)) throw FormatError("rank outside the process grid");
    const std::array<Index, 3> p{rank % np, (rank / np) % nq, rank / (np * nq)};
    Box b{num_.rank_start[static_cast<std::size_t>(rank)], {}};
    for (int a = 0; a < 3; ++a) b.n[a] = num_.size(a, p[a]);
    return b;
  }
  struct Point {
    std::array<Index, 3> x;
    Index c;
  };
  Point point_of(Index global) const {
    if (global < 0 || global >= size()) throw FormatError("index " + std::to_string(global) + " outside the grid");
    const auto it = std::upper_bound(num_.rank_start.begin(), num_.rank_start.end(), global) - 1;
    const Index rank = Index(it - num_.rank_start.begin());
    const Index np = num_.nprocs(0), nq = num_.nprocs(1);
    const std::array<Index, 3> p{rank % np, (rank / np) % nq, rank / (np * nq)};
    const Index local = global - *it, point = local / g_.dof;
    const Index sx = num_.size(0, p[0]), sy = num_.size(1, p[1]);
    const std::array<Index, 3> l{point % sx, (point / sx) % sy, point / (sx * sy)};
    Point out{};
    for (int a = 0; a < 3; ++a) out.x[a] = num_.first[a][p[a]] + l[a];
    out.c = local % g_.dof;
    return out;
  }
  /// Whether y is a stencil neighbour of x along axis a (|o| <= width).
  bool reaches(int a, Index x, Index y) const {
    if (a >= g_.dim) return false;
    for (Index o = -g_.width; o <= g_.width; ++o)
      if (o != 0 && num_.neighbour(a, x, o) == y) return true;
    return false;
  }
  GridStencil g_;
  detail::GridNumbering num_;
  std::vector<std::array<Index, 3>> pts_;  // stencil_points(g_)
};

}  // namespace pdiag
