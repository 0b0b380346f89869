// Shared helpers of the Trilinos adapter tests: a tiny check harness that
// agrees on failure across processes, maps with a process that owns no
// rows, and test matrices (random diagonals, stencils) assembled both as a
// Tpetra::CrsMatrix and as a pdiag::trilinos::DiagMatrix from the same
// entries.
#pragma once

#include "pdiag/trilinos/diag_matrix.hpp"

#include <Tpetra_Core.hpp>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace tt {

using DM = pdiag::trilinos::DiagMatrix<>;
using SC = DM::scalar_type;
using LO = DM::local_ordinal_type;
using GO = DM::global_ordinal_type;
using map_t = DM::map_type;
using mv_t = DM::mv_type;
using vec_t = DM::vec_type;
using crs_t = DM::crs_type;
using comm_t = Teuchos::RCP<const Teuchos::Comm<int>>;

inline int& failures() {
  static int n = 0;
  return n;
}

#define TT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++tt::failures();                                                        \
      std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fprintf(stderr, "\n");                                              \
    }                                                                          \
  } while (0)

/// Runs one named case; an exception counts as a failure of this process.
inline void run_case(const comm_t& comm, const std::string& name, const std::function<void()>& f) {
  const int before = failures();
  try {
    f();
  } catch (const std::exception& e) {
    ++failures();
    std::fprintf(stderr, "[%d] %s: exception: %s\n", comm->getRank(), name.c_str(), e.what());
  }
  int local = failures() - before, global = 0;
  Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  if (comm->getRank() == 0) std::printf("%s %s\n", global ? "FAIL" : "ok  ", name.c_str());
}

/// Returns the process exit code (0 when no process failed).
inline int finish(const comm_t& comm) {
  int local = failures(), global = 0;
  Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  if (comm->getRank() == 0) std::printf("%s: %d failed checks\n", global ? "FAILED" : "PASSED", global);
  return global ? 1 : 0;
}

/// A contiguous map of n rows in which process 1 (of 2 or more) owns none.
inline Teuchos::RCP<const map_t> uneven_map(GO n, const comm_t& comm) {
  const int p = comm->getSize(), r = comm->getRank();
  const int owners = p >= 2 ? p - 1 : 1;
  const int me = p >= 2 ? (r == 1 ? -1 : (r == 0 ? 0 : r - 1)) : 0;
  size_t local = 0;
  if (me >= 0) local = static_cast<size_t>(n / owners + (me < n % owners ? 1 : 0));
  return Teuchos::rcp(new map_t(static_cast<Tpetra::global_size_t>(n), local, 0, comm));
}

/// The same entries (this process's rows, global indices) as both types.
struct Entries {
  std::vector<GO> i, j;
  std::vector<SC> v;
  void add(GO a, GO b, SC x) {
    i.push_back(a);
    j.push_back(b);
    v.push_back(x);
  }
};

inline Teuchos::RCP<crs_t> crs_of(const Teuchos::RCP<const map_t>& rows, const Teuchos::RCP<const map_t>& dom, const Entries& e) {
  // Tpetra 13.2 allocates statically: the entry count of every row first.
  Teuchos::Array<size_t> count(rows->getNodeNumElements(), 0);
  for (GO i : e.i) ++count[rows->getLocalElement(i)];
  auto A = Teuchos::rcp(new crs_t(rows, count()));
  for (size_t p = 0; p < e.i.size(); ++p)
    A->insertGlobalValues(e.i[p], Teuchos::ArrayView<const GO>(&e.j[p], 1), Teuchos::ArrayView<const SC>(&e.v[p], 1));
  A->fillComplete(dom, rows);
  return A;
}

inline Teuchos::RCP<DM> diag_of(const Teuchos::RCP<const map_t>& rows, const Teuchos::RCP<const map_t>& dom, const Entries& e) {
  auto A = Teuchos::rcp(new DM(rows, dom));
  for (size_t p = 0; p < e.i.size(); ++p)
    A->insertGlobalValues(e.i[p], Teuchos::ArrayView<const GO>(&e.j[p], 1), Teuchos::ArrayView<const SC>(&e.v[p], 1));
  A->fillComplete();
  return A;
}

/// Random diagonals: the main one, ndiag - 1 others within +-spread and the
/// far corner -(M-1); nonzero values; this process's rows of rows.
inline Entries random_entries(const map_t& rows, GO ncols, int ndiag, GO spread, unsigned seed) {
  std::mt19937_64 gen(seed);  // the same offsets on every process
  std::uniform_int_distribution<GO> off(-spread, spread);
  std::vector<GO> offsets{0, -(static_cast<GO>(rows.getGlobalNumElements()) - 1)};
  while (static_cast<int>(offsets.size()) < ndiag) offsets.push_back(off(gen));
  std::mt19937_64 vgen(seed * 7919 + static_cast<unsigned>(rows.getComm()->getRank()));
  std::uniform_real_distribution<double> val(0.5, 1.5);
  Entries e;
  for (size_t il = 0; il < rows.getNodeNumElements(); ++il) {
    const GO i = rows.getGlobalElement(static_cast<LO>(il));
    for (GO d : offsets)
      if (i + d >= 0 && i + d < ncols) e.add(i, i + d, d == 0 ? 10.0 + val(vgen) : -val(vgen));
  }
  return e;
}

/// The 2D 5-point (nz == 1) or 3D 7-point Laplacian on an nx x ny x nz grid
/// (x fastest), Dirichlet boundary, plus a small convection term c on the x
/// couplings so that the matrix is not symmetric when c != 0.
inline Entries stencil_entries(const map_t& rows, GO nx, GO ny, GO nz, double c = 0) {
  Entries e;
  for (size_t il = 0; il < rows.getNodeNumElements(); ++il) {
    const GO g = rows.getGlobalElement(static_cast<LO>(il));
    const GO x = g % nx, y = (g / nx) % ny, z = g / (nx * ny);
    e.add(g, g, nz > 1 ? 6.0 : 4.0);
    if (x > 0) e.add(g, g - 1, -1.0 - c);
    if (x < nx - 1) e.add(g, g + 1, -1.0 + c);
    if (y > 0) e.add(g, g - nx, -1.0);
    if (y < ny - 1) e.add(g, g + nx, -1.0);
    if (z > 0) e.add(g, g - nx * ny, -1.0);
    if (z < nz - 1) e.add(g, g + nx * ny, -1.0);
  }
  return e;
}

/// max |a - b| / max(1, max |b|) over all entries (collective).
inline double rel_diff(const mv_t& a, const mv_t& b) {
  mv_t d(a, Teuchos::Copy);
  d.update(-1.0, b, 1.0);
  std::vector<double> dn(a.getNumVectors()), bn(a.getNumVectors());
  d.normInf(Teuchos::ArrayView<double>(dn));
  b.normInf(Teuchos::ArrayView<double>(bn));
  double num = 0, den = 1;
  for (size_t c = 0; c < dn.size(); ++c) {
    num = std::max(num, dn[c]);
    den = std::max(den, bn[c]);
  }
  return num / den;
}

}  // namespace tt
