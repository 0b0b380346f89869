/* MATDIAG on SuiteSparse matrices: every .mtx file of a folder (the first
   argument) is read with CHOLMOD's cholmod_read_sparse (every process reads
   the file and keeps its own rows), assembled as aij, converted to diag with
   MatConvert, and MatMult / MatMultTranspose / MatMultAdd are compared with
   aij (relative 2-norm difference <= 1e-12).

   - Complex matrices cannot be loaded in a real PETSc build: our reader must
     refuse them with a clear error, which counts as a pass.
   - The diag type refuses more than -mat_diag_max_diagonals stored diagonals
     per process (default 10000); a refusal counts as a pass only if the
     matrix really needs more. Each matrix is also converted once with the
     limit set just below its count, which must be refused on every process.

   Prints one line per matrix (what diag made of it), one line per failed
   check, then "N passed, M failed". Exit code 77 (skipped) when the folder
   does not exist. */
#include <petscdiag.h>

#include <cholmod.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "matrix_market.hpp"
#include "plugin_testing.hpp"

using namespace plugin_testing;

namespace {

PetscErrorCode BuildAIJ(const Triplets &T, Mat *A)
{
  std::vector<PetscInt> i = T.i, j = T.j;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, T.rend - T.rstart, PETSC_DECIDE, T.M, T.N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetPreallocationCOO(*A, (PetscCount)i.size(), i.data(), j.data()));
  PetscCall(MatSetValuesCOO(*A, T.v.data(), INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* Largest number of distinct diagonals j - i in one process's rows. */
PetscErrorCode MaxLocalDiagonals(const Triplets &T, PetscInt *count)
{
  std::vector<PetscInt> d(T.i.size());
  PetscInt              loc;

  PetscFunctionBeginUser;
  for (std::size_t e = 0; e < T.i.size(); e++) d[e] = T.j[e] - T.i[e];
  std::sort(d.begin(), d.end());
  loc = (PetscInt)(std::unique(d.begin(), d.end()) - d.begin());
  PetscCall(MPIU_Allreduce(&loc, count, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

PetscErrorCode FillVec(Vec v, PetscInt seed)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = lo; k < hi; k++) a[k - lo] = PetscSinReal((PetscReal)(k * 7 + seed)) + 0.1 * (PetscReal)((k + seed) % 5);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode CheckVec(Vec u, Vec ref, const std::string &name, const std::string &op)
{
  PetscReal rel = 0;

  PetscFunctionBeginUser;
  PetscCall(VecRelDiff(u, ref, &rel));
  PetscCall(Record(rel <= kTol, name, op, Fmt("relative difference %.3e", (double)rel)));
  PetscFunctionReturn(0);
}

/* MatConvert(A, diag) with PETSc errors returned, not printed. */
PetscErrorCode TryConvert(Mat A, Mat *D, PetscErrorCode *ierr, std::string *msg)
{
  PetscFunctionBeginUser;
  *D = NULL;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, D);
  PetscCall(PetscPopErrorHandler());
  *msg = *ierr ? LastMessage() : "";
  PetscFunctionReturn(0);
}

PetscErrorCode TestFile(const std::string &path)
{
  const std::string name = std::filesystem::path(path).stem().string();
  Triplets          T;
  PetscErrorCode    ierr;
  Mat               A, D;
  std::string       msg;
  PetscInt          need, limit = 10000;
  PetscBool         set;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = ReadMatrixMarket(path, &T);
  PetscCall(PetscPopErrorHandler());
  if (ierr) {
    msg             = LastMessage();
    const bool good = msg.find("complex matrix") != std::string::npos && msg.find("real PETSc build") != std::string::npos;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s refused: %s\n", name.c_str(), msg.c_str()));
    PetscCall(Record(good, name, "refused clearly (complex matrix in a real build)", msg));
    PetscFunctionReturn(0);
  }
  PetscCall(BuildAIJ(T, &A));
  PetscCall(MaxLocalDiagonals(T, &need));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_diag_max_diagonals", &limit, &set));

  PetscCall(TryConvert(A, &D, &ierr, &msg));
  if (ierr) {
    const bool fair = need > limit && msg.find("-mat_diag_max_diagonals") != std::string::npos;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s %6d x %-6d refused: needs %d diagonals on a process, limit %d: %s\n", name.c_str(), (int)T.M, (int)T.N, (int)need, (int)limit, msg.c_str()));
    PetscCall(Record(fair, name, "MatConvert aij->diag", "refused: " + msg));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
  }

  /* what diag made of it (under MPI, couplings to other processes on
     sparsely filled diagonals of their own are listed, not stored: at most
     `need` diagonals per process) */
  {
    MatDiagStorage st;
    PetscInt       nd, ndmax, ndsum;
    MatInfo        info;
    PetscReal      nnz = 0, nloc = (PetscReal)T.v.size();
    PetscCall(MatDiagGetStorage(D, &st));
    PetscCall(MatDiagGetDiagonals(D, &nd, NULL));
    PetscCall(MPIU_Allreduce(&nd, &ndmax, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(&nd, &ndsum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(MPIU_Allreduce(&nloc, &nnz, 1, MPIU_REAL, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(MatGetInfo(D, MAT_GLOBAL_SUM, &info));
    PetscCall(Record(ndmax <= limit && ndmax <= need, name, "MatConvert aij->diag within the limit", Fmt("accepted %d diagonals (%d without the list) with limit %d", (int)ndmax, (int)need, (int)limit)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-16s %6d x %-6d nnz %8.0f  storage %-3s  diagonals per process <= %5d (sum %6d)  stored %10.0f  fill %.4f\n", name.c_str(), (int)T.M, (int)T.N, (double)nnz,
                          st == MAT_DIAG_STORAGE_CDM ? "CDM" : "HM", (int)ndmax, (int)ndsum, info.nz_allocated, info.nz_allocated > 0 ? nnz / info.nz_allocated : 1.0));
  }

  Vec x, y1, y2, xt, t1, t2, z;
  PetscCall(MatCreateVecs(A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecDuplicate(y1, &z));
  PetscCall(VecDuplicate(y1, &xt));
  PetscCall(VecDuplicate(x, &t1));
  PetscCall(VecDuplicate(x, &t2));
  PetscCall(FillVec(x, 1));
  PetscCall(FillVec(xt, 2));
  PetscCall(FillVec(z, 3));
  PetscCall(MatMult(D, x, y1));
  PetscCall(MatMult(A, x, y2));
  PetscCall(CheckVec(y1, y2, name, "MatMult"));
  PetscCall(MatMultAdd(D, x, z, y1));
  PetscCall(MatMultAdd(A, x, z, y2));
  PetscCall(CheckVec(y1, y2, name, "MatMultAdd"));
  PetscCall(MatMultTranspose(D, xt, t1));
  PetscCall(MatMultTranspose(A, xt, t2));
  PetscCall(CheckVec(t1, t2, name, "MatMultTranspose"));
  for (Vec *v : {&x, &y1, &y2, &z, &xt, &t1, &t2}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));

  /* the limit: one below what the matrix needs must be refused everywhere
     (every diagonal stored: -mat_diag_list_remote 0) */
  if (need > 1) {
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", Fmt("%d", (int)need - 1).c_str()));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_list_remote", "0"));
    PetscCall(TryConvert(A, &D, &ierr, &msg));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_list_remote"));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_max_diagonals"));
    if (set) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_max_diagonals", Fmt("%d", (int)limit).c_str()));
    PetscCall(Record(ierr != 0 && msg.find("-mat_diag_max_diagonals") != std::string::npos, name, Fmt("refused with -mat_diag_max_diagonals %d", (int)need - 1), ierr ? msg : "accepted"));
    PetscCall(MatDestroy(&D));
  }
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int exit_code;
  PetscCall(Start(&argc, &argv, "MATDIAG on SuiteSparse matrices: test_suitesparse <folder of .mtx files>"));
  const std::string dir = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
  std::error_code   ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skipped: SuiteSparse folder '%s' not found\n", dir.c_str()));
    PetscCall(PetscFinalize());
    return 77;
  }
  std::vector<std::string> files;
  for (const auto &e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".mtx") files.push_back(e.path().string());
  std::sort(files.begin(), files.end()); /* every process in the same order */
  for (const std::string &f : files) {
    PetscErrorCode ierr = TestFile(f);
    if (ierr) {
      g_fail++;
      (void)PetscPrintf(PETSC_COMM_SELF, "FAILED [%s]: PETSc error %d (rank %d)\n", f.c_str(), (int)ierr, g_rank);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d matrix files\n", (int)files.size()));
  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}
