/* Products with a vector and value operations of MATDIAG on the GPU: the
   same matrix multiplied with host vectors (CPU kernels) and with CUDA
   vectors (GPU kernels) must agree to 1e-12 (MatMult, MatMultAdd,
   MatResidual, the transposes, mixed host and CUDA vectors, bound to the
   CPU); under MPI the ghosts travel through pinned host memory; the
   diagcuda types hand out CUDA vectors and place the first matrix on
   PETSc's device; matrices with symmetric values read half their
   diagonals; a compressed stencil matrix's MatResidual is one pass;
   MatSetValuesCOO with device values and the device MatScale, MatShift,
   MatAXPY, MatDiagonalScale, MatZeroRows and MatGetDiagonal give the
   host's results. -host_check: the products with host vectors in place of
   CUDA ones, on any machine. Without a CUDA device: prints SKIPPED and
   returns 77. Ends with the line "N passed, M failed". */
#include <petscdevice.h>
#include <petscdiag.h>
#include <petscdmda.h>

#include "petsc_compat.hpp"
#include "plugin_testing.hpp" /* EventCount only: this test keeps its own counters */
#include "gpu_testing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace gpu_testing;

namespace {

using plugin_testing::EventCount;

/* MatMult, MatMultAdd (also y == z), MatMultTranspose, MatMultTransposeAdd: host vs CUDA vectors. */
PetscErrorCode CompareProducts(Mat A, const std::string &name)
{
  Vec       xh, yh, zh, xth, yth, zth, xd, yd, zd, xtd, ytd, ztd;
  PetscReal e;

  PetscFunctionBeginUser;
  Trace("products " + name);
  PetscCall(HostVecs(A, &xh, &yh));
  PetscCall(VecSetRandom(xh, NULL));
  PetscCall(VecDuplicate(yh, &zh));
  PetscCall(VecSetRandom(zh, NULL));
  PetscCall(VecDuplicate(yh, &xth));
  PetscCall(VecSetRandom(xth, NULL));
  PetscCall(VecDuplicate(xh, &yth));
  PetscCall(VecDuplicate(xh, &zth));
  PetscCall(VecSetRandom(zth, NULL));
  PetscCall(Retyped(xh, device_vec, &xd));
  PetscCall(Retyped(zh, device_vec, &zd));
  PetscCall(Retyped(zh, device_vec, &yd));
  PetscCall(Retyped(xth, device_vec, &xtd));
  PetscCall(Retyped(zth, device_vec, &ztd));
  PetscCall(Retyped(zth, device_vec, &ytd));
  for (int rep = 0; rep < 2; rep++) { /* the second round reuses the device copy */
    PetscCall(MatMult(A, xh, yh));
    PetscCall(MatMult(A, xd, yd));
    e = RelDiff(yd, yh);
    Check(e <= 1e-12, name + " MatMult " + std::to_string(e));
    PetscCall(MatMultAdd(A, xh, zh, yh));
    PetscCall(MatMultAdd(A, xd, zd, yd));
    e = RelDiff(yd, yh);
    Check(e <= 1e-12, name + " MatMultAdd " + std::to_string(e));
    PetscCall(VecCopy(zh, yh));
    PetscCall(VecCopy(zd, yd));
    PetscCall(MatMultAdd(A, xh, yh, yh));
    PetscCall(MatMultAdd(A, xd, yd, yd));
    e = RelDiff(yd, yh);
    Check(e <= 1e-12, name + " MatMultAdd y==z " + std::to_string(e));
    PetscCall(MatResidual(A, zh, xh, yh));
    PetscCall(MatResidual(A, zd, xd, yd));
    e = RelDiff(yd, yh);
    Check(e <= 1e-12, name + " MatResidual " + std::to_string(e));
    PetscCall(MatMult(A, xh, yh));
    PetscCall(VecAYPX(yh, -1.0, zh));
    PetscCall(MatResidual(A, zd, xd, yd));
    e = RelDiff(yd, yh);
    Check(e <= 1e-12, name + " MatResidual is b - A x " + std::to_string(e));
    { /* r in b's storage (PETSc's MatResidual without the operation gives 0 there) */
      Vec rh, rd;
      PetscCall(VecDuplicate(zh, &rh));
      PetscCall(VecCopy(zh, rh));
      PetscCall(Retyped(zh, device_vec, &rd));
      PetscCall(MatResidual(A, rh, xh, rh));
      PetscCall(MatResidual(A, rd, xd, rd));
      Check(RelDiff(rh, yh) <= 1e-12 && RelDiff(rd, yh) <= 1e-12, name + " MatResidual r==b: host " + std::to_string(RelDiff(rh, yh)) + ", device " + std::to_string(RelDiff(rd, yh)));
      PetscCall(VecDestroy(&rh));
      PetscCall(VecDestroy(&rd));
    }
    PetscCall(MatMultTranspose(A, xth, yth));
    PetscCall(MatMultTranspose(A, xtd, ytd));
    e = RelDiff(ytd, yth);
    Check(e <= 1e-12, name + " MatMultTranspose " + std::to_string(e));
    PetscCall(MatMultTransposeAdd(A, xth, zth, yth));
    PetscCall(MatMultTransposeAdd(A, xtd, ztd, ytd));
    e = RelDiff(ytd, yth);
    Check(e <= 1e-12, name + " MatMultTransposeAdd " + std::to_string(e));
    if (rep == 0) { /* change values on the host: the device copy must follow */
      PetscCall(MatScale(A, 0.5));
      PetscCall(MatShift(A, 2.0));
    }
  }
  /* bound to the CPU: CUDA vectors, host kernels, same result */
  PetscCall(MatBindToCPU(A, PETSC_TRUE));
  PetscCall(MatMult(A, xd, yd));
  PetscCall(MatMult(A, xh, yh));
  Check(RelDiff(yd, yh) <= 1e-12, name + " MatMult bound to CPU");
  PetscCall(MatBindToCPU(A, PETSC_FALSE));
  { /* host and CUDA vectors in one product (PCREDISTRIBUTE's reduced vectors
       are host vectors, its operator's work vectors CUDA ones: ksp ex84):
       the host vectors get the product */
    Vec ym, ytm;
    PetscCall(VecDuplicate(yh, &ym));
    PetscCall(VecDuplicate(yth, &ytm));
    PetscCall(MatMult(A, xh, yh));
    PetscCall(MatMult(A, xd, ym));
    Check(RelDiff(ym, yh) <= 1e-12, name + " MatMult, x on the device, y a host vector: " + std::to_string(RelDiff(ym, yh)));
    PetscCall(MatMult(A, xh, yd));
    Check(RelDiff(yd, yh) <= 1e-12, name + " MatMult, x a host vector, y on the device: " + std::to_string(RelDiff(yd, yh)));
    PetscCall(MatMultAdd(A, xh, zh, yh));
    PetscCall(MatMultAdd(A, xd, zh, ym));
    Check(RelDiff(ym, yh) <= 1e-12, name + " MatMultAdd, x on the device, z and y host vectors: " + std::to_string(RelDiff(ym, yh)));
    PetscCall(MatMultTranspose(A, xth, yth));
    PetscCall(MatMultTranspose(A, xtd, ytm));
    Check(RelDiff(ytm, yth) <= 1e-12, name + " MatMultTranspose, x on the device, y a host vector: " + std::to_string(RelDiff(ytm, yth)));
    PetscCall(VecDestroy(&ym));
    PetscCall(VecDestroy(&ytm));
  }
  for (Vec *v : {&xh, &yh, &zh, &xth, &yth, &zth, &xd, &yd, &zd, &xtd, &ytd, &ztd}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(0);
}

/* Under MPI with CUDA vectors: the device MatMult's ghost exchange through
   pinned host memory (the default without a CUDA-aware MPI) is the path
   taken (its event runs) and gives exactly the product that PETSc's
   VecScatter gives (-mat_diag_pinned_halo false); MatDiagGhostExchange()
   runs the same exchange alone. */
PetscErrorCode ComparePinnedHalo(Mat A, const std::string &name)
{
  PetscMPIInt size;
  Mat         B;
  Vec         xh, yh, xd, ya, yb;
  int         c0, c1, c2, c3;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) PetscFunctionReturn(0);
  Trace("pinned halo " + name);
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatSetOptionsPrefix(B, "sf_halo_"));
  PetscCall(PetscOptionsSetValue(NULL, "-sf_halo_mat_diag_pinned_halo", "false"));
  PetscCall(MatSetFromOptions(B));
  PetscCall(PetscOptionsClearValue(NULL, "-sf_halo_mat_diag_pinned_halo"));
  PetscCall(HostVecs(A, &xh, &yh));
  PetscCall(VecSetRandom(xh, NULL));
  PetscCall(Retyped(xh, device_vec, &xd));
  PetscCall(Retyped(yh, device_vec, &ya));
  PetscCall(Retyped(yh, device_vec, &yb));
  PetscCall(EventCount("MatDiagHalo", &c0));
  PetscCall(MatMult(A, xd, ya));
  PetscCall(EventCount("MatDiagHalo", &c1));
  PetscCall(MatMult(B, xd, yb));
  PetscCall(EventCount("MatDiagHalo", &c2));
  PetscCall(MatDiagGhostExchange(A, xd));
  PetscCall(EventCount("MatDiagHalo", &c3));
  Check(c1 > c0, name + ": the device MatMult exchanges its ghosts through pinned memory");
  Check(c2 == c1, name + ": -mat_diag_pinned_halo false keeps PETSc's VecScatter");
  Check(c3 > c2, name + ": MatDiagGhostExchange runs the pinned exchange");
  Check(RelDiff(ya, yb) == 0, name + ": MatMult with the pinned exchange equals the VecScatter one");
  for (Vec *v : {&xh, &yh, &xd, &ya, &yb}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* A stencil matrix on an nx x ny x nz grid (7 points, or 27 with box;
   nz = 1: 5 or 9) whose values are symmetric to the bit: a(i, j) = a(j, i)
   is a hash of (min(i, j), max(i, j)), the diagonal 1 + the row's
   couplings (dominant, and not constant). */
PetscErrorCode SymmetricStencil(PetscInt nx, PetscInt ny, PetscInt nz, bool box, MatType type, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBeginUser;
  const PetscInt n = nx * ny * nz;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  const auto value = [](PetscInt i, PetscInt j) {
    const std::uint64_t h = (std::uint64_t)std::min(i, j) * 2654435761u ^ (std::uint64_t)std::max(i, j) * 40503u;
    return -0.1 - (PetscScalar)(h % 1000) / 1000.0;
  };
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    PetscScalar    sum = 1.0;
    for (PetscInt dz = -1; dz <= 1; dz++)
      for (PetscInt dy = -1; dy <= 1; dy++)
        for (PetscInt dx = -1; dx <= 1; dx++) {
          const int      away = (dx != 0) + (dy != 0) + (dz != 0);
          const PetscInt j    = i + dx + nx * (dy + ny * dz);
          if (away == 0 || (!box && away > 1) || x + dx < 0 || x + dx >= nx || y + dy < 0 || y + dy >= ny || z + dz < 0 || z + dz >= nz) continue;
          const PetscScalar v = value(i, j);
          PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
          sum -= v;
        }
    PetscCall(MatSetValues(*A, 1, &i, 1, &i, &sum, INSERT_VALUES)); /* varies: no constant diagonal to compress */
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The device MatMult and MatResidual of a matrix with symmetric values read
   its main and upper diagonals (one process; event MatDiagSymMult) and give
   the host's products; not for values symmetric only to rounding, not under
   MPI, not with -mat_diag_symmetric_product 0. */
PetscErrorCode TestSymmetricProducts(MatType type)
{
  PetscMPIInt size;
  int         c0, c1;
  Mat         A, B;
  Vec         xd, yd, bd;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int shape = 0; shape < 3; shape++) {
    const std::string name = std::string(type) + (shape == 0 ? " symmetric 7-point 12x10x9" : shape == 1 ? " symmetric 27-point 9x8x7" : " symmetric 9-point 30x20");
    PetscCall(SymmetricStencil(shape == 0 ? 12 : shape == 1 ? 9 : 30, shape == 0 ? 10 : shape == 1 ? 8 : 20, shape == 0 ? 9 : shape == 1 ? 7 : 1, shape > 0, type, &A));
    PetscCall(EventCount("MatDiagSymMult", &c0));
    PetscCall(CompareProducts(A, name));
    PetscCall(EventCount("MatDiagSymMult", &c1));
    /* CompareProducts: per round one MatMult, two MatMultAdd, three MatResidual on the device */
    if (size == 1) Check(c1 - c0 == 12, name + ": MatMult, MatMultAdd and MatResidual read half the diagonals (" + std::to_string(c1 - c0) + " of 12)");
    else Check(c1 == c0, name + ": under MPI the products read every diagonal");
    {
      Vec xh, yh;
      PetscCall(HostVecs(A, &xh, &yh));
      PetscCall(VecSet(xh, 1.0));
      PetscCall(VecSet(yh, 1.0));
      PetscCall(Retyped(xh, device_vec, &xd));
      PetscCall(Retyped(yh, device_vec, &yd));
      PetscCall(Retyped(yh, device_vec, &bd));
      PetscCall(VecDestroy(&xh));
      PetscCall(VecDestroy(&yh));
    }
    /* one value off by a rounding: the product reads every diagonal */
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    {
      PetscInt    rs, re;
      PetscScalar v;
      PetscCall(MatGetOwnershipRange(B, &rs, &re));
      if (rs < re && re - rs > 1) {
        const PetscInt i = rs + 1, j = rs;
        PetscCall(MatGetValues(B, 1, &i, 1, &j, &v));
        v *= 1.0 + 1e-15;
        PetscCall(MatSetValues(B, 1, &i, 1, &j, &v, INSERT_VALUES));
      }
      PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    }
    PetscCall(EventCount("MatDiagSymMult", &c0));
    PetscCall(MatMult(B, xd, yd));
    PetscCall(MatResidual(B, bd, xd, yd));
    PetscCall(EventCount("MatDiagSymMult", &c1));
    Check(c1 == c0, name + ": values symmetric only to rounding: every diagonal read");
    PetscCall(CompareProducts(B, name + " off by a rounding"));
    PetscCall(MatDestroy(&B));
    /* the option turns it off */
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    PetscCall(MatSetOptionsPrefix(B, "nosym_"));
    PetscCall(PetscOptionsSetValue(NULL, "-nosym_mat_diag_symmetric_product", "0"));
    PetscCall(MatSetFromOptions(B));
    PetscCall(PetscOptionsClearValue(NULL, "-nosym_mat_diag_symmetric_product"));
    PetscCall(EventCount("MatDiagSymMult", &c0));
    PetscCall(MatMult(B, xd, yd));
    PetscCall(MatResidual(B, bd, xd, yd));
    PetscCall(EventCount("MatDiagSymMult", &c1));
    Check(c1 == c0, name + ": -mat_diag_symmetric_product 0: every diagonal read");
    PetscCall(MatDestroy(&B));
    for (Vec *v : {&xd, &yd, &bd}) PetscCall(VecDestroy(v));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* A constant-coefficient operator is compressed on the device (constant
   diagonals with exceptions): its products equal the host's, and its
   MatResidual with CUDA vectors is one pass (hm_compressed_residual), not
   MatMult and VecAYPX (one process and several). */
PetscErrorCode TestCompressedResidual(DM da)
{
  Mat A;
  Vec x, b, r;
  int c0, c1;

  PetscFunctionBeginUser;
  PetscCall(DMSetMatType(da, MATDIAG));
  PetscCall(StencilMatrix(da, &A));
  PetscCall(CompareProducts(A, "7-point stencil, constant diagonals with exceptions (compressed on the device)"));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(EventCount("VecAYPX", &c0));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(MatResidual(A, b, x, b));
  PetscCall(EventCount("VecAYPX", &c1));
  Check(c1 == c0, "MatResidual of the compressed stencil matrix with CUDA vectors runs in one pass (" + std::to_string(c1 - c0) + " VecAYPX)");
  for (Vec *v : {&x, &b, &r}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* MatSetValuesCOO with the values in device memory (scattered on the GPU)
   against the same COO with host values, INSERT then ADD: the two matrices
   must multiply alike. The COO list has every stored entry of the owned
   rows, a duplicate per row (summed), an ignored negative index, and under
   MPI one entry of the next process's first row (sent by the host path). */
PetscErrorCode TestCOODevice(PetscInt n, const std::vector<PetscInt> &offs, MatType type)
{
  Mat                      A[2];
  PetscInt                 r0, r1;
  PetscMPIInt              size;
  std::vector<PetscInt>    ci, cj;
  std::vector<PetscScalar> cv;

  PetscFunctionBeginUser;
  Trace("COO " + std::string(type) + " n=" + std::to_string(n));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (Mat &M : A) {
    PetscCall(MatCreate(PETSC_COMM_WORLD, &M));
    PetscCall(MatSetSizes(M, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(M, type));
  }
  PetscCall(MatGetOwnershipRange(A[0], &r0, &r1));
  for (PetscInt i = r0; i < r1; i++) {
    for (PetscInt d : offs)
      if (i + d >= 0 && i + d < n) ci.push_back(i), cj.push_back(i + d);
    if (i + offs[0] >= 0 && i + offs[0] < n) ci.push_back(i), cj.push_back(i + offs[0]); /* a duplicate */
  }
  ci.push_back(-1), cj.push_back(0); /* ignored */
  if (size > 1 && r1 < n) ci.push_back(r1), cj.push_back(r1); /* the next process's row */
  for (std::size_t e = 0; e < ci.size(); e++) cv.push_back(0.25 + (PetscScalar)((e * 7919) % 101) / 37.0);
  PetscScalar *dv;
  PetscCheck(cudaMalloc((void **)&dv, std::max<std::size_t>(1, cv.size()) * sizeof(PetscScalar)) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaMalloc");
  PetscCheck(cudaMemcpy(dv, cv.data(), cv.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "cudaMemcpy");
  for (Mat &M : A) PetscCall(MatSetPreallocationCOO(M, (PetscCount)ci.size(), ci.data(), cj.data()));
  const std::string name = std::string(type) + " COO device values n=" + std::to_string(n);
  for (InsertMode mode : {INSERT_VALUES, ADD_VALUES}) {
    PetscCall(MatSetValuesCOO(A[0], cv.data(), mode));
    PetscCall(MatSetValuesCOO(A[1], dv, mode));
    if (size > 1) /* the remote entry went through MatSetValues */
      for (Mat &M : A) {
        PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
      }
    Vec x, y[2];
    PetscCall(MatCreateVecs(A[0], &x, &y[0]));
    PetscCall(VecDuplicate(y[0], &y[1]));
    PetscCall(VecSetRandom(x, NULL));
    Vec xd, yd;
    PetscCall(Retyped(x, device_vec, &xd));
    PetscCall(Retyped(y[0], device_vec, &yd));
    PetscCall(MatMult(A[0], x, y[0]));
    PetscCall(MatMult(A[1], xd, yd)); /* on the device, from the scattered values */
    Check(RelDiff(yd, y[0]) <= 1e-12, name + (mode == INSERT_VALUES ? " INSERT" : " ADD") + " MatMult on the device");
    PetscCall(MatMult(A[1], x, y[1])); /* on the host: the values come back */
    Check(RelDiff(y[1], y[0]) <= 1e-12, name + (mode == INSERT_VALUES ? " INSERT" : " ADD") + " MatMult on the host");
    for (Vec v : {x, y[0], y[1], xd, yd}) PetscCall(VecDestroy(&v));
  }
  cudaFree(dv);
  for (Mat &M : A) PetscCall(MatDestroy(&M));
  PetscFunctionReturn(0);
}

/* -mat_diag_device_ops (default on): MatScale, MatShift, MatAXPY,
   MatDiagonalScale and MatZeroRows (with x and b) on the device copy of a
   diagcuda matrix against the same operations on the host copy of an
   identical diag matrix; the results must multiply alike (with CUDA and
   with host vectors), have the same diagonal and the same b. On one
   process nothing comes back to the host during the device operations. */
PetscErrorCode TestDeviceOps(PetscInt n, const std::vector<PetscInt> &offs, MatDiagStorage st)
{
  Mat               A, B, XA, XB;
  const std::string name = std::string("device ops ") + (st == MAT_DIAG_STORAGE_HM ? "hm" : "cdm") + " n=" + std::to_string(n);

  PetscFunctionBeginUser;
  Trace("device ops n=" + std::to_string(n));
  PetscCall(RandomDiag(n, offs, MATDIAGCUDA, st, &A));
  PetscCall(RandomDiag(n, offs, MATDIAGCUDA, st, &XA));
  PetscCall(RandomDiag(n, offs, MATDIAG, st, &B)); /* the same values (same random sequence) */
  PetscCall(RandomDiag(n, offs, MATDIAG, st, &XB));
  Vec l, r, ld, rd, bA, bB, xz, xzd;
  PetscCall(MatCreateVecs(B, &r, &l));
  PetscCall(VecSetRandom(l, NULL));
  PetscCall(VecSetRandom(r, NULL));
  PetscCall(VecDuplicate(l, &bB));
  PetscCall(VecSetRandom(bB, NULL));
  PetscCall(VecDuplicate(r, &xz));
  PetscCall(VecSetRandom(xz, NULL));
  PetscCall(Retyped(l, device_vec, &ld));
  PetscCall(Retyped(r, device_vec, &rd));
  PetscCall(Retyped(bB, device_vec, &bA));
  PetscCall(Retyped(xz, device_vec, &xzd));
  PetscInt r0, r1;
  PetscCall(MatGetOwnershipRange(B, &r0, &r1));
  /* own rows, and the first row of the next process (MatZeroRows takes any process's rows) */
  std::vector<PetscInt> rows;
  for (PetscInt i : {r0, (r0 + r1) / 2, r1 - 1})
    if (i >= r0 && i < r1 && (rows.empty() || rows.back() != i)) rows.push_back(i);
  if (r1 < n) rows.push_back(r1);
  PetscLogDouble back0 = petsc_gtoc_ct, bytes0 = petsc_gtoc_sz;
  PetscCall(MatScale(A, 2.5));
  PetscCall(MatShift(A, -1.25));
  PetscCall(MatAXPY(A, 0.5, XA, SAME_NONZERO_PATTERN));
  PetscCall(MatDiagonalScale(A, ld, rd));
  PetscCall(MatZeroRows(A, (PetscInt)rows.size(), rows.data(), 2.0, xzd, bA));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) Check(petsc_gtoc_ct == back0, name + " Scale, Shift, AXPY, DiagonalScale, ZeroRows: nothing copied back to the host");
  else if (n >= 1000) {
    /* under MPI only the ghost entries of r travel through the host (this
       MPI is not CUDA-aware): far fewer bytes than the local values, which
       must stay on the device */
    MatInfo info;
    PetscCall(MatGetInfo(B, MAT_LOCAL, &info));
    PetscBool ok = (petsc_gtoc_sz - bytes0 < info.memory) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, PDIAG_MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
    Check(ok, name + " Scale, Shift, AXPY, DiagonalScale, ZeroRows under MPI: the values are not copied back to the host");
  }
  PetscCall(MatScale(B, 2.5));
  PetscCall(MatShift(B, -1.25));
  PetscCall(MatAXPY(B, 0.5, XB, SAME_NONZERO_PATTERN));
  PetscCall(MatDiagonalScale(B, l, r));
  PetscCall(MatZeroRows(B, (PetscInt)rows.size(), rows.data(), 2.0, xz, bB));
  Check(RelDiff(bA, bB) == 0, name + " MatZeroRows: b on the device");
  for (Vec v : {l, r, ld, rd, bA, bB, xz, xzd}) PetscCall(VecDestroy(&v));
  Vec x, xd, yA, yB, dA, dB;
  PetscCall(MatCreateVecs(B, &x, &yB));
  PetscCall(VecDuplicate(yB, &dB));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(Retyped(x, device_vec, &xd));
  PetscCall(MatCreateVecs(A, NULL, &yA)); /* CUDA vectors (diagcuda) */
  PetscCall(VecDuplicate(yA, &dA));
  PetscCall(MatMult(B, x, yB));
  PetscCall(MatMult(A, xd, yA));
  Check(RelDiff(yA, yB) <= 1e-14, name + " Scale, Shift, AXPY, DiagonalScale, ZeroRows: MatMult on the device");
  PetscCall(MatMult(A, x, yB)); /* host vectors: A's values come back from the device */
  PetscCall(MatMult(B, x, dB));
  Check(RelDiff(yB, dB) <= 1e-14, name + " Scale, Shift, AXPY, DiagonalScale, ZeroRows: MatMult on the host");
  PetscCall(MatGetDiagonal(A, dA));
  PetscCall(MatGetDiagonal(B, dB));
  Check(RelDiff(dA, dB) <= 1e-15, name + " MatGetDiagonal on the device");
  for (Vec v : {x, xd, yA, yB, dA, dB}) PetscCall(VecDestroy(&v));
  for (Mat M : {A, B, XA, XB}) PetscCall(MatDestroy(&M));
  PetscFunctionReturn(0);
}

/* Run first, before any CUDA object exists: a diagcuda matrix, uploaded at
   assembly end, must land on the GPU PETSc gives this process (rank % GPUs,
   or -device_select), not on device 0 where CUDA's runtime starts when it
   is touched first. The current device is read before PETSc is asked for
   its device (asking sets it). Can fail only where there are several GPUs:
   mpiexec -n 2 on a 2-GPU machine. */
PetscErrorCode TestFirstMatrixDevice()
{
  Mat                A;
  Vec                x, y;
  PetscDeviceContext dctx;
  PetscDevice        dev;
  PetscInt           id;
  int                cur = -1;

  PetscFunctionBeginUser;
  Trace("first matrix device");
  PetscCall(RandomDiag(100, {-2, 0, 1}, MATDIAGCUDA, MAT_DIAG_STORAGE_HM, &A));
  Check(cudaGetDevice(&cur) == cudaSuccess, "cudaGetDevice");
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetDevice(dctx, &dev));
  PetscCall(PetscDeviceGetDeviceId(dev, &id));
  Check(cur == (int)id, "the first diagcuda matrix is on PETSc's device " + std::to_string(id) + " (current CUDA device " + std::to_string(cur) + ")");
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, y)); /* a product there works */
  for (Vec v : {x, y}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  bool device;
  if (!plugin_testing::GpuOrHostMode(argc, argv, "test_gpu_ops", &device)) return 77;
  const bool host_check = !device;
  PetscFunctionBeginUser;
  PetscCall(Start(&argc, &argv, "test_gpu_ops", device));
  if (!host_check) PetscCall(TestFirstMatrixDevice());
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA})
    for (MatDiagStorage st : {MAT_DIAG_STORAGE_HM, MAT_DIAG_STORAGE_CDM})
      for (PetscInt n : {1, 17, 1000}) {
        for (const std::vector<PetscInt> &offs : std::vector<std::vector<PetscInt>>{{0}, {-1, 0, 1}, {-(n - 1), -3, 0, 2, n - 1}, {-7, -1, 1, 5, 9}}) {
          Mat A;
          PetscCall(RandomDiag(n, offs, type, st, &A));
          PetscCall(CompareProducts(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          if (!host_check) PetscCall(ComparePinnedHalo(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          if (std::string(type) == MATDIAGCUDA) {
            Vec x;
            PetscBool cuda;
            PetscCall(MatCreateVecs(A, &x, NULL));
            PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
            Check(cuda, "diagcuda MatCreateVecs gives CUDA vectors");
            PetscCall(VecDestroy(&x));
          }
          PetscCall(MatDestroy(&A));
        }
      }
  if (!host_check)
    for (MatType type : {MATDIAG, MATDIAGCUDA}) PetscCall(TestSymmetricProducts(type));
  if (!host_check) {
    for (MatType type : {MATDIAG, MATDIAGCUDA})
      for (PetscInt n : {1, 17, 1000}) PetscCall(TestCOODevice(n, {-3, -1, 0, 2, 5}, type));
    for (MatDiagStorage st : {MAT_DIAG_STORAGE_HM, MAT_DIAG_STORAGE_CDM})
      for (PetscInt n : {1, 17, 1000}) PetscCall(TestDeviceOps(n, {-3, -1, 0, 2, 5}, st));
  }
  if (!host_check) {
    DM da;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 24, 24, 24, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetVecType(da, VECCUDA));
    PetscCall(DMSetUp(da));
    PetscCall(TestCompressedResidual(da));
    PetscCall(DMDestroy(&da));
  }
  return Finish();
}
