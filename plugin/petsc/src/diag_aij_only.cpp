/* PETSc components that accept only aij matrices. A few of PETSc's PCs
   and colorings check the type of their matrix against aij by name instead
   of asking for an operation: PCML ("ML can only handle AIJ matrices"),
   PCMPI (the MPI linear solver server reads aij arrays directly),
   PCGAMG's classical coarsening, PCTFS, and the MatColoring types (greedy:
   "Matrix must be AIJ for greedy coloring"). With a diag matrix they would
   stop where aij works. For these the plugin wraps the component's work
   function: while it runs, the component sees the diag matrix's aij
   companion (diag_companion.cpp, refreshed with the diag matrix's values),
   then its own matrix again. A PC's hierarchy then holds the aij copy (ML
   and classical AMG build their levels from it). PCGAMG with its default
   (aggregation) coarsening works on the diag matrix itself and is not
   wrapped. -info reports each use. */
#include "diag_impl.hpp"

#include <utility>

#include <petsc/private/pcimpl.h>
#include <petsc/private/matimpl.h>

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

AijOnlyPC kWrapped[] = {{"ml", Always}, {"tfs", Always}, {"gamg", ClassicalGAMG}, {"mpi", Always}};

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

/* ---- colorings ------------------------------------------------------------ */

struct AijOnlyColoring {
  const char *type;
  PetscErrorCode (*create)(MatColoring)             = nullptr;
  PetscErrorCode (*apply)(MatColoring, ISColoring *) = nullptr;
};

AijOnlyColoring kColorings[] = {{"greedy"}, {"jp"}, {"power"}, {"natural"}, {"sl"}, {"lf"}, {"id"}};

template <int I>
PetscErrorCode ColoringApply_Wrapped(MatColoring mc, ISColoring *coloring)
{
  AijOnlyColoring &w   = kColorings[I];
  Mat              mat = mc->mat, C;
  PetscBool        diag;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  PetscCall(IsDiag(mat, &diag));
  if (!diag) {
    PetscCall((*w.apply)(mc, coloring));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagGetCompanion_Private(mat, "a MatColoring", &C));
  mc->mat = C;
  ierr    = (*w.apply)(mc, coloring);
  mc->mat = mat;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode ColoringCreate_Wrapped(MatColoring mc)
{
  AijOnlyColoring &w = kColorings[I];

  PetscFunctionBegin;
  PetscCall((*w.create)(mc));
  if (!w.apply) w.apply = mc->ops->apply;
  mc->ops->apply = ColoringApply_Wrapped<I>;
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode WrapColoring()
{
  AijOnlyColoring &w = kColorings[I];
  PetscErrorCode (*create)(MatColoring) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(MatColoringList, w.type, &create));
  if (!create || create == ColoringCreate_Wrapped<I>) PetscFunctionReturn(0);
  w.create = create;
  PetscCall(MatColoringRegister(w.type, ColoringCreate_Wrapped<I>));
  PetscFunctionReturn(0);
}

template <std::size_t... I>
PetscErrorCode WrapAll(std::index_sequence<I...>)
{
  PetscErrorCode ierr = 0;
  ((ierr = ierr ? ierr : WrapColoring<(int)I>()), ...);
  return ierr;
}

} // namespace

/* Wraps the aij-only PCs and colorings this PETSc has. */
PetscErrorCode MatDiagRegisterPCs_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(MatColoringRegisterAll());
  PetscCall(Wrap<0>());
  PetscCall(Wrap<1>());
  PetscCall(Wrap<2>());
  PetscCall(Wrap<3>());
  PetscCall(WrapAll(std::make_index_sequence<sizeof(kColorings) / sizeof(kColorings[0])>{}));
  PetscFunctionReturn(0);
}
