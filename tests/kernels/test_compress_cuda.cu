// CUDA SpMV on compressed HM blocks (pdiag::cuda::hm_compressed_spmv)
// against the CPU reference (pdiag::hm_compressed_spmv) on the same inputs,
// to 1e-12 relative; the CPU reference is itself checked against hm_spmv and
// the dense product in test_compress.cpp, and against hm_spmv here on every
// whole-range run, so that a broken reference cannot make the comparison
// vacuous.
//
// Covered: n in {1, 2, 3, 17, 64, 1000}, square, tall and wide, whole and
// row blocks, the offset sets of testing.hpp, the value families of
// compress_testing.hpp (random: all full; constant: no values at all;
// stencil-like and mixed: constants with exceptions next to full
// diagonals); y = A x, y = A x + z, z aliasing y, and the residual
// z - A x (hm_compressed_residual, also in z's storage); default, padded and
// windowed x addressing; row ranges (middle, open-ended, clamped, empty)
// with the rows outside them checked bit-identical. Also: more diagonals
// than one shared-memory chunk, 7-point stencils (64^3 with Dirichlet rows),
// grid-stride launches of both passes, zero-size calls and defaults,
// run-to-run determinism and the float instantiation.
//
// Without a CUDA device the program prints a SKIPPED line and exits with 77
// before any test runs (ctest: SKIP_RETURN_CODE 77).
#define BOOST_TEST_MODULE compress_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "compress_testing.hpp"
#include "cuda_testing.hpp"
#include "pdiag/compress.hpp"
#include "pdiag/cpu.hpp"
#include "pdiag/spmv_cuda.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <limits>
#include <sstream>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// One matrix under test: HM and compressed host copies, the device copy.
struct Subject {
  const HmMatrix<double>& A;
  const HmCompressed<double>& C;
  DeviceCompressed<double> dev;
  std::string label;
  cudaStream_t stream;
  std::mt19937_64& rng;
};

int g_runs = 0;

/// y = A x (+ z) over rows [lo, hi) on the GPU and with the CPU reference;
/// GPU == CPU to kTol on the range, rows outside untouched bit for bit; on
/// whole-range runs the CPU reference also against hm_spmv.
void run(Subject& s, Addr addr, Mode mode, Index lo, Index hi) {
  const Layout& L = s.A.layout;
  const Index m = L.nrows;
  const Addressing ad = hm_addressing(L, s.A.offsets, addr);
  const std::vector<double> x = random_vector(ad.len, s.rng), z = random_vector(m, s.rng);
  const Index hc = (hi < 0 || hi > m) ? m : hi, lc = std::min(lo, hc);
  std::vector<double> y0(static_cast<std::size_t>(m));
  for (Index p = 0; p < m; ++p) y0[p] = mode == Mode::Alias ? z[p] : (p >= lo && p < hc) ? kNaN : 1000.0 + double(p);
  std::ostringstream os;
  os << s.label << " " << name(mode) << " addr=" << name(addr) << " rows=[" << lo << "," << hi << ")";
  const std::string what = os.str();

  std::vector<double> yc = y0;
  hm_compressed_spmv(s.C.view(), x.data(), yc.data(),
                     mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? z.data() : yc.data(), ad.ptr(), lo, hi);

  DeviceArray<double> dx(x), dy(y0), dz(z);
  DeviceArray<Index> ds(ad.shift);
  const double* zg = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? dz.get() : dy.get();
  const cudaError_t e = cuda::hm_compressed_spmv(s.dev.view(), dx.get(), dy.get(), zg,
                                                 ad.use_shift ? ds.get() : nullptr, lo, hi, s.stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
  sync_checked(s.stream, what.c_str());
  const std::vector<double> yg = dy.download();
  const std::vector<double> g(yg.begin() + lc, yg.begin() + hc), w(yc.begin() + lc, yc.begin() + hc);
  const double err = rel_err(g, w);
  BOOST_CHECK_MESSAGE(err <= kTol,
                      what << ": relative error " << err << (std::isnan(err) ? " (an entry was not written)" : ""));
  Index touched = 0;
  for (Index p = 0; p < m; ++p)
    if ((p < lc || p >= hc) && !(yg[p] == y0[p])) ++touched;
  BOOST_CHECK_MESSAGE(touched == 0, what << ": " << touched << " rows outside [" << lc << ", " << hc << ") changed");
  ++g_runs;

  if (mode != Mode::Plain) {
    // the residual z - A x (hm_compressed_residual), r in z's storage in Alias mode
    std::vector<double> ax(static_cast<std::size_t>(m), 0.0);
    hm_compressed_spmv(s.C.view(), x.data(), ax.data(), nullptr, ad.ptr(), lo, hi);
    DeviceArray<double> dr(y0);
    const cudaError_t er = cuda::hm_compressed_residual(s.dev.view(), dx.get(), mode == Mode::WithZ ? dz.get() : dr.get(), dr.get(),
                                                        ad.use_shift ? ds.get() : nullptr, lo, hi, s.stream);
    BOOST_REQUIRE_MESSAGE(er == cudaSuccess, what << " residual: launch failed: " << cudaGetErrorString(er));
    sync_checked(s.stream, (what + " residual").c_str());
    const std::vector<double> rg = dr.download();
    std::vector<double> want(w.size());
    for (Index p = lc; p < hc; ++p) want[p - lc] = z[p] - ax[p];
    const double rerr = rel_err(std::vector<double>(rg.begin() + lc, rg.begin() + hc), want);
    BOOST_CHECK_MESSAGE(rerr <= kTol, what << " residual: relative error " << rerr);
    Index rtouched = 0;
    for (Index p = 0; p < m; ++p)
      if ((p < lc || p >= hc) && !(rg[p] == y0[p])) ++rtouched;
    BOOST_CHECK_MESSAGE(rtouched == 0, what << " residual: " << rtouched << " rows outside [" << lc << ", " << hc << ") changed");
  }

  if (lo == 0 && hi < 0) {
    std::vector<double> yr = y0;
    hm_spmv(s.A.view(), x.data(), yr.data(), mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? z.data() : yr.data(),
            ad.ptr());
    BOOST_CHECK_MESSAGE(rel_err(yc, yr) <= kTol, what << ": CPU reference disagrees with hm_spmv");
  }
}

/// Every mode, addressing and a set of row ranges on one matrix.
void check_all(const HmMatrix<double>& A, const std::string& label, cudaStream_t stream, std::mt19937_64& rng) {
  const HmCompressed<double> C = hm_compress(A);
  Subject s{A, C, DeviceCompressed<double>(C), label, stream, rng};
  {
    // MatGetDiagonal of the compressed form, against the CPU reference (bitwise)
    const Index m = A.layout.nrows;
    Index k0 = -1;
    for (Index k = 0; k < A.ndiag(); ++k)
      if (A.offsets[k] == 0) k0 = k;
    std::vector<double> ref(static_cast<std::size_t>(m)), poison(ref.size(), kNaN);
    hm_compressed_get_diagonal(C.view(), ref.data());
    DeviceArray<double> dd(poison);
    const cudaError_t e = cuda::hm_compressed_get_diagonal(s.dev.view(), k0, dd.get(), stream);
    BOOST_REQUIRE_MESSAGE(e == cudaSuccess, label << ": get_diagonal launch failed: " << cudaGetErrorString(e));
    sync_checked(stream, "compressed get_diagonal");
    BOOST_CHECK_MESSAGE(dd.download() == ref, label << ": compressed main diagonal differs from the CPU's");
  }
  for (Addr a : {Addr::Default, Addr::Padded, Addr::Windowed})
    for (Mode md : {Mode::Plain, Mode::WithZ, Mode::Alias}) run(s, a, md, 0, -1);
  const Index m = A.layout.nrows;
  const std::pair<Index, Index> ranges[] = {{m / 3, m - m / 4}, {1, -1}, {m / 2, m + 5}, {m, m}, {0, 0}};
  for (const auto& [lo, hi] : ranges)
    for (Mode md : {Mode::Plain, Mode::Alias}) run(s, Addr::Default, md, lo, hi);
  run(s, Addr::Windowed, Mode::WithZ, m / 3, m - m / 4);
}

std::string label_of(const Layout& L, const std::string& oc, Family f) {
  std::ostringstream os;
  os << L.nrows_global << "x" << L.ncols << " rows [" << L.row_begin << "," << L.row_end() << ") offsets=" << oc
     << " values=" << name(f);
  return os.str();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(compress_cuda, StreamFixture)

BOOST_AUTO_TEST_CASE(all_sizes_layouts_offsets_families) {
  std::mt19937_64 rng(111);
  g_runs = 0;
  for (Index n : {1, 2, 3, 17, 64, 1000}) {
    const Index t = n + n / 2 + 1;
    const std::pair<Index, Index> shapes[] = {{n, n}, {t, n}, {n, t}};
    for (const auto& [rows, cols] : shapes)
      for (const Layout& L : row_blocks(rows, cols))
        for (const auto& oc : offset_cases(rows, cols, rng))
          for (Family f : kFamilies) {
            if (n == 1000 && oc.name == "dense") continue;
            check_all(make_family(f, L, oc.offsets, rng), label_of(L, oc.name, f), stream, rng);
          }
  }
  BOOST_TEST_MESSAGE(g_runs << " GPU runs compared");
}

// More diagonals than one shared-memory chunk (256): exactly one chunk, one
// more, and all 2n-1; all constant (no full path) and mixed.
BOOST_AUTO_TEST_CASE(many_diagonals_chunked) {
  std::mt19937_64 rng(222);
  const Index n = 600;
  std::vector<Index> all;
  for (Index d = -(n - 1); d <= n - 1; ++d) all.push_back(d);
  for (std::size_t count : {std::size_t(256), std::size_t(257), all.size()}) {
    std::vector<Index> offs = all;
    std::shuffle(offs.begin(), offs.end(), rng);
    offs.resize(count);
    for (const Layout& L : {Layout::square(n), Layout::block(n, n, n / 3, n / 2)})
      for (Family f : {Family::Constant, Family::Stencil, Family::Mixed})
        check_all(make_family(f, L, offs, rng), label_of(L, std::to_string(count) + " diagonals", f), stream, rng);
  }
}

// 7-point stencils: constant coefficients with and without Dirichlet rows
// (every diagonal constant: no values are loaded), random coefficients.
BOOST_AUTO_TEST_CASE(seven_point_stencils) {
  std::mt19937_64 rng(333);
  g_runs = 0;
  struct Grid {
    Index nx, ny, nz;
    bool dirichlet, random;
  };
  for (const Grid& g : {Grid{64, 64, 64, true, false}, Grid{40, 30, 20, false, false}, Grid{40, 30, 20, true, true}}) {
    const HmMatrix<double> A = laplace7(g.nx, g.ny, g.nz, g.dirichlet, g.random, rng);
    std::ostringstream os;
    os << "7-point " << g.nx << "x" << g.ny << "x" << g.nz << (g.dirichlet ? " dirichlet" : "")
       << (g.random ? " random" : " constant");
    const HmCompressed<double> C = hm_compress(A);
    if (!g.random) BOOST_CHECK_EQUAL(C.nconstant(), 7);
    BOOST_TEST_MESSAGE(os.str() << ": " << C.nconstant() << " constant diagonals, " << C.nexceptions()
                                << " exceptions in " << C.nrows_exc() << " rows, " << C.bytes() << " bytes vs "
                                << hm_bytes(A));
    check_all(A, os.str(), stream, rng);
  }
  BOOST_TEST_MESSAGE("7-point: " << g_runs << " GPU runs compared");
}

// More rows than pass 1's grid covers (65535 blocks of 512 rows) and more
// exception rows than pass 2's (65535 blocks of 256): three constant
// diagonals whose exceptions (24% of the entries each) fill disjoint rows,
// 72% of all; then the same with a full diagonal added.
BOOST_AUTO_TEST_CASE(grid_stride_large) {
  const Index n = Index(65535) * 512 + 777;
  std::size_t free_b = 0, total_b = 0;
  PDIAG_CUDA_REQUIRE(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < (std::size_t(4) << 30)) {
    BOOST_WARN_MESSAGE(false, "grid_stride_large needs 4 GiB of free device memory; " << free_b << " bytes free");
    return;
  }
  std::mt19937_64 rng(444);
  g_runs = 0;
  for (bool with_full : {false, true}) {
    std::vector<Index> offs{-1, 0, 1};
    if (with_full) offs.push_back(5);
    HmMatrix<double> A(Layout::square(n), offs);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (Index k = 0; k < A.ndiag(); ++k) {
      const Index d = A.offsets[k];
      for (Index i = A.layout.lo(d); i < A.layout.hi(d); ++i) {
        const Index ph = i % 25;
        double& a = A.val[A.view().pos(k, i)];
        if (d == 5)
          a = u(rng);
        else if (ph >= 6 * (d + 1) && ph < 6 * (d + 2))  // -1: [0, 6), 0: [6, 12), 1: [12, 18)
          a = 100.0 + 0.5 * double(ph);
        else
          a = d == 0 ? 4.0 : -1.0;
      }
    }
    const HmCompressed<double> C = hm_compress(A);
    BOOST_CHECK_EQUAL(C.nconstant(), 3);
    BOOST_CHECK_GT(C.nrows_exc(), Index(65535) * 256);
    Subject s{A, C, DeviceCompressed<double>(C), std::string("large n=") + std::to_string(n) +
                                                     (with_full ? " with a full diagonal" : ""),
              stream, rng};
    run(s, Addr::Default, Mode::Plain, 0, -1);
    run(s, Addr::Default, Mode::Alias, n / 3, n - 7);
  }
  BOOST_TEST_MESSAGE("large: " << g_runs << " GPU runs compared");
}

// Calls that must launch nothing, a bad row_lo, the default arguments,
// blocks without diagonals or without exceptions.
BOOST_AUTO_TEST_CASE(zero_sizes_and_defaults) {
  {
    const HmCompressed<double> C0 = hm_compress(HmMatrix<double>(Layout::square(4), {1}));
    const DeviceCompressed<double> d0(C0);
    BOOST_CHECK_EQUAL(cuda::hm_compressed_get_diagonal(d0.view(), Index(5), static_cast<double*>(nullptr), stream), cudaErrorInvalidValue);
  }
  std::mt19937_64 rng(555);
  const Index n = 17;
  const HmMatrix<double> A = make_family(Family::Stencil, Layout::square(n), {-2, 0, 1, 3}, rng, 4);
  const HmCompressed<double> C = hm_compress(A);
  BOOST_REQUIRE_GT(C.nrows_exc(), 0);
  const DeviceCompressed<double> dC(C);
  const std::vector<double> x = random_vector(n, rng), sentinel(n, 42.0);
  DeviceArray<double> dx(x), dy(sentinel);
  PDIAG_CUDA_REQUIRE(cudaGetLastError());

  BOOST_CHECK_EQUAL(cuda::hm_compressed_spmv(dC.view(), dx.get(), dy.get(), nullptr, nullptr, 5, 5, stream),
                    cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::hm_compressed_spmv(dC.view(), dx.get(), dy.get(), nullptr, nullptr, 9, 3, stream),
                    cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::hm_compressed_spmv(dC.view(), dx.get(), dy.get(), nullptr, nullptr, -1, 4, stream),
                    cudaErrorInvalidValue);
  BOOST_CHECK_EQUAL(cuda::hm_compressed_residual(dC.view(), dx.get(), static_cast<const double*>(nullptr), dy.get(), nullptr, 0, -1, stream),
                    cudaErrorInvalidValue);  // the residual needs b
  sync_checked(stream, "zero-size calls");
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
  BOOST_CHECK(dy.download() == sentinel);

  // Default arguments (no z, default shift, all rows, legacy default stream).
  const std::vector<double> ref = dense_mv(to_dense(A), x);
  dy.upload(std::vector<double>(n, kNaN));
  PDIAG_CUDA_REQUIRE(cuda::hm_compressed_spmv(dC.view(), dx.get(), dy.get()));
  PDIAG_CUDA_REQUIRE(cudaDeviceSynchronize());
  BOOST_CHECK_LE(rel_err(dy.download(), ref), kTol);

  // No diagonals: y = z. Constant diagonals without exceptions: pass 1 only.
  for (const HmMatrix<double>& B :
       {HmMatrix<double>(Layout::square(n), {}), make_family(Family::Constant, Layout::square(n), {-1, 0, 4}, rng)}) {
    const HmCompressed<double> CB = hm_compress(B);
    BOOST_CHECK_EQUAL(CB.nrows_exc(), 0);
    const DeviceCompressed<double> dB(CB);
    const std::vector<double> z = random_vector(n, rng);
    DeviceArray<double> dz(z);
    std::vector<double> want(static_cast<std::size_t>(n));
    hm_spmv(B.view(), x.data(), want.data(), z.data());
    dy.upload(std::vector<double>(n, kNaN));
    PDIAG_CUDA_REQUIRE(cuda::hm_compressed_spmv(dB.view(), dx.get(), dy.get(), dz.get(), nullptr, 0, -1, stream));
    sync_checked(stream, "no exceptions");
    BOOST_CHECK_LE(rel_err(dy.download(), want), kTol);
  }
}

// The same product twice gives the same bits (no atomics anywhere).
BOOST_AUTO_TEST_CASE(deterministic) {
  std::mt19937_64 rng(666);
  const HmMatrix<double> A = laplace7(48, 40, 32, true, false, rng);
  const HmCompressed<double> C = hm_compress(A);
  const DeviceCompressed<double> dC(C);
  const std::vector<double> x = random_vector(A.layout.ncols, rng);
  DeviceArray<double> dx(x), dy1(std::vector<double>(A.layout.nrows, kNaN)), dy2(std::vector<double>(A.layout.nrows));
  PDIAG_CUDA_REQUIRE(cuda::hm_compressed_spmv(dC.view(), dx.get(), dy1.get(), nullptr, nullptr, 0, -1, stream));
  PDIAG_CUDA_REQUIRE(cuda::hm_compressed_spmv(dC.view(), dx.get(), dy2.get(), nullptr, nullptr, 0, -1, stream));
  sync_checked(stream, "deterministic");
  BOOST_CHECK(dy1.download() == dy2.download());
}

// The float instantiation against the double CPU reference: float rounding
// only, so 1e-5.
BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(777);
  const Index n = 1000;
  const HmMatrix<double> A = make_family(Family::Mixed, Layout::square(n), {-(n - 1), -40, -1, 0, 1, 7, 40}, rng);
  HmMatrix<float> Af(A.layout, A.offsets);
  for (std::size_t p = 0; p < A.val.size(); ++p) Af.val[p] = float(A.val[p]);
  const HmCompressed<float> Cf = hm_compress(Af);
  BOOST_CHECK_GT(Cf.nconstant(), 0);
  BOOST_CHECK_GT(Cf.nexceptions(), 0);
  const DeviceCompressed<float> dC(Cf);
  const std::vector<double> x = random_vector(n, rng), z = random_vector(n, rng);
  const std::vector<float> xf(x.begin(), x.end()), zf(z.begin(), z.end());
  DeviceArray<float> dx(xf), dz(zf), dy(std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  std::vector<double> ref(n);
  hm_spmv(A.view(), x.data(), ref.data(), z.data());
  const cudaError_t e = cuda::hm_compressed_spmv(dC.view(), dx.get(), dy.get(), dz.get(), nullptr, 0, -1, stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, "float: launch failed: " << cudaGetErrorString(e));
  sync_checked(stream, "float");
  const std::vector<float> yf = dy.download();
  const double err = rel_err(std::vector<double>(yf.begin(), yf.end()), ref);
  BOOST_CHECK_MESSAGE(err <= 1e-5, "float: relative error " << err);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_compress_cuda")
