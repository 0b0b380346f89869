// SOR sweeps (pdiag/relax.hpp) and ILU(0) / ICC(0) with their solves
// (pdiag/factor.hpp) against textbook dense references written here from
// the definitions: Gauss-Seidel / SOR with a relaxation factor and a
// diagonal shift, Eisenstat's preconditioner, ILU(0) and ICC(0) restricted
// to the stored pattern, on stencil-like and random diagonal sets, with
// stored zeros inside diagonals, and the pivot policy's restart path.
#define BOOST_TEST_MODULE relax_factor
#include <boost/test/unit_test.hpp>

#include "pdiag/factor_solve.hpp"
#include "pdiag/relax.hpp"
#include "testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {

struct Case {
  const char* name;
  Index n;
  std::vector<Index> offsets;
  double density;  // stored positions that get a nonzero value
};

std::vector<Case> cases() {
  return {
      {"tridiagonal", 40, {-1, 0, 1}, 1.0},
      {"5-point 9x7", 63, {-9, -1, 0, 1, 9}, 1.0},
      {"7-point 5x4x3", 60, {-20, -5, -1, 0, 1, 5, 20}, 1.0},
      {"9-point 8x6", 48, {-9, -8, -7, -1, 0, 1, 7, 8, 9}, 1.0},
      {"random sparse", 70, {-31, -12, -3, -2, 0, 1, 4, 9, 23}, 0.6},
      {"upper only", 30, {0, 2, 5}, 1.0},
      {"lower only", 30, {-7, -1, 0}, 0.8},
      {"wide", 25, {-24, -13, -1, 0, 6, 17, 24}, 0.7},
  };
}

/// A diagonally dominant matrix on the case's diagonals (the main one always
/// full), some stored entries left zero; symmetric if asked.
HmMatrix<double> make_matrix(const Case& c, std::mt19937_64& rng, bool symmetric) {
  const Layout L = Layout::square(c.n);
  std::vector<Index> offs = c.offsets;
  if (symmetric)
    for (Index d : c.offsets) offs.push_back(-d);
  HmMatrix<double> A(L, offs);
  std::uniform_real_distribution<double> val(-1.0, 1.0), coin(0.0, 1.0);
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    if (symmetric && d < 0) continue;
    for (Index i = L.lo(d); i < L.hi(d); ++i) {
      if (d != 0 && coin(rng) > c.density) continue;
      const double v = d == 0 ? 0.0 : val(rng);
      *A.find(i, i + d) = v;
      if (symmetric) *A.find(i + d, i) = v;
    }
  }
  for (Index i = 0; i < c.n; ++i) {  // dominance
    double s = 0;
    for (Index k = 0; k < A.ndiag(); ++k) {
      const Index j = i + A.offsets[k];
      if (A.offsets[k] != 0 && j >= 0 && j < c.n) s += std::abs(*A.find(i, j));
    }
    *A.find(i, i) = 1.0 + s * 1.2;
  }
  return A;
}

Dense dense_of(const HmMatrix<double>& A) {
  Dense D(A.layout.nrows, A.layout.ncols);
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index i = A.layout.lo(A.offsets[k]); i < A.layout.hi(A.offsets[k]); ++i) D(i, i + A.offsets[k]) = *A.find(i, i + A.offsets[k]);
  return D;
}

/// Stored positions of A (the pattern of the incomplete factors).
std::vector<std::vector<char>> pattern_of(const HmMatrix<double>& A) {
  const Index n = A.layout.nrows;
  std::vector<std::vector<char>> P(n, std::vector<char>(n, 0));
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index i = A.layout.lo(A.offsets[k]); i < A.layout.hi(A.offsets[k]); ++i) P[i][i + A.offsets[k]] = 1;
  for (Index i = 0; i < n; ++i) P[i][i] = 1;
  return P;
}

std::vector<double> rand_vec(Index n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& e : v) e = val(rng);
  return v;
}

// ---- dense references -------------------------------------------------------

/// One SOR sweep over rows in `order` (forward or backward), off-diagonal
/// part of the full row, diagonal shifted by fshift.
void ref_sweep(const Dense& A, const std::vector<double>& b, std::vector<double>& x, double omega, double fshift, bool forward) {
  const Index n = A.rows;
  for (Index s = 0; s < n; ++s) {
    const Index i = forward ? s : n - 1 - s;
    double sum = b[i];
    for (Index j = 0; j < n; ++j)
      if (j != i) sum -= A(i, j) * x[j];
    x[i] = (1 - omega) * x[i] + omega * sum / (fshift + A(i, i));
  }
}

/// ILU(0) on the pattern: returns L (unit, below) and U (on and above) in one dense matrix.
Dense ref_ilu0(const Dense& A, const std::vector<std::vector<char>>& P) {
  Dense F = A;
  const Index n = A.rows;
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < i; ++k) {
      if (!P[i][k]) continue;
      F(i, k) /= F(k, k);
      for (Index j = k + 1; j < n; ++j)
        if (P[i][j] && P[k][j]) F(i, j) -= F(i, k) * F(k, j);
    }
  return F;
}

/// ICC(0) on the upper pattern: U unit upper (above), D on the diagonal.
Dense ref_icc0(const Dense& A, const std::vector<std::vector<char>>& P) {
  const Index n = A.rows;
  Dense F(n, n);
  for (Index k = 0; k < n; ++k) {
    double d = A(k, k);
    for (Index i = 0; i < k; ++i)
      if (P[i][k]) d -= F(i, k) * F(i, k) * F(i, i);
    F(k, k) = d;
    for (Index j = k + 1; j < n; ++j) {
      if (!P[k][j]) continue;
      double w = A(k, j);
      for (Index i = 0; i < k; ++i)
        if (P[i][k] && P[i][j]) w -= F(i, k) * F(i, i) * F(i, j);
      F(k, j) = w / d;
    }
  }
  return F;
}

/// A pivot policy that accepts every pivot.
struct AcceptAll {
  double begin_pass() { return 0.0; }
  PivotDecision<double> check(Index, double pv, double) { return {PivotAction::Accept, pv}; }
  bool again() { return false; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sor_sweeps_match_dense_reference) {
  std::mt19937_64 rng(7);
  for (const Case& c : cases()) {
    const HmMatrix<double> A = make_matrix(c, rng, false);
    const Dense D = dense_of(A);
    const Index n = c.n;
    for (double omega : {1.0, 0.7, 1.4})
      for (double fshift : {0.0, 0.5})
        for (int kind = 0; kind < 3; ++kind)      // forward, backward, symmetric
          for (int zero = 0; zero < 2; ++zero)    // zero initial guess
            for (Index its : {Index(1), Index(3)}) {
              const std::vector<double> b = rand_vec(n, rng);
              std::vector<double> x = rand_vec(n, rng), ref = zero ? std::vector<double>(n, 0.0) : x;
              std::vector<double> mdiag(n), idiag(n), t(n);
              BOOST_TEST(hm_sor_diagonal(A.view(), omega, fshift, mdiag.data(), idiag.data()) == Index(-1));
              SorSweeps sw;
              sw.forward = kind != 1;
              sw.backward = kind != 0;
              sw.zero_initial_guess = zero;
              hm_sor(A.view(), b.data(), x.data(), omega, sw, its, mdiag.data(), idiag.data(), t.data());
              for (Index it = 0; it < its; ++it) {
                if (sw.forward) ref_sweep(D, b, ref, omega, fshift, true);
                if (sw.backward) ref_sweep(D, b, ref, omega, fshift, false);
              }
              BOOST_TEST_CONTEXT(c.name << " omega " << omega << " fshift " << fshift << " kind " << kind << " zero " << zero << " its " << its) {
                BOOST_TEST(max_rel_diff(x, ref) < 1e-12);
              }
            }
  }
}

BOOST_AUTO_TEST_CASE(sor_eisenstat_and_apply_upper) {
  std::mt19937_64 rng(11);
  for (const Case& c : cases()) {
    const HmMatrix<double> A = make_matrix(c, rng, false);
    const Dense D = dense_of(A);
    const Index n = c.n;
    for (double omega : {1.0, 1.3})
      for (double fshift : {0.0, 0.25}) {
        std::vector<double> mdiag(n), idiag(n), t(n), x(n);
        hm_sor_diagonal(A.view(), omega, fshift, mdiag.data(), idiag.data());
        const std::vector<double> b = rand_vec(n, rng);
        // reference: E = (D + fshift) / omega; x = (E+U)^{-1} b; t = b - (2E' - D) x with E' = D/omega... as PETSc: scale*D
        std::vector<double> rx(n), rt(n);
        for (Index i = n - 1; i >= 0; --i) {
          double s = b[i];
          for (Index j = i + 1; j < n; ++j) s -= D(i, j) * rx[j];
          rx[i] = s * omega / (fshift + D(i, i));
        }
        for (Index i = 0; i < n; ++i) rt[i] = b[i] - (2.0 / omega - 1.0) * D(i, i) * rx[i];
        for (Index i = 0; i < n; ++i) {
          double s = rt[i];
          for (Index j = 0; j < i; ++j) s -= D(i, j) * rt[j];
          rt[i] = s * omega / (fshift + D(i, i));
          rx[i] += rt[i];
        }
        hm_sor_eisenstat(A.view(), b.data(), x.data(), omega, mdiag.data(), idiag.data(), t.data());
        BOOST_TEST_CONTEXT(c.name << " eisenstat omega " << omega << " fshift " << fshift) { BOOST_TEST(max_rel_diff(x, rx) < 1e-12); }
        std::vector<double> up(n), rup(n);
        hm_sor_apply_upper(A.view(), b.data(), up.data(), omega, fshift, mdiag.data());
        for (Index i = 0; i < n; ++i) {
          rup[i] = b[i] * (fshift + D(i, i)) / omega;
          for (Index j = i + 1; j < n; ++j) rup[i] += D(i, j) * b[j];
        }
        BOOST_TEST_CONTEXT(c.name << " apply upper") { BOOST_TEST(max_rel_diff(up, rup) < 1e-13); }
      }
  }
}

BOOST_AUTO_TEST_CASE(sor_reports_zero_diagonal) {
  HmMatrix<double> A(Layout::square(5), {-1, 0, 1});
  for (Index i = 0; i < 5; ++i) *A.find(i, i) = i == 3 ? 0.0 : 2.0;
  std::vector<double> m(5), id(5);
  BOOST_TEST(hm_sor_diagonal(A.view(), 1.0, 0.0, m.data(), id.data()) == Index(3));
  BOOST_TEST(hm_sor_diagonal(A.view(), 1.2, 0.0, m.data(), id.data()) == Index(-1));  // PETSc checks only in the omega = 1 branch
  HmMatrix<double> R(Layout::rect(4, 5), {0, 1});
  BOOST_CHECK_THROW(hm_sor_diagonal(R.view(), 1.0, 0.0, m.data(), id.data()), FormatError);
}

BOOST_AUTO_TEST_CASE(ilu0_matches_dense_reference_and_solves) {
  std::mt19937_64 rng(3);
  for (const Case& c : cases()) {
    const HmMatrix<double> A = make_matrix(c, rng, false);
    const Dense D = dense_of(A);
    const auto P = pattern_of(A);
    HmFactorPlan plan;
    HmMatrix<double> F = hm_ilu0_storage(static_cast<const HmMatrix<double>&>(A).view(), &plan);
    AcceptAll accept;
    BOOST_TEST(hm_ilu0(A.view(), plan, F, accept));
    const Dense R = ref_ilu0(D, P);
    const Index n = c.n;
    double worst = 0;
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j) {
        if (!P[i][j]) continue;
        const double got = i == j ? 1.0 / *F.find(i, j) : *F.find(i, j);
        worst = std::max(worst, std::abs(got - R(i, j)) / std::max(1.0, std::abs(R(i, j))));
      }
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(worst < 1e-13);
      // (L U) x = b, with L, U from the reference
      const std::vector<double> b = rand_vec(n, rng);
      std::vector<double> x(n), y(n, 0.0), z(n, 0.0);
      hm_ilu_solve(F.view(), plan, b.data(), x.data());
      for (Index i = 0; i < n; ++i)  // y = U x
        for (Index j = i; j < n; ++j) y[i] += R(i, j) * x[j];
      for (Index i = 0; i < n; ++i) {  // z = L y
        z[i] = y[i];
        for (Index j = 0; j < i; ++j) z[i] += R(i, j) * y[j];
      }
      BOOST_TEST(max_rel_diff(z, b) < 1e-12);
      // (L U)^T x = b
      std::vector<double> xt(n), u(n, 0.0), w(n, 0.0);
      hm_ilu_solve_transpose(F.view(), plan, b.data(), xt.data());
      for (Index j = 0; j < n; ++j) {  // u = L^T xt
        u[j] = xt[j];
        for (Index i = j + 1; i < n; ++i) u[j] += R(i, j) * xt[i];
      }
      for (Index j = 0; j < n; ++j)  // w = U^T u
        for (Index i = 0; i <= j; ++i) w[j] += R(i, j) * u[i];
      BOOST_TEST(max_rel_diff(w, b) < 1e-12);
      // in place
      std::vector<double> xi = b;
      hm_ilu_solve(F.view(), plan, xi.data(), xi.data());
      BOOST_TEST(max_rel_diff(xi, x) == 0.0);
    }
  }
}

// The solves read a factor from its diagonals or from a copy by rows
// (pdiag/factor_solve.hpp): the copy holds every entry of the factor where
// its diagonal reaches the row, zeros elsewhere; the rows said to reach
// every diagonal do; and the five solves give the same results, to the
// bit, from either (ILU and ICC factors of every case, some with diagonals
// that reach few rows).
BOOST_AUTO_TEST_CASE(factor_solves_by_rows_equal_by_diagonals) {
  std::mt19937_64 rng(11);
  for (const Case& c : cases())
    for (bool icc : {false, true}) {
      const HmMatrix<double> A = make_matrix(c, rng, icc);
      HmFactorPlan plan;
      const auto Av = static_cast<const HmMatrix<double>&>(A).view();
      HmMatrix<double> F = icc ? hm_icc0_storage(Av, &plan) : hm_ilu0_storage(Av, &plan);
      AcceptAll accept;
      BOOST_TEST((icc ? hm_icc0(A.view(), plan, F, accept) : hm_ilu0(A.view(), plan, F, accept)));
      const auto Fv = static_cast<const HmMatrix<double>&>(F).view();
      const FactorByRows<double> R = factor_by_rows(Fv, plan);
      const FactorByDiagonals<double> G = factor_by_diagonals(Fv, plan);
      const Index n = c.n;
      Index wrong = 0, misjudged = 0;
      const auto check = [&](const std::vector<Index>& offsets, Index i, const double* row, bool every) {
        for (std::size_t p = 0; p < offsets.size(); ++p) {
          const Index j = i + offsets[p];
          const bool in = j >= 0 && j < n;
          if (row[p] != (in ? *F.find(i, j) : 0.0)) ++wrong;
          if (every && !in) ++misjudged;
        }
      };
      for (Index i = 0; i < n; ++i) {
        check(R.lower_offsets, i, R.lower_row(i), i >= R.lower_from);
        check(R.upper_offsets, i, R.upper_row(i), i < R.upper_to);
        if (R.main(i) != *F.find(i, i)) ++wrong;
      }
      const std::vector<double> b = rand_vec(n, rng);
      double differ = 0;
      const auto compare = [&](auto&& solve) {
        std::vector<double> xr(n), xg(n);
        solve(R, xr.data());
        solve(G, xg.data());
        differ = std::max(differ, max_rel_diff(xr, xg));
      };
      double plain = 0;  // the ILU solve against a plain one, row by row in ascending columns: equal to the bit
      if (!icc) {
        std::vector<double> ref(b), xs(n);
        for (Index i = 0; i < n; ++i)
          for (Index d : R.lower_offsets)
            if (i + d >= 0) ref[i] -= *F.find(i, i + d) * ref[i + d];
        for (Index i = n - 1; i >= 0; --i) {
          for (Index d : R.upper_offsets)
            if (i + d < n) ref[i] -= *F.find(i, i + d) * ref[i + d];
          ref[i] *= *F.find(i, i);
        }
        factor_ilu_solve(R, b.data(), xs.data());
        plain = max_rel_diff(xs, ref);
        std::vector<double> inplace(b);  // x aliasing b
        factor_ilu_solve(G, inplace.data(), inplace.data());
        plain = std::max(plain, max_rel_diff(inplace, ref));
      }
      if (!icc) {
        compare([&](const auto& f, double* x) { factor_ilu_solve(f, b.data(), x); });
        compare([&](const auto& f, double* x) { factor_ilu_solve_transpose(f, b.data(), x); });
      } else {
        compare([&](const auto& f, double* x) { factor_icc_solve(f, b.data(), x); });
        compare([&](const auto& f, double* x) { BOOST_TEST(factor_icc_forward(f, b.data(), x)); });
        compare([&](const auto& f, double* x) { BOOST_TEST(factor_icc_backward(f, b.data(), x)); });
      }
      BOOST_TEST_CONTEXT(c.name << (icc ? ", ICC" : ", ILU")) {
        BOOST_TEST(wrong == 0);
        BOOST_TEST(misjudged == 0);
        BOOST_TEST(R.lower_offsets.size() + R.upper_offsets.size() + 1 == static_cast<std::size_t>(F.ndiag()));
        BOOST_TEST(differ == 0.0);
        BOOST_TEST(plain == 0.0);
      }
    }
}

BOOST_AUTO_TEST_CASE(ilu0_pivot_restart_applies_shift) {
  // a zero pivot in row 2: the policy restarts once with shift 1, so the
  // factor is ILU(0) of A + I
  HmMatrix<double> A(Layout::square(6), {-1, 0, 1});
  for (Index i = 0; i < 6; ++i) {
    *A.find(i, i) = i == 2 ? 0.0 : 4.0;
    if (i > 0) *A.find(i, i - 1) = i == 2 ? 0.0 : 1.0;  // row 2's pivot stays a(2,2) = 0
    if (i < 5) *A.find(i, i + 1) = 0.5;
  }
  struct ShiftOnce {
    double shift = 0;
    int restarts = 0;
    double begin_pass() { return shift; }
    PivotDecision<double> check(Index, double pv, double) {
      if (std::abs(pv) < 1e-14 && shift == 0) {
        shift = 1.0;
        ++restarts;
        return {PivotAction::Restart, pv};
      }
      return {PivotAction::Accept, pv};
    }
    bool again() { return false; }
  } policy;
  HmFactorPlan plan;
  HmMatrix<double> F = hm_ilu0_storage(static_cast<const HmMatrix<double>&>(A).view(), &plan);
  BOOST_TEST(hm_ilu0(A.view(), plan, F, policy));
  BOOST_TEST(policy.restarts == 1);
  Dense D = dense_of(A);
  for (Index i = 0; i < 6; ++i) D(i, i) += 1.0;
  const Dense R = ref_ilu0(D, pattern_of(A));
  for (Index i = 0; i < 6; ++i) BOOST_TEST(std::abs(1.0 / *F.find(i, i) - R(i, i)) < 1e-14);
  struct StopAtZero {
    double begin_pass() { return 0; }
    PivotDecision<double> check(Index, double pv, double) { return {pv == 0 ? PivotAction::Stop : PivotAction::Accept, pv}; }
    bool again() { return false; }
  } stop;
  BOOST_TEST(!hm_ilu0(A.view(), plan, F, stop));
}

BOOST_AUTO_TEST_CASE(icc0_matches_dense_reference_and_solves) {
  std::mt19937_64 rng(5);
  for (const Case& c : cases()) {
    const HmMatrix<double> A = make_matrix(c, rng, true);
    const Dense D = dense_of(A);
    const auto P = pattern_of(A);
    HmFactorPlan plan;
    HmMatrix<double> F = hm_icc0_storage(static_cast<const HmMatrix<double>&>(A).view(), &plan);
    AcceptAll accept;
    BOOST_TEST(hm_icc0(A.view(), plan, F, accept));
    const Dense R = ref_icc0(D, P);
    const Index n = c.n;
    double worst = 0;
    for (Index i = 0; i < n; ++i)
      for (Index j = i; j < n; ++j) {
        if (!P[i][j]) continue;
        const double got = i == j ? 1.0 / *F.find(i, j) : -*F.find(i, j);  // the factor keeps -U and 1/D
        worst = std::max(worst, std::abs(got - R(i, j)) / std::max(1.0, std::abs(R(i, j))));
      }
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(worst < 1e-13);
      const std::vector<double> b = rand_vec(n, rng);
      std::vector<double> x(n), y(n, 0.0), z(n, 0.0), r(n, 0.0);
      hm_icc_solve(F.view(), plan, b.data(), x.data());
      for (Index i = 0; i < n; ++i) {  // y = U x
        y[i] = x[i];
        for (Index j = i + 1; j < n; ++j) y[i] += R(i, j) * x[j];
      }
      for (Index i = 0; i < n; ++i) z[i] = R(i, i) * y[i];  // z = D y
      for (Index j = 0; j < n; ++j) {                        // r = U^T z
        r[j] = z[j];
        for (Index i = 0; i < j; ++i) r[j] += R(i, j) * z[i];
      }
      BOOST_TEST(max_rel_diff(r, b) < 1e-12);
      // forward then backward halves make the whole solve
      std::vector<double> h(n), x2(n);
      BOOST_TEST(hm_icc_forward(F.view(), plan, b.data(), h.data()));
      BOOST_TEST(hm_icc_backward(F.view(), plan, h.data(), x2.data()));
      BOOST_TEST(max_rel_diff(x2, x) < 1e-12);
    }
  }
}

BOOST_AUTO_TEST_CASE(factors_refuse_non_square) {
  HmMatrix<double> R(Layout::rect(4, 6), {0, 1});
  HmFactorPlan plan;
  BOOST_CHECK_THROW(hm_ilu0_storage(static_cast<const HmMatrix<double>&>(R).view(), &plan), FormatError);
  BOOST_CHECK_THROW(hm_icc0_storage(static_cast<const HmMatrix<double>&>(R).view(), &plan), FormatError);
  HmMatrix<double> B(Layout::block(8, 8, 2, 4), {0});
  BOOST_CHECK_THROW(hm_ilu0_storage(static_cast<const HmMatrix<double>&>(B).view(), &plan), FormatError);
}
