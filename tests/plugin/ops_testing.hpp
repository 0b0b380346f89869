/* What the test_ops_* programs share. Each compares operations on a diag
   matrix with the same operations on an aij matrix that received exactly
   the same calls (MatSetValues, MatSetValuesStencil, COO), for random
   diagonal matrices (square and rectangular, far diagonals, dense bands,
   empty, with and without preallocation, INSERT and ADD, entries set from
   processes that do not own the row, HM / CDM / automatic storage) and
   DMDA stencil matrices (2d / 3d, star / box, dof 1 / 2, periodic): the
   cases of MakeCases(), the builders of both matrices, the comparisons,
   and Main(), which runs a program's groups of checks on every case.

   Vectors are compared by relative 2-norm difference, matrices by
   converting the diag one to aij and taking the Frobenius norm of the
   difference relative to the aij one; both must be <= 1e-12. One line per
   failed check, then exactly one line "N passed, M failed"; nonzero exit
   if M > 0. -case <text> runs only the cases and groups whose names
   contain the text.

   The programs: test_ops_assembly (assembly, re-assembly, COO, MatSetValues
   options), test_ops_mult (products with vectors, SOR), test_ops_values
   (scaling, shift, AXPY, zeroing, MatEqual), test_ops_structure (duplicate,
   copy, rows, norms, info, transpose, conversions), test_ops_io (view,
   load), test_ops_factor (factorizations), test_ops_bad_input (errors for
   bad arguments). Each runs with any number of processes (ctest runs 1,
   2, 3 and 4). */
#pragma once

#include <petscdiag.h>
#include <petscdmda.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "plugin_testing.hpp"

namespace ops_testing {

using namespace plugin_testing;

/* ---- deterministic values, identical on every rank ----------------------- */

/* Whether Value() (and so FillVec) gives complex values, both parts in
   [-1, 1) (test_ops_complex, in builds with complex scalars); otherwise,
   the default, real ones, which every other program's checks are written
   for (they hold for both scalar types). */
inline bool g_complex_values = false;

/* A value in [-1, 1) determined by (seed, a, b); with g_complex_values, an
   imaginary part too, determined by the same. */
inline PetscScalar Value(unsigned seed, PetscInt a, PetscInt b)
{
#if defined(PETSC_USE_COMPLEX)
  if (g_complex_values) return PetscCMPLX(Unit(seed, a, b), Unit(seed + 7919, b, a));
#endif
  return (PetscScalar)Unit(seed, a, b);
}

/* Fills v with values determined by (seed, global index), in [0.5, 1.5) when positive. */
inline PetscErrorCode FillVec(Vec v, unsigned seed, bool positive = false)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = positive ? 1.0 + 0.5 * Value(seed, i, -7) : Value(seed, i, -7);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(0);
}

inline bool IsType(Mat M, const char *a, const char *b)
{
  PetscBool flg = PETSC_FALSE;
  if (PetscObjectTypeCompareAny((PetscObject)M, &flg, a, b, "")) return false;
  return flg;
}

inline PetscErrorCode Name(Mat M, std::string *s)
{
  MatType t;
  PetscFunctionBeginUser;
  PetscCall(MatGetType(M, &t));
  *s = t ? t : "(none)";
  PetscFunctionReturn(0);
}

/* ---- comparisons --------------------------------------------------------- */

inline PetscErrorCode CheckVec(Vec u, Vec ref, const std::string &cs, const std::string &op)
{
  PetscReal rel = 0;
  PetscFunctionBeginUser;
  PetscCall(VecRelDiff(u, ref, &rel));
  PetscCall(Record(rel <= kTol, cs, op, Fmt("relative difference %.3e", (double)rel)));
  PetscFunctionReturn(0);
}

inline bool Close(PetscReal a, PetscReal b) { return PetscAbsReal(a - b) <= kTol * PetscMax(PetscAbsReal(b), 1.0); }

/* D (expected diag unless want_type says otherwise) equals the aij R: as
   matrices, and through MatMult and MatMultTranspose (which also exercise
   the ghost exchange rebuilt after any structure change). */
inline PetscErrorCode CheckSame(Mat D, Mat R, const std::string &cs, const std::string &op, bool want_diag = true)
{
  PetscReal rel = 0;
  Vec       x, y1, y2, xt, yt1, yt2;

  PetscFunctionBeginUser;
  if (want_diag) {
    std::string t;
    PetscCall(Name(D, &t));
    PetscCall(Record(IsDiag(D), cs, op + " keeps type diag", "type " + t));
  }
  PetscCall(MatRelDiff(D, R, &rel));
  PetscCall(Record(rel <= kTol, cs, op, Fmt("matrix relative difference %.3e", (double)rel)));
  PetscCall(MatCreateVecs(R, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(FillVec(x, 101));
  PetscCall(MatMult(D, x, y1));
  PetscCall(MatMult(R, x, y2));
  PetscCall(CheckVec(y1, y2, cs, op + " then MatMult"));
  PetscCall(VecDuplicate(y1, &xt));
  PetscCall(VecDuplicate(x, &yt1));
  PetscCall(VecDuplicate(x, &yt2));
  PetscCall(FillVec(xt, 102));
  PetscCall(MatMultTranspose(D, xt, yt1));
  PetscCall(MatMultTranspose(R, xt, yt2));
  PetscCall(CheckVec(yt1, yt2, cs, op + " then MatMultTranspose"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt1));
  PetscCall(VecDestroy(&yt2));
  PetscFunctionReturn(0);
}

/* aij settings for the reference: any new nonzero is fine (diag accepts them too). */
inline PetscErrorCode AllowNew(Mat A)
{
  PetscFunctionBeginUser;
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* ---- test matrices ------------------------------------------------------- */

enum SetMode { SET_INSERT, SET_ADD, SET_INSERT_THEN_ADD };

/* A random matrix by diagonals; its pattern depends on pattern_seed only,
   its values on the seed passed to the builder. */
struct RandSpec {
  PetscInt              M = 0, N = 0;
  PetscInt              mloc = PETSC_DECIDE, nloc = PETSC_DECIDE;
  std::vector<PetscInt> offsets;                        /* diagonals holding entries */
  double                fill     = 1.0;                 /* fraction of each diagonal set (main diagonal: all) */
  MatDiagStorage        storage  = MAT_DIAG_STORAGE_AUTO;
  bool                  prealloc = false;               /* MatDiagSetPreallocation with part of the offsets */
  SetMode               mode     = SET_INSERT;
  bool                  offproc  = false;               /* some entries set by a process not owning the row */
  unsigned              pattern_seed = 1;
};

struct Entry {
  PetscInt i, j;
};

inline std::vector<Entry> Pattern(const RandSpec &s)
{
  std::mt19937                           gen(s.pattern_seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Entry>                     e;
  for (PetscInt d : s.offsets)
    for (PetscInt i = PetscMax(0, -d); i < PetscMin(s.M, s.N - d); i++)
      if (d == 0 || u(gen) < s.fill) e.push_back({i, i + d});
  std::sort(e.begin(), e.end(), [](const Entry &a, const Entry &b) { return a.i < b.i || (a.i == b.i && a.j < b.j); });
  return e;
}

inline PetscMPIInt Owner(const PetscInt *ranges, PetscInt i)
{
  return (PetscMPIInt)(std::upper_bound(ranges, ranges + g_size + 1, i) - ranges - 1);
}

/* The process that sets entry (i, j): its owner, or with offproc for about a
   third of the entries the next process. */
inline PetscMPIInt Setter(const RandSpec &s, const PetscInt *ranges, PetscInt i, PetscInt j)
{
  const PetscMPIInt o = Owner(ranges, i);
  if (s.offproc && Mix((std::uint64_t)(i * 7919 + j)) % 3 == 0) return (o + 1) % g_size;
  return o;
}

/* Sets this process's share of the entries, one MatSetValues per row (with a
   negative column, which both types ignore). part: 0 all of a value (INSERT),
   1 / 2 the two parts of an ADD split between the setter and the owner. */
inline PetscErrorCode SetEntries(Mat X, const RandSpec &s, const std::vector<Entry> &e, const PetscInt *ranges, unsigned seed, int part, InsertMode mode)
{
  std::vector<PetscInt>    cols;
  std::vector<PetscScalar> vals;

  PetscFunctionBeginUser;
  for (std::size_t k = 0; k < e.size();) {
    const PetscInt i = e[k].i;
    cols.assign(1, -1);
    vals.assign(1, 1.0e30); /* must be ignored */
    for (; k < e.size() && e[k].i == i; k++) {
      const PetscInt    j = e[k].j;
      const PetscMPIInt who = part == 2 ? Owner(ranges, i) : Setter(s, ranges, i, j);
      if (who != g_rank) continue;
      const PetscScalar v = Value(seed, i, j);
      cols.push_back(j);
      vals.push_back(part == 0 ? v : part == 1 ? 0.25 * v : 0.75 * v);
    }
    if (cols.size() > 1) PetscCall(MatSetValues(X, 1, &i, (PetscInt)cols.size(), cols.data(), vals.data(), mode));
  }
  PetscFunctionReturn(0);
}

inline PetscErrorCode BuildRandom(const RandSpec &s, unsigned seed, Mat *D, Mat *A)
{
  const std::vector<Entry> e = Pattern(s);
  const PetscInt          *ranges;
  Mat                      X[2];

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, s.mloc, s.nloc, s.M, s.N));
  PetscCall(MatSetType(*A, MATAIJ));
  { /* preallocated (a row holds at most one entry per diagonal): without it PETSc 3.25
       assembles aij through a hash table, which refuses ADD after INSERT and a flush */
    const PetscInt nz = (PetscInt)s.offsets.size();
    PetscCall(MatSeqAIJSetPreallocation(*A, nz, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, nz, NULL, nz, NULL));
  }
  PetscCall(AllowNew(*A));
  PetscCall(MatCreate(PETSC_COMM_WORLD, D));
  PetscCall(MatSetSizes(*D, s.mloc, s.nloc, s.M, s.N));
  PetscCall(MatSetType(*D, MATDIAG));
  PetscCall(MatDiagSetStorage(*D, s.storage));
  if (s.prealloc) {
    /* every other diagonal in use, and one more that stays empty */
    std::vector<PetscInt> pre;
    for (std::size_t k = 0; k < s.offsets.size(); k += 2) pre.push_back(s.offsets[k]);
    for (PetscInt d = -(s.M - 1); d < s.N; d++)
      if (std::find(s.offsets.begin(), s.offsets.end(), d) == s.offsets.end()) {
        pre.push_back(d);
        break;
      }
    PetscCall(MatDiagSetPreallocation(*D, (PetscInt)pre.size(), pre.data()));
  } else PetscCall(MatSetUp(*D));
  PetscCall(MatGetOwnershipRanges(*A, &ranges));
  X[0] = *D;
  X[1] = *A;
  for (Mat M : X) {
    if (s.mode == SET_INSERT || s.mode == SET_INSERT_THEN_ADD) PetscCall(SetEntries(M, s, e, ranges, seed, 0, INSERT_VALUES));
    if (s.mode == SET_ADD) {
      PetscCall(SetEntries(M, s, e, ranges, seed, 1, ADD_VALUES));
      PetscCall(SetEntries(M, s, e, ranges, seed, 2, ADD_VALUES));
    }
    if (s.mode == SET_INSERT_THEN_ADD) {
      PetscCall(MatAssemblyBegin(M, MAT_FLUSH_ASSEMBLY));
      PetscCall(MatAssemblyEnd(M, MAT_FLUSH_ASSEMBLY));
      PetscCall(SetEntries(M, s, e, ranges, seed + 1000, 2, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* A DMDA operator: every stencil neighbour (and every dof pair) gets a value. */
struct DaSpec {
  PetscInt        dim = 2, mx = 8, my = 8, mz = 1, dof = 1, s = 1;
  DMDAStencilType st  = DMDA_STENCIL_STAR;
  DMBoundaryType  bx = DM_BOUNDARY_NONE, by = DM_BOUNDARY_NONE, bz = DM_BOUNDARY_NONE;
  InsertMode      mode    = ADD_VALUES;
  MatDiagStorage  storage = MAT_DIAG_STORAGE_AUTO;
};

inline PetscErrorCode CreateDA(const DaSpec &s, DM *da)
{
  PetscFunctionBeginUser;
  if (s.dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, s.bx, s.mx, s.dof, s.s, NULL, da));
  else if (s.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, s.bx, s.by, s.st, s.mx, s.my, PETSC_DECIDE, PETSC_DECIDE, s.dof, s.s, NULL, NULL, da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, s.bx, s.by, s.bz, s.st, s.mx, s.my, s.mz, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, s.dof, s.s, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

inline PetscInt Wrap(PetscInt a, PetscInt n) { return ((a % n) + n) % n; }

inline PetscErrorCode FillDA(Mat X, DM da, const DaSpec &s, unsigned seed)
{
  PetscInt                 xs, ys, zs, xm, ym, zm;
  std::vector<MatStencil>  cols;
  std::vector<PetscScalar> vals;
  const PetscInt           sz = s.dim == 3 ? s.s : 0, sy = s.dim >= 2 ? s.s : 0;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++)
        for (PetscInt c = 0; c < s.dof; c++) {
          MatStencil row;
          row.i = i;
          row.j = j;
          row.k = k;
          row.c = c;
          const PetscInt rnat = ((k * s.my + j) * s.mx + i) * s.dof + c;
          cols.clear();
          vals.clear();
          for (PetscInt dk = -sz; dk <= sz; dk++)
            for (PetscInt dj = -sy; dj <= sy; dj++)
              for (PetscInt di = -s.s; di <= s.s; di++) {
                const int nz = (di != 0) + (dj != 0) + (dk != 0);
                if (s.st == DMDA_STENCIL_STAR && nz > 1) continue;
                /* outside a non-periodic boundary: no such neighbour */
                if (s.bx != DM_BOUNDARY_PERIODIC && (i + di < 0 || i + di >= s.mx)) continue;
                if (s.by != DM_BOUNDARY_PERIODIC && (j + dj < 0 || j + dj >= s.my)) continue;
                if (s.dim == 3 && s.bz != DM_BOUNDARY_PERIODIC && (k + dk < 0 || k + dk >= s.mz)) continue;
                for (PetscInt c2 = 0; c2 < s.dof; c2++) {
                  MatStencil col;
                  col.i = i + di;
                  col.j = j + dj;
                  col.k = k + dk;
                  col.c = c2;
                  const PetscInt cnat = ((Wrap(k + dk, s.mz) * s.my + Wrap(j + dj, s.my)) * s.mx + Wrap(i + di, s.mx)) * s.dof + c2;
                  cols.push_back(col);
                  vals.push_back(Value(seed, rnat, cnat) + (rnat == cnat ? 4.0 : 0.0));
                }
              }
          PetscCall(MatSetValuesStencil(X, 1, &row, (PetscInt)cols.size(), cols.data(), vals.data(), s.mode));
        }
  PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

inline PetscErrorCode BuildDA(const DaSpec &s, unsigned seed, Mat *D, Mat *A)
{
  DM da;

  PetscFunctionBeginUser;
  PetscCall(CreateDA(s, &da));
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMCreateMatrix(da, D));
  PetscCall(MatDiagSetStorage(*D, s.storage));
  PetscCall(DMSetMatType(da, MATAIJ));
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(FillDA(*D, da, s, seed));
  PetscCall(FillDA(*A, da, s, seed));
  PetscCall(AllowNew(*A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

using Builder = std::function<PetscErrorCode(unsigned, Mat *, Mat *)>;

struct Case {
  std::string name;
  PetscInt    M = 0, N = 0;
  bool        dmda     = false;
  bool        has_main = false; /* a(i, i) is stored for every row i < min(M, N) */
  RandSpec    spec;             /* random cases: for COO */
  Builder     build;            /* the pattern is fixed, values depend on the seed */
  Builder     build_other;      /* another pattern of the same layout */
  std::function<PetscErrorCode(DM *)> create_da; /* DMDA cases: the DMDA */
  DaSpec      da;
  bool        square() const { return M == N; }
};

inline Case RandomCase(const std::string &name, const RandSpec &s, const RandSpec &other)
{
  Case c;
  c.name        = name;
  c.M           = s.M;
  c.N           = s.N;
  c.spec        = s;
  c.has_main    = std::find(s.offsets.begin(), s.offsets.end(), 0) != s.offsets.end() && s.M > 0 && s.N > 0;
  c.build       = [s](unsigned seed, Mat *D, Mat *A) { return BuildRandom(s, seed, D, A); };
  c.build_other = [other](unsigned seed, Mat *D, Mat *A) { return BuildRandom(other, seed, D, A); };
  return c;
}

/* `count` distinct random offsets of an M x N matrix, plus the ones listed. */
inline std::vector<PetscInt> RandomOffsets(PetscInt M, PetscInt N, int count, unsigned seed, std::vector<PetscInt> plus)
{
  std::mt19937                            gen(seed);
  std::uniform_int_distribution<PetscInt> u(-(M - 1), N - 1);
  std::vector<PetscInt>                   o = std::move(plus);
  for (int t = 0; t < 10000 && count > 0; t++) {
    const PetscInt d = u(gen);
    if (std::find(o.begin(), o.end(), d) == o.end()) {
      o.push_back(d);
      count--;
    }
  }
  return o;
}

inline std::vector<PetscInt> Band(PetscInt lo, PetscInt hi)
{
  std::vector<PetscInt> o;
  for (PetscInt d = lo; d <= hi; d++) o.push_back(d);
  return o;
}

/* M[0] aij, M[1] diag: n x n, set up, empty, the same layout. */
inline PetscErrorCode CreateAijDiagPair(PetscInt n, Mat M[2])
{
  PetscFunctionBeginUser;
  for (int t = 0; t < 2; t++) {
    PetscCall(MatCreate(PETSC_COMM_WORLD, &M[t]));
    PetscCall(MatSetSizes(M[t], PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(M[t], t ? MATDIAG : MATAIJ));
    PetscCall(MatSetUp(M[t]));
  }
  PetscFunctionReturn(0);
}

/* ---- the cases ------------------------------------------------------------ */

inline std::vector<Case> MakeCases()
{
  std::vector<Case> cases;
  auto              spec = [](PetscInt M, PetscInt N, std::vector<PetscInt> offs, double fill, MatDiagStorage st, bool pre, SetMode mode, bool offproc, unsigned pseed) {
    RandSpec s;
    s.M            = M;
    s.N            = N;
    s.offsets      = std::move(offs);
    s.fill         = fill;
    s.storage      = st;
    s.prealloc     = pre;
    s.mode         = mode;
    s.offproc      = offproc;
    s.pattern_seed = pseed;
    return s;
  };
  const MatDiagStorage HM = MAT_DIAG_STORAGE_HM, CDM = MAT_DIAG_STORAGE_CDM, AUTO = MAT_DIAG_STORAGE_AUTO;

  cases.push_back(RandomCase("1x1", spec(1, 1, {0}, 1.0, HM, false, SET_INSERT, true, 1), spec(1, 1, {0}, 1.0, CDM, false, SET_ADD, false, 2)));
  cases.push_back(RandomCase("1x1 cdm", spec(1, 1, {0}, 1.0, CDM, true, SET_ADD, true, 3), spec(1, 1, {}, 1.0, HM, false, SET_ADD, false, 4)));
  cases.push_back(RandomCase("empty 7x7", spec(7, 7, {}, 1.0, HM, false, SET_INSERT, false, 5), spec(7, 7, {-6, 0, 6}, 0.8, HM, false, SET_INSERT, true, 6)));
  cases.push_back(RandomCase("empty 64x64 cdm prealloc", spec(64, 64, {}, 1.0, CDM, true, SET_ADD, false, 7), spec(64, 64, {-1, 0, 1}, 1.0, CDM, false, SET_ADD, true, 8)));
  cases.push_back(RandomCase("7x7 far diagonals add prealloc", spec(7, 7, {-6, -1, 0, 3, 6}, 0.7, HM, true, SET_ADD, true, 9), spec(7, 7, {-3, 0, 2, 5}, 1.0, CDM, false, SET_INSERT, false, 10)));
  cases.push_back(RandomCase("7x7 cdm far diagonals", spec(7, 7, {-6, -2, 0, 1, 6}, 0.8, CDM, false, SET_INSERT_THEN_ADD, true, 11), spec(7, 7, {-5, -1, 4}, 1.0, HM, false, SET_INSERT, true, 12)));
  cases.push_back(RandomCase("64x64 random hm insert", spec(64, 64, RandomOffsets(64, 64, 10, 13, {-63, 0, 63}), 0.6, HM, false, SET_INSERT, true, 13),
                             spec(64, 64, RandomOffsets(64, 64, 8, 14, {-63, 1}), 0.5, CDM, false, SET_ADD, true, 14)));
  cases.push_back(RandomCase("64x64 random cdm prealloc insert+add", spec(64, 64, RandomOffsets(64, 64, 10, 15, {-63, 0, 63}), 0.6, CDM, true, SET_INSERT_THEN_ADD, true, 15),
                             spec(64, 64, RandomOffsets(64, 64, 6, 16, {}), 0.7, HM, false, SET_INSERT, false, 16)));
  cases.push_back(RandomCase("64x64 no main diagonal hm", spec(64, 64, {-17, -5, -2, 3, 17, 40}, 0.9, HM, false, SET_ADD, true, 17), spec(64, 64, {-5, 0, 9}, 1.0, HM, true, SET_ADD, false, 18)));
  cases.push_back(RandomCase("64x64 no main diagonal cdm", spec(64, 64, {-63, -5, -2, 3, 17}, 0.9, CDM, false, SET_INSERT, true, 19), spec(64, 64, {-4, 0, 63}, 1.0, AUTO, false, SET_ADD, true, 20)));
  cases.push_back(RandomCase("300x300 dense band hm add prealloc", spec(300, 300, Band(-10, 10), 1.0, HM, true, SET_ADD, true, 21), spec(300, 300, {-299, -20, 0, 5, 299}, 0.5, CDM, false, SET_INSERT, true, 22)));
  cases.push_back(RandomCase("300x300 dense band cdm insert", spec(300, 300, Band(-6, 6), 1.0, CDM, false, SET_INSERT, true, 23), spec(300, 300, Band(-2, 9), 0.9, HM, false, SET_ADD, false, 24)));
  cases.push_back(RandomCase("300x300 far auto", spec(300, 300, {-299, -150, -1, 0, 1, 77, 299}, 0.5, AUTO, false, SET_INSERT_THEN_ADD, true, 25), spec(300, 300, RandomOffsets(300, 300, 12, 26, {}), 0.3, AUTO, true, SET_ADD, true, 26)));
  cases.push_back(RandomCase("64x40 rectangular", spec(64, 40, {-63, -10, 0, 5, 39}, 0.8, HM, false, SET_ADD, true, 27), spec(64, 40, {-30, -1, 1, 20}, 1.0, HM, true, SET_INSERT, true, 28)));
  cases.push_back(RandomCase("40x64 rectangular prealloc", spec(40, 64, {-39, -3, 0, 2, 63}, 0.8, HM, true, SET_INSERT, true, 29), spec(40, 64, {-1, 30, 50}, 0.7, AUTO, false, SET_ADD, false, 30)));
  {
    /* uneven rows: the first process owns none (when there are several) */
    const PetscInt n = 64, rest = g_size > 1 ? n / (g_size - 1) : n;
    PetscInt       mloc = g_size == 1 ? n : g_rank == 0 ? 0 : g_rank < g_size - 1 ? rest : n - rest * (g_size - 2);
    RandSpec       a = spec(n, n, RandomOffsets(n, n, 8, 33, {-63, 0, 2, 63}), 0.7, HM, false, SET_ADD, true, 33), b = spec(n, n, {-9, 0, 1, 40}, 1.0, CDM, false, SET_INSERT, true, 34);
    a.mloc = a.nloc = b.mloc = b.nloc = mloc;
    cases.push_back(RandomCase("64x64 uneven layout hm", a, b));
    std::swap(a.storage, b.storage);
    a.prealloc = true;
    cases.push_back(RandomCase("64x64 uneven layout cdm", a, b));
  }
  cases.push_back(RandomCase("7x1 column", spec(7, 1, Band(-6, 0), 1.0, HM, false, SET_ADD, true, 31), spec(7, 1, {-3}, 1.0, HM, false, SET_INSERT, false, 32)));

  /* DMDA operators; the "other" pattern is a random one of the same layout */
  auto da_case = [](const std::string &name, const DaSpec &s) {
    Case c;
    c.name     = name;
    c.dmda     = true;
    c.has_main = true;
    c.M = c.N = s.dof * s.mx * s.my * (s.dim == 3 ? s.mz : 1);
    c.build    = [s](unsigned seed, Mat *D, Mat *A) { return BuildDA(s, seed, D, A); };
    c.create_da = [s](DM *da) { return CreateDA(s, da); };
    c.da        = s;
    c.build_other = [s, N = c.N](unsigned seed, Mat *D, Mat *A) -> PetscErrorCode {
      DM       da;
      PetscInt xm, ym, zm;
      PetscFunctionBeginUser;
      PetscCall(CreateDA(s, &da));
      PetscCall(DMDAGetCorners(da, NULL, NULL, NULL, &xm, &ym, &zm));
      PetscCall(DMDestroy(&da));
      RandSpec r;
      r.M = r.N = N;
      r.mloc = r.nloc = xm * ym * zm * s.dof;
      r.offsets       = RandomOffsets(N, N, 6, 77, {0, -(N - 1), s.mx * s.dof});
      r.fill          = 0.7;
      r.storage       = MAT_DIAG_STORAGE_HM;
      r.mode          = SET_ADD;
      r.offproc       = true;
      r.pattern_seed  = 78;
      PetscCall(BuildRandom(r, seed, D, A));
      PetscFunctionReturn(0);
    };
    return c;
  };
  DaSpec s;
  s.dim = 1, s.mx = 23, s.my = 1, s.dof = 1, s.s = 1, s.st = DMDA_STENCIL_STAR;
  cases.push_back(da_case("dmda 1d dof1 23", s));
  s = DaSpec();
  s.dim = 1, s.mx = 13, s.my = 1, s.dof = 3, s.s = 2, s.st = DMDA_STENCIL_BOX, s.bx = DM_BOUNDARY_PERIODIC, s.storage = MAT_DIAG_STORAGE_CDM;
  cases.push_back(da_case("dmda 1d dof3 width 2 periodic cdm 13", s));
  s = DaSpec();
  s.dim = 2, s.mx = 9, s.my = 8, s.dof = 1, s.s = 1, s.st = DMDA_STENCIL_STAR;
  cases.push_back(da_case("dmda 2d star dof1 9x8", s));
  s = DaSpec();
  s.dim = 2, s.mx = 6, s.my = 5, s.dof = 2, s.st = DMDA_STENCIL_BOX, s.bx = DM_BOUNDARY_PERIODIC, s.mode = INSERT_VALUES;
  cases.push_back(da_case("dmda 2d box dof2 periodic x 6x5", s));
  s = DaSpec();
  s.dim = 2, s.mx = 8, s.my = 8, s.dof = 1, s.s = 2, s.st = DMDA_STENCIL_STAR, s.bx = s.by = DM_BOUNDARY_PERIODIC, s.storage = MAT_DIAG_STORAGE_CDM;
  cases.push_back(da_case("dmda 2d star width 2 periodic cdm 8x8", s));
  s = DaSpec();
  s.dim = 3, s.mx = 5, s.my = 4, s.mz = 4, s.dof = 1, s.st = DMDA_STENCIL_STAR, s.bx = s.by = s.bz = DM_BOUNDARY_PERIODIC;
  cases.push_back(da_case("dmda 3d star periodic 5x4x4", s));
  s = DaSpec();
  s.dim = 3, s.mx = 4, s.my = 4, s.mz = 3, s.dof = 2, s.st = DMDA_STENCIL_BOX, s.storage = MAT_DIAG_STORAGE_HM;
  cases.push_back(da_case("dmda 3d box dof2 4x4x3", s));
  s = DaSpec();
  s.dim = 3, s.mx = 4, s.my = 3, s.mz = 4, s.dof = 2, s.st = DMDA_STENCIL_BOX, s.bx = s.bz = DM_BOUNDARY_PERIODIC, s.mode = INSERT_VALUES;
  cases.push_back(da_case("dmda 3d box dof2 periodic x,z 4x3x4", s));
  return cases;
}

/* ---- a program's main ---------------------------------------------------- */

/* A group of checks run on each case (one operation); random_only: not on
   the DMDA cases. */
struct CaseGroup {
  std::string                                  name;
  std::function<PetscErrorCode(const Case &)> run;
  bool                                         random_only = false;
};

/* A group of checks of its own, run once. */
struct Group {
  std::string                     name;
  std::function<PetscErrorCode()> run;
};

/* A test program: PETSc and the diag types; each of `per_case` on every
   case of MakeCases() whose name -case selects (case by case, in the
   order given), then each of `groups` that -case selects; a PETSc error
   inside a group counts as one failure. Prints the summary line and
   returns the exit code. */
inline int Main(int argc, char **argv, const char *help, const std::vector<CaseGroup> &per_case, const std::vector<Group> &groups)
{
  CaseFilter want;
  int        exit_code = 1; /* set by Summary */
  PetscCall(Start(&argc, &argv, help));
  PetscCall(want.FromOptions());

  if (!per_case.empty())
    for (const Case &c : MakeCases())
      if (want(c.name))
        for (const CaseGroup &g : per_case)
          if (!(g.random_only && c.dmda)) Run(c.name, g.name, [&] { return g.run(c); });
  for (const Group &g : groups)
    if (want(g.name)) Run(g.name, g.name, g.run);

  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}

} // namespace ops_testing
