// A symmetric square HM matrix read through half its diagonals: the view,
// the check that its values are symmetric, and its product (the CPU
// references of pdiag/symmetric_cuda.hpp).
//
// Why: a symmetric operator stored by diagonals holds every value twice
// (a(i, i - d) = a(i - d, i)); a product that reads the main and upper
// diagonals only moves 4 of a 7-point operator's 7 diagonals (14 of a
// 27-point one's 27), and at the device's copy bandwidth the bytes are the
// time. The Chebyshev/Jacobi steps (chebyshev.hpp) and the plugin's
// MatMult and MatResidual of a symmetric diag matrix on the GPU read it so.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/scalar.hpp"

namespace pdiag {

/// A symmetric square HM matrix read through its main and upper diagonals
/// only: a(i, i + d_k) = upper[k][i] (i < n - d_k) and, by symmetry,
/// a(i, i - d_k) = upper[k][i - d_k]. A smoothing step then reads the
/// values of half the stencil (4 of a 7-point operator's 7 diagonals).
/// lower[k][j] = a(j + d_k, j) is kept for the symmetry check only (where
/// the check allows rounding, the step uses a(i - d, i) for a(i, i - d)). The
/// pointers may be device pointers: the view is built by pointer
/// arithmetic on the HM metadata.
template <class T>
struct SymmetricHmView {
  static constexpr int kMaxPairs = 16;  // a 27-point stencil has 13
  Index n = 0;
  int npairs = 0;
  Index offset[kMaxPairs] = {};
  const T* upper[kMaxPairs] = {};
  const T* lower[kMaxPairs] = {};
  const T* main = nullptr;
};

/// The symmetric view of a full square HM matrix whose offsets are 0 and
/// pairs +-d (at most kMaxPairs), or false. Reads A's offsets and starts
/// (host arrays), never its values; whether the values are symmetric is
/// hm_values_symmetric's question.
template <class T>
bool symmetric_hm_view(const HmView<const nodeduce_t<T>>& A, SymmetricHmView<T>* S) {
  const Layout& L = A.layout;
  if (!L.is_full() || !L.is_square() || A.ndiag % 2 == 0) return false;
  const Index mid = A.ndiag / 2;
  if (A.offsets[mid] != 0 || mid > SymmetricHmView<T>::kMaxPairs) return false;
  SymmetricHmView<T> v;
  v.n = L.nrows;
  v.npairs = int(mid);
  v.main = A.val + A.start[mid];
  for (Index k = 0; k < mid; ++k) {
    const Index up = mid + 1 + k, low = mid - 1 - k;  // offsets ascending: +d_k and -d_k
    if (A.offsets[up] != -A.offsets[low]) return false;
    v.offset[k] = A.offsets[up];
    v.upper[k] = A.val + A.start[up];   // lo(+d) = 0
    v.lower[k] = A.val + A.start[low];  // lo(-d) = d: entry j is a(j + d, j)
  }
  *S = v;
  return true;
}

/// Whether a stored lower entry l and its upper partner u agree to within
/// |u - l| <= rtol max(|u|, |l|) (rtol = 0: exactly), every pair; for
/// complex values by their moduli: symmetric is a(i, j) = a(j, i), not
/// Hermitian (the half-diagonal product reads a(i - d, i) for a(i, i - d)). A
/// Galerkin product P^T A P of a symmetric A is symmetric only to rounding
/// (its two entries sum the same terms in different orders).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class T>
PDIAG_HD bool symmetric_pair(T u, T l, real_t<T> rtol) {
  const real_t<T> du = scalar_abs(T(u - l)), au = scalar_abs(u), al = scalar_abs(l);
  return du <= rtol * (au > al ? au : al);
}

template <class T>
bool hm_values_symmetric(const SymmetricHmView<T>& S, real_t<T> rtol) {
  for (int k = 0; k < S.npairs; ++k)
    for (Index j = 0; j + S.offset[k] < S.n; ++j)
      if (!symmetric_pair(S.upper[k][j], S.lower[k][j], rtol)) return false;
  return true;
}

/// The sum of row i of A x for A read through S: the main term, then each
/// pair's upper term a(i, i + d) x[i + d] and lower term a(i - d, i)
/// x[i - d], in that order (every caller sums a row the same way).
template <class T>
PDIAG_HD T symmetric_row_sum(const SymmetricHmView<T>& S, Index i, const T* x) {
  T s = S.main[i] * x[i];
  for (int k = 0; k < S.npairs; ++k) {
    const Index o = S.offset[k];
    if (i + o < S.n) s += S.upper[k][i] * x[i + o];
    if (i >= o) s += S.upper[k][i - o] * x[i - o];
  }
  return s;
}

/// y = alpha A x + z for A read through S (z null: zeros): alpha = 1 the
/// product, alpha = -1 with z = b the residual b - A x. y may be z, not x.
template <class T>
PDIAG_HD T symmetric_spmv_entry(const SymmetricHmView<T>& S, Index i, const T* x, T alpha, const T* z) {
  const T s = alpha * symmetric_row_sum(S, i, x);
  return z ? z[i] + s : s;
}

template <class T>
void hm_spmv_symmetric(const SymmetricHmView<T>& S, const T* x, T* y, nodeduce_t<T> alpha = T(1), const nodeduce_t<T>* z = nullptr) {
  for (Index i = 0; i < S.n; ++i) y[i] = symmetric_spmv_entry(S, i, x, T(alpha), z);
}

}  // namespace pdiag
