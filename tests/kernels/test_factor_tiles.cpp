// Tiled triangular solves with ILU(0) / ICC(0) factors on the CPU
// (pdiag/factor_tiles.hpp): the CUDA kernel's algorithm run on the host,
// tile by tile in ticket order, each tile in rounds (every ready row of a
// round computed before any is written), against the sequential solves of
// pdiag/factor.hpp, to the last bit (1e-15: the same terms in the same
// order; a broken dependency gives order-one differences). Grids: the
// inferred one, and wrong guesses (one line, odd boxes) that must still give
// the sequential result or no schedule. Also: the grid inference, moves on
// the grid by an offset's step (no division) against division, the
// schedule's invariants (every tile once, dependencies earlier, a 7-point
// box of 4 x 4 x 2 in 8 rounds), a tile graph with a cycle refused (9/27-point
// stencils in boxes of more than one line), the same stencils in skewed
// boxes (every row once, no cycle, far fewer wavefronts than levels), rows
// with more than kTileMaxTerms terms refused.
#define BOOST_TEST_MODULE factor_tiles
#include <boost/test/unit_test.hpp>

#include "factor_testing.hpp"
#include "pdiag/factor_tiles.hpp"
#include "testing.hpp"

#include <set>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// The four tile schedules of t on grid g in boxes `box` (0: default), of the grid or skewed.
std::array<TileSchedule, kSolveScheduleKinds> tile_schedules(const TestFactor& t, const GridShape& g,
                                                              std::array<Index, 3> box = {0, 0, 0}, bool skewed = false) {
  std::array<TileSchedule, kSolveScheduleKinds> s;
  for (int k = 0; k < kSolveScheduleKinds; ++k)
    s[static_cast<std::size_t>(k)] = hm_factor_tile_schedule(t.rows(), SolveScheduleKind(k), g, box, skewed);
  return s;
}

/// A schedule's invariants: every tile holding rows exactly once, every
/// dependency an earlier ticket.
void check_schedule(const TileSchedule& s, Index n) {
  BOOST_TEST_REQUIRE(s.dep_ptr.size() == s.order.size() + 1);
  std::set<Index> seen;
  Index rows = 0;
  for (Index t = 0; t < s.ntiles(); ++t) {
    BOOST_TEST_REQUIRE(seen.insert(s.order[t]).second);
    for (Index k = 0; k < kTileMaxRows; ++k)
      rows += tile_row(s, t, k, n) >= 0;
    for (Index p = s.dep_ptr[t]; p < s.dep_ptr[t + 1]; ++p) BOOST_TEST_REQUIRE((s.deps[p] >= 0 && s.deps[p] < t));
  }
  BOOST_TEST(rows == n);  // every row in exactly one tile
  // the device's records say the same
  TileRecords r;
  BOOST_TEST_REQUIRE(tile_records(s, r));
  BOOST_TEST_REQUIRE(r.rec.size() == std::size_t(8 * s.ntiles()));
  for (Index t = 0; t < s.ntiles(); ++t) {
    const int* q = r.rec.data() + 8 * t;
    const GridPoint o = tile_origin(s.order[t], s.tx, s.ty, s.tz, s.ntx, s.nty);
    BOOST_TEST_REQUIRE((q[0] == o.x && q[1] == o.y && q[2] == o.z));
    BOOST_TEST_REQUIRE(q[3] == s.dep_ptr[t + 1] - s.dep_ptr[t]);
    for (int d = 0; d < q[3]; ++d) BOOST_TEST_REQUIRE((q[3] <= 3 ? q[4 + d] : r.extra[q[7] + d]) == s.deps[s.dep_ptr[t] + d]);
  }
}

/// Every solve of t by tiles on grid g (and box) against the sequential one;
/// false if there is no tiled schedule for some kind.
bool compare_solves(const std::string& name, const TestFactor& t, const GridShape& g, std::mt19937_64& rng,
                    std::array<Index, 3> box = {0, 0, 0}, bool skewed = false) {
  const Index n = t.F.layout.nrows;
  const auto tiles = tile_schedules(t, g, box, skewed);
  for (const TileSchedule& s : tiles)
    if (s.empty()) return false;
  for (const TileSchedule& s : tiles) check_schedule(s, n);
  const FactorRowsView<double> rows = t.rows();
  if (!t.ilu) BOOST_TEST_REQUIRE(hm_icc_halves_defined(rows));
  for (FactorSolve s : solves_of(t)) {
    BOOST_TEST_CONTEXT(name << ", " << solve_name(s) << ", grid " << g.nx << "x" << g.ny << "x" << g.nz) {
      const std::vector<double> b = random_vector(n, rng);
      std::vector<double> ref, x(static_cast<std::size_t>(n), 0.0);
      BOOST_TEST_REQUIRE(reference_solve(t, s, b, ref));
      BOOST_TEST_REQUIRE(hm_factor_solve_by_tiles(rows, s, tiles.data(), b.data(), x.data()));
      BOOST_TEST(max_rel_diff(x, ref) <= 1e-15);
      BOOST_TEST(max_rel_diff(ref, b) > 1e-3);  // the solve did something
      std::vector<double> y = b;  // in place
      BOOST_TEST_REQUIRE(hm_factor_solve_by_tiles(rows, s, tiles.data(), y.data(), y.data()));
      BOOST_TEST(max_rel_diff(y, ref) <= 1e-15);
    }
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(grid_inference) {
  // 7-point 40 x 30 x 20: offsets +-1, +-40, +-1200
  const std::vector<Index> seven{-1200, -40, -1, 0, 1, 40, 1200};
  const GridShape g = infer_grid_shape(seven.data(), Index(seven.size()), 24000);
  BOOST_TEST(g.nx == 40);
  BOOST_TEST(g.ny == 30);
  BOOST_TEST(g.nz == 20);
  // 27-point on 257^3: the clusters' medians are nx and nx ny
  std::vector<Index> box;
  for (Index dz = -1; dz <= 1; ++dz)
    for (Index dy = -1; dy <= 1; ++dy)
      for (Index dx = -1; dx <= 1; ++dx) box.push_back(dx + 257 * (dy + 257 * dz));
  const GridShape h = infer_grid_shape(box.data(), Index(box.size()), 257 * 257 * 257);
  BOOST_TEST(h.nx == 257);
  BOOST_TEST(h.ny == 257);
  BOOST_TEST(h.nz == 257);
  // 5-point 2D, a partial last line; tridiagonal: one line
  const std::vector<Index> five{-100, -1, 0, 1, 100};
  const GridShape f = infer_grid_shape(five.data(), 5, 1050);
  BOOST_TEST((f.nx == 100 && f.ny == 11 && f.nz == 1));
  const std::vector<Index> tri{-1, 0, 1};
  const GridShape l = infer_grid_shape(tri.data(), 3, 77);
  BOOST_TEST((l.nx == 77 && l.ny == 1 && l.nz == 1));
}

BOOST_AUTO_TEST_CASE(grid_moves) {
  // grid_move(point of i, grid_step(d)) is the point of i + d for every
  // i, i + d inside the rows: 3D, 2D, a line, a partial last plane, offsets
  // far beyond one neighbour
  std::mt19937_64 rng(7);
  for (const GridShape& g : {GridShape{7, 5, 4}, GridShape{13, 9, 1}, GridShape{50, 1, 1}, GridShape{6, 4, 9}}) {
    const Index n = g.nx * g.ny * g.nz - (g.nz > 1 ? 5 : 0);
    std::uniform_int_distribution<Index> row(0, n - 1);
    for (int trial = 0; trial < 4000; ++trial) {
      const Index i = row(rng), j = row(rng), d = j - i;
      const GridStep st = grid_step(d, g);
      const GridPoint p{static_cast<int>(i % g.nx), static_cast<int>((i / g.nx) % g.ny), static_cast<int>(i / (g.nx * g.ny))};
      for (int sign : {1, -1}) {
        const Index target = sign > 0 ? j : i - d;
        if (target < 0 || target >= n) continue;
        const GridPoint q = grid_move(p, st, sign, static_cast<int>(g.nx), static_cast<int>(g.ny));
        BOOST_TEST_REQUIRE(q.x + g.nx * (q.y + g.ny * q.z) == target, "i " << i << " d " << sign * d);
        BOOST_TEST_REQUIRE((q.x >= 0 && q.x < g.nx && q.y >= 0 && q.y < g.ny));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(grid_stencils) {
  std::mt19937_64 rng(41);
  std::vector<GridCase> grids = grid_cases();
  grids.push_back({"7-point 40x30x20", 40, 30, 20, false, 40 + 30 + 20 - 2});
  grids.push_back({"5-point 70x45", 70, 45, 1, false, 70 + 45 - 1});
  grids.push_back({"27-point 19x17x11", 19, 17, 11, true, 0});
  for (const GridCase& g : grids)
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = grid_matrix(g, rng);
      const std::string name = g.name + (nonzeros_only ? " (nonzero pattern)" : " (stored pattern)");
      const TestFactor ilu = make_factor(A, true, nonzeros_only), icc = make_factor(symmetrized(A), false, nonzeros_only);
      const GridShape exact{g.nx, g.ny, g.nz};
      // the true grid, default boxes and small odd ones (many tiles). A
      // 9/27-point stencil's boxes read each other (row (x, y) reads
      // (x + 1, y - 1)): a cycle as soon as a box has two lines, so no
      // schedule there unless one box holds the whole grid
      for (const std::array<Index, 3> box : {std::array<Index, 3>{0, 0, 0}, std::array<Index, 3>{3, 2, g.nz > 1 ? 2 : 1}}) {
        const std::array<Index, 3> used = box[0] ? box : default_tile_box(exact);
        const bool one_box = used[0] >= g.nx && used[1] >= g.ny && used[2] >= g.nz;
        BOOST_TEST(compare_solves(name + ", ILU", ilu, exact, rng, box) == (!g.box || one_box));
        BOOST_TEST(compare_solves(name + ", ICC", icc, exact, rng, box) == (!g.box || one_box));
        // skewed boxes: a schedule for every stencil
        BOOST_TEST(compare_solves(name + ", ILU, skewed boxes", ilu, exact, rng, box, true));
        BOOST_TEST(compare_solves(name + ", ICC, skewed boxes", icc, exact, rng, box, true));
      }
      // wrong guesses: one line of rows (a chain of tiles); a grid one wider
      // than the true one (sheared boxes): right results or no schedule
      compare_solves(name + ", ILU, one line", ilu, GridShape{g.nx * g.ny * g.nz, 1, 1}, rng);
      compare_solves(name + ", ILU, skewed", ilu, GridShape{g.nx + 1, g.ny, g.nz + 1}, rng);
      compare_solves(name + ", ICC, skewed", icc, GridShape{g.nx + 1, g.ny, g.nz + 1}, rng);
      compare_solves(name + ", ILU, wrong grid, skewed boxes", ilu, GridShape{g.nx + 1, g.ny, g.nz + 1}, rng, {0, 0, 0}, true);
    }
}

BOOST_AUTO_TEST_CASE(skewed_boxes) {
  // box stencils in boxes of the skewed coordinates: every row in one tile,
  // at most tx + ty + tz - 2 rounds a box (a chain inside it lowers one
  // coordinate a step; 8 for 4 x 4 x 2), and far fewer wavefronts than the
  // level schedule's levels (27-point 24 x 20 x 16: 23 + 2 * 19 + 4 * 15 + 1
  // = 122 levels; 9-point 60 x 50: 59 + 2 * 49 + 1 = 158)
  std::mt19937_64 rng(59);
  for (const GridCase& g : {GridCase{"27-point 24x20x16", 24, 20, 16, true, 122}, GridCase{"9-point 60x50", 60, 50, 1, true, 158}}) {
    const TestFactor ilu = make_factor(grid_matrix(g, rng), true, true);
    const FactorRowsView<double> rows = ilu.rows();
    const GridShape grid = infer_grid_shape(rows.off, rows.nd, rows.n);
    BOOST_TEST_REQUIRE((grid.nx == g.nx && grid.ny == g.ny && grid.nz == g.nz));
    BOOST_TEST(tile_schedules(ilu, grid)[0].empty());  // straight boxes: a cycle
    const auto tiles = tile_schedules(ilu, grid, {0, 0, 0}, true);
    const auto levels = factor_schedules(ilu);
    for (int k = 0; k < kSolveScheduleKinds; ++k) {
      const TileSchedule& s = tiles[static_cast<std::size_t>(k)];
      BOOST_TEST_REQUIRE(!s.empty());
      BOOST_TEST(s.skewed);
      check_schedule(s, rows.n);
      BOOST_TEST(levels[static_cast<std::size_t>(k)].nlevels() == g.levels);
      BOOST_TEST_MESSAGE(g.name << ", kind " << k << ": " << tile_wavefronts(s) << " wavefronts of " << s.ntiles() << " tiles, "
                                << g.levels << " levels");
      BOOST_TEST(3 * tile_wavefronts(s) < g.levels);
    }
    const std::vector<double> b = random_vector(rows.n, rng);
    std::vector<double> x(b.size()), ref;
    BOOST_TEST_REQUIRE(reference_solve(ilu, FactorSolve::IluSolve, b, ref));
    Index rounds = 0;
    BOOST_TEST_REQUIRE(hm_factor_solve_by_tiles(rows, FactorSolve::IluSolve, tiles.data(), b.data(), x.data(), &rounds));
    BOOST_TEST(max_rel_diff(x, ref) <= 1e-15);
    BOOST_TEST(rounds <= tiles[0].tx + tiles[0].ty + tiles[0].tz - 2);
  }
}

BOOST_AUTO_TEST_CASE(seven_point_boxes) {
  // 7-point 40 x 30 x 20 in 4 x 4 x 2 boxes: 10 x 8 x 10 tiles, each
  // reading at most its three lower neighbours (26 wavefronts), a full box in 4 + 4 + 2 - 2 rounds
  std::mt19937_64 rng(43);
  const GridCase g{"7-point 40x30x20", 40, 30, 20, false, 0};
  const TestFactor ilu = make_factor(grid_matrix(g, rng), true, true);
  const FactorRowsView<double> rows = ilu.rows();
  const GridShape grid = infer_grid_shape(rows.off, rows.nd, rows.n);
  BOOST_TEST_REQUIRE((grid.nx == 40 && grid.ny == 30 && grid.nz == 20));
  const auto tiles = tile_schedules(ilu, grid);
  for (const TileSchedule& s : tiles) {
    BOOST_TEST((s.tx == 4 && s.ty == 4 && s.tz == 2));
    BOOST_TEST(s.ntiles() == 10 * 8 * 10);
    BOOST_TEST(s.max_terms == 3);
    for (Index t = 0; t < s.ntiles(); ++t) BOOST_TEST(s.dep_ptr[t + 1] - s.dep_ptr[t] <= 3);
    BOOST_TEST(tile_wavefronts(s) == 10 + 8 + 10 - 2); // tile (i, j, k) after the chain through its lower neighbours
  }
  const std::vector<double> b = random_vector(rows.n, rng);
  std::vector<double> x(b.size());
  Index rounds = 0;
  BOOST_TEST_REQUIRE(hm_factor_solve_by_tiles(rows, FactorSolve::IluSolve, tiles.data(), b.data(), x.data(), &rounds));
  BOOST_TEST(rounds == 4 + 4 + 2 - 2);
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(47);
  for (double density : {0.1, 0.5, 1.0})
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = random_diag_matrix(600, {-301, -57, -13, -2, -1, 3, 8, 41, 120}, density, rng);
      const std::string name = "random, density " + std::to_string(density) + (nonzeros_only ? ", nonzero pattern" : "");
      const TestFactor ilu = make_factor(A, true, nonzeros_only), icc = make_factor(symmetrized(A), false, nonzeros_only);
      for (const GridShape& g : {GridShape{600, 1, 1}, GridShape{57, 11, 1}, GridShape{13, 7, 7}}) {
        compare_solves(name + ", ILU", ilu, g, rng);
        compare_solves(name + ", ICC", icc, g, rng);
      }
      // a line of tiles has no cycle: always a schedule
      BOOST_TEST(compare_solves(name + ", ILU, line", ilu, GridShape{600, 1, 1}, rng));
    }
}

BOOST_AUTO_TEST_CASE(refusals) {
  // tridiagonal on a 4 x 4 "grid" in 2 x 4 boxes: row 2 (box 1) reads row
  // 1 (box 0) and row 4 (box 0) reads row 3 (box 1): a cycle, no schedule
  HmMatrix<double> A(Layout::square(16), {-1, 0, 1});
  for (Index i = 0; i < 16; ++i) {
    *A.find(i, i) = 4.0;
    if (i > 0) *A.find(i, i - 1) = *A.find(i - 1, i) = -1.0;
  }
  const TestFactor t = make_factor(A, true, true);
  BOOST_TEST(hm_factor_tile_schedule(t.rows(), SolveScheduleKind::LowerRows, GridShape{4, 4, 1}, {2, 4, 1}).empty());
  BOOST_TEST(!hm_factor_tile_schedule(t.rows(), SolveScheduleKind::LowerRows, GridShape{16, 1, 1}).empty());
  // a grid too small for the rows, boxes over kTileMaxRows
  BOOST_TEST(hm_factor_tile_schedule(t.rows(), SolveScheduleKind::LowerRows, GridShape{3, 5, 1}).empty());
  BOOST_TEST(hm_factor_tile_schedule(t.rows(), SolveScheduleKind::LowerRows, GridShape{16, 1, 1}, {kTileMaxRows + 1, 1, 1}).empty());
  // rows with more than kTileMaxTerms terms
  std::vector<Index> many;
  for (Index d = 1; d <= kTileMaxTerms + 1; ++d) many.push_back(-d);
  std::mt19937_64 rng(5);
  const TestFactor w = make_factor(random_diag_matrix(100, many, 1.0, rng), true, true);
  BOOST_TEST(hm_factor_tile_schedule(w.rows(), SolveScheduleKind::LowerRows, GridShape{100, 1, 1}).empty());
  BOOST_TEST(!hm_factor_tile_schedule(w.rows(), SolveScheduleKind::UpperRows, GridShape{100, 1, 1}).empty());
}
