/* MatSOR and MatGetDiagonalBlock of MATDIAG (docs/design.md, "Factorizations and preconditioners": native where the
   data flow follows the diagonals).

   Sequentially MatSOR runs the sweeps of kernels/ pdiag/relax.hpp, which
   repeat PETSc's aij arithmetic in the same order: every MatSORType PCSOR,
   PCEisenstat and the multigrid smoothers pass (forward, backward,
   symmetric, zero initial guess, Eisenstat, SOR_APPLY_UPPER), omega, the
   diagonal shift, its and lits. In parallel the sweeps are local, as aij's:
   each process relaxes its diagonal block (MatGetDiagonalBlock) with the
   right-hand side corrected by the couplings to other processes' unknowns,
   b - (A x - A_local x_local).

   With CUDA vectors the sweeps of HM blocks run on the device, level by
   level (device/sor.cpp), and in parallel the local parts stay on the
   device too; Eisenstat's and SOR_APPLY_UPPER's passes on a block, and CDM
   blocks, run on the host copy (the vectors' values make a round trip, the
   matrix's device copy stays valid). */
#include "core/mat_diag.hpp"

#include "pdiag/convert.hpp"
#include "pdiag/relax.hpp"

/* An HM copy of the local block: A's own storage, or for CDM a copy kept
   until A changes. */
PetscErrorCode MatDiagHm_Private(Mat A, const Hm **hm)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(sync_host, A));
  if (a->scheme == pdiag::Scheme::HM) {
    *hm = &a->hm;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (a->cache.hm_of_cdm_state != state) {
    DiagCallKernel(a->cache.hm_of_cdm = pdiag::hm_from_cdm(a->cdm, pdiag::cdm_structural_offsets(a->cdm)));
    a->cache.hm_of_cdm_state = state;
  }
  *hm = &a->cache.hm_of_cdm;
  PetscFunctionReturn(0);
}

/* Puts hm (and a list of entries, pdiag/remote.hpp) into the diag matrix B
   (layout set): only its values when B is assembled with the same diagonals
   and listed positions (nothing that depends on the structure is redone,
   B's nonzero state stays; a CDM matrix takes them as compact diagonals if
   hm's diagonals give its compact ones), else as new storage. Assembles B. */
PetscErrorCode MatDiagInstallHm_Private(Mat B, Hm &&hm, pdiag::RemoteEntries<PetscScalar> &&remote)
{
  Mat_Diag *b      = (Mat_Diag *)B->data;
  bool      ready  = B->assembled && b->assembly.staged.empty() && b->remote.rows == remote.rows && b->remote.cols == remote.cols;
  bool      as_hm  = ready && b->scheme == pdiag::Scheme::HM && b->hm.layout == hm.layout && b->hm.offsets == hm.offsets;
  bool      as_cdm = ready && remote.empty() && b->scheme == pdiag::Scheme::CDM && b->cdm.layout == hm.layout && pdiag::cdm_offsets_of(hm.layout, hm.offsets) == b->cdm.koffsets;
  PetscBool same   = (as_hm || as_cdm) ? PETSC_TRUE : PETSC_FALSE, all_same;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&same, &all_same, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)B)));
  if (all_same) {
    PetscCall(MatDiagDeviceTry(host_values_ensure, B));
    if (as_hm) b->hm.val = std::move(hm.val);
    else DiagCallKernel(b->cdm = pdiag::cdm_from_hm(hm));
    b->remote.val = std::move(remote.val);
    MatDiagValuesChanged(B);
  } else {
    PetscCall(MatDiagCheckCountAll_Private(B, hm.ndiag()));
    PetscCall(MatDiagReplaceStorage_Private(B, std::move(hm)));
    b->remote = std::move(remote);
  }
  B->preallocated = PETSC_TRUE;
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* MatGetDiagonalBlock: the owned rows and columns as a seqdiag (seqdiagcuda
   for the CUDA types), kept with the matrix and refreshed in place when its
   values change, so that bjacobi's sub-solvers see one matrix whose values
   change (a numeric refactorization, as with aij). */
PetscErrorCode MatGetDiagonalBlock_Diag(Mat A, Mat *block)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  PetscMPIInt      size;
  PetscObjectState state;
  const Hm        *hm;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) {
    *block = A;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (a->cache.diag_block && a->cache.diag_block_state == state) {
    *block = a->cache.diag_block;
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagHm_Private(A, &hm));
  /* the block's aij entries are the matrix's in the owned columns: its
     preconditioners (bjacobi's ILU(0)) then see aij's diagonal block, and
     it stores only the diagonals that hold them */
  std::vector<Index> rows, cols;
  {
    pdiag::Csr<PetscScalar> csr;
    PetscCall(MatDiagAijCSR_Private(A, &csr));
    DiagCallKernel(pdiag::csr_column_block_coo(csr, A->cmap->rstart, A->cmap->rend, rows, cols));
  }
  Hm local;
  DiagCallKernel(local = pdiag::hm_column_block_of_pattern(*hm, A->cmap->rstart, A->cmap->rend, rows, cols));
  if (!a->cache.diag_block) {
    PetscBool   cuda;
    const char *prefix;
    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIDIAGCUDA, &cuda));
    PetscCall(MatCreate(PETSC_COMM_SELF, &a->cache.diag_block));
    PetscCall(MatSetSizes(a->cache.diag_block, A->rmap->n, A->cmap->n, A->rmap->n, A->cmap->n));
    PetscCall(MatSetBlockSizesFromMats(a->cache.diag_block, A, A));
    PetscCall(MatSetType(a->cache.diag_block, cuda ? MATSEQDIAGCUDA : MATSEQDIAG));
    PetscCall(MatGetOptionsPrefix(A, &prefix));
    PetscCall(MatSetOptionsPrefix(a->cache.diag_block, prefix));
    if (A->defaultvectype) {
      PetscCall(PetscFree(a->cache.diag_block->defaultvectype));
      PetscCall(PetscStrallocpy(A->defaultvectype, &a->cache.diag_block->defaultvectype));
    }
    Mat_Diag *b    = (Mat_Diag *)a->cache.diag_block->data;
    b->opt.storage_req = MAT_DIAG_STORAGE_HM;
    b->opt.max_diagonals = a->opt.max_diagonals;
    PetscCall(MatDiagSetLayout_Private(a->cache.diag_block));
  }
  PetscCall(MatDiagAssembleInternal_Private(a->cache.diag_block, [&] { return MatDiagInstallHm_Private(a->cache.diag_block, std::move(local)); }));
  PetscCall(MatDiagSetAijPattern_Private(a->cache.diag_block, (Index)rows.size(), rows.data(), cols.data()));
  a->cache.diag_block_state = state;
  *block              = a->cache.diag_block;
  PetscFunctionReturn(0);
}

/* A zero diagonal (row zero_row, -1: none) found by hm_sor_diagonal: as
   aij, an error unless a shift was asked for. */
PetscErrorCode MatDiagSORZeroRow_Private(Mat A, PetscReal fshift, Index zero_row)
{
  PetscFunctionBegin;
  if (zero_row < 0) PetscFunctionReturn(0);
  PetscCheck(fshift != 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Zero diagonal on row %" PetscInt_FMT, (PetscInt)zero_row);
  PetscCall(PetscInfo(A, "Zero diagonal on row %" PetscInt_FMT "\n", (PetscInt)zero_row));
  A->factorerrortype             = MAT_FACTOR_NUMERIC_ZEROPIVOT;
  A->factorerror_zeropivot_value = 0.0;
  A->factorerror_zeropivot_row   = (PetscInt)zero_row;
  PetscFunctionReturn(0);
}

namespace {

/* The sweeps on a sequential block (PETSc's MatSOR_SeqAIJ, step by step).
   gpu_run: the vectors of the caller are CUDA vectors the matrix works with
   (MatDiagUseDevice_Private); sweeps that the level rule sends to the host
   are then point sweeps, as aijcusparse's (which turns aij's inodes off
   while it is not bound to the CPU), not aij's inode sweeps. */
PetscErrorCode MatSOR_SeqDiag(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx, PetscBool gpu_run)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  DiagSorCache      &c = a->cache.sor;
  const Hm          *hm;
  const PetscInt     m = A->rmap->n;
  const PetscScalar *b;
  PetscScalar       *x;
  PetscObjectState   state;

  PetscFunctionBegin;
  PetscCheck(A->rmap->N == A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: MatSOR needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, A->rmap->N, A->cmap->N);
  PetscBool device;
  PetscCall(MatDiagSORDeviceWanted_Private(A, bb, xx, flag, &device));
  if (device) {
    PetscCall(MatDiagDeviceCall(sor, A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(0);
  }
  if (!gpu_run && omega == 1.0 && fshift == 0.0 && flag != SOR_APPLY_UPPER && flag != SOR_APPLY_LOWER) {
    PetscBool inodes;
    PetscCall(MatDiagUsesInodes_Private(A, &inodes));
    if (inodes) { /* aij's block Gauss-Seidel on its inodes (MatDiagUsesInodes_Private), by aij's code on the aij copy */
      Mat C;
      PetscCall(MatDiagGetCompanion_Private(A, "SOR on inodes (block Gauss-Seidel, as aij's)", &C));
      PetscCall(MatSOR(C, bb, omega, flag, fshift, its, lits, xx));
      A->factorerrortype = C->factorerrortype;
      PetscFunctionReturn(0);
    }
  }
  /* the host arrays only here (a device sweep needs none); kept, as aij
     keeps its inverted diagonal, until the values, omega or the shift
     change: a smoother calls MatSOR once per sweep */
  PetscCall(MatDiagHm_Private(A, &hm));
  const pdiag::HmView<const PetscScalar> v = hm->view();
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (c.state != state || c.omega != omega || c.fshift != fshift || c.mdiag.size() != (std::size_t)m) {
    c.state = -1;
    PetscCallCXX({
      c.mdiag.resize(m);
      c.idiag.resize(m);
      c.work.resize(m);
    });
    DiagCallKernel(c.zero_row = pdiag::hm_sor_diagonal(v, omega, fshift, c.mdiag.data(), c.idiag.data()));
    c.state  = state;
    c.omega  = omega;
    c.fshift = fshift;
  }
  PetscCall(MatDiagSORZeroRow_Private(A, fshift, c.zero_row));
  const PetscScalar *mdiag = c.mdiag.data(), *idiag = c.idiag.data();
  PetscScalar       *work  = c.work.data();
  PetscCall(VecGetArrayRead(bb, &b));
  PetscCall(VecGetArray(xx, &x));
  const PetscLogDouble nz = (PetscLogDouble)hm->nstored();
  if (flag == SOR_APPLY_UPPER) {
    DiagCallKernel(pdiag::hm_sor_apply_upper(v, b, x, omega, fshift, mdiag));
    PetscCall(PetscLogFlops(nz));
  } else if (flag & SOR_EISENSTAT) {
    DiagCallKernel(pdiag::hm_sor_eisenstat(v, b, x, omega, mdiag, idiag, work));
    PetscCall(PetscLogFlops(6.0 * m - 1 + 2.0 * nz));
  } else {
    PetscCheck(flag != SOR_APPLY_LOWER, PETSC_COMM_SELF, PETSC_ERR_SUP, "SOR_APPLY_LOWER is not implemented");
    pdiag::SorSweeps sw;
    sw.forward            = (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) != 0;
    sw.backward           = (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) != 0;
    sw.zero_initial_guess = (flag & SOR_ZERO_INITIAL_GUESS) != 0;
    DiagCallKernel(pdiag::hm_sor(v, b, x, omega, sw, (Index)(its * lits), mdiag, idiag, work));
    PetscCall(PetscLogFlops(2.0 * nz * (PetscLogDouble)(its * lits)));
  }
  PetscCall(VecRestoreArray(xx, &x));
  PetscCall(VecRestoreArrayRead(bb, &b));
  PetscFunctionReturn(0);
}

/* The owned part of a parallel vector as a sequential vector on its array:
   the host array, or with device true the CUDA vector's device array (the
   local sweeps and products then stay on the device). Get, use, Put. */
struct LocalPart {
  Vec          g = nullptr, v = nullptr;
  PetscScalar *a = nullptr;
  PetscBool    device = PETSC_FALSE, read = PETSC_FALSE;
};

PetscErrorCode LocalPartGet(Vec g, PetscBool device, PetscBool read, LocalPart *p)
{
  const DiagVecArrays arrays = MatDiagVecArrays_Private(device);
  PetscInt            n;

  PetscFunctionBegin;
  p->g      = g;
  p->device = device;
  p->read   = read;
  PetscCall(VecGetLocalSize(g, &n));
  if (read) PetscCall(arrays.get_read(g, (const PetscScalar **)&p->a));
  else PetscCall(arrays.get(g, &p->a));
  PetscCall(arrays.create_with_array(PETSC_COMM_SELF, 1, n, p->a, &p->v));
  PetscFunctionReturn(0);
}

PetscErrorCode LocalPartPut(LocalPart *p)
{
  const DiagVecArrays arrays = MatDiagVecArrays_Private(p->device);

  PetscFunctionBegin;
  PetscCall(VecDestroy(&p->v));
  if (p->read) PetscCall(arrays.restore_read(p->g, (const PetscScalar **)&p->a));
  else PetscCall(arrays.restore(p->g, &p->a));
  PetscFunctionReturn(0);
}

/* r = (couplings of the owned rows to other processes' unknowns) x, the
   off-process part of A x, as A x - A_local x_local: the device path
   (CUDA vectors); the host one is MatDiagRemoteCouplingsAdd_Private, one
   product of the boundary rows with the ghosts only. */
PetscErrorCode RemoteProduct(Mat A, Mat Ad, Vec xx, Vec r, PetscBool device)
{
  LocalPart lx, lr;
  Vec       lz;

  PetscFunctionBegin;
  PetscCall(MatMult(A, xx, r));
  PetscCall(LocalPartGet(xx, device, PETSC_TRUE, &lx));
  PetscCall(VecDuplicate(lx.v, &lz));
  PetscCall(MatMult(Ad, lx.v, lz));
  PetscCall(LocalPartGet(r, device, PETSC_FALSE, &lr));
  PetscCall(VecAXPY(lr.v, -1.0, lz));
  PetscCall(LocalPartPut(&lr));
  PetscCall(VecDestroy(&lz));
  PetscCall(LocalPartPut(&lx));
  PetscFunctionReturn(0);
}

/* Runs f on sequential vectors placed on the owned parts of x and b. */
template <class F>
PetscErrorCode OnLocalParts(Vec b, Vec x, PetscBool device, F &&f)
{
  LocalPart lb, lx;

  PetscFunctionBegin;
  PetscCall(LocalPartGet(b, device, PETSC_TRUE, &lb));
  PetscCall(LocalPartGet(x, device, PETSC_FALSE, &lx));
  PetscCall(f(lb.v, lx.v));
  PetscCall(LocalPartPut(&lx));
  PetscCall(LocalPartPut(&lb));
  PetscFunctionReturn(0);
}

/* y = D x with D A's diagonal, or with inodes allowed and Ad (A's local
   block) run on aij's inodes (MatDiagUsesInodes_Private), the product by
   their diagonal blocks, by aij's code on Ad's aij copy (host vectors; after
   an SOR on it, as aij requires). */
PetscErrorCode DiagonalBlockProduct(Mat A, Mat Ad, Vec x, Vec y, PetscBool allow_inodes)
{
  PetscBool inodes = PETSC_FALSE;

  PetscFunctionBegin;
  if (allow_inodes) PetscCall(MatDiagUsesInodes_Private(Ad, &inodes));
  if (inodes) {
    Mat C;
    PetscCall(MatDiagGetCompanion_Private(Ad, "SOR on inodes (block Gauss-Seidel, as aij's)", &C));
    PetscCall(OnLocalParts(x, y, PETSC_FALSE, [&](Vec lx, Vec ly) { return MatMultDiagonalBlock(C, lx, ly); }));
  } else {
    Vec d;
    PetscCall(MatCreateVecs(A, &d, NULL));
    PetscCall(MatGetDiagonal(A, d));
    PetscCall(VecPointwiseMult(y, d, x));
    PetscCall(VecDestroy(&d));
  }
  PetscFunctionReturn(0);
}

/* Local sweeps, PETSc's MatSOR_MPIAIJ step by step. */
PetscErrorCode MatSOR_MPIDiag(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat Ad;
  Vec bb1 = NULL;

  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock_Diag(A, &Ad));
  /* with CUDA vectors the local sweeps (every pass below but
     SOR_APPLY_UPPER's) run on the device: the local parts stay there */
  PetscBool device = PETSC_FALSE;
  if (flag != SOR_APPLY_UPPER) PetscCall(MatDiagSORDeviceWanted_Private(Ad, bb, xx, (MatSORType)(SOR_LOCAL_SYMMETRIC_SWEEP | SOR_ZERO_INITIAL_GUESS), &device));
  const PetscBool gpu_run = MatDiagUseDevice_Private(Ad, xx, bb);
  auto local = [&](Vec b, MatSORType f, Vec x) { return OnLocalParts(b, x, device, [&](Vec lb, Vec lx) { return MatSOR_SeqDiag(Ad, lb, omega, f, fshift, lits, 1, lx, gpu_run); }); };
  if (flag == SOR_APPLY_UPPER) {
    PetscCall(local(bb, flag, xx));
    PetscFunctionReturn(0);
  }
  if (its > 1 || ~flag & SOR_ZERO_INITIAL_GUESS || flag & SOR_EISENSTAT) PetscCall(VecDuplicate(bb, &bb1));
  MatSORType sweep = (MatSORType)0;
  if ((flag & SOR_LOCAL_SYMMETRIC_SWEEP) == SOR_LOCAL_SYMMETRIC_SWEEP) sweep = SOR_SYMMETRIC_SWEEP;
  else if (flag & SOR_LOCAL_FORWARD_SWEEP) sweep = SOR_FORWARD_SWEEP;
  else if (flag & SOR_LOCAL_BACKWARD_SWEEP) sweep = SOR_BACKWARD_SWEEP;
  if (sweep) {
    if (flag & SOR_ZERO_INITIAL_GUESS) {
      PetscCall(local(bb, flag, xx));
      its--;
    }
    while (its--) { /* bb1 = bb - (remote couplings) x, then a local sweep */
      if (device) {
        PetscCall(RemoteProduct(A, Ad, xx, bb1, device));
        PetscCall(VecAYPX(bb1, -1.0, bb));
      } else { /* as aij: bb + B (-x), no product of the local block */
        PetscCall(VecCopy(bb, bb1));
        PetscCall(MatDiagRemoteCouplingsAdd_Private(A, xx, -1.0, bb1));
      }
      PetscCall(local(bb1, sweep, xx));
    }
  } else if (flag & SOR_EISENSTAT) {
    Vec xx1;
    PetscCall(VecDuplicate(bb, &xx1));
    PetscCall(local(bb, (MatSORType)(SOR_ZERO_INITIAL_GUESS | SOR_LOCAL_BACKWARD_SWEEP), xx));
    /* mpiaij multiplies by its local block's inode diagonal blocks where its sweeps used them */
    PetscCall(DiagonalBlockProduct(A, Ad, xx, bb1, (!gpu_run && omega == 1.0 && fshift == 0.0) ? PETSC_TRUE : PETSC_FALSE));
    PetscCall(VecAYPX(bb1, (omega - 2.0) / omega, bb));
    if (device) { /* bb1 += (remote couplings) x */
      Vec r;
      PetscCall(VecDuplicate(bb, &r));
      PetscCall(RemoteProduct(A, Ad, xx, r, device));
      PetscCall(VecAXPY(bb1, 1.0, r));
      PetscCall(VecDestroy(&r));
    } else PetscCall(MatDiagRemoteCouplingsAdd_Private(A, xx, 1.0, bb1));
    PetscCall(local(bb1, (MatSORType)(SOR_ZERO_INITIAL_GUESS | SOR_LOCAL_FORWARD_SWEEP), xx1));
    PetscCall(VecAXPY(xx, 1.0, xx1));
    PetscCall(VecDestroy(&xx1));
  } else SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Parallel SOR not supported");
  PetscCall(VecDestroy(&bb1));
  A->factorerrortype = Ad->factorerrortype;
  PetscFunctionReturn(0);
}

} // namespace

/* MatMultDiagonalBlock (PCEisenstat's diagonal scaling): with aij's
   inodes (MatDiagUsesInodes_Private) the product by their diagonal blocks,
   by aij's code on the aij copy of the (local) block, after an SOR on it
   as aij requires; otherwise by the diagonal. */
PetscErrorCode MatMultDiagonalBlock_Diag(Mat A, Vec x, Vec y)
{
  Mat Ad;

  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock_Diag(A, &Ad));
  PetscCall(DiagonalBlockProduct(A, Ad, x, y, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSOR_Diag(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckVec_Private(bb, A->rmap, "b of MatSOR()"));
  PetscCall(MatDiagCheckVec_Private(xx, A->cmap, "x of MatSOR()"));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscCall(MatSOR_SeqDiag(A, bb, omega, flag, fshift, its, lits, xx, MatDiagUseDevice_Private(A, xx, bb)));
  else PetscCall(MatSOR_MPIDiag(A, bb, omega, flag, fshift, its, lits, xx));
  PetscFunctionReturn(0);
}
