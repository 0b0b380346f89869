/* petscdiag.h: PETSc matrices stored by diagonals (HM and CDM schemes). */
#ifndef PETSCDIAG_H
#define PETSCDIAG_H

#include <petscmat.h>

/*MC
   MATDIAG - "diag" - A matrix type stored by diagonals. Resolves to `MATSEQDIAG` on one
   process and `MATMPIDIAG` otherwise. Each process stores, for its block of rows, the
   diagonals (offsets d = j - i) that hold entries, either in HM storage (each diagonal with
   exactly its in-range entries) or CDM storage (compact diagonals of length n, square
   matrices only). Products with a vector run stride-1 along the diagonals.

   Options Database Keys:
+  -mat_type diag - sets the matrix type to `MATDIAG` during a call to `MatSetFromOptions()`
.  -mat_diag_storage <hm,cdm,auto> - the storage scheme (auto picks the one with fewer bytes)
-  -mat_diag_max_diagonals <n> - refuse matrices with more stored diagonals per process

   Loading into an unmodified PETSc program: -dll_append /path/libpetscdiag.so -mat_type diag

   Notes:
   The entries the matrix reports (`MatGetRow()`, `MatGetInfo()`'s nz_used, `MatConvert()` to
   aij, `MatView()`, the patterns of orderings and factorizations) are those an aij matrix of
   the same operator holds, not every stored zero; nz_allocated counts the stored entries.
   `MatZeroRows()` leaves each zeroed row with its diagonal entry only and increases the
   nonzero state, as aij does: the zeros stay stored (a diagonal is stored whole), but are no
   longer entries; with `MAT_KEEP_NONZERO_PATTERN` set the rows keep their entries, as zeros.
   Unlike aij, a square matrix's main diagonal stays an entry (a zero) also when
   `MatZeroRows()` is given diag = 0.

   Level: beginner

.seealso: `MatCreateDiag()`, `MatDiagSetPreallocation()`, `MatDiagSetStorage()`
M*/
#define MATDIAG        "diag"
#define MATSEQDIAG     "seqdiag"
#define MATMPIDIAG     "mpidiag"
#define MATDIAGCUDA    "diagcuda"
#define MATSEQDIAGCUDA "seqdiagcuda"
#define MATMPIDIAGCUDA "mpidiagcuda"

/* PCCHEBYJACOBI - "chebyjacobi": Chebyshev/Jacobi smoothing, a fused update a step (registered by MatDiagRegisterAll()) */
#define PCCHEBYJACOBI "chebyjacobi"

/*E
   MatDiagStorage - the storage scheme of a `MATDIAG` matrix

$  MAT_DIAG_STORAGE_HM   - each stored diagonal holds exactly its in-range entries
$  MAT_DIAG_STORAGE_CDM  - compact diagonals: diagonal k and k-n stacked in one vector of length n
$  MAT_DIAG_STORAGE_AUTO - whichever stores fewer bytes (decided at assembly)

   Level: intermediate
E*/
typedef enum {
  MAT_DIAG_STORAGE_HM,
  MAT_DIAG_STORAGE_CDM,
  MAT_DIAG_STORAGE_AUTO
} MatDiagStorage;
PETSC_EXTERN const char *const MatDiagStorages[];

PETSC_EXTERN PetscErrorCode MatDiagRegisterAll(void);
PETSC_EXTERN PetscErrorCode MatCreateDiag(MPI_Comm, PetscInt, PetscInt, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatDiagSetPreallocation(Mat, PetscInt, const PetscInt[]);
PETSC_EXTERN PetscErrorCode MatDiagSetStorage(Mat, MatDiagStorage);
PETSC_EXTERN PetscErrorCode MatDiagGetStorage(Mat, MatDiagStorage *);
PETSC_EXTERN PetscErrorCode MatDiagGetDiagonals(Mat, PetscInt *, const PetscInt *[]);
PETSC_EXTERN PetscErrorCode MatDiagGhostExchange(Mat, Vec);

#endif
