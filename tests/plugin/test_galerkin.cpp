/* Galerkin products (MatPtAP, MatRARt) of a diag operator with an aij
   transfer that diag does not multiply by diagonals (rectangular, slanted
   bands: products/product_companion.cpp). The result must equal aij's product
   of the same matrices and be
   - diag when its diagonals are few and full: a linear interpolation
     (1D, and 2D on a grid) of a stencil operator, the geometric multigrid
     case;
   - aij when they are scattered: an aggregation onto randomly numbered
     coarse points, the algebraic multigrid case;
   after MAT_INITIAL_MATRIX and after MAT_REUSE_MATRIX with new operator
   values (the result keeps its type, and a diag result its structure:
   its nonzero state does not move). 1 to 3 processes. */
#include "plugin_testing.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

using namespace plugin_testing;

namespace {

/* A stencil operator on an nx x ny grid (ny = 1: 1D), lexicographic
   numbering, random values (same on every process), as diag and as aij. */
PetscErrorCode Operator(PetscInt nx, PetscInt ny, unsigned seed, Mat *D, Mat *A)
{
  const PetscInt n = nx * ny;
  PetscInt       r0, r1;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 9, NULL, 9, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &r0, &r1));
  PetscCall(MatCreate(PETSC_COMM_WORLD, D));
  PetscCall(MatSetSizes(*D, r1 - r0, r1 - r0, n, n));
  PetscCall(MatSetType(*D, MATDIAG));
  PetscCall(MatSetUp(*D));
  for (PetscInt r = r0; r < r1; r++) {
    const PetscInt i = r % nx, j = r / nx;
    for (PetscInt dj = -1; dj <= 1; dj++)
      for (PetscInt di = -1; di <= 1; di++) {
        if (i + di < 0 || i + di >= nx || j + dj < 0 || j + dj >= ny) continue;
        const PetscInt    c = r + di + dj * nx;
        const PetscScalar v = (c == r ? 10.0 : 0.0) + Unit(seed, r, c);
        PetscCall(MatSetValue(*A, r, c, v, INSERT_VALUES));
        PetscCall(MatSetValue(*D, r, c, v, INSERT_VALUES));
      }
  }
  PetscCall(Assemble(*A));
  PetscCall(Assemble(*D));
  PetscFunctionReturn(0);
}

/* The transfer from an (nx+1)/2 x (ny+1)/2 coarse grid (ny = 1: 1D) to the
   nx x ny grid (nx, ny odd), fine rows laid out as A's: linear
   interpolation, or (scattered) each fine point to the coarse point of its
   2 x 2 block, the coarse points numbered in a random order. */
PetscErrorCode Transfer(Mat A, PetscInt nx, PetscInt ny, bool scattered, Mat *P)
{
  const PetscInt cx = (nx + 1) / 2, cy = ny == 1 ? 1 : (ny + 1) / 2, nc = cx * cy;
  PetscInt       r0, r1;
  std::vector<PetscInt> perm(nc);

  PetscFunctionBeginUser;
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(7)); /* the same on every process */
  PetscCall(MatGetOwnershipRange(A, &r0, &r1));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, r1 - r0, PETSC_DECIDE, nx * ny, nc, 4, NULL, 4, NULL, P));
  for (PetscInt r = r0; r < r1; r++) {
    const PetscInt i = r % nx, j = r / nx;
    if (scattered) {
      PetscCall(MatSetValue(*P, r, perm[i / 2 + (j / 2) * cx], 1.0, INSERT_VALUES));
      continue;
    }
    /* the coarse points around (i, j) with linear weights in each direction */
    const PetscInt ci[2] = {i / 2, (i + 1) / 2}, cj[2] = {j / 2, (j + 1) / 2};
    for (int b = 0; b < (cj[0] == cj[1] ? 1 : 2); b++)
      for (int a = 0; a < (ci[0] == ci[1] ? 1 : 2); a++) {
        const PetscScalar w = (ci[0] == ci[1] ? 1.0 : 0.5) * (cj[0] == cj[1] ? 1.0 : 0.5);
        PetscCall(MatSetValue(*P, r, ci[a] + cj[b] * cx, w, INSERT_VALUES));
      }
  }
  PetscCall(Assemble(*P));
  PetscFunctionReturn(0);
}

/* X (the diag product) against R (aij's): type, entries, and MatMult. */
PetscErrorCode Compare(Mat X, Mat R, bool want_diag, const std::string &cs, const std::string &op)
{
  Mat       C;
  PetscReal nd, nr;
  MatType   type;

  PetscFunctionBeginUser;
  PetscCall(MatGetType(X, &type));
  PetscCall(Record(IsDiag(X) == want_diag, cs, op + (want_diag ? ": result diag" : ": result aij"), type));
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, R, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(R, NORM_FROBENIUS, &nr));
  PetscCall(MatDestroy(&C));
  PetscCall(Record(nd <= kTol * nr, cs, op + ": equals aij's", Fmt("relative difference %.3e", (double)(nd / nr))));
  PetscFunctionReturn(0);
}

PetscErrorCode TestGalerkin(PetscInt nx, PetscInt ny, bool scattered, bool rart)
{
  const std::string cs = Fmt("%s %s %" PetscInt_FMT "x%" PetscInt_FMT, rart ? "RARt" : "PtAP", scattered ? "aggregation" : "interpolation", nx, ny);
  Mat               D, A, P, R = NULL, Cd, Ca;
  PetscObjectState  nz;

  PetscFunctionBeginUser;
  PetscCall(Operator(nx, ny, 3, &D, &A));
  PetscCall(Transfer(A, nx, ny, scattered, &P));
  if (rart) PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  auto product = [&](Mat op, MatReuse reuse, Mat *C) { return rart ? MatRARt(op, R, reuse, PETSC_DEFAULT, C) : MatPtAP(op, P, reuse, PETSC_DEFAULT, C); };
  PetscCall(product(D, MAT_INITIAL_MATRIX, &Cd));
  PetscCall(product(A, MAT_INITIAL_MATRIX, &Ca));
  PetscCall(Compare(Cd, Ca, !scattered, cs, "initial"));
  /* new operator values, same structure */
  PetscCall(MatScale(D, -2.5));
  PetscCall(MatShift(D, 1.0));
  PetscCall(MatScale(A, -2.5));
  PetscCall(MatShift(A, 1.0));
  PetscCall(MatGetNonzeroState(Cd, &nz));
  PetscCall(product(D, MAT_REUSE_MATRIX, &Cd));
  PetscCall(MatDestroy(&Ca));
  PetscCall(product(A, MAT_INITIAL_MATRIX, &Ca));
  PetscCall(Compare(Cd, Ca, !scattered, cs, "MAT_REUSE_MATRIX after new values"));
  if (!scattered) {
    PetscObjectState nz2;
    PetscCall(MatGetNonzeroState(Cd, &nz2));
    PetscCall(Record(nz2 == nz, cs, "MAT_REUSE_MATRIX keeps the diag result's structure"));
  }
  for (Mat m : {D, A, P, R, Cd, Ca}) PetscCall(MatDestroy(&m));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  CaseFilter want;
  int        exit_code;

  PetscCall(Start(&argc, &argv, "Galerkin products of diag operators with aij transfers against aij's"));
  PetscCall(want.FromOptions());
  for (bool rart : {false, true})
    for (bool scattered : {false, true}) {
      if (want("1d")) Run("1d", "galerkin", [&] { return TestGalerkin(201, 1, scattered, rart); });
      if (want("2d")) Run("2d", "galerkin", [&] { return TestGalerkin(21, 17, scattered, rart); });
    }
  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}
