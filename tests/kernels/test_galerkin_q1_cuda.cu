// pdiag::cuda::vertex_q1_galerkin (kernels/src/galerkin_q1.cu) against its
// CPU reference (pdiag/galerkin_q1.hpp) on the cases of test_galerkin_q1 and
// a larger 3D grid (more rows than one wave of blocks), star and box
// operators, and a constant-coefficient operator read in compressed form:
// to rounding (the device may contract into FMAs), every stored entry
// written; failure reported through the device word for a
// wrapping nonzero and left clear otherwise; bad sizes and a null word
// refused with nothing enqueued. Without a CUDA device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE galerkin_q1_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "galerkin_q1_testing.hpp"
#include "pdiag/galerkin_q1_cuda.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/* C on the device for A; *failed the device word's value. */
HmMatrix<double> device_galerkin(const VertexGrids& g, const HmMatrix<double>& A, cudaStream_t stream, unsigned* failed) {
  Q1Places places;
  HmMatrix<double> C = galerkin_structure(g, &places);
  std::fill(C.val.begin(), C.val.end(), 1e300); /* every entry must be written */
  DeviceHm<double> dA(A), dC(C);
  DeviceArray<unsigned> word(std::vector<unsigned>{0u});
  const HmView<double> out{dC.layout, dC.ndiag, dC.offsets.get(), dC.start.get(), dC.val.get()};
  PDIAG_CUDA_REQUIRE(cuda::vertex_q1_galerkin(g, dA.view(), places, out, word.get(), stream));
  sync_checked(stream, "vertex_q1_galerkin");
  C.val = dC.val.download();
  *failed = word.download()[0];
  return C;
}

void check_case(const VertexGrids& g, std::mt19937_64& rng, cudaStream_t stream) {
  for (bool box : {false, true}) {
    BOOST_TEST_CONTEXT((box ? "box" : "star")) {
      const HmMatrix<double> A = stencil_operator(g, box, rng);
      Q1Places places;
      HmMatrix<double> expect = galerkin_structure(g, &places);
      BOOST_TEST(vertex_q1_galerkin(g, A.view(), places, expect.view()));
      unsigned failed = 7;
      const HmMatrix<double> C = device_galerkin(g, A, stream, &failed);
      BOOST_TEST(failed == 0u);
      BOOST_TEST(max_rel_diff(C.val, expect.val) < 1e-14);
    }
  }
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(galerkin_q1, StreamFixture)

BOOST_AUTO_TEST_CASE(against_cpu_reference) {
  std::mt19937_64 rng(13);
  for (const TransferCase& c : transfer_cases()) BOOST_TEST_CONTEXT(c.name) { check_case(c.g, rng, stream); }
  VertexGrids big;
  const Index coarse[3] = {65, 33, 17};
  for (int d = 0; d < 3; ++d) big.coarse[d] = coarse[d], big.fine[d] = 2 * coarse[d] - 1;
  BOOST_TEST_CONTEXT("3D 129x65x33 <- 65x33x17") { check_case(big, rng, stream); }
}

BOOST_AUTO_TEST_CASE(compressed_operator) {
  VertexGrids big; /* enough interior for constant diagonals */
  const Index coarse[3] = {33, 17, 9};
  for (int d = 0; d < 3; ++d) big.coarse[d] = coarse[d], big.fine[d] = 2 * coarse[d] - 1;
  for (bool box : {false, true}) {
    BOOST_TEST_CONTEXT((box ? "box" : "star")) {
      const HmMatrix<double> A = constant_operator(big, box);
      const HmCompressed<double> Z = hm_compress(A);
      BOOST_TEST(Z.nconstant() == A.ndiag());
      Q1Places places;
      HmMatrix<double> expect = galerkin_structure(big, &places), C = galerkin_structure(big, &places);
      BOOST_TEST(vertex_q1_galerkin(big, A.view(), places, expect.view()));
      std::fill(C.val.begin(), C.val.end(), 1e300);
      DeviceCompressed<double> dZ(Z);
      DeviceHm<double> dC(C);
      DeviceArray<unsigned> word(std::vector<unsigned>{0u});
      const HmView<double> out{dC.layout, dC.ndiag, dC.offsets.get(), dC.start.get(), dC.val.get()};
      PDIAG_CUDA_REQUIRE(cuda::vertex_q1_galerkin(big, dZ.view(), places, out, word.get(), stream));
      sync_checked(stream, "vertex_q1_galerkin (compressed)");
      BOOST_TEST(word.download()[0] == 0u);
      BOOST_TEST(max_rel_diff(dC.val.download(), expect.val) < 1e-14);
    }
  }
}

BOOST_AUTO_TEST_CASE(wrapping_nonzero_reported) {
  std::mt19937_64 rng(14);
  VertexGrids g;
  const Index c[3] = {5, 4, 3};
  for (int d = 0; d < 3; ++d) g.coarse[d] = c[d], g.fine[d] = 2 * c[d] - 1;
  HmMatrix<double> A = stencil_operator(g, true, rng);
  const Index e = Index(std::find(A.offsets.begin(), A.offsets.end(), 1) - A.offsets.begin());
  A.val[A.start[e] + g.fine[0] - 1 - A.layout.lo(1)] = 0.25; /* (8, 0, 0) -> (0, 1, 0) */
  unsigned failed = 0;
  device_galerkin(g, A, stream, &failed);
  BOOST_TEST(failed != 0u);
}

BOOST_AUTO_TEST_CASE(bad_arguments_refused) {
  VertexGrids g;
  g.fine[0] = 9, g.coarse[0] = 5;
  Q1Places places;
  HmMatrix<double> C = galerkin_structure(g, &places);
  const HmMatrix<double> A(Layout::square(9), {0}), wrong(Layout::square(8), {0});
  DeviceHm<double> dA(A), dW(wrong), dC(C);
  DeviceArray<unsigned> word(std::vector<unsigned>{0u});
  const HmView<double> out{dC.layout, dC.ndiag, dC.offsets.get(), dC.start.get(), dC.val.get()};
  BOOST_TEST(cuda::vertex_q1_galerkin(g, dA.view(), places, out, static_cast<unsigned*>(nullptr), stream) == cudaErrorInvalidValue);
  BOOST_TEST(cuda::vertex_q1_galerkin(g, dW.view(), places, out, word.get(), stream) == cudaErrorInvalidValue);
  VertexGrids not_refined = g;
  not_refined.fine[0] = 10;
  BOOST_TEST(cuda::vertex_q1_galerkin(not_refined, dA.view(), places, out, word.get(), stream) == cudaErrorInvalidValue);
  BOOST_TEST(cudaGetLastError() == cudaSuccess);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_galerkin_q1_cuda")
