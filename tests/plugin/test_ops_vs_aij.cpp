/* PETSc-level tests of MATDIAG: every operation on a diag matrix is compared
   with the same operation on an aij matrix that received exactly the same
   calls (MatSetValues, MatSetValuesStencil, COO), for random diagonal
   matrices (square and rectangular, far diagonals, dense bands, empty, with
   and without preallocation, INSERT and ADD, entries set from processes that
   do not own the row, HM / CDM / automatic storage) and DMDA stencil
   matrices (2d / 3d, star / box, dof 1 / 2, periodic). Then bad input: each
   must give a PETSc error, never a crash or a silent wrong answer.

   Vectors are compared by relative 2-norm difference, matrices by converting
   the diag one to aij and taking the Frobenius norm of the difference
   relative to the aij one; both must be <= 1e-12. One line per failed
   check, then exactly one line "N passed, M failed"; nonzero exit if M > 0.

   Run with any number of processes (ctest runs 1, 2, 3 and 4). */
#include <petscdiag.h>
#include <petscdmda.h>
#include <petscksp.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "plugin_testing.hpp"

using namespace plugin_testing;

namespace {


/* ---- deterministic values, identical on every rank ----------------------- */

/* A value in [-1, 1) determined by (seed, a, b). */
PetscScalar Value(unsigned seed, PetscInt a, PetscInt b) { return (PetscScalar)Unit(seed, a, b); }

/* Fills v with values determined by (seed, global index), in [0.5, 1.5) when positive. */
PetscErrorCode FillVec(Vec v, unsigned seed, bool positive = false)
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

bool IsType(Mat M, const char *a, const char *b)
{
  PetscBool flg = PETSC_FALSE;
  if (PetscObjectTypeCompareAny((PetscObject)M, &flg, a, b, "")) return false;
  return flg;
}

PetscErrorCode Name(Mat M, std::string *s)
{
  MatType t;
  PetscFunctionBeginUser;
  PetscCall(MatGetType(M, &t));
  *s = t ? t : "(none)";
  PetscFunctionReturn(0);
}

/* ---- comparisons --------------------------------------------------------- */

PetscErrorCode CheckVec(Vec u, Vec ref, const std::string &cs, const std::string &op)
{
  PetscReal rel = 0;
  PetscFunctionBeginUser;
  PetscCall(VecRelDiff(u, ref, &rel));
  PetscCall(Record(rel <= kTol, cs, op, Fmt("relative difference %.3e", (double)rel)));
  PetscFunctionReturn(0);
}

bool Close(PetscReal a, PetscReal b) { return PetscAbsReal(a - b) <= kTol * PetscMax(PetscAbsReal(b), 1.0); }

/* D (expected diag unless want_type says otherwise) equals the aij R: as
   matrices, and through MatMult and MatMultTranspose (which also exercise
   the ghost exchange rebuilt after any structure change). */
PetscErrorCode CheckSame(Mat D, Mat R, const std::string &cs, const std::string &op, bool want_diag = true)
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
PetscErrorCode AllowNew(Mat A)
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

std::vector<Entry> Pattern(const RandSpec &s)
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

PetscMPIInt Owner(const PetscInt *ranges, PetscInt i)
{
  return (PetscMPIInt)(std::upper_bound(ranges, ranges + g_size + 1, i) - ranges - 1);
}

/* The process that sets entry (i, j): its owner, or with offproc for about a
   third of the entries the next process. */
PetscMPIInt Setter(const RandSpec &s, const PetscInt *ranges, PetscInt i, PetscInt j)
{
  const PetscMPIInt o = Owner(ranges, i);
  if (s.offproc && Mix((std::uint64_t)(i * 7919 + j)) % 3 == 0) return (o + 1) % g_size;
  return o;
}

/* Sets this process's share of the entries, one MatSetValues per row (with a
   negative column, which both types ignore). part: 0 all of a value (INSERT),
   1 / 2 the two parts of an ADD split between the setter and the owner. */
PetscErrorCode SetEntries(Mat X, const RandSpec &s, const std::vector<Entry> &e, const PetscInt *ranges, unsigned seed, int part, InsertMode mode)
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

PetscErrorCode BuildRandom(const RandSpec &s, unsigned seed, Mat *D, Mat *A)
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

PetscErrorCode CreateDA(const DaSpec &s, DM *da)
{
  PetscFunctionBeginUser;
  if (s.dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, s.bx, s.mx, s.dof, s.s, NULL, da));
  else if (s.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, s.bx, s.by, s.st, s.mx, s.my, PETSC_DECIDE, PETSC_DECIDE, s.dof, s.s, NULL, NULL, da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, s.bx, s.by, s.bz, s.st, s.mx, s.my, s.mz, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, s.dof, s.s, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

PetscInt Wrap(PetscInt a, PetscInt n) { return ((a % n) + n) % n; }

PetscErrorCode FillDA(Mat X, DM da, const DaSpec &s, unsigned seed)
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

PetscErrorCode BuildDA(const DaSpec &s, unsigned seed, Mat *D, Mat *A)
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

Case RandomCase(const std::string &name, const RandSpec &s, const RandSpec &other)
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
std::vector<PetscInt> RandomOffsets(PetscInt M, PetscInt N, int count, unsigned seed, std::vector<PetscInt> plus)
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

std::vector<PetscInt> Band(PetscInt lo, PetscInt hi)
{
  std::vector<PetscInt> o;
  for (PetscInt d = lo; d <= hi; d++) o.push_back(d);
  return o;
}

/* ---- the operations ------------------------------------------------------ */

PetscErrorCode TestBuild(const Case &c)
{
  Mat D, A;
  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(CheckSame(D, A, c.name, "assembly"));
  if (!c.dmda && c.spec.storage != MAT_DIAG_STORAGE_AUTO) {
    MatDiagStorage st;
    PetscCall(MatDiagGetStorage(D, &st));
    PetscCall(Record(st == c.spec.storage, c.name, "MatDiagGetStorage", Fmt("got %s, asked for %s", MatDiagStorages[st], MatDiagStorages[c.spec.storage])));
  }
  /* the layouts of both types agree */
  PetscInt r0, r1, s0, s1, c0, c1, d0, d1;
  PetscCall(MatGetOwnershipRange(D, &r0, &r1));
  PetscCall(MatGetOwnershipRange(A, &s0, &s1));
  PetscCall(MatGetOwnershipRangeColumn(D, &c0, &c1));
  PetscCall(MatGetOwnershipRangeColumn(A, &d0, &d1));
  PetscCall(Record(r0 == s0 && r1 == s1 && c0 == d0 && c1 == d1, c.name, "ownership ranges"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  if (c.dmda) {
    /* DMCreateMatrix knows the stencil: setting its values adds no diagonal */
    DM               da;
    PetscObjectState before, after;
    PetscInt         nbefore, nafter;
    PetscCall(c.create_da(&da));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &D));
    PetscCall(MatDiagSetStorage(D, MAT_DIAG_STORAGE_HM));
    PetscCall(MatDiagGetDiagonals(D, &nbefore, NULL));
    PetscCall(MatGetNonzeroState(D, &before));
    PetscCall(FillDA(D, da, c.da, 1));
    PetscCall(MatGetNonzeroState(D, &after));
    PetscCall(MatDiagGetDiagonals(D, &nafter, NULL));
    PetscCall(Record(before == after && nbefore == nafter, c.name, "DMCreateMatrix predicts every diagonal of the stencil", Fmt("%d diagonals before the values, %d after", (int)nbefore, (int)nafter)));
    PetscCall(MatDestroy(&D));
    /* a duplicate of the matrix DMCreateMatrix returns, taken before any value is set */
    {
      Mat D2;
      PetscCall(DMCreateMatrix(da, &D));
      PetscCall(MatDuplicate(D, MAT_DO_NOT_COPY_VALUES, &D2));
      PetscCall(FillDA(D2, da, c.da, 1));
      PetscCall(DMSetMatType(da, MATAIJ));
      PetscCall(DMCreateMatrix(da, &A));
      PetscCall(FillDA(A, da, c.da, 1));
      PetscCall(CheckSame(D2, A, c.name, "MatDuplicate of an unassembled DMDA matrix, then MatSetValuesStencil"));
      PetscCall(MatDestroy(&D2));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
    }
    PetscCall(DMDestroy(&da));
  }
  PetscFunctionReturn(0);
}

/* New diagonals after a product (the ghost exchange must be rebuilt, on
   every process, even where nothing changed), then a re-assembly of the
   same pattern. */
PetscErrorCode TestReassembly(const Case &c)
{
  Mat D, A;

  PetscFunctionBeginUser;
  if (c.M == 0 || c.N == 0) PetscFunctionReturn(0);
  PetscCall(c.build(1, &D, &A));
  PetscCall(CheckSame(D, A, c.name, "before re-assembly"));
  for (int round = 0; round < 2; round++) {
    for (Mat X : {D, A}) {
      for (int t = 0; t < 3; t++) {
        const std::uint64_t h = Mix((std::uint64_t)(1000 * round + 10 * g_rank + t));
        const PetscInt      i = (PetscInt)(h % (std::uint64_t)c.M), j = (PetscInt)((h >> 20) % (std::uint64_t)c.N);
        PetscCall(MatSetValue(X, i, j, Value(round, i, j), ADD_VALUES));
      }
      PetscCall(MatAssemblyBegin(X, round ? MAT_FINAL_ASSEMBLY : MAT_FLUSH_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, round ? MAT_FINAL_ASSEMBLY : MAT_FLUSH_ASSEMBLY));
    }
  }
  PetscCall(CheckSame(D, A, c.name, "re-assembly with new diagonals from any process"));
  /* the same pattern again: values written in place */
  PetscCall(MatZeroEntries(D));
  PetscCall(MatZeroEntries(A));
  PetscCall(CheckSame(D, A, c.name, "MatZeroEntries after re-assembly"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  if (!c.dmda) {
    const std::vector<Entry> e = Pattern(c.spec);
    const PetscInt          *ranges;
    PetscObjectState         before, after;
    PetscCall(c.build(1, &D, &A));
    PetscCall(MatGetOwnershipRanges(A, &ranges));
    PetscCall(MatGetNonzeroState(D, &before));
    for (Mat X : {D, A}) {
      PetscCall(SetEntries(X, c.spec, e, ranges, 2, 0, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
    }
    PetscCall(MatGetNonzeroState(D, &after));
    PetscCall(CheckSame(D, A, c.name, "re-assembly of the same pattern with new values"));
    PetscCall(Record(before == after, c.name, "re-assembly of the same pattern keeps the structure"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* The main diagonal of an aij matrix from its rows (mpiaij's MatGetDiagonal
   refuses rectangular matrices). */
PetscErrorCode RefDiagonal(Mat A, Vec d)
{
  PetscInt     r0, r1;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  PetscCall(VecGetArrayWrite(d, &a));
  for (PetscInt i = r0; i < r1; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    a[i - r0] = 0;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] == i) a[i - r0] += vals[k];
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscCall(VecRestoreArrayWrite(d, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode TestProducts(const Case &c)
{
  Mat D, A;
  Vec x, z, y1, y2, xt, zt, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatCreateVecs(A, &x, &z));
  PetscCall(VecDuplicate(z, &y1));
  PetscCall(VecDuplicate(z, &y2));
  PetscCall(VecDuplicate(z, &xt));
  PetscCall(VecDuplicate(x, &zt));
  PetscCall(VecDuplicate(x, &t1));
  PetscCall(VecDuplicate(x, &t2));
  PetscCall(FillVec(x, 1));
  PetscCall(FillVec(z, 2));
  PetscCall(FillVec(xt, 3));
  PetscCall(FillVec(zt, 4));

  PetscCall(MatMult(D, x, y1));
  PetscCall(MatMult(A, x, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatMult"));
  PetscCall(VecSet(y1, 7.0)); /* a second product must not depend on y's old values */
  PetscCall(MatMult(D, x, y1));
  PetscCall(CheckVec(y1, y2, c.name, "MatMult again"));
  PetscCall(MatMultAdd(D, x, z, y1));
  PetscCall(MatMultAdd(A, x, z, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatMultAdd"));
  PetscCall(VecCopy(z, y1));
  PetscCall(VecCopy(z, y2));
  PetscCall(MatMultAdd(D, x, y1, y1));
  PetscCall(MatMultAdd(A, x, y2, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatMultAdd y == z"));

  PetscCall(MatMultTranspose(D, xt, t1));
  PetscCall(MatMultTranspose(A, xt, t2));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTranspose"));
  PetscCall(VecSet(t1, -3.0));
  PetscCall(MatMultTranspose(D, xt, t1));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTranspose again"));
  PetscCall(MatMultTransposeAdd(D, xt, zt, t1));
  PetscCall(MatMultTransposeAdd(A, xt, zt, t2));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTransposeAdd"));
  PetscCall(VecCopy(zt, t1));
  PetscCall(VecCopy(zt, t2));
  PetscCall(MatMultTransposeAdd(D, xt, t1, t1));
  PetscCall(MatMultTransposeAdd(A, xt, t2, t2));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTransposeAdd y == z"));

  PetscCall(MatGetDiagonal(D, y1));
  PetscCall(RefDiagonal(A, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatGetDiagonal"));

  for (Vec v : {x, z, y1, y2, xt, zt, t1, t2}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestScaling(const Case &c)
{
  Mat D, A;
  Vec l, r;

  PetscFunctionBeginUser;
  for (int which = 0; which < 3; which++) {
    const char *what[] = {"MatDiagonalScale left", "MatDiagonalScale right", "MatDiagonalScale both"};
    PetscCall(c.build(1, &D, &A));
    PetscCall(MatCreateVecs(A, &r, &l));
    PetscCall(FillVec(l, 21, true));
    PetscCall(FillVec(r, 22, true));
    PetscCall(MatDiagonalScale(D, which != 1 ? l : NULL, which != 0 ? r : NULL));
    PetscCall(MatDiagonalScale(A, which != 1 ? l : NULL, which != 0 ? r : NULL));
    PetscCall(CheckSame(D, A, c.name, what[which]));
    PetscCall(VecDestroy(&l));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  if (c.square()) {
    for (InsertMode mode : {INSERT_VALUES, ADD_VALUES}) {
      PetscCall(c.build(1, &D, &A));
      PetscCall(MatCreateVecs(A, NULL, &l));
      PetscCall(FillVec(l, 23));
      PetscCall(MatDiagonalSet(D, l, mode));
      PetscCall(MatDiagonalSet(A, l, mode));
      PetscCall(CheckSame(D, A, c.name, mode == INSERT_VALUES ? "MatDiagonalSet INSERT" : "MatDiagonalSet ADD"));
      PetscCall(VecDestroy(&l));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
    }
  }
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatScale(D, -1.75));
  PetscCall(MatScale(A, -1.75));
  PetscCall(CheckSame(D, A, c.name, "MatScale"));
  PetscCall(MatShift(D, 3.25));
  PetscCall(MatShift(A, 3.25));
  PetscCall(CheckSame(D, A, c.name, c.has_main ? "MatShift" : "MatShift (no main diagonal stored)"));
  PetscCall(MatShift(D, -0.5));
  PetscCall(MatShift(A, -0.5));
  PetscCall(CheckSame(D, A, c.name, "MatShift twice"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestAXPY(const Case &c)
{
  Mat D, A, DX, AX, DY, AY;

  PetscFunctionBeginUser;
  /* same diagonals (same pattern, other values) */
  PetscCall(c.build(1, &D, &A));
  PetscCall(c.build(2, &DX, &AX));
  PetscCall(MatAXPY(D, 0.7, DX, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, 0.7, AX, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+diag same diagonals"));
  /* different diagonals (the other pattern; for square random cases also the other storage) */
  PetscCall(c.build_other(3, &DY, &AY));
  PetscCall(MatAXPY(D, -1.3, DY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, -1.3, AY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+diag different diagonals"));
  PetscCall(MatAXPY(DY, 2.5, D, UNKNOWN_NONZERO_PATTERN));
  PetscCall(MatAXPY(AY, 2.5, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(DY, AY, c.name, "MatAXPY diag+diag different diagonals, other way"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&DY));
  PetscCall(MatDestroy(&AY));

  /* diag Y, aij X: PETSc's generic path (MatGetRow of X, MatSetValues into Y) */
  PetscCall(c.build(1, &D, &A));
  PetscCall(c.build_other(4, &DY, &AY));
  PetscCall(MatAXPY(D, 0.5, AY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, 0.5, AY, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+aij different pattern"));
  PetscCall(MatAXPY(D, -0.25, AX, SUBSET_NONZERO_PATTERN));
  PetscCall(MatAXPY(A, -0.25, AX, SUBSET_NONZERO_PATTERN));
  PetscCall(CheckSame(D, A, c.name, "MatAXPY diag+aij subset pattern"));
  /* aij Y, diag X */
  {
    Mat B;
    PetscCall(MatDuplicate(AY, MAT_COPY_VALUES, &B));
    PetscCall(AllowNew(B));
    PetscCall(MatAXPY(B, 1.5, DX, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(AY, 1.5, AX, DIFFERENT_NONZERO_PATTERN));
    PetscCall(CheckSame(B, AY, c.name, "MatAXPY aij+diag", false));
    PetscCall(MatDestroy(&B));
  }
  for (Mat *m : {&D, &A, &DX, &AX, &DY, &AY}) PetscCall(MatDestroy(m));
  PetscFunctionReturn(0);
}

/* The rows a process passes to MatZeroRows: a few of anyone's rows. */
std::vector<PetscInt> SomeRows(PetscInt M)
{
  std::vector<PetscInt> rows;
  if (M == 0) return rows;
  for (PetscInt k = 0; k < 4; k++) rows.push_back((7 * k + 3 * g_rank + 1) % M);
  rows.push_back(rows[0]); /* repeats are allowed */
  return rows;
}

/* Explicit zeros on the main diagonal of an aij matrix (values unchanged). */
PetscErrorCode ZeroDiagonalEntries(Mat A)
{
  PetscInt r0, r1, N;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  PetscCall(MatGetSize(A, NULL, &N));
  for (PetscInt i = r0; i < PetscMin(r1, N); i++) PetscCall(MatSetValue(A, i, i, 0.0, ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* D reports aij's pattern: MatGetInfo's nz_used, the columns of every
   owned row (MatGetRow), and the entries of its conversion to aij. */
PetscErrorCode CheckPattern(Mat D, Mat A, const std::string &cs, const std::string &what)
{
  MatInfo  id, ia, ic;
  Mat      C;
  PetscInt r0, r1, bad = -1;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &id));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatGetInfo(C, MAT_GLOBAL_SUM, &ic));
  PetscCall(MatDestroy(&C));
  PetscCall(Record(id.nz_used == ia.nz_used && ic.nz_used == ia.nz_used, cs, what + ": aij's entries (MatGetInfo, MatConvert)", Fmt("diag %.0f, its aij conversion %.0f, aij %.0f", id.nz_used, ic.nz_used, ia.nz_used)));
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  for (PetscInt i = r0; i < r1 && bad < 0; i++) {
    PetscInt              nd, na;
    const PetscInt       *cd, *ca;
    std::vector<PetscInt> cols;
    PetscCall(MatGetRow(A, i, &na, &ca, NULL));
    cols.assign(ca, ca + na);
    PetscCall(MatRestoreRow(A, i, &na, &ca, NULL));
    PetscCall(MatGetRow(D, i, &nd, &cd, NULL));
    if (nd != (PetscInt)cols.size() || !std::equal(cols.begin(), cols.end(), cd)) bad = i;
    PetscCall(MatRestoreRow(D, i, &nd, &cd, NULL));
  }
  PetscCall(Record(bad < 0, cs, what + ": MatGetRow gives aij's columns", Fmt("first row that differs %d", (int)bad)));
  PetscFunctionReturn(0);
}

PetscErrorCode TestZero(const Case &c)
{
  Mat D, A;
  Vec x, b1, b2;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatZeroEntries(D));
  PetscCall(MatZeroEntries(A));
  PetscCall(CheckSame(D, A, c.name, "MatZeroEntries"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));

  const std::vector<PetscInt> rows = SomeRows(c.M);
  for (PetscScalar diag : {0.0, 2.5}) {
    const bool withxb = c.square();
    PetscCall(c.build(1, &D, &A));
    PetscCall(MatCreateVecs(A, &x, &b1));
    PetscCall(VecDuplicate(b1, &b2));
    PetscCall(FillVec(x, 31));
    PetscCall(FillVec(b1, 32));
    PetscCall(VecCopy(b1, b2));
    /* seqaij's MatZeroRows writes into freed memory when it has to insert a
       missing diagonal entry (PETSc 3.18): give the reference explicit zeros there */
    if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
    PetscCall(MatZeroRows(D, (PetscInt)rows.size(), rows.data(), diag, withxb ? x : NULL, withxb ? b1 : NULL));
    PetscCall(MatZeroRows(A, (PetscInt)rows.size(), rows.data(), diag, withxb ? x : NULL, withxb ? b2 : NULL));
    std::string what = diag == 0.0 ? "MatZeroRows diag 0" : "MatZeroRows diag 2.5";
    PetscCall(CheckSame(D, A, c.name, what));
    if (withxb) PetscCall(CheckVec(b1, b2, c.name, what + " b"));
    /* aij drops the rows' other entries (diag 0: the whole row; diag keeps
       a square matrix's main diagonal entry, a stored zero). Not where
       the reference got explicit zeros on the diagonal above. */
    if (diag != 0.0 && c.has_main) PetscCall(CheckPattern(D, A, c.name, what));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
    /* MAT_KEEP_NONZERO_PATTERN: the rows keep their entries, as zeros */
    PetscCall(c.build(1, &D, &A));
    if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
    for (Mat M : {D, A}) {
      PetscCall(MatSetOption(M, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE));
      PetscCall(MatZeroRows(M, (PetscInt)rows.size(), rows.data(), diag, NULL, NULL));
    }
    PetscCall(CheckSame(D, A, c.name, what + " keeping the pattern"));
    if (c.has_main) PetscCall(CheckPattern(D, A, c.name, what + " keeping the pattern"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
    if (c.square()) {
      PetscCall(c.build(1, &D, &A));
      PetscCall(FillVec(b1, 33));
      PetscCall(VecCopy(b1, b2));
      if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
      PetscCall(MatZeroRowsColumns(D, (PetscInt)rows.size(), rows.data(), diag, x, b1));
      PetscCall(MatZeroRowsColumns(A, (PetscInt)rows.size(), rows.data(), diag, x, b2));
      what = diag == 0.0 ? "MatZeroRowsColumns diag 0" : "MatZeroRowsColumns diag 2.5";
      PetscCall(CheckSame(D, A, c.name, what));
      PetscCall(CheckVec(b1, b2, c.name, what + " b"));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
      PetscCall(c.build(1, &D, &A));
      if (!c.has_main) PetscCall(ZeroDiagonalEntries(A));
      PetscCall(MatZeroRowsColumns(D, (PetscInt)rows.size(), rows.data(), diag, NULL, NULL));
      PetscCall(MatZeroRowsColumns(A, (PetscInt)rows.size(), rows.data(), diag, NULL, NULL));
      PetscCall(CheckSame(D, A, c.name, what + " without x, b"));
      PetscCall(MatDestroy(&D));
      PetscCall(MatDestroy(&A));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b1));
    PetscCall(VecDestroy(&b2));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TestDuplicateCopy(const Case &c)
{
  Mat D, A, D2, A2, DB, AB;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D2));
  PetscCall(CheckSame(D2, A, c.name, "MatDuplicate MAT_COPY_VALUES"));
  PetscCall(MatScale(D2, 3.0));
  PetscCall(MatShift(D2, 1.0));
  PetscCall(CheckSame(D, A, c.name, "original unchanged after changing its duplicate"));
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDuplicate(D, MAT_DO_NOT_COPY_VALUES, &D2));
  PetscCall(MatDuplicate(A, MAT_DO_NOT_COPY_VALUES, &A2));
  PetscCall(CheckSame(D2, A2, c.name, "MatDuplicate MAT_DO_NOT_COPY_VALUES"));
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDestroy(&A2));

  /* diag -> diag, same pattern */
  PetscCall(c.build(5, &DB, &AB));
  PetscCall(MatCopy(D, DB, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(DB, A, c.name, "MatCopy diag->diag SAME_NONZERO_PATTERN"));
  { /* copying again into the same diagonals keeps the nonzero state, as for
       aij: PCs set up on DB reuse their symbolic work */
    PetscObjectState before, after;
    PetscCall(MatGetNonzeroState(DB, &before));
    PetscCall(MatScale(D, 2.0));
    PetscCall(MatCopy(D, DB, SAME_NONZERO_PATTERN));
    PetscCall(MatScale(D, 0.5));
    PetscCall(MatGetNonzeroState(DB, &after));
    PetscCall(Record(before == after, c.name, "MatCopy into the same diagonals keeps the nonzero state"));
  }
  /* diag -> aij */
  PetscCall(MatCopy(D, AB, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(AB, A, c.name, "MatCopy diag->aij", false));
  PetscCall(MatDestroy(&DB));
  PetscCall(MatDestroy(&AB));
  /* diag -> diag, different pattern */
  PetscCall(c.build_other(6, &DB, &AB));
  PetscCall(MatCopy(D, DB, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckSame(DB, A, c.name, "MatCopy diag->diag DIFFERENT_NONZERO_PATTERN"));
  PetscCall(MatDestroy(&DB));
  PetscCall(MatDestroy(&AB));
  /* aij -> diag */
  PetscCall(c.build(7, &DB, &AB));
  PetscCall(MatCopy(A, DB, SAME_NONZERO_PATTERN));
  PetscCall(CheckSame(DB, A, c.name, "MatCopy aij->diag"));
  PetscCall(MatDestroy(&DB));
  PetscCall(MatDestroy(&AB));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestRowsNormsInfo(const Case &c)
{
  Mat      D, A;
  PetscInt r0, r1;
  bool     rows_ok = true, sorted = true;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatGetOwnershipRange(D, &r0, &r1));
  std::string detail;
  for (PetscInt i = r0; i < r1; i++) {
    PetscInt                      nd, na;
    const PetscInt               *cd, *ca;
    const PetscScalar            *vd, *va;
    std::map<PetscInt, PetscScalar> md, ma;
    PetscCall(MatGetRow(D, i, &nd, &cd, &vd));
    for (PetscInt k = 0; k < nd; k++) {
      md[cd[k]] += vd[k];
      if (k && cd[k] <= cd[k - 1]) sorted = false;
      if (cd[k] < 0 || cd[k] >= c.N) rows_ok = false;
    }
    PetscCall(MatRestoreRow(D, i, &nd, &cd, &vd));
    PetscCall(MatGetRow(A, i, &na, &ca, &va));
    for (PetscInt k = 0; k < na; k++) ma[ca[k]] += va[k];
    PetscCall(MatRestoreRow(A, i, &na, &ca, &va));
    for (auto &kv : ma)
      if (!(PetscAbsScalar(md[kv.first] - kv.second) <= kTol * PetscMax(1.0, PetscAbsScalar(kv.second)))) {
        rows_ok = false;
        if (detail.empty()) detail = Fmt("row %d column %d: %g vs %g", (int)i, (int)kv.first, (double)PetscRealPart(md[kv.first]), (double)PetscRealPart(kv.second));
      }
    for (auto &kv : md)
      if (!ma.count(kv.first) && kv.second != 0.0) {
        rows_ok = false;
        if (detail.empty()) detail = Fmt("row %d column %d: %g not in aij", (int)i, (int)kv.first, (double)PetscRealPart(kv.second));
      }
  }
  PetscCall(Record(rows_ok, c.name, "MatGetRow on every owned row", detail));
  PetscCall(Record(sorted, c.name, "MatGetRow columns ascending"));

  for (NormType t : {NORM_1, NORM_FROBENIUS, NORM_INFINITY}) {
    PetscReal nd, na;
    PetscCall(MatNorm(D, t, &nd));
    PetscCall(MatNorm(A, t, &na));
    PetscCall(Record(Close(nd, na), c.name, std::string("MatNorm ") + NormTypes[t], Fmt("%.17g vs %.17g", (double)nd, (double)na)));
  }

  MatInfo id, ia, il, im;
  PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &id));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(D, MAT_LOCAL, &il));
  PetscCall(MatGetInfo(D, MAT_GLOBAL_MAX, &im));
  PetscLogDouble lsum = 0;
  PetscCall(MPIU_Allreduce(&il.nz_used, &lsum, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  /* nz_used: the entries aij holds (GAMG's operator complexity counts them) */
  const bool info_ok = id.nz_used == ia.nz_used && id.nz_used <= (PetscLogDouble)c.M * (PetscLogDouble)c.N && lsum == id.nz_used && im.nz_used <= id.nz_used &&
                       id.nz_allocated >= id.nz_used && id.memory >= 0;
  PetscCall(Record(info_ok, c.name, "MatGetInfo", Fmt("nz_used %.0f (aij %.0f, local sum %.0f, max %.0f) of %.0f", id.nz_used, ia.nz_used, lsum, im.nz_used, (double)c.M * c.N)));

#if PDIAG_HAVE_MAT_GET_ROW_SUM_ABS /* PETSc 3.21 and later (PCJACOBI rowl1) */
  {
    Vec sd, sa;
    PetscCall(MatCreateVecs(A, NULL, &sa));
    PetscCall(VecDuplicate(sa, &sd));
    PetscCall(MatGetRowSumAbs(A, sa));
    PetscCall(MatGetRowSumAbs(D, sd));
    PetscReal e, na;
    PetscCall(VecNorm(sa, NORM_INFINITY, &na));
    PetscCall(VecAXPY(sd, -1.0, sa));
    PetscCall(VecNorm(sd, NORM_INFINITY, &e));
    PetscCall(Record(e <= 1e-13 * PetscMax(na, 1.0), c.name, "MatGetRowSumAbs", Fmt("max difference %g (aij's largest %g)", (double)e, (double)na)));
    PetscCall(VecDestroy(&sd));
    PetscCall(VecDestroy(&sa));
  }
#endif

#if PDIAG_HAVE_MAT_MISSING_DIAGONAL /* PETSc 3.25 removed MatMissingDiagonal() */
  /* MatMissingDiagonal: missing exactly when the main diagonal is not stored
     but crosses this process's rows */
  PetscBool missing;
  PetscInt  dd;
  PetscCall(MatMissingDiagonal(D, &missing, &dd));
  const bool crosses = PetscMax(r0, 0) < PetscMin(r1, c.N);
  const bool expect  = !c.has_main && crosses;
  PetscCall(Record((missing == PETSC_TRUE) == expect && (!missing || (dd >= r0 && dd < r1)), c.name, "MatMissingDiagonal", Fmt("missing %d (row %d), expected %d", (int)missing, (int)dd, (int)expect)));
#endif
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestEqual(const Case &c)
{
  Mat       D, A, D2, A2, D3;
  PetscBool e1, e2;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D2));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
  PetscCall(MatEqual(D, D2, &e1));
  PetscCall(MatEqual(A, A2, &e2));
  PetscCall(Record(e1 && e2, c.name, "MatEqual of equal matrices", Fmt("diag %d, aij %d", (int)e1, (int)e2)));
  PetscCall(MatEqual(D, A, &e1));
  PetscCall(Record(e1, c.name, "MatEqual diag vs aij (equal)"));
  /* the same values with other stored diagonals: an extra zero diagonal */
  if (c.M > 1) {
    Mat D4;
    PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D4));
    PetscCall(MatSetValue(D4, c.M - 1, 0, 0.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(D4, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(D4, MAT_FINAL_ASSEMBLY));
    PetscCall(MatEqual(D, D4, &e1));
    PetscCall(Record(e1, c.name, "MatEqual with an extra zero diagonal"));
    PetscCall(MatDestroy(&D4));
  }
  if (c.square()) {
    MatDiagStorage st;
    PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &D3));
    PetscCall(MatDiagGetStorage(D3, &st));
    PetscCall(MatDiagSetStorage(D3, st == MAT_DIAG_STORAGE_HM ? MAT_DIAG_STORAGE_CDM : MAT_DIAG_STORAGE_HM));
    PetscCall(MatEqual(D, D3, &e1));
    PetscCall(Record(e1, c.name, "MatEqual HM vs CDM storage of equal matrices"));
    PetscCall(CheckSame(D3, A, c.name, "MatDiagSetStorage on an assembled matrix"));
    PetscCall(MatDestroy(&D3));
  }
  if (c.M > 0 && c.N > 0) {
    PetscCall(MatShift(D2, 1e-3));
    PetscCall(MatShift(A2, 1e-3));
    PetscCall(MatEqual(D, D2, &e1));
    PetscCall(MatEqual(A, A2, &e2));
    PetscCall(Record(!e1 && !e2, c.name, "MatEqual of unequal matrices", Fmt("diag %d, aij %d", (int)e1, (int)e2)));
    PetscCall(MatEqual(D2, A, &e1));
    PetscCall(Record(!e1, c.name, "MatEqual diag vs aij (unequal)"));
  }
  PetscCall(MatDestroy(&D2));
  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestTranspose(const Case &c)
{
  Mat D, A, Dt, At;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatTranspose(D, MAT_INITIAL_MATRIX, &Dt));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
  PetscCall(CheckSame(Dt, At, c.name, "MatTranspose MAT_INITIAL_MATRIX"));
  PetscCall(MatScale(D, 2.0));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatTranspose(D, MAT_REUSE_MATRIX, &Dt));
  PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &At));
  PetscCall(CheckSame(Dt, At, c.name, "MatTranspose MAT_REUSE_MATRIX"));
  PetscCall(MatTranspose(D, MAT_INPLACE_MATRIX, &D));
  PetscCall(MatTranspose(A, MAT_INPLACE_MATRIX, &A));
  PetscCall(CheckSame(D, A, c.name, "MatTranspose MAT_INPLACE_MATRIX"));
  PetscCall(CheckSame(D, At, c.name, "MatTranspose MAT_INPLACE_MATRIX vs INITIAL"));
  for (Mat *m : {&D, &A, &Dt, &At}) PetscCall(MatDestroy(m));
  PetscFunctionReturn(0);
}

PetscErrorCode TestConvert(const Case &c)
{
  Mat D, A, X, Y;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  /* diag -> aij */
  PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &X));
  PetscCall(Record(IsType(X, MATSEQAIJ, MATMPIAIJ), c.name, "MatConvert diag->aij INITIAL type"));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->aij INITIAL", false));
  PetscCall(MatScale(D, 2.0));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatConvert(D, MATAIJ, MAT_REUSE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->aij REUSE", false));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &X));
  PetscCall(MatConvert(X, MATAIJ, MAT_INPLACE_MATRIX, &X));
  PetscCall(Record(IsType(X, MATSEQAIJ, MATMPIAIJ), c.name, "MatConvert diag->aij INPLACE type"));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->aij INPLACE", false));
  PetscCall(MatDestroy(&X));

  /* diag -> diag */
  PetscCall(MatConvert(D, MATSAME, MAT_INITIAL_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->same INITIAL"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &X));
  PetscCall(MatConvert(X, MATDIAG, MAT_INPLACE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert diag->diag INPLACE"));
  PetscCall(MatDestroy(&X));

  /* aij -> diag */
  PetscCall(MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert aij->diag INITIAL"));
  PetscCall(MatScale(A, -0.5));
  PetscCall(MatConvert(A, MATDIAG, MAT_REUSE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert aij->diag REUSE"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &X));
  PetscCall(MatConvert(X, MATDIAG, MAT_INPLACE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert aij->diag INPLACE"));
  PetscCall(MatDestroy(&X));

  /* dense -> diag */
  PetscCall(MatConvert(A, MATDENSE, MAT_INITIAL_MATRIX, &Y));
  PetscCall(MatConvert(Y, MATDIAG, MAT_INITIAL_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert dense->diag INITIAL"));
  PetscCall(MatScale(Y, 3.0));
  PetscCall(MatScale(A, 3.0));
  PetscCall(MatConvert(Y, MATDIAG, MAT_REUSE_MATRIX, &X));
  PetscCall(CheckSame(X, A, c.name, "MatConvert dense->diag REUSE"));
  PetscCall(MatDestroy(&X));
  PetscCall(MatConvert(Y, MATDIAG, MAT_INPLACE_MATRIX, &Y));
  PetscCall(CheckSame(Y, A, c.name, "MatConvert dense->diag INPLACE"));
  PetscCall(MatDestroy(&Y));

  /* diag -> dense (D is 2 A_original; A is now -3 A_original) */
  PetscCall(MatScale(A, -2.0 / 3.0));
  PetscCall(MatConvert(D, MATDENSE, MAT_INITIAL_MATRIX, &Y));
  PetscCall(Record(IsType(Y, MATSEQDENSE, MATMPIDENSE), c.name, "MatConvert diag->dense INITIAL type"));
  PetscCall(CheckSame(Y, A, c.name, "MatConvert diag->dense INITIAL", false));
  PetscCall(MatScale(D, 0.25));
  PetscCall(MatScale(A, 0.25));
  PetscCall(MatConvert(D, MATDENSE, MAT_REUSE_MATRIX, &Y));
  PetscCall(CheckSame(Y, A, c.name, "MatConvert diag->dense REUSE", false));
  PetscCall(MatDestroy(&Y));
  PetscCall(MatConvert(D, MATDENSE, MAT_INPLACE_MATRIX, &D));
  PetscCall(Record(IsType(D, MATSEQDENSE, MATMPIDENSE), c.name, "MatConvert diag->dense INPLACE type"));
  PetscCall(CheckSame(D, A, c.name, "MatConvert diag->dense INPLACE", false));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* COO: each process passes the entries it would set (remote rows too), each
   split into two duplicates, plus entries with a negative index (ignored). */
PetscErrorCode TestCOO(const Case &c)
{
  const RandSpec          &s = c.spec;
  const std::vector<Entry> e = Pattern(s);
  Mat                      D, A;
  const PetscInt          *ranges;
  std::vector<PetscInt>    ci, cj;
  std::vector<Entry>       mine;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, s.mloc, s.nloc, s.M, s.N));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, s.mloc, s.nloc, s.M, s.N));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(MatDiagSetStorage(D, s.storage));
  PetscLayout rmap;
  PetscCall(PetscLayoutCreate(PETSC_COMM_WORLD, &rmap));
  PetscCall(PetscLayoutSetLocalSize(rmap, s.mloc));
  PetscCall(PetscLayoutSetSize(rmap, s.M));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutGetRanges(rmap, &ranges));
  for (const Entry &x : e)
    if (Setter(s, ranges, x.i, x.j) == g_rank) mine.push_back(x);
  PetscCall(PetscLayoutDestroy(&rmap));
  for (const Entry &x : mine) {
    ci.push_back(x.i);
    cj.push_back(x.j);
    ci.push_back(x.i);
    cj.push_back(x.j);
  }
  if (s.M > 0 && s.N > 0) { /* ignored entries */
    ci.push_back(-1);
    cj.push_back(0);
    ci.push_back(0);
    cj.push_back(-1);
  }
  {
    std::vector<PetscInt> i1 = ci, j1 = cj, i2 = ci, j2 = cj; /* the arrays may be modified */
    PetscCall(MatSetPreallocationCOO(D, (PetscCount)ci.size(), i1.data(), j1.data()));
    PetscCall(MatSetPreallocationCOO(A, (PetscCount)ci.size(), i2.data(), j2.data()));
  }
  for (int round = 0; round < 3; round++) {
    const InsertMode         mode = round == 1 ? ADD_VALUES : INSERT_VALUES;
    std::vector<PetscScalar> v;
    for (std::size_t k = 0; k < mine.size(); k++) {
      const PetscScalar x = Value(40 + round, mine[k].i, mine[k].j);
      v.push_back(0.3 * x);
      v.push_back(0.7 * x);
    }
    if (s.M > 0 && s.N > 0) {
      v.push_back(1e30);
      v.push_back(1e30);
    }
    PetscCall(MatSetValuesCOO(D, v.data(), mode));
    PetscCall(MatSetValuesCOO(A, v.data(), mode));
    PetscCall(CheckSame(D, A, c.name, Fmt("MatSetValuesCOO round %d %s", round, mode == ADD_VALUES ? "ADD" : "INSERT")));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  /* COO on a matrix that already holds values: the new structure starts from zeros */
  {
    std::vector<PetscInt>    i1 = ci, j1 = cj, i2 = ci, j2 = cj;
    std::vector<PetscScalar> v(ci.size(), 0.0);
    for (std::size_t k = 0; k < mine.size(); k++) v[2 * k] = v[2 * k + 1] = Value(50, mine[k].i, mine[k].j);
    PetscCall(c.build_other(9, &D, &A));
    PetscCall(MatSetPreallocationCOO(D, (PetscCount)ci.size(), i1.data(), j1.data()));
    PetscCall(MatSetPreallocationCOO(A, (PetscCount)ci.size(), i2.data(), j2.data()));
    PetscCall(MatSetValuesCOO(D, v.data(), ADD_VALUES));
    PetscCall(MatSetValuesCOO(A, v.data(), ADD_VALUES));
    PetscCall(CheckSame(D, A, c.name, "MatSetPreallocationCOO + MatSetValuesCOO ADD on an assembled matrix"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* M's row and column block sizes are R's. */
PetscErrorCode CheckBlockSizes(Mat M, Mat R, const std::string &cs, const std::string &what)
{
  PetscInt mr, mc, rr, rc;

  PetscFunctionBeginUser;
  PetscCall(MatGetBlockSizes(M, &mr, &mc));
  PetscCall(MatGetBlockSizes(R, &rr, &rc));
  PetscCall(Record(mr == rr && mc == rc, cs, what, Fmt("diag %d x %d, aij %d x %d", (int)mr, (int)mc, (int)rr, (int)rc)));
  PetscFunctionReturn(0);
}

bool FileContains(const std::string &path, const std::string &text)
{
  std::ifstream     f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str().find(text) != std::string::npos;
}

PetscErrorCode TestViewLoad(const Case &c)
{
  Mat                D, A, L1, L2, L3;
  PetscViewer        v;
  const std::string  f1 = Fmt("ops_vs_aij_np%d_diag.dat", g_size), f2 = Fmt("ops_vs_aij_np%d_aij.dat", g_size);
  const std::string  fi = Fmt("ops_vs_aij_np%d_info.txt", g_size), fo = Fmt("ops_vs_aij_np%d_opt.txt", g_size);

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(MatView(D, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f2.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  /* a DMDA matrix is written in the natural ordering: compare what was read */
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f2.c_str(), FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &L2));
  PetscCall(MatSetType(L2, MATAIJ));
  PetscCall(MatLoad(L2, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &L1));
  PetscCall(PetscObjectSetName((PetscObject)L1, "loaded"));
  PetscCall(MatSetOptionsPrefix(L1, "ld_"));
  PetscCall(MatSetType(L1, MATDIAG));
  PetscCall(MatLoad(L1, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(CheckSame(L1, L2, c.name, "MatView binary + MatLoad into diag"));
  PetscCall(CheckBlockSizes(L1, L2, c.name, "MatLoad into diag reads the block size of the .info file as aij does"));
  {
    const char *name = NULL, *prefix = NULL;
    PetscCall(PetscObjectGetName((PetscObject)L1, &name));
    PetscCall(MatGetOptionsPrefix(L1, &prefix));
    PetscCall(Record(name && !strcmp(name, "loaded") && prefix && !strcmp(prefix, "ld_"), c.name, "MatLoad keeps the matrix's name and options prefix", Fmt("name %s, prefix %s", name ? name : "(null)", prefix ? prefix : "(null)")));
  }
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &L3));
  PetscCall(MatSetType(L3, MATAIJ));
  PetscCall(MatLoad(L3, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(CheckSame(L3, L2, c.name, "MatView binary + MatLoad into aij", false));
  if (!c.dmda) {
    /* into a diag matrix with the original's sizes set */
    Mat L6;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &L6));
    PetscCall(MatSetSizes(L6, c.spec.mloc, c.spec.nloc, c.M, c.N));
    PetscCall(MatSetType(L6, MATDIAG));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatLoad(L6, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckSame(L6, A, c.name, "MatLoad into a diag matrix of set sizes equals the original"));
    PetscCall(MatDestroy(&L6));
  } else {
    /* into the DMDA's matrices (in parallel: from the natural ordering) */
    DM  da;
    Mat L4, L5;
    PetscCall(c.create_da(&da));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &L4));
    PetscCall(DMSetMatType(da, MATAIJ));
    PetscCall(DMCreateMatrix(da, &L5));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatLoad(L4, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f2.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatLoad(L5, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckSame(L5, A, c.name, "MatLoad into the DMDA's aij matrix (reference)", false));
    PetscCall(CheckSame(L4, A, c.name, "MatLoad into the DMDA's diag matrix"));
    PetscCall(CheckBlockSizes(L4, L5, c.name, "MatLoad into the DMDA's diag matrix keeps the block size as aij does"));
    {
      DM d4, d5;
      PetscCall(MatGetDM(L4, &d4));
      PetscCall(MatGetDM(L5, &d5));
      PetscCall(Record(!d4 == !d5, c.name, "MatLoad keeps the DM as aij does", Fmt("diag %s, aij %s", d4 ? "has it" : "lost it", d5 ? "has it" : "lost it")));
      if (d4 && d5) { /* and MatSetValuesStencil still works */
        MatStencil  row = {0, 0, 0, 0};
        PetscScalar one = 1.0;
        PetscCall(MatSetValuesStencil(L4, 1, &row, 1, &row, &one, ADD_VALUES));
        PetscCall(MatSetValuesStencil(L5, 1, &row, 1, &row, &one, ADD_VALUES));
        PetscCall(MatAssemblyBegin(L4, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(L4, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyBegin(L5, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(L5, MAT_FINAL_ASSEMBLY));
        PetscCall(CheckSame(L4, L5, c.name, "MatSetValuesStencil after MatLoad"));
      }
    }
    PetscCall(MatDestroy(&L4));
    PetscCall(MatDestroy(&L5));
  }
  PetscCall(MatDestroy(&L1));
  PetscCall(MatDestroy(&L2));
  PetscCall(MatDestroy(&L3));

  /* ascii info: through a viewer, and through -mat_view at assembly */
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, fi.c_str(), &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(D, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  if (c.M <= 64) { /* the default ascii format lists the entries */
    const std::string fa = Fmt("ops_vs_aij_np%d_ascii.txt", g_size);
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, fa.c_str(), &v));
    PetscCall(MatView(D, v));
    PetscCall(PetscViewerDestroy(&v));
    int ok = 1;
    if (!g_rank) ok = FileContains(fa, "row 0:") || c.M == 0;
    if (!g_rank) std::remove(fa.c_str());
    PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCall(Record(ok, c.name, "MatView ascii lists the rows"));
  }
  PetscCall(PetscOptionsSetValue(NULL, "-mat_view", (std::string("ascii:") + fo + ":ascii_info").c_str()));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_view"));
  /* also a DMDA's matrix in parallel, whose ops table holds the DMDA's view
     (the natural ordering; it prints nothing for ascii info) */
  const std::string want = "diag storage";
  int               ok   = 1;
  if (!g_rank) ok = FileContains(fi, want) && FileContains(fo, want);
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(Record(ok, c.name, "MatView ascii_info and -mat_view ::ascii_info", "no '" + want + "' line"));
  if (!g_rank)
    for (const std::string &f : {f1, f1 + ".info", f2, f2 + ".info", fi, fo}) std::remove(f.c_str());
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

void RunCase(const Case &c)
{
  Run(c.name, "build", [&] { return TestBuild(c); });
  Run(c.name, "products", [&] { return TestProducts(c); });
  Run(c.name, "re-assembly", [&] { return TestReassembly(c); });
  Run(c.name, "scaling", [&] { return TestScaling(c); });
  Run(c.name, "axpy", [&] { return TestAXPY(c); });
  Run(c.name, "zero", [&] { return TestZero(c); });
  Run(c.name, "duplicate/copy", [&] { return TestDuplicateCopy(c); });
  Run(c.name, "rows/norms/info", [&] { return TestRowsNormsInfo(c); });
  Run(c.name, "equal", [&] { return TestEqual(c); });
  Run(c.name, "transpose", [&] { return TestTranspose(c); });
  Run(c.name, "convert", [&] { return TestConvert(c); });
  if (!c.dmda) Run(c.name, "coo", [&] { return TestCOO(c); });
  Run(c.name, "view/load", [&] { return TestViewLoad(c); });
}

/* M[0] aij, M[1] diag: n x n, set up, empty, the same layout. */
PetscErrorCode CreateAijDiagPair(PetscInt n, Mat M[2])
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

/* MatLoad takes the block size of the file's .info (-matload_block_size,
   which MatView of a matrix with block size 3 writes) into diag as into
   aij, with and without sizes set; a block size set before MatLoad stays
   when the file gives none. */
PetscErrorCode TestLoadBlockSize()
{
  const PetscInt    bs = 3, nb = 7;
  const std::string f  = Fmt("ops_vs_aij_np%d_bs.dat", g_size), fn = Fmt("ops_vs_aij_np%d_bs1.dat", g_size);
  Mat               A;
  PetscViewer       v;
  PetscInt          rstart, rend;

  PetscFunctionBeginUser;
  const PetscInt    mloc = bs * (nb / g_size + (g_rank < nb % g_size ? 1 : 0)); /* whole blocks on each process */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, mloc, mloc, bs * nb, bs * nb));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++)
    for (PetscInt j = PetscMax(0, i - bs); j <= PetscMin(bs * nb - 1, i + bs); j++) PetscCall(MatSetValue(A, i, j, i == j ? 4.0 : -1.0 / (1 + i + j), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, fn.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(PetscViewerBinarySkipInfo(v)); /* no .info: no block size in the file */
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  for (int sized = 0; sized < 2; sized++)
    for (int preset = 0; preset < 2; preset++) {
      Mat         L[2];
      PetscInt    got[2][2];
      const char *file = preset ? fn.c_str() : f.c_str(); /* a block size set before: from a file without one */
      for (int t = 0; t < 2; t++) {
        PetscCall(MatCreate(PETSC_COMM_WORLD, &L[t]));
        if (sized) PetscCall(MatSetSizes(L[t], rend - rstart, rend - rstart, bs * nb, bs * nb));
        if (preset) PetscCall(MatSetBlockSize(L[t], bs));
        PetscCall(MatSetType(L[t], t ? MATDIAG : MATAIJ));
        /* opening the file puts its .info's options in the database: only this file's */
        PetscCall(PetscOptionsClearValue(NULL, "-matload_block_size"));
        PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
        PetscCall(MatLoad(L[t], v));
        PetscCall(PetscViewerDestroy(&v));
        PetscCall(PetscOptionsClearValue(NULL, "-matload_block_size"));
        PetscCall(MatGetBlockSizes(L[t], &got[t][0], &got[t][1]));
      }
      PetscCall(Record(got[0][0] == bs && got[0][1] == bs, "load block size", Fmt("aij reads block size %d (reference, %s, %s)", (int)bs, sized ? "sizes set" : "no sizes", preset ? "set before" : "from .info"), Fmt("%d x %d", (int)got[0][0], (int)got[0][1])));
      PetscCall(Record(got[1][0] == got[0][0] && got[1][1] == got[0][1], "load block size", Fmt("diag gets aij's block size (%s, %s)", sized ? "sizes set" : "no sizes", preset ? "set before" : "from .info"), Fmt("diag %d x %d, aij %d x %d", (int)got[1][0], (int)got[1][1], (int)got[0][0], (int)got[0][1])));
      PetscCall(CheckSame(L[1], L[0], "load block size", "the loaded values"));
      for (Mat &M : L) PetscCall(MatDestroy(&M));
    }
  if (!g_rank)
    for (const std::string &x : {f, f + ".info", fn}) std::remove(x.c_str());
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* -mat_view answers the program's assemblies only, as with aij: the
   matrices diag makes for itself (the aij copy a MatConvert takes, the
   diagonal block bjacobi takes on several processes) are not viewed. The
   MatView event counts the views, for aij and diag alike. */
PetscErrorCode TestInternalViews()
{
  const PetscInt     n = 24;
  Mat                M[2];
  PetscInt           rstart, rend;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  int                views[2];

  PetscFunctionBeginUser;
  PetscCall(PetscLogDefaultBegin()); /* the counts below need the log */
  PetscCall(CreateAijDiagPair(n, M));
  PetscCall(MatGetOwnershipRange(M[0], &rstart, &rend));
  for (Mat X : M) {
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscInt    cols[3] = {(i + n - 1) % n, i, (i + 1) % n};
      const PetscScalar v[3]    = {-1.0, 4.0, -1.0};
      PetscCall(MatSetValues(X, 1, &i, 3, cols, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscOptionsSetValue(NULL, "-mat_view", "ascii:/dev/null"));
  PetscCall(PetscLogEventGetId("MatView", &ev));
  for (int t = 0; t < 2; t++) {
    Mat blk, C;
    PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
    views[t] = -info.count;
    PetscCall(MatGetDiagonalBlock(M[t], &blk));
    PetscCall(MatConvert(M[t], MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
    views[t] += info.count;
    PetscCall(MatDestroy(&C));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_view"));
  PetscCall(Record(views[1] == views[0], "internal views", Fmt("MatGetDiagonalBlock and MatConvert to aij view as often as aij's (-mat_view): aij %d, diag %d", views[0], views[1])));
  for (Mat &X : M) PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

/* MatSetValues options: column-oriented blocks, ignored off-process entries. */
/* Positions whose contributions cancel to an exact zero stay entries, as
   in aij (GAMG builds its graph and eigenvalue estimate from diag's aij
   copy): MatGetRow of diag lists aij's columns, after a first assembly
   (new diagonals, staged) and after a second (stored diagonals). */
PetscErrorCode TestCancelledEntries()
{
  const PetscInt n = 12;
  Mat            M[2];
  PetscInt       rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(CreateAijDiagPair(n, M));
  PetscCall(MatGetOwnershipRange(M[0], &rstart, &rend));
  for (int round = 0; round < 2; round++) {
    for (Mat X : M) {
      for (PetscInt i = rstart; i < rend; i++) {
        const PetscScalar four = 4.0, zero = 0.0, plus = 1.0 + round, minus = -(1.0 + round);
        const PetscInt    right = (i + 2 + round) % n, left = (i + n - 1) % n;
        PetscCall(MatSetValues(X, 1, &i, 1, &i, &four, ADD_VALUES));
        PetscCall(MatSetValues(X, 1, &i, 1, &right, &plus, ADD_VALUES)); /* cancels */
        PetscCall(MatSetValues(X, 1, &i, 1, &right, &minus, ADD_VALUES));
        PetscCall(MatSetValues(X, 1, &i, 1, &left, &zero, ADD_VALUES)); /* an explicit zero */
      }
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
    }
    bool same = true;
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt        nc[2];
      const PetscInt *c[2];
      std::vector<PetscInt> cols[2];
      for (int t = 0; t < 2; t++) {
        PetscCall(MatGetRow(M[t], i, &nc[t], &c[t], NULL));
        cols[t].assign(c[t], c[t] + nc[t]);
        PetscCall(MatRestoreRow(M[t], i, &nc[t], &c[t], NULL));
      }
      same = same && cols[0] == cols[1];
    }
    PetscCall(Record(same, "cancelled entries", Fmt("MatGetRow lists aij's columns after assembly %d", round + 1)));
  }
  for (Mat &X : M) PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

/* SOR of a multi-field DMDA operator: aij runs block Gauss-Seidel on its
   inodes (rows of one grid point share their columns) when omega = 1;
   diag's MatSOR must give aij's result, not point SOR's (which differs:
   checked, so the test can fail). Sequential and parallel (local sweeps). */
PetscErrorCode TestInodeSOR()
{
  DaSpec s;
  Mat    D, A;
  Vec    b, xd, xa, xp;

  PetscFunctionBeginUser;
  s.mx  = 9;
  s.my  = 7;
  s.dof = 2;
  s.st  = DMDA_STENCIL_BOX;
  PetscCall(BuildDA(s, 11, &D, &A));
  PetscCall(MatShift(D, 20.0)); /* diagonally dominant: sweeps stay bounded */
  PetscCall(MatShift(A, 20.0));
  PetscCall(MatCreateVecs(A, &xa, &b));
  PetscCall(VecDuplicate(xa, &xd));
  PetscCall(VecDuplicate(xa, &xp));
  PetscCall(FillVec(b, 5));
  const MatSORType flags[] = {(MatSORType)(SOR_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), SOR_LOCAL_FORWARD_SWEEP, SOR_EISENSTAT};
  PetscMPIInt      size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (MatSORType flag : flags) {
    if (size > 1 && !(flag & (SOR_LOCAL_SYMMETRIC_SWEEP | SOR_EISENSTAT))) continue; /* parallel SOR is local sweeps only */
    const PetscInt its = flag & SOR_EISENSTAT ? 1 : 2;
    PetscReal      e, ep;
    for (Vec x : {xa, xd, xp}) PetscCall(FillVec(x, 9));
    PetscCall(MatSOR(A, b, 1.0, flag, 0.0, its, 1, xa));
    PetscCall(MatSOR(D, b, 1.0, flag, 0.0, its, 1, xd));
    PetscCall(MatSetOption(A, MAT_USE_INODES, PETSC_FALSE)); /* point SOR, for the can-fail check */
    PetscCall(MatSOR(A, b, 1.0, flag, 0.0, its, 1, xp));
    PetscCall(MatSetOption(A, MAT_USE_INODES, PETSC_TRUE));
    PetscCall(VecRelDiff(xd, xa, &e));
    PetscCall(VecRelDiff(xp, xa, &ep));
    PetscCall(Record(e <= 1e-12 && ep > 1e-8, "inode SOR", Fmt("flag %d: diag against aij %.2e (point SOR against aij %.2e)", (int)flag, (double)e, (double)ep)));
  }
  for (Vec *v : {&b, &xd, &xa, &xp}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* aij's inode options reach diag as they reach aij: read when the matrix is
   created (so PETSc counts them used), and -mat_no_inode turns diag's SOR of
   a multi-field operator into point SOR, as it does aij's. */
PetscErrorCode TestInodeOptions()
{
  DaSpec    s;
  Mat       D, A;
  Vec       b, xd, xa;
  PetscBool used = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_no_inode", NULL));
  s.mx  = 9;
  s.my  = 7;
  s.dof = 2;
  s.st  = DMDA_STENCIL_BOX;
  PetscCall(BuildDA(s, 11, &D, &A));
  PetscCall(PetscOptionsUsed(NULL, "mat_no_inode", &used)); /* stored without the dash */
  PetscCall(Record(used == PETSC_TRUE, "inode options", "-mat_no_inode is read when the matrices are created"));
  PetscCall(MatShift(D, 20.0));
  PetscCall(MatShift(A, 20.0));
  PetscCall(MatCreateVecs(A, &xa, &b));
  PetscCall(VecDuplicate(xa, &xd));
  PetscCall(FillVec(b, 5));
  PetscCall(FillVec(xa, 9));
  PetscCall(FillVec(xd, 9));
  PetscCall(MatSOR(A, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 2, 1, xa));
  PetscCall(MatSOR(D, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 2, 1, xd));
  PetscReal e;
  PetscCall(VecRelDiff(xd, xa, &e));
  PetscCall(Record(e <= 1e-12, "inode options", "-mat_no_inode: point SOR with both", Fmt("diag against aij %.2e", (double)e)));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_no_inode"));
  for (Vec *v : {&b, &xd, &xa}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* A process without rows (a field or a redistributed system that leaves
   one out; ksp ex84 of PETSc 3.25): its 0 x 0 block factors by ILU(0) and
   ICC(0) of the petsc package and solves, as aij's does. */
PetscErrorCode TestEmptyFactor()
{
  Mat D;
  Vec b, x;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, &D));
  PetscCall(MatSetSizes(D, 0, 0, 0, 0));
  PetscCall(MatSetType(D, MATSEQDIAG));
  PetscCall(MatSetUp(D));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(D, &x, &b));
  for (MatFactorType ft : {MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    Mat           F;
    IS            row, col;
    MatFactorInfo info;
    PetscCall(MatFactorInfoInitialize(&info));
    info.fill = 1.0;
    PetscCall(MatGetOrdering(D, MATORDERINGNATURAL, &row, &col)); /* what PCILU / PCICC pass */
    PetscCall(MatGetFactor(D, MATSOLVERPETSC, ft, &F));
    if (ft == MAT_FACTOR_ILU) {
      PetscCall(MatILUFactorSymbolic(F, D, row, col, &info));
      PetscCall(MatLUFactorNumeric(F, D, &info));
    } else {
      PetscCall(MatICCFactorSymbolic(F, D, row, &info));
      PetscCall(MatCholeskyFactorNumeric(F, D, &info));
    }
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatSolve(F, b, x));
    PetscCall(Record(true, "empty factor", Fmt("%s of a 0 x 0 diag matrix, and its solve", ft == MAT_FACTOR_ILU ? "ILU(0)" : "ICC(0)")));
    PetscCall(MatDestroy(&F));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

/* A value set where the matrix had no entry, inside a stored diagonal, after
   a factorization: a new nonzero location for aij (its nonzero state grows,
   the PC redoes its symbolic phase); diag must tell the PC the same, or the
   factorization reuses a symbolic phase of the old structure. LU (bjacobi's
   sub-LU in parallel), solutions against aij's. */
PetscErrorCode TestNewNonzeroLocation()
{
  const PetscInt n = 24;
  Mat            M[2];
  KSP            ksp[2];
  Vec            b, x[2];
  PetscInt       rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(CreateAijDiagPair(n, M));
  for (Mat X : M) PetscCall(MatSetOption(X, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(M[0], &rstart, &rend));
  for (Mat X : M) {
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscScalar four = 4.0, minus = -1.0;
      PetscCall(MatSetValues(X, 1, &i, 1, &i, &four, INSERT_VALUES));
      if (i > 0 && i % 3 != 0) { /* the subdiagonal, with gaps: stored zeros in diag */
        const PetscInt j = i - 1;
        PetscCall(MatSetValues(X, 1, &i, 1, &j, &minus, INSERT_VALUES));
      }
      if (i + 1 < n) {
        const PetscInt j = i + 1;
        PetscCall(MatSetValues(X, 1, &i, 1, &j, &minus, INSERT_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatCreateVecs(M[0], &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(FillVec(b, 3));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int t = 0; t < 2; t++) {
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[t]));
    PetscCall(KSPSetOperators(ksp[t], M[t], M[t]));
    PetscCall(KSPSetType(ksp[t], KSPPREONLY));
    PetscCall(KSPGetPC(ksp[t], &pc));
    if (size == 1) PetscCall(PCSetType(pc, PCLU));
    else {
      PetscCall(KSPSetType(ksp[t], KSPGMRES));
      PetscCall(KSPSetTolerances(ksp[t], 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 200));
      PetscCall(PCSetType(pc, PCBJACOBI));
      PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_type", "lu"));
    }
    PetscCall(KSPSetFromOptions(ksp[t]));
  }
  for (int round = 0; round < 2; round++) {
    PetscObjectState before[2], after[2];
    for (int t = 0; t < 2; t++) {
      PetscCall(MatGetNonzeroState(M[t], &before[t]));
      if (round == 1) { /* a(i, i - 1) for a gap row: a stored zero of diag, no entry of aij */
        for (PetscInt i = rstart; i < rend; i++)
          if (i > 0 && i % 3 == 0) {
            const PetscInt    j = i - 1;
            const PetscScalar v = -2.0;
            PetscCall(MatSetValues(M[t], 1, &i, 1, &j, &v, INSERT_VALUES));
          }
        PetscCall(MatAssemblyBegin(M[t], MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(M[t], MAT_FINAL_ASSEMBLY));
      }
      PetscCall(MatGetNonzeroState(M[t], &after[t]));
      PetscCall(KSPSolve(ksp[t], b, x[t]));
    }
    PetscReal e;
    PetscCall(VecRelDiff(x[1], x[0], &e));
    /* in parallel bjacobi's blocks are diag's own sequential matrices, which
       tell their sub-solvers; the parallel matrix, whose aij copy nothing
       built, keeps its state: only the solutions are compared there */
    const bool state_ok = size > 1 || (before[0] != after[0]) == (before[1] != after[1]);
    PetscCall(Record(e <= 1e-10 && state_ok, "new nonzero location",
                     Fmt("solve %d: diag against aij %.2e, nonzero state changed: aij %d diag %d", round + 1, (double)e, (int)(before[0] != after[0]), (int)(before[1] != after[1]))));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-sub_pc_type"));
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPDestroy(&ksp[t]));
    PetscCall(MatDestroy(&M[t]));
    PetscCall(VecDestroy(&x[t]));
  }
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* PCQR on a normal matrix of the operator (LSQR, ksp ex27 -pc_type qr):
   PETSc's SPQR reads the matrix inside the normal matrix as seqaij, and
   with diag inside it corrupted the heap; diag's factors of normal
   matrices work on its aij copy. Solutions against aij's; skipped where
   this PETSc has no QR for normal matrices. bjacobi's sub-QR in parallel. */
PetscErrorCode TestNormalQR()
{
  const PetscInt n = 30;
  PetscBool      found_package, found_type;
  PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
  Mat            M[2], N[2];
  KSP            ksp[2];
  Vec            b, x[2];
  PetscInt       rstart, rend;
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCall(MatSolverTypeGet(MATSOLVERSPQR, MATNORMALHERMITIAN, MAT_FACTOR_QR, &found_package, &found_type, &create));
  if (!create) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "normal QR: this PETSc has no QR for normal matrices (SPQR): skipped\n"));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(CreateAijDiagPair(n, M));
  for (int t = 0; t < 2; t++) {
    PetscCall(MatGetOwnershipRange(M[t], &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscInt    cols[3] = {i, (i + 1) % n, (i + 7) % n};
      const PetscScalar vals[3] = {3.0 + (PetscScalar)(i % 5), -1.0, 0.5};
      PetscCall(MatSetValues(M[t], 1, &i, 3, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[t], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[t], MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateNormalHermitian(M[t], &N[t]));
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[t]));
    PetscCall(KSPSetType(ksp[t], KSPLSQR));
    PetscCall(KSPSetOperators(ksp[t], M[t], N[t]));
    PetscCall(KSPSetTolerances(ksp[t], 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 100));
    PetscCall(KSPGetPC(ksp[t], &pc));
    PetscCall(PCSetType(pc, size == 1 ? PCQR : PCBJACOBI));
    if (size > 1) PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_type", "qr"));
    PetscCall(KSPSetFromOptions(ksp[t]));
  }
  PetscCall(MatCreateVecs(M[0], &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(FillVec(b, 4));
  PetscInt its[2];
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPSolve(ksp[t], b, x[t]));
    PetscCall(KSPGetIterationNumber(ksp[t], &its[t]));
  }
  PetscReal e;
  PetscCall(VecRelDiff(x[1], x[0], &e));
  PetscCall(Record(e <= 1e-10 && its[0] == its[1], "normal QR", Fmt("LSQR with %s: diag against aij %.2e, iterations aij %d diag %d", size == 1 ? "PCQR" : "bjacobi/QR", (double)e, (int)its[0], (int)its[1])));
  PetscCall(PetscOptionsClearValue(NULL, "-sub_pc_type"));
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPDestroy(&ksp[t]));
    PetscCall(MatDestroy(&N[t]));
    PetscCall(MatDestroy(&M[t]));
    PetscCall(VecDestroy(&x[t]));
  }
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

PetscErrorCode TestOptions()
{
  const PetscInt n = 30;
  RandSpec       s;
  Mat            D, A;
  const PetscInt *ranges;

  PetscFunctionBeginUser;
  s.M = s.N = n;
  s.offsets = {-3, 0, 7};
  s.mode    = SET_ADD;
  s.offproc = true;
  for (PetscBool ignore : {PETSC_FALSE, PETSC_TRUE}) {
    PetscCall(BuildRandom(s, 1, &D, &A));
    PetscCall(MatGetOwnershipRanges(A, &ranges));
    for (Mat X : {D, A}) {
      /* a 2 x 3 block on rows of this and the next process, values by columns */
      const PetscInt    rows[] = {ranges[g_rank] % n, ranges[(g_rank + 1) % g_size] % n};
      const PetscInt    cols[] = {(rows[0] + 1) % n, (rows[0] + 12) % n, -1};
      const PetscScalar v[]    = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
      PetscCall(MatSetOption(X, MAT_ROW_ORIENTED, PETSC_FALSE));
      PetscCall(MatSetOption(X, MAT_IGNORE_OFF_PROC_ENTRIES, ignore));
      PetscCall(MatSetValues(X, 2, rows, 3, cols, v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
      PetscCall(MatSetOption(X, MAT_ROW_ORIENTED, PETSC_TRUE));
      PetscCall(MatSetOption(X, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_FALSE));
    }
    PetscCall(CheckSame(D, A, "options", ignore ? "MAT_ROW_ORIENTED false, MAT_IGNORE_OFF_PROC_ENTRIES" : "MAT_ROW_ORIENTED false"));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  /* -mat_diag_storage through MatSetFromOptions, and in MatConvert */
  for (const char *st : {"cdm", "hm"}) {
    Mat            E;
    MatDiagStorage got, got2;
    PetscCall(BuildRandom(s, 1, &D, &A));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", st));
    PetscCall(MatSetFromOptions(D));
    PetscCall(MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &E));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_storage"));
    PetscCall(MatDiagGetStorage(D, &got));
    PetscCall(MatDiagGetStorage(E, &got2));
    PetscCall(Record(!strcmp(MatDiagStorages[got], st) && !strcmp(MatDiagStorages[got2], st), "options", Fmt("-mat_diag_storage %s", st), Fmt("got %s and %s", MatDiagStorages[got], MatDiagStorages[got2])));
    PetscCall(CheckSame(D, A, "options", Fmt("-mat_diag_storage %s on an assembled matrix", st)));
    PetscCall(CheckSame(E, A, "options", Fmt("-mat_diag_storage %s in MatConvert", st)));
    PetscCall(MatDestroy(&E));
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&A));
  }
  /* MAT_NO_OFF_PROC_ENTRIES when every process sets only its own rows */
  s.offproc = false;
  PetscCall(BuildRandom(s, 1, &D, &A));
  for (Mat X : {D, A}) {
    PetscInt r0, r1;
    PetscCall(MatSetOption(X, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    PetscCall(MatGetOwnershipRange(X, &r0, &r1));
    for (PetscInt i = r0; i < r1; i++) PetscCall(MatSetValue(X, i, (i + 5) % n, 0.5, ADD_VALUES));
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(CheckSame(D, A, "options", "MAT_NO_OFF_PROC_ENTRIES"));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* ---- bad input ------------------------------------------------------------ */

/* Calls f with PETSc's return error handler; on success of the call sets *ierr. */
PetscErrorCode Quietly(const std::function<PetscErrorCode()> &f, PetscErrorCode *ierr)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = f();
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
}

/* Expects f to fail (on this process; processes that do not call pass
   expect = false) with a message containing every one of `words`. */
PetscErrorCode ExpectError(const std::string &what, bool expect, const std::function<PetscErrorCode()> &f, std::vector<std::string> words = {})
{
  PetscErrorCode ierr = 0;
  std::string    msg;
  bool           ok = true;

  PetscFunctionBeginUser;
  if (expect) {
    PetscCall(Quietly(f, &ierr));
    msg = LastMessage();
    ok  = ierr != 0;
    for (const std::string &w : words)
      if (msg.find(w) == std::string::npos) ok = false;
  }
  PetscCall(Record(ok, "bad input", what, ierr ? "message: " + msg : "no error"));
  PetscFunctionReturn(0);
}

PetscErrorCode TestBadInput()
{
  const PetscInt n = 20;
  Mat            D;
  PetscInt       r0, r1;
  const PetscInt *ranges;

  PetscFunctionBeginUser;
  /* out-of-range rows and columns */
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
  PetscCall(MatGetOwnershipRange(D, &r0, &r1));
  PetscCall(MatGetOwnershipRanges(D, &ranges));
  PetscCall(ExpectError("MatSetValues row = M", true, [&] { return MatSetValue(D, n, 0, 1.0, INSERT_VALUES); }, {"row"}));
  PetscCall(ExpectError("MatSetValues row = M + 5 (ADD)", true, [&] { return MatSetValue(D, n + 5, 0, 1.0, ADD_VALUES); }));
  PetscCall(ExpectError("MatSetValues column = N on an owned row", r1 > r0, [&] { return MatSetValue(D, r0, n, 1.0, INSERT_VALUES); }, {"column"}));
  /* a column out of range on another process's row must fail here, not at the owner's assembly */
  const PetscInt other = ranges[(g_rank + 1) % g_size];
  PetscCall(ExpectError("MatSetValues column = N on another process's row", g_size > 1 && other < n && (other < r0 || other >= r1),
                        [&] { return MatSetValue(D, other, n + 1, 1.0, INSERT_VALUES); }, {"column"}));
  PetscCall(MatDestroy(&D));

  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
  {
    PetscErrorCode ierr = 0;
    PetscInt       neg  = -1, zero = 0;
    PetscScalar    big  = 1e30;
    PetscCall(Quietly([&] { return MatSetValues(D, 1, &neg, 1, &zero, &big, INSERT_VALUES); }, &ierr));
    PetscCall(Record(ierr == 0, "bad input", "MatSetValues negative row ignored"));
    if (r1 > r0) PetscCall(Quietly([&] { return MatSetValues(D, 1, &r0, 1, &neg, &big, INSERT_VALUES); }, &ierr));
    PetscCall(Record(ierr == 0, "bad input", "MatSetValues negative column ignored"));
    PetscCall(Assemble(D));
    PetscReal nrm;
    PetscCall(MatNorm(D, NORM_FROBENIUS, &nrm));
    PetscCall(Record(nrm == 0.0, "bad input", "negative indices set nothing", Fmt("norm %g", (double)nrm)));
  }
  PetscCall(MatDestroy(&D));

  /* preallocation offsets out of range */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n - 4));
  PetscCall(MatSetType(D, MATDIAG));
  {
    const PetscInt hi[] = {0, n - 4}, lo[] = {-n, 1}, okoffs[] = {-(n - 1), n - 5};
    PetscCall(ExpectError("MatDiagSetPreallocation offset N", true, [&] { return MatDiagSetPreallocation(D, 2, hi); }, {"offset"}));
    PetscCall(ExpectError("MatDiagSetPreallocation offset -M", true, [&] { return MatDiagSetPreallocation(D, 2, lo); }, {"offset"}));
    PetscCall(ExpectError("MatDiagSetPreallocation negative count", true, [&] { return MatDiagSetPreallocation(D, -1, okoffs); }));
    PetscErrorCode ierr;
    PetscCall(Quietly([&] { return MatDiagSetPreallocation(D, 2, okoffs); }, &ierr));
    PetscCall(Record(ierr == 0, "bad input", "MatDiagSetPreallocation extreme offsets -(M-1), N-1 accepted"));
  }
  /* CDM on a non-square matrix */
  PetscCall(ExpectError("MatDiagSetStorage CDM on a non-square matrix", true, [&] { return MatDiagSetStorage(D, MAT_DIAG_STORAGE_CDM); }, {"square"}));
  PetscCall(MatDestroy(&D));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n + 3));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_storage", "cdm"));
  PetscCall(ExpectError("-mat_diag_storage cdm on a non-square matrix", true, [&] { return MatSetFromOptions(D); }, {"square"}));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_storage"));
  PetscCall(MatDestroy(&D));

  /* more diagonals than -mat_diag_max_diagonals, with -mat_diag_scattered_fill 0:
     refused (by default such a structure from entries set becomes aij at
     assembly: test_scattered) */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", "3"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_scattered_fill", "0"));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(MatSetFromOptions(D));
  PetscCall(MatSetUp(D));
  if (r1 > r0) {
    PetscCall(ExpectError("MatSetValues on a 4th diagonal with -mat_diag_max_diagonals 3", true, [&] {
      PetscInt    cols[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
      PetscScalar v[10]  = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
      return MatSetValues(D, 1, &r0, 10, cols, v, ADD_VALUES);
    }, {"-mat_diag_max_diagonals", "store 4 diagonals", "limit 3"}));
  } else PetscCall(Record(true, "bad input", "MatSetValues on a 4th diagonal with -mat_diag_max_diagonals 3"));
  PetscCall(MatDestroy(&D));
  if (g_size > 1) {
    /* the limit is reached on the last process only, while it sets the
       entries process 0 sent it at assembly: every process must get an
       error (none may wait for the others) */
    PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
    PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(D, MATDIAG));
    PetscCall(MatSetFromOptions(D));
    PetscCall(MatSetUp(D));
    PetscCall(MatGetOwnershipRanges(D, &ranges));
    const PetscInt last = ranges[g_size - 1]; /* the last process's first row */
    PetscCall(ExpectError("off-process entries over the limit on one process only: error on all", true, [&] {
      PetscInt    cols[] = {last - 3, last - 2, last - 1, last};
      PetscScalar v[4]   = {1, 1, 1, 1};
      if (g_rank == 0) PetscCall(MatSetValues(D, 1, &last, 4, cols, v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
      return PetscErrorCode(0);
    }, {"MatAssemblyEnd"}));
    PetscCall(MatDestroy(&D));
  }
  {
    /* a COO entry out of range on the last process only: error on all */
    PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
    PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(D, MATDIAG));
    std::vector<PetscInt> ci = {0, 1}, cj = {0, 1};
    if (g_rank == g_size - 1) ci.push_back(n), cj.push_back(0);
    PetscCall(ExpectError("MatSetPreallocationCOO with a row = M on one process: error on all", true, [&] { return MatSetPreallocationCOO(D, (PetscCount)ci.size(), ci.data(), cj.data()); }, {"COO", "outside"}));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_scattered_fill"));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &D));
  PetscCall(MatSetSizes(D, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(D, MATDIAG));
  PetscCall(MatSetFromOptions(D));
  {
    const PetscInt five[] = {-2, -1, 0, 1, 2};
    PetscCall(ExpectError("MatDiagSetPreallocation of 5 diagonals with -mat_diag_max_diagonals 3", true, [&] { return MatDiagSetPreallocation(D, 5, five); }, {"-mat_diag_max_diagonals", "store 5 diagonals", "limit 3"}));
    /* far diagonals cross only the first and last process's rows: every process must still fail */
    const PetscInt uneven[] = {-(n - 1), -1, 0, 1, n - 1};
    PetscCall(ExpectError("MatDiagSetPreallocation over the limit on some processes only: error on all", true, [&] { return MatDiagSetPreallocation(D, 5, uneven); }, {"-mat_diag_max_diagonals", "limit 3"}));
  }
  PetscCall(MatDestroy(&D));
  {
    Mat A;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 5, NULL, 5, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &r0, &r1));
    for (PetscInt i = r0; i < r1; i++)
      for (PetscInt d : {-(n - 1), -1, 0, 1, n - 1})
        if (i + d >= 0 && i + d < n) PetscCall(MatSetValue(A, i, i + d, 1.0, INSERT_VALUES));
    PetscCall(Assemble(A));
    PetscCall(ExpectError("MatConvert aij->diag over the limit (some processes only): error on all", true, [&] { return MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &D); }, {"-mat_diag_max_diagonals"}));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_diagonals"));

  /* products with wrong sizes, before assembly, unsupported operations */
  {
    const PetscInt offs[] = {-1, 0, 2};
    Vec            x, y, xbad, ybad;
    Mat            S;
    IS             is;
    MatFactorInfo  info;
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, offs, &D));
    PetscCall(MatCreateVecs(D, &x, &y));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, n + 1, &xbad));
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, n - 1, &ybad));
    PetscCall(ExpectError("MatMult before assembly", true, [&] { return MatMult(D, x, y); }));
    PetscCall(MatGetOwnershipRange(D, &r0, &r1));
    for (PetscInt i = r0; i < r1; i++) PetscCall(MatSetValue(D, i, i, 2.0, INSERT_VALUES));
    PetscCall(Assemble(D));
    PetscCall(VecSet(x, 1.0));
    PetscCall(ExpectError("MatMult with a wrong-size x", true, [&] { return MatMult(D, xbad, y); }));
    PetscCall(ExpectError("MatMult with a wrong-size y", true, [&] { return MatMult(D, x, ybad); }));
    PetscCall(ExpectError("MatMultAdd with a wrong-size z", true, [&] { return MatMultAdd(D, x, ybad, y); }));
    PetscCall(ExpectError("MatMultTranspose with wrong-size vectors", true, [&] { return MatMultTranspose(D, ybad, x); }));
    PetscCall(ExpectError("MatMultTransposeAdd with a wrong-size z", true, [&] { return MatMultTransposeAdd(D, y, xbad, x); }));
    PetscCall(ExpectError("MatDiagonalScale with a wrong-size l", true, [&] { return MatDiagonalScale(D, ybad, NULL); }, {"MatDiagonalScale", "l"}));
    PetscCall(ExpectError("MatDiagonalScale with a wrong-size r", true, [&] { return MatDiagonalScale(D, NULL, xbad); }, {"MatDiagonalScale", "r"}));
    if (g_size % 2 == 0) {
      /* the right global size but another split over the processes */
      Vec      xs;
      PetscInt nl;
      PetscCall(VecGetLocalSize(x, &nl));
      PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl + (g_rank % 2 ? -1 : 1), n, &xs));
      PetscCall(ExpectError("MatMultTransposeAdd with a z of another layout", true, [&] { return MatMultTransposeAdd(D, y, xs, x); }));
      PetscCall(ExpectError("MatMultTransposeAdd with a y of another layout", true, [&] { return MatMultTransposeAdd(D, y, x, xs); }));
      PetscCall(ExpectError("MatMultAdd with a z of another layout", true, [&] { return MatMultAdd(D, x, xs, y); }));
      PetscCall(VecDestroy(&xs));
    }
    PetscCall(ExpectError("MatLUFactor (unsupported)", true, [&] { return MatLUFactor(D, NULL, NULL, NULL); }));
    PetscCall(MatFactorInfoInitialize(&info));
    /* PETSc's own LU is sequential (as for aij); in parallel it is refused */
    S = NULL;
    PetscCall(ExpectError("MatGetFactor LU petsc in parallel (unsupported, as for aij)", g_size > 1, [&] { return MatGetFactor(D, MATSOLVERPETSC, MAT_FACTOR_LU, &S); }));
    PetscCall(MatDestroy(&S));
    PetscCall(ExpectError("MatNorm NORM_2 (unsupported)", true, [&] {
      PetscReal nrm;
      return MatNorm(D, NORM_2, &nrm);
    }));
    {
      PetscScalar v[2] = {-1, -1};
      PetscInt    cols[2] = {r0, r0 + 1 < n ? r0 + 1 : r0};
      PetscCall(MatGetValues(D, 1, &r0, 2, cols, v));
      PetscCall(Record(v[0] == 2.0 && (cols[1] == r0 || v[1] == 0.0), "bad input", "MatGetValues of a stored entry and of an entry not stored", Fmt("got %g and %g", (double)PetscRealPart(v[0]), (double)PetscRealPart(v[1]))));
    }
    PetscCall(ExpectError("MatGetValues of a row this process does not own", g_size > 1, [&] {
      PetscScalar v;
      PetscInt    row = r1 < n ? r1 : 0;
      return MatGetValues(D, 1, &row, 1, &row, &v);
    }));
    {
      /* every other owned row, and the first half of the owned columns */
      IS             isc;
      PetscErrorCode ierr = 0;
      PetscInt       c0, c1;
      PetscCall(MatGetOwnershipRangeColumn(D, &c0, &c1));
      PetscCall(ISCreateStride(PETSC_COMM_WORLD, (r1 - r0 + 1) / 2, r0, 2, &is));
      PetscCall(ISCreateStride(PETSC_COMM_WORLD, (c1 - c0 + 1) / 2, c0, 1, &isc));
      for (PetscInt i = r0; i < r1; i++)
        for (PetscInt j : {i - 1, i + 2})
          if (j >= 0 && j < n) PetscCall(MatSetValue(D, i, j, 0.1 * (i + 1) + j, INSERT_VALUES));
      PetscCall(Assemble(D));
      S = NULL;
      PetscCall(Quietly([&] { return MatCreateSubMatrix(D, is, isc, MAT_INITIAL_MATRIX, &S); }, &ierr));
      if (!ierr) { /* supported: then it must be right, and REUSE too */
        Mat Sa, A;
        PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &A));
        PetscCall(MatCreateSubMatrix(A, is, isc, MAT_INITIAL_MATRIX, &Sa));
        PetscCall(CheckSame(S, Sa, "submatrix", "MatCreateSubMatrix INITIAL"));
        PetscCall(MatScale(D, -2.0));
        PetscCall(MatScale(A, -2.0));
        PetscCall(MatCreateSubMatrix(D, is, isc, MAT_REUSE_MATRIX, &S));
        PetscCall(MatCreateSubMatrix(A, is, isc, MAT_REUSE_MATRIX, &Sa));
        PetscCall(CheckSame(S, Sa, "submatrix", "MatCreateSubMatrix REUSE"));
        PetscCall(MatDestroy(&Sa));
        PetscCall(MatDestroy(&A));
      } else PetscCall(Record(true, "bad input", "MatCreateSubMatrix (unsupported) errors"));
      PetscCall(MatDestroy(&S));
      PetscCall(ISDestroy(&isc));
    }
    PetscCall(ISDestroy(&is));
    PetscCall(ExpectError("MatGetRow of a row this process does not own", g_size > 1, [&] {
      PetscInt row = r1 < n ? r1 : 0;
      return MatGetRow(D, row, NULL, NULL, NULL);
    }));
    for (Vec *v : {&x, &y, &xbad, &ybad}) PetscCall(VecDestroy(v));
    PetscCall(MatDestroy(&D));
  }

  /* MatGetLocalSubMatrix: PETSc's generic local reference; must not crash */
  {
    DaSpec s;
    DM     da;
    Mat    Dl, Sub;
    IS     is;
    PetscInt nl;
    PetscCall(CreateDA(s, &da));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &Dl));
    PetscCall(DMDAGetGhostCorners(da, NULL, NULL, NULL, &nl, &r0, NULL));
    nl *= r0;
    PetscCall(ISCreateStride(PETSC_COMM_SELF, nl, 0, 1, &is));
    PetscErrorCode ierr = 0;
    PetscCall(Quietly([&] { return MatGetLocalSubMatrix(Dl, is, is, &Sub); }, &ierr));
    if (!ierr) PetscCall(MatRestoreLocalSubMatrix(Dl, is, is, &Sub));
    PetscCall(Record(true, "bad input", "MatGetLocalSubMatrix does not crash"));
    PetscCall(ISDestroy(&is));
    PetscCall(MatDestroy(&Dl));
    PetscCall(DMDestroy(&da));
  }

  /* MatSetValues on another process's row arrives at its owner (INSERT and ADD) */
  for (InsertMode mode : {INSERT_VALUES, ADD_VALUES}) {
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
    PetscCall(MatGetOwnershipRanges(D, &ranges));
    PetscCall(MatGetOwnershipRange(D, &r0, &r1));
    const PetscInt target = ranges[(g_rank + 1) % g_size]; /* the first row of the next process */
    if (target < n) {
      PetscCall(MatSetValue(D, target, g_rank, 100.0 + g_rank, mode));
      if (mode == ADD_VALUES) PetscCall(MatSetValue(D, target, g_rank, 0.5, mode));
    }
    PetscCall(Assemble(D));
    bool ok = true;
    if (r1 > r0) {
      const PetscMPIInt  from = (g_rank - 1 + g_size) % g_size;
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscScalar        got  = 0;
      const PetscScalar  want = 100.0 + from + (mode == ADD_VALUES ? 0.5 : 0.0);
      PetscCall(MatGetRow(D, r0, &nc, &cols, &vals));
      for (PetscInt k = 0; k < nc; k++)
        if (cols[k] == from) got = vals[k];
      PetscCall(MatRestoreRow(D, r0, &nc, &cols, &vals));
      ok = got == want;
    }
    PetscCall(Record(ok, "bad input", mode == INSERT_VALUES ? "MatSetValues INSERT on another process's row arrives" : "MatSetValues ADD on another process's row arrives"));
    PetscCall(MatDestroy(&D));
  }
  if (g_size > 1) {
    /* MAT_NO_OFF_PROC_ENTRIES: an error on the setting process */
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
    PetscCall(MatGetOwnershipRanges(D, &ranges));
    PetscCall(MatSetOption(D, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    const PetscInt target = ranges[(g_rank + 1) % g_size];
    PetscCall(ExpectError("MatSetValues on another process's row with MAT_NO_OFF_PROC_ENTRIES", target < n, [&] { return MatSetValue(D, target, 0, 1.0, INSERT_VALUES); }));
    PetscCall(MatDestroy(&D));
    /* some processes insert while others add: an error at assembly, on every process */
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 0, NULL, &D));
    PetscCall(MatGetOwnershipRange(D, &r0, &r1));
    if (r1 > r0) PetscCall(MatSetValue(D, r0, r0, 1.0, g_rank % 2 ? ADD_VALUES : INSERT_VALUES));
    PetscCall(ExpectError("INSERT on some processes, ADD on others", true, [&] { return Assemble(D); }));
    PetscCall(MatDestroy(&D));
  }
  PetscFunctionReturn(0);
}

/* ---- the cases ------------------------------------------------------------ */

std::vector<Case> MakeCases()
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

} // namespace

int main(int argc, char **argv)
{
  CaseFilter want;
  int        exit_code;
  PetscCall(Start(&argc, &argv, "Tests of MATDIAG against aij"));
  PetscCall(want.FromOptions());

  for (const Case &c : MakeCases())
    if (want(c.name)) RunCase(c);
  if (want("options")) Run("options", "options", [] { return TestOptions(); });
  if (want("cancelled entries")) Run("cancelled entries", "cancelled entries", [] { return TestCancelledEntries(); });
  if (want("inode SOR")) Run("inode SOR", "inode SOR", [] { return TestInodeSOR(); });
  if (want("inode options")) Run("inode options", "inode options", [] { return TestInodeOptions(); });
  if (want("empty factor")) Run("empty factor", "empty factor", [] { return TestEmptyFactor(); });
  if (want("new nonzero location")) Run("new nonzero location", "new nonzero location", [] { return TestNewNonzeroLocation(); });
  if (want("normal QR")) Run("normal QR", "normal QR", [] { return TestNormalQR(); });
  if (want("internal views")) Run("internal views", "internal views", [] { return TestInternalViews(); });
  if (want("load block size")) Run("load block size", "load block size", [] { return TestLoadBlockSize(); });
  if (want("bad input")) Run("bad input", "bad input", [] { return TestBadInput(); });

  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}
