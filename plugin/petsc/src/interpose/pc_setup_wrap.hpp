/* Wrapping the set-up of one of PETSc's PC types (PCMG: pc/mg.cpp, PCASM:
   pc/asm.cpp). The plugin registers its own creation function under the
   PC type's name: it runs PETSc's creation, keeps PETSc's set-up function
   (the same for every PC of the type) and puts the plugin's in its place,
   which calls PETSc's; optionally its options function likewise (so that
   -help lists the plugin's options of the type). PCs that reuse the
   type's creation and then set their own set-up (GAMG, HMG on PCMG) are
   not affected. */
#pragma once

#include "core/mat_diag.hpp"

#include <petsc/private/pcimpl.h>

#include <utility>

/* PCSetFromOptions' per-type function: its second argument is
   PetscOptionItems * in PETSc 3.18 and PetscOptionItems (a pointer type)
   in 3.25. */
using DiagPCOptionsFn = decltype(std::declval<_PCOps>().setfromoptions);
template <class F>
struct DiagSecondArgument;
template <class R, class A, class B>
struct DiagSecondArgument<R (*)(A, B)> {
  using type = B;
};
using DiagPCOptionItems = DiagSecondArgument<DiagPCOptionsFn>::type;

struct DiagPCSetUpWrap {
  const char *type;                                /* the PC type whose set-up is wrapped */
  PetscErrorCode (*wrapper)(PC);                   /* the plugin's set-up; calls `setup` */
  DiagPCOptionsFn options_wrapper = nullptr;       /* optional: the plugin's options of the type (for -help); calls `options` */
  PetscErrorCode (*create)(PC) = nullptr;          /* PETSc's creation */
  PetscErrorCode (*setup)(PC)  = nullptr;          /* PETSc's set-up, taken from the first PC created */
  DiagPCOptionsFn options      = nullptr;          /* PETSc's options function, likewise */
};

template <DiagPCSetUpWrap &W>
PetscErrorCode DiagPCCreateWrapped(PC pc)
{
  PetscFunctionBegin;
  PetscCall((*W.create)(pc));
  if (!W.setup) W.setup = pc->ops->setup;
  PetscCheck(W.setup == pc->ops->setup, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: PC type %s changed its set-up function", W.type);
  pc->ops->setup = W.wrapper;
  if (W.options_wrapper) {
    if (!W.options) W.options = pc->ops->setfromoptions;
    PetscCheck(W.options == pc->ops->setfromoptions, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: PC type %s changed its options function", W.type);
    pc->ops->setfromoptions = W.options_wrapper;
  }
  PetscFunctionReturn(0);
}

/* Registers the wrapping creation function (once: a second call finds it). */
template <DiagPCSetUpWrap &W>
PetscErrorCode DiagPCRegisterWrapped(void)
{
  PetscErrorCode (*create)(PC) = NULL;

  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(PetscFunctionListFind(PCList, W.type, &create));
  if (!create || create == DiagPCCreateWrapped<W>) PetscFunctionReturn(0);
  W.create = create;
  PetscCall(PCRegister(W.type, DiagPCCreateWrapped<W>));
  PetscFunctionReturn(0);
}
