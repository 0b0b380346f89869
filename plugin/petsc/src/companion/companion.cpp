/* The aij companion of a diag matrix (docs/design.md, "The aij companion").
   Preconditioners and solvers that work on the
   graph of a matrix (orderings, overlapping subdomains, AMG graphs, coloring
   for finite differences, external factorizations) read aij's compressed
   rows. For those, a diag matrix keeps an aij copy of itself: built once,
   kept with the matrix, refreshed in place when its values change (same
   structure: the aij object, and any pointer into its values, stays valid)
   and rebuilt in place (MatHeaderReplace: the same Mat handle) when its
   structure changes. -info reports each build.

   The copy holds what an aij matrix of the same operator would hold. A
   diag matrix stores whole diagonals; aij stores the entries that were
   set. Diag records only the set positions that hold an exact zero
   (Mat_Diag::zero_sets: contributions that cancel, explicit zeros), so the
   copy holds the main diagonal, every nonzero, those set zeros, for a
   DMDA's matrix every coupling of its stencil (zero or not: aij's
   DMCreateMatrix holds them),
   every entry of the aij matrix this one was converted from (MatConvert,
   MatLoad, submatrices: explicit zeros included), and every entry an
   earlier copy of the same structure held (an entry that became zero
   stays, as in aij), but not the stencil's couplings in a row that
   MatZeroRows emptied (Mat_Diag::dropped_rows: aij's zeroed row holds its
   diagonal only, unless MAT_KEEP_NONZERO_PATTERN is set). Stored zeros beyond that (a diagonal
   running past the end of a grid line, the zeros a matrix PETSc built with
   this type, e.g. a multigrid prolongator, carries along its diagonals) are
   not entries: an ordering, an overlap, a coloring or a product that saw
   them would differ from aij's, or cost far more. A nonzero appearing where
   the copy had no entry is a new nonzero location: the copy is rebuilt and
   the matrix's nonzero state increases, as for aij. */
#include "core/mat_diag.hpp"


#include "pdiag/convert.hpp"
#include "pdiag/ops.hpp"
#include "pdiag/stencil.hpp"

#include <limits>
#include <memory>

/* Which stored entries of A an aij matrix of the same operator holds (see
   above): the main diagonal of a square matrix, every nonzero, the set
   positions holding zeros, for a DMDA's matrix the stencil's couplings,
   and with `previous` (the pattern of an
   aij copy of the same structure) its entries too, so that an entry that
   became zero stays, as it stays in aij. */
struct AijEntries {
  const pdiag::GridStencilPattern *stencil = nullptr;
  bool                             square  = false;
  const std::vector<Index>        *prev_rowptr = nullptr, *prev_colidx = nullptr;
  bool                             prev_has_stencil = false; /* the previous pattern keeps the stencil's stored couplings */
  const std::vector<std::pair<Index, Index>> *zero_sets = nullptr; /* set positions holding zeros */
  const std::vector<Index>        *dropped = nullptr;   /* rows without the stencil's couplings (Mat_Diag::dropped_rows) */
  Index                            r0 = 0;

  /* A row-by-row walk asks about each row once per stored diagonal
     (hundreds on a process grid of unequal widths, thousands for a
     scattered matrix), its columns ascending: from the second question
     about a row on, the zeros it keeps there are listed once and a cursor
     follows the columns asked (a binary search when they go back). */
  mutable Index              row_cached = -1, row_last = -1;
  mutable std::vector<Index> row_zero_cols;
  mutable std::size_t        row_cursor = 0;

  bool operator()(Index i, Index j, PetscScalar v) const
  {
    if ((square && i == j) || v != 0.0) return true;
    if (i != row_cached && i == row_last) ListZerosKept(i);
    if (i == row_cached) {
      if (row_cursor > 0 && row_zero_cols[row_cursor - 1] >= j) row_cursor = static_cast<std::size_t>(std::lower_bound(row_zero_cols.begin(), row_zero_cols.end(), j) - row_zero_cols.begin());
      while (row_cursor < row_zero_cols.size() && row_zero_cols[row_cursor] < j) ++row_cursor;
      if (row_cursor < row_zero_cols.size() && row_zero_cols[row_cursor] == j) {
        ++row_cursor;
        return true;
      }
      return false;
    }
    row_last = i;
    return KeepsZero(i, j);
  }
  /* A previous pattern that this rule built holds every stored stencil
     coupling: the stencil is then not asked again (its couplings cost a
     pass over the stencil per row, at every refresh of the copy). */
  bool AsksStencil() const { return stencil && !(prev_rowptr && prev_has_stencil); }
  mutable Index dropped_row = -1;
  mutable bool  dropped_hit = false;
  bool          AsksStencil(Index i) const
  {
    if (!AsksStencil()) return false;
    if (dropped && i != dropped_row) {
      dropped_row = i;
      dropped_hit = std::binary_search(dropped->begin(), dropped->end(), i);
    }
    return !(dropped && dropped_hit);
  }
  bool KeepsZero(Index i, Index j) const
  {
    if (AsksStencil(i) && stencil->contains(i, j)) return true;
    if (zero_sets && std::binary_search(zero_sets->begin(), zero_sets->end(), std::make_pair(i, j))) return true;
    if (!prev_rowptr) return false;
    const auto first = prev_colidx->begin() + (*prev_rowptr)[i - r0], last = prev_colidx->begin() + (*prev_rowptr)[i - r0 + 1];
    return std::binary_search(first, last, j);
  }
  /* KeepsZero's columns of row i: the stencil's couplings, the set zeros,
     the previous pattern's (each list sorted: sorted together only when
     more than one gives columns) */
  void ListZerosKept(Index i) const
  {
    int lists = 0;
    row_zero_cols.clear();
    if (AsksStencil(i)) {
      stencil->couplings_into(i, row_zero_cols);
      lists += !row_zero_cols.empty();
    }
    if (zero_sets) {
      const std::size_t before = row_zero_cols.size();
      const auto        lo     = std::lower_bound(zero_sets->begin(), zero_sets->end(), std::make_pair(i, std::numeric_limits<Index>::min()));
      for (auto it = lo; it != zero_sets->end() && it->first == i; ++it) row_zero_cols.push_back(it->second);
      lists += row_zero_cols.size() > before;
    }
    if (prev_rowptr) {
      const std::size_t before = row_zero_cols.size();
      row_zero_cols.insert(row_zero_cols.end(), prev_colidx->begin() + (*prev_rowptr)[i - r0], prev_colidx->begin() + (*prev_rowptr)[i - r0 + 1]);
      lists += row_zero_cols.size() > before;
    }
    if (lists > 1) std::sort(row_zero_cols.begin(), row_zero_cols.end());
    row_cached = i;
    row_cursor = 0;
  }
};

/* The rule for A; `sticky`: with the aij pattern A keeps, if it has A's structure. */
static PetscErrorCode MatDiagAijEntries(Mat A, bool sticky, AijEntries *rule)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagGridPattern_Private(A, &rule->stencil));
  rule->square = A->rmap->N == A->cmap->N;
  rule->r0     = A->rmap->rstart;
  if (!a->assembly.zero_sets.list().empty()) rule->zero_sets = &a->assembly.zero_sets.list();
  if (!a->aij.dropped_rows.empty()) rule->dropped = &a->aij.dropped_rows;
  if (sticky && a->aij.pattern_nzstate == A->nonzerostate) {
    rule->prev_rowptr      = &a->aij.rowptr;
    rule->prev_has_stencil = a->aij.pattern_has_stencil;
    rule->prev_colidx = &a->aij.colidx;
  }
  PetscFunctionReturn(0);
}

/* A's stored entries as HM (a CDM matrix's converted) with the rule of
   those aij holds, host values current. */
struct AijView {
  Hm                                       from_cdm;
  const Hm                                *hm     = nullptr;
  const pdiag::RemoteEntries<PetscScalar> *remote = nullptr; /* the entries A keeps in a list (none: null) */
  AijEntries                               rule;
};

static PetscErrorCode MatDiagAijView(Mat A, bool sticky, AijView *v)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(sync_host, A));
  PetscCall(MatDiagAijEntries(A, sticky, &v->rule));
  if (a->scheme == pdiag::Scheme::CDM) DiagCallKernel(v->from_cdm = pdiag::hm_from_cdm(a->cdm, pdiag::cdm_structural_offsets(a->cdm)));
  v->hm     = a->scheme == pdiag::Scheme::HM ? &a->hm : &v->from_cdm;
  v->remote = a->remote.empty() ? nullptr : &a->remote;
  PetscFunctionReturn(0);
}

/* Whether the slots the kept pattern leaves out (DiagAijCopy::outside)
   describe the structure of hm and remote (A's, or its HM view): found for
   this nonzero state, scheme, diagonals and count of listed entries, with
   the pattern of this nonzero state (the listed entries' positions change
   only with the nonzero state, or all go onto diagonals). */
static bool MatDiagOutsideValid(Mat A, const Hm &hm, const pdiag::RemoteEntries<PetscScalar> *remote)
{
  const Mat_Diag *a = (const Mat_Diag *)A->data;
  return a->aij.outside_nzstate == A->nonzerostate && a->aij.pattern_nzstate == A->nonzerostate && a->aij.outside_scheme == a->scheme && a->aij.outside_listed == (remote ? remote->size() : 0) && a->aij.outside_offsets == hm.offsets;
}

/* Keeps `outside`, the slots that the kept pattern (a->aij.rowptr, colidx),
   the rule's for A's values now, leaves out. */
static PetscErrorCode MatDiagOutsideKeep(Mat A, const AijView &v, std::vector<Index> &&outside)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  a->aij.ForgetOutside();
  PetscCallCXX(a->aij.outside_offsets = v.hm->offsets);
  a->aij.outside         = std::move(outside);
  a->aij.outside_nzstate = A->nonzerostate;
  a->aij.outside_scheme  = a->scheme;
  a->aij.outside_listed  = v.remote ? v.remote->size() : 0;
  a->aij.outside_zeros   = a->assembly.zero_sets.stamp();
  PetscFunctionReturn(0);
}

/* Finds and keeps the slots that the kept pattern, the rule's for A's
   values now, leaves out. */
static PetscErrorCode MatDiagOutsideFind(Mat A, const AijView &v)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  std::vector<Index> outside;
  bool               subset;

  PetscFunctionBegin;
  a->aij.ForgetOutside();
  DiagCallKernel(subset = pdiag::hm_slots_outside_csr(*v.hm, a->aij.rowptr, a->aij.colidx, outside, v.remote));
  if (subset) PetscCall(MatDiagOutsideKeep(A, v, std::move(outside))); /* else not a pattern of the stored entries: the rule decides each time */
  PetscFunctionReturn(0);
}

/* Whether the kept pattern is still the rule's for A's values (*same),
   decided by the slots it leaves out: no left-out entry is nonzero, and
   the set zeros lie in the pattern (those of the last merge, when they are
   the only ones added since the slots were found). *known is false when
   the slots do not describe A's structure (the rule must decide). With
   use_checked, an assembly's finding for A's state `state`
   (outside_checked) stands. Local. */
static PetscErrorCode MatDiagOutsideCheck(Mat A, const AijView &v, PetscBool use_checked, PetscObjectState state, PetscBool *known, PetscBool *same)
{
  Mat_Diag                 *a = (Mat_Diag *)A->data;
  const pdiag::PositionSet &z = a->assembly.zero_sets;
  bool                      held, nonzero;

  PetscFunctionBegin;
  *known = *same = PETSC_FALSE;
  if (!MatDiagOutsideValid(A, *v.hm, v.remote)) PetscFunctionReturn(0);
  if (a->aij.outside_zeros != z.stamp()) { /* the zeros added by the last merge, if it kept them, else all */
    const bool last = a->aij.outside_zeros == z.stamp_before_merge();
    DiagCallKernel(held = pdiag::csr_holds_positions(a->aij.rowptr, a->aij.colidx, a->layout.row_begin, last ? z.last_added() : z.list()));
    *known = PETSC_TRUE;
    if (!held) PetscFunctionReturn(0); /* a zero set where the copy has no entry */
    a->aij.outside_zeros   = z.stamp();
    a->aij.outside_checked = -1;
  }
  *known = PETSC_TRUE;
  if (use_checked && a->aij.outside_checked == state) {
    *same = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  DiagCallKernel(nonzero = pdiag::hm_slots_any_nonzero(*v.hm, a->aij.outside, v.remote));
  *same = nonzero ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The entries aij would hold as CSR of the local rows (global columns). */
static PetscErrorCode MatDiagLocalCSR(Mat A, bool sticky, pdiag::Csr<PetscScalar> *csr)
{
  AijView v;

  PetscFunctionBegin;
  PetscCall(MatDiagAijView(A, sticky, &v));
  DiagCallKernel(*csr = pdiag::hm_to_csr_if(*v.hm, v.rule, v.remote));
  PetscFunctionReturn(0);
}

/* The entries of local row `row` an aij matrix of A holds (MatGetRow). */
PetscErrorCode MatDiagAijRow_Private(Mat A, PetscInt row, std::vector<Index> *cols, std::vector<PetscScalar> *vals)
{
  Mat_Diag  *a = (Mat_Diag *)A->data;
  AijEntries rule;

  PetscFunctionBegin;
  PetscCall(MatDiagAijEntries(A, true, &rule));
  if (a->scheme == pdiag::Scheme::HM) DiagCallKernel(pdiag::get_row_if(a->hm.view(), (Index)row, *cols, *vals, rule); pdiag::remote_merge_row(a->remote, (Index)row - a->layout.row_begin, (Index)row, rule, *cols, *vals));
  else DiagCallKernel(pdiag::get_row_if(a->cdm.view(), (Index)row, *cols, *vals, rule));
  PetscFunctionReturn(0);
}

/* A mask over the stored entries of hm (A's HM storage): 1 where aij would
   hold an entry (the factorizations on the diagonals keep aij's pattern). */
PetscErrorCode MatDiagAijEntriesMask_Private(Mat A, const Hm &hm, std::vector<unsigned char> *mask)
{
  AijEntries rule;

  PetscFunctionBegin;
  PetscCall(MatDiagAijEntries(A, true, &rule));
  DiagCallKernel(*mask = pdiag::hm_entry_mask(hm, rule));
  PetscFunctionReturn(0);
}

/* How many local entries an aij matrix of A holds (MatGetInfo's nz_used:
   GAMG's operator complexity and the views count with it), kept until A's
   state or nonzero state changes: the kept pattern's, while the slots it
   leaves out say it is the rule's. */
PetscErrorCode MatDiagAijEntryCount_Private(Mat A, Index *count)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (a->aij.count_state != state || a->aij.count_nzstate != A->nonzerostate) {
    AijView   v;
    PetscBool known = PETSC_FALSE, same = PETSC_FALSE;
    PetscCall(MatDiagAijView(A, true, &v));
    if (a->aij.pattern_nzstate == A->nonzerostate) PetscCall(MatDiagOutsideCheck(A, v, PETSC_TRUE, state, &known, &same));
    if (known && same) a->aij.count = (Index)a->aij.colidx.size(); /* the kept pattern is the rule's */
    else DiagCallKernel(a->aij.count = pdiag::hm_count_if(*v.hm, v.rule, v.remote));
    a->aij.count_state   = state;
    a->aij.count_nzstate = A->nonzerostate;
  }
  *count = a->aij.count;
  PetscFunctionReturn(0);
}

/* Whether an aij matrix of A (sequential: a parallel one's diagonal block)
   runs its SOR on "inodes", PETSc's runs of consecutive rows with the same
   columns (multi-field grids, vector FEM problems): seqaij's MatSOR is then
   a block Gauss-Seidel with the runs' diagonal blocks inverted (for omega =
   1 and no shift), and converges otherwise than point SOR. Decided as
   MatSeqAIJCheckInode decides (-mat_no_inode, -mat_inode_limit, at most
   0.8 runs per row), on the entries aij would hold (the kept aij pattern
   while the slots it leaves out say it is the rule's); kept per state of
   the values. */
PetscErrorCode MatDiagUsesInodes_Private(Mat A, PetscBool *use)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (a->cache.inode_state == state) {
    *use = a->cache.inode_use;
    PetscFunctionReturn(0);
  }
  const PetscInt limit = a->opt.inode_limit; /* aij's options, read at creation (MatDiagInodeOptions) */
  *use                 = PETSC_FALSE;
  if (a->opt.inode_allowed && A->rmap->n > 0 && limit > 1) {
    std::vector<Index> sizes;
    PetscBool          known = PETSC_FALSE, same = PETSC_FALSE;
    if (a->scheme == pdiag::Scheme::HM && a->aij.pattern_nzstate == A->nonzerostate) { /* the kept pattern, if it is the rule's now */
      AijView v;
      PetscCall(MatDiagAijView(A, true, &v));
      PetscCall(MatDiagOutsideCheck(A, v, PETSC_TRUE, state, &known, &same));
    }
    if (known && same) DiagCallKernel(sizes = pdiag::csr_inode_sizes(a->aij.rowptr, a->aij.colidx, (Index)limit));
    else {
      AijEntries rule;
      const Hm  *hm; /* CDM storage: the HM copy SOR sweeps on, kept per state */
      PetscCall(MatDiagHm_Private(A, &hm));
      PetscCall(MatDiagAijEntries(A, true, &rule));
      DiagCallKernel(sizes = pdiag::inode_sizes_if(hm->view(), (Index)limit, rule));
    }
    *use = (double)sizes.size() <= 0.8 * (double)A->rmap->n ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscInfo(A, "diag: %zu inodes of %" PetscInt_FMT " rows: aij would %s inode routines\n", sizes.size(), A->rmap->n, *use ? "use" : "not use"));
  }
  a->cache.inode_state = state;
  a->cache.inode_use   = *use;
  PetscFunctionReturn(0);
}

/* MatConvert to aij gives what an aij matrix of the operator holds, with
   the aij pattern A keeps (its aij copy's or its source's): a submatrix
   taken through aij and converted back, converted to aij again (MatView,
   hypre), keeps the explicit zeros aij's submatrix holds */
PetscErrorCode MatDiagLocalCSR_Private(Mat A, pdiag::Csr<PetscScalar> *csr)
{
  PetscFunctionBegin;
  PetscCall(MatDiagLocalCSR(A, true, csr));
  PetscFunctionReturn(0);
}

/* The same (the aij pattern A keeps). */
PetscErrorCode MatDiagAijCSR_Private(Mat A, pdiag::Csr<PetscScalar> *csr)
{
  PetscFunctionBegin;
  PetscCall(MatDiagLocalCSR(A, true, csr));
  PetscFunctionReturn(0);
}

/* An aij matrix of type `type` with A's layout (block sizes), the pattern
   (rowptr, colidx: local rows, global columns ascending in each row) and
   the values fill(v) writes in that order, assembled as an internal matrix
   (MatDiagAssembleInternal_Private). A sequential one is filled whole:
   exact row lengths, then all column indices (MatSeqAIJSetColumnIndices),
   then fill writes straight into its value array; the CSR preallocation
   would insert row by row through MatSetValues (a quarter of a Galerkin
   product's set-up at 129^3, which builds the level operator's aij copy),
   and a CSR of values first would be one more copy of them. */
template <class Fill>
static PetscErrorCode MatDiagAIJFromPattern(Mat A, const std::vector<Index> &rowptr_in, const std::vector<Index> &colidx_in, Fill &&fill, MatType type, Mat *B)
{
  PetscBool seq;

  PetscFunctionBegin;
  std::vector<PetscInt> colidx(colidx_in.begin(), colidx_in.end());
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), B));
  PetscCall(MatSetSizes(*B, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(*B, A, A));
  PetscCall(MatSetType(*B, type));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)*B, MATSEQAIJ, &seq));
  if (seq) {
    std::vector<PetscInt> nnz(static_cast<std::size_t>(A->rmap->n));
    for (PetscInt i = 0; i < A->rmap->n; i++) nnz[i] = (PetscInt)(rowptr_in[i + 1] - rowptr_in[i]);
    PetscCall(MatSeqAIJSetPreallocation(*B, 0, nnz.data()));
    if (!colidx.empty()) {
      PetscScalar *v;
      PetscCall(MatSeqAIJSetColumnIndices(*B, colidx.data()));
      PetscCall(MatSeqAIJGetArrayWrite(*B, &v));
      fill(v);
      PetscCall(MatSeqAIJRestoreArrayWrite(*B, &v));
    }
    PetscCall(MatDiagAssembleInternal_Private(*B, [&]() -> PetscErrorCode {
      PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
      return 0;
    }));
    PetscCall(MatSetOption(*B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE)); /* as the CSR preallocation leaves it */
    PetscFunctionReturn(0);
  }
  std::vector<PetscInt>    rowptr(rowptr_in.begin(), rowptr_in.end());
  std::vector<PetscScalar> vals(colidx.size());
  fill(vals.data());
  PetscCall(MatDiagAssembleInternal_Private(*B, [&]() -> PetscErrorCode {
    PetscCall(MatMPIAIJSetPreallocationCSR(*B, rowptr.data(), colidx.data(), vals.data()));
    return 0;
  }));
  PetscFunctionReturn(0);
}

/* An aij matrix of type `type` with A's layout holding csr (A's local rows, global columns). */
PetscErrorCode MatDiagAIJFromCSR_Private(Mat A, const pdiag::Csr<PetscScalar> &csr, MatType type, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(MatDiagAIJFromPattern(A, csr.rowptr, csr.colidx, [&](PetscScalar *out) { std::copy(csr.vals.begin(), csr.vals.end(), out); }, type, B));
  PetscFunctionReturn(0);
}

/* An aij matrix of type `type` holding A's entries (MatDiagLocalCSR_Private). */
PetscErrorCode MatDiagBuildAIJ_Private(Mat A, MatType type, Mat *B)
{
  AijView            v;
  std::vector<Index> rowptr, colidx;

  PetscFunctionBegin;
  PetscCall(MatDiagAijView(A, true, &v));
  DiagCallKernel(pdiag::hm_csr_pattern_if(*v.hm, v.rule, rowptr, colidx, v.remote));
  PetscCall(MatDiagAIJFromPattern(A, rowptr, colidx, [&](PetscScalar *out) { pdiag::hm_csr_values_if(*v.hm, v.rule, out, v.remote); }, type, B));
  PetscFunctionReturn(0);
}

/* A sequential aij matrix of type `type` with A's sizes (a sequential A)
   and the pattern an aij matrix of A holds (the aij pattern A keeps
   included, as MatDiagBuildAIJ_Private's), its values unset: the caller
   writes all of them (a Galerkin product on the GPU writes an aijcusparse
   copy's on the device, device/galerkin.cpp). The pattern is found in
   one pass straight into PetscInt arrays (no Index copy of it) and handed
   to aij whole. PetscInt must hold A's columns and entries. */
PetscErrorCode MatDiagAIJPatternOnly_Private(Mat A, MatType type, Mat *B)
{
  AijView                      v;
  std::unique_ptr<PetscInt[]>  rowptr, colidx;
  const PetscInt               m = A->rmap->n;

  PetscFunctionBegin;
  PetscCall(MatDiagAijView(A, true, &v));
  const Index stored = v.hm->nstored() + (v.remote ? v.remote->size() : 0);
  PetscCheck(stored < (Index)std::numeric_limits<PetscInt>::max() && (Index)A->cmap->N < (Index)std::numeric_limits<PetscInt>::max(), PETSC_COMM_SELF, PETSC_ERR_SUP, "diag: %" PetscInt64_FMT " stored entries do not fit PetscInt", (PetscInt64)stored);
  PetscCallCXX(rowptr.reset(new PetscInt[m + 1]));
  PetscCallCXX(colidx.reset(new PetscInt[std::max<Index>(stored, 1)]));
  DiagCallKernel(pdiag::hm_csr_pattern_if_into(*v.hm, v.rule, rowptr.get(), colidx.get(), v.remote));
  for (PetscInt i = 0; i < m; i++) rowptr[i] = rowptr[i + 1] - rowptr[i]; /* the row lengths, in place */
  PetscCall(MatCreate(PETSC_COMM_SELF, B));
  PetscCall(MatSetSizes(*B, m, A->cmap->n, m, A->cmap->n));
  PetscCall(MatSetBlockSizesFromMats(*B, A, A));
  PetscCall(MatSetType(*B, type));
  PetscCall(MatSetOption(*B, MAT_USE_INODES, PETSC_FALSE)); /* no inode scan of its rows: its values are not computed with on the host */
  PetscCall(MatSeqAIJSetPreallocation(*B, 0, rowptr.get()));
  if (rowptr[m]) PetscCall(MatSeqAIJSetColumnIndices(*B, colidx.get()));
  PetscCall(MatDiagAssembleInternal_Private(*B, [&]() -> PetscErrorCode {
    PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
    return 0;
  }));
  PetscCall(MatSetOption(*B, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Writes the values of csr into the parallel aij matrix B of the same
   pattern (a sequential one takes them straight into its array). */
static PetscErrorCode MatDiagRefreshAIJ(Mat A, const pdiag::Csr<PetscScalar> &csr, Mat B)
{
  PetscFunctionBegin;
  for (PetscInt il = 0; il < A->rmap->n; il++) {
    const PetscInt        i = A->rmap->rstart + il, nc = (PetscInt)(csr.rowptr[il + 1] - csr.rowptr[il]);
    std::vector<PetscInt> cols(csr.colidx.begin() + csr.rowptr[il], csr.colidx.begin() + csr.rowptr[il + 1]);
    PetscCall(MatSetValues(B, 1, &i, nc, cols.data(), csr.vals.data() + csr.rowptr[il], INSERT_VALUES));
  }
  PetscCall(MatDiagAssembleInternal_Private(B, [&]() -> PetscErrorCode {
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    return 0;
  }));
  PetscFunctionReturn(0);
}

/* What PCs read from their operator besides its entries: GAMG's and ML's
   near null space (elasticity's rigid body modes), the null spaces, and
   what the user declared (MAT_SPD: GAMG then estimates eigenvalues with CG
   instead of GMRES; symmetry). Set at every request: the user may set them
   after the copy was made, and setting them does not change A's state. */
PetscErrorCode MatDiagSyncProperties_Private(Mat A, Mat C)
{
  MatNullSpace nsp;
  PetscBool    set, flg;

  PetscFunctionBegin;
  PetscCall(MatIsSPDKnown(A, &set, &flg));
  if (set) PetscCall(MatSetOption(C, MAT_SPD, flg));
  PetscCall(MatIsSymmetricKnown(A, &set, &flg));
  if (set) PetscCall(MatSetOption(C, MAT_SYMMETRIC, flg));
  PetscCall(MatIsHermitianKnown(A, &set, &flg));
  if (set) PetscCall(MatSetOption(C, MAT_HERMITIAN, flg));
  PetscCall(MatIsStructurallySymmetricKnown(A, &set, &flg));
  if (set) PetscCall(MatSetOption(C, MAT_STRUCTURALLY_SYMMETRIC, flg));
  PetscCall(MatGetNearNullSpace(A, &nsp));
  PetscCall(MatSetNearNullSpace(C, nsp));
  PetscCall(MatGetNullSpace(A, &nsp));
  PetscCall(MatSetNullSpace(C, nsp));
  PetscCall(MatGetTransposeNullSpace(A, &nsp));
  PetscCall(MatSetTransposeNullSpace(C, nsp));
  PetscFunctionReturn(0);
}

/* Copies the values of the sequential aij matrix `from` into `to`, an aij
   matrix of any sequential aij type (aijcusparse: its host values, marked
   newer than the device's) made from `from` with the same structure: a
   copy made for a package that needs another type, refreshed in place. */
PetscErrorCode MatDiagCopyAIJValues_Private(Mat from, Mat to)
{
  const PetscInt    *ia, *ja;
  PetscInt           n;
  PetscBool          done;
  const PetscScalar *src;
  PetscScalar       *dst;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(from, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: the aij matrix gave no row structure");
  const PetscInt nz = ia[n];
  PetscCall(MatRestoreRowIJ(from, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(from, &src));
  PetscCall(MatSeqAIJGetArrayWrite(to, &dst));
  PetscCall(PetscArraycpy(dst, src, nz));
  PetscCall(MatSeqAIJRestoreArrayWrite(to, &dst));
  PetscCall(MatSeqAIJRestoreArrayRead(from, &src));
  PetscFunctionReturn(0);
}

/* A's aij companion, current with A's values. `purpose` names what needs it
   (for -info). Collective when it has to be built or, under MPI, refreshed.
   New values refresh it in place; a new pattern (A's structure changed, or
   a value appeared where the stencil couples nothing) rebuilds it under the
   same handle, and counts as a new nonzero structure of A, as a new
   nonzero location does for aij. */
PetscErrorCode MatDiagGetCompanion_Private(Mat A, const char *purpose, Mat *C)
{
  Mat_Diag               *a = (Mat_Diag *)A->data;
  PetscObjectState        state;
  pdiag::Csr<PetscScalar> csr;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "diag: %s needs an assembled matrix", purpose);
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (a->aij.companion && a->aij.companion_state == state) {
    PetscCall(MatDiagSyncProperties_Private(A, a->aij.companion));
    *C = a->aij.companion;
    PetscFunctionReturn(0);
  }
  const bool same_structure = a->aij.companion && a->aij.companion_nzstate == A->nonzerostate;
  AijView    v;
  PetscBool  same = PETSC_FALSE, all_same;
  PetscCall(MatDiagAijView(A, true, &v));
  /* the pattern checked without building it: a value that became nonzero
     where the copy had no entry is a new nonzero location */
  if (same_structure && a->aij.pattern_nzstate == A->nonzerostate) {
    PetscBool known;
    PetscCall(MatDiagOutsideCheck(A, v, PETSC_TRUE, state, &known, &same));
    if (!known) {
      PetscCall(PetscLogEventBegin(MATDIAG_AijPattern, A, 0, 0, 0));
      DiagCallKernel(same = pdiag::hm_csr_pattern_equals_if(*v.hm, v.rule, a->aij.rowptr, a->aij.colidx, v.remote) ? PETSC_TRUE : PETSC_FALSE);
      if (same) PetscCall(MatDiagOutsideFind(A, v));
      PetscCall(PetscLogEventEnd(MATDIAG_AijPattern, A, 0, 0, 0));
    }
  }
  PetscCall(MPIU_Allreduce(&same, &all_same, 1, PDIAG_MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (all_same) {
    PetscBool  seq;
    const bool by_slots = MatDiagOutsideValid(A, *v.hm, v.remote);
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)a->aij.companion, MATSEQAIJ, &seq));
    if (seq) { /* same order as aij's rows: the values straight into its array */
      PetscScalar *out;
      PetscCall(MatSeqAIJGetArrayWrite(a->aij.companion, &out));
      if (by_slots) DiagCallKernel(pdiag::hm_csr_values_except(*v.hm, a->aij.outside, out, v.remote));
      else DiagCallKernel(pdiag::hm_csr_values_if(*v.hm, v.rule, out, v.remote));
      PetscCall(MatSeqAIJRestoreArrayWrite(a->aij.companion, &out));
    } else {
      if (by_slots) {
        PetscCallCXX({
          csr.rowptr = a->aij.rowptr;
          csr.colidx = a->aij.colidx;
          csr.vals.resize(csr.colidx.size());
        });
        DiagCallKernel(pdiag::hm_csr_values_except(*v.hm, a->aij.outside, csr.vals.data(), v.remote));
      } else DiagCallKernel(csr = pdiag::hm_to_csr_if(*v.hm, v.rule, v.remote));
      PetscCall(MatDiagRefreshAIJ(A, csr, a->aij.companion));
    }
  } else {
    Mat                fresh;
    std::vector<Index> rowptr, colidx, outside;
    bool               subset;
    if (same_structure) A->nonzerostate++; /* a nonzero appeared where the copy had no entry: a new nonzero location, as for aij */
    PetscCall(PetscInfo(A, "diag: building an aij copy of this %s matrix for %s (kept with the matrix, refreshed when its values change)\n", ((PetscObject)A)->type_name, purpose));
    /* the rule's pattern in one pass (room for every stored entry), then the
       values by the slots it leaves out */
    PetscCall(PetscLogEventBegin(MATDIAG_AijPattern, A, 0, 0, 0));
    PetscCallCXX({
      rowptr.resize(static_cast<std::size_t>(A->rmap->n) + 1);
      colidx.resize(static_cast<std::size_t>(v.hm->nstored() + (v.remote ? v.remote->size() : 0)));
    });
    DiagCallKernel(pdiag::hm_csr_pattern_if_into(*v.hm, v.rule, rowptr.data(), colidx.data(), v.remote));
    PetscCallCXX({
      colidx.resize(static_cast<std::size_t>(rowptr.back()));
      if (colidx.capacity() > colidx.size() + colidx.size() / 8) colidx.shrink_to_fit(); /* a copy, only where many stored entries are not aij's */
    });
    PetscCall(PetscLogEventEnd(MATDIAG_AijPattern, A, 0, 0, 0));
    DiagCallKernel(subset = pdiag::hm_slots_outside_csr(*v.hm, rowptr, colidx, outside, v.remote));
    PetscCheck(subset, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: the aij copy's pattern holds an entry that is not stored");
    PetscCall(MatDiagAIJFromPattern(A, rowptr, colidx, [&](PetscScalar *out) { pdiag::hm_csr_values_except(*v.hm, outside, out, v.remote); }, MATAIJ, &fresh));
    a->aij.companion_builds++;
    if (a->aij.companion) PetscCall(MatHeaderReplace(a->aij.companion, &fresh)); /* handles others hold stay valid */
    else a->aij.companion = fresh;
    const char *prefix;
    PetscCall(MatGetOptionsPrefix(A, &prefix));
    PetscCall(MatSetOptionsPrefix(a->aij.companion, prefix));
    if (A->rmap->mapping && A->cmap->mapping) PetscCall(MatSetLocalToGlobalMapping(a->aij.companion, A->rmap->mapping, A->cmap->mapping)); /* finite differences with ghosted vectors need it */
    PetscCallCXX(a->aij.rowptr = std::move(rowptr)); /* after the last use of v.rule, which may read the previous pattern */
    PetscCallCXX(a->aij.colidx = std::move(colidx));
    a->aij.pattern_nzstate     = A->nonzerostate;
    a->aij.pattern_has_stencil = PETSC_TRUE;
    PetscCall(MatDiagOutsideKeep(A, v, std::move(outside)));
  }
  if (A->factorprefix) PetscCall(MatSetOptionsPrefixFactor(a->aij.companion, A->factorprefix));
  PetscCall(MatDiagSyncProperties_Private(A, a->aij.companion));
  a->aij.companion_state   = state;
  a->aij.companion_nzstate = A->nonzerostate;
  *C                   = a->aij.companion;
  PetscFunctionReturn(0);
}

/* MatAssemblyEnd of A, which keeps a companion of its structure. A value
   that became nonzero where the copy has no entry, or a zero set there, is
   a new nonzero location, as it is for aij at its assembly: the nonzero
   state increases now, so that a preconditioner's next set-up reads it
   (else a factorization would reuse a symbolic phase of another
   structure). With the slots the kept pattern leaves out this is a look at
   those entries and at the new set zeros; otherwise the copy is checked
   and refreshed now. A copy that only A holds takes the values when it is
   next asked for (every reader asks: MatDiagGetCompanion_Private); one
   that others hold too (a PC set up on it, e.g. ML's finest level, may
   apply it again without a new set-up, as it would apply an aij operator
   whose values changed) takes them now, by the slots. So does none while
   A takes its values from the copy (MatDiagTakeCompanionValues_Private).
   Collective. */
PetscErrorCode MatDiagCompanionAssemblyEnd_Private(Mat A)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  PetscObjectState state;
  PetscBool        known, same;
  PetscInt         mine[2], all[2]; /* the pattern may have changed; the copy is held by others */
  Mat              C;

  PetscFunctionBegin;
  A->assembled           = PETSC_TRUE; /* as MatAssemblyEnd() sets it after this op */
  a->aij.outside_checked = -1;         /* A's state has not changed since the last assembly, its values have */
  /* MatAssemblyEnd() increases the state by one after this op (3.18 and
     3.25): what is found here holds for that state */
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  {
    AijView v;
    PetscCall(MatDiagAijView(A, true, &v));
    PetscCall(MatDiagOutsideCheck(A, v, PETSC_FALSE, state, &known, &same));
  }
  mine[0] = (known && same) ? 0 : 1;
  mine[1] = (!a->aij.taking && ((PetscObject)a->aij.companion)->refct > 1) ? 1 : 0;
  PetscCall(MPIU_Allreduce(mine, all, 2, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  if (!all[0]) {
    a->aij.outside_checked = state;
    if (all[1]) { /* the values now, by the slots (the check above stands for this state) */
      a->aij.companion_state = -1;
      PetscCall(MatDiagGetCompanion_Private(A, "an assembly (the copy is shared)", &C));
      a->aij.companion_state = state + 1;
    }
    a->aij.outside_checked = state + 1;
    PetscFunctionReturn(0);
  }
  a->aij.companion_state = -1; /* refreshed whatever the state says */
  PetscCall(MatDiagGetCompanion_Private(A, "the new nonzero locations of an assembly", &C));
  a->aij.companion_state = state + 1;
  PetscFunctionReturn(0);
}

/* A takes the values of its companion C (same structure or a part of it):
   after an operation that computed them in the aij copy (a finite-difference
   Jacobian). The companion stays current. Collective. */
PetscErrorCode MatDiagTakeCompanionValues_Private(Mat A)
{
  Mat_Diag                          *a = (Mat_Diag *)A->data;
  Mat                                C = a->aij.companion;
  pdiag::RemoteEntries<PetscScalar> *remote = a->remote.empty() ? nullptr : &a->remote;
  PetscBool                          seq;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)C, MATSEQAIJ, &seq));
  if (seq && a->scheme == pdiag::Scheme::HM && a->assembly.staged.empty() && a->aij.companion_nzstate == A->nonzerostate && MatDiagOutsideValid(A, a->hm, remote)) {
    /* the companion's pattern is the kept one: its values go straight into
       their slots, the left-out entries become zero, and its explicit zeros
       are set zeros, as MatZeroEntries() and MatSetValues() of its rows
       below would leave them */
    const PetscScalar *in;
    PetscCall(MatDiagDeviceTry(host_values_ensure, A));
    MatDiagValuesChanged(A);
    PetscCall(MatSeqAIJGetArrayRead(C, &in));
    DiagCallKernel(pdiag::hm_csr_values_take_except(a->hm, a->aij.outside, in, [a](Index i, Index j) { a->assembly.zero_sets.record(i, j); }, remote));
    PetscCall(MatSeqAIJRestoreArrayRead(C, &in));
  } else {
    PetscCall(MatZeroEntries(A));
    for (PetscInt i = A->rmap->rstart; i < A->rmap->rend; i++) {
      PetscInt           nc;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscCall(MatGetRow(C, i, &nc, &cols, &vals));
      PetscCall(MatSetValues(A, 1, &i, nc, cols, vals, INSERT_VALUES));
      PetscCall(MatRestoreRow(C, i, &nc, &cols, &vals));
    }
  }
  {
    PetscErrorCode ierr;
    a->aij.taking = PETSC_TRUE; /* the copy holds these values already */
    ierr          = MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
    if (!ierr) ierr = MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
    a->aij.taking = PETSC_FALSE;
    PetscCall(ierr);
  }
  PetscCall(PetscObjectStateGet((PetscObject)A, &a->aij.companion_state));
  a->aij.companion_nzstate = A->nonzerostate;
  PetscFunctionReturn(0);
}

/* Records the entries an aij matrix of A holds (nnz triplets of local rows,
   global columns, any order), as the matrix A was converted from does:
   explicit zeros included, they stay entries for the preconditioners. */
PetscErrorCode MatDiagSetAijPattern_Private(Mat A, Index nnz, const Index *rows, const Index *cols)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  a->aij.ForgetOutside(); /* a pattern the rule did not choose */
  DiagCallKernel(pdiag::coo_pattern(a->layout, nnz, rows, cols, a->aij.rowptr, a->aij.colidx));
  a->aij.pattern_nzstate     = A->nonzerostate;
  a->aij.pattern_has_stencil = PETSC_FALSE;
  a->aij.dropped_rows.clear(); /* the source's pattern holds its zeroed rows as they are */
  PetscFunctionReturn(0);
}

/* The same from the CSR (local rows, global columns ascending) of an aij
   matrix of A's rows, e.g. the cuSPARSE product whose values A holds. */
PetscErrorCode MatDiagSetAijPatternCSR_Private(Mat A, PetscInt m, const PetscInt *ia, const PetscInt *ja)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  a->aij.ForgetOutside(); /* a pattern the rule did not choose */
  PetscCallCXX(a->aij.rowptr.assign(ia, ia + m + 1));
  PetscCallCXX(a->aij.colidx.assign(ja, ja + ia[m]));
  a->aij.pattern_nzstate     = A->nonzerostate;
  a->aij.pattern_has_stencil = PETSC_FALSE;
  a->aij.dropped_rows.clear();
  PetscFunctionReturn(0);
}

/* After MatZeroRows of `rows` (global, any process's; collective) without
   MAT_KEEP_NONZERO_PATTERN: what the matrix reports (MatGetRow, MatGetInfo's
   nz_used, the aij copy, MatConvert to aij, MatView) follows aij, whose
   zeroed rows hold only their diagonal entry: the rows no longer take the
   stencil's couplings or an earlier aij pattern's zeros as entries (the
   stored zeros stay: diagonals hold whole runs of rows), the zeros set in
   them before are forgotten, and the nonzero state increases, as aij's. A
   square matrix's main diagonal stays an entry (also for diag 0, where
   aij's row is left empty). Later values in the rows are entries as
   anywhere. */
PetscErrorCode MatDiagDropZeroedRows_Private(Mat A, PetscInt n, const PetscInt rows[])
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  PetscInt  nloc, *lrows;

  PetscFunctionBegin;
  PetscCall(PetscLayoutMapLocal(A->rmap, n, rows, &nloc, &lrows, NULL)); /* collective */
  PetscCallCXX({
    for (PetscInt q = 0; q < nloc; q++) a->aij.dropped_rows.push_back((Index)(A->rmap->rstart + lrows[q]));
    std::sort(a->aij.dropped_rows.begin(), a->aij.dropped_rows.end());
    a->aij.dropped_rows.erase(std::unique(a->aij.dropped_rows.begin(), a->aij.dropped_rows.end()), a->aij.dropped_rows.end());
    a->assembly.zero_sets.erase_rows(a->aij.dropped_rows);
  });
  PetscCall(PetscFree(lrows));
  A->nonzerostate++; /* on every process, as mpiaij's sum of its blocks' states */
  PetscFunctionReturn(0);
}

/* Before MatZeroRows of `rows` (collective) with MAT_KEEP_NONZERO_PATTERN:
   the rows' entries (as MatGetRow gives them) stay entries once they hold
   zeros, as aij keeps the rows' pattern: recorded as set positions. */
PetscErrorCode MatDiagKeepZeroedRows_Private(Mat A, PetscInt n, const PetscInt rows[])
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  PetscInt  nloc, *lrows;

  PetscFunctionBegin;
  PetscCall(PetscLayoutMapLocal(A->rmap, n, rows, &nloc, &lrows, NULL)); /* collective */
  PetscCall(MatDiagDeviceTry(sync_host, A));
  for (PetscInt q = 0; q < nloc; q++) {
    const Index              i = (Index)(A->rmap->rstart + lrows[q]);
    std::vector<Index>       cols;
    std::vector<PetscScalar> vals;
    PetscCall(MatDiagAijRow_Private(A, (PetscInt)i, &cols, &vals));
    PetscCallCXX(for (const Index j : cols) a->assembly.zero_sets.record(i, j));
  }
  PetscCall(PetscFree(lrows));
  PetscCallCXX(a->assembly.zero_sets.merge());
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagCompanionDestroy_Private(Mat_Diag *a)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&a->aij.companion));
  a->aij.ForgetOutside();
  a->aij.rowptr.clear();
  a->aij.colidx.clear();
  a->aij.pattern_nzstate = -1;
  a->aij.companion_state = a->aij.companion_nzstate = -1;
  PetscFunctionReturn(0);
}
