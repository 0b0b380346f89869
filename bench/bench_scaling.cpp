static const char help[] = "Multi-GPU (one MPI process per GPU) scaling of MatMult and CG + Jacobi, diag against aij(cusparse) in one run.\n"
                           "3D 7-point operator with random symmetric coefficients, split in z slabs over the processes.\n"
                           "  -case <weak,strong,both>  weak: -weak_n^3 rows per process; strong: -strong_n^3 rows in all\n"
                           "  -weak_n <256>  -strong_n <512>\n"
                           "  -types <diagcuda,aijcusparse>   (CPU builds: diag,aij) ours, then the peer\n"
                           "  -bench_vec_type <cuda>          (CPU builds: standard) type of every vector\n"
                           "  -reps <100>   timed MatMults (median and mean reported)   -its <200>  CG iterations\n"
                           "  -csv <file>   append one line per (format, processes, case)\n";

/* Method (as bench_matmult): the operator is assembled for each type from the
   same local CSR rows; MatMult is warmed up, then timed rep by rep, each rep
   between a barrier and a device synchronisation (PetscDeviceContext), the
   rep's time the slowest process's; the median and the mean over reps are
   reported. CG + Jacobi runs a fixed number of iterations (rtol = atol = 0,
   natural norm: no reduction beyond CG's own), after an untimed short solve
   that sets the preconditioner up; the time per iteration is reported.
   Under MPI, the ghost exchange is timed alone (diag: MatDiagGhostExchange,
   the exchange of its own product; aij: a VecScatter of the two
   neighbour planes the 7-point rows reach, which is what both formats
   gather), and so is the product of the diagonal block (the owned rows and
   columns, no exchange): hidden = (local + exchange - MatMult) / exchange
   says how much of the exchange the product overlaps with its interior rows.
   Correctness: diag's y = A x against the peer's (max |difference| / max |y|)
   and the relative residuals and solutions after CG; the vectors depend only
   on the global index, so the strong case's numbers compare across process
   counts too. A check that fails is printed (FAILED) and the exit code is 1
   after all timings are out. */

#include <petscdiag.h>
#include <petscdevice.h>
#include <petscksp.h>
#include <petsctime.h>

#if defined(PDIAG_PETSC_CUDA)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace {

struct Options {
  PetscInt  weak_n = 256, strong_n = 512, reps = 100, its = 200;
  PetscBool weak = PETSC_TRUE, strong = PETSC_TRUE;
#if defined(PDIAG_PETSC_CUDA)
  char types[2][64] = {"diagcuda", "aijcusparse"};
  char vec_type[64] = "cuda";
#else
  char types[2][64] = {"diag", "aij"};
  char vec_type[64] = "standard";
#endif
  char csv[PETSC_MAX_PATH_LEN] = "";
};

/* The grid: nx x ny x nz points, process r owning z planes [zs, ze). */
struct Grid {
  PetscInt nx, ny, nz, zs, ze;
  PetscInt rows() const { return nx * ny * (ze - zs); }
  PetscInt plane() const { return nx * ny; }
};

Grid Slabs(PetscInt nx, PetscInt ny, PetscInt nz, PetscMPIInt rank, PetscMPIInt size)
{
  const PetscInt q = nz / size, r = nz % size;
  Grid           g{nx, ny, nz, 0, 0};
  g.zs = rank * q + std::min<PetscInt>(rank, r);
  g.ze = g.zs + q + (rank < r ? 1 : 0);
  return g;
}

/* A value in [0, 1) from a tuple of integers (no state: the same on every run and process count). */
double Hash(long a, long b, long c, long d)
{
  unsigned long h = (unsigned long)(a * 73856093L) ^ (unsigned long)(b * 19349663L) ^ (unsigned long)(c * 83492791L) ^ (unsigned long)(d * 2654435761L);
  h ^= h >> 13;
  h *= 0x5bd1e995UL;
  h ^= h >> 15;
  return (double)(h % 1000003UL) / 1000003.0;
}

/* The coefficient of the edge from point (i, j, k) to its + neighbour along axis: in (1, 2). */
PetscScalar Edge(PetscInt i, PetscInt j, PetscInt k, int axis) { return 1.0 + Hash(i, j, k, axis); }

/* The local rows as CSR (global columns, ascending): -div(c grad u) with
   Dirichlet boundaries, c random per edge, so the matrix is symmetric
   positive definite (CG applies) and has 7 diagonals in the natural order. */
PetscErrorCode BuildCSR(const Grid &g, std::vector<PetscInt> *ia, std::vector<PetscInt> *ja, std::vector<PetscScalar> *va)
{
  const PetscInt m = g.rows(), nxy = g.plane();

  PetscFunctionBeginUser;
  PetscCheck((double)m * 7 < (double)std::numeric_limits<PetscInt>::max(), PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscInt_FMT " local rows: more entries than PetscInt counts; use more processes or smaller -weak_n/-strong_n", m);
  PetscCallCXX(ia->assign((size_t)m + 1, 0));
  PetscCallCXX(ja->resize((size_t)m * 7));
  PetscCallCXX(va->resize((size_t)m * 7));
  PetscInt e = 0, r = 0;
  for (PetscInt k = g.zs; k < g.ze; k++)
    for (PetscInt j = 0; j < g.ny; j++)
      for (PetscInt i = 0; i < g.nx; i++, r++) {
        const PetscInt    row = i + g.nx * (j + g.ny * k);
        const PetscScalar cxm = Edge(i - 1, j, k, 0), cxp = Edge(i, j, k, 0);
        const PetscScalar cym = Edge(i, j - 1, k, 1), cyp = Edge(i, j, k, 1);
        const PetscScalar czm = Edge(i, j, k - 1, 2), czp = Edge(i, j, k, 2);
        auto put = [&](PetscInt col, PetscScalar v) {
          (*ja)[e]   = col;
          (*va)[e++] = v;
        };
        if (k > 0) put(row - nxy, -czm);
        if (j > 0) put(row - g.nx, -cym);
        if (i > 0) put(row - 1, -cxm);
        put(row, cxm + cxp + cym + cyp + czm + czp);
        if (i < g.nx - 1) put(row + 1, -cxp);
        if (j < g.ny - 1) put(row + g.nx, -cyp);
        if (k < g.nz - 1) put(row + nxy, -czp);
        (*ia)[r + 1] = e;
      }
  PetscFunctionReturn(0);
}

/* The operator in type `type` from the CSR rows: aij types take the CSR in
   one call; diag types are preallocated with their 7 diagonals and filled
   row by row with MatSetValues (what a user does). */
PetscErrorCode Assemble(MPI_Comm comm, const char *type, const char *vec_type, const Grid &g, const std::vector<PetscInt> &ia, const std::vector<PetscInt> &ja, const std::vector<PetscScalar> &va, Mat *A)
{
  const PetscInt m = g.rows(), N = g.nx * g.ny * g.nz;
  PetscBool      diag;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, m, N, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetVecType(*A, vec_type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(PetscStrncmp(type, "diag", 4, &diag));
  if (diag) {
    const PetscInt offs[7] = {-g.plane(), -g.nx, -1, 0, 1, g.nx, g.plane()};
    PetscCall(MatDiagSetPreallocation(*A, 7, offs));
    for (PetscInt r = 0; r < m; r++) {
      const PetscInt row = g.zs * g.plane() + r;
      PetscCall(MatSetValues(*A, 1, &row, ia[r + 1] - ia[r], ja.data() + ia[r], va.data() + ia[r], INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  } else {
    PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia.data(), ja.data(), va.data())); /* whichever applies */
    PetscCall(MatMPIAIJSetPreallocationCSR(*A, ia.data(), ja.data(), va.data()));
  }
  PetscFunctionReturn(0);
}

/* v_i = f(global i) on the owned entries. */
PetscErrorCode FillByIndex(Vec v, long salt)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = 0.5 + Hash(i, salt, 7, 11);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(0);
}

bool g_device = false; /* vectors on a device: Sync() waits for it */

/* Waits for the device's work (host vectors: nothing to wait for, and a
   CUDA-enabled PETSc on a machine without a GPU has no device context). */
PetscErrorCode Sync()
{
  PetscDeviceContext dctx;

  PetscFunctionBeginUser;
  if (!g_device) PetscFunctionReturn(0);
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscFunctionReturn(0);
}

/* Times f() reps times after `warm` untimed calls: each rep between a barrier
   and a device synchronisation, its time the slowest process's. */
template <class F>
PetscErrorCode TimeReps(MPI_Comm comm, PetscInt warm, PetscInt reps, F &&f, double *median, double *mean)
{
  std::vector<double> t((size_t)reps);

  PetscFunctionBeginUser;
  for (PetscInt w = 0; w < warm; w++) PetscCall(f());
  PetscCall(Sync());
  for (PetscInt rep = 0; rep < reps; rep++) {
    PetscLogDouble t0, t1;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(f());
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t[(size_t)rep] = t1 - t0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t.data(), (PetscMPIInt)reps, MPI_DOUBLE, MPI_MAX, comm));
  *mean = std::accumulate(t.begin(), t.end(), 0.0) / (double)reps;
  std::sort(t.begin(), t.end());
  *median = t[t.size() / 2];
  PetscFunctionReturn(0);
}

struct Result {
  double   setup = 0, mult = 0, mult_mean = 0, cg_it = 0, relres = 0, local = 0, scatter = 0, hidden = -1;
  PetscInt cg_its = 0;
  Vec      y = NULL, x = NULL; /* MatMult result, CG solution (kept for the comparison) */
};

/* The exchange alone: the neighbour planes of the slab (the columns the 7-point rows reach off-process). */
PetscErrorCode MakeHaloScatter(Vec x, const Grid &g, const char *seq_type, Vec *w, VecScatter *sc)
{
  std::vector<PetscInt> idx;
  IS                    is;

  PetscFunctionBeginUser;
  for (PetscInt k : {g.zs - 1, g.ze})
    if (k >= 0 && k < g.nz && g.ze > g.zs)
      for (PetscInt p = 0; p < g.plane(); p++) idx.push_back(k * g.plane() + p);
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)idx.size(), idx.data(), PETSC_COPY_VALUES, &is));
  PetscCall(VecCreate(PETSC_COMM_SELF, w));
  PetscCall(VecSetSizes(*w, (PetscInt)idx.size(), (PetscInt)idx.size()));
  PetscCall(VecSetType(*w, seq_type));
  PetscCall(VecScatterCreate(x, is, *w, NULL, sc));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(0);
}

PetscErrorCode Measure(MPI_Comm comm, const Options &o, const char *type, const Grid &g, const std::vector<PetscInt> &ia, const std::vector<PetscInt> &ja, const std::vector<PetscScalar> &va, Vec x, Vec b, Result *r)
{
  Mat            A;
  KSP            ksp;
  PC             pc;
  PetscLogDouble t0, t1;
  PetscMPIInt    size;
  PetscReal      nb;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* set-up: assembly, the first product (aij(cusparse) copies to the GPU there, diag at assembly end) */
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(Assemble(comm, type, o.vec_type, g, ia, ja, va, &A));
  PetscCall(VecDuplicate(b, &r->y));
  PetscCall(MatMult(A, x, r->y));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  r->setup = t1 - t0;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &r->setup, 1, MPI_DOUBLE, MPI_MAX, comm));

  PetscCall(TimeReps(comm, 5, o.reps, [&]() { return MatMult(A, x, r->y); }, &r->mult, &r->mult_mean));

  if (size > 1) { /* how much of the exchange MatMult hides */
    Mat        Ad;
    Vec        xl, yl, w;
    VecScatter sc;
    PetscInt   m;
    double     mean;
    const char *seq_type = std::string(o.vec_type) == "cuda" ? VECSEQCUDA : VECSEQ;
    PetscCall(MatGetDiagonalBlock(A, &Ad));
    PetscCall(MatGetLocalSize(A, &m, NULL));
    for (Vec *v : {&xl, &yl}) {
      PetscCall(VecCreate(PETSC_COMM_SELF, v));
      PetscCall(VecSetSizes(*v, m, m));
      PetscCall(VecSetType(*v, seq_type));
    }
    auto local = [&]() -> PetscErrorCode {
      PetscCall(VecGetLocalVectorRead(x, xl));
      PetscCall(VecGetLocalVector(r->y, yl));
      PetscCall(MatMult(Ad, xl, yl));
      PetscCall(VecRestoreLocalVector(r->y, yl));
      PetscCall(VecRestoreLocalVectorRead(x, xl));
      return 0;
    };
    PetscCall(TimeReps(comm, 5, o.reps, local, &r->local, &mean));
    PetscCall(MakeHaloScatter(x, g, seq_type, &w, &sc));
    PetscBool isdiag;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATMPIDIAG, MATMPIDIAGCUDA, ""));
    /* diag: its own product's exchange (with CUDA vectors through pinned host
       memory unless -mat_diag_pinned_halo false); aij: PETSc's VecScatter of
       the same two planes, as its product does */
    auto exchange = [&]() -> PetscErrorCode {
      if (isdiag) PetscCall(MatDiagGhostExchange(A, x));
      else {
        PetscCall(VecScatterBegin(sc, x, w, INSERT_VALUES, SCATTER_FORWARD));
        PetscCall(VecScatterEnd(sc, x, w, INSERT_VALUES, SCATTER_FORWARD));
      }
      return 0;
    };
    PetscCall(TimeReps(comm, 5, o.reps, exchange, &r->scatter, &mean));
    r->hidden = r->scatter > 0 ? std::min(1.0, std::max(0.0, (r->local + r->scatter - r->mult) / r->scatter)) : 0.0;
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&xl));
    PetscCall(VecDestroy(&yl));
    PetscCall(MatMult(A, x, r->y)); /* y as the product left it */
  }

  /* CG + Jacobi, a fixed number of iterations */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, 1e30, 5));
  PetscCall(VecDuplicate(b, &r->x));
  PetscCall(KSPSolve(ksp, b, r->x)); /* untimed: PCSetUp, work vectors */
  PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, 1e30, o.its));
  PetscCall(VecSet(r->x, 0.0));
  PetscCall(Sync());
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, r->x));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &r->cg_its));
  r->cg_it = (t1 - t0) / (double)std::max<PetscInt>(1, r->cg_its);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &r->cg_it, 1, MPI_DOUBLE, MPI_MAX, comm));
  {
    Vec res;
    PetscReal nr;
    PetscCall(VecDuplicate(b, &res));
    PetscCall(MatMult(A, r->x, res));
    PetscCall(VecAYPX(res, -1.0, b));
    PetscCall(VecNorm(res, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    r->relres = nr / nb;
    PetscCall(VecDestroy(&res));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* max |u - v| / max |v| */
PetscErrorCode MaxRelDiff(Vec u, Vec v, double *d)
{
  Vec       w;
  PetscReal nw, nv;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(u, &w));
  PetscCall(VecWAXPY(w, -1.0, v, u));
  PetscCall(VecNorm(w, NORM_INFINITY, &nw));
  PetscCall(VecNorm(v, NORM_INFINITY, &nv));
  *d = nv > 0 ? nw / nv : nw;
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(0);
}

PetscErrorCode RunCase(const Options &o, const char *name, PetscInt n, PetscInt nx, PetscInt ny, PetscInt nz, PetscBool *ok)
{
  MPI_Comm                 comm = PETSC_COMM_WORLD;
  PetscMPIInt              rank, size;
  std::vector<PetscInt>    ia, ja;
  std::vector<PetscScalar> va;
  Vec                      x, b;
  Result                   res[2];
  PetscLogDouble           t0, t1;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(nz >= size, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s case: %" PetscInt_FMT " z planes for %d processes (each needs one)", name, nz, size);
  const Grid g = Slabs(nx, ny, nz, rank, size);
  PetscCall(PetscTime(&t0));
  PetscCall(BuildCSR(g, &ia, &ja, &va));
  PetscCall(PetscTime(&t1));
  PetscCall(VecCreate(comm, &x));
  PetscCall(VecSetSizes(x, g.rows(), PETSC_DETERMINE));
  PetscCall(VecSetType(x, o.vec_type));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(FillByIndex(x, 1));
  PetscCall(FillByIndex(b, 2));
  const double rows = (double)nx * ny * nz;
  PetscCall(PetscPrintf(comm, "%s scaling: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (%.0f rows, %.0f per process), %d process(es), CSR rows built in %.2f s\n", name, nx, ny, nz, rows, rows / size, size, t1 - t0));
  for (int t = 0; t < 2; t++) PetscCall(Measure(comm, o, o.types[t], g, ia, ja, va, x, b, &res[t]));
  std::vector<PetscInt>().swap(ia);
  std::vector<PetscInt>().swap(ja);
  std::vector<PetscScalar>().swap(va);

  double mult_diff, x_diff;
  PetscCall(MaxRelDiff(res[0].y, res[1].y, &mult_diff));
  PetscCall(MaxRelDiff(res[0].x, res[1].x, &x_diff));
  const double res_diff = std::abs(res[0].relres - res[1].relres) / std::max(res[1].relres, 1e-300);
  const double nnz      = 7.0 * rows - 2.0 * ((double)nx * ny + (double)nx * nz + (double)ny * nz); /* 7 per point less the neighbours beyond the 6 faces */
  for (int t = 0; t < 2; t++) {
    const Result &r = res[t];
    PetscCall(PetscPrintf(comm, "  %-12s setup %8.3f s  MatMult median %10.3f us (mean %10.3f)  CG+Jacobi %10.3f us/it (%" PetscInt_FMT " its, rel. residual %.6e)\n", o.types[t], r.setup, 1e6 * r.mult, 1e6 * r.mult_mean, 1e6 * r.cg_it, r.cg_its, r.relres));
    if (size > 1) PetscCall(PetscPrintf(comm, "  %-12s exchange alone %10.3f us, local block product %10.3f us: %.0f%% of the exchange hidden\n", o.types[t], 1e6 * r.scatter, 1e6 * r.local, 100.0 * r.hidden));
  }
  PetscCall(PetscPrintf(comm, "  ratio %s/%s: MatMult %.2fx, CG iteration %.2fx; MatMult max rel diff %.2e, CG residuals differ by %.2e (rel.), solutions by %.2e\n", o.types[1], o.types[0], res[1].mult / res[0].mult, res[1].cg_it / res[0].cg_it, mult_diff, res_diff, x_diff));
  /* one machine-readable line per format */
  for (int t = 0; t < 2; t++) {
    const Result &r = res[t];
    PetscCall(PetscPrintf(comm, "SCALING case=%s np=%d format=%s n=%" PetscInt_FMT " rows=%.0f nnz=%.0f setup_s=%.6e mult_s=%.6e mult_mean_s=%.6e cg_it_s=%.6e cg_its=%" PetscInt_FMT " relres=%.10e local_s=%.6e exchange_s=%.6e hidden=%.4f mult_reldiff=%.3e cg_resdiff=%.3e x_reldiff=%.3e\n", name, size, o.types[t], n, rows, nnz, r.setup, r.mult, r.mult_mean, r.cg_it, r.cg_its, r.relres, r.local, r.scatter, r.hidden, mult_diff, res_diff, x_diff));
    if (o.csv[0]) {
      FILE *f;
      PetscCall(PetscFOpen(comm, o.csv, "a", &f));
      PetscCall(PetscFPrintf(comm, f, "%s,%d,%s,%" PetscInt_FMT ",%.0f,%.0f,%.6e,%.6e,%.6e,%.6e,%" PetscInt_FMT ",%.10e,%.6e,%.6e,%.4f,%.3e,%.3e,%.3e\n", name, size, o.types[t], n, rows, nnz, r.setup, r.mult, r.mult_mean, r.cg_it, r.cg_its, r.relres, r.local, r.scatter, r.hidden, mult_diff, res_diff, x_diff));
      PetscCall(PetscFClose(comm, f));
    }
  }
  /* tolerances: 7 terms summed in another order (MatMult); 200 CG iterations amplify rounding, but not to 1e-6
     (residuals near rounding, a converged tiny case, need only both be near it) */
  const bool good = mult_diff <= 1e-12 && std::abs(res[0].relres - res[1].relres) <= 1e-6 * res[1].relres + 1e-12 && res[0].cg_its == o.its && res[1].cg_its == o.its;
  if (!good) PetscCall(PetscPrintf(comm, "  FAILED: %s and %s disagree (MatMult %.2e > 1e-12, or CG residual %.2e > 1e-6, or iterations %" PetscInt_FMT "/%" PetscInt_FMT " != %" PetscInt_FMT ")\n", o.types[0], o.types[1], mult_diff, res_diff, res[0].cg_its, res[1].cg_its, o.its));
  if (!good) *ok = PETSC_FALSE;
  for (Result &r : res) {
    PetscCall(VecDestroy(&r.x));
    PetscCall(VecDestroy(&r.y));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Options     o;
  PetscMPIInt size;
  PetscBool   flg, ok = PETSC_TRUE;
  char        which[16] = "both";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-weak_n", &o.weak_n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-strong_n", &o.strong_n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &o.reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &o.its, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof(which), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bench_vec_type", o.vec_type, sizeof(o.vec_type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", o.csv, sizeof(o.csv), NULL));
  {
    char    *list[2];
    PetscInt nt = 2;
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", list, &nt, &flg));
    if (flg) {
      PetscCheck(nt == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-types needs two matrix types");
      for (int t = 0; t < 2; t++) {
        PetscCall(PetscStrncpy(o.types[t], list[t], sizeof(o.types[t])));
        PetscCall(PetscFree(list[t]));
      }
    }
  }
  const std::string c(which);
  PetscCheck(c == "weak" || c == "strong" || c == "both", PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-case %s: weak, strong or both", which);
  PetscCheck(o.weak_n > 0 && o.strong_n > 0 && o.reps > 0 && o.its > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-weak_n, -strong_n, -reps and -its must be positive");
#if defined(PDIAG_PETSC_CUDA)
  { /* CUDA vectors without a GPU: skipped (ctest's SKIP_RETURN_CODE), not failed */
    int ndev = 0;
    if (std::string(o.vec_type) == "cuda" && (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_scaling: SKIPPED: no CUDA device for -bench_vec_type cuda\n"));
      PetscCall(PetscFinalize());
      return 77;
    }
  }
#endif
  g_device = std::string(o.vec_type) != VECSTANDARD && std::string(o.vec_type) != VECSEQ && std::string(o.vec_type) != VECMPI;
  o.weak   = c != "strong" ? PETSC_TRUE : PETSC_FALSE;
  o.strong = c != "weak" ? PETSC_TRUE : PETSC_FALSE;
  if (o.weak) PetscCall(RunCase(o, "weak", o.weak_n, o.weak_n, o.weak_n, o.weak_n * size, &ok));
  if (o.strong) PetscCall(RunCase(o, "strong", o.strong_n, o.strong_n, o.strong_n, o.strong_n, &ok));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
