/* PCMG's DMDA interpolation from its formula (pc/mg_structured.cpp):
   Galerkin PCMG on a diag operator on 1D, 2D and 3D DMDAs (odd sizes, 2:1
   vertex-centred coarsening), with CUDA vectors (the formula on the GPU)
   and, with -host_check, host vectors (the formula on the host; on any
   machine):
   - every level's interpolation takes the structured products (the object
     composed as "MatDiagStructuredTransfer") and stays host aij (no
     device copy), and its MatMult, MatMultAdd, MatMultTranspose and
     MatMultTransposeAdd (distinct and aliased added vectors, of the
     levels' type) equal those of a host aij copy of it;
   - the solve takes the same iterations as with
     -pc_mg_diag_structured_transfer 0 (the matrix's own products, which
     are aijcusparse's with CUDA vectors), the same solution to rounding,
     and that option leaves every level alone; with CUDA vectors,
     -pc_mg_diag_transfer_type aijcusparse converts the transfers, which
     still run from the formula, the same iterations;
   - a transfer whose values change after the check (MatScale) gives the
     changed products (the matrix's own: the check no longer holds), twice
     the earlier ones and a host aij copy's;
   - not taken: a periodic DMDA (its interpolation wraps around).
   One process (the path is sequential). Without a CUDA device the default
   run is SKIPPED, exit 77. Ends with "N passed, M failed". */
#include "gpu_or_host.hpp"
#include "plugin_testing.hpp"
#include "../../solvers/dm_inactive.hpp"

#include <petscdmda.h>
#include <petscksp.h>


#include <cstring>
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

bool IsStructured(Mat P)
{
  PetscObject obj = NULL;
  (void)PetscObjectQuery((PetscObject)P, "MatDiagStructuredTransfer", &obj);
  return obj != NULL;
}

/* n points in x, about half as many in y, twice as many in z (n odd: every
   coarsening 2:1 vertex-centred; n even for a periodic grid). */
PetscErrorCode CreateGrid(PetscInt dim, PetscInt n, DMBoundaryType bt, DM *da)
{
  const PetscInt m = bt == DM_BOUNDARY_PERIODIC ? n / 2 : (n + 1) / 2;

  PetscFunctionBeginUser;
  if (dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, bt, n, 1, 1, NULL, da));
  else if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bt, bt, DMDA_STENCIL_STAR, n, m, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bt, bt, bt, DMDA_STENCIL_STAR, n, m, 2 * n - 1, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetVecType(*da, g_device ? VECCUDA : VECSTANDARD));
  PetscCall(DMSetMatType(*da, MATDIAG));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

/* A diagonally dominant variable-coefficient stencil operator of da. */
PetscErrorCode StencilOperator(DM da, Mat *A)
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
        col[n] = row, v[n++] = 2.0 * dim + 0.1 + 0.1 * Unit(5, id, 0);
        const PetscInt d[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        for (PetscInt a = 0; a < dim; a++)
          for (int s = -1; s <= 1; s += 2) {
            MatStencil c = {k + s * d[a][2], j + s * d[a][1], i + s * d[a][0], 0};
            if (c.i < 0 || c.i >= M || c.j < 0 || c.j >= N || c.k < 0 || c.k >= P) continue;
            col[n] = c, v[n++] = -1.0;
          }
        PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, v, INSERT_VALUES));
      }
  PetscCall(Assemble(*A));
  PetscFunctionReturn(0);
}

/* Vectors for P's columns (coarse) and rows (fine) of the levels' type:
   CUDA vectors in the GPU run (P itself stays host aij there when its
   products run from the formula), host vectors with -host_check. */
PetscErrorCode LevelVecs(Mat P, Vec *coarse, Vec *fine)
{
  PetscInt m, n;

  PetscFunctionBeginUser;
  PetscCall(MatGetLocalSize(P, &m, &n));
  PetscCall(VecCreate(PETSC_COMM_WORLD, coarse));
  PetscCall(VecSetSizes(*coarse, n, PETSC_DETERMINE));
  PetscCall(VecCreate(PETSC_COMM_WORLD, fine));
  PetscCall(VecSetSizes(*fine, m, PETSC_DETERMINE));
  for (Vec v : {*coarse, *fine}) PetscCall(VecSetType(v, g_device ? VECCUDA : VECSTANDARD));
  PetscFunctionReturn(0);
}

/* A host aij copy of P (seqaij, values current). */
PetscErrorCode HostCopy(Mat P, Mat *Ph)
{
  PetscFunctionBeginUser;
  PetscCall(MatConvert(P, MATSEQAIJ, MAT_INITIAL_MATRIX, Ph));
  PetscFunctionReturn(0);
}

/* P's four products (with vectors of P's own type) against those of Ph,
   a host aij matrix. The products' outputs hold other values before
   (those of the product before), which must not matter; but where P's
   products are aijcusparse's (aij_own), the output of MatMultTransposeAdd
   with distinct added vector is zeroed first: aijcusparse's adds its old
   contents (PETSc 3.18 and 3.25, MatMultAddKernel_SeqAIJCUSPARSE: beta 1
   on the output, then the added vector again), which this test found. */
PetscErrorCode CheckProducts(Mat P, Mat Ph, bool aij_own, const std::string &cs, const std::string &what)
{
  Vec         xc, xf, zc, zf, yc, yf, hxc, hxf, hzc, hzf, hyc, hyf, back;
  PetscRandom rnd;
  PetscReal   worst = 0, rel;

  PetscFunctionBeginUser;
  PetscCall(LevelVecs(P, &xc, &xf));
  PetscCall(VecDuplicate(xc, &zc));
  PetscCall(VecDuplicate(xc, &yc));
  PetscCall(VecDuplicate(xf, &zf));
  PetscCall(VecDuplicate(xf, &yf));
  PetscCall(MatCreateVecs(Ph, &hxc, &hxf));
  PetscCall(VecDuplicate(hxc, &hzc));
  PetscCall(VecDuplicate(hxc, &hyc));
  PetscCall(VecDuplicate(hxf, &hzf));
  PetscCall(VecDuplicate(hxf, &hyf));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (Vec v : {hxc, hxf, hzc, hzf}) PetscCall(VecSetRandom(v, rnd));
  PetscCall(VecCopy(hxc, xc));
  PetscCall(VecCopy(hxf, xf));
  PetscCall(VecCopy(hzc, zc));
  PetscCall(VecCopy(hzf, zf));
  std::string each; /* every product's difference, in the order below */
  auto compare = [&](Vec y, Vec ref) -> PetscErrorCode {
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(ref, &back));
    PetscCall(VecCopy(y, back));
    PetscCall(VecRelDiff(back, ref, &rel, NORM_INFINITY));
    worst = PetscMax(worst, rel);
    each += Fmt(" %.1e", (double)rel);
    PetscCall(VecDestroy(&back));
    PetscFunctionReturn(0);
  };
  PetscCall(MatMult(P, xc, yf));
  PetscCall(MatMult(Ph, hxc, hyf));
  PetscCall(compare(yf, hyf));
  PetscCall(MatMultAdd(P, xc, zf, yf));
  PetscCall(MatMultAdd(Ph, hxc, hzf, hyf));
  PetscCall(compare(yf, hyf));
  PetscCall(MatMultTranspose(P, xf, yc));
  PetscCall(MatMultTranspose(Ph, hxf, hyc));
  PetscCall(compare(yc, hyc));
  if (aij_own) PetscCall(VecZeroEntries(yc));
  PetscCall(MatMultTransposeAdd(P, xf, zc, yc));
  PetscCall(MatMultTransposeAdd(Ph, hxf, hzc, hyc));
  PetscCall(compare(yc, hyc));
  /* aliased: y = y + P x, as PCMG's MatInterpolateAdd */
  PetscCall(MatMultAdd(P, xc, zf, zf));
  PetscCall(compare(zf, hyf));
  PetscCall(MatMultTransposeAdd(P, xf, zc, zc));
  PetscCall(compare(zc, hyc));
  PetscCall(Record(worst <= 1e-14, cs, what, Fmt("largest relative difference %g (mult, multadd, multtranspose, multtransposeadd, multadd and multtransposeadd aliased:", (double)worst) + each + ")"));
  PetscCall(PetscRandomDestroy(&rnd));
  for (Vec *v : {&xc, &xf, &zc, &zf, &yc, &yf, &hxc, &hxf, &hzc, &hzf, &hyc, &hyf}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(0);
}

/* P x and P^T y before and after MatScale(P, 2) (which moves P's state):
   twice the values (the formula's before, the matrix's own after); then
   the four products against Ph, P's host aij copy from before, scaled by 2
   on the host. */
PetscErrorCode CheckScaled(Mat P, Mat Ph, const std::string &cs, const std::string &lv)
{
  Vec       xc, xf, y1f, y2f, y1c, y2c;
  PetscReal rf, rc;

  PetscFunctionBeginUser;
  PetscCall(LevelVecs(P, &xc, &xf));
  PetscCall(VecDuplicate(xf, &y1f));
  PetscCall(VecDuplicate(xf, &y2f));
  PetscCall(VecDuplicate(xc, &y1c));
  PetscCall(VecDuplicate(xc, &y2c));
  PetscCall(VecSet(xc, 1.0));
  PetscCall(VecSetValue(xc, 0, 3.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(xc));
  PetscCall(VecAssemblyEnd(xc));
  PetscCall(VecSet(xf, -1.0));
  PetscCall(VecSetValue(xf, 1, 5.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(xf));
  PetscCall(VecAssemblyEnd(xf));
  PetscCall(MatMult(P, xc, y1f));
  PetscCall(MatMultTranspose(P, xf, y1c));
  PetscCall(MatScale(P, 2.0));
  PetscCall(MatMult(P, xc, y2f));
  PetscCall(MatMultTranspose(P, xf, y2c));
  PetscCall(VecScale(y1f, 2.0));
  PetscCall(VecScale(y1c, 2.0));
  PetscCall(VecRelDiff(y2f, y1f, &rf, NORM_INFINITY));
  PetscCall(VecRelDiff(y2c, y1c, &rc, NORM_INFINITY));
  PetscCall(Record(PetscMax(rf, rc) <= 1e-14, cs, "after MatScale(P, 2) the products double" + lv, Fmt("relative differences %g, %g", (double)rf, (double)rc)));
  PetscCall(MatScale(Ph, 2.0));
  PetscCall(CheckProducts(P, Ph, true, cs, "after MatScale the products equal the host aij copy's, scaled" + lv));
  for (Vec *v : {&xc, &xf, &y1f, &y2f, &y1c, &y2c}) PetscCall(VecDestroy(v));
  PetscFunctionReturn(0);
}

/* A Galerkin PCMG solve with `levels` levels under options prefix `prefix`;
   its iterations and solution. */
PetscErrorCode MGSolve(DM da, Mat A, Vec b, const char *prefix, PetscInt levels, KSP *ksp, Vec *x, PetscInt *its)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetDM(*ksp, da));
  PetscCall(KSPSetDMInactive(*ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCMG));
  PetscCall(PCMGSetLevels(pc, levels, NULL));
  PetscCall(PCMGSetGalerkin(pc, PC_MG_GALERKIN_BOTH));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(VecDuplicate(b, x));
  PetscCall(KSPSolve(*ksp, b, *x));
  PetscCall(KSPGetIterationNumber(*ksp, its));
  PetscFunctionReturn(0);
}

PetscErrorCode GridCase(PetscInt dim, PetscInt n, PetscInt levels)
{
  DM                da;
  Mat               A;
  Vec               b, x, xoff;
  KSP               ksp, off;
  PC                pc, pcoff;
  PetscInt          its, its_off;
  PetscReal         rel;
  const std::string cs = std::to_string(dim) + "D n=" + std::to_string(n);

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(dim, n, DM_BOUNDARY_NONE, &da));
  PetscCall(StencilOperator(da, &A));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(PetscOptionsSetValue(NULL, "-off_pc_mg_diag_structured_transfer", "0"));
  PetscCall(MGSolve(da, A, b, "on_", levels, &ksp, &x, &its));
  PetscCall(MGSolve(da, A, b, "off_", levels, &off, &xoff, &its_off));
  PetscCall(PetscOptionsClearValue(NULL, "-off_pc_mg_diag_structured_transfer"));
  if (g_device) { /* a type asked for: converted, and still from the formula */
    KSP      asked;
    Vec      xa;
    PetscInt its_asked;
    PetscCall(PetscOptionsSetValue(NULL, "-asked_pc_mg_diag_transfer_type", MATAIJCUSPARSE));
    PetscCall(MGSolve(da, A, b, "asked_", levels, &asked, &xa, &its_asked));
    PetscCall(PetscOptionsClearValue(NULL, "-asked_pc_mg_diag_transfer_type"));
    PetscCall(KSPGetPC(asked, &pc));
    for (PetscInt l = 1; l < levels; l++) {
      Mat P;
      PetscCall(PCMGGetInterpolation(pc, l, &P));
      PetscCall(Record(IsStructured(P) && !strcmp(TypeName(P), MATSEQAIJCUSPARSE), cs, "-pc_mg_diag_transfer_type aijcusparse: converted, and from the formula (level " + std::to_string(l) + ")", TypeName(P)));
    }
    PetscCall(Record(its_asked == its, cs, "-pc_mg_diag_transfer_type aijcusparse: the same iterations", Fmt("%d / %d", (int)its_asked, (int)its)));
    PetscCall(KSPDestroy(&asked));
    PetscCall(VecDestroy(&xa));
  }
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(KSPGetPC(off, &pcoff));
  for (PetscInt l = 1; l < levels; l++) {
    Mat             P, Poff;
    const std::string lv = " (level " + std::to_string(l) + ")";
    PetscCall(PCMGGetInterpolation(pc, l, &P));
    PetscCall(PCMGGetInterpolation(pcoff, l, &Poff));
    PetscCall(Record(IsStructured(P), cs, std::string("the interpolation (") + TypeName(P) + ") takes the structured products" + lv));
    PetscCall(Record(!strcmp(TypeName(P), MATSEQAIJ), cs, "the interpolation stays host aij (the formula needs no copy of it)" + lv, TypeName(P)));
    PetscCall(Record(!IsStructured(Poff), cs, "-pc_mg_diag_structured_transfer 0 leaves the interpolation to its own products" + lv));
    PetscCall(Record(!strcmp(TypeName(Poff), g_device ? MATSEQAIJCUSPARSE : MATSEQAIJ), cs, std::string("-pc_mg_diag_structured_transfer 0: the interpolation ") + (g_device ? "converted to aijcusparse" : "host aij") + lv, TypeName(Poff)));
    {
      Mat Ph;
      PetscCall(HostCopy(P, &Ph));
      PetscCall(CheckProducts(P, Ph, false, cs, "the structured products equal a host aij copy's" + lv));
      if (l == levels - 1) PetscCall(CheckScaled(P, Ph, cs, lv)); /* last: the solves above are done with it */
      PetscCall(MatDestroy(&Ph));
    }
  }
  PetscCall(Record(its == its_off, cs, "the same iterations as with aijcusparse's transfers", Fmt("%d / %d", (int)its, (int)its_off)));
  PetscCall(VecRelDiff(x, xoff, &rel, NORM_INFINITY));
  PetscCall(Record(rel <= 1e-10, cs, "the same solution as with aijcusparse's transfers", Fmt("relative difference %g", (double)rel)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(KSPDestroy(&off));
  for (Vec *v : {&b, &x, &xoff}) PetscCall(VecDestroy(v));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

/* A periodic grid: its interpolation wraps around, not the formula's. */
PetscErrorCode PeriodicCase(PetscInt dim)
{
  DM                da;
  Mat               A, P;
  Vec               b, x;
  KSP               ksp;
  PC                pc;
  PetscInt          its;
  const std::string cs = std::to_string(dim) + "D periodic n=16";

  PetscFunctionBeginUser;
  PetscCall(CreateGrid(dim, 16, DM_BOUNDARY_PERIODIC, &da));
  PetscCall(StencilOperator(da, &A));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(MGSolve(da, A, b, "per_", 2, &ksp, &x, &its));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCMGGetInterpolation(pc, 1, &P));
  PetscCall(Record(!IsStructured(P), cs, "a periodic DMDA's interpolation is left to its own products"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  int code = 0;
  if (!GpuOrHostMode(argc, argv, "test_mg_structured_gpu", &g_device)) return 77;
  PetscCall(Start(&argc, &argv, NULL));
  bool skipped;
  PetscCall(SkippedOnMoreProcesses("test_mg_structured_gpu", &skipped, &code));
  if (skipped) {
    PetscCall(PetscFinalize());
    return code;
  }
  Run("1D n=65", "structured transfers", []() { return GridCase(1, 65, 4); });
  Run("2D n=33", "structured transfers", []() { return GridCase(2, 33, 3); });
  Run("3D n=17", "structured transfers", []() { return GridCase(3, 17, 3); });
  Run("3D n=33", "structured transfers", []() { return GridCase(3, 33, 4); });
  Run("2D periodic", "structured transfers", []() { return PeriodicCase(2); });
  PetscCall(Summary(&code));
  PetscCall(PetscFinalize());
  return code;
}
