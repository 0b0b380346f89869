/* Example 4: read a Matrix Market file, convert it to diag, solve with it.

   Process 0 reads the file (coordinate format: real, integer or pattern;
   general or symmetric) and hands its entries to an aij matrix through
   PETSc's COO assembly, which sends each entry to the process owning its
   row. MatConvert() then makes the diag matrix: each process stores the
   diagonals its rows touch. Any assembled PETSc matrix converts the same way.

   Check: b = A x* with x* = 1, GMRES + Jacobi on the diag matrix, and the
   computed x must match x*; the program prints the structure (diagonals,
   fill) and the error.

   Run: mpiexec -n 2 ./ex4_mtx_solve -f ../data/banded_n200_l2_u3.mtx          */
#include <petscdiag.h>
#include <petscksp.h>

/* Reads a Matrix Market coordinate file on process 0 into an aij matrix. */
static PetscErrorCode LoadMatrixMarket(const char *path, Mat *A)
{
  PetscMPIInt  rank;
  PetscInt     dims[2] = {0, 0};
  PetscCount   n = 0;
  PetscInt    *ci = NULL, *cj = NULL;
  PetscScalar *cv = NULL;
  char         err[256] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    FILE     *f = fopen(path, "r");
    char      line[1024], field[32] = "", sym[32] = "";
    long long M, N, nnz;
    if (!f) PetscCall(PetscSNPrintf(err, sizeof(err), "cannot open %s", path));
    else if (!fgets(line, sizeof(line), f) || sscanf(line, "%%%%MatrixMarket matrix coordinate %31s %31s", field, sym) != 2)
      PetscCall(PetscSNPrintf(err, sizeof(err), "%s: not a Matrix Market coordinate file", path));
    else {
      do {
        if (!fgets(line, sizeof(line), f)) line[0] = 0;
      } while (line[0] == '%');
      if (sscanf(line, "%lld %lld %lld", &M, &N, &nnz) != 3 || M < 0 || N < 0 || nnz < 0 || (double)nnz > (double)M * (double)N)
        PetscCall(PetscSNPrintf(err, sizeof(err), "%s: no valid size line", path));
      else {
        const PetscBool symmetric = (PetscBool)(strcmp(sym, "symmetric") == 0), pattern = (PetscBool)(strcmp(field, "pattern") == 0);
        PetscCall(PetscMalloc3(2 * nnz, &ci, 2 * nnz, &cj, 2 * nnz, &cv));
        for (long long e = 0; e < nnz && !err[0]; e++) {
          long long i, j;
          double    v = 1.0;
          if (!fgets(line, sizeof(line), f) || sscanf(line, "%lld %lld %lf", &i, &j, &v) < (pattern ? 2 : 3) || i < 1 || i > M || j < 1 || j > N) {
            PetscCall(PetscSNPrintf(err, sizeof(err), "%s: bad entry %lld", path, e + 1));
            break;
          }
          ci[n] = (PetscInt)(i - 1);
          cj[n] = (PetscInt)(j - 1);
          cv[n++] = v;
          if (symmetric && i != j) { /* the file holds one triangle */
            ci[n] = (PetscInt)(j - 1);
            cj[n] = (PetscInt)(i - 1);
            cv[n++] = v;
          }
        }
        dims[0] = (PetscInt)M;
        dims[1] = (PetscInt)N;
      }
    }
    if (f) fclose(f);
  }
  /* every process learns the sizes, or the error, from process 0 */
  PetscCallMPI(MPI_Bcast(err, sizeof(err), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCheck(!err[0], PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "%s", err);
  PetscCallMPI(MPI_Bcast(dims, 2, MPIU_INT, 0, PETSC_COMM_WORLD));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, dims[0], dims[1]));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetPreallocationCOO(*A, n, ci, cj)); /* repeated entries add up */
  PetscCall(MatSetValuesCOO(*A, cv, INSERT_VALUES));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char      path[PETSC_MAX_PATH_LEN] = "banded_n200_l2_u3.mtx";
  Mat       A, D;
  Vec       x, xexact, b;
  KSP       ksp;
  PetscInt  its;
  PetscReal enorm, xnorm;
  MatType   type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatDiagRegisterAll());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-f", path, sizeof(path), NULL));
  PetscCall(LoadMatrixMarket(path, &A));
  PetscCall(MatConvert(A, MATDIAG, MAT_INITIAL_MATRIX, &D)); /* aij -> diag */
  PetscCall(MatDestroy(&A));

  PetscCall(MatGetType(D, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s as %s:\n", path, type));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(D, PETSC_VIEWER_STDOUT_WORLD)); /* storage, diagonals, fill, bytes */
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));

  PetscCall(MatCreateVecs(D, &x, &b));
  PetscCall(VecDuplicate(x, &xexact));
  PetscCall(VecSet(xexact, 1.0));
  PetscCall(MatMult(D, xexact, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, D, D));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI)); /* diag has no factorizations: Jacobi, Chebyshev, ... */
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(VecAXPY(x, -1.0, xexact));
  PetscCall(VecNorm(x, NORM_2, &enorm));
  PetscCall(VecNorm(xexact, NORM_2, &xnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GMRES + Jacobi: %" PetscInt_FMT " iterations, error ||x - x*|| / ||x*|| = %.2e\n", its, (double)(enorm / xnorm)));
  PetscCheck(enorm <= 1e-6 * xnorm, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "ex4: the solution is off");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex4: OK\n"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xexact));
  PetscCall(MatDestroy(&D));
  PetscCall(PetscFinalize());
  return 0;
}
