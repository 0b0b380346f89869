// Formats and conversions: HM index math (docs/kernels.md), COO/CSR/HM/CDM
// round trips against the dense reference, the structure report, and the
// paper's n = 4 storage example (section 3, Figure 3).
#define BOOST_TEST_MODULE formats
#include <boost/test/unit_test.hpp>

#include "pdiag/assemble.hpp"
#include "pdiag/convert.hpp"

#include <algorithm>
#include <set>
#include "testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {
// Dense copy of an HM block through find(): every stored entry, zeros elsewhere.
template <class M>
Dense dense_of(const M& A) {
  Dense D(A.layout.nrows, A.layout.ncols);
  for (Index il = 0; il < A.layout.nrows; ++il)
    for (Index j = 0; j < A.layout.ncols; ++j)
      if (const double* a = A.find(A.layout.row_begin + il, j)) D(il, j) = *a;
  return D;
}
bool same(const Dense& a, const Dense& b) { return a.rows == b.rows && a.cols == b.cols && a.a == b.a; }
}  // namespace

BOOST_AUTO_TEST_CASE(hm_index_math_matches_design) {
  // a(i, i+d) sits at val[start[k] + i - lo(d)], lo(d) = max(r0, -d), hi(d) = min(r0+m, N-d).
  const Layout L = Layout::block(10, 8, 3, 4);  // rows 3..6 of a 10 x 8 matrix
  BOOST_TEST(L.lo(0) == 3);
  BOOST_TEST(L.hi(0) == 7);
  BOOST_TEST(L.lo(-5) == 5);
  BOOST_TEST(L.hi(-5) == 7);
  BOOST_TEST(L.lo(4) == 3);
  BOOST_TEST(L.hi(4) == 4);  // columns stop at 8
  BOOST_TEST(L.length(6) == 0);
  BOOST_TEST(L.valid_offset(-9));
  BOOST_TEST(!L.valid_offset(-10));
  BOOST_TEST(L.valid_offset(7));
  BOOST_TEST(!L.valid_offset(8));
  HmMatrix<double> A(L, {4, -5, 0, 6});
  BOOST_TEST((A.offsets == std::vector<Index>{-5, 0, 4, 6}));
  BOOST_TEST((A.start == std::vector<Index>{0, 2, 6, 7, 7}));
  *A.find(5, 0) = 1.5;  // d = -5, first row 5
  *A.find(3, 7) = 2.5;  // d = 4, row 3
  BOOST_TEST(A.val[0] == 1.5);
  BOOST_TEST(A.val[6] == 2.5);
  BOOST_TEST(A.find(4, 8) == nullptr);
  BOOST_TEST(A.find(2, 2) == nullptr);  // row outside the block
}

BOOST_AUTO_TEST_CASE(paper_storage_example_n4) {
  // The 4 x 4 banded matrix of the paper's Figure 2a (k_u = 2, k_l = 1):
  // HM stores (a00 a11 a22 a33 | a01 a12 a23 | a02 a13 | a10 a21 a32) by
  // diagonals; here in ascending offset order -1, 0, 1, 2, which is the
  // same set of contiguous runs. a_ij = 10 i + j + 1 keeps entries distinct.
  std::vector<Index> r, c;
  std::vector<double> v;
  for (Index i = 0; i < 4; ++i)
    for (Index j = 0; j < 4; ++j)
      if (j - i <= 2 && i - j <= 1) {
        r.push_back(i);
        c.push_back(j);
        v.push_back(10.0 * double(i) + double(j) + 1);
      }
  auto A = hm_from_coo<double>(Layout::square(4), Index(v.size()), r.data(), c.data(), v.data());
  BOOST_TEST((A.offsets == std::vector<Index>{-1, 0, 1, 2}));
  const std::vector<double> expect{11, 22, 33,  // a10 a21 a32
                                   1,  12, 23, 34,  // a00 a11 a22 a33
                                   2,  13, 24,  // a01 a12 a23
                                   3,  14};  // a02 a13
  BOOST_TEST(A.val == expect, boost::test_tools::per_element());
  // The paper's rule: a_ij is A[j - i][min(i, j)] (square, sequential).
  for (Index i = 0; i < 4; ++i)
    for (Index j = 0; j < 4; ++j)
      if (const double* a = A.find(i, j)) {
        const Index k = A.find_diagonal(j - i);
        BOOST_TEST(*a == A.val[A.start[k] + std::min(i, j)]);
      }
  // CDM: compact diagonal 3 is (a03 | a10 a21 a32), the paper's A_3.
  auto C = cdm_from_hm(A);
  BOOST_TEST((C.koffsets == std::vector<Index>{0, 1, 2, 3}));
  const Index k3 = C.find_diagonal(3);
  const std::vector<double> A3(C.val.begin() + 4 * k3, C.val.begin() + 4 * k3 + 4);
  BOOST_TEST((A3 == std::vector<double>{0.0 /* a03 outside the band */, 11, 22, 33}), boost::test_tools::per_element());
  // Compact diagonal 1 is (a01 a12 a23 | a30): a30 is outside the band.
  const Index k1 = C.find_diagonal(1);
  BOOST_TEST((std::vector<double>(C.val.begin() + 4 * k1, C.val.begin() + 4 * k1 + 4) ==
              std::vector<double>{2, 13, 24, 0}),
             boost::test_tools::per_element());
}

// hm_csr_pattern_if / hm_csr_values_if / hm_csr_pattern_equals_if (the aij
// copy's row-by-row path) against hm_to_csr (diagonal by diagonal), with a
// rule that keeps nonzeros and the main diagonal.
BOOST_AUTO_TEST_CASE(csr_pattern_values_by_rule) {
  std::mt19937_64 rng(77);
  int checked = 0;
  for (Index n : test_sizes()) {
    for (const Layout& L : row_blocks(n, n)) {
      for (const auto& oc : offset_cases(n, n, rng)) {
        if (n == 1000 && oc.name == "dense") continue;
        const RandomBlock b = random_block(L, oc.offsets, rng, 0.6);  // 40% stored zeros
        const HmMatrix<double> A = to_hm(b);
        const auto keep = [](Index i, Index j, double v) { return i == j || v != 0.0; };
        BOOST_TEST_CONTEXT("n=" << n << " r0=" << L.row_begin << " rows=" << L.nrows << " " << oc.name) {
          // the reference: hm_to_csr without zeros, plus the stored zeros on the main diagonal
          const Csr<double> all = hm_to_csr(A, true);
          Csr<double> ref;
          ref.rowptr.assign(all.rowptr.size(), 0);
          for (Index il = 0; il < L.nrows; ++il) {
            for (Index p = all.rowptr[il]; p < all.rowptr[il + 1]; ++p)
              if (keep(L.row_begin + il, all.colidx[p], all.vals[p])) {
                ref.colidx.push_back(all.colidx[p]);
                ref.vals.push_back(all.vals[p]);
              }
            ref.rowptr[il + 1] = Index(ref.colidx.size());
          }
          std::vector<Index> rowptr, colidx;
          hm_csr_pattern_if(A, keep, rowptr, colidx);
          BOOST_TEST(rowptr == ref.rowptr);
          BOOST_TEST(colidx == ref.colidx);
          std::vector<double> vals(colidx.size(), -1.0);
          hm_csr_values_if(A, keep, vals.data());
          BOOST_TEST(vals == ref.vals);
          const Csr<double> whole = hm_to_csr_if(A, keep);
          BOOST_TEST((whole.rowptr == ref.rowptr && whole.colidx == ref.colidx && whole.vals == ref.vals));
          BOOST_TEST(hm_csr_pattern_equals_if(A, keep, rowptr, colidx));
          if (!colidx.empty()) {  // another column, one entry fewer, one more: all differ
            std::vector<Index> moved = colidx;
            moved.back() += 1;
            BOOST_TEST(!hm_csr_pattern_equals_if(A, keep, rowptr, moved));
            std::vector<Index> fewer(colidx.begin(), colidx.end() - 1), shorter = rowptr;
            shorter.back() -= 1;
            BOOST_TEST(!hm_csr_pattern_equals_if(A, keep, shorter, fewer));
            const auto keep_more = [](Index, Index, double) { return true; };
            if (whole.colidx.size() < all.colidx.size()) BOOST_TEST(!hm_csr_pattern_equals_if(A, keep_more, rowptr, colidx));
          }
          ++checked;
        }
      }
    }
  }
  BOOST_TEST(checked > 50);
}

// The pattern a rule chose, kept as the slots it left out
// (hm_slots_outside_csr): the values in CSR order without the rule
// (hm_csr_values_except) equal the rule's, the values taken back
// (hm_csr_values_take_except) restore the block and report the zeros, and a
// nonzero at a slot left out (hm_slots_any_nonzero) is exactly a change of
// the rule's pattern.
BOOST_AUTO_TEST_CASE(csr_values_by_slots_outside_pattern) {
  std::mt19937_64 rng(78);
  int checked = 0;
  for (Index n : test_sizes()) {
    for (const Layout& L : row_blocks(n, n)) {
      for (const auto& oc : offset_cases(n, n, rng)) {
        if (n == 1000 && oc.name == "dense") continue;
        const RandomBlock b = random_block(L, oc.offsets, rng, 0.6);  // 40% stored zeros
        HmMatrix<double> A = to_hm(b);
        const auto keep = [](Index i, Index j, double v) { return i == j || v != 0.0; };
        BOOST_TEST_CONTEXT("n=" << n << " r0=" << L.row_begin << " rows=" << L.nrows << " " << oc.name) {
          std::vector<Index> rowptr, colidx, outside;
          hm_csr_pattern_if(A, keep, rowptr, colidx);
          BOOST_TEST_REQUIRE(hm_slots_outside_csr(A, rowptr, colidx, outside));
          BOOST_TEST(Index(outside.size() + colidx.size()) == A.nstored());
          std::vector<double> ref(colidx.size()), got(colidx.size(), -1.0);
          hm_csr_values_if(A, keep, ref.data());
          hm_csr_values_except(A, outside, got.data());
          BOOST_TEST(got == ref);
          BOOST_TEST(!hm_slots_any_nonzero(A, outside));
          // taken back into scrambled values: the block again, the zeros reported
          HmMatrix<double> B = A;
          std::fill(B.val.begin(), B.val.end(), 7.0);
          std::vector<Position> zeros, want;
          hm_csr_values_take_except(B, outside, ref.data(), [&](Index i, Index j) { zeros.emplace_back(i, j); });
          BOOST_TEST(B.val == A.val);
          for (Index il = 0; il < L.nrows; ++il)
            for (Index p = rowptr[il]; p < rowptr[il + 1]; ++p)
              if (ref[p] == 0.0) want.emplace_back(L.row_begin + il, colidx[p]);
          BOOST_TEST(zeros == want);
          BOOST_TEST(csr_holds_positions(rowptr, colidx, L.row_begin, want));
          if (!outside.empty()) {  // a nonzero where the pattern has no entry: the rule's pattern changes
            const Index s = outside[outside.size() / 2];
            A.val[static_cast<std::size_t>(s)] = 0.5;
            BOOST_TEST(hm_slots_any_nonzero(A, outside));
            BOOST_TEST(!hm_csr_pattern_equals_if(A, keep, rowptr, colidx));
            // the slot's position is not in the pattern
            Index k = 0;
            while (A.start[k + 1] <= s) ++k;
            const Index i = L.lo(A.offsets[k]) + s - A.start[k];
            BOOST_TEST(!csr_holds_positions(rowptr, colidx, L.row_begin, {{i, i + A.offsets[k]}}));
          }
          if (!colidx.empty()) {  // a pattern holding a position that is not stored
            std::vector<Index> moved = colidx;
            moved.back() = n;  // no column
            BOOST_TEST(!hm_slots_outside_csr(A, rowptr, moved, outside));
            BOOST_TEST(outside.empty());
          }
          ++checked;
        }
      }
    }
  }
  BOOST_TEST(checked > 50);
}

// PositionSet against std::set: positions recorded in order (an assembly's
// rows), again (a re-assembly: nothing joins), in random order, with
// repeats, few or many at once; merges, the positions a merge added and its
// stamps, rows erased, cleared.
BOOST_AUTO_TEST_CASE(position_set_matches_std_set) {
  std::mt19937_64 rng(79);
  std::uniform_int_distribution<Index> row(0, 199), col(0, 49);
  PositionSet P;
  std::set<Position> ref;
  const auto same = [&] { return P.list() == std::vector<Position>(ref.begin(), ref.end()); };
  for (int round = 0; round < 40; ++round) {
    std::vector<Position> rec;
    const int kind = round % 4;  // 0 ascending, 1 the list itself again, 2 random, 3 descending
    if (kind == 1) rec = P.list();
    else
      for (int e = 0; e < (round == 22 ? 4000 : 60); ++e) rec.emplace_back(row(rng), col(rng));  // round 22: many, merged in one pass
    if (kind == 0) std::sort(rec.begin(), rec.end());
    if (kind == 3) std::sort(rec.rbegin(), rec.rend());
    if (round % 5 == 0 && !rec.empty()) rec.push_back(rec.front());  // a repeat
    std::set<Position> added;
    for (const Position& p : rec) {
      P.record(p.first, p.second);
      if (!ref.count(p)) added.insert(p);
    }
    const std::uint64_t before = P.stamp();
    const bool grew = P.merge();
    ref.insert(rec.begin(), rec.end());
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_TEST(same());
      BOOST_TEST(grew == !added.empty());
      BOOST_TEST(!P.waiting());
      if (grew) {
        BOOST_TEST(P.stamp() != before);
        if (8 * added.size() <= ref.size() && ref.size() > added.size()) {  // few added to a list: kept
          BOOST_TEST(P.stamp_before_merge() == before);
          BOOST_TEST(P.last_added() == std::vector<Position>(added.begin(), added.end()));
        } else BOOST_TEST(P.stamp_before_merge() == 0u);
      } else BOOST_TEST(P.stamp() == before);
    }
  }
  // a copy keeps the stamp; erasing rows and clearing change it
  const PositionSet copy = P;
  BOOST_TEST(copy.stamp() == P.stamp());
  const std::uint64_t s0 = P.stamp();
  P.record(1000, 1);  // waiting, then erased with its row
  P.erase_rows({3, 17, 1000});
  for (auto it = ref.begin(); it != ref.end();) it = (it->first == 3 || it->first == 17) ? ref.erase(it) : std::next(it);
  BOOST_TEST(!P.merge());
  BOOST_TEST(same());
  BOOST_TEST(P.stamp() != s0);
  BOOST_TEST(P.stamp_before_merge() == 0u);
  P.clear();
  BOOST_TEST(P.empty());
  BOOST_TEST(copy.list().size() > 0u);
}

// hm_to_csr_nonzeros (a diagonal at a time: the aij matrix of a scattered
// block) equals the row-by-row walk hm_to_csr_if with the rule it stands
// for: nonzeros, the stored main diagonal, and positions set to zero (some
// stored zeros, some positions no diagonal holds, which it adds as zeros).
BOOST_AUTO_TEST_CASE(csr_of_nonzeros_by_diagonals) {
  std::mt19937_64 rng(78);
  int checked = 0;
  for (Index n : test_sizes()) {
    if (n > 300) continue;
    for (const Layout& L : row_blocks(n, n)) {
      for (const auto& oc : offset_cases(n, n, rng)) {
        const RandomBlock b = random_block(L, oc.offsets, rng, 0.5);
        HmMatrix<double> A = to_hm(b);
        std::vector<std::pair<Index, Index>> set_zeros;
        for (Index i = L.row_begin; i < L.row_end(); i += 3) {
          const Index j = (i * 7 + 1) % n;
          if (double* a = A.find(i, j)) *a = 0.0;
          set_zeros.emplace_back(i, j);
        }
        std::sort(set_zeros.begin(), set_zeros.end());
        const bool diagonal_stored = A.find_diagonal(0) >= 0;
        const auto keep = [&](Index i, Index j, double v) {
          return (i == j && diagonal_stored) || v != 0.0 || std::binary_search(set_zeros.begin(), set_zeros.end(), std::make_pair(i, j));
        };
        BOOST_TEST_CONTEXT("n=" << n << " r0=" << L.row_begin << " rows=" << L.nrows << " " << oc.name) {
          // the walk's entries plus the set zeros no diagonal stores
          const Csr<double> walk = hm_to_csr_if(A, keep);
          std::vector<Index> rows, cols;
          for (Index il = 0; il < L.nrows; ++il)
            for (Index p = walk.rowptr[il]; p < walk.rowptr[il + 1]; ++p) {
              rows.push_back(L.row_begin + il);
              cols.push_back(walk.colidx[p]);
            }
          for (const auto& [i, j] : set_zeros) {
            rows.push_back(i);
            cols.push_back(j);
          }
          Csr<double> ref;
          coo_pattern(L, Index(rows.size()), rows.data(), cols.data(), ref.rowptr, ref.colidx);
          for (Index il = 0; il < L.nrows; ++il)
            for (Index p = ref.rowptr[il]; p < ref.rowptr[il + 1]; ++p) {
              const double* a = A.find(L.row_begin + il, ref.colidx[p]);
              ref.vals.push_back(a ? *a : 0.0);
            }
          const Csr<double> fast = hm_to_csr_nonzeros(A, true, set_zeros);
          BOOST_TEST(fast.rowptr == ref.rowptr, boost::test_tools::per_element());
          BOOST_TEST(fast.colidx == ref.colidx, boost::test_tools::per_element());
          BOOST_TEST(fast.vals == ref.vals, boost::test_tools::per_element());
          ++checked;
        }
      }
    }
  }
  BOOST_TEST(checked > 30);
}

BOOST_AUTO_TEST_CASE(coo_hm_csr_cdm_round_trips) {
  std::mt19937_64 rng(2024);
  int checked = 0;
  for (Index n : test_sizes()) {
    for (Index m : {n, n + 3, std::max<Index>(1, n / 2)}) {
      for (const Layout& L : row_blocks(m, n)) {
        for (const auto& oc : offset_cases(m, n, rng)) {
          if (n == 1000 && oc.name == "dense") continue;
          const RandomBlock b = random_block(L, oc.offsets, rng, 0.9);
          const HmMatrix<double> A = to_hm(b);
          BOOST_TEST_CONTEXT("n=" << n << " m=" << m << " r0=" << L.row_begin << " rows=" << L.nrows << " " << oc.name) {
            BOOST_TEST(A.offsets == b.offsets);
            BOOST_TEST(same(dense_of(A), b.dense));
            // CSR round trip keeps the values exactly (explicit zeros kept).
            const Csr<double> csr = hm_to_csr(A);
            const HmMatrix<double> A2 = hm_from_csr<Index, double>(L, csr.rowptr.data(), csr.colidx.data(), csr.vals.data());
            BOOST_TEST(A2.offsets == A.offsets);
            BOOST_TEST(A2.val == A.val);
            // COO round trip
            const Coo<double> coo = hm_to_coo(A);
            const HmMatrix<double> A3 = hm_from_coo<double>(L, Index(coo.vals.size()), coo.rows.data(),
                                                             coo.cols.data(), coo.vals.data());
            BOOST_TEST(A3.val == A.val);
            if (L.is_square()) {
              const CdmMatrix<double> C = cdm_from_hm(A);
              BOOST_TEST(same(dense_of(C), b.dense));
              const HmMatrix<double> A4 = hm_from_cdm(C, A.offsets);
              BOOST_TEST(A4.val == A.val);
              // The nonzero offsets of the CDM block are within A's.
              for (Index d : cdm_nonzero_offsets(C)) BOOST_TEST(A.find_diagonal(d) >= 0);
            }
            ++checked;
          }
        }
      }
    }
  }
  BOOST_TEST(checked > 200);
}

BOOST_AUTO_TEST_CASE(csr_drops_zeros_on_request) {
  HmMatrix<double> A(Layout::square(3), {-1, 0, 1});
  *A.find(0, 0) = 1;
  *A.find(1, 2) = 2;
  const Csr<double> all = hm_to_csr(A, true), nz = hm_to_csr(A, false);
  BOOST_TEST(all.vals.size() == 7u);
  BOOST_TEST((nz.rowptr == std::vector<Index>{0, 1, 2, 2}));
  BOOST_TEST((nz.colidx == std::vector<Index>{0, 2}));
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused) {
  const Layout L = Layout::block(5, 5, 1, 2);
  const Index r_out[] = {0}, c_ok[] = {1}, r_ok[] = {1}, c_out[] = {5};
  const double v[] = {1.0};
  BOOST_CHECK_THROW(hm_from_coo<double>(L, 1, r_out, c_ok, v), FormatError);  // row not in the block
  BOOST_CHECK_THROW(hm_from_coo<double>(L, 1, r_ok, c_out, v), FormatError);  // column past the end
  BOOST_CHECK_THROW(HmMatrix<double>(Layout::square(4), {4}), FormatError);   // offset outside (-4, 4)
  BOOST_CHECK_THROW(HmMatrix<double>(Layout::square(4), {-4}), FormatError);
  BOOST_CHECK_THROW(CdmMatrix<double>(Layout::rect(3, 4), {0}), FormatError);  // CDM needs square
  BOOST_CHECK_THROW(CdmMatrix<double>(Layout::square(3), {3}), FormatError);
  BOOST_CHECK_THROW(check_layout(Layout::block(5, 5, 4, 2)), FormatError);
  // CDM -> HM refuses to drop a nonzero that has no place in the HM set.
  HmMatrix<double> A(Layout::square(4), {-3, 1});
  *A.find(3, 0) = 7;
  const auto C = cdm_from_hm(A);
  BOOST_CHECK_THROW(hm_from_cdm(C, {1}), FormatError);
  BOOST_CHECK_THROW(hm_from_cdm(C, {1, -3, 2}), FormatError);  // 2 has no compact diagonal
}

BOOST_AUTO_TEST_CASE(structure_report_counts) {
  // Tridiagonal 100 x 100: 298 stored in HM, 3 compact diagonals of 100 in CDM.
  HmMatrix<double> A(Layout::square(100), {-1, 0, 1});
  for (double& a : A.val) a = 1.0;
  const StructureReport r = structure_report(A);
  BOOST_TEST(r.ndiag_hm == 3);
  BOOST_TEST(r.stored_hm == 298);
  BOOST_TEST(r.nonzeros == 298);
  BOOST_TEST(r.fill_hm == 1.0);
  BOOST_TEST(r.ndiag_cdm == 3);
  BOOST_TEST(r.stored_cdm == 300);
  BOOST_TEST(r.fill_cdm == 298.0 / 300.0);
  BOOST_TEST(r.bytes_hm == 298 * 8 + 7 * 8);
  BOOST_TEST(r.bytes_cdm == 300 * 8 + 3 * 8);
  BOOST_TEST(r.bytes_csr == 298 * 12 + 101 * 4);
  // CDM pads 2 entries but stores 4 fewer offsets: 16 bytes cheaper.
  BOOST_TEST((cheaper_scheme(r, A.layout) == Scheme::CDM));
  // Main diagonal and one far super diagonal: CDM would pad 60 entries.
  HmMatrix<double> F(Layout::square(100), {0, 60});
  BOOST_TEST((cheaper_scheme(structure_report(F), F.layout) == Scheme::HM));
  // A dense 4 x 4: HM and CDM both store 16 entries; CDM has fewer offsets.
  std::vector<Index> all;
  for (Index d = -3; d <= 3; ++d) all.push_back(d);
  HmMatrix<double> D(Layout::square(4), all);
  const StructureReport rd = structure_report(D, 16);
  BOOST_TEST(rd.stored_hm == 16);
  BOOST_TEST(rd.stored_cdm == 16);
  BOOST_TEST((cheaper_scheme(rd, D.layout) == Scheme::CDM));
}

// Staged entries (pdiag::StagedDiagonal): inserts and adds in order, before
// and after the list turns dense at half the diagonal's length, give the same
// diagonal as applying them to a dense array; the counts of hm_count and
// cdm_count match the storage built from the same offsets.
BOOST_AUTO_TEST_CASE(staged_diagonal_matches_dense_replay) {
  const Layout L = Layout::block(40, 40, 10, 20);
  for (Index d : {Index(-25), Index(-3), Index(0), Index(7), Index(29)}) {
    StagedDiagonal<double> s;
    std::vector<double> ref(static_cast<std::size_t>(L.length(d)), 0.0);
    std::vector<std::pair<Index, std::pair<double, bool>>> ops;
    for (Index k = 0; k < 3 * L.length(d); ++k) {
      const Index i = L.lo(d) + (k * 7) % L.length(d);
      const bool add = (k % 3) == 1;
      const double v = 1.0 + 0.25 * static_cast<double>(k);
      s.set(L, d, i, v, add);
      double& r = ref[static_cast<std::size_t>(i - L.lo(d))];
      r = add ? r + v : v;
      if (k == 0 && L.length(d) > 2) BOOST_TEST(s.dense.empty());  // sparse until it fills half the diagonal
    }
    BOOST_TEST(!s.dense.empty());
    std::vector<double> out(ref.size(), 0.0);
    s.replay(L.lo(d), out.data());
    BOOST_TEST(out == ref, boost::test_tools::per_element());
    BOOST_TEST(s.nset == 3 * L.length(d));
  }
  const std::vector<Index> offs{-35, -3, 0, 0, 5, 7, 29, 7};
  const StorageCount c = hm_count(L, offs);
  const HmMatrix<double> A(L, offs);
  BOOST_TEST(c.ndiag == A.ndiag());
  BOOST_TEST(c.nstored == A.nstored());
  const StorageCount cc = cdm_count(L, offs);
  BOOST_TEST(cc.ndiag == 5);  // -35 and 5 share compact diagonal 5: {0, 5, 7, 29, 37}
  BOOST_TEST(cc.nstored == 5 * L.nrows);
}
