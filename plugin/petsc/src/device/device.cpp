/* The GPU side of MATDIAG (built only against a CUDA-enabled PETSc).

   -mat_type diag computes where the vectors live: a product whose vectors
   are CUDA vectors runs the CUDA kernels of kernels/src on PETSc's default
   stream, others the CPU kernels. The host storage is the master copy: it is
   uploaded once after assembly (or any host change of values) and then kept,
   so a Krylov solve with CUDA vectors copies nothing per iteration. The
   diagcuda types (seqdiagcuda, mpidiagcuda) are the same matrices whose
   MatCreateVecs() hands out CUDA vectors. */
#include "core/mat_diag.hpp"

#include "device/device.hpp"

#include "pdiag/listed_cuda.hpp"
#include "pdiag/scatter_cuda.hpp"
#include "pdiag/spmv_cuda.hpp"
#include "pdiag/symmetric_cuda.hpp"

/* PETSc gives each process its GPU (rank % number of visible devices, or
   -device_select) when it initializes its CUDA device, which it does lazily,
   at its first CUDA object. diag may touch CUDA first (a diagcuda matrix
   uploaded at assembly end before any CUDA vector exists): without this,
   CUDA's runtime would make device 0 current and every process would put
   its matrix there. Also creates PETSc's default device context, which sets
   PetscDefaultCudaStream, the stream diag's kernels run on. Cheap once done. */
PetscErrorCode MatDiagDeviceInitialize_Private(void)
{
  PetscDeviceContext dctx;

  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscFunctionReturn(0);
}

/* First device use of A: the device set up by PETSc, and (-info) which
   device this process's part of A lives on, so a run with one process per
   GPU shows each on its own. */
static PetscErrorCode MatDiagDeviceSetUp(Mat A)
{
  PetscMPIInt rank, size;
  int         id, ndev;
  char        bus[64];

  PetscFunctionBegin;
  if (MatDiagDev(A).device >= 0) PetscFunctionReturn(0);
  PetscCall(MatDiagDeviceInitialize_Private());
  DiagCallCUDA(cudaGetDevice(&id));
  DiagCallCUDA(cudaGetDeviceCount(&ndev));
  DiagCallCUDA(cudaDeviceGetPCIBusId(bus, (int)sizeof(bus), id));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(PetscInfo(A, "diag: process %d of %d: rows on CUDA device %d of %d visible (PCI bus %s)\n", rank, size, id, ndev, bus));
  MatDiagDev(A).device = id;
  PetscFunctionReturn(0);
}

/* Frees the device copy and the device state (with the matrix). */
PetscErrorCode MatDiagDeviceDestroy_Private(Mat A)
{
  DiagDevice *dp = static_cast<DiagDevice *>(A->spptr);

  PetscFunctionBegin;
  if (!dp) PetscFunctionReturn(0);
  DiagDevice &d = *dp;
  MatDiagSORGraphDestroy_Private(&d.sor_graph); /* first: it holds addresses of the arrays freed below */
  for (void *p : {(void *)d.meta, (void *)d.val, (void *)d.cmeta, (void *)d.cval, (void *)d.coo_slot, (void *)d.rows, (void *)d.sor_rows, (void *)d.sor_diag}) {
    if (p) DiagCallCUDA(cudaFree(p));
  }
  d.sor_rows = nullptr;
  d.sor_diag = nullptr;
  d.sor_rows_cap = d.sor_diag_cap = 0;
  d.sor_state = d.sor_diag_state = -1;
  d.rows     = nullptr;
  d.rows_cap = 0;
  d.coo_slot  = nullptr;
  d.coo_cap   = 0;
  d.coo_state = -1;
  d.meta  = nullptr;
  d.val   = nullptr;
  d.cmeta = nullptr;
  d.cval  = nullptr;
  d.meta_cap = d.val_cap = d.cmeta_cap = d.cval_cap = 0;
  PetscCall(VecDestroy(&d.work));
  PetscCall(VecDestroy(&d.tr_work));
  MatDiagHaloDestroy_Private(&d.halo);
  delete dp;
  A->spptr       = nullptr;
  A->offloadmask = PETSC_OFFLOAD_UNALLOCATED;
  PetscFunctionReturn(0);
}

/* The ghost layout changed (ops/mult.cpp): its device work vectors and the
   halo plan made for it go; the shifts are uploaded again. */
PetscErrorCode MatDiagDeviceGhostReset_Private(Mat A)
{
  PetscFunctionBegin;
  if (!A->spptr) PetscFunctionReturn(0); /* the device state went first (MatDestroy) */
  DiagDevice &d = MatDiagDev(A);
  PetscCall(VecDestroy(&d.work));
  PetscCall(VecDestroy(&d.tr_work));
  MatDiagHaloDestroy_Private(&d.halo);
  d.halo_decided = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Bytes of A's device storage on this process. */
PetscErrorCode MatDiagDeviceBytes_Private(Mat A, double *bytes)
{
  PetscFunctionBegin;
  *bytes = 0;
  if (!A->spptr) PetscFunctionReturn(0);
  const DiagDevice &d = MatDiagDev(A);
  *bytes = (double)((d.val_cap + d.cval_cap) * sizeof(PetscScalar) + (d.meta_cap + d.cmeta_cap) * sizeof(Index));
  PetscFunctionReturn(0);
}

/* The host values changed: a device copy, if any, is stale. */
void MatDiagDeviceValuesChanged_Private(Mat A)
{
  if (A->offloadmask != PETSC_OFFLOAD_UNALLOCATED) A->offloadmask = PETSC_OFFLOAD_CPU;
}

/* Uploads the compressed form of an HM block (constant diagonals as one
   value, their exceptions by row) if it is smaller than the values. */
static PetscErrorCode MatDiagDeviceUploadCompressed(Mat A, PetscBool *used)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  DiagDevice &d = MatDiagDev(A);

  PetscFunctionBegin;
  *used = PETSC_FALSE;
  /* the compressed form covers every diagonal, the product's split only some: its passes and listed entries read the full values */
  if (d.split) PetscFunctionReturn(0);
  pdiag::HmCompressed<PetscScalar> c;
  bool                             candidate = false;
  PetscCall(PetscLogEventBegin(MATDIAG_Compress, 0, 0, 0, 0));
  /* the sampled test first: a block no diagonal of which could pay (a
     product's values) skips the passes over its values; then the form is
     built only if it is smaller (a variable coefficient's block, whose
     sample may show a majority by chance, is not copied to be dropped) */
  DiagCallKernel(candidate = pdiag::hm_compress_candidate(a->hm));
  bool smaller = false;
  if (candidate) DiagCallKernel(smaller = pdiag::hm_compress_if_smaller(a->hm, c));
  PetscCall(PetscLogEventEnd(MATDIAG_Compress, 0, 0, 0, 0));
  if (!smaller) PetscFunctionReturn(0);
  std::vector<Index> meta;
  for (const std::vector<Index> *v : {&c.offsets, &c.vbase, &c.exc_rows, &c.exc_ptr, &c.exc_diag}) meta.insert(meta.end(), v->begin(), v->end());
  std::vector<PetscScalar> vals;
  for (const std::vector<PetscScalar> *v : {&c.cval, &c.packed, &c.exc_delta}) vals.insert(vals.end(), v->begin(), v->end());
  PetscCall(DiagReserveDevice(&d.cmeta, &d.cmeta_cap, meta.size()));
  PetscCall(DiagReserveDevice(&d.cval, &d.cval_cap, vals.size()));
  if (!meta.empty()) DiagCallCUDA(cudaMemcpy(d.cmeta, meta.data(), meta.size() * sizeof(Index), cudaMemcpyHostToDevice));
  if (!vals.empty()) DiagCallCUDA(cudaMemcpy(d.cval, vals.data(), vals.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(meta.size() * sizeof(Index) + vals.size() * sizeof(PetscScalar))));
  const Index nd = c.ndiag(), nr = c.nrows_exc(), ne = c.nexceptions();
  pdiag::HmCompressedView<PetscScalar> v;
  v.layout    = c.layout;
  v.ndiag     = nd;
  v.offsets   = d.cmeta;
  v.vbase     = d.cmeta + nd;
  v.exc_rows  = d.cmeta + 2 * nd;
  v.exc_ptr   = d.cmeta + 2 * nd + nr;
  v.exc_diag  = d.cmeta + 2 * nd + 2 * nr + 1;
  v.cval      = d.cval;
  v.packed    = d.cval + nd;
  v.npacked   = (Index)c.packed.size();
  v.exc_delta = d.cval + nd + c.packed.size();
  v.nrows_exc = nr;
  (void)ne;
  d.cview = v;
  *used   = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* A matrix whose full values were just computed on the device (a Galerkin
   product's result, device/galerkin.cpp) gets what an upload would
   have given it: its host copy brought back (the next coarser product
   reads it anyway) and, with -mat_diag_compress_constant, the compressed
   form of its constant diagonals on the device when that is smaller, which
   its products then read (a constant-coefficient operator's coarse levels
   read a few values instead of 27 diagonals); the full device values stay. */
PetscErrorCode MatDiagDeviceCompressComputed_Private(Mat A)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  DiagDevice &d = MatDiagDev(A);
  PetscBool   used;

  PetscFunctionBegin;
  if (!d.hm || !a->opt.compress_constant || a->scheme != pdiag::Scheme::HM) PetscFunctionReturn(0);
  PetscCall(MatDiagSyncHost_Private(A));
  PetscCall(MatDiagDeviceUploadCompressed(A, &used));
  d.compressed = used ? true : false;
  PetscFunctionReturn(0);
}

/* A product computed on the GPU leaves its result's host values
   unallocated (host_deferred) until a host operation needs them: then they
   are allocated here (zeros; the caller downloads if the device has them). */
PetscErrorCode MatDiagHostValuesEnsure_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (!a->host_deferred) PetscFunctionReturn(0);
  PetscCheck(a->scheme == pdiag::Scheme::HM, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: deferred host values of a CDM matrix");
  PetscCallCXX(a->hm.val.assign((std::size_t)a->hm.nstored(), 0.0));
  a->host_deferred = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Whether v's values live on the GPU: a CUDA vector not bound to the CPU.
   PETSc's VecCUDAGetArray* do not check the type, so every device path asks
   this of each vector it touches. */
PetscBool MatDiagVecOnDeviceCUDA_Private(Vec v)
{
  PetscBool cuda = PETSC_FALSE, bound = PETSC_FALSE;
  if (PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, "")) return PETSC_FALSE;
  if (!cuda || VecBoundToCPU(v, &bound)) return PETSC_FALSE;
  return bound ? PETSC_FALSE : PETSC_TRUE;
}

/* Whether an operation of A with these vectors (y, z: none if null) runs
   on the GPU: A not bound to the CPU and every vector on the device. A host
   vector among them (PCREDISTRIBUTE's reduced vectors beside the CUDA work
   vectors of its operator's type: ksp ex84) keeps the operation on the
   host, whose array access moves each vector's values where they are
   needed; on the device a host vector would be written through a device
   array that its host reads never see. */
PetscBool MatDiagUseDeviceCUDA_Private(Mat A, Vec x, Vec y, Vec z)
{
  if (A->boundtocpu) return PETSC_FALSE;
  for (Vec v : {x, y, z})
    if (v && !MatDiagVecOnDeviceCUDA_Private(v)) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The full values on the device (always for CDM and uncompressed HM; for
   compressed HM only once a transpose needs them), the listed entries'
   (Mat_Diag::remote) after the diagonals', where the product's list finds
   them (pdiag::listed_with_remote). */
static PetscErrorCode MatDiagDeviceUploadValues(Mat A)
{
  Mat_Diag         *a       = (Mat_Diag *)A->data;
  DiagDevice       &d       = MatDiagDev(A);
  const std::size_t nval    = (std::size_t)a->nstored();
  const std::size_t nlisted = (std::size_t)a->remote.size();

  PetscFunctionBegin;
  PetscCall(DiagReserveDevice(&d.val, &d.val_cap, nval + nlisted));
  if (nval) DiagCallCUDA(cudaMemcpy(d.val, a->values(), nval * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  if (nlisted) DiagCallCUDA(cudaMemcpy(d.val + nval, a->remote.val.data(), nlisted * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)((nval + nlisted) * sizeof(PetscScalar))));
  d.full_values = true;
  PetscFunctionReturn(0);
}

/* Copies the diagonal metadata and shifts to the device. Layout in one
   Index array: offsets (or compact offsets) | starts (HM) | shift_local |
   shift_lo | shift_hi | tr_shift (nslot each: the passes' shifts are
   padded), and when the product's split is active the passes' offsets |
   starts and the listed entries' rows | ptr | pos | cols. */
static PetscErrorCode MatDiagDeviceUploadMeta(Mat A)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  DiagDevice &d = MatDiagDev(A);
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  const bool                hm    = a->scheme == pdiag::Scheme::HM;
  const std::vector<Index> &offs  = hm ? a->hm.offsets : a->cdm.koffsets;
  const std::size_t         nd    = offs.size();
  const std::size_t         nslot = std::max(a->mpi.shift_local.size(), a->mpi.tr_shift.size());
  std::vector<Index>        meta;
  meta.insert(meta.end(), offs.begin(), offs.end());
  if (hm) meta.insert(meta.end(), a->hm.start.begin(), a->hm.start.end());
  for (const std::vector<Index> *s : {&a->mpi.shift_local, &a->mpi.ghost.shift_lo, &a->mpi.ghost.shift_hi, &a->mpi.tr_shift}) {
    std::vector<Index> padded(*s);
    padded.resize(nslot, 0);
    meta.insert(meta.end(), padded.begin(), padded.end());
  }
  d.split     = hm && a->mpi.split_active;
  d.pass_meta = (Index)meta.size();
  if (d.split) {
    const pdiag::ListedEntries &l = a->mpi.listed;
    const std::vector<Index> *blocks[] = {&a->mpi.pass_offsets, &a->mpi.pass_start, &l.rows, &l.ptr, &l.pos, &l.cols};
    for (const std::vector<Index> *v : blocks) meta.insert(meta.end(), v->begin(), v->end());
    d.npass        = (Index)a->mpi.pass_offsets.size();
    d.nlisted_rows = (Index)l.rows.size();
    d.nlisted      = l.size();
  }
  const std::size_t nmeta = meta.size();
  PetscCall(DiagReserveDevice(&d.meta, &d.meta_cap, nmeta));
  if (nmeta) DiagCallCUDA(cudaMemcpy(d.meta, meta.data(), nmeta * sizeof(Index), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(nmeta * sizeof(Index))));
  d.nd    = (Index)nd;
  d.nslot = (Index)nslot;
  d.hm    = hm;
  /* ghost work vectors on the device, with the layouts of the host ones */
  if (size > 1 && !d.work) {
    PetscInt nw, nt;
    PetscCall(VecGetLocalSize(a->mpi.ghost.work, &nw));
    PetscCall(VecGetLocalSize(a->mpi.tr_work, &nt));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, nw, &d.work));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, nt, &d.tr_work));
  }
  PetscFunctionReturn(0);
}

/* Copies values (compressed where constant diagonals pay off), metadata
   and shifts to the device when the host copy is newer. */
static PetscErrorCode MatDiagDeviceUpload(Mat A)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  DiagDevice &d = MatDiagDev(A);

  PetscFunctionBegin;
  if (!a->mpi.ghost_valid) PetscCall(MatDiagGhostSetUp_Private(A)); /* collective; marks the device copy stale */
  if (A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH) PetscFunctionReturn(0);
  PetscCall(MatDiagDeviceSetUp(A));
  PetscCall(MatDiagHostValuesEnsure_Private(A));
  PetscCall(PetscLogEventBegin(MATDIAG_CopyToGPU, A, 0, 0, 0));
  PetscCall(MatDiagDeviceUploadMeta(A));
  PetscBool compressed = PETSC_FALSE;
  if (d.hm && a->opt.compress_constant) PetscCall(MatDiagDeviceUploadCompressed(A, &compressed));
  d.compressed  = compressed;
  d.full_values = false;
  if (!compressed) PetscCall(MatDiagDeviceUploadValues(A));
  PetscCall(PetscLogEventEnd(MATDIAG_CopyToGPU, A, 0, 0, 0));
  A->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(0);
}

/* Whether A's values should live on the device: a diagcuda type, or a diag
   matrix whose default vectors are CUDA vectors (-dm_vec_type cuda), not
   bound to the CPU. */
PetscBool MatDiagWantsDeviceCUDA_Private(Mat A)
{
  PetscBool cuda = PETSC_FALSE;

  if (A->boundtocpu || !A->defaultvectype) return PETSC_FALSE;
  if (PetscStrncmp(A->defaultvectype, VECCUDA, 4, &cuda)) return PETSC_FALSE;
  return cuda;
}

/* At MAT_FINAL_ASSEMBLY of a matrix headed for the GPU (docs/design.md, "Where values live": values are
   copied once at assembly end): detect constant diagonals and upload now,
   so the first product of a solve does not pay for it. */
PetscErrorCode MatDiagDeviceAssemblyEnd_Private(Mat A)
{
  PetscFunctionBegin;
  if (MatDiagWantsDeviceCUDA_Private(A)) PetscCall(MatDiagDeviceUpload(A));
  PetscFunctionReturn(0);
}

/* The device values are newer than the host's (a product computed on the
   GPU): copy them back before any host access. */
PetscErrorCode MatDiagSyncHost_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatDiagSyncHostData_Private(A));
  PetscCall(MatDiagHostValuesEnsure_Private(A));
  PetscFunctionReturn(0);
}

/* The same, without allocating deferred host values that nothing needs yet
   (for the ghost set-up, which only must not lose device values). */
PetscErrorCode MatDiagSyncHostData_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (A->offloadmask != PETSC_OFFLOAD_GPU) PetscFunctionReturn(0); /* also once the device state is gone: UNALLOCATED */
  DiagDevice &d = MatDiagDev(A);
  PetscCall(MatDiagHostValuesEnsure_Private(A));
  PetscCheck(d.full_values && !d.compressed, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: device values newer than the host's but not in full form");
  const std::size_t nval = (std::size_t)a->nstored(), nlisted = (std::size_t)a->remote.size();
  if (nval) DiagCallCUDA(cudaMemcpy(a->values(), d.val, nval * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  if (nlisted) DiagCallCUDA(cudaMemcpy(a->remote.val.data(), d.val + nval, nlisted * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)((nval + nlisted) * sizeof(PetscScalar))));
  A->offloadmask = PETSC_OFFLOAD_BOTH;
  PetscFunctionReturn(0);
}

/* Whether A's data is on (or headed for) the device: products with it run
   there. */
PetscBool MatDiagOnDeviceCUDA_Private(Mat A)
{

  if (A->boundtocpu) return PETSC_FALSE;
  return (MatDiagWantsDeviceCUDA_Private(A) || A->offloadmask == PETSC_OFFLOAD_GPU || A->offloadmask == PETSC_OFFLOAD_BOTH) ? PETSC_TRUE : PETSC_FALSE;
}

/* A's full values on the device (uploaded if needed), in A's scheme, with
   its metadata: offsets (CDM: compact offsets) at meta, HM starts at
   meta + ndiag. */
PetscErrorCode MatDiagDeviceValues_Private(Mat A, const Index **meta, const PetscScalar **val)
{

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceUpload(A));
  if (!MatDiagDev(A).full_values) PetscCall(MatDiagDeviceUploadValues(A));
  *meta = MatDiagDev(A).meta;
  *val  = MatDiagDev(A).val;
  PetscFunctionReturn(0);
}

/* A's device copy as the device holds it: its compressed form (constant
   diagonals with exceptions, *compressed true, *cview) when that is all it
   holds, which a kernel that reads entries one by one can read as it is
   (the full values of a constant-coefficient operator at 257^3 are 950 MB
   to upload); otherwise its full values, as MatDiagDeviceValues_Private. */
PetscErrorCode MatDiagDeviceEntries_Private(Mat A, PetscBool *compressed, pdiag::HmCompressedView<PetscScalar> *cview, const Index **meta, const PetscScalar **val)
{

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceUpload(A));
  *compressed = (MatDiagDev(A).compressed && !MatDiagDev(A).full_values) ? PETSC_TRUE : PETSC_FALSE;
  if (*compressed) {
    *cview = MatDiagDev(A).cview;
    *meta  = MatDiagDev(A).meta;
    *val   = nullptr;
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceValues_Private(A, meta, val));
  PetscFunctionReturn(0);
}

/* C's device storage for values about to be computed there: the metadata
   uploaded (as for MatDiagDeviceValues_Private), room for the values; the
   caller writes all of them into *val, then calls
   MatDiagDeviceValuesWritten_Private. */
PetscErrorCode MatDiagDeviceOutput_Private(Mat C, const Index **meta, PetscScalar **val)
{
  Mat_Diag   *c = (Mat_Diag *)C->data;
  DiagDevice &d = MatDiagDev(C);

  PetscFunctionBegin;
  if (!c->mpi.ghost_valid) PetscCall(MatDiagGhostSetUp_Private(C));
  PetscCall(MatDiagDeviceSetUp(C));
  if (C->offloadmask == PETSC_OFFLOAD_UNALLOCATED || C->offloadmask == PETSC_OFFLOAD_CPU) PetscCall(MatDiagDeviceUploadMeta(C));
  PetscCall(DiagReserveDevice(&d.val, &d.val_cap, (std::size_t)c->nstored()));
  *meta = d.meta;
  *val  = d.val;
  PetscFunctionReturn(0);
}

/* MatSetValuesCOO with values in device memory: the slot map (computed on
   the host by MatSetPreallocationCOO's first use) is copied to the device
   once, then each call scatters the values into the device copy of the
   full values (zeroed first for INSERT_VALUES) with one kernel, and the
   device copy becomes the newest: the values never pass through the host.
   *done is false when every process passes host memory (the caller's host
   path runs). When some process has entries of other processes' rows, or
   host values while others have device values, every process takes the
   host path (device values copied to the host first). */
PetscErrorCode MatDiagSetValuesCOODevice_Private(Mat A, const PetscScalar v[], InsertMode mode, PetscBool *done)
{
  Mat_Diag    *a = (Mat_Diag *)A->data;
  DiagDevice  &d = MatDiagDev(A);
  PetscMemType mtype = PETSC_MEMTYPE_HOST;
  PetscMPIInt  size;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (a->assembly.coo_state != A->nonzerostate) PetscCall(MatDiagCOOSlots_Private(A));
  const std::size_t n = a->assembly.coo_slot.size();
  if (v && n) PetscCall(PetscGetMemType(v, &mtype));
  const PetscBool on_device = PetscMemTypeDevice(mtype) ? PETSC_TRUE : PETSC_FALSE;
  /* [0]: some process has values in host memory or entries of other
     processes' rows (they go through the host path, whose MatSetValues and
     MatAssembly send them); [1]: some process has device values. Under MPI
     every process takes the same path: the device path may set up the
     ghost exchange (collective) and the host path sends entries. */
  PetscInt need[2] = {(n && !on_device) || a->assembly.coo_remote ? 1 : 0, on_device ? 1 : 0};
  if (size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, need, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  if (!need[1]) PetscFunctionReturn(0); /* host values everywhere: the caller's host path */
  if (need[0]) {
    std::vector<PetscScalar> host(on_device ? n : 0);
    if (on_device) DiagCallCUDA(cudaMemcpy(host.data(), v, n * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(host.size() * sizeof(PetscScalar))));
    PetscCall(MatDiagSetValuesCOOHost_Private(A, on_device ? host.data() : v, mode));
    *done = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceSetUp(A));
  if (d.coo_state != a->assembly.coo_state || !d.coo_slot) {
    PetscCall(DiagReserveDevice(&d.coo_slot, &d.coo_cap, n));
    if (n) DiagCallCUDA(cudaMemcpy(d.coo_slot, a->assembly.coo_slot.data(), n * sizeof(Index), cudaMemcpyHostToDevice));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(n * sizeof(Index))));
    d.coo_state = a->assembly.coo_state;
  }
  const Index       *meta;
  const PetscScalar *cur;
  PetscScalar       *val;
  const std::size_t  nval = (std::size_t)a->nstored();
  if (mode == INSERT_VALUES) {
    PetscCall(MatDiagDeviceOutput_Private(A, &meta, &val));
    if (nval) DiagCallCUDA(cudaMemsetAsync(val, 0, nval * sizeof(PetscScalar), PetscDefaultCudaStream));
  } else {
    PetscCall(MatDiagDeviceValues_Private(A, &meta, &cur));
    val = const_cast<PetscScalar *>(cur); /* the matrix's own device buffer */
  }
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(pdiag::cuda::scatter_add(val, d.coo_slot, v, (Index)n, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)n));
  PetscCall(MatDiagDeviceValuesWritten_Private(A));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The device values of C (full form) are now the newest copy. */
PetscErrorCode MatDiagDeviceValuesWritten_Private(Mat C)
{

  PetscFunctionBegin;
  MatDiagDev(C).compressed  = false;
  MatDiagDev(C).full_values = true;
  C->offloadmask              = PETSC_OFFLOAD_GPU;
  PetscFunctionReturn(0);
}


/* y = A x (+ z) on local rows [lo, hi) on the GPU, x reached through shift
   block `which`; subtract: y = z - A x (HM values on the device, full or
   compressed, only: the callers check). */
static PetscErrorCode DeviceSpMV(Mat A, const PetscScalar *x, PetscScalar *y, const PetscScalar *z, int which, Index lo, Index hi, bool subtract = false)
{
  const Mat_Diag   *a = (const Mat_Diag *)A->data;
  const DiagDevice &d = MatDiagDev(A);

  PetscFunctionBegin;
  if (lo >= hi) PetscFunctionReturn(0);
  PetscCheck(!subtract || d.hm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: the fused residual needs HM values on the device");
  if (d.compressed) {
    if (subtract) DiagCallCUDA(pdiag::cuda::hm_compressed_residual(d.cview, x, z, y, MatDiagDevShift(d, which), lo, hi, PetscDefaultCudaStream));
    else DiagCallCUDA(pdiag::cuda::hm_compressed_spmv(d.cview, x, y, z, MatDiagDevShift(d, which), lo, hi, PetscDefaultCudaStream));
  } else if (d.hm) {
    const pdiag::HmView<const PetscScalar> v{a->layout, MatDiagDevPassCount(d), MatDiagDevPassOffsets(d), MatDiagDevPassStart(d), d.val};
    if (subtract) DiagCallCUDA(pdiag::cuda::hm_residual(v, x, z, y, MatDiagDevShift(d, which), lo, hi, PetscDefaultCudaStream));
    else DiagCallCUDA(pdiag::cuda::hm_spmv(v, x, y, z, MatDiagDevShift(d, which), lo, hi, PetscDefaultCudaStream));
  } else {
    const pdiag::CdmView<const PetscScalar> v{a->layout, d.nd, MatDiagDevOffsets(d), d.val};
    DiagCallCUDA(pdiag::cuda::cdm_spmv(v, x, y, z, MatDiagDevShift(d, which), lo, hi, PetscDefaultCudaStream));
  }
  PetscFunctionReturn(0);
}

/* Whether the values S points at on the device are symmetric to within
   rtol (pdiag::symmetric_pair; 0: to the bit): one kernel over the pairs,
   one word back (the stream synchronized). */
PetscErrorCode MatDiagDeviceValuesSymmetric_Private(const pdiag::SymmetricHmView<PetscScalar> &S, PetscReal rtol, PetscBool *symmetric)
{
  int *mismatch, host = 0;

  PetscFunctionBegin;
  DiagCallCUDA(cudaMallocAsync((void **)&mismatch, sizeof(int), PetscDefaultCudaStream));
  DiagCallCUDA(cudaMemsetAsync(mismatch, 0, sizeof(int), PetscDefaultCudaStream));
  DiagCallCUDA(pdiag::cuda::hm_values_symmetric(S, (PetscReal)rtol, mismatch, PetscDefaultCudaStream));
  DiagCallCUDA(cudaMemcpyAsync(&host, mismatch, sizeof(int), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
  DiagCallCUDA(cudaFreeAsync(mismatch, PetscDefaultCudaStream));
  DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
  *symmetric = host ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Whether A's device product may read its values through the main and
   upper diagonals (*S): one process, the full HM values on the device (the
   compressed form reads less already), offsets 0 and +-d pairs, and every
   lower value equal to its upper partner to the bit. The values are checked
   on the device (one read of the paired diagonals, one word back) once per
   state of the matrix; a product then moves 4 of a 7-point operator's 7
   diagonals. Rounding: a row sums its terms in another order than hm_spmv. */
static PetscErrorCode DeviceSymmetricView(Mat A, pdiag::SymmetricHmView<PetscScalar> *S, PetscBool *yes)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  DiagDevice      &d = MatDiagDev(A);
  PetscMPIInt      size;
  PetscObjectState state;

  PetscFunctionBegin;
  *yes = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (!a->opt.symmetric_product || size > 1 || !d.hm || d.compressed || !d.val || a->scheme != pdiag::Scheme::HM) PetscFunctionReturn(0);
  const pdiag::HmView<const PetscScalar> view{a->layout, a->hm.ndiag(), a->hm.offsets.data(), a->hm.start.data(), d.val};
  if (!pdiag::symmetric_hm_view(view, S)) PetscFunctionReturn(0);
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (state != d.sym_state || d.val != d.sym_val) {
    PetscBool symmetric;
    PetscCall(MatDiagDeviceValuesSymmetric_Private(*S, 0, &symmetric));
    d.sym_state = state, d.sym_val = d.val, d.sym_values = symmetric == PETSC_TRUE;
    if (d.sym_values) PetscCall(PetscInfo(A, "symmetric values: the device MatMult and MatResidual read the main and %d upper diagonals\n", S->npairs));
  }
  *yes = d.sym_values ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* MatDiagGhostExchange() with CUDA vectors: the exchange of the device MatMult alone */
PetscErrorCode MatDiagGhostExchangeDevice_Private(Mat A, Vec x)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const PetscScalar *xd;
  PetscScalar       *wd;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceUpload(A)); /* the device work vector */
  if (!MatDiagDev(A).halo_decided) PetscCall(MatDiagHaloSetUp_Private(A));
  if (!MatDiagDev(A).halo) {
    PetscCall(VecScatterBegin(a->mpi.ghost.scatter, x, MatDiagDev(A).work, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(a->mpi.ghost.scatter, x, MatDiagDev(A).work, INSERT_VALUES, SCATTER_FORWARD));
    PetscFunctionReturn(0);
  }
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(MatDiagDev(A).work, &wd));
  PetscCall(MatDiagHaloBegin_Private(A, xd, wd));
  PetscCall(MatDiagHaloEnd_Private(A, wd));
  PetscCall(VecCUDARestoreArrayWrite(MatDiagDev(A).work, &wd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  PetscFunctionReturn(0);
}

/* y = A x (+ z), or with subtract y = z - A x (z required), on the device;
   A uploaded by the caller. */
static PetscErrorCode DeviceProduct(Mat A, Vec x, Vec z, Vec y, bool subtract)
{
  Mat_Diag                            *a = (Mat_Diag *)A->data;
  const PetscScalar                   *xd, *zd = NULL, *wd;
  PetscScalar                         *yd;
  PetscMPIInt                          size;
  pdiag::SymmetricHmView<PetscScalar> S;
  PetscBool                            symmetric;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(DeviceSymmetricView(A, &S, &symmetric)); /* one process only: its interior [ib, ie) is every row */
  if (size > 1 && !MatDiagDev(A).halo_decided) PetscCall(MatDiagHaloSetUp_Private(A)); /* collective, once per ghost layout */
  const PetscBool pinned = (PetscBool)(size > 1 && MatDiagDev(A).halo);
  if (size > 1 && !pinned) PetscCall(VecScatterBegin(a->mpi.ghost.scatter, x, MatDiagDev(A).work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscScalar *ww = NULL; /* the work vector's device array (pinned exchange) */
  if (pinned) {
    PetscCall(VecCUDAGetArrayWrite(MatDiagDev(A).work, &ww));
    PetscCall(MatDiagHaloBegin_Private(A, xd, ww));
  }
  if (z && z != y) PetscCall(VecCUDAGetArrayRead(z, &zd));
  if (z == y) PetscCall(VecCUDAGetArray(y, &yd));
  else PetscCall(VecCUDAGetArrayWrite(y, &yd));
  if (z == y) zd = yd;
  if (symmetric) {
    PetscCall(PetscLogEventBegin(MATDIAG_SymmetricMult, A, x, y, 0));
    PetscCall(PetscLogGpuTimeBegin());
    DiagCallCUDA(pdiag::cuda::hm_spmv_symmetric(S, xd, yd, subtract ? PetscScalar(-1) : PetscScalar(1), zd, PetscDefaultCudaStream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogEventEnd(MATDIAG_SymmetricMult, A, x, y, 0));
  } else {
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(DeviceSpMV(A, xd, yd, zd, 0, a->mpi.ib, a->mpi.ie, subtract));
    PetscCall(PetscLogGpuTimeEnd());
  }
  if (size > 1) {
    if (pinned) {
      PetscCall(MatDiagHaloEnd_Private(A, ww)); /* x's device array is read until here */
      wd = ww;
    } else {
      PetscCall(VecScatterEnd(a->mpi.ghost.scatter, x, MatDiagDev(A).work, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecCUDAGetArrayRead(MatDiagDev(A).work, &wd));
    }
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(DeviceSpMV(A, wd, yd, zd, 1, 0, a->mpi.ib, subtract));
    PetscCall(DeviceSpMV(A, wd, yd, zd, 2, a->mpi.ie, a->layout.nrows, subtract));
    if (MatDiagDev(A).split) DiagCallCUDA(pdiag::cuda::listed_spmv_add(MatDiagDev(A).nlisted_rows, MatDiagDevListed(MatDiagDev(A), 0), MatDiagDevListed(MatDiagDev(A), 1), MatDiagDevListed(MatDiagDev(A), 2), MatDiagDevListed(MatDiagDev(A), 3), MatDiagDev(A).val, wd, yd, subtract ? PetscScalar(-1) : PetscScalar(1), PetscDefaultCudaStream));
    PetscCall(PetscLogGpuTimeEnd());
    if (pinned) PetscCall(VecCUDARestoreArrayWrite(MatDiagDev(A).work, &ww));
    else PetscCall(VecCUDARestoreArrayRead(MatDiagDev(A).work, &wd));
  }
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  if (z && z != y) PetscCall(VecCUDARestoreArrayRead(z, &zd));
  if (z == y) PetscCall(VecCUDARestoreArray(y, &yd));
  else PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)a->mpi.pass_entries));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMultKernel_DiagCUDA(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatDiagDeviceUpload(A));
  PetscCall(DeviceProduct(A, x, z, y, false));
  PetscFunctionReturn(0);
}

/* MatResidual r = b - A x in one pass over the vectors (A x is not
   written), when A's device values are HM's (full or compressed); *done
   false otherwise (CDM): the caller computes A x, then b - A x. */
PetscErrorCode MatResidual_DiagCUDA(Mat A, Vec b, Vec x, Vec r, PetscBool *done)
{

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceUpload(A));
  *done = MatDiagDev(A).hm ? PETSC_TRUE : PETSC_FALSE;
  if (*done) PetscCall(DeviceProduct(A, x, b, r, true));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMultTransposeKernel_DiagCUDA(Mat A, Vec x, Vec z, Vec y)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const DiagDevice  &d = MatDiagDev(A);
  const PetscScalar *xd, *zd = NULL;
  PetscScalar       *yd;
  PetscMPIInt        size;
  Index              ny;
  Vec                out;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatDiagDeviceUpload(A));
  if (!MatDiagDev(A).full_values) PetscCall(MatDiagDeviceUploadValues(A));
  /* sequentially the product lands in y (and reads z); under MPI in the work vector */
  out = size > 1 ? d.tr_work : y;
  {
    PetscInt n;
    PetscCall(VecGetLocalSize(out, &n));
    ny = n;
  }
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  if (size == 1 && z && z != y) PetscCall(VecCUDAGetArrayRead(z, &zd));
  if (size == 1 && z == y) PetscCall(VecCUDAGetArray(y, &yd));
  else PetscCall(VecCUDAGetArrayWrite(out, &yd));
  if (size == 1 && z == y) zd = yd;
  const Index *shift = size > 1 ? MatDiagDevShift(d, 3) : NULL;
  PetscCall(PetscLogGpuTimeBegin());
  if (d.hm) {
    const pdiag::HmView<const PetscScalar> v{a->layout, d.nd, MatDiagDevOffsets(d), MatDiagDevStart(d), d.val};
    DiagCallCUDA(pdiag::cuda::hm_spmv_t(v, xd, yd, ny, zd, shift, PetscDefaultCudaStream));
  } else {
    const pdiag::CdmView<const PetscScalar> v{a->layout, d.nd, MatDiagDevOffsets(d), d.val};
    DiagCallCUDA(pdiag::cuda::cdm_spmv_t(v, xd, yd, ny, zd, shift, PetscDefaultCudaStream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  if (size == 1 && z && z != y) PetscCall(VecCUDARestoreArrayRead(z, &zd));
  if (size == 1 && z == y) PetscCall(VecCUDARestoreArray(y, &yd));
  else PetscCall(VecCUDARestoreArrayWrite(out, &yd));
  if (size > 1) {
    if (z) {
      if (z != y) PetscCall(VecCopy(z, y));
    } else PetscCall(VecSet(y, 0.0));
    PetscCall(VecScatterBegin(a->mpi.tr_scatter, d.tr_work, y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(a->mpi.tr_scatter, d.tr_work, y, ADD_VALUES, SCATTER_REVERSE));
  }
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)a->nstored()));
  PetscFunctionReturn(0);
}

/* MatBindToCPU: products then run on the host whatever the vectors. */
static PetscErrorCode MatBindToCPU_Diag(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  A->boundtocpu = flg;
  PetscFunctionReturn(0);
}

/* Device set-up of a new matrix: products may use the GPU; diagcuda types
   also hand out CUDA vectors. */
PetscErrorCode MatDiagDeviceCreate_Private(Mat A, PetscBool cuda_vectors)
{
  PetscFunctionBegin;
  PetscCallCXX(A->spptr = new DiagDevice());
  A->offloadmask     = PETSC_OFFLOAD_UNALLOCATED;
  A->boundtocpu      = PETSC_FALSE;
  A->ops->bindtocpu  = MatBindToCPU_Diag;
  if (cuda_vectors) {
    PetscCall(MatDiagDeviceInitialize_Private()); /* as aijcusparse's creation: PETSc picks the device now */
    PetscCall(PetscFree(A->defaultvectype));
    PetscCall(PetscStrallocpy(VECCUDA, &A->defaultvectype));
  }
  PetscFunctionReturn(0);
}
