/* MatProduct for MATDIAG with a dense right-hand side: C = A X, X
   column-major with its leading dimension (MATSEQDENSE / MATMPIDENSE, or
   MATSEQDENSECUDA / MATMPIDENSECUDA with A on the GPU), any number of
   columns, C dense. The arithmetic is pdiag::hm_spmm / cdm_spmm (kernels/),
   on the GPU MatDiagDeviceSpMM_Private (device/product.cpp). Under MPI
   the rows of X that the process's diagonals reach (the merged column
   intervals, as for MatMultTranspose's work vector) are gathered for all
   columns with one VecScatter built in the symbolic phase (on the GPU
   between device arrays); the SpMM kernel reads them through per-diagonal
   shifts. Installed by MatProductSetFromOptions_Diag
   (products/product.cpp). */
#include "products/product_common.hpp"

#include "pdiag/spmm.hpp"

#include <algorithm>
#include <vector>

using namespace diag_product;

namespace {

struct DenseStep {
  bool                     mpi = false, device = false; /* device: A on the GPU, X a dense CUDA matrix (every process) */
  Key                      ka;
  PetscInt                 ldx = -1, k = -1;
  Vec                      src = nullptr, dst = nullptr; /* MPI: X's local arrays -> W */
  VecScatter               sct = nullptr;
  std::vector<PetscScalar> W; /* the rows of X this process's diagonals reach, column-major, ld nw */
  Index                    nw = 0;
  std::vector<Index>       shift; /* per kernel slot: row il of A reads W's row il + shift */
  DiagDeviceDense         *dev = nullptr; /* MPI on the GPU: W and shift on the device */
};

PetscErrorCode DenseDestroy(DenseStep &s)
{
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&s.sct));
  PetscCall(VecDestroy(&s.src));
  PetscCall(VecDestroy(&s.dst));
  PetscCall(MatDiagDeviceTry(dense_destroy, &s.dev));
  s.W.clear();
  PetscFunctionReturn(0);
}

/* Collective. Under MPI: the merged column intervals that A's local rows
   reach, the kernel shifts into them, and the scatter of those rows of X
   (all k columns at once) from every process's local array. */
PetscErrorCode DenseBuild(DenseStep &s, Mat A, Mat X)
{
  const Mat_Diag *a = (const Mat_Diag *)A->data;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "diag: the operands of a product must be assembled");
  PetscCall(DenseDestroy(s));
  PetscCall(CommSize(A, &size));
  s.mpi = size > 1;
  {
    PetscBool xcuda, device;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &xcuda, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
    device = (xcuda && MatDiagOnDevice_Private(A)) ? PETSC_TRUE : PETSC_FALSE;
    if (s.mpi) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &device, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
    s.device = device;
  }
  PetscCall(KeyOf(A, &s.ka));
  PetscCall(MatDenseGetLDA(X, &s.ldx));
  s.k = X->cmap->N;
  if (!s.mpi) PetscFunctionReturn(0);

  /* one run per kernel slot: HM diagonal k; CDM compact diagonal k above the wrap (slot k) and below it (slot nd + k) */
  struct Run {
    Index d, lo, hi, slot;
  };
  const pdiag::Layout &L = a->layout;
  std::vector<Run>     runs;
  Index                nslots;
  if (a->scheme == pdiag::Scheme::HM) {
    nslots = a->hm.ndiag();
    for (Index k = 0; k < nslots; k++) runs.push_back({a->hm.offsets[k], L.lo(a->hm.offsets[k]), L.hi(a->hm.offsets[k]), k});
  } else {
    const Index nd = a->cdm.ndiag();
    nslots         = 2 * nd;
    for (Index k = 0; k < nd; k++) {
      const Index kk = a->cdm.koffsets[k];
      runs.push_back({kk, L.lo(kk), L.hi(kk), k});
      runs.push_back({kk - L.ncols, L.lo(kk - L.ncols), L.hi(kk - L.ncols), nd + k});
    }
  }
  std::vector<std::pair<Index, Index>> iv, merged;
  for (const Run &r : runs)
    if (r.lo < r.hi) iv.push_back({r.lo + r.d, r.hi + r.d});
  std::sort(iv.begin(), iv.end());
  for (const auto &p : iv) {
    if (!merged.empty() && p.first <= merged.back().second) merged.back().second = std::max(merged.back().second, p.second);
    else merged.push_back(p);
  }
  std::vector<Index> base;
  s.nw = 0;
  for (const auto &p : merged) {
    base.push_back(s.nw);
    s.nw += p.second - p.first;
  }
  /* W's row of global column j */
  const auto position = [&](Index j) {
    const auto it = std::upper_bound(merged.begin(), merged.end(), std::make_pair(j, std::numeric_limits<Index>::max())) - 1;
    return base[(std::size_t)(it - merged.begin())] + (j - it->first);
  };
  /* never empty: a null shift would mean "X holds every row" to the kernel */
  s.shift.assign((std::size_t)std::max<Index>(nslots, 1), 0);
  for (const Run &r : runs)
    if (r.lo < r.hi) s.shift[(std::size_t)r.slot] = position(r.lo + r.d) - (r.lo - L.row_begin);

  const Index k = s.k, nlocal = (Index)s.ldx * k;
  PetscCheck(nlocal <= (Index)PETSC_MAX_INT && s.nw * k <= (Index)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: the dense operand is too large for PetscInt indices in the product's gather");
  PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, (PetscInt)nlocal, PETSC_DECIDE, NULL, &s.src));
  PetscCallCXX(s.W.assign((std::size_t)(s.nw * k), 0.0));
  PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, (PetscInt)(s.nw * k), s.W.data(), &s.dst));
  const PetscInt       *vr;
  std::vector<PetscInt> from, to;
  PetscCall(VecGetOwnershipRanges(s.src, &vr));
  if (k > 0) {
    for (const auto &p : merged) {
      for (Index j = p.first; j < p.second; j++) {
        PetscMPIInt q;
        PetscCall(PetscLayoutFindOwner(X->rmap, (PetscInt)j, &q));
        const Index ldq = (vr[q + 1] - vr[q]) / k, w = position(j);
        for (Index col = 0; col < k; col++) {
          from.push_back((PetscInt)(vr[q] + col * ldq + (j - X->rmap->range[q])));
          to.push_back((PetscInt)(col * s.nw + w));
        }
      }
    }
  }
  IS isf, ist;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)from.size(), from.data(), PETSC_COPY_VALUES, &isf));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)to.size(), to.data(), PETSC_COPY_VALUES, &ist));
  PetscCall(VecScatterCreate(s.src, isf, s.dst, ist, &s.sct));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  if (s.device) PetscCall(MatDiagDeviceCall(dense_create, PetscObjectComm((PetscObject)A), (PetscInt)nlocal, s.nw, k, s.shift, &s.dev));
  PetscFunctionReturn(0);
}

/* What a dense product keeps in C->product->data. */
struct DenseData {
  DenseStep ds;
};

PetscErrorCode DenseDataDestroy(void *ptr)
{
  DenseData *pd = (DenseData *)ptr;

  PetscFunctionBegin;
  if (!pd) PetscFunctionReturn(0);
  PetscCall(DenseDestroy(pd->ds));
  delete pd;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_DiagDense(Mat C)
{
  Mat_Product       *product = C->product;
  Mat                A = product->A, X = product->B;
  DenseData         *pd;
  PetscBool          stale = PETSC_FALSE;
  PetscInt           ldx, ldc;
  const PetscScalar *xa;
  PetscScalar       *ca;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  pd = (DenseData *)product->data;
  PetscCheck(pd, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data missing; run MatProductSymbolic() first");
  PetscCall(OperandsOnDiagonals(C)); /* a new assembly may have listed entries again */
  DenseStep &s = pd->ds;
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(KeyChanged(A, s.ka, &stale));
  if (ldx != s.ldx || X->cmap->N != s.k) stale = PETSC_TRUE;
  if (s.mpi) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stale, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)C)));
  if (stale) PetscCall(DenseBuild(s, A, X));
  PetscBool ccuda;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)C, &ccuda, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
  if (s.mpi) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ccuda, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)C)));
  if (s.device && ccuda) {
    PetscCall(MatDiagDeviceCall(spmm, A, X, C, s.sct, s.dev));
    PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceTry(sync_host, A));
  const Mat_Diag *a = (const Mat_Diag *)A->data;
  PetscCall(MatDenseGetLDA(C, &ldc));
  PetscCall(MatDenseGetArrayRead(X, &xa));
  PetscCall(MatDenseGetArrayWrite(C, &ca));
  if (!s.mpi) {
    if (a->scheme == pdiag::Scheme::HM) DiagCallKernel(pdiag::hm_spmm<PetscScalar>(a->hm.view(), xa, ldx, s.k, ca, ldc));
    else DiagCallKernel(pdiag::cdm_spmm<PetscScalar>(a->cdm.view(), xa, ldx, s.k, ca, ldc));
  } else {
    PetscCall(VecPlaceArray(s.src, xa));
    PetscCall(VecScatterBegin(s.sct, s.src, s.dst, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(s.sct, s.src, s.dst, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecResetArray(s.src));
    if (a->scheme == pdiag::Scheme::HM) DiagCallKernel(pdiag::hm_spmm<PetscScalar>(a->hm.view(), s.W.data(), s.nw, s.k, ca, ldc, s.shift.data()));
    else DiagCallKernel(pdiag::cdm_spmm<PetscScalar>(a->cdm.view(), s.W.data(), s.nw, s.k, ca, ldc, s.shift.data()));
  }
  PetscCall(MatDenseRestoreArrayRead(X, &xa));
  PetscCall(MatDenseRestoreArrayWrite(C, &ca));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)a->nstored() * (PetscLogDouble)s.k));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

} // namespace

PetscErrorCode diag_product::MatProductSymbolic_DiagDense(Mat C)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, X = product->B;
  DenseData   *pd;
  Kind         kind = Kind::Other;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(!product->data, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data not empty");
  PetscCall(OperandsOnDiagonals(C));
  PetscCall(MatSetSizes(C, A->rmap->n, X->cmap->n, A->rmap->N, X->cmap->N));
  PetscCall(KindOf(C, &kind));
  if (kind != Kind::Dense) PetscCall(MatSetType(C, ((PetscObject)X)->type_name));
  PetscCall(MatSetUp(C));
  PetscCallCXX(pd = new DenseData());
  product->data    = pd;
  product->destroy = MatProductDataDestroy_Compat<DenseDataDestroy>;
  PetscCall(DenseBuild(pd->ds, A, X));
  PetscCall(PetscInfo(C, "diag: product with a dense matrix of %" PetscInt_FMT " columns (SpMM)\n", X->cmap->N));
  C->ops->productsymbolic = MatProductSymbolic_DiagDense;
  C->ops->productnumeric  = MatProductNumeric_DiagDense;
  PetscFunctionReturn(0);
}
