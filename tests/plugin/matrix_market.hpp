/* Matrix Market files for the PETSc-level tests, read with CHOLMOD
   (Debian libsuitesparse-dev): the entries of this process's rows. */
#pragma once

#include <petscmat.h>

#include <cholmod.h>

#include <string>
#include <vector>

namespace plugin_testing {

/* The entries of this process's rows, global indices. */
struct Triplets {
  PetscInt                 M = 0, N = 0;
  PetscInt                 rstart = 0, rend = 0;
  std::vector<PetscInt>    i, j;
  std::vector<PetscScalar> v;
};

inline const char *XtypeName(int xtype)
{
  switch (xtype) {
  case CHOLMOD_PATTERN:
    return "pattern";
  case CHOLMOD_REAL:
    return "real";
  case CHOLMOD_COMPLEX:
    return "complex";
  case CHOLMOD_ZOMPLEX:
    return "zomplex";
  }
  return "unknown";
}

/* Reads a Matrix Market file with CHOLMOD and keeps the entries of this
   process's rows (the default PETSc row split). Symmetric files are expanded
   to both triangles; pattern files get the value 1. Collective (every
   process reads the file, so every process fails alike). */
inline PetscErrorCode ReadMatrixMarket(const std::string &path, Triplets *T)
{
  cholmod_common  cc;
  cholmod_sparse *A = NULL, *U = NULL;
  FILE           *f;
  int             xtype = -1, ok;

  PetscFunctionBeginUser;
  f = fopen(path.c_str(), "r");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", path.c_str());
  cholmod_start(&cc);
  cc.print         = 0;
  cc.error_handler = NULL;
  A                = cholmod_read_sparse(f, &cc);
  fclose(f);
  if (A) xtype = A->xtype;
  ok = A != NULL;
  if (ok && (xtype == CHOLMOD_COMPLEX || xtype == CHOLMOD_ZOMPLEX)) {
    cholmod_free_sparse(&A, &cc);
    cholmod_finish(&cc);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: complex matrix (CHOLMOD xtype %s) cannot be loaded in a real PETSc build", path.c_str(), XtypeName(xtype));
  }
  if (!ok) {
    const int status = cc.status;
    cholmod_finish(&cc);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cholmod_read_sparse failed (CHOLMOD status %d)", path.c_str(), status);
  }
  if (A->stype != 0) { /* one triangle stored: expand to the whole matrix */
    U = cholmod_copy(A, 0, 1, &cc);
    cholmod_free_sparse(&A, &cc);
    A = U;
    if (!A) {
      const int status = cc.status;
      cholmod_finish(&cc);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "%s: cholmod_copy failed (CHOLMOD status %d)", path.c_str(), status);
    }
  }
  PetscCheck(A->itype == CHOLMOD_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: unexpected CHOLMOD index type", path.c_str());
  T->M = (PetscInt)A->nrow;
  T->N = (PetscInt)A->ncol;
  {
    PetscInt n = PETSC_DECIDE, M = T->M;
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &n, &M));
    PetscCallMPI(MPI_Scan(&n, &T->rend, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    T->rstart = T->rend - n;
  }
  const int    *Ap = (const int *)A->p, *Ai = (const int *)A->i, *Anz = (const int *)A->nz;
  const double *Ax = (const double *)A->x;
  for (PetscInt col = 0; col < T->N; col++) {
    const int p0 = Ap[col], p1 = A->packed ? Ap[col + 1] : Ap[col] + Anz[col];
    for (int p = p0; p < p1; p++) {
      const PetscInt row = Ai[p];
      if (row < T->rstart || row >= T->rend) continue;
      T->i.push_back(row);
      T->j.push_back(col);
      T->v.push_back(A->xtype == CHOLMOD_PATTERN || !Ax ? 1.0 : Ax[p]);
    }
  }
  cholmod_free_sparse(&A, &cc);
  cholmod_finish(&cc);
  PetscFunctionReturn(0);
}

} // namespace plugin_testing
