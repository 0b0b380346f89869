/* Example 1: create a diag matrix, assemble it, multiply, look at its structure.

   The 5-point Laplacian of an nx x ny grid (natural ordering, row i = x + nx y)
   lives on five diagonals: offsets -nx, -1, 0, 1, nx. The matrix is made twice:
     A with MatCreateDiag(), which takes the diagonals at creation, and
     B with MatCreate() + MatSetType(MATDIAG) + MatDiagSetPreallocation(),
       the usual PETSc sequence (type and sizes may then come from options).
   Each process sets the rows it owns with MatSetValues(), as for aij.

   Check: A times the vector of ones is, in row i, 4 minus the number of grid
   neighbours of point i, i.e. the number of neighbours missing at the
   boundary: known without the matrix. A and B must be equal.

   Run: mpiexec -n 2 ./ex1_create -nx 8 -ny 6 [-mat_diag_storage hm|cdm]      */
#include <petscdiag.h>

int main(int argc, char **argv)
{
  PetscInt          nx = 8, ny = 6, n, rstart, rend, ndiag;
  const PetscInt   *stored;
  PetscInt          offsets[5];
  Mat               A, B;
  Vec               ones, y;
  const PetscScalar *ya;
  PetscReal         err = 0;
  PetscBool         same;
  MatType           type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatDiagRegisterAll()); /* programs linked with libpetscdiag register the types once */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nx", &nx, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ny", &ny, NULL));
  n          = nx * ny;
  offsets[0] = -nx; /* global offsets d = j - i of the diagonals */
  offsets[1] = -1;
  offsets[2] = 0;
  offsets[3] = 1;
  offsets[4] = nx;

  /* A: sizes, diagonals and type in one call */
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 5, offsets, &A));
  /* B: the general sequence; -mat_diag_storage etc. are read by MatSetFromOptions() */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &B));
  PetscCall(MatSetSizes(B, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(B, MATDIAG));
  PetscCall(MatSetFromOptions(B));
  PetscCall(MatDiagSetPreallocation(B, 5, offsets));

  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt x = i % nx, yy = i / nx;
    PetscInt       cols[5], nc = 0;
    PetscScalar    vals[5];
    if (yy > 0) { cols[nc] = i - nx; vals[nc++] = -1.0; }
    if (x > 0) { cols[nc] = i - 1; vals[nc++] = -1.0; }
    cols[nc] = i; vals[nc++] = 4.0;
    if (x < nx - 1) { cols[nc] = i + 1; vals[nc++] = -1.0; }
    if (yy < ny - 1) { cols[nc] = i + nx; vals[nc++] = -1.0; }
    PetscCall(MatSetValues(A, 1, &i, nc, cols, vals, INSERT_VALUES));
    PetscCall(MatSetValues(B, 1, &i, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));

  /* the structure of B (its scheme follows -mat_diag_storage): type, storage
     scheme, diagonals, stored entries, fill, bytes; -mat_view ::ascii_info
     prints the same at assembly */
  PetscCall(MatGetType(B, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix type: %s\n", type));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(B, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(MatDiagGetDiagonals(A, &ndiag, &stored)); /* this process's diagonals */
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "rows %" PetscInt_FMT "-%" PetscInt_FMT ": %" PetscInt_FMT " diagonals:", rstart, rend - 1, ndiag));
  for (PetscInt k = 0; k < ndiag; k++) PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, " %" PetscInt_FMT, stored[k]));
  PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));

  /* y = A 1: the number of missing neighbours of each grid point */
  PetscCall(MatCreateVecs(A, &ones, &y));
  PetscCall(VecSet(ones, 1.0));
  PetscCall(MatMult(A, ones, y));
  PetscCall(VecGetArrayRead(y, &ya));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt x = i % nx, yy = i / nx;
    const PetscInt missing = (x == 0) + (x == nx - 1) + (yy == 0) + (yy == ny - 1);
    err = PetscMax(err, PetscAbsScalar(ya[i - rstart] - (PetscScalar)missing));
  }
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MatEqual(A, B, &same));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult with ones: max error %g; A and B equal: %s\n", (double)err, same ? "yes" : "no"));
  PetscCheck(err == 0 && same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "ex1: wrong product or A != B");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex1: OK\n"));

  PetscCall(VecDestroy(&ones));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscFinalize());
  return 0;
}
