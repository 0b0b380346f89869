// pdiag/chebyshev.hpp: the step coefficients are PETSc's KSPCHEBYSHEV
// (first kind) recurrence, checked by what it must do: on a diagonal
// operator with D = I, every eigencomponent of the error after m steps is
// multiplied by T_m((e_max + e_min - 2 l) / (e_max - e_min)) /
// T_m((e_max + e_min) / (e_max - e_min)) (the scaled Chebyshev polynomial),
// which the fused updates reproduce to rounding; the update's null
// arguments (zero vectors) and in-place use; jacobi_inverse; the fused
// symmetric step against the product and update to rounding, the fused
// full step bit for bit.
#define BOOST_TEST_MODULE chebyshev
#include <boost/test/unit_test.hpp>

#include "pdiag/chebyshev.hpp"
#include "pdiag/cpu.hpp"
#include "chebyshev_testing.hpp"
#include "testing.hpp"

#include <cmath>
#include <vector>

using namespace pdiag;
using namespace pdiag::testing;

namespace {

/// T_m(t), |t| <= 1 or beyond, by the three-term recurrence in long double.
long double chebyshev_t(int m, long double t) {
  long double a = 1, b = t;
  if (m == 0) return a;
  for (int k = 1; k < m; ++k) {
    const long double c = 2 * t * b - a;
    a = b, b = c;
  }
  return b;
}

/// m fused steps on A = diag(lambda), D = A (so D^-1 A = I would be
/// trivial: instead D = I and A = diag(lambda) through dinv = 1 and ax =
/// lambda x), from x0 with rhs 0: the error is x itself.
std::vector<double> run_steps(const std::vector<double>& lambda, const std::vector<double>& x0, double emin, double emax, int m) {
  const Index n = Index(lambda.size());
  std::vector<double> cur = x0, other(n), ax(n), ones(n, 1.0), rhs(n, 0.0);
  ChebyshevSteps steps(emin, emax);
  for (int k = 0; k < m; ++k) {
    const ChebyshevStep s = steps.next();
    for (Index i = 0; i < n; ++i) ax[i] = lambda[i] * cur[i];
    chebyshev_jacobi_update(n, s.a, cur.data(), s.b, k ? other.data() : nullptr, s.g, ones.data(), rhs.data(), ax.data(), other.data());
    std::swap(cur, other);
  }
  return cur;
}

}  // namespace

BOOST_AUTO_TEST_CASE(steps_apply_the_scaled_chebyshev_polynomial) {
  const double emin = 0.2, emax = 2.2;
  std::vector<double> lambda, x0;
  for (int i = 0; i <= 40; ++i) {  // inside the interval, below it and above it
    lambda.push_back(0.01 + 2.5 * i / 40.0);
    x0.push_back(1.0 + 0.1 * i);
  }
  for (int m = 1; m <= 8; ++m) {
    const std::vector<double> x = run_steps(lambda, x0, emin, emax, m);
    const long double theta = (emax + emin) / 2.0L, delta = (emax - emin) / 2.0L;
    for (std::size_t i = 0; i < lambda.size(); ++i) {
      const long double factor = chebyshev_t(m, (theta - lambda[i]) / delta) / chebyshev_t(m, theta / delta);
      BOOST_TEST_CONTEXT("m=" << m << " lambda=" << lambda[i]) {
        BOOST_TEST(std::abs(x[i] - double(factor * x0[i])) <= 1e-13 * std::abs(x0[i]));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(first_step_is_scaled_jacobi_then_petsc_recurrence) {
  // PETSc (cheby.c): scale = 2 / (emax + emin), alpha = 1 - scale emin,
  // c1 = 1 / alpha, c2 = 2 mu c1 - 1, omega = (2 / alpha) c1 / c2
  const double emin = 0.3, emax = 1.9, scale = 2 / (emax + emin), alpha = 1 - scale * emin, mu = 1 / alpha;
  ChebyshevSteps steps(emin, emax);
  const ChebyshevStep s1 = steps.next(), s2 = steps.next();
  BOOST_TEST(s1.a == 1.0);
  BOOST_TEST(s1.b == 0.0);
  BOOST_TEST(s1.g == scale);
  const double c1 = mu, c2 = 2 * mu * c1 - 1, omega = (2 / alpha) * c1 / c2;
  BOOST_TEST(std::abs(s2.a - omega) < 1e-15);
  BOOST_TEST(std::abs(s2.b - (1 - omega)) < 1e-15);
  BOOST_TEST(std::abs(s2.g - omega * scale) < 1e-15);
}

BOOST_AUTO_TEST_CASE(update_null_arguments_and_in_place) {
  std::mt19937_64 rng(3);
  const Index n = 1001;
  const std::vector<double> xc = random_vector(n, rng), xo = random_vector(n, rng), d = random_vector(n, rng), r = random_vector(n, rng), w = random_vector(n, rng);
  std::vector<double> out(n, 7.0), expect(n);
  const double a = 0.7, b = 0.3, g = 1.3;
  for (Index i = 0; i < n; ++i) expect[i] = g * (d[i] * (r[i] - w[i])) + a * xc[i] + b * xo[i];
  chebyshev_jacobi_update(n, a, xc.data(), b, xo.data(), g, d.data(), r.data(), w.data(), out.data());
  BOOST_TEST(max_rel_diff(out, expect) < 1e-15);
  std::vector<double> inplace = xo;  // x_new is x_old's storage
  chebyshev_jacobi_update(n, a, xc.data(), b, inplace.data(), g, d.data(), r.data(), w.data(), inplace.data());
  BOOST_TEST(max_rel_diff(inplace, expect) < 1e-15);
  for (Index i = 0; i < n; ++i) expect[i] = g * (d[i] * r[i]);  // zero guess: no x, no A x
  chebyshev_jacobi_update<double>(n, a, nullptr, b, nullptr, g, d.data(), r.data(), nullptr, out.data());
  BOOST_TEST(max_rel_diff(out, expect) < 1e-15);
}

BOOST_AUTO_TEST_CASE(jacobi_inverse_uses_one_for_zeros) {
  std::vector<double> d = {2.0, 0.0, -4.0, 0.0, 0.5};
  BOOST_TEST(jacobi_inverse(Index(d.size()), d.data()) == 2);
  const std::vector<double> expect = {0.5, 1.0, -0.25, 1.0, 2.0};
  BOOST_TEST(d == expect, boost::test_tools::per_element());
}


// The product read through the main and upper diagonals (symmetric.hpp)
// against hm_spmv over every diagonal: y = A x, y = A x + z, r = b - A x
// (in place over b), to rounding (another order of the row's terms).
BOOST_AUTO_TEST_CASE(symmetric_product_equals_hm_spmv) {
  std::mt19937_64 rng(22);
  for (bool box : {false, true})
    for (Index nz : {Index(2), Index(6)}) BOOST_TEST_CONTEXT("box " << box << " nz " << nz) {
      HmMatrix<double> A = symmetric_stencil(7, 5, nz, box, rng);
      const Index n = A.layout.nrows;
      SymmetricHmView<double> S;
      BOOST_REQUIRE(symmetric_hm_view(A.view(), &S));
      const std::vector<double> x = random_vector(n, rng), z = random_vector(n, rng);
      std::vector<double> expect(n), got(n);
      hm_spmv(A.view(), x.data(), expect.data());
      hm_spmv_symmetric(S, x.data(), got.data());
      BOOST_TEST(max_rel_diff(got, expect) < 1e-14);
      hm_spmv(A.view(), x.data(), expect.data(), z.data());
      hm_spmv_symmetric(S, x.data(), got.data(), 1.0, z.data());
      BOOST_TEST(max_rel_diff(got, expect) < 1e-14);
      hm_spmv(A.view(), x.data(), expect.data());
      for (Index i = 0; i < n; ++i) expect[i] = z[i] - expect[i];
      got = z;
      hm_spmv_symmetric(S, x.data(), got.data(), -1.0, got.data());
      BOOST_TEST(max_rel_diff(got, expect) < 1e-13);
    }
}

BOOST_AUTO_TEST_CASE(symmetric_step_equals_product_and_update) {
  std::mt19937_64 rng(21);
  for (bool box : {false, true}) {
    HmMatrix<double> A = symmetric_stencil(7, 5, 6, box, rng);
    const Index n = A.layout.nrows;
    *A.find(3, 3) = 0.0;  // a zero on the diagonal: D^-1 uses 1 there
    SymmetricHmView<double> S;
    BOOST_REQUIRE(symmetric_hm_view(A.view(), &S));
    BOOST_TEST(S.npairs == (box ? 13 : 3));
    BOOST_TEST(hm_values_symmetric(S, 0.0));
    const std::vector<double> xc = random_vector(n, rng), xo = random_vector(n, rng), r = random_vector(n, rng);
    std::vector<double> ax(n), dinv(n), expect(n), got(n);
    hm_spmv(A.view(), xc.data(), ax.data());
    for (Index i = 0; i < n; ++i) dinv[i] = *A.find(i, i);
    jacobi_inverse(n, dinv.data());
    for (const double* old : {xo.data(), static_cast<const double*>(nullptr)}) {
      chebyshev_jacobi_update(n, 0.7, xc.data(), 0.3, old, 1.3, dinv.data(), r.data(), ax.data(), expect.data());
      chebyshev_jacobi_step_symmetric(S, 0.7, xc.data(), 0.3, old, 1.3, r.data(), got.data());
      BOOST_TEST(max_rel_diff(got, expect) < 1e-13);
    }
    std::vector<double> inplace = xo;  // x_new in x_old's storage
    chebyshev_jacobi_update(n, 0.7, xc.data(), 0.3, xo.data(), 1.3, dinv.data(), r.data(), ax.data(), expect.data());
    chebyshev_jacobi_step_symmetric(S, 0.7, xc.data(), 0.3, inplace.data(), 1.3, r.data(), inplace.data());
    BOOST_TEST(max_rel_diff(inplace, expect) < 1e-13);
  }
}

BOOST_AUTO_TEST_CASE(full_step_equals_product_and_update_bit_for_bit) {
  // any full square HM matrix (here random values on a 3D stencil's
  // offsets and a far one, 5000 rows: three chunks of the product), from
  // x_cur with and without x_old, and in x_old's storage: the same bits as
  // hm_spmv then chebyshev_jacobi_update (the same sums in the same order)
  std::mt19937_64 rng(23);
  const Index n = 5000;
  const HmMatrix<double> A = random_hm<double>(Layout::square(n), {-400, -20, -1, 0, 1, 20, 400, 3001}, rng);
  const std::vector<double> xc = random_vector(n, rng), xo = random_vector(n, rng), r = random_vector(n, rng), dinv = random_vector(n, rng);
  std::vector<double> ax(n), expect(n), got(n);
  hm_spmv(A.view(), xc.data(), ax.data());
  for (const double* old : {xo.data(), static_cast<const double*>(nullptr)}) {
    chebyshev_jacobi_update(n, 0.7, xc.data(), 0.3, old, 1.3, dinv.data(), r.data(), ax.data(), expect.data());
    chebyshev_jacobi_step_full(A.view(), 0.7, xc.data(), 0.3, old, 1.3, dinv.data(), r.data(), got.data());
    BOOST_TEST(max_rel_diff(got, expect) == 0.0);
    BOOST_TEST(max_rel_diff(got, xc) > 1e-3);  // it did something
  }
  std::vector<double> inplace = xo;
  chebyshev_jacobi_update(n, 0.7, xc.data(), 0.3, xo.data(), 1.3, dinv.data(), r.data(), ax.data(), expect.data());
  chebyshev_jacobi_step_full(A.view(), 0.7, xc.data(), 0.3, inplace.data(), 1.3, dinv.data(), r.data(), inplace.data());
  BOOST_TEST(max_rel_diff(inplace, expect) == 0.0);
}

BOOST_AUTO_TEST_CASE(symmetric_view_refuses_what_is_not_symmetric) {
  std::mt19937_64 rng(22);
  HmMatrix<double> A = symmetric_stencil(5, 4, 3, false, rng);
  SymmetricHmView<double> S;
  BOOST_REQUIRE(symmetric_hm_view(A.view(), &S));
  *A.find(7, 8) *= 1.0 + 4e-15;  // one entry off by rounding
  BOOST_TEST(!hm_values_symmetric(S, 0.0));
  BOOST_TEST(hm_values_symmetric(S, 1e-12));  // within the tolerance
  *A.find(7, 8) *= 1.0 + 1e-9;
  BOOST_TEST(!hm_values_symmetric(S, 1e-12));
  HmMatrix<double> B(Layout::square(20), {-1, 0, 2});  // offsets not in pairs
  BOOST_TEST(!symmetric_hm_view(B.view(), &S));
  HmMatrix<double> C(Layout::square(20), {-1, 1});  // no main diagonal
  BOOST_TEST(!symmetric_hm_view(C.view(), &S));
  HmMatrix<double> R(Layout::rect(20, 30), {-1, 0, 1});  // not square
  BOOST_TEST(!symmetric_hm_view(R.view(), &S));
  HmMatrix<double> P(Layout::block(40, 40, 10, 20), {-1, 0, 1});  // a block of rows of a larger matrix
  BOOST_TEST(!symmetric_hm_view(P.view(), &S));
}
