/* Registration, creation, options, set-up and the public API of MATDIAG. */
#include "core/mat_diag.hpp"

#include "pdiag/stencil.hpp"

#include <petscdmda.h>
#include <petsc/private/dmdaimpl.h>

const char *const MatDiagStorages[] = {"hm", "cdm", "auto", "MatDiagStorage", "MAT_DIAG_STORAGE_", nullptr};

/* Copies the PETSc row and column layouts into the kernels' Layout. */
PetscErrorCode MatDiagSetLayout_Private(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(A->rmap));
  PetscCall(PetscLayoutSetUp(A->cmap));
  { /* optimized PETSc builds do not check that the local sizes add up; every
       process holds the ranges, so all come to the same verdict */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    PetscCheck(A->rmap->range[size] == A->rmap->N && A->cmap->range[size] == A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
               "diag: the local sizes add up to %" PetscInt_FMT " rows and %" PetscInt_FMT " columns, the global sizes are %" PetscInt_FMT " and %" PetscInt_FMT, A->rmap->range[size], A->cmap->range[size], A->rmap->N, A->cmap->N);
  }
  a->layout    = pdiag::Layout::block(A->rmap->N, A->cmap->N, A->rmap->rstart, A->rmap->n);
  a->mpi.col_begin = A->cmap->rstart;
  a->mpi.col_end   = A->cmap->rend;
  PetscFunctionReturn(0);
}

/* Installs new HM storage (replacing whatever was stored) and marks the
   structure as changed so that ghost exchanges are rebuilt. */
PetscErrorCode MatDiagReplaceStorage_Private(Mat A, Hm &&hm)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagCheckCount_Private(A, hm.ndiag()));
  a->hm     = std::move(hm);
  a->cdm    = Cdm();
  a->host_deferred = PETSC_FALSE; /* the host values are hm's (a caller passing a structure-only hm defers them again) */
  MatDiagValuesChanged(A);
  a->scheme = pdiag::Scheme::HM;
  a->assembly.staged.clear();
  a->assembly.ForgetSlotHints();
  a->assembly.structure_changed = PETSC_TRUE;
  a->mpi.ghost_valid       = PETSC_FALSE;
  A->nonzerostate++;
  PetscFunctionReturn(0);
}

/* The stencil of the DMDA a matrix was created from (MatGetDM), as the
   kernels describe it: grid, process layout, stencil type and width, and
   DMDASetBlockFills couplings. *found is false when A has no DMDA or is not
   its operator (other sizes). */
PetscErrorCode MatDiagGridStencil_Private(Mat A, PetscBool *found, pdiag::GridStencil *g)
{
  DM              da;
  PetscBool       isda = PETSC_FALSE;
  PetscInt        dim, M, N, P, m, n, p, dof, s;
  DMBoundaryType  bx, by, bz;
  DMDAStencilType st;
  const PetscInt *lx, *ly, *lz;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  PetscCall(MatGetDM(A, &da));
  if (da) PetscCall(PetscObjectTypeCompare((PetscObject)da, DMDA, &isda));
  if (!isda) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, &m, &n, &p, &dof, &s, &bx, &by, &bz, &st));
  { /* a subdomain DMDA (DMCreateDomainDecomposition, DMDASetOffset) reports the
       whole problem's sizes: its own grid is M x N x P */
    const DM_DA *dd = (const DM_DA *)da->data;
    M               = dd->M;
    N               = dd->N;
    P               = dd->P;
  }
  if (A->rmap->N != dof * M * N * P || A->cmap->N != A->rmap->N) PetscFunctionReturn(0); /* not this DMDA's operator */
  PetscCall(DMDAGetOwnershipRanges(da, &lx, &ly, &lz));
  g->dim      = (int)dim;
  g->dof      = dof;
  g->width    = s;
  g->box      = st == DMDA_STENCIL_BOX;
  g->periodic = {bx == DM_BOUNDARY_PERIODIC, by == DM_BOUNDARY_PERIODIC, bz == DM_BOUNDARY_PERIODIC};
  g->owned[0].assign(lx, lx + m);
  if (dim > 1) g->owned[1].assign(ly, ly + n);
  if (dim > 2) g->owned[2].assign(lz, lz + p);
  { /* DMDASetBlockFills keeps each fill as "row starts, then columns" */
    const DM_DA *dd   = (const DM_DA *)da->data;
    auto         dense = [dof](const PetscInt *fill, std::vector<char> *out) {
      if (!fill) return;
      out->assign((std::size_t)(dof * dof), 0);
      for (PetscInt r = 0; r < dof; r++)
        for (PetscInt e = fill[r]; e < fill[r + 1]; e++) (*out)[(std::size_t)(r * dof + fill[e])] = 1;
    };
    dense(dd->dfill, &g->dfill);
    dense(dd->ofill, &g->ofill);
  }
  *found = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The couplings of the stencil of A's DMDA (NULL when A has none), kept with A. */
PetscErrorCode MatDiagGridPattern_Private(Mat A, const pdiag::GridStencilPattern **pattern)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (!a->grid_checked) {
    pdiag::GridStencil g;
    PetscBool          grid;
    PetscCall(MatDiagGridStencil_Private(A, &grid, &g));
    if (grid) DiagCallKernel(a->grid_pattern = std::make_shared<const pdiag::GridStencilPattern>(g));
    a->grid_checked = PETSC_TRUE;
  }
  *pattern = a->grid_pattern.get();
  PetscFunctionReturn(0);
}

/* The offsets of a grid stencil's matrix for this process's rows. */
PetscErrorCode MatDiagGridOffsets_Private(Mat A, const pdiag::GridStencil &g, std::vector<Index> *offsets)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  const Index m = (Index)g.owned[0].size(), n = g.dim > 1 ? (Index)g.owned[1].size() : 1;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  DiagCallKernel(*offsets = pdiag::grid_stencil_offsets(g, rank % m, (rank / m) % n, rank / (m * n)));
  PetscFunctionReturn(0);
}

/* The offsets of a DMDA's stencil matrix for this process's rows. */
static PetscErrorCode MatDiagDMDAOffsets_Private(Mat A, PetscBool *used, std::vector<Index> *offsets)
{
  pdiag::GridStencil g;

  PetscFunctionBegin;
  PetscCall(MatDiagGridStencil_Private(A, used, &g));
  if (*used) PetscCall(MatDiagGridOffsets_Private(A, g, offsets));
  PetscFunctionReturn(0);
}

/* MatSetUp: without a preallocation the matrix starts with no diagonals
   (they are discovered at assembly), except for a DMDA's matrix, whose
   stencil gives the diagonals of every process up front. */
PetscErrorCode MatSetUp_Diag(Mat A)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  DM                 dm;
  PetscBool          isda = PETSC_FALSE, used = PETSC_FALSE;
  std::vector<Index> offsets;

  PetscFunctionBegin;
  PetscCall(MatDiagSetLayout_Private(A));
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) PetscCall(MatDiagDMDAOffsets_Private(A, &used, &offsets));
  if (dm) { /* products compute where the DM's vectors live: so do the vectors MatCreateVecs() gives (e.g. PCJACOBI's) */
    VecType vtype;
    PetscCall(DMGetVecType(dm, &vtype));
    if (vtype) {
      PetscCall(PetscFree(A->defaultvectype));
      PetscCall(PetscStrallocpy(vtype, &A->defaultvectype));
    }
  }
  a->remote = pdiag::RemoteEntries<PetscScalar>();
  /* a DMDA's matrix is set up before MatSetFromOptions() reads its options */
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::ListRemote, &a->opt.list_remote));
  if (used && a->opt.list_remote && A->rmap->n < A->rmap->N) PetscCall(MatDiagGridRemoteSplit_Private(A, &offsets)); /* MPI: couplings to list */
  Hm hm;
  DiagCallKernel(hm = Hm(a->layout, offsets));
  PetscCall(MatDiagReplaceStorage_Private(A, std::move(hm)));
  A->preallocated = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* ops->setup (MatSetUp, collective). A DMDA's matrix comes out as aij's does
   from DMCreateMatrix: its stencil's structure assembled with zeros (unless
   DMSetMatrixPreallocateOnly), so that what needs an assembled matrix
   before the first values (MatFDColoringCreate, MatDuplicate, products)
   accepts it. */
static PetscErrorCode MatSetUp_DiagCollective(Mat A)
{
  DM        dm;
  PetscBool grid;

  PetscFunctionBegin;
  PetscCall(MatSetUp_Diag(A));
  PetscCall(MatGetDM(A, &dm));
  if (!dm || dm->prealloc_only) PetscFunctionReturn(0);
  {
    pdiag::GridStencil g;
    PetscCall(MatDiagGridStencil_Private(A, &grid, &g));
  }
  if (!grid) PetscFunctionReturn(0);
  { /* the storage scheme (auto) is chosen at the first assembly with values,
       not for this structure of zeros; nor do the zeros go to the device
       (the values that follow do, at their assembly; a device operation on
       the zeros themselves uploads them first) */
    Mat_Diag *a          = (Mat_Diag *)A->data;
    a->assembly.structure_changed = PETSC_FALSE;
    a->assembly.defer_upload      = PETSC_TRUE;
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    a                    = (Mat_Diag *)A->data;
    a->assembly.defer_upload      = PETSC_FALSE;
    a->assembly.structure_changed = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* The arguments of MatDiagSetPreallocation() on this process. NULL is
   checked here: PETSc's pointer checks are compiled out of optimized builds. */
static PetscErrorCode MatDiagCheckOffsets_Private(Mat A, PetscInt ndiag, const PetscInt offsets[])
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(ndiag >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: number of diagonals %" PetscInt_FMT " is negative", ndiag);
  PetscCheck(!ndiag || offsets, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatDiagSetPreallocation() got %" PetscInt_FMT " diagonals and a NULL array of offsets", ndiag);
  for (PetscInt k = 0; k < ndiag; k++)
    PetscCheck(a->layout.valid_offset(offsets[k]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "diag: diagonal offset %" PetscInt_FMT " outside (-%" PetscInt_FMT ", %" PetscInt_FMT ") of a %" PetscInt_FMT " x %" PetscInt_FMT " matrix", offsets[k],
               A->rmap->N, A->cmap->N, A->rmap->N, A->cmap->N);
  PetscFunctionReturn(0);
}

/* A matrix argument of the public functions. PETSc's header checks are
   compiled out of optimized builds; NULL and other objects would be used as
   matrices. */
PetscErrorCode MatDiagCheckMat_Private(Mat A, const char *fn)
{
  PetscFunctionBegin;
  PetscCheck(A, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: %s got a NULL matrix", fn);
  PetscCheck(((PetscObject)A)->classid == MAT_CLASSID, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "diag: %s got a %s object, not a matrix", fn, ((PetscObject)A)->class_name ? ((PetscObject)A)->class_name : "non-PETSc");
  PetscFunctionReturn(0);
}

/*@
   MatDiagSetPreallocation - Sets the diagonals a `MATDIAG` matrix stores, before values are set.

   Collective

   Input Parameters:
+  A       - the matrix
.  ndiag   - the number of diagonals
-  offsets - the diagonal offsets d = j - i (global; any order, duplicates allowed), each in (-M, N)

   Notes:
   Every process passes the same global set; each stores the diagonals that cross its rows.
   Entries set later on other diagonals are still accepted: their diagonals are added at
   `MatAssemblyEnd()`.

   Level: intermediate

.seealso: `MATDIAG`, `MatCreateDiag()`, `MatDiagGetDiagonals()`
@*/
PetscErrorCode MatDiagSetPreallocation(Mat A, PetscInt ndiag, const PetscInt offsets[])
{
  PetscFunctionBegin;
  PetscCall(MatDiagCheckMat_Private(A, "MatDiagSetPreallocation()"));
  PetscTryMethod(A, "MatDiagSetPreallocation_C", (Mat, PetscInt, const PetscInt[]), (A, ndiag, offsets));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDiagSetPreallocation_Diag(Mat A, PetscInt ndiag, const PetscInt offsets[])
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  std::vector<Index> local;
  PetscErrorCode     ierr = 0;

  PetscFunctionBegin;
  PetscCall(MatDiagSetLayout_Private(A));
  /* arguments differ between processes: every process checks its own, then
     all agree, so that none waits alone in the collective steps below */
  ierr = MatDiagCheckOffsets_Private(A, ndiag, offsets); /* reported by the error handler as it is raised */
  PetscCall(MatDiagAgreeOnError_Private(PetscObjectComm((PetscObject)A), ierr, "MatDiagSetPreallocation()"));
  for (PetscInt k = 0; k < ndiag; k++)
    if (a->layout.length(offsets[k]) > 0) PetscCallCXX(local.push_back(offsets[k]));
  /* duplicates are merged before counting: the budget is that of the storage */
  pdiag::StorageCount count;
  DiagCallKernel(count = pdiag::hm_count(a->layout, local));
  PetscCall(MatDiagCheckBudgetAll_Private(A, count, -1));
  Hm hm;
  DiagCallKernel(hm = Hm(a->layout, local));
  PetscCall(MatDiagReplaceStorage_Private(A, std::move(hm)));
  a->remote     = pdiag::RemoteEntries<PetscScalar>();
  a->remote_any = PETSC_FALSE; /* every process: this is collective */
  A->preallocated = PETSC_TRUE;
  A->assembled    = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
   MatDiagSetStorage - Chooses the storage scheme of a `MATDIAG` matrix

   Logically Collective

   Input Parameters:
+  A       - the matrix
-  storage - `MAT_DIAG_STORAGE_HM`, `MAT_DIAG_STORAGE_CDM` (square matrices only) or `MAT_DIAG_STORAGE_AUTO`

   Options Database Key:
.  -mat_diag_storage <hm,cdm,auto> - the scheme

   Note:
   The scheme takes effect at the next final assembly (at once if the matrix is assembled).

   Level: intermediate

.seealso: `MATDIAG`, `MatDiagGetStorage()`
@*/
PetscErrorCode MatDiagSetStorage(Mat A, MatDiagStorage storage)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCheckMat_Private(A, "MatDiagSetStorage()"));
  PetscTryMethod(A, "MatDiagSetStorage_C", (Mat, MatDiagStorage), (A, storage));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDiagSetStorage_Diag(Mat A, MatDiagStorage storage)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCheck(storage >= MAT_DIAG_STORAGE_HM && storage <= MAT_DIAG_STORAGE_AUTO, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: unknown storage scheme %d", (int)storage);
  PetscCheck(storage != MAT_DIAG_STORAGE_CDM || A->rmap->N == A->cmap->N, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "diag: CDM storage needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, A->rmap->N, A->cmap->N);
  a->opt.storage_req = storage;
  if (A->assembled) PetscCall(MatDiagApplyStorage_Private(A));
  PetscFunctionReturn(0);
}

/*@
   MatDiagGetStorage - Gets the storage scheme a `MATDIAG` matrix uses now

   Not Collective

   Input Parameter:
.  A - the matrix

   Output Parameter:
.  storage - `MAT_DIAG_STORAGE_HM` or `MAT_DIAG_STORAGE_CDM` (before the first assembly,
             `MAT_DIAG_STORAGE_AUTO` if the choice is still open)

   Level: intermediate

.seealso: `MATDIAG`, `MatDiagSetStorage()`
@*/
PetscErrorCode MatDiagGetStorage(Mat A, MatDiagStorage *storage)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCheckMat_Private(A, "MatDiagGetStorage()"));
  PetscCheck(storage, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "diag: MatDiagGetStorage() got a NULL output argument");
  PetscUseMethod(A, "MatDiagGetStorage_C", (Mat, MatDiagStorage *), (A, storage));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDiagGetStorage_Diag(Mat A, MatDiagStorage *storage)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  if (!A->assembled && a->opt.storage_req == MAT_DIAG_STORAGE_AUTO) *storage = MAT_DIAG_STORAGE_AUTO;
  else *storage = a->scheme == pdiag::Scheme::HM ? MAT_DIAG_STORAGE_HM : MAT_DIAG_STORAGE_CDM;
  PetscFunctionReturn(0);
}

/*@C
   MatDiagGetDiagonals - Gets the diagonals this process stores

   Not Collective

   Input Parameter:
.  A - the matrix

   Output Parameters:
+  ndiag   - the number of stored diagonals
-  offsets - their offsets, ascending (read-only; valid until the structure changes): diagonal
             offsets d = j - i in HM storage, compact offsets k in [0, n) in CDM storage

   Level: intermediate

.seealso: `MATDIAG`, `MatDiagSetPreallocation()`, `MatDiagGetStorage()`
@*/
PetscErrorCode MatDiagGetDiagonals(Mat A, PetscInt *ndiag, const PetscInt *offsets[])
{
  PetscFunctionBegin;
  PetscCall(MatDiagCheckMat_Private(A, "MatDiagGetDiagonals()"));
  PetscUseMethod(A, "MatDiagGetDiagonals_C", (Mat, PetscInt *, const PetscInt *[]), (A, ndiag, offsets));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDiagGetDiagonals_Diag(Mat A, PetscInt *ndiag, const PetscInt *offsets[])
{
  Mat_Diag                 *a = (Mat_Diag *)A->data;
  const std::vector<Index> &offs = a->scheme == pdiag::Scheme::HM ? a->hm.offsets : a->cdm.koffsets;

  PetscFunctionBegin;
  a->row_cols.assign(offs.begin(), offs.end()); /* PetscInt copy; the row buffer is free between MatGetRow calls */
  PetscCheck(!a->row_busy, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: call MatRestoreRow() before MatDiagGetDiagonals()");
  if (ndiag) *ndiag = (PetscInt)offs.size();
  if (offsets) *offsets = a->row_cols.data();
  PetscFunctionReturn(0);
}

/*@
   MatCreateDiag - Creates a sparse matrix stored by diagonals (`MATDIAG`)

   Collective

   Input Parameters:
+  comm    - MPI communicator
.  m, n    - local rows and columns (or `PETSC_DECIDE`)
.  M, N    - global rows and columns (or `PETSC_DETERMINE`)
.  ndiag   - the number of diagonals known in advance (0 if none)
-  offsets - the diagonal offsets d = j - i (global), or NULL

   Output Parameter:
.  A - the matrix

   Level: beginner

.seealso: `MATDIAG`, `MatDiagSetPreallocation()`, `MatSetValues()`
@*/
PetscErrorCode MatCreateDiag(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, PetscInt ndiag, const PetscInt offsets[], Mat *A)
{
  PetscFunctionBegin;
  PetscCheck(A, comm, PETSC_ERR_ARG_NULL, "diag: MatCreateDiag() got a NULL output argument");
  PetscCall(MatDiagRegisterAll());
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M, N));
  PetscCall(MatSetType(*A, MATDIAG));
  PetscCall(MatDiagSetPreallocation(*A, ndiag, offsets));
  PetscFunctionReturn(0);
}

/* The body of MatSetFromOptions_Diag: the options block (of its caller) is
   open throughout. */
static PetscErrorCode MatSetFromOptions_DiagBody(Mat A, PetscDiagOptionItems PetscOptionsObject)
{
  Mat_Diag      *a = (Mat_Diag *)A->data;
  MatDiagStorage storage;
  PetscBool      set;

  PetscFunctionBegin;
  PetscCall(MatDiagOptionsFromBlock_Private(PetscOptionsObject, &a->opt, &storage, &set));
  PetscCall(MatDiagCheckScatteredFill_Private(a));
  { /* -vec_type names where the program's vectors live: MatCreateVecs() follows it (e.g. for PCJACOBI's work vector) */
    char      vtype[64];
    PetscBool vset;
    PetscCall(PetscOptionsGetString(((PetscObject)A)->options, NULL, "-vec_type", vtype, sizeof(vtype), &vset));
    if (vset) {
      PetscCall(PetscFree(A->defaultvectype));
      PetscCall(PetscStrallocpy(vtype, &A->defaultvectype));
    }
  }
  if (set) PetscCall(MatDiagSetStorage(A, storage));
  PetscFunctionReturn(0);
}

/* ops->setfromoptions. PETSc calls it inside its options block and returns
   at once on an error, without closing the block (whose strings would
   leak): on an error the block is closed here before the error goes up. */
static PetscErrorCode MatSetFromOptions_Diag(Mat A, PetscDiagOptionItems PetscOptionsObject)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  ierr = MatSetFromOptions_DiagBody(A, PetscOptionsObject);
  if (ierr) (void)PetscOptionsEnd_Private(PetscOptionsObject);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* The diag options of A alone, without PETSc's generic -mat_type handling
   (which would change the type of a matrix being built as diag). */
PetscErrorCode MatDiagSetFromOptionsOnly_Private(Mat A)
{
  PetscFunctionBegin;
  PetscObjectOptionsBegin((PetscObject)A);
  PetscCall(MatSetFromOptions_Diag(A, PetscOptionsObject)); /* closes the block itself on an error */
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* The aij types MatConvert() finds a direct converter for on a diag matrix. */
static const char *const kAIJTargets[] = {"aij", "seqaij", "mpiaij", "aijcusparse", "seqaijcusparse", "mpiaijcusparse"};
/* ... and the types reached through aij's converters (MatConvert_Diag_ViaAIJ); hypre
   (PCHYPRE converts its operator) gets aij's block size and layout that way */
static const char *const kViaAIJTargets[] = {"is", "sbaij", "seqsbaij", "mpisbaij", "hypre"};

static PetscErrorCode MatDiagComposeConverters(Mat A, const char *name, PetscBool set)
{
  PetscFunctionBegin;
  for (const char *to : kAIJTargets) {
    char fname[96];
    PetscCall(PetscSNPrintf(fname, sizeof(fname), "MatConvert_%s_%s_C", name, to));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, fname, set ? MatConvert_Diag_AIJ : NULL));
  }
  for (const char *to : kViaAIJTargets) {
    char fname[96];
    PetscCall(PetscSNPrintf(fname, sizeof(fname), "MatConvert_%s_%s_C", name, to));
    PetscCall(PetscObjectComposeFunction((PetscObject)A, fname, set ? MatConvert_Diag_ViaAIJ : NULL));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_Diag(Mat A)
{
  Mat_Diag *a = (Mat_Diag *)A->data;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(destroy, A)); /* first: nothing to bring back from the device */
  PetscCall(MatDiagGhostDestroy_Private(A));
  PetscCall(MatDiagCompanionDestroy_Private(a));
  PetscCall(MatDestroy(&a->cache.diag_block));
  delete a;
  A->data = nullptr;
  PetscCall(MatDiagComposeConverters(A, ((PetscObject)A)->type_name, PETSC_FALSE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, nullptr));
  for (const char *name : {"MatDiagSetPreallocation_C", "MatInodeAdjustForInodes_C", "MatDiagSetStorage_C", "MatDiagGetStorage_C", "MatDiagGetDiagonals_C", "MatDiagGhostExchange_C", "MatSetPreallocationCOO_C", "MatSetValuesCOO_C", "MatStoreValues_C", "MatRetrieveValues_C", "MatProductSetFromOptions_anytype_C"})
    PetscCall(PetscObjectComposeFunction((PetscObject)A, name, NULL));
  PetscFunctionReturn(0);
}

/* The create function of both seqdiag and mpidiag. */
PetscErrorCode MatDiagCreateNamed_Private(Mat A, const char *name)
{
  PetscFunctionBegin;
  PetscCallCXX(A->data = new Mat_Diag());
  PetscCall(MatDiagSetOps_Private(A));
  A->ops->destroy        = MatDestroy_Diag;
  A->ops->setfromoptions = MatSetFromOptions_Diag;
  A->ops->setup          = MatSetUp_DiagCollective;
  A->assembled           = PETSC_FALSE;
  A->preallocated        = PETSC_FALSE;
  /* MatSetOption(MAT_SUBSET_OFF_PROC_ENTRIES) frees this datatype of PETSc's
     (unused here) stash: it must be a valid handle */
  A->stash.blocktype = MPI_DATATYPE_NULL;
  /* Sizes are usually set before the type: lay the rows out now, so that
     MatGetOwnershipRange() works before MatSetUp(), as after an aij
     preallocation call (which is a no-op for this type). */
  if ((A->rmap->n >= 0 || A->rmap->N >= 0) && (A->cmap->n >= 0 || A->cmap->N >= 0)) PetscCall(MatDiagSetLayout_Private(A));
  PetscCall(MatDiagOptionsAtCreation_Private(A, &((Mat_Diag *)A->data)->opt));
  PetscCall(MatDiagCheckScatteredFill_Private((Mat_Diag *)A->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagSetPreallocation_C", MatDiagSetPreallocation_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatInodeAdjustForInodes_C", MatInodeAdjustForInodes_Diag)); /* orderings, see companion/companion_ops.cpp */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagSetStorage_C", MatDiagSetStorage_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetStorage_C", MatDiagGetStorage_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGetDiagonals_C", MatDiagGetDiagonals_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatDiagGhostExchange_C", MatDiagGhostExchange_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetPreallocationCOO_C", MatSetPreallocationCOO_Diag));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatSetValuesCOO_C", MatSetValuesCOO_Diag));
  PetscCall(MatDiagComposeConverters(A, name, PETSC_TRUE));
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, name));
  /* -info shows which matrices of a program are diag (the tutorial comparison uses it) */
  PetscCall(PetscInfo(A, "diag: created a %s matrix\n", name));
  PetscFunctionReturn(0);
}

/*MC
   MATSEQDIAG - "seqdiag" - the sequential `MATDIAG` type

   Level: beginner

.seealso: `MATDIAG`, `MATMPIDIAG`
M*/
static PetscErrorCode MatCreate_SeqDiag(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCreateNamed_Private(A, MATSEQDIAG));
  PetscCall(MatDiagDeviceTry(create, A, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*MC
   MATMPIDIAG - "mpidiag" - the parallel `MATDIAG` type: each process stores the diagonals
   crossing its block of rows and gathers the vector entries its diagonals reach from other
   processes with one `VecScatter`

   Level: beginner

.seealso: `MATDIAG`, `MATSEQDIAG`
M*/
static PetscErrorCode MatCreate_MPIDiag(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatDiagCreateNamed_Private(A, MATMPIDIAG));
  PetscCall(MatDiagDeviceTry(create, A, PETSC_FALSE));
  PetscFunctionReturn(0);
}


/*@C
   MatDiagRegisterAll - Registers the `MATDIAG` types with PETSc (idempotent)

   Not Collective

   Note:
   Called automatically when libpetscdiag is loaded with -dll_append; programs linked against
   the library call it once after `PetscInitialize()` (`MatCreateDiag()` does too).

   Level: beginner

.seealso: `MATDIAG`
@*/
PetscLogEvent MATDIAG_ProductPlan = 0, MATDIAG_PlanToGPU = 0, MATDIAG_CopyToGPU = 0, MATDIAG_Compress = 0, MATDIAG_GPUAlloc = 0, MATDIAG_FactorToGPU = 0, MATDIAG_FactorNumericGPU = 0, MATDIAG_Halo = 0, MATDIAG_GalerkinGPU = 0, MATDIAG_GalerkinQ1 = 0, MATDIAG_SymmetricMult = 0, MATDIAG_AijPattern = 0, MATDIAG_CountNonzeros = 0;

const DiagDeviceOps *MatDiagDeviceOps_Private = nullptr;

PetscErrorCode MatDiagNoDevice_Private(const char *entry)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: a device operation (%s) was reached in a build without the device layer", entry);
}

PetscErrorCode MatDiagRegisterAll(void)
{
  static PetscBool registered = PETSC_FALSE;

  PetscFunctionBegin;
  if (registered) PetscFunctionReturn(0);
  registered = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("MatDiagProdPlan", MAT_CLASSID, &MATDIAG_ProductPlan));
  PetscCall(PetscLogEventRegister("MatDiagPlanToGPU", MAT_CLASSID, &MATDIAG_PlanToGPU));
  PetscCall(PetscLogEventRegister("MatDiagCopyToGPU", MAT_CLASSID, &MATDIAG_CopyToGPU));
  PetscCall(PetscLogEventRegister("MatDiagCompress", MAT_CLASSID, &MATDIAG_Compress));
  PetscCall(PetscLogEventRegister("MatDiagGPUAlloc", MAT_CLASSID, &MATDIAG_GPUAlloc));
  PetscCall(PetscLogEventRegister("MatDiagFactToGPU", MAT_CLASSID, &MATDIAG_FactorToGPU));
  PetscCall(PetscLogEventRegister("MatDiagFactNumGPU", MAT_CLASSID, &MATDIAG_FactorNumericGPU));
  PetscCall(PetscLogEventRegister("MatDiagHalo", MAT_CLASSID, &MATDIAG_Halo));
  PetscCall(PetscLogEventRegister("MatDiagPtAPGPU", MAT_CLASSID, &MATDIAG_GalerkinGPU));
  PetscCall(PetscLogEventRegister("MatDiagPtAPQ1", MAT_CLASSID, &MATDIAG_GalerkinQ1));
  PetscCall(PetscLogEventRegister("MatDiagSymMult", MAT_CLASSID, &MATDIAG_SymmetricMult));
  PetscCall(PetscLogEventRegister("MatDiagAijPattern", MAT_CLASSID, &MATDIAG_AijPattern));
  PetscCall(PetscLogEventRegister("MatDiagCountNz", MAT_CLASSID, &MATDIAG_CountNonzeros));
  PetscCall(MatRegister(MATSEQDIAG, MatCreate_SeqDiag));
  PetscCall(MatRegister(MATMPIDIAG, MatCreate_MPIDiag));
  PetscCall(MatRegisterRootName(MATDIAG, MATSEQDIAG, MATMPIDIAG));
  PetscCall(MatDiagRegisterSolverTypes_Private());
  PetscCall(MatDiagRegisterPCs_Private());
  PetscCall(MatDiagRegisterMG_Private());
  PetscCall(MatDiagRegisterASM_Private());
  PetscCall(MatDiagRegisterChebyJacobi_Private());
#if defined(PDIAG_PETSC_CUDA)
  PetscCall(MatDiagRegisterDevice_Private()); /* the device layer and the diagcuda types (device/register.cpp) */
#endif
  PetscFunctionReturn(0);
}

/* Entry point for -dll_append <path>/libpetscdiag.so: PETSc derives the
   name from the library's file name (libpetscdiag -> petscdiag). */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscdiag(void)
{
  PetscFunctionBegin;
  PetscCall(MatDiagRegisterAll());
  PetscFunctionReturn(0);
}
