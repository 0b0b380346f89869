static const char help[] = "Times assembly and MatMult of a DMDA stencil operator for two matrix types in the same run.\n"
                           "  -dim <2,3>  -stencil <star,box>  -n <points per direction>  -coef <random,constant,symmetric>\n"
                           "  -types <diag,aij>   matrix types to compare (first is ours, second the peer)\n"
                           "  -reps <k>           timed products (median reported)   -csv <file> append results\n"
                           "  -sor                also time MatSOR, one symmetric sweep with a zero initial guess (PCSOR's apply)\n"
                           "  -sor_reps <k>       timed sweeps (median reported, default 5); diag's also with the other -mat_diag_cuda_graphs\n"
                           "  -ilu                also time ILU(0) (PCILU, natural ordering, one process): the numeric factorization, the first\n"
                           "                      MatSolve after it (diag: with the factor's upload, event MatDiagFactToGPU, which\n"
                           "                      turns PETSc's logging on), MatSolve and PCApply (medians of -ilu_reps, default 5);\n"
                           "                      diag's MatSolve also with the other -mat_diag_factor_tiles (tiled vs level-scheduled passes),\n"
                           "                      its numeric factorization also with the other -mat_diag_device_ilu_numeric (device vs host)\n"
                           "Vectors follow -vec_type (cuda puts x and y on the GPU).\n";

/* Each type assembles the same operator with MatSetValuesStencil (the way a
   PETSc user does), then MatMult is warmed up and timed rep by rep with a
   device synchronisation (PetscDeviceContext) so GPU products are complete.
   The median is reported, with the ratio peer / ours. */

#include "paper_matrices.hpp"

#include <petscdiag.h>
#include <petscdevice.h>
#include <petscdmda.h>
#include <petscksp.h>
#include <petsctime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

struct Options {
  PetscInt  dim = 3, n = 64, reps = 50;
  PetscInt  random_diagonals = 0; /* > 0: an n x n matrix with this many random diagonals (paper style) instead of a stencil */
  PetscBool box = PETSC_FALSE, constant = PETSC_FALSE, symmetric = PETSC_FALSE, sor = PETSC_FALSE;
  PetscInt  sor_reps = 5, ilu_reps = 5;
  PetscBool ilu = PETSC_FALSE;
  char      types[2][64] = {"diag", "aij"};
  char      csv[PETSC_MAX_PATH_LEN] = "";
};

/* A coefficient in (1, 2) from the point index: the same on every run and rank. */
PetscScalar Coef(PetscInt i, PetscInt j, PetscInt k, PetscInt q, PetscBool constant)
{
  if (constant) return 1.0;
  unsigned long h = (unsigned long)(i * 73856093L) ^ (unsigned long)(j * 19349663L) ^ (unsigned long)(k * 83492791L) ^ (unsigned long)(q * 2654435761L);
  h ^= h >> 13;
  h *= 0x5bd1e995UL;
  h ^= h >> 15;
  return 1.0 + (PetscScalar)(h % 1000003UL) / 1000003.0;
}

PetscErrorCode AssembleStencil(DM da, Mat A, const Options &o)
{
  DMDALocalInfo info;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  const PetscInt zs = o.dim == 3 ? info.zs : 0, zm = o.dim == 3 ? info.zm : 1, kz = o.dim == 3 ? 1 : 0;
  std::vector<MatStencil>  cols;
  std::vector<PetscScalar> vals;
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil row = {k, j, i, 0};
        cols.clear();
        vals.clear();
        PetscScalar diag = 0;
        PetscInt    q    = 0;
        for (PetscInt dk = -kz; dk <= kz; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++, q++) {
              const PetscInt nz = (di != 0) + (dj != 0) + (dk != 0);
              if (nz == 0 || (!o.box && nz > 1)) continue;
              const PetscInt ii = i + di, jj = j + dj, kk = k + dk;
              if (ii < 0 || jj < 0 || kk < 0 || ii >= info.mx || jj >= info.my || (o.dim == 3 && kk >= info.mz)) continue;
              /* symmetric: the coupling's value from the pair, named by its
                 first point (in row order) and the step from it (q, or the
                 opposite step qmax - q from the neighbour) */
              const bool        after = o.symmetric && (dk > 0 || (dk == 0 && (dj > 0 || (dj == 0 && di > 0))));
              const PetscScalar c     = !o.symmetric ? Coef(i, j, k, q, o.constant) : after ? Coef(i, j, k, q, PETSC_FALSE) : Coef(ii, jj, kk, (kz ? 26 : 8) - q, PETSC_FALSE);
              cols.push_back({kk, jj, ii, 0});
              vals.push_back(-c);
              diag += c;
            }
        cols.push_back(row);
        vals.push_back(diag + 1.0);
        PetscCall(MatSetValuesStencil(A, 1, &row, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

struct Result {
  double assembly = 0, mult = 0, multt = 0, norm = 0, stored = 0, sor = 0, sor_norm = 0;
  /* -ilu: PCSetUp (symbolic + numeric), one more numeric factorization, the
     first MatSolve after it, the factor's upload within it (diag's event
     MatDiagFactToGPU; 0 for others: aijcusparse uploads in its numeric
     phase), the median MatSolve and PCApply, |MatSolve's result| */
  double ilu_setup = 0, ilu_numeric = 0, ilu_first = 0, ilu_upload = 0, ilu_solve = 0, ilu_apply = 0, ilu_norm = 0;
  /* -ilu: the median MatSolve with -mat_diag_factor_tiles the other way
     (diag's GPU solves: tiled or level-scheduled; ilu_tiles: whether
     ilu_solve had the tiles) and |its result| */
  double    ilu_solve_other = 0, ilu_norm_other = 0;
  PetscBool ilu_tiles = PETSC_TRUE;
  /* -ilu: the numeric factorization with -mat_diag_device_ilu_numeric the other
     way (on the device or the host; ilu_numeric_device: whether ilu_numeric
     was on the device) and |MatSolve's result| with that factor */
  double    ilu_numeric_other = 0, ilu_norm_numeric_other = 0;
  PetscBool ilu_numeric_device = PETSC_TRUE;
  /* -sor: the same for MatSOR */
  double    sor_other = 0, sor_norm_other = 0;
  PetscBool sor_graphs = PETSC_TRUE;
};

/* The time of `run` once, synchronised. */
template <class Run>
PetscErrorCode TimeOnce(Run &&run, double *t)
{
  PetscDeviceContext dctx;
  PetscLogDouble     t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCall(PetscTime(&t0));
  PetscCall(run());
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCall(PetscTime(&t1));
  *t = t1 - t0;
  PetscFunctionReturn(0);
}

/* The median of reps synchronised runs of `run`. */
template <class Run>
PetscErrorCode TimeMedian(Run &&run, PetscInt reps, double *t)
{
  std::vector<double> times((std::size_t)std::max<PetscInt>(reps, 1));

  PetscFunctionBeginUser;
  for (double &ti : times) PetscCall(TimeOnce(run, &ti));
  std::sort(times.begin(), times.end());
  *t = times[times.size() / 2];
  PetscFunctionReturn(0);
}

/* Seconds logged so far for the event `name` in the main stage (0 if none). */
PetscErrorCode EventTime(const char *name, double *t)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
  *t = info.time;
  PetscFunctionReturn(0);
}

/* The median of reps runs of `run` with the boolean option `name` the other
   way (diag reads -mat_diag_cuda_graphs and -mat_diag_factor_tiles at every
   MatSolve / MatSOR; *value: the user's setting, default true), after one
   warm-up run (a graph's recording, a schedule's upload), |y| after them,
   then the user's setting back. */
template <class Run>
PetscErrorCode OtherSetting(const char name[], Run &&run, PetscInt reps, Vec y, PetscBool *value, double *t, double *norm)
{
  PetscBool set = PETSC_FALSE;

  PetscFunctionBeginUser;
  *value = PETSC_TRUE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, name, value, &set));
  PetscCall(PetscOptionsSetValue(NULL, name, *value ? "0" : "1"));
  PetscCall(run());
  PetscCall(TimeMedian(run, reps, t));
  PetscCall(VecNorm(y, NORM_2, norm));
  if (set) PetscCall(PetscOptionsSetValue(NULL, name, *value ? "1" : "0"));
  else PetscCall(PetscOptionsClearValue(NULL, name));
  PetscFunctionReturn(0);
}

/* -ilu: PCILU on A (ILU(0), natural ordering; diag: its factor on the
   diagonals, solved on the device with CUDA vectors; aijcusparse:
   cuSPARSE's), timed as Result says. */
PetscErrorCode MeasureILU(Mat A, Vec x, Vec y, const Options &o, bool diag, Result *r)
{
  PC            pc;
  Mat           F;
  MatFactorInfo info;
  double        up0, up1;

  PetscFunctionBeginUser;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCILU));
  PetscCall(TimeOnce([&]() { return PCSetUp(pc); }, &r->ilu_setup));
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscCall(MatFactorInfoInitialize(&info));
  info.fill      = 1.0; /* PCILU's defaults: zero levels, no shift */
  info.zeropivot = 100 * PETSC_MACHINE_EPSILON;
  PetscCall(TimeOnce([&]() { return MatLUFactorNumeric(F, A, &info); }, &r->ilu_numeric));
  PetscCall(EventTime("MatDiagFactToGPU", &up0));
  PetscCall(TimeOnce([&]() { return MatSolve(F, x, y); }, &r->ilu_first));
  PetscCall(EventTime("MatDiagFactToGPU", &up1));
  r->ilu_upload = up1 - up0;
  PetscCall(TimeMedian([&]() { return MatSolve(F, x, y); }, o.ilu_reps, &r->ilu_solve));
  PetscCall(VecNorm(y, NORM_2, &r->ilu_norm));
  PetscCall(TimeMedian([&]() { return PCApply(pc, x, y); }, o.ilu_reps, &r->ilu_apply));
  if (diag) {
    double unused;
    PetscCall(OtherSetting("-mat_diag_factor_tiles", [&]() { return MatSolve(F, x, y); }, o.ilu_reps, y, &r->ilu_tiles, &r->ilu_solve_other, &r->ilu_norm_other));
    /* the numeric factorization the other way (one timed after one warm-up), then a solve with its factor */
    PetscCall(OtherSetting("-mat_diag_device_ilu_numeric", [&]() { return MatLUFactorNumeric(F, A, &info); }, 1, y, &r->ilu_numeric_device, &r->ilu_numeric_other, &unused));
    PetscCall(MatSolve(F, x, y));
    PetscCall(VecNorm(y, NORM_2, &r->ilu_norm_numeric_other));
  }
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(0);
}

/* Median time of one product (op 0: MatMult, 1: MatMultTranspose, 2: MatSOR
   as PCSOR applies it: y = one local symmetric sweep on A y = x from a zero
   initial guess, omega 1), synchronised. */
PetscErrorCode Median(Mat A, Vec x, Vec y, int op, PetscInt reps, double *t)
{
  PetscDeviceContext  dctx;
  std::vector<double> times;
  PetscLogDouble      t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  auto run = [&]() { return op == 2 ? MatSOR(A, x, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, y) : op ? MatMultTranspose(A, x, y) : MatMult(A, x, y); };
  for (PetscInt w = 0; w < (op == 2 ? 1 : 5); w++) PetscCall(run()); /* warm-up: copies, scatters, caches (SOR: its level schedule) */
  PetscCall(PetscDeviceContextSynchronize(dctx));
  for (PetscInt rep = 0; rep < reps; rep++) {
    PetscCall(PetscTime(&t0));
    PetscCall(run());
    PetscCall(PetscDeviceContextSynchronize(dctx));
    PetscCall(PetscTime(&t1));
    times.push_back(t1 - t0);
  }
  std::sort(times.begin(), times.end());
  *t = times[times.size() / 2];
  PetscFunctionReturn(0);
}

PetscErrorCode Measure(DM da, const char *type, const Options &o, Vec x, Result *r)
{
  Mat            A;
  Vec            y;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  if (o.random_diagonals > 0) {
    PetscCall(bench::CreateRandomDiagonals(PETSC_COMM_WORLD, type, o.n, bench::RandomOffsets(o.n, o.random_diagonals, 12345), 777, &A));
  } else {
    PetscCall(DMSetMatType(da, type));
    PetscCall(DMCreateMatrix(da, &A));
    PetscCall(AssembleStencil(da, A, o));
  }
  PetscCall(PetscTime(&t1));
  r->assembly = t1 - t0;
  PetscCall(VecDuplicate(x, &y));
  const bool diag = !std::string(type).compare(0, 4, "diag"); /* only diag reads -mat_diag_cuda_graphs */
  if (o.ilu) PetscCall(MeasureILU(A, x, y, o, diag, r));
  if (o.sor) {
    PetscCall(Median(A, x, y, 2, o.sor_reps, &r->sor));
    PetscCall(VecNorm(y, NORM_2, &r->sor_norm));
    if (diag) PetscCall(OtherSetting("-mat_diag_cuda_graphs", [&]() { return MatSOR(A, x, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 1, 1, y); }, o.sor_reps, y, &r->sor_graphs, &r->sor_other, &r->sor_norm_other));
  }
  PetscCall(Median(A, x, y, 1, o.reps, &r->multt));
  PetscCall(Median(A, x, y, 0, o.reps, &r->mult));
  PetscCall(VecNorm(y, NORM_2, &r->norm));
  {
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    r->stored = info.nz_used;
  }
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  Options     o;
  DM          da;
  Vec         x;
  PetscMPIInt size;
  PetscBool   flg;
  char        stencil[16] = "star", coef[16] = "random";
  Result      res[2];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &o.dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &o.n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &o.reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-random_diagonals", &o.random_diagonals, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-stencil", stencil, sizeof(stencil), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-coef", coef, sizeof(coef), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", o.csv, sizeof(o.csv), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-sor", &o.sor, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sor_reps", &o.sor_reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ilu", &o.ilu, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ilu_reps", &o.ilu_reps, NULL));
  PetscCheck(!o.ilu || size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-ilu times PCILU, which is sequential: run it on one process");
  if (o.ilu) PetscCall(PetscLogDefaultBegin()); /* for the upload event's time */
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
  o.box      = std::string(stencil) == "box" ? PETSC_TRUE : PETSC_FALSE;
  o.constant  = std::string(coef) == "constant" ? PETSC_TRUE : PETSC_FALSE;
  o.symmetric = std::string(coef) == "symmetric" ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(o.constant || o.symmetric || std::string(coef) == "random", PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-coef must be random, constant or symmetric, not %s", coef);
  da = NULL;
  if (o.random_diagonals == 0) {
    if (o.dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, o.box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, o.n, o.n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
    else
      PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, o.box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, o.n, o.n, o.n, 1, 1, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetFromOptions(da));
    PetscCall(DMSetUp(da));
  }
  if (o.random_diagonals > 0) {
    PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
    PetscCall(VecSetSizes(x, PETSC_DECIDE, o.n));
    PetscCall(VecSetFromOptions(x));
  } else PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecSetRandom(x, NULL));
  /* one untimed round of each type first: process warm-up (first-touch page
     faults, library and device initialisation) is charged to neither */
  for (int t = 0; t < 2; t++) PetscCall(Measure(da, o.types[t], o, x, &res[t]));
  for (int t = 0; t < 2; t++) PetscCall(Measure(da, o.types[t], o, x, &res[t]));
  /* the device's (or host's) copy bandwidth on the same vectors: bytes read + written */
  double copy_time;
  {
    Vec                 y;
    PetscDeviceContext  dctx;
    std::vector<double> times;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(VecDuplicate(x, &y));
    for (PetscInt rep = 0; rep < o.reps + 5; rep++) {
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      PetscCall(VecCopy(x, y));
      PetscCall(PetscDeviceContextSynchronize(dctx));
      PetscCall(PetscTime(&t1));
      if (rep >= 5) times.push_back(t1 - t0);
    }
    std::sort(times.begin(), times.end());
    copy_time = times[times.size() / 2];
    PetscCall(VecDestroy(&y));
  }

  const PetscInt npoints  = o.random_diagonals > 0 ? o.n : (o.dim == 3 ? o.n * o.n * o.n : o.n * o.n);
  const int      points   = o.random_diagonals > 0 ? (int)o.random_diagonals : (o.dim == 2 ? (o.box ? 9 : 5) : (o.box ? 27 : 7));
  const double   agree    = PetscAbsReal(res[0].norm - res[1].norm) / res[1].norm;
  if (o.random_diagonals > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "random structured sparse, %d diagonals within +-n/4, n=%" PetscInt_FMT ", %d rank(s)\n", points, o.n, size));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT "D %d-point %s coefficients, n=%" PetscInt_FMT " (%" PetscInt_FMT " rows), %d rank(s)\n", o.dim, points, coef, o.n, npoints, size));
  for (int t = 0; t < 2; t++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-12s assembly %9.4f s   MatMult median %10.3f us   MatMultTranspose median %10.3f us\n", o.types[t], res[t].assembly, 1e6 * res[t].mult, 1e6 * res[t].multt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ratio %s/%s: MatMult %.2fx, MatMultTranspose %.2fx, assembly %.2fx   (|y| agree to %.1e)\n", o.types[1], o.types[0], res[1].mult / res[0].mult, res[1].multt / res[0].multt,
                        res[1].assembly / res[0].assembly, agree));
  const double sor_agree = o.sor ? PetscAbsReal(res[0].sor_norm - res[1].sor_norm) / res[1].sor_norm : 0.0;
  if (o.sor)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatSOR (one symmetric sweep, zero initial guess) median: %s %10.3f ms   %s %10.3f ms   ratio %.2fx   (|x| agree to %.1e)\n", o.types[0], 1e3 * res[0].sor, o.types[1], 1e3 * res[1].sor, res[1].sor / res[0].sor, sor_agree));
  const bool   diag0           = !std::string(o.types[0]).compare(0, 4, "diag"); /* the other -mat_diag_cuda_graphs timed */
  const double sor_other_agree = o.sor && diag0 ? PetscAbsReal(res[0].sor_norm_other - res[0].sor_norm) / res[0].sor_norm : 0.0;
  if (o.sor && diag0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  MatSOR %-12s median: CUDA graphs %9.3f ms   one launch per level %9.3f ms   (-mat_diag_cuda_graphs; host vectors: neither; |x| agree to %.1e)\n", o.types[0], 1e3 * (res[0].sor_graphs ? res[0].sor : res[0].sor_other),
                          1e3 * (res[0].sor_graphs ? res[0].sor_other : res[0].sor), sor_other_agree));
  const double ilu_agree = o.ilu ? PetscAbsReal(res[0].ilu_norm - res[1].ilu_norm) / res[1].ilu_norm : 0.0;
  const double ilu_other_agree = o.ilu && diag0 ? PetscAbsReal(res[0].ilu_norm_other - res[0].ilu_norm) / res[0].ilu_norm : 0.0;
  const double ilu_numeric_agree = o.ilu && diag0 ? PetscAbsReal(res[0].ilu_norm_numeric_other - res[0].ilu_norm) / res[0].ilu_norm : 0.0;
  if (o.ilu && diag0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ILU(0) %-12s numeric factorization: device %9.4f s   host %9.4f s   (-mat_diag_device_ilu_numeric; host vectors: host both times; |x| agree to %.1e)\n", o.types[0],
                          res[0].ilu_numeric_device ? res[0].ilu_numeric : res[0].ilu_numeric_other, res[0].ilu_numeric_device ? res[0].ilu_numeric_other : res[0].ilu_numeric, ilu_numeric_agree));
  if (o.ilu) {
    if (diag0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ILU(0) %-12s MatSolve median: tiled %9.3f ms   level-scheduled %9.3f ms   (-mat_diag_factor_tiles; host vectors: neither; |x| agree to %.1e)\n", o.types[0], 1e3 * (res[0].ilu_tiles ? res[0].ilu_solve : res[0].ilu_solve_other),
                            1e3 * (res[0].ilu_tiles ? res[0].ilu_solve_other : res[0].ilu_solve), ilu_other_agree));
    for (int t = 0; t < 2; t++)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ILU(0) %-12s PCSetUp %9.4f s   numeric factorization %9.4f s   first MatSolve %9.3f ms (factor upload %9.3f ms)   MatSolve median %9.3f ms   PCApply median %9.3f ms\n", o.types[t], res[t].ilu_setup, res[t].ilu_numeric,
                            1e3 * res[t].ilu_first, 1e3 * res[t].ilu_upload, 1e3 * res[t].ilu_solve, 1e3 * res[t].ilu_apply));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ILU(0) ratio %s/%s: MatSolve %.2fx, PCApply %.2fx, numeric factorization %.2fx   (|x| agree to %.1e)\n", o.types[1], o.types[0], res[1].ilu_solve / res[0].ilu_solve, res[1].ilu_apply / res[0].ilu_apply,
                          res[1].ilu_numeric / res[0].ilu_numeric, ilu_agree));
  }
  if (o.csv[0]) {
    FILE *f;
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, o.csv, "a", &f));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%" PetscInt_FMT ",%d,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%d,%s,%.6e,%.6e,%.6e,%s,%.6e,%.6e,%.6e,%.3e\n", o.dim, points, coef, o.n, npoints, size, o.types[0], res[0].assembly, res[0].mult,
                           res[0].multt, o.types[1], res[1].assembly, res[1].mult, res[1].multt, agree));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  {
    const double copy_bw = 16.0 * (double)npoints / copy_time;
    const double diag_bytes = 8.0 * (res[0].stored + 2.0 * (double)npoints); /* values + x + y once each */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  copy bandwidth %.1f GB/s; %s MatMult moves %.3g MB (values + x + y) at %.1f GB/s = %.0f%% of copy\n", 1e-9 * copy_bw, o.types[0], 1e-6 * diag_bytes, 1e-9 * diag_bytes / res[0].mult,
                          100.0 * diag_bytes / res[0].mult / copy_bw));
  }
  PetscCheck(agree < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the two types give different products (%.3e)", agree);
  PetscCheck(ilu_agree < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the two types give different ILU(0) solves (%.3e)", ilu_agree);
  PetscCheck(ilu_other_agree < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "-mat_diag_factor_tiles 0 and 1 give different ILU(0) solves (%.3e)", ilu_other_agree);
  PetscCheck(ilu_numeric_agree < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "-mat_diag_device_ilu_numeric 0 and 1 give different ILU(0) factors (%.3e)", ilu_numeric_agree);
  PetscCheck(sor_agree < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the two types give different SOR sweeps (%.3e)", sor_agree);
  PetscCheck(sor_other_agree < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "-mat_diag_cuda_graphs 0 and 1 give different SOR sweeps (%.3e)", sor_other_agree);
  PetscCall(VecDestroy(&x));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
