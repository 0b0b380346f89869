/* PCASM on diag operators on the GPU: where its subdomain blocks may live.

   MatCreateSubMatrices on a diag matrix (diag_companion.cpp) keeps a block
   as diag when its diagonals are few and full, else as aij. On the GPU an
   aij block could be aijcusparse, so that its sub-solves stay on the
   device; but only a caller that applies the block to the block's own
   vectors can take one: PETSc's aijcusparse (3.18 and 3.25) computes
   nothing with host vectors (PCGASM on one process and PCBJACOBI with
   several blocks a process apply their blocks to host vectors; with
   aijcusparse subdomains GASM returns a zero correction, as it does for
   aijcusparse itself). PCASM makes its blocks' vectors with MatCreateVecs
   of each block, so PCASM's set-up is wrapped: while PETSc's own runs, the
   diag operator lets MatCreateSubMatrices return aijcusparse blocks
   (Mat_Diag::device_subdomains); every other caller gets blocks that work
   with any vector (diag, or host aij). */
#include "diag_impl.hpp"

#include <petsc/private/pcimpl.h>

namespace {

PetscErrorCode (*asm_create)(PC) = nullptr; /* PETSc's PCCreate_ASM */
PetscErrorCode (*asm_setup)(PC)  = nullptr; /* PETSc's PCSetUp_ASM */

/* The diag data of the preconditioning matrix, or NULL for another type. */
PetscErrorCode DiagOf(Mat P, Mat_Diag **a)
{
  PetscBool isdiag = PETSC_FALSE;

  PetscFunctionBegin;
  *a = nullptr;
  if (P) PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &isdiag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if (isdiag) *a = (Mat_Diag *)P->data;
  PetscFunctionReturn(0);
}

PetscErrorCode SetUp_ASMDiag(PC pc)
{
  Mat_Diag      *a;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(DiagOf(pc->pmat, &a));
  if (a) a->device_subdomains = PETSC_TRUE;
  ierr = (*asm_setup)(pc);
  if (a) a->device_subdomains = PETSC_FALSE; /* also when the set-up failed */
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode Create_ASMDiag(PC pc)
{
  PetscFunctionBegin;
  PetscCall((*asm_create)(pc));
  if (!asm_setup) asm_setup = pc->ops->setup;
  PetscCheck(asm_setup == pc->ops->setup, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: PCASM changed its set-up function");
  pc->ops->setup = SetUp_ASMDiag;
  PetscFunctionReturn(0);
}

} // namespace

/* Wraps PCASM's set-up (see above). */
PetscErrorCode MatDiagRegisterASM_Private(void)
{
  PetscErrorCode (*create)(PC) = NULL;

  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(PetscFunctionListFind(PCList, PCASM, &create));
  if (!create || create == Create_ASMDiag) PetscFunctionReturn(0);
  asm_create = create;
  PetscCall(PCRegister(PCASM, Create_ASMDiag));
  PetscFunctionReturn(0);
}
