/* What the files of the device layer share (src/device/, compiled only
   against a CUDA-enabled PETSc): the device state of a matrix, the CUDA
   error check, growable device buffers, the device metadata's blocks, and
   the functions core/device_hooks.hpp's table points at. */
#pragma once

#include "core/mat_diag.hpp"

#include <petscdevice_cuda.h>

#include "pdiag/symmetric.hpp"

#include <algorithm>
#include <cstddef>

/* Runs a CUDA call; an error becomes PETSC_ERR_GPU with CUDA's name and text. */
#define DiagCallCUDA(...) \
  do { \
    const cudaError_t e_ = (__VA_ARGS__); \
    PetscCheck(e_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "diag: CUDA error %d (%s): %s", (int)e_, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
  } while (0)

struct DiagHalo;     /* device/halo.cpp: MatMult's pinned-memory ghost exchange */
struct DiagSorGraph; /* device/sor.cpp: MatSOR's recorded CUDA graph */

/* The device copy of a diag matrix, in A->spptr (MatDiagDev): one Index
   array of metadata (offsets, starts, the four shift blocks) and the
   values. Which copy is current is A->offloadmask, as for PETSc's own GPU
   types: UNALLOCATED (no device copy), CPU (the host's is newer), GPU (the
   device's is newer: a product computed there), BOTH. */
struct DiagDevice {
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
  DiagHalo        *halo = nullptr;                    /* MatMult's pinned-memory ghost exchange, if used (device/halo.cpp) */
  PetscBool        halo_decided = PETSC_FALSE;        /* MatDiagHaloSetUp_Private ran for this ghost layout */
  Index           *coo_slot = nullptr;                /* MatSetValuesCOO's slot map (device arrays) */
  Index           *rows     = nullptr;                /* MatZeroRows' row list */
  std::size_t      rows_cap = 0;
  std::size_t      coo_cap  = 0;
  PetscObjectState coo_state = -1;                    /* the host map's state it was copied from */
  /* MatSOR on the device (device/sor.cpp): the level schedules of the
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
  PetscBool          sor_host_noticed = PETSC_FALSE; /* said (-info) that these schedules' sweeps run on the host */
  DiagSorGraph      *sor_graph    = nullptr; /* the sweeps' CUDA graph: dropped with the schedules and device arrays it holds the addresses of */
  int              device    = -1;                    /* the CUDA device PETSc gave this process (-1: not set up yet) */
  /* MatMult and MatResidual through the main and upper diagonals
     (-mat_diag_symmetric_product): whether the device values at sym_val,
     of the matrix's state sym_state, are symmetric to the bit */
  PetscObjectState   sym_state = -1;
  const PetscScalar *sym_val   = nullptr;
  bool               sym_values = false;
};

/* A's device state (created with the matrix by MatDiagDeviceCreate_Private). */
static inline DiagDevice &MatDiagDev(Mat A)
{
  return *static_cast<DiagDevice *>(A->spptr);
}

/* device/device.cpp */
PETSC_INTERN PetscErrorCode MatDiagDeviceInitialize_Private(void);
PETSC_INTERN PetscErrorCode MatDiagDeviceCreate_Private(Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatDiagDeviceDestroy_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceGhostReset_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceBytes_Private(Mat, double *);
PETSC_INTERN void           MatDiagDeviceValuesChanged_Private(Mat);
PETSC_INTERN PetscBool      MatDiagVecOnDeviceCUDA_Private(Vec);
PETSC_INTERN PetscBool      MatDiagUseDeviceCUDA_Private(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscBool      MatDiagWantsDeviceCUDA_Private(Mat);
PETSC_INTERN PetscBool      MatDiagOnDeviceCUDA_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceAssemblyEnd_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncHost_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagSyncHostData_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagHostValuesEnsure_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceValues_Private(Mat, const Index **, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatDiagDeviceEntries_Private(Mat, PetscBool *, pdiag::HmCompressedView<PetscScalar> *, const Index **, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatDiagDeviceOutput_Private(Mat, const Index **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatDiagDeviceValuesWritten_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceCompressComputed_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagDeviceValuesSymmetric_Private(const pdiag::SymmetricHmView<PetscScalar> &, PetscReal, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagSetValuesCOODevice_Private(Mat, const PetscScalar[], InsertMode, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagGhostExchangeDevice_Private(Mat, Vec);
PETSC_INTERN PetscErrorCode MatMultKernel_DiagCUDA(Mat, Vec, Vec, Vec);
PETSC_INTERN PetscErrorCode MatResidual_DiagCUDA(Mat, Vec, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatMultTransposeKernel_DiagCUDA(Mat, Vec, Vec, Vec);
/* device/ops.cpp */
PETSC_INTERN PetscErrorCode MatDiagScaleDevice_Private(Mat, PetscScalar, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagShiftDevice_Private(Mat, PetscScalar, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagGetDiagonalDevice_Private(Mat, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagAXPYDevice_Private(Mat, PetscScalar, Mat, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagDiagonalScaleDevice_Private(Mat, Vec, Vec, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagZeroRowsDevice_Private(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec, PetscBool *);
/* device/halo.cpp */
PETSC_INTERN PetscErrorCode MatDiagHaloSetUp_Private(Mat);
PETSC_INTERN PetscErrorCode MatDiagHaloBegin_Private(Mat, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode MatDiagHaloEnd_Private(Mat, PetscScalar *);
PETSC_INTERN void           MatDiagHaloDestroy_Private(DiagHalo **);
/* device/sor.cpp */
PETSC_INTERN PetscErrorCode MatDiagSORDeviceWantedCUDA_Private(Mat, Vec, Vec, MatSORType, PetscBool *);
PETSC_INTERN PetscErrorCode MatSOR_SeqDiagCUDA(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
PETSC_INTERN void           MatDiagSORGraphDestroy_Private(DiagSorGraph **);
/* device/galerkin.cpp */
PETSC_INTERN PetscErrorCode MatDiagGalerkinDeviceSymbolic_Private(Mat, DiagGalerkinDevice *);
/* device/structured.cpp: the structured Q1 transfers and Galerkin product */
PETSC_INTERN PetscErrorCode MatDiagGalerkinQ1Device_Private(Mat, Mat, const pdiag::VertexGrids &, const pdiag::Q1Places &, unsigned **, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagFreeWordDevice_Private(unsigned **);
PETSC_INTERN PetscErrorCode MatDiagQ1TransferDevice_Private(const pdiag::VertexGrids &, bool, const PetscScalar *, PetscScalar *, const PetscScalar *, PetscLogDouble);
/* device/chebyjacobi.cpp */
PETSC_INTERN PetscErrorCode MatDiagJacobiInverseDevice_Private(Vec, PetscReal *);
PETSC_INTERN PetscErrorCode MatDiagChebyStepSymmetricDevice_Private(const pdiag::SymmetricHmView<PetscScalar> &, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar *, PetscLogDouble);
PETSC_INTERN PetscErrorCode MatDiagChebyStepCompressedDevice_Private(const pdiag::HmCompressedView<PetscScalar> &, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscLogDouble);
PETSC_INTERN PetscErrorCode MatDiagChebyUpdateDevice_Private(Index, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscLogDouble);

/* A device buffer of at least n elements of T (contents not kept); *p is
   null, not dangling, if the new allocation fails. */
template <class T>
static inline PetscErrorCode DiagReserveDevice(T **p, std::size_t *cap, std::size_t n)
{
  PetscFunctionBegin;
  if (n <= *cap && *p) PetscFunctionReturn(0);
  if (*p) DiagCallCUDA(cudaFree(*p));
  *p   = nullptr;
  *cap = 0;
  PetscCall(MatDiagDeviceInitialize_Private()); /* before the first allocation: PETSc picks this process's device */
  PetscCall(PetscLogEventBegin(MATDIAG_GPUAlloc, 0, 0, 0, 0));
  DiagCallCUDA(cudaMalloc((void **)p, std::max<std::size_t>(1, n) * sizeof(T)));
  PetscCall(PetscLogEventEnd(MATDIAG_GPUAlloc, 0, 0, 0, 0));
  *cap = n;
  PetscFunctionReturn(0);
}

/* Device pointers of the metadata blocks (MatDiagDeviceUploadMeta's
   layout): offsets, HM starts, and shift block `which` (0: owned columns,
   1 and 2: ghost work vector below / above the interior rows, 3:
   MatMultTranspose's work vector). */
static inline const Index *MatDiagDevOffsets(const DiagDevice &d) { return d.meta; }
static inline const Index *MatDiagDevStart(const DiagDevice &d) { return d.hm ? d.meta + d.nd : nullptr; }
static inline const Index *MatDiagDevShift(const DiagDevice &d, int which) { return d.meta + d.nd + (d.hm ? d.nd + 1 : 0) + which * d.nslot; }
/* The product passes' view over the values val: the passed diagonals when
   the split is active (MatDiagDevPass*), otherwise every stored one. */
static inline const Index *MatDiagDevPassOffsets(const DiagDevice &d) { return d.split ? d.meta + d.pass_meta : MatDiagDevOffsets(d); }
static inline const Index *MatDiagDevPassStart(const DiagDevice &d) { return d.split ? d.meta + d.pass_meta + d.npass : MatDiagDevStart(d); }
static inline Index        MatDiagDevPassCount(const DiagDevice &d) { return d.split ? d.npass : d.nd; }
/* the listed entries' rows, ptr, pos and cols */
static inline const Index *MatDiagDevListed(const DiagDevice &d, int which)
{
  const Index *rows = d.meta + d.pass_meta + 2 * d.npass, *ptr = rows + d.nlisted_rows, *pos = ptr + d.nlisted_rows + 1;
  return which == 0 ? rows : which == 1 ? ptr : which == 2 ? pos : pos + d.nlisted;
}
