/* What the CUDA-side files of the plugin (diag_device.cpp,
   diag_device_ops.cpp, diag_product_device.cpp) share: the CUDA error
   check, growable device buffers and the device metadata's blocks. CUDA
   builds only. */
#pragma once

#include "diag_impl.hpp"

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

PetscErrorCode MatDiagDeviceInitialize_Private(void);
PetscErrorCode MatDiagDeviceValuesSymmetric_Private(const pdiag::SymmetricHmView<PetscScalar> &, PetscReal, PetscBool *);

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
