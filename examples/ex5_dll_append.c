/* Example 5: an ordinary PETSc program, which knows nothing of petsc-diag.

   It includes only PETSc headers and links only PETSc. The matrix type comes
   from the command line (MatSetFromOptions), so the diag type can be loaded
   at run time:
       mpiexec -n 2 ./ex5_dll_append -dll_append /path/to/libpetscdiag.so -mat_type diag
   PETSc opens the library and calls its PetscDLLibraryRegister_petscdiag(),
   which registers the diag types; -mat_type diag then picks one. Without the
   two options the same program runs with aij.

   The problem: the 1D Laplacian tridiag(-1, 2, -1) with b = A x*, x*_i = i/n,
   solved with CG + Jacobi; the program prints the matrix type it got and the
   error ||x - x*|| / ||x*||.                                                  */
#include <petscksp.h>

int main(int argc, char **argv)
{
  Mat       A;
  Vec       x, xexact, b;
  KSP       ksp;
  PetscInt  n = 100, rstart, rend, its;
  PetscReal enorm, xnorm;
  MatType   type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(A)); /* -mat_type aij (default), diag, ... */
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xexact));
  for (PetscInt i = rstart; i < rend; i++) PetscCall(VecSetValue(xexact, i, (PetscScalar)i / (PetscScalar)n, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(xexact));
  PetscCall(VecAssemblyEnd(xexact));
  PetscCall(MatMult(A, xexact, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(VecAXPY(x, -1.0, xexact));
  PetscCall(VecNorm(x, NORM_2, &enorm));
  PetscCall(VecNorm(xexact, NORM_2, &xnorm));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix type %s: CG + Jacobi, %" PetscInt_FMT " iterations, error %.2e\n", type, its, (double)(enorm / xnorm)));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xexact));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
