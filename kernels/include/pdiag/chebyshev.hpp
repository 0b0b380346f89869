// Chebyshev-accelerated Jacobi smoothing, one fused update a step (the CPU
// reference of pdiag::cuda::chebyshev_jacobi_update, chebyshev_cuda.hpp).
//
// The iteration is PETSc's KSPCHEBYSHEV of the first kind with Jacobi's
// preconditioner D^-1 on the eigenvalue interval [emin, emax] of D^-1 A
// (ksp/impls/cheby/cheby.c): with scale = 2 / (emax + emin),
// alpha = 1 - scale emin, mu = 1 / alpha, c_0 = 1, c_1 = mu,
//   x_1     = x_0 + scale D^-1 (b - A x_0)
//   x_{k+1} = (1 - w_k) x_{k-1} + w_k (x_k + scale D^-1 (b - A x_k)),
//   c_{k+1} = 2 mu c_k - c_{k-1}, w_k = (2 / alpha) c_k / c_{k+1}.
// PETSc spends five vector operations a step on it (the residual, its
// scaling, the combination and a copy at the end); here every step is
// x_new = a x_cur + b x_old + g D^-1 (rhs - A x_cur), given A x_cur: one
// pass over the vectors, and x_new may be x_old's storage (each entry is
// read by its own update only), so two vectors take turns and nothing is
// copied for an even number of steps.
#pragma once

#include "pdiag/format.hpp"

namespace pdiag {

/// The coefficients of one step: x_new = a x_cur + b x_old + g D^-1 (rhs - A x_cur).
struct ChebyshevStep {
  double a = 1, b = 0, g = 0;
};

/// PETSc's first-kind recurrence on [emin, emax] (0 <= emin < emax), step
/// by step: next() gives step 1, 2, ... (step 1 has b = 0: x_old unused).
class ChebyshevSteps {
 public:
  ChebyshevSteps(double emin, double emax)
      : scale_(2.0 / (emax + emin)), alpha_(1.0 - scale_ * emin), mu_(1.0 / alpha_), c_prev_(1.0), c_(1.0 / alpha_) {}

  ChebyshevStep next() {
    ChebyshevStep s;
    if (first_) {
      first_ = false;
      s.g = scale_;
      return s;
    }
    const double c_next = 2.0 * mu_ * c_ - c_prev_;
    const double omega = (2.0 / alpha_) * c_ / c_next;
    c_prev_ = c_, c_ = c_next;
    s.a = omega, s.b = 1.0 - omega, s.g = omega * scale_;
    return s;
  }

 private:
  double scale_, alpha_, mu_, c_prev_, c_;
  bool first_ = true;
};

/// x_new[i] = a x_cur[i] + b x_old[i] + g dinv[i] (rhs[i] - ax[i]) for i < n,
/// where a null x_cur, x_old or ax counts as zeros (a first step from a zero
/// guess reads rhs and dinv only). x_new may be x_old (not x_cur, whose
/// entries other rows' A x_cur read before this update).
template <class T>
void chebyshev_jacobi_update(Index n, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, const T* ax, T* x_new) {
  for (Index i = 0; i < n; ++i) {
    const T r = ax ? rhs[i] - ax[i] : rhs[i];
    T v = g * (dinv[i] * r);
    if (x_cur) v += a * x_cur[i];
    if (x_old) v += b * x_old[i];
    x_new[i] = v;
  }
}

/// d[i] = 1 / d[i], and 1 where d[i] is zero (PETSc's PCJACOBI does the
/// same); returns how many were zero.
template <class T>
Index jacobi_inverse(Index n, T* d) {
  Index zeros = 0;
  for (Index i = 0; i < n; ++i) {
    if (d[i] == T(0)) {
      d[i] = T(1);
      ++zeros;
    } else {
      d[i] = T(1) / d[i];
    }
  }
  return zeros;
}

}  // namespace pdiag
