// pdiag::cuda::vertex_q1_prolong / vertex_q1_restrict (kernels/src/transfer.cu)
// against their CPU references (pdiag/transfer.hpp) on the cases of
// test_transfer and a larger 3D grid: with and without the added vector,
// and aliased to it, to rounding (the device may contract into FMAs).
// Null pointers and grids that are not a 2:1 refinement are refused with
// nothing enqueued. Without a CUDA device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE transfer_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "pdiag/transfer_cuda.hpp"
#include "transfer_testing.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

void check_case(const VertexGrids& g, std::mt19937_64& rng, cudaStream_t stream) {
  const Index nf = g.fine_points(), nc = g.coarse_points();
  const std::vector<double> xc = random_vector(rng, nc), zf = random_vector(rng, nf);
  const std::vector<double> xf = random_vector(rng, nf), zc = random_vector(rng, nc);
  DeviceArray<double> d_xc(xc), d_zf(zf), d_xf(xf), d_zc(zc), d_yf(std::vector<double>(nf, 7.0)), d_yc(std::vector<double>(nc, 7.0));
  std::vector<double> expect_f(nf), expect_c(nc);

  vertex_q1_prolong(g, xc.data(), expect_f.data());
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_prolong(g, d_xc.get(), d_yf.get(), nullptr, stream));
  sync_checked(stream, "vertex_q1_prolong");
  BOOST_TEST(max_rel_diff(d_yf.download(), expect_f) < 1e-15);
  vertex_q1_prolong(g, xc.data(), expect_f.data(), zf.data());
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_prolong(g, d_xc.get(), d_yf.get(), d_zf.get(), stream));
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_prolong(g, d_xc.get(), d_zf.get(), d_zf.get(), stream)); /* aliased */
  sync_checked(stream, "vertex_q1_prolong with z");
  BOOST_TEST(max_rel_diff(d_yf.download(), expect_f) < 1e-15);
  BOOST_TEST(max_rel_diff(d_zf.download(), expect_f) < 1e-15);

  vertex_q1_restrict(g, xf.data(), expect_c.data());
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_restrict(g, d_xf.get(), d_yc.get(), nullptr, stream));
  sync_checked(stream, "vertex_q1_restrict");
  BOOST_TEST(max_rel_diff(d_yc.download(), expect_c) < 1e-15);
  vertex_q1_restrict(g, xf.data(), expect_c.data(), zc.data());
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_restrict(g, d_xf.get(), d_yc.get(), d_zc.get(), stream));
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_restrict(g, d_xf.get(), d_zc.get(), d_zc.get(), stream));
  sync_checked(stream, "vertex_q1_restrict with z");
  BOOST_TEST(max_rel_diff(d_yc.download(), expect_c) < 1e-15);
  BOOST_TEST(max_rel_diff(d_zc.download(), expect_c) < 1e-15);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(transfer, StreamFixture)

BOOST_AUTO_TEST_CASE(against_cpu_reference) {
  std::mt19937_64 rng(5);
  for (const TransferCase& c : transfer_cases()) BOOST_TEST_CONTEXT(c.name) { check_case(c.g, rng, stream); }
  VertexGrids big; /* more points than one wave of blocks */
  const Index coarse[3] = {65, 33, 17};
  for (int d = 0; d < 3; ++d) big.coarse[d] = coarse[d], big.fine[d] = 2 * coarse[d] - 1;
  BOOST_TEST_CONTEXT("3D 129x65x33 <- 65x33x17") { check_case(big, rng, stream); }
}

BOOST_AUTO_TEST_CASE(bad_arguments_refused) {
  VertexGrids g;
  g.fine[0] = 9, g.coarse[0] = 5;
  DeviceArray<double> v(std::vector<double>(9, 0.0));
  VertexGrids not_refined = g;
  not_refined.fine[0] = 10;
  BOOST_TEST(cuda::vertex_q1_prolong(g, static_cast<const double*>(nullptr), v.get(), nullptr, stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::vertex_q1_prolong(g, v.get(), static_cast<double*>(nullptr), nullptr, stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::vertex_q1_restrict(g, static_cast<const double*>(nullptr), v.get(), nullptr, stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::vertex_q1_restrict(not_refined, v.get(), v.get(), nullptr, stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::vertex_q1_prolong(not_refined, v.get(), v.get(), nullptr, stream) == cudaErrorInvalidValue);
  BOOST_TEST(cudaGetLastError() == cudaSuccess);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("transfer_cuda")
