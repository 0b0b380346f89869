// The CPU references of pdiag/transfer.hpp: the Q1 interpolation and
// restriction of 2:1 vertex-centred refinements (1D, 2D, 3D) against P
// built independently as a Kronecker product in CSR (transfer_testing.hpp),
// with and without the added vector and aliased; and csr_is_vertex_q1,
// which must accept that P and refuse it with any entry changed, dropped,
// moved or added, for grids that are not a 2:1 refinement, and for
// columns out of range.
#define BOOST_TEST_MODULE transfer
#include <boost/test/unit_test.hpp>

#include "transfer_testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

BOOST_AUTO_TEST_CASE(refinements_recognized) {
  VertexGrids g;
  g.fine[0] = 9, g.coarse[0] = 5;
  BOOST_TEST(is_vertex_refinement(g));
  g.fine[0] = 10;
  BOOST_TEST(!is_vertex_refinement(g)); /* cell-centred or other ratio */
  g.fine[0] = 9, g.coarse[1] = 2;       /* y: 1 fine point, 2 coarse */
  BOOST_TEST(!is_vertex_refinement(g));
  g.coarse[1] = 0, g.fine[1] = -1;
  BOOST_TEST(!is_vertex_refinement(g));
}

BOOST_AUTO_TEST_CASE(products_equal_the_kronecker_product) {
  std::mt19937_64 rng(3);
  for (const TransferCase& c : transfer_cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      const TransferCsr P = transfer_csr(c.g);
      const Index nf = c.g.fine_points(), nc = c.g.coarse_points();
      BOOST_TEST(Index(P.rowptr.size()) == nf + 1);
      const std::vector<double> xc = random_vector(rng, nc), zf = random_vector(rng, nf);
      const std::vector<double> xf = random_vector(rng, nf), zc = random_vector(rng, nc);
      std::vector<double> yf(nf, 7.0), yc(nc, 7.0);
      vertex_q1_prolong(c.g, xc.data(), yf.data());
      BOOST_TEST(max_rel_diff(yf, csr_apply(P, xc, nullptr)) < 1e-15);
      vertex_q1_prolong(c.g, xc.data(), yf.data(), zf.data());
      BOOST_TEST(max_rel_diff(yf, csr_apply(P, xc, &zf)) < 1e-15);
      std::vector<double> alias = zf;
      vertex_q1_prolong(c.g, xc.data(), alias.data(), alias.data());
      BOOST_TEST(alias == yf);
      vertex_q1_restrict(c.g, xf.data(), yc.data());
      BOOST_TEST(max_rel_diff(yc, csr_apply_transpose(P, nc, xf, nullptr)) < 1e-15);
      vertex_q1_restrict(c.g, xf.data(), yc.data(), zc.data());
      BOOST_TEST(max_rel_diff(yc, csr_apply_transpose(P, nc, xf, &zc)) < 1e-15);
      alias = zc;
      vertex_q1_restrict(c.g, xf.data(), alias.data(), alias.data());
      BOOST_TEST(alias == yc);
    }
  }
}

BOOST_AUTO_TEST_CASE(csr_check_accepts_p_and_refuses_changes) {
  for (const TransferCase& c : transfer_cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      const TransferCsr P = transfer_csr(c.g);
      auto accepted = [&](const TransferCsr& Q, const VertexGrids& g) { return csr_is_vertex_q1(g, Q.rowptr.data(), Q.colidx.data(), Q.val.data()); };
      BOOST_TEST(accepted(P, c.g));
      const std::size_t e = P.val.size() / 2; /* an entry in the middle */
      TransferCsr Q = P;
      Q.val[e] *= 1.0 + 1e-9;
      BOOST_TEST(!accepted(Q, c.g)); /* a value changed */
      Q = P;
      Q.colidx[0] = 1; /* fine point 0 takes coarse point 0 alone */
      if (c.g.coarse_points() > 1) BOOST_TEST(!accepted(Q, c.g)); /* a column moved */
      Q = P;
      Q.colidx[e] = c.g.coarse_points();
      BOOST_TEST(!accepted(Q, c.g)); /* out of range */
      if (P.val.size() > P.rowptr.size() - 1) { /* a row with two or more entries loses its last */
        Q = P;
        Index r = 0;
        while (Q.rowptr[r + 1] - Q.rowptr[r] < 2) ++r;
        const Index last = Q.rowptr[r + 1] - 1;
        Q.colidx.erase(Q.colidx.begin() + last), Q.val.erase(Q.val.begin() + last);
        for (std::size_t s = r + 1; s < Q.rowptr.size(); ++s) --Q.rowptr[s];
        BOOST_TEST(!accepted(Q, c.g));
      }
      /* an extra stored zero where P has none is P still; a nonzero is not */
      Q = P;
      const Index far = (Q.colidx[0] + c.g.coarse_points() - 1) % c.g.coarse_points();
      if (c.g.coarse_points() > 8 && far != Q.colidx[0]) {
        Q.colidx.insert(Q.colidx.begin() + 1, far), Q.val.insert(Q.val.begin() + 1, 0.0);
        for (std::size_t s = 1; s < Q.rowptr.size(); ++s) ++Q.rowptr[s];
        BOOST_TEST(accepted(Q, c.g));
        Q.val[1] = 0.25;
        BOOST_TEST(!accepted(Q, c.g));
      }
      VertexGrids other = c.g; /* the same P read as another refinement */
      other.fine[0] += 1;
      BOOST_TEST(!accepted(P, other));
    }
  }
}
