// The kernels with complex scalars (std::complex<double>, PETSc's
// PetscScalar in a complex build) against a dense complex reference:
// products with a vector, transposes and conjugate transposes (HM, CDM,
// listed entries), the values' conjugates and parts, norms, ILU(0) and
// ICC(0) factors and their solves, SOR sweeps, diag x diag products and the
// symmetry check. Random values with both parts nonzero, so that a
// transpose read as a conjugate transpose (or the reverse), a dropped
// imaginary part or a comparison of real parts only shows.
#define BOOST_TEST_MODULE complex scalars
#include <boost/test/unit_test.hpp>

#include "pdiag/convert.hpp"
#include "pdiag/cpu.hpp"
#include "pdiag/factor_numeric.hpp"
#include "pdiag/factor_solve.hpp"
#include "pdiag/ops.hpp"
#include "pdiag/product.hpp"
#include "pdiag/relax.hpp"
#include "pdiag/scalar.hpp"
#include "pdiag/symmetric.hpp"

#include <complex>
#include <random>
#include <string>
#include <vector>

using namespace pdiag;
using C = std::complex<double>;
using CVec = std::vector<C>;

namespace {

/// Dense row-major complex matrix (a block's local rows x all columns).
struct CDense {
  Index rows = 0, cols = 0;
  CVec a;
  CDense(Index m, Index n) : rows(m), cols(n), a(static_cast<std::size_t>(m * n), C(0)) {}
  C& operator()(Index i, Index j) { return a[static_cast<std::size_t>(i * cols + j)]; }
  C operator()(Index i, Index j) const { return a[static_cast<std::size_t>(i * cols + j)]; }
};

C random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  return C(u(rng), u(rng));
}

CVec random_vector(Index n, std::mt19937_64& rng) {
  CVec v(static_cast<std::size_t>(n));
  for (C& x : v) x = random_value(rng);
  return v;
}

/// An HM block with random complex values on every entry of `offsets`;
/// `dominant` adds 2 + the row's length to the main diagonal (square).
HmMatrix<C> random_hm(const Layout& L, const std::vector<Index>& offsets, std::mt19937_64& rng, bool dominant = false) {
  HmMatrix<C> A(L, offsets);
  for (C& v : A.val) v = random_value(rng);
  if (dominant)
    for (Index i = L.row_begin; i < L.row_end(); ++i)
      if (C* d = A.find(i, i)) *d += C(2.0 + double(offsets.size()), 0.0);
  return A;
}

CDense dense_of(const HmMatrix<C>& A) {
  const Layout& L = A.layout;
  CDense D(L.nrows, L.ncols);
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index i = L.lo(A.offsets[k]); i < L.hi(A.offsets[k]); ++i) D(i - L.row_begin, i + A.offsets[k]) = *A.find(i, i + A.offsets[k]);
  return D;
}

/// op(A) x + z with op: 0 A, 1 A^T, 2 A^H (z empty: no term).
CVec dense_apply(const CDense& A, int op, const CVec& x, const CVec& z) {
  const Index ny = op == 0 ? A.rows : A.cols;
  CVec y = z.empty() ? CVec(static_cast<std::size_t>(ny), C(0)) : z;
  for (Index i = 0; i < A.rows; ++i)
    for (Index j = 0; j < A.cols; ++j) {
      if (op == 0) y[i] += A(i, j) * x[j];
      else y[j] += (op == 2 ? std::conj(A(i, j)) : A(i, j)) * x[i];
    }
  return y;
}

/// max |a - b| / max |b|.
double rel_diff(const CVec& a, const CVec& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return a.size() == b.size() ? num / std::max(den, 1e-300) : 1e300;
}

/// x = A^{-1} b by Gaussian elimination with partial pivoting (square A).
CVec dense_solve(CDense A, CVec b) {
  const Index n = A.rows;
  for (Index k = 0; k < n; ++k) {
    Index p = k;
    for (Index i = k + 1; i < n; ++i)
      if (std::abs(A(i, k)) > std::abs(A(p, k))) p = i;
    for (Index j = 0; j < n; ++j) std::swap(A(k, j), A(p, j));
    std::swap(b[k], b[p]);
    for (Index i = k + 1; i < n; ++i) {
      const C m = A(i, k) / A(k, k);
      for (Index j = k; j < n; ++j) A(i, j) -= m * A(k, j);
      b[i] -= m * b[k];
    }
  }
  CVec x(static_cast<std::size_t>(n));
  for (Index i = n - 1; i >= 0; --i) {
    C s = b[i];
    for (Index j = i + 1; j < n; ++j) s -= A(i, j) * x[j];
    x[i] = s / A(i, i);
  }
  return x;
}

CDense transposed(const CDense& A) {
  CDense T(A.cols, A.rows);
  for (Index i = 0; i < A.rows; ++i)
    for (Index j = 0; j < A.cols; ++j) T(j, i) = A(i, j);
  return T;
}

struct AcceptAll {
  C begin_pass() { return C(0); }
  PivotDecision<C> check(Index, C pv, double) { return {PivotAction::Accept, pv}; }
  bool again() { return false; }
};

/// ILU(0) restricted to the stored pattern, IKJ as PETSc: L unit lower and
/// U in one matrix.
CDense dense_ilu0(CDense A, const std::vector<std::vector<bool>>& P) {
  const Index n = A.rows;
  for (Index i = 1; i < n; ++i)
    for (Index k = 0; k < i; ++k) {
      if (!P[i][k]) continue;
      A(i, k) /= A(k, k);
      for (Index j = k + 1; j < n; ++j)
        if (P[i][j] && P[k][j]) A(i, j) -= A(i, k) * A(k, j);
    }
  return A;
}

}  // namespace

BOOST_AUTO_TEST_CASE(scalar_helpers_say_what_a_comparison_means) {
  const C z(3.0, -4.0);
  BOOST_TEST(scalar_abs(z) == 5.0);
  BOOST_TEST(scalar_abs2(z) == 25.0);
  BOOST_TEST(scalar_real(z) == 3.0);
  BOOST_TEST(scalar_imag(z) == -4.0);
  BOOST_TEST((scalar_conj(z) == C(3.0, 4.0)));
  BOOST_TEST((maybe_conj<false>(z) == z));
  BOOST_TEST(!scalar_is_zero(C(0.0, 1e-300)));
  BOOST_TEST(scalar_is_zero(C(-0.0, 0.0)));
  BOOST_TEST(scalar_real_nonnegative(C(2.0, 0.0)));
  BOOST_TEST(!scalar_real_nonnegative(C(2.0, 1e-16)));  // a complex D: no square root
  BOOST_TEST(!scalar_real_nonnegative(C(-1.0, 0.0)));
  BOOST_TEST((scalar_sqrt_real(C(4.0, 0.0)) == C(2.0, 0.0)));
  BOOST_TEST(!scalar_isfinite(C(1.0, INFINITY)));
  // real types: the identity, the real expressions
  BOOST_TEST(scalar_abs(-2.5) == 2.5);
  BOOST_TEST(scalar_conj(-2.5) == -2.5);
  BOOST_TEST(scalar_imag(-2.5) == 0.0);
  BOOST_TEST(!is_complex_v<double>);
  BOOST_TEST(is_complex_v<const C>);
}

// y = A x (+ z), A^T x (+ z) and A^H x (+ z) for HM blocks (square,
// rectangular, row blocks) and CDM blocks, against the dense reference; the
// transposes differ from each other by far more than the tolerance.
BOOST_AUTO_TEST_CASE(products_transposes_and_conjugate_transposes) {
  std::mt19937_64 rng(46);
  struct Shape {
    Index m, n;
    std::vector<Index> offsets;
  };
  const std::vector<Shape> shapes = {{17, 17, {-16, -3, -1, 0, 1, 2, 5}}, {64, 64, {-7, -1, 0, 1, 7}}, {17, 23, {-4, 0, 3, 22}},
                                     {23, 17, {-22, -5, 0, 1}}, {1, 1, {0}}, {3000, 3000, {-1, 0, 1, 2500}}};
  for (const Shape& s : shapes)
    for (const Layout& L : {Layout::rect(s.m, s.n), Layout::block(s.m, s.n, s.m / 3, s.m - s.m / 3 - s.m / 4)}) {
      const HmMatrix<C> A = random_hm(L, s.offsets, rng);
      const CDense D = dense_of(A);
      const CVec x = random_vector(L.ncols, rng), xt = random_vector(L.nrows, rng);
      const CVec z = random_vector(L.nrows, rng), zt = random_vector(L.ncols, rng);
      const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + " rows from " + std::to_string(L.row_begin);
      BOOST_TEST_CONTEXT(what) {
        CVec y(static_cast<std::size_t>(L.nrows)), yt(static_cast<std::size_t>(L.ncols)), yh(yt.size());
        hm_spmv(A.view(), x.data(), y.data(), z.data());
        BOOST_TEST(rel_diff(y, dense_apply(D, 0, x, z)) < 1e-14);
        hm_spmv_t(A.view(), xt.data(), yt.data(), L.ncols, zt.data());
        BOOST_TEST(rel_diff(yt, dense_apply(D, 1, xt, zt)) < 1e-14);
        hm_spmv_t<true>(A.view(), xt.data(), yh.data(), L.ncols, zt.data());
        BOOST_TEST(rel_diff(yh, dense_apply(D, 2, xt, zt)) < 1e-14);
        if (L.nrows > 0) BOOST_TEST(rel_diff(yt, yh) > 1e-3);
        hm_spmv_t<true>(A.view(), xt.data(), yh.data(), L.ncols);  // no z
        BOOST_TEST(rel_diff(yh, dense_apply(D, 2, xt, {})) < 1e-14);
        if (s.m == s.n) {
          const CdmMatrix<C> Cd = cdm_from_hm(A);
          hm_spmv(A.view(), x.data(), y.data());
          CVec yc(y.size()), yct(yt.size());
          cdm_spmv(Cd.view(), x.data(), yc.data());
          BOOST_TEST(rel_diff(yc, y) < 1e-14);
          cdm_spmv_t(Cd.view(), xt.data(), yct.data(), L.ncols, zt.data());
          BOOST_TEST(rel_diff(yct, dense_apply(D, 1, xt, zt)) < 1e-14);
          cdm_spmv_t<true>(Cd.view(), xt.data(), yct.data(), L.ncols, zt.data());
          BOOST_TEST(rel_diff(yct, dense_apply(D, 2, xt, zt)) < 1e-14);
        }
      }
    }
}

// Listed entries (a distributed block's couplings kept in a list) add their
// transpose and conjugate transpose into a work vector.
BOOST_AUTO_TEST_CASE(listed_entries_transpose_and_conjugate_transpose) {
  std::mt19937_64 rng(5);
  const std::vector<Index> rows = {0, 2, 3}, ptr = {0, 2, 3, 5}, cols = {1, 4, 0, 2, 4};
  const CVec val = random_vector(5, rng), x = random_vector(4, rng);
  for (bool conj : {false, true}) {
    CVec w(5, C(0)), ref(5, C(0));
    if (conj) listed_spmv_t_add<true>(3, rows.data(), ptr.data(), cols.data(), val.data(), x.data(), w.data());
    else listed_spmv_t_add(3, rows.data(), ptr.data(), cols.data(), val.data(), x.data(), w.data());
    for (Index q = 0; q < 3; ++q)
      for (Index e = ptr[q]; e < ptr[q + 1]; ++e) ref[cols[e]] += (conj ? std::conj(val[e]) : val[e]) * x[rows[q]];
    BOOST_TEST_CONTEXT("conj " << conj) { BOOST_TEST(rel_diff(w, ref) == 0.0); }
  }
}

// MatConjugate, MatRealPart, MatImaginaryPart's kernels, and the norms.
BOOST_AUTO_TEST_CASE(value_maps_and_norms) {
  std::mt19937_64 rng(8);
  const Layout L = Layout::rect(40, 40);
  const HmMatrix<C> A = random_hm(L, {-9, -1, 0, 3, 39}, rng);
  const CDense D = dense_of(A);
  HmMatrix<C> B = A;
  conjugate_values(B.val.data(), B.nstored());
  for (std::size_t p = 0; p < A.val.size(); ++p) BOOST_TEST((B.val[p] == std::conj(A.val[p])));
  B = A;
  real_part_values(B.val.data(), B.nstored());
  for (std::size_t p = 0; p < A.val.size(); ++p) BOOST_TEST((B.val[p] == C(A.val[p].real(), 0.0)));
  B = A;
  imaginary_part_values(B.val.data(), B.nstored());
  for (std::size_t p = 0; p < A.val.size(); ++p) BOOST_TEST((B.val[p] == C(A.val[p].imag(), 0.0)));
  std::vector<double> rv = {1.5, -2.0};
  imaginary_part_values(rv.data(), 2);  // a real matrix's imaginary part is zero
  BOOST_TEST((rv == std::vector<double>{0.0, 0.0}));
  double fro = 0, inf = 0;
  std::vector<double> rows(40), colsum(40, 0.0), refcol(40, 0.0);
  for (Index i = 0; i < 40; ++i) {
    double r = 0;
    for (Index j = 0; j < 40; ++j) {
      fro += std::norm(D(i, j));
      r += std::abs(D(i, j));
      refcol[j] += std::abs(D(i, j));
    }
    inf = std::max(inf, r);
  }
  BOOST_TEST(std::abs(local_sum_squares(A.view()) - fro) <= 1e-13 * fro);
  local_abs_row_sums(A.view(), rows.data());
  BOOST_TEST(std::abs(*std::max_element(rows.begin(), rows.end()) - inf) <= 1e-13 * inf);
  local_abs_col_sums(A.view(), colsum.data());
  for (Index j = 0; j < 40; ++j) BOOST_TEST(std::abs(colsum[j] - refcol[j]) <= 1e-13 * refcol[j]);
}

// ILU(0) of complex matrices: the factor equals the dense pattern-restricted
// reference, its solves invert L U and (L U)^T; for a tridiagonal matrix
// (no fill) L U = A and the solve is A's.
BOOST_AUTO_TEST_CASE(ilu0_factor_and_solves) {
  std::mt19937_64 rng(13);
  for (const std::vector<Index>& offs : {std::vector<Index>{-1, 0, 1}, std::vector<Index>{-6, -1, 0, 1, 2, 6}, std::vector<Index>{-3, 0, 4}})
    for (Index n : {Index(9), Index(40)}) {
      const HmMatrix<C> A = random_hm(Layout::square(n), offs, rng, true);
      const CDense D = dense_of(A);
      std::vector<std::vector<bool>> P(static_cast<std::size_t>(n), std::vector<bool>(static_cast<std::size_t>(n), false));
      for (Index d : offs)
        for (Index i = std::max<Index>(0, -d); i < std::min(n, n - d); ++i) P[i][i + d] = true;
      HmFactorPlan plan;
      HmMatrix<C> F = hm_ilu0_storage(static_cast<const HmMatrix<C>&>(A).view(), &plan);
      AcceptAll accept;
      BOOST_TEST_CONTEXT("offsets " << offs.size() << " n " << n) {
        BOOST_TEST(hm_ilu0(A.view(), plan, F, accept));
        const CDense R = dense_ilu0(D, P);
        double worst = 0;
        for (Index i = 0; i < n; ++i)
          for (Index j = 0; j < n; ++j)
            if (P[i][j]) worst = std::max(worst, std::abs((i == j ? C(1) / *F.find(i, j) : *F.find(i, j)) - R(i, j)) / std::max(1.0, std::abs(R(i, j))));
        BOOST_TEST(worst < 1e-13);
        CDense Lm(n, n), Um(n, n);  // L U from the reference
        for (Index i = 0; i < n; ++i)
          for (Index j = 0; j < n; ++j) {
            if (j < i) Lm(i, j) = R(i, j);
            else Um(i, j) = R(i, j);
          }
        for (Index i = 0; i < n; ++i) Lm(i, i) = 1.0;
        CDense LU(n, n);
        for (Index i = 0; i < n; ++i)
          for (Index j = 0; j < n; ++j)
            for (Index k = 0; k < n; ++k) LU(i, j) += Lm(i, k) * Um(k, j);
        const CVec b = random_vector(n, rng);
        CVec x(b.size());
        hm_ilu_solve(F.view(), plan, b.data(), x.data());
        BOOST_TEST(rel_diff(dense_apply(LU, 0, x, {}), b) < 1e-12);
        hm_ilu_solve_transpose(F.view(), plan, b.data(), x.data());  // (L U)^T: no conjugates
        BOOST_TEST(rel_diff(dense_apply(LU, 1, x, {}), b) < 1e-12);
        const auto byrows = factor_by_rows(static_cast<const HmMatrix<C>&>(F).view(), plan);
        CVec xr(b.size());
        factor_ilu_solve(byrows, b.data(), xr.data());
        hm_ilu_solve(F.view(), plan, b.data(), x.data());
        BOOST_TEST(rel_diff(xr, x) == 0.0);
        if (offs.size() == 3 && offs[0] == -1) {  // tridiagonal: the exact LU
          hm_ilu_solve(F.view(), plan, b.data(), x.data());
          BOOST_TEST(rel_diff(x, dense_solve(D, b)) < 1e-12);
        }
      }
    }
}

// ICC(0) of a complex symmetric (A^T = A, not Hermitian) matrix is U^T D U
// with plain transposes, as PETSc's: for a tridiagonal one the solve is A's.
// Its halves need a real D >= 0: refused for the complex symmetric factor,
// accepted for a real SPD matrix held as complex, where backward after
// forward is the solve.
BOOST_AUTO_TEST_CASE(icc0_complex_symmetric_and_its_halves) {
  std::mt19937_64 rng(17);
  for (bool real_values : {false, true}) {
    const Index n = 30;
    HmMatrix<C> A(Layout::square(n), {-1, 0, 1});
    for (Index i = 0; i < n; ++i) {
      *A.find(i, i) = real_values ? C(4.0, 0.0) : C(4.0, 0.0) + random_value(rng);
      if (i + 1 < n) *A.find(i, i + 1) = *A.find(i + 1, i) = real_values ? C(random_value(rng).real(), 0.0) : random_value(rng);
    }
    const CDense D = dense_of(A);
    HmFactorPlan plan;
    HmMatrix<C> F = hm_icc0_storage(static_cast<const HmMatrix<C>&>(A).view(), &plan);
    AcceptAll accept;
    BOOST_TEST_CONTEXT("real values " << real_values) {
      BOOST_TEST(hm_icc0(A.view(), plan, F, accept));
      const CVec b = random_vector(n, rng);
      CVec x(b.size());
      hm_icc_solve(F.view(), plan, b.data(), x.data());
      BOOST_TEST(rel_diff(x, dense_solve(D, b)) < 1e-12);
      CVec y(b.size()), xh(b.size(), C(0));
      const bool fwd = hm_icc_forward(F.view(), plan, b.data(), y.data());
      const bool bwd = hm_icc_backward(F.view(), plan, y.data(), xh.data());
      BOOST_TEST(fwd == real_values);
      BOOST_TEST(bwd == real_values);
      if (real_values) BOOST_TEST(rel_diff(xh, x) < 1e-12);
    }
  }
}

// The pivot screen judges a pivot by its modulus (none, nonzero shifts) or
// its real part (positive definite shift), as MatPivotCheck does.
BOOST_AUTO_TEST_CASE(pivot_screen_reads_modulus_or_real_part) {
  PivotScreen modulus{1e-12, false, false}, real_part{1e-12, true, true};
  const C imaginary(0.0, 1.0);  // modulus 1, real part 0
  BOOST_TEST(!pivot_needs_policy(modulus, imaginary, 1.0));
  BOOST_TEST(pivot_needs_policy(real_part, imaginary, 1.0));
  BOOST_TEST(pivot_needs_policy(modulus, C(0.0, 0.0), 1.0));
  BOOST_TEST(pivot_needs_policy(modulus, C(NAN, 0.0), 1.0));
  BOOST_TEST(!pivot_needs_policy(real_part, C(2.0, -5.0), 1.0));
  BOOST_TEST(factor_magnitude(C(3.0, 4.0)) == 5.0);  // the row sums (rs) are of moduli
  BOOST_TEST(factor_real_part(C(3.0, 4.0)) == 3.0);
}

// SOR sweeps on a complex matrix: forward Gauss-Seidel against the dense one.
BOOST_AUTO_TEST_CASE(sor_forward_sweep) {
  std::mt19937_64 rng(23);
  const Index n = 25;
  const HmMatrix<C> A = random_hm(Layout::square(n), {-5, -1, 0, 1, 3}, rng, true);
  const CDense D = dense_of(A);
  const CVec b = random_vector(n, rng);
  for (double omega : {1.0, 0.8}) {
    CVec x = random_vector(n, rng), ref = x, mdiag(b.size()), idiag(b.size()), t(b.size());
    BOOST_TEST(hm_sor_diagonal(A.view(), omega, 0.0, mdiag.data(), idiag.data()) == Index(-1));
    SorSweeps sw;
    sw.forward = true;
    hm_sor(A.view(), b.data(), x.data(), omega, sw, 2, mdiag.data(), idiag.data(), t.data());
    for (int it = 0; it < 2; ++it)
      for (Index i = 0; i < n; ++i) {
        C s = b[i];
        for (Index j = 0; j < n; ++j)
          if (j != i) s -= D(i, j) * ref[j];
        ref[i] = (1.0 - omega) * ref[i] + omega * s / D(i, i);
      }
    BOOST_TEST_CONTEXT("omega " << omega) { BOOST_TEST(rel_diff(x, ref) < 1e-12); }
  }
}

// Products of two diag matrices, A B and A^T B (MatProduct's AtB: a plain
// transpose in complex too), HM and CDM, against dense products.
BOOST_AUTO_TEST_CASE(diag_times_diag) {
  std::mt19937_64 rng(29);
  const Index n = 30;
  const HmMatrix<C> A = random_hm(Layout::square(n), {-4, -1, 0, 2}, rng), B = random_hm(Layout::square(n), {-2, 0, 1, 7}, rng);
  const CDense Da = dense_of(A), Db = dense_of(B);
  for (Trans ta : {Trans::N, Trans::T}) {
    const CDense Oa = ta == Trans::T ? transposed(Da) : Da;
    CDense R(n, n);
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j)
        for (Index k = 0; k < n; ++k) R(i, j) += Oa(i, k) * Db(k, j);
    const CDense G = dense_of(hm_product(A, ta, B, Trans::N));
    BOOST_TEST_CONTEXT("HM " << trans_name(ta)) { BOOST_TEST(rel_diff(G.a, R.a) < 1e-14); }
    const CdmMatrix<C> P = cdm_product(cdm_from_hm(A), ta, cdm_from_hm(B), Trans::N);
    CDense Gc(n, n);
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j)
        if (const C* v = P.find(i, j)) Gc(i, j) = *v;
    BOOST_TEST_CONTEXT("CDM " << trans_name(ta)) { BOOST_TEST(rel_diff(Gc.a, R.a) < 1e-14); }
  }
}

// Symmetric means A^T = A for complex values: a complex symmetric matrix
// passes the check, a Hermitian one (A^H = A, A^T != A) does not.
BOOST_AUTO_TEST_CASE(symmetry_check_is_transpose_symmetry) {
  std::mt19937_64 rng(31);
  const Index n = 12;
  for (bool hermitian : {false, true}) {
    HmMatrix<C> A(Layout::square(n), {-2, 0, 2});
    for (Index i = 0; i < n; ++i) {
      *A.find(i, i) = hermitian ? C(random_value(rng).real(), 0.0) : random_value(rng);
      if (i + 2 < n) {
        const C v = random_value(rng);
        *A.find(i, i + 2) = v;
        *A.find(i + 2, i) = hermitian ? std::conj(v) : v;
      }
    }
    SymmetricHmView<C> S;
    BOOST_TEST(symmetric_hm_view(static_cast<const HmMatrix<C>&>(A).view(), &S));
    BOOST_TEST_CONTEXT("hermitian " << hermitian) { BOOST_TEST(hm_values_symmetric(S, 0.0) == !hermitian); }
    if (!hermitian) {
      const CVec x = random_vector(n, rng);
      CVec y(x.size()), ref(x.size());
      hm_spmv_symmetric(S, x.data(), y.data());
      hm_spmv(A.view(), x.data(), ref.data());
      BOOST_TEST(rel_diff(y, ref) < 1e-14);
    }
  }
}
