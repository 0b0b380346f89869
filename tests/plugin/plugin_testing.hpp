/* What the PETSc-level tests share: the pass/fail counters, collective
   checks (a check passes only if it passed on every process), groups of
   checks in which a PETSc error counts as one failure, and message helpers.
   Each test ends with exactly one line "N passed, M failed". */
#pragma once

#include <petscdiag.h>

#include "petsc_compat.hpp"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace plugin_testing {

inline const PetscReal kTol   = 1e-12;
inline int             g_pass = 0, g_fail = 0;
inline PetscMPIInt     g_rank = 0, g_size = 1;

inline std::string Fmt(const char *fmt, ...)
{
  char    buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

/* Records one check of case `cs`. Collective. */
inline PetscErrorCode Record(bool ok_local, const std::string &cs, const std::string &op, const std::string &detail = "")
{
  PetscBool ok = ok_local ? PETSC_TRUE : PETSC_FALSE, all;

  PetscFunctionBeginUser;
  PetscCall(MPIU_Allreduce(&ok, &all, 1, PDIAG_MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  if (all) g_pass++;
  else {
    g_fail++;
    if (!ok_local) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED [%s] %s%s%s (rank %d)\n", cs.c_str(), op.c_str(), detail.empty() ? "" : ": ", detail.c_str(), g_rank));
  }
  PetscFunctionReturn(0);
}

/* The start of a test program: PETSc, the diag types, g_rank and g_size. */
inline PetscErrorCode Start(int *argc, char ***argv, const char *help)
{
  PetscCall(PetscInitialize(argc, argv, NULL, help));
  PetscFunctionBeginUser;
  PetscCall(MatDiagRegisterAll());
  PetscBool host_check;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-host_check", &host_check)); /* read by GpuOrHostMode() before PETSc: marked used here */
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &g_rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &g_size));
  PetscFunctionReturn(0);
}

/* -case <text>: a group of checks runs when its name contains the text
   (every group without the option). */
struct CaseFilter {
  char      only[256] = "";
  PetscBool given     = PETSC_FALSE;
  PetscErrorCode FromOptions() { return PetscOptionsGetString(NULL, NULL, "-case", only, sizeof(only), &given); }
  bool operator()(const std::string &name) const { return !given || name.find(only) != std::string::npos; }
};

/* The end of a test program's checks: the line "N passed, M failed" (M
   the largest failure count of any process) and the exit code it means. */
inline PetscErrorCode Summary(int *exit_code)
{
  int fails = g_fail, maxfails;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&fails, &maxfails, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d passed, %d failed\n", g_pass, maxfails));
  *exit_code = maxfails > 0 ? 1 : 0;
  PetscFunctionReturn(0);
}

/* For a test of one process's paths started on more: says so and gives
   the exit code of a skipped test (77) in *exit_code, true; false on one
   process. The caller finalizes PETSc and returns the code. */
inline PetscErrorCode SkippedOnMoreProcesses(const char *name, bool *skipped, int *exit_code)
{
  PetscFunctionBeginUser;
  *skipped = g_size > 1;
  if (*skipped) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: SKIPPED: its checks are of one process's paths (%d processes given)\n", name, g_size));
    *exit_code = 77;
  }
  PetscFunctionReturn(0);
}

/* Runs a group of checks; a PETSc error inside counts as one failure. */
inline void Run(const std::string &cs, const std::string &group, const std::function<PetscErrorCode()> &f)
{
  PetscErrorCode ierr = f();
  if (ierr) {
    g_fail++;
    (void)PetscPrintf(PETSC_COMM_SELF, "FAILED [%s] %s: PETSc error %d (rank %d)\n", cs.c_str(), group.c_str(), (int)ierr, g_rank);
  }
}

/* The specific message of the last PETSc error. */
inline std::string LastMessage()
{
  const char *specific = NULL;
  if (PetscDiagErrorMessage(0, NULL, &specific) || !specific) return "";
  return specific;
}

/* Deterministic values, identical on every process: a value in [-1, 1)
   determined by (seed, a, b). */
inline std::uint64_t Mix(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline double Unit(unsigned seed, PetscInt a, PetscInt b)
{
  const std::uint64_t h = Mix(Mix(Mix(seed) ^ (std::uint64_t)a) ^ ((std::uint64_t)b << 1));
  return (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

inline bool IsDiag(Mat M)
{
  PetscBool flg = PETSC_FALSE;
  if (PetscObjectTypeCompareAny((PetscObject)M, &flg, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, "")) return false;
  return flg;
}

/* Times the event `name` has begun on this process (main stage). */
inline PetscErrorCode EventCount(const char *name, int *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  *count = 0; /* set on every path (an error return too) */
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
  *count = info.count;
  PetscFunctionReturn(0);
}

/* || X - R ||_F / || R ||_F (|| X - R ||_F when R is zero), X and R of any
   types (compared through aij copies). */
inline PetscErrorCode MatRelDiff(Mat X, Mat R, PetscReal *rel)
{
  Mat       Xa, Ra;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  *rel = PETSC_INFINITY; /* set on every path: an error return leaves a value no check accepts */
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xa));
  PetscCall(MatConvert(R, MATAIJ, MAT_INITIAL_MATRIX, &Ra));
  PetscCall(MatAXPY(Xa, -1.0, Ra, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Xa, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(Ra, NORM_FROBENIUS, &nr));
  PetscCall(MatDestroy(&Xa));
  PetscCall(MatDestroy(&Ra));
  *rel = nr > 0 ? nd / nr : nd;
  PetscFunctionReturn(0);
}

/* || u - ref || / || ref || (|| u - ref || when ref is zero) in the norm
   `type`. */
inline PetscErrorCode VecRelDiff(Vec u, Vec ref, PetscReal *rel, NormType type = NORM_2)
{
  Vec       w;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  *rel = PETSC_INFINITY; /* set on every path: an error return leaves a value no check accepts */
  PetscCall(VecDuplicate(ref, &w));
  PetscCall(VecWAXPY(w, -1.0, ref, u));
  PetscCall(VecNorm(w, type, &nd));
  PetscCall(VecNorm(ref, type, &nr));
  PetscCall(VecDestroy(&w));
  *rel = nr > 0 ? nd / nr : nd;
  PetscFunctionReturn(0);
}

inline PetscErrorCode Assemble(Mat M)
{
  PetscFunctionBeginUser;
  PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

} // namespace plugin_testing
