// pdiag/distributed.hpp: the ghost plan of a row block whose process owns
// columns [c0, c1) (interior rows read x in place, the others a compact
// vector over `need`; the transpose writes a compact vector over `touched`),
// checked by running the SpMV kernels with its shifts against the dense
// reference; and the reported-pattern mask, counts and row walks against the
// COO list it came from.
#define BOOST_TEST_MODULE distributed
#include <boost/test/unit_test.hpp>

#include "pdiag/cpu.hpp"
#include "pdiag/distributed.hpp"
#include "testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {

// The entries of x at the columns of merged intervals, in their order.
std::vector<double> gather(const std::vector<double>& x, const std::vector<Interval>& iv) {
  std::vector<double> w;
  for (Index j : interval_columns(iv)) w.push_back(x[static_cast<std::size_t>(j)]);
  return w;
}

void check_plan(const RandomBlock& b, Index c0, Index c1, std::mt19937_64& rng, const std::string& what) {
  const HmMatrix<double> A = to_hm(b);
  const Layout& L = A.layout;
  const GhostPlan g = hm_ghost_plan(A.view(), c0, c1);
  BOOST_TEST_CONTEXT(what << " owned [" << c0 << ", " << c1 << ")") {
    BOOST_TEST(g.ib >= 0);
    BOOST_TEST(g.ib <= g.ie);
    BOOST_TEST(g.ie <= L.nrows);
    // every column read by an interior row is owned
    for (Index k = 0; k < A.ndiag(); ++k) {
      const Index d = A.offsets[k];
      for (Index i = std::max(L.lo(d), L.row_begin + g.ib); i < std::min(L.hi(d), L.row_begin + g.ie); ++i) {
        BOOST_TEST(i + d >= c0);
        BOOST_TEST(i + d < c1);
      }
    }
    const std::vector<double> x = random_vector(L.ncols, rng);
    const std::vector<double> ref = dense_mv(b.dense, x);
    std::vector<double> xo(x.begin() + c0, x.begin() + c1), w = gather(x, g.need), y(L.nrows, 0.0);
    hm_spmv(A.view(), xo.data(), y.data(), nullptr, g.shift_local.data(), g.ib, g.ie);
    hm_spmv(A.view(), w.data(), y.data(), nullptr, g.shift_lo.data(), 0, g.ib);
    hm_spmv(A.view(), w.data(), y.data(), nullptr, g.shift_hi.data(), g.ie, L.nrows);
    BOOST_TEST(rel_err(y, ref) <= kTol);
    // transpose: the touched vector, scattered back by column
    const std::vector<double> xr = random_vector(L.nrows, rng);
    const std::vector<double> reft = dense_mtv(b.dense, xr);
    const Index nt = intervals_size(g.touched);
    std::vector<double> t(static_cast<std::size_t>(nt), 0.0), yt(L.ncols, 0.0);
    hm_spmv_t(A.view(), xr.data(), t.data(), nt, nullptr, g.tr_shift.data());
    const std::vector<Index> cols = interval_columns(g.touched);
    for (std::size_t p = 0; p < cols.size(); ++p) yt[static_cast<std::size_t>(cols[p])] += t[p];
    BOOST_TEST(rel_err(yt, reft) <= kTol);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(merge_and_position) {
  const auto iv = merge_intervals({{5, 9}, {0, 2}, {8, 12}, {3, 3}, {2, 4}});
  BOOST_TEST(iv.size() == 2u);
  BOOST_TEST(iv[0].first == 0);
  BOOST_TEST(iv[0].second == 4);
  BOOST_TEST(iv[1].first == 5);
  BOOST_TEST(iv[1].second == 12);
  BOOST_TEST(intervals_size(iv) == 11);
  BOOST_TEST(interval_position(iv, 5) == 4);
  BOOST_TEST(interval_position(iv, 11) == 10);
  BOOST_CHECK_THROW(interval_position(iv, 4), FormatError);
  BOOST_CHECK_THROW(hm_ghost_plan(HmMatrix<double>(Layout::square(4), {0}).view(), 2, 5), FormatError);
}

BOOST_AUTO_TEST_CASE(ghost_plan_against_dense) {
  std::mt19937_64 rng(11);
  for (Index m : {1, 3, 17, 64, 300})
    for (Index n : {m, m + 7, std::max<Index>(1, m / 2)})
      for (const OffsetCase& oc : offset_cases(m, n, rng))
        for (const Layout& Lb : row_blocks(m, n)) {
          const RandomBlock b = random_block(Lb, oc.offsets, rng, 0.8);
          // owned columns: all, none, the block's own range, a middle piece
          const Index a = std::min(Lb.row_begin, n), e = std::min(Lb.row_end(), n);
          for (auto [c0, c1] : {std::pair<Index, Index>{0, n}, {0, 0}, {a, e}, {n / 3, n / 3 + (n + 1) / 3}})
            check_plan(b, c0, c1, rng, oc.name + " " + std::to_string(m) + "x" + std::to_string(n));
        }
}

BOOST_AUTO_TEST_CASE(reported_pattern) {
  std::mt19937_64 rng(5);
  for (Index n : {1, 4, 17, 200})
    for (const OffsetCase& oc : offset_cases(n, n, rng))
      for (const Layout& Lb : row_blocks(n, n)) {
        const RandomBlock b = random_block(Lb, oc.offsets, rng, 0.5);
        const HmMatrix<double> A = to_hm(b);
        const auto mask = hm_mask_of_coo(A, Index(b.rows.size()), b.rows.data(), b.cols.data());
        // the reference: the distinct (i, j) of the COO list per row
        std::vector<std::set<Index>> given(static_cast<std::size_t>(Lb.nrows));
        for (std::size_t e = 0; e < b.rows.size(); ++e) given[b.rows[e] - Lb.row_begin].insert(b.cols[e]);
        std::vector<Index> counts(static_cast<std::size_t>(Lb.nrows));
        hm_masked_row_counts(A.view(), mask.data(), counts.data());
        if (!mask.empty()) {  // a byte other than 0 and 1 is refused
          auto bad = mask;
          bad[bad.size() / 2] = 2;
          std::vector<Index> scratch(counts.size());
          BOOST_CHECK_THROW(hm_masked_row_counts(A.view(), bad.data(), scratch.data()), FormatError);
        }
        for (Index il = 0; il < Lb.nrows; ++il) {
          BOOST_TEST(counts[il] == Index(given[il].size()));
          std::vector<Index> cols;
          const Index got = hm_for_each_masked_in_row(A.view(), mask.data(), Lb.row_begin + il, [&](Index j, double v) {
            cols.push_back(j);
            BOOST_TEST(std::abs(v - b.dense(il, j)) <= 1e-14);
          });
          BOOST_TEST(got == counts[il]);
          BOOST_TEST(cols == std::vector<Index>(given[il].begin(), given[il].end()), boost::test_tools::per_element());
        }
        if (Lb.nrows > 0 && A.ndiag() < 2 * n - 1) {  // an entry on a diagonal A does not store
          Index d = -(n - 1);
          while (A.find_diagonal(d) >= 0) ++d;
          const Index i = std::max(Lb.row_begin, -d);
          if (i < Lb.row_end() && i + d < n) {
            const Index r[] = {i}, c[] = {i + d};
            BOOST_CHECK_THROW(hm_mask_of_coo(A, 1, r, c), FormatError);
          }
        }
      }
}

// hm_split_sparse_remote on rows [10, 30) of a 60 x 60 block owning columns
// [10, 30): dense diagonals stay in the passes (one of them reaching other
// processes), a sparse diagonal inside the owned columns too; sparse
// diagonals with a nonzero outside them are listed; an all-zero one
// reaching outside is in neither (unknown). Passes plus listed entries give
// hm_spmv's product.
BOOST_AUTO_TEST_CASE(split_sparse_remote) {
  const Layout L = Layout::block(60, 60, 10, 20);
  HmMatrix<double> A(L, {-7, -1, 0, 1, 5, 20, 25, 33});
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (Index d : {-1, 0, 1, 20})
    for (Index i = L.lo(d); i < L.hi(d); ++i) *A.find(i, i + d) = u(rng);
  *A.find(15, 20) = u(rng);  // d = 5, owned column
  *A.find(12, 37) = u(rng);  // d = 25, one entry, remote
  *A.find(11, 44) = u(rng);  // d = 33, two entries, remote
  *A.find(14, 47) = u(rng);
  const DiagonalSplit s = hm_split_sparse_remote(A.view(), 10, 30, 8);
  std::vector<Index> passed;
  for (Index k : s.passes) passed.push_back(A.offsets[static_cast<std::size_t>(k)]);
  BOOST_TEST(passed == (std::vector<Index>{-1, 0, 1, 5, 20}), boost::test_tools::per_element());
  BOOST_TEST(s.unknown);
  BOOST_TEST(s.listed.rows == (std::vector<Index>{1, 2, 4}), boost::test_tools::per_element());
  BOOST_TEST(s.listed.ptr == (std::vector<Index>{0, 1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(s.listed.cols == (std::vector<Index>{44, 37, 47}), boost::test_tools::per_element());
  // the product: passes over the passed diagonals' view, then the list (x global)
  std::vector<Index> offs, start;
  for (Index k : s.passes) {
    offs.push_back(A.offsets[static_cast<std::size_t>(k)]);
    start.push_back(A.start[static_cast<std::size_t>(k)]);
  }
  const HmView<const double> passes{L, Index(offs.size()), offs.data(), start.data(), A.val.data()};
  const std::vector<double> x = random_vector(L.ncols, rng);
  std::vector<double> ref(L.nrows, 0.0), y(L.nrows, 0.0), r(L.nrows, 1.0);
  hm_spmv(A.view(), x.data(), ref.data());
  hm_spmv(passes, x.data(), y.data());
  const ListedEntries& l = s.listed;
  listed_spmv_add(Index(l.rows.size()), l.rows.data(), l.ptr.data(), l.pos.data(), l.cols.data(), A.val.data(), x.data(), y.data());
  BOOST_TEST(rel_err(y, ref) <= kTol);
  // sign -1: what a residual subtracts
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0 - y[i];
  std::vector<double> r2(L.nrows, 1.0);
  hm_spmv(passes, x.data(), y.data());
  for (std::size_t i = 0; i < r2.size(); ++i) r2[i] = 1.0 - y[i];
  listed_spmv_add(Index(l.rows.size()), l.rows.data(), l.ptr.data(), l.pos.data(), l.cols.data(), A.val.data(), x.data(), r2.data(), -1.0);
  BOOST_TEST(rel_err(r2, r) <= kTol);
  // a fill ratio below 1 is refused
  BOOST_CHECK_THROW(hm_split_sparse_remote(A.view(), 10, 30, 0), FormatError);
}
