/* Galerkin products of a diag operator on the GPU (device/galerkin.cpp):
   MatPtAP of a DMDA stencil operator (diag with CUDA vectors, and
   diagcuda) with the DMDA's interpolation, computed by cuSPARSE with the
   values gathered and scattered on the device. Against aij's product of
   the same matrices on the host (the reference) and against diag's host
   path (-mat_diag_galerkin_device 0):
   - the result is diag, equal to aij's to rounding, its values on the
     device, and the event MatDiagPtAPGPU ran (the host path's does not);
   - MAT_REUSE_MATRIX with new operator values (scaled on the device) gives
     aij's product of the new values, structure unchanged;
   - a nonzero set where the operator's aij copy had no entry (a stored zero
     of a DMDA matrix at a grid line's end) is found and the product set
     up again: aij's product with that entry;
   - a scattered prolongator (random aggregation) gives an aij result
     equal to aij's, without a diag one;
   2D and 3D grids, odd and even sizes. One process (the path is
   sequential; test_galerkin covers MPI). Without a CUDA device: SKIPPED,
   exit 77; -host_check runs the same checks with host vectors (the host
   path; the device-only checks are left out), a check of the test itself
   on machines without a GPU. Ends with "N passed, M failed". */
#include "gpu_or_host.hpp"
#include "plugin_testing.hpp"

#include <petscdmda.h>

#include <string>

using namespace plugin_testing;

namespace {

bool g_device = true; /* false with -host_check */

const char *TypeName(Mat M)
{
  MatType type = "";
  (void)MatGetType(M, &type);
  return type;
}

/* A variable-coefficient stencil operator of da (da's matrix type), every
   stencil entry set (boundary rows too), values from seed. */
PetscErrorCode StencilOperator(DM da, unsigned seed, Mat *A)
{
  PetscInt dim, xs, ys, zs, xm, ym, zm, M, N, P;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, A));
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        MatStencil  row = {k, j, i, 0}, col[7];
        PetscScalar v[7];
        PetscInt    n = 0;
        const PetscInt id = i + M * (j + N * k);
        col[n] = row, v[n++] = 8.0 + Unit(seed, id, 0);
        const PetscInt d[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        for (PetscInt a = 0; a < dim; a++)
          for (int s = -1; s <= 1; s += 2) {
            MatStencil c = {k + s * d[a][2], j + s * d[a][1], i + s * d[a][0], 0};
            if (c.i < 0 || c.i >= M || c.j < 0 || c.j >= N || c.k < 0 || c.k >= P) continue;
            col[n] = c, v[n++] = -1.0 + 0.5 * Unit(seed, id, 1 + 2 * a + (s > 0));
          }
        PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(Assemble(*A));
  PetscFunctionReturn(0);
}

/* aij's P^T A P on the host (A through aij). */
PetscErrorCode ReferencePtAP(Mat A, Mat P, Mat *C)
{
  Mat Aa, Pa;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Aa));
  PetscCall(MatConvert(P, MATSEQAIJ, MAT_INITIAL_MATRIX, &Pa));
  PetscCall(MatPtAP(Aa, Pa, MAT_INITIAL_MATRIX, 2.0, C));
  PetscCall(MatDestroy(&Aa));
  PetscCall(MatDestroy(&Pa));
  PetscFunctionReturn(0);
}

PetscErrorCode CheckAgainst(Mat C, Mat ref, const std::string &cs, const std::string &what)
{
  PetscReal rel;

  PetscFunctionBeginUser;
  PetscCall(MatRelDiff(C, ref, &rel));
  PetscCall(Record(rel <= 1e-13, cs, what + " equals aij's product", Fmt("relative difference %g", (double)rel)));
  PetscFunctionReturn(0);
}

/* The checks of the top on a grid of n points a side in `dim` dimensions. */
PetscErrorCode GridCase(PetscInt dim, PetscInt n, MatType type)
{
  DM          fine, coarse;
  Mat         A, P, C, Chost, ref;
  int         before, after;
  const std::string cs = std::string(type) + " " + std::to_string(dim) + "D n=" + std::to_string(n);

  PetscFunctionBeginUser;
  if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &fine));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &fine));
  PetscCall(DMSetVecType(fine, g_device ? VECCUDA : VECSTANDARD));
  PetscCall(DMSetMatType(fine, type));
  PetscCall(DMSetUp(fine));
  PetscCall(DMCoarsen(fine, PETSC_COMM_WORLD, &coarse));
  PetscCall(DMCreateInterpolation(coarse, fine, &P, NULL));
  PetscCall(StencilOperator(fine, 11, &A));

  /* the device path, against aij and against diag's host path */
  PetscCall(EventCount("MatDiagPtAPGPU", &before));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, 2.0, &C));
  PetscCall(EventCount("MatDiagPtAPGPU", &after));
  if (g_device) PetscCall(Record(after > before, cs, "MatPtAP ran on the device (event MatDiagPtAPGPU)"));
  PetscCall(Record(IsDiag(C), cs, "the Galerkin product is diag", TypeName(C)));
  {
    PetscBool bound;
    PetscCall(MatBoundToCPU(C, &bound));
    PetscCall(Record(!bound, cs, "the Galerkin product is not bound to the CPU"));
  }
  PetscCall(ReferencePtAP(A, P, &ref));
  PetscCall(CheckAgainst(C, ref, cs, "the device product"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_galerkin_device", "0"));
  PetscCall(EventCount("MatDiagPtAPGPU", &before));
  PetscCall(MatPtAP(A, P, MAT_INITIAL_MATRIX, 2.0, &Chost));
  PetscCall(EventCount("MatDiagPtAPGPU", &after));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_galerkin_device"));
  PetscCall(Record(after == before, cs, "-mat_diag_galerkin_device 0 keeps the product on the host"));
  {
    PetscReal rel;
    PetscCall(MatRelDiff(C, Chost, &rel));
    PetscCall(Record(rel <= 1e-13, cs, "the device and host paths give the same product", Fmt("relative difference %g", (double)rel)));
  }
  PetscCall(MatDestroy(&Chost));
  PetscCall(MatDestroy(&ref));

  /* new values (on the device), the same structure */
  {
    PetscObjectState nz, nz_after;
    PetscCall(MatGetNonzeroState(C, &nz));
    PetscCall(MatScale(A, 2.0));
    PetscCall(MatShift(A, 0.5));
    PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, 2.0, &C));
    PetscCall(ReferencePtAP(A, P, &ref));
    PetscCall(CheckAgainst(C, ref, cs, "MAT_REUSE_MATRIX after new values"));
    PetscCall(MatGetNonzeroState(C, &nz_after));
    PetscCall(Record(nz_after == nz, cs, "MAT_REUSE_MATRIX with new values keeps the structure"));
    PetscCall(MatDestroy(&ref));
  }

  /* a nonzero at a stored zero outside the stencil: (last point of the
     first grid line, first point of the next) */
  {
    const PetscInt i = n - 1, j = n;
    PetscCall(MatSetValue(A, i, j, 0.25, INSERT_VALUES));
    PetscCall(Assemble(A));
    PetscCall(MatPtAP(A, P, MAT_REUSE_MATRIX, 2.0, &C));
    PetscCall(ReferencePtAP(A, P, &ref));
    PetscCall(CheckAgainst(C, ref, cs, "MAT_REUSE_MATRIX after a nonzero outside the aij pattern"));
    PetscCall(MatDestroy(&ref));
  }
  PetscCall(MatDestroy(&C));

  /* a scattered prolongator: fine point f to a pseudo-random coarse point */
  {
    Mat      R;
    PetscInt nf, nc;
    PetscCall(MatGetSize(P, &nf, &nc));
    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nf, nc, 1, NULL, &R));
    for (PetscInt f = 0; f < nf; f++) PetscCall(MatSetValue(R, f, (PetscInt)(Mix((std::uint64_t)f) % (std::uint64_t)nc), 1.0 + 0.1 * Unit(3, f, 0), INSERT_VALUES));
    PetscCall(Assemble(R));
    PetscCall(MatPtAP(A, R, MAT_INITIAL_MATRIX, 2.0, &C));
    PetscCall(ReferencePtAP(A, R, &ref));
    PetscCall(CheckAgainst(C, ref, cs, "the scattered product"));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_galerkin_device", "0"));
    PetscCall(MatPtAP(A, R, MAT_INITIAL_MATRIX, 2.0, &Chost));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_galerkin_device"));
    PetscCall(Record(IsDiag(C) == IsDiag(Chost), cs, "a scattered prolongator's product has the host path's type", std::string(TypeName(C)) + " / " + TypeName(Chost)));
    if (n >= 17) PetscCall(Record(!IsDiag(C), cs, "a scattered prolongator on a large grid gives an aij product", TypeName(C)));
    PetscCall(MatDestroy(&Chost));
    PetscCall(MatDestroy(&ref));
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&R));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(DMDestroy(&coarse));
  PetscCall(DMDestroy(&fine));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int code = 0;
  if (!GpuOrHostMode(argc, argv, "test_galerkin_gpu", &g_device)) return 77;
  PetscCall(Start(&argc, &argv, NULL));
  bool skipped;
  PetscCall(SkippedOnMoreProcesses("test_galerkin_gpu", &skipped, &code));
  if (skipped) {
    PetscCall(PetscFinalize());
    return code;
  }
  PetscCall(PetscLogDefaultBegin());
  for (MatType type : {MATDIAG, g_device ? MATDIAGCUDA : MATDIAG})
    for (PetscInt dim : {2, 3})
      for (PetscInt n : {9, 17, 25}) Run(std::string(type) + " " + std::to_string(dim) + "D n=" + std::to_string(n), "Galerkin product", [&]() { return GridCase(dim, n, type); });
  PetscCall(Summary(&code));
  PetscCall(PetscFinalize());
  return code;
}
