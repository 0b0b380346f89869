// CPU reference SpMM: C = A X with A stored by diagonals (HM or CDM) and X a
// dense block of k columns, X and C column-major as PETSc's MATDENSE
// stores them (docs/kernels.md). Row chunks of C stay in cache while
// every diagonal passes over them; each loaded value of A is used for up to
// four columns at once, every access stride-1.
//
// X addressing is that of hm_spmv / cdm_spmv (cpu.hpp): row il of the
// block and diagonal q read X's row il + shift[q] (CDM: shift[q] above the
// wrap, shift[ndiag + q] below it). A null shift means X holds all ncols
// rows, indexed by global column (the sequential case); ldx must then be
// at least ncols. Under MPI the plugin passes the shifts into its gathered
// block of X's rows.
#pragma once

#include "pdiag/cpu.hpp"
#include "pdiag/format.hpp"

#include <string>
#include <vector>

namespace pdiag {

namespace detail {

inline void check_spmm_args(const Layout& L, Index ldx, Index k, Index ldc, bool default_shift, const char* what) {
  if (k < 0) throw FormatError(std::string(what) + ": negative number of columns " + std::to_string(k));
  if (k > 0 && ldc < L.nrows)
    throw FormatError(std::string(what) + ": ldc " + std::to_string(ldc) + " < " + std::to_string(L.nrows) +
                      " local rows");
  if (k > 0 && default_shift && ldx < L.ncols)
    throw FormatError(std::string(what) + ": ldx " + std::to_string(ldx) + " < " + std::to_string(L.ncols) +
                      " columns of A");
}

/// Rows per chunk so that the chunk of C (k columns) stays in L2.
inline Index spmm_chunk(Index k) { return std::max<Index>(64, 32768 / std::max<Index>(k, 1)); }

/// C[j * ldc + il] += a[va + il] * X[j * ldx + il + xo] for il in [b, e),
/// j in [0, k): the value of A is loaded once per four columns. Offsets are
/// kept as indices (xo may be negative; il + xo is not).
template <class T>
inline void spmm_diag_run(const T* a, Index va, const T* X, Index ldx, Index xo, Index k, T* C, Index ldc, Index b,
                          Index e) {
  Index j = 0;
  for (; j + 4 <= k; j += 4) {
    T* c0 = C + j * ldc;
    T* c1 = c0 + ldc;
    T* c2 = c1 + ldc;
    T* c3 = c2 + ldc;
    const Index x0 = j * ldx + xo, x1 = x0 + ldx, x2 = x1 + ldx, x3 = x2 + ldx;
    for (Index il = b; il < e; ++il) {
      const T v = a[va + il];
      c0[il] += v * X[x0 + il];
      c1[il] += v * X[x1 + il];
      c2[il] += v * X[x2 + il];
      c3[il] += v * X[x3 + il];
    }
  }
  for (; j < k; ++j) {
    T* cj = C + j * ldc;
    const Index xj = j * ldx + xo;
    for (Index il = b; il < e; ++il) cj[il] += a[va + il] * X[xj + il];
  }
}

}  // namespace detail

/// HM SpMM: C = A X. A is an HM block (rows [r0, r0 + m) of an M x N
/// matrix); X has k columns with leading dimension ldx, row p of X holding
/// global column p of A (default shift); C has k columns of the m local rows
/// with leading dimension ldc and is overwritten (rows >= m of each column
/// are not touched). Throws FormatError for k < 0, ldc < m, ldx < N.
template <class T>
void hm_spmm(const HmView<const T>& A, const T* X, Index ldx, Index k, T* C, Index ldc, const Index* shift = nullptr) {
  const Layout& L = A.layout;
  detail::check_spmm_args(L, ldx, k, ldc, shift == nullptr, "hm_spmm");
  if (k == 0) return;
  std::vector<Index> buf;
  const Index* s = detail::hm_shift_or_default(A, shift, buf);
  const Index chunk = detail::spmm_chunk(k);
  for (Index c0 = 0; c0 < L.nrows; c0 += chunk) {
    const Index c1 = std::min(L.nrows, c0 + chunk);
    for (Index j = 0; j < k; ++j)
      for (Index il = c0; il < c1; ++il) C[j * ldc + il] = T(0);
    for (Index q = 0; q < A.ndiag; ++q) {
      const Index d = A.offsets[q];
      const Index b = std::max(c0, L.lo(d) - L.row_begin), e = std::min(c1, L.hi(d) - L.row_begin);
      if (e <= b) continue;
      // A.val[va + il] = a(r0 + il, r0 + il + d); its column is X's row il + s[q].
      detail::spmm_diag_run(A.val, A.start[q] - (L.lo(d) - L.row_begin), X, ldx, s[q], k, C, ldc, b, e);
    }
  }
}

/// CDM SpMM: C = A X for a CDM block (rows [r0, r0 + m) of an N x N
/// matrix), X and C as in hm_spmm. Compact diagonal kk is split at its wrap
/// (global row N - kk): rows above it read X at column i + kk, rows below at
/// i + kk - N; no other range checks. Throws FormatError as hm_spmm.
template <class T>
void cdm_spmm(const CdmView<const T>& A, const T* X, Index ldx, Index k, T* C, Index ldc,
              const Index* shift = nullptr) {
  const Layout& L = A.layout;
  detail::check_spmm_args(L, ldx, k, ldc, shift == nullptr, "cdm_spmm");
  if (k == 0) return;
  std::vector<Index> buf;
  const Index* s = detail::cdm_shift_or_default(A, shift, buf);
  const Index chunk = detail::spmm_chunk(k);
  for (Index c0 = 0; c0 < L.nrows; c0 += chunk) {
    const Index c1 = std::min(L.nrows, c0 + chunk);
    for (Index j = 0; j < k; ++j)
      for (Index il = c0; il < c1; ++il) C[j * ldc + il] = T(0);
    for (Index q = 0; q < A.ndiag; ++q) {
      const Index w = detail::cdm_wrap_row(L, A.koffsets[q]);
      const Index va = q * L.nrows;
      const Index b1 = std::max(c0, w);
      if (std::min(c1, w) > c0) detail::spmm_diag_run(A.val, va, X, ldx, s[q], k, C, ldc, c0, std::min(c1, w));
      if (c1 > b1) detail::spmm_diag_run(A.val, va, X, ldx, s[A.ndiag + q], k, C, ldc, b1, c1);
    }
  }
}

}  // namespace pdiag
