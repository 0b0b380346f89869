/* What the GPU tests of MATDIAG share (test_gpu_ops, test_gpu_factor,
   test_gpu_solvers): their mode (GPU, or -host_check: the same comparisons
   with host vectors), their own pass/fail counters (checks of each process, not
   collective, summed at the end), the DIAG_TEST_TRACE trace, vectors of one type copied to
   another and compared, random matrices on given diagonals and the 7-point
   stencil matrix of a DMDA. Each program ends with the line "N passed, M
   failed". */
#pragma once

#include <petscdiag.h>
#include <petscdmda.h>
#include <petsc/private/vecimpl.h>

#include "gpu_or_host.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <execinfo.h>
#include <unistd.h>
#include <string>
#include <vector>

namespace gpu_testing {

inline int         passed = 0, failed = 0;
inline VecType     device_vec = VECCUDA; /* VECSTANDARD with -host_check: the same comparisons without a GPU */
inline std::string g_program;            /* the program's name, in trace lines */
inline bool        device_is_gpu = true;  /* false with -host_check */

/* Whether v's values are newer on the device than on the host (an
   operation ran there and the host has not read them since). */
inline bool OnDevice(Vec v)
{
  return v->offloadmask == PETSC_OFFLOAD_GPU;
}

/* DIAG_TEST_TRACE=1: each case is named on stderr before it runs, and a
   segmentation fault prints the stack (with -no_signal_handler, PETSc's
   own handler prints none in optimized builds) */
inline bool g_trace = std::getenv("DIAG_TEST_TRACE") != nullptr;

inline void Trace(const std::string &what)
{
  if (g_trace) {
    std::fprintf(stderr, "%s: %s\n", g_program.c_str(), what.c_str());
    std::fflush(stderr);
  }
}

inline void PrintStackAndExit(int sig)
{
  void *frames[64];
  int   n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  _exit(128 + sig);
}

inline void Check(bool ok, const std::string &what)
{
  if (ok) passed++;
  else {
    failed++;
    PetscMPIInt rank = 0;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    /* checks are not collective: a failure on any process is printed by it */
    PetscPrintf(PETSC_COMM_SELF, "[%d] FAILED: %s\n", rank, what.c_str());
  }
}

/* Copies of v with the given vector type (host or CUDA). */
inline PetscErrorCode Retyped(Vec v, VecType type, Vec *w)
{
  PetscInt n, N;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetSize(v, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)v), w));
  PetscCall(VecSetSizes(*w, n, N));
  PetscCall(VecSetType(*w, type));
  { /* through host arrays: VecCopy between vector types is not defined in PETSc 3.18 */
    const PetscScalar *src;
    PetscScalar       *dst;
    PetscCall(VecGetArrayRead(v, &src));
    PetscCall(VecGetArrayWrite(*w, &dst));
    PetscCall(PetscArraycpy(dst, src, n));
    PetscCall(VecRestoreArrayRead(v, &src));
    PetscCall(VecRestoreArrayWrite(*w, &dst));
  }
  PetscFunctionReturn(0);
}

/* Host vectors of A's layout. Not MatCreateVecs + VecSetType(VECSTANDARD):
   a CUDA vector retyped to the host keeps its random type ("curand"), on
   which PETSc 3.25's VecSetRandom(x, NULL) crashes (PetscRandomSetType). */
inline PetscErrorCode HostVecs(Mat A, Vec *x, Vec *y)
{
  Vec xc, yc;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &xc, &yc));
  PetscCall(Retyped(xc, VECSTANDARD, x));
  PetscCall(Retyped(yc, VECSTANDARD, y));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&yc));
  PetscFunctionReturn(0);
}

/* ||a - b|| / ||b||, both compared as host vectors (mixed-type vector
   operations are not defined in PETSc 3.18). */
inline PetscReal RelDiff(Vec a, Vec b)
{
  Vec       ah, bh;
  PetscReal nd, nb;
  Retyped(a, VECSTANDARD, &ah);
  Retyped(b, VECSTANDARD, &bh);
  VecAXPY(ah, -1.0, bh);
  VecNorm(ah, NORM_2, &nd);
  VecNorm(bh, NORM_2, &nb);
  VecDestroy(&ah);
  VecDestroy(&bh);
  return nb > 0 ? nd / nb : nd;
}

/* A random matrix on the given diagonals, assembled from every rank's rows:
   entry (i, i + offs[k]) wherever it lies in the matrix and keep(i, k). */
template <class Keep>
inline PetscErrorCode RandomOnDiagonals(PetscInt n, const std::vector<PetscInt> &offs, MatType type, MatDiagStorage st, Keep keep, Mat *A)
{
  PetscInt    rs, re;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatDiagSetStorage(*A, st));
  PetscCall(MatSetUp(*A));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++)
    for (std::size_t k = 0; k < offs.size(); k++) {
      PetscScalar    v;
      const PetscInt j = i + offs[k];
      if (j < 0 || j >= n || !keep(i, k)) continue;
      PetscCall(PetscRandomGetValue(rnd, &v));
      PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* A random matrix on the given diagonals, every entry inside the matrix. */
inline PetscErrorCode RandomDiag(PetscInt n, const std::vector<PetscInt> &offs, MatType type, MatDiagStorage st, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(RandomOnDiagonals(n, offs, type, st, [](PetscInt, std::size_t) { return true; }, A));
  PetscFunctionReturn(0);
}

/* The 7-point stencil matrix of da (DMCreateMatrix: da's matrix type). */
inline PetscErrorCode StencilMatrix(DM da, Mat *Aout)
{
  Mat A;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, &A));
  {
    DMDALocalInfo li;
    PetscCall(DMDAGetLocalInfo(da, &li));
    for (PetscInt k = li.zs; k < li.zs + li.zm; k++)
      for (PetscInt j = li.ys; j < li.ys + li.ym; j++)
        for (PetscInt i = li.xs; i < li.xs + li.xm; i++) {
          MatStencil  row = {k, j, i, 0}, col[7];
          PetscScalar v[7];
          PetscInt    n = 0;
          col[n] = row;
          v[n++] = (i == 0 && j == 0) ? 7.5 : 6.5; /* a constant main diagonal with exceptions */
          const PetscInt d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
          for (auto &o : d) {
            const PetscInt ii = i + o[0], jj = j + o[1], kk = k + o[2];
            if (ii < 0 || jj < 0 || kk < 0 || ii >= li.mx || jj >= li.my || kk >= li.mz) continue;
            col[n] = {kk, jj, ii, 0};
            v[n++] = -1.0;
          }
          PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
        }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  *Aout = A;
  PetscFunctionReturn(0);
}

/* The start of the GPU test `name`, after GpuOrHostMode() (device: the
   GPU mode): PETSc with the default log (the tests read events and copy
   counts), the diag types, and device_vec for the mode. */
inline PetscErrorCode Start(int *argc, char ***argv, const char *name, bool device)
{
  g_program = name;
  if (!device) device_vec = VECSTANDARD;
  device_is_gpu = device;
  PetscCall(PetscInitialize(argc, argv, NULL, NULL));
  PetscFunctionBeginUser;
  if (g_trace) std::signal(SIGSEGV, PrintStackAndExit);
  Trace("PetscInitialize done");
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatDiagRegisterAll());
  PetscBool host_check;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-host_check", &host_check)); /* read by GpuOrHostMode() before PETSc: marked used here */
  PetscFunctionReturn(0);
}

/* The end: the line "N passed, M failed" (the sums over all processes),
   PETSc's finalization, and the exit code. */
inline int Finish()
{
  int counts[2] = {passed, failed};
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  passed = counts[0];
  failed = counts[1];
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d passed, %d failed\n", passed, failed));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}

} // namespace gpu_testing
