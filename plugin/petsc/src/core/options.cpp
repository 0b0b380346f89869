/* The table of the -mat_diag_* options and the functions that read them
   (core/options.hpp). */
#include "core/options.hpp"

#include <petsc/private/petscimpl.h>

#include <array>
#include <cstddef>

namespace {

enum class Kind { Bool, Int, Real, Storage, IntArray };

/* Factor options are also read without a prefix: a PC's factor has the
   PC's prefix ("sub_" inside bjacobi and ASM), the user types them plain. */
enum class Fallback { PrefixOnly, Unprefixed };

struct OptionSpec {
  DiagOpt     id;
  const char *name;
  const char *deprecated; /* an earlier name still read, or null */
  Kind        kind;
  double      def; /* Bool: 0/1; Storage: a MatDiagStorage */
  Fallback    fallback;
  const char *help;
};

/* The default of -mat_diag_dense_factor_max: on the GPU, LUs of at most this
   many rows are dense, a factor and its inverse of 256 MiB each (and the
   identity while the inverse is formed); a product with the inverse reads
   it in well under a millisecond, where a sparse triangular solve of a
   coarse grid takes milliseconds. */
constexpr double kDenseFactorMaxRows = 5792;

const std::array<OptionSpec, (std::size_t)DiagOpt::Count> kOptions = {{
  {DiagOpt::Storage, "-mat_diag_storage", nullptr, Kind::Storage, MAT_DIAG_STORAGE_AUTO, Fallback::PrefixOnly, "Storage scheme"},
  {DiagOpt::MaxDiagonals, "-mat_diag_max_diagonals", nullptr, Kind::Int, 10000, Fallback::PrefixOnly, "Most diagonals a process may store"},
  {DiagOpt::MaxBytes, "-mat_diag_max_bytes", nullptr, Kind::Real, -1, Fallback::PrefixOnly, "Most bytes the storage of a process may take (-1: the memory the process can get)"},
  {DiagOpt::MaxFill, "-mat_diag_max_fill", nullptr, Kind::Real, 100, Fallback::PrefixOnly, "Most stored entries per entry set (storage over 256 MiB per process)"},
  {DiagOpt::ScatteredFill, "-mat_diag_scattered_fill", nullptr, Kind::Real, 16, Fallback::PrefixOnly,
   "Convert to aij at assembly a matrix whose entries set take more stored entries than this each (over 1M on a process), or more than the limits above allow (0: never; refuse beyond the limits)"},
  {DiagOpt::DeviceOps, "-mat_diag_device_ops", nullptr, Kind::Bool, 1, Fallback::PrefixOnly, "On the GPU, run MatScale, MatShift, MatAXPY, MatGetDiagonal, MatDiagonalScale and MatZeroRows on the device copy"},
  {DiagOpt::SymmetricProduct, "-mat_diag_symmetric_product", nullptr, Kind::Bool, 1, Fallback::PrefixOnly, "On the GPU, on one process, MatMult and MatResidual of a matrix whose values are symmetric read its main and upper diagonals only"},
  {DiagOpt::PinnedHalo, "-mat_diag_pinned_halo", nullptr, Kind::Bool, 1, Fallback::PrefixOnly,
   "On the GPU under MPI without a CUDA-aware MPI, exchange the ghost columns through pinned host memory, overlapped with the interior rows (false: PETSc's VecScatter)"},
  {DiagOpt::ListRemote, "-mat_diag_list_remote", nullptr, Kind::Bool, 1, Fallback::PrefixOnly,
   "Under MPI, keep the entries of sparsely filled diagonals that reach only other processes' columns (a process grid of unequal widths) as a list instead of as diagonals"},
  {DiagOpt::CompressConstant, "-mat_diag_compress_constant", nullptr, Kind::Bool, 1, Fallback::PrefixOnly, "On the GPU, store diagonals that are constant (apart from few exceptions) as one value"},
  {DiagOpt::NativeFactor, "-mat_diag_native_factor", nullptr, Kind::Bool, 1, Fallback::PrefixOnly, "ILU(0)/ICC(0) of the petsc package on the diagonals (false: through the aij copy)"},
  {DiagOpt::DeviceLU, "-mat_diag_device_lu", "-mat_diag_device_factor", Kind::Bool, 1, Fallback::PrefixOnly, "With CUDA vectors, LU and Cholesky of the default package solve on the GPU (false: PETSc's host factor)"},
  {DiagOpt::DenseFactorMax, "-mat_diag_dense_factor_max", nullptr, Kind::Int, kDenseFactorMaxRows, Fallback::PrefixOnly, "With CUDA vectors, LUs of at most this many rows are dense (cuSOLVER), applied as their inverse"},
  {DiagOpt::FactorTiles, "-mat_diag_factor_tiles", nullptr, Kind::Bool, 1, Fallback::Unprefixed, "With CUDA vectors, ILU(0)/ICC(0) solves by tiles of the grid, one launch per pass (false: level-scheduled passes)"},
  {DiagOpt::FactorTileBox, "-mat_diag_factor_tile_box", nullptr, Kind::IntArray, 0, Fallback::Unprefixed,
   "The tiles' boxes: grid points per axis, tx,ty,tz, at most 32 in all (auto: 4,4,2 in 3D, 8,4,1 in 2D, 32,1,1 on a line)"},
  {DiagOpt::CudaGraphs, "-mat_diag_cuda_graphs", nullptr, Kind::Bool, 1, Fallback::Unprefixed, "With CUDA vectors, level-scheduled solves and SOR sweeps replay a CUDA graph of their launches (false: one launch per level)"},
  {DiagOpt::DeviceLevelRows, "-mat_diag_device_level_rows", nullptr, Kind::Int, 512, Fallback::Unprefixed,
   "With CUDA vectors, SOR sweeps, ILU(0)/ICC(0) factorizations and their solves run on the GPU when their sequential steps (levels, tiles' wavefronts) average at least this many rows, else on the host (0: always on the GPU)"},
  {DiagOpt::DeviceIluNumeric, "-mat_diag_device_ilu_numeric", "-mat_diag_factor_device", Kind::Bool, 1, Fallback::Unprefixed,
   "With CUDA vectors, the numeric ILU(0)/ICC(0) factorization on the GPU by levels (false: on the host)"},
  {DiagOpt::ProductToDiag, "-mat_diag_product_to_diag", nullptr, Kind::Bool, 1, Fallback::PrefixOnly, "Galerkin products (PtAP, RARt) with few full diagonals stored as diag (false: as aij)"},
  {DiagOpt::GalerkinStructured, "-mat_diag_galerkin_structured", nullptr, Kind::Bool, 1, Fallback::PrefixOnly,
   "Inside PCMG, a Galerkin product PtAP with a DMDA's Q1 interpolation computed from the interpolation's formula and the operator's diagonals (one process; false: the general path)"},
  {DiagOpt::GalerkinDevice, "-mat_diag_galerkin_device", nullptr, Kind::Bool, 1, Fallback::PrefixOnly, "With CUDA vectors, a sequential Galerkin product PtAP by cuSPARSE on the GPU, its result diag on the device (false: as aij's on the host)"},
}};

const OptionSpec &Spec(DiagOpt id)
{
  return kOptions[(std::size_t)id];
}

/* A deprecated name was used: say so once per option (world rank 0). */
PetscErrorCode WarnDeprecated(const OptionSpec &s)
{
  static std::array<bool, (std::size_t)DiagOpt::Count> warned{};

  PetscFunctionBegin;
  if (warned[(std::size_t)s.id]) PetscFunctionReturn(0);
  warned[(std::size_t)s.id] = true;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diag: the option %s is deprecated; use %s instead\n", s.deprecated, s.name));
  PetscFunctionReturn(0);
}

/* Reads one name of s with one prefix into *value (unchanged if not set). */
template <class T>
PetscErrorCode ReadName(PetscOptions options, const char *prefix, const char *name, T *value, PetscBool *set)
{
  PetscFunctionBegin;
  if constexpr (std::is_same_v<T, PetscBool>) PetscCall(PetscOptionsGetBool(options, prefix, name, value, set));
  else if constexpr (std::is_same_v<T, PetscInt>) PetscCall(PetscOptionsGetInt(options, prefix, name, value, set));
  else PetscCall(PetscOptionsGetReal(options, prefix, name, value, set));
  PetscFunctionReturn(0);
}

/* s's value with one prefix: the name, else the deprecated name. */
template <class T>
PetscErrorCode ReadPrefixed(PetscOptions options, const char *prefix, const OptionSpec &s, T *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(ReadName(options, prefix, s.name, value, set));
  if (!*set && s.deprecated) {
    PetscCall(ReadName(options, prefix, s.deprecated, value, set));
    if (*set) PetscCall(WarnDeprecated(s));
  }
  PetscFunctionReturn(0);
}

template <class T>
PetscErrorCode GetOption(PetscObject obj, DiagOpt id, T *value)
{
  const OptionSpec &s   = Spec(id);
  PetscBool         set = PETSC_FALSE;

  PetscFunctionBegin;
  *value = (T)s.def;
  PetscCall(ReadPrefixed(obj->options, obj->prefix, s, value, &set));
  if (!set && s.fallback == Fallback::Unprefixed && obj->prefix) PetscCall(ReadPrefixed(obj->options, nullptr, s, value, &set));
  PetscFunctionReturn(0);
}

/* Lists (and reads into *value) one option inside an options block. */
PetscErrorCode ListOption(PetscDiagOptionItems PetscOptionsObject, const OptionSpec &s, PetscBool *value)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsBool(s.name, s.help, "MATDIAG", *value, value, NULL));
  PetscFunctionReturn(0);
}
PetscErrorCode ListOption(PetscDiagOptionItems PetscOptionsObject, const OptionSpec &s, PetscInt *value)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsInt(s.name, s.help, "MATDIAG", *value, value, NULL));
  PetscFunctionReturn(0);
}
PetscErrorCode ListOption(PetscDiagOptionItems PetscOptionsObject, const OptionSpec &s, PetscReal *value)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsReal(s.name, s.help, "MATDIAG", *value, value, NULL));
  PetscFunctionReturn(0);
}

} // namespace

DiagOptions::DiagOptions()
{
  storage_req       = (MatDiagStorage)Spec(DiagOpt::Storage).def;
  max_diagonals     = (PetscInt)Spec(DiagOpt::MaxDiagonals).def;
  max_bytes         = (PetscReal)Spec(DiagOpt::MaxBytes).def;
  max_fill          = (PetscReal)Spec(DiagOpt::MaxFill).def;
  scattered_fill    = (PetscReal)Spec(DiagOpt::ScatteredFill).def;
  device_ops        = Spec(DiagOpt::DeviceOps).def ? PETSC_TRUE : PETSC_FALSE;
  symmetric_product = Spec(DiagOpt::SymmetricProduct).def ? PETSC_TRUE : PETSC_FALSE;
  pinned_halo       = Spec(DiagOpt::PinnedHalo).def ? PETSC_TRUE : PETSC_FALSE;
  list_remote       = Spec(DiagOpt::ListRemote).def ? PETSC_TRUE : PETSC_FALSE;
  compress_constant = Spec(DiagOpt::CompressConstant).def ? PETSC_TRUE : PETSC_FALSE;
}

PetscInt MatDiagMaxDiagonalsDefault_Private(void)
{
  return (PetscInt)Spec(DiagOpt::MaxDiagonals).def;
}

PetscErrorCode MatDiagGetOptionBool(PetscObject obj, DiagOpt id, PetscBool *value)
{
  return GetOption(obj, id, value);
}

PetscErrorCode MatDiagGetOptionInt(PetscObject obj, DiagOpt id, PetscInt *value)
{
  return GetOption(obj, id, value);
}

PetscErrorCode MatDiagGetOptionReal(PetscObject obj, DiagOpt id, PetscReal *value)
{
  return GetOption(obj, id, value);
}

PetscErrorCode MatDiagReadOption(PetscObject obj, DiagOpt id, PetscInt *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(ReadPrefixed(obj->options, obj->prefix, Spec(id), value, set));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagGetStorageOption(PetscObject obj, MatDiagStorage *value, PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsGetEnum(obj->options, obj->prefix, Spec(DiagOpt::Storage).name, MatDiagStorages, (PetscEnum *)value, set));
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagGetTileBoxOption(PetscObject obj, PetscInt box[3], PetscBool *set)
{
  const OptionSpec &s    = Spec(DiagOpt::FactorTileBox);
  PetscInt          nbox = 3;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetIntArray(obj->options, obj->prefix, s.name, box, &nbox, set));
  if (!*set && obj->prefix) {
    nbox = 3;
    PetscCall(PetscOptionsGetIntArray(obj->options, NULL, s.name, box, &nbox, set));
  }
  PetscCheck(!*set || nbox == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: %s needs three sizes (tx,ty,tz)", s.name);
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagOptionsFromBlock_Private(PetscDiagOptionItems PetscOptionsObject, DiagOptions *opt, MatDiagStorage *storage, PetscBool *storage_set)
{
  PetscFunctionBegin;
  *storage = opt->storage_req;
  PetscOptionsHeadBegin(PetscOptionsObject, "Diagonal storage (diag) options");
  for (const OptionSpec &s : kOptions) {
    switch (s.id) {
    case DiagOpt::Storage:
      PetscCall(PetscOptionsEnum(s.name, s.help, "MatDiagSetStorage", MatDiagStorages, (PetscEnum)*storage, (PetscEnum *)storage, storage_set));
      break;
    case DiagOpt::MaxDiagonals:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->max_diagonals));
      break;
    case DiagOpt::MaxBytes:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->max_bytes));
      break;
    case DiagOpt::MaxFill:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->max_fill));
      break;
    case DiagOpt::ScatteredFill:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->scattered_fill));
      break;
    case DiagOpt::DeviceOps:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->device_ops));
      break;
    case DiagOpt::SymmetricProduct:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->symmetric_product));
      break;
    case DiagOpt::PinnedHalo:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->pinned_halo));
      break;
    case DiagOpt::ListRemote:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->list_remote));
      break;
    case DiagOpt::CompressConstant:
      PetscCall(ListOption(PetscOptionsObject, s, &opt->compress_constant));
      break;
    case DiagOpt::FactorTileBox: { /* read where it acts: listed with "auto" for the default, which depends on the grid */
      char box[64] = "auto";
      PetscCall(PetscOptionsString(s.name, s.help, "MATDIAG", box, box, sizeof(box), NULL));
    } break;
    default: { /* read where they act (MatDiagGetOption): listed with their defaults */
      if (s.kind == Kind::Bool) {
        PetscBool v = s.def ? PETSC_TRUE : PETSC_FALSE;
        PetscCall(ListOption(PetscOptionsObject, s, &v));
      } else {
        PetscInt v = (PetscInt)s.def;
        PetscCall(ListOption(PetscOptionsObject, s, &v));
      }
    } break;
    }
  }
  PetscOptionsHeadEnd();
  PetscCheck(opt->max_diagonals >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: -mat_diag_max_diagonals %" PetscInt_FMT " is negative", opt->max_diagonals);
  PetscCheck(opt->max_fill >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: -mat_diag_max_fill %g is less than 1", (double)opt->max_fill);
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagOptionsAtCreation_Private(Mat A, DiagOptions *opt)
{
  PetscBool set, no_inode = PETSC_FALSE, no_unroll = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(ReadPrefixed(NULL, NULL, Spec(DiagOpt::MaxDiagonals), &opt->max_diagonals, &set));
  PetscCall(ReadPrefixed(NULL, NULL, Spec(DiagOpt::MaxBytes), &opt->max_bytes, &set));
  PetscCall(ReadPrefixed(NULL, NULL, Spec(DiagOpt::MaxFill), &opt->max_fill, &set));
  PetscCall(ReadPrefixed(NULL, NULL, Spec(DiagOpt::ScatteredFill), &opt->scattered_fill, &set));
  /* as aij reads them (MatCreate_SeqAIJ_Inode): diag decides with them
     whether aij would run this matrix's SOR and orderings on inodes, and
     does the same (MatDiagUsesInodes_Private) */
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, "Options for diag matrix", "Mat");
  PetscCall(PetscOptionsBool("-mat_no_unroll", "Do not optimize for inodes (slower)", NULL, no_unroll, &no_unroll, NULL));
  PetscCall(PetscOptionsBool("-mat_no_inode", "Do not optimize for inodes -slower-", NULL, no_inode, &no_inode, NULL));
  PetscCall(PetscOptionsInt("-mat_inode_limit", "Do not use inodes larger than this value", NULL, opt->inode_limit, &opt->inode_limit, NULL));
  PetscOptionsEnd();
  opt->inode_allowed = (PetscBool)!(no_unroll || no_inode);
  opt->inode_limit   = PetscMin(opt->inode_limit, 5); /* aij's largest */
  PetscFunctionReturn(0);
}
