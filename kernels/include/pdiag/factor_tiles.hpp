// Tiled triangular solves with the ILU(0) / ICC(0) factors of
// pdiag/factor.hpp: the schedule the CUDA kernel of
// kernels/src/factor_solve.cu runs (one thread block per tile, the tiles in
// a dependency order), built on the host once per factor, and a CPU runner
// of the same algorithm that the tests compare with the sequential solves.
//
// Why tiles: the level-scheduled passes (pdiag/factor_levels.hpp) need one
// device-wide synchronization per level, and a 3D stencil on N^3 points has
// 3N - 2 levels (769 at 257^3); at a few microseconds each that, not memory
// traffic, bounds the solve. Here the rows are seen as points of a grid
// (row = x + nx (y + ny z), the DMDA ordering) cut into boxes of at most
// kTileMaxRows = 32 rows. A warp solves one box alone, its rows in rounds
// (a row goes once every row of the box it reads is done: a ballot; their
// values come by shuffles), after waiting for the boxes its rows read
// outside it (a flag each in global memory). The device-wide steps become
// the wavefronts of boxes (N + N + N / 2 for 4 x 4 x 2 boxes), and each
// costs one flag's latency, not a kernel launch. (Boxes of 512 rows solved
// by a block with barrier-separated rounds were slower: measured on an H200,
// 7.1 ms a MatSolve at 257^3 against cuSPARSE's 5.5 ms, the blocks stalled
// at their barriers.)
//
// Which stencils: those whose rows read only rows of the same or lower
// boxes along each axis (5/7-point, and any with only axis-aligned
// couplings). A 9/27-point stencil's row (x, y) reads (x + 1, y - 1), so two
// boxes of more than one line read each other: a cycle. For those the boxes
// are cut in skewed coordinates (u, v, w) = (x + y + 2z, y + z, z)
// (tile_space_point): every offset a lower-triangle row of a 9/27-point
// stencil reads, (dx, dy, dz) with dz < 0, or dz = 0 and dy < 0, or dz = dy
// = 0 and dx < 0, has du = dx + dy + 2dz <= 0, dv = dy + dz <= 0 and dw =
// dz <= 0, so a box reads only boxes at or below it along every axis of
// (u, v, w): no cycle (the upper triangle: all >= 0). The skewed boxes are
// a parallelepiped's, partly empty at its faces, and u spans nx + ny + 2nz:
// for n^3 points in 4 x 4 x 2 boxes about 2n wavefronts, where straight
// boxes take about n for a 7-point stencil (and a 27-point stencil's level
// schedule about 7n levels), so they are the fallback
// (hm_factor_tile_schedule's `skewed`; the plugin tries straight boxes first).
//
// Correctness does not depend on the grid being right: the schedule lists,
// for every tile, every other tile that one of its rows reads (from the
// factor's nonzero entries, as the level schedules do), and orders the tiles
// so that each comes after all of those (Kahn's algorithm on the tile
// graph). If the tile graph has a cycle (a grid guess that does not fit the
// matrix can make one) or a row has more than kTileMaxTerms terms, there is
// no tiled schedule and the caller keeps the level-scheduled passes.
//
// Deadlock freedom on the device: a block takes the next tile in that order
// from a global counter (not by its block index), and a tile waits only for
// tiles earlier in the order, which blocks that are already running hold.
//
// Each row adds its terms in the order of factor_pass_terms, the order of
// the sequential solve, so the result is the sequential solve's up to
// rounding of fused multiply-adds, as for the level-scheduled passes.
#pragma once

#include "pdiag/factor_levels.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace pdiag {

/// Rows seen as the points of an nx x ny x nz grid, row = x + nx (y + ny z)
/// (nx ny nz >= the number of rows; the last plane may be partial).
struct GridShape {
  Index nx = 1, ny = 1, nz = 1;
};

/// The most rows of a tile (a warp's lanes: its rounds synchronize by warp
/// votes) and terms of a row in one pass (the kernel keeps them in
/// registers: a 27-point stencil has 13).
constexpr Index kTileMaxRows = 32;
constexpr int kTileMaxTerms = 16;
/// The most diagonals of a factor with tiles (the kernel stages their
/// offsets, bases and grid steps in shared memory).
constexpr Index kTileMaxDiagonals = 64;

/// The grid that n rows with these diagonal offsets look like: the nonzero
/// offsets' magnitudes, ascending, fall into clusters (a new one where a
/// magnitude exceeds twice the previous plus 2): for a stencil on a DMDA
/// grid {1..s}, {nx - s .. nx + s}, {nx ny - ...}; the median of the second
/// cluster is nx, of the third nx ny. A single cluster: one line (nx = n).
/// Only a guess: any answer gives a correct tiled schedule or none.
inline GridShape infer_grid_shape(const Index* off, Index nd, Index n) {
  std::vector<Index> mag;
  for (Index k = 0; k < nd; ++k)
    if (off[k] != 0) mag.push_back(off[k] < 0 ? -off[k] : off[k]);
  std::sort(mag.begin(), mag.end());
  mag.erase(std::unique(mag.begin(), mag.end()), mag.end());
  std::vector<Index> median;
  for (std::size_t b = 0; b < mag.size();) {
    std::size_t e = b + 1;
    while (e < mag.size() && mag[e] <= 2 * mag[e - 1] + 2) ++e;
    median.push_back(mag[b + (e - b - 1) / 2]);
    b = e;
  }
  GridShape g;
  g.nx = std::max<Index>(n, 1);
  if (median.size() >= 2 && median[1] > 1 && median[1] < n) {
    g.nx = median[1];
    g.ny = (n + g.nx - 1) / g.nx;
    if (median.size() >= 3 && median[2] % g.nx == 0 && median[2] / g.nx > 1 && median[2] < n) {
      g.ny = median[2] / g.nx;
      g.nz = (n + g.nx * g.ny - 1) / (g.nx * g.ny);
    }
  }
  return g;
}

/// A point of the grid and an offset as a step on it: d = sx + nx (sy +
/// ny sz), each part rounded to the nearest, so that moving a point by it
/// takes at most a carry or two per axis (grid_move) and no division: the
/// kernel finds the grid point of every row a row reads this way. 32-bit
/// (registers in the kernel): tiles need every side of the grid below
/// kTileMaxSide.
struct GridPoint {
  int x = 0, y = 0, z = 0;
};
struct GridStep {
  int sx = 0, sy = 0, sz = 0;
};
constexpr Index kTileMaxSide = Index(1) << 30;

PDIAG_HD Index div_nearest(Index a, Index b) { return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b); }

PDIAG_HD GridStep grid_step(Index d, const GridShape& g) {
  const Index sz = div_nearest(d, g.nx * g.ny), rem = d - sz * g.nx * g.ny, sy = div_nearest(rem, g.nx);
  return {static_cast<int>(rem - sy * g.nx), static_cast<int>(sy), static_cast<int>(sz)};
}

/// The point of row i + sign d (sign +1 or -1) from p, the point of row i,
/// and s = grid_step(d): valid whenever that row exists.
PDIAG_HD GridPoint grid_move(GridPoint p, const GridStep& s, int sign, int nx, int ny) {
  p.x += sign * s.sx;
  p.y += sign * s.sy;
  p.z += sign * s.sz;
  while (p.x < 0) p.x += nx, --p.y;
  while (p.x >= nx) p.x -= nx, ++p.y;
  while (p.y < 0) p.y += ny, --p.z;
  while (p.y >= ny) p.y -= ny, ++p.z;
  return p;
}

/// Whether pass P finds the rows it reads at i + off[k] (+1) or i - off[k] (-1).
template <SolvePass P>
PDIAG_HD constexpr int pass_step_sign() {
  return (P == SolvePass::Ut || P == SolvePass::IccUt || P == SolvePass::Lt) ? -1 : 1;
}

/// The tiles of one kind of pass (pdiag::SolveScheduleKind) of a factor:
/// boxes of tx x ty x tz points of the tile space (the grid, or its skewed
/// coordinates), tile id = bx + ntx (by + nty bz);
/// order[t] is the tile of ticket t (the order the blocks take them), and
/// deps[dep_ptr[t] .. dep_ptr[t + 1]) the tickets (all < t) whose rows the
/// rows of ticket t read. Empty tiles (no row below n) are left out. No
/// tiles (empty order) for a factor the tiles do not fit.
struct TileSchedule {
  GridShape grid;
  bool skewed = false;  // boxes (and origins, tile ids) in tile_space_point's coordinates
  Index tx = 1, ty = 1, tz = 1;
  Index ntx = 0, nty = 0, ntz = 0;
  std::vector<Index> order;
  std::vector<Index> dep_ptr{0};
  std::vector<Index> deps;
  int max_terms = 0;  // the most terms of a row (the kernel's register arrays)
  Index ntiles() const { return static_cast<Index>(order.size()); }
  bool empty() const { return order.empty(); }
};

/// The wavefronts of a schedule: its longest chain of dependent tickets,
/// the steps a solve by these tiles takes one after the other (each a
/// flag's latency), as a level schedule's levels are for the
/// level-scheduled passes.
inline Index tile_wavefronts(const TileSchedule& s) {
  std::vector<Index> depth(static_cast<std::size_t>(s.ntiles()), 1);
  Index most = 0;
  for (Index t = 0; t < s.ntiles(); ++t) {
    for (Index p = s.dep_ptr[t]; p < s.dep_ptr[t + 1]; ++p) depth[t] = std::max(depth[t], depth[s.deps[p]] + 1);
    most = std::max(most, depth[t]);
  }
  return most;
}

/// Boxes of at most kTileMaxRows points for a grid: 4 x 4 x 2 in 3D (8
/// rounds), 8 x 4 in 2D, 32 on a line, cut to the grid.
inline std::array<Index, 3> default_tile_box(const GridShape& g) {
  const Index tx = std::min(g.nx, g.nz > 1 ? Index(4) : g.ny > 1 ? Index(8) : kTileMaxRows);
  const Index ty = std::min(g.ny, g.nz > 1 ? Index(4) : kTileMaxRows / tx);
  const Index tz = std::min(g.nz, kTileMaxRows / (tx * ty));
  return {tx, ty, tz};
}

/// A grid point's coordinates in the tile space: the grid's own, or
/// skewed (u, v, w) = (x + y + 2z, y + z, z) (see the top); and back.
PDIAG_HD GridPoint tile_space_point(GridPoint p, bool skewed) {
  return skewed ? GridPoint{p.x + p.y + 2 * p.z, p.y + p.z, p.z} : p;
}
PDIAG_HD GridPoint grid_point_of(GridPoint t, bool skewed) { return skewed ? GridPoint{t.x - t.y - t.z, t.y - t.z, t.z} : t; }

/// The extent of the tile space along each axis.
inline GridShape tile_space_shape(const GridShape& g, bool skewed) {
  return skewed ? GridShape{g.nx + g.ny + 2 * g.nz - 3, g.ny + g.nz - 1, g.nz} : g;
}

namespace detail {
// row i's terms (counted; the other tiles they read collected): the host's
// side of the kernel's geometry, without divisions (tile indices of each
// coordinate looked up)
template <class T, SolvePass P>
struct TileEdges {
  const GridShape* g;
  const GridStep* steps;
  const Index *tile_x, *tile_y, *tile_z;
  Index ntx, nty;
  bool skewed;
  GridPoint p;
  Index tile;
  int nterms;
  std::vector<Index>* reads;
  void operator()(T, Index, Index k) {
    ++nterms;
    const GridPoint q = tile_space_point(grid_move(p, steps[k], pass_step_sign<P>(), static_cast<int>(g->nx), static_cast<int>(g->ny)), skewed);
    const Index tj = tile_x[q.x] + ntx * (tile_y[q.y] + nty * tile_z[q.z]);
    if (tj != tile && std::find(reads->begin(), reads->end(), tj) == reads->end()) reads->push_back(tj);
  }
};

// the first pass of a schedule kind: it and the other passes of the kind read the same rows
inline SolvePass representative_pass(SolveScheduleKind kind) {
  switch (kind) {
    case SolveScheduleKind::LowerRows: return SolvePass::L;
    case SolveScheduleKind::UpperRows: return SolvePass::U;
    case SolveScheduleKind::UpperColumns: return SolvePass::Ut;
    case SolveScheduleKind::LowerColumns: return SolvePass::Lt;
  }
  return SolvePass::L;
}

inline std::vector<Index> tile_index_of(Index n, Index t) {
  std::vector<Index> v(static_cast<std::size_t>(n));
  for (Index c = 0; c < n; ++c) v[static_cast<std::size_t>(c)] = c / t;
  return v;
}

// the tiles each tile reads, and which tiles hold rows (used)
template <SolvePass P, class T>
bool collect_tile_reads(const FactorRowsView<T>& F, TileSchedule& s, std::vector<std::vector<Index>>& reads, std::vector<char>& used) {
  const GridShape& g = s.grid;
  const GridShape space = tile_space_shape(g, s.skewed);
  std::vector<GridStep> steps(static_cast<std::size_t>(F.nd));
  for (Index k = 0; k < F.nd; ++k) steps[static_cast<std::size_t>(k)] = grid_step(F.off[k], g);
  const std::vector<Index> tx = tile_index_of(space.nx, s.tx), ty = tile_index_of(space.ny, s.ty), tz = tile_index_of(space.nz, s.tz);
  TileEdges<T, P> e{&g, steps.data(), tx.data(), ty.data(), tz.data(), s.ntx, s.nty, s.skewed, {}, 0, 0, nullptr};
  Index i = 0;
  for (Index z = 0; z < g.nz; ++z)
    for (Index y = 0; y < g.ny; ++y)
      for (Index x = 0; x < g.nx && i < F.n; ++x, ++i) {
        e.p = {static_cast<int>(x), static_cast<int>(y), static_cast<int>(z)};
        const GridPoint t = tile_space_point(e.p, s.skewed);
        e.tile = tx[static_cast<std::size_t>(t.x)] + s.ntx * (ty[static_cast<std::size_t>(t.y)] + s.nty * tz[static_cast<std::size_t>(t.z)]);
        used[static_cast<std::size_t>(e.tile)] = 1;
        e.nterms = 0;
        e.reads = &reads[static_cast<std::size_t>(e.tile)];
        factor_pass_terms<P>(F.off, F.base, F.nd, F.main, F.n, F.val, i, e);
        s.max_terms = std::max(s.max_terms, e.nterms);
        // a row the kernel cannot hold, or a tile reading too many others (not a grid)
        if (e.nterms > kTileMaxTerms || e.reads->size() > 64) return false;
      }
  return true;
}
}  // namespace detail

/// The tiled schedule of the passes of `kind` of the host factor F on grid
/// g in boxes of `box` points (default_tile_box(g) if zero) of the grid, or
/// of its skewed coordinates (`skewed`, see the top); empty if there is
/// none. O(rows x diagonals), once per factor.
template <class T>
TileSchedule hm_factor_tile_schedule(const FactorRowsView<T>& F, SolveScheduleKind kind, const GridShape& g,
                                     std::array<Index, 3> box = {0, 0, 0}, bool skewed = false) {
  TileSchedule s;
  if (F.n <= 0 || F.main < 0 || F.nd > kTileMaxDiagonals || g.nx < 1 || g.ny < 1 || g.nz < 1 || g.nx >= kTileMaxSide ||
      g.ny >= kTileMaxSide || g.nz >= kTileMaxSide || g.nx * g.ny * g.nz < F.n)
    return s;
  const GridShape space = tile_space_shape(g, skewed);
  if (space.nx >= kTileMaxSide || space.ny >= kTileMaxSide) return s;  // the kernel's coordinates are 32-bit
  if (box[0] <= 0) box = default_tile_box(g);
  if (box[0] < 1 || box[1] < 1 || box[2] < 1 || box[0] * box[1] * box[2] > kTileMaxRows) return s;
  s.grid = g;
  s.skewed = skewed;
  s.tx = box[0], s.ty = box[1], s.tz = box[2];
  s.ntx = (space.nx + s.tx - 1) / s.tx, s.nty = (space.ny + s.ty - 1) / s.ty, s.ntz = (space.nz + s.tz - 1) / s.tz;
  const Index nall = s.ntx * s.nty * s.ntz;
  std::vector<std::vector<Index>> reads(static_cast<std::size_t>(nall));
  std::vector<char> used(static_cast<std::size_t>(nall), 0);  // the tiles holding rows (skewed: many hold none)
  bool ok = false;
  switch (detail::representative_pass(kind)) {
    case SolvePass::L: ok = detail::collect_tile_reads<SolvePass::L>(F, s, reads, used); break;
    case SolvePass::U: ok = detail::collect_tile_reads<SolvePass::U>(F, s, reads, used); break;
    case SolvePass::Ut: ok = detail::collect_tile_reads<SolvePass::Ut>(F, s, reads, used); break;
    default: ok = detail::collect_tile_reads<SolvePass::Lt>(F, s, reads, used); break;
  }
  if (!ok) return TileSchedule{};
  const Index nused = static_cast<Index>(std::count(used.begin(), used.end(), char(1)));
  // Kahn's algorithm: a tile once every tile it reads has a ticket
  std::vector<Index> waiting(static_cast<std::size_t>(nall), 0), rptr(static_cast<std::size_t>(nall) + 1, 0);
  for (Index t = 0; t < nall; ++t) {
    waiting[static_cast<std::size_t>(t)] = static_cast<Index>(reads[static_cast<std::size_t>(t)].size());
    for (Index r : reads[static_cast<std::size_t>(t)]) ++rptr[static_cast<std::size_t>(r) + 1];
  }
  for (Index t = 0; t < nall; ++t) rptr[static_cast<std::size_t>(t) + 1] += rptr[static_cast<std::size_t>(t)];
  std::vector<Index> readers(static_cast<std::size_t>(rptr.back())), next(rptr.begin(), rptr.end() - 1);
  for (Index t = 0; t < nall; ++t)
    for (Index r : reads[static_cast<std::size_t>(t)]) readers[static_cast<std::size_t>(next[static_cast<std::size_t>(r)]++)] = t;
  s.order.reserve(static_cast<std::size_t>(nused));
  for (Index t = 0; t < nall; ++t)
    if (used[static_cast<std::size_t>(t)] && waiting[static_cast<std::size_t>(t)] == 0) s.order.push_back(t);
  for (std::size_t q = 0; q < s.order.size(); ++q) {
    const Index t = s.order[q];
    for (Index p = rptr[static_cast<std::size_t>(t)]; p < rptr[static_cast<std::size_t>(t) + 1]; ++p)
      if (--waiting[static_cast<std::size_t>(readers[static_cast<std::size_t>(p)])] == 0) s.order.push_back(readers[static_cast<std::size_t>(p)]);
  }
  if (static_cast<Index>(s.order.size()) != nused) return TileSchedule{};  // a cycle
  std::vector<Index> ticket(static_cast<std::size_t>(nall), -1);
  for (Index q = 0; q < nused; ++q) ticket[static_cast<std::size_t>(s.order[static_cast<std::size_t>(q)])] = q;
  s.dep_ptr.assign(1, 0);
  for (Index q = 0; q < nused; ++q) {
    for (Index r : reads[static_cast<std::size_t>(s.order[static_cast<std::size_t>(q)])]) s.deps.push_back(ticket[static_cast<std::size_t>(r)]);
    s.dep_ptr.push_back(static_cast<Index>(s.deps.size()));
  }
  return s;
}

/// The corner of tile `tile` in the tile space.
PDIAG_HD GridPoint tile_origin(Index tile, Index tx, Index ty, Index tz, Index ntx, Index nty) {
  return {static_cast<int>((tile % ntx) * tx), static_cast<int>(((tile / ntx) % nty) * ty), static_cast<int>((tile / (ntx * nty)) * tz)};
}

/// Slot k (0 .. kTileMaxRows) of a box, k = lx + tx (ly + ty lz).
PDIAG_HD GridPoint tile_local(int k, int tx, int ty) { return {k % tx, (k / tx) % ty, k / (tx * ty)}; }

/// The grid point at `local` of the box at `origin` (tile-space coordinates).
PDIAG_HD GridPoint tile_point(GridPoint origin, GridPoint local, bool skewed) {
  return grid_point_of({origin.x + local.x, origin.y + local.y, origin.z + local.z}, skewed);
}

/// The row at point `local` of the box at `origin`, -1 past the box, the grid or the rows.
PDIAG_HD Index tile_row_at(GridPoint origin, GridPoint local, Index n, const GridShape& g, int tz, bool skewed) {
  if (local.z >= tz) return -1;
  const GridPoint p = tile_point(origin, local, skewed);
  if (p.x < 0 || p.y < 0 || p.x >= g.nx || p.y >= g.ny || p.z >= g.nz) return -1;
  const Index i = p.x + g.nx * (p.y + g.ny * p.z);
  return i < n ? i : -1;
}

/// The slot of grid point q in the box at `origin`, -1 outside it.
PDIAG_HD int tile_slot_of(GridPoint q, GridPoint origin, int tx, int ty, int tz, bool skewed) {
  const GridPoint t = tile_space_point(q, skewed);
  const int lx = t.x - origin.x, ly = t.y - origin.y, lz = t.z - origin.z;
  if (lx < 0 || lx >= tx || ly < 0 || ly >= ty || lz < 0 || lz >= tz) return -1;
  return lx + tx * (ly + ty * lz);
}

/// Row k of ticket t's tile of s, or -1 (tile_row_at of its origin and slot k).
inline Index tile_row(const TileSchedule& s, Index t, Index k, Index n) {
  return tile_row_at(tile_origin(s.order[static_cast<std::size_t>(t)], s.tx, s.ty, s.tz, s.ntx, s.nty),
                     tile_local(static_cast<int>(k), static_cast<int>(s.tx), static_cast<int>(s.ty)), n, s.grid, static_cast<int>(s.tz), s.skewed);
}

/// The device's form of a schedule: 8 ints per ticket, {ox, oy, oz,
/// ndeps, d0, d1, d2, extra}: the corner of its box, how many tickets it
/// waits for and which (d0..d2 when at most 3, else extra[extra ..
/// extra + ndeps)), so that a warp reads its next tile in one 32-byte load.
struct TileRecords {
  std::vector<int> rec, extra;
};

/// The records of s; false (none) if a ticket or a count passes int32.
inline bool tile_records(const TileSchedule& s, TileRecords& r) {
  r.rec.clear();
  r.extra.clear();
  if (s.ntiles() >= (Index(1) << 31) || static_cast<Index>(s.deps.size()) >= (Index(1) << 31)) return false;
  r.rec.reserve(static_cast<std::size_t>(8 * s.ntiles()));
  for (Index t = 0; t < s.ntiles(); ++t) {
    const GridPoint o = tile_origin(s.order[static_cast<std::size_t>(t)], s.tx, s.ty, s.tz, s.ntx, s.nty);
    const Index b = s.dep_ptr[static_cast<std::size_t>(t)], e = s.dep_ptr[static_cast<std::size_t>(t) + 1], nd = e - b;
    int d[4] = {0, 0, 0, 0};
    if (nd <= 3) {
      for (Index q = 0; q < nd; ++q) d[q] = static_cast<int>(s.deps[static_cast<std::size_t>(b + q)]);
    } else {
      d[3] = static_cast<int>(r.extra.size());
      for (Index q = b; q < e; ++q) r.extra.push_back(static_cast<int>(s.deps[static_cast<std::size_t>(q)]));
    }
    r.rec.insert(r.rec.end(), {o.x, o.y, o.z, static_cast<int>(nd), d[0], d[1], d[2], d[3]});
  }
  return true;
}

namespace detail {
// a row's terms with the slot of the row each reads (-1: another tile),
// found as the kernel finds it (grid_move from the row's point)
template <class T, SolvePass P>
struct TermList {
  const GridShape* g;
  const GridStep* steps;
  GridPoint p, origin;
  int tx, ty, tz;
  bool skewed;
  std::vector<std::pair<T, Index>> terms;
  std::vector<Index> slots;
  void operator()(T a, Index j, Index k) {
    terms.emplace_back(a, j);
    slots.push_back(
        tile_slot_of(grid_move(p, steps[k], pass_step_sign<P>(), static_cast<int>(g->nx), static_cast<int>(g->ny)), origin, tx, ty, tz, skewed));
  }
};

// pass P over the tiles in ticket order, each in rounds as the kernel runs
// it: in a round every row whose in-tile reads are done is computed from
// the values at the round's start, then all are written. Returns false if a
// tile reads a later ticket's rows (a broken schedule).
template <SolvePass P, class T>
bool run_pass_by_tiles(const FactorRowsView<T>& F, const TileSchedule& s, const T* in, T* x, Index* rounds) {
  std::vector<char> done_tile(static_cast<std::size_t>(s.ntiles()), 0);
  std::vector<T> box_x(static_cast<std::size_t>(kTileMaxRows));
  std::vector<char> done(static_cast<std::size_t>(kTileMaxRows));
  std::vector<Index> row(static_cast<std::size_t>(kTileMaxRows));
  std::vector<GridStep> steps(static_cast<std::size_t>(F.nd));
  for (Index k = 0; k < F.nd; ++k) steps[static_cast<std::size_t>(k)] = grid_step(F.off[k], s.grid);
  std::vector<TermList<T, P>> terms(static_cast<std::size_t>(kTileMaxRows));
  for (Index t = 0; t < s.ntiles(); ++t) {
    for (Index p = s.dep_ptr[static_cast<std::size_t>(t)]; p < s.dep_ptr[static_cast<std::size_t>(t) + 1]; ++p)
      if (s.deps[static_cast<std::size_t>(p)] >= t || !done_tile[static_cast<std::size_t>(s.deps[static_cast<std::size_t>(p)])]) return false;
    const Index tile = s.order[static_cast<std::size_t>(t)];
    const GridPoint origin = tile_origin(tile, s.tx, s.ty, s.tz, s.ntx, s.nty);
    for (Index k = 0; k < kTileMaxRows; ++k) {
      const GridPoint local = tile_local(static_cast<int>(k), static_cast<int>(s.tx), static_cast<int>(s.ty));
      row[static_cast<std::size_t>(k)] = tile_row_at(origin, local, F.n, s.grid, static_cast<int>(s.tz), s.skewed);
      done[static_cast<std::size_t>(k)] = row[static_cast<std::size_t>(k)] < 0;
      TermList<T, P>& tl = terms[static_cast<std::size_t>(k)];
      tl = TermList<T, P>{&s.grid, steps.data(), tile_point(origin, local, s.skewed), origin, static_cast<int>(s.tx), static_cast<int>(s.ty),
                          static_cast<int>(s.tz), s.skewed, {}, {}};
      if (row[static_cast<std::size_t>(k)] >= 0) factor_pass_terms<P>(F.off, F.base, F.nd, F.main, F.n, F.val, row[static_cast<std::size_t>(k)], tl);
    }
    std::vector<std::pair<Index, T>> written;
    for (Index r = 0;; ++r) {
      written.clear();
      for (Index k = 0; k < kTileMaxRows; ++k) {
        if (done[static_cast<std::size_t>(k)]) continue;
        const Index i = row[static_cast<std::size_t>(k)];
        const TermList<T, P>& tl = terms[static_cast<std::size_t>(k)];
        bool ready = true;
        for (Index slot : tl.slots)
          if (slot >= 0 && !done[static_cast<std::size_t>(slot)]) ready = false;
        if (!ready) continue;
        const T inv = factor_pass_reads_inverse<P>() ? F.val[F.base[F.main] + i] : T(1);
        T sum = factor_pass_start<P>(in[i], inv);
        for (std::size_t q = 0; q < tl.terms.size(); ++q) {
          const Index slot = tl.slots[q];
          sum = factor_pass_add<P>(sum, tl.terms[q].first, slot >= 0 ? box_x[static_cast<std::size_t>(slot)] : x[tl.terms[q].second]);
        }
        written.emplace_back(k, factor_pass_finish<P>(sum, inv));
      }
      if (written.empty()) {
        for (Index k = 0; k < kTileMaxRows; ++k)
          if (!done[static_cast<std::size_t>(k)]) return false;  // rows left that can never go: a cycle inside the tile
        break;
      }
      if (rounds) *rounds = std::max(*rounds, r + 1);
      for (const auto& [k, v] : written) {
        box_x[static_cast<std::size_t>(k)] = v;
        x[row[static_cast<std::size_t>(k)]] = v;
        done[static_cast<std::size_t>(k)] = 1;
      }
    }
    done_tile[static_cast<std::size_t>(t)] = 1;
  }
  return true;
}
}  // namespace detail

/// The solve `what` with F by the tiled passes on the host: the device
/// algorithm's order and arithmetic. tiles[kind] (indexed by
/// SolveScheduleKind) must be hm_factor_tile_schedule of F for each kind the
/// solve's passes use. x may alias b. Returns false (x partly written) if a
/// schedule breaks a dependency; *max_rounds (if given) gets the most
/// rounds a tile took.
template <class T>
bool hm_factor_solve_by_tiles(const FactorRowsView<T>& F, FactorSolve what, const TileSchedule* tiles, const T* b, T* x,
                              Index* max_rounds = nullptr) {
  const FactorSolveSteps st = factor_solve_steps(what);
  for (int p = 0; p < st.npasses; ++p) {
    const T* in = p == 0 ? b : x;
    const TileSchedule& s = tiles[static_cast<int>(pass_schedule(st.pass[static_cast<std::size_t>(p)]))];
    bool ok = false;
    switch (st.pass[static_cast<std::size_t>(p)]) {
      case SolvePass::L: ok = detail::run_pass_by_tiles<SolvePass::L>(F, s, in, x, max_rounds); break;
      case SolvePass::U: ok = detail::run_pass_by_tiles<SolvePass::U>(F, s, in, x, max_rounds); break;
      case SolvePass::Ut: ok = detail::run_pass_by_tiles<SolvePass::Ut>(F, s, in, x, max_rounds); break;
      case SolvePass::Lt: ok = detail::run_pass_by_tiles<SolvePass::Lt>(F, s, in, x, max_rounds); break;
      case SolvePass::IccUt: ok = detail::run_pass_by_tiles<SolvePass::IccUt>(F, s, in, x, max_rounds); break;
      case SolvePass::IccU: ok = detail::run_pass_by_tiles<SolvePass::IccU>(F, s, in, x, max_rounds); break;
      case SolvePass::IccHalfU: ok = detail::run_pass_by_tiles<SolvePass::IccHalfU>(F, s, in, x, max_rounds); break;
    }
    if (!ok) return false;
  }
  if (st.scale_sqrt)
    for (Index i = 0; i < F.n; ++i) x[i] = factor_scale_sqrt_row(F.base, F.main, F.val, x, i);
  return true;
}

}  // namespace pdiag
