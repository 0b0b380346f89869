/* Example 2: a DMDA Poisson problem solved with KSP, the matrix stored by diagonals.

   -div grad u = f on the unit square, 5-point finite differences on a
   DMDA grid, Dirichlet rows on the boundary. Nothing here names the diag
   type: DMCreateMatrix() makes whatever -dm_mat_type asks for, so
       mpiexec -n 2 ./ex2_dmda_ksp -dm_mat_type diag -ksp_type cg -pc_type jacobi
   uses diag, -dm_mat_type aij the same program with aij. On a GPU with a
   CUDA-enabled PETSc, add -dm_vec_type cuda: vectors and products then live
   on the device (the diag matrix follows its vectors).

   Check: the right-hand side is b = A u* for a known u*, so the computed u
   must match u*; the program prints the matrix type, the iterations, the
   residual ||b - A u|| / ||b|| and the error ||u - u*|| / ||u*||.          */
#include <petscdiag.h>
#include <petscdmda.h>
#include <petscksp.h>

/* The operator, row by row with MatSetValuesStencil (works for any -dm_mat_type). */
static PetscErrorCode AssembleLaplacian(DM da, Mat A)
{
  DMDALocalInfo info;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      MatStencil  row = {0}, col[5] = {{0}};
      PetscScalar v[5];
      PetscInt    nc = 0;
      row.i = i;
      row.j = j;
      if (i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1) { /* Dirichlet row */
        col[0] = row;
        v[0]   = 4.0;
        nc     = 1;
      } else {
        col[nc].i = i;     col[nc].j = j - 1; v[nc++] = -1.0;
        col[nc].i = i - 1; col[nc].j = j;     v[nc++] = -1.0;
        col[nc].i = i;     col[nc].j = j;     v[nc++] = 4.0;
        col[nc].i = i + 1; col[nc].j = j;     v[nc++] = -1.0;
        col[nc].i = i;     col[nc].j = j + 1; v[nc++] = -1.0;
      }
      PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  DM        da;
  Mat       A;
  Vec       u, uexact, b, r;
  KSP       ksp;
  PetscInt  its;
  PetscReal rnorm, bnorm, enorm, unorm;
  MatType   mtype;
  VecType   vtype;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatDiagRegisterAll()); /* or load the library with -dll_append instead of linking it */
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 33, 33, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da)); /* -da_grid_x, -dm_mat_type, -dm_vec_type */
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A)); /* diag: the stencil gives each process its diagonals */
  PetscCall(AssembleLaplacian(da, A));

  PetscCall(DMCreateGlobalVector(da, &uexact));
  PetscCall(VecDuplicate(uexact, &u));
  PetscCall(VecDuplicate(uexact, &b));
  PetscCall(VecDuplicate(uexact, &r));
  PetscCall(VecSetRandom(uexact, NULL)); /* u*: any vector */
  PetscCall(MatMult(A, uexact, b));     /* b = A u* */

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp)); /* -ksp_type cg -pc_type jacobi ... */
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, &its));

  PetscCall(MatMult(A, u, r)); /* r = b - A u */
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(VecAXPY(u, -1.0, uexact)); /* u - u* */
  PetscCall(VecNorm(u, NORM_2, &enorm));
  PetscCall(VecNorm(uexact, NORM_2, &unorm));
  PetscCall(MatGetType(A, &mtype));
  PetscCall(VecGetType(b, &vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix type %s, vector type %s: %" PetscInt_FMT " iterations, residual %.2e, error %.2e\n", mtype, vtype, its, (double)(rnorm / bnorm), (double)(enorm / unorm)));
  PetscCheck(rnorm <= 1e-8 * bnorm && enorm <= 1e-6 * unorm, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "ex2: the solution is off");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex2: OK\n"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&uexact));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
