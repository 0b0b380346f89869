// CPU reference kernels for HM and CDM blocks: products with a vector
// (y = A x, y = A x + z, y = A^T x, y = A^T x + z, and the conjugate
// transposes y = A^H x (+ z)), diagonal extraction, scaling and the
// values' conjugates and parts. The CUDA kernels (pdiag/spmv_cuda.hpp, pdiag/ops_cuda.hpp) have
// the same signatures.
//
// Vector addressing (docs/design.md, "MPI: interior, ghosts and listed couplings"): x of y = A x, and y of
// y = A^T x, are reached through per-diagonal shifts (see default_shift in
// format.hpp). A null shift means the vector holds all ncols columns,
// indexed by global column, as in a sequential matrix.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/scalar.hpp"

#include <algorithm>

namespace pdiag {

namespace detail {
// Rows are processed in chunks so that the chunk of y stays in L1 while
// every diagonal passes over it (diagonal-major inner loops are stride-1).
constexpr Index kRowChunk = 2048;

inline Index clamp_hi(Index row_hi, Index m) { return (row_hi < 0 || row_hi > m) ? m : row_hi; }

/// The coefficients of one diagonal in a group: its stored values a[j], or
/// one constant c (a diagonal stored as a single value).
template <class T>
struct DiagonalValues {
  const T* a;
  DiagonalValues(const T* values = nullptr) : a(values) {}  // implicit: a pointer is the common case
  T operator[](Index j) const { return a[j]; }
};
template <class T>
struct DiagonalConstant {
  T c;
  T operator[](Index) const { return c; }
};
/// The conjugates of a diagonal's stored values (a row of A^H).
template <class T>
struct DiagonalConjugates {
  const T* a;
  DiagonalConjugates(const T* values = nullptr) : a(values) {}
  T operator[](Index j) const { return scalar_conj(a[j]); }
};
/// The coefficients a transpose reads: the values, or for A^H (Conj) their
/// conjugates; for real types both are the values.
template <bool Conj, class T>
using TransposeValues = std::conditional_t<Conj && is_complex_v<T>, DiagonalConjugates<T>, DiagonalValues<T>>;

/// y[j] += sum_g a_g[j] x_g[j], j in [0, n), for up to four diagonals at
/// once: the chunk of y is loaded and stored once per four diagonals. The
/// terms are added to y[j] one at a time, in the order the diagonals were
/// added: a CSR product's order of additions when the offsets ascend.
template <class T, class Coef = DiagonalValues<T>>
class DiagonalGroup {
 public:
  DiagonalGroup(T* y, Index n) : y_(y), n_(n) {}
  void add(Coef a, const T* x) {
    a_[g_] = a;
    x_[g_] = x;
    if (++g_ == 4) flush();
  }
  void flush() {
    T* __restrict y = y_;
    const Index n = n_;
    const Coef a0 = a_[0], a1 = a_[1], a2 = a_[2], a3 = a_[3];
    const T *__restrict x0 = x_[0], *__restrict x1 = x_[1], *__restrict x2 = x_[2], *__restrict x3 = x_[3];
    switch (g_) {
      case 4:
        for (Index j = 0; j < n; ++j) y[j] = (((y[j] + a0[j] * x0[j]) + a1[j] * x1[j]) + a2[j] * x2[j]) + a3[j] * x3[j];
        break;
      case 3:
        for (Index j = 0; j < n; ++j) y[j] = ((y[j] + a0[j] * x0[j]) + a1[j] * x1[j]) + a2[j] * x2[j];
        break;
      case 2:
        for (Index j = 0; j < n; ++j) y[j] = (y[j] + a0[j] * x0[j]) + a1[j] * x1[j];
        break;
      case 1:
        for (Index j = 0; j < n; ++j) y[j] += a0[j] * x0[j];
        break;
      default:
        break;
    }
    g_ = 0;
  }

 private:
  T* y_;
  Index n_;
  int g_ = 0;
  Coef a_[4] = {Coef{}, Coef{}, Coef{}, Coef{}};
  const T* x_[4] = {nullptr, nullptr, nullptr, nullptr};
};

/// y[j] = alpha t[j] + beta z[j] (no z term when z is null or beta is 0),
/// j in [0, n); z may alias y.
template <class T>
inline void combine_chunk(T* y, const T* t, const T* z, Index n, T alpha, T beta) {
  if (z && beta != T(0))
    for (Index j = 0; j < n; ++j) y[j] = alpha * t[j] + beta * z[j];
  else
    for (Index j = 0; j < n; ++j) y[j] = alpha * t[j];
}

template <class T>
inline const Index* hm_shift_or_default(const HmView<const T>& A, const Index* shift, std::vector<Index>& buf) {
  if (shift) return shift;
  buf.resize(static_cast<std::size_t>(A.ndiag));
  for (Index k = 0; k < A.ndiag; ++k) buf[k] = A.layout.row_begin + A.offsets[k];
  return buf.data();
}

// Rows c0 .. c1 (c1 - c0 <= kRowChunk) of (z ? z : 0) + A x into out[0 ..
// c1 - c0), s the diagonals' shifts: hm_spmv's chunk, which the fused
// smoothing step of pdiag/chebyshev.hpp also computes (the same sums).
template <class T>
void hm_spmv_rows(const HmView<const nodeduce_t<T>>& A, const T* x, const Index* s, Index c0, Index c1, const T* z, T* out) {
  const Layout& L = A.layout;
  for (Index il = c0; il < c1; ++il) out[il - c0] = z ? z[il] : T(0);
  // Diagonals covering the whole chunk are applied four at a time (one
  // pass over the chunk per four diagonals); the others, near the block's
  // edges, one at a time over the rows they cover, after the group before
  // them: every row adds its terms by ascending offset, as a CSR product
  // adds a row's entries by ascending column (the same sums, bit for bit:
  // a stored zero adds nothing).
  DiagonalGroup<T> group(out, c1 - c0);
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k];
    const Index b = std::max(c0, L.lo(d) - L.row_begin), e = std::min(c1, L.hi(d) - L.row_begin);
    const Index va = A.start[k] - (L.lo(d) - L.row_begin);  // val[va + il] = a(r0 + il, r0 + il + d)
    const Index xa = s[k];
    if (b == c0 && e == c1)
      group.add(A.val + va + c0, x + xa + c0);
    else {
      group.flush();
      for (Index il = b; il < e; ++il) out[il - c0] += A.val[va + il] * x[xa + il];
    }
  }
  group.flush();
}
}  // namespace detail

/// y[il] = (z ? z[il] : 0) + sum_k a(i, i + d_k) x[il + shift[k]] for local
/// rows il in [row_lo, row_hi) (row_hi < 0: all rows). y may alias z; rows
/// outside the range are not touched. With alpha and beta (CPU only):
/// y[il] = alpha (A x)[il] + beta z[il] (z null or beta 0: no z term, so a
/// NaN in z is not propagated), in the same single pass over y: a
/// Tpetra-style apply Y = beta Y + alpha A X needs no temporary vector.
template <class T>
void hm_spmv(const HmView<const nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z = nullptr, const Index* shift = nullptr,
             Index row_lo = 0, Index row_hi = -1, nodeduce_t<T> alpha = T(1), nodeduce_t<T> beta = T(1)) {
  const Layout& L = A.layout;
  row_hi = detail::clamp_hi(row_hi, L.nrows);
  std::vector<Index> buf;
  const Index* s = detail::hm_shift_or_default(A, shift, buf);
  // alpha = beta = 1: the sum lands in y directly; otherwise in a chunk of
  // scratch (y may alias z, which the final combination still reads).
  const bool plain = alpha == T(1) && beta == T(1);
  std::vector<T> scratch(plain ? 0 : static_cast<std::size_t>(detail::kRowChunk));
  for (Index c0 = row_lo; c0 < row_hi; c0 += detail::kRowChunk) {
    const Index c1 = std::min(row_hi, c0 + detail::kRowChunk);
    T* const out = plain ? y + c0 : scratch.data();  // out[il - c0] accumulates row il
    detail::hm_spmv_rows(A, x, s, c0, c1, plain ? z : nullptr, out);
    if (!plain) detail::combine_chunk(y + c0, out, z ? z + c0 : nullptr, c1 - c0, alpha, beta);
  }
}

/// y = A^T x (+ z): y[p] for p in [0, ny), x over the local rows. Each
/// stored a(i, i + d) adds a(i, i + d) x[il] to y[il + shift[k]]: the
/// transpose is read in place, offsets negated. y may alias z. With a null
/// shift, ny must be ncols. Conj: y = A^H x (+ z), conj(a(i, i + d)) x[il],
/// each output's terms added by ascending row (descending offsets), as a
/// CSR transpose product adds them (PETSc's A^H x of aij: the conjugate of
/// A^T conj(x) by rows, the same sums bit for bit on one process).
template <bool Conj = false, class T>
void hm_spmv_t(const HmView<const nodeduce_t<T>>& A, const T* x, T* y, Index ny, const nodeduce_t<T>* z = nullptr,
               const Index* shift = nullptr) {
  const Layout& L = A.layout;
  std::vector<Index> buf;
  const Index* s = detail::hm_shift_or_default(A, shift, buf);
  // Gather form over chunks of outputs, as hm_spmv over rows: output p takes
  // a(il, il + d) x[il] from row il = p - s[k] of each diagonal.
  for (Index p0 = 0; p0 < ny; p0 += detail::kRowChunk) {
    const Index p1 = std::min(ny, p0 + detail::kRowChunk);
    for (Index p = p0; p < p1; ++p) y[p] = z ? z[p] : T(0);
    detail::DiagonalGroup<T, detail::TransposeValues<Conj, T>> group(y + p0, p1 - p0);
    for (Index kk = 0; kk < A.ndiag; ++kk) {
      const Index k = Conj ? A.ndiag - 1 - kk : kk;
      const Index d = A.offsets[k];
      const Index b = L.lo(d) - L.row_begin, e = L.hi(d) - L.row_begin;  // local rows of diagonal k
      const Index va = A.start[k] - b;                                    // val[va + il]
      const Index q0 = std::max(p0, b + s[k]), q1 = std::min(p1, e + s[k]);
      if (q0 >= q1) continue;
      if (q0 == p0 && q1 == p1)
        group.add(A.val + va + (p0 - s[k]), x + (p0 - s[k]));
      else {
        if (Conj) group.flush();  // the terms before this diagonal's first
        for (Index p = q0; p < q1; ++p) y[p] += maybe_conj<Conj>(A.val[va + p - s[k]]) * x[p - s[k]];
      }
    }
    group.flush();
  }
}

namespace detail {
template <class T>
inline const Index* cdm_shift_or_default(const CdmView<const T>& A, const Index* shift, std::vector<Index>& buf) {
  if (shift) return shift;
  buf.resize(static_cast<std::size_t>(2 * A.ndiag));
  for (Index k = 0; k < A.ndiag; ++k) {
    buf[k] = A.layout.row_begin + A.koffsets[k];
    buf[A.ndiag + k] = A.layout.row_begin + A.koffsets[k] - A.layout.ncols;
  }
  return buf.data();
}
/// Local row where compact diagonal kk wraps (global row N - kk), clamped to [0, m].
template <class L_>
inline Index cdm_wrap_row(const L_& L, Index kk) {
  return std::max<Index>(0, std::min<Index>(L.nrows, L.ncols - kk - L.row_begin));
}
}  // namespace detail

/// CDM y = A x (+ z) over local rows [row_lo, row_hi): y[il] += A_k[il] x[...]
/// with the column (i + kk) mod N; no range checks, only the split at the wrap.
template <class T>
void cdm_spmv(const CdmView<const nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z = nullptr, const Index* shift = nullptr,
              Index row_lo = 0, Index row_hi = -1) {
  const Layout& L = A.layout;
  row_hi = detail::clamp_hi(row_hi, L.nrows);
  std::vector<Index> buf;
  const Index* s = detail::cdm_shift_or_default(A, shift, buf);
  for (Index c0 = row_lo; c0 < row_hi; c0 += detail::kRowChunk) {
    const Index c1 = std::min(row_hi, c0 + detail::kRowChunk);
    for (Index il = c0; il < c1; ++il) y[il] = z ? z[il] : T(0);
    for (Index k = 0; k < A.ndiag; ++k) {
      const Index w = detail::cdm_wrap_row(L, A.koffsets[k]);
      const T* a = A.val + k * L.nrows;
      const Index xs = s[k], xw = s[A.ndiag + k];
      for (Index il = c0; il < std::min(c1, w); ++il) y[il] += a[il] * x[xs + il];
      for (Index il = std::max(c0, w); il < c1; ++il) y[il] += a[il] * x[xw + il];
    }
  }
}

/// CDM y = A^T x (+ z), y of length ny (ncols with a null shift); Conj:
/// y = A^H x (+ z), each output's terms added by ascending row as in
/// hm_spmv_t<true>: the super parts (offsets kk) by descending kk, then
/// the sub parts (kk - N) by descending kk.
template <bool Conj = false, class T>
void cdm_spmv_t(const CdmView<const nodeduce_t<T>>& A, const T* x, T* y, Index ny, const nodeduce_t<T>* z = nullptr,
                const Index* shift = nullptr) {
  const Layout& L = A.layout;
  std::vector<Index> buf;
  const Index* s = detail::cdm_shift_or_default(A, shift, buf);
  for (Index p = 0; p < ny; ++p) y[p] = z ? z[p] : T(0);
  if constexpr (Conj) {
    for (int part = 0; part < 2; ++part)
      for (Index k = A.ndiag - 1; k >= 0; --k) {
        const Index w = detail::cdm_wrap_row(L, A.koffsets[k]);
        const T* a = A.val + k * L.nrows;
        const Index ys = part == 0 ? s[k] : s[A.ndiag + k];
        for (Index il = part == 0 ? 0 : w; il < (part == 0 ? w : L.nrows); ++il) y[ys + il] += scalar_conj(a[il]) * x[il];
      }
  } else {
    for (Index k = 0; k < A.ndiag; ++k) {
      const Index w = detail::cdm_wrap_row(L, A.koffsets[k]);
      const T* a = A.val + k * L.nrows;
      const Index ys = s[k], yw = s[A.ndiag + k];
      for (Index il = 0; il < w; ++il) y[ys + il] += a[il] * x[il];
      for (Index il = w; il < L.nrows; ++il) y[yw + il] += a[il] * x[il];
    }
  }
}

/// out[il] = a(i, i) for the local rows (0 where not stored or i >= ncols).
template <class T>
void hm_get_diagonal(const HmView<const nodeduce_t<T>>& A, T* out) {
  const Layout& L = A.layout;
  for (Index il = 0; il < L.nrows; ++il) out[il] = T(0);
  for (Index k = 0; k < A.ndiag; ++k)
    if (A.offsets[k] == 0)
      for (Index i = L.lo(0); i < L.hi(0); ++i) out[i - L.row_begin] = A.val[A.pos(k, i)];
}

template <class T>
void cdm_get_diagonal(const CdmView<const nodeduce_t<T>>& A, T* out) {
  const Layout& L = A.layout;
  for (Index il = 0; il < L.nrows; ++il) out[il] = T(0);
  for (Index k = 0; k < A.ndiag; ++k)
    if (A.koffsets[k] == 0)
      for (Index il = 0; il < L.nrows; ++il) out[il] = A.val[k * L.nrows + il];
}

/// val[p] *= alpha for p in [0, n).
template <class T>
void scale_values(T* val, Index n, T alpha) {
  for (Index p = 0; p < n; ++p) val[p] *= alpha;
}

/// val[p] = conj(val[p]) for p in [0, n) (nothing to do for real types).
template <class T>
void conjugate_values(T* val, Index n) {
  if constexpr (is_complex_v<T>)
    for (Index p = 0; p < n; ++p) val[p] = scalar_conj(val[p]);
}

/// val[p] = Re val[p] for p in [0, n) (nothing to do for real types).
template <class T>
void real_part_values(T* val, Index n) {
  if constexpr (is_complex_v<T>)
    for (Index p = 0; p < n; ++p) val[p] = T(scalar_real(val[p]));
}

/// val[p] = Im val[p], a real value, for p in [0, n) (zeros for real types).
template <class T>
void imaginary_part_values(T* val, Index n) {
  for (Index p = 0; p < n; ++p) val[p] = T(scalar_imag(val[p]));
}

/// A <- diag(l) A diag(r): l over the local rows, r reached through the
/// column shifts (as x of hm_spmv). Either may be null (no scaling there).
template <class T>
void hm_diagonal_scale(const HmView<T>& A, const nodeduce_t<T>* l, const nodeduce_t<T>* r, const Index* shift = nullptr) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k];
    const Index b = L.lo(d) - L.row_begin, e = L.hi(d) - L.row_begin;
    const Index va = A.start[k] - b;
    const Index s = shift ? shift[k] : L.row_begin + d;
    if (l)
      for (Index il = b; il < e; ++il) A.val[va + il] *= l[il];
    if (r)
      for (Index il = b; il < e; ++il) A.val[va + il] *= r[il + s];
  }
}

template <class T>
void cdm_diagonal_scale(const CdmView<T>& A, const nodeduce_t<T>* l, const nodeduce_t<T>* r, const Index* shift = nullptr) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index kk = A.koffsets[k];
    const Index w = detail::cdm_wrap_row(L, kk);
    T* a = A.val + k * L.nrows;
    const Index ss = shift ? shift[k] : L.row_begin + kk;
    const Index sw = shift ? shift[A.ndiag + k] : L.row_begin + kk - L.ncols;
    if (l)
      for (Index il = 0; il < L.nrows; ++il) a[il] *= l[il];
    if (r) {
      for (Index il = 0; il < w; ++il) a[il] *= r[il + ss];
      for (Index il = w; il < L.nrows; ++il) a[il] *= r[il + sw];
    }
  }
}

/// y[rows[q]] += sign * sum over e in [ptr[q], ptr[q + 1]) of val[pos[e]] *
/// w[cols[e]]: entries listed by row (pdiag::ListedEntries) and read through
/// their positions in a value array, for the couplings that a distributed
/// block's diagonal passes leave out (pdiag/distributed.hpp). The entries
/// are added to y[rows[q]] one by one, in their order (ascending columns),
/// as a CSR product adds a row's entries.
template <class T>
void listed_spmv_add(Index nrows, const Index* rows, const Index* ptr, const Index* pos, const Index* cols,
                     const nodeduce_t<T>* val, const T* w, T* y, nodeduce_t<T> sign = T(1)) {
  for (Index q = 0; q < nrows; ++q) {
    T sum = y[rows[q]];
    for (Index e = ptr[q]; e < ptr[q + 1]; ++e) sum += sign * (val[pos[e]] * w[cols[e]]);
    y[rows[q]] = sum;
  }
}

/// The same with the values in two arrays, as a block keeps them on the
/// host: positions below nbase in val (its diagonals' values), the others
/// at pos - nbase in tail (the values of the entries it keeps in a list,
/// pdiag/remote.hpp), which a device copy holds after val in one array.
template <class T>
void listed_spmv_add(Index nrows, const Index* rows, const Index* ptr, const Index* pos, const Index* cols,
                     const nodeduce_t<T>* val, Index nbase, const nodeduce_t<T>* tail, const T* w, T* y, nodeduce_t<T> sign = T(1)) {
  for (Index q = 0; q < nrows; ++q) {
    T sum = y[rows[q]];
    for (Index e = ptr[q]; e < ptr[q + 1]; ++e) sum += sign * ((pos[e] < nbase ? val[pos[e]] : tail[pos[e] - nbase]) * w[cols[e]]);
    y[rows[q]] = sum;
  }
}

/// w[cols[e]] += val[e] x[rows[q]] for the entries e in [ptr[q], ptr[q + 1])
/// of each listed row q (pdiag::RemoteEntries' arrays, cols mapped to
/// positions of w): the transpose of entries kept in a list, added into the
/// work vector of a distributed block's transpose product (Conj: of the
/// conjugate transpose, conj(val[e]) x[rows[q]]).
template <bool Conj = false, class T>
void listed_spmv_t_add(Index nrows, const Index* rows, const Index* ptr, const Index* cols, const nodeduce_t<T>* val, const T* x, T* w) {
  for (Index q = 0; q < nrows; ++q)
    for (Index e = ptr[q]; e < ptr[q + 1]; ++e) w[cols[e]] += maybe_conj<Conj>(val[e]) * x[rows[q]];
}

/// Rows [row_lo, row_hi) of y = (z ? z : 0) + A x + (the listed entries of
/// these rows) x, each row summed as a distributed CSR product sums it
/// (PETSc's mpiaij: the product of its block of owned columns, then its
/// off-process block's added): the entries in owned columns first, then
/// the others, each part by ascending column, one addition at a time; so
/// the sums are an aij matrix's bit for bit. w holds every column the rows
/// reach (diagonal k's entry of row il at w[il + s[k]]) at positions
/// ascending with the columns, the owned columns at [p0, p1). The listed
/// entries are pdiag::ListedEntries' arrays (nlisted rows, cols are
/// positions of w; values as in listed_spmv_add: pos below nbase in val,
/// the others at pos - nbase in tail); only rows in [row_lo, row_hi) are
/// read. Row by row: for the rows next to other processes, few of a block's
/// rows. y may alias z.
template <class T>
void hm_spmv_rows_owned_first(const HmView<const nodeduce_t<T>>& A, const T* w, const Index* s, Index p0, Index p1, Index row_lo, Index row_hi,
                              const nodeduce_t<T>* z, T* y, Index nlisted, const Index* lrows, const Index* lptr, const Index* lpos,
                              const Index* lcols, const nodeduce_t<T>* val, Index nbase, const nodeduce_t<T>* tail) {
  const Layout& L = A.layout;
  const auto value = [&](Index pos) { return pos < nbase ? val[pos] : tail[pos - nbase]; };
  Index q = static_cast<Index>(std::lower_bound(lrows, lrows + nlisted, row_lo) - lrows);
  for (Index il = row_lo; il < row_hi; ++il) {
    while (q < nlisted && lrows[q] < il) ++q;
    const bool has_listed = q < nlisted && lrows[q] == il;
    const Index e0 = has_listed ? lptr[q] : 0, e1 = has_listed ? lptr[q + 1] : 0;
    T sum = z ? z[il] : T(0);
    for (const bool owned : {true, false}) {
      const auto mine = [&](Index p) { return (p >= p0 && p < p1) == owned; };
      Index e = e0;
      for (Index k = 0; k < A.ndiag; ++k) {
        const Index d = A.offsets[k], b = L.lo(d) - L.row_begin;
        if (il < b || il >= L.hi(d) - L.row_begin) continue;
        const Index p = il + s[k];
        if (!mine(p)) continue;
        for (; e < e1 && lcols[e] < p; ++e)
          if (mine(lcols[e])) sum += value(lpos[e]) * w[lcols[e]];
        sum += A.val[A.start[k] - b + il] * w[p];
      }
      for (; e < e1; ++e)
        if (mine(lcols[e])) sum += value(lpos[e]) * w[lcols[e]];
    }
    y[il] = sum;
  }
}

}  // namespace pdiag
