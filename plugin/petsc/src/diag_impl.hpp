// Private data and internal functions of the diag Mat types. One
// implementation serves seqdiag and mpidiag: a sequential matrix is the
// one-rank case (no ghost exchange). Arithmetic lives in kernels/; this
// layer owns memory, MPI, options and PETSc's calling conventions.
#pragma once

#include <petsc/private/matimpl.h>
#include <petscdiag.h>
#include <petscpc.h>

#include "petsc_compat.hpp"

#include "pdiag/assemble.hpp"
#include "pdiag/compress.hpp"
#include "pdiag/convert.hpp"
#include "pdiag/distributed.hpp"
#include "pdiag/format.hpp"
#include "pdiag/remote.hpp"
#include "pdiag/stencil.hpp"
#include "pdiag/transfer.hpp"

#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

using pdiag::Index;
using Hm = pdiag::HmMatrix<PetscScalar>;
using Cdm = pdiag::CdmMatrix<PetscScalar>;

/* Runs a kernels/ call; its FormatError becomes a PETSc argument error with
   the kernel's message, bad_alloc a memory error. */
#define DiagCallKernel(...) \
  do { \
    try { \
      __VA_ARGS__; \
    } catch (const pdiag::FormatError &e_) { \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: %s", e_.what()); \
    } catch (const std::bad_alloc &) { \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "diag: out of memory"); \
    } catch (const std::exception &e_) { \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "diag: %s", e_.what()); \
    } \
  } while (0)

/* -log_view events of the diag types (registered by MatDiagRegisterAll):
   the product's host planning and the copy of its plan to the device,
   copies of a matrix to the device (values, metadata), the constant-diagonal detection that precedes
   an upload, device allocations of matrix storage, and the upload of an
   ILU(0)/ICC(0) factor and its level schedules, and the numeric
   factorization on the device (diag_factor_device.cpp). */
extern PetscLogEvent MATDIAG_ProductPlan, MATDIAG_PlanToGPU, MATDIAG_CopyToGPU, MATDIAG_Compress, MATDIAG_GPUAlloc, MATDIAG_FactorToGPU, MATDIAG_FactorNumericGPU, MATDIAG_Halo, MATDIAG_GalerkinGPU, MATDIAG_GalerkinQ1, MATDIAG_SymmetricMult;

/* The vectors a MatMult-like product reaches beyond the owned part of x (or
   of y for transposes): gathered into a sequential work vector whose layout
   is a sorted list of merged column intervals. shift[] gives, per stored
   diagonal (2 per compact diagonal for CDM), the kernels' vector shift. */
struct DiagSorGraph; /* diag_sor_device.cpp (CUDA builds): MatSOR's recorded CUDA graph */

/* -mat_diag_max_diagonals' default; also the limit up to which an aij
   matrix's diagonals are counted when deciding whether to store it as diag */
constexpr PetscInt kMaxDiagonalsDefault = 10000;

struct DiagHalo; /* diag_halo_device.cpp */

/* MPI products: a diagonal reaching other processes with at most 1 /
   kListFillRatio of its entries nonzero is listed rather than passed over
   (pdiag::hm_split_sparse_remote, diag_mult.cpp) */
constexpr Index kListFillRatio = 8;

struct DiagGhost {
  Vec        work    = nullptr; /* sequential, the gathered columns */
  VecScatter scatter = nullptr; /* global x -> work */
  std::vector<std::pair<Index, Index>> need; /* the global column intervals work holds, in order */
  std::vector<Index> shift_lo, shift_hi; /* boundary rows below / above the interior */
  Index              own_begin = 0, own_end = 0; /* the positions of work holding owned columns */
};

/* The device copy (CUDA builds): one Index array of metadata (offsets,
   starts, the four shift blocks) and the values; the mask says which copy
   is current. Unused in CPU builds. */
struct DiagDevice {
  PetscOffloadMask mask = PETSC_OFFLOAD_UNALLOCATED;
  Index           *meta = nullptr;
  PetscScalar     *val  = nullptr;
  std::size_t      meta_cap = 0, val_cap = 0;
  Index            nd = 0, nslot = 0;
  /* the product's passes and listed entries when the split is active
     (Mat_Diag::split_active): npass pass offsets | starts, then the listed
     rows | ptr | pos | cols, from meta + pass_meta */
  Index            npass = 0, nlisted_rows = 0, nlisted = 0, pass_meta = 0;
  bool             split = false;
  bool             hm = true;
  /* HM with constant diagonals (-mat_diag_compress_constant): MatMult reads
     the compressed form; the full values are uploaded only for transposes */
  bool                          compressed = false, full_values = false;
  Index                        *cmeta      = nullptr; /* offsets | vbase | exc_rows | exc_ptr | exc_diag */
  PetscScalar                  *cval       = nullptr; /* cval | packed | exc_delta */
  std::size_t                   cmeta_cap = 0, cval_cap = 0;
  pdiag::HmCompressedView<PetscScalar> cview;        /* device pointers */
  Vec              work = nullptr, tr_work = nullptr; /* device ghost vectors (MPI) */
  DiagHalo        *halo = nullptr;                    /* MatMult's pinned-memory ghost exchange, if used (diag_halo_device.cpp) */
  PetscBool        halo_decided = PETSC_FALSE;        /* MatDiagHaloSetUp_Private ran for this ghost layout */
  Index           *coo_slot = nullptr;                /* MatSetValuesCOO's slot map (device arrays) */
  Index           *rows     = nullptr;                /* MatZeroRows' row list */
  std::size_t      rows_cap = 0;
  std::size_t      coo_cap  = 0;
  PetscObjectState coo_state = -1;                    /* the host map's state it was copied from */
  /* MatSOR on the device (diag_sor_device.cpp): the level schedules of the
     two sweep directions (host level pointers; device rows, forward then
     backward) for the values of state sor_state (the schedule depends on
     where the zeros are), and mdiag | idiag | work for (sor_omega, sor_fshift) */
  std::vector<Index> sor_fwd_ptr, sor_bwd_ptr;
  Index             *sor_rows = nullptr;
  PetscScalar       *sor_diag = nullptr;
  std::size_t        sor_rows_cap = 0, sor_diag_cap = 0;
  PetscObjectState   sor_state = -1, sor_diag_state = -1;
  PetscReal          sor_omega = 0, sor_fshift = 0;
  Index              sor_zero_row = -1;
  DiagSorGraph      *sor_graph    = nullptr; /* the sweeps' CUDA graph: dropped with the schedules and device arrays it holds the addresses of */
  int              device    = -1;                    /* the CUDA device PETSc gave this process (-1: not set up yet) */
  /* MatMult and MatResidual through the main and upper diagonals
     (-mat_diag_symmetric_product): whether the device values at sym_val,
     of the matrix's state sym_state, are symmetric to the bit */
  PetscObjectState   sym_state = -1;
  const PetscScalar *sym_val   = nullptr;
  bool               sym_values = false;
};

struct Mat_Diag {
  /* user choices */
  MatDiagStorage storage_req   = MAT_DIAG_STORAGE_AUTO;
  PetscInt       max_diagonals = kMaxDiagonalsDefault; /* -mat_diag_max_diagonals: refuse beyond */
  PetscReal      max_bytes     = -1;    /* -mat_diag_max_bytes: refuse storage beyond (per process; -1: the memory the process can get) */
  PetscReal      max_fill      = 100;   /* -mat_diag_max_fill: refuse more stored entries per entry set (large matrices only) */
  PetscReal      scattered_fill = 16;   /* -mat_diag_scattered_fill: convert to aij at assembly beyond this many stored entries per aij entry (diag_scattered.cpp; 0: never) */
  PetscBool      internal_assembly = PETSC_FALSE; /* an assembly inside the plugin, which goes on with this matrix as diag: no conversion */
  PetscBool      staged_to_aij     = PETSC_FALSE; /* this assembly's staged entries are scattered, or over the budget, on some process: the matrix becomes aij instead of storing them (diag_scattered.cpp) */
  PetscBool      compress_constant = PETSC_TRUE; /* -mat_diag_compress_constant (GPU copies of HM) */
  PetscBool      defer_upload      = PETSC_FALSE; /* set while a product assembles its zero result: no upload at assembly end */
  PetscBool      host_deferred     = PETSC_FALSE; /* HM values not allocated on the host yet (a GPU product's result) */
  PetscBool      pinned_halo       = PETSC_TRUE;  /* -mat_diag_pinned_halo: device MatMult's ghost exchange through pinned memory (MPI without CUDA awareness) */
  PetscBool      device_ops        = PETSC_TRUE;  /* -mat_diag_device_ops: MatScale/Shift/AXPY/GetDiagonal/DiagonalScale/ZeroRows on the device */
  PetscBool      symmetric_product = PETSC_TRUE;  /* -mat_diag_symmetric_product: the device MatMult/MatResidual of a symmetric matrix on one process read its main and upper diagonals */
  PetscBool      device_subdomains = PETSC_FALSE; /* set while PCASM sets up (diag_asm.cpp): MatCreateSubMatrices may return aijcusparse blocks */
  /* the view another package put in the ops table (a DMDA's, in parallel:
     the natural ordering), called by MatView_Diag for all but ascii info
     (MatDiagKeepView_Private) */
  PetscErrorCode (*view_replaced)(Mat, PetscViewer) = nullptr;

  /* the local block, in exactly one scheme at a time */
  pdiag::Layout layout;
  pdiag::Scheme scheme = pdiag::Scheme::HM;
  Hm            hm;
  Cdm           cdm;

  /* MPI, HM: the entries of sparsely filled diagonals that reach only
     other processes' columns, kept as a list instead of as diagonals
     (pdiag/remote.hpp: a process grid of unequal widths couples each
     boundary grid line through a diagonal of its own). Listed at a DMDA's
     preallocation and when new diagonals are merged at assembly
     (-mat_diag_list_remote). Operations that read them: MatSetValues,
     MatGetValues, MatGetRow, the aij copy, MatMult and MatMultAdd (host and
     device), MatMultTranspose and MatMultTransposeAdd (host), MatSOR's
     remote couplings, and the value-wide operations;
     the others first store them as diagonals
     (MatDiagRemoteToDiagonals_Private). remote_any (the same on every
     process, agreed at each final assembly): some process lists entries. */
  pdiag::RemoteEntries<PetscScalar> remote;
  PetscBool                         remote_any  = PETSC_FALSE;
  PetscBool                         list_remote = PETSC_TRUE; /* -mat_diag_list_remote */

  /* entries on diagonals not yet stored, by HM offset (as lists until they
     fill half their diagonal): merged into the storage at MatAssemblyEnd
     (new diagonals discovered), after the memory budget is checked */
  std::map<Index, pdiag::StagedDiagonal<PetscScalar>> staged;
  /* positions (row, column) that MatSetValues set and that held an exact
     zero after the write (element contributions that cancel, explicit
     zeros): aij keeps them, so the aij copy does (diag_companion.cpp).
     Sorted and unique after MatAssemblyEnd. */
  std::vector<std::pair<Index, Index>> zero_sets;
  /* rows MatZeroRows emptied without MAT_KEEP_NONZERO_PATTERN (global,
     sorted): a DMDA's stencil no longer makes entries there, as aij's
     zeroed rows hold only their diagonal (diag_companion.cpp) */
  std::vector<Index> dropped_rows;
  PetscBool          keep_nonzero_pattern = PETSC_FALSE; /* MAT_KEEP_NONZERO_PATTERN */
  /* MatSetValues: the diagonal the entry at each position of the previous
     call's columns (modulo kSlotHints) lay on. A stencil's rows come with
     the same offsets at the same positions, in whatever order the program
     lists them (a flux-form assembly: -x, +x, -y, +y, -z, +z, centre). */
  static constexpr int kSlotHints = 16;
  Index                slot_hint[kSlotHints] = {};
  void                 ForgetSlotHints() { std::fill(slot_hint, slot_hint + kSlotHints, Index(0)); }
  PetscBool                                 structure_changed = PETSC_TRUE;

  /* MPI: owned columns [col_begin, col_end); interior rows [ib, ie) (local)
     read only owned x; the others read the ghost work vector */
  Index              col_begin = 0, col_end = 0;
  Index              ib = 0, ie = 0;
  std::vector<Index> shift_local;   /* x index of owned columns: il + shift */
  DiagGhost          ghost;         /* for MatMult */
  Vec                tr_work    = nullptr; /* for MatMultTranspose: contributions per touched column */
  VecScatter         tr_scatter = nullptr;
  std::vector<Index> tr_shift;
  std::vector<Index> tr_listed;  /* the tr_work position of each listed entry's column (remote.cols' order) */
  PetscBool          ghost_valid = PETSC_FALSE;
  /* MPI products: the diagonals their row passes run over (pass_slots: hm
     indices; pass_offsets, pass_start: the view over them; all empty when
     the passes run over every diagonal) and the nonzeros of sparsely filled
     diagonals reaching other processes, listed with work-vector columns
     (pdiag::hm_split_sparse_remote). split_watch (the same on every
     process): values may change the split, so it is examined again when the
     matrix's state has moved on from split_state. pass_entries: the stored
     entries a product reads (its flops / 2). */
  PetscBool            split_active = PETSC_FALSE; /* pass_* and listed hold the split; otherwise passes run over every diagonal */
  std::vector<Index>   pass_slots, pass_offsets, pass_start;
  pdiag::ListedEntries listed;
  PetscBool            split_watch  = PETSC_FALSE;
  PetscObjectState     split_state  = -1;
  Index                pass_entries = 0;

  DiagDevice dev;

  /* the aij copy that operations on the graph of the matrix use
     (diag_companion.cpp): current while its state equals A's */
  Mat              companion         = nullptr;
  PetscInt         companion_builds  = 0; /* aij copies built so far (a factorization checks it did not change) */
  PetscObjectState companion_state   = -1;
  PetscObjectState companion_nzstate = -1;
  /* the entries an aij matrix of this operator holds (CSR pattern of the
     local rows, global columns): from the last aij copy, or from the aij
     matrix this one was converted from; valid while the nonzero state is
     aij_pattern_nzstate */
  std::vector<Index> aij_rowptr, aij_colidx;
  PetscObjectState   aij_pattern_nzstate = -1;
  PetscBool          aij_pattern_has_stencil = PETSC_FALSE; /* built by the aij copy's rule, which keeps a DMDA stencil's stored couplings */
  /* how many local entries an aij matrix of this operator holds
     (MatGetInfo's nz_used), for the object and nonzero states named */
  Index            aij_count         = 0;
  PetscObjectState aij_count_state   = -1;
  PetscObjectState aij_count_nzstate = -1;

  /* MPI: the block of owned rows and columns as a seqdiag
     (MatGetDiagonalBlock; bjacobi, local SOR sweeps), refreshed like the companion */
  Mat              diag_block         = nullptr;
  /* whether aij would run this matrix's SOR on inodes (MatDiagUsesInodes_Private), for the values of inode_state */
  PetscObjectState inode_state = -1;
  PetscBool        inode_use   = PETSC_FALSE;
  /* aij's inode options, read at creation as aij reads them: -mat_no_inode / -mat_no_unroll, -mat_inode_limit */
  PetscBool        inode_allowed = PETSC_TRUE;
  PetscInt         inode_limit   = 5;
  PetscObjectState diag_block_state   = -1;
  PetscObjectState diag_block_nzstate = -1;

  /* an HM copy of CDM storage for the kernels that work on HM (SOR, factors), kept until A changes */
  Hm               hm_of_cdm;
  PetscObjectState hm_of_cdm_state = -1;

  /* the stencil of the DMDA the matrix came from (null: none), built at first use */
  std::shared_ptr<const pdiag::GridStencilPattern> grid_pattern;
  PetscBool                                        grid_checked = PETSC_FALSE;

  /* MatStoreValues / MatRetrieveValues */
  std::vector<PetscScalar> stored_values;

  /* MAT_NEW_NONZERO_LOCATIONS (false: entries on new diagonals are dropped),
     MAT_NEW_NONZERO_LOCATION_ERR (an error) */
  PetscBool new_diagonals_ignored = PETSC_FALSE;
  PetscBool new_diagonals_error   = PETSC_FALSE;

  /* MatGetRow buffers */
  std::vector<PetscInt>    row_cols;
  std::vector<PetscScalar> row_vals;
  PetscBool                row_busy = PETSC_FALSE;

  /* entries of other processes' rows, sent to their owners at assembly */
  std::vector<PetscInt>    stash_i, stash_j;
  std::vector<PetscScalar> stash_v;

  /* MatSetValues options */
  PetscBool roworiented = PETSC_TRUE;
  PetscBool donotstash  = PETSC_FALSE;

  /* COO assembly: owned entry e adds into values()[coo_slot[e]] (-1: not
     owned or ignored); entries of other processes' rows go through the stash */
  std::vector<PetscInt> coo_i, coo_j;
  std::vector<Index>    coo_slot;
  PetscObjectState      coo_state  = -1; /* A->nonzerostate the slots were computed for */
  PetscBool             coo_remote = PETSC_FALSE;

  Index ndiag_hm() const { return scheme == pdiag::Scheme::HM ? hm.ndiag() : 0; }
  Index nstored() const { return scheme == pdiag::Scheme::HM ? hm.nstored() : cdm.nstored(); }
  PetscScalar *values() { return scheme == pdiag::Scheme::HM ? hm.val.data() : cdm.val.data(); }
};

/* diag_create.cpp */
PETSC_INTERN PetscErrorCode MatCreate_Diag(Mat);
PETSC_INTERN PetscErrorCode MatDiagSetLayout_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagReplaceStorage_Private(Mat, Hm &&);

/* diag_checks.cpp: argument checks, agreement on errors, the memory budget */
PETSC_INTERN PetscErrorCode MatDiagCheckCount_Private(Mat, Index);
PETSC_INTERN PetscErrorCode MatDiagCheckCountAll_Private(Mat, Index);
PETSC_INTERN PetscErrorCode MatDiagCheckBudget_Private(Mat, pdiag::StorageCount, PetscInt64);
PETSC_INTERN PetscErrorCode MatDiagCheckBudgetAll_Private(Mat, pdiag::StorageCount, PetscInt64);
PETSC_INTERN PetscErrorCode MatDiagOverBudget_Private(Mat, pdiag::StorageCount, PetscInt64, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAgreeOnError_Private(MPI_Comm, PetscErrorCode, const char *);

/* diag_assembly.cpp */
PETSC_INTERN PetscErrorCode MatSetValues_Diag(Mat, PetscInt, const PetscInt[], PetscInt, const PetscInt[], const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatAssemblyBegin_Diag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatAssemblyEnd_Diag(Mat, MatAssemblyType);
PETSC_INTERN PetscErrorCode MatZeroEntries_Diag(Mat);
PETSC_INTERN PetscErrorCode MatSetPreallocationCOO_Diag(Mat, PetscCount, PetscInt[], PetscInt[]);
PETSC_INTERN PetscErrorCode MatSetValuesCOO_Diag(Mat, const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatDiagCOOSlots_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSetValuesCOOHost_Private(Mat, const PetscScalar[], InsertMode);
PETSC_INTERN PetscErrorCode MatSetUp_Diag(Mat);

/* diag_device.cpp (CUDA builds; inline no-ops otherwise) */
#if defined(PDIAG_PETSC_CUDA)
PETSC_INTERN PetscErrorCode MatDiagDeviceFree_Private(Mat_Diag *);
PETSC_INTERN PetscBool      MatDiagVecOnDevice_Private(Vec);
PETSC_INTERN PetscBool      MatDiagUseDevice_Private(Mat, Vec, Vec = nullptr, Vec = nullptr);
PETSC_INTERN PetscBool      MatDiagWantsDevice_Private(Mat);
PETSC_INTERN PetscErrorCode MatMultKernel_DiagCUDA(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatResidual_DiagCUDA(Mat, Vec, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatMultTransposeKernel_DiagCUDA(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatDiagDeviceCreate_Private(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatDiagDeviceAssemblyEnd_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncHost_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncHostData_Private(Mat_Diag *);
PETSC_INTERN PetscErrorCode MatDiagHostValuesEnsure_Private(Mat_Diag *);
PETSC_INTERN PetscBool      MatDiagOnDevice_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceValues_Private(Mat, const Index **, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatDiagDeviceEntries_Private(Mat, PetscBool *, pdiag::HmCompressedView<PetscScalar> *, const Index **, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatDiagDeviceOutput_Private(Mat, const Index **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatDiagDeviceValuesWritten_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceCompressComputed_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSetValuesCOODevice_Private(Mat, const PetscScalar[], InsertMode, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagScaleDevice_Private(Mat, PetscScalar, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagShiftDevice_Private(Mat, PetscScalar, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagGetDiagonalDevice_Private(Mat, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAXPYDevice_Private(Mat, PetscScalar, Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagDiagonalScaleDevice_Private(Mat, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagZeroRowsDevice_Private(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec, PetscBool *);
/* diag_halo_device.cpp */
PETSC_INTERN PetscErrorCode MatDiagHaloSetUp_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagHaloBegin_Private(Mat, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatDiagHaloEnd_Private(Mat, PetscScalar *);
PETSC_INTERN void           MatDiagHaloDestroy_Private(DiagHalo **);
PETSC_INTERN PetscErrorCode MatDiagGhostExchangeDevice_Private(Mat, Vec);
#else
static inline void MatDiagHaloDestroy_Private(DiagHalo **) { }
static inline PetscBool MatDiagWantsDevice_Private(Mat) { return PETSC_FALSE; }
static inline PetscErrorCode MatDiagDiagonalScaleDevice_Private(Mat, Vec, Vec, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagZeroRowsDevice_Private(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagScaleDevice_Private(Mat, PetscScalar, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagShiftDevice_Private(Mat, PetscScalar, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagGetDiagonalDevice_Private(Mat, Vec, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagAXPYDevice_Private(Mat, PetscScalar, Mat, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagSetValuesCOODevice_Private(Mat, const PetscScalar[], InsertMode, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatDiagDeviceAssemblyEnd_Private(Mat)
{
  return 0;
}
static inline PetscErrorCode MatDiagSyncHost_Private(Mat)
{
  return 0;
}
static inline PetscErrorCode MatDiagSyncHostData_Private(Mat_Diag *)
{
  return 0;
}
static inline PetscErrorCode MatDiagHostValuesEnsure_Private(Mat_Diag *)
{
  return 0;
}
static inline PetscBool MatDiagOnDevice_Private(Mat)
{
  return PETSC_FALSE;
}
static inline PetscErrorCode MatDiagDeviceFree_Private(Mat_Diag *)
{
  return 0;
}
static inline PetscBool MatDiagVecOnDevice_Private(Vec)
{
  return PETSC_FALSE;
}
static inline PetscBool MatDiagUseDevice_Private(Mat, Vec, Vec = nullptr, Vec = nullptr)
{
  return PETSC_FALSE;
}
static inline PetscErrorCode MatMultKernel_DiagCUDA(Mat, Vec, Vec, Vec)
{
  return PETSC_ERR_SUP;
}
static inline PetscErrorCode MatResidual_DiagCUDA(Mat, Vec, Vec, Vec, PetscBool *done)
{
  *done = PETSC_FALSE;
  return 0;
}
static inline PetscErrorCode MatMultTransposeKernel_DiagCUDA(Mat, Vec, Vec, Vec)
{
  return PETSC_ERR_SUP;
}
#endif
/* Runs a host operation of a diag matrix after bringing its values back from
   the device if only the device has them (MatDiagSyncHost_Private): every
   ops-table entry that reads or writes host values goes through it, e.g.
   ops->norm = MatDiagHostOp<decltype(&MatNorm_Diag), MatNorm_Diag>::call.
   Operations that take a second diag matrix sync it themselves. */
template <class F, F f>
struct MatDiagHostOp;
template <class... Args, PetscErrorCode (*f)(Mat, Args...)>
struct MatDiagHostOp<PetscErrorCode (*)(Mat, Args...), f> {
  static PetscErrorCode call(Mat A, Args... args)
  {
    PetscFunctionBegin;
    PetscCall(MatDiagSyncHost_Private(A));
    PetscCall(f(A, args...));
    PetscFunctionReturn(0);
  }
};
#define MATDIAG_HOST_OP(f) (MatDiagHostOp<decltype(&f), f>::call)

/* The host values changed: the device copy, if any, must be uploaded again. */
static inline void MatDiagValuesChanged(Mat_Diag *a)
{
  if (a->dev.mask != PETSC_OFFLOAD_UNALLOCATED) a->dev.mask = PETSC_OFFLOAD_CPU;
}

/* diag_sor.cpp: MatSOR's answer to a zero diagonal (aij's) */
PETSC_INTERN PetscErrorCode MatDiagSORZeroRow_Private(Mat, PetscReal, Index);
/* diag_sor_device.cpp (CUDA builds): MatSOR's sweeps on the device */
#if defined(PDIAG_PETSC_CUDA)
PETSC_INTERN PetscBool      MatDiagSORDeviceWanted_Private(Mat, Vec, Vec, MatSORType);
PETSC_INTERN PetscErrorCode MatSOR_SeqDiagCUDA(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN void           MatDiagSORGraphDestroy_Private(DiagSorGraph **);
#else
static inline PetscBool MatDiagSORDeviceWanted_Private(Mat, Vec, Vec, MatSORType)
{
  return PETSC_FALSE;
}
static inline PetscErrorCode MatSOR_SeqDiagCUDA(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec)
{
  return PETSC_ERR_SUP;
}
#endif

/* diag_checks.cpp: vector and row arguments */
PETSC_INTERN PetscErrorCode MatDiagCheckVec_Private(Vec, PetscLayout, const char *);
PETSC_INTERN PetscErrorCode MatDiagCheckMat_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagCheckOptionalVec_Private(Vec, PetscLayout, const char *);
PETSC_INTERN PetscErrorCode MatDiagCheckZeroRowsArgs_Private(Mat, PetscInt, const PetscInt[], Vec, Vec, const char *);

/* diag_mult.cpp */
PETSC_INTERN PetscErrorCode MatDiagGhostDestroy_Private(Mat_Diag *);
PETSC_INTERN PetscErrorCode MatDiagGhostSetUp_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagProductPlanEnsure_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSplitReadBytes_Private(Mat, PetscBool *, double *);
PETSC_INTERN PetscErrorCode MatDiagGhostExchange_Diag(Mat, Vec);
PETSC_INTERN PetscErrorCode MatDiagRemoteCouplingsAdd_Private(Mat, Vec, PetscScalar, Vec);
PETSC_INTERN PetscErrorCode MatMult_Diag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultAdd_Diag(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatResidual_Diag(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTranspose_Diag(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode MatMultTransposeAdd_Diag(Mat, Vec, Vec, Vec);

/* A boolean option of obj read as its operations read theirs: with obj's
   prefix (bjacobi's blocks: -sub_...), else without. */
static inline PetscErrorCode DiagGetPrefixedBool(PetscObject obj, const char name[], PetscBool *value)
{
  PetscBool set = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(obj->options, obj->prefix, name, value, &set));
  if (!set) PetscCall(PetscOptionsGetBool(obj->options, NULL, name, value, NULL));
  PetscFunctionReturn(0);
}

/* diag_remote.cpp: the entries kept in a list (Mat_Diag::remote) */
PETSC_INTERN PetscErrorCode MatDiagRemoteAgree_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagRemoteToDiagonals_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagStagedToRemote_Private(Mat, std::vector<pdiag::RemoteEntry<PetscScalar>> *, std::vector<Index> *);
PETSC_INTERN PetscErrorCode MatDiagGridRemoteSplit_Private(Mat, std::vector<Index> *);

/* diag_ops.cpp */
PETSC_INTERN PetscErrorCode MatDiagSetOps_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncStructure_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagGatherColumns_Private(Mat, Vec, const PetscScalar **, const Index **);
PETSC_INTERN PetscErrorCode MatDiagRestoreColumns_Private(Mat, Vec, const PetscScalar **);

/* diag_convert.cpp */
PETSC_INTERN PetscErrorCode MatConvertFrom_Diag(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_Diag_AIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatConvert_Diag_ViaAIJ(Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatDiagSetFromOptionsOnly_Private(Mat);
PETSC_INTERN PetscErrorCode MatDuplicate_Diag(Mat, MatDuplicateOption, Mat *);
PETSC_INTERN PetscErrorCode MatCopy_Diag(Mat, Mat, MatStructure);
PETSC_INTERN PetscErrorCode MatTranspose_Diag(Mat, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatLoad_Diag(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatView_Diag(Mat, PetscViewer);
PETSC_INTERN PetscErrorCode MatDiagKeepView_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDropZeroedRows_Private(Mat, PetscInt, const PetscInt[]);
PETSC_INTERN PetscErrorCode MatDiagKeepZeroedRows_Private(Mat, PetscInt, const PetscInt[]);
PETSC_INTERN PetscErrorCode MatCreateSubMatrix_Diag(Mat, IS, IS, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatDiagApplyStorage_Private(Mat);

/* diag_companion.cpp */
PETSC_INTERN PetscErrorCode MatDiagLocalCSR_Private(Mat, pdiag::Csr<PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagAijCSR_Private(Mat, pdiag::Csr<PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagAijEntriesMask_Private(Mat, const Hm &, std::vector<unsigned char> *);
PETSC_INTERN PetscErrorCode MatDiagAijEntryCount_Private(Mat, Index *);
PETSC_INTERN PetscErrorCode MatDiagSetAijPattern_Private(Mat, Index, const Index *, const Index *);
PETSC_INTERN PetscErrorCode MatDiagSetAijPatternCSR_Private(Mat, PetscInt, const PetscInt *, const PetscInt *);
PETSC_INTERN PetscErrorCode MatDiagAijRow_Private(Mat, PetscInt, std::vector<Index> *, std::vector<PetscScalar> *);
PETSC_INTERN PetscErrorCode MatDiagBuildAIJ_Private(Mat, MatType, Mat *);
PETSC_INTERN PetscErrorCode MatDiagSyncProperties_Private(Mat, Mat);
PETSC_INTERN PetscErrorCode MatDiagAIJFromCSR_Private(Mat, const pdiag::Csr<PetscScalar> &, MatType, Mat *);
PETSC_INTERN PetscErrorCode MatDiagConvertIfScattered_Private(Mat, PetscCount, const PetscInt *, const PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagStagedScattered_Private(Mat, pdiag::StorageCount, PetscInt64, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAIJWouldScatter_Private(Mat, Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagCheckScatteredFill_Private(const Mat_Diag *);
PETSC_INTERN PetscErrorCode MatDiagAIJPatternOnly_Private(Mat, MatType, Mat *);
PETSC_INTERN PetscErrorCode MatInodeAdjustForInodes_Diag(Mat, IS *, IS *); /* diag_companion_ops.cpp */
/* On the GPU, LUs of at most this many rows are dense (diag_factor.cpp): a
   factor and its inverse of 256 MiB each (and the identity while the
   inverse is formed); a product with the inverse reads it in well under a
   millisecond, where a sparse triangular solve of a coarse grid takes
   milliseconds. -mat_diag_dense_factor_max sets it. */
constexpr PetscInt kDiagDenseFactorMaxRows = 5792;
PETSC_INTERN PetscErrorCode MatDiagGetCompanion_Private(Mat, const char *, Mat *);
PETSC_INTERN PetscErrorCode MatDiagCopyAIJValues_Private(Mat, Mat);
PETSC_INTERN PetscErrorCode MatDiagUsesInodes_Private(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagTakeCompanionValues_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagCompanionDestroy_Private(Mat_Diag *);
PETSC_INTERN PetscErrorCode MatDiagAIJIsCompact_Private(Mat, PetscBool *);
/* Runs f, which assembles B (directly or inside another call), with B under
   the options prefix "diag_internal_": MatAssemblyEnd acts on -mat_view
   (and -mat_view_*, -mat_is_symmetric, ...) with the matrix's prefix, and a
   matrix diag makes for itself (an aij copy for a conversion or a PC, the
   diagonal block) is not the program's assembly: aij's MatConvert,
   MatDuplicate and MatGetDiagonalBlock view nothing (ksp ex1
   -mpi_linear_solver_server, ex2 on 2 ranks printed them). B's prefix is
   restored, also when f fails. */
template <class F>
PetscErrorCode MatDiagAssembleInternal_Private(Mat B, F &&f)
{
  const char *prefix;
  std::string saved;

  PetscFunctionBegin;
  PetscCall(MatGetOptionsPrefix(B, &prefix));
  const bool had = prefix != nullptr;
  if (had) saved = prefix;
  PetscCall(MatSetOptionsPrefix(B, "diag_internal_"));
  const PetscErrorCode ierr = f();
  PetscCall(MatSetOptionsPrefix(B, had ? saved.c_str() : NULL));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}
PETSC_INTERN PetscErrorCode MatDiagAIJIsCompactFill_Private(Mat, double, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAIJCompactOffsets_Private(Mat, double, PetscBool *, std::vector<Index> *);
PETSC_INTERN PetscErrorCode MatDiagAIJLocalOffsets_Private(Mat, std::size_t, std::vector<Index> *, double *, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagIsScattered_Private(Mat, PetscBool *);
/* diag_companion_ops.cpp */
PETSC_INTERN PetscErrorCode MatDiagFromAIJReuse_Private(Mat, Mat, MatType, MatReuse, Mat *);
PETSC_INTERN PetscErrorCode MatDiagSetCompanionOps_Private(Mat);

/* diag_sor.cpp */
PETSC_INTERN PetscErrorCode MatDiagHm_Private(Mat, const Hm **);
PETSC_INTERN PetscErrorCode MatDiagInstallHm_Private(Mat, Hm &&, pdiag::RemoteEntries<PetscScalar> && = pdiag::RemoteEntries<PetscScalar>());
PETSC_INTERN PetscErrorCode MatGetDiagonalBlock_Diag(Mat, Mat *);
PETSC_INTERN PetscErrorCode MatSOR_Diag(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN PetscErrorCode MatMultDiagonalBlock_Diag(Mat, Vec, Vec);

/* diag_factor.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterSolverTypes_Private(void);
PETSC_INTERN PetscErrorCode MatDiagRegisterNormalFactors_Private(const char *const[], int);

/* diag_aij_only.cpp: the PCs and colorings that accept only aij matrices */
PETSC_INTERN PetscErrorCode MatDiagRegisterPCs_Private(void);
PETSC_INTERN PetscErrorCode MatDiagRegisterChebyJacobi_Private(void); /* diag_pc_chebyjacobi.cpp */
PETSC_INTERN PetscErrorCode MatDiagChebyJacobiKeepInterval_Private(PC);

/* diag_factor_native.cpp: ILU(0)/ICC(0) on the diagonals */
/* Whether ILU/ICC of `package` on A may run on the diagonals (the petsc package, a sequential
   matrix, ILU or ICC, -mat_diag_native_factor): the part of the decision known at MatGetFactor */
PETSC_INTERN PetscErrorCode MatDiagFactorNativeMayApply_Private(Mat, const char *, MatFactorType, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagFactorNativeApplies_Private(Mat, Mat, const char *, MatFactorType, IS, IS, const MatFactorInfo *, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagFactorNativeSymbolic_Private(Mat, Mat, MatFactorType, const MatFactorInfo *);

/* diag_create.cpp: the stencil of the DMDA a matrix came from */
PETSC_INTERN PetscErrorCode MatDiagGridStencil_Private(Mat, PetscBool *, pdiag::GridStencil *);
PETSC_INTERN PetscErrorCode MatDiagGridOffsets_Private(Mat, const pdiag::GridStencil &, std::vector<Index> *);
PETSC_INTERN PetscErrorCode MatDiagGridPattern_Private(Mat, const pdiag::GridStencilPattern **);

/* diag_product_companion.cpp */
PETSC_INTERN PetscErrorCode MatDiagProductViaCompanion_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagProductToDiag_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagGalerkinResultSetUp_Private(Mat, Mat, Mat);
PETSC_INTERN PetscErrorCode MatDiagGalerkinResultSetUpSized_Private(Mat, Mat, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode MatDiagGalerkinGeneralSymbolic_Private(Mat);
/* diag_galerkin_structured.cpp: PtAP of a DMDA's Q1 interpolation from its formula */
PETSC_INTERN PetscErrorCode MatDiagGalerkinStructuredSymbolic_Private(Mat, PetscBool *);
/* diag_galerkin_device.cpp: a Galerkin product of a diag operator by
   cuSPARSE on the device; *how says what happened */
enum class DiagGalerkinDevice { NotTaken, NotCompact, Done };
PETSC_INTERN PetscErrorCode MatDiagMGTransferInPlace_Private(Mat, Mat, PetscBool *); /* diag_mg.cpp */
/* diag_mg_structured.cpp: PCMG's DMDA Q1 interpolation from its formula */
PETSC_INTERN PetscErrorCode MatDiagMGStructuredTransfer_Private(PC, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagMGQ1Interpolation_Private(Mat, pdiag::VertexGrids *, PetscBool *);
PETSC_INTERN PC             MatDiagMGInSetUp_Private(void); /* diag_mg.cpp */
#if defined(PDIAG_PETSC_CUDA)
PETSC_INTERN PetscErrorCode MatDiagGalerkinDeviceSymbolic_Private(Mat, DiagGalerkinDevice *);
#else
static inline PetscErrorCode MatDiagGalerkinDeviceSymbolic_Private(Mat, DiagGalerkinDevice *how)
{
  *how = DiagGalerkinDevice::NotTaken;
  return 0;
}
#endif

/* diag_mg.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterMG_Private(void);

/* diag_asm.cpp */
PETSC_INTERN PetscErrorCode MatDiagRegisterASM_Private(void);

/* Whether A (NULL: no) is a diag matrix of any of the four types. */
static inline PetscErrorCode MatDiagIsDiag_Private(Mat A, PetscBool *isdiag)
{
  PetscFunctionBegin;
  *isdiag = PETSC_FALSE;
  if (A) PetscCall(PetscObjectTypeCompareAny((PetscObject)A, isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  PetscFunctionReturn(0);
}

/* diag_product.cpp */
PETSC_INTERN PetscErrorCode MatDiagSetProductOps_Private(Mat);
