/* Assembly of MATDIAG: MatSetValues (stored diagonals are written in place,
   entries on new diagonals are staged until MatAssemblyEnd), the stash for
   off-process rows, COO assembly, and the choice of storage scheme. */
#include "core/mat_diag.hpp"

#include <algorithm>


/* Slot of a(i, j) in the stored values (or in the listed entries'), or
   nullptr when its diagonal is not stored and it is not listed. i is an
   owned global row, 0 <= j < N; c is the entry's position among the call's
   columns. The diagonal the entry at that position lay on
   in the previous row is tried first, then its successor (consecutive
   entries in ascending order), so the binary search runs about once per
   position of a stencil, not once per entry. */
static inline PetscScalar *MatDiagSlot(Mat_Diag *a, Index i, Index j, PetscInt c)
{
  if (a->scheme == pdiag::Scheme::CDM) return a->cdm.find(i, j);
  const Index d    = j - i;
  const Index nd   = a->hm.ndiag();
  Index      &hint = a->assembly.slot_hint[c & (DiagAssembly::kSlotHints - 1)];
  Index       k    = hint;
  if (k >= nd || a->hm.offsets[k] != d) {
    if (k + 1 < nd && a->hm.offsets[k + 1] == d) k = k + 1;
    else k = a->hm.find_diagonal(d);
    if (k < 0) { /* a listed entry, if the block lists it */
      const Index e = a->remote.empty() ? -1 : a->remote.find(i - a->layout.row_begin, j);
      return e < 0 ? nullptr : &a->remote.val[e];
    }
    hint = k;
  }
  return &a->hm.val[a->hm.start[k] + i - a->hm.layout.lo(d)];
}

/* Whether entries staged beyond the budget may make the matrix aij
   instead of being refused: conversions allowed, HM storage (the rest of
   the rule, which asks the DM, is MatDiagStagedCanBecomeAIJ). */
static inline bool MatDiagMayStageToAIJ(const Mat_Diag *a)
{
  return a->opt.scattered_fill > 0 && a->scheme == pdiag::Scheme::HM;
}

/* Sets a(i, j) on diagonal j - i, which is not stored: staged until
   MatAssemblyEnd (pdiag::StagedDiagonal, O(entries set) memory), which
   checks the structure against the budget. A new diagonal beyond
   -mat_diag_max_diagonals is refused here, at once, when the matrix could
   not become aij instead (-mat_diag_scattered_fill 0, or CDM storage). */
static PetscErrorCode MatDiagStage(Mat A, Index i, Index j, PetscScalar value, InsertMode mode)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  const Index d = j - i;

  PetscFunctionBegin;
  auto it = a->assembly.staged.find(d);
  if (it == a->assembly.staged.end()) {
    const Index stored = a->scheme == pdiag::Scheme::HM ? a->hm.ndiag() : a->cdm.ndiag();
    if (!MatDiagMayStageToAIJ(a)) PetscCall(MatDiagCheckCount_Private(A, stored + (Index)a->assembly.staged.size() + 1));
    PetscCallCXX(it = a->assembly.staged.emplace(d, pdiag::StagedDiagonal<PetscScalar>()).first);
  }
  PetscCallCXX(it->second.set(a->layout, d, i, value, mode == ADD_VALUES));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSetValues_Diag(Mat A, PetscInt m, const PetscInt rows[], PetscInt n, const PetscInt cols[], const PetscScalar v[], InsertMode mode)
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  const Index r0 = a->layout.row_begin, r1 = a->layout.row_end();

  PetscFunctionBegin;
  /* PETSc's pointer checks are compiled out of optimized builds */
  PetscCheck(m <= 0 || rows, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatSetValues() got %" PetscInt_FMT " rows and a NULL array of row indices", m);
  PetscCheck(n <= 0 || cols, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatSetValues() got %" PetscInt_FMT " columns and a NULL array of column indices", n);
  if (!A->preallocated) PetscCall(MatSetUp_Diag(A)); /* not MatSetUp: MatSetValues is not collective */
  MatDiagValuesChanged(A);
  for (PetscInt r = 0; r < m; r++) {
    const PetscInt i = rows[r];
    if (i < 0) continue;
    PetscCheck(i < A->rmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: row %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", i, A->rmap->N);
    if (i < r0 || i >= r1) {
      PetscCheck(!A->nooffprocentries, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "diag: row %" PetscInt_FMT " is not owned and MAT_NO_OFF_PROC_ENTRIES is set", i);
      if (!a->assembly.donotstash) {
        /* kept here and sent to the owner at MatAssemblyEnd; checked here,
           since an error at the owner inside the collective assembly would
           leave the other processes waiting */
        for (PetscInt c = 0; c < n; c++) {
          if (cols[c] < 0) continue;
          PetscCheck(cols[c] < A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: column %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", cols[c], A->cmap->N);
          a->assembly.stash_i.push_back(i);
          a->assembly.stash_j.push_back(cols[c]);
          a->assembly.stash_v.push_back(v ? (a->assembly.roworiented ? v[r * n + c] : v[c * m + r]) : 0.0);
        }
      }
      continue;
    }
    for (PetscInt c = 0; c < n; c++) {
      const PetscInt j = cols[c];
      if (j < 0) continue;
      PetscCheck(j < A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: column %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", j, A->cmap->N);
      const PetscScalar value = v ? (a->assembly.roworiented ? v[r * n + c] : v[c * m + r]) : 0.0;
      PetscScalar      *slot  = MatDiagSlot(a, i, j, c);
      if (!slot) {
        if (a->assembly.new_diagonals_ignored) continue;
        PetscCheck(!a->assembly.new_diagonals_error, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") lies on diagonal %" PetscInt_FMT ", which is not stored, and MAT_NEW_NONZERO_LOCATION_ERR is set", i, j, j - i);
        PetscCall(MatDiagStage(A, i, j, value, mode));
        continue;
      }
      if (mode == INSERT_VALUES) *slot = value;
      else *slot += value;
      if (*slot == 0.0) PetscCallCXX(a->assembly.zero_sets.record(i, j)); /* a set position aij keeps */
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatAssemblyBegin_Diag(Mat A, MatAssemblyType type)
{
  PetscMPIInt size;
  InsertMode  addv;

  PetscFunctionBegin;
  (void)type;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1 || A->nooffprocentries) PetscFunctionReturn(0);
  /* every process must agree on INSERT or ADD */
  PetscCall(MPIU_Allreduce((PetscEnum *)&A->insertmode, (PetscEnum *)&addv, 1, MPIU_ENUM, MPI_BOR, PetscObjectComm((PetscObject)A)));
  PetscCheck(addv != (ADD_VALUES | INSERT_VALUES), PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "diag: some processes inserted values while others added");
  A->insertmode = addv;
  PetscFunctionReturn(0);
}

/* Sends the entries of other processes' rows to their owners and sets them
   there (PETSc's own stash is private to libpetsc). Collective. */
static PetscErrorCode MatDiagExchangeStash(Mat A)
{
  Mat_Diag   *a    = (Mat_Diag *)A->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt size;
  PetscInt    mine = (PetscInt)a->assembly.stash_i.size(), total;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MPIU_Allreduce(&mine, &total, 1, MPIU_INT, MPI_SUM, comm));
  if (!total) PetscFunctionReturn(0);
  /* order the entries by owner */
  std::vector<PetscMPIInt> owner(a->assembly.stash_i.size()), scount(size, 0), rcount(size), sdispl(size + 1, 0), rdispl(size + 1, 0);
  for (std::size_t e = 0; e < a->assembly.stash_i.size(); e++) {
    PetscCall(PetscLayoutFindOwner(A->rmap, a->assembly.stash_i[e], &owner[e]));
    scount[owner[e]]++;
  }
  for (PetscMPIInt p = 0; p < size; p++) sdispl[p + 1] = sdispl[p] + scount[p];
  std::vector<PetscInt>    si(a->assembly.stash_i.size()), sj(si.size());
  std::vector<PetscScalar> sv(si.size());
  std::vector<PetscMPIInt> next(sdispl.begin(), sdispl.end() - 1);
  for (std::size_t e = 0; e < a->assembly.stash_i.size(); e++) {
    const PetscMPIInt q = next[owner[e]]++;
    si[q]               = a->assembly.stash_i[e];
    sj[q]               = a->assembly.stash_j[e];
    sv[q]               = a->assembly.stash_v[e];
  }
  PetscCallMPI(MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) rdispl[p + 1] = rdispl[p] + rcount[p];
  std::vector<PetscInt>    ri(rdispl[size]), rj(rdispl[size]);
  std::vector<PetscScalar> rv(rdispl[size]);
  PetscCallMPI(MPI_Alltoallv(si.data(), scount.data(), sdispl.data(), MPIU_INT, ri.data(), rcount.data(), rdispl.data(), MPIU_INT, comm));
  PetscCallMPI(MPI_Alltoallv(sj.data(), scount.data(), sdispl.data(), MPIU_INT, rj.data(), rcount.data(), rdispl.data(), MPIU_INT, comm));
  PetscCallMPI(MPI_Alltoallv(sv.data(), scount.data(), sdispl.data(), MPIU_SCALAR, rv.data(), rcount.data(), rdispl.data(), MPIU_SCALAR, comm));
  a->assembly.stash_i.clear();
  a->assembly.stash_j.clear();
  a->assembly.stash_v.clear();
  /* Setting the received entries can fail on one process only (its
     diagonal limit): the failure is caught and agreed on, so that every
     process raises an error instead of the others waiting in the next
     collective step. */
  const PetscBool ro   = a->assembly.roworiented;
  PetscErrorCode  ierr = 0;
  a->assembly.roworiented       = PETSC_TRUE;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  for (std::size_t e = 0; e < ri.size() && !ierr; e++) ierr = MatSetValues_Diag(A, 1, &ri[e], 1, &rj[e], &rv[e], A->insertmode);
  PetscCall(PetscPopErrorHandler());
  a->assembly.roworiented = ro;
  PetscMPIInt rank, failed = ierr ? 1 : 0, first_failed;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscMPIInt mine_failed = failed ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine_failed, &first_failed, 1, MPI_INT, MPI_MIN, comm));
  if (ierr) {
    const char *text = NULL;
    const char *specific = NULL;
    PetscDiagErrorMessage(ierr, &text, &specific);
    SETERRQ(PETSC_COMM_SELF, ierr, "diag: MatAssemblyEnd: setting the entries other processes sent to process %d failed: %s", (int)rank, specific ? specific : (text ? text : "unknown error"));
  }
  PetscCheck(first_failed == size, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "diag: MatAssemblyEnd failed on process %d while setting the entries other processes sent to it (see that process's error)", (int)first_failed);
  PetscFunctionReturn(0);
}

/* The HM diagonals a CDM block keeps in HM storage (pdiag::cdm_hm_offsets). */
static std::vector<Index> MatDiagCdmHmOffsets(const Cdm &cdm)
{
  return pdiag::cdm_hm_offsets(cdm);
}

/* Whether this assembly's staged entries, over the budget or scattered,
   can make the matrix aij (instead of a refusal, or of storing them): an
   HM matrix assembled by the user (not inside the plugin, except a COO
   preallocation, which converts with its entries), not a DMDA's (whose
   structure is the stencil's), with conversions allowed
   (-mat_diag_scattered_fill > 0). */
static PetscErrorCode MatDiagStagedCanBecomeAIJ(Mat A, PetscBool *can)
{
  Mat_Diag                        *a = (Mat_Diag *)A->data;
  const pdiag::GridStencilPattern *grid;

  PetscFunctionBegin;
  *can = (MatDiagMayStageToAIJ(a) && (!a->assembly.internal_assembly || !a->assembly.coo_i.empty())) ? PETSC_TRUE : PETSC_FALSE;
  if (*can) {
    PetscCall(MatDiagGridPattern_Private(A, &grid));
    if (grid) *can = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* Puts the staged diagonals into the storage, after checking what the grown
   storage would take (diagonals, bytes, stored entries per entry set)
   against the limits on every process together. Collective. */
static PetscErrorCode MatDiagMergeStaged(Mat A)
{
  Mat_Diag           *a = (Mat_Diag *)A->data;
  pdiag::StorageCount grown_count, staged_count;
  PetscInt64          nset = 0;
  PetscMPIInt         size;

  PetscFunctionBegin;
  a->assembly.staged_to_aij = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (a->assembly.staged.empty() && size == 1) PetscFunctionReturn(0);
  /* MPI, HM: the staged diagonals to be listed (assembly/remote.cpp) leave the staged ones */
  std::vector<pdiag::RemoteEntry<PetscScalar>> incoming;
  std::vector<Index>                           promote;
  if (size > 1 && a->scheme == pdiag::Scheme::HM && a->opt.list_remote) PetscCall(MatDiagStagedToRemote_Private(A, &incoming, &promote));
  {
    std::vector<Index> offs, staged;
    PetscCallCXX(for (const auto &kv : a->assembly.staged) {
      staged.push_back(kv.first);
      nset += kv.second.nset;
    });
    if (a->scheme == pdiag::Scheme::HM) {
      PetscCallCXX(offs = a->hm.offsets);
      PetscCallCXX(offs.insert(offs.end(), staged.begin(), staged.end()));
      DiagCallKernel(grown_count = pdiag::hm_count(a->layout, offs));
      DiagCallKernel(staged_count = pdiag::hm_count(a->layout, staged));
    } else {
      PetscCallCXX(offs = a->cdm.koffsets);
      PetscCallCXX(offs.insert(offs.end(), staged.begin(), staged.end()));
      DiagCallKernel(grown_count = pdiag::cdm_count(a->layout, offs));
      DiagCallKernel(staged_count = pdiag::cdm_count(a->layout, staged));
    }
  }
  /* the bytes and diagonals of the whole storage; the fill of what the new
     entries would add (the stored diagonals may come from a preallocation).
     A structure that the user gave by entries set becomes aij
     (convert/scattered.cpp) when it is over the budget, instead of being
     refused (aij stores what diag cannot, and the program goes on as it
     would with aij), or when its new diagonals would be filled sparsely. */
  {
    PetscBool over_grown, over_staged, scattered, can;
    PetscInt  verdict[2]; /* some process is over or scattered; some process cannot convert */
    PetscCall(MatDiagOverBudget_Private(A, grown_count, -1, &over_grown));
    PetscCall(MatDiagOverBudget_Private(A, staged_count, nset, &over_staged));
    PetscCall(MatDiagStagedScattered_Private(A, staged_count, nset, &scattered));
    PetscCall(MatDiagStagedCanBecomeAIJ(A, &can));
    verdict[0] = (over_grown || over_staged || scattered) ? 1 : 0;
    verdict[1] = can ? 0 : 1;
    if (size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, verdict, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    a->assembly.staged_to_aij = (verdict[0] && !verdict[1]) ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscErrorCode ierr = 0;
  if (!a->assembly.staged_to_aij) {
    ierr = MatDiagCheckBudget_Private(A, grown_count, -1);
    if (!ierr) ierr = MatDiagCheckBudget_Private(A, staged_count, nset);
  }
  if (size > 1) PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, "MatAssemblyEnd() (the memory budget of the new diagonals)"));
  else PetscCall(ierr);
  if (ierr) {
    a->assembly.staged.clear(); /* refused: the matrix keeps its stored diagonals and its list */
    PetscFunctionReturn(0);
  }
  if (a->assembly.staged_to_aij) {
    /* the staged entries go into the aij matrix, with the listed ones; the
       new diagonals are never stored */
    if (!incoming.empty()) DiagCallKernel(pdiag::remote_entries_add(a->remote, incoming));
    a->assembly.structure_changed = PETSC_TRUE;
    A->nonzerostate++;
    PetscFunctionReturn(0);
  }
  if (!incoming.empty()) {
    PetscCallCXX(for (const auto &e : incoming) if (e.v == 0.0) a->assembly.zero_sets.record(a->layout.row_begin + e.il, e.col));
    DiagCallKernel(pdiag::remote_entries_add(a->remote, incoming));
    MatDiagValuesChanged(A);
    a->assembly.structure_changed = PETSC_TRUE;
    a->mpi.ghost_valid       = PETSC_FALSE;
    A->nonzerostate++;
  }
  if (a->assembly.staged.empty()) PetscFunctionReturn(0);
  /* the staged entries of diagonal d that hold a zero once written (d's values from row lo(d)) */
  const auto record_set_zeros = [a](Index d, const pdiag::StagedDiagonal<PetscScalar> &s, const PetscScalar *written) {
    for (Index i : s.set_zero_rows(a->layout.lo(d), written)) a->assembly.zero_sets.record(i, i + d);
  };
  if (a->scheme == pdiag::Scheme::HM) {
    std::vector<Index> offs = a->hm.offsets;
    for (const auto &kv : a->assembly.staged) offs.push_back(kv.first);
    Hm grown;
    DiagCallKernel(grown = pdiag::hm_regrid(a->hm, offs); pdiag::hm_set_staged(grown, a->assembly.staged));
    PetscCallCXX(for (const auto &kv : a->assembly.staged) record_set_zeros(kv.first, kv.second, grown.val.data() + grown.start[grown.find_diagonal(kv.first)]));
    /* listed entries on diagonals that are stored now go onto them */
    PetscCallCXX(for (const auto &e : pdiag::remote_entries_take(a->remote, a->layout.row_begin, promote)) * grown.find(a->layout.row_begin + e.il, e.col) = e.v);
    PetscCall(MatDiagReplaceStorage_Private(A, std::move(grown)));
  } else {
    std::vector<Index> koffs = a->cdm.koffsets;
    for (const auto &kv : a->assembly.staged) koffs.push_back(kv.first < 0 ? kv.first + a->layout.ncols : kv.first);
    Cdm grown;
    DiagCallKernel(grown = pdiag::cdm_regrid(a->cdm, koffs); pdiag::cdm_set_staged(grown, a->assembly.staged));
    PetscCallCXX(for (const auto &kv : a->assembly.staged) {
      const Index d = kv.first;
      record_set_zeros(d, kv.second, grown.val.data() + grown.view().pos(grown.find_diagonal(d < 0 ? d + a->layout.ncols : d), a->layout.lo(d)));
    });
    PetscCall(MatDiagCheckCount_Private(A, grown.ndiag()));
    a->cdm = std::move(grown);
    a->assembly.staged.clear();
    a->assembly.structure_changed = PETSC_TRUE;
    a->mpi.ghost_valid       = PETSC_FALSE;
    A->nonzerostate++;
  }
  PetscFunctionReturn(0);
}

/* Puts the matrix in the scheme asked for (auto: the one with fewer bytes
   over all processes; under MPI, HM's are those its products read).
   Collective. */
PetscErrorCode MatDiagApplyStorage_Private(Mat A)
{
  Mat_Diag     *a = (Mat_Diag *)A->data;
  pdiag::Scheme want;

  PetscFunctionBegin;
  /* a block listing entries stays HM under auto (CDM has no list: it would
     store them as diagonals, which the list is there to avoid) */
  if (a->opt.storage_req == MAT_DIAG_STORAGE_HM || A->rmap->N != A->cmap->N || (a->remote_any && a->opt.storage_req == MAT_DIAG_STORAGE_AUTO)) want = pdiag::Scheme::HM;
  else if (a->opt.storage_req == MAT_DIAG_STORAGE_CDM) want = pdiag::Scheme::CDM;
  else {
    /* bytes of the two schemes, summed over the processes */
    double bytes[2] = {0, 0}, sum[2];
    if (a->scheme == pdiag::Scheme::HM) {
      const pdiag::StructureReport r = pdiag::structure_report(a->hm, 0);
      PetscBool                    split;
      double                       read;
      bytes[0] = (double)r.bytes_hm;
      bytes[1] = (double)r.bytes_cdm;
      /* under MPI, HM's products leave sparsely filled diagonals reaching
         other processes to a list (a process grid with unequal widths):
         weigh what they read, which CDM, without the split, cannot match */
      PetscCall(MatDiagSplitReadBytes_Private(A, &split, &read));
      if (split) bytes[0] = read;
    } else {
      bytes[1] = (double)(a->cdm.val.size() * sizeof(PetscScalar) + a->cdm.koffsets.size() * sizeof(Index));
      bytes[0] = bytes[1] + 1; /* stay in CDM unless the structure changes */
    }
    PetscCall(MPIU_Allreduce(bytes, sum, 2, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)A)));
    want = sum[1] < sum[0] ? pdiag::Scheme::CDM : pdiag::Scheme::HM;
  }
  if (want == a->scheme) PetscFunctionReturn(0);
  if (want == pdiag::Scheme::CDM) { /* a short diagonal takes a whole compact one: check what CDM would take */
    pdiag::StorageCount count;
    PetscCall(MatDiagRemoteToDiagonals_Private(A, "CDM storage"));
    DiagCallKernel(count = pdiag::cdm_count(a->layout, a->hm.offsets));
    PetscCall(MatDiagCheckBudgetAll_Private(A, count, -1));
  }
  PetscCall(MatDiagDeviceTry(host_values_ensure, A));
  if (want == pdiag::Scheme::CDM) {
    Cdm cdm;
    DiagCallKernel(cdm = pdiag::cdm_from_hm(a->hm));
    a->cdm = std::move(cdm);
    a->hm  = Hm();
  } else {
    Hm hm;
    DiagCallKernel(hm = pdiag::hm_from_cdm(a->cdm, MatDiagCdmHmOffsets(a->cdm)));
    a->hm  = std::move(hm);
    a->cdm = Cdm();
  }
  a->scheme            = want;
  MatDiagValuesChanged(A);
  a->assembly.ForgetSlotHints();
  a->assembly.structure_changed = PETSC_TRUE;
  a->mpi.ghost_valid       = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode MatAssemblyEnd_Diag(Mat A, MatAssemblyType type)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscMPIInt size;

  PetscFunctionBegin;
  /* values only the device has come back; deferred host values (a GPU
     product's result) are allocated only if this assembly needs them */
  PetscCall(MatDiagDeviceTry(sync_host_data, A));
  if (!a->assembly.staged.empty() || !a->assembly.stash_i.empty()) PetscCall(MatDiagDeviceTry(host_values_ensure, A));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1 && !A->nooffprocentries) PetscCall(MatDiagExchangeStash(A));
  if (type == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(0);
  PetscCall(MatDiagKeepView_Private(A)); /* -mat_view ::ascii_info reaches diag's view (a DMDA's matrix in parallel) */
  PetscCall(MatDiagMergeStaged(A));
  PetscCallCXX(a->assembly.zero_sets.merge()); /* the set zeros not held before join the sorted list */
  /* auto storage and the check for a scattered structure decide with
     reductions over all processes, but new diagonals may have arrived on
     some processes only: decide together */
  if (size > 1) {
    PetscBool changed;
    PetscCall(MPIU_Allreduce(&a->assembly.structure_changed, &changed, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
    a->assembly.structure_changed = changed;
  }
  /* a new nonzero location on one process is a new nonzero pattern for the
     whole matrix (PCSetUp decides by it on every process, and would take
     different paths on different processes): the processes agree on the
     nonzero state as mpiaij's assembly does */
  if (size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &A->nonzerostate, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)A)));
  if (size > 1) PetscCall(MatDiagRemoteAgree_Private(A));
  if (a->assembly.structure_changed) {
    if (!a->assembly.internal_assembly) {
      PetscBool converted;
      PetscCall(MatDiagConvertIfScattered_Private(A, -1, NULL, NULL, &converted));
      if (converted) PetscFunctionReturn(0); /* A is an aij matrix now */
    } else if (a->assembly.staged_to_aij) PetscFunctionReturn(0); /* MatSetPreallocationCOO() converts it with its entries */
    PetscCall(MatDiagApplyStorage_Private(A));
    a->assembly.structure_changed = PETSC_FALSE;
  }
  PetscCall(MatDiagSyncStructure_Private(A));
  /* a new nonzero location where the aij copy has no entry raises the
     nonzero state now, as for aij (companion/companion.cpp). Only matrices
     that keep a copy. */
  if (a->aij.companion && a->aij.companion_nzstate == A->nonzerostate) PetscCall(MatDiagCompanionAssemblyEnd_Private(A));
  if (!a->assembly.defer_upload) PetscCall(MatDiagDeviceTry(assembly_end, A));
  PetscFunctionReturn(0);
}

PetscErrorCode MatZeroEntries_Diag(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  MatDiagValuesChanged(A);
  std::fill(a->hm.val.begin(), a->hm.val.end(), 0.0);
  std::fill(a->cdm.val.begin(), a->cdm.val.end(), 0.0);
  std::fill(a->remote.val.begin(), a->remote.val.end(), 0.0);
  for (auto &kv : a->assembly.staged) kv.second.zero();
  PetscFunctionReturn(0);
}

/* COO: the structure is discovered by an assembly of zeros (remote entries
   travel through the stash); each owned entry then gets its slot in the
   value array, remote entries keep going through MatSetValues. */
PetscErrorCode MatSetPreallocationCOO_Diag(Mat A, PetscCount ncoo, PetscInt coo_i[], PetscInt coo_j[])
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  /* a new structure from zeros, as aij does: MatSetUp() would keep the
     diagonals and values of a matrix that was already set up */
  /* an entry out of range on some processes only: every process stops
     (the others would wait in the assembly below) */
  PetscCount      bad    = -1;
  const PetscBool argbad = (ncoo < 0 || (ncoo > 0 && (!coo_i || !coo_j))) ? PETSC_TRUE : PETSC_FALSE; /* PETSc's pointer checks are compiled out of optimized builds */
  for (PetscCount e = 0; !argbad && e < ncoo && bad < 0; e++)
    if (coo_i[e] >= A->rmap->N || coo_j[e] >= A->cmap->N) bad = e;
  {
    PetscMPIInt mine = (bad >= 0 || argbad) ? 1 : 0, any;
    PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    PetscCheck(!argbad, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatSetPreallocationCOO() got %" PetscCount_FMT " entries and a NULL index array (or a negative count)", ncoo);
    PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: COO entry %" PetscCount_FMT " at (%" PetscInt_FMT ", %" PetscInt_FMT ") outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix", bad, coo_i[bad], coo_j[bad], A->rmap->N, A->cmap->N);
    PetscCheck(!any, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: a COO entry of another process is outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix, or its arguments are wrong (see that process's error)", A->rmap->N, A->cmap->N);
  }
  PetscCall(MatSetUp_Diag(A));
  a->opt.list_remote = PETSC_FALSE; /* COO slots are positions in the diagonals' values: no list (a DMDA's set-up may have made one, stored as diagonals below) */
  a->assembly.coo_i.assign(coo_i, coo_i + ncoo);
  a->assembly.coo_j.assign(coo_j, coo_j + ncoo);
  for (PetscCount e = 0; e < ncoo; e++) {
    if (coo_i[e] < 0 || coo_j[e] < 0) continue;
    PetscCall(MatSetValue(A, coo_i[e], coo_j[e], 0.0, ADD_VALUES));
  }
  a->assembly.internal_assembly = PETSC_TRUE; /* a scattered structure is converted below, with the COO entries */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  a->assembly.internal_assembly = PETSC_FALSE;
  if (!a->assembly.staged_to_aij) PetscCall(MatDiagRemoteToDiagonals_Private(A, "MatSetPreallocationCOO()"));
  a->assembly.coo_state = -1; /* slots are computed at the first MatSetValuesCOO */
  {
    PetscBool converted;
    PetscCall(MatDiagConvertIfScattered_Private(A, ncoo, a->assembly.coo_i.data(), a->assembly.coo_j.data(), &converted));
  }
  PetscFunctionReturn(0);
}

/* Slots of the owned COO entries in the current storage (-1: not owned or ignored). */
PetscErrorCode MatDiagCOOSlots_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(host_values_ensure, A)); /* slots are positions in the host array */
  PetscCheck(a->remote.empty(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: COO assembly of a matrix listing entries");
  PetscScalar *base = a->values();
  a->assembly.coo_slot.assign(a->assembly.coo_i.size(), -1);
  a->assembly.coo_remote = PETSC_FALSE;
  for (std::size_t e = 0; e < a->assembly.coo_i.size(); e++) {
    const PetscInt i = a->assembly.coo_i[e], j = a->assembly.coo_j[e];
    if (i < 0 || j < 0) continue;
    if (i < a->layout.row_begin || i >= a->layout.row_end()) {
      a->assembly.coo_remote = PETSC_TRUE;
      continue;
    }
    PetscScalar *slot = MatDiagSlot(a, i, j, 0); /* one hint: the previous entry's diagonal */
    PetscCheck(slot, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: COO entry (%" PetscInt_FMT ", %" PetscInt_FMT ") has no slot", i, j);
    a->assembly.coo_slot[e] = slot - base;
  }
  a->assembly.coo_state = A->nonzerostate;
  PetscFunctionReturn(0);
}

PetscErrorCode MatSetValuesCOO_Diag(Mat A, const PetscScalar v[], InsertMode mode)
{
  PetscBool done = PETSC_FALSE;
  Mat_Diag *a    = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(v || a->assembly.coo_i.empty(), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatSetValuesCOO() got a NULL array of values");
  /* values in device memory: scattered on the device (device/device.cpp) */
  PetscCall(MatDiagDeviceTry(set_values_coo, A, v, mode, &done));
  if (!done) PetscCall(MatDiagSetValuesCOOHost_Private(A, v, mode));
  PetscFunctionReturn(0);
}

/* MatSetValuesCOO with host values: scattered into the host copy, entries
   of other processes' rows set with MatSetValues (sent at assembly). */
PetscErrorCode MatDiagSetValuesCOOHost_Private(Mat A, const PetscScalar v[], InsertMode mode)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(sync_host, A));
  if (a->assembly.coo_state != A->nonzerostate) PetscCall(MatDiagCOOSlots_Private(A));
  MatDiagValuesChanged(A);
  if (mode == INSERT_VALUES) PetscCall(MatZeroEntries_Diag(A));
  PetscScalar *val = a->values();
  DiagCallKernel(pdiag::scatter_add(val, a->assembly.coo_slot.data(), v, (Index)a->assembly.coo_slot.size()));
  if (a->assembly.coo_remote) {
    for (std::size_t e = 0; e < a->assembly.coo_i.size(); e++) {
      const PetscInt i = a->assembly.coo_i[e];
      if (i < 0 || a->assembly.coo_j[e] < 0 || (i >= a->layout.row_begin && i < a->layout.row_end())) continue;
      PetscCall(MatSetValue(A, i, a->assembly.coo_j[e], v[e], ADD_VALUES));
    }
  }
  /* ... and sent now: the assembly that MatSetValuesCOO() runs next may not
     send them (PETSc 3.25 runs it with MAT_NO_OFF_PROC_ENTRIES, since COO
     implementations communicate by themselves). Collective: every process
     takes this host path together (MatDiagSetValuesCOODevice_Private). */
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) {
    const InsertMode was = A->insertmode;
    A->insertmode        = ADD_VALUES; /* how the receivers set the entries */
    PetscCall(MatDiagExchangeStash(A));
    A->insertmode = was;
  }
  PetscFunctionReturn(0);
}
