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
// for other schedules. Without a CUDA device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE factor_solve_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "factor_testing.hpp"
#include "pdiag/cuda.hpp"
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
      compare_solves(name + ", ILU", make_factor(A, true, nonzeros_only), rng, stream);
      compare_solves(name + ", ICC", make_factor(symmetrized(A), false, nonzeros_only), rng, stream);
    }
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(37);
  for (double density : {0.1, 0.5, 1.0})
    for (bool nonzeros_only : {true, false}) {
      const HmMatrix<double> A = random_diag_matrix(500, {-301, -57, -13, -2, -1, 3, 8, 41, 120}, density, rng);
      const std::string name = "random, density " + std::to_string(density) + (nonzeros_only ? ", nonzero pattern" : "");
      compare_solves(name + ", ILU", make_factor(A, true, nonzeros_only), rng, stream);
      compare_solves(name + ", ICC", make_factor(symmetrized(A), false, nonzeros_only), rng, stream);
    }
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
  std::vector<float> g = dx.download();
  // the float graph gives the same launches' result
  cuda::FactorSolveGraphs<float> graphs;
  DeviceArray<float> gx(std::vector<float>(static_cast<std::size_t>(n), 0.0f));
  PDIAG_CUDA_REQUIRE(graphs.solve(dF.view(), FactorSolve::IluSolve, db.get(), gx.get(), dF.schedules().data(), stream));
  sync_checked(stream, "float graph solve");
  const std::vector<float> gg = gx.download();
  BOOST_TEST((gg == g));
  g = gg;
  double num = 0, den = 0;
  for (Index i = 0; i < n; ++i) {
    num += double(g[i] - x[i]) * double(g[i] - x[i]);
    den += double(x[i]) * double(x[i]);
  }
  BOOST_TEST(den > 0);
  BOOST_TEST(std::sqrt(num / den) < 1e-5);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_factor_solve_cuda")
