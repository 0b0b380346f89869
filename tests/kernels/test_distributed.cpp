// pdiag/distributed.hpp: the ghost plan of a row block whose process owns
// columns [c0, c1) (interior rows read x in place, the others a compact
// vector over `need`; the transpose writes a compact vector over `touched`),
// checked by running the SpMV kernels with its shifts against the dense
// reference; and the reported-pattern mask, counts and row walks against the
// COO list it came from.
#define BOOST_TEST_MODULE distributed
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "pdiag/convert.hpp"
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

// The entries a block keeps in a list (pdiag/remote.hpp), rows [10, 30) of
// a 60 x 60 block owning columns [10, 30): a pattern's split between
// stored diagonals and listed couplings (lists_as_remote: d != 0, only
// other processes' columns, at most 1 / 8 full); look-up; taking the
// entries of some diagonals back; the CSR of diagonals and list together
// (for_each_kept_by_row's merge, what the aij copy and MatGetRow read);
// and the product: the passes over the diagonals plus the list through
// listed_with_remote and the two-array listed_spmv_add equal the product of
// the block holding every entry on diagonals; the same split taken from
// triplets (coo_take_remote).
BOOST_AUTO_TEST_CASE(remote_entries) {
  const Layout L = Layout::block(60, 60, 10, 20);
  // a 3-point band, one coupling per row to columns 40 + i (offset 30, a
  // dense remote diagonal: stored) and, for rows 12 and 17, lonely remote
  // couplings on offsets of their own (listed); row 15 also reaches owned
  // column 27 on offset 12, alone (owned: stored)
  const auto couplings = [](Index i) {
    std::vector<Index> c{i - 1, i, i + 1, i + 30};
    if (i == 12) c.push_back(51);
    if (i == 17) c.push_back(3);
    if (i == 15) c.push_back(27);
    c.erase(std::remove_if(c.begin(), c.end(), [](Index j) { return j < 0 || j >= 60; }), c.end());
    std::sort(c.begin(), c.end());
    return c;
  };
  const PatternSplit<double> sp = split_pattern_remote<double>(L, 10, 30, 8, couplings);
  BOOST_TEST(sp.offsets == (std::vector<Index>{-1, 0, 1, 12, 30}), boost::test_tools::per_element());
  BOOST_TEST(sp.listed.rows == (std::vector<Index>{2, 7}), boost::test_tools::per_element());
  BOOST_TEST(sp.listed.cols == (std::vector<Index>{51, 3}), boost::test_tools::per_element());
  BOOST_CHECK_THROW(split_pattern_remote<double>(L, 10, 30, 0, couplings), FormatError);
  // values: the full block (every entry on diagonals) and the split one
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  HmMatrix<double> full(L, {-1, 0, 1, 12, 30, 39, -14}), A(L, sp.offsets);
  RemoteEntries<double> R = sp.listed;
  for (Index i = L.row_begin; i < L.row_end(); ++i)
    for (Index j : couplings(i)) {
      const double v = u(rng);
      *full.find(i, j) = v;
      if (double* a = A.find(i, j)) *a = v;
      else {
        const Index e = R.find(i - L.row_begin, j);
        BOOST_TEST_REQUIRE(e >= 0);
        R.val[static_cast<std::size_t>(e)] = v;
      }
    }
  BOOST_TEST(R.find(2, 52) == -1);
  BOOST_TEST(R.find(3, 51) == -1);
  // the CSR of both against the full block's (zeros left out by the rule)
  const auto nonzero = [](Index, Index, double v) { return v != 0.0; };
  const Csr<double> ref = hm_to_csr_if(full, nonzero), got = hm_to_csr_if(A, nonzero, &R);
  BOOST_TEST(got.rowptr == ref.rowptr, boost::test_tools::per_element());
  BOOST_TEST(got.colidx == ref.colidx, boost::test_tools::per_element());
  BOOST_TEST(got.vals == ref.vals, boost::test_tools::per_element());
  BOOST_TEST(hm_count_if(A, nonzero, &R) == Index(ref.colidx.size()));
  {  // the pattern kept as the slots it leaves out, the list's entries among them
    std::vector<Index> outside;
    BOOST_TEST_REQUIRE(hm_slots_outside_csr(A, got.rowptr, got.colidx, outside, &R));
    BOOST_TEST(Index(outside.size() + got.colidx.size()) == A.nstored() + R.size());
    std::vector<double> vals(got.colidx.size());
    hm_csr_values_except(A, outside, vals.data(), &R);
    BOOST_TEST(vals == got.vals, boost::test_tools::per_element());
    BOOST_TEST(!hm_slots_any_nonzero(A, outside, &R));
    HmMatrix<double> A2 = A;
    RemoteEntries<double> R2 = R;
    std::fill(A2.val.begin(), A2.val.end(), 3.0);
    std::fill(R2.val.begin(), R2.val.end(), 3.0);
    int zeros = 0;
    hm_csr_values_take_except(A2, outside, vals.data(), [&](Index, Index) { ++zeros; }, &R2);
    BOOST_TEST(A2.val == A.val, boost::test_tools::per_element());
    BOOST_TEST(R2.val == R.val, boost::test_tools::per_element());
    BOOST_TEST(zeros == 0);
  }
  // the same split from the full block's triplets (a conversion from
  // another matrix's rows), one listed position given twice (they add up)
  {
    Coo<double> t = hm_to_coo(full, false);
    t.rows.push_back(17);  // offset -14, 16 long: two triplets still list it
    t.cols.push_back(3);
    t.vals.push_back(0.25);
    const RemoteEntries<double> Rc = coo_take_remote(L, 10, 30, 8, t.rows, t.cols, t.vals);
    BOOST_TEST(Rc.rows == R.rows, boost::test_tools::per_element());
    BOOST_TEST(Rc.cols == R.cols, boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(Rc.size() == 2);
    BOOST_TEST(Rc.val[0] == R.val[0]);
    BOOST_TEST(Rc.val[1] == R.val[1] + 0.25);
    BOOST_TEST(coo_offsets(L, Index(t.rows.size()), t.rows.data(), t.cols.data()) == sp.offsets, boost::test_tools::per_element());
  }
  // the product: passes over A's diagonals, then the list
  const std::vector<double> x = random_vector(L.ncols, rng);
  std::vector<double> y_ref(L.nrows, 0.0), y(L.nrows, 0.0);
  hm_spmv(full.view(), x.data(), y_ref.data());
  hm_spmv(A.view(), x.data(), y.data());
  const ListedEntries l = listed_with_remote(ListedEntries{}, R, A.nstored());
  listed_spmv_add(Index(l.rows.size()), l.rows.data(), l.ptr.data(), l.pos.data(), l.cols.data(), A.val.data(), A.nstored(), R.val.data(), x.data(),
                  y.data());
  BOOST_TEST(rel_err(y, y_ref) <= kTol);
  // the entries of a listed diagonal taken back (offset 39 = 51 - 12)
  const std::vector<RemoteEntry<double>> taken = remote_entries_take(R, L.row_begin, {39});
  BOOST_TEST_REQUIRE(taken.size() == 1u);
  BOOST_TEST(taken[0].il == 2);
  BOOST_TEST(taken[0].col == 51);
  BOOST_TEST(R.size() == 1);
  BOOST_TEST(R.find(7, 3) == 0);
  remote_entries_add(R, taken);
  BOOST_TEST(R.size() == 2);
  BOOST_TEST(R.find(2, 51) == 0);
  BOOST_CHECK_THROW(remote_entries_add(R, taken), FormatError);  // a position twice
}
