/* What the PETSc-level tests share: the pass/fail counters, collective
   checks (a check passes only if it passed on every process), groups of
   checks in which a PETSc error counts as one failure, and message helpers.
   Each test ends with exactly one line "N passed, M failed". */
#pragma once

#include <petscsys.h>

#include <cstdarg>
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
  PetscCall(MPIU_Allreduce(&ok, &all, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  if (all) g_pass++;
  else {
    g_fail++;
    if (!ok_local) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED [%s] %s%s%s (rank %d)\n", cs.c_str(), op.c_str(), detail.empty() ? "" : ": ", detail.c_str(), g_rank));
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
  char *specific = NULL;
  if (PetscErrorMessage(0, NULL, &specific) || !specific) return "";
  return specific;
}

} // namespace plugin_testing
