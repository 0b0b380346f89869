// CUDA products (pdiag/product_cuda.hpp, kernels/src/product.cu) against the CPU
// references (pdiag/product.hpp, pdiag/spmm.hpp) on the same inputs, to
// 1e-12 relative in double; on small sizes the CPU reference is itself
// checked against the dense product, so that a broken reference cannot make
// the comparison vacuous.
//
// Covered:
//  - HM x HM, output-stationary (the default) and the paper's Algorithm 2
//    (atomics), AB, AtB, ABt and AtBt: square sizes 1..1000 over every pair
//    of offset sets of testing.hpp, rectangular shapes, row blocks of A times
//    a full B, times the window of B's rows A reaches, and times a full B^T;
//    a Table-2-like case at reduced size (n = 2000, 100 random diagonals in
//    +-n/4 for A and B), banded n = 20000 with 9 and 21 diagonals, more pairs
//    per output diagonal (and more diagonals of B) than one shared-memory
//    chunk, empty products, plan reuse with new values, arguments that do
//    not match the plan (cudaErrorInvalidValue, nothing written), plan
//    upload errors and DeviceHmPlan moves;
//  - CDM x CDM, the paper's Algorithm 1 (16 x 16 tiles), all four
//    operations, sizes 1..1000 and banded n = 20000;
//  - SpMM (HM and CDM): k in {1, 2, 3, 8, 9, 32} (every column-group width
//    and partial groups), X and C with padded leading dimensions (X's
//    padding is NaN and must not be read, C's padding must come back
//    bit-identical), row blocks, X reached through shifts (a window of X's
//    rows, an offset X), k = 0 and bad arguments;
//  - the float instantiations; grids past the 65535-block cap (blocks
//    striding over tasks / tiles), when the device has the memory.
// Every output is poisoned with NaN before every GPU run, so an entry that is
// not written fails. Without a CUDA device the program prints a SKIPPED line
// and exits with 77 before any test runs (ctest: SKIP_RETURN_CODE 77).
#define BOOST_TEST_MODULE product_cuda
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include "cuda_testing.hpp"
#include "pdiag/convert.hpp"
#include "pdiag/product.hpp"
#include "pdiag/product_cuda.hpp"
#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <limits>
#include <set>
#include <sstream>

using namespace pdiag;
using namespace pdiag::testing;
using cuda::DeviceHmPlan;
using cuda::DevicePlan;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const Trans kTrans[] = {Trans::N, Trans::T};

/// Mutable views of device copies (their values are the outputs).
template <class T>
HmView<T> out_view(DeviceHm<T>& d) {
  return {d.layout, d.ndiag, d.offsets.get(), d.start.get(), d.val.get()};
}
template <class T>
CdmView<T> out_view(DeviceCdm<T>& d) {
  return {d.layout, d.ndiag, d.koffsets.get(), d.val.get()};
}

std::string op_name(Trans ta, Trans tb) {
  return std::string("A") + (ta == Trans::T ? "t" : "") + "B" + (tb == Trans::T ? "t" : "");
}

/// Offset-set pairs for a size: all pairs on small sizes, zipped beyond.
std::vector<std::pair<OffsetCase, OffsetCase>> case_pairs(Index mA, Index nA, Index mB, Index nB,
                                                          std::mt19937_64& rng) {
  const auto ca = offset_cases(mA, nA, rng), cb = offset_cases(mB, nB, rng);
  std::vector<std::pair<OffsetCase, OffsetCase>> out;
  if (std::max({mA, nA, mB, nB}) <= 100) {
    for (const auto& a : ca)
      for (const auto& b : cb) out.push_back({a, b});
  } else {
    for (std::size_t p = 0; p < ca.size(); ++p) out.push_back({ca[p], cb[(p + 1) % cb.size()]});
  }
  return out;
}

int g_runs = 0;  // GPU runs compared, reported at the end of each test
int g_symbolic_device = 0, g_symbolic_host = 0;  // plans the device built / left to the host

/// Requires the values of a GPU run to match the reference within kTol.
void compare(const std::string& what, const std::vector<double>& got, const std::vector<double>& want) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  const double err = rel_err(got, want);
  BOOST_CHECK_MESSAGE(err <= kTol,
                      what << ": relative error " << err << (std::isnan(err) ? " (an entry was not written)" : ""));
  ++g_runs;
}

enum Variant { kOutputStationary = 1, kAtomic = 2 };

/// C = op(A) op(B) with the GPU variants asked for, against the CPU
/// reference; the reference against `dense` (the dense product of the local
/// rows) when given. Returns the CPU reference.
HmMatrix<double> check_hm(const HmMatrix<double>& A, Trans ta, const HmMatrix<double>& B, Trans tb,
                          const std::string& label, cudaStream_t stream, int variants = kOutputStationary | kAtomic,
                          const Dense* dense = nullptr) {
  const std::string ctx = label + " " + op_name(ta, tb);
  const HmProductPlan plan = hm_product_symbolic(A, ta, B, tb);
  HmMatrix<double> ref = hm_product_alloc<double>(plan);
  hm_product_numeric<double>(plan, A.view(), ta, B.view(), tb, ref.view());
  if (dense) {
    const Dense got = to_dense(ref);
    BOOST_CHECK_MESSAGE(got.rows == dense->rows && got.cols == dense->cols && rel_err(got.a, dense->a) <= kTol,
                        ctx << ": CPU reference disagrees with the dense product");
  }
  DeviceHmPlan dp;
  PDIAG_CUDA_REQUIRE(dp.upload(plan, stream));
  BOOST_REQUIRE_EQUAL(dp.view().ndiag, ref.ndiag());
  BOOST_REQUIRE_EQUAL(dp.view().nstored, ref.nstored());
  const DeviceHm<double> dA(A), dB(B);
  const std::vector<double> poison(ref.val.size(), kNaN);
  HmMatrix<double> C0 = ref;
  C0.val = poison;
  DeviceHm<double> dC(C0);
  const auto run = [&](const char* variant, auto&& fn) {
    const std::string what = ctx + " " + variant;
    dC.val.upload(poison);
    const cudaError_t e = fn();
    BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
    sync_checked(stream, what.c_str());
    compare(what, dC.val.download(), ref.val);
  };
  if (variants & kOutputStationary)
    run("output-stationary",
        [&] { return cuda::hm_product_numeric(dp.view(), dA.view(), ta, dB.view(), tb, out_view(dC), stream); });
  if (variants & kAtomic)
    run("atomic (Algorithm 2)",
        [&] { return cuda::hm_product_numeric_atomic(dp.view(), dA.view(), ta, dB.view(), tb, out_view(dC), stream); });
  // the symbolic phase on the device: the same plan, and the same C from it
  DeviceHmPlan ds;
  HmProductPlan hs;
  const cudaError_t es = ds.symbolic(A.layout, A.offsets, ta, B.layout, B.offsets, tb, &hs, stream);
  if (es == cudaErrorNotSupported) {
    ++g_symbolic_host;
    return ref;
  }
  BOOST_REQUIRE_MESSAGE(es == cudaSuccess, ctx << ": device symbolic failed: " << cudaGetErrorString(es));
  ++g_symbolic_device;
  const DevicePlan &vh = dp.view(), &vd = ds.view();
  BOOST_CHECK_MESSAGE(hs.offsets == plan.offsets && hs.nmul == plan.nmul && hs.layout == plan.layout &&
                          hs.pair_a.empty(),
                      ctx << ": device symbolic: C's diagonals or multiply-adds differ from the host's");
  BOOST_CHECK_MESSAGE(vd.ndiag == vh.ndiag && vd.npairs == vh.npairs && vd.nstored == vh.nstored &&
                          vd.nmul == vh.nmul && vd.ntasks == vh.ntasks && (vd.tasks == nullptr) == (vh.tasks == nullptr),
                      ctx << ": device symbolic: plan sizes or schedule differ from the uploaded plan's");
  const auto down = [&](const Index* p, Index n) {
    std::vector<Index> h(static_cast<std::size_t>(n));
    if (n) PDIAG_CUDA_REQUIRE(cudaMemcpy(h.data(), p, h.size() * sizeof(Index), cudaMemcpyDeviceToHost));
    return h;
  };
  BOOST_CHECK_MESSAGE(down(vd.pair_start, vd.ndiag + 1) == plan.pair_start && down(vd.pair_a, vd.npairs) == plan.pair_a &&
                          down(vd.pair_b, vd.npairs) == plan.pair_b && down(vd.offsets, vd.ndiag) == plan.offsets,
                      ctx << ": device symbolic: pair lists differ from the host's");
  if (vd.tasks) BOOST_CHECK_MESSAGE(down(vd.tasks, vd.ntasks) == down(vh.tasks, vh.ntasks), ctx << ": task lists differ");
  if (variants & kOutputStationary)
    run("output-stationary, device symbolic",
        [&] { return cuda::hm_product_numeric(ds.view(), dA.view(), ta, dB.view(), tb, out_view(dC), stream); });
  if (variants & kAtomic)
    run("atomic, device symbolic",
        [&] { return cuda::hm_product_numeric_atomic(ds.view(), dA.view(), ta, dB.view(), tb, out_view(dC), stream); });
  return ref;
}

/// CDM C = op(A) op(B) with Algorithm 1 against the CPU reference.
void check_cdm(const CdmMatrix<double>& A, Trans ta, const CdmMatrix<double>& B, Trans tb, const std::string& label,
               cudaStream_t stream, const Dense* dense = nullptr) {
  const std::string what = label + " " + op_name(ta, tb) + " CDM tiled (Algorithm 1)";
  const CdmProductPlan plan = cdm_product_symbolic(A, ta, B, tb);
  CdmMatrix<double> ref = cdm_product_alloc<double>(plan);
  cdm_product_numeric<double>(plan, A.view(), ta, B.view(), tb, ref.view());
  if (dense)
    BOOST_CHECK_MESSAGE(rel_err(to_dense(ref).a, dense->a) <= kTol,
                        what << ": CPU reference disagrees with the dense product");
  const DeviceCdm<double> dA(A), dB(B);
  CdmMatrix<double> C0 = ref;
  std::fill(C0.val.begin(), C0.val.end(), kNaN);
  DeviceCdm<double> dC(C0);
  const cudaError_t e = cuda::cdm_product_numeric_tiled(dA.view(), ta, dB.view(), tb, out_view(dC), stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
  sync_checked(stream, what.c_str());
  compare(what, dC.val.download(), ref.val);
}

// ---- SpMM ----------------------------------------------------------------------

struct HmSpmm {
  using Host = HmMatrix<double>;
  using Dev = DeviceHm<double>;
  static constexpr const char* scheme = "HM";
  static void cpu(const Host& A, const double* X, Index ldx, Index k, double* C, Index ldc, const Index* s) {
    pdiag::hm_spmm<double>(A.view(), X, ldx, k, C, ldc, s);
  }
  static cudaError_t gpu(const Dev& A, const double* X, Index ldx, Index k, double* C, Index ldc, const Index* s,
                         cudaStream_t st) {
    return cuda::hm_spmm(A.view(), X, ldx, k, C, ldc, s, st);
  }
};
struct CdmSpmm {
  using Host = CdmMatrix<double>;
  using Dev = DeviceCdm<double>;
  static constexpr const char* scheme = "CDM";
  static void cpu(const Host& A, const double* X, Index ldx, Index k, double* C, Index ldc, const Index* s) {
    pdiag::cdm_spmm<double>(A.view(), X, ldx, k, C, ldc, s);
  }
  static cudaError_t gpu(const Dev& A, const double* X, Index ldx, Index k, double* C, Index ldc, const Index* s,
                         cudaStream_t st) {
    return cuda::cdm_spmm(A.view(), X, ldx, k, C, ldc, s, st);
  }
};

/// C = A X, k columns; X holds xrows meaningful rows (ncols with a null
/// shift) with ldx = xrows + 3, its padding NaN; C has ldc = nrows + 5, its
/// rows poisoned with NaN and its padding holding sentinels that must come
/// back bit-identical.
template <class Ops>
void check_spmm(const typename Ops::Host& A, const typename Ops::Dev& dA, Index k, const std::vector<Index>& shift,
                Index xrows, std::mt19937_64& rng, const std::string& label, cudaStream_t stream) {
  const Layout& L = A.layout;
  const Index ldx = xrows + 3, ldc = L.nrows + 5;
  std::ostringstream os;
  os << Ops::scheme << " spmm " << label << " k=" << k << (shift.empty() ? "" : " shifted");
  const std::string what = os.str();
  std::vector<double> X(std::size_t(ldx * k), kNaN), C0(std::size_t(ldc * k));
  std::uniform_real_distribution<double> u(-1, 1);
  for (Index j = 0; j < k; ++j) {
    for (Index r = 0; r < xrows; ++r) X[std::size_t(j * ldx + r)] = u(rng);
    for (Index r = 0; r < ldc; ++r) C0[std::size_t(j * ldc + r)] = r < L.nrows ? kNaN : 777.0 + double(j * ldc + r);
  }
  std::vector<double> ref = C0;
  const Index* sh = shift.empty() ? nullptr : shift.data();
  Ops::cpu(A, X.data(), ldx, k, ref.data(), ldc, sh);
  DeviceArray<double> dX(X), dC(C0);
  DeviceArray<Index> ds(shift);
  const cudaError_t e = Ops::gpu(dA, dX.get(), ldx, k, dC.get(), ldc, shift.empty() ? nullptr : ds.get(), stream);
  BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
  sync_checked(stream, what.c_str());
  const std::vector<double> got = dC.download();
  std::vector<double> g, w;
  Index touched = 0;
  for (Index j = 0; j < k; ++j)
    for (Index r = 0; r < ldc; ++r) {
      const std::size_t p = std::size_t(j * ldc + r);
      if (r < L.nrows) {
        g.push_back(got[p]);
        w.push_back(ref[p]);
      } else if (!(got[p] == C0[p])) {
        ++touched;
      }
    }
  compare(what, g, w);
  BOOST_CHECK_MESSAGE(touched == 0, what << ": " << touched << " padding entries of C changed");
}

std::string layout_label(const Layout& L, const std::string& oc) {
  std::ostringstream os;
  os << L.nrows_global << "x" << L.ncols << " rows [" << L.row_begin << "," << L.row_end() << ") " << oc;
  return os.str();
}

bool enough_device_memory(std::size_t bytes, const char* test) {
  std::size_t free_b = 0, total_b = 0;
  PDIAG_CUDA_REQUIRE(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < bytes) {
    BOOST_WARN_MESSAGE(false, test << " needs " << bytes << " bytes of free device memory; " << free_b << " free");
    return false;
  }
  return true;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(product_cuda, StreamFixture)

// ------------------------------------------------------------- HM x HM -----

BOOST_AUTO_TEST_CASE(hm_square_all_sizes_offsets_ops) {
  std::mt19937_64 rng(11);
  g_runs = 0;
  for (Index n : test_sizes())
    for (const auto& [ca, cb] : case_pairs(n, n, n, n, rng)) {
      const double dens = n >= 17 ? 0.7 : 1.0;
      const RandomBlock Ar = random_block(Layout::square(n), ca.offsets, rng, dens);
      const RandomBlock Br = random_block(Layout::square(n), cb.offsets, rng, dens);
      const HmMatrix<double> A = to_hm(Ar), B = to_hm(Br);
      for (Trans ta : kTrans)
        for (Trans tb : kTrans) {
          const Dense ref = n <= 64 ? dense_mm(Ar.dense, ta == Trans::T, Br.dense, tb == Trans::T) : Dense();
          check_hm(A, ta, B, tb, "n=" + std::to_string(n) + " A:" + ca.name + " B:" + cb.name, stream,
                   kOutputStationary | kAtomic, n <= 64 ? &ref : nullptr);
        }
    }
  BOOST_TEST_MESSAGE("HM square: " << g_runs << " GPU runs compared");
}

BOOST_AUTO_TEST_CASE(hm_rectangular_all_ops) {
  std::mt19937_64 rng(12);
  g_runs = 0;
  // op(A) is M x K, op(B) is K x N.
  const Index shapes[][3] = {{17, 5, 9}, {5, 17, 3}, {1, 4, 2}, {4, 1, 3}, {3, 2, 1}, {1, 1, 7}, {64, 30, 100}};
  for (const auto& s : shapes) {
    const Index M = s[0], K = s[1], N = s[2];
    for (Trans ta : kTrans)
      for (Trans tb : kTrans) {
        const Index am = ta == Trans::T ? K : M, an = ta == Trans::T ? M : K;
        const Index bm = tb == Trans::T ? N : K, bn = tb == Trans::T ? K : N;
        for (const auto& [ca, cb] : case_pairs(am, an, bm, bn, rng)) {
          const RandomBlock Ar = random_block(Layout::rect(am, an), ca.offsets, rng);
          const RandomBlock Br = random_block(Layout::rect(bm, bn), cb.offsets, rng);
          const Dense ref = dense_mm(Ar.dense, ta == Trans::T, Br.dense, tb == Trans::T);
          check_hm(to_hm(Ar), ta, to_hm(Br), tb,
                   std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N) + " A:" + ca.name +
                       " B:" + cb.name,
                   stream, kOutputStationary | kAtomic, &ref);
        }
      }
  }
  BOOST_TEST_MESSAGE("HM rectangular: " << g_runs << " GPU runs compared");
}

// A row block of A (as an MPI rank holds) times the full B, times the window
// of B's rows its entries reach (as the plugin gathers), and times a full B
// used transposed.
BOOST_AUTO_TEST_CASE(hm_row_block_times_full_window_and_transposed) {
  std::mt19937_64 rng(13);
  g_runs = 0;
  const Index shapes[][3] = {{4, 4, 4}, {17, 17, 17}, {64, 64, 64}, {17, 5, 9}, {5, 17, 3}, {1000, 1000, 1000}};
  for (const auto& s : shapes) {
    const Index M = s[0], K = s[1], N = s[2];
    for (const auto& [ca, cb] : case_pairs(M, K, K, N, rng)) {
      const RandomBlock Ar = random_block(Layout::rect(M, K), ca.offsets, rng);
      const RandomBlock Br = random_block(Layout::rect(K, N), cb.offsets, rng);
      std::vector<Index> negb;  // B^T stored as an N x K matrix
      for (Index d : cb.offsets) negb.insert(negb.begin(), -d);
      const RandomBlock Bt = random_block(Layout::rect(N, K), negb, rng);
      const bool small = M * K * N <= 64 * 64 * 64;
      const Dense full = small ? dense_mm(Ar.dense, false, Br.dense, false) : Dense();
      const Dense fullt = small ? dense_mm(Ar.dense, false, Bt.dense, true) : Dense();
      const HmMatrix<double> Bfull = to_hm(Br), Btf = to_hm(Bt);
      for (const Layout& L : row_blocks(M, K)) {
        const std::string label = layout_label(L, "A:" + ca.name + " B:" + cb.name) + " x" + std::to_string(N);
        const HmMatrix<double> A = hm_block(Ar, L);
        const Dense ref = small ? rows_of(full, L.row_begin, L.nrows) : Dense();
        const Dense reft = small ? rows_of(fullt, L.row_begin, L.nrows) : Dense();
        check_hm(A, Trans::N, Bfull, Trans::N, label + " B full", stream, kOutputStationary | kAtomic,
                 small ? &ref : nullptr);
        Index c0, c1;
        reach(A, c0, c1);
        const HmMatrix<double> Bw = hm_block(Br, Layout::block(K, N, c0, c1 - c0));
        check_hm(A, Trans::N, Bw, Trans::N,
                 label + " B window [" + std::to_string(c0) + "," + std::to_string(c1) + ")", stream,
                 kOutputStationary | kAtomic, small ? &ref : nullptr);
        check_hm(A, Trans::N, Btf, Trans::T, label + " B^T full", stream, kOutputStationary | kAtomic,
                 small ? &reft : nullptr);
      }
    }
  }
  BOOST_TEST_MESSAGE("HM row blocks: " << g_runs << " GPU runs compared");
}

// The paper's Table 2 at reduced size (n = 2000, 100 random diagonals within
// +-n/4 in A and B; the paper has n = 10^4 with 200-600), and banded
// matrices (9 and 21 diagonals) with many row tiles per output diagonal.
BOOST_AUTO_TEST_CASE(hm_table2_like_and_banded) {
  std::mt19937_64 rng(14);
  g_runs = 0;
  g_symbolic_device = g_symbolic_host = 0;
  {
    const Index n = 2000;
    const Layout L = Layout::square(n);
    const HmMatrix<double> A = random_hm(L, random_offsets(100, n / 4, n, rng), rng);
    const HmMatrix<double> B = random_hm(L, random_offsets(100, n / 4, n, rng), rng);
    const HmMatrix<double> C = check_hm(A, Trans::N, B, Trans::N, "table2-like n=2000 100x100", stream);
    BOOST_TEST_MESSAGE("table2-like: C has " << C.ndiag() << " diagonals, " << C.nstored() << " entries, "
                                             << hm_product_symbolic(A, Trans::N, B, Trans::N).pair_a.size()
                                             << " pairs");
    check_hm(A, Trans::T, B, Trans::N, "table2-like n=2000 100x100", stream, kOutputStationary);
    check_hm(A, Trans::N, B, Trans::T, "table2-like n=2000 100x100", stream, kOutputStationary);
  }
  {
    const Index n = 20000;
    const Layout L = Layout::square(n);
    std::vector<Index> b9, b21;
    for (Index d = -4; d <= 4; ++d) b9.push_back(d);
    for (Index d = -10; d <= 10; ++d) b21.push_back(d);
    const HmMatrix<double> A9 = random_hm(L, b9, rng), B9 = random_hm(L, b9, rng);
    const HmMatrix<double> A21 = random_hm(L, b21, rng), B21 = random_hm(L, b21, rng);
    check_hm(A9, Trans::N, B9, Trans::N, "banded n=20000 9x9", stream);
    check_hm(A21, Trans::N, B21, Trans::N, "banded n=20000 21x21", stream);
    check_hm(A9, Trans::T, B21, Trans::N, "banded n=20000 9x21", stream, kOutputStationary);
    check_hm(A21, Trans::N, B9, Trans::T, "banded n=20000 21x9", stream, kOutputStationary);
  }
  BOOST_TEST(g_symbolic_host == 0);  // every plan here was built on the device
  BOOST_TEST(g_symbolic_device == 7);
  BOOST_TEST_MESSAGE("table2-like and banded: " << g_runs << " GPU runs compared");
}

// The two schedules of the output-stationary kernel: C's diagonals long
// (every (tile, diagonal) code enumerated, no task list) and C's diagonals
// much shorter than its rows (corner diagonals of a 400000-row matrix: the
// host lists the few tasks that meet).
BOOST_AUTO_TEST_CASE(hm_schedules_enumerated_and_listed) {
  std::mt19937_64 rng(21);
  g_runs = 0;
  const Index n = 400000;
  const Layout L = Layout::square(n);
  std::vector<Index> corner, band;
  for (Index d = n - 300; d < n; ++d) corner.push_back(d);
  for (Index d = -1; d >= -(n - 1); d -= 49999) corner.insert(corner.begin(), d);  // and a few long ones
  for (Index d = -2; d <= 0; ++d) band.push_back(d);
  const HmMatrix<double> A = random_hm(L, corner, rng), B = random_hm(L, band, rng);
  const HmMatrix<double> A3 = random_hm(L, band, rng), B3 = random_hm(L, band, rng);
  for (const auto& [X, Y, listed, what] :
       {std::make_tuple(&A, &B, true, "corner x band n=400000"), std::make_tuple(&A3, &B3, false, "band x band n=400000")}) {
    const HmProductPlan plan = hm_product_symbolic(*X, Trans::N, *Y, Trans::N);
    DeviceHmPlan dp;
    PDIAG_CUDA_REQUIRE(dp.upload(plan, stream));
    BOOST_TEST((dp.view().tasks != nullptr) == listed, what << ": task list " << (listed ? "expected" : "not expected"));
    check_hm(*X, Trans::N, *Y, Trans::N, what, stream);
    check_hm(*X, Trans::T, *Y, Trans::N, what, stream, kOutputStationary);
  }
  // far corners only: the sums span 4n candidate diagonals for 4 pairs, so
  // the device leaves the plan to the host (check_hm compares either way)
  g_symbolic_device = g_symbolic_host = 0;
  const std::vector<Index> far = {-(n - 1), n - 1};
  const HmMatrix<double> F = random_hm(L, far, rng);
  check_hm(F, Trans::N, F, Trans::N, "far corners n=400000", stream);
  BOOST_TEST(g_symbolic_host == 1);
  BOOST_TEST_MESSAGE("schedules: " << g_runs << " GPU runs compared");
}

// More pairs per output diagonal than one shared-memory chunk (256): a full
// band of 399 diagonals times itself (the main diagonal of C has 399
// pairs); B also has more diagonals than one chunk of the atomic kernel.
BOOST_AUTO_TEST_CASE(hm_pairs_beyond_one_chunk) {
  std::mt19937_64 rng(15);
  g_runs = 0;
  const Index n = 400;
  std::vector<Index> band;
  for (Index d = -199; d <= 199; ++d) band.push_back(d);
  const HmMatrix<double> A = random_hm(Layout::square(n), band, rng), B = random_hm(Layout::square(n), band, rng);
  const HmProductPlan plan = hm_product_symbolic(A, Trans::N, B, Trans::N);
  Index most = 0;
  for (std::size_t c = 0; c + 1 < plan.pair_start.size(); ++c)
    most = std::max(most, plan.pair_start[c + 1] - plan.pair_start[c]);
  BOOST_TEST(most > 256);
  check_hm(A, Trans::N, B, Trans::N, "band 399 n=400", stream);
  check_hm(A, Trans::T, B, Trans::T, "band 399 n=400", stream);
  // A row block of it with the window of B
  const Layout Lb = Layout::block(n, n, 150, 123);
  HmMatrix<double> Ab(Lb, band);
  for (Index k = 0; k < Ab.ndiag(); ++k)
    for (Index i = Lb.lo(band[k]); i < Lb.hi(band[k]); ++i) *Ab.find(i, i + band[k]) = *A.find(i, i + band[k]);
  check_hm(Ab, Trans::N, B, Trans::N, "band 399 n=400 rows [150,273)", stream);
  BOOST_TEST_MESSAGE("chunks: " << g_runs << " GPU runs compared");
}

BOOST_AUTO_TEST_CASE(hm_empty_products) {
  g_runs = 0;
  for (Index n : {Index(1), Index(2), Index(5)}) {
    const Layout L = Layout::square(n);
    HmMatrix<double> E(L, {}), D(L, {0});
    std::fill(D.val.begin(), D.val.end(), 2.0);
    for (Trans ta : kTrans)
      for (Trans tb : kTrans)
        for (const auto& [X, Y] : {std::pair{&E, &D}, std::pair{&D, &E}, std::pair{&E, &E}}) {
          const HmMatrix<double> C = check_hm(*X, ta, *Y, tb, "empty n=" + std::to_string(n), stream);
          BOOST_TEST(C.ndiag() == 0);
        }
    if (n > 1) {  // far corners: (n-1) + (n-1) is past the corner
      HmMatrix<double> F(L, {n - 1}), G(L, {-(n - 1)});
      F.val[0] = 3.0;
      G.val[0] = 5.0;
      BOOST_TEST(check_hm(F, Trans::N, F, Trans::N, "far x far", stream).ndiag() == 0);
      BOOST_TEST(check_hm(F, Trans::T, G, Trans::N, "far^T x far", stream).ndiag() == 0);
      const HmMatrix<double> FG = check_hm(F, Trans::N, G, Trans::N, "far x -far", stream);
      BOOST_TEST(FG.offsets == std::vector<Index>{0});
    }
  }
  // a row block that A's diagonals miss
  const HmMatrix<double> A(Layout::block(5, 5, 0, 2), {-4, -3}), B(Layout::square(5), {0, 1});
  BOOST_TEST(check_hm(A, Trans::N, B, Trans::N, "missed block", stream).ndiag() == 0);
  // 0 x 0
  const HmMatrix<double> Z(Layout::square(0), {});
  BOOST_TEST(check_hm(Z, Trans::N, Z, Trans::T, "0x0", stream).ndiag() == 0);
  // CDM
  for (Index n : {Index(1), Index(4)}) {
    const CdmMatrix<double> Ec(Layout::square(n), {}), Dc(Layout::square(n), {0});
    for (Trans ta : kTrans)
      for (Trans tb : kTrans) {
        check_cdm(Ec, ta, Dc, tb, "empty CDM", stream);
        check_cdm(Dc, ta, Ec, tb, "empty CDM", stream);
      }
  }
  check_cdm(CdmMatrix<double>(Layout::square(0), {}), Trans::N, CdmMatrix<double>(Layout::square(0), {}), Trans::N,
            "0x0 CDM", stream);
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
}

// The same plan with new values, operands that do not match the plan, the
// plan's upload and moves.
BOOST_AUTO_TEST_CASE(hm_plan_reuse_and_bad_arguments) {
  std::mt19937_64 rng(16);
  const Index n = 17;
  const Layout L = Layout::square(n);
  const HmMatrix<double> A = random_hm(L, {-2, 0, 3}, rng), B = random_hm(L, {-1, 1}, rng);
  const HmProductPlan plan = hm_product_symbolic(A, Trans::T, B, Trans::N);
  HmMatrix<double> ref = hm_product_alloc<double>(plan);
  DeviceHmPlan dp;
  PDIAG_CUDA_REQUIRE(dp.upload(plan, stream));
  BOOST_TEST(dp.bytes() > 0u);
  DeviceHm<double> dA(A);
  const DeviceHm<double> dB(B);
  HmMatrix<double> C0 = ref;
  std::fill(C0.val.begin(), C0.val.end(), kNaN);
  DeviceHm<double> dC(C0);

  // new values, same pattern: the same plan gives the new product
  HmMatrix<double> A2 = A;
  for (double& v : A2.val) v *= -3.0;
  hm_product_numeric<double>(plan, A2.view(), Trans::T, B.view(), Trans::N, ref.view());
  PDIAG_CUDA_REQUIRE(cuda::hm_product_numeric(dp.view(), dA.view(), Trans::T, dB.view(), Trans::N, out_view(dC), stream));
  dA.val.upload(A2.val);
  PDIAG_CUDA_REQUIRE(cuda::hm_product_numeric(dp.view(), dA.view(), Trans::T, dB.view(), Trans::N, out_view(dC), stream));
  sync_checked(stream, "reuse");
  BOOST_TEST(rel_err(dC.val.download(), ref.val) <= kTol);
  dC.val.upload(C0.val);
  PDIAG_CUDA_REQUIRE(
      cuda::hm_product_numeric_atomic(dp.view(), dA.view(), Trans::T, dB.view(), Trans::N, out_view(dC), stream));
  sync_checked(stream, "reuse atomic");
  BOOST_TEST(rel_err(dC.val.download(), ref.val) <= kTol);

  // mismatches: cudaErrorInvalidValue, nothing launched, C untouched
  const std::vector<double> sentinel(ref.val.size(), 42.0);
  dC.val.upload(sentinel);
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
  const auto both = [&](const HmView<const double>& a, Trans ta, const HmView<const double>& b, Trans tb,
                        const HmView<double>& c, const char* what) {
    BOOST_CHECK_MESSAGE(cuda::hm_product_numeric(dp.view(), a, ta, b, tb, c, stream) == cudaErrorInvalidValue, what);
    BOOST_CHECK_MESSAGE(cuda::hm_product_numeric_atomic(dp.view(), a, ta, b, tb, c, stream) == cudaErrorInvalidValue,
                        what << " (atomic)");
  };
  both(dA.view(), Trans::N, dB.view(), Trans::N, out_view(dC), "other operations than planned");
  both(dA.view(), Trans::T, dB.view(), Trans::T, out_view(dC), "other operations than planned");
  HmView<double> cv = out_view(dC);
  cv.ndiag -= 1;
  both(dA.view(), Trans::T, dB.view(), Trans::N, cv, "C with fewer diagonals");
  cv = out_view(dC);
  cv.layout = Layout::square(n + 1);
  both(dA.view(), Trans::T, dB.view(), Trans::N, cv, "C of another size");
  HmView<const double> av = dA.view();
  av.ndiag = 2;  // the pairs use A's diagonal 2
  both(av, Trans::T, dB.view(), Trans::N, out_view(dC), "A with fewer diagonals than the pairs use");
  av = dA.view();
  av.layout = Layout::block(n, n, 1, n - 1);
  both(av, Trans::T, dB.view(), Trans::N, out_view(dC), "transposed row block");
  HmView<const double> bv = dB.view();
  bv.layout = Layout::rect(n + 2, n);
  both(dA.view(), Trans::T, bv, Trans::N, out_view(dC), "inner dimensions");
  sync_checked(stream, "mismatches");
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
  BOOST_CHECK(dC.val.download() == sentinel);

  // inconsistent plans are refused and leave the object empty
  HmProductPlan bad = plan;
  bad.pair_start.pop_back();
  BOOST_CHECK_EQUAL(dp.upload(bad, stream), cudaErrorInvalidValue);
  BOOST_TEST(dp.bytes() == 0u);
  BOOST_TEST(dp.view().ndiag == 0);
  bad = plan;
  bad.pair_b.pop_back();
  BOOST_CHECK_EQUAL(dp.upload(bad, stream), cudaErrorInvalidValue);
  bad = plan;
  if (bad.offsets.size() > 1) {
    std::swap(bad.offsets[0], bad.offsets[1]);
    BOOST_CHECK_EQUAL(dp.upload(bad, stream), cudaErrorInvalidValue);
  }
  bad = plan;
  bad.pair_a[0] = -1;
  BOOST_CHECK_EQUAL(dp.upload(bad, stream), cudaErrorInvalidValue);
  // a default plan uploads (empty, 0 x 0)
  PDIAG_CUDA_REQUIRE(dp.upload(HmProductPlan{}, stream));
  BOOST_TEST(dp.view().ntasks == 0);

  // moves: the moved-to object owns the plan, the moved-from one is empty
  DeviceHmPlan p1;
  PDIAG_CUDA_REQUIRE(p1.upload(plan, stream));
  const std::size_t bytes = p1.bytes();
  DeviceHmPlan p2(std::move(p1));
  BOOST_TEST(p2.bytes() == bytes);
  BOOST_TEST(p1.bytes() == 0u);  // NOLINT(bugprone-use-after-move): documented state
  DeviceHmPlan p3;
  p3 = std::move(p2);
  dC.val.upload(C0.val);
  PDIAG_CUDA_REQUIRE(cuda::hm_product_numeric(p3.view(), dA.view(), Trans::T, dB.view(), Trans::N, out_view(dC), stream));
  sync_checked(stream, "moved plan");
  BOOST_TEST(rel_err(dC.val.download(), ref.val) <= kTol);
  p3.reset();
  BOOST_TEST(p3.bytes() == 0u);
}

// ------------------------------------------------------------ CDM x CDM -----

BOOST_AUTO_TEST_CASE(cdm_tiled_all_sizes_offsets_ops) {
  std::mt19937_64 rng(21);
  g_runs = 0;
  for (Index n : test_sizes())
    for (const auto& [ca, cb] : case_pairs(n, n, n, n, rng)) {
      const RandomBlock Ar = random_block(Layout::square(n), ca.offsets, rng, 0.8);
      const RandomBlock Br = random_block(Layout::square(n), cb.offsets, rng, 0.8);
      const CdmMatrix<double> A = cdm_from_hm(to_hm(Ar)), B = cdm_from_hm(to_hm(Br));
      for (Trans ta : kTrans)
        for (Trans tb : kTrans) {
          const Dense ref = n <= 64 ? dense_mm(Ar.dense, ta == Trans::T, Br.dense, tb == Trans::T) : Dense();
          check_cdm(A, ta, B, tb, "n=" + std::to_string(n) + " A:" + ca.name + " B:" + cb.name, stream,
                    n <= 64 ? &ref : nullptr);
        }
    }
  // banded, many row tiles; and more than 16 diagonals of A and of C
  const Index n = 20000;
  std::vector<Index> b9, b21;
  for (Index d = -4; d <= 4; ++d) b9.push_back(d);
  for (Index d = -10; d <= 10; ++d) b21.push_back(d);
  const CdmMatrix<double> A9 = cdm_from_hm(random_hm(Layout::square(n), b9, rng));
  const CdmMatrix<double> A21 = cdm_from_hm(random_hm(Layout::square(n), b21, rng));
  const CdmMatrix<double> B21 = cdm_from_hm(random_hm(Layout::square(n), b21, rng));
  check_cdm(A9, Trans::N, A9, Trans::N, "banded n=20000 9x9", stream);
  check_cdm(A21, Trans::N, B21, Trans::N, "banded n=20000 21x21", stream);
  check_cdm(A21, Trans::T, B21, Trans::N, "banded n=20000 21x21", stream);
  check_cdm(A9, Trans::N, B21, Trans::T, "banded n=20000 9x21", stream);
  const Index m = 500;
  const CdmMatrix<double> R1 = cdm_from_hm(random_hm(Layout::square(m), random_offsets(40, m / 4, m, rng), rng));
  const CdmMatrix<double> R2 = cdm_from_hm(random_hm(Layout::square(m), random_offsets(33, m - 1, m, rng), rng));
  for (Trans ta : kTrans)
    for (Trans tb : kTrans) check_cdm(R1, ta, R2, tb, "random n=500 40x33", stream);
  BOOST_TEST_MESSAGE("CDM tiled: " << g_runs << " GPU runs compared");

  // bad layouts
  const CdmMatrix<double> C4(Layout::square(4), {0, 1}), C5(Layout::square(5), {0});
  const DeviceCdm<double> d4(C4), d5(C5);
  DeviceCdm<double> dout(C4);
  BOOST_CHECK_EQUAL(cuda::cdm_product_numeric_tiled(d4.view(), Trans::N, d5.view(), Trans::N, out_view(dout), stream),
                    cudaErrorInvalidValue);
  CdmView<const double> blk = d4.view();
  blk.layout = Layout::block(4, 4, 1, 2);
  BOOST_CHECK_EQUAL(cuda::cdm_product_numeric_tiled(blk, Trans::N, d4.view(), Trans::N, out_view(dout), stream),
                    cudaErrorInvalidValue);
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
}

// ----------------------------------------------------------------- SpMM -----

BOOST_AUTO_TEST_CASE(spmm_hm_and_cdm) {
  std::mt19937_64 rng(31);
  g_runs = 0;
  const std::vector<Index> ks = {1, 2, 3, 8, 9, 32};
  for (Index n : test_sizes()) {
    auto cases = offset_cases(n, n, rng);
    if (n >= 1000)
      cases.erase(std::remove_if(
                      cases.begin(), cases.end(),
                      [](const OffsetCase& c) { return c.name != "band" && c.name != "random0" && c.name != "far"; }),
                  cases.end());
    for (const auto& oc : cases) {
      const RandomBlock Ar = random_block(Layout::square(n), oc.offsets, rng, 0.9);
      for (const Layout& L : row_blocks(n, n)) {
        const HmMatrix<double> A = hm_block(Ar, L);
        const CdmMatrix<double> Ac = cdm_from_hm(A);
        const DeviceHm<double> dA(A);
        const DeviceCdm<double> dAc(Ac);
        const std::string label = layout_label(L, oc.name);
        for (Index k : ks) {
          if (n >= 1000 && k > 3 && k != 32) continue;
          check_spmm<HmSpmm>(A, dA, k, {}, n, rng, label, stream);
          check_spmm<CdmSpmm>(Ac, dAc, k, {}, n, rng, label, stream);
        }
        // X stored at an offset (every row 5 further down), through shifts
        std::vector<Index> hs = default_shift(L, A.offsets), cs = default_cdm_shift(L, Ac.koffsets);
        for (Index& s : hs) s += 5;
        for (Index& s : cs) s += 5;
        check_spmm<HmSpmm>(A, dA, 3, hs, n + 10, rng, label, stream);
        check_spmm<CdmSpmm>(Ac, dAc, 9, cs, n + 10, rng, label, stream);
      }
    }
  }
  // rectangular HM
  const Index shapes[][2] = {{17, 5}, {5, 17}, {1, 9}, {9, 1}, {300, 1000}};
  for (const auto& s : shapes)
    for (const auto& oc : offset_cases(s[0], s[1], rng)) {
      const HmMatrix<double> A = to_hm(random_block(Layout::rect(s[0], s[1]), oc.offsets, rng));
      const DeviceHm<double> dA(A);
      for (Index k : ks) check_spmm<HmSpmm>(A, dA, k, {}, s[1], rng, layout_label(A.layout, oc.name), stream);
    }
  // MPI-style: X holds only the rows [c0, c1) a row block reaches
  {
    const Index n = 640;
    const HmMatrix<double> Af = random_hm(Layout::square(n), {-50, -5, -1, 0, 2, 7, 300}, rng);
    const Layout L = Layout::block(n, n, 200, 160);
    HmMatrix<double> A(L, Af.offsets);
    for (Index k = 0; k < A.ndiag(); ++k)
      for (Index i = L.lo(A.offsets[k]); i < L.hi(A.offsets[k]); ++i)
        *A.find(i, i + A.offsets[k]) = *Af.find(i, i + A.offsets[k]);
    Index c0, c1;
    reach(A, c0, c1);
    std::vector<Index> shift = default_shift(L, A.offsets);
    for (Index& s : shift) s -= c0;
    const DeviceHm<double> dA(A);
    for (Index k : ks) check_spmm<HmSpmm>(A, dA, k, shift, c1 - c0, rng, "window of X", stream);
  }
  BOOST_TEST_MESSAGE("SpMM: " << g_runs << " GPU runs compared");

  // k = 0 and no rows: nothing launched, C untouched; bad arguments refused
  const HmMatrix<double> A(Layout::rect(3, 4), {0, 1});
  const CdmMatrix<double> Ac(Layout::square(4), {0, 1});
  const DeviceHm<double> dA(A);
  const DeviceCdm<double> dAc(Ac);
  DeviceArray<double> X(std::vector<double>(40, 1.0)), C(std::vector<double>(40, 5.0));
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
  BOOST_CHECK_EQUAL(cuda::hm_spmm(dA.view(), X.get(), 4, 0, C.get(), 3, nullptr, stream), cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::cdm_spmm(dAc.view(), X.get(), 4, 0, C.get(), 4, nullptr, stream), cudaSuccess);
  BOOST_CHECK_EQUAL(cuda::hm_spmm(dA.view(), X.get(), 4, -1, C.get(), 3, nullptr, stream), cudaErrorInvalidValue);
  BOOST_CHECK_EQUAL(cuda::hm_spmm(dA.view(), X.get(), 4, 2, C.get(), 2, nullptr, stream), cudaErrorInvalidValue);
  BOOST_CHECK_EQUAL(cuda::hm_spmm(dA.view(), X.get(), 3, 2, C.get(), 3, nullptr, stream), cudaErrorInvalidValue);
  BOOST_CHECK_EQUAL(cuda::cdm_spmm(dAc.view(), X.get(), 3, 2, C.get(), 4, nullptr, stream), cudaErrorInvalidValue);
  BOOST_CHECK_EQUAL(cuda::cdm_spmm(dAc.view(), X.get(), 4, 2, C.get(), 3, nullptr, stream), cudaErrorInvalidValue);
  HmView<const double> none = dA.view();
  none.layout = Layout::block(3, 4, 1, 0);
  BOOST_CHECK_EQUAL(cuda::hm_spmm(none, X.get(), 4, 2, C.get(), 0, nullptr, stream), cudaSuccess);
  sync_checked(stream, "k = 0 and bad arguments");
  PDIAG_CUDA_REQUIRE(cudaGetLastError());
  BOOST_CHECK(C.download() == std::vector<double>(40, 5.0));
}

// ---------------------------------------------------------------- float -----

// The float instantiations on one case each, against the double CPU
// reference: float rounding only, so 1e-5.
BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(41);
  const Index n = 1000;
  const Layout L = Layout::square(n);
  const std::vector<Index> oa = {-(n - 1), -3, -1, 0, 1, 2, 40}, ob = {-7, -1, 0, 1, 5, 300};
  const HmMatrix<double> A = random_hm(L, oa, rng), B = random_hm(L, ob, rng);
  const auto to_float = [](const HmMatrix<double>& M) {
    HmMatrix<float> F(M.layout, M.offsets);
    for (std::size_t p = 0; p < M.val.size(); ++p) F.val[p] = float(M.val[p]);
    return F;
  };
  const HmMatrix<float> Af = to_float(A), Bf = to_float(B);
  const auto check = [&](const std::string& what, cudaError_t e, const std::vector<float>& got,
                         const std::vector<double>& ref) {
    BOOST_REQUIRE_MESSAGE(e == cudaSuccess, what << ": launch failed: " << cudaGetErrorString(e));
    const double err = rel_err(std::vector<double>(got.begin(), got.end()), ref);
    BOOST_CHECK_MESSAGE(err <= 1e-5, what << ": relative error " << err);
  };
  // HM products
  const DeviceHm<float> dA(Af), dB(Bf);
  for (Trans ta : kTrans) {
    const HmProductPlan plan = hm_product_symbolic(A, ta, B, Trans::N);
    HmMatrix<double> ref = hm_product_alloc<double>(plan);
    hm_product_numeric<double>(plan, A.view(), ta, B.view(), Trans::N, ref.view());
    DeviceHmPlan dp;
    PDIAG_CUDA_REQUIRE(dp.upload(plan, stream));
    HmMatrix<float> C0 = hm_product_alloc<float>(plan);
    std::fill(C0.val.begin(), C0.val.end(), std::numeric_limits<float>::quiet_NaN());
    DeviceHm<float> dC(C0);
    cudaError_t e = cuda::hm_product_numeric(dp.view(), dA.view(), ta, dB.view(), Trans::N, out_view(dC), stream);
    sync_checked(stream, "float hm_product_numeric");
    check("float hm_product_numeric " + op_name(ta, Trans::N), e, dC.val.download(), ref.val);
    dC.val.upload(C0.val);
    e = cuda::hm_product_numeric_atomic(dp.view(), dA.view(), ta, dB.view(), Trans::N, out_view(dC), stream);
    sync_checked(stream, "float hm_product_numeric_atomic");
    check("float hm_product_numeric_atomic " + op_name(ta, Trans::N), e, dC.val.download(), ref.val);
  }
  // CDM tiled
  {
    const CdmMatrix<double> Ac = cdm_from_hm(A), Bc = cdm_from_hm(B);
    const CdmMatrix<float> Acf = cdm_from_hm(Af), Bcf = cdm_from_hm(Bf);
    const CdmProductPlan plan = cdm_product_symbolic(Ac, Trans::N, Bc, Trans::T);
    CdmMatrix<double> ref = cdm_product_alloc<double>(plan);
    cdm_product_numeric<double>(plan, Ac.view(), Trans::N, Bc.view(), Trans::T, ref.view());
    CdmMatrix<float> C0 = cdm_product_alloc<float>(plan);
    std::fill(C0.val.begin(), C0.val.end(), std::numeric_limits<float>::quiet_NaN());
    const DeviceCdm<float> dAc(Acf), dBc(Bcf);
    DeviceCdm<float> dC(C0);
    const cudaError_t e = cuda::cdm_product_numeric_tiled(dAc.view(), Trans::N, dBc.view(), Trans::T, out_view(dC), stream);
    sync_checked(stream, "float cdm_product_numeric_tiled");
    check("float cdm_product_numeric_tiled ABt", e, dC.val.download(), ref.val);
  }
  // SpMM, k = 3 and 9
  for (Index k : {Index(3), Index(9)}) {
    const std::vector<double> X = random_vector(n * k, rng);
    std::vector<double> ref(std::size_t(n * k));
    pdiag::hm_spmm<double>(A.view(), X.data(), n, k, ref.data(), n);
    const DeviceArray<float> dX(std::vector<float>(X.begin(), X.end()));
    DeviceArray<float> dC(std::vector<float>(std::size_t(n * k), std::numeric_limits<float>::quiet_NaN()));
    cudaError_t e = cuda::hm_spmm(dA.view(), dX.get(), n, k, dC.get(), n, nullptr, stream);
    sync_checked(stream, "float hm_spmm");
    check("float hm_spmm k=" + std::to_string(k), e, dC.download(), ref);
    const CdmMatrix<float> Acf = cdm_from_hm(Af);
    const DeviceCdm<float> dAc(Acf);
    dC.upload(std::vector<float>(std::size_t(n * k), std::numeric_limits<float>::quiet_NaN()));
    e = cuda::cdm_spmm(dAc.view(), dX.get(), n, k, dC.get(), n, nullptr, stream);
    sync_checked(stream, "float cdm_spmm");
    check("float cdm_spmm k=" + std::to_string(k), e, dC.download(), ref);
  }
}

// ------------------------------------------------------------ large grids -----

// More work than one grid of 65535 blocks: the kernels' blocks stride over
// the rest. CDM Algorithm 1 with n > 65535 * 16 rows (banded n = 10^6
// class), the HM product with more than 65535 tasks (5 output diagonals of
// 13.5M rows) and Algorithm 2 with more than 65535 blocks of entries, SpMM
// with more than 65535 row tiles.
BOOST_AUTO_TEST_CASE(grid_stride_large) {
  std::mt19937_64 rng(51);
  g_runs = 0;
  {
    const Index n = 65535 * 16 + 4321;
    const CdmMatrix<double> A = cdm_from_hm(random_hm(Layout::square(n), {-1, 0, 1, n - 1}, rng));
    check_cdm(A, Trans::N, A, Trans::T, "CDM n=" + std::to_string(n), stream);
  }
  if (enough_device_memory(std::size_t(3) << 30, "grid_stride_large (HM product)")) {
    const Index n = 13500000;
    const HmMatrix<double> A = random_hm(Layout::square(n), {-1, 0, 1}, rng);
    const HmMatrix<double> B = random_hm(Layout::square(n), {-1, 0, 1}, rng);
    BOOST_TEST(5 * ((n + DevicePlan::kTileRows - 1) / DevicePlan::kTileRows) > 65535);
    check_hm(A, Trans::N, B, Trans::N, "HM tridiagonal n=" + std::to_string(n), stream);
  }
  if (enough_device_memory(std::size_t(2) << 30, "grid_stride_large (SpMM)")) {
    const Index n = Index(65535) * 256 + 777;
    const HmMatrix<double> A = random_hm(Layout::square(n), {-(n - 1), -1, 0, 1}, rng);
    const DeviceHm<double> dA(A);
    check_spmm<HmSpmm>(A, dA, 1, {}, n, rng, "large n=" + std::to_string(n), stream);
    const CdmMatrix<double> Ac = cdm_from_hm(A);
    const DeviceCdm<double> dAc(Ac);
    check_spmm<CdmSpmm>(Ac, dAc, 1, {}, n, rng, "large n=" + std::to_string(n), stream);
  }
  BOOST_TEST_MESSAGE("large: " << g_runs << " GPU runs compared");
}

BOOST_AUTO_TEST_SUITE_END()

PDIAG_CUDA_TEST_MAIN("test_product_cuda")
