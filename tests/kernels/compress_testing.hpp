// Fixtures shared by the compressed-HM tests (test_compress.cpp on the CPU,
// test_compress_cuda.cu on the GPU): the matrix families the compression is
// tested on, 7-point stencils, vector addressings, exact comparison and the
// structural invariants of HmCompressed.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"
#include "testing.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace pdiag::testing {

/// The families of values the compression meets:
///  - Random: uniform values (every diagonal stays full);
///  - Constant: one value per diagonal (all constant, no exceptions);
///  - Stencil: one value per diagonal, except zeros where a diagonal with
///    |d| < nx crosses a grid line of length nx, "Dirichlet" rows (every
///    nx*3-th global row: 1 on the main diagonal, 0 elsewhere) and a few
///    randomly modified coefficients;
///  - Mixed: Stencil on even diagonals, Random on odd ones.
enum class Family { Random, Constant, Stencil, Mixed };
inline const char* name(Family f) {
  return f == Family::Random     ? "random"
         : f == Family::Constant ? "constant"
         : f == Family::Stencil  ? "stencil"
                                 : "mixed";
}
constexpr Family kFamilies[] = {Family::Random, Family::Constant, Family::Stencil, Family::Mixed};

inline HmMatrix<double> make_family(Family f, const Layout& L, const std::vector<Index>& offsets, std::mt19937_64& rng,
                                    Index nx = 7) {
  HmMatrix<double> A(L, offsets);
  std::uniform_real_distribution<double> u(-1.0, 1.0), coin(0.0, 1.0);
  const double consts[] = {-1.0, 6.0, 0.25, -2.5, 1.0 / 3.0};
  for (Index k = 0; k < A.ndiag(); ++k) {
    const Index d = A.offsets[k];
    const bool random = f == Family::Random || (f == Family::Mixed && k % 2 == 1);
    const double c = consts[rng() % 5];
    for (Index i = L.lo(d); i < L.hi(d); ++i) {
      double& a = A.val[A.view().pos(k, i)];
      if (random) {
        a = u(rng);
        continue;
      }
      a = c;
      if (f == Family::Constant) continue;
      const Index xi = i % nx;
      if (d != 0 && (d < nx && d > -nx) && (xi + d < 0 || xi + d >= nx)) a = 0.0;  // grid-line wrap
      if (i % (3 * nx) == 0) a = d == 0 ? 1.0 : 0.0;                             // Dirichlet row
      if (coin(rng) < 0.02) a = 1.5 * c;                                           // modified coefficient
    }
  }
  return A;
}

/// 7-point Laplacian on an nx x ny x nz grid (natural ordering, x fastest),
/// as a square HM matrix with diagonals 0, +-1, +-nx, +-nx*ny (those that fit).
/// Couplings across a grid line or plane are zero. With `dirichlet`,
/// boundary points get identity-like rows (6 on the diagonal, nothing else),
/// as PETSc's ex45 does; with `random_coeff`, every coefficient is random.
inline HmMatrix<double> laplace7(Index nx, Index ny, Index nz, bool dirichlet, bool random_coeff,
                                 std::mt19937_64& rng) {
  const Index n = nx * ny * nz;
  std::vector<Index> offs{0};
  for (Index d : {Index(1), nx, nx * ny})
    if (d < n) {
      offs.push_back(d);
      offs.push_back(-d);
    }
  HmMatrix<double> A(Layout::square(n), offs);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (Index i = 0; i < n; ++i) {
    const Index x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    const bool boundary = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
    if (double* a = A.find(i, i)) *a = random_coeff ? 6.0 * u(rng) : 6.0;
    if (dirichlet && boundary) continue;
    const Index nb[6][2] = {{x - 1, -1}, {x + 1, 1}, {y - 1, -nx}, {y + 1, nx}, {z - 1, -nx * ny}, {z + 1, nx * ny}};
    const Index ext[6] = {nx, nx, ny, ny, nz, nz};
    for (int q = 0; q < 6; ++q) {
      if (nb[q][0] < 0 || nb[q][0] >= ext[q]) continue;
      if (double* a = A.find(i, i + nb[q][1])) *a = random_coeff ? -u(rng) : -1.0;
    }
  }
  return A;
}

/// Exact equality of two HM blocks (values with ==, NaN equal to NaN).
inline bool same_hm(const HmMatrix<double>& a, const HmMatrix<double>& b) {
  if (!(a.layout == b.layout) || a.offsets != b.offsets || a.start != b.start || a.val.size() != b.val.size())
    return false;
  for (std::size_t p = 0; p < a.val.size(); ++p)
    if (!(a.val[p] == b.val[p]) && !(std::isnan(a.val[p]) && std::isnan(b.val[p]))) return false;
  return true;
}

/// Bit-for-bit equality of two value arrays (two compressions of one block).
template <class T>
bool same_values(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Requires the structural invariants of a compressed block made from A.
template <class T>
void check_structure(const HmCompressed<T>& C, const HmMatrix<T>& A, const std::string& what) {
  const Layout& L = A.layout;
  const Index nd = A.ndiag();
  BOOST_REQUIRE_MESSAGE(C.layout == L && C.offsets == A.offsets, what << ": layout or offsets differ");
  BOOST_REQUIRE_EQUAL(C.vbase.size(), std::size_t(nd));
  BOOST_REQUIRE_EQUAL(C.cval.size(), std::size_t(nd));
  Index np = 0;
  for (Index k = 0; k < nd; ++k)
    if (C.vbase[k] >= 0) {
      BOOST_REQUIRE_MESSAGE(C.vbase[k] == np, what << ": full diagonal " << k << " not packed in order");
      np += A.start[k + 1] - A.start[k];
    } else {
      BOOST_REQUIRE_MESSAGE(C.vbase[k] == -1 && std::isfinite(double(C.cval[k])), what << ": bad constant " << k);
    }
  BOOST_REQUIRE_EQUAL(C.packed.size(), std::size_t(np));
  BOOST_REQUIRE_EQUAL(C.exc_ptr.size(), C.exc_rows.size() + 1);
  BOOST_REQUIRE_EQUAL(C.exc_ptr.front(), 0);
  BOOST_REQUIRE_EQUAL(C.exc_ptr.back(), Index(C.exc_diag.size()));
  BOOST_REQUIRE_EQUAL(C.exc_diag.size(), C.exc_delta.size());
  for (Index r = 0; r < C.nrows_exc(); ++r) {
    const Index il = C.exc_rows[r];
    BOOST_REQUIRE_MESSAGE(il >= 0 && il < L.nrows && (r == 0 || il > C.exc_rows[r - 1]),
                          what << ": exception rows not ascending local rows");
    BOOST_REQUIRE_MESSAGE(C.exc_ptr[r + 1] > C.exc_ptr[r], what << ": exception row without exceptions");
    for (Index e = C.exc_ptr[r]; e < C.exc_ptr[r + 1]; ++e) {
      const Index k = C.exc_diag[e];
      BOOST_REQUIRE_MESSAGE(k >= 0 && k < nd && C.is_constant(k), what << ": exception on a full diagonal");
      BOOST_REQUIRE_MESSAGE(e == C.exc_ptr[r] || k > C.exc_diag[e - 1], what << ": diagonals not ascending in a row");
      const Index d = A.offsets[k];
      BOOST_REQUIRE_MESSAGE(il + L.row_begin >= L.lo(d) && il + L.row_begin < L.hi(d),
                            what << ": exception outside its diagonal");
    }
  }
}

/// Vector addressing of x for y = A x: default (null shift), padded (x
/// stored kPad entries in) or windowed (every diagonal reads its own window
/// of x, one gap entry between windows).
enum class Addr { Default, Padded, Windowed };
inline const char* name(Addr a) { return a == Addr::Default ? "default" : a == Addr::Padded ? "padded" : "windowed"; }
constexpr Index kPad = 5;

struct Addressing {
  bool use_shift = false;
  std::vector<Index> shift;
  Index len = 0;
  const Index* ptr() const { return use_shift ? shift.data() : nullptr; }
};

inline Addressing hm_addressing(const Layout& L, const std::vector<Index>& offsets, Addr a) {
  Addressing ad;
  if (a == Addr::Default) {
    ad.len = L.ncols;
    return ad;
  }
  ad.use_shift = true;
  if (a == Addr::Padded) {
    ad.shift = default_shift(L, offsets);
    for (Index& s : ad.shift) s += kPad;
    ad.len = L.ncols + 2 * kPad;
    return ad;
  }
  ad.len = 1;
  for (Index d : offsets) {
    const Index b = L.lo(d) - L.row_begin, e = L.hi(d) - L.row_begin;
    ad.shift.push_back(ad.len - b);
    ad.len += std::max<Index>(e - b, 0) + 1;
  }
  return ad;
}

/// y = A x (+ z) variants: no z, a separate z, z aliasing y.
enum class Mode { Plain, WithZ, Alias };
inline const char* name(Mode m) { return m == Mode::Plain ? "no z" : m == Mode::WithZ ? "with z" : "z aliasing y"; }

}  // namespace pdiag::testing
