// Matrix-level operations (pdiag/ops.hpp) against the dense reference:
// segments, norms, nonzero counts, get_row, zero_rows / zero_columns,
// add_to_diagonal, regrid, axpy, values_equal (same scheme and mixed) and the
// explicit transposes, for HM and CDM, square and row-block layouts, all
// test sizes and offset cases, plus the FormatError paths.
#define BOOST_TEST_MODULE ops
#include <boost/test/unit_test.hpp>
#include <set>

#include "pdiag/ops.hpp"
#include "testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {

// ---- the reference, straight from the storage definitions (no ops.hpp) ----

Dense dense_of(const HmMatrix<double>& A) {
  const Layout& L = A.layout;
  Dense D(L.nrows, L.ncols);
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) D(i - L.row_begin, i + d) = A.val[A.start[k] + i - L.lo(d)];
  }
  return D;
}
Dense dense_of(const CdmMatrix<double>& A) {
  const Layout& L = A.layout;
  Dense D(L.nrows, L.ncols);
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index il = 0; il < L.nrows; ++il)
      D(il, (L.row_begin + il + A.koffsets[k]) % L.ncols) = A.val[k * L.nrows + il];
  return D;
}
// f(il, j, value) for every stored position (local row il, column j), from
// the storage definitions. Every operation under test writes only stored
// positions and the random blocks' nonzeros are all stored (checked by the
// segments test), so comparing stored positions compares the matrices.
template <class F>
void for_each_stored(const HmMatrix<double>& A, F&& f) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    for (Index i = L.lo(d); i < L.hi(d); ++i) f(i - L.row_begin, i + d, A.val[A.start[k] + i - L.lo(d)]);
  }
}
template <class F>
void for_each_stored(const CdmMatrix<double>& A, F&& f) {
  const Layout& L = A.layout;
  for (Index k = 0; k < A.ndiag(); ++k)
    for (Index il = 0; il < L.nrows; ++il) f(il, (L.row_begin + il + A.koffsets[k]) % L.ncols, A.val[k * L.nrows + il]);
}
// ||stored - expect|| / ||expect|| over the stored positions (0 when both vanish).
template <class Mat, class E>
double stored_err(const Mat& A, E&& expect) {
  double num = 0, den = 0;
  for_each_stored(A, [&](Index il, Index j, double a) {
    const double e = expect(il, j);
    num += (a - e) * (a - e);
    den += e * e;
  });
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}
bool same(const Dense& a, const Dense& b) { return a.rows == b.rows && a.cols == b.cols && a.a == b.a; }
Dense dense_transpose(const Dense& a) {
  Dense t(a.cols, a.rows);
  for (Index i = 0; i < a.rows; ++i)
    for (Index j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

// ---- scheme-generic helpers for the tests --------------------------------
const std::vector<Index>& keys(const HmMatrix<double>& A) { return A.offsets; }
const std::vector<Index>& keys(const CdmMatrix<double>& A) { return A.koffsets; }
HmMatrix<double> regrid(const HmMatrix<double>& A, const std::vector<Index>& k) { return hm_regrid(A, k); }
CdmMatrix<double> regrid(const CdmMatrix<double>& A, const std::vector<Index>& k) { return cdm_regrid(A, k); }
HmMatrix<double> like(const HmMatrix<double>& A, const std::vector<Index>& k) { return HmMatrix<double>(A.layout, k); }
CdmMatrix<double> like(const CdmMatrix<double>& A, const std::vector<Index>& k) {
  return CdmMatrix<double>(A.layout, k);
}
HmMatrix<double> convert_like(const HmMatrix<double>&, const HmMatrix<double>& h) { return h; }
CdmMatrix<double> convert_like(const CdmMatrix<double>&, const HmMatrix<double>& h) { return cdm_from_hm(h); }
// The key (HM offset, CDM compact offset) of position (i, j).
Index key_at(const HmMatrix<double>&, Index i, Index j) { return j - i; }
Index key_at(const CdmMatrix<double>& A, Index i, Index j) { return j >= i ? j - i : j - i + A.layout.ncols; }
// Value block of stored diagonal k.
std::vector<double> block_of(const HmMatrix<double>& A, Index k) {
  return std::vector<double>(A.val.begin() + A.start[k], A.val.begin() + A.start[k + 1]);
}
std::vector<double> block_of(const CdmMatrix<double>& A, Index k) {
  return std::vector<double>(A.val.begin() + k * A.layout.nrows, A.val.begin() + (k + 1) * A.layout.nrows);
}
double* block_ptr(HmMatrix<double>& A, Index k) { return A.val.data() + A.start[k]; }
double* block_ptr(CdmMatrix<double>& A, Index k) { return A.val.data() + k * A.layout.nrows; }
bool all_zero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; });
}
// Every key a matrix of this layout can store.
std::vector<Index> all_keys(const HmMatrix<double>& A) {
  std::vector<Index> k;
  for (Index d = -(A.layout.nrows_global - 1); d < A.layout.ncols; ++d) k.push_back(d);
  return k;
}
std::vector<Index> all_keys(const CdmMatrix<double>& A) {
  std::vector<Index> k;
  for (Index d = 0; d < A.layout.ncols; ++d) k.push_back(d);
  return k;
}
std::vector<Index> set_union(std::vector<Index> a, const std::vector<Index>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}
std::vector<Index> random_keys(const std::vector<Index>& pool, std::mt19937_64& rng, int count) {
  std::vector<Index> out;
  for (int c = 0; c < count && !pool.empty(); ++c) out.push_back(pool[rng() % pool.size()]);
  return set_union(out, {});
}
std::vector<Index> without(const std::vector<Index>& a, Index x) {
  std::vector<Index> out;
  for (Index v : a)
    if (v != x) out.push_back(v);
  return out;
}

struct Case {
  std::string name;
  RandomBlock b;
  HmMatrix<double> hm;
  CdmMatrix<double> cdm;
  bool has_cdm = false;
};

// Every (size, rows, layout, offset set) combination: sizes 1..1000, square
// (m = n) and rectangular (m = n + 2) matrices, the whole matrix and row
// blocks, all offset cases; CDM for the square ones. Density 0.9 leaves some
// stored zeros.
template <class F>
void for_each_case(F&& f) {
  std::mt19937_64 rng(11);
  for (Index n : test_sizes())
    for (Index m : {n, n + 2})
      for (const Layout& L : row_blocks(m, n))
        for (const auto& oc : offset_cases(m, n, rng)) {
          if (n == 1000 && oc.name == "dense") continue;
          Case c;
          c.name = oc.name + " n=" + std::to_string(n) + " m=" + std::to_string(m) +
                   " r0=" + std::to_string(L.row_begin) + " rows=" + std::to_string(L.nrows);
          c.b = random_block(L, oc.offsets, rng, 0.9);
          c.hm = to_hm(c.b);
          c.has_cdm = (m == n);
          if (c.has_cdm) c.cdm = cdm_from_hm(c.hm);
          f(c, rng);
        }
}

// Runs check(M) on the case's HM block and, when square, its CDM block.
template <class G>
void on_both(const Case& c, G&& check) {
  BOOST_TEST_CONTEXT(c.name << " hm") { check(c.hm); }
  if (c.has_cdm) BOOST_TEST_CONTEXT(c.name << " cdm") {
      check(c.cdm);
    }
}

// Local rows to probe: all of them for small blocks, a sample for big ones.
std::vector<Index> probe_rows(const Layout& L, std::mt19937_64& rng) {
  std::vector<Index> rows;
  if (L.nrows <= 64) {
    for (Index i = L.row_begin; i < L.row_end(); ++i) rows.push_back(i);
  } else {
    rows = {L.row_begin, L.row_begin + 1, L.row_end() - 2, L.row_end() - 1};
    for (int t = 0; t < 20; ++t) rows.push_back(L.row_begin + Index(rng() % std::uint64_t(L.nrows)));
  }
  return rows;
}

}  // namespace

BOOST_AUTO_TEST_CASE(segments_cover_each_stored_entry_once) {
  int checked = 0;
  for_each_case([&](const Case& c, std::mt19937_64&) {
    on_both(c, [&](const auto& M) {
      const Layout& L = M.layout;
      const auto v = M.view();
      Dense D(L.nrows, L.ncols);
      std::vector<int> hits(M.val.size(), 0);
      bool ok = true;
      const bool hm = std::is_same<std::decay_t<decltype(M)>, HmMatrix<double>>::value;
      for_each_segment(v, [&](Index k, Index d, Index lo, Index hi, Index base) {
        const Index kk = keys(M)[k];
        ok = ok && lo < hi && lo >= L.lo(d) && hi <= L.hi(d) && (hm ? d == kk : (d == kk || d == kk - L.ncols));
        for (Index i = lo; i < hi; ++i) {
          D(i - L.row_begin, i + d) = M.val[base + i];
          ++hits[base + i];
        }
      });
      BOOST_TEST(ok);
      BOOST_TEST(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
      BOOST_TEST(same(D, c.b.dense));
      ++checked;
    });
  });
  BOOST_TEST(checked > 500);
}

BOOST_AUTO_TEST_CASE(norms_and_nonzero_counts) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Dense& A = c.b.dense;
    std::vector<double> rows_ref(A.rows, 0.0), cols_init = random_vector(A.cols, rng), cols_ref = cols_init;
    double ss = 0;
    Index nnz = 0;
    for (Index i = 0; i < A.rows; ++i)
      for (Index j = 0; j < A.cols; ++j) {
        rows_ref[i] += std::abs(A(i, j));
        cols_ref[j] += std::abs(A(i, j));
        ss += A(i, j) * A(i, j);
        nnz += A(i, j) != 0.0;
      }
    on_both(c, [&](const auto& M) {
      std::vector<double> rs(A.rows, NAN), cs = cols_init;
      local_abs_row_sums(M.view(), rs.data());
      BOOST_TEST(rel_err(rs, rows_ref) <= kTol);
      local_abs_col_sums(M.view(), cs.data());  // accumulates into cs
      BOOST_TEST(rel_err(cs, cols_ref) <= kTol);
      BOOST_TEST(std::abs(local_sum_squares(M.view()) - ss) <= kTol * std::max(1.0, ss));
      BOOST_TEST(count_nonzeros(M.view()) == nnz);
      std::vector<float> rf(A.rows);  // the output type is the caller's (PetscReal)
      local_abs_row_sums(M.view(), rf.data());
    });
  });
}

BOOST_AUTO_TEST_CASE(get_row_columns_ascending) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Layout& L = c.hm.layout;
    const auto rows = probe_rows(L, rng);
    on_both(c, [&](const auto& M) {
      std::vector<Index> cols;
      std::vector<double> vals;
      bool ok = true;
      for (Index i : rows) {
        get_row(M.view(), i, cols, vals);
        std::vector<Index> expect;  // the stored positions of row i
        for (Index j = 0; j < L.ncols; ++j)
          if (M.find(i, j)) expect.push_back(j);
        ok = ok && cols == expect && vals.size() == cols.size();
        for (std::size_t p = 0; ok && p < cols.size(); ++p) ok = vals[p] == c.b.dense(i - L.row_begin, cols[p]);
      }
      BOOST_TEST(ok);
      BOOST_CHECK_THROW(get_row(M.view(), L.row_begin - 1, cols, vals), FormatError);
      BOOST_CHECK_THROW(get_row(M.view(), L.row_end(), cols, vals), FormatError);
    });
  });
}

BOOST_AUTO_TEST_CASE(zero_rows_and_columns) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Layout& L = c.hm.layout;
    // Rows: a few random local ones, with a repeat; columns likewise over [0, ncols).
    std::vector<Index> rows, cols;
    for (int t = 0; t < 6 && L.nrows > 0; ++t) rows.push_back(L.row_begin + Index(rng() % std::uint64_t(L.nrows)));
    if (!rows.empty()) rows.push_back(rows.front());
    for (int t = 0; t < 6 && L.ncols > 0; ++t) cols.push_back(Index(rng() % std::uint64_t(L.ncols)));
    if (!cols.empty()) cols.push_back(cols.back());
    on_both(c, [&](const auto& M) {
      const bool has_main = M.find_diagonal(0) >= 0;
      for (double diag : {0.0, 2.5}) {
        auto Z = M;
        bool missing = true;
        zero_rows(Z.view(), rows.data(), Index(rows.size()), diag, missing);
        std::vector<char> zeroed(static_cast<std::size_t>(L.nrows), 0);
        bool missing_ref = false;
        for (Index i : rows) {
          zeroed[i - L.row_begin] = 1;
          missing_ref = missing_ref || (i < L.ncols && diag != 0.0 && !has_main);
        }
        BOOST_TEST(missing == missing_ref);
        BOOST_TEST(stored_err(Z, [&](Index il, Index j) {
                     if (!zeroed[il]) return c.b.dense(il, j);
                     return j == L.row_begin + il ? diag : 0.0;  // stored a(i, i): the main diagonal is stored
                   }) == 0.0);
        BOOST_TEST(keys(Z) == keys(M));
      }
      // Rows outside the block: FormatError before anything changes.
      for (Index bad : {L.row_begin - 1, L.row_end()}) {
        auto Z = M;
        std::vector<Index> list = rows;
        list.push_back(bad);
        bool missing = false;
        BOOST_CHECK_THROW(zero_rows(Z.view(), list.data(), Index(list.size()), 1.0, missing), FormatError);
        BOOST_TEST(Z.val == M.val);
      }
      // Columns
      auto Z = M;
      zero_columns(Z.view(), cols.data(), Index(cols.size()));
      std::vector<char> zcol(static_cast<std::size_t>(L.ncols), 0);
      for (Index j : cols) zcol[j] = 1;
      BOOST_TEST(stored_err(Z, [&](Index il, Index j) { return zcol[j] ? 0.0 : c.b.dense(il, j); }) == 0.0);
      for (Index bad : {Index(-1), L.ncols}) {
        auto W = M;
        std::vector<Index> list = cols;
        list.push_back(bad);
        BOOST_CHECK_THROW(zero_columns(W.view(), list.data(), Index(list.size())), FormatError);
        BOOST_TEST(W.val == M.val);
      }
    });
  });
}

BOOST_AUTO_TEST_CASE(add_to_diagonal_shift_and_set) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Layout& L = c.hm.layout;
    const auto v = random_vector(L.nrows, rng);
    on_both(c, [&](const auto& M) {
      const bool has_main = M.find_diagonal(0) >= 0;
      const bool has_rows = L.length(0) > 0;  // local rows with i < ncols
      struct Op {
        bool use_v;
        double alpha;
        bool insert;
      };
      for (const Op& op : {Op{true, 1.0, true}, Op{true, 0.5, false}, Op{false, 3.0, false}, Op{false, -2.0, true}}) {
        auto Z = M;
        if (!has_main && has_rows) {
          BOOST_CHECK_THROW(add_to_diagonal(Z.view(), op.use_v ? v.data() : nullptr, op.alpha, op.insert), FormatError);
          BOOST_TEST(Z.val == M.val);
          continue;
        }
        add_to_diagonal(Z.view(), op.use_v ? v.data() : nullptr, op.alpha, op.insert);
        BOOST_TEST(stored_err(Z, [&](Index il, Index j) {
                     if (j != L.row_begin + il) return c.b.dense(il, j);
                     const double t = op.alpha * (op.use_v ? v[il] : 1.0);
                     return op.insert ? t : c.b.dense(il, j) + t;
                   }) == 0.0);
      }
    });
  });
}

BOOST_AUTO_TEST_CASE(regrid_to_other_diagonal_sets) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    on_both(c, [&](const auto& M) {
      const Layout& L = M.layout;
      // Superset: same matrix, extra zero diagonals.
      const auto sup = set_union(keys(M), random_keys(all_keys(M), rng, 3));
      const auto R = regrid(M, sup);
      BOOST_TEST(keys(R) == sup);
      BOOST_TEST(stored_err(R, [&](Index il, Index j) { return c.b.dense(il, j); }) == 0.0);
      // Back to the original set: the same storage exactly.
      const auto S = regrid(R, keys(M));
      BOOST_TEST(S.val == M.val);
      // Dropping a diagonal that holds a nonzero throws; once zeroed it goes.
      for (Index k = 0; k < Index(keys(M).size()); ++k) {
        const auto blk = block_of(M, k);
        if (all_zero(blk)) continue;
        const Index key = keys(M)[k];
        BOOST_CHECK_THROW(regrid(M, without(keys(M), key)), FormatError);
        auto Z = M;
        std::fill(block_ptr(Z, k), block_ptr(Z, k) + blk.size(), 0.0);
        const auto D = regrid(Z, without(keys(Z), key));
        BOOST_TEST(values_equal(D.view(), Z.view()));
        BOOST_TEST(stored_err(D, [&](Index il, Index j) {
                     return key_at(M, L.row_begin + il, j) == key ? 0.0 : c.b.dense(il, j);
                   }) == 0.0);
        break;
      }
      // Any other set, when the matrix is zero there.
      auto Z = M;
      std::fill(Z.val.begin(), Z.val.end(), 0.0);
      const auto other = random_keys(all_keys(M), rng, 4);
      BOOST_TEST(keys(regrid(Z, other)) == other);
    });
  });
}

BOOST_AUTO_TEST_CASE(axpy_into_a_superset_of_diagonals) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Layout& L = c.hm.layout;
    // Y: another random block of this layout on random diagonals.
    std::vector<Index> pool;
    for (Index d = -(L.nrows_global - 1); d < L.ncols; ++d) pool.push_back(d);
    const RandomBlock yb = random_block(L, random_keys(pool, rng, 4), rng, 0.9);
    const HmMatrix<double> yhm = to_hm(yb);
    const double a = -1.75;
    on_both(c, [&](const auto& X) {
      const auto Y0 = convert_like(X, yhm);
      auto Y = regrid(Y0, set_union(keys(Y0), keys(X)));
      axpy(Y.view(), a, X.view());
      auto expect = [&](Index il, Index j) { return yb.dense(il, j) + a * c.b.dense(il, j); };
      BOOST_TEST(stored_err(Y, expect) <= kTol);
      // A diagonal of X with a nonzero that Y lacks: FormatError, Y unchanged.
      for (Index k = 0; k < Index(keys(X).size()); ++k) {
        const auto blk = block_of(X, k);
        if (all_zero(blk)) continue;
        auto Yu = regrid(Y0, set_union(keys(Y0), keys(X)));  // Y without X's diagonal k
        const Index ku = Index(std::lower_bound(keys(Yu).begin(), keys(Yu).end(), keys(X)[k]) - keys(Yu).begin());
        std::fill(block_ptr(Yu, ku), block_ptr(Yu, ku) + blk.size(), 0.0);
        auto Y2 = regrid(Yu, without(keys(Yu), keys(X)[k]));
        const auto before = Y2.val;
        BOOST_CHECK_THROW(axpy(Y2.view(), a, X.view()), FormatError);
        BOOST_TEST(Y2.val == before);
        axpy(Y2.view(), 0.0, X.view());  // a = 0 adds nothing, needs nothing
        BOOST_TEST(Y2.val == before);
        break;
      }
      // X with only zeros on a diagonal Y lacks is fine.
      auto Xz = regrid(X, set_union(keys(X), keys(Y0)));
      auto Yx = regrid(Y0, set_union(keys(Y0), keys(X)));
      axpy(Yx.view(), a, Xz.view());
      BOOST_TEST(stored_err(Yx, expect) <= kTol);
    });
  });
}

BOOST_AUTO_TEST_CASE(values_equal_same_scheme_and_mixed) {
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Layout& L = c.hm.layout;
    on_both(c, [&](const auto& M) {
      const auto extra = random_keys(all_keys(M), rng, 3);
      const auto R = regrid(M, set_union(keys(M), extra));
      BOOST_TEST(values_equal(M.view(), R.view()));
      BOOST_TEST(values_equal(R.view(), M.view()));
      auto Rv = R;
      BOOST_TEST(values_equal(Rv.view(), M.view()));  // mutable and const views mix
      if (!R.val.empty()) {
        auto W = R;
        W.val[rng() % W.val.size()] += 0.5;
        BOOST_TEST(!values_equal(M.view(), W.view()));
        BOOST_TEST(!values_equal(W.view(), M.view()));
      }
      // A nonzero on a diagonal only R stores.
      for (Index k = 0; k < Index(keys(R).size()); ++k) {
        const auto blk = block_of(R, k);
        if (blk.empty() || std::binary_search(keys(M).begin(), keys(M).end(), keys(R)[k])) continue;
        auto W = R;
        block_ptr(W, k)[rng() % blk.size()] = 1.0;
        BOOST_TEST(!values_equal(M.view(), W.view()));
        BOOST_TEST(!values_equal(W.view(), M.view()));
        break;
      }
      // Another layout is never equal.
      const Layout L2 = Layout::block(L.nrows_global + 1, L.ncols, L.row_begin, L.nrows);
      const HmMatrix<double> other(L2, {});
      BOOST_TEST(!values_equal(M.view(), other.view()));  // HM: same scheme; CDM: mixed
      BOOST_TEST((values_equal(M.view(), like(M, {}).view()) == (count_nonzeros(M.view()) == 0)));
    });
    if (!c.has_cdm) return;
    // Mixed: HM against CDM.
    BOOST_TEST(values_equal(c.hm.view(), c.cdm.view()));
    BOOST_TEST(values_equal(c.cdm.view(), c.hm.view()));
    const auto hsup = hm_regrid(c.hm, set_union(c.hm.offsets, random_keys(all_keys(c.hm), rng, 3)));
    BOOST_TEST(values_equal(hsup.view(), c.cdm.view()));
    if (!c.cdm.val.empty()) {
      auto W = c.cdm;
      W.val[rng() % W.val.size()] -= 0.25;
      BOOST_TEST(!values_equal(c.hm.view(), W.view()));
      BOOST_TEST(!values_equal(W.view(), hsup.view()));
    }
    // A nonzero on an HM diagonal the original lacks: the CDM block holds a zero there.
    for (Index k = 0; k < hsup.ndiag(); ++k) {
      const auto blk = block_of(hsup, k);
      if (blk.empty() || c.hm.find_diagonal(hsup.offsets[k]) >= 0) continue;
      auto W = hsup;
      block_ptr(W, k)[rng() % blk.size()] = 1.0;
      BOOST_TEST(!values_equal(W.view(), c.cdm.view()));
      BOOST_TEST(!values_equal(c.cdm.view(), W.view()));
      break;
    }
    const CdmMatrix<double> bigger(Layout::square(L.ncols + 1), {});
    BOOST_TEST(!values_equal(c.cdm.view(), bigger.view()));
  });
}

BOOST_AUTO_TEST_CASE(explicit_transposes) {
  int checked = 0;
  for_each_case([&](const Case& c, std::mt19937_64&) {
    const Layout& L = c.hm.layout;
    BOOST_TEST_CONTEXT(c.name) {
      if (!L.is_full()) {
        BOOST_CHECK_THROW(transpose_hm(c.hm), FormatError);
        if (c.has_cdm) BOOST_CHECK_THROW(transpose_cdm(c.cdm), FormatError);
        return;
      }
      const Dense At = dense_transpose(c.b.dense);
      const auto B = transpose_hm(c.hm);
      const Index nd = c.hm.ndiag();
      BOOST_TEST((B.layout == L.transposed()));
      BOOST_TEST(same(dense_of(B), At));
      // Offsets negated and reversed; each diagonal's values moved as a whole block.
      bool blocks = B.ndiag() == nd;
      for (Index k = 0; blocks && k < nd; ++k)
        blocks = B.offsets[nd - 1 - k] == -c.hm.offsets[k] && block_of(B, nd - 1 - k) == block_of(c.hm, k);
      BOOST_TEST(blocks);
      const auto BB = transpose_hm(B);
      BOOST_TEST((BB.offsets == c.hm.offsets && BB.start == c.hm.start && BB.val == c.hm.val && BB.layout == L));
      if (c.has_cdm) {
        const auto C = transpose_cdm(c.cdm);
        BOOST_TEST(same(dense_of(C), At));
        BOOST_TEST(values_equal(C.view(), B.view()));
        const auto CC = transpose_cdm(C);
        BOOST_TEST((CC.koffsets == c.cdm.koffsets && CC.val == c.cdm.val));
      }
      ++checked;
    }
  });
  BOOST_TEST(checked > 90);
}

BOOST_AUTO_TEST_CASE(bad_input_and_messages) {
  HmMatrix<double> A(Layout::square(5), {-1, 1});
  CdmMatrix<double> C(Layout::square(5), {1, 4});
  for (double& x : A.val) x = 1.0;
  for (double& x : C.val) x = 1.0;
  auto message_has = [](const char* part) {
    return [part](const FormatError& e) { return std::string(e.what()).find(part) != std::string::npos; };
  };
  BOOST_CHECK_EXCEPTION(add_to_diagonal(A.view(), nullptr, 1.0, false), FormatError,
                        message_has("main diagonal not stored"));
  BOOST_CHECK_EXCEPTION(add_to_diagonal(C.view(), nullptr, 1.0, false), FormatError,
                        message_has("main diagonal not stored"));
  // zero_rows with diag != 0 and no main diagonal: rows zeroed, missing reported.
  const Index rows[] = {2, 4};
  bool missing = false;
  zero_rows(A.view(), rows, 2, 3.0, missing);
  BOOST_TEST(missing);
  BOOST_TEST(A.find(2, 1) != nullptr);
  BOOST_TEST(*A.find(2, 1) == 0.0);
  zero_rows(C.view(), rows, 2, 0.0, missing);
  BOOST_TEST(!missing);
  // The caller grows the structure and retries.
  auto A2 = hm_regrid(A, {-1, 0, 1});
  zero_rows(A2.view(), rows, 2, 3.0, missing);
  BOOST_TEST(!missing);
  BOOST_TEST(*A2.find(4, 4) == 3.0);
  const Index bad_row[] = {5};
  BOOST_CHECK_EXCEPTION(zero_rows(A.view(), bad_row, 1, 1.0, missing), FormatError, message_has("zero_rows: row 5"));
  BOOST_CHECK_EXCEPTION(zero_columns(C.view(), bad_row, 1), FormatError, message_has("column 5"));
  // regrid: offsets outside the matrix, and dropped nonzeros
  BOOST_CHECK_THROW(hm_regrid(A, {5}), FormatError);
  BOOST_CHECK_THROW(cdm_regrid(C, {5}), FormatError);
  BOOST_CHECK_EXCEPTION(hm_regrid(A, {1}), FormatError, message_has("dropped diagonal -1"));
  BOOST_CHECK_EXCEPTION(cdm_regrid(C, {1}), FormatError, message_has("dropped compact diagonal 4"));
  // axpy: layouts must match
  HmMatrix<double> B(Layout::rect(5, 6), {-1, 1});
  BOOST_CHECK_EXCEPTION(axpy(B.view(), 1.0, A.view()), FormatError, message_has("layouts differ"));
  CdmMatrix<double> C1(Layout::square(5), {1});
  BOOST_CHECK_EXCEPTION(axpy(C1.view(), 1.0, C.view()), FormatError, message_has("compact diagonal 4 of X"));
  // transpose of a row block
  HmMatrix<double> R(Layout::block(6, 6, 2, 2), {0});
  BOOST_CHECK_EXCEPTION(transpose_hm(R), FormatError, message_has("not the whole matrix"));
  // A rectangular block below the last column: no diagonal positions, nothing to do.
  HmMatrix<double> T(Layout::block(8, 4, 5, 3), {-6});
  add_to_diagonal(T.view(), nullptr, 1.0, false);
  zero_rows(T.view(), bad_row, 1, 1.0, missing);
  BOOST_TEST(!missing);
}

// inode_sizes_if against PETSc's MatSeqAIJCheckInode run on the CSR of the
// entries kept: block tridiagonal matrices with 3x3 blocks (every row of a
// block has the same columns: runs of 3, cut by the limit), a row block of
// the same matrix, the random cases (runs of 1 almost everywhere) and a
// keep rule that drops an entry (its row then starts a run of its own);
// csr_inode_sizes on the CSR pattern of the same entries.
namespace {
std::vector<Index> aij_inode_sizes(const std::vector<std::vector<Index>>& rows, Index limit) {
  std::vector<Index> sizes;
  const Index m = Index(rows.size());
  for (Index i = 0; i < m;) {
    Index j = i + 1, size = 1;
    for (; j < m && size < limit; ++j, ++size)
      if (rows[j] != rows[i]) break;
    sizes.push_back(size);
    i = j;
  }
  return sizes;
}
}  // namespace

BOOST_AUTO_TEST_CASE(inode_sizes_as_aij_finds_them) {
  const Index bs = 3, nb = 8, n = bs * nb;
  std::vector<Index> ci, cj;
  std::vector<double> cv;
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      if (std::abs(i / bs - j / bs) <= 1) {
        ci.push_back(i);
        cj.push_back(j);
        cv.push_back(1.0 + double(i * n + j) / (n * n));
      }
  const auto check = [&](const Layout& L, Index limit, auto keep) {
    std::vector<Index> bi, bj;  // the block's rows of the COO entries
    std::vector<double> bv;
    for (std::size_t e = 0; e < cv.size(); ++e)
      if (ci[e] >= L.row_begin && ci[e] < L.row_end()) {
        bi.push_back(ci[e]);
        bj.push_back(cj[e]);
        bv.push_back(cv[e]);
      }
    const HmMatrix<double> B = hm_from_coo<double>(L, Index(bv.size()), bi.data(), bj.data(), bv.data());
    std::vector<std::vector<Index>> rows;
    std::vector<Index> cols;
    std::vector<double> vals;
    for (Index i = L.row_begin; i < L.row_end(); ++i) {
      get_row_if(B.view(), i, cols, vals, keep);
      rows.push_back(cols);
    }
    BOOST_TEST(inode_sizes_if(B.view(), limit, keep) == aij_inode_sizes(rows, limit));
    std::vector<Index> rowptr, colidx;
    hm_csr_pattern_if(B, keep, rowptr, colidx);
    BOOST_TEST(csr_inode_sizes(rowptr, colidx, limit) == aij_inode_sizes(rows, limit));
  };
  const auto nonzero = [](Index, Index, double v) { return v != 0.0; };
  for (Index limit : {1, 2, 3, 5}) {
    check(Layout::square(n), limit, nonzero);
    check(Layout::block(n, n, 4, 13), limit, nonzero);
    check(Layout::square(n), limit, [](Index i, Index j, double) { return !(i == 7 && j == 3); });
  }
  // runs of 3 when the limit allows: the blocks
  const HmMatrix<double> A = hm_from_coo<double>(Layout::square(n), Index(cv.size()), ci.data(), cj.data(), cv.data());
  BOOST_TEST(inode_sizes_if(A.view(), 5, nonzero) == std::vector<Index>(nb, bs));
  for_each_case([&](const Case& c, std::mt19937_64&) {
    std::vector<std::vector<Index>> rows;
    std::vector<Index> cols;
    std::vector<double> vals;
    const Layout& L = c.hm.layout;
    for (Index i = L.row_begin; i < L.row_end(); ++i) {
      get_row(c.hm.view(), i, cols, vals);
      rows.push_back(cols);
    }
    BOOST_TEST(inode_sizes_if(c.hm.view(), 5, [](Index, Index, double) { return true; }) == aij_inode_sizes(rows, 5));
    const Csr<double> all = hm_to_csr(c.hm, true);
    BOOST_TEST(csr_inode_sizes(all.rowptr, all.colidx, 5) == aij_inode_sizes(rows, 5));
  });
}
