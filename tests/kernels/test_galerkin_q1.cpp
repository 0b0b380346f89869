// The CPU reference of pdiag/galerkin_q1.hpp: C = P^T A P of the Q1
// interpolation of 2:1 vertex-centred refinements (1D, 2D, 3D; grids of one
// and two points a side among them) against the product computed from P's
// Kronecker-product CSR (galerkin_q1_testing.hpp), for star and box
// operators with random values; every stored entry of C written (C
// starts filled with garbage); the diagonals of C the box stencil's on the
// coarse grid; a constant-coefficient operator read in compressed form
// (constant diagonals with exceptions) giving the same C; and failure
// reported, not hidden, when a nonzero couples fine points two apart or
// wraps around a grid line, or sizes do not fit.
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

BOOST_AUTO_TEST_CASE(within_one_checks) {
  const Index n[3] = {5, 4, 3};  // point (x, y, z) is x + 5 y + 20 z
  BOOST_TEST(grid_points_within_one(n, 0, 26));   // (0,0,0) and (1,1,1)
  BOOST_TEST(!grid_points_within_one(n, 4, 5));   // (4,0,0) and (0,1,0): the +1 that wraps
  BOOST_TEST(!grid_points_within_one(n, 0, 2));   // two apart in x
  BOOST_TEST(!grid_points_within_one(n, 0, 40));  // two apart in z
  const std::vector<Index> rowptr{0, 2, 3}, ok_cols{0, 1, 7}, bad_cols{0, 1, 3};
  BOOST_TEST(csr_within_one(n, 2, rowptr.data(), ok_cols.data()));   // row 1, (1,0,0), with (2,1,0)
  BOOST_TEST(!csr_within_one(n, 2, rowptr.data(), bad_cols.data())); // row 1 with (3,0,0)
  BOOST_TEST(pairs_within_one(n, {{0, 1}, {26, 0}}));
  BOOST_TEST(!pairs_within_one(n, {{0, 1}, {9, 10}}));  // (4,1,0) and (0,2,0)
  GridStencil s;
  s.dim = 3, s.width = 1, s.owned = {std::vector<Index>{5}, std::vector<Index>{4}, std::vector<Index>{3}};
  BOOST_TEST(stencil_within_one(s, n));
  s.width = 2;
  BOOST_TEST(!stencil_within_one(s, n));
  s.width = 1, s.periodic[1] = true;
  BOOST_TEST(!stencil_within_one(s, n));
  s.periodic[1] = false, s.owned[0] = {2, 2};  // 4 points in x: another grid
  BOOST_TEST(!stencil_within_one(s, n));
  s.owned[0] = {3, 2}, s.dof = 2;                // the same grid split in two, two fields
  BOOST_TEST(!stencil_within_one(s, n));
  s.dof = 1;
  BOOST_TEST(stencil_within_one(s, n));
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

BOOST_AUTO_TEST_CASE(compressed_operator_gives_the_same_product) {
  for (const TransferCase& c : transfer_cases()) {
    for (bool box : {false, true}) {
      BOOST_TEST_CONTEXT(c.name << (box ? ", box" : ", star")) {
        const HmMatrix<double> A = constant_operator(c.g, box);
        const HmCompressed<double> Z = hm_compress(A);
        Q1Places places;
        HmMatrix<double> from_hm = galerkin_structure(c.g, &places), from_z = galerkin_structure(c.g, &places);
        std::fill(from_z.val.begin(), from_z.val.end(), 1e300);
        BOOST_TEST(vertex_q1_galerkin(c.g, A.view(), places, from_hm.view()));
        BOOST_TEST(vertex_q1_galerkin(c.g, Z.view(), places, from_z.view()));
        BOOST_TEST(from_z.val == from_hm.val); /* the same entries read: the same sums */
        BOOST_TEST(galerkin_rel_error(from_z, galerkin_reference(c.g, A), c.g.coarse_points()) < 1e-14);
      }
    }
  }
  VertexGrids big; /* enough interior for constant diagonals (the small grids are mostly boundary) */
  const Index coarse[3] = {33, 17, 9};
  for (int d = 0; d < 3; ++d) big.coarse[d] = coarse[d], big.fine[d] = 2 * coarse[d] - 1;
  for (bool box : {false, true}) {
    const HmMatrix<double> A = constant_operator(big, box);
    const HmCompressed<double> Z = hm_compress(A);
    BOOST_TEST(Z.nconstant() == A.ndiag()); /* every diagonal constant: the exceptions are read */
    Q1Places places;
    HmMatrix<double> from_hm = galerkin_structure(big, &places), from_z = galerkin_structure(big, &places);
    BOOST_TEST(vertex_q1_galerkin(big, A.view(), places, from_hm.view()));
    BOOST_TEST(vertex_q1_galerkin(big, Z.view(), places, from_z.view()));
    BOOST_TEST(from_z.val == from_hm.val);
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
