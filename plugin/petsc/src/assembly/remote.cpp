/* The entries of a distributed HM block kept in a list instead of on
   diagonals (Mat_Diag::remote, pdiag/remote.hpp): where they come from (a
   DMDA's preallocation, new diagonals at assembly), the agreement on
   whether any process has them, and their move onto diagonals for the
   operations that read only diagonals. */
#include "core/mat_diag.hpp"

/* remote_any: whether some process lists entries. Collective. */
PetscErrorCode MatDiagRemoteAgree_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscBool mine = (PetscBool)!a->remote.empty();
  PetscCall(MPIU_Allreduce(&mine, &a->remote_any, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(0);
}

/* Stores the listed entries on diagonals of their own, on every process
   (the storage of -mat_diag_list_remote 0): what an operation that reads
   only diagonals calls first. The
   nonzero pattern is unchanged, so is the nonzero state. `op` names the
   operation for -info. Collective. */
PetscErrorCode MatDiagRemoteToDiagonals_Private(Mat A, const char *op)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (!a->remote_any) PetscFunctionReturn(0);
  PetscCall(MatDiagDeviceTry(sync_host, A));
  std::vector<Index> offs = a->hm.offsets;
  PetscCallCXX(for (const auto &kv : pdiag::remote_entries_per_diagonal(a->remote, a->layout.row_begin)) offs.push_back(kv.first));
  pdiag::StorageCount count;
  DiagCallKernel(count = pdiag::hm_count(a->layout, offs));
  PetscCall(MatDiagCheckBudgetAll_Private(A, count, -1)); /* the diagonals' count too, on every process */
  if (!a->remote.empty()) {
    Hm grown;
    DiagCallKernel(grown = pdiag::hm_regrid(a->hm, offs));
    PetscCallCXX(for (const auto &e : pdiag::remote_entries_list(a->remote)) * grown.find(a->layout.row_begin + e.il, e.col) = e.v);
    PetscCall(PetscInfo(A, "diag: %s reads diagonals only: the %" PetscInt_FMT " listed entries go onto %" PetscInt_FMT " diagonals of their own\n", op, (PetscInt)a->remote.size(), (PetscInt)(grown.ndiag() - a->hm.ndiag())));
    a->hm     = std::move(grown);
    a->remote = pdiag::RemoteEntries<PetscScalar>();
    a->assembly.ForgetSlotHints();
  }
  MatDiagValuesChanged(A);
  a->remote_any  = PETSC_FALSE;
  a->mpi.ghost_valid = PETSC_FALSE; /* on every process: its set-up is collective */
  PetscFunctionReturn(0);
}

/* At a merge of staged diagonals (HM, MPI, -mat_diag_list_remote): takes the
   staged diagonals whose entries are to be listed (pdiag::lists_as_remote,
   counting the entries already listed on them) out of a->assembly.staged into
   *incoming; *promote gets the listed diagonals that keep staged entries,
   whose listed entries go onto the new diagonal. Not collective. */
PetscErrorCode MatDiagStagedToRemote_Private(Mat A, std::vector<pdiag::RemoteEntry<PetscScalar>> *incoming, std::vector<Index> *promote)
{
  Mat_Diag            *a = (Mat_Diag *)A->data;
  const pdiag::Layout &L = a->layout;

  PetscFunctionBegin;
  incoming->clear();
  promote->clear();
  std::map<Index, Index> listed;
  PetscCallCXX(listed = pdiag::remote_entries_per_diagonal(a->remote, L.row_begin));
  for (auto it = a->assembly.staged.begin(); it != a->assembly.staged.end();) {
    const Index d = it->first;
    const auto  l = listed.find(d);
    std::vector<std::pair<Index, PetscScalar>> set;
    bool outside = it->second.dense.empty();
    if (outside) PetscCallCXX(set = it->second.row_values());
    for (const auto &e : set) outside = outside && (e.first + d < a->mpi.col_begin || e.first + d >= a->mpi.col_end);
    const Index count = (Index)set.size() + (l == listed.end() ? 0 : l->second);
    if (!pdiag::lists_as_remote(L, kListFillRatio, d, count, outside)) {
      if (l != listed.end()) PetscCallCXX(promote->push_back(d));
      ++it;
      continue;
    }
    PetscCallCXX(for (const auto &e : set) incoming->push_back({e.first - L.row_begin, e.first + d, e.second}));
    it = a->assembly.staged.erase(it);
  }
  PetscFunctionReturn(0);
}

/* The diagonals a DMDA's stencil puts on this process's rows (MPI, HM,
   -mat_diag_list_remote), with the couplings to be listed taken out into
   a->remote (as zeros): *offsets keeps the grid's other offsets.
   Not collective. */
PetscErrorCode MatDiagGridRemoteSplit_Private(Mat A, std::vector<Index> *offsets)
{
  Mat_Diag                        *a = (Mat_Diag *)A->data;
  const pdiag::GridStencilPattern *pattern;
  PetscMPIInt                      rank;

  PetscFunctionBegin;
  PetscCall(MatDiagGridPattern_Private(A, &pattern));
  if (!pattern) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  pdiag::PatternSplit<PetscScalar> split;
  /* only the box's face rows can couple to other processes: the walk is the box's surface */
  DiagCallKernel(split = pdiag::split_pattern_remote<PetscScalar>(a->layout, a->mpi.col_begin, a->mpi.col_end, kListFillRatio, pattern->face_rows(rank), pattern->interior_offsets(rank), [pattern](Index i) { return pattern->couplings(i); }));
  if (split.listed.empty()) PetscFunctionReturn(0);
  std::vector<Index> kept;
  PetscCallCXX({
    const std::map<Index, Index> listed = pdiag::remote_entries_per_diagonal(split.listed, a->layout.row_begin);
    for (const Index d : *offsets)
      if (!listed.count(d)) kept.push_back(d);
  });
  PetscCall(PetscInfo(A, "diag: %" PetscInt_FMT " of the stencil's %" PetscInt_FMT " diagonals on this process stored, %" PetscInt_FMT " couplings listed\n", (PetscInt)kept.size(), (PetscInt)offsets->size(), (PetscInt)split.listed.size()));
  *offsets  = std::move(kept);
  a->remote = std::move(split.listed);
  PetscFunctionReturn(0);
}
