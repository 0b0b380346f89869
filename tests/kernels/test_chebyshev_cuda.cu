// pdiag::cuda::chebyshev_jacobi_update and jacobi_inverse
// (kernels/src/chebyshev.cu) against their CPU references
// (pdiag/chebyshev.hpp): every combination of null arguments, in place,
// sizes below one block and beyond one wave of blocks, to rounding (the
// device may contract into FMAs); the zero count of jacobi_inverse. Without
// a CUDA device: SKIPPED, exit 77. The fused symmetric step against its
// CPU reference (7- and 27-point, a zero on the diagonal) and the symmetry
// check (a symmetric operator; one entry off by rounding: symmetric within
// a tolerance, not exactly). The symmetric product and the fused residual
// (kernels/src/symmetric.cu, spmv.cu) against their CPU references.
#define BOOST_TEST_MODULE chebyshev_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "chebyshev_testing.hpp"
#include "cuda_testing.hpp"
#include "pdiag/chebyshev_cuda.hpp"
#include "pdiag/spmv_cuda.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>

using namespace pdiag;
using namespace pdiag::testing;

BOOST_FIXTURE_TEST_SUITE(chebyshev_cuda, StreamFixture)

BOOST_AUTO_TEST_CASE(update_against_cpu_reference) {
  std::mt19937_64 rng(11);
  for (Index n : {Index(1), Index(255), Index(257), Index(3000001)}) {
    const std::vector<double> xc = random_vector(n, rng), xo = random_vector(n, rng), d = random_vector(n, rng), r = random_vector(n, rng), w = random_vector(n, rng);
    DeviceArray<double> d_xc(xc), d_d(d), d_r(r), d_w(w);
    for (int mask = 0; mask < 8; ++mask) {  // which of x_cur, x_old, ax are given
      const bool has_cur = mask & 1, has_old = mask & 2, has_ax = mask & 4;
      BOOST_TEST_CONTEXT("n=" << n << " x_cur " << has_cur << " x_old " << has_old << " ax " << has_ax) {
        std::vector<double> expect(xo);
        chebyshev_jacobi_update(n, 0.7, has_cur ? xc.data() : nullptr, 0.3, has_old ? expect.data() : nullptr, 1.3, d.data(), r.data(), has_ax ? w.data() : nullptr, expect.data());
        DeviceArray<double> d_xo(xo);  // x_new in x_old's storage, as the PC uses it
        PDIAG_CUDA_REQUIRE(cuda::chebyshev_jacobi_update(n, 0.7, has_cur ? d_xc.get() : nullptr, 0.3, has_old ? d_xo.get() : nullptr, 1.3, d_d.get(), d_r.get(), has_ax ? d_w.get() : nullptr, d_xo.get(), stream));
        sync_checked(stream, "chebyshev_jacobi_update");
        BOOST_TEST(max_rel_diff(d_xo.download(), expect) < 1e-15);
      }
    }
  }
  BOOST_TEST(cuda::chebyshev_jacobi_update<double>(0, 1, nullptr, 0, nullptr, 1, nullptr, nullptr, nullptr, nullptr, stream) == cudaSuccess);
}

BOOST_AUTO_TEST_CASE(jacobi_inverse_against_cpu_reference) {
  std::mt19937_64 rng(12);
  const Index n = 1000003;
  std::vector<double> d = random_vector(n, rng);
  for (Index i = 0; i < n; i += 997) d[i] = 0.0;
  DeviceArray<double> d_d(d);
  DeviceArray<unsigned long long> count(std::vector<unsigned long long>(1, 5));
  const Index zeros = jacobi_inverse(n, d.data());
  PDIAG_CUDA_REQUIRE(cuda::jacobi_inverse(n, d_d.get(), count.get(), stream));
  sync_checked(stream, "jacobi_inverse");
  BOOST_TEST(max_rel_diff(d_d.download(), d) < 1e-15);
  BOOST_TEST(count.download()[0] == 5 + static_cast<unsigned long long>(zeros));
}

BOOST_AUTO_TEST_CASE(symmetric_step_against_cpu_reference) {
  std::mt19937_64 rng(13);
  for (bool box : {false, true})
    for (Index nx : {Index(7), Index(61)}) {
      HmMatrix<double> A = symmetric_stencil(nx, 5, 6, box, rng);
      const Index n = A.layout.nrows;
      *A.find(3, 3) = 0.0;
      SymmetricHmView<double> S, dS;
      BOOST_REQUIRE(symmetric_hm_view(A.view(), &S));
      DeviceArray<double> d_val(A.val);
      const HmView<const double> dA{A.layout, A.ndiag(), A.offsets.data(), A.start.data(), d_val.get()};  // host metadata, device values
      BOOST_REQUIRE(symmetric_hm_view(dA, &dS));
      const std::vector<double> xc = random_vector(n, rng), xo = random_vector(n, rng), r = random_vector(n, rng);
      DeviceArray<double> d_xc(xc), d_r(r);
      for (bool has_old : {true, false}) BOOST_TEST_CONTEXT("box " << box << " nx " << nx << " x_old " << has_old) {
        std::vector<double> expect(xo);
        chebyshev_jacobi_step_symmetric(S, 0.7, xc.data(), 0.3, has_old ? expect.data() : nullptr, 1.3, r.data(), expect.data());
        DeviceArray<double> d_xo(xo);  // x_new in x_old's storage
        PDIAG_CUDA_REQUIRE(cuda::chebyshev_jacobi_step_symmetric(dS, 0.7, d_xc.get(), 0.3, has_old ? d_xo.get() : nullptr, 1.3, d_r.get(), d_xo.get(), stream));
        sync_checked(stream, "chebyshev_jacobi_step_symmetric");
        BOOST_TEST(max_rel_diff(d_xo.download(), expect) < 1e-14);
      }
      DeviceArray<int> flag(std::vector<int>(1, 0));
      PDIAG_CUDA_REQUIRE(cuda::hm_values_symmetric(dS, 0.0, flag.get(), stream));
      sync_checked(stream, "hm_values_symmetric");
      BOOST_TEST(flag.download()[0] == 0);
      std::vector<double> skew = A.val;  // one lower entry off by rounding
      skew[static_cast<std::size_t>(A.start[0] + 1)] *= 1.0 + 4e-15;
      DeviceArray<double> d_skew(skew);
      const HmView<const double> dB{A.layout, A.ndiag(), A.offsets.data(), A.start.data(), d_skew.get()};
      BOOST_REQUIRE(symmetric_hm_view(dB, &dS));
      PDIAG_CUDA_REQUIRE(cuda::hm_values_symmetric(dS, 1e-12, flag.get(), stream));
      sync_checked(stream, "hm_values_symmetric, skewed within the tolerance");
      BOOST_TEST(flag.download()[0] == 0);
      PDIAG_CUDA_REQUIRE(cuda::hm_values_symmetric(dS, 0.0, flag.get(), stream));
      sync_checked(stream, "hm_values_symmetric, skewed");
      BOOST_TEST(flag.download()[0] == 1);
    }
}

// cuda::hm_spmv_symmetric (product, product + z, residual in place over b)
// and cuda::hm_residual (every diagonal read) against the CPU references,
// 7- and 27-point, below one block and beyond one wave of blocks.
BOOST_AUTO_TEST_CASE(symmetric_product_and_residual_against_cpu_reference) {
  std::mt19937_64 rng(14);
  for (bool box : {false, true})
    for (const std::array<Index, 3>& g : {std::array<Index, 3>{7, 5, 2}, std::array<Index, 3>{7, 5, 6}, std::array<Index, 3>{101, 100, 120}})
      BOOST_TEST_CONTEXT("box " << box << " grid " << g[0] << "x" << g[1] << "x" << g[2]) {
        HmMatrix<double> A = symmetric_stencil(g[0], g[1], g[2], box, rng);
        const Index n = A.layout.nrows;
        SymmetricHmView<double> S, dS;
        BOOST_REQUIRE(symmetric_hm_view(A.view(), &S));
        DeviceArray<double> d_val(A.val);
        const HmView<const double> dA{A.layout, A.ndiag(), A.offsets.data(), A.start.data(), d_val.get()};
        BOOST_REQUIRE(symmetric_hm_view(dA, &dS));
        const std::vector<double> x = random_vector(n, rng), z = random_vector(n, rng);
        DeviceArray<double> d_x(x), d_z(z), d_y(std::vector<double>(n, 0.0));
        std::vector<double> expect(n);
        hm_spmv_symmetric(S, x.data(), expect.data());
        PDIAG_CUDA_REQUIRE(cuda::hm_spmv_symmetric(dS, d_x.get(), d_y.get(), 1.0, nullptr, stream));
        sync_checked(stream, "hm_spmv_symmetric");
        BOOST_TEST(max_rel_diff(d_y.download(), expect) < 1e-14);
        hm_spmv_symmetric(S, x.data(), expect.data(), 1.0, z.data());
        PDIAG_CUDA_REQUIRE(cuda::hm_spmv_symmetric(dS, d_x.get(), d_y.get(), 1.0, d_z.get(), stream));
        sync_checked(stream, "hm_spmv_symmetric + z");
        BOOST_TEST(max_rel_diff(d_y.download(), expect) < 1e-14);
        expect = z;
        hm_spmv_symmetric(S, x.data(), expect.data(), -1.0, expect.data());
        DeviceArray<double> d_r(z);  // r over b
        PDIAG_CUDA_REQUIRE(cuda::hm_spmv_symmetric(dS, d_x.get(), d_r.get(), -1.0, d_r.get(), stream));
        sync_checked(stream, "hm_spmv_symmetric residual");
        BOOST_TEST(max_rel_diff(d_r.download(), expect) < 1e-13);
        // every diagonal read: b - A x against hm_spmv then the subtraction
        hm_spmv(A.view(), x.data(), expect.data());
        for (Index i = 0; i < n; ++i) expect[i] = z[i] - expect[i];
        DeviceArray<Index> d_offs(A.offsets), d_start(A.start);
        const HmView<const double> dAd{A.layout, A.ndiag(), d_offs.get(), d_start.get(), d_val.get()};  // device metadata (the kernel reads it)
        DeviceArray<double> d_r2(z);
        PDIAG_CUDA_REQUIRE(cuda::hm_residual(dAd, d_x.get(), d_r2.get(), d_r2.get(), nullptr, 0, -1, stream));
        sync_checked(stream, "hm_residual");
        BOOST_TEST(max_rel_diff(d_r2.download(), expect) < 1e-13);
        // part of the rows: the others untouched
        DeviceArray<double> d_r3(z);
        PDIAG_CUDA_REQUIRE(cuda::hm_residual(dAd, d_x.get(), d_z.get(), d_r3.get(), nullptr, 1, n - 1, stream));
        sync_checked(stream, "hm_residual, rows 1..n-1");
        std::vector<double> part = d_r3.download();
        BOOST_TEST(part[0] == z[0]);
        BOOST_TEST(part[n - 1] == z[n - 1]);
        part[0] = expect[0], part[n - 1] = expect[n - 1];
        BOOST_TEST(max_rel_diff(part, expect) < 1e-13);
        BOOST_TEST(cuda::hm_residual(dAd, d_x.get(), static_cast<const double*>(nullptr), d_r3.get(), nullptr, 0, -1, stream) == cudaErrorInvalidValue);
      }
}

// A constant-coefficient 7-point operator on nx x ny x nz points whose
// boundary rows hold only a diagonal 1 (ex45's shape: the compressed form
// has constant diagonals and exception rows); with `full`, the +x
// diagonal's values random (a packed, full diagonal as well).
HmMatrix<double> dirichlet_stencil(Index nx, Index ny, Index nz, bool full, std::mt19937_64& rng) {
  const Index n = nx * ny * nz;
  HmMatrix<double> A(Layout::square(n), {-nx * ny, -nx, -1, 0, 1, nx, nx * ny});
  std::uniform_real_distribution<double> u(-1.2, -0.8);
  for (Index z = 0; z < nz; ++z)
    for (Index y = 0; y < ny; ++y)
      for (Index x = 0; x < nx; ++x) {
        const Index i = x + nx * (y + ny * z);
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
          *A.find(i, i) = 1.0;
          continue;
        }
        *A.find(i, i) = 6.0;
        for (Index d : {-nx * ny, -nx, Index(-1), Index(1), nx, nx * ny}) *A.find(i, i + d) = (full && d == 1) ? u(rng) : -1.0;
      }
  return A;
}

BOOST_AUTO_TEST_CASE(compressed_step_against_product_and_update) {
  std::mt19937_64 rng(14);
  for (bool full : {false, true})
    for (Index nx : {Index(40), Index(61)}) {  // large enough that the boundary rows are exceptions, not packed diagonals
      const HmMatrix<double> A = dirichlet_stencil(nx, 20, 20, full, rng);
      const Index n = A.layout.nrows;
      const HmCompressed<double> C = hm_compress(A);
      BOOST_REQUIRE(C.nrows_exc() > 0);
      BOOST_REQUIRE((C.packed.size() > 0) == full);
      const DeviceCompressed<double> dC(C);
      std::vector<double> dinv(static_cast<std::size_t>(n));
      for (Index i = 0; i < n; ++i) dinv[static_cast<std::size_t>(i)] = 1.0 / *A.find(i, i);
      const std::vector<double> xc = random_vector(n, rng), xo = random_vector(n, rng), r = random_vector(n, rng);
      std::vector<double> ax(static_cast<std::size_t>(n));
      hm_compressed_spmv(C.view(), xc.data(), ax.data());
      DeviceArray<double> d_xc(xc), d_r(r), d_dinv(dinv);
      for (bool has_old : {true, false}) BOOST_TEST_CONTEXT("full " << full << " nx " << nx << " x_old " << has_old) {
        std::vector<double> expect(xo);  // the product, then the update
        chebyshev_jacobi_update(n, 0.7, xc.data(), 0.3, has_old ? expect.data() : nullptr, 1.3, dinv.data(), r.data(), ax.data(), expect.data());
        DeviceArray<double> d_xo(xo);  // x_new in x_old's storage
        PDIAG_CUDA_REQUIRE(cuda::chebyshev_jacobi_step_compressed(dC.view(), 0.7, d_xc.get(), 0.3, has_old ? d_xo.get() : nullptr, 1.3, d_dinv.get(), d_r.get(), d_xo.get(), stream));
        sync_checked(stream, "chebyshev_jacobi_step_compressed");
        BOOST_TEST(max_rel_diff(d_xo.download(), expect) < 1e-13);
      }
      // x_new may not be x_cur (other rows read it)
      BOOST_TEST(cuda::chebyshev_jacobi_step_compressed(dC.view(), 0.7, d_xc.get(), 0.3, static_cast<const double*>(nullptr), 1.3, d_dinv.get(), d_r.get(), d_xc.get(), stream) == cudaErrorInvalidValue);
    }
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("chebyshev_cuda")
