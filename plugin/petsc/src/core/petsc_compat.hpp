// The differences between the PETSc releases petsc-diag builds against
// (3.18 to 3.25), in one place (docs/design.md, "PETSc versions"). The code is written against the
// current API; each entry maps it onto the older releases. Included by the
// plugin (through core/mat_diag.hpp) and by the tests, solvers and benchmarks,
// so it needs only PETSc's public headers.
#pragma once

#include <petscmat.h>
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

/* MatGetRowSumAbs() and its MatOps entry getrowsumabs came with 3.21
   (PCJACOBI's -pc_jacobi_type rowl1 uses it). */
#if PETSC_VERSION_GE(3, 21, 0)
  #define PDIAG_HAVE_MAT_GET_ROW_SUM_ABS 1
#else
  #define PDIAG_HAVE_MAT_GET_ROW_SUM_ABS 0
#endif

/* Sets ops->getrowsumabs where the entry exists (PETSc >= 3.21). */
template <class MatOps, class Fn>
static inline void MatOpsSetGetRowSumAbs_Compat(MatOps *ops, Fn fn)
{
#if PDIAG_HAVE_MAT_GET_ROW_SUM_ABS
  ops->getrowsumabs = fn;
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

/* MatCreateGraph(): 3.18 takes (A, sym, scale, filter, graph); later
   releases add the components to keep (num_idx, index[]) before graph, and
   the MatOps entry changed with it. MatCreateGraph_Compat takes the new
   form and calls whichever this PETSc has (num_idx 0 = the old behaviour). */
template <class Fn>
static inline PetscErrorCode MatCreateGraph_Call_(Fn fn, Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph)
{
  if constexpr (std::is_invocable_v<Fn, Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt *, Mat *>) return fn(A, sym, scale, filter, num_idx, index, graph);
  else {
    (void)num_idx;
    (void)index;
    return fn(A, sym, scale, filter, graph);
  }
}
static inline PetscErrorCode MatCreateGraph_Compat(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph)
{
  return MatCreateGraph_Call_(&MatCreateGraph, A, sym, scale, filter, num_idx, index, graph);
}

/* A MatOps creategraph entry of the form this PETSc declares, from one
   implementation F taking the new form: MatCreateGraphOp_Compat<decltype(ops->creategraph), F>::call. */
template <class Op, PetscErrorCode (*F)(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *)>
struct MatCreateGraphOp_Compat;
template <PetscErrorCode (*F)(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *)>
struct MatCreateGraphOp_Compat<PetscErrorCode (*)(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *), F> {
  static PetscErrorCode call(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt num_idx, PetscInt index[], Mat *graph) { return F(A, sym, scale, filter, num_idx, index, graph); }
};
template <PetscErrorCode (*F)(Mat, PetscBool, PetscBool, PetscReal, PetscInt, PetscInt[], Mat *)>
struct MatCreateGraphOp_Compat<PetscErrorCode (*)(Mat, PetscBool, PetscBool, PetscReal, Mat *), F> {
  static PetscErrorCode call(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, Mat *graph) { return F(A, sym, scale, filter, 0, NULL, graph); }
};

/* A C++ object kept with a PETSc object (a PetscContainer composed under
   `name`), deleted with it. The container's destroy callback takes the
   context in 3.18 and its address since 3.23 (PetscContainerSetCtxDestroy). */
template <class T>
static inline PetscErrorCode PetscDiagComposeObject(PetscObject obj, const char *name, T *ptr)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, ptr));
#if PETSC_VERSION_LT(3, 23, 0)
  PetscCall(PetscContainerSetUserDestroy(c, [](void *p) -> PetscErrorCode {
    delete (T *)p;
    return 0;
  }));
#else
  PetscCall(PetscContainerSetCtxDestroy(c, [](void *pp) -> PetscErrorCode { /* pp: the address of the context (PetscCtxRt) */
    void **p = (void **)pp;
    delete (T *)*p;
    *p = NULL;
    return 0;
  }));
#endif
  PetscCall(PetscObjectCompose(obj, name, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(0);
}

/* The object PetscDiagComposeObject kept under `name`, or NULL. */
template <class T>
static inline PetscErrorCode PetscDiagQueryObject(PetscObject obj, const char *name, T **ptr)
{
  PetscContainer c;

  PetscFunctionBegin;
  *ptr = NULL;
  PetscCall(PetscObjectQuery(obj, name, (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)ptr));
  PetscFunctionReturn(0);
}
