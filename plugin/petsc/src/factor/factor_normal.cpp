/* QR of a normal matrix (MatCreateNormal/MatCreateNormalHermitian) of a
   diag matrix: PCQR on the operator of LSQR and CGLS (ksp ex27 -pc_type
   qr, bjacobi's sub-QR). PETSc's SPQR takes the matrix inside the normal
   matrix as seqaij without checking its type: with diag inside it read
   diag's data as aij's and corrupted the heap. The registrations of every
   package for the normal types are wrapped: a normal matrix of diag is
   factored as the normal matrix of diag's aij copy (companion/companion.cpp),
   refreshed before each symbolic and numeric phase; other normal matrices
   go to the package as before. */
#include "core/mat_diag.hpp"

#include <array>

namespace {

const char *const kNormalTypes[] = {MATNORMAL, MATNORMALHERMITIAN};
constexpr int     kNumNormalTypes = 2;
const char *const kNormalQRHooks  = "MatDiagNormalQRHooks";

/* The package's factory for each normal type, taken over at registration */
std::array<PetscErrorCode (*)(Mat, MatFactorType, Mat *), kNumNormalTypes> original_create{};

/* A factor of a normal matrix of diag: the diag matrix, the normal matrix of
   its aij copy the package works on, and the package's phases. */
struct NormalQRHooks {
  Mat diag       = nullptr;
  Mat normal_aij = nullptr;
  PetscErrorCode (*symbolic)(Mat, Mat, IS, const MatFactorInfo *) = nullptr;
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *)      = nullptr;
  ~NormalQRHooks()
  {
    MatDestroy(&normal_aij);
    MatDestroy(&diag);
  }
};

/* The diag matrix inside the normal matrix N, or NULL. */
PetscErrorCode InnerDiag(Mat N, PetscBool hermitian, Mat *D)
{
  Mat       inner;
  PetscBool isdiag;

  PetscFunctionBegin;
  *D = NULL;
  if (hermitian) PetscCall(MatNormalHermitianGetMat(N, &inner));
  else PetscCall(MatNormalGetMat(N, &inner));
  PetscCall(MatDiagIsDiag_Private(inner, &isdiag));
  if (isdiag) *D = inner;
  PetscFunctionReturn(0);
}

PetscErrorCode GetHooks(Mat F, NormalQRHooks **h)
{
  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)F, kNormalQRHooks, h));
  PetscCheck(*h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: a normal-matrix factor without its hooks");
  PetscFunctionReturn(0);
}

/* the aij copy's values brought up to date (the normal matrix holds the copy's handle) */
PetscErrorCode Refresh(NormalQRHooks *h, const char *purpose)
{
  Mat C;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(h->diag, purpose, &C));
  PetscFunctionReturn(0);
}

PetscErrorCode QRNumeric_NormalDiag(Mat F, Mat, const MatFactorInfo *info)
{
  NormalQRHooks *h;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(Refresh(h, "the QR factorization of its normal matrix"));
  PetscCall((*h->numeric)(F, h->normal_aij, info));
  PetscFunctionReturn(0);
}

PetscErrorCode QRSymbolic_NormalDiag(Mat F, Mat, IS col, const MatFactorInfo *info)
{
  NormalQRHooks *h;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(Refresh(h, "the QR factorization of its normal matrix"));
  PetscCall((*h->symbolic)(F, h->normal_aij, col, info));
  PetscErrorCode (*numeric)(Mat, Mat, const MatFactorInfo *) = NULL;
  PetscCall(PetscObjectQueryFunction((PetscObject)F, "MatQRFactorNumeric_C", &numeric));
  if (numeric && numeric != QRNumeric_NormalDiag) {
    h->numeric = numeric;
    PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatQRFactorNumeric_C", QRNumeric_NormalDiag));
  }
  PetscFunctionReturn(0);
}

/* T: the type registered; PETSc's lookup matches type names by prefix, so
   a normalh matrix may come to MATNORMAL's factory: the matrix says which */
template <int T>
PetscErrorCode GetFactor_Normal(Mat N, MatFactorType ftype, Mat *F)
{
  PetscBool hermitian;
  Mat       D, C, NC;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)N, MATNORMALHERMITIAN, &hermitian));
  PetscCall(InnerDiag(N, hermitian, &D));
  if (!D) {
    PetscCall((*original_create[T])(N, ftype, F));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagGetCompanion_Private(D, "the QR factorization of its normal matrix", &C));
  if (hermitian) PetscCall(MatCreateNormalHermitian(C, &NC));
  else PetscCall(MatCreateNormal(C, &NC));
  {
    PetscErrorCode ierr = (*original_create[T])(NC, ftype, F);
    if (ierr || !*F) PetscCall(MatDestroy(&NC));
    PetscCall(ierr);
  }
  if (!*F) PetscFunctionReturn(0);
  NormalQRHooks *h;
  PetscCallCXX(h = new NormalQRHooks());
  h->normal_aij = NC;
  h->diag       = D;
  PetscCall(PetscObjectReference((PetscObject)D));
  PetscCall(PetscObjectQueryFunction((PetscObject)*F, "MatQRFactorSymbolic_C", &h->symbolic));
  if (h->symbolic) PetscCall(PetscObjectComposeFunction((PetscObject)*F, "MatQRFactorSymbolic_C", QRSymbolic_NormalDiag));
  PetscCall(PetscDiagComposeObject((PetscObject)*F, kNormalQRHooks, h));
  PetscFunctionReturn(0);
}

const std::array<PetscErrorCode (*)(Mat, MatFactorType, Mat *), kNumNormalTypes> kWrappers = {GetFactor_Normal<0>, GetFactor_Normal<1>};

} // namespace

/* Wraps the QR factories this PETSc registered for the normal matrix types
   (SPQR when PETSc has SuiteSparse) by the ones above. The packages are
   those diag registers for its own types (MatDiagRegisterSolverTypes_Private). */
PetscErrorCode MatDiagRegisterNormalFactors_Private(const char *const packages[], int npackages)
{
  PetscFunctionBegin;
  for (int p = 0; p < npackages; p++) {
    for (int t = 0; t < kNumNormalTypes; t++) {
      PetscBool found_package, found_type;
      PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
      PetscCall(MatSolverTypeGet(packages[p], kNormalTypes[t], MAT_FACTOR_QR, &found_package, &found_type, &create));
      if (!create || create == kWrappers[t]) continue;
      if (original_create[t] && original_create[t] != create) continue; /* one package per type (PETSc has only SPQR) */
      original_create[t] = create;
      PetscCall(MatSolverTypeRegister(packages[p], kNormalTypes[t], MAT_FACTOR_QR, kWrappers[t]));
    }
  }
  PetscFunctionReturn(0);
}
