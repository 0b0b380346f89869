// Stencil offsets of distributed structured grids against a brute force
// enumeration of every owned point (the face-only walk must find the same set);
// the split of a box's couplings walking its faces against the full walk.
#define BOOST_TEST_MODULE stencil
#include <boost/test/unit_test.hpp>

#include "pdiag/remote.hpp"
#include "pdiag/stencil.hpp"

#include <cmath>
#include <random>
#include <set>

using namespace pdiag;

namespace {
std::vector<Index> brute_force(const GridStencil& g, Index px, Index py, Index pz) {
  const detail::GridNumbering num(g);
  const std::array<Index, 3> p{px, py, pz};
  std::set<Index> offs;
  const auto pts = stencil_points(g);
  std::array<Index, 3> lo{}, hi{};
  for (int a = 0; a < 3; ++a) {
    lo[a] = num.first[a][p[a]];
    hi[a] = num.first[a][p[a] + 1];
  }
  for (Index z = lo[2]; z < hi[2]; ++z)
    for (Index y = lo[1]; y < hi[1]; ++y)
      for (Index x = lo[0]; x < hi[0]; ++x)
        for (const auto& o : pts) {
          const Index nx = num.neighbour(0, x, o[0]), ny = num.neighbour(1, y, o[1]), nz = num.neighbour(2, z, o[2]);
          if (nx < 0 || ny < 0 || nz < 0) continue;
          for (Index c1 = 0; c1 < g.dof; ++c1)
            for (Index c2 = 0; c2 < g.dof; ++c2) offs.insert(num.global(nx, ny, nz, c2) - num.global(x, y, z, c1));
        }
  return {offs.begin(), offs.end()};
}
}  // namespace

BOOST_AUTO_TEST_CASE(one_process_lexicographic) {
  // 3D 7-point star on one process: offsets 0, +-1, +-nx, +-nx*ny.
  GridStencil g;
  g.dim = 3;
  g.owned = {std::vector<Index>{5}, std::vector<Index>{4}, std::vector<Index>{3}};
  BOOST_TEST((grid_stencil_offsets(g, 0, 0, 0) == std::vector<Index>{-20, -5, -1, 0, 1, 5, 20}));
  g.box = true;  // 27-point box: 27 distinct offsets
  BOOST_TEST(grid_stencil_offsets(g, 0, 0, 0).size() == 27u);
}

BOOST_AUTO_TEST_CASE(random_decompositions_match_brute_force) {
  std::mt19937_64 rng(3);
  int checked = 0;
  for (int t = 0; t < 60; ++t) {
    GridStencil g;
    g.dim = 1 + int(rng() % 3);
    g.dof = 1 + Index(rng() % 3);
    g.width = Index(rng() % 3);
    g.box = rng() % 2;
    for (int a = 0; a < 3; ++a) {
      g.periodic[a] = rng() % 3 == 0;
      if (a < g.dim) {
        const Index procs = 1 + Index(rng() % 3);
        for (Index q = 0; q < procs; ++q) g.owned[a].push_back(1 + Index(rng() % 6));
      }
    }
    const Index np = Index(g.owned[0].size()), nq = g.dim > 1 ? Index(g.owned[1].size()) : 1,
                nr = g.dim > 2 ? Index(g.owned[2].size()) : 1;
    for (Index pz = 0; pz < nr; ++pz)
      for (Index py = 0; py < nq; ++py)
        for (Index px = 0; px < np; ++px) {
          BOOST_TEST_CONTEXT("trial " << t << " dim " << g.dim << " dof " << g.dof << " s " << g.width << " box "
                                      << g.box << " proc " << px << "," << py << "," << pz) {
            BOOST_TEST(grid_stencil_offsets(g, px, py, pz) == brute_force(g, px, py, pz));
          }
          ++checked;
        }
  }
  BOOST_TEST(checked > 100);
}

BOOST_AUTO_TEST_CASE(bad_description_is_refused) {
  GridStencil g;
  g.dim = 4;
  BOOST_CHECK_THROW(grid_stencil_offsets(g, 0, 0, 0), FormatError);
  g.dim = 1;
  g.owned[0] = {3};
  BOOST_CHECK_THROW(grid_stencil_offsets(g, 1, 0, 0), FormatError);
}

// GridStencilPattern::contains (a row's and a column's grid points worked
// out) and couplings (a row's columns enumerated from the stencil) describe
// the same set: every (row, col) of small grids, on unequal process grids,
// star and box, periodic axes, two components with fill patterns. The
// answers also give each row's coupling count, which the stencil bounds.
BOOST_AUTO_TEST_CASE(pattern_contains_equals_couplings) {
  struct Case {
    int dim;
    bool box, periodic;
    Index dof, width;
    std::array<std::vector<Index>, 3> owned;
  };
  const std::vector<Case> cases = {
      {2, false, false, 1, 1, {{{4, 3}, {3, 2}, {}}}}, {2, true, false, 1, 1, {{{4, 3}, {3, 2}, {}}}},
      {2, true, true, 1, 1, {{{3, 3, 2}, {5}, {}}}},   {3, false, false, 1, 1, {{{2, 3}, {2, 1}, {3}}}},
      {3, true, true, 1, 1, {{{2, 2}, {3}, {2, 1}}}},  {2, false, false, 2, 2, {{{4, 3}, {3, 3}, {}}}},
  };
  for (const Case& c : cases) {
    GridStencil g;
    g.dim = c.dim;
    g.box = c.box;
    g.dof = c.dof;
    g.width = c.width;
    g.owned = c.owned;
    for (int a = 0; a < c.dim; ++a) g.periodic[a] = c.periodic;
    if (c.dof == 2) {
      g.dfill = {1, 1, 0, 1};
      g.ofill = {1, 0, 1, 1};
    }
    const GridStencilPattern pattern(g);
    const Index n = pattern.size();
    std::vector<char> row_answers(static_cast<std::size_t>(n * n)), listed(row_answers.size());
    for (Index i = 0; i < n; ++i) {
      for (Index j = 0; j < n; ++j) row_answers[static_cast<std::size_t>(i * n + j)] = pattern.contains(i, j);
      const std::vector<Index> cols = pattern.couplings(i);
      BOOST_TEST(std::is_sorted(cols.begin(), cols.end()));
      for (Index j : cols) listed[static_cast<std::size_t>(i * n + j)] = 1;
    }
    BOOST_TEST(row_answers == listed);
    const Index most = c.dof * (c.box ? Index(std::pow(2 * c.width + 1, c.dim)) : 2 * c.width * c.dim + 1);
    for (Index i = 0; i < n; ++i) {
      Index count = 0;
      for (Index j = 0; j < n; ++j) count += row_answers[static_cast<std::size_t>(i * n + j)];
      BOOST_TEST(count >= 1);
      BOOST_TEST(count <= most);
    }
  }
}

// The split of a box's couplings between stored diagonals and a list
// walking only the box's face rows (GridStencilPattern::face_rows, the
// interior's offsets from one interior point) equals the split walking
// every row; and the rows it skips do couple only inside the box, on those
// offsets. Random unequal process grids, star and box, periodic axes, one
// and two components (with fill patterns), widths 0 to 2.
BOOST_AUTO_TEST_CASE(face_walk_split_equals_full_split) {
  std::mt19937_64 rng(5);
  int checked = 0, listed = 0;
  for (int t = 0; t < 40; ++t) {
    GridStencil g;
    g.dim = 1 + int(rng() % 3);
    g.dof = 1 + Index(rng() % 2);
    g.width = Index(rng() % 3);
    g.box = rng() % 2;
    if (g.dof == 2 && rng() % 2) {
      g.dfill = {1, 1, 0, 1};
      g.ofill = {1, 0, 1, 1};
    }
    for (int a = 0; a < 3; ++a) {
      g.periodic[a] = rng() % 4 == 0;
      if (a < g.dim) {
        const Index procs = 1 + Index(rng() % 3);
        for (Index q = 0; q < procs; ++q) g.owned[a].push_back(1 + Index(rng() % 7));
      }
    }
    const GridStencilPattern pattern(g);
    const detail::GridNumbering num(g);
    const Index N = pattern.size();
    const auto couplings = [&pattern](Index i) { return pattern.couplings(i); };
    for (std::size_t r = 0; r + 1 < num.rank_start.size(); ++r) {
      const Index r0 = num.rank_start[r], r1 = num.rank_start[r + 1];
      const Layout L = Layout::block(N, N, r0, r1 - r0);
      const std::vector<Index> faces = pattern.face_rows(Index(r)), inner = pattern.interior_offsets(Index(r));
      BOOST_TEST_CONTEXT("trial " << t << " dim " << g.dim << " dof " << g.dof << " s " << g.width << " box " << g.box << " rank " << r) {
        BOOST_TEST(std::is_sorted(faces.begin(), faces.end()));
        for (Index i = r0; i < r1; ++i) {
          if (std::binary_search(faces.begin(), faces.end(), i)) continue;
          for (const Index j : pattern.couplings(i)) {
            BOOST_TEST((j >= r0 && j < r1));
            BOOST_TEST(std::binary_search(inner.begin(), inner.end(), j - i));
          }
        }
        for (const Index ratio : {Index(1), Index(8)}) {
          const PatternSplit<double> full = split_pattern_remote<double>(L, r0, r1, ratio, couplings);
          const PatternSplit<double> walk = split_pattern_remote<double>(L, r0, r1, ratio, faces, inner, couplings);
          BOOST_TEST(walk.offsets == full.offsets, boost::test_tools::per_element());
          BOOST_TEST(walk.listed.rows == full.listed.rows, boost::test_tools::per_element());
          BOOST_TEST(walk.listed.ptr == full.listed.ptr, boost::test_tools::per_element());
          BOOST_TEST(walk.listed.cols == full.listed.cols, boost::test_tools::per_element());
          listed += full.listed.empty() ? 0 : 1;
        }
      }
      ++checked;
    }
  }
  BOOST_TEST(checked > 100);
  BOOST_TEST(listed > 10);  // the grids do list couplings
  GridStencil one;
  one.owned[0] = {4};
  const GridStencilPattern single(one);
  BOOST_TEST(single.face_rows(0) == (std::vector<Index>{0, 3}), boost::test_tools::per_element());
  BOOST_CHECK_THROW(single.face_rows(1), FormatError);
}
