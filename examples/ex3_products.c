/* Example 3: the structured-sparse matrix products of the paper (Haque,
   Parvez and Hossain, Algorithms 17(1):31, 2024) with PETSc's MatProduct API.

   Two n x n matrices with a few diagonals each, at scattered offsets like the
   paper's random structured-sparse matrices. Their product stays structured:
   the diagonals of A B are at the sums of an offset of A and one of B, so
   MatMatMult() returns a diag matrix again, computed diagonal by diagonal
   (on the GPU when the operands live there). MatTransposeMatMult() gives
   A^T B the same way. MAT_REUSE_MATRIX recomputes the values only.

   Check: the same products computed by PETSc's aij code from aij copies of A
   and B (MatConvert) must agree to rounding.

   Run: mpiexec -n 2 ./ex3_products -n 500                                     */
#include <petscdiag.h>

/* A matrix with the given diagonals; entry (i, j) = sin(i + 2 j + seed), the
   same whatever the number of processes. */
static PetscErrorCode CreateStructured(PetscInt n, PetscInt nd, const PetscInt offsets[], PetscReal seed, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreateDiag(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, nd, offsets, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++)
    for (PetscInt k = 0; k < nd; k++) {
      const PetscInt j = i + offsets[k];
      if (j >= 0 && j < n) PetscCall(MatSetValue(*A, i, j, PetscSinReal((PetscReal)(i + 2 * j) + seed), INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* ||X - Y||_F / ||Y||_F, with X converted to aij for the subtraction */
static PetscErrorCode RelativeDifference(Mat X, Mat Y, PetscReal *rel)
{
  Mat       Xa;
  PetscReal dnorm, ynorm;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &Xa));
  PetscCall(MatNorm(Y, NORM_FROBENIUS, &ynorm));
  PetscCall(MatAXPY(Xa, -1.0, Y, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Xa, NORM_FROBENIUS, &dnorm));
  *rel = dnorm / ynorm;
  PetscCall(MatDestroy(&Xa));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt offA[4] = {0, 3, -7, 40}, offB[4] = {0, -2, 5, -60};
  PetscInt       n       = 500, ndiag;
  const PetscInt *dC;
  Mat            A, B, C, D, Aa, Ba, Ca, Da;
  PetscReal      relC, relD, relR;
  MatType        type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatDiagRegisterAll());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(CreateStructured(n, 4, offA, 0.0, &A));
  PetscCall(CreateStructured(n, 4, offB, 1.0, &B));

  PetscCall(MatMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));          /* C = A B */
  PetscCall(MatTransposeMatMult(A, B, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &D)); /* D = A^T B */
  PetscCall(MatGetType(C, &type));
  PetscCall(MatDiagGetDiagonals(C, &ndiag, &dC));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "C = A B: type %s, %" PetscInt_FMT " diagonals on process 0 (4 x 4 offset sums)\n", type, ndiag));

  /* the reference: aij copies, aij products */
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aa));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &Ba));
  PetscCall(MatMatMult(Aa, Ba, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Ca));
  PetscCall(MatTransposeMatMult(Aa, Ba, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Da));
  PetscCall(RelativeDifference(C, Ca, &relC));
  PetscCall(RelativeDifference(D, Da, &relD));

  /* new values, same diagonals: the numeric phase only */
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatMatMult(A, B, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatScale(Ca, 2.0));
  PetscCall(RelativeDifference(C, Ca, &relR));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative difference to aij: A B %.1e, A^T B %.1e, A B reused %.1e\n", (double)relC, (double)relD, (double)relR));
  PetscCheck(relC < 1e-13 && relD < 1e-13 && relR < 1e-13, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "ex3: the diag products differ from aij's");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex3: OK\n"));

  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Ba));
  PetscCall(MatDestroy(&Ca));
  PetscCall(MatDestroy(&Da));
  PetscCall(PetscFinalize());
  return 0;
}
