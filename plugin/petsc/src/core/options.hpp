/* The -mat_diag_* options: one table (core/options.cpp) of each option's
   name, default and help, and the one way they are read.

   Options of the matrix itself (storage, limits, what runs on the device)
   live in DiagOptions, read by MatSetFromOptions() (and a few already at
   creation or preallocation, which come first for a DMDA's matrix). The
   others act on objects the matrix makes or meets (a factor, a product, a
   Galerkin operator): they are read where they act, with that object's
   options prefix, by MatDiagGetOption(); MatSetFromOptions() lists them
   for -help. */
#pragma once

#include <petscmat.h>

#include "core/petsc_compat.hpp"

#include <petscdiag.h>

enum class DiagOpt : int {
  /* the matrix's own (DiagOptions) */
  Storage,
  MaxDiagonals,
  MaxBytes,
  MaxFill,
  ScatteredFill,
  DeviceOps,
  SymmetricProduct,
  PinnedHalo,
  ListRemote,
  CompressConstant,
  /* read where they act */
  NativeFactor,
  DeviceLU,
  DenseFactorMax,
  FactorTiles,
  FactorTileBox,
  CudaGraphs,
  DeviceLevelRows,
  DeviceIluNumeric,
  ProductToDiag,
  GalerkinStructured,
  GalerkinDevice,
  Count
};

/* The matrix's own options, each initialized to its table default. */
struct DiagOptions {
  MatDiagStorage storage_req;       /* -mat_diag_storage */
  PetscInt       max_diagonals;     /* -mat_diag_max_diagonals: refuse beyond */
  PetscReal      max_bytes;         /* -mat_diag_max_bytes: refuse storage beyond (per process; -1: the memory the process can get) */
  PetscReal      max_fill;          /* -mat_diag_max_fill: refuse more stored entries per entry set (large matrices only) */
  PetscReal      scattered_fill;    /* -mat_diag_scattered_fill: convert to aij at assembly beyond this many stored entries per aij entry (convert/scattered.cpp; 0: never) */
  PetscBool      device_ops;        /* -mat_diag_device_ops: value-wide operations on the device copy */
  PetscBool      symmetric_product; /* -mat_diag_symmetric_product: the device MatMult/MatResidual of a symmetric matrix on one process read its main and upper diagonals */
  PetscBool      pinned_halo;       /* -mat_diag_pinned_halo: the device MatMult's ghost exchange through pinned memory (MPI without CUDA awareness) */
  PetscBool      list_remote;       /* -mat_diag_list_remote: sparsely filled diagonals reaching other processes kept as a list */
  PetscBool      compress_constant; /* -mat_diag_compress_constant: constant diagonals stored as one value on the device */
  /* aij's inode options, read at creation as aij reads them: -mat_no_inode / -mat_no_unroll, -mat_inode_limit */
  PetscBool inode_allowed = PETSC_TRUE;
  PetscInt  inode_limit   = 5;

  DiagOptions();
};

/* The default of -mat_diag_max_diagonals; also the limit up to which an aij
   matrix's diagonals are counted when deciding whether to store it as diag. */
PETSC_INTERN PetscInt MatDiagMaxDiagonalsDefault_Private(void);

/* The option's value for obj: its table default, unless set with obj's
   prefix (or, for the factor options, which bjacobi's and ASM's sub-PCs
   see with their "sub_" prefix, without a prefix). A deprecated name is
   read too, with a warning. */
PETSC_INTERN PetscErrorCode MatDiagGetOptionBool(PetscObject, DiagOpt, PetscBool *);
PETSC_INTERN PetscErrorCode MatDiagGetOptionInt(PetscObject, DiagOpt, PetscInt *);
PETSC_INTERN PetscErrorCode MatDiagGetOptionReal(PetscObject, DiagOpt, PetscReal *);
static inline PetscErrorCode MatDiagGetOption(PetscObject obj, DiagOpt id, PetscBool *value)
{
  return MatDiagGetOptionBool(obj, id, value);
}
static inline PetscErrorCode MatDiagGetOption(PetscObject obj, DiagOpt id, PetscInt *value)
{
  return MatDiagGetOptionInt(obj, id, value);
}
/* The same with *value as the default (unchanged unless set; *set: given). */
PETSC_INTERN PetscErrorCode MatDiagReadOption(PetscObject, DiagOpt, PetscInt *, PetscBool *set);
/* -mat_diag_storage with obj's prefix (*set: given). */
PETSC_INTERN PetscErrorCode MatDiagGetStorageOption(PetscObject, MatDiagStorage *, PetscBool *set);
/* -mat_diag_factor_tile_box: three sizes (*set false: not given, the
   schedule picks by the grid's dimension). */
PETSC_INTERN PetscErrorCode MatDiagGetTileBoxOption(PetscObject, PetscInt box[3], PetscBool *set);

/* MatSetFromOptions(): the matrix's options into *opt (the current values
   as defaults), every other option listed for -help. -mat_diag_storage
   goes to *storage (*storage_set: given), which the caller applies with
   MatDiagSetStorage()'s checks. */
PETSC_INTERN PetscErrorCode MatDiagOptionsFromBlock_Private(PetscDiagOptionItems, DiagOptions *, MatDiagStorage *storage, PetscBool *storage_set);
/* At creation, before MatSetFromOptions(): the memory limits without a
   prefix (MatCreateDiag() preallocates at once), and aij's inode options. */
PETSC_INTERN PetscErrorCode MatDiagOptionsAtCreation_Private(Mat, DiagOptions *);
