/* PCMG on diag operators: the type of the grid transfers.

   A DMDA makes its interpolation with the DM's matrix type only when that
   is an aij type (DMCreateInterpolation_DA_*: ConvertToAIJ); for diag it
   makes a host aij matrix. With CUDA vectors every restriction and
   interpolation of a V-cycle would then copy the level's vectors to the
   host, multiply there, and copy back, while aijcusparse's DMDA gets
   aijcusparse transfers that stay on the device. The interpolation itself
   is no candidate for diag storage (its diagonals are slanted bands, see
   products/product_companion.cpp).

   So PCMG's set-up is wrapped: after PETSc's own (which made the
   transfers and, with -pc_mg_galerkin, the coarse operators from them),
   each level whose operator is a diag matrix whose vectors are CUDA
   vectors (diagcuda, or diag with -dm_vec_type cuda) gets its
   interpolation and restriction converted in place (the same Mat handles,
   so the Galerkin products that hold them keep working) from host aij
   (seqaij, mpiaij; MAIJ for several fields per point) to aijcusparse. -info reports each conversion.
   -pc_mg_diag_transfer_type <type> (with the PC's prefix) names the type
   instead, for any level with a diag operator ("none": no conversion);
   with host vectors the transfers are left alone by default. A DMDA's Q1
   interpolation runs its products from its formula, on the host or the
   GPU (pc/mg_structured.cpp), which needs no copy of it where the level
   computes: such a level's transfers stay host aij unless
   -pc_mg_diag_transfer_type names a type (at 257^3 the finest
   interpolation's conversion and upload moved 861 MB in the set-up). */
#include "interpose/registry.hpp"

#include <petsc/private/pcmgimpl.h>

namespace {

PetscErrorCode SetUp_MGDiag(PC);
PetscErrorCode SetFromOptions_MGDiag(PC, DiagPCOptionItems);

DiagPCSetUpWrap mg_wrap{PCMG, SetUp_MGDiag, SetFromOptions_MGDiag};

/* PETSc's PCMG options, then the plugin's (read again where they act, at
   the set-up: listed here for -help and -options_left). */
PetscErrorCode SetFromOptions_MGDiag(PC pc, DiagPCOptionItems PetscOptionsObject)
{
  char      type[64] = "";
  PetscBool structured = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall((*mg_wrap.options)(pc, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "PCMG with diag operators (petsc-diag)");
  PetscCall(PetscOptionsString("-pc_mg_diag_transfer_type", "Type of the grid transfers into levels with a diag operator (default: aijcusparse with CUDA vectors, except a DMDA's Q1 interpolation run from its formula, left as PETSc made it; none: as PETSc made them)", "PCMG", type, type, sizeof(type), NULL));
  PetscCall(PetscOptionsBool("-pc_mg_diag_structured_transfer", "A DMDA's Q1 interpolation into a diag level applied from its formula (one process)", "PCMG", structured, &structured, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

/* The type the transfers into a level with operator A take, or "" for
   none; *asked: named by -pc_mg_diag_transfer_type. */
PetscErrorCode TransferType(PC pc, Mat A, char *type, size_t len, PetscBool *asked)
{
  PetscBool isdiag, set, cuda = PETSC_FALSE;

  PetscFunctionBegin;
  type[0] = 0;
  *asked  = PETSC_FALSE;
  PetscCall(MatDiagIsDiag_Private(A, &isdiag));
  if (!isdiag) PetscFunctionReturn(0);
  PetscCall(PetscOptionsGetString(((PetscObject)pc)->options, ((PetscObject)pc)->prefix, "-pc_mg_diag_transfer_type", type, len, &set));
  if (set) {
    PetscBool none;
    PetscCall(PetscStrcmp(type, "none", &none));
    if (none) type[0] = 0;
    *asked = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if (!cuda && A->defaultvectype) {
    PetscBool bound;
    char     *found = nullptr;
    PetscCall(MatBoundToCPU(A, &bound));
    PetscCall(PetscStrstr(A->defaultvectype, "cuda", &found));
    cuda = (found && !bound) ? PETSC_TRUE : PETSC_FALSE;
  }
  if (cuda) PetscCall(PetscStrncpy(type, MATAIJCUSPARSE, len));
  PetscFunctionReturn(0);
}

/* Moves the transfer T to where it computes now, in the set-up. A
   converted aijcusparse matrix holds its values on the host until its first
   product; left alone, that upload (861 MB for ex45's finest interpolation
   at 257^3) and the first transposed product would land in the first
   KSPSolve, where aijcusparse's own transfers are already on the device
   (its Galerkin products ran there in its set-up). One product in each
   direction PCMG uses T (both when T is the interpolation and also the
   restriction) does it; the values are discarded. Collective on T. */
PetscErrorCode PlaceTransfer(Mat T, PetscBool both_directions)
{
  Vec columns, rows;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(T, &columns, &rows));
  PetscCall(VecSet(columns, 0.0));
  PetscCall(VecSet(rows, 0.0));
  PetscCall(MatMult(T, columns, rows));
  if (both_directions) PetscCall(MatMultTranspose(T, rows, columns));
  PetscCall(VecDestroy(&columns));
  PetscCall(VecDestroy(&rows));
  PetscFunctionReturn(0);
}

/* Converts the host transfer T in place to `type` and places it there: an
   aij one, or the MAIJ one of a DMDA with several fields per point (its
   products run on the host only; PETSc's MatCreateMAIJ converts a MAIJ of
   aijcusparse to aijcusparse for the same reason, which is what an
   aijcusparse user's PCMG gets). */
PetscErrorCode ConvertTransfer(Mat T, const char *type, const char *what, PetscInt level, PetscBool both_directions)
{
  PetscBool plain, maij, same;

  PetscFunctionBegin;
  if (!T) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)T, &plain, MATSEQAIJ, MATMPIAIJ, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)T, &maij, MATSEQMAIJ, MATMPIMAIJ, ""));
  PetscCall(PetscObjectTypeCompare((PetscObject)T, type, &same));
  if (!(plain || maij) || same) PetscFunctionReturn(0); /* a user's type, or done */
  PetscCall(PetscInfo(T, "diag: PCMG %s into level %" PetscInt_FMT " converted from %s to %s, where the level's diag operator computes\n", what, level, ((PetscObject)T)->type_name, type));
  PetscCall(MatConvert(T, type, MAT_INPLACE_MATRIX, &T));
  PetscCall(PlaceTransfer(T, both_directions));
  PetscFunctionReturn(0);
}

/* The PCMG whose set-up (PETSc's) is running: its Galerkin products may
   move their interpolation where the level computes before they use it
   (MatDiagMGTransferInPlace_Private), as this file would right after. */
PC mg_in_setup = nullptr;

PetscErrorCode SetUp_MGDiag(PC pc)
{
  PC_MG         *mg = (PC_MG *)pc->data;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PC outer    = mg_in_setup; /* a PCMG inside a level's smoother sets up inside this one */
  mg_in_setup = pc;
  ierr        = (*mg_wrap.setup)(pc);
  mg_in_setup = outer;
  PetscCall(ierr);
  if (!mg->levels) PetscFunctionReturn(0);
  for (PetscInt i = 1; i < mg->nlevels; i++) {
    PC_MG_Levels *l = mg->levels[i];
    Mat           A = nullptr;
    char          type[64];
    PetscBool     asked, structured = PETSC_FALSE;
    if (!l || !l->smoothd) continue;
    PetscCall(KSPGetOperators(l->smoothd, &A, NULL));
    PetscCall(TransferType(pc, A, type, sizeof(type), &asked));
    /* a DMDA's Q1 interpolation runs from its formula, which needs no copy
       where the level computes: converted only when a type was asked */
    if (!asked) PetscCall(MatDiagMGStructuredTransfer_Private(pc, i, &structured));
    if (type[0] && !structured) {
      /* PCMG restricts by P^T when the restriction is the interpolation */
      PetscCall(ConvertTransfer(l->interpolate, type, "interpolation", i, l->restrct == l->interpolate ? PETSC_TRUE : PETSC_FALSE));
      if (l->restrct != l->interpolate) PetscCall(ConvertTransfer(l->restrct, type, "restriction", i, PETSC_FALSE));
    }
    if (asked) PetscCall(MatDiagMGStructuredTransfer_Private(pc, i, &structured));
  }
  PetscFunctionReturn(0);
}

} // namespace

/* Called by a Galerkin product P^T A P computed on the GPU
   (device/galerkin.cpp) with its operands: inside a PCMG set-up, when
   the transfers into a level with operator A are to be aijcusparse (see
   the top) and P is host aij, P is converted in place now, so that the
   product uses it there instead of a private device copy (the finest
   interpolation at 257^3 is 1.6 GB on the host; a copy and then this
   file's own conversion would move it twice). *converted says whether P
   was. Not collective (sequential products only). */
PetscErrorCode MatDiagMGTransferInPlace_Private(Mat A, Mat P, PetscBool *converted)
{
  char      type[64];
  PetscBool plain, asked;

  PetscFunctionBegin;
  *converted = PETSC_FALSE;
  if (!mg_in_setup) PetscFunctionReturn(0);
  PetscCall(TransferType(mg_in_setup, A, type, sizeof(type), &asked));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJ, &plain));
  if (!type[0] || !plain) PetscFunctionReturn(0);
  PetscCall(PetscInfo(P, "diag: PCMG interpolation converted from %s to %s for the Galerkin product on the GPU, where the level's diag operator computes\n", ((PetscObject)P)->type_name, type));
  PetscCall(MatConvert(P, type, MAT_INPLACE_MATRIX, &P));
  *converted = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The PCMG whose set-up (PETSc's) is running, or NULL (see mg_in_setup). */
PC MatDiagMGInSetUp_Private(void)
{
  return mg_in_setup;
}

/* Wraps PCMG's set-up (see above; interpose/pc_setup_wrap.hpp). */
PetscErrorCode MatDiagRegisterMG_Private(void)
{
  return DiagPCRegisterWrapped<mg_wrap>();
}
