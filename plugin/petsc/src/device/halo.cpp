/* The ghost exchange of the device MatMult under MPI, staged through pinned
   host memory (CUDA builds).

   With an MPI that is not CUDA-aware, PETSc's VecScatter of CUDA vectors
   stages the packed ghosts through pageable host buffers on the product's
   stream: the copy out is waited for before the interior rows' kernel is
   launched, the copy back queues behind that kernel, and both run at
   pageable speed, so the exchange can take longer than the interior
   product it should hide behind. A diag matrix's ghost columns are few
   contiguous column intervals (the neighbour planes of a stencil), each a
   contiguous slice of its owner's x: they are copied straight from x's
   device array into pinned host memory on a stream of their own while the
   interior rows run on PETSc's stream, sent with MPI, and copied into the
   work vector (with the owned columns the boundary rows read), which the
   boundary rows then read.

   Used when PETSc does not pass device pointers to MPI (use_gpu_aware_mpi
   false, as with this OpenMPI) and the exchange has at most kMaxRuns runs
   on every process (else PETSc's VecScatter, which packs any index set);
   -mat_diag_pinned_halo false keeps PETSc's VecScatter. The decision is
   collective: every process takes the same path. */
#include "core/mat_diag.hpp"

#include "device/device.hpp"

#include <petsc/private/sfimpl.h>

namespace {

/* beyond this many contiguous runs a process sends or receives, one copy
   per run costs more than PETSc's packing kernel and single copy */
constexpr std::size_t kMaxRuns = 64;

} // namespace

/* One process's plan and buffers. Runs are in the order of global columns,
   so what one process sends another is one contiguous range of the send
   buffer, and what it receives from one process one contiguous range of
   the work vector (the receive buffer has the work vector's layout; the
   owned columns among them are copied on the device). */
struct DiagHalo {
  struct Run {
    Index local_begin, count, offset; /* owned x [local_begin, +count) -> send buffer [offset, +count) */
  };
  struct Peer {
    PetscMPIInt rank;
    Index       offset, count; /* in the send (or receive) buffer */
  };
  std::vector<Run>         send_runs;
  std::vector<Run>         local_runs; /* owned x -> work vector [offset, +count): columns the boundary rows read that this process owns */
  std::vector<Peer>        send_peers, recv_peers;
  Index                    nsend = 0, nwork = 0, nreceived = 0; /* values sent; work vector length; values received */
  PetscScalar             *send_host = nullptr, *recv_host = nullptr; /* pinned */
  cudaStream_t             stream    = nullptr;                       /* the copies' own stream */
  cudaEvent_t              x_ready = nullptr, sent_to_host = nullptr, received = nullptr;
  bool                     receive_pending = false; /* `received` recorded and not yet waited for */
  MPI_Comm                 comm = MPI_COMM_NULL;
  PetscMPIInt              tag  = 0;
  std::vector<MPI_Request> requests;

  ~DiagHalo()
  {
    if (send_host) cudaFreeHost(send_host);
    if (recv_host) cudaFreeHost(recv_host);
    for (cudaEvent_t e : {x_ready, sent_to_host, received})
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }
};

void MatDiagHaloDestroy_Private(DiagHalo **halo)
{
  delete *halo;
  *halo = nullptr;
}

namespace {

/* The plan: which runs of the ghost intervals each process owns (receive
   side, from the column layout), then, through one all-to-all, which runs of
   its own x each process sends. Collective. */
PetscErrorCode BuildPlan(Mat A, DiagHalo *h)
{
  Mat_Diag             *a = (Mat_Diag *)A->data;
  PetscMPIInt           size, rank;
  const PetscInt       *range;
  std::vector<PetscInt> ask_count, ask; /* per owner: (global begin, count) pairs, owners ascending */

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(h->comm, &size));
  PetscCallMPI(MPI_Comm_rank(h->comm, &rank));
  PetscCall(PetscLayoutGetRanges(A->cmap, &range));
  ask_count.assign(size, 0);
  std::vector<std::vector<PetscInt>> asks(size);
  Index pos = 0; /* position in the work vector */
  for (const auto &iv : a->mpi.ghost.need) {
    for (Index g = iv.first; g < iv.second;) {
      PetscMPIInt owner;
      PetscCall(PetscLayoutFindOwner(A->cmap, (PetscInt)g, &owner));
      const Index end = std::min<Index>(iv.second, range[owner + 1]);
      if (owner == rank) { /* owned columns the boundary rows read: a device copy */
        h->local_runs.push_back({g - range[rank], end - g, pos});
      } else {
        if (h->recv_peers.empty() || h->recv_peers.back().rank != owner) h->recv_peers.push_back({owner, pos, 0});
        h->recv_peers.back().count += end - g;
        asks[owner].push_back((PetscInt)g);
        asks[owner].push_back((PetscInt)(end - g));
      }
      pos += end - g;
      g = end;
    }
  }
  h->nwork = pos;
  for (const DiagHalo::Peer &p : h->recv_peers) h->nreceived += p.count;
  std::vector<PetscMPIInt> scount(size), sdispl(size), rcount(size), rdispl(size);
  for (PetscMPIInt p = 0; p < size; ++p) PetscCall(PetscMPIIntCast((PetscInt)asks[p].size(), &scount[p]));
  PetscCallMPI(MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, h->comm));
  PetscInt ns = 0, nr = 0;
  for (PetscMPIInt p = 0; p < size; ++p) {
    sdispl[p] = (PetscMPIInt)ns;
    rdispl[p] = (PetscMPIInt)nr;
    ns += scount[p];
    nr += rcount[p];
  }
  PetscCheck(nr <= PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: too many ghost runs asked of this process");
  for (const auto &v : asks) ask.insert(ask.end(), v.begin(), v.end());
  std::vector<PetscInt> asked(std::max<PetscInt>(nr, 1));
  PetscCallMPI(MPI_Alltoallv(ask.data(), scount.data(), sdispl.data(), MPIU_INT, asked.data(), rcount.data(), rdispl.data(), MPIU_INT, h->comm));
  Index offset = 0;
  for (PetscMPIInt p = 0; p < size; ++p) {
    if (!rcount[p]) continue;
    h->send_peers.push_back({p, offset, 0});
    for (PetscMPIInt i = rdispl[p]; i < rdispl[p] + rcount[p]; i += 2) {
      const Index begin = asked[i] - range[rank], count = asked[i + 1];
      PetscCheck(begin >= 0 && count >= 0 && begin + count <= range[rank + 1] - range[rank], PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: process %d asked for columns this process does not own", (int)p);
      h->send_runs.push_back({begin, count, offset});
      h->send_peers.back().count += count;
      offset += count;
    }
  }
  h->nsend = offset;
  PetscFunctionReturn(0);
}

} // namespace

/* Decides (collectively) whether A's device MatMult exchanges its ghosts
   through pinned memory, and builds the plan and buffers if so. */
PetscErrorCode MatDiagHaloSetUp_Private(Mat A)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscSF     sf = a->mpi.ghost.scatter;
  PetscMPIInt size;
  PetscBool   want = a->opt.pinned_halo;

  PetscFunctionBegin;
  MatDiagHaloDestroy_Private(&MatDiagDev(A).halo);
  MatDiagDev(A).halo_decided = PETSC_TRUE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1 || !sf) PetscFunctionReturn(0);
  if (sf->use_gpu_aware_mpi) want = PETSC_FALSE; /* PETSc's scatter then moves device buffers directly */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &want, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (!want) PetscFunctionReturn(0);
  DiagHalo *h = new DiagHalo;
  h->comm     = PetscObjectComm((PetscObject)A);
  PetscErrorCode ierr = BuildPlan(A, h);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ierr, 1, MPI_INT, MPI_MAX, h->comm)); /* PetscErrorCode is an int-sized enum */
  if (ierr) delete h;
  PetscCall(ierr);
  /* the pinned path only where every process has few runs */
  PetscInt runs = (PetscInt)std::max(h->send_runs.size(), h->recv_peers.size() + h->local_runs.size());
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &runs, 1, MPIU_INT, MPI_MAX, h->comm));
  if ((std::size_t)runs > kMaxRuns) {
    PetscCall(PetscInfo(A, "diag: %" PetscInt_FMT " ghost runs on a process: the ghost exchange stays PETSc's VecScatter\n", runs));
    delete h;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectGetNewTag((PetscObject)A, &h->tag));
  cudaError_t err = cudaStreamCreateWithFlags(&h->stream, cudaStreamNonBlocking); /* no implicit ordering with the legacy stream */
  for (cudaEvent_t *e : {&h->x_ready, &h->sent_to_host, &h->received})
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(e, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaHostAlloc((void **)&h->send_host, std::max<Index>(h->nsend, 1) * sizeof(PetscScalar), cudaHostAllocDefault);
  if (err == cudaSuccess) err = cudaHostAlloc((void **)&h->recv_host, std::max<Index>(h->nwork, 1) * sizeof(PetscScalar), cudaHostAllocDefault);
  if (err != cudaSuccess) delete h;
  DiagCallCUDA(err);
  h->requests.resize(h->send_peers.size() + h->recv_peers.size());
  MatDiagDev(A).halo = h;
  PetscCall(PetscInfo(A, "diag: ghost exchange through pinned host memory: %" PetscInt_FMT " values to %d processes in %d runs, %" PetscInt_FMT " from %d\n", (PetscInt)h->nsend, (int)h->send_peers.size(), (int)h->send_runs.size(), (PetscInt)h->nreceived, (int)h->recv_peers.size()));
  PetscFunctionReturn(0);
}

/* Starts the exchange of x (device array xd, written on PETSc's stream)
   into the work array wd (device): receives posted; once x is ready, on the
   halo stream, the owned runs others need copied to pinned memory and the
   owned columns the boundary rows read copied into wd. Returns before the
   copies end. */
PetscErrorCode MatDiagHaloBegin_Private(Mat A, const PetscScalar *xd, PetscScalar *wd)
{
  DiagHalo *h = MatDiagDev(A).halo;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATDIAG_Halo, A, 0, 0, 0));
  /* the previous exchange's copies out of the receive buffer must be done before MPI writes it again */
  if (h->receive_pending) DiagCallCUDA(cudaEventSynchronize(h->received));
  h->receive_pending = false;
  std::size_t r = 0;
  for (const DiagHalo::Peer &p : h->recv_peers) PetscCallMPI(MPI_Irecv(h->recv_host + p.offset, (PetscMPIInt)p.count, MPIU_SCALAR, p.rank, h->tag, h->comm, &h->requests[r++]));
  /* the halo stream's copies come after everything queued on PETSc's stream:
     x's last writer and the previous product's reads of the work vector */
  DiagCallCUDA(cudaEventRecord(h->x_ready, PetscDefaultCudaStream));
  DiagCallCUDA(cudaStreamWaitEvent(h->stream, h->x_ready, 0));
  for (const DiagHalo::Run &run : h->send_runs) DiagCallCUDA(cudaMemcpyAsync(h->send_host + run.offset, xd + run.local_begin, run.count * sizeof(PetscScalar), cudaMemcpyDeviceToHost, h->stream));
  DiagCallCUDA(cudaEventRecord(h->sent_to_host, h->stream));
  /* logged as one copy, as PETSc's scatter logs its packed buffer */
  if (h->nsend) PetscCall(PetscLogGpuToCpu((PetscLogDouble)(h->nsend * sizeof(PetscScalar))));
  for (const DiagHalo::Run &run : h->local_runs) DiagCallCUDA(cudaMemcpyAsync(wd + run.offset, xd + run.local_begin, run.count * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, h->stream));
  PetscCall(PetscLogEventEnd(MATDIAG_Halo, A, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Ends the exchange: sends once the copies to the host are done, waits for
   every message, copies the received values into the work array wd (the
   one Begin got) and makes PETSc's stream wait for all the copies. */
PetscErrorCode MatDiagHaloEnd_Private(Mat A, PetscScalar *wd)
{
  DiagHalo *h = MatDiagDev(A).halo;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MATDIAG_Halo, A, 0, 0, 0));
  std::size_t r = h->recv_peers.size();
  if (h->nsend) DiagCallCUDA(cudaEventSynchronize(h->sent_to_host));
  for (const DiagHalo::Peer &p : h->send_peers) PetscCallMPI(MPI_Isend(h->send_host + p.offset, (PetscMPIInt)p.count, MPIU_SCALAR, p.rank, h->tag, h->comm, &h->requests[r++]));
  PetscCallMPI(MPI_Waitall((PetscMPIInt)h->requests.size(), h->requests.data(), MPI_STATUSES_IGNORE));
  for (const DiagHalo::Peer &p : h->recv_peers) DiagCallCUDA(cudaMemcpyAsync(wd + p.offset, h->recv_host + p.offset, p.count * sizeof(PetscScalar), cudaMemcpyHostToDevice, h->stream));
  if (h->nreceived) PetscCall(PetscLogCpuToGpu((PetscLogDouble)(h->nreceived * sizeof(PetscScalar))));
  DiagCallCUDA(cudaEventRecord(h->received, h->stream));
  DiagCallCUDA(cudaStreamWaitEvent(PetscDefaultCudaStream, h->received, 0));
  h->receive_pending = true;
  PetscCall(PetscLogEventEnd(MATDIAG_Halo, A, 0, 0, 0));
  PetscFunctionReturn(0);
}
