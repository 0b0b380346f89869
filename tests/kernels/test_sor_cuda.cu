// Level-scheduled CUDA SOR sweeps (pdiag::cuda::hm_sor, kernels/src/sor.cu)
// against the sequential CPU reference pdiag::hm_sor (pdiag/relax.hpp) on
// 5/7/9/27-point grid stencils (stored zeros where the stencil leaves the
// grid) and random diagonal matrices with nonsymmetric patterns (whose
// anti-dependencies the schedule must respect): forward, backward and
// symmetric sweeps, with and without a zero initial guess, omega 1 and 1.4,
// shift 0 and 0.3, its 1 and 3. The reference is the same arithmetic in
// sequential order, so the results agree to rounding (relative 1e-13); a
// schedule that broke a dependency would read a stale neighbour and differ
// at order one. x starts random (also with a zero initial guess, which must
// ignore it). Also: more diagonals than the kernel stages in shared
// memory, invalid schedules refused, the float instantiation. Every
// variant also by SorGraph (the launches recorded as a CUDA graph): the same
// result, replayed with other vectors without recording again.
// Without a CUDA device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE sor_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "pdiag/levels.hpp"
#include "pdiag/levels_cuda.hpp"
#include "pdiag/relax.hpp"
#include "pdiag/sor_cuda.hpp"
#include "sor_testing.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// A level schedule on the device (the host level_ptr kept here).
struct DeviceLevels {
  LevelSchedule host;
  DeviceArray<Index> rows;
  explicit DeviceLevels(LevelSchedule s) : host(std::move(s)), rows(host.rows) {}
  cuda::LevelsView view() const { return {host.nlevels(), host.level_ptr.data(), rows.get()}; }
};

template <class T>
HmMatrix<T> cast(const HmMatrix<double>& A) {
  HmMatrix<T> B(A.layout, A.offsets);
  for (std::size_t p = 0; p < A.val.size(); ++p) B.val[p] = T(A.val[p]);
  return B;
}

/// Every sweep variant on A: GPU against CPU.
void compare_all(const std::string& name, const HmMatrix<double>& A, std::mt19937_64& rng, cudaStream_t stream) {
  const Index m = A.layout.nrows;
  const DeviceHm<double> dA(A);
  const DeviceLevels fwd(hm_level_schedule(A.view(), SweepDirection::Forward));
  const DeviceLevels bwd(hm_level_schedule(A.view(), SweepDirection::Backward));
  const std::vector<double> b = random_vector(m, rng), x0 = random_vector(m, rng);
  DeviceArray<double> db(b), dx(x0), dt(std::vector<double>(static_cast<std::size_t>(m), 0.0));
  // the graph path: recorded per variant (its arguments change), replayed with other vectors
  cuda::SorGraph<double> graph;
  DeviceArray<double> gb(b), rx(x0), gb2(b), rx2(x0);
  long variants = 0;
  for (int which = 0; which < 3; ++which)
    for (bool zero : {false, true})
      for (double omega : {1.0, 1.4})
        for (double shift : {0.0, 0.3})
          for (Index its : {1, 3}) {
            SorSweeps sw;
            sw.forward = which != 1;
            sw.backward = which != 0;
            sw.zero_initial_guess = zero;
            BOOST_TEST_CONTEXT(name << ": " << (which == 0 ? "forward" : which == 1 ? "backward" : "symmetric")
                                    << (zero ? ", zero guess" : "") << ", omega " << omega << ", shift " << shift
                                    << ", its " << its) {
              std::vector<double> mdiag(m), idiag(m), t(m), x = x0;
              BOOST_TEST_REQUIRE(hm_sor_diagonal(A.view(), omega, shift, mdiag.data(), idiag.data()) == Index(-1));
              hm_sor(A.view(), b.data(), x.data(), omega, sw, its, mdiag.data(), idiag.data(), t.data());
              DeviceArray<double> dm(mdiag), di(idiag);
              dx.upload(x0);
              PDIAG_CUDA_REQUIRE(cuda::hm_sor(dA.view(), db.get(), dx.get(), omega, sw, its, dm.get(), di.get(),
                                              dt.get(), fwd.view(), bwd.view(), stream));
              sync_checked(stream, "hm_sor");
              const std::vector<double> gx = dx.download();
              BOOST_TEST(rel_err(gx, x) < 1e-13);
              BOOST_TEST(rel_err(x, x0) > 1e-3);  // the sweep did something
              rx.upload(x0);
              rx2.upload(x0);
              const long before = graph.recordings();
              PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), gb.get(), rx.get(), omega, sw, its, dm.get(), di.get(), dt.get(),
                                             fwd.view(), bwd.view(), stream));
              sync_checked(stream, "SorGraph sweep");
              BOOST_TEST(rel_err(rx.download(), x) < 1e-13);
              // recorded for a new variant, unless its arrays sit where a
              // freed earlier variant's did (the allocator reuses addresses,
              // and the graph keys on them: then it is replayed, as it may be)
              BOOST_TEST(graph.recordings() <= before + 1);
              variants = graph.recordings();
              PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), gb2.get(), rx2.get(), omega, sw, its, dm.get(), di.get(),
                                             dt.get(), fwd.view(), bwd.view(), stream));
              sync_checked(stream, "SorGraph sweep, other vectors");
              BOOST_TEST(rel_err(rx2.download(), x) < 1e-13);
              BOOST_TEST(rel_err(rx.download(), x) < 1e-13);  // the first x not written again
              BOOST_TEST(rel_err(gb2.download(), b) == 0.0);
              BOOST_TEST(graph.recordings() == variants);  // replayed, not recorded again
              // back to the first vectors: a sweep from x (or the zero guess) again
              rx.upload(x0);
              PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), gb.get(), rx.get(), omega, sw, its, dm.get(), di.get(), dt.get(),
                                             fwd.view(), bwd.view(), stream));
              sync_checked(stream, "SorGraph sweep, first vectors");
              BOOST_TEST(rel_err(rx.download(), x) < 1e-13);
              BOOST_TEST(graph.recordings() == variants);
            }
          }
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(sor, StreamFixture)

BOOST_AUTO_TEST_CASE(grid_stencils) {
  std::mt19937_64 rng(5);
  for (const GridCase& g : grid_cases()) compare_all(g.name, grid_matrix(g, rng), rng, stream);
  // a grid large enough for levels of many blocks and a long schedule
  compare_all("7-point 40x30x20", grid_matrix({"big", 40, 30, 20, false, 0}, rng), rng, stream);
}

BOOST_AUTO_TEST_CASE(random_diagonal_matrices) {
  std::mt19937_64 rng(9);
  for (double density : {0.1, 0.5, 1.0})
    compare_all("random, density " + std::to_string(density),
                random_diag_matrix(500, {-301, -57, -13, -2, -1, 3, 8, 41, 120}, density, rng), rng, stream);
  // more diagonals than the kernel stages in shared memory (1024): metadata read from global memory
  std::vector<Index> many;
  for (Index d = -1500; d <= 1500; d += 2) many.push_back(d == 0 ? 1 : d);
  compare_all("random, 1501 diagonals", random_diag_matrix(1600, many, 0.02, rng), rng, stream);
}

BOOST_AUTO_TEST_CASE(refuses_bad_schedules) {
  std::mt19937_64 rng(3);
  const HmMatrix<double> A = grid_matrix(grid_cases()[0], rng);
  const Index m = A.layout.nrows;
  const DeviceHm<double> dA(A);
  DeviceArray<double> v(std::vector<double>(static_cast<std::size_t>(m), 1.0));
  const DeviceLevels fwd(hm_level_schedule(A.view(), SweepDirection::Forward));
  LevelSchedule short_s = fwd.host;
  short_s.level_ptr.pop_back();  // misses the last level's rows
  const DeviceLevels bad(short_s);
  SorSweeps sw;
  sw.forward = sw.backward = true;
  BOOST_TEST(cuda::hm_sor(dA.view(), v.get(), v.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), bad.view(),
                          stream) == cudaErrorInvalidValue);
  sw.backward = false;  // the backward schedule is not needed then
  PDIAG_CUDA_REQUIRE(cuda::hm_sor(dA.view(), v.get(), v.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(),
                                  bad.view(), stream));
  sync_checked(stream, "forward only");
  const HmMatrix<double> R(Layout::rect(4, 5), {0, 1});
  const DeviceHm<double> dR(R);
  BOOST_TEST(cuda::hm_sor(dR.view(), v.get(), v.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), fwd.view(),
                          stream) == cudaErrorInvalidValue);
  // the graph checks the same and records nothing for a refused sweep
  cuda::SorGraph<double> graph;
  sw.backward = true;
  BOOST_TEST(graph.sweep(dA.view(), v.get(), v.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), bad.view(),
                         stream) == cudaErrorInvalidValue);
  sw.backward = false;
  BOOST_TEST(graph.sweep(dR.view(), v.get(), v.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), fwd.view(),
                         stream) == cudaErrorInvalidValue);
  BOOST_TEST(graph.recordings() == 0);
  // reset drops it: the next sweep records again
  DeviceArray<double> w(std::vector<double>(static_cast<std::size_t>(m), 1.0));
  PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), v.get(), w.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), bad.view(), stream));
  graph.reset();
  PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), v.get(), w.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), bad.view(), stream));
  sync_checked(stream, "SorGraph after reset");
  BOOST_TEST(graph.recordings() == 2);
  // two argument sets alternating (a smoother's sweeps with and without a
  // zero initial guess) keep their graphs: each recorded once
  SorSweeps zero = sw;
  zero.zero_initial_guess = true;
  for (int k = 0; k < 3; ++k) {
    PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), v.get(), w.get(), 1.0, zero, 1, v.get(), v.get(), v.get(), fwd.view(), bad.view(), stream));
    PDIAG_CUDA_REQUIRE(graph.sweep(dA.view(), v.get(), w.get(), 1.0, sw, 1, v.get(), v.get(), v.get(), fwd.view(), bad.view(), stream));
  }
  sync_checked(stream, "SorGraph alternating");
  BOOST_TEST(graph.recordings() == 3);
}

BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(13);
  const HmMatrix<double> Ad = grid_matrix(grid_cases()[1], rng);
  const HmMatrix<float> A = cast<float>(Ad);
  const Index m = A.layout.nrows;
  std::vector<float> b(m), x(m, 0.0f), mdiag(m), idiag(m), t(m);
  for (Index i = 0; i < m; ++i) b[i] = float(i % 7) - 3.0f;
  SorSweeps sw;
  sw.forward = sw.backward = sw.zero_initial_guess = true;
  hm_sor_diagonal(A.view(), 1.0f, 0.0f, mdiag.data(), idiag.data());
  const std::vector<float> x0 = x;
  hm_sor(A.view(), b.data(), x.data(), 1.0f, sw, 2, mdiag.data(), idiag.data(), t.data());
  const DeviceHm<float> dA(A);
  const DeviceLevels fwd(hm_level_schedule(A.view(), SweepDirection::Forward));
  const DeviceLevels bwd(hm_level_schedule(A.view(), SweepDirection::Backward));
  DeviceArray<float> db(b), dx(x0), dm(mdiag), di(idiag), dt(t);
  PDIAG_CUDA_REQUIRE(cuda::hm_sor(dA.view(), db.get(), dx.get(), 1.0f, sw, 2, dm.get(), di.get(), dt.get(), fwd.view(),
                                  bwd.view(), stream));
  sync_checked(stream, "float hm_sor");
  const std::vector<float> g = dx.download();
  BOOST_TEST(norm2(x) > 0);
  BOOST_TEST(rel_err(g, x) < 1e-5);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_sor_cuda")
