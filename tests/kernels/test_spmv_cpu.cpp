// CPU reference kernels against the dense reference: y = A x, y = A x + z,
// y = A^T x (+ z), row ranges, shifted vector addressing, diagonal
// extraction and scaling, for HM and CDM, square and row-block layouts.
#define BOOST_TEST_MODULE spmv_cpu
#include <boost/test/unit_test.hpp>

#include "pdiag/cpu.hpp"
#include "testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

namespace {

struct Case {
  std::string name;
  RandomBlock b;
  HmMatrix<double> hm;
};

// Every (size, layout, offset set) combination of the foundation issue.
template <class F>
void for_each_case(F&& f) {
  std::mt19937_64 rng(7);
  for (Index n : test_sizes())
    for (Index m : {n, n + 2})
      for (const Layout& L : row_blocks(m, n))
        for (const auto& oc : offset_cases(m, n, rng)) {
          if (n == 1000 && oc.name == "dense") continue;
          Case c{oc.name + " n=" + std::to_string(n) + " m=" + std::to_string(m) + " r0=" +
                     std::to_string(L.row_begin) + " rows=" + std::to_string(L.nrows),
                 random_block(L, oc.offsets, rng, 0.95), {}};
          c.hm = to_hm(c.b);
          f(c, rng);
        }
}

std::vector<double> rows_of(const std::vector<double>& y, Index b, Index e) {
  return std::vector<double>(y.begin() + b, y.begin() + e);
}

}  // namespace

BOOST_AUTO_TEST_CASE(hm_and_cdm_products_with_a_vector) {
  int checked = 0;
  for_each_case([&](const Case& c, std::mt19937_64& rng) {
    const Layout& L = c.hm.layout;
    const auto x = random_vector(L.ncols, rng);
    const auto xt = random_vector(L.nrows, rng);
    const auto z = random_vector(L.nrows, rng);
    const auto zt = random_vector(L.ncols, rng);
    const auto ref = dense_mv(c.b.dense, x);
    const auto reft = dense_mtv(c.b.dense, xt);
    std::vector<double> refz(ref), reftz(reft);
    for (Index i = 0; i < L.nrows; ++i) refz[i] += z[i];
    for (Index j = 0; j < L.ncols; ++j) reftz[j] += zt[j];
    BOOST_TEST_CONTEXT(c.name) {
      std::vector<double> y(L.nrows, NAN), yt(L.ncols, NAN);
      hm_spmv(c.hm.view(), x.data(), y.data());
      BOOST_TEST(rel_err(y, ref) <= kTol);
      hm_spmv(c.hm.view(), x.data(), y.data(), z.data());
      BOOST_TEST(rel_err(y, refz) <= kTol);
      y = z;  // y aliases z
      hm_spmv(c.hm.view(), x.data(), y.data(), y.data());
      BOOST_TEST(rel_err(y, refz) <= kTol);
      hm_spmv_t(c.hm.view(), xt.data(), yt.data(), L.ncols);
      BOOST_TEST(rel_err(yt, reft) <= kTol);
      yt = zt;
      hm_spmv_t(c.hm.view(), xt.data(), yt.data(), L.ncols, yt.data());
      BOOST_TEST(rel_err(yt, reftz) <= kTol);
      // A row range leaves the other rows untouched.
      const Index b = L.nrows / 3, e = L.nrows - L.nrows / 4;
      std::fill(y.begin(), y.end(), -7.0);
      hm_spmv(c.hm.view(), x.data(), y.data(), nullptr, nullptr, b, e);
      BOOST_TEST(rel_err(rows_of(y, b, e), rows_of(ref, b, e)) <= kTol);
      for (Index i = 0; i < L.nrows; ++i)
        if (i < b || i >= e) BOOST_TEST(y[i] == -7.0);
      // Diagonal extraction
      std::vector<double> dg(L.nrows, NAN), dref(L.nrows, 0.0);
      for (Index il = 0; il < L.nrows; ++il)
        if (L.row_begin + il < L.ncols) dref[il] = c.b.dense(il, L.row_begin + il);
      hm_get_diagonal(c.hm.view(), dg.data());
      BOOST_TEST(dg == dref);
      if (L.is_square()) {
        const CdmMatrix<double> C = cdm_from_hm(c.hm);
        std::fill(y.begin(), y.end(), NAN);
        cdm_spmv(C.view(), x.data(), y.data());
        BOOST_TEST(rel_err(y, ref) <= kTol);
        y = z;
        cdm_spmv(C.view(), x.data(), y.data(), y.data());
        BOOST_TEST(rel_err(y, refz) <= kTol);
        std::fill(y.begin(), y.end(), -7.0);
        cdm_spmv(C.view(), x.data(), y.data(), nullptr, nullptr, b, e);
        BOOST_TEST(rel_err(rows_of(y, b, e), rows_of(ref, b, e)) <= kTol);
        for (Index i = 0; i < L.nrows; ++i)
          if (i < b || i >= e) BOOST_TEST(y[i] == -7.0);
        std::fill(yt.begin(), yt.end(), NAN);
        cdm_spmv_t(C.view(), xt.data(), yt.data(), L.ncols);
        BOOST_TEST(rel_err(yt, reft) <= kTol);
        yt = zt;
        cdm_spmv_t(C.view(), xt.data(), yt.data(), L.ncols, yt.data());
        BOOST_TEST(rel_err(yt, reftz) <= kTol);
        std::fill(dg.begin(), dg.end(), NAN);
        cdm_get_diagonal(C.view(), dg.data());
        BOOST_TEST(dg == dref);
      }
    }
    ++checked;
  });
  BOOST_TEST(checked > 300);
}

BOOST_AUTO_TEST_CASE(shifted_vector_addressing) {
  // x stored with a gap of 5 padding entries before column 0, as a ghost
  // vector would: shift[k] = default + 5. Results must not change.
  std::mt19937_64 rng(11);
  for (Index n : {4, 17, 64}) {
    const Layout L = Layout::block(n, n, n / 4, n / 2);
    const RandomBlock b = random_block(L, {-(n - 1), -2, 0, 1, n / 2}, rng);
    const auto A = to_hm(b);
    const auto C = cdm_from_hm(A);
    const auto x = random_vector(n, rng);
    std::vector<double> xp(5, NAN);
    xp.insert(xp.end(), x.begin(), x.end());
    auto s = default_shift(L, A.offsets);
    for (Index& v : s) v += 5;
    auto sc = default_cdm_shift(L, C.koffsets);
    for (Index& v : sc) v += 5;
    const auto ref = dense_mv(b.dense, x);
    std::vector<double> y(L.nrows, NAN);
    hm_spmv(A.view(), xp.data(), y.data(), nullptr, s.data());
    BOOST_TEST(rel_err(y, ref) <= kTol);
    std::fill(y.begin(), y.end(), NAN);
    cdm_spmv(C.view(), xp.data(), y.data(), nullptr, sc.data());
    BOOST_TEST(rel_err(y, ref) <= kTol);
    // transpose into a padded output of n + 5 entries
    const auto xt = random_vector(L.nrows, rng);
    auto reft = dense_mtv(b.dense, xt);
    std::vector<double> yt(n + 5, NAN);
    hm_spmv_t(A.view(), xt.data(), yt.data(), n + 5, nullptr, s.data());
    BOOST_TEST(rel_err(rows_of(yt, 5, n + 5), reft) <= kTol);
    for (int p = 0; p < 5; ++p) BOOST_TEST(yt[p] == 0.0);
    std::fill(yt.begin(), yt.end(), NAN);
    cdm_spmv_t(C.view(), xt.data(), yt.data(), n + 5, nullptr, sc.data());
    BOOST_TEST(rel_err(rows_of(yt, 5, n + 5), reft) <= kTol);
  }
}

BOOST_AUTO_TEST_CASE(scaling) {
  std::mt19937_64 rng(5);
  for (Index n : {1, 3, 17, 64}) {
    const Layout L = Layout::square(n);
    std::vector<Index> offs;
    for (Index d = -(n - 1); d <= n - 1; d += std::max<Index>(1, n / 5)) offs.push_back(d);
    const RandomBlock b = random_block(L, offs, rng);
    auto A = to_hm(b);
    auto C = cdm_from_hm(A);
    const auto l = random_vector(n, rng), r = random_vector(n, rng);
    Dense ref = b.dense;
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j) ref(i, j) *= 2.0 * l[i] * r[j];
    scale_values(A.val.data(), A.nstored(), 2.0);
    scale_values(C.val.data(), C.nstored(), 2.0);
    hm_diagonal_scale(A.view(), l.data(), r.data());
    cdm_diagonal_scale(C.view(), l.data(), r.data());
    const auto x = random_vector(n, rng);
    std::vector<double> y(n), yc(n);
    hm_spmv(A.view(), x.data(), y.data());
    cdm_spmv(C.view(), x.data(), yc.data());
    BOOST_TEST(rel_err(y, dense_mv(ref, x)) <= kTol);
    BOOST_TEST(rel_err(yc, dense_mv(ref, x)) <= kTol);
  }
}
