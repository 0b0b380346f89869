// The CPU reference of pdiag/galerkin_q1.hpp: C = P^T A P of the Q1
// interpolation of 2:1 vertex-centred refinements (1D, 2D, 3D; grids of one
// and two points a side among them) against the product computed from P's
// Kronecker-product CSR (galerkin_q1_testing.hpp), for star and box
// operators with random values; every stored entry of C written (C
// starts filled with garbage); the diagonals of C the box stencil's on the
// coarse grid; and failure reported, not hidden, when a nonzero couples
// fine points two apart or wraps around a grid line, or sizes do not fit.
#define BOOST_TEST_MODULE galerkin_q1
#include <boost/test/unit_test.hpp>

#include "galerkin_q1_testing.hpp"

using namespace pdiag;
using namespace pdiag::testing;

BOOST_AUTO_TEST_CASE(offsets_are_the_coarse_box_stencil) {
  VertexGrids g;
  const Index c[3] = {5, 4, 3};
  for (int d = 0; d < 3; ++d) g.coarse[d] = c[d], g.fine[d] = 2 * c[d] - 1;
  Q1Places places;
  const std::vector<Index> offs = vertex_q1_galerkin_offsets(g, &places);
  BOOST_TEST(offs.size() == 27u);
  BOOST_TEST(std::is_sorted(offs.begin(), offs.end()));
  for (int p = 0; p < kQ1Places; ++p) BOOST_TEST(offs[places.diag[p]] == (p % 3 - 1) + 5 * ((p / 3) % 3 - 1 + 4 * (p / 9 - 1)));
  VertexGrids flat; /* 2D: no z displacement */
  flat.coarse[0] = 5, flat.fine[0] = 9, flat.coarse[1] = 3, flat.fine[1] = 5;
  BOOST_TEST(vertex_q1_galerkin_offsets(flat, &places).size() == 9u);
  for (int p = 0; p < kQ1Places; ++p) BOOST_TEST((places.diag[p] < 0) == (p / 9 != 1));
  VertexGrids two; /* two points a side: +1 in x and -1 in x, +1 in y share offset 1 */
  for (int d = 0; d < 3; ++d) two.coarse[d] = 2, two.fine[d] = 3;
  const std::vector<Index> shared = vertex_q1_galerkin_offsets(two, &places);
  BOOST_TEST((std::adjacent_find(shared.begin(), shared.end()) == shared.end()));
  BOOST_TEST(places.diag[2 + 3 * 1 + 9 * 1] == places.diag[0 + 3 * 2 + 9 * 1]);
}

BOOST_AUTO_TEST_CASE(equals_the_csr_product) {
  std::mt19937_64 rng(11);
  for (const TransferCase& c : transfer_cases()) {
    for (bool box : {false, true}) {
      BOOST_TEST_CONTEXT(c.name << (box ? ", box" : ", star")) {
        const HmMatrix<double> A = stencil_operator(c.g, box, rng);
        Q1Places places;
        HmMatrix<double> C = galerkin_structure(c.g, &places);
        std::fill(C.val.begin(), C.val.end(), 1e300); /* every entry must be written */
        BOOST_TEST(vertex_q1_galerkin(c.g, A.view(), places, C.view()));
        BOOST_TEST(galerkin_rel_error(C, galerkin_reference(c.g, A), c.g.coarse_points()) < 1e-14);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(far_couplings_fail) {
  std::mt19937_64 rng(12);
  VertexGrids g;
  const Index c[3] = {5, 4, 3};
  for (int d = 0; d < 3; ++d) g.coarse[d] = c[d], g.fine[d] = 2 * c[d] - 1;
  Q1Places places;
  HmMatrix<double> C = galerkin_structure(g, &places);
  { /* a wrapping entry of the +1 diagonal: the last point of a line and the next line's first */
    HmMatrix<double> A = stencil_operator(g, false, rng);
    const Index e = Index(std::find(A.offsets.begin(), A.offsets.end(), 1) - A.offsets.begin());
    const Index row = g.fine[0] - 1;  // (8, 0, 0) -> (0, 1, 0): 8 apart in x
    A.val[A.start[e] + row - A.layout.lo(1)] = 0.25;
    BOOST_TEST(!vertex_q1_galerkin<double>(g, A.view(), places, C.view()));
    A.val[A.start[e] + row - A.layout.lo(1)] = 0.0; /* a stored zero there is no coupling */
    BOOST_TEST(vertex_q1_galerkin<double>(g, A.view(), places, C.view()));
  }
  { /* two apart in x */
    HmMatrix<double> A(Layout::square(g.fine_points()), {-2, 0});
    std::fill(A.val.begin(), A.val.end(), 1.0);
    BOOST_TEST(!vertex_q1_galerkin<double>(g, A.view(), places, C.view()));
  }
  { /* sizes that do not fit: A on another grid, C of the fine grid */
    const HmMatrix<double> A = stencil_operator(g, true, rng);
    HmMatrix<double> small(Layout::square(g.fine_points() - 1), {0});
    BOOST_TEST(!vertex_q1_galerkin<double>(g, small.view(), places, C.view()));
    HmMatrix<double> big(Layout::square(g.fine_points()), {0});
    BOOST_TEST(!vertex_q1_galerkin<double>(g, A.view(), places, big.view()));
    VertexGrids not_refined = g;
    not_refined.fine[0] = 10;
    BOOST_TEST(!vertex_q1_galerkin<double>(not_refined, A.view(), places, C.view()));
  }
}
