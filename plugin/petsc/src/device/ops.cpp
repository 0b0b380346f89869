/* Operations on the device copy of a diag matrix (CUDA builds;
   -mat_diag_device_ops, default on): MatScale, MatShift, MatAXPY (same
   diagonals), MatGetDiagonal, MatDiagonalScale and MatZeroRows of a matrix
   whose values are on the device run there, with the kernels of
   kernels/src/ops.cu; ops/ops.cpp dispatches (*done false: the host
   operation runs, after the values come back).

   Under MPI every process takes the same path (the host operations are
   collective where the structure may change, and MatDiagonalScale's
   right vector is gathered with one scatter either way): the device path
   runs only when it can on every process. The operations are local to a
   process's rows but for the right scaling, whose gathered column entries
   land in the device work vector of MatMultTranspose (the ghost exchange
   stages through the host: this MPI is not CUDA-aware).

   The operation runs on the full values there and the device copy becomes
   the newest (a compressed form is dropped: MatMult then reads the full
   values). */
#include "core/mat_diag.hpp"

#include "device/device.hpp"

#include "pdiag/ops_cuda.hpp"
#include "pdiag/spmv_cuda.hpp"

/* Whether this process can run an operation on A's device copy: its values
   are there and its ghost layout is current (so that fetching them is not
   a collective set-up step). */
static PetscBool DeviceOpsLocal(Mat A)
{
  const Mat_Diag *a = (const Mat_Diag *)A->data;

  if (!a->opt.device_ops || A->boundtocpu || !a->mpi.ghost_valid) return PETSC_FALSE;
  return (A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH) ? PETSC_TRUE : PETSC_FALSE;
}

/* Collective: *done becomes true on every process if local is true on every
   process. */
static PetscErrorCode DeviceOpsAgree(Mat A, PetscBool local, PetscBool *done)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  *done = local;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MPIU_Allreduce(&local, done, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(0);
}

/* The operations that rewrite A's values in place: A's full device values
   (uploaded if needed), launch(meta, val) on them under the GPU timer, the
   flops logged, and the device copy marked the newest. launch returns the
   kernels' cudaError_t. */
template <class Launch>
static PetscErrorCode RewriteDeviceValues(Mat A, PetscLogDouble flops, Launch launch)
{
  const Index       *meta;
  const PetscScalar *val;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceValues_Private(A, &meta, &val));
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(launch(meta, const_cast<PetscScalar *>(val))); /* the matrix's own device buffer */
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(flops));
  PetscCall(MatDiagDeviceValuesWritten_Private(A));
  PetscFunctionReturn(0);
}

/* Device views of A's block in its scheme over the metadata and values of
   its device copy. */
static pdiag::HmView<PetscScalar> DeviceHm(const Mat_Diag *a, const Index *meta, PetscScalar *val)
{
  return {a->layout, a->hm.ndiag(), meta, meta + a->hm.ndiag(), val};
}
static pdiag::CdmView<PetscScalar> DeviceCdm(const Mat_Diag *a, const Index *meta, PetscScalar *val)
{
  return {a->layout, a->cdm.ndiag(), meta, val};
}

/* The main diagonal's stored run: its first local row and length (0: not stored). */
static void MainDiagonalRun(const Mat_Diag *a, Index *pos, Index *row, Index *len)
{
  *pos = *row = *len = 0;
  if (a->scheme == pdiag::Scheme::HM) {
    const Index k = a->hm.find_diagonal(0);
    if (k < 0) return;
    *pos = a->hm.start[k];
    *row = a->layout.lo(0) - a->layout.row_begin;
    *len = a->hm.start[k + 1] - a->hm.start[k];
  } else {
    const Index k = a->cdm.find_diagonal(0);
    if (k < 0) return;
    *pos = k * a->layout.nrows;
    *len = a->layout.nrows;
  }
}

PetscErrorCode MatDiagScaleDevice_Private(Mat A, PetscScalar alpha, PetscBool *done)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  const Index n = a->nstored();

  PetscFunctionBegin;
  PetscCall(DeviceOpsAgree(A, DeviceOpsLocal(A), done));
  if (!*done) PetscFunctionReturn(0);
  PetscCall(RewriteDeviceValues(A, (PetscLogDouble)n, [&](const Index *, PetscScalar *v) { return pdiag::cuda::scale_values(v, n, alpha, PetscDefaultCudaStream); }));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagShiftDevice_Private(Mat A, PetscScalar alpha, PetscBool *done)
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  Index     pos, row, len;

  PetscFunctionBegin;
  MainDiagonalRun(a, &pos, &row, &len);
  PetscCall(DeviceOpsAgree(A, (DeviceOpsLocal(A) && (len > 0 || a->layout.length(0) == 0)) ? PETSC_TRUE : PETSC_FALSE, done)); /* a missing main diagonal is added on the host */
  if (!*done) PetscFunctionReturn(0);
  PetscCall(RewriteDeviceValues(A, (PetscLogDouble)len, [&](const Index *, PetscScalar *v) { return pdiag::cuda::add_scalar(v + pos, len, alpha, PetscDefaultCudaStream); }));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagGetDiagonalDevice_Private(Mat A, Vec v, PetscBool *done)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const Index       *meta;
  const PetscScalar *val;
  PetscScalar       *vd;
  Index              pos, row, len;

  PetscFunctionBegin;
  PetscCall(DeviceOpsAgree(A, (DeviceOpsLocal(A) && MatDiagUseDevice_Private(A, v)) ? PETSC_TRUE : PETSC_FALSE, done));
  if (!*done) PetscFunctionReturn(0);
  if (MatDiagDev(A).compressed) { /* read the compressed form: the full values are not on the device (Jacobi's set-up would upload them) */
    PetscCall(VecCUDAGetArrayWrite(v, &vd));
    PetscCall(PetscLogGpuTimeBegin());
    DiagCallCUDA(pdiag::cuda::hm_compressed_get_diagonal(MatDiagDev(A).cview, a->hm.find_diagonal(0), vd, PetscDefaultCudaStream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(VecCUDARestoreArrayWrite(v, &vd));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceValues_Private(A, &meta, &val));
  MainDiagonalRun(a, &pos, &row, &len);
  PetscCall(VecCUDAGetArrayWrite(v, &vd));
  if (a->layout.nrows) DiagCallCUDA(cudaMemsetAsync(vd, 0, (std::size_t)a->layout.nrows * sizeof(PetscScalar), PetscDefaultCudaStream));
  if (len) DiagCallCUDA(cudaMemcpyAsync(vd + row, val + pos, (std::size_t)len * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, PetscDefaultCudaStream));
  PetscCall(VecCUDARestoreArrayWrite(v, &vd));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagAXPYDevice_Private(Mat Y, PetscScalar alpha, Mat X, PetscBool *done)
{
  Mat_Diag          *y = (Mat_Diag *)Y->data, *x = (Mat_Diag *)X->data;
  const Index       *mx;
  const PetscScalar *vx;
  const Index        n = y->nstored();

  PetscFunctionBegin;
  const bool same = x->scheme == y->scheme && x->layout == y->layout &&
                    (y->scheme == pdiag::Scheme::HM ? x->hm.offsets == y->hm.offsets : x->cdm.koffsets == y->cdm.koffsets);
  PetscCall(DeviceOpsAgree(Y, (same && DeviceOpsLocal(Y) && DeviceOpsLocal(X)) ? PETSC_TRUE : PETSC_FALSE, done));
  if (!*done) PetscFunctionReturn(0);
  PetscCall(MatDiagDeviceValues_Private(X, &mx, &vx));
  PetscCall(RewriteDeviceValues(Y, 2.0 * (PetscLogDouble)n, [&](const Index *, PetscScalar *v) { return pdiag::cuda::axpy_values(v, alpha, vx, n, PetscDefaultCudaStream); }));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagDiagonalScaleDevice_Private(Mat A, Vec l, Vec r, PetscBool *done)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  DiagDevice        &d = MatDiagDev(A);
  const Index       *shift = NULL;
  const PetscScalar *ld = NULL, *rd = NULL;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCall(DeviceOpsAgree(A, (DeviceOpsLocal(A) && (!l || MatDiagUseDevice_Private(A, l)) && (!r || MatDiagUseDevice_Private(A, r))) ? PETSC_TRUE : PETSC_FALSE, done));
  if (!*done) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  /* under MPI r's entries that the rows reach are gathered as for
     MatMultTranspose and read through its shifts */
  Vec rsrc = r;
  if (r && size > 1) {
    PetscCall(VecScatterBegin(a->mpi.tr_scatter, r, d.tr_work, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(a->mpi.tr_scatter, r, d.tr_work, INSERT_VALUES, SCATTER_FORWARD));
    rsrc  = d.tr_work;
    shift = MatDiagDevShift(d, 3);
  }
  if (l) PetscCall(VecCUDAGetArrayRead(l, &ld));
  if (r) PetscCall(VecCUDAGetArrayRead(rsrc, &rd));
  PetscCall(RewriteDeviceValues(A, (PetscLogDouble)a->nstored() * ((l ? 1 : 0) + (r ? 1 : 0)), [&](const Index *meta, PetscScalar *v) {
    return a->scheme == pdiag::Scheme::HM ? pdiag::cuda::hm_diagonal_scale(DeviceHm(a, meta, v), ld, rd, shift, PetscDefaultCudaStream)
                                          : pdiag::cuda::cdm_diagonal_scale(DeviceCdm(a, meta, v), ld, rd, shift, PetscDefaultCudaStream);
  }));
  if (l) PetscCall(VecCUDARestoreArrayRead(l, &ld));
  if (r) PetscCall(VecCUDARestoreArrayRead(rsrc, &rd));
  PetscFunctionReturn(0);
}

/* rows: global rows (of any process), already checked to be in range; each
   process zeroes its own. A missing main diagonal that must hold diag is
   added on the host (a structure change). */
PetscErrorCode MatDiagZeroRowsDevice_Private(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag, Vec x, Vec b, PetscBool *done)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  DiagDevice &d = MatDiagDev(A);
  PetscInt    nloc, *lrows;

  PetscFunctionBegin;
  const bool has_main = (a->scheme == pdiag::Scheme::HM ? a->hm.find_diagonal(0) : a->cdm.find_diagonal(0)) >= 0;
  const bool vectors  = x && b;
  PetscCall(DeviceOpsAgree(A, (DeviceOpsLocal(A) && (has_main || diag == 0.0 || a->layout.length(0) == 0) && (!vectors || MatDiagUseDevice_Private(A, x, b))) ? PETSC_TRUE : PETSC_FALSE, done));
  if (!*done) PetscFunctionReturn(0);
  PetscCall(PetscLayoutMapLocal(A->rmap, n, rows, &nloc, &lrows, NULL)); /* collective: every process's rows reach their owner */
  /* one upload: the local rows (for x and b), then the same rows as global rows (for the kernels) */
  std::vector<Index> list((std::size_t)2 * nloc);
  for (PetscInt q = 0; q < nloc; q++) {
    list[q]        = lrows[q];
    list[nloc + q] = a->layout.row_begin + lrows[q];
  }
  PetscCall(PetscFree(lrows));
  PetscCall(DiagReserveDevice(&d.rows, &d.rows_cap, list.size()));
  if (nloc) DiagCallCUDA(cudaMemcpy(d.rows, list.data(), list.size() * sizeof(Index), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(list.size() * sizeof(Index))));
  const Index *local = d.rows, *global = d.rows + nloc;
  if (vectors) {
    const PetscScalar *xd;
    PetscScalar       *bd;
    PetscCall(VecCUDAGetArrayRead(x, &xd));
    PetscCall(VecCUDAGetArray(b, &bd));
    DiagCallCUDA(pdiag::cuda::set_scaled_entries(bd, xd, local, (Index)nloc, diag, PetscDefaultCudaStream));
    PetscCall(VecCUDARestoreArrayRead(x, &xd));
    PetscCall(VecCUDARestoreArray(b, &bd));
  }
  PetscCall(RewriteDeviceValues(A, 0.0, [&](const Index *meta, PetscScalar *v) {
    return a->scheme == pdiag::Scheme::HM ? pdiag::cuda::hm_zero_rows(DeviceHm(a, meta, v), global, (Index)nloc, diag, PetscDefaultCudaStream)
                                          : pdiag::cuda::cdm_zero_rows(DeviceCdm(a, meta, v), global, (Index)nloc, diag, PetscDefaultCudaStream);
  }));
  PetscFunctionReturn(0);
}
