/* Scattered matrices become aij (convert/scattered.cpp). A matrix whose rows
   couple to columns spread over the whole matrix (a finite-element
   operator on a refined mesh) is assembled with -mat_type diag through
   MatSetValues and through the COO interface: at its first assembly it
   becomes aij in place (aijcusparse with -vec_type cuda), with the
   entries, the options prefix, the name and the null space the diag
   matrix had, and MatMult equal to an aij matrix assembled from the same
   entries; with -mat_diag_scattered_fill 0 it stays diag and gives the
   same products. A banded matrix of the same size stays diag; its
   submatrix in a scrambled order, which would be scattered, is aij. A
   matrix whose entries would take more diagonals than
   -mat_diag_max_diagonals, on every process or on one, becomes aij too
   (by MatSetValues and by COO), and is refused with
   -mat_diag_scattered_fill 0; a DMDA's matrix over the limit is refused
   at assembly on every process and stays diag. 1 and 2 processes. */
#include "plugin_testing.hpp"

#include <petscdm.h>
#include <petscdmda.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace plugin_testing;

static const char help[] = "Scattered matrices assembled as diag become aij.\n";

namespace {

const PetscInt kN = 3000; /* rows: a scattered matrix stores about kN^2 = 9M entries, 2.3M a process on two (over the 1M floor) */

/* Row i's columns: i, and four columns spread over the matrix (the same
   on every process), or i +- 1, 2 (banded). With `far` the last row also
   couples to columns 0, 1 and 2: three more diagonals, on the last
   process only. */
std::vector<PetscInt> ScatteredColumns(PetscInt i, bool banded, bool far)
{
  std::vector<PetscInt> c{i};
  for (PetscInt q = 1; q <= 4; q++) {
    const PetscInt j = banded ? i + (q % 2 ? q : -q) : (i * 7919 + q * 104729) % kN;
    if (j >= 0 && j < kN) c.push_back(j);
  }
  if (far && i == kN - 1) c.insert(c.end(), {0, 1, 2});
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

PetscScalar Value(PetscInt i, PetscInt j) { return i == j ? 10.0 : -1.0 / (1.0 + (PetscReal)((i + 3 * j) % 11)); }

/* A kN x kN matrix of type `type` with those entries, by MatSetValues or by COO. */
PetscErrorCode Build(MatType type, bool banded, bool coo, const char *prefix, MatNullSpace nsp, Mat *A, bool far = false)
{
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, kN, kN));
  if (prefix) PetscCall(MatSetOptionsPrefix(*A, prefix));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  PetscCall(PetscObjectSetName((PetscObject)*A, "scattered"));
  if (nsp) PetscCall(MatSetNullSpace(*A, nsp));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  if (coo) {
    std::vector<PetscInt>    ci, cj;
    std::vector<PetscScalar> v;
    for (PetscInt i = rstart; i < rend; i++)
      for (PetscInt j : ScatteredColumns(i, banded, far)) {
        ci.push_back(i);
        cj.push_back(j);
        v.push_back(Value(i, j));
      }
    PetscCall(MatSetPreallocationCOO(*A, (PetscCount)ci.size(), ci.data(), cj.data()));
    PetscCall(MatSetValuesCOO(*A, v.data(), INSERT_VALUES));
  } else {
    for (PetscInt i = rstart; i < rend; i++) {
      const std::vector<PetscInt> c = ScatteredColumns(i, banded, far);
      std::vector<PetscScalar>    v;
      for (PetscInt j : c) v.push_back(Value(i, j));
      PetscCall(MatSetValues(*A, 1, &i, (PetscInt)c.size(), c.data(), v.data(), INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* ||A x - B x|| / ||B x|| for a random x, the vectors A's (CUDA ones for a
   matrix converted to aijcusparse; the host aij B reads them too). */
PetscErrorCode MultDifference(Mat A, Mat B, PetscReal *rel)
{
  Vec x, ya, yb;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &x, &ya));
  PetscCall(VecDuplicate(ya, &yb));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(A, x, ya));
  PetscCall(MatMult(B, x, yb));
  PetscCall(VecRelDiff(ya, yb, rel));
  for (Vec v : {x, ya, yb}) PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}

/* One case: built as diag (with `keep`: -mat_diag_scattered_fill 0; with
   `limit`: that -mat_diag_max_diagonals; `far`: ScatteredColumns), it is
   `want` (aij or diag) after assembly, holds the same entries as aij's
   matrix and keeps its prefix, name and null space. */
PetscErrorCode Check(bool banded, bool coo, bool keep, bool want_aij, const char *limit = nullptr, bool far = false)
{
  const std::string cs = Fmt("%s%s, %s%s%s%s", banded ? "banded" : "scattered", far ? " with far entries on the last process" : "", coo ? "COO" : "MatSetValues", keep ? ", -mat_diag_scattered_fill 0" : "", limit ? ", -mat_diag_max_diagonals " : "", limit ? limit : "");
  Mat               A, B;
  PetscBool         isaij, isdiag, same;
  const char       *prefix;
  const char       *name;
  PetscReal         rel;
  MatNullSpace      nsp;
  MatType           type;

  PetscFunctionBeginUser;
  PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nsp));
  if (keep) PetscCall(PetscOptionsSetValue(NULL, "-sc_mat_diag_scattered_fill", "0"));
  if (limit) PetscCall(PetscOptionsSetValue(NULL, "-sc_mat_diag_max_diagonals", limit));
  PetscCall(Build(MATDIAG, banded, coo, "sc_", nsp, &A, far));
  if (keep) PetscCall(PetscOptionsClearValue(NULL, "-sc_mat_diag_scattered_fill"));
  if (limit) PetscCall(PetscOptionsClearValue(NULL, "-sc_mat_diag_max_diagonals"));
  PetscCall(Build(MATAIJ, banded, coo, NULL, NULL, &B, far));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isaij, MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  PetscCall(MatGetType(A, &type));
  PetscCall(Record(want_aij ? (bool)isaij : (bool)isdiag, cs, want_aij ? "an aij matrix after assembly" : "still a diag matrix", type));
  PetscCall(MatMultEqual(A, B, 3, &same));
  PetscCall(Record(same, cs, "MatMultEqual against aij"));
  PetscCall(MultDifference(A, B, &rel));
  PetscCall(Record(rel < kTol, cs, "MatMult against aij", Fmt("relative difference %g", (double)rel)));
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscObjectGetName((PetscObject)A, &name));
  PetscCall(Record(prefix && std::string(prefix) == "sc_" && std::string(name) == "scattered", cs, "options prefix and name kept"));
  {
    MatNullSpace got;
    PetscCall(MatGetNullSpace(A, &got));
    PetscCall(Record(got == nsp, cs, "null space kept"));
  }
  /* the matrix takes new values through the interface it was built with */
  if (coo) {
    PetscInt                 rstart, rend;
    std::vector<PetscScalar> v;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (PetscInt i = rstart; i < rend; i++)
      for (PetscInt j : ScatteredColumns(i, banded, far)) v.push_back(3.0 * Value(i, j));
    PetscCall(MatSetValuesCOO(A, v.data(), INSERT_VALUES));
  } else PetscCall(MatScale(A, 3.0));
  PetscCall(MatScale(B, 3.0));
  PetscCall(MatMultEqual(A, B, 3, &same));
  PetscCall(Record(same, cs, coo ? "MatSetValuesCOO again, then MatMult against aij" : "MatScale, then MatMult against aij"));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* A submatrix that would be scattered stored by diagonals (here the banded
   matrix's rows and columns in a scrambled order) stays aij, with aij's
   submatrix's entries, also when refilled (MAT_REUSE_MATRIX: against a new
   submatrix of aij). */
PetscErrorCode CheckSubmatrix()
{
  const std::string cs = "banded, scrambled submatrix";
  Mat               A, B, SA, SB;
  IS                is;
  PetscInt          rstart, rend;
  PetscBool         isaij, same;
  MatType           type;

  PetscFunctionBeginUser;
  PetscCall(Build(MATDIAG, true, false, "sc_", NULL, &A));
  PetscCall(Build(MATAIJ, true, false, NULL, NULL, &B));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  std::vector<PetscInt> idx;
  for (PetscInt i = rstart; i < rend; i++) idx.push_back(i);
  std::shuffle(idx.begin(), idx.end(), std::mt19937(5)); /* the local rows in a random order */
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, (PetscInt)idx.size(), idx.data(), PETSC_COPY_VALUES, &is));
  PetscCall(MatCreateSubMatrix(A, is, is, MAT_INITIAL_MATRIX, &SA));
  PetscCall(MatCreateSubMatrix(B, is, is, MAT_INITIAL_MATRIX, &SB));
  PetscCall(MatGetType(SA, &type));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)SA, &isaij, MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  PetscCall(Record(isaij, cs, "an aij submatrix", type));
  PetscCall(MatMultEqual(SA, SB, 3, &same));
  PetscCall(Record(same, cs, "MatMultEqual against aij's submatrix"));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(B, 2.0));
  PetscCall(MatCreateSubMatrix(A, is, is, MAT_REUSE_MATRIX, &SA));
  PetscCall(MatDestroy(&SB)); /* a new one: mpiaij's own MAT_REUSE_MATRIX with this unsorted IS gave other values (PETSc 3.18, 2 processes) */
  PetscCall(MatCreateSubMatrix(B, is, is, MAT_INITIAL_MATRIX, &SB));
  PetscCall(MatMultEqual(SA, SB, 3, &same));
  PetscCall(Record(same, cs, "MAT_REUSE_MATRIX, then MatMultEqual against aij's"));
  PetscCall(ISDestroy(&is));
  PetscCall(MatDestroy(&SA));
  PetscCall(MatDestroy(&SB));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* Calls f with PETSc's return error handler: *ierr is its error, *msg the message. */
PetscErrorCode Quietly(const std::function<PetscErrorCode()> &f, PetscErrorCode *ierr, std::string *msg)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *ierr = f();
  PetscCall(PetscPopErrorHandler());
  *msg = *ierr ? LastMessage() : "";
  PetscFunctionReturn(0);
}

/* With -mat_diag_scattered_fill 0 a structure over -mat_diag_max_diagonals
   is refused (at MatSetValues, on every process here) instead of becoming aij. */
PetscErrorCode CheckRefusedWhenKept()
{
  const std::string cs = "banded, MatSetValues, -mat_diag_scattered_fill 0, -mat_diag_max_diagonals 3";
  Mat               A = NULL;
  PetscErrorCode    ierr;
  std::string       msg;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-sc_mat_diag_scattered_fill", "0"));
  PetscCall(PetscOptionsSetValue(NULL, "-sc_mat_diag_max_diagonals", "3"));
  PetscCall(Quietly([&] { return Build(MATDIAG, true, false, "sc_", NULL, &A); }, &ierr, &msg));
  PetscCall(PetscOptionsClearValue(NULL, "-sc_mat_diag_scattered_fill"));
  PetscCall(PetscOptionsClearValue(NULL, "-sc_mat_diag_max_diagonals"));
  PetscCall(Record(ierr != 0 && msg.find("-mat_diag_max_diagonals") != std::string::npos, cs, "refused", ierr ? msg : "accepted"));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* The blocks PCFIELDSPLIT takes of an interleaved operator (every 4th
   row and column a second field): the off-diagonal blocks need more
   diagonals than -mat_diag_max_diagonals allows (here 100), so they stay
   aij (host aij also with CUDA vectors: convert/convert.cpp); their
   products, of zero and of random vectors, into vectors holding other
   values, are aij's. */
PetscErrorCode CheckFieldBlocks()
{
  Mat      A, B;
  PetscInt rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-sc_mat_diag_max_diagonals", "100"));
  PetscCall(Build(MATDIAG, true, false, "sc_", NULL, &A));
  PetscCall(PetscOptionsClearValue(NULL, "-sc_mat_diag_max_diagonals"));
  PetscCall(Build(MATAIJ, true, false, NULL, NULL, &B));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  std::vector<PetscInt> u, p;
  for (PetscInt i = rstart; i < rend; i++) (i % 4 == 3 ? p : u).push_back(i);
  IS isu, isp;
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, (PetscInt)u.size(), u.data(), PETSC_COPY_VALUES, &isu));
  PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, (PetscInt)p.size(), p.data(), PETSC_COPY_VALUES, &isp));
  const IS rows[2] = {isu, isp}, cols[2] = {isp, isu};
  for (int b = 0; b < 2; b++) {
    const std::string cs = b == 0 ? "field block (u, p)" : "field block (p, u)";
    Mat       SA, SB;
    Vec       x, ya, yb;
    PetscReal rel;
    MatType   type;
    PetscBool isaij;
    PetscCall(MatCreateSubMatrix(A, rows[b], cols[b], MAT_INITIAL_MATRIX, &SA));
    PetscCall(MatCreateSubMatrix(B, rows[b], cols[b], MAT_INITIAL_MATRIX, &SB));
    PetscCall(MatGetType(SA, &type));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)SA, &isaij, MATSEQAIJ, MATMPIAIJ, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    PetscCall(Record(isaij, cs, "an aij submatrix", type));
    PetscCall(MatCreateVecs(SA, &x, &ya));
    PetscCall(VecDuplicate(ya, &yb));
    for (int zero = 1; zero >= 0; zero--) {
      if (zero) PetscCall(VecZeroEntries(x));
      else PetscCall(VecSetRandom(x, NULL));
      PetscCall(VecSet(ya, 7.0));
      PetscCall(VecSet(yb, -3.0));
      PetscCall(MatMult(SA, x, ya));
      PetscCall(MatMult(SB, x, yb));
      PetscCall(VecAXPY(ya, -1.0, yb));
      PetscCall(VecNorm(ya, NORM_INFINITY, &rel));
      PetscCall(Record(rel < kTol, cs, zero ? "MatMult of a zero vector against aij's" : "MatMult against aij's", Fmt("largest difference %g", (double)rel)));
    }
    for (Vec v : {x, ya, yb}) PetscCall(VecDestroy(&v));
    PetscCall(MatDestroy(&SA));
    PetscCall(MatDestroy(&SB));
  }
  PetscCall(ISDestroy(&isu));
  PetscCall(ISDestroy(&isp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* A DMDA's matrix is never converted, whatever its size. */
PetscErrorCode CheckGrid()
{
  DM        da;
  Mat       A;
  PetscBool isdiag;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 65, 65, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  PetscCall(Record(isdiag, "DMDA 65 x 65", "a diag matrix after DMCreateMatrix"));
  {
    /* entries on 16 more diagonals, over a limit of 12 on every process:
       refused at assembly on all of them (a DMDA's structure is the
       stencil's: no aij), and the matrix stays as it was */
    const std::string cs = "DMDA 65 x 65, entries on 16 more diagonals, -mat_diag_max_diagonals 12";
    PetscInt          rstart, rend, ndiag;
    PetscErrorCode    ierr;
    std::string       msg;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
    PetscCall(PetscOptionsSetValue(NULL, "-grid_mat_diag_max_diagonals", "12"));
    PetscCall(MatSetOptionsPrefix(A, "grid_"));
    PetscCall(MatSetFromOptions(A));
    PetscCall(PetscOptionsClearValue(NULL, "-grid_mat_diag_max_diagonals"));
    PetscCall(Quietly([&] {
      std::vector<PetscInt>    cols;
      std::vector<PetscScalar> v;
      for (PetscInt q = 0; q < 16; q++) cols.push_back((rstart + 200 + 37 * q) % (65 * 65));
      v.assign(cols.size(), 1.0);
      PetscCall(MatSetValues(A, 1, &rstart, (PetscInt)cols.size(), cols.data(), v.data(), INSERT_VALUES));
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      return PetscErrorCode(0);
    }, &ierr, &msg));
    PetscCall(Record(ierr != 0 && msg.find("-mat_diag_max_diagonals") != std::string::npos, cs, "refused at assembly", ierr ? msg : "accepted"));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
    PetscCall(MatDiagGetDiagonals(A, &ndiag, NULL));
    PetscCall(Record(isdiag && ndiag <= 12, cs, "still a diag matrix of its stencil's diagonals", Fmt("%d diagonals", (int)ndiag)));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int exit_code = 0;

  PetscCall(Start(&argc, &argv, help));
  PetscCall(Check(false, false, false, true));
  PetscCall(Check(false, true, false, true));
  PetscCall(Check(false, false, true, false));
  PetscCall(Check(false, true, true, false));
  PetscCall(Check(true, false, false, false));
  /* over the diagonal limit: aij whatever the fill, on every process or on the last one only */
  PetscCall(Check(true, false, false, true, "3"));
  PetscCall(Check(true, true, false, true, "3"));
  PetscCall(Check(true, false, false, true, "5", true));
  PetscCall(Check(true, true, false, true, "5", true));
  PetscCall(CheckRefusedWhenKept());
  PetscCall(CheckSubmatrix());
  PetscCall(CheckFieldBlocks());
  PetscCall(CheckGrid());
  PetscCall(Summary(&exit_code));
  PetscCall(PetscFinalize());
  return exit_code;
}
