// pdiag::cuda::hm_values_at_csr / hm_set_from_csr (kernels/src/csr_values.cu)
// against their CPU references (pdiag/csr_values.hpp) on the cases of
// test_csr_values: the same values exactly (they are copied, not computed),
// the same count of entries on missing diagonals, 32- and 64-bit CSR
// indices, the count of nonzero values; null pointers refused. Without a CUDA device: SKIPPED, exit 77.
#define BOOST_TEST_MODULE csr_values_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "csr_values_testing.hpp"
#include "cuda_testing.hpp"
#include "pdiag/csr_values.hpp"
#include "pdiag/csr_values_cuda.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

template <class I>
void check_case(const CsrValuesCase& c, cudaStream_t stream) {
  const std::vector<I> rowptr(c.rowptr.begin(), c.rowptr.end()), colidx(c.colidx.begin(), c.colidx.end());
  DeviceArray<I> d_rowptr(rowptr), d_colidx(colidx);
  /* values at the pattern */
  std::vector<double> expect(colidx.size());
  hm_values_at_csr(c.A.view(), rowptr.data(), colidx.data(), expect.data());
  DeviceHm<double> dA(c.A);
  DeviceArray<double> out(std::vector<double>(colidx.size(), -99.0));
  PDIAG_CUDA_REQUIRE(cuda::hm_values_at_csr(dA.view(), d_rowptr.get(), d_colidx.get(), out.get(), stream));
  sync_checked(stream, "hm_values_at_csr");
  BOOST_TEST(out.download() == expect);
  /* A's diagonals filled from other values: placed entries and misses as on the host */
  std::vector<double> vals(colidx.size());
  for (std::size_t e = 0; e < vals.size(); ++e) vals[e] = 1.0 + double(e % 97) / 7.0;
  HmMatrix<double> C = c.A; /* stale values the device must zero */
  const Index misses = hm_set_from_csr(C.view(), rowptr.data(), colidx.data(), vals.data());
  DeviceHm<double> dC(c.A);
  DeviceArray<double> d_vals(vals);
  DeviceArray<unsigned long long> d_misses(std::vector<unsigned long long>{0ull});
  const HmView<double> cview{dC.layout, dC.ndiag, dC.offsets.get(), dC.start.get(), dC.val.get()};
  PDIAG_CUDA_REQUIRE(cuda::hm_set_from_csr(cview, c.A.nstored(), d_rowptr.get(), d_colidx.get(), d_vals.get(), d_misses.get(), stream));
  sync_checked(stream, "hm_set_from_csr");
  BOOST_TEST(dC.val.download() == C.val);
  BOOST_TEST(Index(d_misses.download()[0]) == misses);
  /* the nonzeros of the values at the pattern, counted on the device */
  DeviceArray<unsigned long long> count(std::vector<unsigned long long>{0ull});
  PDIAG_CUDA_REQUIRE(cuda::count_nonzeros(out.get(), Index(expect.size()), count.get(), stream));
  sync_checked(stream, "count_nonzeros");
  BOOST_TEST(count.download()[0] == static_cast<unsigned long long>(std::count_if(expect.begin(), expect.end(), [](double v) { return v != 0.0; })));
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(csr_values, StreamFixture)

BOOST_AUTO_TEST_CASE(against_cpu_reference) {
  std::mt19937_64 rng(7);
  for (const CsrValuesCase& c : csr_values_cases(rng)) {
    BOOST_TEST_CONTEXT(c.name << ", 32-bit indices") { check_case<std::int32_t>(c, stream); }
    BOOST_TEST_CONTEXT(c.name << ", 64-bit indices") { check_case<std::int64_t>(c, stream); }
  }
}

BOOST_AUTO_TEST_CASE(null_pointers_refused) {
  const HmMatrix<double> A(Layout::square(10), {0});
  DeviceHm<double> dA(A);
  DeviceArray<std::int32_t> ptr(std::vector<std::int32_t>(11, 0));
  DeviceArray<double> out(std::vector<double>{0.0});
  DeviceArray<unsigned long long> misses(std::vector<unsigned long long>{0ull});
  const HmView<double> cview{dA.layout, dA.ndiag, dA.offsets.get(), dA.start.get(), dA.val.get()};
  const std::int32_t* p = ptr.get();
  const cudaError_t no_rowptr = cuda::hm_values_at_csr(dA.view(), static_cast<const std::int32_t*>(nullptr), p, out.get(), stream);
  const cudaError_t no_out = cuda::hm_values_at_csr(dA.view(), p, p, static_cast<double*>(nullptr), stream);
  const cudaError_t no_misses = cuda::hm_set_from_csr(cview, A.nstored(), p, p, out.get(), nullptr, stream);
  const cudaError_t negative = cuda::hm_set_from_csr(cview, Index(-1), p, p, out.get(), misses.get(), stream);
  const cudaError_t no_count = cuda::count_nonzeros(out.get(), Index(1), nullptr, stream);
  BOOST_TEST(no_rowptr == cudaErrorInvalidValue);
  BOOST_TEST(no_out == cudaErrorInvalidValue);
  BOOST_TEST(no_misses == cudaErrorInvalidValue);
  BOOST_TEST(negative == cudaErrorInvalidValue);
  BOOST_TEST(no_count == cudaErrorInvalidValue);
  BOOST_TEST(cudaGetLastError() == cudaSuccess);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("csr_values_cuda")
