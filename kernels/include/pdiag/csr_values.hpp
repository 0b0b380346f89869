// Values moved between an HM block and a CSR pattern that another library
// owns (cuSPARSE's, through PETSc's aijcusparse): the HM block's value at
// each position of the pattern, and an HM block filled from CSR values.
// The pattern is given, not derived: the caller decides which positions a
// CSR copy holds (e.g. aij's rule, which keeps explicit zeros of a stencil
// and drops others), and these kernels only move values. CPU references of
// pdiag::cuda::hm_values_at_csr / hm_set_from_csr (kernels/src/csr_values.cu).
// Rows are the block's local rows 0..nrows-1 (global row row_begin + r),
// columns global. No PETSc here.
#pragma once

#include "pdiag/format.hpp"

namespace pdiag {

/// Index k of diagonal d in the ascending offsets[0..nd), or -1.
PDIAG_HD Index find_offset(const Index* offsets, Index nd, Index d) {
  Index lo = 0, hi = nd;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (offsets[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return (lo < nd && offsets[lo] == d) ? lo : Index(-1);
}

/// out[e] = A(i, colidx[e]) for the entries e of local row r (rowptr[r] <=
/// e < rowptr[r + 1], i = row_begin + r); 0 where A stores no diagonal
/// j - i. One row of the CSR (the device kernel's thread).
template <class T, class I>
PDIAG_HD void hm_row_values_at_csr(const HmView<const T>& A, Index r, const I* rowptr, const I* colidx, T* out) {
  const Index i = A.layout.row_begin + r;
  for (Index e = rowptr[r]; e < Index(rowptr[r + 1]); ++e) {
    const Index j = colidx[e];
    const Index k = find_offset(A.offsets, A.ndiag, j - i);
    out[e] = k < 0 ? T(0) : A.val[A.pos(k, i)];
  }
}

/// hm_row_values_at_csr for every local row of A.
template <class T, class I>
void hm_values_at_csr(const HmView<const T>& A, const I* rowptr, const I* colidx, T* out) {
  for (Index r = 0; r < A.layout.nrows; ++r) hm_row_values_at_csr(A, r, rowptr, colidx, out);
}

/// C(i, colidx[e]) = vals[e] for the entries of local row r; returns how
/// many entries lie on a diagonal C does not store (left out). The other
/// stored entries of the row are not touched (the caller zeroes C first).
template <class T, class I>
PDIAG_HD Index hm_row_set_from_csr(const HmView<T>& C, Index r, const I* rowptr, const I* colidx, const T* vals) {
  const Index i = C.layout.row_begin + r;
  Index misses = 0;
  for (Index e = rowptr[r]; e < Index(rowptr[r + 1]); ++e) {
    const Index j = colidx[e];
    const Index k = find_offset(C.offsets, C.ndiag, j - i);
    if (k < 0) ++misses;
    else C.val[C.pos(k, i)] = vals[e];
  }
  return misses;
}

/// C's values from a CSR of its rows: every stored entry zero, then each
/// CSR entry in its place. Returns the entries C has no diagonal for (0
/// when C's diagonals were taken from the same pattern).
template <class T, class I>
Index hm_set_from_csr(const HmView<T>& C, const I* rowptr, const I* colidx, const T* vals) {
  std::fill(C.val, C.val + C.start[C.ndiag], T(0));
  Index misses = 0;
  for (Index r = 0; r < C.layout.nrows; ++r) misses += hm_row_set_from_csr(C, r, rowptr, colidx, vals);
  return misses;
}

}  // namespace pdiag
