// CUDA SpMV kernels (pdiag/spmv_cuda.hpp) against the CPU reference kernels
// (pdiag/cpu.hpp) on the same inputs, and the CPU reference against the
// dense product where the addressing is the default one, so that a broken
// reference cannot make the comparison vacuous.
//
// Covered, for HM (square and rectangular, whole and row blocks) and CDM
// (square, whole and row blocks), every size and offset set of testing.hpp:
// y = A x, y = A x + z, y = A x + y (y aliasing z), row ranges (clamped,
// empty, open-ended), y = A^T x (+ z, aliased), and three vector addressings:
// default (null shift), padded (x / y stored at an offset) and windowed
// (every diagonal part reads its own window: distinct per-diagonal shifts).
// Also: more diagonals than one shared-memory chunk, a grid-stride launch
// (more rows than the grid cap), zero-size calls and the float instantiation.
//
// Outputs are poisoned with NaN before every run so that an unwritten entry
// fails; rows outside a row range hold sentinels that must come back
// bit-identical. Without a CUDA device the program prints a SKIPPED line and
// exits with 77 before any test runs (ctest: SKIP_RETURN_CODE 77).
#define BOOST_TEST_MODULE spmv_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "pdiag/assemble.hpp"
#include "pdiag/convert.hpp"
#include "pdiag/cpu.hpp"
#include "pdiag/listed_cuda.hpp"
#include "pdiag/ops.hpp"
#include "pdiag/ops_cuda.hpp"
#include "pdiag/scatter_cuda.hpp"
#include "pdiag/spmv_cuda.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr Index kPad = 5;  // padding in front of (and behind) a padded vector

enum class Addr { Default, Padded, Windowed };
enum class Mode { Plain, WithZ, Alias };
const char* name(Addr a) { return a == Addr::Default ? "default" : a == Addr::Padded ? "padded" : "windowed"; }
const char* name(Mode m) { return m == Mode::Plain ? "no z" : m == Mode::WithZ ? "with z" : "z aliasing y"; }

/// Shifts and the length of the vector they address (x of A x, y of A^T x).
struct Addressing {
  bool use_shift = false;  // false: pass a null shift (default addressing)
  std::vector<Index> shift;
  Index len = 0;
};

// ---- scheme policies: the CPU and GPU kernels and the addressings of each ----

struct HmOps {
  using Host = HmMatrix<double>;
  using Dev = DeviceHm<double>;
  static constexpr const char* scheme = "HM";
  static void cpu(const Host& A, const double* x, double* y, const double* z, const Index* s, Index lo, Index hi) {
    pdiag::hm_spmv(A.view(), x, y, z, s, lo, hi);
  }
  static cudaError_t gpu(const Dev& A, const double* x, double* y, const double* z, const Index* s, Index lo, Index hi,
                         cudaStream_t st) {
    return cuda::hm_spmv(A.view(), x, y, z, s, lo, hi, st);
  }
  static void cpu_t(const Host& A, const double* x, double* y, Index ny, const double* z, const Index* s) {
    pdiag::hm_spmv_t(A.view(), x, y, ny, z, s);
  }
  static cudaError_t gpu_t(const Dev& A, const double* x, double* y, Index ny, const double* z, const Index* s,
                           cudaStream_t st) {
    return cuda::hm_spmv_t(A.view(), x, y, ny, z, s, st);
  }
  static Addressing addressing(const Host& A, Addr a) {
    const Layout& L = A.layout;
    Addressing ad;
    if (a == Addr::Default) {
      ad.len = L.ncols;
      return ad;
    }
    ad.use_shift = true;
    if (a == Addr::Padded) {
      ad.shift = default_shift(L, A.offsets);
      for (Index& s : ad.shift) s += kPad;
      ad.len = L.ncols + 2 * kPad;
      return ad;
    }
    // Windowed: diagonal k's local rows [b, e) meet entries [len, len + e - b),
    // one gap entry between windows (so an off-by-one lands on a wrong value).
    ad.len = 1;
    for (Index d : A.offsets) {
      const Index b = L.lo(d) - L.row_begin, e = L.hi(d) - L.row_begin;
      ad.shift.push_back(ad.len - b);
      ad.len += std::max<Index>(e - b, 0) + 1;
    }
    return ad;
  }
};

struct CdmOps {
  using Host = CdmMatrix<double>;
  using Dev = DeviceCdm<double>;
  static constexpr const char* scheme = "CDM";
  static void cpu(const Host& A, const double* x, double* y, const double* z, const Index* s, Index lo, Index hi) {
    pdiag::cdm_spmv(A.view(), x, y, z, s, lo, hi);
  }
  static cudaError_t gpu(const Dev& A, const double* x, double* y, const double* z, const Index* s, Index lo, Index hi,
                         cudaStream_t st) {
    return cuda::cdm_spmv(A.view(), x, y, z, s, lo, hi, st);
  }
  static void cpu_t(const Host& A, const double* x, double* y, Index ny, const double* z, const Index* s) {
    pdiag::cdm_spmv_t(A.view(), x, y, ny, z, s);
  }
  static cudaError_t gpu_t(const Dev& A, const double* x, double* y, Index ny, const double* z, const Index* s,
                           cudaStream_t st) {
    return cuda::cdm_spmv_t(A.view(), x, y, ny, z, s, st);
  }
  static Addressing addressing(const Host& A, Addr a) {
    const Layout& L = A.layout;
    const Index nd = A.ndiag();
    Addressing ad;
    if (a == Addr::Default) {
      ad.len = L.ncols;
      return ad;
    }
    ad.use_shift = true;
    if (a == Addr::Padded) {
      ad.shift = default_cdm_shift(L, A.koffsets);
      for (Index& s : ad.shift) s += kPad;
      ad.len = L.ncols + 2 * kPad;
      return ad;
    }
    // Windowed: the part above the wrap (rows [0, w)) and the part below it
    // (rows [w, m)) of every compact diagonal each get their own window.
    ad.shift.assign(static_cast<std::size_t>(2 * nd), 0);
    ad.len = 1;
    for (Index k = 0; k < nd; ++k) {
      const Index w = detail::cdm_wrap_row(L, A.koffsets[k]);
      ad.shift[k] = ad.len;
      ad.len += w + 1;
      ad.shift[nd + k] = ad.len - w;
      ad.len += L.nrows - w + 1;
    }
    return ad;
  }
};

/// One matrix under test: host and device copies, its dense reference (may
/// be null), a label for messages.
template <class Ops>
struct Subject {
  const typename Ops::Host& A;
  typename Ops::Dev dev;
  const Dense* dense;
  std::string label;
  cudaStream_t stream;
  std::mt19937_64& rng;
};

/// Requires got == want within kTol on [b, e), and got == init bit for bit
/// (exactly; init is never NaN there) outside it.
void compare(const std::string& what, const std::vector<double>& got, const std::vector<double>& want,
             const std::vector<double>& init, Index b, Index e) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  const std::vector<double> g(got.begin() + b, got.begin() + e), w(want.begin() + b, want.begin() + e);
  const double err = rel_err(g, w);
  BOOST_CHECK_MESSAGE(err <= kTol,
                      what << ": relative error " << err << (std::isnan(err) ? " (an entry was not written)" : ""));
  Index touched = 0;
  for (Index p = 0; p < Index(got.size()); ++p)
    if ((p < b || p >= e) && !(got[p] == init[p])) ++touched;
  BOOST_CHECK_MESSAGE(touched == 0, what << ": " << touched << " entries outside [" << b << ", " << e << ") changed");
}

int g_runs = 0;  // GPU kernel runs compared, reported at the end of each test

/// y = A x (+ z) over rows [lo, hi) with the given addressing and z mode.
template <class Ops>
void run_spmv(Subject<Ops>& s, Addr addr, Mode mode, Index lo, Index hi) {
  const Layout& L = s.A.layout;
  const Index m = L.nrows;
  const Addressing ad = Ops::addressing(s.A, addr);
  const std::vector<double> x = random_vector(ad.len, s.rng);
  const std::vector<double> z = random_vector(m, s.rng);
  const Index hc = (hi < 0 || hi > m) ? m : hi, lc = std::min(lo, hc);
  std::vector<double> y0(static_cast<std::size_t>(m));
  for (Index p = 0; p < m; ++p) y0[p] = mode == Mode::Alias ? z[p] : (p >= lo && p < hc) ? kNaN : 1000.0 + double(p);
  std::ostringstream os;
  os << s.label << " spmv " << name(mode) << " addr=" << name(addr) << " rows=[" << lo << "," << hi << ")";
  const std::string what = os.str();

  std::vector<double> yc = y0;
  const Index* sh = ad.use_shift ? ad.shift.data() : nullptr;
  Ops::cpu(s.A, x.data(), yc.data(), mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? z.data() : yc.data(), sh, lo,
           hi);

  DeviceArray<double> dx(x), dy(y0), dz(z);
  DeviceArray<Index> ds(ad.shift);
  const double* zg = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? dz.get() : dy.get();
  const cudaError_t e = Ops::gpu(s.dev, dx.get(), dy.get(), zg, ad.use_shift ? ds.get() : nullptr, lo, hi, s.stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
  sync_checked(s.stream, what.c_str());
  compare(what, dy.download(), yc, y0, lc, hc);
  ++g_runs;

  if (s.dense && addr == Addr::Default && lo == 0 && hi < 0) {  // the reference itself, against dense
    std::vector<double> ref = dense_mv(*s.dense, x);
    if (mode != Mode::Plain)
      for (Index p = 0; p < m; ++p) ref[p] += z[p];
    BOOST_CHECK_MESSAGE(rel_err(yc, ref) <= kTol, what << ": CPU reference disagrees with the dense product");
  }
}

/// y = A^T x (+ z) with the given addressing of y and z mode.
template <class Ops>
void run_spmv_t(Subject<Ops>& s, Addr addr, Mode mode) {
  const Layout& L = s.A.layout;
  const Addressing ad = Ops::addressing(s.A, addr);
  const Index ny = ad.len;
  const std::vector<double> x = random_vector(L.nrows, s.rng);
  const std::vector<double> z = random_vector(ny, s.rng);
  const std::vector<double> y0 = mode == Mode::Alias ? z : std::vector<double>(static_cast<std::size_t>(ny), kNaN);
  std::ostringstream os;
  os << s.label << " spmv_t " << name(mode) << " addr=" << name(addr) << " ny=" << ny;
  const std::string what = os.str();

  std::vector<double> yc = y0;
  const Index* sh = ad.use_shift ? ad.shift.data() : nullptr;
  Ops::cpu_t(s.A, x.data(), yc.data(), ny, mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? z.data() : yc.data(),
             sh);

  DeviceArray<double> dx(x), dy(y0), dz(z);
  DeviceArray<Index> ds(ad.shift);
  const double* zg = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? dz.get() : dy.get();
  const cudaError_t e = Ops::gpu_t(s.dev, dx.get(), dy.get(), ny, zg, ad.use_shift ? ds.get() : nullptr, s.stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
  sync_checked(s.stream, what.c_str());
  compare(what, dy.download(), yc, y0, 0, ny);
  ++g_runs;

  if (s.dense && addr == Addr::Default) {
    std::vector<double> ref = dense_mtv(*s.dense, x);
    if (mode != Mode::Plain)
      for (Index p = 0; p < ny; ++p) ref[p] += z[p];
    BOOST_CHECK_MESSAGE(rel_err(yc, ref) <= kTol, what << ": CPU reference disagrees with the dense product");
  }
}

/// Every product, mode, addressing and a set of row ranges on one matrix.
template <class Ops>
void check_all(const typename Ops::Host& A, const Dense* dense, const std::string& label, cudaStream_t stream,
               std::mt19937_64& rng) {
  Subject<Ops> s{A, typename Ops::Dev(A), dense, std::string(Ops::scheme) + " " + label, stream, rng};
  for (Addr a : {Addr::Default, Addr::Padded, Addr::Windowed})
    for (Mode md : {Mode::Plain, Mode::WithZ, Mode::Alias}) {
      run_spmv(s, a, md, 0, -1);
      run_spmv_t(s, a, md);
    }
  const Index m = A.layout.nrows;
  // A middle part, open-ended (row_hi < 0), past the end (clamped), empty.
  const std::pair<Index, Index> ranges[] = {{m / 3, m - m / 4}, {1, -1}, {m / 2, m + 5}, {m, m}, {0, 0}};
  for (const auto& [lo, hi] : ranges)
    for (Mode md : {Mode::Plain, Mode::Alias}) run_spmv(s, Addr::Default, md, lo, hi);
  run_spmv(s, Addr::Windowed, Mode::WithZ, m / 3, m - m / 4);
}

std::string layout_label(const Layout& L, const std::string& oc) {
  std::ostringstream os;
  os << L.nrows_global << "x" << L.ncols << " rows [" << L.row_begin << "," << L.row_end() << ") offsets=" << oc;
  return os.str();
}

/// The same block with every offset of `extra` also stored (zero-length
/// diagonals where an offset misses the block): the plugin may keep the
/// global diagonal set on every rank.
HmMatrix<double> with_offsets(const HmMatrix<double>& A, const std::vector<Index>& extra) {
  std::vector<Index> all = A.offsets;
  all.insert(all.end(), extra.begin(), extra.end());
  HmMatrix<double> B(A.layout, all);
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index kb = B.find_diagonal(A.offsets[k]);
    std::copy(A.val.begin() + A.start[k], A.val.begin() + A.start[k + 1], B.val.begin() + B.start[kb]);
  }
  return B;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(spmv_cuda, StreamFixture)

BOOST_AUTO_TEST_CASE(hm_all_sizes_layouts_offsets) {
  std::mt19937_64 rng(101);
  g_runs = 0;
  for (Index n : test_sizes()) {
    const Index t = n + n / 2 + 1;  // square, tall and wide, each whole and in row blocks
    const std::pair<Index, Index> shapes[] = {{n, n}, {t, n}, {n, t}};
    for (const auto& [rows, cols] : shapes)
      for (const Layout& L : row_blocks(rows, cols))
        for (const auto& oc : offset_cases(rows, cols, rng)) {
          const RandomBlock b = random_block(L, oc.offsets, rng);
          const HmMatrix<double> A = to_hm(b);
          check_all<HmOps>(A, &b.dense, layout_label(L, oc.name), stream, rng);
          if (!L.is_full() && A.offsets != oc.offsets) {
            const HmMatrix<double> B = with_offsets(A, oc.offsets);
            check_all<HmOps>(B, &b.dense, layout_label(L, oc.name + "+zero-length"), stream, rng);
          }
        }
  }
  BOOST_TEST_MESSAGE("HM: " << g_runs << " GPU runs compared");
}

BOOST_AUTO_TEST_CASE(cdm_all_sizes_layouts_offsets) {
  std::mt19937_64 rng(202);
  g_runs = 0;
  for (Index n : test_sizes())
    for (const Layout& L : row_blocks(n, n))
      for (const auto& oc : offset_cases(n, n, rng)) {
        const RandomBlock b = random_block(L, oc.offsets, rng);
        const CdmMatrix<double> C = cdm_from_hm(to_hm(b));
        check_all<CdmOps>(C, &b.dense, layout_label(L, oc.name), stream, rng);
      }
  BOOST_TEST_MESSAGE("CDM: " << g_runs << " GPU runs compared");
}

// More diagonals than one shared-memory chunk (256): exactly one chunk, one
// more than a chunk, and a full dense band of 2n-1 diagonals.
BOOST_AUTO_TEST_CASE(many_diagonals_chunked) {
  std::mt19937_64 rng(303);
  const Index n = 600;
  std::vector<Index> all;
  for (Index d = -(n - 1); d <= n - 1; ++d) all.push_back(d);
  for (std::size_t count : {std::size_t(256), std::size_t(257), all.size()}) {
    std::vector<Index> offs = all;
    std::shuffle(offs.begin(), offs.end(), rng);
    offs.resize(count);
    for (const Layout& L : {Layout::square(n), Layout::block(n, n, n / 3, n / 2)}) {
      const RandomBlock b = random_block(L, offs, rng, 0.9, false);
      const HmMatrix<double> A = to_hm(b);
      const std::string label = layout_label(L, std::to_string(count) + " diagonals");
      check_all<HmOps>(A, &b.dense, label, stream, rng);
      check_all<CdmOps>(cdm_from_hm(A), &b.dense, label, stream, rng);
    }
  }
  // Rectangular, all diagonals of a wide block.
  std::vector<Index> wide;
  for (Index d = -299; d <= 899; ++d) wide.push_back(d);
  const RandomBlock b = random_block(Layout::rect(300, 900), wide, rng, 0.9, false);
  check_all<HmOps>(to_hm(b), &b.dense, layout_label(b.layout, "all"), stream, rng);
}

// More rows than the grid cap (65535 blocks of 256 threads): blocks stride
// over tiles. Tridiagonal plus the far corners and one more super diagonal.
BOOST_AUTO_TEST_CASE(grid_stride_large) {
  const Index n = Index(65535) * 256 + 777;
  std::size_t free_b = 0, total_b = 0;
  PDIAG_CUDA_REQUIRE(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < (std::size_t(3) << 30)) {
    BOOST_WARN_MESSAGE(false, "grid_stride_large needs 3 GiB of free device memory; " << free_b << " bytes free");
    return;
  }
  std::mt19937_64 rng(404);
  const HmMatrix<double> A = random_hm(Layout::square(n), {-(n - 1), -1, 0, 1, 5, n - 1}, rng);
  const CdmMatrix<double> C = cdm_from_hm(A);
  g_runs = 0;
  {
    Subject<HmOps> s{A, DeviceHm<double>(A), nullptr, "HM large n=" + std::to_string(n), stream, rng};
    run_spmv(s, Addr::Default, Mode::Plain, 0, -1);
    run_spmv(s, Addr::Default, Mode::Alias, n / 3, n - 7);
    run_spmv_t(s, Addr::Default, Mode::WithZ);
  }
  {
    Subject<CdmOps> s{C, DeviceCdm<double>(C), nullptr, "CDM large n=" + std::to_string(n), stream, rng};
    run_spmv(s, Addr::Default, Mode::Alias, 0, -1);
    run_spmv_t(s, Addr::Padded, Mode::Plain);
  }
  BOOST_TEST_MESSAGE("large: " << g_runs << " GPU runs compared");
}

// Calls that must launch nothing, the default arguments, bad row_lo.
BOOST_AUTO_TEST_CASE(zero_sizes_and_defaults) {
  std::mt19937_64 rng(505);
  const Index n = 17;
  const RandomBlock b = random_block(Layout::square(n), {-2, 0, 3}, rng);
  const HmMatrix<double> A = to_hm(b);
  const CdmMatrix<double> C = cdm_from_hm(A);
  const DeviceHm<double> dA(A);
  const DeviceCdm<double> dC(C);
  const std::vector<double> x = random_vector(n, rng), sentinel(n, 42.0);
  DeviceArray<double> dx(x), dy(sentinel);
  PDIAG_CUDA_REQUIRE(cudaGetLastError());  // nothing pending before the checks below

  // Nothing to do: success, y untouched, no launch (no error left behind).
  BOOST_CHECK_EQUAL(cuda::hm_spmv(dA.view(), dx.get(), dy.get(), nullptr, nullptr, 5, 5, stream), cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::cdm_spmv(dC.view(), dx.get(), dy.get(), nullptr, nullptr, 9, 3, stream), cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::hm_spmv_t(dA.view(), dx.get(), dy.get(), 0, nullptr, nullptr, stream), cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::cdm_spmv_t(dC.view(), dx.get(), dy.get(), 0, nullptr, nullptr, stream), cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::hm_spmv(dA.view(), dx.get(), dy.get(), nullptr, nullptr, -1, 4, stream),
                    cudaErrorInvalidValue);
  BOOST_CHECK_EQUAL(cuda::cdm_spmv(dC.view(), dx.get(), dy.get(), nullptr, nullptr, -3, -1, stream),
                    cudaErrorInvalidValue);
  sync_checked(stream, "zero-size calls");
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
  BOOST_CHECK(dy.download() == sentinel);

  // Default arguments (no z, default shift, all rows, legacy default stream).
  const std::vector<double> ref = dense_mv(b.dense, x), reft = dense_mtv(b.dense, x);
  dy.upload(std::vector<double>(n, kNaN));
  PDIAG_CUDA_REQUIRE(cuda::hm_spmv(dA.view(), dx.get(), dy.get()));
  PDIAG_CUDA_REQUIRE(cudaDeviceSynchronize());
  BOOST_CHECK_LE(rel_err(dy.download(), ref), kTol);
  // A view of mutable values converts as in cpu.hpp (T comes from x and y).
  DeviceArray<double> dval(A.val);
  const HmView<double> mutable_view{A.layout, A.ndiag(), dA.offsets.get(), dA.start.get(), dval.get()};
  dy.upload(std::vector<double>(n, kNaN));
  PDIAG_CUDA_REQUIRE(cuda::hm_spmv(mutable_view, dx.get(), dy.get(), nullptr, nullptr, 0, -1, stream));
  sync_checked(stream, "hm_spmv with a mutable view");
  BOOST_CHECK_LE(rel_err(dy.download(), ref), kTol);
  dy.upload(std::vector<double>(n, kNaN));
  PDIAG_CUDA_REQUIRE(cuda::cdm_spmv(dC.view(), dx.get(), dy.get()));
  PDIAG_CUDA_REQUIRE(cudaDeviceSynchronize());
  BOOST_CHECK_LE(rel_err(dy.download(), ref), kTol);
  dy.upload(std::vector<double>(n, kNaN));
  PDIAG_CUDA_REQUIRE(cuda::hm_spmv_t(dA.view(), dx.get(), dy.get(), n));
  PDIAG_CUDA_REQUIRE(cudaDeviceSynchronize());
  BOOST_CHECK_LE(rel_err(dy.download(), reft), kTol);
  dy.upload(std::vector<double>(n, kNaN));
  PDIAG_CUDA_REQUIRE(cuda::cdm_spmv_t(dC.view(), dx.get(), dy.get(), n));
  PDIAG_CUDA_REQUIRE(cudaDeviceSynchronize());
  BOOST_CHECK_LE(rel_err(dy.download(), reft), kTol);
}

// The float instantiation on one case (band plus a far diagonal), against
// the double CPU reference: float rounding only, so 1e-5.
BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(606);
  const Index n = 1000;
  const RandomBlock b = random_block(Layout::square(n), {-(n - 1), -3, -1, 0, 1, 2, 40}, rng);
  const HmMatrix<double> A = to_hm(b);
  HmMatrix<float> Af(A.layout, A.offsets);
  for (std::size_t p = 0; p < A.val.size(); ++p) Af.val[p] = float(A.val[p]);
  const CdmMatrix<float> Cf = cdm_from_hm(Af);
  const DeviceHm<float> dA(Af);
  const DeviceCdm<float> dC(Cf);

  const std::vector<double> x = random_vector(n, rng), z = random_vector(n, rng);
  const std::vector<float> xf(x.begin(), x.end()), zf(z.begin(), z.end());
  DeviceArray<float> dx(xf), dz(zf), dy(std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  const auto check = [&](const char* what, cudaError_t e, const std::vector<double>& ref) {
    BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
    sync_checked(stream, what);
    const std::vector<float> yf = dy.download();
    const double err = rel_err(std::vector<double>(yf.begin(), yf.end()), ref);
    BOOST_CHECK_MESSAGE(err <= 1e-5, what << ": relative error " << err);
    dy.upload(std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  };
  std::vector<double> ref(n), reft(n);
  hm_spmv(A.view(), x.data(), ref.data(), z.data());
  hm_spmv_t(A.view(), x.data(), reft.data(), n, z.data());
  check("float hm_spmv", cuda::hm_spmv(dA.view(), dx.get(), dy.get(), dz.get(), nullptr, 0, -1, stream), ref);
  check("float hm_spmv_t", cuda::hm_spmv_t(dA.view(), dx.get(), dy.get(), n, dz.get(), nullptr, stream), reft);
  check("float cdm_spmv", cuda::cdm_spmv(dC.view(), dx.get(), dy.get(), dz.get(), nullptr, 0, -1, stream), ref);
  check("float cdm_spmv_t", cuda::cdm_spmv_t(dC.view(), dx.get(), dy.get(), n, dz.get(), nullptr, stream), reft);
}

// COO scatter (MatSetValuesCOO with device arrays): against the CPU
// reference scatter_add, with repeated slots (summed with atomics: equal up
// to the order of the additions), ignored entries (slot -1) and n = 0;
// n < 0 is refused.
BOOST_AUTO_TEST_CASE(coo_scatter_add) {
  for (Index n : {Index(0), Index(1), Index(1000), Index(100000)}) {
    const Index nval = n / 3 + 1;
    std::vector<Index> slot(static_cast<std::size_t>(n));
    std::vector<double> v(static_cast<std::size_t>(n)), val(static_cast<std::size_t>(nval), 0.5);
    for (Index e = 0; e < n; ++e) {
      slot[e] = (e % 11 == 5) ? -1 : (e * 7) % nval;
      v[e] = 0.25 + double((e * 7919) % 101) / 37.0;
    }
    DeviceArray<Index> dslot(slot);
    DeviceArray<double> dv(v), dval(val);
    PDIAG_CUDA_REQUIRE(pdiag::cuda::scatter_add(dval.get(), dslot.get(), dv.get(), n, stream));
    sync_checked(stream, "scatter_add");
    pdiag::scatter_add(val.data(), slot.data(), v.data(), n);
    const std::vector<double> got = dval.download();
    for (Index p = 0; p < nval; ++p)
      BOOST_REQUIRE_MESSAGE(std::abs(got[p] - val[p]) <= 1e-13 * std::abs(val[p]), "n=" << n << " slot " << p << ": " << got[p] << " vs " << val[p]);
  }
  BOOST_CHECK(pdiag::cuda::scatter_add<double>(nullptr, nullptr, nullptr, -1, stream) == cudaErrorInvalidValue);
}

// Listed entries (the couplings a distributed block's passes leave out)
// against the CPU reference, sign +1 and -1, rows with one and with several
// entries, more rows than one block; rows not listed keep their sentinels.
BOOST_AUTO_TEST_CASE(listed_entries) {
  for (Index nrows : {Index(0), Index(1), Index(300), Index(70000)}) {
    std::vector<Index> rows, ptr{0}, pos, cols;
    const Index ny = 2 * nrows + 3, nw = 97, nval = 500;
    for (Index q = 0; q < nrows; ++q) {
      rows.push_back(2 * q + 1);
      for (Index e = 0; e < 1 + q % 4; ++e) {
        pos.push_back((q * 31 + e * 7) % nval);
        cols.push_back((q * 13 + e * 5) % nw);
      }
      ptr.push_back(Index(pos.size()));
    }
    std::vector<double> val(nval), w(nw), y(ny);
    for (Index p = 0; p < nval; ++p) val[p] = 0.5 + double((p * 7919) % 101) / 37.0;
    for (Index p = 0; p < nw; ++p) w[p] = 1.0 - double((p * 104729) % 89) / 41.0;
    for (Index p = 0; p < ny; ++p) y[p] = 3.0 + double(p % 17);
    for (double sign : {1.0, -1.0}) {
      DeviceArray<Index> drows(rows), dptr(ptr), dpos(pos), dcols(cols);
      DeviceArray<double> dval(val), dw(w), dy(y);
      PDIAG_CUDA_REQUIRE(pdiag::cuda::listed_spmv_add(nrows, drows.get(), dptr.get(), dpos.get(), dcols.get(), dval.get(), dw.get(), dy.get(), sign, stream));
      sync_checked(stream, "listed_spmv_add");
      std::vector<double> ref(y);
      pdiag::listed_spmv_add(nrows, rows.data(), ptr.data(), pos.data(), cols.data(), val.data(), w.data(), ref.data(), sign);
      const std::vector<double> got = dy.download();
      for (Index p = 0; p < ny; ++p)
        BOOST_REQUIRE_MESSAGE(std::abs(got[p] - ref[p]) <= 1e-13 * std::abs(ref[p]), "nrows=" << nrows << " y[" << p << "]: " << got[p] << " vs " << ref[p]);
      for (Index p = 0; p < ny; p += 2) BOOST_REQUIRE_EQUAL(got[p], y[p]); // not listed: untouched
    }
  }
  BOOST_CHECK(pdiag::cuda::listed_spmv_add<double>(-1, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 1.0, stream) == cudaErrorInvalidValue);
}

// Element-wise operations on stored values (MatScale, MatShift, MatAXPY on
// the device) against the same host arithmetic, to one rounding (the
// device may fuse the axpy's multiply-add); n = 0 launches nothing, n < 0
// is refused.
BOOST_AUTO_TEST_CASE(elementwise_value_ops) {
  for (Index n : {Index(0), Index(1), Index(1000), Index(100000)}) {
    std::vector<double> y(static_cast<std::size_t>(n)), x(static_cast<std::size_t>(n));
    for (Index p = 0; p < n; ++p) {
      y[p] = 0.5 + double((p * 7919) % 101) / 37.0;
      x[p] = -1.0 + double((p * 104729) % 97) / 29.0;
    }
    DeviceArray<double> dy(y), dx(x);
    PDIAG_CUDA_REQUIRE(pdiag::cuda::scale_values(dy.get(), n, 2.5, stream));
    PDIAG_CUDA_REQUIRE(pdiag::cuda::add_scalar(dy.get(), n, -1.25, stream));
    PDIAG_CUDA_REQUIRE(pdiag::cuda::axpy_values(dy.get(), 0.75, dx.get(), n, stream));
    sync_checked(stream, "value ops");
    const std::vector<double> got = dy.download();
    for (Index p = 0; p < n; ++p) {
      const double want = (y[p] * 2.5 + -1.25) + 0.75 * x[p];
      BOOST_REQUIRE_MESSAGE(std::abs(got[p] - want) <= 4e-16 * (std::abs(y[p] * 2.5) + 1.25 + std::abs(0.75 * x[p])), "n=" << n << " p=" << p << ": " << got[p] << " vs " << want);
    }
  }
  BOOST_CHECK(pdiag::cuda::scale_values<double>(nullptr, -1, 1.0, stream) == cudaErrorInvalidValue);
  BOOST_CHECK(pdiag::cuda::add_scalar<double>(nullptr, -1, 1.0, stream) == cudaErrorInvalidValue);
  BOOST_CHECK(pdiag::cuda::axpy_values<double>(nullptr, 1.0, nullptr, -1, stream) == cudaErrorInvalidValue);
}

// MatDiagonalScale and MatZeroRows on the device (HM and CDM, with and
// without l or r, r also read through shifts from a padded copy as under
// MPI; rows including the first and last, b = diag x on them) against the
// CPU references: the same arithmetic, so bit-identical.
BOOST_AUTO_TEST_CASE(diagonal_scale_and_zero_rows) {
  std::mt19937_64 rng(31);
  constexpr Index kPad = 3;
  for (Index n : {Index(1), Index(17), Index(1000)}) {
    std::vector<Index> offs;
    for (Index d : {Index(-3), Index(-1), Index(0), Index(2), Index(5)})
      if (d > -n && d < n) offs.push_back(d);
    const HmMatrix<double> H = random_hm(Layout::square(n), offs, rng);
    const CdmMatrix<double> C = cdm_from_hm(H);
    const std::vector<double> l = random_vector(n, rng), r = random_vector(n, rng), x = random_vector(n, rng);
    // r behind kPad entries that must not be read (NaN would show in the values)
    std::vector<double> r_padded(kPad, std::nan(""));
    r_padded.insert(r_padded.end(), r.begin(), r.end());
    std::vector<Index> hm_shift, cdm_shift(2 * C.koffsets.size());
    for (Index d : H.offsets) hm_shift.push_back(d + kPad);
    for (std::size_t k = 0; k < C.koffsets.size(); ++k) {
      cdm_shift[k] = C.koffsets[k] + kPad;
      cdm_shift[C.koffsets.size() + k] = C.koffsets[k] - n + kPad;
    }
    std::vector<Index> rows = {0, n / 2, n - 1};
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    const Index nr = Index(rows.size());
    DeviceArray<double> dl(l), dr(r), dx(x), dr_padded(r_padded);
    DeviceArray<Index> drows(rows), dhm_shift(hm_shift), dcdm_shift(cdm_shift);
    for (int which = 0; which < 4; ++which) {  // l and r, l only, r only, l and r through shifts
      const bool shifted = which == 3;
      const double* lp = which == 2 ? nullptr : l.data();
      const double* rp = which == 1 ? nullptr : (shifted ? r_padded.data() : r.data());
      const double* drp = which == 1 ? nullptr : (shifted ? dr_padded.get() : dr.get());
      const std::string what = "n=" + std::to_string(n) + (which == 0 ? " l,r" : which == 1 ? " l" : which == 2 ? " r" : " l,r shifted");
      HmMatrix<double> Hc = H;
      CdmMatrix<double> Cc = C;
      DeviceHm<double> dH(H);
      DeviceCdm<double> dC(C);
      const HmView<double> hv{dH.layout, dH.ndiag, dH.offsets.get(), dH.start.get(), dH.val.get()};
      const CdmView<double> cv{dC.layout, dC.ndiag, dC.koffsets.get(), dC.val.get()};
      PDIAG_CUDA_REQUIRE(pdiag::cuda::hm_diagonal_scale(hv, lp ? dl.get() : nullptr, drp, shifted ? dhm_shift.get() : nullptr, stream));
      PDIAG_CUDA_REQUIRE(pdiag::cuda::cdm_diagonal_scale(cv, lp ? dl.get() : nullptr, drp, shifted ? dcdm_shift.get() : nullptr, stream));
      PDIAG_CUDA_REQUIRE(pdiag::cuda::hm_zero_rows(hv, drows.get(), nr, 3.5, stream));
      PDIAG_CUDA_REQUIRE(pdiag::cuda::cdm_zero_rows(cv, drows.get(), nr, 3.5, stream));
      sync_checked(stream, "diagonal scale, zero rows");
      pdiag::hm_diagonal_scale(Hc.view(), lp, rp, shifted ? hm_shift.data() : nullptr);
      pdiag::cdm_diagonal_scale(Cc.view(), lp, rp, shifted ? cdm_shift.data() : nullptr);
      bool missing = false;
      pdiag::zero_rows(Hc.view(), rows.data(), nr, 3.5, missing);
      BOOST_REQUIRE(!missing);
      pdiag::zero_rows(Cc.view(), rows.data(), nr, 3.5, missing);
      BOOST_REQUIRE(!missing);
      BOOST_CHECK_MESSAGE(dH.val.download() == Hc.val, "HM " << what << ": device values differ from the CPU's");
      BOOST_CHECK_MESSAGE(dC.val.download() == Cc.val, "CDM " << what << ": device values differ from the CPU's");
      if (shifted) {  // and the same values as with the unpadded r
        HmMatrix<double> Hu = H;
        pdiag::hm_diagonal_scale(Hu.view(), lp, r.data());
        pdiag::zero_rows(Hu.view(), rows.data(), nr, 3.5, missing);
        BOOST_CHECK_MESSAGE(Hu.val == Hc.val, "HM " << what << ": shifted r scales differently");
      }
    }
    std::vector<double> b = random_vector(n, rng);
    DeviceArray<double> db(b);
    PDIAG_CUDA_REQUIRE(pdiag::cuda::set_scaled_entries(db.get(), dx.get(), drows.get(), nr, 3.5, stream));
    sync_checked(stream, "set_scaled_entries");
    pdiag::set_scaled_entries(b.data(), x.data(), rows.data(), nr, 3.5);
    BOOST_CHECK_MESSAGE(db.download() == b, "n=" << n << ": set_scaled_entries differs from the CPU's");
  }
  BOOST_CHECK(pdiag::cuda::hm_zero_rows<double>({}, nullptr, -1, 1.0, stream) == cudaErrorInvalidValue);
  BOOST_CHECK(pdiag::cuda::set_scaled_entries<double>(nullptr, nullptr, nullptr, -1, 1.0, stream) == cudaErrorInvalidValue);
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_spmv_cuda")
