// Successive over-relaxation on an HM matrix (CPU reference): the sweeps
// PETSc's MatSOR performs (forward, backward, symmetric; zero initial guess;
// Eisenstat's trick; applying the upper triangle), with the same operations
// in the same order as PETSc's compressed-row code, so that the results
// agree to the last bit on the stored entries both hold. A row's lower part
// is its diagonals d < 0 in ascending order (ascending columns), its upper
// part those with d > 0.
//
// The matrix is square and sequential (a whole matrix, or one process's
// diagonal block). Missing main diagonal entries read as zero.
#pragma once

#include "pdiag/format.hpp"

#include <vector>

namespace pdiag {

/// Which sweeps a call makes (PETSc's MatSORType bits, without PETSc).
struct SorSweeps {
  bool forward = false;
  bool backward = false;
  bool zero_initial_guess = false;
};

namespace detail {
/// The stored diagonals of a square block split into its lower part
/// (ascending), its main diagonal (-1 if not stored) and its upper part.
struct TriangularSplit {
  std::vector<Index> lower, upper;
  Index main = -1;
  template <class T>
  explicit TriangularSplit(const HmView<T>& A) {
    for (Index k = 0; k < A.ndiag; ++k) {
      if (A.offsets[k] < 0) lower.push_back(k);
      else if (A.offsets[k] > 0) upper.push_back(k);
      else main = k;
    }
  }
};

template <class T>
inline void require_square_block(const HmView<T>& A, const char* what) {
  if (!A.layout.is_full() || !A.layout.is_square())
    throw FormatError(std::string(what) + " needs a square sequential block");
}
}  // namespace detail

/// mdiag[i] = a(i,i); idiag[i] = omega / (fshift + a(i,i)), or 1 / a(i,i)
/// when omega == 1 and fshift <= 0 (PETSc's two formulas). Returns the first
/// row with a zero diagonal in the second case (-1: none); the caller
/// decides whether that is an error (PETSc: unless fshift is nonzero).
template <class T, class R>
Index hm_sor_diagonal(const HmView<const nodeduce_t<T>>& A, R omega, R fshift, T* mdiag, T* idiag) {
  detail::require_square_block(A, "SOR");
  const detail::TriangularSplit s(A);
  const Index m = A.layout.nrows;
  Index zero_row = -1;
  for (Index i = 0; i < m; ++i) mdiag[i] = s.main >= 0 ? A.val[A.pos(s.main, i)] : T(0);
  if (omega == R(1) && fshift <= R(0)) {
    for (Index i = 0; i < m; ++i) {
      if (mdiag[i] == T(0) && zero_row < 0) zero_row = i;
      idiag[i] = T(1) / mdiag[i];
    }
  } else {
    for (Index i = 0; i < m; ++i) idiag[i] = omega / (fshift + mdiag[i]);
  }
  return zero_row;
}

/// its sweeps of SOR on A x = b (x updated in place), with mdiag and idiag
/// from hm_sor_diagonal and a work vector t of m entries.
template <class T, class R>
void hm_sor(const HmView<const nodeduce_t<T>>& A, const T* b, T* x, R omega, SorSweeps sw, Index its, const T* mdiag, const T* idiag, T* t) {
  detail::require_square_block(A, "SOR");
  const detail::TriangularSplit s(A);
  const Index m = A.layout.nrows;
  auto a = [&](Index k, Index i) { return A.val[A.pos(k, i)]; };
  // sum -= (lower part of row i) . v, in ascending columns
  auto minus_lower = [&](T& sum, Index i, const T* v) {
    for (Index k : s.lower) {
      const Index j = i + A.offsets[k];
      if (j >= 0) sum -= a(k, i) * v[j];
    }
  };
  auto minus_upper = [&](T& sum, Index i, const T* v) {
    for (Index k : s.upper) {
      const Index j = i + A.offsets[k];
      if (j < m) sum -= a(k, i) * v[j];
    }
  };
  const T* xb = b;
  if (sw.zero_initial_guess) {
    if (sw.forward) {
      for (Index i = 0; i < m; ++i) {
        T sum = b[i];
        minus_lower(sum, i, x);
        t[i] = sum;
        x[i] = sum * idiag[i];
      }
      xb = t;
    }
    if (sw.backward) {
      for (Index i = m - 1; i >= 0; --i) {
        T sum = xb[i];
        minus_upper(sum, i, x);
        if (xb == b) x[i] = sum * idiag[i];
        else x[i] = (R(1) - omega) * x[i] + sum * idiag[i];
      }
    }
    --its;
  }
  while (its-- > 0) {
    xb = b;
    if (sw.forward) {
      for (Index i = 0; i < m; ++i) {
        T sum = b[i];
        minus_lower(sum, i, x);
        t[i] = sum;  // the lower part's application, reused by the backward sweep
        minus_upper(sum, i, x);
        x[i] = (R(1) - omega) * x[i] + sum * idiag[i];
      }
      xb = t;
    }
    if (sw.backward) {
      for (Index i = m - 1; i >= 0; --i) {
        T sum = xb[i];
        if (xb == b) {  // the whole row, diagonal included, then added back
          minus_lower(sum, i, x);
          if (s.main >= 0) sum -= a(s.main, i) * x[i];
          minus_upper(sum, i, x);
          x[i] = (R(1) - omega) * x[i] + (sum + mdiag[i] * x[i]) * idiag[i];
        } else {
          minus_upper(sum, i, x);
          x[i] = (R(1) - omega) * x[i] + sum * idiag[i];
        }
      }
    }
  }
}

/// Eisenstat's trick: x = (L + E)^{-1} A (U + E)^{-1} b applied as PETSc
/// does, E = D / omega (idiag from hm_sor_diagonal), t a work vector.
template <class T, class R>
void hm_sor_eisenstat(const HmView<const nodeduce_t<T>>& A, const T* b, T* x, R omega, const T* mdiag, const T* idiag, T* t) {
  detail::require_square_block(A, "SOR");
  const detail::TriangularSplit s(A);
  const Index m = A.layout.nrows;
  auto a = [&](Index k, Index i) { return A.val[A.pos(k, i)]; };
  const T scale = T(2.0 / omega - 1.0);
  for (Index i = m - 1; i >= 0; --i) {  // x = (E + U)^{-1} b
    T sum = b[i];
    for (Index k : s.upper) {
      const Index j = i + A.offsets[k];
      if (j < m) sum -= a(k, i) * x[j];
    }
    x[i] = sum * idiag[i];
  }
  for (Index i = 0; i < m; ++i) t[i] = b[i] - scale * mdiag[i] * x[i];  // t = b - (2E - D) x
  for (Index i = 0; i < m; ++i) {  // t = (E + L)^{-1} t; x += t
    T sum = t[i];
    for (Index k : s.lower) {
      const Index j = i + A.offsets[k];
      if (j >= 0) sum -= a(k, i) * t[j];
    }
    t[i] = sum * idiag[i];
    x[i] += t[i];
  }
}

/// x = (U + (D + fshift) / omega) b: PETSc's SOR_APPLY_UPPER,
/// x[i] = b[i] (fshift + a(i,i)) / omega + (upper part of row i) . b.
template <class T, class R>
void hm_sor_apply_upper(const HmView<const nodeduce_t<T>>& A, const T* b, T* x, R omega, R fshift, const T* mdiag) {
  detail::require_square_block(A, "SOR");
  const detail::TriangularSplit s(A);
  const Index m = A.layout.nrows;
  for (Index i = 0; i < m; ++i) {
    const T d = fshift + mdiag[i];
    T sum = b[i] * d / omega;
    for (Index k : s.upper) {
      const Index j = i + A.offsets[k];
      if (j < m) sum += A.val[A.pos(k, i)] * b[j];
    }
    x[i] = sum;
  }
}

}  // namespace pdiag
