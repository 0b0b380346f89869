// Matrix-level operations on HM and CDM blocks that the PETSc Mat type needs
// besides products: norms, row access, Dirichlet rows and columns, diagonal
// updates (MatShift, MatDiagonalSet), re-gridding to another diagonal set,
// AXPY, equality, explicit transpose and nonzero counts. The plugin calls
// these and holds no loops over matrix entries of its own.
//
// Every function takes a view V = HmView<T> or CdmView<T> (T const or not;
// functions that write need mutable values) and works on the local block:
// rows [row_begin, row_begin + nrows), global column indices.
//
// Segments. Operations are written once for both schemes over segments: a
// segment is the run of one HM diagonal d inside the block, global rows
// [lo, hi), with a(i, i + d) = val[base + i]. An HM diagonal k is one
// segment (base = start[k] - lo(d)); a CDM compact diagonal kk (stored index
// k) is two, the super part d = kk and the sub part d = kk - N (none for
// kk = 0), both with base = k * nrows - row_begin. The two parts cover every
// local row exactly once, so CDM, like HM, stores no position outside the
// matrix: sums over the whole value array are sums over matrix entries.
//
// Whole-diagonal operations (regrid, axpy, equality) pair the stored
// diagonals of two blocks by key (HM offset, CDM compact offset); in one
// layout, equal keys have value blocks of equal length and row order.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>  // std::abs of complex scalars (PETSc complex builds)
#include <string>
#include <type_traits>
#include <vector>

#include "pdiag/format.hpp"
#include "pdiag/scalar.hpp"

namespace pdiag {

namespace ops_detail {

template <class V>
struct view_traits {
  static constexpr bool is_view = false;
};
template <class T>
struct view_traits<HmView<T>> {
  static constexpr bool is_view = true, is_hm = true;
  using scalar = std::remove_const_t<T>;
  static constexpr bool is_mutable = !std::is_const<T>::value;
};
template <class T>
struct view_traits<CdmView<T>> {
  static constexpr bool is_view = true, is_hm = false;
  using scalar = std::remove_const_t<T>;
  static constexpr bool is_mutable = !std::is_const<T>::value;
};

/// Enables a template for V = HmView<T> or CdmView<T>.
template <class V>
using if_view = std::enable_if_t<view_traits<V>::is_view, int>;
/// Enables a template for two views of the same scheme and scalar type.
template <class A, class B>
using if_same_scheme =
    std::enable_if_t<view_traits<A>::is_view && view_traits<B>::is_view &&
                         view_traits<A>::is_hm == view_traits<B>::is_hm &&
                         std::is_same<typename view_traits<A>::scalar, typename view_traits<B>::scalar>::value,
                     int>;

inline std::string range_str(Index a, Index b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + ")"; }
inline std::string shape_str(const Layout& L) {
  return std::to_string(L.nrows_global) + "x" + std::to_string(L.ncols) + " rows " +
         range_str(L.row_begin, L.row_end());
}

inline void check_local_row(const Layout& L, Index i, const char* what) {
  if (i < L.row_begin || i >= L.row_end())
    throw FormatError(std::string(what) + ": row " + std::to_string(i) + " outside the local rows " +
                      range_str(L.row_begin, L.row_end()));
}
inline void check_column(const Layout& L, Index j, const char* what) {
  if (j < 0 || j >= L.ncols)
    throw FormatError(std::string(what) + ": column " + std::to_string(j) + " outside " + range_str(0, L.ncols));
}

// Stored diagonal k as a whole: its key, its value block and that block's length.
template <class T>
Index key(const HmView<T>& A, Index k) {
  return A.offsets[k];
}
template <class T>
Index key(const CdmView<T>& A, Index k) {
  return A.koffsets[k];
}
template <class T>
T* block(const HmView<T>& A, Index k) {
  return A.val + A.start[k];
}
template <class T>
T* block(const CdmView<T>& A, Index k) {
  return A.val + k * A.layout.nrows;
}
template <class T>
Index block_len(const HmView<T>& A, Index k) {
  return A.start[k + 1] - A.start[k];
}
template <class T>
Index block_len(const CdmView<T>& A, Index) {
  return A.layout.nrows;
}
/// All stored values as one run: [values(A), values(A) + nstored(A)).
template <class T>
T* values(const HmView<T>& A) {
  return A.ndiag > 0 ? A.val + A.start[0] : A.val;
}
template <class T>
T* values(const CdmView<T>& A) {
  return A.val;
}
template <class T>
Index nstored(const HmView<T>& A) {
  return A.ndiag > 0 ? A.start[A.ndiag] - A.start[0] : 0;
}
template <class T>
Index nstored(const CdmView<T>& A) {
  return A.ndiag * A.layout.nrows;
}
inline const char* key_name(bool hm) { return hm ? "diagonal" : "compact diagonal"; }

/// Stored index of the main diagonal, or -1.
template <class T>
Index main_diagonal(const HmView<T>& A) {
  const Index* p = std::lower_bound(A.offsets, A.offsets + A.ndiag, Index(0));
  return (p != A.offsets + A.ndiag && *p == 0) ? Index(p - A.offsets) : Index(-1);
}
template <class T>
Index main_diagonal(const CdmView<T>& A) {
  return (A.ndiag > 0 && A.koffsets[0] == 0) ? 0 : -1;
}

template <class T>
bool all_zero(const T* a, Index n) {
  for (Index p = 0; p < n; ++p)
    if (a[p] != T(0)) return false;
  return true;
}

/// Walks the stored diagonals of A and B in ascending key order: both(ka, kb)
/// for keys stored in both, only_a(ka) and only_b(kb) for the others.
template <class VA, class VB, class Both, class OnlyA, class OnlyB>
void merge_diagonals(const VA& A, const VB& B, Both&& both, OnlyA&& only_a, OnlyB&& only_b) {
  Index ka = 0, kb = 0;
  while (ka < A.ndiag || kb < B.ndiag) {
    if (kb == B.ndiag || (ka < A.ndiag && key(A, ka) < key(B, kb)))
      only_a(ka++);
    else if (ka == A.ndiag || key(B, kb) < key(A, ka))
      only_b(kb++);
    else
      both(ka++, kb++);
  }
}

/// f(j, p) for the stored entries a(i, j) = val[p] of global row i (in the
/// block), columns ascending. HM: the diagonals d in [-i, N - i).
template <class T, class F>
void for_each_in_row(const HmView<T>& A, Index i, F&& f) {
  const Index* e = A.offsets + A.ndiag;
  const Index* b = std::lower_bound(A.offsets, e, -i);
  e = std::lower_bound(b, e, A.layout.ncols - i);
  for (const Index* q = b; q < e; ++q) f(i + *q, A.pos(Index(q - A.offsets), i));
}
/// CDM: every compact diagonal; those with kk >= N - i wrap to columns
/// i + kk - N < i and come first.
template <class T, class F>
void for_each_in_row(const CdmView<T>& A, Index i, F&& f) {
  const Index n = A.layout.ncols, il = i - A.layout.row_begin, m = A.layout.nrows;
  const Index s = Index(std::lower_bound(A.koffsets, A.koffsets + A.ndiag, n - i) - A.koffsets);
  for (Index k = s; k < A.ndiag; ++k) f(i + A.koffsets[k] - n, k * m + il);
  for (Index k = 0; k < s; ++k) f(i + A.koffsets[k], k * m + il);
}

/// f(p) for the stored entries val[p] of column j in the local rows.
/// HM: the diagonals d in (j - row_end, j - row_begin].
template <class T, class F>
void for_each_in_column(const HmView<T>& A, Index j, F&& f) {
  const Index* e = A.offsets + A.ndiag;
  const Index* b = std::lower_bound(A.offsets, e, j - A.layout.row_end() + 1);
  e = std::upper_bound(b, e, j - A.layout.row_begin);
  for (const Index* q = b; q < e; ++q) f(A.pos(Index(q - A.offsets), j - *q));
}
template <class T, class F>
void for_each_in_column(const CdmView<T>& A, Index j, F&& f) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag; ++k) {
    Index i = j - A.koffsets[k];
    if (i < 0) i += L.ncols;
    if (i >= L.row_begin && i < L.row_end()) f(A.pos(k, i));
  }
}

/// Copies B's diagonals into the same-keyed diagonals of A (same layout);
/// diagonals of B missing from A must hold only zeros, else FormatError.
template <class VA, class VB>
void copy_common(const VA& A, const VB& B, const char* what) {
  merge_diagonals(
      A, B, [&](Index ka, Index kb) { std::copy(block(B, kb), block(B, kb) + block_len(B, kb), block(A, ka)); },
      [](Index) {},
      [&](Index kb) {
        if (!all_zero(block(B, kb), block_len(B, kb)))
          throw FormatError(std::string(what) + ": dropped " + key_name(view_traits<VB>::is_hm) + " " +
                            std::to_string(key(B, kb)) + " holds a nonzero");
      });
}

}  // namespace ops_detail

// ---- segments ---------------------------------------------------------------

/// f(k, d, lo, hi, base) for each non-empty HM segment: diagonal k, offset d,
/// global rows [lo, hi) of the block, a(i, i + d) = val[base + i].
template <class T, class F>
void for_each_segment(const HmView<T>& A, F&& f) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index d = A.offsets[k], lo = L.lo(d), hi = L.hi(d);
    if (hi > lo) f(k, d, lo, hi, A.start[k] - lo);
  }
}

/// The same for CDM: per compact diagonal k (offset kk), the super part
/// d = kk then the sub part d = kk - N, each only where non-empty.
template <class T, class F>
void for_each_segment(const CdmView<T>& A, F&& f) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag; ++k) {
    const Index kk = A.koffsets[k], base = k * L.nrows - L.row_begin;
    const Index w = std::max(L.row_begin, std::min(L.row_end(), L.ncols - kk));  // first row of the sub part
    if (w > L.row_begin) f(k, kk, L.row_begin, w, base);
    if (kk != 0 && L.row_end() > w) f(k, kk - L.ncols, w, L.row_end(), base);
  }
}

// ---- norms and counts -------------------------------------------------------

/// out[il] = sum_j |a(i, j)| for the local rows (overwritten). The infinity
/// norm is the max over rows, MPI-reduced by the caller.
template <class V, class R, ops_detail::if_view<V> = 0>
void local_abs_row_sums(const V& A, R* out) {
  const Layout& L = A.layout;
  for (Index il = 0; il < L.nrows; ++il) out[il] = R(0);
  for_each_segment(A, [&](Index, Index, Index lo, Index hi, Index base) {
    const auto* a = A.val + (base + lo);
    R* o = out + (lo - L.row_begin);
    for (Index p = 0; p < hi - lo; ++p) o[p] += R(std::abs(a[p]));
  });
}

/// out[j] += sum_{local i} |a(i, j)| for all ncols columns (accumulated into).
/// The 1-norm is the max over columns after an MPI sum of out.
template <class V, class R, ops_detail::if_view<V> = 0>
void local_abs_col_sums(const V& A, R* out) {
  for_each_segment(A, [&](Index, Index d, Index lo, Index hi, Index base) {
    const auto* a = A.val + (base + lo);
    R* o = out + (lo + d);
    for (Index p = 0; p < hi - lo; ++p) o[p] += R(std::abs(a[p]));
  });
}

/// sum |a(i, j)|^2 over the block's stored entries (Frobenius norm squared,
/// before the MPI sum); for complex values re^2 + im^2, as PETSc sums them.
template <class V, ops_detail::if_view<V> = 0>
double local_sum_squares(const V& A) {
  using T = typename ops_detail::view_traits<V>::scalar;
  const auto* a = ops_detail::values(A);
  const Index n = ops_detail::nstored(A);
  double s = 0;
  for (Index p = 0; p < n; ++p) {
    if constexpr (is_complex_v<T>) {
      const double re = double(a[p].real()), im = double(a[p].imag());
      s += re * re + im * im;
    } else {
      const double x = double(std::abs(a[p]));
      s += x * x;
    }
  }
  return s;
}

/// Number of stored values that are not zero.
template <class V, ops_detail::if_view<V> = 0>
Index count_nonzeros(const V& A) {
  using T = typename ops_detail::view_traits<V>::scalar;
  const auto* a = ops_detail::values(A);
  const Index n = ops_detail::nstored(A);
  Index c = 0;
  for (Index p = 0; p < n; ++p) c += (a[p] != T(0));
  return c;
}

// ---- rows, columns, diagonal ------------------------------------------------

/// The stored entries (i, j) with value v of global row i (in the block)
/// for which keep(i, j, v) holds: cols strictly ascending, vals alongside.
/// Both vectors replaced.
template <class V, class Keep, ops_detail::if_view<V> = 0>
void get_row_if(const V& A, Index i, std::vector<Index>& cols,
                std::vector<typename ops_detail::view_traits<V>::scalar>& vals, Keep&& keep) {
  ops_detail::check_local_row(A.layout, i, "get_row");
  cols.clear();
  vals.clear();
  ops_detail::for_each_in_row(A, i, [&](Index j, Index p) {
    if (!keep(i, j, A.val[p])) return;
    cols.push_back(j);
    vals.push_back(A.val[p]);
  });
}

/// The "inodes" of the local rows as PETSc's seqaij finds them
/// (MatSeqAIJCheckInode): runs of consecutive rows, at most `limit` long,
/// whose entries (those `keep` accepts, as in get_row_if) sit in the same
/// columns; returns the size of each run, in row order. aij's SOR and
/// block-diagonal products work on these runs (block Gauss-Seidel with the
/// runs' diagonal blocks inverted) when they are few enough, so a drop-in
/// for aij must know them. O(stored entries) time, O(ndiag) memory.
template <class V, class Keep, ops_detail::if_view<V> = 0>
std::vector<Index> inode_sizes_if(const V& A, Index limit, Keep&& keep) {
  using T = typename ops_detail::view_traits<V>::scalar;
  std::vector<Index> sizes;
  std::vector<Index> first, cols;
  std::vector<T> vals;
  const Index r0 = A.layout.row_begin, r1 = A.layout.row_begin + A.layout.nrows;
  bool have_first = false;  // first holds row i's columns already (the row that ended the last run)
  for (Index i = r0; i < r1;) {
    if (!have_first) get_row_if(A, i, first, vals, keep);
    have_first = false;
    Index j = i + 1, size = 1;
    for (; j < r1 && size < limit; ++j, ++size) {
      get_row_if(A, j, cols, vals, keep);
      if (cols != first) {
        first.swap(cols);
        have_first = true;
        break;
      }
    }
    sizes.push_back(size);
    i = j;
  }
  return sizes;
}

/// The same runs from a CSR pattern of the rows (rowptr, colidx; columns
/// ascending): for a caller that holds the pattern the rule keeps, which
/// then need not be asked again.
inline std::vector<Index> csr_inode_sizes(const std::vector<Index>& rowptr, const std::vector<Index>& colidx, Index limit) {
  std::vector<Index> sizes;
  const Index m = Index(rowptr.size()) - 1;
  const auto same_columns = [&](Index a, Index b) {
    return rowptr[a + 1] - rowptr[a] == rowptr[b + 1] - rowptr[b] && std::equal(colidx.begin() + rowptr[a], colidx.begin() + rowptr[a + 1], colidx.begin() + rowptr[b]);
  };
  for (Index i = 0; i < m;) {
    Index j = i + 1, size = 1;
    for (; j < m && size < limit; ++j, ++size)
      if (!same_columns(i, j)) break;
    sizes.push_back(size);
    i = j;
  }
  return sizes;
}

/// All stored entries of global row i, stored zeros included.
template <class V, ops_detail::if_view<V> = 0>
void get_row(const V& A, Index i, std::vector<Index>& cols,
             std::vector<typename ops_detail::view_traits<V>::scalar>& vals) {
  get_row_if(A, i, cols, vals, [](Index, Index, const auto&) { return true; });
}

/// Zeroes every stored entry of the listed global rows (all must be local,
/// else FormatError before anything changes; repeats allowed), then sets
/// a(i, i) = diag where the main diagonal is stored (CDM: compact diagonal 0)
/// and i < ncols. missing_diag is set to whether diag != 0 and some listed
/// row i < ncols has no stored a(i, i): the caller then grows the structure
/// (regrid with offset 0) and calls again.
template <class V, ops_detail::if_view<V> = 0>
void zero_rows(const V& A, const Index* rows, Index nlist, typename ops_detail::view_traits<V>::scalar diag,
               bool& missing_diag) {
  using T = typename ops_detail::view_traits<V>::scalar;
  static_assert(ops_detail::view_traits<V>::is_mutable, "zero_rows needs a view of mutable values");
  for (Index r = 0; r < nlist; ++r) ops_detail::check_local_row(A.layout, rows[r], "zero_rows");
  const bool has_main = ops_detail::main_diagonal(A) >= 0;
  missing_diag = false;
  for (Index r = 0; r < nlist; ++r) {
    const Index i = rows[r];
    ops_detail::for_each_in_row(A, i, [&](Index j, Index p) { A.val[p] = (j == i) ? diag : T(0); });
    if (!has_main && diag != T(0) && i < A.layout.ncols) missing_diag = true;
  }
}

/// Zeroes every stored entry of the listed global columns within the local
/// rows (columns in [0, ncols), else FormatError before anything changes).
template <class V, ops_detail::if_view<V> = 0>
void zero_columns(const V& A, const Index* cols, Index nlist) {
  using T = typename ops_detail::view_traits<V>::scalar;
  static_assert(ops_detail::view_traits<V>::is_mutable, "zero_columns needs a view of mutable values");
  for (Index c = 0; c < nlist; ++c) ops_detail::check_column(A.layout, cols[c], "zero_columns");
  for (Index c = 0; c < nlist; ++c) ops_detail::for_each_in_column(A, cols[c], [&](Index p) { A.val[p] = T(0); });
}

/// For local rows with i < ncols: a(i, i) = t (insert) or a(i, i) += t,
/// t = alpha * v[il] (v over the local rows) or t = alpha when v is null.
/// MatShift: (nullptr, alpha, false); MatDiagonalSet: (v, 1, insert).
/// Throws FormatError("main diagonal not stored") when such rows exist but
/// the main diagonal (CDM: compact diagonal 0) is not stored.
template <class V, ops_detail::if_view<V> = 0>
void add_to_diagonal(const V& A, const typename ops_detail::view_traits<V>::scalar* v,
                     typename ops_detail::view_traits<V>::scalar alpha, bool insert) {
  static_assert(ops_detail::view_traits<V>::is_mutable, "add_to_diagonal needs a view of mutable values");
  const Layout& L = A.layout;
  const Index lo = L.lo(0), hi = L.hi(0);  // rows with a(i, i) in the matrix
  if (hi <= lo) return;
  const Index k = ops_detail::main_diagonal(A);
  if (k < 0) throw FormatError("main diagonal not stored");
  auto* a = A.val + A.pos(k, lo);
  const Index n = hi - lo;
  if (v) {
    const auto* w = v + (lo - L.row_begin);
    if (insert)
      for (Index p = 0; p < n; ++p) a[p] = alpha * w[p];
    else
      for (Index p = 0; p < n; ++p) a[p] += alpha * w[p];
  } else if (insert) {
    for (Index p = 0; p < n; ++p) a[p] = alpha;
  } else {
    for (Index p = 0; p < n; ++p) a[p] += alpha;
  }
}

// ---- whole diagonals --------------------------------------------------------

/// The same block stored on the diagonals new_offsets (any set; sorted and
/// deduplicated here): values copied where a diagonal is in both, zeros on
/// new ones. FormatError if a dropped diagonal holds a nonzero or an offset
/// is outside the matrix.
template <class T>
HmMatrix<T> hm_regrid(const HmMatrix<T>& A, const std::vector<Index>& new_offsets) {
  HmMatrix<T> B(A.layout, new_offsets);
  ops_detail::copy_common(B.view(), A.view(), "hm_regrid");
  return B;
}

/// The same for CDM, on the compact diagonals new_koffsets (in [0, N)).
template <class T>
CdmMatrix<T> cdm_regrid(const CdmMatrix<T>& A, const std::vector<Index>& new_koffsets) {
  CdmMatrix<T> B(A.layout, new_koffsets);
  ops_detail::copy_common(B.view(), A.view(), "cdm_regrid");
  return B;
}

/// Y += a X for two blocks of one scheme and layout; diagonals are matched by
/// key (HM offset, CDM compact offset). FormatError, with Y unchanged, if the
/// layouts differ or (a != 0) a diagonal of X missing from Y holds a nonzero.
template <class VY, class VX, ops_detail::if_same_scheme<VY, VX> = 0>
void axpy(const VY& Y, typename ops_detail::view_traits<VY>::scalar a, const VX& X) {
  using T = typename ops_detail::view_traits<VY>::scalar;
  namespace od = ops_detail;
  static_assert(od::view_traits<VY>::is_mutable, "axpy needs Y with mutable values");
  if (!(Y.layout == X.layout))
    throw FormatError("axpy: layouts differ: Y is " + od::shape_str(Y.layout) + ", X is " + od::shape_str(X.layout));
  if (a == T(0)) return;
  auto none = [](Index) {};
  od::merge_diagonals(
      Y, X, [](Index, Index) {}, none,
      [&](Index kx) {
        if (!od::all_zero(od::block(X, kx), od::block_len(X, kx)))
          throw FormatError(std::string("axpy: ") + od::key_name(od::view_traits<VY>::is_hm) + " " +
                            std::to_string(od::key(X, kx)) + " of X holds a nonzero but is not stored in Y");
      });
  od::merge_diagonals(
      Y, X,
      [&](Index ky, Index kx) {
        T* y = od::block(Y, ky);
        const T* x = od::block(X, kx);
        const Index n = od::block_len(X, kx);
        for (Index p = 0; p < n; ++p) y[p] += a * x[p];
      },
      none, none);
}

/// Whether two blocks of one scheme are equal entry by entry: same layout,
/// equal values on common diagonals, zeros on diagonals stored in only one.
template <class VA, class VB, ops_detail::if_same_scheme<VA, VB> = 0>
bool values_equal(const VA& A, const VB& B) {
  namespace od = ops_detail;
  if (!(A.layout == B.layout)) return false;
  bool eq = true;
  od::merge_diagonals(
      A, B,
      [&](Index ka, Index kb) {
        if (eq) eq = std::equal(od::block(A, ka), od::block(A, ka) + od::block_len(A, ka), od::block(B, kb));
      },
      [&](Index ka) { eq = eq && od::all_zero(od::block(A, ka), od::block_len(A, ka)); },
      [&](Index kb) { eq = eq && od::all_zero(od::block(B, kb), od::block_len(B, kb)); });
  return eq;
}

/// The same for an HM block and a CDM block (square layouts).
template <class TA, class TB>
bool values_equal(const HmView<TA>& A, const CdmView<TB>& B) {
  static_assert(std::is_same<std::remove_const_t<TA>, std::remove_const_t<TB>>::value, "scalar types differ");
  if (!(A.layout == B.layout)) return false;
  const Index n = A.layout.ncols;
  bool eq = true;
  // Each HM segment against the CDM entries at its positions (zeros when
  // its compact diagonal is not stored)...
  for_each_segment(A, [&](Index, Index d, Index lo, Index hi, Index base) {
    if (!eq) return;
    const Index kk = d < 0 ? d + n : d;
    const Index* q = std::lower_bound(B.koffsets, B.koffsets + B.ndiag, kk);
    if (q == B.koffsets + B.ndiag || *q != kk)
      eq = ops_detail::all_zero(A.val + (base + lo), hi - lo);
    else
      eq = std::equal(A.val + (base + lo), A.val + (base + hi), B.val + B.pos(Index(q - B.koffsets), lo));
  });
  // ...and each CDM segment on a diagonal HM does not store must be zero.
  for_each_segment(B, [&](Index, Index d, Index lo, Index hi, Index base) {
    if (eq && !std::binary_search(A.offsets, A.offsets + A.ndiag, d))
      eq = ops_detail::all_zero(B.val + (base + lo), hi - lo);
  });
  return eq;
}
template <class TA, class TB>
bool values_equal(const CdmView<TA>& A, const HmView<TB>& B) {
  return values_equal(B, A);
}

// ---- explicit transpose -----------------------------------------------------

/// HM storage of A^T for a full matrix A (all rows): offsets negated and
/// reversed, layout transposed, each diagonal's value block moved as a whole
/// (its entry order is unchanged: (A^T)(i, i - d) = a(i - d, i) runs over
/// the same rows i - d in [lo(d), hi(d))).
template <class T>
HmMatrix<T> transpose_hm(const HmMatrix<T>& A) {
  if (!A.layout.is_full())
    throw FormatError("transpose_hm: the block " + ops_detail::shape_str(A.layout) + " is not the whole matrix");
  const Index nd = A.ndiag();
  std::vector<Index> neg(static_cast<std::size_t>(nd));
  for (Index k = 0; k < nd; ++k) neg[k] = -A.offsets[nd - 1 - k];
  HmMatrix<T> B(A.layout.transposed(), std::move(neg));
  for (Index k = 0; k < nd; ++k) {
    const Index kb = nd - 1 - k;
    if (B.start[kb + 1] - B.start[kb] != A.start[k + 1] - A.start[k])
      throw FormatError("transpose_hm: inconsistent storage of diagonal " + std::to_string(A.offsets[k]));
    std::copy(A.val.begin() + A.start[k], A.val.begin() + A.start[k + 1], B.val.begin() + B.start[kb]);
  }
  return B;
}

/// CDM storage of A^T for a full square A: compact diagonal k of A^T is A's
/// compact diagonal (N - k) mod N rotated, (A^T)_k[i] = A_{(N-k) mod N}[(i + k) mod N].
template <class T>
CdmMatrix<T> transpose_cdm(const CdmMatrix<T>& A) {
  if (!A.layout.is_full())
    throw FormatError("transpose_cdm: the block " + ops_detail::shape_str(A.layout) + " is not the whole matrix");
  const Index n = A.layout.ncols;
  std::vector<Index> kt(A.koffsets.size());
  for (std::size_t q = 0; q < kt.size(); ++q) kt[q] = A.koffsets[q] == 0 ? 0 : n - A.koffsets[q];
  CdmMatrix<T> B(A.layout, std::move(kt));
  for (Index kb = 0; kb < B.ndiag(); ++kb) {
    const Index k = B.koffsets[kb];
    const Index ka = A.find_diagonal(k == 0 ? 0 : n - k);
    const auto src = A.val.begin() + ka * n;
    const auto dst = B.val.begin() + kb * n;
    std::copy(src + k, src + n, dst);      // i in [0, n - k): source row i + k
    std::copy(src, src + k, dst + n - k);  // i in [n - k, n): source row i + k - n
  }
  return B;
}

// ---- vectors on a list of rows (MatZeroRows with x and b) -------------------

/// dst[rows[r]] = alpha * src[rows[r]] for the listed (local) indices.
template <class T>
void set_scaled_entries(T* dst, const T* src, const Index* rows, Index nlist, T alpha) {
  for (Index r = 0; r < nlist; ++r) dst[rows[r]] = alpha * src[rows[r]];
}

}  // namespace pdiag
