/* MatProduct for MATDIAG: C = op(A) op(B) for AB, AtB and ABt, and the
   triple products PtAP = P^T (A P), RARt = R (A R^T) and ABC = (A B) C
   composed from them (the intermediate is kept for reuse); C = A X with a
   dense X is in products/product_dense.cpp, the GPU numeric phase in
   device/product.cpp. The arithmetic is that of
   kernels/include/pdiag/product.hpp; this file plans, moves data and talks
   to PETSc.

   Phases. The symbolic phase works from offsets alone: it computes C's
   diagonals and the pair list of every output diagonal
   (pdiag::hm_product_symbolic; for a product on the GPU the pair lists are
   built on the device, pdiag::cuda::DeviceHmPlan::symbolic, and only C's
   diagonals come back), gives C zeroed HM storage with exactly those
   diagonals and assembles it, so that C's storage is chosen as for any
   assembled diag matrix (HM, or CDM when C is square and CDM takes fewer
   bytes, or what C's -mat_diag_storage asks for). The plan, the MPI
   scatters and the intermediate matrices stay in C->product->data; the
   numeric phase only moves values and runs the kernels. If an operand's
   diagonals (or C's) changed since the symbolic phase, the numeric phase
   notices (the plan keeps each operand's scheme, layout and offsets) and
   redoes the symbolic phase first instead of failing.

   Sequential. Transposed operands are read in place (offsets negated), never
   formed. HM operands are read as stored; a CDM operand is read through an
   HM copy of its values (one pass over them), except that when A, B and C
   are all CDM the CDM kernels run on the stored compact diagonals.

   MPI (mpidiag). A process computes its rows of C from its rows of op(A)
   and the rows of op(B) they reach: rows [c0, c1) with c0 = min(lo(e) + e),
   c1 = max(hi(e) + e) over the diagonals e of its block of op(A). Those
   rows of op(B) are gathered as an HM block with one VecScatter from the
   stored values of B (HM or CDM) on every process; the scatter is built in
   the symbolic phase and reused by each numeric phase. The same gather
   brings in the rows of a transposed operand: the rows [r0, r1) of A^T are
   columns of A, whose entries lie on A's diagonals on other processes. So
   under MPI a transposed operand's needed rows are gathered (the data a
   process needs moves once), while sequentially nothing is transposed.

   Dense right-hand side: C = A X with a dense X, in
   products/product_dense.cpp (MatProductSetFromOptions_Diag below installs it).

   diag with aij: a product in which every operand is diag or aij (and at
   least one is diag) converts the aij operands to diag (PetscInfo says so)
   and returns a diag matrix; the conversion is refreshed at each numeric
   phase. If an aij operand spans more diagonals than the diag limit
   (-mat_diag_max_diagonals), the product stops with an error naming the
   product and the types: convert the diag operand to aij instead. Other
   combinations are left to PETSc (e.g. AtB with a dense B: MatMultTranspose
   per column).

   Algorithms (-mat_product_algorithm, or -matmatmult_via etc. through the
   MatMatMult family): "diag" (the default; output-stationary on the GPU),
   and on the GPU the paper's Algorithm 2 ("diag_atomic") and Algorithm 1
   ("diag_tiled", CDM operands and result) for comparison; on the CPU
   these two run the default kernels (PetscInfo says so).

   GPU. A sequential product whose diag operands both live on the device
   (diagcuda types, or diag matrices with CUDA default vectors, not bound to
   the CPU) runs its numeric phase there (device/product.cpp) and
   leaves C, a diagcuda matrix, on the device; so does C = A X with A on
   the device and X a dense CUDA matrix (products/product_dense.cpp). Under MPI
   the same holds when the operands are on the device on every process:
   the gathers of the rows of op(X) and op(Y) scatter between device arrays
   (staged through the host by PETSc when MPI is not CUDA-aware) and the
   local product runs on the device. */
#include "products/product_common.hpp"

#include "pdiag/convert.hpp"
#include "pdiag/product.hpp"

#include <algorithm>
#include <limits>
#include <string>

using pdiag::Trans;
using namespace diag_product;

namespace {

/* indexed by MatDiagProductVariant; the last two run on the GPU only */
const char *const kAlgorithms[]  = {"diag", "diag_atomic", "diag_tiled"};
const PetscInt    kNumAlgorithms = 3;
const char *const kAnytype       = "MatProductSetFromOptions_anytype_C";


/* An HM view of X's local block: its own storage, or for CDM a copy in buf. */
PetscErrorCode LocalHm(Mat X, Hm &buf, pdiag::HmView<const PetscScalar> *v)
{
  const Mat_Diag *x = (const Mat_Diag *)X->data;

  PetscFunctionBegin;
  if (x->scheme == pdiag::Scheme::HM) *v = x->hm.view();
  else {
    DiagCallKernel(buf = pdiag::hm_from_cdm(x->cdm, HmOffsetsOf(x)));
    *v = static_cast<const Hm &>(buf).view();
  }
  PetscFunctionReturn(0);
}

/* ---- MPI: rows of op(X) gathered from the processes that store them ------ */

/* Rows [c0, c1) of op(X) (op = N or T) as an HM block, filled by one
   VecScatter from X's stored values on all processes. */
struct Gather {
  Hm         blk;
  Vec        src = nullptr; /* X's values on every process (array placed at each use) */
  Vec        dst = nullptr; /* blk's values */
  VecScatter sct = nullptr;
};

PetscErrorCode GatherDestroy(Gather &g)
{
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&g.sct));
  PetscCall(VecDestroy(&g.src));
  PetscCall(VecDestroy(&g.dst));
  g.blk = Hm();
  PetscFunctionReturn(0);
}

/* Collective. Each process learns every process's stored (compact)
   offsets; a process's values are the diagonals back to back (HM) or the
   compact diagonals of its rows (CDM), so the position of any stored entry
   on any process is known. For every stored diagonal d of process q, the
   rows i of q on d give the rows j = i (N) or j = i + d (T) of op(X) on its
   diagonal e = d (N) or -d (T); the part inside [c0, c1) is one contiguous
   run of positions on both sides. */
PetscErrorCode GatherBuild(Gather &g, Mat X, Trans t, Index c0, Index c1)
{
  const Mat_Diag *x    = (const Mat_Diag *)X->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)X);
  PetscMPIInt     size;
  const bool      cdm = x->scheme == pdiag::Scheme::CDM;
  const PetscInt *vr;
  IS              isf, ist;

  PetscFunctionBegin;
  PetscCall(GatherDestroy(g));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  const std::vector<Index> &mine  = cdm ? x->cdm.koffsets : x->hm.offsets;
  const PetscMPIInt         nmine = (PetscMPIInt)mine.size();
  std::vector<PetscMPIInt>  counts(size), displs(size + 1, 0);
  PetscCallMPI(MPI_Allgather(&nmine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) displs[p + 1] = displs[p] + counts[p];
  std::vector<Index> all((std::size_t)displs[size]);
  PetscCallMPI(MPI_Allgatherv(mine.data(), nmine, MPIU_INT64, all.data(), counts.data(), displs.data(), MPIU_INT64, comm));

  PetscCheck(x->nstored() <= (Index)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: a process stores %" PetscInt64_FMT " values, more than PetscInt can index in the product's gather", (PetscInt64)x->nstored());
  PetscCall(VecCreateMPIWithArray(comm, 1, (PetscInt)x->nstored(), PETSC_DECIDE, NULL, &g.src));
  PetscCall(VecGetOwnershipRanges(g.src, &vr)); /* vr[q]: where process q's values start */

  const Index         Mx = X->rmap->N, Nx = X->cmap->N;
  const pdiag::Layout Lt = t == Trans::T ? pdiag::Layout::block(Nx, Mx, c0, c1 - c0) : pdiag::Layout::block(Mx, Nx, c0, c1 - c0);
  struct Seg {
    Index e, jb, je, from0; /* rows [jb, je) of op(X) on diagonal e; X's value of row j at from0 + j */
  };
  std::vector<Seg> segs;
  for (PetscMPIInt q = 0; q < size; q++) {
    const Index         s0 = X->rmap->range[q], mq = X->rmap->range[q + 1] - s0;
    const pdiag::Layout Lq = pdiag::Layout::block(Mx, Nx, s0, mq);
    /* diagonal d of q whose row Lq.lo(d) is at q's position pos_lo */
    const auto add = [&](Index d, Index pos_lo) {
      if (Lq.length(d) <= 0) return;
      const Index sh = t == Trans::T ? d : 0; /* j = i + sh */
      const Index jb = std::max(Lq.lo(d) + sh, c0), je = std::min(Lq.hi(d) + sh, c1);
      if (jb < je) segs.push_back({t == Trans::T ? -d : d, jb, je, (Index)vr[q] + pos_lo - Lq.lo(d) - sh});
    };
    Index start = 0;
    for (PetscMPIInt p = displs[q]; p < displs[q + 1]; p++) {
      const Index key = all[(std::size_t)p], kq = p - displs[q];
      if (!cdm) {
        add(key, start);
        start += Lq.length(key);
      } else {
        add(key, kq * mq + (Lq.lo(key) - s0));
        if (key != 0) add(key - Nx, kq * mq + (Lq.lo(key - Nx) - s0));
      }
    }
  }
  std::vector<Index> eoffs;
  for (const Seg &s : segs) eoffs.push_back(s.e);
  DiagCallKernel(g.blk = Hm(Lt, eoffs));
  PetscCheck(g.blk.nstored() <= (Index)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: the rows of a product operand a process needs hold %" PetscInt64_FMT " values, more than PetscInt can index", (PetscInt64)g.blk.nstored());
  std::vector<PetscInt> from, to;
  for (const Seg &s : segs) {
    const Index ke = g.blk.find_diagonal(s.e);
    const Index t0 = g.blk.start[(std::size_t)ke] - Lt.lo(s.e);
    PetscCheck(s.jb >= Lt.lo(s.e) && s.je <= Lt.hi(s.e), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: gather segment outside its diagonal");
    for (Index j = s.jb; j < s.je; j++) {
      from.push_back((PetscInt)(s.from0 + j));
      to.push_back((PetscInt)(t0 + j));
    }
  }
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)g.blk.nstored(), g.blk.val.data(), &g.dst));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)from.size(), from.data(), PETSC_COPY_VALUES, &isf));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)to.size(), to.data(), PETSC_COPY_VALUES, &ist));
  PetscCall(VecScatterCreate(g.src, isf, g.dst, ist, &g.sct));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  PetscFunctionReturn(0);
}

/* Collective: refreshes the gathered values from X's current values. */
PetscErrorCode GatherRun(Gather &g, Mat X)
{
  Mat_Diag *x = (Mat_Diag *)X->data;

  PetscFunctionBegin;
  PetscCall(VecPlaceArray(g.src, x->values()));
  PetscCall(VecScatterBegin(g.sct, g.src, g.dst, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(g.sct, g.src, g.dst, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecResetArray(g.src));
  PetscFunctionReturn(0);
}

/* ---- C as a diag matrix of the product's shape --------------------------- */

/* Sizes, type and storage options of a product result (or intermediate) C.
   C's own -mat_diag_storage and -mat_diag_max_diagonals (with C's prefix)
   are honoured; the limit defaults to the larger of the operands'. */
PetscErrorCode ResultSetUp(Mat C, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt limit, MatType type)
{
  Kind kind = Kind::Other;

  PetscFunctionBegin;
  PetscCall(MatSetSizes(C, m, n, M, N));
  PetscCall(KindOf(C, &kind));
  if (kind != Kind::Diag) {
    MatDiagStorage storage;
    PetscBool      set;
    PetscCall(MatSetType(C, type));
    Mat_Diag *c      = (Mat_Diag *)C->data;
    c->opt.max_diagonals = limit;
    PetscCall(MatDiagReadOption((PetscObject)C, DiagOpt::MaxDiagonals, &c->opt.max_diagonals, &set));
    PetscCall(MatDiagGetStorageOption((PetscObject)C, &storage, &set));
    if (set && storage == MAT_DIAG_STORAGE_CDM && M != N) PetscCall(PetscInfo(C, "diag: -mat_diag_storage cdm ignored for the %" PetscInt_FMT " x %" PetscInt_FMT " product (CDM needs a square matrix)\n", M, N));
    else if (set) c->opt.storage_req = storage;
  }
  PetscCall(MatDiagSetLayout_Private(C));
  PetscFunctionReturn(0);
}

/* ---- one product step: C = op(X) op(Y), X, Y, C diag ---------------------- */

struct Step {
  Trans                 tx = Trans::N, ty = Trans::N;
  bool                  mpi = false, x_direct = false, cdm_route = false, cbuf_ready = false;
  bool                  device  = false; /* numeric phase on the GPU */
  MatDiagProductVariant variant = MAT_DIAG_PRODUCT_OUTPUT_STATIONARY;
  DiagDeviceProduct    *dev     = nullptr;
  Key   kx, ky, kc; /* the structures the plan was made for */

  pdiag::HmProductPlan  hplan;
  pdiag::CdmProductPlan cplan;
  Hm                    xbuf, ybuf, cbuf; /* HM copies of CDM operands, HM result of a CDM C */
  Gather                gx, gy;           /* MPI: rows of op(X) (unless X is read in place) and of op(Y) */
};

PetscErrorCode StepDestroy(Step &s)
{
  PetscFunctionBegin;
  PetscCall(GatherDestroy(s.gx));
  PetscCall(GatherDestroy(s.gy));
  PetscCall(MatDiagDeviceTry(product_destroy, &s.dev));
  PetscFunctionReturn(0);
}

/* Collective. The plan of C = op(X) op(Y) and C's storage (zeros). */
PetscErrorCode StepSymbolic(Step &s, Mat X, Mat Y, Mat C)
{
  const Mat_Diag *x = (const Mat_Diag *)X->data, *y = (const Mat_Diag *)Y->data;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCheck(X->assembled && Y->assembled, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "diag: the operands of a product must be assembled");
  PetscCall(StepDestroy(s));
  PetscCall(CommSize(C, &size));
  s.mpi        = size > 1;
  s.cbuf_ready = false;
  s.cdm_route  = false;
  {
    /* on the GPU when both operands are there, on every process */
    PetscBool device = (MatDiagOnDevice_Private(X) && MatDiagOnDevice_Private(Y)) ? PETSC_TRUE : PETSC_FALSE;
    if (s.mpi) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &device, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
    s.device = device;
  }
  PetscCheck(!(s.mpi && s.device && s.variant == MAT_DIAG_PRODUCT_TILED), PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: -mat_product_algorithm diag_tiled (the paper's Algorithm 1) runs on one process only; use diag or diag_atomic under MPI");
  const PetscLayout rx = s.tx == Trans::N ? X->rmap : X->cmap, cy = s.ty == Trans::N ? Y->cmap : Y->rmap;
  PetscCall(ResultSetUp(C, rx->n, cy->n, rx->N, cy->N, PetscMax(x->opt.max_diagonals, y->opt.max_diagonals), s.device ? MATDIAGCUDA : MATDIAG));
  Mat_Diag *c = (Mat_Diag *)C->data;

  if (!s.mpi) {
    /* on the GPU the pair lists are built there (except for Algorithm 1,
       which needs no HM plan); C's diagonals come back */
    PetscCall(PetscLogEventBegin(MATDIAG_ProductPlan, X, Y, C, 0));
    if (s.device && s.variant != MAT_DIAG_PRODUCT_TILED) PetscCall(MatDiagDeviceCall(product_symbolic, x->layout, HmOffsetsOf(x), s.tx, y->layout, HmOffsetsOf(y), s.ty, &s.hplan, &s.dev));
    else DiagCallKernel(s.hplan = pdiag::hm_product_symbolic(x->layout, HmOffsetsOf(x), s.tx, y->layout, HmOffsetsOf(y), s.ty));
    PetscCall(PetscLogEventEnd(MATDIAG_ProductPlan, X, Y, C, 0));
  } else {
    PetscBool direct = (s.tx == Trans::N && x->scheme == pdiag::Scheme::HM) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &direct, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
    s.x_direct = direct;
    if (!s.x_direct) PetscCall(GatherBuild(s.gx, X, s.tx, c->layout.row_begin, c->layout.row_end()));
    const pdiag::Layout      &LX = s.x_direct ? x->layout : s.gx.blk.layout;
    const std::vector<Index> &ox = s.x_direct ? x->hm.offsets : s.gx.blk.offsets;
    /* the rows of op(Y) that this block of op(X) reaches */
    Index c0 = std::numeric_limits<Index>::max(), c1 = std::numeric_limits<Index>::min();
    for (Index e : ox) {
      if (LX.length(e) <= 0) continue;
      c0 = std::min(c0, LX.lo(e) + e);
      c1 = std::max(c1, LX.hi(e) + e);
    }
    if (c0 >= c1) c0 = c1 = 0;
    PetscCall(GatherBuild(s.gy, Y, s.ty, c0, c1));
    PetscCall(PetscLogEventBegin(MATDIAG_ProductPlan, X, Y, C, 0));
    if (s.device) PetscCall(MatDiagDeviceCall(product_symbolic, LX, ox, Trans::N, s.gy.blk.layout, s.gy.blk.offsets, Trans::N, &s.hplan, &s.dev));
    else DiagCallKernel(s.hplan = pdiag::hm_product_symbolic(LX, ox, Trans::N, s.gy.blk.layout, s.gy.blk.offsets, Trans::N));
    PetscCall(PetscLogEventEnd(MATDIAG_ProductPlan, X, Y, C, 0));
  }
  PetscCall(MatDiagCheckCountAll_Private(C, (Index)s.hplan.offsets.size()));
  /* On the device C gets no host values until a host operation needs them:
     the numeric phase writes C's device copy. The assembly below allocates
     them (zeros) only if it converts C to CDM. */
  Hm out;
  DiagCallKernel(out = Hm::structure_only(s.hplan.layout, s.hplan.offsets));
  if (!s.device) PetscCallCXX(out.val.assign((std::size_t)out.nstored(), 0.0));
  PetscCall(MatDiagReplaceStorage_Private(C, std::move(out)));
  c->host_deferred = s.device ? PETSC_TRUE : PETSC_FALSE;
  C->preallocated  = PETSC_TRUE;
  c->assembly.defer_upload = PETSC_TRUE; /* the zeros need not go to the device: the numeric phase writes there */
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY)); /* chooses C's storage as for any diag matrix */
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  c               = (Mat_Diag *)C->data;
  c->assembly.defer_upload = PETSC_FALSE;
  if (!s.mpi && x->scheme == pdiag::Scheme::CDM && y->scheme == pdiag::Scheme::CDM && c->scheme == pdiag::Scheme::CDM) {
    PetscCall(PetscLogEventBegin(MATDIAG_ProductPlan, X, Y, C, 0));
    DiagCallKernel(s.cplan = pdiag::cdm_product_symbolic(x->layout.ncols, x->cdm.koffsets, s.tx, y->cdm.koffsets, s.ty));
    PetscCall(PetscLogEventEnd(MATDIAG_ProductPlan, X, Y, C, 0));
    s.cdm_route = s.cplan.koffsets == c->cdm.koffsets;
  }
  if (s.variant == MAT_DIAG_PRODUCT_TILED && s.device) PetscCheck(s.cdm_route, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: -mat_product_algorithm diag_tiled (the paper's Algorithm 1) needs CDM operands and result: use -mat_diag_storage cdm");

  if (!s.device && s.variant != MAT_DIAG_PRODUCT_OUTPUT_STATIONARY) PetscCall(PetscInfo(C, "diag: product algorithm %s runs on the GPU only; the CPU kernels run\n", kAlgorithms[s.variant]));
  PetscCall(KeyOf(X, &s.kx));
  PetscCall(KeyOf(Y, &s.ky));
  PetscCall(KeyOf(C, &s.kc));
  PetscCall(PetscInfo(C, "diag: product op(X) op(Y), op = %s%s: %s, %" PetscInt64_FMT " output diagonals on this process, %" PetscInt64_FMT " multiply-adds\n", pdiag::trans_name(s.tx), pdiag::trans_name(s.ty),
                      s.device ? kAlgorithms[s.variant] : (s.cdm_route ? "CDM kernels" : (s.mpi ? "HM kernels on gathered rows" : "HM kernels")), (PetscInt64)(s.cdm_route ? s.cplan.koffsets.size() : s.hplan.offsets.size()),
                      (PetscInt64)(s.cdm_route ? s.cplan.nmul : s.hplan.nmul)));
  PetscFunctionReturn(0);
}

/* Collective. C's values from X's and Y's current values (the symbolic
   phase is redone first if a structure changed). */
PetscErrorCode StepNumeric(Step &s, Mat X, Mat Y, Mat C)
{
  PetscBool stale = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(X->assembled && Y->assembled, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONGSTATE, "diag: the operands of a product must be assembled");
  PetscCall(KeyChanged(X, s.kx, &stale));
  PetscCall(KeyChanged(Y, s.ky, &stale));
  PetscCall(KeyChanged(C, s.kc, &stale));
  if (s.mpi) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stale, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)C)));
  if (stale) {
    PetscCall(PetscInfo(C, "diag: the diagonals of an operand or of the result changed since the symbolic phase: redoing it\n"));
    PetscCall(StepSymbolic(s, X, Y, C));
  }
  if (s.device && !s.mpi) {
    const bool tiled = s.variant == MAT_DIAG_PRODUCT_TILED;
    PetscCall(MatDiagDeviceCall(product_numeric, s.dev, s.hplan, X, s.tx, Y, s.ty, C, s.variant, (PetscLogDouble)(tiled ? s.cplan.nmul : s.hplan.nmul)));
    PetscFunctionReturn(0);
  }
  if (s.device) { /* MPI: the gathers run between device arrays, then the kernels as on one process */
    pdiag::HmView<const PetscScalar> xv, yv;
    if (s.x_direct) PetscCall(MatDiagDeviceCall(product_operand, s.dev, X, &xv));
    else PetscCall(MatDiagDeviceCall(product_gather, s.dev, 0, X, s.gx.sct, s.gx.blk, &xv));
    PetscCall(MatDiagDeviceCall(product_gather, s.dev, 1, Y, s.gy.sct, s.gy.blk, &yv));
    PetscCall(MatDiagDeviceCall(product_numeric_views, s.dev, s.hplan, xv, Trans::N, yv, Trans::N, C, s.variant, (PetscLogDouble)s.hplan.nmul));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceTry(sync_host, X));
  PetscCall(MatDiagDeviceTry(sync_host, Y));
  const Mat_Diag *x = (const Mat_Diag *)X->data, *y = (const Mat_Diag *)Y->data;
  Mat_Diag       *c = (Mat_Diag *)C->data;
  PetscLogDouble  nmul;
  if (s.cdm_route) {
    DiagCallKernel(pdiag::cdm_product_numeric<PetscScalar>(s.cplan, x->cdm.view(), s.tx, y->cdm.view(), s.ty, c->cdm.view()));
    nmul = (PetscLogDouble)s.cplan.nmul;
  } else {
    pdiag::HmView<const PetscScalar> xv, yv;
    Trans                            ex = s.tx, ey = s.ty;
    if (!s.mpi) {
      PetscCall(LocalHm(X, s.xbuf, &xv));
      PetscCall(LocalHm(Y, s.ybuf, &yv));
    } else {
      ex = ey = Trans::N; /* the gathered rows are rows of op(X), op(Y) */
      if (s.x_direct) xv = x->hm.view();
      else {
        PetscCall(GatherRun(s.gx, X));
        xv = static_cast<const Hm &>(s.gx.blk).view();
      }
      PetscCall(GatherRun(s.gy, Y));
      yv = static_cast<const Hm &>(s.gy.blk).view();
    }
    const bool ccdm = c->scheme == pdiag::Scheme::CDM;
    if (ccdm && !s.cbuf_ready) {
      DiagCallKernel(s.cbuf = pdiag::hm_product_alloc<PetscScalar>(s.hplan));
      s.cbuf_ready = true;
    }
    DiagCallKernel(pdiag::hm_product_numeric<PetscScalar>(s.hplan, xv, ex, yv, ey, ccdm ? s.cbuf.view() : c->hm.view()));
    if (ccdm) {
      Cdm out;
      DiagCallKernel(out = pdiag::cdm_from_hm(s.cbuf));
      PetscCheck(out.koffsets == c->cdm.koffsets, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: product result's compact diagonals differ from C's");
      c->cdm = std::move(out);
    }
    nmul = (PetscLogDouble)s.hplan.nmul;
  }
  MatDiagValuesChanged(C);
  PetscCall(PetscLogFlops(2.0 * nmul));
  PetscFunctionReturn(0);
}

/* ---- the data a product keeps --------------------------------------------- */

struct ProductData {
  Mat       conv[3] = {nullptr, nullptr, nullptr}; /* diag copies of aij operands (A, B, C) */
  Mat       inter   = nullptr;                     /* PtAP: A P; RARt: A R^T; ABC: A B */
  Step      s1, s2;
};

PetscErrorCode ProductDataDestroy(void *ptr)
{
  ProductData *pd = (ProductData *)ptr;

  PetscFunctionBegin;
  if (!pd) PetscFunctionReturn(0);
  PetscCall(StepDestroy(pd->s1));
  PetscCall(StepDestroy(pd->s2));
  for (Mat &m : pd->conv) PetscCall(MatDestroy(&m));
  PetscCall(MatDestroy(&pd->inter));
  delete pd;
  PetscFunctionReturn(0);
}

/* Largest number of diagonals an aij matrix's rows touch on one process,
   counted up to cap + 1. Collective. */
PetscErrorCode AijDiagonalCount(Mat X, PetscInt cap, PetscInt64 *most)
{
  std::vector<Index> offs;
  double             nnz;
  PetscBool          over;
  PetscInt64         loc;

  PetscFunctionBegin;
  PetscCall(MatDiagAIJLocalOffsets_Private(X, (std::size_t)cap, &offs, &nnz, &over));
  loc = over ? (PetscInt64)cap + 1 : (PetscInt64)offs.size();
  PetscCall(MPIU_Allreduce(&loc, most, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)X)));
  PetscFunctionReturn(0);
}

/* The operands as diag matrices: diag ones as they are, aij ones through a
   diag copy (made in the symbolic phase, refreshed in the numeric phase). */
PetscErrorCode Operands(Mat C, ProductData *pd, bool refresh, Mat op[3])
{
  Mat_Product *product = C->product;
  Mat          in[3]   = {product->A, product->B, product->type == MATPRODUCT_ABC ? product->C : NULL};
  const char  *names[3] = {"A", product->type == MATPRODUCT_PtAP ? "P" : (product->type == MATPRODUCT_RARt ? "R" : "B"), "C"};
  Kind         kind[3];
  PetscInt     limit = 0;

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    op[i] = in[i];
    if (!in[i]) continue;
    PetscCall(KindOf(in[i], &kind[i]));
    if (kind[i] == Kind::Diag) limit = PetscMax(limit, ((Mat_Diag *)in[i]->data)->opt.max_diagonals);
  }
  for (int i = 0; i < 3; i++) {
    if (!in[i] || kind[i] == Kind::Diag) continue;
    PetscCheck(kind[i] == Kind::Aij, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: MatProduct %s: operand %s of type %s is neither diag nor aij", MatProductTypes[product->type], names[i], ((PetscObject)in[i])->type_name);
    if (!pd->conv[i]) {
      PetscInt64 most;
      PetscCall(AijDiagonalCount(in[i], limit, &most));
      PetscCheck(most <= limit, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP,
                 "diag: MatProduct %s of diag and aij: converting operand %s (type %s) to diag would store %" PetscInt64_FMT " or more diagonals on a process, more than the limit %" PetscInt_FMT
                 " (-mat_diag_max_diagonals); convert the diag operand(s) to aij (MatConvert) for this product instead",
                 MatProductTypes[product->type], names[i], ((PetscObject)in[i])->type_name, most, limit);
      PetscCall(PetscInfo(C, "diag: MatProduct %s: converting operand %s of type %s to diag (the result is diag)\n", MatProductTypes[product->type], names[i], ((PetscObject)in[i])->type_name));
      PetscCall(MatCreate(PetscObjectComm((PetscObject)in[i]), &pd->conv[i]));
      PetscCall(MatSetSizes(pd->conv[i], in[i]->rmap->n, in[i]->cmap->n, in[i]->rmap->N, in[i]->cmap->N));
      PetscCall(MatSetType(pd->conv[i], MATDIAG));
      ((Mat_Diag *)pd->conv[i]->data)->opt.max_diagonals = limit;
      ((Mat_Diag *)pd->conv[i]->data)->opt.list_remote   = PETSC_FALSE; /* the product kernels read diagonals only (pdiag/remote.hpp) */
      refresh = true;
    }
    if (refresh) PetscCall(MatConvertFrom_Diag(in[i], MATDIAG, MAT_REUSE_MATRIX, &pd->conv[i]));
    op[i] = pd->conv[i];
  }
  PetscFunctionReturn(0);
}

/* ---- the MatProduct callbacks --------------------------------------------- */

PetscErrorCode MatProductNumeric_Diag(Mat C)
{
  Mat_Product *product = C->product;
  ProductData *pd;
  Mat          op[3];

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  pd = (ProductData *)product->data;
  PetscCheck(pd, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data missing; run MatProductSymbolic() first");
  PetscCall(OperandsOnDiagonals(C));
  PetscCall(Operands(C, pd, true, op));
  switch (product->type) {
  case MATPRODUCT_AB:
  case MATPRODUCT_AtB:
  case MATPRODUCT_ABt:
    PetscCall(StepNumeric(pd->s1, op[0], op[1], C));
    break;
  case MATPRODUCT_PtAP: /* inter = A P, C = P^T inter */
  case MATPRODUCT_RARt: /* inter = A R^T, C = R inter */
    PetscCall(StepNumeric(pd->s1, op[0], op[1], pd->inter));
    PetscCall(StepNumeric(pd->s2, op[1], pd->inter, C));
    break;
  case MATPRODUCT_ABC: /* inter = A B, C = inter C */
    PetscCall(StepNumeric(pd->s1, op[0], op[1], pd->inter));
    PetscCall(StepNumeric(pd->s2, pd->inter, op[2], C));
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: MatProduct %s is not supported", MatProductTypes[product->type]);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatProductSymbolic_Diag(Mat C)
{
  Mat_Product *product = C->product;
  ProductData *pd;
  Mat          op[3];

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(!product->data, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data not empty");
  PetscCall(OperandsOnDiagonals(C));
  PetscCallCXX(pd = new ProductData());
  product->data    = pd;
  product->destroy = MatProductDataDestroy_Compat<ProductDataDestroy>;
  PetscCall(Operands(C, pd, false, op));
  for (PetscInt i = 0; i < kNumAlgorithms; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(product->alg, kAlgorithms[i], &same));
    if (same) pd->s1.variant = pd->s2.variant = (MatDiagProductVariant)i;
  }
  switch (product->type) {
  case MATPRODUCT_AB:
    PetscCall(StepSymbolic(pd->s1, op[0], op[1], C));
    break;
  case MATPRODUCT_AtB:
    pd->s1.tx = Trans::T;
    PetscCall(StepSymbolic(pd->s1, op[0], op[1], C));
    break;
  case MATPRODUCT_ABt:
    pd->s1.ty = Trans::T;
    PetscCall(StepSymbolic(pd->s1, op[0], op[1], C));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatCreate(PetscObjectComm((PetscObject)C), &pd->inter));
    PetscCall(StepSymbolic(pd->s1, op[0], op[1], pd->inter));
    pd->s2.tx = Trans::T;
    PetscCall(StepSymbolic(pd->s2, op[1], pd->inter, C));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatCreate(PetscObjectComm((PetscObject)C), &pd->inter));
    pd->s1.ty = Trans::T;
    PetscCall(StepSymbolic(pd->s1, op[0], op[1], pd->inter));
    PetscCall(StepSymbolic(pd->s2, op[1], pd->inter, C));
    break;
  case MATPRODUCT_ABC:
    PetscCall(MatCreate(PetscObjectComm((PetscObject)C), &pd->inter));
    PetscCall(StepSymbolic(pd->s1, op[0], op[1], pd->inter));
    PetscCall(StepSymbolic(pd->s2, pd->inter, op[2], C));
    break;
  default:
    SETERRQ(PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: MatProduct %s is not supported", MatProductTypes[product->type]);
  }
  /* MatSetType() in the set-up of C cleared C's ops */
  C->ops->productsymbolic = MatProductSymbolic_Diag;
  C->ops->productnumeric  = MatProductNumeric_Diag;
  PetscFunctionReturn(0);
}

/* The option naming the algorithm of a product made through MatMatMult()
   and friends (-matmatmult_via, ...), or NULL. */
const char *ViaOption(const Mat_Product *product)
{
  if (!product->api_user) return NULL;
  switch (product->type) {
  case MATPRODUCT_AB:
    return "-matmatmult_via";
  case MATPRODUCT_AtB:
    return "-mattransposematmult_via";
  case MATPRODUCT_ABt:
    return "-matmattransposemult_via";
  case MATPRODUCT_PtAP:
    return "-matptap_via";
  case MATPRODUCT_RARt:
    return "-matrart_via";
  case MATPRODUCT_ABC:
    return "-matmatmatmult_via";
  default:
    return NULL;
  }
}

/* Algorithms PETSc's aij products know (any product type): a product of
   diag matrices asked to use one of these runs as aij's. */
const char *const kAijAlgorithms[] = {"sorted", "scalable", "scalable_fast", "heap", "btheap", "llcondensed", "rowmerge", "nonscalable", "allatonce", "allatonce_merged", "hypre", "backend", "seqmpi", "at*b", "outerproduct", "rap", "r*art", "color", "coloring_rart", "cusparse", "kokkos"};

/* The algorithm diag runs, or -1 when the product or the options name one
   only aij has (the product then runs as aij's). "default" is "diag";
   -mat_product_algorithm (and, through MatMatMult() and friends, their
   -mat..._via option) may name one. A name neither knows is an error. */
PetscErrorCode ProductAlgorithm(Mat C, PetscInt *alg)
{
  Mat_Product *product = C->product;
  auto         lookup  = [C](const char *name, PetscInt *index) -> PetscErrorCode {
    PetscBool same;
    *index = -2;
    PetscCall(PetscStrcmp(name, MATPRODUCTALGORITHMDEFAULT, &same));
    if (same) *index = 0;
    for (PetscInt i = 0; i < kNumAlgorithms && *index < -1; i++) {
      PetscCall(PetscStrcmp(name, kAlgorithms[i], &same));
      if (same) *index = i;
    }
    for (const char *aij : kAijAlgorithms) {
      if (*index > -2) break;
      PetscCall(PetscStrcmp(name, aij, &same));
      if (same) *index = -1;
    }
    PetscCheck(*index > -2, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: MatProduct algorithm \"%s\" is not available for Mat type diag (diag, diag_atomic, diag_tiled) nor for aij", name);
    return 0;
  };

  PetscFunctionBegin;
  PetscCall(lookup(product->alg, alg));
  for (const char *option : {"-mat_product_algorithm", ViaOption(product)}) {
    char      name[256];
    PetscBool set;
    if (!option || *alg < 0) continue;
    PetscCall(PetscOptionsGetString(((PetscObject)C)->options, ((PetscObject)C)->prefix, option, name, sizeof(name), &set));
    if (set) PetscCall(lookup(name, alg));
  }
  PetscFunctionReturn(0);
}

/* The symbolic phase of a product whose algorithm is unknown: the error of
   the algorithm's lookup, raised outside any options block. */
static PetscErrorCode MatProductSymbolic_DiagUnknownAlgorithm(Mat C)
{
  PetscInt alg;

  PetscFunctionBegin;
  PetscCall(ProductAlgorithm(C, &alg));
  SETERRQ(PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: the product's algorithm was unknown and is now known");
}

/* PETSc calls this through ops->productsetfromoptions when every operand
   is diag, and through the composed "MatProductSetFromOptions_anytype_C"
   when only some are (diag x dense, diag with aij). Diag computes products
   of diag and dense operands and of diag with aij operands that have few,
   full diagonals (converted to diag); the others run as aij's on the diag
   operands' aij copies (products/product_companion.cpp). */
PetscErrorCode MatProductSetFromOptions_Diag(Mat C)
{
  Mat_Product *product = C->product;
  Mat          in[3];
  Kind         kind[3] = {Kind::Other, Kind::Other, Kind::Other};
  bool         any_diag = false, all_sparse = true, any_dense = false;
  PetscInt     alg;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  if (product->type == MATPRODUCT_UNSPECIFIED) PetscFunctionReturn(0);
  in[0] = product->A;
  in[1] = product->B;
  in[2] = product->type == MATPRODUCT_ABC ? product->C : NULL;
  for (int i = 0; i < 3; i++) {
    if (!in[i]) continue;
    PetscCall(KindOf(in[i], &kind[i]));
    any_diag   = any_diag || kind[i] == Kind::Diag;
    any_dense  = any_dense || kind[i] == Kind::Dense;
    all_sparse = all_sparse && (kind[i] == Kind::Diag || kind[i] == Kind::Aij);
  }
  const bool dense_ab = product->type == MATPRODUCT_AB && kind[0] == Kind::Diag && kind[1] == Kind::Dense;
  bool       sparse   = any_diag && all_sparse;
  { /* an unknown algorithm is reported by MatProductSymbolic(): PETSc 3.18
       calls this inside its options block and would return at once,
       without closing it */
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ProductAlgorithm(C, &alg);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      C->ops->productsymbolic = MatProductSymbolic_DiagUnknownAlgorithm;
      PetscFunctionReturn(0);
    }
  }
  if (sparse) {
    const char *why = NULL;
    if (alg < 0) why = "the algorithm asked for is aij's";
    for (int i = 0; i < 3 && !why; i++) {
      PetscBool compact;
      if (!in[i]) continue;
      if (kind[i] == Kind::Aij) {
        PetscCall(MatDiagAIJIsCompact_Private(in[i], &compact));
        if (!compact) why = "an aij operand's diagonals are too many or too sparse to store by diagonals";
      } else {
        PetscCall(MatDiagIsScattered_Private(in[i], &compact));
        if (compact) why = "a diag operand holds many diagonals that are mostly zeros (e.g. an algebraic multigrid prolongator)";
      }
    }
    if (why) {
      /* a Galerkin coarse operator of a diag operator: diag if its diagonals are few */
      const bool galerkin = (product->type == MATPRODUCT_PtAP || product->type == MATPRODUCT_RARt) && kind[0] == Kind::Diag && in[0]->rmap->N == in[0]->cmap->N;
      if (galerkin) PetscCall(MatDiagProductToDiag_Private(C, why));
      else PetscCall(MatDiagProductViaCompanion_Private(C, why));
      PetscFunctionReturn(0);
    }
  }
  if (!dense_ab && !sparse) {
    for (int i = 1; i < 3; i++) {
      PetscErrorCode (*f)(Mat) = NULL;
      if (!in[i]) continue;
      PetscCall(PetscObjectQueryFunction((PetscObject)in[i], kAnytype, &f));
      if (f && f != MatProductSetFromOptions_Diag) {
        PetscCall((*f)(C));
        break;
      }
    }
    /* left to PETSc's own fallbacks when an operand is dense (MatMult per column) */
    if (!C->ops->productsymbolic && any_diag && !any_dense) PetscCall(MatDiagProductViaCompanion_Private(C, "an operand is of a type diag does not multiply"));
    PetscFunctionReturn(0);
  }
  PetscCheck(alg >= 0, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: MatProduct algorithm \"%s\" is not available for a diag matrix times a dense one; available: diag, diag_atomic, diag_tiled", product->alg);
  PetscCall(MatProductSetAlgorithm(C, kAlgorithms[alg]));
  C->ops->productsymbolic = dense_ab ? MatProductSymbolic_DiagDense : MatProductSymbolic_Diag;
  PetscFunctionReturn(0);
}

} // namespace

/* Installs the product hook of a diag matrix: the ops slot (every operand
   diag) and the composed anytype function (mixed with dense or aij, which
   PETSc only finds by name). */
PetscErrorCode MatDiagSetProductOps_Private(Mat A)
{
  PetscFunctionBegin;
  A->ops->productsetfromoptions = MatProductSetFromOptions_Diag;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, kAnytype, MatProductSetFromOptions_Diag));
  PetscFunctionReturn(0);
}
