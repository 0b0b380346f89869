/* Preconditioners that accept only aij operators. A few of PETSc's PCs
   check the type of their operator against aij by name instead of asking
   for an operation: PCML ("ML can only handle AIJ matrices"), PCGAMG's
   classical coarsening, PCTFS. With a diag operator they would stop where
   aij works. For these the plugin wraps the PC's set-up: while it runs, the
   PC sees the diag operator's aij companion (diag_companion.cpp, refreshed
   with the diag matrix's values), then its own operators again. The PC's
   hierarchy then holds the aij copy (ML and classical AMG build their
   levels from it). PCGAMG with its default (aggregation) coarsening works on
   the diag matrix itself and is not wrapped. -info reports each use. */
#include "diag_impl.hpp"

#include <petsc/private/pcimpl.h>

namespace {

/* A PC type whose set-up gets the aij companion of a diag operator; when()
   says whether this PC object needs it. */
struct AijOnlyPC {
  const char *type;
  PetscErrorCode (*when)(PC, PetscBool *);
  PetscErrorCode (*create)(PC) = nullptr; /* PETSc's own */
  PetscErrorCode (*setup)(PC)  = nullptr; /* PETSc's own, taken from the first PC created */
};

PetscErrorCode Always(PC, PetscBool *yes)
{
  *yes = PETSC_TRUE;
  return 0;
}

/* PCGAMG with classical coarsening: the type composes its own setter
   (PCGAMGGetType does not report the type set from the options in 3.18). */
PetscErrorCode ClassicalGAMG(PC pc, PetscBool *yes)
{
  PetscErrorCode (*f)(void) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, "PCGAMGClassicalSetType_C", &f));
  *yes = f ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

AijOnlyPC kWrapped[] = {{"ml", Always}, {"tfs", Always}, {"gamg", ClassicalGAMG}};

PetscErrorCode IsDiag(Mat A, PetscBool *diag)
{
  PetscFunctionBegin;
  *diag = PETSC_FALSE;
  if (A) PetscCall(PetscObjectTypeCompareAny((PetscObject)A, diag, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode SetUp_Wrapped(PC pc)
{
  AijOnlyPC &w    = kWrapped[I];
  Mat        mat  = pc->mat, pmat = pc->pmat, C;
  PetscBool  diag = PETSC_FALSE, needed = PETSC_FALSE;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(IsDiag(pmat, &diag));
  if (diag) PetscCall(w.when(pc, &needed));
  if (!diag || !needed) {
    PetscCall((*w.setup)(pc));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(pc, "diag: PC %s accepts only aij operators: it is set up on the operator's aij copy\n", w.type));
  PetscCall(MatDiagGetCompanion_Private(pmat, w.type, &C));
  pc->pmat = C;
  if (mat == pmat) pc->mat = C;
  ierr     = (*w.setup)(pc);
  pc->pmat = pmat;
  pc->mat  = mat;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode Create_Wrapped(PC pc)
{
  AijOnlyPC &w = kWrapped[I];

  PetscFunctionBegin;
  PetscCall((*w.create)(pc));
  if (!w.setup) w.setup = pc->ops->setup;
  PetscCheck(w.setup == pc->ops->setup, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: PC %s changed its set-up function", w.type);
  pc->ops->setup = SetUp_Wrapped<I>;
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode Wrap()
{
  AijOnlyPC &w = kWrapped[I];
  PetscErrorCode (*create)(PC) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(PCList, w.type, &create));
  if (!create || create == Create_Wrapped<I>) PetscFunctionReturn(0); /* not in this PETSc, or done */
  w.create = create;
  PetscCall(PCRegister(w.type, Create_Wrapped<I>));
  PetscFunctionReturn(0);
}

} // namespace

/* Wraps the set-up of the aij-only PCs this PETSc has. */
PetscErrorCode MatDiagRegisterPCs_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(Wrap<0>());
  PetscCall(Wrap<1>());
  PetscCall(Wrap<2>());
  PetscFunctionReturn(0);
}
