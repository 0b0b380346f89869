/* MATDIAG against aij (ops_testing.hpp): factorizations. ILU(0) and ICC(0)
   of a process without rows, a new nonzero location after a factorization
   (the symbolic phase redone, as for aij), and PCQR on a normal matrix. */
#include "ops_testing.hpp"

#include <petscksp.h>

using namespace ops_testing;

namespace {

/* A process without rows (a field or a redistributed system that leaves
   one out; ksp ex84 of PETSc 3.25): its 0 x 0 block factors by ILU(0) and
   ICC(0) of the petsc package and solves, as aij's does. */
PetscErrorCode TestEmptyFactor()
{
  Mat D;
  Vec b, x;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, &D));
  PetscCall(MatSetSizes(D, 0, 0, 0, 0));
  PetscCall(MatSetType(D, MATSEQDIAG));
  PetscCall(MatSetUp(D));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(D, &x, &b));
  for (MatFactorType ft : {MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    Mat           F;
    IS            row, col;
    MatFactorInfo info;
    PetscCall(MatFactorInfoInitialize(&info));
    info.fill = 1.0;
    PetscCall(MatGetOrdering(D, MATORDERINGNATURAL, &row, &col)); /* what PCILU / PCICC pass */
    PetscCall(MatGetFactor(D, MATSOLVERPETSC, ft, &F));
    if (ft == MAT_FACTOR_ILU) {
      PetscCall(MatILUFactorSymbolic(F, D, row, col, &info));
      PetscCall(MatLUFactorNumeric(F, D, &info));
    } else {
      PetscCall(MatICCFactorSymbolic(F, D, row, &info));
      PetscCall(MatCholeskyFactorNumeric(F, D, &info));
    }
    PetscCall(ISDestroy(&row));
    PetscCall(ISDestroy(&col));
    PetscCall(MatSolve(F, b, x));
    PetscCall(Record(true, "empty factor", Fmt("%s of a 0 x 0 diag matrix, and its solve", ft == MAT_FACTOR_ILU ? "ILU(0)" : "ICC(0)")));
    PetscCall(MatDestroy(&F));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

/* A value set where the matrix had no entry, inside a stored diagonal, after
   a factorization: a new nonzero location for aij (its nonzero state grows,
   the PC redoes its symbolic phase); diag must tell the PC the same, or the
   factorization reuses a symbolic phase of the old structure. LU (bjacobi's
   sub-LU in parallel), solutions against aij's. */
PetscErrorCode TestNewNonzeroLocation()
{
  const PetscInt n = 24;
  Mat            M[2];
  KSP            ksp[2];
  Vec            b, x[2];
  PetscInt       rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(CreateAijDiagPair(n, M));
  for (Mat X : M) PetscCall(MatSetOption(X, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(M[0], &rstart, &rend));
  for (Mat X : M) {
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscScalar four = 4.0, minus = -1.0;
      PetscCall(MatSetValues(X, 1, &i, 1, &i, &four, INSERT_VALUES));
      if (i > 0 && i % 3 != 0) { /* the subdiagonal, with gaps: stored zeros in diag */
        const PetscInt j = i - 1;
        PetscCall(MatSetValues(X, 1, &i, 1, &j, &minus, INSERT_VALUES));
      }
      if (i + 1 < n) {
        const PetscInt j = i + 1;
        PetscCall(MatSetValues(X, 1, &i, 1, &j, &minus, INSERT_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatCreateVecs(M[0], &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(FillVec(b, 3));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int t = 0; t < 2; t++) {
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[t]));
    PetscCall(KSPSetOperators(ksp[t], M[t], M[t]));
    PetscCall(KSPSetType(ksp[t], KSPPREONLY));
    PetscCall(KSPGetPC(ksp[t], &pc));
    if (size == 1) PetscCall(PCSetType(pc, PCLU));
    else {
      PetscCall(KSPSetType(ksp[t], KSPGMRES));
      PetscCall(KSPSetTolerances(ksp[t], 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 200));
      PetscCall(PCSetType(pc, PCBJACOBI));
      PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_type", "lu"));
    }
    PetscCall(KSPSetFromOptions(ksp[t]));
  }
  for (int round = 0; round < 2; round++) {
    PetscObjectState before[2], after[2];
    for (int t = 0; t < 2; t++) {
      PetscCall(MatGetNonzeroState(M[t], &before[t]));
      if (round == 1) { /* a(i, i - 1) for a gap row: a stored zero of diag, no entry of aij */
        for (PetscInt i = rstart; i < rend; i++)
          if (i > 0 && i % 3 == 0) {
            const PetscInt    j = i - 1;
            const PetscScalar v = -2.0;
            PetscCall(MatSetValues(M[t], 1, &i, 1, &j, &v, INSERT_VALUES));
          }
        PetscCall(MatAssemblyBegin(M[t], MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(M[t], MAT_FINAL_ASSEMBLY));
      }
      PetscCall(MatGetNonzeroState(M[t], &after[t]));
      PetscCall(KSPSolve(ksp[t], b, x[t]));
    }
    PetscReal e;
    PetscCall(VecRelDiff(x[1], x[0], &e));
    /* in parallel bjacobi's blocks are diag's own sequential matrices, which
       tell their sub-solvers; the parallel matrix, whose aij copy nothing
       built, keeps its state: only the solutions are compared there */
    const bool state_ok = size > 1 || (before[0] != after[0]) == (before[1] != after[1]);
    PetscCall(Record(e <= 1e-10 && state_ok, "new nonzero location",
                     Fmt("solve %d: diag against aij %.2e, nonzero state changed: aij %d diag %d", round + 1, (double)e, (int)(before[0] != after[0]), (int)(before[1] != after[1]))));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-sub_pc_type"));
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPDestroy(&ksp[t]));
    PetscCall(MatDestroy(&M[t]));
    PetscCall(VecDestroy(&x[t]));
  }
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* PCQR on a normal matrix of the operator (LSQR, ksp ex27 -pc_type qr):
   PETSc's SPQR reads the matrix inside the normal matrix as seqaij, and
   with diag inside it corrupted the heap; diag's factors of normal
   matrices work on its aij copy. Solutions against aij's; skipped where
   this PETSc has no QR for normal matrices. bjacobi's sub-QR in parallel. */
PetscErrorCode TestNormalQR()
{
  const PetscInt n = 30;
  PetscBool      found_package, found_type;
  PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
  Mat            M[2], N[2];
  KSP            ksp[2];
  Vec            b, x[2];
  PetscInt       rstart, rend;
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCall(MatSolverTypeGet(MATSOLVERSPQR, MATNORMALHERMITIAN, MAT_FACTOR_QR, &found_package, &found_type, &create));
  if (!create) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "normal QR: this PETSc has no QR for normal matrices (SPQR): skipped\n"));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(CreateAijDiagPair(n, M));
  for (int t = 0; t < 2; t++) {
    PetscCall(MatGetOwnershipRange(M[t], &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscInt    cols[3] = {i, (i + 1) % n, (i + 7) % n};
      const PetscScalar vals[3] = {3.0 + (PetscScalar)(i % 5), -1.0, 0.5};
      PetscCall(MatSetValues(M[t], 1, &i, 3, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(M[t], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[t], MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateNormalHermitian(M[t], &N[t]));
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[t]));
    PetscCall(KSPSetType(ksp[t], KSPLSQR));
    PetscCall(KSPSetOperators(ksp[t], M[t], N[t]));
    PetscCall(KSPSetTolerances(ksp[t], 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 100));
    PetscCall(KSPGetPC(ksp[t], &pc));
    PetscCall(PCSetType(pc, size == 1 ? PCQR : PCBJACOBI));
    if (size > 1) PetscCall(PetscOptionsSetValue(NULL, "-sub_pc_type", "qr"));
    PetscCall(KSPSetFromOptions(ksp[t]));
  }
  PetscCall(MatCreateVecs(M[0], &x[0], &b));
  PetscCall(VecDuplicate(x[0], &x[1]));
  PetscCall(FillVec(b, 4));
  PetscInt its[2];
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPSolve(ksp[t], b, x[t]));
    PetscCall(KSPGetIterationNumber(ksp[t], &its[t]));
  }
  PetscReal e;
  PetscCall(VecRelDiff(x[1], x[0], &e));
  PetscCall(Record(e <= 1e-10 && its[0] == its[1], "normal QR", Fmt("LSQR with %s: diag against aij %.2e, iterations aij %d diag %d", size == 1 ? "PCQR" : "bjacobi/QR", (double)e, (int)its[0], (int)its[1])));
  PetscCall(PetscOptionsClearValue(NULL, "-sub_pc_type"));
  for (int t = 0; t < 2; t++) {
    PetscCall(KSPDestroy(&ksp[t]));
    PetscCall(MatDestroy(&N[t]));
    PetscCall(MatDestroy(&M[t]));
    PetscCall(VecDestroy(&x[t]));
  }
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG against aij: factorizations",
              {},
              {
                {"empty factor", TestEmptyFactor},
                {"new nonzero location", TestNewNonzeroLocation},
                {"normal QR", TestNormalQR}
              });
}
