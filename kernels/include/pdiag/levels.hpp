// Level schedules of the SOR / Gauss-Seidel sweeps of an HM block and of
// the triangular solves with its ILU(0) / ICC(0) factors (CPU reference,
// docs/design.md, "Factorizations and preconditioners"; the solves' part is at the end): the rows grouped so that the
// rows of one level can be computed at the same time and the result is the
// sequential order's.
//
// A forward sweep (rows in ascending order) relaxes row i with the new
// values of its lower neighbours (a(i, j) != 0, j < i) and the old values
// of its upper ones (a(i, j) != 0, j > i). So row i must come after every j
// < i it reads (a true dependency) and after every r < i that reads x[i]
// (a(r, i) != 0: r must read the old x[i] before i overwrites it):
//
//   level[i] = 1 + max(level[j]) over j < i with a(i, j) != 0 or a(j, i) != 0
//
// (0 for a row with neither). For a matrix whose nonzero pattern is
// symmetric (every stencil) that is the lower-offset rule, level[i] = 1 +
// max over o < 0 with a(i, i + o) != 0 of level[i + o]; for a d-dimensional
// stencil on a grid the levels are the hyperplanes x + y + z = const (a
// 7-point stencil on nx x ny x nz points has nx + ny + nz - 2 levels). The
// backward sweep mirrors it (rows in descending order, j > i).
//
// "Nonzero" is by value: a stored entry that is zero (DMDA matrices hold the
// "+1" neighbour of the last point of a grid line as a stored zero) is no
// dependency, otherwise a stencil would chain all rows of a line into one
// level each. A sweep that skips zero entries (the CUDA sweeps do) computes
// exactly what the sequential sweep computes, since subtracting 0 * x[j]
// changes no finite sum. The schedule therefore depends on where the zeros
// are: the caller recomputes it when the values change (the plugin keys it
// on the matrix's state).
//
// Computed on the host, O(nrows * ndiag) with two passes: at 257^3 with 7
// diagonals that is ~10^8 simple operations, a fraction of a second once per
// matrix, against sweeps repeated every iteration; it moves to the device
// only if a measurement shows it matters (not measured yet).
#pragma once

#include "pdiag/format.hpp"

#include <vector>

namespace pdiag {

enum class SweepDirection { Forward, Backward };

/// Rows grouped by level, CSR-like: the rows of level l are
/// rows[level_ptr[l] .. level_ptr[l + 1]), ascending.
struct LevelSchedule {
  std::vector<Index> level_ptr{0};
  std::vector<Index> rows;
  Index nlevels() const { return static_cast<Index>(level_ptr.size()) - 1; }
};

/// level[i] of every row of a square sequential HM block for a sweep in
/// direction dir (the rule above). Throws FormatError for other blocks.
template <class T>
std::vector<Index> hm_sweep_levels(const HmView<T>& A, SweepDirection dir) {
  if (!A.layout.is_full() || !A.layout.is_square()) throw FormatError("a level schedule needs a square sequential block");
  const Index m = A.layout.nrows;
  std::vector<Index> level(static_cast<std::size_t>(m), 0);
  const bool fwd = dir == SweepDirection::Forward;
  // Visit rows in sweep order; every row a row depends on has been visited.
  for (Index step = 0; step < m; ++step) {
    const Index i = fwd ? step : m - 1 - step;
    Index lev = 0;
    for (Index k = 0; k < A.ndiag; ++k) {
      const Index d = A.offsets[k];
      if (d == 0) continue;
      // a(i, i + d): row i reads x[i + d]; earlier in the sweep if d points backwards
      const Index j = i + d;
      if ((fwd ? d < 0 : d > 0) && j >= 0 && j < m && A.val[A.pos(k, i)] != std::remove_const_t<T>(0)) lev = std::max(lev, level[j] + 1);
      // a(r, i) with r = i - d: row r reads x[i]; earlier in the sweep if d points forwards
      const Index r = i - d;
      if ((fwd ? d > 0 : d < 0) && r >= 0 && r < m && A.val[A.pos(k, r)] != std::remove_const_t<T>(0)) lev = std::max(lev, level[r] + 1);
    }
    level[i] = lev;
  }
  return level;
}

/// The schedule of per-row levels (counting sort: rows ascending in each level).
inline LevelSchedule level_schedule_from_levels(const std::vector<Index>& level) {
  LevelSchedule s;
  Index nlev = 0;
  for (Index l : level) nlev = std::max(nlev, l + 1);
  s.level_ptr.assign(static_cast<std::size_t>(nlev + 1), 0);
  for (Index l : level) ++s.level_ptr[static_cast<std::size_t>(l + 1)];
  for (Index l = 0; l < nlev; ++l) s.level_ptr[l + 1] += s.level_ptr[l];
  s.rows.resize(level.size());
  std::vector<Index> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  for (std::size_t i = 0; i < level.size(); ++i) s.rows[static_cast<std::size_t>(next[level[i]]++)] = static_cast<Index>(i);
  return s;
}

/// The level schedule of a sweep in direction dir over A.
template <class T>
LevelSchedule hm_level_schedule(const HmView<T>& A, SweepDirection dir) {
  return level_schedule_from_levels(hm_sweep_levels(A, dir));
}

// ==== Level schedules of the triangular solves with a factor ====
//
// A triangular solve only has true dependencies: row i is computed from
// the final values of the rows j it reads, and nothing reads x[i] before
// i is final (x[i] itself holds b[i] until then, read by row i alone). So
// the level rule is the lower-offset rule without the sweeps'
// anti-dependencies:
//
//   level[i] = 1 + max(level[j]) over the rows j that row i reads
//
// The sweep schedule (hm_sweep_levels) is NOT reused: it adds the
// anti-dependencies (a(r, i) != 0, r before i), which for a factor with a
// nonsymmetric zero pattern (a value that cancelled, an aij pattern that
// drops stored entries on one side only) give more levels than needed, and
// it reads both triangles where a solve reads one.
//
// Which rows row i reads, for a factor F stored by diagonals:
//  - by rows (solves with L or U): j = i + d for F's entries F(i, i + d) of
//    the triangle (d < 0: L, rows ascending; d > 0: U, rows descending);
//  - by columns (solves with L^T or U^T, nothing transposed): j = i - d for
//    F(i - d, i), the entries of column i (d > 0: U^T, ascending; d < 0:
//    L^T, descending).
// As for the sweeps, a stored zero is no dependency (the solves skip it).

enum class Triangle { Lower, Upper };
enum class SolveAccess { Rows, Columns };

/// Whether the solve with `part` of a factor read by `access` visits rows
/// in ascending order (its dependencies point to smaller rows).
inline bool triangular_solve_ascending(Triangle part, SolveAccess access) {
  return (part == Triangle::Lower) == (access == SolveAccess::Rows);
}

/// level[i] of every row for the solve with the `part` triangle of the
/// square sequential HM factor F (main diagonal and strict triangles, as
/// pdiag/factor.hpp stores them) read by `access` (the rule above).
template <class T>
std::vector<Index> hm_solve_levels(const HmView<T>& F, Triangle part, SolveAccess access) {
  if (!F.layout.is_full() || !F.layout.is_square()) throw FormatError("a level schedule needs a square sequential block");
  const Index m = F.layout.nrows;
  std::vector<Index> level(static_cast<std::size_t>(m), 0);
  const bool asc = triangular_solve_ascending(part, access);
  const bool rows = access == SolveAccess::Rows;
  for (Index step = 0; step < m; ++step) {
    const Index i = asc ? step : m - 1 - step;
    Index lev = 0;
    for (Index k = 0; k < F.ndiag; ++k) {
      const Index d = F.offsets[k];
      if (part == Triangle::Lower ? d >= 0 : d <= 0) continue;
      const Index j = rows ? i + d : i - d;  // the row read
      if (j < 0 || j >= m) continue;
      // F(i, i + d) by rows, F(j, j + d) = F(i - d, i) by columns
      if (F.val[F.pos(k, rows ? i : j)] != std::remove_const_t<T>(0)) lev = std::max(lev, level[j] + 1);
    }
    level[i] = lev;
  }
  return level;
}

/// The level schedule of that solve.
template <class T>
LevelSchedule hm_solve_schedule(const HmView<T>& F, Triangle part, SolveAccess access) {
  return level_schedule_from_levels(hm_solve_levels(F, part, access));
}

}  // namespace pdiag
