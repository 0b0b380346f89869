// Storage schemes by diagonals: HM (diagonal storage) and CDM (compact
// diagonal storage), as in Haque, Parvez, Hossain (Algorithms 17(1):31, 2024)
// and docs/kernels.md. No PETSc here: plain arrays, sizes and offsets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define PDIAG_HD __host__ __device__ __forceinline__
#else
#define PDIAG_HD inline
#endif

namespace pdiag {

/// Row, column, offset and position index. 64-bit so that value arrays of
/// more than 2^31 entries (products of wide bands) index safely.
using Index = std::int64_t;

/// Blocks template argument deduction: kernels deduce the scalar type from
/// their vector arguments, so views of T and of const T, and nullptr for an
/// optional vector, are all accepted.
template <class T>
using nodeduce_t = typename std::enable_if<true, T>::type;

/// Thrown for inputs a caller must not pass (wrong sizes, indices out of
/// range, too many diagonals). The PETSc plugin turns it into a PETSc error.
struct FormatError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Which rows of which matrix a block holds: rows [row_begin, row_begin +
/// nrows) of an nrows_global x ncols matrix. Sequential matrices have
/// row_begin = 0 and nrows = nrows_global; an MPI rank holds one block.
struct Layout {
  Index nrows_global = 0;
  Index ncols = 0;
  Index row_begin = 0;
  Index nrows = 0;

  static Layout square(Index n) { return Layout{n, n, 0, n}; }
  static Layout rect(Index m, Index n) { return Layout{m, n, 0, m}; }
  static Layout block(Index m_global, Index n, Index r0, Index m) { return Layout{m_global, n, r0, m}; }

  PDIAG_HD Index row_end() const { return row_begin + nrows; }
  /// First global row of diagonal d inside this block: max(r0, -d).
  PDIAG_HD Index lo(Index d) const { return row_begin > -d ? row_begin : -d; }
  /// One past the last global row of diagonal d inside this block: min(r0+m, N-d).
  PDIAG_HD Index hi(Index d) const { return row_end() < ncols - d ? row_end() : ncols - d; }
  /// Number of entries of diagonal d inside this block (0 if it misses it).
  PDIAG_HD Index length(Index d) const { return hi(d) > lo(d) ? hi(d) - lo(d) : 0; }
  /// Offsets a matrix of this shape can have: -(M-1) <= d <= N-1.
  PDIAG_HD bool valid_offset(Index d) const { return d > -nrows_global && d < ncols; }
  bool is_full() const { return row_begin == 0 && nrows == nrows_global; }
  bool is_square() const { return nrows_global == ncols; }
  /// The layout of the transpose of a full matrix.
  Layout transposed() const { return Layout::rect(ncols, nrows_global); }
};

inline bool operator==(const Layout& a, const Layout& b) {
  return a.nrows_global == b.nrows_global && a.ncols == b.ncols && a.row_begin == b.row_begin && a.nrows == b.nrows;
}

/// Checks a layout; throws FormatError naming the problem.
inline void check_layout(const Layout& L) {
  if (L.nrows_global < 0 || L.ncols < 0 || L.nrows < 0 || L.row_begin < 0)
    throw FormatError("negative size in layout");
  if (L.row_begin + L.nrows > L.nrows_global) throw FormatError("row block extends past the last row");
}

/// Non-owning view of an HM block, usable on host and device (raw pointers).
/// Diagonal k has offset offsets[k] and its entries, one per row in
/// [lo(d), hi(d)), at val[start[k] + i - lo(d)].
template <class T>
struct HmView {
  Layout layout;
  Index ndiag = 0;
  const Index* offsets = nullptr;
  const Index* start = nullptr;
  T* val = nullptr;

  /// Position in val of a(i, i + offsets[k]) for a global row i in range.
  PDIAG_HD Index pos(Index k, Index i) const { return start[k] + i - layout.lo(offsets[k]); }
  /// A view of mutable values reads as a view of const values.
  template <class U = T, class = std::enable_if_t<!std::is_const<U>::value>>
  operator HmView<const U>() const {
    return {layout, ndiag, offsets, start, val};
  }
};

/// Non-owning view of a CDM block (square N x N matrix, local rows only).
/// Compact diagonal k holds A_k[i] = a(i, (i + koffsets[k]) mod N) for the
/// local rows, at val[k * nrows + (i - row_begin)].
template <class T>
struct CdmView {
  Layout layout;
  Index ndiag = 0;
  const Index* koffsets = nullptr;
  T* val = nullptr;

  PDIAG_HD Index pos(Index k, Index i) const { return k * layout.nrows + (i - layout.row_begin); }
  template <class U = T, class = std::enable_if_t<!std::is_const<U>::value>>
  operator CdmView<const U>() const {
    return {layout, ndiag, koffsets, val};
  }
  /// Column of the entry of compact diagonal with offset kk in global row i.
  PDIAG_HD Index col(Index kk, Index i) const {
    Index j = i + kk;
    return j >= layout.ncols ? j - layout.ncols : j;
  }
};

/// HM storage (owning). Offsets ascending and unique; start has ndiag+1
/// entries with start[k+1] - start[k] == layout.length(offsets[k]).
template <class T>
struct HmMatrix {
  Layout layout;
  std::vector<Index> offsets;
  std::vector<Index> start{0};
  std::vector<T> val;

  HmMatrix() = default;
  /// All-zero matrix with the given diagonals (sorted and deduplicated here).
  HmMatrix(const Layout& L, std::vector<Index> diags) : HmMatrix(L, std::move(diags), false) {
    val.assign(static_cast<std::size_t>(start.back()), T(0));
  }
  /// The same structure with val left empty (nstored() still counts the
  /// entries): for a block whose values live elsewhere, e.g. on a device,
  /// until they are needed here.
  static HmMatrix structure_only(const Layout& L, std::vector<Index> diags) { return HmMatrix(L, std::move(diags), false); }

 private:
  HmMatrix(const Layout& L, std::vector<Index> diags, bool) : layout(L), offsets(std::move(diags)) {
    check_layout(L);
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    start.assign(offsets.size() + 1, 0);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      if (!L.valid_offset(offsets[k]))
        throw FormatError("diagonal offset " + std::to_string(offsets[k]) + " outside (-" +
                          std::to_string(L.nrows_global) + ", " + std::to_string(L.ncols) + ")");
      start[k + 1] = start[k] + L.length(offsets[k]);
    }
  }

 public:
  Index ndiag() const { return static_cast<Index>(offsets.size()); }
  Index nstored() const { return start.back(); }
  /// Index k of diagonal d, or -1 when it is not stored.
  Index find_diagonal(Index d) const {
    auto it = std::lower_bound(offsets.begin(), offsets.end(), d);
    return (it != offsets.end() && *it == d) ? Index(it - offsets.begin()) : Index(-1);
  }
  /// Pointer to a(i, j) if stored, else nullptr (i global row of this block).
  T* find(Index i, Index j) {
    if (i < layout.row_begin || i >= layout.row_end() || j < 0 || j >= layout.ncols) return nullptr;
    Index k = find_diagonal(j - i);
    return k < 0 ? nullptr : &val[static_cast<std::size_t>(view().pos(k, i))];
  }
  const T* find(Index i, Index j) const { return const_cast<HmMatrix*>(this)->find(i, j); }

  HmView<const T> view() const { return {layout, ndiag(), offsets.data(), start.data(), val.data()}; }
  HmView<T> view() { return {layout, ndiag(), offsets.data(), start.data(), val.data()}; }
};

/// CDM storage (owning). The matrix is N x N (nrows_global == ncols == N);
/// koffsets ascending and unique in [0, N); val has ndiag * nrows entries.
template <class T>
struct CdmMatrix {
  Layout layout;
  std::vector<Index> koffsets;
  std::vector<T> val;

  CdmMatrix() = default;
  /// All-zero matrix with the given compact diagonals (sorted, deduplicated).
  CdmMatrix(const Layout& L, std::vector<Index> kdiags) : layout(L), koffsets(std::move(kdiags)) {
    check_layout(L);
    if (!L.is_square()) throw FormatError("CDM storage needs a square matrix");
    std::sort(koffsets.begin(), koffsets.end());
    koffsets.erase(std::unique(koffsets.begin(), koffsets.end()), koffsets.end());
    for (Index k : koffsets)
      if (k < 0 || k >= L.ncols) throw FormatError("compact diagonal " + std::to_string(k) + " outside [0, N)");
    val.assign(static_cast<std::size_t>(ndiag() * L.nrows), T(0));
  }

  Index ndiag() const { return static_cast<Index>(koffsets.size()); }
  Index nstored() const { return ndiag() * layout.nrows; }
  Index find_diagonal(Index kk) const {
    auto it = std::lower_bound(koffsets.begin(), koffsets.end(), kk);
    return (it != koffsets.end() && *it == kk) ? Index(it - koffsets.begin()) : Index(-1);
  }
  T* find(Index i, Index j) {
    if (i < layout.row_begin || i >= layout.row_end() || j < 0 || j >= layout.ncols) return nullptr;
    Index kk = j - i;
    if (kk < 0) kk += layout.ncols;
    Index k = find_diagonal(kk);
    return k < 0 ? nullptr : &val[static_cast<std::size_t>(view().pos(k, i))];
  }
  const T* find(Index i, Index j) const { return const_cast<CdmMatrix*>(this)->find(i, j); }

  CdmView<const T> view() const { return {layout, ndiag(), koffsets.data(), val.data()}; }
  CdmView<T> view() { return {layout, ndiag(), koffsets.data(), val.data()}; }
};

/// What a structure would take before it is allocated: its number of
/// diagonals and of stored entries. Memory budgets are checked against it
/// first, so that a refusal costs no allocation of values.
struct StorageCount {
  Index ndiag = 0;
  Index nstored = 0;
};

/// The count of HM storage with these diagonal offsets (any order,
/// duplicates counted once, offsets outside the matrix or missing this
/// block of rows skipped). O(n log n) in the number of offsets.
inline StorageCount hm_count(const Layout& L, std::vector<Index> offsets) {
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  StorageCount c;
  for (Index d : offsets) {
    if (!L.valid_offset(d)) continue;
    c.ndiag++;
    c.nstored += L.length(d);
  }
  return c;
}

/// The count of CDM storage holding these HM offsets (d and d - N share a
/// compact diagonal of nrows entries). Square layouts only.
inline StorageCount cdm_count(const Layout& L, std::vector<Index> offsets) {
  for (Index& d : offsets) d = d < 0 ? d + L.ncols : d;
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  StorageCount c;
  c.ndiag = static_cast<Index>(offsets.size());
  c.nstored = c.ndiag * L.nrows;
  return c;
}

/// Where the vector entries a diagonal touches live, for products with a
/// vector (x of y = A x, y of y = A^T x). The vector index of (local row il,
/// diagonal k) is il + shift[k]. For HM, shift has ndiag entries; the
/// default (x indexed by global column) is shift[k] = row_begin + offsets[k].
/// For CDM, shift has 2*ndiag entries: shift[k] for the rows above the wrap
/// (i + kk < N, the super diagonal kk) and shift[ndiag + k] for those below
/// it (the sub diagonal kk - N); the default is row_begin + kk and
/// row_begin + kk - N. Under MPI the plugin maps the columns a block touches
/// into a compact ghost vector and passes its own shifts.
inline std::vector<Index> default_shift(const Layout& L, const std::vector<Index>& offsets) {
  std::vector<Index> s(offsets.size());
  for (std::size_t k = 0; k < offsets.size(); ++k) s[k] = L.row_begin + offsets[k];
  return s;
}
inline std::vector<Index> default_cdm_shift(const Layout& L, const std::vector<Index>& koffsets) {
  const std::size_t nd = koffsets.size();
  std::vector<Index> s(2 * nd);
  for (std::size_t k = 0; k < nd; ++k) {
    s[k] = L.row_begin + koffsets[k];
    s[nd + k] = L.row_begin + koffsets[k] - L.ncols;
  }
  return s;
}

}  // namespace pdiag
