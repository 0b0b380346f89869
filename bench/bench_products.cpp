static const char help[] = "Times C = A B (and AtB, ABt) of the paper's structured sparse matrices for two matrix types in one run.\n"
                           "  -n <n> -dga <diagonals of A> -dgb <diagonals of B>   (offsets uniform in +-n/4)\n"
                           "  -types <diag,aij>  ours, then the peer (e.g. diag,aijcusparse on a GPU)\n"
                           "  -reps <k>          timed repetitions (median reported)   -csv <file> append results\n";

/* For each type: A and B are assembled from the same values, then the first
   product (MatMatMult with MAT_INITIAL_MATRIX: symbolic + numeric) and the
   numeric-only reuse (MAT_REUSE_MATRIX) are timed, each rep synchronised
   with the device; medians reported, with the ratio peer / ours. The two C
   are compared (relative Frobenius norm of the difference, through aij). */

#include "paper_matrices.hpp"

#include <petscdevice.h>
#include <petscdiag.h>
#include <petsctime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

struct Timing {
  double first = 0, reuse = 0;
};

double Median(std::vector<double> t)
{
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/* Times one product kind (0 AB, 1 AtB, 2 ABt) of A and B; C is kept. */
PetscErrorCode TimeProduct(Mat A, Mat B, int kind, PetscInt reps, Timing *t, Mat *C)
{
  PetscDeviceContext  dctx;
  std::vector<double> first, reuse;

  PetscFunctionBeginUser;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  auto product = [&](MatReuse r, Mat *X) -> PetscErrorCode {
    if (kind == 0) return MatMatMult(A, B, r, PETSC_DEFAULT, X);
    if (kind == 1) return MatTransposeMatMult(A, B, r, PETSC_DEFAULT, X);
    return MatMatTransposeMult(A, B, r, PETSC_DEFAULT, X);
  };
  for (PetscInt rep = 0; rep < reps; rep++) {
    PetscLogDouble t0, t1;
    Mat            X;
    PetscCall(PetscTime(&t0));
    PetscCall(product(MAT_INITIAL_MATRIX, &X));
    PetscCall(PetscDeviceContextSynchronize(dctx));
    PetscCall(PetscTime(&t1));
    first.push_back(t1 - t0);
    PetscCall(PetscTime(&t0));
    PetscCall(product(MAT_REUSE_MATRIX, &X));
    PetscCall(PetscDeviceContextSynchronize(dctx));
    PetscCall(PetscTime(&t1));
    reuse.push_back(t1 - t0);
    if (rep + 1 < reps) PetscCall(MatDestroy(&X));
    else *C = X;
  }
  t->first = Median(first);
  t->reuse = Median(reuse);
  PetscFunctionReturn(0);
}

/* ||C1 - C2||_F / ||C2||_F, both through aij. */
PetscErrorCode RelDiff(Mat C1, Mat C2, PetscReal *rel)
{
  Mat       X, Y;
  PetscReal nd, nr;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(C1, MATAIJ, MAT_INITIAL_MATRIX, &X));
  PetscCall(MatConvert(C2, MATAIJ, MAT_INITIAL_MATRIX, &Y));
  PetscCall(MatNorm(Y, NORM_FROBENIUS, &nr));
  PetscCall(MatAXPY(X, -1.0, Y, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(X, NORM_FROBENIUS, &nd));
  *rel = nr > 0 ? nd / nr : nd;
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Y));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  PetscInt    n = 10000, dga = 200, dgb = 200, reps = 3;
  char        types[2][64] = {"diag", "aij"}, csv[PETSC_MAX_PATH_LEN] = "";
  PetscBool   flg;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dga", &dga, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dgb", &dgb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv, sizeof(csv), NULL));
  {
    char    *list[2];
    PetscInt nt = 2;
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", list, &nt, &flg));
    if (flg) {
      PetscCheck(nt == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-types needs two matrix types");
      for (int t = 0; t < 2; t++) {
        PetscCall(PetscStrncpy(types[t], list[t], sizeof(types[t])));
        PetscCall(PetscFree(list[t]));
      }
    }
  }
  const std::vector<PetscInt> offa = bench::RandomOffsets(n, dga, 1), offb = bench::RandomOffsets(n, dgb, 2);
  Mat    A[2], B[2], C[2][3];
  Timing t[2][3];
  for (int k = 0; k < 2; k++) {
    PetscCall(bench::CreateRandomDiagonals(PETSC_COMM_WORLD, types[k], n, offa, 11, &A[k]));
    PetscCall(bench::CreateRandomDiagonals(PETSC_COMM_WORLD, types[k], n, offb, 22, &B[k]));
    for (int kind = 0; kind < 3; kind++) PetscCall(TimeProduct(A[k], B[k], kind, reps, &t[k][kind], &C[k][kind]));
  }
  MatInfo ia, ib, ic;
  PetscCall(MatGetInfo(A[1], MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(B[1], MAT_GLOBAL_SUM, &ib));
  PetscCall(MatGetInfo(C[1][0], MAT_GLOBAL_SUM, &ic));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "n=%" PetscInt_FMT ", dgA=%zu nzA=%.0f, dgB=%zu nzB=%.0f, nzC=%.0f (%s), %d rank(s)\n", n, offa.size(), ia.nz_used, offb.size(), ib.nz_used, ic.nz_used, types[1], size));
  const char *names[3] = {"AB", "AtB", "ABt"};
  for (int kind = 0; kind < 3; kind++) {
    PetscReal rel;
    PetscCall(RelDiff(C[0][kind], C[1][kind], &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s %-12s first %9.2f ms reuse %9.2f ms | %-12s first %9.2f ms reuse %9.2f ms | ratio first %.1fx reuse %.1fx (C agree to %.1e)\n", names[kind], types[0], 1e3 * t[0][kind].first, 1e3 * t[0][kind].reuse, types[1],
                          1e3 * t[1][kind].first, 1e3 * t[1][kind].reuse, t[1][kind].first / t[0][kind].first, t[1][kind].reuse / t[0][kind].reuse, (double)rel));
    PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the two types give different products (%.3e)", names[kind], (double)rel);
    if (csv[0]) {
      FILE *f;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &f));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%" PetscInt_FMT ",%zu,%zu,%.0f,%.0f,%.0f,%d,%s,%s,%.6e,%.6e,%s,%.6e,%.6e\n", n, offa.size(), offb.size(), ia.nz_used, ib.nz_used, ic.nz_used, size, names[kind], types[0], t[0][kind].first,
                             t[0][kind].reuse, types[1], t[1][kind].first, t[1][kind].reuse));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
    }
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&A[k]));
    PetscCall(MatDestroy(&B[k]));
    for (int kind = 0; kind < 3; kind++) PetscCall(MatDestroy(&C[k][kind]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
