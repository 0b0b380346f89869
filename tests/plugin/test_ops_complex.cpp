/* MATDIAG against aij with complex values (builds with complex scalars;
   ops_testing.hpp's cases with both parts of every value nonzero): the
   products MatMult(Add), MatMultTranspose(Add) and
   MatMultHermitianTranspose(Add) (with y == z too), MatConjugate,
   MatRealPart, MatImaginaryPart, MatHermitianTranspose; MatIsSymmetric and
   MatIsHermitian of a complex symmetric and of a Hermitian matrix; and
   KSP solves of a complex Helmholtz operator (GMRES with ILU(0), ICC(0) on
   the diagonals and LU through the aij copy; bjacobi's blocks on more
   processes): the same iterations, the same solution. */
#include "ops_testing.hpp"

#include <petscksp.h>

using namespace ops_testing;

namespace {

PetscErrorCode Vecs(Mat A, Vec *x, Vec *z, Vec *y1, Vec *y2, unsigned seed)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, x, z));
  PetscCall(VecDuplicate(*z, y1));
  PetscCall(VecDuplicate(*z, y2));
  PetscCall(FillVec(*x, seed));
  PetscCall(FillVec(*z, seed + 1));
  PetscFunctionReturn(0);
}

/* y = op(M) x (+ z) for op A, A^T, A^H; `add`: with z; `alias`: z is y. */
PetscErrorCode Apply(Mat M, int op, bool add, bool alias, Vec x, Vec z, Vec y)
{
  PetscFunctionBeginUser;
  if (alias) PetscCall(VecCopy(z, y));
  Vec zz = alias ? y : z;
  if (op == 0) PetscCall(add ? MatMultAdd(M, x, zz, y) : MatMult(M, x, y));
  else if (op == 1) PetscCall(add ? MatMultTransposeAdd(M, x, zz, y) : MatMultTranspose(M, x, y));
  else PetscCall(add ? MatMultHermitianTransposeAdd(M, x, zz, y) : MatMultHermitianTranspose(M, x, y));
  PetscFunctionReturn(0);
}

/* Every product with a vector, diag against aij; A^T x and A^H x differ. */
PetscErrorCode TestProducts(const Case &c)
{
  static const char *const names[3] = {"MatMult", "MatMultTranspose", "MatMultHermitianTranspose"};
  Mat                      D, A;

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  for (int op = 0; op < 3; op++) {
    Vec x, z, y1, y2;
    if (op == 0) PetscCall(Vecs(A, &x, &z, &y1, &y2, 11));
    else { /* the transposes' x has A's row layout */
      PetscCall(MatCreateVecs(A, &z, &x));
      PetscCall(VecDuplicate(z, &y1));
      PetscCall(VecDuplicate(z, &y2));
      PetscCall(FillVec(x, 13));
      PetscCall(FillVec(z, 14));
    }
    for (int variant = 0; variant < 3; variant++) { /* plain, add, add with y == z */
      const bool add = variant > 0, alias = variant == 2;
      PetscCall(VecSet(y1, 7.0)); /* the result must not depend on y's old values */
      PetscCall(Apply(D, op, add, alias, x, z, y1));
      PetscCall(Apply(A, op, add, alias, x, z, y2));
      PetscCall(CheckVec(y1, y2, c.name, std::string(names[op]) + (add ? "Add" : "") + (alias ? " y == z" : "")));
      if (op == 2 && g_size == 1) { /* each column summed by ascending row, as aij: the same sums */
        PetscReal rel;
        PetscCall(VecRelDiff(y1, y2, &rel));
        PetscCall(Record(rel == 0, c.name, std::string(names[op]) + (add ? "Add" : "") + (alias ? " y == z" : "") + " equals aij's to the bit", Fmt("relative difference %.3e", (double)rel)));
      }
    }
    PetscReal norm;
    PetscCall(MatNorm(A, NORM_FROBENIUS, &norm));
    if (op == 2 && norm > 0) { /* A^H x is not A^T x (values with imaginary parts) */
      PetscReal rel;
      PetscCall(Apply(D, 1, false, false, x, z, y1));
      PetscCall(Apply(D, 2, false, false, x, z, y2));
      PetscCall(VecRelDiff(y1, y2, &rel));
      PetscCall(Record(rel > 1e-3, c.name, "MatMultHermitianTranspose differs from MatMultTranspose", Fmt("relative difference %.3e", (double)rel)));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* MatConjugate, MatRealPart, MatImaginaryPart on copies of both, then a
   product of the changed matrix (its aij copy and ghost exchange reflect
   the new values), and MatConjugate twice: the matrix again. */
PetscErrorCode TestValueMaps(const Case &c)
{
  static const char *const names[3] = {"MatConjugate", "MatRealPart", "MatImaginaryPart"};
  Mat                      D, A;

  PetscFunctionBeginUser;
  PetscCall(c.build(2, &D, &A));
  for (int op = 0; op < 3; op++) {
    Mat Dc, Ac;
    PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &Dc));
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Ac));
    { /* an aij copy made before the change (MatIsSymmetric asks it) must not answer after it */
      PetscBool sym;
      if (c.square()) PetscCall(MatIsSymmetric(Dc, 0.0, &sym));
    }
    for (Mat M : {Dc, Ac}) {
      if (op == 0) PetscCall(MatConjugate(M));
      else if (op == 1) PetscCall(MatRealPart(M));
      else PetscCall(MatImaginaryPart(M));
    }
    PetscCall(CheckSame(Dc, Ac, c.name, names[op]));
    if (op == 0) {
      PetscCall(MatConjugate(Dc));
      PetscCall(CheckSame(Dc, A, c.name, "MatConjugate twice"));
    }
    PetscCall(MatDestroy(&Dc));
    PetscCall(MatDestroy(&Ac));
  }
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* MatHermitianTranspose (MAT_INITIAL_MATRIX) against aij's, through
   MatMult of the result too, and against MatTranspose + MatConjugate. */
PetscErrorCode TestHermitianTranspose(const Case &c)
{
  Mat D, A, Dh, Ah, Dt;

  PetscFunctionBeginUser;
  PetscCall(c.build(3, &D, &A));
  PetscCall(MatHermitianTranspose(D, MAT_INITIAL_MATRIX, &Dh));
  PetscCall(MatHermitianTranspose(A, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(CheckSame(Dh, Ah, c.name, "MatHermitianTranspose", false));
  PetscCall(MatTranspose(D, MAT_INITIAL_MATRIX, &Dt));
  PetscCall(MatConjugate(Dt));
  PetscCall(CheckSame(Dt, Ah, c.name, "MatTranspose then MatConjugate", false));
  PetscCall(MatDestroy(&Dh));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Dt));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* An n x n tridiagonal pair: complex symmetric (a(i+1, i) = a(i, i+1)) or
   Hermitian (a(i+1, i) = conj a(i, i+1), real diagonal). */
PetscErrorCode Tridiagonal(PetscInt n, bool hermitian, Mat M[2])
{
  PetscInt r0, r1;

  PetscFunctionBeginUser;
  PetscCall(CreateAijDiagPair(n, M));
  PetscCall(MatGetOwnershipRange(M[0], &r0, &r1));
  for (Mat X : {M[0], M[1]}) {
    for (PetscInt i = r0; i < r1; i++) {
      const PetscScalar d = hermitian ? (PetscScalar)(4.0 + PetscRealPart(Value(5, i, i))) : 4.0 + Value(5, i, i);
      PetscCall(MatSetValue(X, i, i, d, INSERT_VALUES));
      if (i + 1 < n) PetscCall(MatSetValue(X, i, i + 1, Value(6, i, i + 1), INSERT_VALUES));
      if (i > 0) PetscCall(MatSetValue(X, i, i - 1, hermitian ? PetscConj(Value(6, i - 1, i)) : Value(6, i - 1, i), INSERT_VALUES));
    }
    PetscCall(Assemble(X));
  }
  PetscFunctionReturn(0);
}

/* MatIsSymmetric means A^T = A and MatIsHermitian A^H = A: each holds for
   one of the two matrices, for diag as for aij. */
PetscErrorCode TestSymmetryFlags()
{
  PetscFunctionBeginUser;
  for (bool hermitian : {false, true}) {
    Mat M[2];
    PetscCall(Tridiagonal(20, hermitian, M));
    PetscBool      sym[2], her[2] = {PETSC_FALSE, PETSC_FALSE};
    PetscErrorCode herr[2];
    for (int t = 0; t < 2; t++) {
      PetscCall(MatIsSymmetric(M[t], 0.0, &sym[t]));
      /* mpiaij of PETSc 3.18 has no MatIsHermitian: diag, which asks its aij copy, errs as aij does */
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      herr[t] = MatIsHermitian(M[t], 0.0, &her[t]);
      PetscCall(PetscPopErrorHandler());
    }
    const std::string cs = hermitian ? "Hermitian tridiagonal" : "complex symmetric tridiagonal";
    PetscCall(Record(sym[1] == sym[0] && sym[1] == (PetscBool)!hermitian, cs, "MatIsSymmetric", Fmt("diag %d, aij %d", (int)sym[1], (int)sym[0])));
    if (herr[0]) PetscCall(Record(herr[1] == herr[0], cs, "MatIsHermitian errs as aij's", Fmt("diag error %d, aij error %d", (int)herr[1], (int)herr[0])));
    else PetscCall(Record(!herr[1] && her[1] == her[0] && her[1] == (PetscBool)hermitian, cs, "MatIsHermitian", Fmt("diag %d (error %d), aij %d", (int)her[1], (int)herr[1], (int)her[0])));
    if (g_size == 1) { /* PETSc's ICC(0) of a matrix marked Hermitian, not symmetric: declined (3.25: no factor) or refused (3.18: an error) for diag as for aij */
      Mat            F[2] = {NULL, NULL};
      PetscErrorCode ferr[2];
      for (int t = 0; t < 2; t++) {
        PetscCall(MatSetOption(M[t], MAT_HERMITIAN, (PetscBool)hermitian));
        PetscCall(MatSetOption(M[t], MAT_SYMMETRIC, (PetscBool)!hermitian));
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ferr[t] = MatGetFactor(M[t], MATSOLVERPETSC, MAT_FACTOR_ICC, &F[t]);
        PetscCall(PetscPopErrorHandler());
      }
      const bool got[2] = {!ferr[0] && F[0], !ferr[1] && F[1]};
      PetscCall(Record(got[0] == got[1] && got[1] == !hermitian, cs, "MatGetFactor ICC of the marked matrix as aij's", Fmt("diag %s, aij %s", got[1] ? "a factor" : "none", got[0] ? "a factor" : "none")));
      for (Mat X : F) PetscCall(MatDestroy(&X));
    }
    for (Mat X : M) PetscCall(MatDestroy(&X));
  }
  PetscFunctionReturn(0);
}

/* -div(c grad u) - (k^2 + i sigma) u on an m x m grid (5-point,
   Dirichlet), with a complex coefficient c per edge (a lossy medium): a
   complex symmetric operator (not Hermitian), indefinite in its real part
   (ksp ex11's kind of system), every entry with an imaginary part. Fills X
   (diag or aij of the DMDA). */
PetscErrorCode FillHelmholtz(Mat X, DM da, PetscInt m)
{
  PetscInt xs, ys, xm, ym;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  const PetscScalar shift = PetscCMPLX(-0.5, -0.3); /* h^2 (k^2 + i sigma), with the sign of the operator */
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      MatStencil  row = {0, j, i, 0}, col[5];
      PetscScalar v[5];
      PetscInt    n = 0;
      const PetscInt di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
      const PetscInt me = j * m + i;
      PetscScalar    diagonal = shift;
      for (int q = 0; q < 4; q++) {
        if (i + di[q] < 0 || i + di[q] >= m || j + dj[q] < 0 || j + dj[q] >= m) continue;
        const PetscInt    other = (j + dj[q]) * m + i + di[q];
        const PetscScalar c     = PetscCMPLX(1.0 + 0.3 * Unit(31, PetscMin(me, other), PetscMax(me, other)), 0.2 + 0.1 * Unit(37, PetscMin(me, other), PetscMax(me, other)));
        col[n]                  = {0, j + dj[q], i + di[q], 0};
        v[n++]                  = -c;
        diagonal += c;
      }
      for (PetscInt e = n; e < 4; e++) diagonal += 1.0; /* the Dirichlet neighbours' edges */
      col[n] = row;
      v[n++] = diagonal;
      PetscCall(MatSetValuesStencil(X, 1, &row, n, col, v, INSERT_VALUES));
    }
  PetscCall(Assemble(X));
  PetscFunctionReturn(0);
}

/* Whether the PC (or, under bjacobi, its block's PC) factored on the
   diagonals (factor/factor_native.cpp composes its factor data). */
PetscErrorCode FactoredOnDiagonals(KSP ksp, PetscBool *native)
{
  PC        pc;
  PetscBool bj;
  Mat       F;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &bj));
  if (bj) {
    KSP     *sub;
    PetscInt nlocal;
    PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, NULL, &sub));
    PetscCall(KSPGetPC(sub[0], &pc));
  }
  PetscCall(PCFactorGetMatrix(pc, &F));
  PetscObject obj = NULL;
  PetscCall(PetscObjectQuery((PetscObject)F, "MatDiagNativeFactor", &obj));
  *native = obj ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* GMRES with ILU(0), ICC(0) (bjacobi's blocks on more processes: on the
   diagonals) and LU (through the aij copy, MUMPS under MPI): diag's and
   aij's solves take the same iterations to the same solution. */
PetscErrorCode TestSolves()
{
  const PetscInt m = 24;
  DM             da;
  Mat            M[2];

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, m, m, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  for (int t = 0; t < 2; t++) {
    PetscCall(DMSetMatType(da, t ? MATDIAG : MATAIJ));
    PetscCall(DMCreateMatrix(da, &M[t]));
    PetscCall(FillHelmholtz(M[t], da, m));
  }
  for (const char *pctype : {PCILU, PCICC, PCLU}) {
    Vec      b, x[2];
    PetscInt its[2];
    KSPConvergedReason reason[2];
    PetscBool native = PETSC_FALSE;
    PetscCall(MatCreateVecs(M[0], &x[0], &b));
    PetscCall(VecDuplicate(x[0], &x[1]));
    PetscCall(FillVec(b, 21));
    for (int t = 0; t < 2; t++) {
      KSP ksp;
      PC  pc;
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, M[t], M[t]));
      PetscCall(KSPSetType(ksp, KSPGMRES));
      PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
      PetscCall(KSPGetPC(ksp, &pc));
      const bool blocks = g_size > 1 && std::string(pctype) != PCLU;
      if (blocks) {
        PetscCall(PCSetType(pc, PCBJACOBI));
        PetscCall(KSPSetUp(ksp));
        KSP     *sub;
        PetscInt nlocal;
        PC       subpc;
        PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, NULL, &sub));
        PetscCall(KSPGetPC(sub[0], &subpc));
        PetscCall(PCSetType(subpc, pctype));
      } else PetscCall(PCSetType(pc, pctype));
      if (std::string(pctype) == PCLU && g_size > 1) PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
      PetscCall(KSPSolve(ksp, b, x[t]));
      PetscCall(KSPGetIterationNumber(ksp, &its[t]));
      PetscCall(KSPGetConvergedReason(ksp, &reason[t]));
      if (t == 1 && std::string(pctype) != PCLU) PetscCall(FactoredOnDiagonals(ksp, &native));
      PetscCall(KSPDestroy(&ksp));
    }
    const std::string cs = std::string("Helmholtz 24x24, GMRES + ") + (g_size > 1 && std::string(pctype) != PCLU ? "bjacobi/" : "") + pctype;
    PetscCall(Record(reason[0] > 0 && reason[1] > 0, cs, "both converge", Fmt("reasons diag %d, aij %d", (int)reason[1], (int)reason[0])));
    PetscCall(Record(its[0] == its[1], cs, "the same iterations", Fmt("diag %d, aij %d", (int)its[1], (int)its[0])));
    PetscReal rel;
    PetscCall(VecRelDiff(x[1], x[0], &rel));
    PetscCall(Record(rel <= 1e-8, cs, "the same solution", Fmt("relative difference %.3e", (double)rel)));
    if (std::string(pctype) != PCLU) PetscCall(Record(native == PETSC_TRUE, cs, "factored on the diagonals"));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x[0]));
    PetscCall(VecDestroy(&x[1]));
  }
  for (Mat X : M) PetscCall(MatDestroy(&X));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  g_complex_values = true;
  return Main(argc, argv, "diag against aij with complex values\n",
              {{"products", TestProducts}, {"conjugate and parts", TestValueMaps}, {"Hermitian transpose", TestHermitianTranspose}},
              {{"symmetry flags", TestSymmetryFlags}, {"solves", TestSolves}});
}
