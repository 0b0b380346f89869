/* The device layer's entry points (docs/design.md, "Where values live").

   The GPU side of the diag types (src/device/) is compiled only against a
   CUDA-enabled PETSc. It fills this table when the types are registered
   (MatDiagRegisterDevice_Private, device/register.cpp); in a build without
   it the table stays null, no matrix has device values, and every
   operation runs on the host. Host code reaches the device only through
   this table:
     - the predicates below answer PETSC_FALSE without a device layer;
     - MatDiagDeviceTry(entry, ...) calls an entry whose absence means "not
       done" (the caller initializes its *done to PETSC_FALSE) or "nothing
       to do" (syncs, frees);
     - MatDiagDeviceCall(entry, ...) calls an entry that is reached only on
       the device; without a device layer it is an internal error. */
#pragma once

#include <petscmat.h>

#include "pdiag/compress.hpp"
#include "pdiag/factor.hpp"
#include "pdiag/factor_levels.hpp"
#include "pdiag/format.hpp"
#include "pdiag/galerkin_q1.hpp"
#include "pdiag/product.hpp"
#include "pdiag/symmetric.hpp"
#include "pdiag/transfer.hpp"

#include <vector>

using Hm = pdiag::HmMatrix<PetscScalar>;

/* PETSc's array calls of one memory: the host's (VecGetArray, ...) or the
   device's (VecCUDAGetArray, ...), so that code reaching a vector's values
   gets its pointers by one sequence of calls wherever they live. */
struct DiagVecArrays {
  PetscErrorCode (*get_read)(Vec, const PetscScalar **);
  PetscErrorCode (*restore_read)(Vec, const PetscScalar **);
  PetscErrorCode (*get)(Vec, PetscScalar **);
  PetscErrorCode (*restore)(Vec, PetscScalar **);
  PetscErrorCode (*get_write)(Vec, PetscScalar **);
  PetscErrorCode (*restore_write)(Vec, PetscScalar **);
  /* a sequential vector of that memory around an array (bs, n) */
  PetscErrorCode (*create_with_array)(MPI_Comm, PetscInt, PetscInt, const PetscScalar[], Vec *);
};

/* The pattern of a factor's entries (factor/factor_native.cpp: the entries
   aij's factor holds; an unmarked entry is zero), over its stored entries,
   and a version that changes with it. The device solves' schedules are
   built from it, not from the values, so they serve every numeric
   factorization of that pattern. */
struct DiagFactorPattern {
  const std::vector<unsigned char> *marks   = nullptr;
  PetscInt                          version = 0;
};

/* -mat_product_algorithm: the default and the paper's two algorithms */
enum MatDiagProductVariant {
  MAT_DIAG_PRODUCT_OUTPUT_STATIONARY = 0, /* "diag" */
  MAT_DIAG_PRODUCT_ATOMIC            = 1, /* "diag_atomic": Algorithm 2 */
  MAT_DIAG_PRODUCT_TILED             = 2  /* "diag_tiled": Algorithm 1 (CDM) */
};

/* What a Galerkin product on the device did (products/product_companion.cpp). */
enum class DiagGalerkinDevice { NotTaken, NotCompact, Done };

struct DiagFactorDevice;  /* a factor's device copy: its diagonals and level schedules */
struct DiagDeviceProduct; /* a product's device plan and staging buffers */
struct DiagDeviceDense;   /* MPI: the device gather of a dense operand's rows */

struct DiagDeviceOps {
  /* the diagcuda types (MATDIAGCUDA) */
  PetscErrorCode (*register_types)(void);

  /* where an operation runs: a CUDA vector not bound to the CPU; all of an
     operation's vectors (y, z optional) on the device and A not bound to
     the CPU; A expects CUDA vectors (diagcuda, a CUDA default vector type,
     a DM with CUDA vectors); A's current values are on the device */
  PetscBool (*vec_on_device)(Vec);
  PetscBool (*use_device)(Mat, Vec, Vec, Vec);
  PetscBool (*wants_device)(Mat);
  PetscBool (*on_device)(Mat);

  /* the device state (A->spptr): created with the matrix (cuda_vectors: a
     diagcuda type), freed with it; the ghost layout's device work vectors
     and halo plan dropped when the layout changes */
  PetscErrorCode (*create)(Mat, PetscBool cuda_vectors);
  PetscErrorCode (*destroy)(Mat);
  PetscErrorCode (*ghost_reset)(Mat);
  /* the host values changed: the device copy, if any, is stale */
  void (*values_changed)(Mat);
  /* bytes of device storage (MatView's report) */
  PetscErrorCode (*bytes)(Mat, double *);

  /* the host copy made current (values and their structure; values only;
     host storage of a result computed on the device allocated); the
     upload after an assembly */
  PetscErrorCode (*sync_host)(Mat);
  PetscErrorCode (*sync_host_data)(Mat);
  PetscErrorCode (*host_values_ensure)(Mat);
  PetscErrorCode (*assembly_end)(Mat);

  /* the device copy's metadata and values (uploaded if stale), or the
     compressed form where it is current; a result's device arrays to write,
     then marked as written (and its constant diagonals compressed); whether
     values are symmetric to a relative tolerance */
  PetscErrorCode (*values)(Mat, const pdiag::Index **, const PetscScalar **);
  PetscErrorCode (*entries)(Mat, PetscBool *, pdiag::HmCompressedView<PetscScalar> *, const pdiag::Index **, const PetscScalar **);
  PetscErrorCode (*output)(Mat, const pdiag::Index **, PetscScalar **);
  PetscErrorCode (*values_written)(Mat);
  PetscErrorCode (*compress_computed)(Mat);
  PetscErrorCode (*values_symmetric)(const pdiag::SymmetricHmView<PetscScalar> &, PetscReal, PetscBool *);

  /* operations on the device copy; *done false: the host runs them */
  PetscErrorCode (*mult)(Mat, Vec, Vec, Vec);           /* y = A x (+ z) on the device */
  PetscErrorCode (*mult_transpose)(Mat, Vec, Vec, Vec); /* y = A^T x (+ z) on the device */
  PetscErrorCode (*residual)(Mat, Vec, Vec, Vec, PetscBool *);
  PetscErrorCode (*ghost_exchange)(Mat, Vec);
  PetscErrorCode (*scale)(Mat, PetscScalar, PetscBool *);
  PetscErrorCode (*shift)(Mat, PetscScalar, PetscBool *);
  PetscErrorCode (*get_diagonal)(Mat, Vec, PetscBool *);
  PetscErrorCode (*axpy)(Mat, PetscScalar, Mat, PetscBool *);
  PetscErrorCode (*diagonal_scale)(Mat, Vec, Vec, PetscBool *);
  PetscErrorCode (*zero_rows)(Mat, PetscInt, const PetscInt[], PetscScalar, Vec, Vec, PetscBool *);
  PetscErrorCode (*set_values_coo)(Mat, const PetscScalar[], InsertMode, PetscBool *);

  /* MatSOR's sweeps on the device, and whether they run there */
  PetscErrorCode (*sor_wanted)(Mat, Vec, Vec, MatSORType, PetscBool *);
  PetscErrorCode (*sor)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);

  /* the device's vector arrays */
  DiagVecArrays arrays;

  /* the native ILU(0)/ICC(0) factor on the device (device/factor.cpp) */
  PetscBool (*factor_wanted)(Vec, Vec);
  PetscErrorCode (*factor_solve)(Mat, DiagFactorDevice **, const Hm &, const DiagFactorPattern &, PetscBool *, pdiag::FactorSolve, Vec, Vec, PetscBool *);
  PetscErrorCode (*factor_prepare)(Mat, Mat, DiagFactorDevice **, const Hm &, const DiagFactorPattern &, PetscBool *, pdiag::FactorSolve);
  PetscErrorCode (*factor_numeric)(Mat, Mat, DiagFactorDevice **, const pdiag::HmView<const PetscScalar> &, Hm &, const pdiag::HmFactorPlan &, const DiagFactorPattern &, PetscBool, const MatFactorInfo *, PetscBool, PetscBool *, PetscBool *, PetscBool *, PetscBool *);
  PetscErrorCode (*factor_download)(DiagFactorDevice *, Hm &);
  void (*factor_destroy)(DiagFactorDevice *);
  /* the extreme pivot magnitudes of a dense LU factored on the device */
  PetscErrorCode (*dense_factor_pivots)(Mat, PetscReal *, PetscReal *);

  /* MatProduct's device phases (device/product.cpp) */
  PetscErrorCode (*product_symbolic)(const pdiag::Layout &, const std::vector<pdiag::Index> &, pdiag::Trans, const pdiag::Layout &, const std::vector<pdiag::Index> &, pdiag::Trans, pdiag::HmProductPlan *, DiagDeviceProduct **);
  PetscErrorCode (*product_destroy)(DiagDeviceProduct **);
  PetscErrorCode (*product_numeric)(DiagDeviceProduct *, const pdiag::HmProductPlan &, Mat, pdiag::Trans, Mat, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble);
  PetscErrorCode (*product_gather)(DiagDeviceProduct *, int, Mat, VecScatter, const Hm &, pdiag::HmView<const PetscScalar> *);
  PetscErrorCode (*product_operand)(DiagDeviceProduct *, Mat, pdiag::HmView<const PetscScalar> *);
  PetscErrorCode (*product_numeric_views)(DiagDeviceProduct *, const pdiag::HmProductPlan &, const pdiag::HmView<const PetscScalar> &, pdiag::Trans, const pdiag::HmView<const PetscScalar> &, pdiag::Trans, Mat, MatDiagProductVariant, PetscLogDouble);
  PetscErrorCode (*dense_create)(MPI_Comm, PetscInt, pdiag::Index, pdiag::Index, const std::vector<pdiag::Index> &, DiagDeviceDense **);
  PetscErrorCode (*dense_destroy)(DiagDeviceDense **);
  PetscErrorCode (*spmm)(Mat, Mat, Mat, VecScatter, DiagDeviceDense *);

  /* PCMG: a sequential Galerkin product by cuSPARSE (device/galerkin.cpp);
     C = P^T A P of a DMDA's Q1 interpolation from its formula, *ok false
     when A couples fine points more than one apart (its device word in
     *failed, freed by free_word); the Q1 transfers y = P x + z, y = P^T x + z */
  PetscErrorCode (*galerkin_symbolic)(Mat, DiagGalerkinDevice *);
  PetscErrorCode (*galerkin_q1)(Mat C, Mat A, const pdiag::VertexGrids &, const pdiag::Q1Places &, unsigned **failed, PetscBool *ok);
  PetscErrorCode (*free_word)(unsigned **);
  PetscErrorCode (*q1_transfer)(const pdiag::VertexGrids &, bool transpose, const PetscScalar *x, PetscScalar *y, const PetscScalar *z, PetscLogDouble flops);

  /* PCCHEBYJACOBI's device steps (device/chebyjacobi.cpp): d = 1/d (1
     where zero; *zeros counts them), and the fused steps */
  PetscErrorCode (*jacobi_inverse)(Vec, PetscReal *zeros);
  PetscErrorCode (*cheby_step_symmetric)(const pdiag::SymmetricHmView<PetscScalar> &, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar *, PetscLogDouble);
  PetscErrorCode (*cheby_step_compressed)(const pdiag::HmCompressedView<PetscScalar> &, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscLogDouble);
  PetscErrorCode (*cheby_update)(pdiag::Index, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscLogDouble);
};

/* The device layer (null: none in this build). */
PETSC_INTERN const DiagDeviceOps *MatDiagDeviceOps_Private;
/* The error of an entry reached without a device layer. */
PETSC_INTERN PetscErrorCode MatDiagNoDevice_Private(const char *);
/* device/register.cpp, CUDA builds: fills the table, registers the diagcuda types. */
PETSC_INTERN PetscErrorCode MatDiagRegisterDevice_Private(void);

#define MatDiagDeviceTry(entry, ...)  (MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->entry(__VA_ARGS__) : PetscErrorCode(0))
#define MatDiagDeviceCall(entry, ...) (MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->entry(__VA_ARGS__) : MatDiagNoDevice_Private(#entry))

static inline PetscBool MatDiagVecOnDevice_Private(Vec v)
{
  return MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->vec_on_device(v) : PETSC_FALSE;
}
static inline PetscBool MatDiagUseDevice_Private(Mat A, Vec x, Vec y = nullptr, Vec z = nullptr)
{
  return MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->use_device(A, x, y, z) : PETSC_FALSE;
}
static inline PetscBool MatDiagWantsDevice_Private(Mat A)
{
  return MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->wants_device(A) : PETSC_FALSE;
}
static inline PetscBool MatDiagOnDevice_Private(Mat A)
{
  return MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->on_device(A) : PETSC_FALSE;
}
static inline PetscErrorCode MatDiagSORDeviceWanted_Private(Mat A, Vec b, Vec x, MatSORType flag, PetscBool *wanted)
{
  *wanted = PETSC_FALSE;
  return MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->sor_wanted(A, b, x, flag, wanted) : 0;
}
static inline PetscBool MatDiagFactorDeviceWanted_Private(Vec b, Vec x)
{
  return MatDiagDeviceOps_Private ? MatDiagDeviceOps_Private->factor_wanted(b, x) : PETSC_FALSE;
}
/* The array calls of the host, or of the device for device != 0. */
static inline DiagVecArrays MatDiagVecArrays_Private(bool device)
{
  if (device && MatDiagDeviceOps_Private) return MatDiagDeviceOps_Private->arrays;
  return {VecGetArrayRead, VecRestoreArrayRead, VecGetArray, VecRestoreArray, VecGetArrayWrite, VecRestoreArrayWrite, VecCreateSeqWithArray};
}
