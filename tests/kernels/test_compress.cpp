// Compressed HM (constant diagonals with exceptions, pdiag/compress.hpp) on
// the CPU: hm_compress / hm_decompress round trip (exact), the structural
// invariants, hm_compressed_spmv against hm_spmv (every case) and against the
// dense product (default addressing), the byte decision on 7-point stencils,
// update_values, special values, empty blocks and the float instantiation.
//
// Cases: n in {1, 2, 3, 17, 64, 1000}; square, tall and wide; whole and row
// blocks; the offset sets of testing.hpp; the value families of
// compress_testing.hpp (random, constant, stencil-like, mixed); y = A x,
// y = A x + z, z aliasing y, y = alpha A x + beta z; default, padded and windowed x addressing; row
// ranges (middle, open-ended, clamped, empty) with the rows outside them
// checked untouched.
#define BOOST_TEST_MODULE compress
#include <boost/test/unit_test.hpp>

#include "compress_testing.hpp"
#include "pdiag/compress.hpp"
#include "pdiag/cpu.hpp"
#include "testing.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// y = A x (+ z) on rows [lo, hi) with the compressed kernel and with
/// hm_spmv; requires agreement to kTol on the range, the rows outside it
/// untouched (bit for bit), and, for the default addressing and all rows,
/// agreement with the dense product.
int run(const HmMatrix<double>& A, const HmCompressed<double>& C, const Dense* D, Addr addr, Mode mode, Index lo,
        Index hi, std::mt19937_64& rng, const std::string& label) {
  const Layout& L = A.layout;
  const Index m = L.nrows;
  const Addressing ad = hm_addressing(L, A.offsets, addr);
  const std::vector<double> x = random_vector(ad.len, rng), z = random_vector(m, rng);
  const Index hc = (hi < 0 || hi > m) ? m : hi, lc = std::min(lo, hc);
  std::vector<double> y0(static_cast<std::size_t>(m));
  for (Index p = 0; p < m; ++p) y0[p] = mode == Mode::Alias ? z[p] : (p >= lo && p < hc) ? kNaN : 1000.0 + double(p);
  std::vector<double> yc = y0, yr = y0;
  const double* zc = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? z.data() : yc.data();
  const double* zr = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? z.data() : yr.data();
  hm_compressed_spmv(C.view(), x.data(), yc.data(), zc, ad.ptr(), lo, hi);
  hm_spmv(A.view(), x.data(), yr.data(), zr, ad.ptr(), lo, hi);
  std::ostringstream os;
  os << label << " " << name(mode) << " addr=" << name(addr) << " rows=[" << lo << "," << hi << ")";
  const std::vector<double> gc(yc.begin() + lc, yc.begin() + hc), gr(yr.begin() + lc, yr.begin() + hc);
  const double err = rel_err(gc, gr);
  BOOST_CHECK_MESSAGE(err <= kTol, os.str() << ": relative error " << err << " against hm_spmv");
  Index touched = 0;
  for (Index p = 0; p < m; ++p)
    if ((p < lc || p >= hc) && !(yc[p] == y0[p])) ++touched;
  BOOST_CHECK_MESSAGE(touched == 0, os.str() << ": " << touched << " rows outside the range changed");
  if (D && addr == Addr::Default && lo == 0 && hi < 0) {
    std::vector<double> ref = dense_mv(*D, x);
    if (mode != Mode::Plain)
      for (Index p = 0; p < m; ++p) ref[p] += z[p];
    const double errd = rel_err(yc, ref);
    BOOST_CHECK_MESSAGE(errd <= kTol, os.str() << ": relative error " << errd << " against the dense product");
  }
  // y = alpha A x + beta z (both kernels) against alpha (A x) + beta z from
  // the plain product; beta 0 ignores z (a NaN there included).
  std::vector<double> t(static_cast<std::size_t>(m), 0.0);
  hm_spmv(A.view(), x.data(), t.data(), nullptr, ad.ptr(), lo, hi);
  for (const auto& [alpha, beta] : {std::pair<double, double>{-1.0, 1.0}, {2.5, 0.0}, {0.5, -3.0}}) {
    std::vector<double> ya = y0, yb = y0, zn = z;
    if (beta == 0.0 && lc < hc) zn[lc] = kNaN;
    const double* za = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? zn.data() : ya.data();
    const double* zb = mode == Mode::Plain ? nullptr : mode == Mode::WithZ ? zn.data() : yb.data();
    hm_compressed_spmv(C.view(), x.data(), ya.data(), za, ad.ptr(), lo, hi, alpha, beta);
    hm_spmv(A.view(), x.data(), yb.data(), zb, ad.ptr(), lo, hi, alpha, beta);
    std::vector<double> ref(static_cast<std::size_t>(hc - lc));
    for (Index p = lc; p < hc; ++p) {
      const double zp = mode == Mode::Plain || beta == 0.0 ? 0.0 : mode == Mode::WithZ ? zn[p] : y0[p];
      ref[p - lc] = alpha * t[p] + beta * zp;
    }
    const std::vector<double> ga(ya.begin() + lc, ya.begin() + hc), gb(yb.begin() + lc, yb.begin() + hc);
    const double ea = rel_err(ga, ref), eb = rel_err(gb, ref);
    BOOST_CHECK_MESSAGE(ea <= kTol && eb <= kTol, os.str() << " alpha=" << alpha << " beta=" << beta
                                                        << ": relative errors " << ea << " (compressed), " << eb << " (hm_spmv)");
    Index changed = 0;
    for (Index p = 0; p < m; ++p)
      if ((p < lc || p >= hc) && !(ya[p] == y0[p] && yb[p] == y0[p])) ++changed;
    BOOST_CHECK_MESSAGE(changed == 0, os.str() << " alpha=" << alpha << ": " << changed << " rows outside the range changed");
  }
  return 1;
}

struct Stats {
  int runs = 0;
  Index nconst = 0, nexc = 0;
};

/// Compression, round trip, invariants and every product of one matrix.
Stats check_matrix(const HmMatrix<double>& A, const std::string& label, std::mt19937_64& rng, bool with_dense = true) {
  const HmCompressed<double> C = hm_compress(A);
  check_structure(C, A, label);
  BOOST_CHECK_MESSAGE(same_hm(hm_decompress(C), A), label << ": round trip not exact");
  // All full costs the metadata of the constants at most; anything else is a saving.
  BOOST_CHECK_LE(C.bytes(), hm_bytes(A) + std::size_t(A.ndiag()) * sizeof(double));
  // The upload's form: the same block exactly when hm_compress's result is
  // smaller and holds a constant (decided from the counts, before the copies)
  HmCompressed<double> S;
  const bool smaller = C.nconstant() > 0 && C.bytes() < hm_bytes(A);
  BOOST_CHECK_MESSAGE(hm_compress_if_smaller(A, S) == smaller, label << ": hm_compress_if_smaller decides " << !smaller);
  if (smaller)
    BOOST_CHECK_MESSAGE(S.bytes() == C.bytes() && S.vbase == C.vbase && S.exc_rows == C.exc_rows && S.exc_ptr == C.exc_ptr &&
                            S.exc_diag == C.exc_diag && same_values(S.cval, C.cval) && same_values(S.packed, C.packed) &&
                            same_values(S.exc_delta, C.exc_delta),
                        label << ": hm_compress_if_smaller's block differs from hm_compress's");
  const Dense D = with_dense ? to_dense(A) : Dense();
  // MatGetDiagonal of the compressed form: the main diagonal of the block it
  // stands for, bit for bit (values equal A's, as the round trip checks:
  // -0.0 may come back as the constant 0.0)
  std::vector<double> dc(static_cast<std::size_t>(A.layout.nrows)), dr(dc.size());
  hm_compressed_get_diagonal(C.view(), dc.data());
  const HmMatrix<double> R = hm_decompress(C);
  hm_get_diagonal(R.view(), dr.data());
  BOOST_CHECK_MESSAGE(std::memcmp(dc.data(), dr.data(), dc.size() * sizeof(double)) == 0, label << ": compressed main diagonal differs");
  int runs = 0;
  for (Addr a : {Addr::Default, Addr::Padded, Addr::Windowed})
    for (Mode md : {Mode::Plain, Mode::WithZ, Mode::Alias})
      runs += run(A, C, with_dense ? &D : nullptr, a, md, 0, -1, rng, label);
  const Index m = A.layout.nrows;
  const std::pair<Index, Index> ranges[] = {{m / 3, m - m / 4}, {1, -1}, {m / 2, m + 5}, {m, m}, {0, 0}};
  for (const auto& [lo, hi] : ranges)
    for (Mode md : {Mode::Plain, Mode::Alias}) runs += run(A, C, nullptr, Addr::Default, md, lo, hi, rng, label);
  runs += run(A, C, nullptr, Addr::Windowed, Mode::WithZ, m / 3, m - m / 4, rng, label);
  return {runs, C.nconstant(), C.nexceptions()};
}

std::string label_of(const Layout& L, const std::string& oc, Family f) {
  std::ostringstream os;
  os << L.nrows_global << "x" << L.ncols << " rows [" << L.row_begin << "," << L.row_end() << ") offsets=" << oc
     << " values=" << name(f);
  return os.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(all_sizes_layouts_offsets_families) {
  std::mt19937_64 rng(11);
  int runs = 0, matrices = 0;
  Index nconst = 0, nexc = 0;
  for (Index n : {1, 2, 3, 17, 64, 1000}) {
    const Index t = n + n / 2 + 1;
    const std::pair<Index, Index> shapes[] = {{n, n}, {t, n}, {n, t}};
    for (const auto& [rows, cols] : shapes)
      for (const Layout& L : row_blocks(rows, cols))
        for (const auto& oc : offset_cases(rows, cols, rng))
          for (Family f : kFamilies) {
            if (n == 1000 && oc.name == "dense") continue;
            const HmMatrix<double> A = make_family(f, L, oc.offsets, rng);
            const Stats st = check_matrix(A, label_of(L, oc.name, f), rng, n < 1000 || rows == cols);
            runs += st.runs;
            nconst += st.nconst;
            nexc += st.nexc;
            ++matrices;
          }
  }
  // The families must exercise both forms and the exceptions.
  BOOST_CHECK_GT(nconst, 1000);
  BOOST_CHECK_GT(nexc, 1000);
  BOOST_TEST_MESSAGE(matrices << " matrices, " << runs << " products, " << nconst << " constant diagonals, " << nexc
                              << " exceptions");
}

// Large stencil-like blocks: most diagonals constant, exceptions shared by
// rows (Dirichlet rows), several row blocks of the same matrix.
BOOST_AUTO_TEST_CASE(stencil_like_blocks) {
  std::mt19937_64 rng(12);
  const Index n = 5000;
  const std::vector<Index> offs{-250, -50, -1, 0, 1, 50, 250};
  for (const Layout& L : row_blocks(n, n)) {
    const HmMatrix<double> A = make_family(Family::Stencil, L, offs, rng, 50);
    const HmCompressed<double> C = hm_compress(A);
    if (L.nrows > 100) {
      BOOST_CHECK_EQUAL(C.nconstant(), 7);
      BOOST_CHECK_LT(C.bytes(), hm_bytes(A) / 2);
    }
    check_matrix(A, label_of(L, "stencil", Family::Stencil), rng, L.nrows <= 2000);
  }
}

// The byte decision on 7-point stencils: constant coefficients give seven
// constant diagonals (with and without Dirichlet rows); random coefficients
// seven full ones.
BOOST_AUTO_TEST_CASE(seven_point_decision) {
  std::mt19937_64 rng(13);
  struct Grid {
    Index nx, ny, nz;
    bool dirichlet;
  };
  // Dirichlet rows cost a full row pointer on the first diagonal that has
  // them: on grids below about 24^3 the boundary is too large a fraction
  // for that, so the Dirichlet case is 32^3 (17.6% boundary rows).
  for (const Grid& g : {Grid{12, 10, 8, false}, Grid{5, 4, 3, false}, Grid{32, 32, 32, true}}) {
    std::ostringstream os;
    os << "7-point " << g.nx << "x" << g.ny << "x" << g.nz << (g.dirichlet ? " dirichlet" : "");
    const HmMatrix<double> A = laplace7(g.nx, g.ny, g.nz, g.dirichlet, false, rng);
    const HmCompressed<double> C = hm_compress(A);
    BOOST_TEST_CONTEXT(os.str()) {
      BOOST_CHECK_EQUAL(A.ndiag(), 7);
      BOOST_CHECK_EQUAL(C.nconstant(), 7);
      BOOST_CHECK(C.packed.empty());
      BOOST_CHECK_EQUAL(C.cval[3], 6.0);  // the main diagonal
      for (Index k : {0, 1, 2, 4, 5, 6}) BOOST_CHECK_EQUAL(C.cval[k], -1.0);
      BOOST_CHECK_LT(C.bytes(), hm_bytes(A) / 2);
      BOOST_TEST_MESSAGE(os.str() << ": " << C.nexceptions() << " exceptions in " << C.nrows_exc() << " rows, "
                                  << C.bytes() << " bytes vs " << hm_bytes(A) << " for HM");
    }
    const bool small = A.layout.nrows <= 2000;
    check_matrix(A, os.str(), rng, small);
    const HmMatrix<double> R = laplace7(g.nx, g.ny, g.nz, g.dirichlet, true, rng);
    const HmCompressed<double> CR = hm_compress(R);
    BOOST_CHECK_EQUAL(CR.nconstant(), 0);
    BOOST_CHECK_EQUAL(CR.nexceptions(), 0);
    check_matrix(R, os.str() + " random coefficients", rng, small);
  }
  // Without Dirichlet rows, the exceptions are exactly the grid-line and
  // plane wrap-arounds: +-1 at every line end, +-nx at every plane end.
  const Index nx = 12, ny = 10, nz = 8;
  const HmCompressed<double> C = hm_compress(laplace7(nx, ny, nz, false, false, rng));
  BOOST_CHECK_EQUAL(C.nexceptions(), 2 * (ny * nz - 1) + 2 * nx * (nz - 1));
}

// Decision at the margin: exceptions cost Index + T each plus 2 Index per
// new row; a diagonal is constant only when that is fewer bytes than its values.
BOOST_AUTO_TEST_CASE(byte_rule_margin) {
  // One diagonal of length n = 400 with e exceptions in distinct rows:
  // constant iff e * 16 + e * 16 < 8 n, i.e. e < 100.
  const Index n = 400;
  for (Index e : {Index(0), Index(1), Index(99), Index(100), Index(101), Index(200)}) {
    HmMatrix<double> A(Layout::square(n), {0});
    std::fill(A.val.begin(), A.val.end(), 2.0);
    for (Index p = 0; p < e; ++p) A.val[(p * 7) % n] = 3.0;  // 7 is prime to 400: distinct rows
    const HmCompressed<double> C = hm_compress(A);
    BOOST_TEST_CONTEXT("exceptions " << e) {
      BOOST_CHECK_EQUAL(C.nconstant(), e < 100 ? 1 : 0);
      BOOST_CHECK(same_hm(hm_decompress(C), A));
    }
  }
  // Diagonals -1 (length 399) and +1 with exceptions in the same rows: -1
  // has 99 and is decided first (99 * 32 = 3168 < 399 * 8 = 3192); +1 has
  // 100, alone it would cost 3200 >= 3192, but 99 of its rows are already
  // paid: 100 * 16 + 1 * 16 = 1616. Both constant, 100 exception rows.
  HmMatrix<double> B(Layout::square(n), {-1, 0, 1});
  const auto fill = [&](auto&& is_exception) {
    for (Index k = 0; k < 3; ++k)
      for (Index i = B.layout.lo(B.offsets[k]); i < B.layout.hi(B.offsets[k]); ++i)
        B.val[B.view().pos(k, i)] = k == 1 ? 4.0 : is_exception(k, i) ? 0.0 : -1.0;
  };
  fill([](Index k, Index i) { return (i % 4 == 2 && i < 4 * 99) || (k == 2 && i == 398); });
  const HmCompressed<double> C = hm_compress(B);
  BOOST_CHECK_EQUAL(C.nconstant(), 3);
  BOOST_CHECK_EQUAL(C.nexceptions(), 199);
  BOOST_CHECK_EQUAL(C.nrows_exc(), 100);
  BOOST_CHECK(same_hm(hm_decompress(C), B));
  // 133 exceptions each, in shared rows: the first alone costs
  // 133 * 32 = 4256 >= 3192, so it is full and the second pays its rows too.
  fill([](Index, Index i) { return i % 3 == 0; });
  const HmCompressed<double> C2 = hm_compress(B);
  BOOST_CHECK(!C2.is_constant(0));
  BOOST_CHECK(C2.is_constant(1));
  BOOST_CHECK(!C2.is_constant(2));
  BOOST_CHECK(same_hm(hm_decompress(C2), B));
}

BOOST_AUTO_TEST_CASE(long_diagonals_without_a_clear_majority) {
  // Diagonals of 20000 entries: two values in blocks of 40 (a checkerboard
  // coefficient's couplings, each value on half of the entries) and three
  // values (0.4 / 0.3 / 0.3) stay full, judged by their sample before any
  // pass over the values; one value on 80% of the entries, its exceptions
  // in distinct rows (a 3% saving would be too small to tell), and a
  // constant diagonal are compressed. Every form round-trips exactly.
  const Index n = 20000;
  HmMatrix<double> A(Layout::square(n), {-2, -1, 0, 1});
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index i = A.layout.lo(A.offsets[k]); i < A.layout.hi(A.offsets[k]); ++i) {
      double& a = A.val[A.view().pos(k, i)];
      switch (k) {
        case 0: a = (i / 40) % 2 ? -1000.0 : -1.0; break;                    // two halves
        case 1: a = i % 10 < 4 ? 1.0 : i % 10 < 7 ? 2.0 : 3.0; break;       // no majority
        case 2: a = 6.0; break;                                             // constant
        default: a = i % 10 < 8 ? -1.0 : -1.0 - double(i % 10); break;      // 80% majority
      }
    }
  const HmCompressed<double> C = hm_compress(A);
  BOOST_CHECK(!C.is_constant(0));
  BOOST_CHECK(!C.is_constant(1));
  BOOST_CHECK(C.is_constant(2));
  BOOST_CHECK(C.is_constant(3));
  BOOST_CHECK(same_hm(hm_decompress(C), A));
  BOOST_CHECK(hm_compress_candidate(A));
  // the two full diagonals alone: nothing to compress
  HmMatrix<double> B(Layout::square(n), {-2, -1});
  for (Index k = 0; k < 2; ++k)
    for (Index i = B.layout.lo(B.offsets[k]); i < B.layout.hi(B.offsets[k]); ++i)
      B.val[B.view().pos(k, i)] = A.val[A.view().pos(k, i)];
  BOOST_CHECK_EQUAL(hm_compress(B).nconstant(), 0);
  BOOST_CHECK(same_hm(hm_decompress(hm_compress(B)), B));
}

BOOST_AUTO_TEST_CASE(wide_sample_refuses_majorities_below_sixty_percent) {
  // Diagonals 0 and 1 take the constant form with exceptions in rows
  // i % 100 < 20 and 20 <= i % 100 < 40 (20% each: 6.4 of 8 bytes per
  // entry), so that diagonal 2's exceptions in rows i % 100 < x cost only
  // their own 16 bytes where those rows are paid already. With x = 42 (a
  // 58% majority) the byte rule alone would take it (0.42 * 16 + 0.02 * 16
  // = 7.0 < 8 bytes per entry); its wide sample (below 60%) keeps it full.
  // With x = 35 (65%) it is compressed. Both round-trip exactly.
  const Index n = 20000;
  for (const Index x : {Index(42), Index(35)}) {
    HmMatrix<double> A(Layout::square(n), {0, 1, 2});
    for (Index k = 0; k < A.ndiag(); ++k)
      for (Index i = A.layout.lo(A.offsets[k]); i < A.layout.hi(A.offsets[k]); ++i) {
        const Index r = i % 100;
        const bool exception = k == 0 ? r < 20 : k == 1 ? (r >= 20 && r < 40) : r < x;
        A.val[A.view().pos(k, i)] = exception ? 7.0 + double(k) : 1.0 + double(k);
      }
    const HmCompressed<double> C = hm_compress(A);
    BOOST_TEST_CONTEXT("diagonal 2 with exceptions in rows i % 100 < " << x) {
      BOOST_CHECK(C.is_constant(0));
      BOOST_CHECK(C.is_constant(1));
      BOOST_CHECK_EQUAL(C.is_constant(2), x == 35);
      BOOST_CHECK(same_hm(hm_decompress(C), A));
    }
  }
}

BOOST_AUTO_TEST_CASE(update_values_same_pattern) {
  std::mt19937_64 rng(14);
  const Layout L = Layout::block(1000, 1000, 200, 500);
  const HmMatrix<double> A = make_family(Family::Mixed, L, {-40, -7, -1, 0, 1, 7, 40}, rng);
  HmCompressed<double> C = hm_compress(A);
  BOOST_REQUIRE_GT(C.nconstant(), 0);
  BOOST_REQUIRE_GT(C.nexceptions(), 0);

  // Scaled values (constants, exceptions and full values all change): accepted.
  HmMatrix<double> A2 = A;
  for (double& v : A2.val) v *= -3.0;
  BOOST_CHECK(update_values(C, A2));
  check_structure(C, A2, "scaled");
  BOOST_CHECK(same_hm(hm_decompress(C), A2));
  std::mt19937_64 rng2(15);
  const auto x = random_vector(L.ncols, rng2);
  std::vector<double> y1(L.nrows), y2(L.nrows);
  hm_compressed_spmv(C.view(), x.data(), y1.data());
  hm_spmv(A2.view(), x.data(), y2.data());
  BOOST_CHECK_LE(rel_err(y1, y2), kTol);

  // An exception that now equals the constant stays an exception (delta 0).
  HmMatrix<double> A3 = A2;
  const Index r = C.nrows_exc() / 2, e = C.exc_ptr[r], k = C.exc_diag[e];
  const Index i = C.exc_rows[r] + L.row_begin;
  A3.val[A3.view().pos(k, i)] = C.cval[k];
  BOOST_CHECK(update_values(C, A3));
  BOOST_CHECK_EQUAL(C.exc_delta[e], 0.0);
  BOOST_CHECK(same_hm(hm_decompress(C), A3));

  // A new exception: refused, C unchanged. kc: the diagonal of an
  // exception with a nonzero delta; inew: a row where kc has no exception.
  const HmCompressed<double> before = C;
  HmMatrix<double> A4 = A3;
  Index kc = -1;
  for (Index q = 0; q < C.nexceptions() && kc < 0; ++q)
    if (C.exc_delta[q] != 0.0) kc = C.exc_diag[q];
  BOOST_REQUIRE_GE(kc, 0);
  const auto is_exception = [&](Index k2, Index il) {
    const auto it = std::lower_bound(C.exc_rows.begin(), C.exc_rows.end(), il);
    if (it == C.exc_rows.end() || *it != il) return false;
    const Index rr = Index(it - C.exc_rows.begin());
    for (Index q = C.exc_ptr[rr]; q < C.exc_ptr[rr + 1]; ++q)
      if (C.exc_diag[q] == k2) return true;
    return false;
  };
  const Index d = A4.offsets[kc];
  Index inew = -1;
  for (Index ii = L.lo(d); ii < L.hi(d) && inew < 0; ++ii)
    if (!is_exception(kc, ii - L.row_begin)) inew = ii;
  BOOST_REQUIRE_GE(inew, 0);
  A4.val[A4.view().pos(kc, inew)] += 1.0;
  BOOST_CHECK(!update_values(C, A4));
  BOOST_CHECK(C.cval == before.cval && C.exc_delta == before.exc_delta && C.packed == before.packed);
  const HmCompressed<double> C4 = hm_compress(A4);  // re-compression takes it
  BOOST_CHECK(same_hm(hm_decompress(C4), A4));

  // An inexact exception (a huge constant would swallow it): refused.
  HmMatrix<double> A5 = A3;
  for (Index ii = L.lo(d); ii < L.hi(d); ++ii) {
    double& v = A5.val[A5.view().pos(kc, ii)];
    v = (v == C.cval[kc]) ? 1e300 : 1.0;
  }
  BOOST_CHECK(!update_values(C, A5));
  // Another pattern: refused.
  BOOST_CHECK(!update_values(C, make_family(Family::Mixed, L, {-40, -7, -1, 0, 1, 7}, rng)));
  BOOST_CHECK(!update_values(C, make_family(Family::Mixed, Layout::square(500), {-40, -7, -1, 0, 1, 7, 40}, rng)));
  BOOST_CHECK(C.cval == before.cval && C.exc_delta == before.exc_delta && C.packed == before.packed);
}

// Exact equality, non-finite values, huge ratios.
BOOST_AUTO_TEST_CASE(special_values) {
  const Index n = 64;
  const double inf = std::numeric_limits<double>::infinity();
  const auto one_diagonal = [&](double c, std::initializer_list<std::pair<Index, double>> exc) {
    HmMatrix<double> A(Layout::square(n), {0});
    std::fill(A.val.begin(), A.val.end(), c);
    for (const auto& [p, v] : exc) A.val[p] = v;
    return A;
  };
  struct Case {
    const char* what;
    HmMatrix<double> A;
    bool constant;
  };
  const Case cases[] = {
      {"-0.0 in a zero diagonal", one_diagonal(0.0, {{3, -0.0}, {40, -0.0}}), true},
      {"-0.0 diagonal", one_diagonal(-0.0, {{3, 1.0}}), true},
      {"values differing in the last bit", one_diagonal(1.0, {{5, std::nextafter(1.0, 2.0)}}), true},
      {"an infinite exception", one_diagonal(2.0, {{7, inf}, {8, -inf}}), true},
      {"a NaN exception", one_diagonal(2.0, {{7, kNaN}}), false},
      {"an infinite constant", one_diagonal(inf, {{7, 1.0}}), false},
      {"a NaN constant", one_diagonal(kNaN, {}), false},
      {"a huge constant, a small exception", one_diagonal(1e300, {{9, 1.0}}), false},
      {"a small constant, a huge exception", one_diagonal(1.0, {{9, 1e300}}), true},
      {"an overflowing delta", one_diagonal(-1e308, {{9, 1.7e308}}), false},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const HmCompressed<double> C = hm_compress(c.A);
      check_structure(C, c.A, c.what);
      BOOST_CHECK_EQUAL(C.is_constant(0), c.constant);
      const HmMatrix<double> B = hm_decompress(C);
      BOOST_CHECK(same_hm(B, c.A));
      if (!c.constant)  // full values are copied bit for bit
        BOOST_CHECK(std::memcmp(B.val.data(), c.A.val.data(), sizeof(double) * std::size_t(n)) == 0);
    }
  }
  // Products on the finite cases.
  std::mt19937_64 rng(16);
  for (int q : {0, 1, 2, 7, 8}) check_matrix(cases[q].A, cases[q].what, rng);
}

BOOST_AUTO_TEST_CASE(empty_blocks) {
  std::mt19937_64 rng(17);
  // No diagonals: y = z or 0.
  const HmMatrix<double> A(Layout::square(10), {});
  const HmCompressed<double> C = hm_compress(A);
  BOOST_CHECK_EQUAL(C.ndiag(), 0);
  BOOST_CHECK_EQUAL(C.nexceptions(), 0);
  check_matrix(A, "no diagonals", rng);
  // No rows in the block, diagonals that miss it.
  const HmMatrix<double> B(Layout::block(10, 10, 5, 0), {-3, 0, 2});
  const HmCompressed<double> CB = hm_compress(B);
  check_structure(CB, B, "no rows");
  BOOST_CHECK(same_hm(hm_decompress(CB), B));
  std::vector<double> x(10, 1.0), y;
  hm_compressed_spmv(CB.view(), x.data(), y.data());
  // Zero-length diagonals in a row block (the global set kept on every rank).
  HmMatrix<double> Z(Layout::block(20, 20, 0, 5), {-19, -10, 0, 1, 15, 19});
  for (Index k = 0; k < Z.ndiag(); ++k)
    for (Index p = Z.start[k]; p < Z.start[k + 1]; ++p) Z.val[p] = double(k + 1);
  check_matrix(Z, "zero-length diagonals", rng);
}

BOOST_AUTO_TEST_CASE(float_instantiation) {
  std::mt19937_64 rng(18);
  const HmMatrix<double> A = make_family(Family::Mixed, Layout::square(1000), {-40, -7, -1, 0, 1, 7, 40}, rng);
  HmMatrix<float> Af(A.layout, A.offsets);
  for (std::size_t p = 0; p < A.val.size(); ++p) Af.val[p] = float(A.val[p]);
  HmCompressed<float> C = hm_compress(Af);
  check_structure(C, Af, "float");
  BOOST_CHECK_GT(C.nconstant(), 0);
  const HmMatrix<float> B = hm_decompress(C);
  BOOST_CHECK(B.val == Af.val);
  BOOST_CHECK(update_values(C, Af));
  const auto x = random_vector(1000, rng);
  const std::vector<float> xf(x.begin(), x.end());
  std::vector<float> y1(1000), y2(1000);
  hm_compressed_spmv(C.view(), xf.data(), y1.data());
  hm_spmv(Af.view(), xf.data(), y2.data());
  BOOST_CHECK_LE(rel_err(std::vector<double>(y1.begin(), y1.end()), std::vector<double>(y2.begin(), y2.end())), 1e-5);
}
