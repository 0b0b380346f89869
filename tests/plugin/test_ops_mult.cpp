/* MATDIAG against aij (ops_testing.hpp): products with vectors. Every
   case's MatMult, MatMultAdd, MatMultTranspose, MatMultTransposeAdd (with
   y == z too) and MatGetDiagonal; then SOR of a multi-field operator
   (block Gauss-Seidel on inodes, as aij), point SOR after the values,
   omega or the shift change, and aij's inode options. */
#include "ops_testing.hpp"

using namespace ops_testing;

namespace {

/* The main diagonal of an aij matrix from its rows (mpiaij's MatGetDiagonal
   refuses rectangular matrices). */
PetscErrorCode RefDiagonal(Mat A, Vec d)
{
  PetscInt     r0, r1;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  PetscCall(VecGetArrayWrite(d, &a));
  for (PetscInt i = r0; i < r1; i++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    a[i - r0] = 0;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] == i) a[i - r0] += vals[k];
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscCall(VecRestoreArrayWrite(d, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode TestProducts(const Case &c)
{
  Mat D, A;
  Vec x, z, y1, y2, xt, zt, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(MatCreateVecs(A, &x, &z));
  PetscCall(VecDuplicate(z, &y1));
  PetscCall(VecDuplicate(z, &y2));
  PetscCall(VecDuplicate(z, &xt));
  PetscCall(VecDuplicate(x, &zt));
  PetscCall(VecDuplicate(x, &t1));
  PetscCall(VecDuplicate(x, &t2));
  PetscCall(FillVec(x, 1));
  PetscCall(FillVec(z, 2));
  PetscCall(FillVec(xt, 3));
  PetscCall(FillVec(zt, 4));

  PetscCall(MatMult(D, x, y1));
  PetscCall(MatMult(A, x, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatMult"));
  PetscCall(VecSet(y1, 7.0)); /* a second product must not depend on y's old values */
  PetscCall(MatMult(D, x, y1));
  PetscCall(CheckVec(y1, y2, c.name, "MatMult again"));
  PetscCall(MatMultAdd(D, x, z, y1));
  PetscCall(MatMultAdd(A, x, z, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatMultAdd"));
  PetscCall(VecCopy(z, y1));
  PetscCall(VecCopy(z, y2));
  PetscCall(MatMultAdd(D, x, y1, y1));
  PetscCall(MatMultAdd(A, x, y2, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatMultAdd y == z"));

  PetscCall(MatMultTranspose(D, xt, t1));
  PetscCall(MatMultTranspose(A, xt, t2));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTranspose"));
  PetscCall(VecSet(t1, -3.0));
  PetscCall(MatMultTranspose(D, xt, t1));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTranspose again"));
  PetscCall(MatMultTransposeAdd(D, xt, zt, t1));
  PetscCall(MatMultTransposeAdd(A, xt, zt, t2));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTransposeAdd"));
  PetscCall(VecCopy(zt, t1));
  PetscCall(VecCopy(zt, t2));
  PetscCall(MatMultTransposeAdd(D, xt, t1, t1));
  PetscCall(MatMultTransposeAdd(A, xt, t2, t2));
  PetscCall(CheckVec(t1, t2, c.name, "MatMultTransposeAdd y == z"));

  PetscCall(MatGetDiagonal(D, y1));
  PetscCall(RefDiagonal(A, y2));
  PetscCall(CheckVec(y1, y2, c.name, "MatGetDiagonal"));

  for (Vec v : {x, z, y1, y2, xt, zt, t1, t2}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* SOR of a multi-field DMDA operator: aij runs block Gauss-Seidel on its
   inodes (rows of one grid point share their columns) when omega = 1;
   diag's MatSOR must give aij's result, not point SOR's (which differs:
   checked, so the test can fail). Sequential and parallel (local sweeps). */
PetscErrorCode TestInodeSOR()
{
  DaSpec s;
  Mat    D, A;
  Vec    b, xd, xa, xp;

  PetscFunctionBeginUser;
  s.mx  = 9;
  s.my  = 7;
  s.dof = 2;
  s.st  = DMDA_STENCIL_BOX;
  PetscCall(BuildDA(s, 11, &D, &A));
  PetscCall(MatShift(D, 20.0)); /* diagonally dominant: sweeps stay bounded */
  PetscCall(MatShift(A, 20.0));
  PetscCall(MatCreateVecs(A, &xa, &b));
  PetscCall(VecDuplicate(xa, &xd));
  PetscCall(VecDuplicate(xa, &xp));
  PetscCall(FillVec(b, 5));
  const MatSORType flags[] = {(MatSORType)(SOR_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), SOR_LOCAL_FORWARD_SWEEP, SOR_EISENSTAT};
  PetscMPIInt      size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (MatSORType flag : flags) {
    if (size > 1 && !(flag & (SOR_LOCAL_SYMMETRIC_SWEEP | SOR_EISENSTAT))) continue; /* parallel SOR is local sweeps only */
    const PetscInt its = flag & SOR_EISENSTAT ? 1 : 2;
    PetscReal      e, ep;
    for (Vec x : {xa, xd, xp}) PetscCall(FillVec(x, 9));
    PetscCall(MatSOR(A, b, 1.0, flag, 0.0, its, 1, xa));
    PetscCall(MatSOR(D, b, 1.0, flag, 0.0, its, 1, xd));
    PetscCall(MatSetOption(A, MAT_USE_INODES, PETSC_FALSE)); /* point SOR, for the can-fail check */
    PetscCall(MatSOR(A, b, 1.0, flag, 0.0, its, 1, xp));
    PetscCall(MatSetOption(A, MAT_USE_INODES, PETSC_TRUE));
    PetscCall(VecRelDiff(xd, xa, &e));
    PetscCall(VecRelDiff(xp, xa, &ep));
    PetscCall(Record(e <= 1e-12 && ep > 1e-8, "inode SOR", Fmt("flag %d: diag against aij %.2e (point SOR against aij %.2e)", (int)flag, (double)e, (double)ep)));
  }
  for (Vec *v : {&b, &xd, &xa, &xp}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* Point SOR after the values, omega or the shift change: diag keeps the
   inverted diagonal between calls (as aij does); each change must reach
   the sweep. Each step's result is aij's, and differs from the step
   before (so a sweep with a stale diagonal would fail). Local sweeps
   under MPI. */
PetscErrorCode TestSORChanges()
{
  DaSpec s;
  Mat    D, A;
  Vec    b, xd, xa, prev;

  PetscFunctionBeginUser;
  s.mx = 11;
  s.my = 9;
  PetscCall(BuildDA(s, 13, &D, &A));
  PetscCall(MatShift(D, 20.0));
  PetscCall(MatShift(A, 20.0));
  PetscCall(MatCreateVecs(A, &xa, &b));
  PetscCall(VecDuplicate(xa, &xd));
  PetscCall(VecDuplicate(xa, &prev));
  PetscCall(FillVec(b, 5));
  const MatSORType flag = (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS);
  struct Step {
    const char *what;
    PetscReal   omega, fshift;
    int         change; /* 0: none, 1: MatScale, 2: a new main diagonal entry */
  };
  const Step steps[] = {{"omega 1", 1.0, 0.0, 0}, {"omega 1.3", 1.3, 0.0, 0}, {"shift 0.5", 1.3, 0.5, 0}, {"MatScale", 1.3, 0.5, 1}, {"a diagonal entry set", 1.3, 0.5, 2}};
  for (const Step &st : steps) {
    if (st.change == 1) {
      PetscCall(MatScale(D, 0.5));
      PetscCall(MatScale(A, 0.5));
    } else if (st.change == 2) {
      PetscInt r0, r1;
      PetscCall(MatGetOwnershipRange(A, &r0, &r1));
      for (Mat M : {D, A}) {
        PetscCall(MatSetValue(M, r0, r0, 100.0, INSERT_VALUES));
        PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
      }
    }
    PetscCall(VecSet(xa, 0.0));
    PetscCall(VecSet(xd, 0.0));
    PetscCall(MatSOR(A, b, st.omega, flag, st.fshift, 1, 1, xa));
    PetscCall(MatSOR(D, b, st.omega, flag, st.fshift, 1, 1, xd));
    PetscReal e, moved = 1;
    PetscCall(VecRelDiff(xd, xa, &e));
    if (st.omega != 1.0 || st.change) PetscCall(VecRelDiff(xd, prev, &moved));
    PetscCall(Record(e <= 1e-12 && moved > 1e-8, "SOR changes", st.what, Fmt("diag against aij %.2e, against the step before %.2e", (double)e, (double)moved)));
    PetscCall(VecCopy(xd, prev));
  }
  for (Vec *v : {&b, &xd, &xa, &prev}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* aij's inode options reach diag as they reach aij: read when the matrix is
   created (so PETSc counts them used), and -mat_no_inode turns diag's SOR of
   a multi-field operator into point SOR, as it does aij's. */
PetscErrorCode TestInodeOptions()
{
  DaSpec    s;
  Mat       D, A;
  Vec       b, xd, xa;
  PetscBool used = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_no_inode", NULL));
  s.mx  = 9;
  s.my  = 7;
  s.dof = 2;
  s.st  = DMDA_STENCIL_BOX;
  PetscCall(BuildDA(s, 11, &D, &A));
  PetscCall(PetscOptionsUsed(NULL, "mat_no_inode", &used)); /* stored without the dash */
  PetscCall(Record(used == PETSC_TRUE, "inode options", "-mat_no_inode is read when the matrices are created"));
  PetscCall(MatShift(D, 20.0));
  PetscCall(MatShift(A, 20.0));
  PetscCall(MatCreateVecs(A, &xa, &b));
  PetscCall(VecDuplicate(xa, &xd));
  PetscCall(FillVec(b, 5));
  PetscCall(FillVec(xa, 9));
  PetscCall(FillVec(xd, 9));
  PetscCall(MatSOR(A, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 2, 1, xa));
  PetscCall(MatSOR(D, b, 1.0, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), 0.0, 2, 1, xd));
  PetscReal e;
  PetscCall(VecRelDiff(xd, xa, &e));
  PetscCall(Record(e <= 1e-12, "inode options", "-mat_no_inode: point SOR with both", Fmt("diag against aij %.2e", (double)e)));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_no_inode"));
  for (Vec *v : {&b, &xd, &xa}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG against aij: products with vectors and SOR",
              {
                {"products", TestProducts}
              },
              {
                {"inode SOR", TestInodeSOR},
                {"SOR changes", TestSORChanges},
                {"inode options", TestInodeOptions}
              });
}
