/* The private data of the diag Mat types and the functions of core/ (docs/design.md,
   "Source layout"). One implementation serves seqdiag and mpidiag: a
   sequential matrix is the one-rank case (no ghost exchange). Arithmetic
   lives in kernels/; the plugin owns memory, MPI, options and PETSc's
   calling conventions. Each concern's header (included below) declares
   its part of Mat_Diag and its functions. */
#pragma once

#include <petsc/private/matimpl.h>
#include <petscdiag.h>
#include <petscpc.h>

#include "core/device_hooks.hpp"
#include "core/options.hpp"
#include "core/petsc_compat.hpp"

#include "assembly/assembly.hpp"
#include "companion/companion.hpp"
#include "convert/convert.hpp"
#include "factor/factor.hpp"
#include "interpose/interpose.hpp"
#include "ops/ops.hpp"
#include "pc/pc.hpp"
#include "products/products.hpp"

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
   factorization on the device (device/factor.cpp); MatDiagAijPattern: the
   aij copy's pattern found from the values by its rule (a build of the
   copy, or the check of a kept pattern that the slots it leaves out cannot
   decide: companion/companion.cpp); MatDiagCountNz: the count of a
   matrix's nonzero values that decides whether its diagonals are mostly
   zeros (convert/compact.cpp). */
extern PetscLogEvent MATDIAG_ProductPlan, MATDIAG_PlanToGPU, MATDIAG_CopyToGPU, MATDIAG_Compress, MATDIAG_GPUAlloc, MATDIAG_FactorToGPU, MATDIAG_FactorNumericGPU, MATDIAG_Halo, MATDIAG_GalerkinGPU, MATDIAG_GalerkinQ1, MATDIAG_SymmetricMult, MATDIAG_AijPattern, MATDIAG_CountNonzeros;

/* The private data of a diag matrix (A->data): its local block by
   diagonals and, per concern, the state the code of that concern owns
   (declared beside it). The device copy is not here: it is A->spptr
   (device/device.hpp). */
struct Mat_Diag {
  DiagOptions opt; /* the user's choices (core/options.hpp) */

  /* the local block, in exactly one scheme at a time */
  pdiag::Layout layout;
  pdiag::Scheme scheme = pdiag::Scheme::HM;
  Hm            hm;
  Cdm           cdm;
  PetscBool     host_deferred = PETSC_FALSE; /* HM values not allocated on the host yet (a GPU product's result) */

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
  PetscBool                         remote_any = PETSC_FALSE;

  DiagAssembly assembly; /* assembly/assembly.hpp */
  DiagMPI      mpi;      /* ops/ops.hpp */
  DiagCache    cache;    /* ops/ops.hpp */
  DiagAijCopy  aij;      /* companion/companion.hpp */

  /* the stencil of the DMDA the matrix came from (null: none), built at first use (core/create.cpp) */
  std::shared_ptr<const pdiag::GridStencilPattern> grid_pattern;
  PetscBool                                        grid_checked = PETSC_FALSE;

  /* MatStoreValues / MatRetrieveValues */
  std::vector<PetscScalar> stored_values;

  /* MatGetRow buffers */
  std::vector<PetscInt>    row_cols;
  std::vector<PetscScalar> row_vals;
  PetscBool                row_busy = PETSC_FALSE;

  PetscBool device_subdomains = PETSC_FALSE; /* set while PCASM sets up (pc/asm.cpp): MatCreateSubMatrices may return aijcusparse blocks */
  /* the view another package put in the ops table (a DMDA's, in parallel:
     the natural ordering), called by MatView_Diag for all but ascii info
     (MatDiagKeepView_Private) */
  PetscErrorCode (*view_replaced)(Mat, PetscViewer) = nullptr;

  Index        ndiag_hm() const { return scheme == pdiag::Scheme::HM ? hm.ndiag() : 0; }
  Index        nstored() const { return scheme == pdiag::Scheme::HM ? hm.nstored() : cdm.nstored(); }
  PetscScalar *values() { return scheme == pdiag::Scheme::HM ? hm.val.data() : cdm.val.data(); }
};

/* core/create.cpp: creation, set-up, options, view */
PETSC_INTERN PetscErrorCode MatCreate_Diag(Mat);
PETSC_INTERN PetscErrorCode MatDiagCreateNamed_Private(Mat, const char *); /* a diag matrix of the type named */
PETSC_INTERN PetscErrorCode MatDiagSetLayout_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagReplaceStorage_Private(Mat, Hm &&);

/* core/checks.cpp: argument checks, agreement on errors, the memory budget */
PETSC_INTERN PetscErrorCode MatDiagCheckCount_Private(Mat, Index);
PETSC_INTERN PetscErrorCode MatDiagCheckCountAll_Private(Mat, Index);
PETSC_INTERN PetscErrorCode MatDiagCheckBudget_Private(Mat, pdiag::StorageCount, PetscInt64);
PETSC_INTERN PetscErrorCode MatDiagCheckBudgetAll_Private(Mat, pdiag::StorageCount, PetscInt64);
PETSC_INTERN PetscErrorCode MatDiagOverBudget_Private(Mat, pdiag::StorageCount, PetscInt64, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAgreeOnError_Private(MPI_Comm, PetscErrorCode, const char *);

PETSC_INTERN PetscErrorCode MatSetUp_Diag(Mat); /* core/create.cpp */

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
    PetscCall(MatDiagDeviceTry(sync_host, A));
    PetscCall(f(A, args...));
    PetscFunctionReturn(0);
  }
};
#define MATDIAG_HOST_OP(f) (MatDiagHostOp<decltype(&f), f>::call)

/* The host values changed: the device copy, if any, must be uploaded again. */
static inline void MatDiagValuesChanged(Mat A)
{
  if (MatDiagDeviceOps_Private) MatDiagDeviceOps_Private->values_changed(A);
}

/* core/checks.cpp: vector and row arguments */
PETSC_INTERN PetscErrorCode MatDiagCheckVec_Private(Vec, PetscLayout, const char *);
PETSC_INTERN PetscErrorCode MatDiagCheckMat_Private(Mat, const char *);
PETSC_INTERN PetscErrorCode MatDiagCheckOptionalVec_Private(Vec, PetscLayout, const char *);
PETSC_INTERN PetscErrorCode MatDiagCheckZeroRowsArgs_Private(Mat, PetscInt, const PetscInt[], Vec, Vec, const char *);

/* core/create.cpp */
PETSC_INTERN PetscErrorCode MatDiagSetFromOptionsOnly_Private(Mat);
PETSC_INTERN PetscErrorCode MatView_Diag(Mat, PetscViewer);

/* core/create.cpp: the stencil of the DMDA a matrix came from */
PETSC_INTERN PetscErrorCode MatDiagGridStencil_Private(Mat, PetscBool *, pdiag::GridStencil *);
PETSC_INTERN PetscErrorCode MatDiagGridOffsets_Private(Mat, const pdiag::GridStencil &, std::vector<Index> *);
PETSC_INTERN PetscErrorCode MatDiagGridPattern_Private(Mat, const pdiag::GridStencilPattern **);

/* Whether A (NULL: no) is a diag matrix of any of the four types. */
static inline PetscErrorCode MatDiagIsDiag_Private(Mat A, PetscBool *isdiag)
{
  PetscFunctionBegin;
  *isdiag = PETSC_FALSE;
  if (A) PetscCall(PetscObjectTypeCompareAny((PetscObject)A, isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  PetscFunctionReturn(0);
}

