// CPU reference products (pdiag/product.hpp, pdiag/spmm.hpp): AB, AtB, ABt,
// AtBt in HM and CDM, and SpMM, against dense references; the paper's
// worked examples (CDM n = 4, section 4; the thirteen HM cases, 6.2); the
// symbolic phase; row blocks; bad input.
#define BOOST_TEST_MODULE test_products_cpu
#include <boost/test/unit_test.hpp>

#include "pdiag/product.hpp"
#include "testing.hpp"

#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

const Trans kTrans[2] = {Trans::N, Trans::T};

std::string str(const std::vector<Index>& v) {
  std::ostringstream os;
  os << "{";
  for (std::size_t p = 0; p < v.size(); ++p) os << (p ? "," : "") << v[p];
  os << "}";
  return os.str();
}

double err(const Dense& got, const Dense& ref) {
  if (got.rows != ref.rows || got.cols != ref.cols) return INFINITY;
  return rel_err(got.a, ref.a);
}

/// C's diagonals for full operands: the sum set of the effective offsets
/// clipped to C's valid offsets (for full layouts every such pair overlaps).
std::vector<Index> sum_set(const std::vector<Index>& oa, Trans ta, const std::vector<Index>& ob, Trans tb,
                           const Layout& LC) {
  std::set<Index> s;
  for (Index a : oa)
    for (Index b : ob) {
      const Index d = (ta == Trans::T ? -a : a) + (tb == Trans::T ? -b : b);
      if (LC.valid_offset(d)) s.insert(d);
    }
  return {s.begin(), s.end()};
}

/// Checks an HM product of full random matrices against dense_mm, and its
/// plan against the sum set and a brute-force count of multiply-adds.
void check_hm(const RandomBlock& Ar, Trans ta, const RandomBlock& Br, Trans tb, const std::string& ctx) {
  BOOST_TEST_CONTEXT(ctx) {
    const HmMatrix<double> A = to_hm(Ar), B = to_hm(Br);
    const HmProductPlan plan = hm_product_symbolic(A, ta, B, tb);
    HmMatrix<double> C = hm_product_alloc<double>(plan);
    std::fill(C.val.begin(), C.val.end(), 1e300);  // numeric overwrites
    std::vector<unsigned char> nonzero(static_cast<std::size_t>(C.nstored()), 7);  // overwritten too
    hm_product_numeric<double>(plan, A.view(), ta, B.view(), tb, C.view(), nonzero.data());
    Index wrong = 0;
    for (std::size_t p = 0; p < nonzero.size(); ++p) wrong += nonzero[p] != (C.val[p] != 0.0 ? 1 : 0);
    BOOST_TEST(wrong == 0, "nonzero mask differs from the values at " << wrong << " positions");
    const Dense ref = dense_mm(Ar.dense, ta == Trans::T, Br.dense, tb == Trans::T);
    BOOST_TEST(C.layout.nrows == ref.rows);
    BOOST_TEST(C.layout.ncols == ref.cols);
    BOOST_TEST(err(to_dense(C), ref) <= kTol);
    BOOST_TEST(C.offsets == sum_set(A.offsets, ta, B.offsets, tb, C.layout), str(C.offsets));
    // nmul: brute force over rows and pairs.
    const Layout LAe = ta == Trans::T ? A.layout.transposed() : A.layout;
    const Layout LBe = tb == Trans::T ? B.layout.transposed() : B.layout;
    Index nmul = 0, npairs = 0;
    for (Index a : A.offsets)
      for (Index b : B.offsets) {
        const Index ea = ta == Trans::T ? -a : a, eb = tb == Trans::T ? -b : b;
        Index cnt = 0;
        for (Index i = 0; i < LAe.nrows; ++i)
          cnt += (i >= LAe.lo(ea) && i < LAe.hi(ea) && i + ea >= LBe.lo(eb) && i + ea < LBe.hi(eb));
        nmul += cnt;
        npairs += cnt > 0;
      }
    BOOST_TEST(plan.nmul == nmul);
    BOOST_TEST(Index(plan.pair_a.size()) == npairs);
  }
}

void check_cdm(const RandomBlock& Ar, Trans ta, const RandomBlock& Br, Trans tb, const std::string& ctx) {
  BOOST_TEST_CONTEXT(ctx) {
    const CdmMatrix<double> A = cdm_from_hm(to_hm(Ar)), B = cdm_from_hm(to_hm(Br));
    const Index n = A.layout.ncols;
    const CdmProductPlan plan = cdm_product_symbolic(A, ta, B, tb);
    CdmMatrix<double> C = cdm_product_alloc<double>(plan);
    std::fill(C.val.begin(), C.val.end(), -1e300);
    cdm_product_numeric<double>(plan, A.view(), ta, B.view(), tb, C.view());
    const Dense ref = dense_mm(Ar.dense, ta == Trans::T, Br.dense, tb == Trans::T);
    BOOST_TEST(err(to_dense(C), ref) <= kTol);
    std::set<Index> s;
    for (Index a : A.koffsets)
      for (Index b : B.koffsets) {
        const Index ea = (ta == Trans::T ? n - a : a) % n, eb = (tb == Trans::T ? n - b : b) % n;
        s.insert((ea + eb) % n);
      }
    BOOST_TEST(C.koffsets == std::vector<Index>(s.begin(), s.end()));
    BOOST_TEST(Index(plan.pair_a.size()) == A.ndiag() * B.ndiag());
  }
}

/// Offset cases for a size, fewer at large sizes (keeps the dense
/// references cheap).
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

}  // namespace

// ------------------------------------------------------- HM vs dense -----

BOOST_AUTO_TEST_CASE(hm_square_all_transposes) {
  std::mt19937_64 rng(11);
  for (Index n : test_sizes())
    for (const auto& [ca, cb] : case_pairs(n, n, n, n, rng)) {
      const double dens = n >= 17 ? 0.7 : 1.0;
      const RandomBlock Ar = random_block(Layout::square(n), ca.offsets, rng, dens);
      const RandomBlock Br = random_block(Layout::square(n), cb.offsets, rng, dens);
      for (Trans ta : kTrans)
        for (Trans tb : kTrans)
          check_hm(
              Ar, ta, Br, tb,
              "n=" + std::to_string(n) + " A:" + ca.name + " B:" + cb.name + " op=" + trans_name(ta) + trans_name(tb));
    }
}

BOOST_AUTO_TEST_CASE(hm_rectangular_all_transposes) {
  std::mt19937_64 rng(12);
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
          check_hm(Ar, ta, Br, tb,
                   std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N) + " A:" + ca.name +
                       " B:" + cb.name + " op=" + trans_name(ta) + trans_name(tb));
        }
      }
  }
}

BOOST_AUTO_TEST_CASE(hm_row_block_times_full_and_covering_block) {
  std::mt19937_64 rng(13);
  const Index shapes[][3] = {{4, 4, 4}, {17, 17, 17}, {64, 64, 64}, {17, 5, 9}, {5, 17, 3}, {1000, 1000, 1000}};
  for (const auto& s : shapes) {
    const Index M = s[0], K = s[1], N = s[2];
    for (const auto& [ca, cb] : case_pairs(M, K, K, N, rng)) {
      const RandomBlock Ar = random_block(Layout::rect(M, K), ca.offsets, rng);
      const RandomBlock Br = random_block(Layout::rect(K, N), cb.offsets, rng);
      std::vector<Index> negb;  // B^T stored as an N x K matrix with the negated diagonals
      for (Index d : cb.offsets) negb.insert(negb.begin(), -d);
      const RandomBlock Bt = random_block(Layout::rect(N, K), negb, rng);
      const Dense full = dense_mm(Ar.dense, false, Br.dense, false);
      const Dense fullt = dense_mm(Ar.dense, false, Bt.dense, true);
      const HmMatrix<double> Bfull = to_hm(Br), Btf = to_hm(Bt);
      for (const Layout& L : row_blocks(M, K)) {
        const std::string ctx = std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N) +
                                " A:" + ca.name + " B:" + cb.name + " rows [" + std::to_string(L.row_begin) + "," +
                                std::to_string(L.row_end()) + ")";
        BOOST_TEST_CONTEXT(ctx) {
          const HmMatrix<double> A = hm_block(Ar, L);
          const Dense ref = rows_of(full, L.row_begin, L.nrows);
          // block x full
          const HmMatrix<double> C = hm_product(A, Trans::N, Bfull, Trans::N);
          BOOST_TEST((C.layout == Layout::block(M, N, L.row_begin, L.nrows)));
          BOOST_TEST(err(to_dense(C), ref) <= kTol);
          for (Index d : C.offsets) BOOST_TEST(C.layout.length(d) > 0);  // no empty diagonals
          // block x the block of B that A reaches
          Index c0, c1;
          reach(A, c0, c1);
          const HmMatrix<double> Bb = hm_block(Br, Layout::block(K, N, c0, c1 - c0));
          const HmMatrix<double> Cb = hm_product(A, Trans::N, Bb, Trans::N);
          BOOST_TEST((Cb.layout == C.layout));
          BOOST_TEST(Cb.offsets == C.offsets);
          BOOST_TEST(err(to_dense(Cb), ref) <= kTol);
          // a block of B one row short: error
          if (c1 > c0) {
            const HmMatrix<double> Bs = hm_block(Br, Layout::block(K, N, c0 + 1, c1 - c0 - 1));
            BOOST_CHECK_THROW(hm_product(A, Trans::N, Bs, Trans::N), FormatError);
          }
          // block x full^T
          const HmMatrix<double> Ct = hm_product(A, Trans::N, Btf, Trans::T);
          BOOST_TEST(err(to_dense(Ct), rows_of(fullt, L.row_begin, L.nrows)) <= kTol);
          // symbolic against brute force: diagonal dC is present iff some row
          // of the block has a structural product on it.
          std::set<Index> expect;
          for (Index a : A.offsets)
            for (Index b : Bfull.offsets)
              for (Index i = L.lo(a); i < L.hi(a); ++i)
                if (Bfull.layout.length(b) > 0 && i + a >= Bfull.layout.lo(b) && i + a < Bfull.layout.hi(b)) {
                  expect.insert(a + b);
                  break;
                }
          BOOST_TEST(C.offsets == std::vector<Index>(expect.begin(), expect.end()));
        }
      }
    }
  }
}

// ------------------------------------------------------ CDM vs dense -----

BOOST_AUTO_TEST_CASE(cdm_square_all_transposes) {
  std::mt19937_64 rng(21);
  for (Index n : test_sizes())
    for (const auto& [ca, cb] : case_pairs(n, n, n, n, rng)) {
      const RandomBlock Ar = random_block(Layout::square(n), ca.offsets, rng, 0.8);
      const RandomBlock Br = random_block(Layout::square(n), cb.offsets, rng, 0.8);
      for (Trans ta : kTrans)
        for (Trans tb : kTrans)
          check_cdm(
              Ar, ta, Br, tb,
              "n=" + std::to_string(n) + " A:" + ca.name + " B:" + cb.name + " op=" + trans_name(ta) + trans_name(tb));
    }
}

// ------------------------------------------------ paper, section 4 -----

// The n = 4 example of section 4: C_0 and C_1 of C = A B written with the
// compact diagonals A_k, their reverses B~_k and the shifts r_1, entry by
// entry as printed in the paper.
BOOST_AUTO_TEST_CASE(paper_cdm_n4_worked_example) {
  const Index n = 4;
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<int> u(1, 97);
  Dense Ad(n, n), Bd(n, n);
  for (double& x : Ad.a) x = u(rng);
  for (double& x : Bd.a) x = u(rng);
  auto a = [&](int i, int j) { return Ad(i, j); };
  auto b = [&](int i, int j) { return Bd(i, j); };
  std::vector<Index> rows, cols;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) rows.push_back(i), cols.push_back(j);
  const CdmMatrix<double> A =
      cdm_from_hm(hm_from_coo<double>(Layout::square(n), 16, rows.data(), cols.data(), Ad.a.data()));
  const CdmMatrix<double> B =
      cdm_from_hm(hm_from_coo<double>(Layout::square(n), 16, rows.data(), cols.data(), Bd.a.data()));
  // Storage as in section 3.2: A_3 = (a03, a10, a21, a32).
  BOOST_TEST(A.koffsets == (std::vector<Index>{0, 1, 2, 3}));
  const double A3[4] = {a(0, 3), a(1, 0), a(2, 1), a(3, 2)};
  for (int r = 0; r < 4; ++r) BOOST_TEST(A.val[std::size_t(3 * n + r)] == A3[r]);

  const CdmMatrix<double> C = cdm_product(A, Trans::N, B, Trans::N);
  BOOST_REQUIRE(C.koffsets == (std::vector<Index>{0, 1, 2, 3}));
  const double A0v[4] = {a(0, 0), a(1, 1), a(2, 2), a(3, 3)}, B0v[4] = {b(0, 0), b(1, 1), b(2, 2), b(3, 3)};
  const double A1v[4] = {a(0, 1), a(1, 2), a(2, 3), a(3, 0)}, Bt1[4] = {b(1, 0), b(2, 1), b(3, 2), b(0, 3)};
  const double A2v[4] = {a(0, 2), a(1, 3), a(2, 0), a(3, 1)}, Bt2[4] = {b(2, 0), b(3, 1), b(0, 2), b(1, 3)};
  const double A3v[4] = {a(0, 3), a(1, 0), a(2, 1), a(3, 2)}, Bt3[4] = {b(3, 0), b(0, 1), b(1, 2), b(2, 3)};
  // C_0 = A_0 B_0 + A_1 B~_1 + A_2 B~_2 + A_3 B~_3
  for (int r = 0; r < 4; ++r) {
    const double c0 = A0v[r] * B0v[r] + A1v[r] * Bt1[r] + A2v[r] * Bt2[r] + A3v[r] * Bt3[r];
    BOOST_TEST(C.val[std::size_t(r)] == c0);
  }
  // (c00, c11, c22, c33)
  const Dense ref = dense_mm(Ad, false, Bd, false);
  for (int r = 0; r < 4; ++r) BOOST_TEST(C.val[std::size_t(r)] == ref(r, r));
  // C_1 = A_1 B_0^{r1} + A_2 B~_1^{r1} + A_3 B~_2^{r1} + A_0 B~_3^{r1}
  const double B0r1[4] = {b(1, 1), b(2, 2), b(3, 3), b(0, 0)};
  const double Bt1r1[4] = {b(2, 1), b(3, 2), b(0, 3), b(1, 0)};
  const double Bt2r1[4] = {b(3, 1), b(0, 2), b(1, 3), b(2, 0)};
  const double Bt3r1[4] = {b(0, 1), b(1, 2), b(2, 3), b(3, 0)};
  for (int r = 0; r < 4; ++r) {
    const double c1 = A1v[r] * B0r1[r] + A2v[r] * Bt1r1[r] + A3v[r] * Bt2r1[r] + A0v[r] * Bt3r1[r];
    BOOST_TEST(C.val[std::size_t(n + r)] == c1);
  }
  // (c01, c12, c23, c30)
  const int c1col[4] = {1, 2, 3, 0};
  for (int r = 0; r < 4; ++r) BOOST_TEST(C.val[std::size_t(n + r)] == ref(r, c1col[r]));
  // Section 6.1: compact diagonal i of C pairs A_k with B_{(i-k) mod n}.
  const CdmProductPlan plan = cdm_product_symbolic(A, Trans::N, B, Trans::N);
  for (Index c = 0; c < 4; ++c)
    for (Index p = plan.pair_start[c]; p < plan.pair_start[c + 1]; ++p)
      BOOST_TEST(B.koffsets[plan.pair_b[p]] == (plan.koffsets[c] - A.koffsets[plan.pair_a[p]] + n) % n);
}

// Section 4: A^T's compact diagonal k is the reverse A~_k = (sub A_k; super
// A_{n-k}), read in place: A^T I and I A^T give exactly those vectors.
BOOST_AUTO_TEST_CASE(paper_cdm_reverse_compact_diagonal) {
  const Index n = 4;
  Dense Ad(n, n);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) Ad(i, j) = double(10 * i + j + 1);
  auto a = [&](int i, int j) { return Ad(i, j); };
  std::vector<Index> rows, cols;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j) rows.push_back(i), cols.push_back(j);
  const CdmMatrix<double> A =
      cdm_from_hm(hm_from_coo<double>(Layout::square(n), 16, rows.data(), cols.data(), Ad.a.data()));
  CdmMatrix<double> I(Layout::square(n), {0});
  std::fill(I.val.begin(), I.val.end(), 1.0);
  const double rev[4][4] = {{a(0, 0), a(1, 1), a(2, 2), a(3, 3)},
                            {a(1, 0), a(2, 1), a(3, 2), a(0, 3)},
                            {a(2, 0), a(3, 1), a(0, 2), a(1, 3)},
                            {a(3, 0), a(0, 1), a(1, 2), a(2, 3)}};
  const CdmMatrix<double> C1 = cdm_product(A, Trans::T, I, Trans::N);
  const CdmMatrix<double> C2 = cdm_product(I, Trans::N, A, Trans::T);
  const CdmMatrix<double> C3 = cdm_product(I, Trans::T, A, Trans::T);  // I^T A^T
  for (const CdmMatrix<double>* C : {&C1, &C2, &C3}) {
    BOOST_REQUIRE(C->koffsets == (std::vector<Index>{0, 1, 2, 3}));
    for (int k = 0; k < 4; ++k)
      for (int r = 0; r < 4; ++r) BOOST_TEST(C->val[std::size_t(k * n + r)] == rev[k][r]);
  }
}

// ------------------------------------------- paper, section 6.2 cases -----

namespace {
// The thirteen cases of section 6.2 in HM index notation X[d][p], p =
// min(row, col) (the position along diagonal d). Each maps an entry
// A[dA][p] and a diagonal dB of B to the entry B[dB][pb] it multiplies and
// the entry C[dA + dB][pc] the product adds to.
struct PaperCase {
  const char* name;
  bool (*applies)(Index dA, Index dB);
  void (*map)(Index dA, Index dB, Index p, Index& pb, Index& pc);
};

const PaperCase kPaperCases[13] = {
    // First category: the main diagonal of C.
    {"1.1 C[0][i] = A[0][i] B[0][i]", [](Index dA, Index dB) { return dA == 0 && dB == 0; },
     [](Index, Index, Index p, Index& pb, Index& pc) { pb = p, pc = p; }},
    {"1.2 C[0][j] = A[i][j] B[-i][j]", [](Index dA, Index dB) { return dA > 0 && dB == -dA; },
     [](Index, Index, Index p, Index& pb, Index& pc) { pb = p, pc = p; }},
    {"1.3 C[0][i+j] = A[-i][j] B[i][j]", [](Index dA, Index dB) { return dA < 0 && dB == -dA; },
     [](Index dA, Index, Index p, Index& pb, Index& pc) { pb = p, pc = p - dA; }},
    // Second category: super diagonals of C.
    {"2.1 C[i+j][k] += A[i][k] B[j][i+k]", [](Index dA, Index dB) { return dA > 0 && dB > 0; },
     [](Index dA, Index, Index p, Index& pb, Index& pc) { pb = dA + p, pc = p; }},
    {"2.2 C[j][i] += A[0][i] B[j][i]", [](Index dA, Index dB) { return dA == 0 && dB > 0; },
     [](Index, Index, Index p, Index& pb, Index& pc) { pb = p, pc = p; }},
    {"2.3 C[i][j] += A[i][j] B[0][i+j]", [](Index dA, Index dB) { return dA > 0 && dB == 0; },
     [](Index dA, Index, Index p, Index& pb, Index& pc) { pb = dA + p, pc = p; }},
    {"2.4 C[i-j][k] += A[i][k] B[-j][i+k-j], i > j", [](Index dA, Index dB) { return dA > 0 && dB < 0 && dA > -dB; },
     [](Index dA, Index dB, Index p, Index& pb, Index& pc) { pb = dA + p + dB, pc = p; }},
    {"2.5 C[j-i][k+i] += A[-i][k] B[j][k], j > i", [](Index dA, Index dB) { return dA < 0 && dB > 0 && dB > -dA; },
     [](Index dA, Index, Index p, Index& pb, Index& pc) { pb = p, pc = p - dA; }},
    // Third category: sub diagonals of C (super and sub swapped).
    {"3.1 C[-(i+j)][k-j] += A[-i][k] B[-j][k-j]", [](Index dA, Index dB) { return dA < 0 && dB < 0; },
     [](Index, Index dB, Index p, Index& pb, Index& pc) { pb = p + dB, pc = p + dB; }},
    {"3.2 C[-j][i-j] += A[0][i] B[-j][i-j]", [](Index dA, Index dB) { return dA == 0 && dB < 0; },
     [](Index, Index dB, Index p, Index& pb, Index& pc) { pb = p + dB, pc = p + dB; }},
    {"3.3 C[-i][j] += A[-i][j] B[0][j]", [](Index dA, Index dB) { return dA < 0 && dB == 0; },
     [](Index, Index, Index p, Index& pb, Index& pc) { pb = p, pc = p; }},
    {"3.4 C[j-i][k+j] += A[-i][k] B[j][k], i > j", [](Index dA, Index dB) { return dA < 0 && dB > 0 && -dA > dB; },
     [](Index, Index dB, Index p, Index& pb, Index& pc) { pb = p, pc = p + dB; }},
    {"3.5 C[i-j][k+i-j] += A[i][k] B[-j][k+i-j], j > i",
     [](Index dA, Index dB) { return dA > 0 && dB < 0 && -dB > dA; },
     [](Index dA, Index dB, Index p, Index& pb, Index& pc) { pb = p + dA + dB, pc = p + dA + dB; }},
};

/// The one case that applies to (dA, dB); fails the test if not exactly one.
const PaperCase* paper_case(Index dA, Index dB) {
  const PaperCase* found = nullptr;
  int count = 0;
  for (const PaperCase& c : kPaperCases)
    if (c.applies(dA, dB)) found = &c, ++count;
  if (count != 1) BOOST_FAIL("dA=" << dA << " dB=" << dB << " matches " << count << " cases");
  return found;
}

/// X[d][p] in HM index notation for a square sequential matrix: p = min(row, col).
double hm_at(const HmMatrix<double>& X, Index d, Index p) {
  const Index k = X.find_diagonal(d);
  return k < 0 ? 0.0 : X.val[std::size_t(X.start[k] + p)];
}
}  // namespace

// Every case on single-diagonal operands: each entry of C is the one
// product the case's formula names, and nothing else is in C.
BOOST_AUTO_TEST_CASE(paper_thirteen_cases_entrywise) {
  const Index n = 7;
  std::mt19937_64 rng(62);
  int seen[13] = {};
  for (Index dA = -(n - 1); dA < n; ++dA)
    for (Index dB = -(n - 1); dB < n; ++dB) {
      const PaperCase* pc_case = paper_case(dA, dB);
      seen[pc_case - kPaperCases]++;
      BOOST_TEST_CONTEXT(pc_case->name << " dA=" << dA << " dB=" << dB) {
        const HmMatrix<double> A = to_hm(random_block(Layout::square(n), {dA}, rng));
        const HmMatrix<double> B = to_hm(random_block(Layout::square(n), {dB}, rng));
        const HmMatrix<double> C = hm_product(A, Trans::N, B, Trans::N);
        const Index dC = dA + dB;
        Index count = 0;
        std::vector<bool> named(C.val.size(), false);
        for (Index p = 0; p < n - std::abs(dA); ++p) {
          Index pb, pc;
          pc_case->map(dA, dB, p, pb, pc);
          if (pb < 0 || pb >= n - std::abs(dB)) continue;  // "such an entry in B does not exist"
          BOOST_REQUIRE(std::abs(dC) < n);
          BOOST_REQUIRE(pc >= 0);
          BOOST_REQUIRE(pc < n - std::abs(dC));
          BOOST_TEST(hm_at(C, dC, pc) == hm_at(A, dA, p) * hm_at(B, dB, pb));
          named[std::size_t(C.start[0] + pc)] = true;
          ++count;
        }
        BOOST_TEST(C.offsets == (count ? std::vector<Index>{dC} : std::vector<Index>{}));
        // entries of C that no case names are structurally zero
        for (std::size_t q = 0; q < C.val.size(); ++q)
          if (!named[q]) BOOST_TEST(C.val[q] == 0.0);
      }
    }
  for (int c = 0; c < 13; ++c) BOOST_TEST(seen[c] > 0, kPaperCases[c].name);
}

// The paper's Algorithm 2 (one task per nonzero of A, a loop over B's
// diagonals, the case analysis, scatter into C) run sequentially as an
// oracle for the output-stationary kernel on multi-diagonal matrices.
BOOST_AUTO_TEST_CASE(paper_algorithm2_oracle) {
  std::mt19937_64 rng(63);
  for (Index n : {Index(1), Index(5), Index(17), Index(64)})
    for (const auto& [ca, cb] : case_pairs(n, n, n, n, rng)) {
      const HmMatrix<double> A = to_hm(random_block(Layout::square(n), ca.offsets, rng));
      const HmMatrix<double> B = to_hm(random_block(Layout::square(n), cb.offsets, rng));
      const HmMatrix<double> C = hm_product(A, Trans::N, B, Trans::N);
      HmMatrix<double> S(Layout::square(n), C.offsets);
      for (Index dA : A.offsets)
        for (Index p = 0; p < n - std::abs(dA); ++p)
          for (Index dB : B.offsets) {
            Index pb, pc;
            paper_case(dA, dB)->map(dA, dB, p, pb, pc);
            if (pb < 0 || pb >= n - std::abs(dB)) continue;
            const Index kc = S.find_diagonal(dA + dB);
            if (kc < 0) BOOST_FAIL("product diagonal " << dA + dB << " missing from C");
            S.val[std::size_t(S.start[kc] + pc)] += hm_at(A, dA, p) * hm_at(B, dB, pb);
          }
      BOOST_TEST_CONTEXT("n=" << n << " A:" << ca.name << " B:" << cb.name) {
        BOOST_TEST(rel_err(C.val, S.val) <= kTol);
      }
    }
}

// ------------------------------------------------------ symbolic phase -----

BOOST_AUTO_TEST_CASE(symbolic_sum_set_and_pairs) {
  // Explicit small example: {-1, 0, 2} x {-2, 1} on 6 x 6.
  const Layout L = Layout::square(6);
  const HmProductPlan p = hm_product_symbolic(L, {-1, 0, 2}, Trans::N, L, {-2, 1}, Trans::N);
  BOOST_TEST(p.offsets == (std::vector<Index>{-3, -2, 0, 1, 3}));
  BOOST_TEST(p.pair_start == (std::vector<Index>{0, 1, 2, 4, 5, 6}));
  // pairs of dC = 0: (-1, 1) and (2, -2), by A's index
  BOOST_TEST(p.pair_a[2] == 0);
  BOOST_TEST(p.pair_b[2] == 1);
  BOOST_TEST(p.pair_a[3] == 2);
  BOOST_TEST(p.pair_b[3] == 0);
  // AtB: A's offsets negated: {1, 0, -2} + {-2, 1}
  const HmProductPlan pt = hm_product_symbolic(L, {-1, 0, 2}, Trans::T, L, {-2, 1}, Trans::N);
  BOOST_TEST(pt.offsets == (std::vector<Index>{-4, -2, -1, 1, 2}));
  // Clipping: far diagonals of 4 x 4 add up past the corner.
  const Layout L4 = Layout::square(4);
  const HmProductPlan pf = hm_product_symbolic(L4, {-3, 3}, Trans::N, L4, {-3, 3}, Trans::N);
  BOOST_TEST(pf.offsets == (std::vector<Index>{0}));
  BOOST_TEST(pf.pair_a.size() == 2u);
  BOOST_TEST(pf.nmul == 2);
  // Random sets, all transposes: every pair (a, b) with a valid sum appears
  // exactly once, under its sum.
  std::mt19937_64 rng(71);
  for (Index n : {Index(3), Index(17), Index(64)})
    for (int t = 0; t < 20; ++t) {
      const auto ca = offset_cases(n, n, rng), cb = offset_cases(n, n, rng);
      auto oa = ca[rng() % ca.size()].offsets;
      auto ob = cb[rng() % cb.size()].offsets;
      std::sort(oa.begin(), oa.end());  // "far" is listed descending
      std::sort(ob.begin(), ob.end());
      for (Trans ta : kTrans)
        for (Trans tb : kTrans) {
          const Layout Ln = Layout::square(n);
          const HmProductPlan q = hm_product_symbolic(Ln, oa, ta, Ln, ob, tb);
          BOOST_TEST(q.offsets == sum_set(oa, ta, ob, tb, Ln));
          std::set<std::pair<Index, Index>> got, want;
          for (std::size_t c = 0; c < q.offsets.size(); ++c) {
            BOOST_TEST(q.pair_start[c + 1] > q.pair_start[c]);
            for (Index r = q.pair_start[c]; r < q.pair_start[c + 1]; ++r) {
              const Index ea = ta == Trans::T ? -oa[q.pair_a[r]] : oa[q.pair_a[r]];
              const Index eb = tb == Trans::T ? -ob[q.pair_b[r]] : ob[q.pair_b[r]];
              BOOST_TEST(ea + eb == q.offsets[c]);
              got.insert({q.pair_a[r], q.pair_b[r]});
            }
          }
          for (std::size_t a = 0; a < oa.size(); ++a)
            for (std::size_t b = 0; b < ob.size(); ++b) {
              const Index s = (ta == Trans::T ? -oa[a] : oa[a]) + (tb == Trans::T ? -ob[b] : ob[b]);
              if (s > -n && s < n) want.insert({Index(a), Index(b)});
            }
          BOOST_TEST((got == want));
          BOOST_TEST(q.pair_a.size() == want.size());
        }
    }
}

BOOST_AUTO_TEST_CASE(empty_products) {
  for (Index n : {Index(1), Index(2), Index(5)}) {
    const Layout L = Layout::square(n);
    for (Trans ta : kTrans)
      for (Trans tb : kTrans) {
        // nothing stored
        HmMatrix<double> E(L, {}), D(L, {0});
        std::fill(D.val.begin(), D.val.end(), 2.0);
        for (const auto& [X, Y] : {std::pair{&E, &D}, std::pair{&D, &E}, std::pair{&E, &E}}) {
          const HmMatrix<double> C = hm_product(*X, ta, *Y, tb);
          BOOST_TEST(C.ndiag() == 0);
          BOOST_TEST(C.nstored() == 0);
          BOOST_TEST((C.layout == L));
        }
        CdmMatrix<double> Ec(L, {}), Dc(L, {0});
        BOOST_TEST(cdm_product(Ec, ta, Dc, tb).ndiag() == 0);
        BOOST_TEST(cdm_product(Dc, ta, Ec, tb).ndiag() == 0);
      }
    // far corners multiply to nothing: (n-1) + (n-1) is past the corner
    if (n > 1) {
      HmMatrix<double> F(L, {n - 1});
      F.val[0] = 3.0;
      BOOST_TEST(hm_product(F, Trans::N, F, Trans::N).ndiag() == 0);
      HmMatrix<double> G(L, {-(n - 1)});
      G.val[0] = 3.0;
      BOOST_TEST(hm_product(F, Trans::T, G, Trans::N).ndiag() == 0);
      const HmMatrix<double> FG = hm_product(F, Trans::N, G, Trans::N);  // e_0 e_0^T scaled
      BOOST_TEST(FG.offsets == std::vector<Index>{0});
      BOOST_TEST(FG.val[0] == 9.0);
    }
  }
  // a row block that A's diagonals miss: C has no diagonals
  const Layout Lb = Layout::block(5, 5, 0, 2);
  HmMatrix<double> A(Lb, {-4, -3}), B(Layout::square(5), {0, 1});
  BOOST_TEST(A.nstored() == 0);
  const HmMatrix<double> C = hm_product(A, Trans::N, B, Trans::N);
  BOOST_TEST(C.ndiag() == 0);
  BOOST_TEST((C.layout == Lb));
  // 0 x 0
  const HmMatrix<double> Z(Layout::square(0), {});
  BOOST_TEST(hm_product(Z, Trans::N, Z, Trans::T).ndiag() == 0);
  BOOST_TEST(cdm_product_symbolic(0, {}, Trans::N, {}, Trans::N).koffsets.empty());
}

BOOST_AUTO_TEST_CASE(numeric_reuse_and_stale_plans) {
  std::mt19937_64 rng(81);
  const Index n = 17;
  const Layout L = Layout::square(n);
  const RandomBlock Ar = random_block(L, {-2, 0, 3}, rng), Br = random_block(L, {-1, 1}, rng);
  const HmMatrix<double> A = to_hm(Ar), B = to_hm(Br);
  const HmProductPlan plan = hm_product_symbolic(A, Trans::T, B, Trans::N);
  HmMatrix<double> C = hm_product_alloc<double>(plan);
  // new values, same pattern: the same plan gives the new product
  HmMatrix<double> A2 = A;
  for (double& v : A2.val) v *= -3.0;
  hm_product_numeric<double>(plan, A.view(), Trans::T, B.view(), Trans::N, C.view());
  hm_product_numeric<double>(plan, A2.view(), Trans::T, B.view(), Trans::N, C.view());
  Dense ref = dense_mm(Ar.dense, true, Br.dense, false);
  for (double& v : ref.a) v *= -3.0;
  BOOST_TEST(err(to_dense(C), ref) <= kTol);
  // another pattern with as many diagonals: detected
  const HmMatrix<double> A3 = to_hm(random_block(L, {-2, 1, 3}, rng));
  BOOST_CHECK_THROW(hm_product_numeric<double>(plan, A3.view(), Trans::T, B.view(), Trans::N, C.view()), FormatError);
  // other operations than planned
  BOOST_CHECK_THROW(hm_product_numeric<double>(plan, A.view(), Trans::N, B.view(), Trans::N, C.view()), FormatError);
  // a C of another plan
  HmMatrix<double> C2 = hm_product_alloc<double>(hm_product_symbolic(A, Trans::N, B, Trans::N));
  if (C2.offsets != C.offsets)
    BOOST_CHECK_THROW(hm_product_numeric<double>(plan, A.view(), Trans::T, B.view(), Trans::N, C2.view()), FormatError);
  // CDM
  const CdmMatrix<double> Ac = cdm_from_hm(A), Bc = cdm_from_hm(B);
  const CdmProductPlan cp = cdm_product_symbolic(Ac, Trans::N, Bc, Trans::T);
  CdmMatrix<double> Cc = cdm_product_alloc<double>(cp);
  BOOST_CHECK_THROW(cdm_product_numeric<double>(cp, Ac.view(), Trans::T, Bc.view(), Trans::T, Cc.view()), FormatError);
  const CdmMatrix<double> Ac3 = cdm_from_hm(A3);
  BOOST_CHECK_THROW(cdm_product_numeric<double>(cp, Ac3.view(), Trans::N, Bc.view(), Trans::T, Cc.view()), FormatError);
}

// ----------------------------------------------------------- bad input -----

BOOST_AUTO_TEST_CASE(bad_inputs_throw) {
  const HmMatrix<double> A(Layout::rect(3, 4), {0, 1}), B(Layout::rect(5, 2), {0}), B4(Layout::rect(4, 2), {0, -1});
  // inner dimensions
  BOOST_CHECK_THROW(hm_product(A, Trans::N, B, Trans::N), FormatError);
  BOOST_CHECK_THROW(hm_product(A, Trans::T, B4, Trans::N), FormatError);  // A^T is 4 x 3
  BOOST_CHECK_THROW(hm_product(A, Trans::N, B4, Trans::T), FormatError);  // B4^T is 2 x 4
  BOOST_CHECK_NO_THROW(hm_product(A, Trans::N, B4, Trans::N));
  try {
    hm_product(A, Trans::N, B, Trans::N);
  } catch (const FormatError& e) {
    BOOST_TEST(std::string(e.what()).find("inner dimensions") != std::string::npos, e.what());
  }
  // transposed row blocks
  const HmMatrix<double> Ab(Layout::block(6, 6, 2, 2), {0, 1}), F(Layout::square(6), {0});
  BOOST_CHECK_THROW(hm_product(Ab, Trans::T, F, Trans::N), FormatError);
  BOOST_CHECK_THROW(hm_product(F, Trans::N, Ab, Trans::T), FormatError);
  BOOST_CHECK_NO_THROW(hm_product(Ab, Trans::N, F, Trans::T));
  // a block of B that misses rows A reaches (A reaches rows [2, 5))
  const HmMatrix<double> Bb(Layout::block(6, 6, 2, 2), {0});
  BOOST_CHECK_THROW(hm_product(Ab, Trans::N, Bb, Trans::N), FormatError);
  BOOST_CHECK_NO_THROW(hm_product(Ab, Trans::N, HmMatrix<double>(Layout::block(6, 6, 2, 3), {0}), Trans::N));
  // bad offsets passed to the symbolic phase
  BOOST_CHECK_THROW(hm_product_symbolic(Layout::square(3), {3}, Trans::N, Layout::square(3), {0}, Trans::N),
                    FormatError);
  BOOST_CHECK_THROW(hm_product_symbolic(Layout::square(3), {1, 0}, Trans::N, Layout::square(3), {0}, Trans::N),
                    FormatError);
  // CDM
  BOOST_CHECK_THROW(cdm_product_symbolic(4, {4}, Trans::N, {0}, Trans::N), FormatError);
  BOOST_CHECK_THROW(cdm_product_symbolic(4, {-1}, Trans::N, {0}, Trans::N), FormatError);
  const CdmMatrix<double> C4(Layout::square(4), {0, 1}), C5(Layout::square(5), {0});
  BOOST_CHECK_THROW(cdm_product(C4, Trans::N, C5, Trans::N), FormatError);
  const CdmMatrix<double> Cb(Layout::block(4, 4, 1, 2), {0});
  BOOST_CHECK_THROW(cdm_product(Cb, Trans::N, C4, Trans::N), FormatError);
  const CdmProductPlan cp = cdm_product_symbolic(4, {0}, Trans::N, {0, 1}, Trans::N);
  CdmMatrix<double> Cc = cdm_product_alloc<double>(cp);
  BOOST_CHECK_THROW(cdm_product_numeric<double>(cp, Cb.view(), Trans::N, C4.view(), Trans::N, Cc.view()), FormatError);
  // SpMM
  std::vector<double> X(20, 1.0), Y(20, 0.0);
  BOOST_CHECK_THROW(hm_spmm<double>(A.view(), X.data(), 4, -1, Y.data(), 3), FormatError);
  BOOST_CHECK_THROW(hm_spmm<double>(A.view(), X.data(), 4, 2, Y.data(), 2), FormatError);  // ldc < 3 rows
  BOOST_CHECK_THROW(hm_spmm<double>(A.view(), X.data(), 3, 2, Y.data(), 3), FormatError);  // ldx < 4 cols
  BOOST_CHECK_THROW(cdm_spmm<double>(C4.view(), X.data(), 3, 2, Y.data(), 4), FormatError);
}

// ---------------------------------------------------------------- SpMM -----

namespace {
/// C = A X for k columns with padded leading dimensions: X's padding is NaN
/// (must not be read), C's padding must stay untouched.
template <class Mat, class Fn>
void check_spmm(const Mat& A, const Dense& Ad, Index k, std::mt19937_64& rng, Fn spmm, const std::string& ctx) {
  const Layout& L = A.layout;
  const Index ldx = L.ncols + 3, ldc = L.nrows + 5;
  std::vector<double> X(std::size_t(ldx * k), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> C(std::size_t(ldc * k), 777.0);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Index j = 0; j < k; ++j)
    for (Index r = 0; r < L.ncols; ++r) X[std::size_t(j * ldx + r)] = u(rng);
  spmm(A, X.data(), ldx, k, C.data(), ldc);
  std::vector<double> got, ref;
  bool pad_ok = true;
  for (Index j = 0; j < k; ++j) {
    for (Index il = 0; il < L.nrows; ++il) {
      double s = 0;
      for (Index c = 0; c < L.ncols; ++c) s += Ad(il, c) * X[std::size_t(j * ldx + c)];
      ref.push_back(s);
      got.push_back(C[std::size_t(j * ldc + il)]);
    }
    for (Index il = L.nrows; il < ldc; ++il) pad_ok = pad_ok && C[std::size_t(j * ldc + il)] == 777.0;
  }
  BOOST_TEST_CONTEXT(ctx << " k=" << k) {
    BOOST_TEST(rel_err(got, ref) <= kTol);
    BOOST_TEST(pad_ok);
  }
}
}  // namespace

BOOST_AUTO_TEST_CASE(spmm_hm_and_cdm) {
  std::mt19937_64 rng(91);
  auto hm = [](const HmMatrix<double>& A, const double* X, Index ldx, Index k, double* C, Index ldc) {
    hm_spmm<double>(A.view(), X, ldx, k, C, ldc);
  };
  auto cdm = [](const CdmMatrix<double>& A, const double* X, Index ldx, Index k, double* C, Index ldc) {
    cdm_spmm<double>(A.view(), X, ldx, k, C, ldc);
  };
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
        const Dense Ad = rows_of(Ar.dense, L.row_begin, L.nrows);
        const CdmMatrix<double> Ac = cdm_from_hm(A);
        const std::string ctx = "n=" + std::to_string(n) + " " + oc.name + " rows [" + std::to_string(L.row_begin) +
                                "," + std::to_string(L.row_end()) + ")";
        for (Index k : {Index(1), Index(3), Index(32)}) {
          if (n >= 1000 && k == 32 && !L.is_full()) continue;
          check_spmm(A, Ad, k, rng, hm, "HM " + ctx);
          check_spmm(Ac, Ad, k, rng, cdm, "CDM " + ctx);
        }
      }
    }
  }
  // rectangular HM
  const Index shapes[][2] = {{17, 5}, {5, 17}, {1, 9}, {9, 1}};
  for (const auto& s : shapes)
    for (const auto& oc : offset_cases(s[0], s[1], rng)) {
      const RandomBlock Ar = random_block(Layout::rect(s[0], s[1]), oc.offsets, rng);
      for (Index k : {Index(1), Index(3), Index(32)})
        check_spmm(to_hm(Ar), Ar.dense, k, rng, hm, std::to_string(s[0]) + "x" + std::to_string(s[1]) + " " + oc.name);
    }
  // MPI-style addressing: X holds only the rows [c0, c1) a row block
  // reaches, reached through per-diagonal shifts (as hm_spmv's).
  {
    const Index n = 64, k = 3;
    const RandomBlock Ar = random_block(Layout::square(n), {-5, -1, 0, 2, 7}, rng);
    const Layout L = Layout::block(n, n, 20, 16);
    const HmMatrix<double> A = hm_block(Ar, L);
    Index c0, c1;
    reach(A, c0, c1);
    std::vector<Index> shift = default_shift(L, A.offsets);
    for (Index& s : shift) s -= c0;
    const Index ldx = c1 - c0, ldc = L.nrows;
    std::vector<double> Xg = random_vector(n * k, rng), X(std::size_t(ldx * k)), C(std::size_t(ldc * k));
    for (Index j = 0; j < k; ++j)
      for (Index r = c0; r < c1; ++r) X[std::size_t(j * ldx + r - c0)] = Xg[std::size_t(j * n + r)];
    hm_spmm<double>(A.view(), X.data(), ldx, k, C.data(), ldc, shift.data());
    std::vector<double> Cg(std::size_t(ldc * k));
    hm_spmm<double>(A.view(), Xg.data(), n, k, Cg.data(), ldc);
    BOOST_TEST(rel_err(C, Cg) <= kTol);
    const CdmMatrix<double> Ac = cdm_from_hm(A);
    const std::vector<Index> cshift = default_cdm_shift(L, Ac.koffsets);
    cdm_spmm<double>(Ac.view(), Xg.data(), n, k, C.data(), ldc, cshift.data());
    BOOST_TEST(rel_err(C, Cg) <= kTol);
  }
  // k = 0 touches nothing
  const HmMatrix<double> A(Layout::square(3), {0});
  double c = 5.0;
  hm_spmm<double>(A.view(), nullptr, 3, 0, &c, 3);
  BOOST_TEST(c == 5.0);
}
