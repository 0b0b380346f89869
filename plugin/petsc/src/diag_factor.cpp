/* Factorizations of diag matrices: MatGetFactor for seqdiag and mpidiag
   (and their CUDA variants) with every solver package this PETSc has for
   aij, registered with MatSolverTypeRegister so that PCLU, PCILU, PCCHOLESKY,
   PCICC, -pc_factor_mat_solver_type and PCGetDefaultType (ILU/ICC on one
   process, bjacobi + ILU in parallel) find them as they find aij's.

   The factor matrix is the package's own factor of the diag matrix's aij
   companion (diag_companion.cpp), so its solves, its view, its options
   (-mat_mumps_icntl_*, ...) and its composed functions (MatMumpsSetIcntl,
   ...) are the package's. Only the symbolic and numeric phases are wrapped:
   PETSc calls them with the diag matrix, and they pass the companion,
   refreshed with the diag matrix's values, to the package. A numeric
   refactorization with new values therefore reuses the symbolic phase, as
   with aij.

   ILU(0) and ICC(0) with the natural ordering ("petsc" package, one
   process) run natively on the diagonals instead (diag_factor_native.cpp):
   the factors keep the matrix's stored diagonals. */
#include "diag_impl.hpp"

#include <array>
#include <utility>

namespace {

/* The solver packages PETSc may have for aij (those this PETSc lacks are
   skipped at registration). */
const char *const kSolverPackages[] = {"petsc", "mumps", "superlu", "superlu_dist", "umfpack", "cholmod", "klu", "pastix", "mkl_pardiso", "mkl_cpardiso", "strumpack", "spqr", "lusol", "essl", "matlab", "bas", "scalapack", "elemental", "htool", "kokkos"};
constexpr int     kNumPackages      = (int)(sizeof(kSolverPackages) / sizeof(kSolverPackages[0]));

const char *const kHooksName = "MatDiagFactorHooks";

/* The package's own symbolic and numeric functions of a factor whose entries
   PETSc calls with the diag matrix. */
struct FactorHooks {
  PetscErrorCode (*lu_symbolic)(Mat, Mat, IS, IS, const MatFactorInfo *)    = nullptr;
  PetscErrorCode (*ilu_symbolic)(Mat, Mat, IS, IS, const MatFactorInfo *)   = nullptr;
  PetscErrorCode (*cholesky_symbolic)(Mat, Mat, IS, const MatFactorInfo *)  = nullptr;
  PetscErrorCode (*icc_symbolic)(Mat, Mat, IS, const MatFactorInfo *)       = nullptr;
  PetscErrorCode (*lu_numeric)(Mat, Mat, const MatFactorInfo *)             = nullptr;
  PetscErrorCode (*cholesky_numeric)(Mat, Mat, const MatFactorInfo *)       = nullptr;
  PetscErrorCode (*qr_symbolic)(Mat, Mat, IS, const MatFactorInfo *)        = nullptr;
  PetscErrorCode (*qr_numeric)(Mat, Mat, const MatFactorInfo *)             = nullptr;
  const char *package                                                       = nullptr;
  PetscInt    companion_build = -1; /* Mat_Diag::companion_builds at the symbolic phase */
};

PetscErrorCode GetHooks(Mat F, FactorHooks **h)
{
  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)F, kHooksName, h));
  PetscCheck(*h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: factor matrix without its package's functions");
  PetscFunctionReturn(0);
}

/* ---- numeric phases: the package's, on the refreshed companion ----------- */

/* The numeric phase factors the aij copy the symbolic phase analysed. A
   copy rebuilt since (its entries moved: a value became nonzero where the
   matrix had no entry, which the preconditioner did not see as a new
   nonzero pattern) would be factored on the old structure: stop instead. */
PetscErrorCode CheckSameCompanion(Mat A, const FactorHooks *h)
{
  PetscFunctionBegin;
  PetscCheck(((Mat_Diag *)A->data)->companion_builds == h->companion_build, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "diag: the matrix's entries changed place since its symbolic factorization (a value became nonzero where it had no entry): factor it again from the symbolic phase");
  PetscFunctionReturn(0);
}

PetscErrorCode LUNumeric_Diag(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagGetCompanion_Private(A, "the numeric factorization", &C));
  PetscCall(CheckSameCompanion(A, h));
  PetscCall((*h->lu_numeric)(F, C, info));
  PetscFunctionReturn(0);
}

PetscErrorCode CholeskyNumeric_Diag(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagGetCompanion_Private(A, "the numeric factorization", &C));
  PetscCall(CheckSameCompanion(A, h));
  PetscCall((*h->cholesky_numeric)(F, C, info));
  PetscFunctionReturn(0);
}

PetscErrorCode QRNumeric_Diag(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagGetCompanion_Private(A, "the numeric factorization", &C));
  PetscCall(CheckSameCompanion(A, h));
  PetscCall((*h->qr_numeric)(F, C, info));
  PetscFunctionReturn(0);
}

/* After the package's symbolic phase has installed its numeric phase: keep
   it, and put the wrapper in its place. */
void TakeNumeric(Mat F, Mat A, FactorHooks *h)
{
  h->companion_build = ((Mat_Diag *)A->data)->companion_builds;
  if (F->ops->lufactornumeric && F->ops->lufactornumeric != LUNumeric_Diag) {
    h->lu_numeric            = F->ops->lufactornumeric;
    F->ops->lufactornumeric = LUNumeric_Diag;
  }
  if (F->ops->choleskyfactornumeric && F->ops->choleskyfactornumeric != CholeskyNumeric_Diag) {
    h->cholesky_numeric            = F->ops->choleskyfactornumeric;
    F->ops->choleskyfactornumeric = CholeskyNumeric_Diag;
  }
}

/* ---- symbolic phases ------------------------------------------------------ */

PetscErrorCode LUSymbolic_Diag(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagGetCompanion_Private(A, "the LU factorization", &C));
  PetscCall((*h->lu_symbolic)(F, C, row, col, info));
  TakeNumeric(F, A, h);
  PetscFunctionReturn(0);
}

PetscErrorCode ILUSymbolic_Diag(Mat F, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;
  PetscBool    native;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagFactorNativeApplies_Private(F, A, h->package, MAT_FACTOR_ILU, row, col, info, &native));
  if (native) {
    PetscCall(MatDiagFactorNativeSymbolic_Private(F, A, MAT_FACTOR_ILU, info));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagGetCompanion_Private(A, "the ILU factorization", &C));
  PetscCall((*h->ilu_symbolic)(F, C, row, col, info));
  TakeNumeric(F, A, h);
  PetscFunctionReturn(0);
}

PetscErrorCode CholeskySymbolic_Diag(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagGetCompanion_Private(A, "the Cholesky factorization", &C));
  PetscCall((*h->cholesky_symbolic)(F, C, perm, info));
  TakeNumeric(F, A, h);
  PetscFunctionReturn(0);
}

PetscErrorCode ICCSymbolic_Diag(Mat F, Mat A, IS perm, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;
  PetscBool    native;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagFactorNativeApplies_Private(F, A, h->package, MAT_FACTOR_ICC, perm, perm, info, &native));
  if (native) {
    PetscCall(MatDiagFactorNativeSymbolic_Private(F, A, MAT_FACTOR_ICC, info));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagGetCompanion_Private(A, "the ICC factorization", &C));
  PetscCall((*h->icc_symbolic)(F, C, perm, info));
  TakeNumeric(F, A, h);
  PetscFunctionReturn(0);
}

PetscErrorCode QRSymbolic_Diag(Mat F, Mat A, IS col, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(MatDiagGetCompanion_Private(A, "the QR factorization", &C));
  PetscCall((*h->qr_symbolic)(F, C, col, info));
  h->companion_build = ((Mat_Diag *)A->data)->companion_builds;
  { /* QR's numeric phase is composed, not in the ops table */
    PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatQRFactorNumeric_C", &numeric));
    if (numeric && numeric != QRNumeric_Diag) {
      h->qr_numeric = numeric;
      PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatQRFactorNumeric_C", QRNumeric_Diag));
    }
  }
  PetscFunctionReturn(0);
}

/* MatGetFactor for a diag matrix and the named package: the package's
   factor of the companion, its symbolic phases wrapped. */
PetscErrorCode GetFactor_Diag(Mat A, const char *package, MatFactorType ftype, Mat *F)
{
  Mat          C;
  FactorHooks *h;

  PetscFunctionBegin;
  if (A->assembled) PetscCall(MatDiagGetCompanion_Private(A, "a factorization", &C));
  else { /* PCs may ask for the factor before the values are set: the package needs only the sizes now */
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &C));
    PetscCall(MatSetSizes(C, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatSetBlockSizesFromMats(C, A, A));
    PetscCall(MatSetType(C, MATAIJ));
    PetscCall(MatSetUp(C));
  }
  {
    PetscErrorCode ierr = MatGetFactor(C, package, ftype, F);
    if (!A->assembled) PetscCall(MatDestroy(&C));
    PetscCall(ierr);
  }
  PetscCallCXX(h = new FactorHooks());
  h->package = package;
  struct _MatOps *ops = (*F)->ops;
  if (ops->lufactorsymbolic) std::swap(h->lu_symbolic, ops->lufactorsymbolic), ops->lufactorsymbolic = LUSymbolic_Diag;
  if (ops->ilufactorsymbolic) std::swap(h->ilu_symbolic, ops->ilufactorsymbolic), ops->ilufactorsymbolic = ILUSymbolic_Diag;
  if (ops->choleskyfactorsymbolic) std::swap(h->cholesky_symbolic, ops->choleskyfactorsymbolic), ops->choleskyfactorsymbolic = CholeskySymbolic_Diag;
  if (ops->iccfactorsymbolic) std::swap(h->icc_symbolic, ops->iccfactorsymbolic), ops->iccfactorsymbolic = ICCSymbolic_Diag;
  { /* QR's symbolic phase is composed, not in the ops table */
    PetscErrorCode (*qr)(Mat, Mat, IS, const MatFactorInfo *) = NULL;
    PetscCall(PetscObjectQueryFunction((PetscObject)*F, "MatQRFactorSymbolic_C", &qr));
    if (qr) {
      h->qr_symbolic = qr;
      PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatQRFactorSymbolic_C", QRSymbolic_Diag));
    }
  }
  PetscCall(PetscDiagComposeObject((PetscObject)*F, kHooksName, h));
  PetscFunctionReturn(0);
}

/* One MatGetFactor function per package: the registry passes no name. */
template <int I>
PetscErrorCode GetFactorSlot(Mat A, MatFactorType ftype, Mat *F)
{
  return GetFactor_Diag(A, kSolverPackages[I], ftype, F);
}

template <std::size_t... I>
constexpr auto MakeSlots(std::index_sequence<I...>)
{
  return std::array<PetscErrorCode (*)(Mat, MatFactorType, Mat *), sizeof...(I)>{GetFactorSlot<(int)I>...};
}
const auto kSlots = MakeSlots(std::make_index_sequence<kNumPackages>{});

} // namespace

/* Registers, for every package and factor type this PETSc offers for seqaij
   (mpiaij), the same for seqdiag (mpidiag). PETSc's search without a
   package name takes the first registered package, so the defaults are the
   same as aij's. */
PetscErrorCode MatDiagRegisterSolverTypes_Private(void)
{
  const char *const aij[2]  = {MATSEQAIJ, MATMPIAIJ};
  const char *const diag[2] = {MATSEQDIAG, MATMPIDIAG};

  PetscFunctionBegin;
  for (int p = 0; p < kNumPackages; p++) {
    for (int t = 0; t < 2; t++) {
      for (int f = (int)MAT_FACTOR_LU; f < (int)MAT_FACTOR_NUM_TYPES; f++) {
        PetscBool found_package, found_type;
        PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
        PetscCall(MatSolverTypeGet(kSolverPackages[p], aij[t], (MatFactorType)f, &found_package, &found_type, &create));
        if (create) PetscCall(MatSolverTypeRegister(kSolverPackages[p], diag[t], (MatFactorType)f, kSlots[p]));
      }
    }
  }
  PetscCall(MatDiagRegisterNormalFactors_Private(kSolverPackages, kNumPackages));
  PetscFunctionReturn(0);
}
