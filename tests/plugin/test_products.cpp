/* PETSc-level tests of MatProduct for MATDIAG: every product of diag
   matrices (AB, AtB, ABt, PtAP, RARt, ABC through MatMatMult,
   MatTransposeMatMult, MatMatTransposeMult, MatPtAP, MatRARt,
   MatMatMatMult and the MatProductCreate/SetType/SetFromOptions/Symbolic/
   Numeric API) is compared with the same product of aij copies: the diag
   result is converted to aij, the aij result subtracted (MatAXPY) and the
   Frobenius norm of the difference taken relative to the aij result's;
   it must be <= 1e-12. Inputs: random diagonal sets (paper style: offsets
   uniform within +-n/4; dense bands; far-off diagonals; products that are
   structurally zero; partly filled diagonals), n from 1 to a few thousand,
   square and rectangular, HM and CDM inputs, automatic and forced HM / CDM
   outputs; MAT_REUSE_MATRIX and MatProductNumeric after MatScale of an
   operand and after a new diagonal appears in it; the paper's n = 4 worked
   example; diag x dense (SpMM) with k = 1, 3, 32 columns, with leading
   dimensions larger than the local rows; diag with aij operands; bad input.

   One line per failed check, then exactly one line "N passed, M failed";
   nonzero exit if M > 0. Run with any number of processes (ctest: 1, 2, 3).

   GPU (run on the device, scripts/device/run-all.sh): -diag_vec_type cuda
   gives the diag operands CUDA default vectors, so their values live on the
   GPU and products run there (on any number of processes);
   -dense_type seqdensecuda (mpidensecuda) makes the dense right-hand sides
   (and results) CUDA matrices; -mat_product_algorithm
   diag_atomic runs the paper's Algorithm 2. The aij references stay on the
   host. */
#include <petscdiag.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "plugin_testing.hpp"

using namespace plugin_testing;

namespace {

char g_vec_type[64]   = "";         /* -diag_vec_type: default vectors of the diag operands */
char g_dense_type[64] = MATDENSE;   /* -dense_type: dense operands of diag products */
bool g_expect_gpu     = false;      /* diag x diag products must run on the GPU (set in main, off for mixed operands) */


/* ---- deterministic values, identical on every rank ----------------------- */

/* ---- test matrices ------------------------------------------------------- */

struct Spec {
  PetscInt              M = 0, N = 0;
  std::vector<PetscInt> offsets;
  double                fill    = 1.0; /* fraction of each diagonal's entries set */
  MatDiagStorage        storage = MAT_DIAG_STORAGE_AUTO;
  bool                  integer = false; /* small integer values (exact products) */
  unsigned              seed    = 1;
};

/* The entry (i, j) of s, if set. */
bool Entry(const Spec &s, PetscInt i, PetscInt j, PetscScalar *v)
{
  if (s.fill < 1.0 && 0.5 * (Unit(s.seed + 17, i, j) + 1.0) >= s.fill) return false;
  const double u = Unit(s.seed, i, j);
  *v             = s.integer ? (PetscScalar)(1 + (int)((u + 1.0) * 48.0)) : (PetscScalar)u;
  return true;
}

PetscErrorCode OwnedRange(PetscInt N, PetscInt *lo, PetscInt *hi)
{
  PetscLayout l;

  PetscFunctionBeginUser;
  PetscCall(PetscLayoutCreate(PETSC_COMM_WORLD, &l));
  PetscCall(PetscLayoutSetSize(l, N));
  PetscCall(PetscLayoutSetLocalSize(l, PETSC_DECIDE));
  PetscCall(PetscLayoutSetUp(l));
  PetscCall(PetscLayoutGetRange(l, lo, hi));
  PetscCall(PetscLayoutDestroy(&l));
  PetscFunctionReturn(0);
}

/* The aij matrix of s (D == NULL skips the diag one). */
PetscErrorCode Build(const Spec &s, Mat *D, Mat *A)
{
  PetscInt r0, r1, c0, c1;

  PetscFunctionBeginUser;
  PetscCall(OwnedRange(s.M, &r0, &r1));
  PetscCall(OwnedRange(s.N, &c0, &c1));
  std::vector<PetscInt> dnnz(r1 - r0, 0), onnz(r1 - r0, 0);
  for (PetscInt i = r0; i < r1; i++)
    for (PetscInt d : s.offsets)
      if (i + d >= 0 && i + d < s.N) (i + d >= c0 && i + d < c1 ? dnnz : onnz)[i - r0]++;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, s.M, s.N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz.data(), onnz.data(), NULL, NULL));
  if (D) {
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, s.M, s.N, (PetscInt)s.offsets.size(), s.offsets.data(), D));
    PetscCall(MatDiagSetStorage(*D, s.storage));
    if (g_vec_type[0]) PetscCall(MatSetVecType(*D, g_vec_type));
  }
  std::vector<PetscInt>    cols;
  std::vector<PetscScalar> vals;
  for (PetscInt i = r0; i < r1; i++) {
    cols.clear();
    vals.clear();
    for (PetscInt d : s.offsets) {
      PetscScalar v;
      if (i + d < 0 || i + d >= s.N || !Entry(s, i, i + d, &v)) continue;
      cols.push_back(i + d);
      vals.push_back(v);
    }
    if (cols.empty()) continue;
    PetscCall(MatSetValues(*A, 1, &i, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
    if (D) PetscCall(MatSetValues(*D, 1, &i, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
  }
  PetscCall(Assemble(*A));
  if (D) PetscCall(Assemble(*D));
  PetscFunctionReturn(0);
}

std::vector<PetscInt> Unique(std::vector<PetscInt> v, PetscInt M, PetscInt N)
{
  std::vector<PetscInt> out;
  for (PetscInt d : v)
    if (d > -M && d < N) out.push_back(d);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/* dg offsets uniform within +-n/4 (the paper's random matrices), 0 included. */
std::vector<PetscInt> PaperOffsets(PetscInt n, PetscInt dg, unsigned seed)
{
  std::mt19937                            gen(seed);
  const PetscInt                          w = PetscMax(n / 4, 0);
  std::uniform_int_distribution<PetscInt> u(-w, w);
  std::vector<PetscInt>                   v{0};
  for (int tries = 0; (PetscInt)v.size() < dg && tries < 100 * dg; tries++) {
    const PetscInt d = u(gen);
    if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
  }
  return Unique(v, n, n);
}

std::vector<PetscInt> Band(PetscInt lo, PetscInt hi, PetscInt M, PetscInt N)
{
  std::vector<PetscInt> v;
  for (PetscInt d = lo; d <= hi; d++) v.push_back(d);
  return Unique(v, M, N);
}

/* ---- comparisons --------------------------------------------------------- */

std::string TypeName(Mat M)
{
  MatType t = NULL;
  if (MatGetType(M, &t) || !t) return "(none)";
  return t;
}

/* An aij copy of X, preallocated from its rows (PETSc 3.18's generic
   MatConvert to aij does not preallocate: slow for wide product results). */
PetscErrorCode ToAij(Mat X, Mat *A)
{
  PetscInt r0, r1, c0, c1, m, n, M, N;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(X, &r0, &r1));
  PetscCall(MatGetOwnershipRangeColumn(X, &c0, &c1));
  PetscCall(MatGetLocalSize(X, &m, &n));
  PetscCall(MatGetSize(X, &M, &N));
  std::vector<PetscInt> dnnz(r1 - r0, 0), onnz(r1 - r0, 0);
  for (PetscInt i = r0; i < r1; i++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(X, i, &nc, &cols, NULL));
    for (PetscInt e = 0; e < nc; e++) (cols[e] >= c0 && cols[e] < c1 ? dnnz : onnz)[i - r0]++;
    PetscCall(MatRestoreRow(X, i, &nc, &cols, NULL));
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz.data(), onnz.data(), NULL, NULL));
  for (PetscInt i = r0; i < r1; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(X, i, &nc, &cols, &vals));
    PetscCall(MatSetValues(*A, 1, &i, nc, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(X, i, &nc, &cols, &vals));
  }
  PetscCall(Assemble(*A));
  PetscFunctionReturn(0);
}

/* X (diag or aij) against the aij R: || X - R ||_F / || R ||_F (absolute
   when R is zero), and MatMult with a random vector. */
PetscErrorCode CompareSparse(Mat X, Mat R, const std::string &cs, const std::string &op, bool want_diag = true)
{
  Mat       C;
  PetscReal nd, nr, rel;
  Vec       x, y1, y2;

  PetscFunctionBeginUser;
  if (want_diag) PetscCall(Record(IsDiag(X), cs, op + ": result type diag", "type " + TypeName(X)));
  /* with the operands on the GPU: the product ran there (its result is a diagcuda matrix) */
  if (want_diag && g_expect_gpu) PetscCall(Record(TypeName(X) == MATSEQDIAGCUDA || TypeName(X) == MATMPIDIAGCUDA, cs, op + ": computed on the GPU", "type " + TypeName(X)));
  PetscCall(ToAij(X, &C));
  PetscCall(MatAXPY(C, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nr));
  PetscCall(MatDestroy(&C));
  rel = nr > 0 ? nd / nr : nd;
  PetscCall(Record(rel <= kTol, cs, op, Fmt("relative difference %.3e (|ref| = %.3e)", (double)rel, (double)nr)));
  PetscCall(MatCreateVecs(R, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(X, x, y1));
  PetscCall(MatMult(R, x, y2));
  PetscCall(VecAXPY(y1, -1.0, y2));
  PetscCall(VecNorm(y1, NORM_2, &nd));
  PetscCall(VecNorm(y2, NORM_2, &nr));
  rel = nr > 0 ? nd / nr : nd;
  PetscCall(Record(rel <= kTol, cs, op + " then MatMult", Fmt("relative difference %.3e", (double)rel)));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscFunctionReturn(0);
}

PetscErrorCode CompareDense(Mat X, Mat R, const std::string &cs, const std::string &op)
{
  Mat       C;
  PetscReal nd, nr, rel;
  PetscBool dense;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)X, &dense, MATSEQDENSE, MATMPIDENSE, ""));
  PetscCall(Record(dense, cs, op + ": result type dense", "type " + TypeName(X)));
  PetscCall(MatDuplicate(R, MAT_COPY_VALUES, &C));
  PetscCall(MatAXPY(C, -1.0, X, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nr));
  PetscCall(MatDestroy(&C));
  rel = nr > 0 ? nd / nr : nd;
  PetscCall(Record(rel <= kTol, cs, op, Fmt("relative difference %.3e (|ref| = %.3e)", (double)rel, (double)nr)));
  PetscFunctionReturn(0);
}

/* ---- products ------------------------------------------------------------- */

enum Prod { P_AB, P_AtB, P_ABt, P_PtAP, P_RARt, P_ABC };
const char *kProdName[] = {"AB", "AtB", "ABt", "PtAP", "RARt", "ABC"};

/* The product through the MatMatMult family (ABC: A B A). */
PetscErrorCode DoProduct(Prod p, Mat A, Mat B, MatReuse r, Mat *C)
{
  PetscFunctionBeginUser;
  switch (p) {
  case P_AB:
    PetscCall(MatMatMult(A, B, r, PETSC_DEFAULT, C));
    break;
  case P_AtB:
    PetscCall(MatTransposeMatMult(A, B, r, PETSC_DEFAULT, C));
    break;
  case P_ABt:
    PetscCall(MatMatTransposeMult(A, B, r, PETSC_DEFAULT, C));
    break;
  case P_PtAP:
    PetscCall(MatPtAP(A, B, r, PETSC_DEFAULT, C));
    break;
  case P_RARt:
    PetscCall(MatRARt(A, B, r, PETSC_DEFAULT, C));
    break;
  case P_ABC:
    PetscCall(MatMatMatMult(A, B, A, r, PETSC_DEFAULT, C));
    break;
  }
  PetscFunctionReturn(0);
}

MatProductType ProductType(Prod p)
{
  const MatProductType t[] = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt, MATPRODUCT_ABC};
  return t[p];
}

/* Runs f with the option name set to value (NULL: nothing set). */
PetscErrorCode WithOption(const char *name, const char *value, const std::function<PetscErrorCode()> &f)
{
  PetscFunctionBeginUser;
  if (value) PetscCall(PetscOptionsSetValue(NULL, name, value));
  PetscErrorCode ierr = f();
  if (value) PetscCall(PetscOptionsClearValue(NULL, name));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

struct Case {
  std::string name;
  Spec        a, b;
  std::vector<Prod> prods = {P_AB, P_AtB, P_ABt, P_PtAP, P_RARt, P_ABC};
  bool        reuse = true;   /* MAT_REUSE_MATRIX / MatProductNumeric checks */
  bool        outputs = true; /* forced HM / CDM outputs */
  bool        square() const { return a.M == a.N && b.M == b.N && a.M == b.M; }
};

const char *StorageName(MatDiagStorage s)
{
  return s == MAT_DIAG_STORAGE_HM ? "hm" : (s == MAT_DIAG_STORAGE_CDM ? "cdm" : "auto");
}

/* Every product of the case, against aij; reuse after MatScale and after a
   structure change; the MatProduct API; forced output storage. */
PetscErrorCode TestCase(const Case &c)
{
  Mat Da, Aa, Db, Ab;

  PetscFunctionBeginUser;
  PetscCall(Build(c.a, &Da, &Aa));
  PetscCall(Build(c.b, &Db, &Ab));
  for (Prod p : c.prods) {
    Mat         Dc, Rc;
    std::string op = std::string(kProdName[p]) + " (A " + StorageName(c.a.storage) + ", B " + StorageName(c.b.storage) + ")";
    PetscCall(DoProduct(p, Da, Db, MAT_INITIAL_MATRIX, &Dc));
    PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
    PetscCall(CompareSparse(Dc, Rc, c.name, op));
    if (c.reuse) {
      /* new values in A: MAT_REUSE_MATRIX recomputes only the numeric phase */
      PetscCall(MatScale(Da, -1.5));
      PetscCall(MatScale(Aa, -1.5));
      PetscCall(DoProduct(p, Da, Db, MAT_REUSE_MATRIX, &Dc));
      PetscCall(MatDestroy(&Rc));
      PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
      PetscCall(CompareSparse(Dc, Rc, c.name, op + " MAT_REUSE_MATRIX after MatScale(A)"));
      /* and in B */
      PetscCall(MatScale(Db, 0.75));
      PetscCall(MatScale(Ab, 0.75));
      PetscCall(DoProduct(p, Da, Db, MAT_REUSE_MATRIX, &Dc));
      PetscCall(MatDestroy(&Rc));
      PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
      PetscCall(CompareSparse(Dc, Rc, c.name, op + " MAT_REUSE_MATRIX after MatScale(B)"));
    }
    PetscCall(MatDestroy(&Dc));
    PetscCall(MatDestroy(&Rc));
  }
  if (c.reuse && c.square()) {
    /* MatProductCreate API; numeric again after new values; then a new
       diagonal in A (the plan is redone, not reused blindly) */
    for (Prod p : {P_AB, P_AtB, P_PtAP}) {
      Mat         Dc, Rc;
      std::string op = std::string("MatProduct API ") + kProdName[p];
      PetscCall(MatProductCreate(Da, Db, NULL, &Dc));
      PetscCall(MatProductSetType(Dc, ProductType(p)));
      PetscCall(MatProductSetAlgorithm(Dc, "diag"));
      PetscCall(MatProductSetFill(Dc, PETSC_DEFAULT));
      PetscCall(MatProductSetFromOptions(Dc));
      PetscCall(MatProductSymbolic(Dc));
      PetscCall(MatProductNumeric(Dc));
      PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
      PetscCall(CompareSparse(Dc, Rc, c.name, op));
      PetscCall(MatScale(Da, 2.0));
      PetscCall(MatScale(Aa, 2.0));
      PetscCall(MatProductNumeric(Dc));
      PetscCall(MatDestroy(&Rc));
      PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
      PetscCall(CompareSparse(Dc, Rc, c.name, op + " numeric again after MatScale(A)"));
      PetscCall(MatDestroy(&Dc));
      PetscCall(MatDestroy(&Rc));
    }
    {
      const PetscInt n = c.a.M;
      Mat            Dc, Rc;
      PetscCall(MatMatMult(Da, Db, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
      /* a diagonal A did not have: entry (n-1, 0) (offset -(n-1)) and (0, n-1) */
      PetscInt rows[2] = {n - 1, 0}, cols[2] = {0, n - 1};
      PetscCall(MatSetOption(Aa, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      if (g_rank == 0) {
        for (int e = 0; e < 2; e++) {
          PetscCall(MatSetValue(Da, rows[e], cols[e], 0.625, ADD_VALUES));
          PetscCall(MatSetValue(Aa, rows[e], cols[e], 0.625, ADD_VALUES));
        }
      }
      PetscCall(Assemble(Da));
      PetscCall(Assemble(Aa));
      PetscCall(MatMatMult(Da, Db, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Dc));
      PetscCall(MatMatMult(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
      PetscCall(CompareSparse(Dc, Rc, c.name, "AB MAT_REUSE_MATRIX after a new diagonal in A"));
      PetscCall(MatDestroy(&Dc));
      PetscCall(MatDestroy(&Rc));
    }
  }
  if (c.outputs && c.square()) {
    for (const char *st : {"hm", "cdm"}) {
      for (Prod p : {P_AB, P_ABt, P_PtAP}) {
        Mat Dc, Rc;
        PetscCall(WithOption("-mat_diag_storage", st, [&] { return DoProduct(p, Da, Db, MAT_INITIAL_MATRIX, &Dc); }));
        MatDiagStorage got;
        PetscCall(MatDiagGetStorage(Dc, &got));
        PetscCall(Record(std::string(StorageName(got)) == st, c.name, std::string(kProdName[p]) + " with -mat_diag_storage " + st, std::string("stored as ") + StorageName(got)));
        PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
        PetscCall(CompareSparse(Dc, Rc, c.name, std::string(kProdName[p]) + " output " + st));
        PetscCall(MatScale(Db, -1.0));
        PetscCall(MatScale(Ab, -1.0));
        PetscCall(DoProduct(p, Da, Db, MAT_REUSE_MATRIX, &Dc));
        PetscCall(MatDestroy(&Rc));
        PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
        PetscCall(CompareSparse(Dc, Rc, c.name, std::string(kProdName[p]) + " output " + st + " MAT_REUSE_MATRIX"));
        PetscCall(MatDestroy(&Dc));
        PetscCall(MatDestroy(&Rc));
      }
    }
  }
  PetscCall(MatDestroy(&Da));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Db));
  PetscCall(MatDestroy(&Ab));
  PetscFunctionReturn(0);
}

/* Rectangular operands: AB (MxK)(KxN), AtB (MxK)^T (MxN), ABt (MxK)(NxK)^T. */
PetscErrorCode TestRectangular(PetscInt M, PetscInt K, PetscInt N, unsigned seed)
{
  const std::string cs = Fmt("rectangular %dx%dx%d", (int)M, (int)K, (int)N);
  Spec              a, b1, b2, b3;
  Mat               Da, Aa, Db, Ab, Dc, Rc;

  PetscFunctionBeginUser;
  a.M = M, a.N = K, a.seed = seed, a.offsets = Unique({-(M - 1), -3, -1, 0, 2, 5, K / 2, K - 1}, M, K);
  b1.M = K, b1.N = N, b1.seed = seed + 1, b1.offsets = Unique({-(K - 1), -2, 0, 1, 4, N / 3, N - 1}, K, N);
  b2.M = M, b2.N = N, b2.seed = seed + 2, b2.offsets = Unique({-(M / 2), -1, 0, 3, N - 1}, M, N);
  b3.M = N, b3.N = K, b3.seed = seed + 3, b3.offsets = Unique({-(N - 1), -1, 0, 1, 7, K / 4}, N, K);
  const Spec *bs[3] = {&b1, &b2, &b3};
  PetscCall(Build(a, &Da, &Aa));
  for (int q = 0; q < 3; q++) {
    const Prod p = q == 0 ? P_AB : (q == 1 ? P_AtB : P_ABt);
    PetscCall(Build(*bs[q], &Db, &Ab));
    PetscCall(DoProduct(p, Da, Db, MAT_INITIAL_MATRIX, &Dc));
    PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
    PetscCall(CompareSparse(Dc, Rc, cs, kProdName[p]));
    PetscCall(MatScale(Db, 3.0));
    PetscCall(MatScale(Ab, 3.0));
    PetscCall(DoProduct(p, Da, Db, MAT_REUSE_MATRIX, &Dc));
    PetscCall(MatDestroy(&Rc));
    PetscCall(DoProduct(p, Aa, Ab, MAT_INITIAL_MATRIX, &Rc));
    PetscCall(CompareSparse(Dc, Rc, cs, std::string(kProdName[p]) + " MAT_REUSE_MATRIX"));
    PetscCall(MatDestroy(&Dc));
    PetscCall(MatDestroy(&Rc));
    PetscCall(MatDestroy(&Db));
    PetscCall(MatDestroy(&Ab));
  }
  PetscCall(MatDestroy(&Da));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

/* The paper's n = 4 example (section 4): two dense 4 x 4 matrices of
   integers, C = A B through MatMatMult, in CDM (as in the paper) and HM. */
PetscErrorCode TestPaperExample()
{
  PetscFunctionBeginUser;
  for (MatDiagStorage st : {MAT_DIAG_STORAGE_CDM, MAT_DIAG_STORAGE_HM, MAT_DIAG_STORAGE_AUTO}) {
    const std::string cs = std::string("paper n=4 (") + StorageName(st) + ")";
    Spec              a, b;
    Mat               Da, Aa, Db, Ab, Dc, Rc, E;
    PetscReal         nd;
    a.M = a.N = b.M = b.N = 4;
    a.offsets = b.offsets = Band(-3, 3, 4, 4);
    a.integer = b.integer = true;
    a.seed = 4, b.seed = 5;
    a.storage = b.storage = st;
    PetscCall(Build(a, &Da, &Aa));
    PetscCall(Build(b, &Db, &Ab));
    PetscCall(MatMatMult(Da, Db, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
    PetscCall(MatMatMult(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
    PetscCall(CompareSparse(Dc, Rc, cs, "MatMatMult"));
    /* integers: the product is exact */
    PetscCall(ToAij(Dc, &E));
    PetscCall(MatAXPY(E, -1.0, Rc, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatNorm(E, NORM_FROBENIUS, &nd));
    PetscCall(Record(nd == 0.0, cs, "exact", Fmt("difference %.3e", (double)nd)));
    MatDiagStorage got;
    PetscCall(MatDiagGetStorage(Dc, &got));
    PetscCall(Record(st == MAT_DIAG_STORAGE_HM || got == MAT_DIAG_STORAGE_CDM, cs, "dense 4 x 4 result stored in CDM", std::string("stored as ") + StorageName(got)));
    for (Mat m : {Da, Aa, Db, Ab, Dc, Rc, E}) PetscCall(MatDestroy(&m));
  }
  PetscFunctionReturn(0);
}

/* Whether a diag operand's diagonals are mostly zeros (an AMG prolongator's)
   is decided once per set of values: the count of nonzeros (event
   MatDiagCountNz) runs at the first product of a square operand with more
   than 64 diagonals, not again for another product of the same values, again
   after the values change, and never for an operand with few diagonals. */
PetscErrorCode TestNonzeroCountOnce()
{
  const std::string cs = "nonzero count";
  Spec              many, few;
  Mat               Dm, Am, Df, Af;
  int               n0, n1, n2, n3, n4;
  /* C = X X, dropped, then the count of nonzero counts so far in *n */
  const auto product_then_count = [](Mat X, int *n) -> PetscErrorCode {
    Mat C;
    PetscFunctionBeginUser;
    PetscCall(MatMatMult(X, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
    PetscCall(MatDestroy(&C));
    PetscCall(EventCount("MatDiagCountNz", n));
    PetscFunctionReturn(0);
  };

  PetscFunctionBeginUser;
  many.M = many.N = 200, many.offsets = Band(-40, 39, 200, 200), many.seed = 8;
  few.M = few.N = 200, few.offsets = Band(-2, 2, 200, 200), few.seed = 9;
  PetscCall(Build(many, &Dm, &Am));
  PetscCall(Build(few, &Df, &Af));
  PetscCall(EventCount("MatDiagCountNz", &n0));
  PetscCall(product_then_count(Dm, &n1));
  PetscCall(product_then_count(Dm, &n2));
  PetscCall(MatScale(Dm, 2.0));
  PetscCall(product_then_count(Dm, &n3));
  PetscCall(product_then_count(Df, &n4));
  PetscCall(Record(n1 - n0 == 1, cs, "counted at the first product", Fmt("%d counts", n1 - n0)));
  PetscCall(Record(n2 == n1, cs, "not counted again for the same values", Fmt("%d counts", n2 - n1)));
  PetscCall(Record(n3 - n2 == 1, cs, "counted again after MatScale", Fmt("%d counts", n3 - n2)));
  PetscCall(Record(n4 == n3, cs, "not counted for 5 diagonals", Fmt("%d counts", n4 - n3)));
  for (Mat m : {Dm, Am, Df, Af}) PetscCall(MatDestroy(&m));
  PetscFunctionReturn(0);
}

/* A dense N x k matrix with rows laid out like A's columns, leading
   dimension lda_extra beyond the local rows. */
PetscErrorCode MakeDense(PetscInt N, PetscInt k, PetscInt lda_extra, unsigned seed, Mat *X)
{
  PetscInt     r0, r1, lda;
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(OwnedRange(N, &r0, &r1));
  PetscCall(MatCreate(PETSC_COMM_WORLD, X));
  PetscCall(MatSetSizes(*X, PETSC_DECIDE, PETSC_DECIDE, N, k));
  PetscCall(MatSetType(*X, MATDENSE));
  if (lda_extra) PetscCall(MatDenseSetLDA(*X, r1 - r0 + lda_extra));
  PetscCall(MatSetUp(*X));
  PetscCall(MatDenseGetLDA(*X, &lda));
  PetscCall(MatDenseGetArrayWrite(*X, &x));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = r0; i < r1; i++) x[j * lda + (i - r0)] = Unit(seed, i, j);
  PetscCall(MatDenseRestoreArrayWrite(*X, &x));
  PetscCall(Assemble(*X));
  PetscFunctionReturn(0);
}

/* The flops logged on the GPU so far (PETSc keeps the count only in device builds). */
PetscLogDouble GpuFlops()
{
#if defined(PETSC_HAVE_DEVICE)
  return petsc_gflops;
#else
  return 0;
#endif
}

/* C = A X with X dense (k columns), against aij x dense. */
PetscErrorCode TestDense(const std::string &name, const Spec &sa)
{
  Mat Da, Aa;

  PetscFunctionBeginUser;
  PetscCall(Build(sa, &Da, &Aa));
  for (PetscInt k : {1, 3, 32}) {
    for (PetscInt extra : {0, 3}) {
      const std::string cs = Fmt("%s, dense k=%d lda+%d", name.c_str(), (int)k, (int)extra);
      Mat               X, Xd, Dc, Rc;
      PetscCall(MakeDense(sa.N, k, extra, 77 + (unsigned)k, &X));
      if (std::string(g_dense_type) == MATDENSE) { /* the diag products' X: X itself on the host, with its leading dimension */
        PetscCall(PetscObjectReference((PetscObject)X));
        Xd = X;
      } else PetscCall(MatConvert(X, g_dense_type, MAT_INITIAL_MATRIX, &Xd));
      PetscLogDouble gpu_flops = GpuFlops();
      PetscCall(MatMatMult(Da, Xd, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
      gpu_flops = GpuFlops() - gpu_flops;
      PetscCall(MatMatMult(Aa, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
      PetscCall(CompareDense(Dc, Rc, cs, "diag x dense"));
      if (g_expect_gpu && std::string(g_dense_type).find("cuda") != std::string::npos) {
        /* CUDA dense operands, diag on the GPU: the SpMM ran there (GPU flops logged on some process) */
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &gpu_flops, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
        PetscCall(Record(gpu_flops > 0, cs, "diag x dense: computed on the GPU", Fmt("%g GPU flops", (double)gpu_flops)));
      }
      PetscCall(MatScale(Da, -0.5));
      PetscCall(MatScale(Aa, -0.5));
      PetscCall(MatMatMult(Da, Xd, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Dc));
      PetscCall(MatDestroy(&Rc));
      PetscCall(MatMatMult(Aa, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
      PetscCall(CompareDense(Dc, Rc, cs, "diag x dense MAT_REUSE_MATRIX after MatScale(A)"));
      PetscCall(MatDestroy(&Dc));
      if (extra) {
        /* the user's C, with its own leading dimension */
        PetscInt r0, r1;
        PetscCall(OwnedRange(sa.M, &r0, &r1));
        PetscCall(MatCreate(PETSC_COMM_WORLD, &Dc));
        PetscCall(MatSetSizes(Dc, PETSC_DECIDE, PETSC_DECIDE, sa.M, k));
        PetscCall(MatSetType(Dc, g_dense_type));
        PetscCall(MatDenseSetLDA(Dc, r1 - r0 + 2));
        PetscCall(MatSetUp(Dc));
        PetscCall(MatMatMult(Da, Xd, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Dc));
        PetscCall(CompareDense(Dc, Rc, cs, "diag x dense into the user's C (lda+2)"));
        PetscCall(MatDestroy(&Dc));
      }
      {
        /* MatProduct API */
        PetscCall(MatProductCreate(Da, Xd, NULL, &Dc));
        PetscCall(MatProductSetType(Dc, MATPRODUCT_AB));
        PetscCall(MatProductSetFromOptions(Dc));
        PetscCall(MatProductSymbolic(Dc));
        PetscCall(MatProductNumeric(Dc));
        PetscCall(CompareDense(Dc, Rc, cs, "diag x dense, MatProduct API"));
        PetscCall(MatDestroy(&Dc));
      }
      PetscCall(MatDestroy(&Rc));
      PetscCall(MatDestroy(&X));
      PetscCall(MatDestroy(&Xd));
    }
    {
      /* A^T X: PETSc's column loop over MatMultTranspose (no SpMM variant) */
      const std::string cs = Fmt("%s, dense k=%d", name.c_str(), (int)k);
      Mat               X, Dc, Rc;
      PetscCall(MakeDense(sa.M, k, 0, 99 + (unsigned)k, &X));
      PetscCall(MatTransposeMatMult(Da, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
      PetscCall(MatTransposeMatMult(Aa, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
      PetscCall(CompareDense(Dc, Rc, cs, "diag^T x dense"));
      for (Mat m : {X, Dc, Rc}) PetscCall(MatDestroy(&m));
    }
  }
  PetscCall(MatDestroy(&Da));
  PetscCall(MatDestroy(&Aa));
  PetscFunctionReturn(0);
}

/* diag with aij operands: the aij one is converted, the result is diag. */
PetscErrorCode TestMixed()
{
  const std::string cs = "diag with aij";
  const PetscInt    n  = 60;
  Spec              a, b;
  Mat               Da, Aa, Db, Ab, Dc, Rc;

  PetscFunctionBeginUser;
  a.M = a.N = b.M = b.N = n;
  a.offsets = PaperOffsets(n, 7, 31);
  b.offsets = Band(-2, 3, n, n);
  a.seed = 8, b.seed = 9;
  g_expect_gpu = false; /* an aij operand becomes a host diag copy: these products run on the CPU */
  PetscCall(Build(a, &Da, &Aa));
  PetscCall(Build(b, &Db, &Ab));
  PetscCall(MatMatMult(Da, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
  PetscCall(MatMatMult(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
  PetscCall(CompareSparse(Dc, Rc, cs, "diag x aij"));
  PetscCall(MatScale(Ab, 1.25));
  PetscCall(MatScale(Db, 1.25)); /* Db stays the diag twin of Ab */
  PetscCall(MatMatMult(Da, Ab, MAT_REUSE_MATRIX, PETSC_DEFAULT, &Dc));
  PetscCall(MatDestroy(&Rc));
  PetscCall(MatMatMult(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
  PetscCall(CompareSparse(Dc, Rc, cs, "diag x aij MAT_REUSE_MATRIX after MatScale(aij)"));
  PetscCall(MatDestroy(&Dc));
  PetscCall(MatDestroy(&Rc));
  PetscCall(MatMatMult(Aa, Db, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
  PetscCall(MatMatMult(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
  PetscCall(CompareSparse(Dc, Rc, cs, "aij x diag"));
  PetscCall(MatDestroy(&Dc));
  PetscCall(MatDestroy(&Rc));
  PetscCall(MatTransposeMatMult(Aa, Db, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
  PetscCall(MatTransposeMatMult(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
  PetscCall(CompareSparse(Dc, Rc, cs, "aij^T x diag"));
  PetscCall(MatDestroy(&Dc));
  PetscCall(MatDestroy(&Rc));
  PetscCall(MatPtAP(Da, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc));
  PetscCall(MatPtAP(Aa, Ab, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
  PetscCall(CompareSparse(Dc, Rc, cs, "PtAP with A diag, P aij"));
  PetscCall(MatDestroy(&Dc));
  PetscCall(MatDestroy(&Rc));
  for (Mat m : {Da, Aa, Db, Ab}) PetscCall(MatDestroy(&m));
  PetscFunctionReturn(0);
}

/* ---- bad input ------------------------------------------------------------ */

/* Expects f to fail with a message containing every one of `words`. */
PetscErrorCode ExpectError(const std::string &what, const std::function<PetscErrorCode()> &f, std::vector<std::string> words = {})
{
  PetscErrorCode ierr;
  std::string    msg;
  bool           ok;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = f();
  PetscCall(PetscPopErrorHandler());
  msg = LastMessage();
  ok  = ierr != 0;
  for (const std::string &w : words)
    if (msg.find(w) == std::string::npos) ok = false;
  PetscCall(Record(ok, "bad input", what, ierr ? "message: " + msg : "no error"));
  PetscFunctionReturn(0);
}

PetscErrorCode TestBadInput()
{
  Spec s1, s2, s3;
  Mat  D1, A1, D2, A2, D3, A3, X, C = NULL;

  PetscFunctionBeginUser;
  s1.M = 10, s1.N = 12, s1.offsets = {-1, 0, 2};
  s2.M = 10, s2.N = 5, s2.offsets = {0, 1};
  s3.M = 11, s3.N = 5, s3.offsets = {0, -1};
  PetscCall(Build(s1, &D1, &A1));
  PetscCall(Build(s2, &D2, &A2));
  PetscCall(Build(s3, &D3, &A3));
  PetscCall(ExpectError("MatMatMult 10x12 times 10x5", [&] { return MatMatMult(D1, D2, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }, {"incompatible"}));
  PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
  PetscCall(ExpectError("MatTransposeMatMult (10x12)^T times 11x5", [&] { return MatTransposeMatMult(D1, D3, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }, {"incompatible"}));
  PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
  PetscCall(ExpectError("MatMatTransposeMult 10x12 times (10x5)^T", [&] { return MatMatTransposeMult(D1, D2, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }, {"incompatible"}));
  PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
  PetscCall(ExpectError("MatPtAP with a non-square A", [&] { return MatPtAP(D1, D2, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }));
  PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
  PetscCall(MakeDense(11, 3, 0, 5, &X));
  PetscCall(ExpectError("MatMatMult 10x12 diag times 11x3 dense", [&] { return MatMatMult(D1, X, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }, {"incompatible"}));
  PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
  PetscCall(MatDestroy(&X));
  PetscCall(ExpectError("MatProductSetAlgorithm bogus", [&] {
    Mat P;
    PetscCall(MatProductCreate(D1, D1, NULL, &P));
    PetscCall(MatProductSetType(P, MATPRODUCT_AtB));
    PetscCall(MatProductSetAlgorithm(P, "bogus"));
    /* reported by the symbolic phase: an error inside MatProductSetFromOptions would leave PETSc 3.18's options block open */
    PetscErrorCode ierr = MatProductSetFromOptions(P);
    if (!ierr) ierr = MatProductSymbolic(P);
    PetscCall(MatDestroy(&P));
    return ierr;
  }, {"bogus", "diag"}));
  PetscCall(ExpectError("-mat_product_algorithm bogus", [&] {
    return WithOption("-mat_product_algorithm", "bogus", [&] {
      Mat P;
      PetscCall(MatProductCreate(D1, D1, NULL, &P));
      PetscCall(MatProductSetType(P, MATPRODUCT_AtB));
      PetscErrorCode ierr = MatProductSetFromOptions(P);
      if (!ierr) ierr = MatProductSymbolic(P);
      PetscCall(MatDestroy(&P));
      return ierr;
    });
  }, {"bogus"}));
  {
    /* an operand that is not assembled */
    Mat U;
    PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 12, 0, NULL, &U));
    PetscCall(ExpectError("MatMatMult with an unassembled diag", [&] { return MatMatMult(U, D3 /* 11x5 */, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }));
    PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
    PetscCall(MatDestroy(&U));
  }
  {
    /* an aij operand with more diagonals than the diag operand may store */
    Spec t, w;
    Mat  Dt, At, Dw, Aw;
    t.M = t.N = w.M = w.N = 30;
    t.offsets = {-1, 0, 1};
    w.offsets = {-3, -2, -1, 0, 1};
    PetscCall(Build(t, &Dt, &At));
    PetscCall(Build(w, &Dw, &Aw));
    PetscCall(WithOption("-mat_diag_max_diagonals", "3", [&] { return MatSetFromOptions(Dt); }));
    PetscCall(ExpectError("diag x aij with more diagonals than -mat_diag_max_diagonals", [&] { return MatMatMult(Dt, Aw, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); }, {"diag", "aij", "limit 3", "convert"}));
    PetscCall(MatDestroy(&C)); /* the product matrix PETSc created before the error */
    /* ... and a product whose result exceeds the limit */
    PetscCall(ExpectError("product with more output diagonals than -mat_diag_max_diagonals", [&] {
      return WithOption("-mat_diag_max_diagonals", "4", [&] { return MatMatMult(Dw, Dw, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C); });
    }, {"-mat_diag_max_diagonals"}));
    PetscCall(MatDestroy(&C));
    for (Mat m : {Dt, At, Dw, Aw}) PetscCall(MatDestroy(&m));
  }
  for (Mat m : {D1, A1, D2, A2, D3, A3}) PetscCall(MatDestroy(&m));
  PetscFunctionReturn(0);
}

/* -mat_product_algorithm diag and -matmatmult_via diag are accepted. */
PetscErrorCode TestOptions()
{
  const std::string cs = "options";
  Spec              s;
  Mat               D, A, Dc, Rc;

  PetscFunctionBeginUser;
  s.M = s.N = 40;
  s.offsets = {-5, -1, 0, 2, 9};
  PetscCall(Build(s, &D, &A));
  PetscCall(MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Rc));
  PetscCall(WithOption("-mat_product_algorithm", "diag", [&] {
    PetscCall(MatProductCreate(D, D, NULL, &Dc));
    PetscCall(MatProductSetType(Dc, MATPRODUCT_AB));
    PetscCall(MatProductSetFromOptions(Dc));
    PetscCall(MatProductSymbolic(Dc));
    PetscCall(MatProductNumeric(Dc));
    return 0;
  }));
  PetscCall(CompareSparse(Dc, Rc, cs, "-mat_product_algorithm diag"));
  PetscCall(MatDestroy(&Dc));
  PetscCall(WithOption("-matmatmult_via", "diag", [&] { return MatMatMult(D, D, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Dc); }));
  PetscCall(CompareSparse(Dc, Rc, cs, "-matmatmult_via diag"));
  PetscCall(MatDestroy(&Dc));
  for (Mat m : {D, A, Rc}) PetscCall(MatDestroy(&m));
  PetscFunctionReturn(0);
}

std::vector<Case> MakeCases()
{
  std::vector<Case> cases;
  const auto        square = [](const std::string &name, PetscInt n, std::vector<PetscInt> oa, std::vector<PetscInt> ob, MatDiagStorage sa, MatDiagStorage sb, unsigned seed) {
    Case c;
    c.name = name;
    c.a.M = c.a.N = c.b.M = c.b.N = n;
    c.a.offsets = Unique(oa, n, n);
    c.b.offsets = Unique(ob, n, n);
    c.a.storage = sa;
    c.b.storage = sb;
    c.a.seed    = seed;
    c.b.seed    = seed + 1000;
    return c;
  };
  const MatDiagStorage HM = MAT_DIAG_STORAGE_HM, CDM = MAT_DIAG_STORAGE_CDM, AUTO = MAT_DIAG_STORAGE_AUTO;
  cases.push_back(square("n=1", 1, {0}, {0}, AUTO, AUTO, 1));
  cases.push_back(square("n=2 full", 2, {-1, 0, 1}, {-1, 0, 1}, HM, HM, 2));
  cases.push_back(square("n=2 full CDM", 2, {-1, 0, 1}, {-1, 1}, CDM, CDM, 3));
  for (MatDiagStorage sa : {HM, CDM})
    for (MatDiagStorage sb : {HM, CDM}) {
      const std::string st = std::string(" A ") + StorageName(sa) + " B " + StorageName(sb);
      cases.push_back(square("paper-style n=17" + st, 17, PaperOffsets(17, 5, 11), PaperOffsets(17, 4, 12), sa, sb, 4));
      cases.push_back(square("paper-style n=100" + st, 100, PaperOffsets(100, 12, 13), PaperOffsets(100, 9, 14), sa, sb, 5));
    }
  cases.push_back(square("far-off n=50", 50, {-49, -25, 0, 30, 49}, {-49, -1, 48, 49}, HM, HM, 6));
  cases.push_back(square("far-off n=50 CDM", 50, {-49, -25, 0, 30, 49}, {-49, -1, 48, 49}, CDM, CDM, 7));
  cases.push_back(square("empty AB n=40 (A, B on +39)", 40, {39}, {39}, HM, HM, 8));
  cases.push_back(square("empty AB n=40 (A on -39, B on -38)", 40, {-39}, {-38}, AUTO, AUTO, 9));
  {
    Case c = square("zero A n=30", 30, {}, {-2, 0, 5}, AUTO, AUTO, 10);
    cases.push_back(c);
  }
  {
    Case c   = square("partly filled n=64", 64, PaperOffsets(64, 10, 15), Band(-3, 3, 64, 64), AUTO, HM, 11);
    c.a.fill = 0.5;
    c.b.fill = 0.7;
    cases.push_back(c);
  }
  cases.push_back(square("dense band n=200 (+-20 x +-15)", 200, Band(-20, 20, 200, 200), Band(-15, 15, 200, 200), AUTO, AUTO, 12));
  cases.push_back(square("dense band n=90 CDM", 90, Band(-30, 30, 90, 90), Band(-10, 25, 90, 90), CDM, CDM, 13));
  cases.push_back(square("fully dense n=24", 24, Band(-23, 23, 24, 24), Band(-23, 23, 24, 24), AUTO, AUTO, 14));
  {
    Case c    = square("paper-style n=1000 (40 x 30 diagonals)", 1000, PaperOffsets(1000, 40, 21), PaperOffsets(1000, 30, 22), AUTO, AUTO, 15);
    c.prods   = {P_AB, P_AtB, P_ABt, P_PtAP};
    c.outputs = false;
    cases.push_back(c);
  }
  {
    Case c    = square("banded n=3000 (9 x 9 diagonals)", 3000, {-100, -10, -2, -1, 0, 1, 2, 10, 100}, {-100, -10, -2, -1, 0, 1, 2, 10, 100}, AUTO, AUTO, 16);
    c.prods   = {P_AB, P_AtB, P_ABt, P_PtAP, P_RARt};
    c.outputs = false;
    cases.push_back(c);
  }
  {
    Case c    = square("paper-style n=2000 CDM (60 x 50 diagonals)", 2000, PaperOffsets(2000, 60, 23), PaperOffsets(2000, 50, 24), CDM, CDM, 17);
    c.prods   = {P_AB, P_AtB};
    c.outputs = false;
    c.reuse   = false;
    cases.push_back(c);
  }
  return cases;
}

} // namespace

int main(int argc, char **argv)
{
  CaseFilter want;
  int        exit_code;
  PetscCall(Start(&argc, &argv, "Tests of MatProduct for MATDIAG against aij"));
  PetscCall(want.FromOptions());
  PetscCall(PetscLogDefaultBegin()); /* event counts (PETSc 3.18 keeps none without the log) */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-diag_vec_type", g_vec_type, sizeof(g_vec_type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dense_type", g_dense_type, sizeof(g_dense_type), NULL));
  const bool gpu = g_vec_type[0];
  g_expect_gpu   = gpu;

  for (const Case &c : MakeCases())
    if (want(c.name)) Run(c.name, "products", [&] { return TestCase(c); });
  if (want("rectangular")) {
    Run("rectangular", "products", [] { return TestRectangular(7, 11, 5, 41); });
    Run("rectangular", "products", [] { return TestRectangular(60, 35, 80, 42); });
    Run("rectangular", "products", [] { return TestRectangular(1, 3, 2, 43); });
  }
  if (want("paper n=4")) Run("paper n=4", "worked example", [] { return TestPaperExample(); });
  if (want("nonzero count")) Run("nonzero count", "products", [] { return TestNonzeroCountOnce(); });
  if (want("dense")) {
    Spec s;
    s.M = s.N = 50, s.offsets = PaperOffsets(50, 8, 51), s.storage = MAT_DIAG_STORAGE_HM;
    Run("dense", "diag x dense", [&] { return TestDense("HM n=50", s); });
    s.storage = MAT_DIAG_STORAGE_CDM, s.offsets = Band(-6, 6, 50, 50);
    Run("dense", "diag x dense", [&] { return TestDense("CDM n=50 band", s); });
    s.M = s.N = 1000, s.offsets = {-300, -7, -1, 0, 1, 7, 300}, s.storage = MAT_DIAG_STORAGE_AUTO;
    Run("dense", "diag x dense", [&] { return TestDense("n=1000", s); });
    s.M = 30, s.N = 45, s.offsets = {-29, -2, 0, 3, 44}, s.storage = MAT_DIAG_STORAGE_HM;
    Run("dense", "diag x dense", [&] { return TestDense("rectangular 30x45", s); });
    s.M = s.N = 1, s.offsets = {0};
    Run("dense", "diag x dense", [&] { return TestDense("n=1", s); });
  }
  if (want("diag with aij")) Run("diag with aij", "mixed", [] { return TestMixed(); });
  g_expect_gpu = gpu;
  if (want("options")) Run("options", "options", [] { return TestOptions(); });
  if (want("bad input")) Run("bad input", "bad input", [] { return TestBadInput(); });

  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}
