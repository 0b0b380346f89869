/* PCASM on diag operators on the GPU: where its subdomain blocks may live.

   MatCreateSubMatrices on a diag matrix (companion/companion_ops.cpp) keeps a block
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
#include "interpose/registry.hpp"

namespace {

PetscErrorCode SetUp_ASMDiag(PC);

DiagPCSetUpWrap asm_wrap{PCASM, SetUp_ASMDiag};

PetscErrorCode SetUp_ASMDiag(PC pc)
{
  PetscBool      isdiag;
  Mat_Diag      *a = nullptr;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatDiagIsDiag_Private(pc->pmat, &isdiag));
  if (isdiag) a = (Mat_Diag *)pc->pmat->data;
  if (a) a->device_subdomains = PETSC_TRUE;
  ierr = (*asm_wrap.setup)(pc);
  if (a) a->device_subdomains = PETSC_FALSE; /* also when the set-up failed */
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

} // namespace

/* Wraps PCASM's set-up (see above). */
PetscErrorCode MatDiagRegisterASM_Private(void)
{
  return DiagPCRegisterWrapped<asm_wrap>();
}
