/* PETSc components that accept only aij matrices. A few of PETSc's PCs
   and colorings check the type of their matrix against aij by name instead
   of asking for an operation: PCML ("ML can only handle AIJ matrices"),
   PCMPI (the MPI linear solver server reads aij arrays directly),
   PCGAMG's classical coarsening, PCTFS, and the MatColoring types (greedy:
   "Matrix must be AIJ for greedy coloring"). With a diag matrix they would
   stop where aij works. For these the plugin wraps the component's work
   function: while it runs, the component sees the diag matrix's aij
   companion (companion/companion.cpp, refreshed with the diag matrix's values),
   then its own matrix again. A PC's hierarchy then holds the aij copy (ML
   and classical AMG build their levels from it). -info reports each use.

   PCGAMG is wrapped with every coarsening: it creates its prolongators and
   coarse operators with the type of the fine operator (MatGetType), and an
   aggregation prolongator has no diagonal structure (a 33^3 Poisson's
   would need more than 10^4 diagonals), so its hierarchy must be aij, as
   aijcusparse's is aijcusparse. GAMG then gives its finest level back to
   the user's operators: smoothing and the finest residual run in diag
   kernels, the levels below are aij (aijcusparse for diagcuda, so that
   they stay on the device). ML (a CPU package) keeps its whole hierarchy
   aij: its results then equal aij's to the last digit. */
#include "core/mat_diag.hpp"
#include "interpose/registry.hpp"

#include <utility>

#include <petsc/private/pcimpl.h>
#include <petsc/private/pcmgimpl.h>
#include <petsc/private/matimpl.h>

namespace {

/* A PC type whose set-up gets the aij companion of a diag operator. */
struct AijOnlyPC {
  bool        multigrid;               /* a PCMG whose finest level goes back to the diag operators */
  bool        operator_prefix = false; /* names what it builds after its operator's options prefix (PCMPI's server matrix): the aij copy carries the diag operator's while the PC sets up */
};

/* ml, tfs, gamg, mpi: the order of the wraps below */
const AijOnlyPC kAijOnly[] = {{false}, {false}, {true}, {false, true}};

/* the set-up wrap of kAijOnly[I]: the PC type's name, PETSc's set-up (defined below, with the wrapped set-ups) */
DiagPCSetUpWrap &WrapOf(int I);

/* The aij operator a wrapped PC is set up with: the companion, or for a
   multigrid PC on a diag operator that computes on the GPU (diagcuda, or
   diag with CUDA vectors) an aijcusparse copy of it (kept on the PC until
   its next set-up), so that the hierarchy built from it lives on the
   device. The others (TFS, PCMPI, ML) read aij's host arrays: the host aij. */
PetscErrorCode AijOperator(PC pc, Mat pmat, const char *purpose, bool multigrid, Mat *C)
{
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(pmat, purpose, C));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pmat, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if ((cuda || MatDiagWantsDevice_Private(pmat)) && multigrid) {
    Mat D;
    PetscCall(MatConvert(*C, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &D));
    /* MatConvert (MatDuplicate) leaves the near null space behind: GAMG
       would aggregate elasticity with constant modes only (a coarse block
       size of 3 instead of 6 for 3D elasticity's rigid-body modes) */
    PetscCall(MatDiagSyncProperties_Private(pmat, D));
    PetscCall(PetscObjectCompose((PetscObject)pc, "MatDiag_aijcusparse_operator", (PetscObject)D));
    PetscCall(MatDestroy(&D)); /* the PC holds it */
    PetscCall(PetscObjectQuery((PetscObject)pc, "MatDiag_aijcusparse_operator", (PetscObject *)C));
  }
  PetscFunctionReturn(0);
}

/* Gives the finest level of the multigrid PC pc the operators A, P: its
   smoothers, and the residual matrix PCMG keeps once it has applied.
   same_operator: A and P hold the operator the smoothers were just set up
   with (in another storage), so a smoother PC that estimated its spectrum
   (PCCHEBYJACOBI) keeps the estimate. */
PetscErrorCode SetFinestOperators(PC pc, Mat A, Mat P, bool same_operator)
{
  PC_MG         *mg = (PC_MG *)pc->data;
  PC_MG_Levels  *finest;
  PetscInt       levels;

  PetscFunctionBegin;
  PetscCall(PCMGGetLevels(pc, &levels));
  if (levels < 1 || !mg->levels) PetscFunctionReturn(0);
  finest = mg->levels[levels - 1];
  if (same_operator) {
    PC spc;
    PetscCall(KSPGetPC(finest->smoothd, &spc));
    PetscCall(MatDiagChebyJacobiKeepInterval_Private(spc));
    if (finest->smoothu && finest->smoothu != finest->smoothd) {
      PetscCall(KSPGetPC(finest->smoothu, &spc));
      PetscCall(MatDiagChebyJacobiKeepInterval_Private(spc));
    }
  }
  PetscCall(KSPSetOperators(finest->smoothd, A, P));
  if (finest->smoothu && finest->smoothu != finest->smoothd) PetscCall(KSPSetOperators(finest->smoothu, A, P));
  if (finest->A && finest->A != A) {
    PetscCall(PetscObjectReference((PetscObject)A));
    PetscCall(MatDestroy(&finest->A));
    finest->A = A;
  }
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode SetUp_Wrapped(PC pc)
{
  const AijOnlyPC &w     = kAijOnly[I];
  const char      *type  = WrapOf(I).type;
  PetscErrorCode (*setup)(PC) = WrapOf(I).setup;
  Mat              mat   = pc->mat, pmat = pc->pmat, C;
  PetscBool        diag  = PETSC_FALSE;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  PetscCall(MatDiagIsDiag_Private(pmat, &diag));
  if (!diag) {
    PetscCall((*setup)(pc));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(pc, "diag: PC %s is set up on the operator's aij copy%s\n", type, w.multigrid ? " (its finest level then smooths with the diag operator)" : " (it accepts only aij)"));
  PetscCall(AijOperator(pc, pmat, type, w.multigrid, &C));
  /* a set-up that reuses the hierarchy reads the finest operator from the
     finest smoother: it must see the aij operator it was built from */
  if (w.multigrid && pc->setupcalled) PetscCall(SetFinestOperators(pc, mat == pmat ? C : mat, C, false));
  char *copy_prefix = NULL;
  if (w.operator_prefix) {
    const char *prefix;
    PetscCall(MatGetOptionsPrefix(C, &prefix));
    PetscCall(PetscStrallocpy(prefix, &copy_prefix));
    PetscCall(MatGetOptionsPrefix(pmat, &prefix));
    PetscCall(MatSetOptionsPrefix(C, prefix));
  }
  pc->pmat = C;
  if (mat == pmat) pc->mat = C;
  ierr     = (*setup)(pc);
  pc->pmat = pmat;
  pc->mat  = mat;
  if (w.operator_prefix) {
    PetscCall(MatSetOptionsPrefix(C, copy_prefix));
    PetscCall(PetscFree(copy_prefix));
  }
  PetscCall(ierr);
  if (w.multigrid) PetscCall(SetFinestOperators(pc, mat, pmat, mat == pmat));
  PetscFunctionReturn(0);
}

DiagPCSetUpWrap ml_wrap{"ml", SetUp_Wrapped<0>}, tfs_wrap{"tfs", SetUp_Wrapped<1>}, gamg_wrap{"gamg", SetUp_Wrapped<2>}, mpi_wrap{"mpi", SetUp_Wrapped<3>};

DiagPCSetUpWrap &WrapOf(int I)
{
  DiagPCSetUpWrap *const wraps[] = {&ml_wrap, &tfs_wrap, &gamg_wrap, &mpi_wrap};
  return *wraps[I];
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
  PetscCall(MatDiagIsDiag_Private(mat, &diag));
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
  return DiagInterpose(MatColoringList, kColorings[I].type, ColoringCreate_Wrapped<I>, &kColorings[I].create, MatColoringRegister);
}

template <std::size_t... I>
PetscErrorCode WrapAll(std::index_sequence<I...>)
{
  PetscErrorCode ierr = 0;
  ((ierr = ierr ? ierr : WrapColoring<(int)I>()), ...);
  return ierr;
}

/* ---- orderings ------------------------------------------------------------ */

/* MatGetOrdering() of an mpiaij matrix orders each process's diagonal block
   and shifts it to global numbers (a type test inside MatGetOrdering); any
   other parallel type reaches the ordering function itself, which works on
   the local rows and returns local numbers: not a permutation of the
   parallel matrix (MatPermute then fails). The orderings are wrapped so that
   a parallel diag matrix is ordered as its aij copy is. */
struct WrappedOrdering {
  const char *type;
  PetscErrorCode (*order)(Mat, MatOrderingType, IS *, IS *) = nullptr;
};

WrappedOrdering kOrderings[] = {{MATORDERINGNATURAL}, {MATORDERINGND}, {MATORDERING1WD}, {MATORDERINGRCM}, {MATORDERINGQMD}, {MATORDERINGROWLENGTH}, {MATORDERINGWBM}, {MATORDERINGSPECTRAL}, {MATORDERINGAMD}, {MATORDERINGMETISND}, {MATORDERINGNATURAL_OR_ND}};

template <int I>
PetscErrorCode Ordering_Wrapped(Mat mat, MatOrderingType type, IS *rperm, IS *cperm)
{
  PetscBool   diag;
  PetscMPIInt size;
  Mat         C;

  PetscFunctionBegin;
  PetscCall(MatDiagIsDiag_Private(mat, &diag));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)mat), &size));
  if (!diag || size == 1) {
    PetscCall((*kOrderings[I].order)(mat, type, rperm, cperm));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagGetCompanion_Private(mat, "MatGetOrdering", &C));
  PetscCall(MatGetOrdering(C, type, rperm, cperm)); /* mpiaij: the diagonal blocks', in global numbers */
  PetscFunctionReturn(0);
}

template <int I>
PetscErrorCode WrapOrdering()
{
  return DiagInterpose(MatOrderingList, kOrderings[I].type, Ordering_Wrapped<I>, &kOrderings[I].order, MatOrderingRegister);
}

template <std::size_t... I>
PetscErrorCode WrapAllOrderings(std::index_sequence<I...>)
{
  PetscErrorCode ierr = 0;
  ((ierr = ierr ? ierr : WrapOrdering<(int)I>()), ...);
  return ierr;
}

} // namespace

/* Wraps the aij-only PCs and colorings, and the orderings, this PETSc has. */
PetscErrorCode MatDiagRegisterPCs_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(MatColoringRegisterAll());
  PetscCall(DiagPCRegisterWrapped<ml_wrap>());
  PetscCall(DiagPCRegisterWrapped<tfs_wrap>());
  PetscCall(DiagPCRegisterWrapped<gamg_wrap>());
  PetscCall(DiagPCRegisterWrapped<mpi_wrap>());
  PetscCall(WrapAll(std::make_index_sequence<sizeof(kColorings) / sizeof(kColorings[0])>{}));
  PetscCall(MatOrderingRegisterAll());
  PetscCall(WrapAllOrderings(std::make_index_sequence<sizeof(kOrderings) / sizeof(kOrderings[0])>{}));
  PetscFunctionReturn(0);
}
