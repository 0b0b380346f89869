/* Products with a vector: MatMult, MatMultAdd, MatMultTranspose,
   MatMultTransposeAdd, MatMultHermitianTranspose(Add), and the ghost
   exchange they need under MPI.

   A process's rows [r0, r1) reach the columns i + d of its stored diagonals.
   Rows whose columns are all owned (the interior, one row range) read the
   owned part of x while the scatter of the other columns is in flight; the
   rows below and above it read a sequential work vector holding the merged
   column intervals they reach. Transposes add into the columns the local
   rows reach (a work vector over all of them) and reverse-scatter. */
#include "core/mat_diag.hpp"

#include "pdiag/cpu.hpp"

#include <numeric>

namespace {

/* One HM diagonal inside the block: rows [lo, hi), offset d; `slot` is its
   index in the kernels' shift arrays (CDM: k above the wrap, ndiag + k below). */
struct Run {
  Index d, lo, hi, slot;
};

std::vector<Run> RunsOf(const Mat_Diag *a)
{
  const pdiag::Layout &L = a->layout;
  std::vector<Run>     runs;
  if (a->scheme == pdiag::Scheme::HM) {
    for (Index k = 0; k < a->hm.ndiag(); ++k) {
      const Index d = a->hm.offsets[k];
      runs.push_back({d, L.lo(d), L.hi(d), k});
    }
  } else {
    const Index nd = a->cdm.ndiag();
    for (Index k = 0; k < nd; ++k) {
      const Index kk = a->cdm.koffsets[k];
      runs.push_back({kk, L.lo(kk), L.hi(kk), k});
      runs.push_back({kk - L.ncols, L.lo(kk - L.ncols), L.hi(kk - L.ncols), nd + k});
    }
  }
  return runs;
}

/* Sorted, merged column intervals [first, second). */
using Intervals = std::vector<std::pair<Index, Index>>;

Intervals Merge(Intervals iv)
{
  std::sort(iv.begin(), iv.end());
  Intervals out;
  for (const auto &p : iv) {
    if (p.first >= p.second) continue;
    if (!out.empty() && p.first <= out.back().second) out.back().second = std::max(out.back().second, p.second);
    else out.push_back(p);
  }
  return out;
}

/* Position of global column j in the work vector laid out by iv. */
Index PositionOf(const Intervals &iv, const std::vector<Index> &base, Index j)
{
  const auto it = std::upper_bound(iv.begin(), iv.end(), std::make_pair(j, std::numeric_limits<Index>::max())) - 1;
  return base[it - iv.begin()] + (j - it->first);
}

/* A sequential work vector over the intervals and the scatter from A's column layout into it. */
PetscErrorCode MakeWork(Mat A, const Intervals &iv, std::vector<Index> *base, Vec *work, VecScatter *scatter)
{
  std::vector<PetscInt> idx;
  IS                    is;
  Vec                   xtemplate;

  PetscFunctionBegin;
  base->clear();
  for (const auto &p : iv) {
    base->push_back((Index)idx.size());
    for (Index j = p.first; j < p.second; ++j) idx.push_back((PetscInt)j);
  }
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)idx.size(), idx.data(), PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, (PetscInt)idx.size(), work));
  PetscCall(MatCreateVecs(A, &xtemplate, NULL));
  PetscCall(VecScatterCreate(xtemplate, is, *work, NULL, scatter));
  PetscCall(VecDestroy(&xtemplate));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(0);
}

} // namespace

PetscErrorCode MatDiagGhostDestroy_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&a->mpi.ghost.work));
  PetscCall(VecScatterDestroy(&a->mpi.ghost.scatter));
  PetscCall(VecDestroy(&a->mpi.tr_work));
  PetscCall(VecScatterDestroy(&a->mpi.tr_scatter));
  PetscCall(MatDiagDeviceTry(sync_host_data, A)); /* values only the device has come back before its copy goes stale */
  PetscCall(MatDiagDeviceTry(ghost_reset, A));
  MatDiagValuesChanged(A); /* the shifts change with the ghost layout */
  a->mpi.ghost_valid = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The split of A's diagonals between the product's row passes and listed
   entries (examined: for HM blocks under MPI whose values are on the host),
   and what the products list: the split's entries and the entries A keeps
   in a list (Mat_Diag::remote). active: the passes do not run over every
   stored diagonal, or something is listed; watch: values may change the
   split. */
struct ProductSplit {
  pdiag::DiagonalSplit split;
  pdiag::ListedEntries listed; /* split.listed and A's list, global columns */
  bool                 examined = false, active = false, watch = false;
};

static PetscErrorCode ComputeSplit(Mat A, PetscMPIInt size, ProductSplit *r)
{
  Mat_Diag         *a      = (Mat_Diag *)A->data;
  const std::size_t nslots = a->scheme == pdiag::Scheme::HM ? (std::size_t)a->hm.ndiag() : 2 * (std::size_t)a->cdm.ndiag();

  PetscFunctionBegin;
  *r          = ProductSplit{};
  r->examined = size > 1 && a->scheme == pdiag::Scheme::HM && !a->host_deferred && a->hm.val.size() == (std::size_t)a->hm.nstored();
  if (r->examined) DiagCallKernel(r->split = pdiag::hm_split_sparse_remote(a->hm.view(), a->mpi.col_begin, a->mpi.col_end, kListFillRatio));
  const bool found = r->examined && (r->split.listed.size() > 0 || r->split.passes.size() != nslots);
  r->watch         = r->examined && (r->split.listed.size() > 0 || r->split.unknown);
  r->active        = found || !a->remote.empty();
  if (!found) { /* every diagonal passed over */
    r->split.passes.resize(nslots);
    std::iota(r->split.passes.begin(), r->split.passes.end(), Index(0));
    r->split.listed = pdiag::ListedEntries{};
  }
  if (r->active) DiagCallKernel(r->listed = pdiag::listed_with_remote(r->split.listed, a->remote, a->hm.nstored()));
  PetscFunctionReturn(0);
}

/* The bytes an HM block's products read under MPI when its split is active
   (*split true): the passed diagonals' values and the listed entries'
   values and indices; what the auto storage choice weighs for HM
   (MatDiagApplyStorage_Private), as CDM has no split. Not collective. */
PetscErrorCode MatDiagSplitReadBytes_Private(Mat A, PetscBool *split, double *bytes)
{
  Mat_Diag    *a = (Mat_Diag *)A->data;
  ProductSplit s;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(ComputeSplit(A, size, &s));
  *split = (PetscBool)(s.examined && s.split.listed.size() > 0);
  *bytes = 0;
  if (!*split) PetscFunctionReturn(0);
  for (const Index k : s.split.passes) *bytes += (double)(a->hm.start[k + 1] - a->hm.start[k]) * sizeof(PetscScalar) + sizeof(Index);
  *bytes += (double)s.listed.size() * (sizeof(PetscScalar) + 3 * sizeof(Index));
  PetscFunctionReturn(0);
}

/* Builds the interior range, the shifts and (MPI) both scatters, with the
   split of the diagonals between row passes and listed entries. The
   passes' shifts (shift_local, shift_lo, shift_hi) are indexed by pass
   (pass_slots' order when the split is active), the transpose's (tr_shift)
   by stored diagonal: transposes pass over every diagonal. Collective. */
static PetscErrorCode GhostSetUp(Mat A, const ProductSplit *given)
{
  Mat_Diag            *a = (Mat_Diag *)A->data;
  const pdiag::Layout &L = a->layout;
  const Index          r0 = L.row_begin, m = L.nrows;
  PetscMPIInt          size;
  ProductSplit         computed;

  PetscFunctionBegin;
  PetscCall(MatDiagGhostDestroy_Private(A));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  const std::vector<Run> runs   = RunsOf(a);
  const std::size_t      nslots = runs.size();
  if (!given) {
    PetscCall(ComputeSplit(A, size, &computed));
    given = &computed;
  }
  a->mpi.split_active = (PetscBool)given->active;
  a->mpi.pass_slots.clear();
  a->mpi.pass_offsets.clear();
  a->mpi.pass_start.clear();
  a->mpi.listed = pdiag::ListedEntries{};
  std::vector<Run> passes; /* the runs the product passes over, slot = index of its shift */
  if (a->mpi.split_active) {
    for (const Index k : given->split.passes) {
      passes.push_back({runs[k].d, runs[k].lo, runs[k].hi, (Index)passes.size()});
      a->mpi.pass_offsets.push_back(a->hm.offsets[k]);
      a->mpi.pass_start.push_back(a->hm.start[k]);
    }
    a->mpi.pass_slots = given->split.passes;
    a->mpi.listed     = given->listed;
  } else passes = runs;
  a->mpi.pass_entries = a->mpi.listed.size();
  for (const Run &r : passes) a->mpi.pass_entries += std::max<Index>(r.hi - r.lo, 0);
  {
    PetscBool watch = (PetscBool)given->watch;
    if (size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &watch, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
    a->mpi.split_watch = watch;
    PetscCall(PetscObjectStateGet((PetscObject)A, &a->mpi.split_state));
  }
  a->mpi.shift_local.assign(passes.size(), 0);
  a->mpi.ghost.shift_lo.assign(passes.size(), 0);
  a->mpi.ghost.shift_hi.assign(passes.size(), 0);
  a->mpi.tr_shift.assign(nslots, 0);
  /* interior: rows whose every passed column i + d lies in the owned [c0, c1) */
  Index ib = r0, ie = r0 + m;
  for (const Run &r : passes) {
    if (r.lo >= r.hi) continue;
    a->mpi.shift_local[r.slot] = r0 + r.d - a->mpi.col_begin;
    ib = std::max(ib, a->mpi.col_begin - r.d);
    ie = std::min(ie, a->mpi.col_end - r.d);
  }
  if (size == 1) { /* every column is owned */
    a->mpi.ib = 0;
    a->mpi.ie = m;
    a->mpi.ghost_valid = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (ib >= ie) ib = ie = r0 + m; /* no interior: all rows read the work vector */
  a->mpi.ib = ib - r0;
  a->mpi.ie = ie - r0;
  /* columns the rows below and above the interior and the listed entries
     reach, and those all rows reach */
  Intervals need, touched;
  for (const Run &r : passes) {
    need.push_back({std::max(r.lo, r0) + r.d, std::min(r.hi, ib) + r.d});
    need.push_back({std::max(r.lo, ie) + r.d, std::min(r.hi, r0 + m) + r.d});
  }
  for (const Index j : a->mpi.listed.cols) need.push_back({j, j + 1});
  for (const Run &r : runs) touched.push_back({r.lo + r.d, r.hi + r.d});
  for (const Index j : a->remote.cols) touched.push_back({j, j + 1}); /* the transpose adds the listed entries there */
  need    = Merge(need);
  touched = Merge(touched);
  a->mpi.ghost.need = need;
  std::vector<Index> base;
  PetscCall(MakeWork(A, need, &base, &a->mpi.ghost.work, &a->mpi.ghost.scatter));
  a->mpi.ghost.own_begin = a->mpi.ghost.own_end = 0; /* positions ascend with the columns: the owned ones are one range */
  for (const auto &iv : need) {
    a->mpi.ghost.own_begin += std::max<Index>(0, std::min(iv.second, a->mpi.col_begin) - iv.first);
    a->mpi.ghost.own_end += std::max<Index>(0, std::min(iv.second, a->mpi.col_end) - iv.first);
  }
  for (const Run &r : passes) {
    const Index lo1 = std::max(r.lo, r0), hi1 = std::min(r.hi, ib);
    if (lo1 < hi1) a->mpi.ghost.shift_lo[r.slot] = PositionOf(need, base, lo1 + r.d) - (lo1 - r0);
    const Index lo2 = std::max(r.lo, ie), hi2 = std::min(r.hi, r0 + m);
    if (lo2 < hi2) a->mpi.ghost.shift_hi[r.slot] = PositionOf(need, base, lo2 + r.d) - (lo2 - r0);
  }
  for (Index &j : a->mpi.listed.cols) j = PositionOf(need, base, j); /* global column -> work vector position */
  PetscCall(MakeWork(A, touched, &base, &a->mpi.tr_work, &a->mpi.tr_scatter));
  for (const Run &r : runs)
    if (r.lo < r.hi) a->mpi.tr_shift[r.slot] = PositionOf(touched, base, r.lo + r.d) - (r.lo - r0);
  a->mpi.tr_listed.clear();
  for (const Index j : a->remote.cols) a->mpi.tr_listed.push_back(PositionOf(touched, base, j));
  if (a->mpi.split_active) PetscCall(PetscInfo(A, "%" PetscInt_FMT " of %" PetscInt_FMT " diagonals passed over, %" PetscInt_FMT " entries of the others listed\n", (PetscInt)passes.size(), (PetscInt)nslots, (PetscInt)a->mpi.listed.size()));
  a->mpi.ghost_valid = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagGhostSetUp_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(GhostSetUp(A, NULL));
  PetscFunctionReturn(0);
}

/* The product plan for A's current values. Built when the ghost layout is
   not; when values may change the split (split_watch) and A's state has
   moved on on some process, the split is examined again and the plan
   rebuilt on every process if it changed on one. The processes agree on
   "moved on" first: a value change need not be collective (a process's
   MatRetrieveValues). Collective. */
PetscErrorCode MatDiagProductPlanEnsure_Private(Mat A)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  PetscObjectState state;
  PetscMPIInt      size;

  PetscFunctionBegin;
  if (!a->mpi.ghost_valid) {
    PetscCall(MatDiagGhostSetUp_Private(A));
    PetscFunctionReturn(0);
  }
  if (!a->mpi.split_watch) PetscFunctionReturn(0);
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  PetscBool stale = (PetscBool)(state != a->mpi.split_state);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stale, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  if (!stale) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatDiagDeviceTry(sync_host, A));
  ProductSplit split;
  PetscCall(ComputeSplit(A, size, &split));
  const bool same     = split.active == (bool)a->mpi.split_active && (!split.active || (split.split.passes == a->mpi.pass_slots && split.listed.pos == a->mpi.listed.pos));
  PetscBool  flags[2] = {(PetscBool)!same, (PetscBool)split.watch};
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, flags, 2, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  if (flags[0]) PetscCall(GhostSetUp(A, &split));
  else {
    a->mpi.split_watch = flags[1];
    a->mpi.split_state = state;
  }
  PetscFunctionReturn(0);
}

/*@
   MatDiagGhostExchange - Gathers the columns of x that the local rows of a `MATDIAG` matrix reach on
   other processes, as `MatMult()` does, and computes nothing

   Collective

   Input Parameters:
+  A - the assembled matrix
-  x - a vector with the column layout of A

   Notes:
   For measurements: `MatMult()` overlaps this exchange with the product of the rows that read only
   owned columns, so timing it alone says how much of it a product hides. With CUDA vectors it is
   the device product's exchange (through pinned host memory, see `-mat_diag_pinned_halo`). Nothing
   to do on one process.

   Level: developer

.seealso: `MATDIAG`, `MatMult()`
@*/
PetscErrorCode MatDiagGhostExchange(Mat A, Vec x)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCheckMat_Private(A, "MatDiagGhostExchange()"));
  PetscUseMethod(A, "MatDiagGhostExchange_C", (Mat, Vec), (A, x));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagGhostExchange_Diag(Mat A, Vec x)
{
  Mat_Diag   *a = (Mat_Diag *)A->data;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: matrix must be assembled before its ghost exchange");
  PetscCall(MatDiagCheckVec_Private(x, A->cmap, "x"));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(MatDiagProductPlanEnsure_Private(A));
  if (MatDiagUseDevice_Private(A, x)) {
    PetscCall(MatDiagDeviceCall(ghost_exchange, A, x));
    PetscFunctionReturn(0);
  }
  PetscCall(VecScatterBegin(a->mpi.ghost.scatter, x, a->mpi.ghost.work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(a->mpi.ghost.scatter, x, a->mpi.ghost.work, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

/* The HM diagonals the products' row passes run over. */
static pdiag::HmView<const PetscScalar> MatDiagPassView(const Mat_Diag *a)
{
  if (a->mpi.split_active) return pdiag::HmView<const PetscScalar>{a->layout, (Index)a->mpi.pass_offsets.size(), a->mpi.pass_offsets.data(), a->mpi.pass_start.data(), a->hm.val.data()};
  return a->hm.view();
}

/* y = A x (+ z) on the local rows [row_lo, row_hi) over the diagonals the
   passes run over, x reached through shift (indexed by pass). */
static PetscErrorCode MatDiagSpMV(Mat_Diag *a, const PetscScalar *x, PetscScalar *y, const PetscScalar *z, const Index *shift, Index row_lo, Index row_hi)
{
  PetscFunctionBegin;
  if (row_lo >= row_hi) PetscFunctionReturn(0);
  if (a->mpi.split_active || a->scheme == pdiag::Scheme::HM) pdiag::hm_spmv(MatDiagPassView(a), x, y, z, shift, row_lo, row_hi);
  else pdiag::cdm_spmv(a->cdm.view(), x, y, z, shift, row_lo, row_hi);
  PetscFunctionReturn(0);
}

/* y += sign * (the listed entries of the local rows [row_lo, row_hi)) w,
   w the ghost work vector's array. */
static void MatDiagListedAdd(const Mat_Diag *a, const PetscScalar *w, PetscScalar *y, PetscScalar sign, Index row_lo = 0, Index row_hi = std::numeric_limits<Index>::max())
{
  const pdiag::ListedEntries &l  = a->mpi.listed;
  const std::size_t           q0 = (std::size_t)(std::lower_bound(l.rows.begin(), l.rows.end(), row_lo) - l.rows.begin());
  const std::size_t           q1 = (std::size_t)(std::lower_bound(l.rows.begin(), l.rows.end(), row_hi) - l.rows.begin());
  if (q0 < q1) pdiag::listed_spmv_add((Index)(q1 - q0), l.rows.data() + q0, l.ptr.data() + q0, l.pos.data(), l.cols.data(), a->hm.val.data(), a->hm.nstored(), a->remote.val.data(), w, y, sign);
}

/* y = A x (+ z) on the HM block's local rows [row_lo, row_hi) next to
   other processes, with their listed entries, each row summed in the order
   mpiaij sums it (owned columns first, then the others; pdiag::
   hm_spmv_rows_owned_first): with the interior rows' sums, which are a
   sequential aij matrix's, MatMult gives aij's vector bit for bit, and a
   Krylov solve aij's iterations (a long GMRES run with a weak
   preconditioner takes hundreds of iterations more or less on the
   round-off of another order of additions). w: the ghost work vector. */
static void MatDiagBoundarySpMV(const Mat_Diag *a, const PetscScalar *w, PetscScalar *y, const PetscScalar *z, const Index *shift, Index row_lo, Index row_hi)
{
  const pdiag::ListedEntries &l = a->mpi.listed;
  if (row_lo >= row_hi) return;
  pdiag::hm_spmv_rows_owned_first(MatDiagPassView(a), w, shift, a->mpi.ghost.own_begin, a->mpi.ghost.own_end, row_lo, row_hi, z, y, (Index)l.rows.size(), l.rows.data(), l.ptr.data(), l.pos.data(), l.cols.data(), a->hm.val.data(), a->hm.nstored(), a->remote.val.data());
}

/* y += sign * (the couplings of the owned rows to other processes'
   columns) x, on the host: what MatSOR_MPIAIJ computes with its
   off-process block, bb + B (-x), for the local sweeps of a parallel SOR.
   The boundary rows' product over the ghost work vector with its owned
   columns set to zero (they are the local block's); the interior rows have
   no such couplings. Collective. */
PetscErrorCode MatDiagRemoteCouplingsAdd_Private(Mat A, Vec x, PetscScalar sign, Vec y)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  PetscMPIInt        size;
  PetscScalar       *w, *ya;
  const PetscScalar *wa;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(MatDiagProductPlanEnsure_Private(A));
  PetscCall(MatDiagDeviceTry(sync_host, A));
  PetscCall(VecScatterBegin(a->mpi.ghost.scatter, x, a->mpi.ghost.work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(a->mpi.ghost.scatter, x, a->mpi.ghost.work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArray(a->mpi.ghost.work, &w));
  Index pos = 0; /* where interval iv starts in the work vector */
  for (const auto &iv : a->mpi.ghost.need) {
    const Index lo = std::max(iv.first, a->mpi.col_begin), hi = std::min(iv.second, a->mpi.col_end);
    if (lo < hi) std::fill(w + pos + (lo - iv.first), w + pos + (hi - iv.first), PetscScalar(0));
    pos += iv.second - iv.first;
  }
  PetscCall(VecRestoreArray(a->mpi.ghost.work, &w));
  PetscCall(VecScale(a->mpi.ghost.work, sign));
  PetscCall(VecGetArrayRead(a->mpi.ghost.work, &wa));
  PetscCall(VecGetArray(y, &ya));
  PetscCall(MatDiagSpMV(a, wa, ya, ya, a->mpi.ghost.shift_lo.data(), 0, a->mpi.ib));
  PetscCall(MatDiagSpMV(a, wa, ya, ya, a->mpi.ghost.shift_hi.data(), a->mpi.ie, a->layout.nrows));
  MatDiagListedAdd(a, wa, ya, 1.0);
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(a->mpi.ghost.work, &wa));
  PetscFunctionReturn(0);
}

/* PETSc's MatMultAdd checks only the local sizes of y and z, and
   MatMultTransposeAdd only the global ones: check both, so that a wrong
   vector errors on every process instead of leaving the others in the
   ghost exchange, and is never read or written out of bounds. */
static PetscErrorCode MatMultKernel_Diag(Mat A, Vec x, Vec z, Vec y)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const PetscScalar *xa, *za = NULL, *wa;
  PetscScalar       *ya;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: matrix must be assembled before a product");
  PetscCall(MatDiagCheckVec_Private(x, A->cmap, "x"));
  PetscCall(MatDiagCheckVec_Private(y, A->rmap, "y"));
  if (z) PetscCall(MatDiagCheckVec_Private(z, A->rmap, "z"));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatDiagProductPlanEnsure_Private(A));
  if (MatDiagUseDevice_Private(A, x, y, z)) {
    PetscCall(MatDiagDeviceCall(mult, A, x, z, y));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceTry(sync_host, A));
  if (size > 1) PetscCall(VecScatterBegin(a->mpi.ghost.scatter, x, a->mpi.ghost.work, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(x, &xa));
  if (z && z != y) PetscCall(VecGetArrayRead(z, &za));
  PetscCall(z == y ? VecGetArray(y, &ya) : VecGetArrayWrite(y, &ya));
  if (z == y) za = ya;
  PetscCall(MatDiagSpMV(a, xa, ya, za, a->mpi.shift_local.data(), a->mpi.ib, a->mpi.ie));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (size > 1) {
    PetscCall(VecScatterEnd(a->mpi.ghost.scatter, x, a->mpi.ghost.work, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(a->mpi.ghost.work, &wa));
    if (a->scheme == pdiag::Scheme::HM) {
      MatDiagBoundarySpMV(a, wa, ya, za, a->mpi.ghost.shift_lo.data(), 0, a->mpi.ib);
      MatDiagBoundarySpMV(a, wa, ya, za, a->mpi.ghost.shift_hi.data(), a->mpi.ie, a->layout.nrows);
      MatDiagListedAdd(a, wa, ya, 1.0, a->mpi.ib, a->mpi.ie); /* the interior rows' */
    } else {
      PetscCall(MatDiagSpMV(a, wa, ya, za, a->mpi.ghost.shift_lo.data(), 0, a->mpi.ib));
      PetscCall(MatDiagSpMV(a, wa, ya, za, a->mpi.ghost.shift_hi.data(), a->mpi.ie, a->layout.nrows));
      MatDiagListedAdd(a, wa, ya, 1.0);
    }
    PetscCall(VecRestoreArrayRead(a->mpi.ghost.work, &wa));
  }
  if (z && z != y) PetscCall(VecRestoreArrayRead(z, &za));
  PetscCall(z == y ? VecRestoreArray(y, &ya) : VecRestoreArrayWrite(y, &ya));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)a->mpi.pass_entries));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMult_Diag(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultKernel_Diag(A, x, NULL, y));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMultAdd_Diag(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultKernel_Diag(A, x, z, y));
  PetscFunctionReturn(0);
}

/* r = b - A x. With CUDA vectors and HM values on the device (full or
   compressed), one pass (MatResidual_DiagCUDA: A x is never written, and a
   symmetric matrix's values are read through half its diagonals); otherwise what
   PETSc's MatResidual does without the operation, A x and then b - A x
   (in a vector of its own when r is b, where PETSc's would give 0). */
PetscErrorCode MatResidual_Diag(Mat A, Vec b, Vec x, Vec r)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: matrix must be assembled before a product");
  PetscCheck(x != r, PETSC_COMM_SELF, PETSC_ERR_ARG_IDN, "x and r must be different vectors");
  PetscCall(MatDiagCheckVec_Private(x, A->cmap, "x"));
  PetscCall(MatDiagCheckVec_Private(b, A->rmap, "b"));
  PetscCall(MatDiagCheckVec_Private(r, A->rmap, "r"));
  PetscCall(MatDiagProductPlanEnsure_Private(A));
  if (MatDiagUseDevice_Private(A, x, b, r)) PetscCall(MatDiagDeviceTry(residual, A, b, x, r, &done));
  if (done) PetscFunctionReturn(0);
  if (r == b) { /* b - A x in b's storage: A x needs a vector of its own */
    Vec ax;
    PetscCall(VecDuplicate(r, &ax));
    PetscCall(MatMult(A, x, ax));
    PetscCall(VecAXPY(r, -1.0, ax));
    PetscCall(VecDestroy(&ax));
    PetscFunctionReturn(0);
  }
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscFunctionReturn(0);
}

/* y = conj(A^T conj(x)) with the device transpose, whose kernels read the
   values as they are: PETSc's MatMultHermitianTranspose without the
   operation. */
static PetscErrorCode MatMultHermitianByConjugates(Mat A, Vec x, Vec y)
{
  Vec xc;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x, &xc));
  PetscCall(VecCopy(x, xc));
  PetscCall(VecConjugate(xc));
  PetscCall(MatDiagDeviceCall(mult_transpose, A, xc, (Vec)NULL, y));
  PetscCall(VecConjugate(y));
  PetscCall(VecDestroy(&xc));
  PetscFunctionReturn(0);
}

/* y = A^T x (+ z), or with conj y = A^H x (z null): each process adds its
   rows' contributions into the columns they reach; under MPI those are
   summed by a reverse scatter. The entries kept in a list
   (Mat_Diag::remote) add theirs into the same work vector, a(i, j) x_i into
   column j's place: the storage stays as it is. With listed entries the
   product runs on the host (the device kernels pass over diagonals only).
   The conjugate transpose (z null) reads the conjugates of the values and
   adds each column's terms by ascending row (pdiag::hm_spmv_t<true>, ...),
   as PETSc's A^H x of aij, conj(A^T conj(x)), adds them: on one process
   the same sums bit for bit; on the device it is conj(A^T conj(x)). */
template <bool conj>
static PetscErrorCode MatMultTransposeKernel_Diag(Mat A, Vec x, Vec z, Vec y)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: matrix must be assembled before a product");
  PetscCall(MatDiagCheckVec_Private(x, A->rmap, "x"));
  PetscCall(MatDiagCheckVec_Private(y, A->cmap, "y"));
  if (z) PetscCall(MatDiagCheckVec_Private(z, A->cmap, "z"));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (!a->mpi.ghost_valid) PetscCall(MatDiagGhostSetUp_Private(A));
  if (!a->remote_any && MatDiagUseDevice_Private(A, x, y, z)) {
    if (!conj) PetscCall(MatDiagDeviceCall(mult_transpose, A, x, z, y));
    else PetscCall(MatMultHermitianByConjugates(A, x, y)); /* conj: z is null */
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceTry(sync_host, A));
  PetscCall(VecGetArrayRead(x, &xa));
  if (size == 1) {
    const PetscScalar *za = NULL;
    if (z && z != y) PetscCall(VecGetArrayRead(z, &za));
    PetscCall(z == y ? VecGetArray(y, &ya) : VecGetArrayWrite(y, &ya));
    if (z == y) za = ya;
    if (a->scheme == pdiag::Scheme::HM) pdiag::hm_spmv_t<conj>(a->hm.view(), xa, ya, a->layout.ncols, za);
    else pdiag::cdm_spmv_t<conj>(a->cdm.view(), xa, ya, a->layout.ncols, za);
    if (z && z != y) PetscCall(VecRestoreArrayRead(z, &za));
    PetscCall(z == y ? VecRestoreArray(y, &ya) : VecRestoreArrayWrite(y, &ya));
  } else {
    PetscInt nw;
    PetscCall(VecGetLocalSize(a->mpi.tr_work, &nw));
    PetscCall(VecGetArrayWrite(a->mpi.tr_work, &ya));
    if (a->scheme == pdiag::Scheme::HM) pdiag::hm_spmv_t<conj>(a->hm.view(), xa, ya, (Index)nw, (const PetscScalar *)NULL, a->mpi.tr_shift.data());
    else pdiag::cdm_spmv_t<conj>(a->cdm.view(), xa, ya, (Index)nw, (const PetscScalar *)NULL, a->mpi.tr_shift.data());
    pdiag::listed_spmv_t_add<conj>((Index)a->remote.rows.size(), a->remote.rows.data(), a->remote.ptr.data(), a->mpi.tr_listed.data(), a->remote.val.data(), xa, ya);
    PetscCall(VecRestoreArrayWrite(a->mpi.tr_work, &ya));
    if (z) {
      if (z != y) PetscCall(VecCopy(z, y));
    } else PetscCall(VecSet(y, 0.0));
    PetscCall(VecScatterBegin(a->mpi.tr_scatter, a->mpi.tr_work, y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(a->mpi.tr_scatter, a->mpi.tr_work, y, ADD_VALUES, SCATTER_REVERSE));
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)(a->nstored() + a->remote.size())));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMultTranspose_Diag(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeKernel_Diag<false>(A, x, NULL, y));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMultTransposeAdd_Diag(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeKernel_Diag<false>(A, x, z, y));
  PetscFunctionReturn(0);
}

/* y = A^H x, and y = A^H x + z as PETSc computes it for aij: A^H x, then
   z added (builds with complex scalars; with real ones PETSc's own
   MatMultHermitianTranspose(Add) are MatMultTranspose(Add)'s). */
PetscErrorCode MatMultHermitianTranspose_Diag(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeKernel_Diag<true>(A, x, NULL, y));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMultHermitianTransposeAdd_Diag(Mat A, Vec x, Vec z, Vec y)
{
  Vec t;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckVec_Private(z, A->cmap, "z"));
  PetscCall(MatDiagCheckVec_Private(y, A->cmap, "y"));
  PetscCall(VecDuplicate(y, &t));
  PetscCall(MatMultTransposeKernel_Diag<true>(A, x, NULL, t));
  if (z != y) PetscCall(VecWAXPY(y, 1.0, z, t));
  else PetscCall(VecAXPY(y, 1.0, t));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(0);
}
