/* The GPU side of MatProduct for MATDIAG (CUDA builds): the symbolic
   phase's pair lists and the numeric phase of C = op(X) op(Y), and C = A X
   (X dense), on the device, with the kernels of kernels/src/product.cu and
   product_symbolic.cu. products/product.cpp decides where a product runs and
   sets up C from the diagonals the symbolic phase returns; this file moves
   data and launches.

   Residency. The operands' device copies are used as they are (uploaded
   first if the host copy is newer). The result is written straight into
   C's device copy, which becomes the newest copy (offload mask GPU): a
   host operation on C brings the values back first (MatDiagSyncHost_Private),
   a product or MatMult on the device reads them where they are.

   Variants (-mat_product_algorithm): "diag", output-stationary (a block per
   row tile and output diagonal sums the pair list in registers; no
   atomics, deterministic), and the paper's two algorithms for comparison:
   "diag_atomic" (Algorithm 2: a thread per stored entry of op(X), atomics
   into C) and "diag_tiled" (Algorithm 1: CDM operands and result, shared
   memory tiles). */
#include "core/mat_diag.hpp"

#include "device/device.hpp"
#include "products/product_common.hpp"
#include "device/product.hpp"

#include "pdiag/product_cuda.hpp"

/* An HM block on the device (metadata: offsets | starts; values), for an
   operand or result whose own device copy is not in HM form. */
struct DeviceHmBlock {
  Index       *meta = nullptr;
  PetscScalar *val  = nullptr;
  std::size_t  meta_cap = 0, val_cap = 0;
};

/* MPI: the scatter of a gathered operand's rows between device arrays (X's
   device values -> the gathered block's device values; arrays placed at
   each use). */
struct DeviceGatherVecs {
  Vec src = nullptr, dst = nullptr;
};

struct DiagDeviceProduct {
  pdiag::cuda::DeviceHmPlan plan;
  DeviceHmBlock             x, y, c; /* HM copies of CDM operands or (MPI) gathered rows; HM result for a CDM C */
  Hm                        xhost, yhost, chost;
  DeviceGatherVecs          gx, gy;
};

static PetscErrorCode BlockFree(DeviceHmBlock &b)
{
  PetscFunctionBegin;
  if (b.meta) DiagCallCUDA(cudaFree(b.meta));
  if (b.val) DiagCallCUDA(cudaFree(b.val));
  b = DeviceHmBlock();
  PetscFunctionReturn(0);
}

/* Uploads the metadata (and, with values, the values) of a host HM block. */
static PetscErrorCode BlockUpload(DeviceHmBlock &b, const Hm &h, bool values)
{
  const std::size_t nd = h.offsets.size(), nval = h.val.size();

  PetscFunctionBegin;
  PetscCall(DiagReserveDevice(&b.meta, &b.meta_cap, 2 * nd + 1));
  PetscCall(DiagReserveDevice(&b.val, &b.val_cap, nval));
  DiagCallCUDA(cudaMemcpy(b.meta, h.offsets.data(), nd * sizeof(Index), cudaMemcpyHostToDevice));
  DiagCallCUDA(cudaMemcpy(b.meta + nd, h.start.data(), (nd + 1) * sizeof(Index), cudaMemcpyHostToDevice));
  if (values && nval) DiagCallCUDA(cudaMemcpy(b.val, h.val.data(), nval * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)((2 * nd + 1) * sizeof(Index) + (values ? nval * sizeof(PetscScalar) : 0))));
  PetscFunctionReturn(0);
}

template <class V>
static V BlockView(const DeviceHmBlock &b, const Hm &h)
{
  return V{h.layout, h.ndiag(), b.meta, b.meta + h.ndiag(), b.val};
}

PetscErrorCode MatDiagDeviceProductCreate_Private(const pdiag::HmProductPlan &plan, DiagDeviceProduct **out)
{
  DiagDeviceProduct *p = nullptr;

  PetscFunctionBegin;
  PetscCallCXX(p = new DiagDeviceProduct());
  PetscCall(PetscLogEventBegin(MATDIAG_PlanToGPU, 0, 0, 0, 0));
  const cudaError_t e = p->plan.upload(plan, PetscDefaultCudaStream);
  PetscCall(PetscLogEventEnd(MATDIAG_PlanToGPU, 0, 0, 0, 0));
  if (e != cudaSuccess) {
    delete p;
    DiagCallCUDA(e);
  }
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)p->plan.bytes()));
  *out = p;
  PetscFunctionReturn(0);
}

/* The symbolic phase on the device (pdiag::cuda::DeviceHmPlan::symbolic):
   the pair lists are built where the numeric kernels read them and *hplan
   gets C's layout, diagonals and multiply-adds only; when the device leaves
   a plan to the host (offset sums spanning far more candidates than there
   are pairs), the host plans and uploads. */
PetscErrorCode MatDiagDeviceProductSymbolic_Private(const pdiag::Layout &LX, const std::vector<Index> &ox, pdiag::Trans tx, const pdiag::Layout &LY, const std::vector<Index> &oy, pdiag::Trans ty, pdiag::HmProductPlan *hplan, DiagDeviceProduct **out)
{
  DiagDeviceProduct *p = nullptr;
  cudaError_t        e = cudaSuccess;

  PetscFunctionBegin;
  PetscCallCXX(p = new DiagDeviceProduct());
  try {
    e = p->plan.symbolic(LX, ox, tx, LY, oy, ty, hplan, PetscDefaultCudaStream);
  } catch (const std::exception &ex) {
    delete p;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: %s", ex.what());
  }
  if (e == cudaErrorNotSupported) {
    (void)cudaGetLastError(); /* not a launch error: the host plans instead */
    delete p;
    DiagCallKernel(*hplan = pdiag::hm_product_symbolic(LX, ox, tx, LY, oy, ty));
    PetscCall(MatDiagDeviceProductCreate_Private(*hplan, out));
    PetscFunctionReturn(0);
  }
  if (e != cudaSuccess) {
    delete p;
    DiagCallCUDA(e);
  }
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)(hplan->offsets.size() * sizeof(Index))));
  *out = p;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagDeviceProductDestroy_Private(DiagDeviceProduct **p)
{
  PetscFunctionBegin;
  if (!*p) PetscFunctionReturn(0);
  PetscCall(BlockFree((*p)->x));
  PetscCall(BlockFree((*p)->y));
  PetscCall(BlockFree((*p)->c));
  for (DeviceGatherVecs *g : {&(*p)->gx, &(*p)->gy}) {
    PetscCall(VecDestroy(&g->src));
    PetscCall(VecDestroy(&g->dst));
  }
  delete *p;
  *p = nullptr;
  PetscFunctionReturn(0);
}

/* A device HM view of operand X: its own device copy (HM), or an uploaded
   HM copy of its CDM values. */
static PetscErrorCode OperandView(Mat X, DeviceHmBlock &blk, Hm &host, pdiag::HmView<const PetscScalar> *v)
{
  Mat_Diag          *x = (Mat_Diag *)X->data;
  const Index       *meta;
  const PetscScalar *val;

  PetscFunctionBegin;
  if (x->scheme == pdiag::Scheme::HM) {
    PetscCall(MatDiagDeviceValues_Private(X, &meta, &val));
    *v = pdiag::HmView<const PetscScalar>{x->layout, x->hm.ndiag(), meta, meta + x->hm.ndiag(), val};
  } else {
    PetscCall(MatDiagSyncHost_Private(X));
    DiagCallKernel(host = pdiag::hm_from_cdm(x->cdm, diag_product::HmOffsetsOf(x)));
    PetscCall(BlockUpload(blk, host, true));
    *v = BlockView<pdiag::HmView<const PetscScalar>>(blk, host);
  }
  PetscFunctionReturn(0);
}

/* MPI: the rows of op(X) that this process needs, gathered on the device
   by the scatter sct of the host gather (built in the symbolic phase from
   offsets alone: positions in X's values, which the device copy stores in
   the same order) into a device copy of the block blk; slot 0 for the left
   operand, 1 for the right. */
PetscErrorCode MatDiagDeviceGather_Private(DiagDeviceProduct *p, int slot, Mat X, VecScatter sct, const Hm &blk, pdiag::HmView<const PetscScalar> *v)
{
  Mat_Diag          *x = (Mat_Diag *)X->data;
  DeviceHmBlock     &b = slot ? p->y : p->x;
  DeviceGatherVecs  &g = slot ? p->gy : p->gx;
  const Index       *meta;
  const PetscScalar *val;

  PetscFunctionBegin;
  if (!g.dst) { /* first use after the symbolic phase: blk's structure is fixed until the next one */
    PetscCall(BlockUpload(b, blk, false));
    /* entries of blk that no process stores (a diagonal one process has
       and another lacks) are zeros the scatter never writes, as on the host */
    if (blk.nstored()) DiagCallCUDA(cudaMemset(b.val, 0, (std::size_t)blk.nstored() * sizeof(PetscScalar)));
    PetscCall(VecCreateMPICUDAWithArray(PetscObjectComm((PetscObject)X), 1, (PetscInt)x->nstored(), PETSC_DECIDE, NULL, &g.src));
    PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, 1, (PetscInt)blk.nstored(), NULL, &g.dst));
  }
  PetscCall(MatDiagDeviceValues_Private(X, &meta, &val));
  PetscCall(VecCUDAPlaceArray(g.src, val));
  PetscCall(VecCUDAPlaceArray(g.dst, b.val));
  PetscCall(VecScatterBegin(sct, g.src, g.dst, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, g.src, g.dst, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecCUDAResetArray(g.src));
  PetscCall(VecCUDAResetArray(g.dst));
  *v = BlockView<pdiag::HmView<const PetscScalar>>(b, blk);
  PetscFunctionReturn(0);
}

/* A device HM view of X's local block as it is (MPI: a left operand read in place). */
PetscErrorCode MatDiagDeviceOperand_Private(DiagDeviceProduct *p, Mat X, pdiag::HmView<const PetscScalar> *v)
{
  PetscFunctionBegin;
  PetscCall(OperandView(X, p->x, p->xhost, v));
  PetscFunctionReturn(0);
}

/* C = op(X) op(Y) from device HM views of the operands (Algorithm 2 or the
   default), written to C's device copy (HM), or for a CDM C through the
   host. */
PetscErrorCode MatDiagDeviceProductNumericViews_Private(DiagDeviceProduct *p, const pdiag::HmProductPlan &hplan, const pdiag::HmView<const PetscScalar> &xv, pdiag::Trans tx, const pdiag::HmView<const PetscScalar> &yv, pdiag::Trans ty, Mat C, MatDiagProductVariant variant, PetscLogDouble nmul)
{
  Mat_Diag                      *c    = (Mat_Diag *)C->data;
  const pdiag::cuda::DevicePlan &plan = p->plan.view();

  PetscFunctionBegin;
  /* C: its own device copy when HM; a CDM C gets the HM result through the host */
  const bool                  ccdm = c->scheme == pdiag::Scheme::CDM;
  pdiag::HmView<PetscScalar> cv;
  if (!ccdm) {
    const Index *mc;
    PetscScalar *vc;
    PetscCall(MatDiagDeviceOutput_Private(C, &mc, &vc));
    cv = pdiag::HmView<PetscScalar>{c->layout, c->hm.ndiag(), mc, mc + c->hm.ndiag(), vc};
  } else {
    if (p->chost.offsets != hplan.offsets || !(p->chost.layout == hplan.layout)) {
      DiagCallKernel(p->chost = pdiag::hm_product_alloc<PetscScalar>(hplan));
      PetscCall(BlockUpload(p->c, p->chost, false));
    }
    cv = BlockView<pdiag::HmView<PetscScalar>>(p->c, p->chost);
  }
  PetscCall(PetscLogGpuTimeBegin());
  if (variant == MAT_DIAG_PRODUCT_ATOMIC) DiagCallCUDA(pdiag::cuda::hm_product_numeric_atomic(plan, xv, tx, yv, ty, cv, PetscDefaultCudaStream));
  else DiagCallCUDA(pdiag::cuda::hm_product_numeric(plan, xv, tx, yv, ty, cv, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * nmul));
  if (!ccdm) {
    PetscCall(MatDiagDeviceValuesWritten_Private(C));
  } else {
    const std::size_t nval = p->chost.val.size();
    if (nval) DiagCallCUDA(cudaMemcpy(p->chost.val.data(), p->c.val, nval * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(nval * sizeof(PetscScalar))));
    Cdm out;
    DiagCallKernel(out = pdiag::cdm_from_hm(p->chost));
    PetscCheck(out.koffsets == c->cdm.koffsets, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: product result's compact diagonals differ from C's");
    c->cdm = std::move(out);
    MatDiagValuesChanged(C);
  }
  PetscFunctionReturn(0);
}

/* C = op(X) op(Y), sequential operands read where they are on the device
   (Algorithm 1 on their CDM copies; otherwise HM views of them). */
PetscErrorCode MatDiagDeviceProductNumeric_Private(DiagDeviceProduct *p, const pdiag::HmProductPlan &hplan, Mat X, pdiag::Trans tx, Mat Y, pdiag::Trans ty, Mat C, MatDiagProductVariant variant, PetscLogDouble nmul)
{
  Mat_Diag                        *c = (Mat_Diag *)C->data;
  pdiag::HmView<const PetscScalar> xv, yv;

  PetscFunctionBegin;
  if (variant == MAT_DIAG_PRODUCT_TILED) {
    const Mat_Diag    *x = (const Mat_Diag *)X->data, *y = (const Mat_Diag *)Y->data;
    const Index       *mx, *my, *mc;
    const PetscScalar *vx, *vy;
    PetscScalar       *vc;
    PetscCheck(x->scheme == pdiag::Scheme::CDM && y->scheme == pdiag::Scheme::CDM && c->scheme == pdiag::Scheme::CDM, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "diag: -mat_product_algorithm diag_tiled (the paper's Algorithm 1) needs CDM operands and result: use -mat_diag_storage cdm");
    PetscCall(MatDiagDeviceValues_Private(X, &mx, &vx));
    PetscCall(MatDiagDeviceValues_Private(Y, &my, &vy));
    PetscCall(MatDiagDeviceOutput_Private(C, &mc, &vc));
    const pdiag::CdmView<const PetscScalar> xc{x->layout, x->cdm.ndiag(), mx, vx}, yc{y->layout, y->cdm.ndiag(), my, vy};
    const pdiag::CdmView<PetscScalar>       cc{c->layout, c->cdm.ndiag(), mc, vc};
    PetscCall(PetscLogGpuTimeBegin());
    DiagCallCUDA(pdiag::cuda::cdm_product_numeric_tiled(xc, tx, yc, ty, cc, PetscDefaultCudaStream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatDiagDeviceValuesWritten_Private(C));
    PetscCall(PetscLogGpuFlops(2.0 * nmul));
    PetscFunctionReturn(0);
  }
  PetscCall(OperandView(X, p->x, p->xhost, &xv));
  PetscCall(OperandView(Y, p->y, p->yhost, &yv));
  PetscCall(MatDiagDeviceProductNumericViews_Private(p, hplan, xv, tx, yv, ty, C, variant, nmul));
  PetscFunctionReturn(0);
}

/* MPI: the rows of X that a process's diagonals reach, gathered on the
   device (the host DenseStep's scatter, between device arrays) into W,
   column-major with leading dimension nw, read by the SpMM kernel through
   per-slot shifts. */
struct DiagDeviceDense {
  PetscScalar *W     = nullptr;
  Index       *shift = nullptr;
  Index        nw = 0, k = 0;
  Vec          src = nullptr, dst = nullptr;
};

PetscErrorCode MatDiagDeviceDenseCreate_Private(MPI_Comm comm, PetscInt nlocal, Index nw, Index k, const std::vector<Index> &shift, DiagDeviceDense **out)
{
  DiagDeviceDense *g = nullptr;
  std::size_t      wcap = 0, scap = 0;

  PetscFunctionBegin;
  PetscCallCXX(g = new DiagDeviceDense());
  *out  = g;
  g->nw = nw;
  g->k  = k;
  PetscCall(DiagReserveDevice(&g->W, &wcap, (std::size_t)(nw * k)));
  PetscCall(DiagReserveDevice(&g->shift, &scap, shift.size()));
  if (!shift.empty()) DiagCallCUDA(cudaMemcpy(g->shift, shift.data(), shift.size() * sizeof(Index), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(shift.size() * sizeof(Index))));
  PetscCall(VecCreateMPICUDAWithArray(comm, 1, nlocal, PETSC_DECIDE, NULL, &g->src));
  PetscCall(VecCreateSeqCUDAWithArray(PETSC_COMM_SELF, 1, (PetscInt)(nw * k), NULL, &g->dst));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagDeviceDenseDestroy_Private(DiagDeviceDense **g)
{
  PetscFunctionBegin;
  if (!*g) PetscFunctionReturn(0);
  if ((*g)->W) DiagCallCUDA(cudaFree((*g)->W));
  if ((*g)->shift) DiagCallCUDA(cudaFree((*g)->shift));
  PetscCall(VecDestroy(&(*g)->src));
  PetscCall(VecDestroy(&(*g)->dst));
  delete *g;
  *g = nullptr;
  PetscFunctionReturn(0);
}

/* C = A X on the device: X and C dense CUDA matrices (column-major, leading
   dimensions), A's device values in its own scheme. Under MPI (g and sct
   given) X's rows are gathered into g->W first and read through g->shift. */
PetscErrorCode MatDiagDeviceSpMM_Private(Mat A, Mat X, Mat C, VecScatter sct, DiagDeviceDense *g)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const Index       *meta, *shift = nullptr;
  const PetscScalar *val, *xd, *in;
  PetscScalar       *cd;
  PetscInt           ldx, ldc;
  Index              ldin;
  const PetscInt     k = X->cmap->N;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceValues_Private(A, &meta, &val));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(MatDenseGetLDA(C, &ldc));
  PetscCall(MatDenseCUDAGetArrayRead(X, &xd));
  in   = xd;
  ldin = (Index)ldx;
  if (g) {
    PetscCall(VecCUDAPlaceArray(g->src, xd));
    PetscCall(VecCUDAPlaceArray(g->dst, g->W));
    PetscCall(VecScatterBegin(sct, g->src, g->dst, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sct, g->src, g->dst, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecCUDAResetArray(g->src));
    PetscCall(VecCUDAResetArray(g->dst));
    in    = g->W;
    ldin  = g->nw;
    shift = g->shift;
  }
  PetscCall(MatDenseCUDAGetArrayWrite(C, &cd));
  PetscCall(PetscLogGpuTimeBegin());
  if (a->scheme == pdiag::Scheme::HM) {
    const pdiag::HmView<const PetscScalar> v{a->layout, a->hm.ndiag(), meta, meta + a->hm.ndiag(), val};
    DiagCallCUDA(pdiag::cuda::hm_spmm(v, in, ldin, (Index)k, cd, (Index)ldc, shift, PetscDefaultCudaStream));
  } else {
    const pdiag::CdmView<const PetscScalar> v{a->layout, a->cdm.ndiag(), meta, val};
    DiagCallCUDA(pdiag::cuda::cdm_spmm(v, in, ldin, (Index)k, cd, (Index)ldc, shift, PetscDefaultCudaStream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatDenseCUDARestoreArrayRead(X, &xd));
  PetscCall(MatDenseCUDARestoreArrayWrite(C, &cd));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)a->nstored() * (PetscLogDouble)k));
  PetscFunctionReturn(0);
}
