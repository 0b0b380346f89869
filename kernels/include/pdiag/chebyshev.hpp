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

#include "pdiag/cpu.hpp"
#include "pdiag/format.hpp"
#include "pdiag/symmetric.hpp"

#include <cstddef>
#include <vector>

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

/// Entry i of the update: a x_cur[i] + b x_old[i] + g dinv[i] (rhs[i] -
/// ax[i]), a null x_cur, x_old or ax counting as zeros. The CPU loop below
/// and the CUDA kernel both call it, so their arithmetic is one.
template <class T>
PDIAG_HD T chebyshev_jacobi_entry(Index i, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, const T* ax) {
  const T r = ax ? rhs[i] - ax[i] : rhs[i];
  T v = g * (dinv[i] * r);
  if (x_cur) v += a * x_cur[i];
  if (x_old) v += b * x_old[i];
  return v;
}

/// The same entry given (A x_cur)_i as a value (a kernel that computes the
/// product's row itself; chebyshev_cuda.hpp's compressed step).
template <class T>
PDIAG_HD T chebyshev_jacobi_value(Index i, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, T ax_i) {
  T v = g * (dinv[i] * (rhs[i] - ax_i));
  if (x_cur) v += a * x_cur[i];
  if (x_old) v += b * x_old[i];
  return v;
}

/// x_new[i] = a x_cur[i] + b x_old[i] + g dinv[i] (rhs[i] - ax[i]) for i < n,
/// where a null x_cur, x_old or ax counts as zeros (a first step from a zero
/// guess reads rhs and dinv only). x_new may be x_old (not x_cur, whose
/// entries other rows' A x_cur read before this update).
template <class T>
void chebyshev_jacobi_update(Index n, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, const T* ax, T* x_new) {
  for (Index i = 0; i < n; ++i) x_new[i] = chebyshev_jacobi_entry(i, a, x_cur, b, x_old, g, dinv, rhs, ax);
}

/// d = 1 / d, and 1 where d is zero (PETSc's PCJACOBI does the same);
/// whether it was zero. The CPU loop below and the CUDA kernel call it.
template <class T>
PDIAG_HD bool jacobi_inverse_entry(T& d) {
  if (d == T(0)) {
    d = T(1);
    return true;
  }
  d = T(1) / d;
  return false;
}

/// d[i] = 1 / d[i], and 1 where d[i] is zero (jacobi_inverse_entry);
/// returns how many were zero.
template <class T>
Index jacobi_inverse(Index n, T* d) {
  Index zeros = 0;
  for (Index i = 0; i < n; ++i) zeros += jacobi_inverse_entry(d[i]) ? 1 : 0;
  return zeros;
}

/// Entry i of one step with the product fused in: a x_cur[i] + b x_old[i]
/// + g dinv_i (rhs[i] - (A x_cur)[i]), A read through S, dinv_i = 1 / a(i, i)
/// (1 where zero, as jacobi_inverse); x_old may be null (zeros). The row
/// sums the main term, then each pair's upper and lower terms: the rounding
/// differs from the product's by the order. The CPU loop below and the CUDA
/// kernel both call it.
template <class T>
PDIAG_HD T chebyshev_jacobi_symmetric_entry(const SymmetricHmView<T>& S, Index i, T a, const T* x_cur, T b, const T* x_old, T g, const T* rhs) {
  const T d = S.main[i];
  const T s = symmetric_row_sum(S, i, x_cur);
  const T dinv = d == T(0) ? T(1) : T(1) / d;
  T v = g * (dinv * (rhs[i] - s));
  v += a * x_cur[i];
  if (x_old) v += b * x_old[i];
  return v;
}

/// One step with the product fused in, every row (chebyshev_jacobi_symmetric_entry);
/// x_new may be x_old, not x_cur.
template <class T>
void chebyshev_jacobi_step_symmetric(const SymmetricHmView<T>& S, T a, const T* x_cur, T b, const T* x_old, T g, const T* rhs, T* x_new) {
  for (Index i = 0; i < S.n; ++i) x_new[i] = chebyshev_jacobi_symmetric_entry(S, i, a, x_cur, b, x_old, g, rhs);
}

/// One step with A's product fused in, A a full square HM matrix on the
/// host (any values): rows a chunk at a time, the chunk's A x_cur by
/// hm_spmv's own chunk code into a scratch that stays in cache, then the
/// update (chebyshev_jacobi_value) from it, so A x never goes to memory.
/// The same values as hm_spmv followed by chebyshev_jacobi_update, bit for
/// bit (the same sums in the same order). x_cur required; x_old may be null
/// (zeros); x_new may be x_old, not x_cur.
template <class T>
void chebyshev_jacobi_step_full(const HmView<const nodeduce_t<T>>& A, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, T* x_new) {
  std::vector<Index> shifts;
  const Index* s = detail::hm_shift_or_default(A, nullptr, shifts);
  std::vector<T> ax(static_cast<std::size_t>(detail::kRowChunk));
  for (Index c0 = 0; c0 < A.layout.nrows; c0 += detail::kRowChunk) {
    const Index c1 = std::min(A.layout.nrows, c0 + detail::kRowChunk);
    detail::hm_spmv_rows(A, x_cur, s, c0, c1, static_cast<const T*>(nullptr), ax.data());
    for (Index i = c0; i < c1; ++i) x_new[i] = chebyshev_jacobi_value(i, a, x_cur, b, x_old, g, dinv, rhs, ax[static_cast<std::size_t>(i - c0)]);
  }
}

}  // namespace pdiag
