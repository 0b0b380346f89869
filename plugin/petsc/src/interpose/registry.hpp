/* Interposition on PETSc's registries (docs/design.md, "Registries the
   plugin interposes on"): the plugin registers a function of its own under
   the name of one of PETSc's (a PC type's creation, a coloring's, an
   ordering), which calls PETSc's. DiagInterpose() does that for any
   function list; DiagPCSetUpWrap builds on it to wrap the set-up of a PC
   type (PCMG: pc/mg.cpp, PCASM: pc/asm.cpp, the PCs that accept only aij:
   interpose/aij_only.cpp). */
#pragma once

#include "core/mat_diag.hpp"

#include <petsc/private/pcimpl.h>

#include <utility>

/* Registers `ours` under `name` in place of what `list` holds there, kept
   in *saved. Once only (a second call finds `ours`); a name this PETSc does
   not have is left alone. `reg` is the list's registration function
   (PCRegister, MatColoringRegister, MatOrderingRegister, ...). */
template <class Fn>
PetscErrorCode DiagInterpose(PetscFunctionList list, const char *name, Fn ours, Fn *saved, PetscErrorCode (*reg)(const char[], Fn))
{
  Fn found = nullptr;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(list, name, &found));
  if (!found || found == ours) PetscFunctionReturn(0);
  *saved = found;
  PetscCall((*reg)(name, ours));
  PetscFunctionReturn(0);
}

/* Wrapping the set-up of one of PETSc's PC types. The plugin's creation
   function, registered under the PC type's name, runs PETSc's creation,
   keeps PETSc's set-up function (the same for every PC of the type) and
   puts the plugin's in its place, which calls PETSc's; optionally its
   options function likewise (so that -help lists the plugin's options of
   the type). PCs that reuse the type's creation and then set their own
   set-up (GAMG, HMG on PCMG) are not affected. */

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
  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(DiagInterpose(PCList, W.type, DiagPCCreateWrapped<W>, &W.create, PCRegister));
  PetscFunctionReturn(0);
}
