/* A program built outside the project against the installed petsc-diag
   (CMake: find_package(PetscDiag); or pkg-config petscdiag): the 1D Laplacian
   tridiag(-1, 2, -1) of size n as a diag matrix, times x_i = i + 1. The
   product is 0 except y_{n-1} = n + 1; the program checks that, that the
   matrix is of type diag (seqdiag/mpidiag) and stores three diagonals, and
   ends with "consumer: OK" (exit status 0) or an error. */
#include <petscdiag.h>

int main(int argc, char **argv)
{
  const PetscInt offsets[3] = {-1, 0, 1};
  PetscInt       n = 50, rstart, rend, nd;
  const PetscInt *stored;
  Mat             A;
  Vec             x, y;
  PetscBool       isdiag;
  MatType         type;
  PetscReal       err = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatDiagRegisterAll()); /* linked, not loaded with -dll_append */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, offsets, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt    cols[3] = {i - 1, i, i + 1};
    const PetscScalar vals[3] = {-1.0, 2.0, -1.0};
    if (i == 0) PetscCall(MatSetValues(A, 1, &i, 2, cols + 1, vals + 1, INSERT_VALUES));
    else if (i == n - 1) PetscCall(MatSetValues(A, 1, &i, 2, cols, vals, INSERT_VALUES));
    else PetscCall(MatSetValues(A, 1, &i, 3, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATSEQDIAG, MATMPIDIAG, ""));
  PetscCheck(isdiag, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "consumer: the matrix is of type %s, not diag", type);
  PetscCall(MatDiagGetDiagonals(A, &nd, &stored));
  PetscCheck(nd == 3 || n < 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "consumer: %" PetscInt_FMT " diagonals stored, expected 3", nd);

  PetscCall(MatCreateVecs(A, &x, &y));
  for (PetscInt i = rstart; i < rend; i++) PetscCall(VecSetValue(x, i, (PetscScalar)(i + 1), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(MatMult(A, x, y));
  {
    const PetscScalar *ya;
    PetscCall(VecGetArrayRead(y, &ya));
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscReal want = i == n - 1 ? (PetscReal)(n + 1) : 0.0;
      err                  = PetscMax(err, PetscAbsScalar(ya[i - rstart] - want));
    }
    PetscCall(VecRestoreArrayRead(y, &ya));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCheck(err < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "consumer: MatMult differs from the known product by %g", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "consumer: %s, n = %" PetscInt_FMT ", max |A x - y| = %g: OK\n", type, n, (double)err));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
