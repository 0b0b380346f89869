// Level-scheduled CUDA triangular solves with ILU(0) / ICC(0) factors
// (pdiag::cuda::hm_factor_solve, kernels/src/factor_solve.cu) against the
// sequential CPU solves of pdiag/factor.hpp, on the factors of
// factor_testing.hpp: 5/7/9/27-point grid stencils (also a 40x30x20 grid:
// levels of many blocks), random diagonal matrices with nonsymmetric
// patterns, factors over every stored entry or restricted to the nonzeros;
// ILU solve and transpose solve, ICC solve and its forward and backward
// halves; b and x distinct and the same array. The same terms in the same
// order as the reference, so the results agree to rounding of fused
// multiply-adds (relative 1e-13); a broken dependency reads a value that
// is not final and differs at order one. Also: more diagonals than the
// kernel stages in shared memory, invalid schedules and factors refused,
// the float instantiation. Each solve also by FactorSolveGraphs (recorded
// CUDA graphs of the same launches): the same results, vectors rebound
// between replays, graphs recorded once per solve and again after reset or
// for other schedules. The tiled solves (hm_factor_solve_tiled,
// pdiag/factor_tiles.hpp) against the same references wherever a tiled
// schedule exists (the true grid, a wrong one, one line of rows; grids of
// hundreds of tiles, so blocks wait for each other's flags), repeated and in
// place (the epochs advance), with malformed schedules refused. Without a
// CUDA device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE factor_solve_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "factor_testing.hpp"
#include "pdiag/factor_cuda.hpp"
#include "pdiag/levels_cuda.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// A factor on the device with its four schedules.
template <class T>
struct DeviceFactor {
  Index n = 0, nd = 0, main = -1;
  DeviceArray<Index> off, base;
  DeviceArray<T> val;
  std::array<LevelSchedule, kSolveScheduleKinds> host;
  std::vector<DeviceArray<Index>> rows;
  DeviceFactor(const HmMatrix<T>& F, const std::vector<Index>& b, std::array<LevelSchedule, kSolveScheduleKinds> s)
      : n(F.layout.nrows), nd(F.ndiag()), main(main_diagonal_index(F.offsets.data(), F.ndiag())), off(F.offsets),
        base(b), val(F.val), host(std::move(s)) {
    for (const LevelSchedule& l : host) rows.emplace_back(l.rows);
  }
  FactorRowsView<T> view() const { return {n, nd, main, off.get(), base.get(), val.get()}; }
  std::array<cuda::LevelsView, kSolveScheduleKinds> schedules() const {
    std::array<cuda::LevelsView, kSolveScheduleKinds> v;
    for (int k = 0; k < kSolveScheduleKinds; ++k)
      v[static_cast<std::size_t>(k)] = {host[static_cast<std::size_t>(k)].nlevels(), host[static_cast<std::size_t>(k)].level_ptr.data(),
                                        rows[static_cast<std::size_t>(k)].get()};
    return v;
  }
};

/// The four tiled schedules of a factor on the device (their records), with their work arrays.
struct DeviceTiles {
  std::array<TileSchedule, kSolveScheduleKinds> host;
  std::vector<DeviceArray<int>> rec, extra;
  std::vector<DeviceArray<unsigned>> flags, state;
  bool complete = true;  // every kind has a schedule
  DeviceTiles(const TestFactor& t, const GridShape& g, std::array<Index, 3> box = {0, 0, 0}, bool skewed = false) {
    for (int k = 0; k < kSolveScheduleKinds; ++k) {
      TileSchedule& s = host[static_cast<std::size_t>(k)];
      s = hm_factor_tile_schedule(t.rows(), SolveScheduleKind(k), g, box, skewed);
      TileRecords r;
      complete = complete && !s.empty() && tile_records(s, r);
      rec.emplace_back(r.rec);
      extra.emplace_back(r.extra);
      flags.emplace_back(std::vector<unsigned>(static_cast<std::size_t>(s.ntiles()) + 1, 0u));
      state.emplace_back(std::vector<unsigned>(2, 0u));
    }
  }
  std::array<cuda::TilesView, kSolveScheduleKinds> views() const {
    std::array<cuda::TilesView, kSolveScheduleKinds> v;
    for (std::size_t k = 0; k < v.size(); ++k) {
      const TileSchedule& s = host[k];
      v[k] = {s.grid, s.tx, s.ty, s.tz, s.ntiles(), s.max_terms, rec[k].get(), extra[k].get(), flags[k].get(), state[k].get(), s.skewed};
    }
    return v;
  }
};

/// Every solve of t by tiles on grid g against the sequential CPU solve:
/// twice out of place, then in place. Returns whether there were tiles.
bool compare_tiled_solves(const std::string& name, const TestFactor& t, const GridShape& g, std::mt19937_64& rng,
                          cudaStream_t stream, std::array<Index, 3> box = {0, 0, 0}, bool skewed = false) {
  const Index n = t.F.layout.nrows;
  const DeviceTiles tiles(t, g, box, skewed);
  if (!tiles.complete) return false;
  const DeviceFactor<double> dF(t.F, t.base, factor_schedules(t));
  const auto views = tiles.views();
  for (FactorSolve s : solves_of(t)) {
    BOOST_TEST_CONTEXT(name << ", tiled " << solve_name(s) << ", grid " << g.nx << "x" << g.ny << "x" << g.nz << ", "
                            << tiles.host[0].ntiles() << (skewed ? " skewed" : "") << " tiles") {
      const std::vector<double> b = random_vector(n, rng), x0 = random_vector(n, rng);
      std::vector<double> ref;
      BOOST_TEST_REQUIRE(reference_solve(t, s, b, ref));
      DeviceArray<double> db(b), dx(x0);
      for (int rep = 0; rep < 2; ++rep) {
        dx.upload(x0);
        PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve_tiled(dF.view(), s, db.get(), dx.get(), views.data(), stream));
        sync_checked(stream, "hm_factor_solve_tiled");
        BOOST_TEST(rel_err(dx.download(), ref) < 1e-13);
      }
      BOOST_TEST(rel_err(db.download(), b) == 0.0);
      PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve_tiled(dF.view(), s, db.get(), db.get(), views.data(), stream));
      sync_checked(stream, "hm_factor_solve_tiled in place");
      BOOST_TEST(rel_err(db.download(), ref) < 1e-13);
    }
  }
  return true;
}

/// Every solve of t on the device against the sequential CPU solve, by
/// per-level launches and by the recorded graphs (FactorSolveGraphs: each
/// solve's graph recorded once, then replayed with other vectors).
void compare_solves(const std::string& name, const TestFactor& t, std::mt19937_64& rng, cudaStream_t stream) {
  const Index n = t.F.layout.nrows;
  const DeviceFactor<double> dF(t.F, t.base, factor_schedules(t));
  const auto sched = dF.schedules();
  cuda::FactorSolveGraphs<double> graphs;
  long solves = 0;
  if (!t.ilu) BOOST_TEST_REQUIRE(hm_icc_halves_defined(t.rows()));
  for (FactorSolve s : solves_of(t)) {
    BOOST_TEST_CONTEXT(name << ", " << solve_name(s)) {
      const std::vector<double> b = random_vector(n, rng), x0 = random_vector(n, rng);
      std::vector<double> ref;
      BOOST_TEST_REQUIRE(reference_solve(t, s, b, ref));
      DeviceArray<double> db(b), dx(x0);  // x starts as garbage the solve must not read
      PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve(dF.view(), s, db.get(), dx.get(), sched.data(), stream));
      sync_checked(stream, "hm_factor_solve");
      BOOST_TEST(rel_err(dx.download(), ref) < 1e-13);
      BOOST_TEST(rel_err(db.download(), b) == 0.0);  // b untouched
      BOOST_TEST(rel_err(ref, b) > 1e-3);           // the solve did something
      PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve(dF.view(), s, db.get(), db.get(), sched.data(), stream));  // in place
      sync_checked(stream, "hm_factor_solve in place");
      BOOST_TEST(rel_err(db.download(), ref) < 1e-13);
      // the graph: recorded with (b, x), replayed in place, then with other
      // arrays (the bound vectors change between replays)
      DeviceArray<double> gb(b), gx(x0), gb2(b), gx2(x0);
      PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), s, gb.get(), gx.get(), sched.data(), stream));
      sync_checked(stream, "graph solve");
      BOOST_TEST(rel_err(gx.download(), ref) < 1e-13);
      BOOST_TEST(rel_err(gb.download(), b) == 0.0);
      ++solves;
      BOOST_TEST(graphs.recordings() == solves);
      PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), s, gb.get(), gb.get(), sched.data(), stream));
      sync_checked(stream, "graph solve in place");
      BOOST_TEST(rel_err(gb.download(), ref) < 1e-13);
      PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), s, gb2.get(), gx2.get(), sched.data(), stream));
      PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), s, gb2.get(), gx2.get(), sched.data(), stream));  // same vectors again
      sync_checked(stream, "graph solve, other vectors");
      BOOST_TEST(rel_err(gx2.download(), ref) < 1e-13);
      BOOST_TEST(rel_err(gx.download(), ref) < 1e-13);  // the first x not written again
      BOOST_TEST(graphs.recordings() == solves);          // replayed, not recorded again
    }
  }
  // reset drops the graphs: the next solve records again and is still right
  graphs.reset();
  const FactorSolve s0 = solves_of(t).front();
  const std::vector<double> b = random_vector(n, rng);
  std::vector<double> ref;
  BOOST_TEST_REQUIRE(reference_solve(t, s0, b, ref));
  DeviceArray<double> db(b);
  PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), s0, db.get(), db.get(), sched.data(), stream));
  sync_checked(stream, "graph solve after reset");
  BOOST_TEST(rel_err(db.download(), ref) < 1e-13);
  BOOST_TEST(graphs.recordings() == solves + 1);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(factor_solve, StreamFixture)

BOOST_AUTO_TEST_CASE(grid_stencils) {
  std::mt19937_64 rng(31);
  std::vector<GridCase> grids = grid_cases();
  grids.push_back({"7-point 40x30x20", 40, 30, 20, false, 40 + 30 + 20 - 2});
  for (const GridCase& g : grids)
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = grid_matrix(g, rng);
      const std::string name = g.name + (nonzeros_only ? " (nonzero pattern)" : " (stored pattern)");
      const TestFactor ilu = make_factor(A, true, nonzeros_only), icc = make_factor(symmetrized(A), false, nonzeros_only);
      compare_solves(name + ", ILU", ilu, rng, stream);
      compare_solves(name + ", ICC", icc, rng, stream);
      const GridShape exact{g.nx, g.ny, g.nz};
      BOOST_TEST(compare_tiled_solves(name + ", ILU", ilu, exact, rng, stream) == (!g.box || g.nx * g.ny * g.nz <= kTileMaxRows));
      BOOST_TEST(compare_tiled_solves(name + ", ICC", icc, exact, rng, stream) == (!g.box || g.nx * g.ny * g.nz <= kTileMaxRows));
      compare_tiled_solves(name + ", ILU, small boxes", ilu, exact, rng, stream, {3, 2, g.nz > 1 ? 2 : 1});
      BOOST_TEST(compare_tiled_solves(name + ", ILU, skewed boxes", ilu, exact, rng, stream, {0, 0, 0}, true));
      BOOST_TEST(compare_tiled_solves(name + ", ICC, skewed boxes", icc, exact, rng, stream, {0, 0, 0}, true));
      BOOST_TEST(compare_tiled_solves(name + ", ILU, small skewed boxes", ilu, exact, rng, stream, {3, 2, g.nz > 1 ? 2 : 1}, true));
      compare_tiled_solves(name + ", ILU, skewed grid", ilu, GridShape{g.nx + 1, g.ny, g.nz + 1}, rng, stream);
      BOOST_TEST(compare_tiled_solves(name + ", ILU, one line", ilu, GridShape{g.nx * g.ny * g.nz, 1, 1}, rng, stream));  // a line of boxes: never a cycle
    }
}

BOOST_AUTO_TEST_CASE(tiled_solves_many_tiles) {
  // thousands of tiles in flight: 7-point 64 x 48 x 40 (16 x 12 x 20 boxes
  // of 4 x 4 x 2), 5-point 300 x 200 (38 x 50 boxes of 8 x 4), grids
  // inferred from the offsets as the plugin does
  std::mt19937_64 rng(53);
  for (const GridCase& g : {GridCase{"7-point 64x48x40", 64, 48, 40, false, 0}, GridCase{"5-point 300x200", 300, 200, 1, false, 0}}) {
    const HmMatrix<double> A = grid_matrix(g, rng);
    const TestFactor ilu = make_factor(A, true, true), icc = make_factor(symmetrized(A), false, true);
    const GridShape guess = infer_grid_shape(ilu.F.offsets.data(), ilu.F.ndiag(), ilu.F.layout.nrows);
    BOOST_TEST_REQUIRE((guess.nx == g.nx && guess.ny == g.ny && guess.nz == g.nz));
    BOOST_TEST(compare_tiled_solves(g.name + ", ILU", ilu, guess, rng, stream));
    BOOST_TEST(compare_tiled_solves(g.name + ", ICC", icc, guess, rng, stream));
    BOOST_TEST(compare_tiled_solves(g.name + ", ILU, 4x4x2 boxes", ilu, guess, rng, stream, {4, 4, g.nz > 1 ? 2 : 1}));
  }
  // box stencils: skewed boxes (thousands of partly empty tiles at the
  // parallelepiped's faces)
  for (const GridCase& g : {GridCase{"27-point 40x36x30", 40, 36, 30, true, 0}, GridCase{"9-point 200x150", 200, 150, 1, true, 0}}) {
    const HmMatrix<double> A = grid_matrix(g, rng);
    const TestFactor ilu = make_factor(A, true, true), icc = make_factor(symmetrized(A), false, true);
    const GridShape guess = infer_grid_shape(ilu.F.offsets.data(), ilu.F.ndiag(), ilu.F.layout.nrows);
    BOOST_TEST_REQUIRE((guess.nx == g.nx && guess.ny == g.ny && guess.nz == g.nz));
    BOOST_TEST(!compare_tiled_solves(g.name + ", ILU", ilu, guess, rng, stream));  // straight boxes: a cycle
    BOOST_TEST(compare_tiled_solves(g.name + ", ILU, skewed", ilu, guess, rng, stream, {0, 0, 0}, true));
    BOOST_TEST(compare_tiled_solves(g.name + ", ICC, skewed", icc, guess, rng, stream, {0, 0, 0}, true));
  }
  // float: the tiled solve against the level-ordered one
  const GridCase g{"7-point 40x30x20", 40, 30, 20, false, 0};
  const TestFactor t = make_factor(grid_matrix(g, rng), true, true);
  const Index n = t.F.layout.nrows;
  HmMatrix<float> Ff(t.F.layout, t.F.offsets);
  for (std::size_t p = 0; p < t.F.val.size(); ++p) Ff.val[p] = float(t.F.val[p]);
  const std::vector<Index> base = hm_diagonal_bases(static_cast<const HmMatrix<float>&>(Ff).view());
  const DeviceFactor<float> dF(Ff, base, factor_schedules(t));
  const DeviceTiles tiles(t, GridShape{g.nx, g.ny, g.nz});  // the pattern is the float factor's
  BOOST_TEST_REQUIRE(tiles.complete);
  std::vector<float> b(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = float(i % 7) - 3.0f;
  DeviceArray<float> db(b), dl(std::vector<float>(b.size(), 0.0f)), dt(std::vector<float>(b.size(), 0.0f));
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve(dF.view(), FactorSolve::IluSolve, db.get(), dl.get(), dF.schedules().data(), stream));
  const auto views = tiles.views();
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve_tiled(dF.view(), FactorSolve::IluSolve, db.get(), dt.get(), views.data(), stream));
  sync_checked(stream, "float solves");
  const std::vector<float> l = dl.download(), r = dt.download();
  BOOST_TEST(norm2(l) > 0);
  BOOST_TEST(rel_err(r, l) < 1e-5);
}

BOOST_AUTO_TEST_CASE(tiled_solves_refuse_malformed_schedules) {
  std::mt19937_64 rng(59);
  const TestFactor t = make_factor(grid_matrix(GridCase{"7-point 20x10x10", 20, 10, 10, false, 0}, rng), true, true);
  const DeviceFactor<double> dF(t.F, t.base, factor_schedules(t));
  const DeviceTiles tiles(t, GridShape{20, 10, 10});
  BOOST_TEST_REQUIRE(tiles.complete);
  DeviceArray<double> v(std::vector<double>(static_cast<std::size_t>(t.F.layout.nrows), 1.0));
  auto views = tiles.views();
  BOOST_TEST(cuda::hm_factor_solve_tiled(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), nullptr, stream) == cudaErrorInvalidValue);
  auto bad = views;
  bad[static_cast<int>(SolveScheduleKind::UpperRows)].ntiles = 0;  // no schedule for U
  BOOST_TEST(cuda::hm_factor_solve_tiled(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), bad.data(), stream) == cudaErrorInvalidValue);
  // ... which the transpose solve does not use
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve_tiled(dF.view(), FactorSolve::IluSolveTranspose, v.get(), v.get(), bad.data(), stream));
  bad = views;
  bad[static_cast<int>(SolveScheduleKind::LowerRows)].tx = 64;  // a box over kTileMaxRows (32)
  BOOST_TEST(cuda::hm_factor_solve_tiled(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), bad.data(), stream) == cudaErrorInvalidValue);
  bad = views;
  bad[static_cast<int>(SolveScheduleKind::LowerRows)].rec = nullptr;
  BOOST_TEST(cuda::hm_factor_solve_tiled(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), bad.data(), stream) == cudaErrorInvalidValue);
  FactorRowsView<double> no_main = dF.view();
  no_main.main = -1;
  BOOST_TEST(cuda::hm_factor_solve_tiled(no_main, FactorSolve::IluSolve, v.get(), v.get(), views.data(), stream) == cudaErrorInvalidValue);
  sync_checked(stream, "refused tiled solves");
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(37);
  for (double density : {0.1, 0.5, 1.0})
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = random_diag_matrix(500, {-301, -57, -13, -2, -1, 3, 8, 41, 120}, density, rng);
      const std::string name = "random, density " + std::to_string(density) + (nonzeros_only ? ", nonzero pattern" : "");
      const TestFactor ilu = make_factor(A, true, nonzeros_only), icc = make_factor(symmetrized(A), false, nonzeros_only);
      compare_solves(name + ", ILU", ilu, rng, stream);
      compare_solves(name + ", ICC", icc, rng, stream);
      BOOST_TEST(compare_tiled_solves(name + ", ILU", ilu, GridShape{500, 1, 1}, rng, stream, {32, 1, 1}));
      BOOST_TEST(compare_tiled_solves(name + ", ICC", icc, GridShape{500, 1, 1}, rng, stream, {32, 1, 1}));
      compare_tiled_solves(name + ", ILU, 2D guess", ilu, GridShape{57, 9, 1}, rng, stream);
    }
  // more diagonals in each triangle (21) than a row's register slots (16),
  // rows of fewer nonzeros: the tile kernel's compacted terms (its
  // by-diagonal form takes passes of at most 16 diagonals)
  std::vector<Index> wide;
  for (Index d = -41; d <= 41; d += 2) wide.push_back(d);
  const HmMatrix<double> W = random_diag_matrix(600, wide, 0.25, rng);
  const TestFactor wide_ilu = make_factor(W, true, true), wide_icc = make_factor(symmetrized(W), false, true);
  BOOST_TEST_REQUIRE(main_diagonal_index(wide_ilu.F.offsets.data(), wide_ilu.F.ndiag()) > kTileMaxTerms);
  BOOST_TEST(compare_tiled_solves("random, 43 diagonals, ILU", wide_ilu, GridShape{600, 1, 1}, rng, stream, {32, 1, 1}));
  BOOST_TEST(compare_tiled_solves("random, 43 diagonals, ICC", wide_icc, GridShape{600, 1, 1}, rng, stream, {32, 1, 1}));
  // more diagonals than the kernel stages in shared memory (1024): metadata read from global memory
  std::vector<Index> many;
  for (Index d = -1500; d <= 1500; d += 2) many.push_back(d == 0 ? 1 : d);
  const HmMatrix<double> A = random_diag_matrix(1600, many, 0.02, rng);
  compare_solves("random, 1501 diagonals, ILU", make_factor(A, true, true), rng, stream);
  compare_solves("random, 1501 diagonals, ICC", make_factor(symmetrized(A), false, true), rng, stream);
}

BOOST_AUTO_TEST_CASE(refuses_bad_schedules_and_factors) {
  std::mt19937_64 rng(3);
  const TestFactor t = make_factor(grid_matrix(grid_cases()[0], rng), true, true);
  const DeviceFactor<double> dF(t.F, t.base, factor_schedules(t));
  DeviceArray<double> v(std::vector<double>(static_cast<std::size_t>(t.F.layout.nrows), 1.0));
  auto sched = dF.schedules();
  LevelSchedule short_s = dF.host[static_cast<int>(SolveScheduleKind::UpperRows)];
  short_s.level_ptr.pop_back();  // misses the last level's rows
  sched[static_cast<int>(SolveScheduleKind::UpperRows)].nlevels = short_s.nlevels();
  sched[static_cast<int>(SolveScheduleKind::UpperRows)].level_ptr = short_s.level_ptr.data();
  BOOST_TEST(cuda::hm_factor_solve(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), sched.data(), stream) ==
             cudaErrorInvalidValue);
  // the transpose solve does not use that schedule
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve(dF.view(), FactorSolve::IluSolveTranspose, v.get(), v.get(), sched.data(), stream));
  sync_checked(stream, "transpose solve");
  FactorRowsView<double> no_main = dF.view();
  no_main.main = -1;
  BOOST_TEST(cuda::hm_factor_solve(no_main, FactorSolve::IluSolveTranspose, v.get(), v.get(), dF.schedules().data(),
                                   stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::hm_factor_solve(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), nullptr, stream) ==
             cudaErrorInvalidValue);
  // the graphs check the same, and record nothing for a refused solve
  cuda::FactorSolveGraphs<double> graphs;
  BOOST_TEST(graphs.solve(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), sched.data(), stream) == cudaErrorInvalidValue);
  BOOST_TEST(graphs.solve(no_main, FactorSolve::IluSolveTranspose, v.get(), v.get(), dF.schedules().data(), stream) ==
             cudaErrorInvalidValue);
  BOOST_TEST(graphs.solve(dF.view(), FactorSolve::IluSolve, v.get(), v.get(), nullptr, stream) == cudaErrorInvalidValue);
  BOOST_TEST(graphs.recordings() == 0);
  // a schedule with other rows (re-uploaded elsewhere) is recorded again
  PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), FactorSolve::IluSolveTranspose, v.get(), v.get(), sched.data(), stream));
  const DeviceFactor<double> dF2(t.F, t.base, factor_schedules(t));
  PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), FactorSolve::IluSolveTranspose, v.get(), v.get(), dF2.schedules().data(), stream));
  sync_checked(stream, "graph solves");
  BOOST_TEST(graphs.recordings() == 2);
}

BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(13);
  const TestFactor t = make_factor(grid_matrix(grid_cases()[1], rng), true, true);
  const Index n = t.F.layout.nrows;
  HmMatrix<float> Ff(t.F.layout, t.F.offsets);
  for (std::size_t p = 0; p < t.F.val.size(); ++p) Ff.val[p] = float(t.F.val[p]);
  std::vector<float> b(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = float(i % 7) - 3.0f;
  // the float reference: the level-ordered host runner (checked against the sequential solve in test_factor_levels)
  const std::vector<Index> base = hm_diagonal_bases(static_cast<const HmMatrix<float>&>(Ff).view());
  const FactorRowsView<float> hv{n, Ff.ndiag(), main_diagonal_index(Ff.offsets.data(), Ff.ndiag()), Ff.offsets.data(),
                                 base.data(), Ff.val.data()};
  const auto sched = factor_schedules(t);
  std::vector<float> x(static_cast<std::size_t>(n));
  hm_factor_solve_by_levels(hv, FactorSolve::IluSolve, sched.data(), b.data(), x.data());
  const DeviceFactor<float> dF(Ff, base, sched);
  DeviceArray<float> db(b), dx(std::vector<float>(static_cast<std::size_t>(n), 0.0f));
  PDIAG_CUDA_REQUIRE(cuda::hm_factor_solve(dF.view(), FactorSolve::IluSolve, db.get(), dx.get(), dF.schedules().data(), stream));
  sync_checked(stream, "float hm_factor_solve");
  const std::vector<float> g = dx.download();
  // the float graph gives the same launches' result
  cuda::FactorSolveGraphs<float> graphs;
  DeviceArray<float> gx(std::vector<float>(static_cast<std::size_t>(n), 0.0f));
  PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), FactorSolve::IluSolve, db.get(), gx.get(), dF.schedules().data(), stream));
  sync_checked(stream, "float graph solve");
  const std::vector<float> gg = gx.download();
  BOOST_TEST((gg == g));
  BOOST_TEST(norm2(x) > 0);
  BOOST_TEST(rel_err(gg, x) < 1e-5);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_factor_solve_cuda")
