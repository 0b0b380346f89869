/* Argument checks and the memory budget of MATDIAG (docs/reliability.md). PETSc's own
   checks of pointers and headers are compiled out of optimized builds, and
   some operations check no sizes at all: these run in every build. Checks
   of arguments that differ between processes are agreed on
   (MatDiagAgreeOnError_Private) before any collective step, so that a bad
   argument on one process is an error on all of them, not a hang. The
   budget refuses a structure from its counts before it is allocated. */
#include "core/mat_diag.hpp"

#include <petsc/private/vecimpl.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

/* Refuses more stored diagonals than -mat_diag_max_diagonals allows. */
PetscErrorCode MatDiagCheckCount_Private(Mat A, Index count)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(count <= a->opt.max_diagonals, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag: this process would store %" PetscInt64_FMT " diagonals, more than the limit %" PetscInt_FMT "; raise it with -mat_diag_max_diagonals <n>, or use an aij type for this matrix",
             (PetscInt64)count, a->opt.max_diagonals);
  PetscFunctionReturn(0);
}

/* The same check in collective operations: the counts differ between
   processes, and a process that failed alone would leave the others waiting
   in the operation's next collective step. Collective. */
PetscErrorCode MatDiagCheckCountAll_Private(Mat A, Index count)
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  PetscInt64 loc = (PetscInt64)count, most;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&loc, &most, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCheck(most <= a->opt.max_diagonals, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
             "diag: a process would store %" PetscInt64_FMT " diagonals, more than the limit %" PetscInt_FMT "; raise it with -mat_diag_max_diagonals <n>, or use an aij type for this matrix", most,
             a->opt.max_diagonals);
  PetscFunctionReturn(0);
}

/* Every process learns whether a local step failed on any of them: the
   ones that failed return their own error (already reported), the others an
   error naming the first process that failed, so that no process goes on
   alone into the next collective step. Collective. */
PetscErrorCode MatDiagAgreeOnError_Private(MPI_Comm comm, PetscErrorCode ierr, const char *what)
{
  PetscMPIInt rank, size, mine, first;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = ierr ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) PetscFunctionReturn(0);
  { /* every process reports the reason: the first failing process's message */
    char        msg[512] = "";
    PetscMPIInt code     = (PetscMPIInt)ierr;
    if (rank == first) {
      const char *text = NULL, *specific = NULL;
      PetscDiagErrorMessage(ierr, &text, &specific);
      PetscCall(PetscStrncpy(msg, specific ? specific : (text ? text : ""), sizeof(msg)));
    }
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, first, comm));
    PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, first, comm));
    PetscCall(ierr);
    SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "diag: %s failed on process %d: %s", what, (int)first, msg);
  }
}

/* The bytes a process may give to one matrix's storage unless
   -mat_diag_max_bytes says otherwise: the memory it can get at all (the
   node's physical memory, or less under ulimit -v). Beyond it the
   allocation would fail or swap after a long time. */
static PetscReal MatDiagDefaultMaxBytes(void)
{
  PetscReal     bytes = (PetscReal)sysconf(_SC_PHYS_PAGES) * (PetscReal)sysconf(_SC_PAGESIZE);
  struct rlimit rl;

  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) bytes = std::min(bytes, (PetscReal)rl.rlim_cur);
  return bytes > 0 ? bytes : PETSC_MAX_REAL;
}

/* Below this many bytes (per process) a matrix is never refused for its fill: small
   matrices with scattered entries are cheap in any format. */
static const PetscReal kFillFloorBytes = 256.0 * 1024 * 1024;

/* What a structure of c.ndiag diagonals holding c.nstored entries on this
   process would take, against the limits: more diagonals than
   -mat_diag_max_diagonals, more bytes than -mat_diag_max_bytes, or, when
   it comes from nset >= 0 entries set, more than -mat_diag_max_fill stored
   entries per entry set (a scattered matrix, which diag stores badly). */
struct MatDiagBudget {
  PetscReal bytes, limit;
  bool      too_many, too_large, too_scattered;
  bool      over() const { return too_many || too_large || too_scattered; }
};

static MatDiagBudget MatDiagBudgetOf(const Mat_Diag *a, pdiag::StorageCount c, PetscInt64 nset)
{
  MatDiagBudget b;
  b.bytes         = (PetscReal)c.nstored * sizeof(PetscScalar) + (PetscReal)c.ndiag * 2 * sizeof(Index);
  b.limit         = a->opt.max_bytes >= 0 ? a->opt.max_bytes : MatDiagDefaultMaxBytes();
  b.too_many      = c.ndiag > a->opt.max_diagonals;
  b.too_large     = b.bytes > b.limit;
  b.too_scattered = nset >= 0 && b.bytes > kFillFloorBytes && (PetscReal)c.nstored > a->opt.max_fill * (PetscReal)PetscMax(nset, (PetscInt64)1);
  return b;
}

/* Refuses, before anything is allocated, a structure over the budget (above). */
PetscErrorCode MatDiagCheckBudget_Private(Mat A, pdiag::StorageCount c, PetscInt64 nset)
{
  Mat_Diag           *a      = (Mat_Diag *)A->data;
  const MatDiagBudget b      = MatDiagBudgetOf(a, c, nset);
  const double        gbytes = (double)b.bytes / 1e9;

  PetscFunctionBegin;
  PetscCheck(!b.too_many, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag: this process would store %" PetscInt64_FMT " diagonals (%" PetscInt64_FMT " entries, %.3g GB), more than the limit %" PetscInt_FMT "; raise it with -mat_diag_max_diagonals <n>, or use an aij type for this matrix",
             (PetscInt64)c.ndiag, (PetscInt64)c.nstored, gbytes, a->opt.max_diagonals);
  PetscCheck(!b.too_large, PETSC_COMM_SELF, PETSC_ERR_MEM,
             "diag: this process would store %" PetscInt64_FMT " diagonals with %" PetscInt64_FMT " entries (%.3g GB), more than the limit of %.3g GB; raise it with -mat_diag_max_bytes <bytes>, or use an aij type for this matrix",
             (PetscInt64)c.ndiag, (PetscInt64)c.nstored, gbytes, (double)b.limit / 1e9);
  PetscCheck(!b.too_scattered, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag: %" PetscInt64_FMT " entries set on this process would take %" PetscInt64_FMT " diagonals with %" PetscInt64_FMT " stored entries (%.3g GB), more than %g stored entries per entry set; raise the limit with -mat_diag_max_fill <r>, or use an aij type for this scattered matrix",
             nset, (PetscInt64)c.ndiag, (PetscInt64)c.nstored, gbytes, (double)a->opt.max_fill);
  PetscFunctionReturn(0);
}

/* Whether MatDiagCheckBudget_Private() would refuse the structure; -info
   says why. */
PetscErrorCode MatDiagOverBudget_Private(Mat A, pdiag::StorageCount c, PetscInt64 nset, PetscBool *over)
{
  const MatDiagBudget b = MatDiagBudgetOf((Mat_Diag *)A->data, c, nset);

  PetscFunctionBegin;
  *over = b.over() ? PETSC_TRUE : PETSC_FALSE;
  if (*over)
    PetscCall(PetscInfo(A, "diag: %" PetscInt64_FMT " diagonals with %" PetscInt64_FMT " stored entries (%.3g GB) on this process are over the budget (%s)\n", (PetscInt64)c.ndiag, (PetscInt64)c.nstored, (double)b.bytes / 1e9,
                        b.too_many ? "-mat_diag_max_diagonals" : (b.too_large ? "-mat_diag_max_bytes" : "-mat_diag_max_fill")));
  PetscFunctionReturn(0);
}

/* The same in collective operations: the failing process reports its
   counts, every other process an error naming it. Collective. */
PetscErrorCode MatDiagCheckBudgetAll_Private(Mat A, pdiag::StorageCount c, PetscInt64 nset)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  ierr = MatDiagCheckBudget_Private(A, c, nset); /* reported by the error handler as it is raised */
  PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, "the memory budget of a diag matrix"));
  PetscFunctionReturn(0);
}

/* The vector arguments of the operations of diag. */
PetscErrorCode MatDiagCheckVec_Private(Vec v, PetscLayout map, const char *name)
{
  PetscFunctionBegin;
  /* every operation of diag that takes a vector checks it here: PETSc's own
     checks of NULL and of sizes are compiled out of optimized builds, or
     missing (MatGetDiagonal, MatZeroRows' x and b) */
  PetscCheck(v, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: vector %s is NULL", name);
  PetscCheck(((PetscObject)v)->classid == VEC_CLASSID, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "diag: %s is not a vector", name);
  const PetscLayout vmap = v->map;
  if (vmap == map) PetscFunctionReturn(0);
  /* the ownership ranges of every process, which every process holds: all
     come to the same verdict, so that none goes on alone into a collective step */
  PetscMPIInt size, vsize;
  PetscCallMPI(MPI_Comm_size(map->comm, &size));
  PetscCallMPI(MPI_Comm_size(vmap->comm, &vsize));
  PetscCheck(vsize == size, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "diag: vector %s lives on %d processes, the matrix on %d", name, (int)vsize, (int)size);
  PetscBool same = (vmap->N == map->N && vmap->n == map->n) ? PETSC_TRUE : PETSC_FALSE;
  if (same && vmap->range && map->range) same = std::equal(map->range, map->range + size + 1, vmap->range) ? PETSC_TRUE : PETSC_FALSE;
  if (!same && vmap->N == map->N && vmap->range && map->range) { /* name a process whose part differs */
    for (PetscMPIInt p = 0; p < size; p++)
      PetscCheck(vmap->range[p + 1] - vmap->range[p] == map->range[p + 1] - map->range[p], PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
                 "diag: vector %s has %" PetscInt_FMT " entries on process %d, the matrix needs %" PetscInt_FMT " (global size %" PetscInt_FMT ")", name, vmap->range[p + 1] - vmap->range[p], (int)p,
                 map->range[p + 1] - map->range[p], map->N);
  }
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "diag: vector %s has local size %" PetscInt_FMT " and global size %" PetscInt_FMT ", the matrix needs %" PetscInt_FMT " and %" PetscInt_FMT, name, vmap->n, vmap->N, map->n, map->N);
  PetscFunctionReturn(0);
}

/* The same for a vector that may be NULL (MatZeroRows' x and b, MatDiagonalScale's l and r). */
PetscErrorCode MatDiagCheckOptionalVec_Private(Vec v, PetscLayout map, const char *name)
{
  PetscFunctionBegin;
  if (v) PetscCall(MatDiagCheckVec_Private(v, map, name));
  PetscFunctionReturn(0);
}

/* The rows of this process's part of a collective call (MatZeroRows,
   MatZeroRowsColumns): NULL and out-of-range rows. */
static PetscErrorCode MatDiagCheckRows(Mat A, PetscInt n, const PetscInt rows[], const char *fn)
{
  PetscFunctionBegin;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: %s got a negative number of rows %" PetscInt_FMT, fn, n);
  PetscCheck(!n || rows, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: %s got %" PetscInt_FMT " rows and a NULL array of row indices", fn, n);
  for (PetscInt r = 0; r < n; r++)
    PetscCheck(rows[r] >= 0 && rows[r] < A->rmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: %s row %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", fn, rows[r], A->rmap->N);
  PetscFunctionReturn(0);
}

/* The arguments of MatZeroRows-like operations: each process checks its
   rows, then all agree (a process with a bad row would otherwise leave the
   others waiting in the operation's collective steps); x has the column
   layout, b the row layout. Collective. */
PetscErrorCode MatDiagCheckZeroRowsArgs_Private(Mat A, PetscInt n, const PetscInt rows[], Vec x, Vec b, const char *fn)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  ierr = MatDiagCheckRows(A, n, rows, fn); /* reported by the error handler as it is raised */
  PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, fn));
  PetscCall(MatDiagCheckOptionalVec_Private(x, A->cmap, "x of MatZeroRows()"));
  PetscCall(MatDiagCheckOptionalVec_Private(b, A->rmap, "b of MatZeroRows()"));
  PetscFunctionReturn(0);
}
