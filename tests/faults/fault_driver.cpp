/* fault_driver <case>: runs one fault-injection case of the diag Mat types
   (docs/reliability.md) and reports, on every process, how it ended:
     faults: rank R of P: case C: ok | error E
   run_faults.py starts it under mpiexec with a time and memory limit and
   judges the outcome against the case's expectation (run_faults.py -list
   shows them): every process ends in a PETSc error (collective faults,
   even when only one process has the bad argument), the faulted process
   ends in an error (faults of operations that are not collective), or the
   result is correct (checked here: a wrong one is reported as
   "wrong answer" and exit code 3). Objects a case creates are registered
   and destroyed after it, whether it failed or not, so that the sanitizer
   run's leak check sees only what the library leaves behind. */
#include <petscdiag.h>
#include <petscis.h>

#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

struct Ctx {
  PetscMPIInt              rank = 0, size = 1;
  std::vector<Mat>         mats;
  std::vector<Vec>         vecs;
  std::vector<IS>          iss;
  std::vector<PetscViewer> viewers;
  bool                     last() const { return rank == size - 1; }
  Mat                     &mat()
  {
    mats.push_back(NULL);
    return mats.back();
  }
  Vec &vec()
  {
    vecs.push_back(NULL);
    return vecs.back();
  }
  void clear()
  {
    for (Mat &m : mats) (void)MatDestroy(&m);
    for (Vec &v : vecs) (void)VecDestroy(&v);
    for (IS &i : iss) (void)ISDestroy(&i);
    for (PetscViewer &v : viewers) (void)PetscViewerDestroy(&v);
    mats.clear();
    vecs.clear();
    iss.clear();
    viewers.clear();
  }
};

/* A wrong result: the case fails with this marker (exit code 3). */
#define WRONG(...) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "faults: wrong answer: " __VA_ARGS__)

/* The mats/vecs vectors may reallocate: cases keep indices, not references,
   across registrations. These helpers create and register in one step. */
PetscErrorCode NewDiag(Ctx &c, PetscInt n, PetscInt ndiag, const PetscInt *offs, Mat *A)
{
  PetscFunctionBeginUser;
  c.mats.push_back(NULL);
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, ndiag, offs, &c.mats.back()));
  *A = c.mats.back();
  PetscFunctionReturn(0);
}

/* Tridiagonal (2, -1, -1 plus a column term) n x n of type t, assembled. */
PetscErrorCode NewTri(Ctx &c, MatType t, PetscInt n, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  c.mats.push_back(NULL);
  PetscCall(MatCreate(PETSC_COMM_WORLD, &c.mats.back()));
  *A = c.mats.back();
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, t));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0 - 0.01 * i, INSERT_VALUES));
    PetscCall(MatSetValue(*A, i, i, 4.0 + 0.1 * i, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -1.5, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* Symmetric tridiagonal of type t. */
PetscErrorCode NewSymTri(Ctx &c, MatType t, PetscInt n, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  c.mats.push_back(NULL);
  PetscCall(MatCreate(PETSC_COMM_WORLD, &c.mats.back()));
  *A = c.mats.back();
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, t));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, i, i, 4.0 + 0.1 * i, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode NewVec(Ctx &c, PetscInt nloc, PetscInt N, Vec *v)
{
  PetscFunctionBeginUser;
  c.vecs.push_back(NULL);
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nloc, N, &c.vecs.back()));
  *v = c.vecs.back();
  PetscCall(VecSet(*v, 1.0));
  PetscFunctionReturn(0);
}

/* A vector of N entries split differently from PETSc's default (one entry
   moved from the first process to the last): same global size, wrong layout. */
PetscErrorCode NewSkewedVec(Ctx &c, PetscInt N, Vec *v)
{
  PetscInt n = PETSC_DECIDE;

  PetscFunctionBeginUser;
  PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &n, &N));
  if (c.size > 1) n += c.rank == 0 ? -1 : (c.last() ? 1 : 0);
  PetscCall(NewVec(c, n, N, v));
  PetscFunctionReturn(0);
}

/* ||A x - B x|| / ||B x|| <= 1e-12 for x of entries 1 + i/N. */
PetscErrorCode SameOperator(Ctx &c, Mat A, Mat B, const char *what)
{
  Vec       x, y, z;
  PetscReal nd, nz;
  PetscInt  N;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(B, NULL, &N));
  c.vecs.push_back(NULL);
  PetscCall(MatCreateVecs(B, &c.vecs.back(), NULL));
  x = c.vecs.back();
  c.vecs.push_back(NULL);
  PetscCall(MatCreateVecs(B, NULL, &c.vecs.back()));
  y = c.vecs.back();
  c.vecs.push_back(NULL);
  PetscCall(VecDuplicate(y, &c.vecs.back()));
  z = c.vecs.back();
  {
    PetscInt rs, re;
    PetscCall(VecGetOwnershipRange(x, &rs, &re));
    for (PetscInt i = rs; i < re; i++) PetscCall(VecSetValue(x, i, 1.0 + (PetscReal)i / (PetscReal)N, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
  }
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, x, z));
  PetscCall(VecNorm(z, NORM_2, &nz));
  PetscCall(VecAXPY(y, -1.0, z));
  PetscCall(VecNorm(y, NORM_2, &nd));
  if (nd > 1e-12 * nz) WRONG("%s: ||A x - B x|| = %g, ||B x|| = %g", what, (double)nd, (double)nz);
  PetscFunctionReturn(0);
}

/* Random entries (i, j) of an n x n matrix in this process's rows. */
PetscErrorCode SetScattered(Mat A, PetscInt count, unsigned seed)
{
  PetscInt     rs, re, N;
  std::mt19937 gen(seed);

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(MatGetSize(A, NULL, &N));
  if (re == rs) PetscFunctionReturn(0);
  std::uniform_int_distribution<PetscInt> row(rs, re - 1), col(0, N - 1);
  for (PetscInt e = 0; e < count; e++) PetscCall(MatSetValue(A, row(gen), col(gen), 1.0, ADD_VALUES));
  PetscFunctionReturn(0);
}

PetscErrorCode Assemble(Mat A)
{
  PetscFunctionBeginUser;
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* A diag tridiagonal with entries set but not assembled. */
PetscErrorCode NewUnassembled(Ctx &c, PetscInt n, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  PetscCall(NewDiag(c, n, 0, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) PetscCall(MatSetValue(*A, i, i, 2.0, INSERT_VALUES));
  PetscFunctionReturn(0);
}

enum class Expect {
  Error,  /* every process ends in a PETSc error */
  Faulted, /* the processes given the bad argument end in an error (an operation that is not collective) */
  Ok,      /* a correct result */
  Clean    /* a correct result or an error on every process: either is acceptable */
};

struct Case {
  Expect                           expect;
  std::vector<int>                 nps;
  std::function<PetscErrorCode(Ctx &)> run;
};

const std::vector<int> kAll = {1, 2, 3, 4}, kOneTwo = {1, 2}, kMulti = {2, 3, 4}, kOne = {1};

std::map<std::string, Case> &Cases()
{
  static std::map<std::string, Case> cases;
  return cases;
}

struct Register {
  Register(const char *name, Expect e, std::vector<int> nps, std::function<PetscErrorCode(Ctx &)> f) { Cases()[name] = Case{e, std::move(nps), std::move(f)}; }
};
#define CASE(name, expect, nps) \
  static PetscErrorCode Case_##name(Ctx &); \
  static Register       reg_##name(#name, Expect::expect, nps, Case_##name); \
  static PetscErrorCode Case_##name([[maybe_unused]] Ctx &c)

/* PETSc's traceback handler, on every process: for an error raised on a
   communicator of several processes the default handler prints on its
   first process only and makes the others exit after sleeping 10 s. Here
   each process reports what it raised, so that run_faults.py sees that
   every process ended in an error, and none was left behind. */
PetscErrorCode EveryProcessHandler(MPI_Comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  return PetscTraceBackErrorHandler(PETSC_COMM_SELF, line, fun, file, n, p, mess, ctx);
}

} // namespace

#include "fault_cases_api.hpp"
#include "fault_cases_ops.hpp"

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  Ctx            c;

  if (argc > 1 && !std::strcmp(argv[1], "-list")) { /* name, expectation, process counts */
    const char *names[] = {"error", "faulted", "ok", "clean"};
    for (const auto &kv : Cases()) {
      std::printf("%s %s", kv.first.c_str(), names[(int)kv.second.expect]);
      for (int np : kv.second.nps) std::printf(" %d", np);
      std::printf("\n");
    }
    return 0;
  }
  PetscCall(PetscInitialize(&argc, &argv, NULL, "fault_driver -case <name>: one fault-injection case\n"));
  PetscCall(MatDiagRegisterAll());
  PetscCall(PetscPushErrorHandler(EveryProcessHandler, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &c.rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &c.size));
  char      name[256] = "";
  PetscBool set;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", name, sizeof(name), &set));
  auto it = Cases().find(name);
  if (it == Cases().end()) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fault_driver: unknown case '%s' (-list lists them)\n", name));
    PetscCall(PetscFinalize());
    return 2;
  }
  ierr = it->second.run(c);
  c.clear();
  PetscCall(PetscPopErrorHandler());
  int code = 0;
  if (ierr) {
    const char *text = NULL;
    char       *specific = NULL;
    (void)PetscErrorMessage(ierr, &text, NULL);
    (void)specific;
    std::printf("faults: rank %d of %d: case %s: error %d (%s)\n", (int)c.rank, (int)c.size, name, (int)ierr, text ? text : "?");
    if (ierr == PETSC_ERR_NOT_CONVERGED) code = 3;
  } else std::printf("faults: rank %d of %d: case %s: ok\n", (int)c.rank, (int)c.size, name);
  std::fflush(stdout);
  PetscCall(PetscFinalize());
  return code;
}
