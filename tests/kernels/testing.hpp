// Shared test fixtures: random diagonal matrices from COO triplets (or
// filled directly), their dense reference and dense copies of HM / CDM
// blocks, offset-set generators and error norms.
#pragma once

#include "pdiag/convert.hpp"
#include "pdiag/format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace pdiag::testing {

/// Dense row-major copy of a block: rows are the block's local rows.
struct Dense {
  Index rows = 0, cols = 0;
  std::vector<double> a;
  Dense() = default;
  Dense(Index m, Index n) : rows(m), cols(n), a(static_cast<std::size_t>(m * n), 0.0) {}
  double& operator()(Index i, Index j) { return a[static_cast<std::size_t>(i * cols + j)]; }
  double operator()(Index i, Index j) const { return a[static_cast<std::size_t>(i * cols + j)]; }
};

/// Random COO entries on the given diagonals of a block, each in-range
/// position present with probability `density`, plus some duplicates (to
/// test summing); `dense` gets the summed values (local rows).
struct RandomBlock {
  Layout layout;
  std::vector<Index> offsets;  // the diagonals that received entries
  std::vector<Index> rows, cols;
  std::vector<double> vals;
  Dense dense;
};

inline RandomBlock random_block(const Layout& L, const std::vector<Index>& offsets, std::mt19937_64& rng,
                                double density = 1.0, bool shuffle = true) {
  RandomBlock b;
  b.layout = L;
  b.dense = Dense(L.nrows, L.ncols);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (Index d : offsets) {
    bool any = false;
    for (Index i = L.lo(d); i < L.hi(d); ++i) {
      if (coin(rng) > density && !(i == L.lo(d) && !any && i + 1 == L.hi(d))) continue;
      const double v = val(rng);
      b.rows.push_back(i);
      b.cols.push_back(i + d);
      b.vals.push_back(v);
      b.dense(i - L.row_begin, i + d) += v;
      any = true;
      if (coin(rng) < 0.05) {  // a duplicate, summed by the conversion
        const double w = val(rng);
        b.rows.push_back(i);
        b.cols.push_back(i + d);
        b.vals.push_back(w);
        b.dense(i - L.row_begin, i + d) += w;
      }
    }
    if (any) b.offsets.push_back(d);
  }
  if (shuffle) {
    std::vector<std::size_t> perm(b.rows.size());
    for (std::size_t p = 0; p < perm.size(); ++p) perm[p] = p;
    std::shuffle(perm.begin(), perm.end(), rng);
    RandomBlock s = b;
    for (std::size_t p = 0; p < perm.size(); ++p) {
      s.rows[p] = b.rows[perm[p]];
      s.cols[p] = b.cols[perm[p]];
      s.vals[p] = b.vals[perm[p]];
    }
    b.rows.swap(s.rows);
    b.cols.swap(s.cols);
    b.vals.swap(s.vals);
  }
  std::sort(b.offsets.begin(), b.offsets.end());
  return b;
}

inline HmMatrix<double> to_hm(const RandomBlock& b) {
  return hm_from_coo<double>(b.layout, Index(b.vals.size()), b.rows.data(), b.cols.data(), b.vals.data());
}

/// A named set of diagonal offsets for a rows x cols matrix.
struct OffsetCase {
  std::string name;
  std::vector<Index> offsets;
};

/// The offset sets every kernel is tested on: none, main only, the far
/// corners +-(n-1), full dense (all 2n-1), a band, and random sets.
inline std::vector<OffsetCase> offset_cases(Index m, Index n, std::mt19937_64& rng) {
  std::vector<OffsetCase> cs;
  cs.push_back({"empty", {}});
  if (std::min(m, n) > 0) cs.push_back({"main", {0}});
  std::vector<Index> far;
  if (n > 1) far.push_back(n - 1);
  if (m > 1) far.push_back(-(m - 1));
  if (!far.empty()) cs.push_back({"far", far});
  std::vector<Index> full;
  for (Index d = -(m - 1); d <= n - 1; ++d) full.push_back(d);
  if (!full.empty() && m * n <= 1000 * 1000 / 8) cs.push_back({"dense", full});
  std::vector<Index> band;
  for (Index d = -3; d <= 2; ++d)
    if (d > -m && d < n) band.push_back(d);
  if (!band.empty()) cs.push_back({"band", band});
  for (int t = 0; t < 2 && m > 0 && n > 0; ++t) {
    // paper style: offsets uniform within +-max(n/4, 1), a few far ones too
    std::vector<Index> r;
    const Index w = std::max<Index>(1, std::min(m, n) / 4);
    std::uniform_int_distribution<Index> u(-w, w), any(-(m - 1), n - 1);
    const int count = 1 + int(rng() % 8);
    for (int c = 0; c < count; ++c) r.push_back(u(rng));
    r.push_back(any(rng));
    for (Index& d : r) d = std::max(-(m - 1), std::min(n - 1, d));
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    cs.push_back({"random" + std::to_string(t), r});
  }
  return cs;
}

/// The sizes of the foundation issue.
inline std::vector<Index> test_sizes() { return {1, 2, 3, 4, 17, 64, 1000}; }

/// Row blocks of an n-row matrix tested besides the whole: the first, a
/// middle and the last part, and an empty block.
inline std::vector<Layout> row_blocks(Index m_global, Index n) {
  std::vector<Layout> ls{Layout::rect(m_global, n)};
  if (m_global >= 3) {
    ls.push_back(Layout::block(m_global, n, 0, m_global / 3));
    ls.push_back(Layout::block(m_global, n, m_global / 3, m_global / 2 - m_global / 3 + 1));
    ls.push_back(Layout::block(m_global, n, m_global - m_global / 4 - 1, m_global / 4 + 1));
  }
  ls.push_back(Layout::block(m_global, n, m_global / 2, 0));
  return ls;
}

inline std::vector<double> random_vector(Index n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

/// ||a - b||_2 / ||b||_2 (absolute when b is zero).
inline double rel_err(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t p = 0; p < a.size(); ++p) {
    num += (a[p] - b[p]) * (a[p] - b[p]);
    den += b[p] * b[p];
  }
  if (a.size() != b.size()) return INFINITY;
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// rel_err of float vectors, summed in double.
inline double rel_err(const std::vector<float>& a, const std::vector<float>& b) {
  return rel_err(std::vector<double>(a.begin(), a.end()), std::vector<double>(b.begin(), b.end()));
}

/// ||v||_2, summed in double.
template <class T>
double norm2(const std::vector<T>& v) {
  double s = 0;
  for (T e : v) s += double(e) * double(e);
  return std::sqrt(s);
}

/// max |a - b| / max |b| (the max-norm relative difference).
inline double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / std::max(den, 1e-300);
}

/// y = A x with the dense reference (local rows).
inline std::vector<double> dense_mv(const Dense& A, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(A.rows), 0.0);
  for (Index i = 0; i < A.rows; ++i)
    for (Index j = 0; j < A.cols; ++j) y[i] += A(i, j) * x[j];
  return y;
}
/// y = A^T x with the dense reference (x over the local rows, y over all columns).
inline std::vector<double> dense_mtv(const Dense& A, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(A.cols), 0.0);
  for (Index i = 0; i < A.rows; ++i)
    for (Index j = 0; j < A.cols; ++j) y[j] += A(i, j) * x[i];
  return y;
}
/// C = op(A) op(B) with dense references.
inline Dense dense_mm(const Dense& A, bool ta, const Dense& B, bool tb) {
  const Index m = ta ? A.cols : A.rows, k = ta ? A.rows : A.cols, n = tb ? B.rows : B.cols;
  Dense C(m, n);
  for (Index i = 0; i < m; ++i)
    for (Index l = 0; l < k; ++l) {
      const double a = ta ? A(l, i) : A(i, l);
      if (a == 0.0) continue;
      for (Index j = 0; j < n; ++j) C(i, j) += a * (tb ? B(j, l) : B(l, j));
    }
  return C;
}

/// Dense copies (local rows) of HM and CDM blocks.
inline Dense to_dense(const HmMatrix<double>& A) {
  const Layout& L = A.layout;
  Dense D(L.nrows, L.ncols);
  const auto v = A.view();
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) D(i - L.row_begin, i + d) = A.val[std::size_t(v.pos(k, i))];
  }
  return D;
}
inline Dense to_dense(const CdmMatrix<double>& A) {
  const Layout& L = A.layout;
  Dense D(L.nrows, L.ncols);
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index il = 0; il < L.nrows; ++il)
      D(il, (L.row_begin + il + A.koffsets[k]) % L.ncols) = A.val[std::size_t(k * L.nrows + il)];
  return D;
}

/// Rows [r0, r0 + m) of a dense matrix.
inline Dense rows_of(const Dense& D, Index r0, Index m) {
  Dense R(m, D.cols);
  for (Index i = 0; i < m; ++i)
    for (Index j = 0; j < D.cols; ++j) R(i, j) = D(r0 + i, j);
  return R;
}

/// The block Lb of a full random matrix, keeping all of its diagonals (even
/// those that miss the block).
inline HmMatrix<double> hm_block(const RandomBlock& full, const Layout& Lb) {
  HmMatrix<double> H(Lb, full.offsets);
  for (std::size_t e = 0; e < full.vals.size(); ++e)
    if (full.rows[e] >= Lb.row_begin && full.rows[e] < Lb.row_end()) *H.find(full.rows[e], full.cols[e]) += full.vals[e];
  return H;
}

/// Rows of B that the entries of an HM block reach: [c0, c1) (c0 = c1 = 0 if none).
inline void reach(const HmMatrix<double>& A, Index& c0, Index& c1) {
  c0 = std::numeric_limits<Index>::max();
  c1 = std::numeric_limits<Index>::min();
  for (Index d : A.offsets)
    if (A.layout.length(d) > 0) {
      c0 = std::min(c0, A.layout.lo(d) + d);
      c1 = std::max(c1, A.layout.hi(d) + d);
    }
  if (c0 > c1) c0 = c1 = 0;
}

/// Random HM block with the given diagonals filled directly (no COO): for
/// sizes where the COO fixtures would be slow.
template <class T = double>
HmMatrix<T> random_hm(const Layout& L, const std::vector<Index>& offsets, std::mt19937_64& rng) {
  HmMatrix<T> A(L, offsets);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (T& v : A.val) v = T(u(rng));
  return A;
}

/// `count` distinct offsets uniform in [-w, w] (clipped to the matrix).
inline std::vector<Index> random_offsets(Index count, Index w, Index n, std::mt19937_64& rng) {
  w = std::min(w, n - 1);
  std::uniform_int_distribution<Index> u(-w, w);
  std::set<Index> s;
  while (Index(s.size()) < std::min(count, 2 * w + 1)) s.insert(u(rng));
  return {s.begin(), s.end()};
}

constexpr double kTol = 1e-12;

}  // namespace pdiag::testing
