/* GPU paths of MATDIAG: the same matrix multiplied with host vectors (CPU
   kernels) and with CUDA vectors (GPU kernels) must agree to 1e-12; the
   diagcuda types hand out CUDA vectors; a KSP solve with CUDA vectors makes
   no host-device copies per iteration (the copy counts of KSPSolve are the
   same for 10 and 40 iterations, with Jacobi, SOR, bjacobi and ASM, and
   on one process ILU and ICC), and converges in the host solve's
   iterations (+-1); MatSOR with CUDA vectors (level-scheduled sweeps on
   the device) gives the host sweeps' result to rounding, and so do the
   solves with native ILU(0) / ICC(0) factors (level-scheduled triangular
   solves on the device). Without a CUDA device: prints SKIPPED and
   returns 77. Ends with the line "N passed, M failed". */
#include <petscdevice.h>
#include <petscdiag.h>
#include <petscdmda.h>
#include <petscksp.h>

#include "petsc_compat.hpp"
#include "plugin_testing.hpp" /* EventCount only: this test keeps its own counters */
#include "../../solvers/dm_inactive.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <execinfo.h>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

using plugin_testing::EventCount;

int     passed = 0, failed = 0;
VecType device_vec = VECCUDA; /* VECSTANDARD with -host_check: the same comparisons without a GPU */

/* DIAG_TEST_TRACE=1: each case is named on stderr before it runs, and a
   segmentation fault prints the stack (with -no_signal_handler, PETSc's
   own handler prints none in optimized builds) */
bool g_trace = std::getenv("DIAG_TEST_TRACE") != nullptr;

void Trace(const std::string &what)
{
  if (g_trace) {
    std::fprintf(stderr, "test_gpu: %s\n", what.c_str());
    std::fflush(stderr);
  }
}

void PrintStackAndExit(int sig)
{
  void *frames[64];
  int   n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  _exit(128 + sig);
}

void Check(bool ok, const std::string &what)
{
  if (ok) passed++;
  else {
    failed++;
    PetscPrintf(PETSC_COMM_WORLD, "FAILED: %s\n", what.c_str());
  }
}

/* Copies of v with the given vector type (host or CUDA). */
PetscErrorCode Retyped(Vec v, VecType type, Vec *w)
{
  PetscInt n, N;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetSize(v, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)v), w));
  PetscCall(VecSetSizes(*w, n, N));
  PetscCall(VecSetType(*w, type));
  { /* through host arrays: VecCopy between vector types is not defined in PETSc 3.18 */
    const PetscScalar *src;
    PetscScalar       *dst;
    PetscCall(VecGetArrayRead(v, &src));
    PetscCall(VecGetArrayWrite(*w, &dst));
    PetscCall(PetscArraycpy(dst, src, n));
    PetscCall(VecRestoreArrayRead(v, &src));
    PetscCall(VecRestoreArrayWrite(*w, &dst));
  }
  PetscFunctionReturn(0);
}

/* Host vectors of A's layout. Not MatCreateVecs + VecSetType(VECSTANDARD):
   a CUDA vector retyped to the host keeps its random type ("curand"), on
   which PETSc 3.25's VecSetRandom(x, NULL) crashes (PetscRandomSetType). */
PetscErrorCode HostVecs(Mat A, Vec *x, Vec *y)
{
  Vec xc, yc;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(A, &xc, &yc));
  PetscCall(Retyped(xc, VECSTANDARD, x));
  PetscCall(Retyped(yc, VECSTANDARD, y));
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&yc));
  PetscFunctionReturn(0);
}

/* ||a - b|| / ||b||, both compared as host vectors (mixed-type vector
   operations are not defined in PETSc 3.18). */
PetscReal RelDiff(Vec a, Vec b)
{
  Vec       ah, bh;
  PetscReal nd, nb;
  Retyped(a, VECSTANDARD, &ah);
  Retyped(b, VECSTANDARD, &bh);
  VecAXPY(ah, -1.0, bh);
  VecNorm(ah, NORM_2, &nd);
  VecNorm(bh, NORM_2, &nb);
  VecDestroy(&ah);
  VecDestroy(&bh);
  return nb > 0 ? nd / nb : nd;
}

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

/* A random matrix on the given diagonals, assembled from every rank's rows:
   entry (i, i + offs[k]) wherever it lies in the matrix and keep(i, k). */
template <class Keep>
PetscErrorCode RandomOnDiagonals(PetscInt n, const std::vector<PetscInt> &offs, MatType type, MatDiagStorage st, Keep keep, Mat *A)
{
  PetscInt    rs, re;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatDiagSetStorage(*A, st));
  PetscCall(MatSetUp(*A));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++)
    for (std::size_t k = 0; k < offs.size(); k++) {
      PetscScalar    v;
      const PetscInt j = i + offs[k];
      if (j < 0 || j >= n || !keep(i, k)) continue;
      PetscCall(PetscRandomGetValue(rnd, &v));
      PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* A random matrix on the given diagonals, every entry inside the matrix. */
PetscErrorCode RandomDiag(PetscInt n, const std::vector<PetscInt> &offs, MatType type, MatDiagStorage st, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(RandomOnDiagonals(n, offs, type, st, [](PetscInt, std::size_t) { return true; }, A));
  PetscFunctionReturn(0);
}

/* A box stencil's matrix (27 points, 9 when nz = 1) with random values on an
   nx x ny x nz grid, row x + nx (y + ny z), no coupling out of the grid: its
   factors' tiles are skewed boxes (straight ones read each other). */
PetscErrorCode RandomBoxStencil(PetscInt nx, PetscInt ny, PetscInt nz, MatType type, Mat *A)
{
  std::vector<PetscInt>                offs;
  std::vector<std::array<PetscInt, 3>> steps;

  PetscFunctionBeginUser;
  for (PetscInt dz = (nz > 1 ? -1 : 0); dz <= (nz > 1 ? 1 : 0); dz++)
    for (PetscInt dy = -1; dy <= 1; dy++)
      for (PetscInt dx = -1; dx <= 1; dx++) {
        offs.push_back(dx + nx * (dy + ny * dz));
        steps.push_back({dx, dy, dz});
      }
  const auto in_grid = [&](PetscInt i, std::size_t k) {
    const PetscInt x = i % nx + steps[k][0], y = (i / nx) % ny + steps[k][1], z = i / (nx * ny) + steps[k][2];
    return x >= 0 && x < nx && y >= 0 && y < ny && z >= 0 && z < nz;
  };
  PetscCall(RandomOnDiagonals(nx * ny * nz, offs, type, MAT_DIAG_STORAGE_AUTO, in_grid, A));
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

/* The 7-point stencil matrix of da (DMCreateMatrix: da's matrix type). */
PetscErrorCode StencilMatrix(DM da, Mat *Aout)
{
  Mat A;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(da, &A));
  {
    DMDALocalInfo li;
    PetscCall(DMDAGetLocalInfo(da, &li));
    for (PetscInt k = li.zs; k < li.zs + li.zm; k++)
      for (PetscInt j = li.ys; j < li.ys + li.ym; j++)
        for (PetscInt i = li.xs; i < li.xs + li.xm; i++) {
          MatStencil  row = {k, j, i, 0}, col[7];
          PetscScalar v[7];
          PetscInt    n = 0;
          col[n] = row;
          v[n++] = (i == 0 && j == 0) ? 7.5 : 6.5; /* a constant main diagonal with exceptions */
          const PetscInt d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
          for (auto &o : d) {
            const PetscInt ii = i + o[0], jj = j + o[1], kk = k + o[2];
            if (ii < 0 || jj < 0 || kk < 0 || ii >= li.mx || jj >= li.my || kk >= li.mz) continue;
            col[n] = {kk, jj, ii, 0};
            v[n++] = -1.0;
          }
          PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
        }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  *Aout = A;
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

/* KSPSolve(ksp, b, x) in a log stage of its own (name made unique), and
   the KSPSolve event's numbers in that stage (time, host<->device copies). */
PetscErrorCode SolveInOwnStage(KSP ksp, Vec b, Vec x, const std::string &name, PetscEventPerfInfo *info)
{
  static int    nstage = 0; /* stage names must be unique */
  PetscLogStage stage;
  PetscLogEvent ev;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister((name + "_" + std::to_string(nstage++)).c_str(), &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscLogEventGetId("KSPSolve", &ev));
  PetscCall(PetscLogEventGetPerfInfo(stage, ev, info));
  PetscFunctionReturn(0);
}

/* A CG solve with pctype on da's stencil matrix (da's matrix and vector
   types): its KSP after a first solve; *copies: the host<->device copies
   of a second solve, run for exactly `its` iterations if its > 0, else to
   rtol 1e-8 (*copies then -1). */
PetscErrorCode StencilSolve(DM da, PCType pctype, PetscInt its, PetscLogDouble *copies, PetscInt *iterations)
{
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  Trace("stencil solve " + std::string(pctype));
  PetscCall(StencilMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  {
    /* Jacobi's MatGetDiagonal into a CUDA vector (diag: from the compressed
       device copy) equals the host's */
    Vec d0, dh;
    PetscCall(MatCreateVecs(A, NULL, &d0));
    PetscCall(Retyped(d0, VECSTANDARD, &dh));
    PetscCall(VecDestroy(&d0));
    PetscCall(MatGetDiagonal(A, x));
    PetscCall(MatGetDiagonal(A, dh));
    MatType type;
    PetscCall(MatGetType(A, &type));
    Check(RelDiff(x, dh) == 0, std::string("MatGetDiagonal of the stencil matrix (") + type + ") on the device");
    PetscCall(VecDestroy(&dh));
  }
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  if (its > 0) {
    PetscCall(KSPSetTolerances(ksp, 1e-30, 1e-30, PETSC_DEFAULT, its));
    PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  } else PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPSolve(ksp, b, x)); /* first solve: uploads */
  PetscCall(SolveInOwnStage(ksp, b, x, "solve" + std::to_string(its), &info));
  *copies = its > 0 ? info.CpuToGpuCount + info.GpuToCpuCount : -1;
  {
    KSPConvergedReason reason;
    PetscCall(KSPGetIterationNumber(ksp, iterations));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    if (its <= 0) Check(reason > 0, std::string("CG with ") + pctype + " converges on the stencil matrix");
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* PCMG with Galerkin coarse operators on da (3 levels, Jacobi smoothers),
   da's matrix and vector types: the bytes copied to the device by the
   first KSPSolve after KSPSetUp (*bytes), its copies to the host
   (*to_host), the iterations to rtol 1e-8, the type of the coarse
   LU's factor matrix (*coarse_factor_type, 32 characters) and the
   Frobenius norms of the two Galerkin operators (level_norms[2], coarsest
   first). */
PetscErrorCode GalerkinMGFirstSolve(DM da, PetscLogDouble *bytes, PetscLogDouble *to_host, PetscInt *iterations, char coarse_factor_type[], PetscReal level_norms[])
{
  Mat                A;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  Trace("Galerkin MG first solve");
  PetscCall(StencilMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetDMInactive(ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, 3, NULL));
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
  for (PetscInt l = 1; l < 3; l++) {
    KSP smoother;
    PC  spc;
    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetPC(smoother, &spc));
    PetscCall(PCSetType(spc, PCJACOBI));
  }
  PetscCall(KSPSetUp(ksp));
  PetscCall(SolveInOwnStage(ksp, b, x, "mgfirst", &info));
  *bytes   = info.CpuToGpuSize;
  *to_host = info.GpuToCpuCount;
  PetscCall(KSPGetIterationNumber(ksp, iterations));
  {
    KSP           coarse;
    PC            cpc;
    Mat           F;
    MatType       type;
    PetscCall(PCMGGetCoarseSolve(pc, &coarse));
    PetscCall(KSPGetPC(coarse, &cpc));
    PetscCall(PCFactorGetMatrix(cpc, &F));
    PetscCall(MatGetType(F, &type));
    PetscCall(PetscStrncpy(coarse_factor_type, type, 32));
  }
  for (PetscInt l = 0; l < 2; l++) {
    KSP level;
    Mat Al;
    PetscCall(PCMGGetSmoother(pc, l, &level));
    PetscCall(KSPGetOperators(level, &Al, NULL));
    PetscCall(MatNorm(Al, NORM_FROBENIUS, &level_norms[l]));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* MatSOR with CUDA vectors (on the device for HM storage) against host
   vectors (the sequential sweeps on the host): every sweep type (in
   parallel the local ones, as aij), with and without a zero initial
   guess, omega, shift, its and lits, to rounding, by the recorded CUDA
   graph and by one launch per level (-mat_diag_cuda_graphs 0). On a copy of A made
   diagonally dominant (A has a main diagonal). */
PetscErrorCode CompareSOR(Mat A0, const std::string &name)
{
  Mat         A;
  Vec         bh, x0, xh, bd, xd;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A0), &size));
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
  PetscCall(MatShift(A, 20.0));
  PetscCall(HostVecs(A, &x0, &bh));
  PetscCall(VecSetRandom(x0, NULL));
  PetscCall(VecSetRandom(bh, NULL));
  PetscCall(Retyped(bh, device_vec, &bd));
  PetscCall(VecDuplicate(x0, &xh));
  const MatSORType global[] = {SOR_FORWARD_SWEEP, SOR_BACKWARD_SWEEP, SOR_SYMMETRIC_SWEEP};
  const MatSORType local[]  = {SOR_LOCAL_FORWARD_SWEEP, SOR_LOCAL_BACKWARD_SWEEP, SOR_LOCAL_SYMMETRIC_SWEEP};
  struct Param {
    PetscReal omega, shift;
    PetscInt  its, lits;
  };
  for (int g = size == 1 ? 0 : 1; g < 2; g++)
    for (int t = 0; t < 3; t++)
      for (PetscBool zero : {PETSC_FALSE, PETSC_TRUE})
        for (Param q : {Param{1.0, 0.0, 1, 1}, Param{1.3, 0.2, 2, 2}})
          for (PetscBool graphs : {PETSC_TRUE, PETSC_FALSE}) { /* the recorded CUDA graph, then one launch per level */
            const MatSORType flag = (MatSORType)((g == 0 ? global[t] : local[t]) | (zero ? SOR_ZERO_INITIAL_GUESS : 0));
            PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_cuda_graphs", graphs ? "1" : "0"));
            PetscCall(VecCopy(x0, xh));
            PetscCall(Retyped(x0, device_vec, &xd));
            PetscCall(MatSOR(A, bh, q.omega, flag, q.shift, q.its, q.lits, xh));
            PetscCall(MatSOR(A, bd, q.omega, flag, q.shift, q.its, q.lits, xd));
            PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_cuda_graphs"));
            const PetscReal e = RelDiff(xd, xh);
            Check(e <= 1e-12, name + " MatSOR flag " + std::to_string((int)flag) + " omega " + std::to_string(q.omega) + " its " + std::to_string(q.its) + " lits " + std::to_string(q.lits) + (graphs ? "" : " (-mat_diag_cuda_graphs 0)") + ": " + std::to_string(e));
            PetscCall(VecDestroy(&xd));
          }
  for (Vec v : {bh, x0, xh, bd}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* The "petsc" package's ILU(0) or ICC(0) factor of A after its symbolic
   phase, and info as PCILU / PCICC give it (no fill, PETSc's zero pivot). */
PetscErrorCode SymbolicFactor(Mat A, MatFactorType ft, MatFactorInfo *info, Mat *F)
{
  PetscFunctionBeginUser;
  PetscCall(MatFactorInfoInitialize(info));
  info->fill      = 1.0; /* ILU(0) / ICC(0): no fill */
  info->zeropivot = 100 * PETSC_MACHINE_EPSILON;
  PetscCall(MatGetFactor(A, MATSOLVERPETSC, ft, F));
  if (ft == MAT_FACTOR_ILU) PetscCall(MatILUFactorSymbolic(*F, A, NULL, NULL, info));
  else PetscCall(MatICCFactorSymbolic(*F, A, NULL, info));
  PetscFunctionReturn(0);
}

/* The numeric phase of SymbolicFactor's factor F of A. */
PetscErrorCode NumericFactor(Mat F, Mat A, MatFactorType ft, const MatFactorInfo *info)
{
  PetscFunctionBeginUser;
  if (ft == MAT_FACTOR_ILU) PetscCall(MatLUFactorNumeric(F, A, info));
  else PetscCall(MatCholeskyFactorNumeric(F, A, info));
  PetscFunctionReturn(0);
}

/* The native ILU(0) / ICC(0) factor of a sequential A (PETSc's "petsc"
   package, zero fill: the factor on the diagonals) applied to CUDA vectors
   (level-scheduled triangular solves on the device) against host vectors
   (the sequential solves on the host): MatSolve, MatSolveTranspose and
   ICC's MatForwardSolve / MatBackwardSolve, to rounding, twice by default
   (tiled passes where the factor has tiles, else the recorded CUDA graph;
   the second solve reuses the uploaded factor and schedules), then with
   -mat_diag_factor_tiles 0 (level-scheduled, the graph) and with
   -mat_diag_cuda_graphs 0 too (one launch per level), and again after a numeric
   refactorization with new values (the device copy must follow). Each
   numeric factorization runs twice first, on the host (-mat_diag_factor_device
   0) and by default (on the device for diagcuda), and host solves with the
   two factors must agree. On a copy of A made diagonally dominant. */
PetscErrorCode CompareFactorSolves(Mat A0, const std::string &name)
{
  Mat         A;
  Vec         bh, xh, bd, xd;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A0), &size));
  if (size > 1) PetscFunctionReturn(0); /* factors of sequential matrices (bjacobi / ASM blocks: the KSP tests) */
  Trace("factor solves " + name);
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
  PetscCall(MatShift(A, 20.0));
  PetscCall(HostVecs(A, &bh, &xh));
  PetscCall(VecSetRandom(bh, NULL));
  PetscCall(Retyped(bh, device_vec, &bd));
  PetscCall(Retyped(xh, device_vec, &xd));
  for (MatFactorType ft : {MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    Mat           F;
    MatFactorInfo info;
    const char   *fname = ft == MAT_FACTOR_ILU ? "ILU(0)" : "ICC(0)";
    PetscCall(SymbolicFactor(A, ft, &info, &F));
    for (int round = 0; round < 2; round++) {
      if (round == 1) PetscCall(MatScale(A, 1.5)); /* new values, same pattern */
      { /* the numeric factorization on the device (A's vectors are CUDA ones: diagcuda) against the host's
           (-mat_diag_factor_device 0): the same factor, seen through host solves (which copy it back) */
        Vec xref;
        PetscCall(VecDuplicate(xh, &xref));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_factor_device", "0"));
        PetscCall(NumericFactor(F, A, ft, &info));
        PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_factor_device"));
        PetscCall(MatSolve(F, bh, xref));
        PetscCall(NumericFactor(F, A, ft, &info));
        PetscCall(MatSolve(F, bh, xh));
        Check(RelDiff(xh, xref) <= 1e-12, name + " " + fname + (round ? " after refactorization" : "") + ": factored on the device (if used) and on the host: difference " + std::to_string(RelDiff(xh, xref)));
        PetscCall(VecDestroy(&xref));
      }
      for (int op = 0; op < (ft == MAT_FACTOR_ILU ? 2 : 4); op++)
        for (int rep = 0; rep < 4; rep++) { /* rep 0, 1: the default (tiled where the tiles fit), 2: level-scheduled with the CUDA graph, 3: one launch per level */
          const char *opname[] = {"MatSolve", "MatSolveTranspose", "MatForwardSolve", "MatBackwardSolve"};
          const char *repname[] = {"", " (again)", " (-mat_diag_factor_tiles 0)", " (-mat_diag_factor_tiles 0 -mat_diag_cuda_graphs 0)"};
          PetscErrorCode (*apply[])(Mat, Vec, Vec) = {MatSolve, MatSolveTranspose, MatForwardSolve, MatBackwardSolve};
          PetscCall(VecSet(xd, 7.0)); /* a stale x must not leak into the result */
          PetscCall(apply[op](F, bh, xh));
          if (rep >= 2) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_factor_tiles", "0"));
          if (rep == 3) PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_cuda_graphs", "0"));
          PetscCall(apply[op](F, bd, xd));
          PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_factor_tiles"));
          PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_cuda_graphs"));
          const PetscReal e = RelDiff(xd, xh), moved = RelDiff(xh, bh);
          Check(e <= 1e-12 && moved > 1e-3, name + " " + fname + " " + opname[op] + (round ? " after refactorization" : "") + repname[rep] + ": difference " + std::to_string(e));
        }
    }
    PetscCall(MatDestroy(&F));
  }
  for (Vec v : {bh, xh, bd, xd}) PetscCall(VecDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* The factor's pattern grows: a 5-point operator on an 8 x 8 grid whose
   diagonals +-1 are stored but never set where they cross a grid line's
   end (so aij's factor, and diag's, leave those entries out), ILU(0) and
   ICC(0) factored (on the device for diagcuda), then such a crossing entry
   set (and its mirror) and the matrix factored again: the device finds the
   new nonzero outside the pattern, the pattern grows on the host, and the
   factor must equal the host's factorization of the new matrix
   (-mat_diag_factor_device 0), seen through host and device solves. */
PetscErrorCode TestFactorPatternGrowth(MatType type)
{
  const PetscInt nx = 8, n = nx * nx;
  Mat            A;
  Vec            bh, xh, xref, bd, xd;
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size > 1) PetscFunctionReturn(0); /* sequential factors */
  Trace(std::string("factor pattern growth ") + type);
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, n, n, n, n));
  PetscCall(MatSetType(A, type));
  {
    const PetscInt offs[] = {-nx, -1, 0, 1, nx};
    PetscCall(MatDiagSetPreallocation(A, 5, offs));
  }
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt x = i % nx;
    PetscCall(MatSetValue(A, i, i, 4.5, INSERT_VALUES));
    if (x > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (x < nx - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    if (i >= nx) PetscCall(MatSetValue(A, i, i - nx, -1.0, INSERT_VALUES));
    if (i + nx < n) PetscCall(MatSetValue(A, i, i + nx, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(HostVecs(A, &bh, &xh));
  PetscCall(VecDuplicate(xh, &xref));
  PetscCall(VecSetRandom(bh, NULL));
  PetscCall(Retyped(bh, device_vec, &bd));
  PetscCall(Retyped(xh, device_vec, &xd));
  for (MatFactorType ft : {MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    Mat           F;
    MatFactorInfo info;
    const char   *fname = ft == MAT_FACTOR_ILU ? "ILU(0)" : "ICC(0)";
    PetscCall(SymbolicFactor(A, ft, &info, &F));
    PetscCall(NumericFactor(F, A, ft, &info));
    /* a coupling across the end of grid line 2 (rows 23, 24), which the pattern left out */
    PetscCall(MatSetValue(A, 3 * nx - 1, 3 * nx, -0.5, INSERT_VALUES));
    PetscCall(MatSetValue(A, 3 * nx, 3 * nx - 1, -0.5, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_factor_device", "0"));
    PetscCall(NumericFactor(F, A, ft, &info));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_factor_device"));
    PetscCall(MatSolve(F, bh, xref));
    PetscCall(NumericFactor(F, A, ft, &info)); /* the default: on the device for diagcuda, growing the pattern */
    PetscCall(MatSolve(F, bd, xd));
    PetscCall(MatSolve(F, bh, xh));
    Check(RelDiff(xd, xref) <= 1e-12 && RelDiff(xh, xref) <= 1e-12, std::string(type) + " " + fname + " after a nonzero outside the pattern: device " + std::to_string(RelDiff(xd, xref)) + ", host " + std::to_string(RelDiff(xh, xref)));
    /* the new coupling is in the factor: the old pattern's factor solves differently */
    PetscCall(MatSetValue(A, 3 * nx - 1, 3 * nx, 0.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, 3 * nx, 3 * nx - 1, 0.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(NumericFactor(F, A, ft, &info));
    PetscCall(MatSolve(F, bd, xd));
    Check(RelDiff(xd, xref) > 1e-6, std::string(type) + " " + fname + ": the crossing entry changed the solve");
    PetscCall(MatDestroy(&F));
  }
  for (Vec v : {bh, xh, xref, bd, xd}) PetscCall(VecDestroy(&v));
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
  int  ndev       = 0;
  bool host_check = argc > 1 && std::string(argv[1]) == "-host_check";
  if (host_check) device_vec = VECSTANDARD;
  else if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("test_gpu: SKIPPED: no CUDA device\n");
    return 77;
  }
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  if (g_trace) std::signal(SIGSEGV, PrintStackAndExit);
  Trace("PetscInitialize done");
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MatDiagRegisterAll());
  if (!host_check) PetscCall(TestFirstMatrixDevice());
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA}) PetscCall(TestFactorPatternGrowth(type));
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA})
    for (MatDiagStorage st : {MAT_DIAG_STORAGE_HM, MAT_DIAG_STORAGE_CDM})
      for (PetscInt n : {1, 17, 1000}) {
        for (const std::vector<PetscInt> &offs : std::vector<std::vector<PetscInt>>{{0}, {-1, 0, 1}, {-(n - 1), -3, 0, 2, n - 1}, {-7, -1, 1, 5, 9}}) {
          Mat A;
          PetscCall(RandomDiag(n, offs, type, st, &A));
          PetscCall(CompareProducts(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          if (!host_check) PetscCall(ComparePinnedHalo(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          if (std::find(offs.begin(), offs.end(), 0) != offs.end()) {
            PetscCall(CompareSOR(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
            PetscCall(CompareFactorSolves(A, std::string(type) + (st == MAT_DIAG_STORAGE_HM ? " hm" : " cdm") + " n=" + std::to_string(n) + " ndiag=" + std::to_string(offs.size())));
          }
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
  for (MatType type : {MATDIAG, host_check ? MATDIAG : MATDIAGCUDA})
    for (const std::array<PetscInt, 3> &g : {std::array<PetscInt, 3>{12, 10, 8}, std::array<PetscInt, 3>{40, 30, 1}}) {
      Mat A;
      PetscCall(RandomBoxStencil(g[0], g[1], g[2], type, &A));
      PetscCall(CompareFactorSolves(A, std::string(type) + (g[2] > 1 ? " 27-point " : " 9-point ") + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2])));
      PetscCall(MatDestroy(&A));
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
    DM             da;
    PetscLogDouble c10, c40;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 24, 24, 24, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetVecType(da, VECCUDA));
    PetscCall(DMSetUp(da));
    PetscCall(TestCompressedResidual(da));
    /* copies per iteration: none on one process; under MPI the ghost
       exchange stages through the host (this MPI is not CUDA-aware), and
       diag may copy no more than aijcusparse does */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    /* SOR: level-scheduled sweeps on the device (aijcusparse's run on the
       host); ILU / ICC (one process) and bjacobi / ASM with their default
       ILU(0) blocks: level-scheduled triangular solves on the device */
    std::vector<PCType> pcs = {PCJACOBI, PCSOR, PCBJACOBI, PCASM};
    if (size == 1) pcs.insert(pcs.end(), {PCILU, PCICC, PCLU, PCCHOLESKY}); /* 24^3 rows: LU and Cholesky by cuSPARSE's factor */
    for (PCType pctype : pcs) {
      PetscLogDouble grow[2];
      PetscInt       its;
      for (int t = 0; t < 2; t++) {
        PetscCall(DMSetMatType(da, t == 0 ? MATDIAG : MATAIJCUSPARSE));
        PetscCall(StencilSolve(da, pctype, 10, &c10, &its));
        PetscCall(StencilSolve(da, pctype, 40, &c40, &its));
        grow[t] = c40 - c10;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s: KSPSolve host<->device copies: %g for 10 iterations, %g for 40\n", t == 0 ? "diag" : "aijcusparse", pctype, c10, c40));
      }
      /* none on one process, unless aijcusparse's own solve copies too
         (PETSc 3.18 built with CUDA 13 solves cuSPARSE's Cholesky factors
         on the host: cuSPARSE 12 dropped the csrsv2 it used) */
      if (size == 1 && grow[1] == 0) Check(grow[0] == 0, std::string("no host-device copies per CG iteration with ") + pctype);
      Check(grow[0] <= grow[1], std::string("no more host-device copies per CG iteration than aijcusparse with ") + pctype);
      { /* the device solve converges as the host one: the same iterations (+-1) */
        DM       dh;
        PetscInt its_host, its_dev;
        PetscLogDouble none;
        PetscCall(DMSetMatType(da, MATDIAG));
        PetscCall(StencilSolve(da, pctype, 0, &none, &its_dev));
        PetscCall(DMClone(da, &dh));
        PetscCall(DMSetVecType(dh, VECSTANDARD));
        PetscCall(DMSetMatType(dh, MATDIAG));
        PetscCall(StencilSolve(dh, pctype, 0, &none, &its_host));
        PetscCall(DMDestroy(&dh));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diag, %s: CG iterations to rtol 1e-8: %" PetscInt_FMT " with CUDA vectors, %" PetscInt_FMT " with host vectors\n", pctype, its_dev, its_host));
        Check(PetscAbs(its_dev - its_host) <= 1, std::string("CG with ") + pctype + ": the iterations with CUDA vectors are the host's (+-1)");
      }
    }
    if (size == 1) {
      /* PCMG's grid transfers (host aij from the DMDA for diag) are converted
         to aijcusparse and placed on the device in the set-up: the first
         solve uploads no more than aijcusparse's, whose Galerkin products
         placed its transfers there (left on the host, or uploaded at their
         first use, they add their own bytes or the vectors' at every
         application). One process: PETSc 3.18's aijcusparse has no
         parallel Galerkin MG. */
      PetscLogDouble bytes[2], to_host[2];
      PetscInt       its[2], n = 25; /* coarsens to 13^3 and 7^3 */
      char           coarse_factor_type[2][32];
      PetscReal      level_norms[2][2];
      DM             dmg;
      PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &dmg));
      PetscCall(DMSetVecType(dmg, VECCUDA));
      PetscCall(DMSetUp(dmg));
      for (int t = 0; t < 2; t++) {
        PetscCall(DMSetMatType(dmg, t == 0 ? MATDIAG : MATAIJCUSPARSE));
        PetscCall(GalerkinMGFirstSolve(dmg, &bytes[t], &to_host[t], &its[t], coarse_factor_type[t], level_norms[t]));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, Galerkin MG: first KSPSolve copies %g bytes to the device and %g times to the host, %" PetscInt_FMT " iterations, coarse LU factor %s\n", t == 0 ? "diag" : "aijcusparse", bytes[t], to_host[t], its[t], coarse_factor_type[t]));
      }
      Check(bytes[0] <= bytes[1] + (PetscLogDouble)(n * n * n * sizeof(PetscScalar)), "Galerkin MG: the first KSPSolve uploads no more than aijcusparse's (plus one fine vector)");
      Check(PetscAbs(its[0] - its[1]) <= 1, "Galerkin MG: diag's iterations are aijcusparse's (+-1)");
      /* the Galerkin operators (computed as aij's on the host, stored as diag) are aijcusparse's */
      for (int l = 0; l < 2; l++) Check(PetscAbs(level_norms[0][l] - level_norms[1][l]) <= 1e-12 * level_norms[1][l], "Galerkin MG: diag's level " + std::to_string(l) + " operator has aijcusparse's Frobenius norm");
      /* the coarse LU (7^3 rows) is solved on the device, as aijcusparse's:
         the V-cycles copy nothing to the host (PETSc's host LU would copy
         the coarse vectors every cycle); densely by cuSOLVER, or with
         -mat_diag_dense_factor_max 0 by cuSPARSE as aijcusparse's */
      Check(std::string(coarse_factor_type[0]) == MATSEQDENSECUDA, std::string("Galerkin MG: diag's coarse LU is cuSOLVER's dense factor (") + coarse_factor_type[0] + ")");
      Check(to_host[0] <= to_host[1], "Galerkin MG: the first KSPSolve copies to the host no more often than aijcusparse's");
      PetscCall(PetscOptionsSetValue(NULL, "-mat_diag_dense_factor_max", "0"));
      PetscCall(DMSetMatType(dmg, MATDIAG));
      PetscCall(GalerkinMGFirstSolve(dmg, &bytes[0], &to_host[0], &its[0], coarse_factor_type[0], level_norms[0]));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_diag_dense_factor_max"));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diag, Galerkin MG, -mat_diag_dense_factor_max 0: %g copies to the host, %" PetscInt_FMT " iterations, coarse LU factor %s\n", to_host[0], its[0], coarse_factor_type[0]));
      Check(std::string(coarse_factor_type[0]) == coarse_factor_type[1], std::string("Galerkin MG, -mat_diag_dense_factor_max 0: diag's coarse LU factor is aijcusparse's (") + coarse_factor_type[1] + ")");
      Check(to_host[0] <= to_host[1] && PetscAbs(its[0] - its[1]) <= 1, "Galerkin MG, -mat_diag_dense_factor_max 0: no more copies to the host than aijcusparse, its iterations (+-1)");
      PetscCall(DMDestroy(&dmg));
    }
    PetscCall(DMDestroy(&da));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d passed, %d failed\n", passed, failed));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
