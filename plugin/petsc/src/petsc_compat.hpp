// The differences between the PETSc releases petsc-diag builds against
// (3.18 to 3.25), in one place (DESIGN §8). The code is written against the
// current API; each entry maps it onto the older releases. Included by the
// plugin (through diag_impl.hpp) and by the tests, solvers and benchmarks,
// so it needs only PETSc's public headers.
#pragma once

#include <petscoptions.h>
#include <petscsys.h>
#include <petscversion.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

/* PetscAssertPointer() (3.20) replaces PetscValidPointer(),
   PetscValidIntPointer(), ... which 3.20 and later deprecate. */
#if PETSC_VERSION_LT(3, 20, 0)
  #define PetscAssertPointer(h, arg) PetscValidPointer(h, arg)
#endif

/* The MPI datatype of a PetscBool. Since 3.24 PetscBool is a C bool and
   travels as MPI_C_BOOL (MPIU_BOOL is deprecated); before, it was an int
   enum and MPIU_BOOL named the matching int type. Not MPI_C_BOOL itself for
   3.18: MPI defines that name, with the size of a C bool. */
#if PETSC_VERSION_LT(3, 24, 0)
  #define PDIAG_MPIU_BOOL MPIU_BOOL
#else
  #define PDIAG_MPIU_BOOL MPI_C_BOOL
#endif

/* Two changes PETSc's change log does not date; their form is read off this
   PETSc's own declarations instead of a version number:
   PetscDiagSignature_<decltype(&F)>::arg<i> is the type of F's i-th parameter. */
template <class Fn>
struct PetscDiagSignature_;
template <class R, class... A>
struct PetscDiagSignature_<R (*)(A...)> {
  template <std::size_t I>
  using arg = std::tuple_element_t<I, std::tuple<A...>>;
};

/* The options context that setfromoptions callbacks receive (and pass to
   PetscOptionsHeadBegin()): a pointer to a struct in both, spelled
   `PetscOptionItems *` in 3.18 and `PetscOptionItems` (a pointer typedef)
   in 3.25. */
using PetscDiagOptionItems = PetscDiagSignature_<decltype(&PetscOptionsBegin_Private)>::arg<0>;
static_assert(std::is_pointer_v<PetscDiagOptionItems>, "PetscOptionItems is expected to be passed by pointer in every supported PETSc");

/* PetscErrorMessage(): the specific message comes back through `char **` in
   3.18 and `const char **` in 3.25. */
static inline PetscErrorCode PetscDiagErrorMessage(PetscErrorCode err, const char **text, const char **specific)
{
  using Specific = std::remove_pointer_t<PetscDiagSignature_<decltype(&PetscErrorMessage)>::arg<2>>;
  Specific       s = NULL;
  PetscErrorCode ierr;

  ierr      = PetscErrorMessage(err, text, &s);
  *specific = s;
  return ierr;
}

/* MatMissingDiagonal() and its MatOps entry were removed in 3.25. */
#if PETSC_VERSION_LT(3, 25, 0)
  #define PDIAG_HAVE_MAT_MISSING_DIAGONAL 1
#else
  #define PDIAG_HAVE_MAT_MISSING_DIAGONAL 0
#endif

/* Sets ops->missingdiagonal where the entry exists (PETSc < 3.25). A
   template, so that this header needs no petsc/private/matimpl.h. */
template <class MatOps, class Fn>
static inline void MatOpsSetMissingDiagonal_Compat(MatOps *ops, Fn fn)
{
#if PDIAG_HAVE_MAT_MISSING_DIAGONAL
  ops->missingdiagonal = fn;
#else
  (void)ops;
  (void)fn;
#endif
}

/* Mat_Product's destroy callback. 3.18 calls it with the product's data;
   3.25 declares it a PetscCtxDestroyFn and calls it with the address of
   that pointer (MatProductClear: destroy(&product->data)). Both are
   `PetscErrorCode (*)(void *)`, so the compiler cannot tell them apart.
   MatProductDataDestroy_Compat<Fn> turns Fn(data) into the callback this
   PETSc expects. The release of the change is not in PETSc's change log;
   3.25 is the release whose notes move MatShell's product destroy to
   PetscCtxDestroyFn (tested: 3.18.5 and 3.25.4; test_products fails at
   once if a release in between differs). */
template <PetscErrorCode (*DestroyData)(void *)>
static PetscErrorCode MatProductDataDestroy_Compat(void *arg)
{
#if PETSC_VERSION_LT(3, 25, 0)
  return DestroyData(arg);
#else
  void **data = (void **)arg;
  void  *d    = *data;

  *data = NULL;
  return DestroyData(d);
#endif
}
