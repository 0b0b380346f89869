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
/// One stored diagonal as a sweep reads it: a(i, i + off) = val[base + i]
/// for the rows whose column i + off lies in the block.
struct SweepDiagonal {
  Index off = 0;
  Index base = 0;
};

/// The stored diagonals of a square block split into its lower part
/// (ascending), its main diagonal and its upper part, and the rows where no
/// column of a part leaves the block (no test per entry there).
struct TriangularSplit {
  std::vector<SweepDiagonal> lower, upper;
  bool has_main = false;
  Index main_base = 0;
  Index lower_from = 0;  // rows i >= lower_from: every lower column i + off >= 0
  Index upper_to = 0;    // rows i < upper_to: every upper column i + off < m
  Index m = 0;
  template <class T>
  explicit TriangularSplit(const HmView<T>& A) : m(A.layout.nrows) {
    upper_to = m;
    for (Index k = 0; k < A.ndiag; ++k) {
      const Index off = A.offsets[k];
      const SweepDiagonal d{off, A.start[k] - A.layout.lo(off)};
      if (off < 0) {
        lower.push_back(d);
        if (-off > lower_from) lower_from = -off;
      } else if (off > 0) {
        upper.push_back(d);
        if (m - off < upper_to) upper_to = m - off;
      } else {
        has_main = true;
        main_base = d.base;
      }
    }
  }
  /// sum -= (lower part of row i) . v, in ascending columns
  template <class T, class V>
  void minus_lower(const T* val, V& sum, Index i, const V* v) const {
    if (i >= lower_from) {
      for (const SweepDiagonal& d : lower) sum -= val[d.base + i] * v[i + d.off];
    } else {
      for (const SweepDiagonal& d : lower)
        if (i + d.off >= 0) sum -= val[d.base + i] * v[i + d.off];
    }
  }
  /// sum -= (upper part of row i) . v, in ascending columns
  template <class T, class V>
  void minus_upper(const T* val, V& sum, Index i, const V* v) const {
    if (i < upper_to) {
      for (const SweepDiagonal& d : upper) sum -= val[d.base + i] * v[i + d.off];
    } else {
      for (const SweepDiagonal& d : upper)
        if (i + d.off < m) sum -= val[d.base + i] * v[i + d.off];
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
  for (Index i = 0; i < m; ++i) mdiag[i] = s.has_main ? A.val[s.main_base + i] : T(0);
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
  const auto* val = A.val;
  auto minus_lower = [&](T& sum, Index i, const T* v) { s.minus_lower(val, sum, i, v); };
  auto minus_upper = [&](T& sum, Index i, const T* v) { s.minus_upper(val, sum, i, v); };
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
          if (s.has_main) sum -= val[s.main_base + i] * x[i];
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
  const T scale = T(2.0 / omega - 1.0);
  for (Index i = m - 1; i >= 0; --i) {  // x = (E + U)^{-1} b
    T sum = b[i];
    s.minus_upper(A.val, sum, i, x);
    x[i] = sum * idiag[i];
  }
  for (Index i = 0; i < m; ++i) t[i] = b[i] - scale * mdiag[i] * x[i];  // t = b - (2E - D) x
  for (Index i = 0; i < m; ++i) {  // t = (E + L)^{-1} t; x += t
    T sum = t[i];
    s.minus_lower(A.val, sum, i, static_cast<const T*>(t));
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
    for (const detail::SweepDiagonal& u : s.upper)
      if (i + u.off < m) sum += A.val[u.base + i] * b[i + u.off];
    x[i] = sum;
  }
}

}  // namespace pdiag
