/* Factorizations of diag matrices: MatGetFactor for seqdiag and mpidiag
   (and their CUDA variants) with every solver package this PETSc has for
   aij, registered with MatSolverTypeRegister so that PCLU, PCILU, PCCHOLESKY,
   PCICC, -pc_factor_mat_solver_type and PCGetDefaultType (ILU/ICC on one
   process, bjacobi + ILU in parallel) find them as they find aij's.

   The factor matrix is the package's own factor of the diag matrix's aij
   companion (companion/companion.cpp), so its solves, its view, its options
   (-mat_mumps_icntl_*, ...) and its composed functions (MatMumpsSetIcntl,
   ...) are the package's. Only the symbolic and numeric phases are wrapped:
   PETSc calls them with the diag matrix, and they pass the companion,
   refreshed with the diag matrix's values, to the package. A numeric
   refactorization with new values therefore reuses the symbolic phase, as
   with aij.

   ILU(0) and ICC(0) with the natural ordering ("petsc" package, one
   process) run natively on the diagonals instead (factor/factor_native.cpp):
   the factors keep the matrix's stored diagonals.

   On the GPU (a sequential diag matrix with CUDA vectors), LU and Cholesky
   of the default package solve on the device, so that PCMG's coarse solve
   copies no vector to the host: an LU of at most
   -mat_diag_dense_factor_max rows (default: a dense factor of 256 MiB,
   5792 rows) is factored densely with cuSOLVER (PETSc's "cuda" package on
   a dense copy) and solved by its inverse (FormInverse): PCMG's coarse
   grids, whose sparse triangular solves are sequences of small levels,
   solve faster as one dense product; a larger
   one as aijcusparse's default, cuSPARSE's factor ("cusparse" package) of
   an aijcusparse copy. -mat_diag_device_lu false or MatBindToCPU()
   keep PETSc's host factor; "cusparse" can also be named
   (-pc_factor_mat_solver_type cusparse). */
#include "core/mat_diag.hpp"

#include <array>
#include <utility>

namespace {

/* The solver packages PETSc may have for aij (those this PETSc lacks are
   skipped at registration). */
const char *const kSolverPackages[] = {"petsc", "cusparse", "mumps", "superlu", "superlu_dist", "umfpack", "cholmod", "klu", "pastix", "mkl_pardiso", "mkl_cpardiso", "strumpack", "spqr", "lusol", "essl", "matlab", "bas", "scalapack", "elemental", "htool", "kokkos"};
constexpr int     kNumPackages      = (int)(sizeof(kSolverPackages) / sizeof(kSolverPackages[0]));
constexpr int     kCuSparse         = 1; /* kSolverPackages[kCuSparse] is "cusparse" */

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
  PetscInt    companion_build = -1;          /* Mat_Diag::companion_builds at the symbolic phase */
  MatType     copy_type       = nullptr; /* the package factors a copy of the companion of this type (NULL: the companion) */
  PetscInt    device_copy_build = -1;    /* the companion build that copy was made from */
  /* the dense factor's solves, while an aij factor serves them (SingularDenseToAij) */
  bool dense_saved = false;
  PetscErrorCode (*dense_solve)(Mat, Vec, Vec) = nullptr, (*dense_solve_transpose)(Mat, Vec, Vec) = nullptr;
  PetscErrorCode (*dense_matsolve)(Mat, Mat, Mat) = nullptr, (*dense_matsolve_transpose)(Mat, Mat, Mat) = nullptr;
};

const char *const kDeviceCopyName = "MatDiagFactorDeviceCopy";

PetscErrorCode GetHooks(Mat F, FactorHooks **h)
{
  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)F, kHooksName, h));
  PetscCheck(*h, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: factor matrix without its package's functions");
  PetscFunctionReturn(0);
}

/* The matrix the package factors: the companion, or its copy of
   h->copy_type (aijcusparse for cuSPARSE, whose factorization reads the
   cuSPARSE part of the matrix; dense for cuSOLVER), made again when the
   companion was rebuilt (a dense copy: at every numeric phase) and otherwise given
   the companion's current values (numeric phases; the symbolic phases read
   no values). */
PetscErrorCode FactorInput(Mat F, Mat A, FactorHooks *h, const char *purpose, PetscBool numeric, Mat *M)
{
  Mat       C, G = NULL;
  PetscBool dense;

  PetscFunctionBegin;
  PetscCall(MatDiagGetCompanion_Private(A, purpose, &C));
  *M = C;
  if (!h->copy_type) PetscFunctionReturn(0);
  PetscCall(PetscObjectQuery((PetscObject)F, kDeviceCopyName, (PetscObject *)&G));
  PetscCall(PetscStrcmp(h->copy_type, MATSEQDENSE, &dense));
  const PetscBool rebuilt = (PetscBool)(h->device_copy_build != ((Mat_Diag *)A->data)->aij.companion_builds);
  if (G && !numeric && (dense || !rebuilt)) { /* a symbolic phase reads no values (dense: the copy of MatGetFactor, sizes only) */
    *M = G;
    PetscFunctionReturn(0);
  }
  if (!G || dense || rebuilt) {
    PetscCall(MatConvert(C, h->copy_type, MAT_INITIAL_MATRIX, &G));
    PetscCall(PetscObjectCompose((PetscObject)F, kDeviceCopyName, (PetscObject)G));
    PetscCall(MatDestroy(&G)); /* F holds it */
    PetscCall(PetscObjectQuery((PetscObject)F, kDeviceCopyName, (PetscObject *)&G));
    h->device_copy_build = ((Mat_Diag *)A->data)->aij.companion_builds;
  } else PetscCall(MatDiagCopyAIJValues_Private(C, G)); /* the aijcusparse copy of the same structure: the values only */
  *M = G;
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
  PetscCheck(((Mat_Diag *)A->data)->aij.companion_builds == h->companion_build, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "diag: the matrix's entries changed place since its symbolic factorization (a value became nonzero where it had no entry): factor it again from the symbolic phase");
  PetscFunctionReturn(0);
}

/* cuSOLVER's dense factor solves one right-hand side by two triangular
   solves with one column, far below the memory bandwidth. So after the
   numeric phase the inverse is formed on the device from the factor
   (MatMatSolveTranspose with the identity: n right-hand sides at once), and
   a solve is one product with it (a dense MatMultTranspose: gemv, which
   reads it once at the bandwidth). It is kept transposed, A^-T, which is
   what MatMatSolveTranspose gives; the plain inverse would serve as well.
   The same LU, applied as its inverse. */
const char *const kInverseName = "MatDiagFactorInverseTranspose";

PetscErrorCode InverseTranspose(Mat F, Mat *inverse_transpose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, kInverseName, (PetscObject *)inverse_transpose));
  PetscCheck(*inverse_transpose, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: dense factor without its inverse");
  PetscFunctionReturn(0);
}

PetscErrorCode SolveByInverse(Mat F, Vec b, Vec x)
{
  Mat inverse_transpose;

  PetscFunctionBegin;
  PetscCall(InverseTranspose(F, &inverse_transpose));
  PetscCall(MatMultTranspose(inverse_transpose, b, x));
  PetscFunctionReturn(0);
}

PetscErrorCode SolveTransposeByInverse(Mat F, Vec b, Vec x)
{
  Mat inverse_transpose;

  PetscFunctionBegin;
  PetscCall(InverseTranspose(F, &inverse_transpose));
  PetscCall(MatMult(inverse_transpose, b, x));
  PetscFunctionReturn(0);
}

PetscErrorCode FormInverse(Mat F, const FactorHooks *h)
{
  PetscBool dense;
  Mat       identity, inverse_transpose;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(h->copy_type, MATSEQDENSE, &dense));
  if (!h->copy_type || !dense) PetscFunctionReturn(0);
  PetscCall(MatCreateDense(PETSC_COMM_SELF, F->rmap->n, F->cmap->n, F->rmap->n, F->cmap->n, NULL, &identity));
  PetscCall(MatSetType(identity, MATSEQDENSECUDA));
  PetscCall(MatZeroEntries(identity));
  PetscCall(MatShift(identity, 1.0));
  PetscCall(MatDuplicate(identity, MAT_DO_NOT_COPY_VALUES, &inverse_transpose));
  PetscCall(MatMatSolveTranspose(F, identity, inverse_transpose));
  PetscCall(MatDestroy(&identity));
  { /* one product now, so that its one-time cost (loading cuBLAS's gemv
       kernel at a process's first call) falls in the set-up, as PCMG's
       transfers' do (pc/mg.cpp), not in the first solve */
    Vec x, y;
    PetscCall(MatCreateVecs(inverse_transpose, &x, &y));
    PetscCall(VecSet(x, 0.0));
    PetscCall(MatMultTranspose(inverse_transpose, x, y));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(PetscObjectCompose((PetscObject)F, kInverseName, (PetscObject)inverse_transpose));
  PetscCall(MatDestroy(&inverse_transpose)); /* F holds it */
  F->ops->solve             = SolveByInverse;
  F->ops->solvetranspose    = SolveTransposeByInverse;
  F->ops->solveadd          = NULL; /* PETSc composes these from the solves */
  F->ops->solvetransposeadd = NULL;
  PetscCall(PetscInfo(F, "diag: the dense factor's inverse formed on the device (%" PetscInt_FMT " rows): solves are one product with it\n", F->rmap->n));
  PetscFunctionReturn(0);
}

/* The dense factor's own solves back (a refactorization that is not singular). */
void RestoreDenseSolves(Mat F, FactorHooks *h)
{
  if (!h->dense_saved) return;
  F->ops->solve             = h->dense_solve;
  F->ops->solvetranspose    = h->dense_solve_transpose;
  F->ops->matsolve          = h->dense_matsolve;
  F->ops->matsolvetranspose = h->dense_matsolve_transpose;
  h->dense_saved            = false;
}

/* the orderings PCFactor gave a dense factor's symbolic phase, for the aij factor below */
const char *const kRowOrderingName = "MatDiagFactorRowOrdering", *const kColOrderingName = "MatDiagFactorColOrdering";

/* the aij factor and its aijcusparse copy, held by F */
const char *const kAijFactorName = "MatDiagFactorAijLU", *const kAijCopyName = "MatDiagFactorAijCopy";

PetscErrorCode AijFactor(Mat F, Mat *G)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, kAijFactorName, (PetscObject *)G));
  PetscCheck(*G, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: factor without its aij factor");
  PetscFunctionReturn(0);
}

PetscErrorCode SolveByAij(Mat F, Vec b, Vec x)
{
  Mat G;

  PetscFunctionBegin;
  PetscCall(AijFactor(F, &G));
  PetscCall(MatSolve(G, b, x));
  PetscFunctionReturn(0);
}

PetscErrorCode SolveTransposeByAij(Mat F, Vec b, Vec x)
{
  Mat G;

  PetscFunctionBegin;
  PetscCall(AijFactor(F, &G));
  PetscCall(MatSolveTranspose(G, b, x));
  PetscFunctionReturn(0);
}

/* A singular matrix (the coarse grid of a Neumann problem, PCMG's coarse
   LU) factors otherwise densely: cuSOLVER pivots by rows and has no zero
   pivot, where aij's LU (no pivoting, an ordering) meets one and shifts it
   (-pc_factor_shift_type; PCMG asks for MAT_SHIFT_INBLOCKS) or stops. When
   the dense factor's smallest pivot is below info->zeropivot times its
   largest, the matrix is factored as aijcusparse factors it (cuSPARSE's
   package on an aijcusparse copy, aij's numeric phase with its shifts, the
   ordering PCFactor gave the symbolic phase), that factor is kept in F and
   F's solves go to it: the solves give aijcusparse's, where the dense
   factor's would differ (docs/compatibility.md). failed: the dense numeric
   phase stopped (an exact zero pivot). */
PetscErrorCode SingularDenseToAij(Mat F, Mat A, FactorHooks *h, const MatFactorInfo *info, PetscBool failed, PetscBool *taken)
{
  PetscReal smallest = 0, largest = 0;
  Mat       C, copy = NULL, G = NULL;

  PetscFunctionBegin;
  *taken = PETSC_FALSE;
  if (!failed) {
    if (!F->rmap->n) PetscFunctionReturn(0); /* no pivots: nothing singular */
    PetscCall(MatDiagDeviceCall(dense_factor_pivots, F, &smallest, &largest));
    if (smallest > info->zeropivot * largest) PetscFunctionReturn(0);
  }
  PetscCall(MatDiagGetCompanion_Private(A, "the numeric factorization", &C)); /* the aij copy (the dense one was factored) */
  PetscCall(PetscInfo(F, "diag: the dense LU %s (a singular matrix): factored as aijcusparse factors it\n", failed ? "met a zero pivot" : "has a pivot below the zero pivot tolerance times its largest"));
  PetscCall(PetscInfo(F, "diag: dense pivots: smallest %g, largest %g\n", (double)smallest, (double)largest));
  PetscCall(PetscObjectQuery((PetscObject)F, kAijCopyName, (PetscObject *)&copy));
  PetscCall(PetscObjectQuery((PetscObject)F, kAijFactorName, (PetscObject *)&G));
  if (!copy) {
    IS r = NULL, c = NULL;
    PetscCall(MatConvert(C, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &copy));
    PetscCall(MatGetFactor(copy, MATSOLVERCUSPARSE, MAT_FACTOR_LU, &G));
    PetscCall(PetscObjectQuery((PetscObject)F, kRowOrderingName, (PetscObject *)&r));
    PetscCall(PetscObjectQuery((PetscObject)F, kColOrderingName, (PetscObject *)&c));
    if (r && c) PetscCall(MatLUFactorSymbolic(G, copy, r, c, info));
    else { /* no ordering recorded: the package's preferred one */
      MatOrderingType ordering;
      PetscCall(MatFactorGetPreferredOrdering(G, MAT_FACTOR_LU, &ordering));
      PetscCall(MatGetOrdering(copy, ordering, &r, &c));
      PetscCall(MatLUFactorSymbolic(G, copy, r, c, info));
      PetscCall(ISDestroy(&r));
      PetscCall(ISDestroy(&c));
    }
    PetscCall(PetscObjectCompose((PetscObject)F, kAijCopyName, (PetscObject)copy));
    PetscCall(PetscObjectCompose((PetscObject)F, kAijFactorName, (PetscObject)G));
    PetscCall(MatDestroy(&copy)); /* F holds them */
    PetscCall(MatDestroy(&G));
    PetscCall(PetscObjectQuery((PetscObject)F, kAijCopyName, (PetscObject *)&copy));
    PetscCall(PetscObjectQuery((PetscObject)F, kAijFactorName, (PetscObject *)&G));
  } else PetscCall(MatDiagCopyAIJValues_Private(C, copy)); /* the companion of the same structure (CheckSameCompanion): its values */
  PetscCall(MatLUFactorNumeric(G, copy, info));
  if (!h->dense_saved) {
    h->dense_solve              = F->ops->solve;
    h->dense_solve_transpose    = F->ops->solvetranspose;
    h->dense_matsolve           = F->ops->matsolve;
    h->dense_matsolve_transpose = F->ops->matsolvetranspose;
    h->dense_saved              = true;
  }
  F->ops->solve             = SolveByAij;
  F->ops->solvetranspose    = SolveTransposeByAij;
  F->ops->solveadd          = NULL;
  F->ops->solvetransposeadd = NULL;
  F->ops->matsolve          = NULL; /* PETSc then solves column by column */
  F->ops->matsolvetranspose = NULL;
  *taken                    = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode LUNumeric_Diag(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;
  PetscBool    taken = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(FactorInput(F, A, h, "the numeric factorization", PETSC_TRUE, &C));
  PetscCall(CheckSameCompanion(A, h));
  RestoreDenseSolves(F, h);
  PetscBool dense = PETSC_FALSE;
  if (h->copy_type) PetscCall(PetscStrcmp(h->copy_type, MATSEQDENSE, &dense));
  if (!dense) {
    PetscCall((*h->lu_numeric)(F, C, info));
    PetscFunctionReturn(0);
  }
  /* dense (CUDA builds): a singular matrix is factored as aijcusparse's instead */
  PetscErrorCode ierr;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = (*h->lu_numeric)(F, C, info);
  PetscCall(PetscPopErrorHandler());
  PetscCall(SingularDenseToAij(F, A, h, info, (PetscBool)(ierr != 0), &taken));
  if (taken) PetscFunctionReturn(0);
  PetscCall(ierr);
  PetscCall(FormInverse(F, h));
  PetscFunctionReturn(0);
}

PetscErrorCode CholeskyNumeric_Diag(Mat F, Mat A, const MatFactorInfo *info)
{
  FactorHooks *h;
  Mat          C;

  PetscFunctionBegin;
  PetscCall(GetHooks(F, &h));
  PetscCall(FactorInput(F, A, h, "the numeric factorization", PETSC_TRUE, &C));
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
  PetscCall(FactorInput(F, A, h, "the numeric factorization", PETSC_TRUE, &C));
  PetscCall(CheckSameCompanion(A, h));
  PetscCall((*h->qr_numeric)(F, C, info));
  PetscFunctionReturn(0);
}

/* After the package's symbolic phase has installed its numeric phase: keep
   it, and put the wrapper in its place. */
void TakeNumeric(Mat F, Mat A, FactorHooks *h)
{
  h->companion_build = ((Mat_Diag *)A->data)->aij.companion_builds;
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
  PetscCall(FactorInput(F, A, h, "the LU factorization", PETSC_FALSE, &C));
  PetscCall((*h->lu_symbolic)(F, C, row, col, info));
  TakeNumeric(F, A, h);
  if (h->copy_type && row && col) { /* a dense factor keeps them for an aij factor of a singular matrix (SingularDenseToAij) */
    PetscBool dense;
    PetscCall(PetscStrcmp(h->copy_type, MATSEQDENSE, &dense));
    if (dense) {
      PetscCall(PetscObjectCompose((PetscObject)F, kRowOrderingName, (PetscObject)row));
      PetscCall(PetscObjectCompose((PetscObject)F, kColOrderingName, (PetscObject)col));
    }
  }
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
  PetscCall(FactorInput(F, A, h, "the ILU factorization", PETSC_FALSE, &C));
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
  PetscCall(FactorInput(F, A, h, "the Cholesky factorization", PETSC_FALSE, &C));
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
  PetscCall(FactorInput(F, A, h, "the ICC factorization", PETSC_FALSE, &C));
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
  PetscCall(FactorInput(F, A, h, "the QR factorization", PETSC_FALSE, &C));
  PetscCall((*h->qr_symbolic)(F, C, col, info));
  h->companion_build = ((Mat_Diag *)A->data)->aij.companion_builds;
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

/* The package that factors A, and the type of the companion's copy it
   factors (NULL: the companion itself): the named package, or on the GPU
   (LU and Cholesky of the default package for a sequential diag matrix
   with CUDA vectors) cuSOLVER's dense factor of a small matrix, cuSPARSE's
   of a larger one. */
PetscErrorCode FactorPackage(Mat A, const char *package, MatFactorType ftype, const char **use, MatType *copy_type)
{
  PetscBool cusparse;

  PetscFunctionBegin;
  *use       = package;
  *copy_type = NULL;
  PetscCall(PetscStrcmp(package, MATSOLVERCUSPARSE, &cusparse)); /* registered only where PETSc has it */
  if (cusparse) {
    *copy_type = MATSEQAIJCUSPARSE;
    PetscFunctionReturn(0);
  }
  PetscBool petsc, seq, wanted;
  PetscInt  dense_max;
  PetscCall(PetscStrcmp(package, MATSOLVERPETSC, &petsc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &seq, MATSEQDIAG, MATSEQDIAGCUDA, ""));
  if (!petsc || !seq || (ftype != MAT_FACTOR_LU && ftype != MAT_FACTOR_CHOLESKY) || !MatDiagWantsDevice_Private(A)) PetscFunctionReturn(0);
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::DeviceLU, &wanted));
  if (!wanted) PetscFunctionReturn(0);
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::DenseFactorMax, &dense_max));
  /* dense Cholesky: PETSc's CUDA build lacks cuSOLVER's symmetric-indefinite solve (sytrs) that it uses for matrices not marked SPD */
  const PetscBool dense = (PetscBool)(ftype == MAT_FACTOR_LU && A->rmap->n <= dense_max);
  *use                  = dense ? MATSOLVERCUDA : MATSOLVERCUSPARSE;
  *copy_type            = dense ? MATSEQDENSE : MATSEQAIJCUSPARSE;
  PetscCall(PetscInfo(A, "diag: %s with CUDA vectors, %" PetscInt_FMT " rows: %s's factor (solves on the GPU)\n", MatFactorTypes[ftype], A->rmap->n, dense ? "cuSOLVER's dense" : "cuSPARSE"));
  PetscFunctionReturn(0);
}

/* MatGetFactor for a diag matrix and the named package: the package's
   factor of the companion (or of its copy), its symbolic phases wrapped. */
PetscErrorCode GetFactor_Diag(Mat A, const char *package, MatFactorType ftype, Mat *F)
{
  Mat          C;
  FactorHooks *h;
  const char  *use;
  MatType      copy_type;

  PetscFunctionBegin;
  PetscCall(FactorPackage(A, package, ftype, &use, &copy_type));
  /* ILU/ICC of the petsc package on a sequential matrix will most likely run
     on the diagonals (factor/factor_native.cpp, decided in the symbolic phase,
     which builds the aij copy only if not): the package's factor needs only
     the sizes now, and the aij copy (a full copy of the values) is not made */
  PetscBool sizes_only = A->assembled ? PETSC_FALSE : PETSC_TRUE, dense_copy = PETSC_FALSE;
  if (!sizes_only && !copy_type) PetscCall(MatDiagFactorNativeMayApply_Private(A, use, ftype, &sizes_only));
  /* a dense copy is made at each numeric phase (FactorInput): until then the
     package needs only the sizes (PCs ask for the factor more than once,
     and each early dense copy would fill n^2 values) */
  if (copy_type) PetscCall(PetscStrcmp(copy_type, MATSEQDENSE, &dense_copy));
  if (dense_copy) sizes_only = PETSC_TRUE;
  if (!sizes_only) {
    PetscCall(MatDiagGetCompanion_Private(A, "a factorization", &C));
    if (copy_type) PetscCall(MatConvert(C, copy_type, MAT_INITIAL_MATRIX, &C));
    else PetscCall(PetscObjectReference((PetscObject)C));
  } else { /* (also: PCs may ask for the factor before the values are set) the package needs only the sizes now */
    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &C));
    PetscCall(MatSetSizes(C, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatSetBlockSizesFromMats(C, A, A));
    PetscCall(MatSetType(C, copy_type ? copy_type : MATAIJ));
    PetscCall(MatSetUp(C));
    PetscCall(MatDiagSyncProperties_Private(A, C)); /* the flags a package reads (a Hermitian matrix's Cholesky, ...) */
  }
  {
    PetscErrorCode ierr = MatGetFactor(C, use, ftype, F);
    if (!ierr && *F && copy_type && (!sizes_only || dense_copy)) ierr = PetscObjectCompose((PetscObject)*F, kDeviceCopyName, (PetscObject)C);
    PetscCall(MatDestroy(&C));
    PetscCall(ierr);
  }
  /* the package declined this matrix (PETSc's own Cholesky and ICC with complex
     scalars decline a matrix marked Hermitian and not symmetric): so does diag */
  if (!*F) PetscFunctionReturn(0);
  if (dense_copy) { /* the dense factor stands in for aijcusparse's (cuSPARSE's, nd ordering): PCFactor orders as for that one (-ksp_view prints its ordering); the dense LU itself ignores orderings */
    PetscCall(PetscFree((*F)->preferredordering[ftype]));
    PetscCall(PetscStrallocpy(MATORDERINGND, (char **)&(*F)->preferredordering[ftype]));
    (*F)->canuseordering = PETSC_TRUE;
  }
  PetscCallCXX(h = new FactorHooks());
  h->package   = use;
  h->copy_type = copy_type;
  if (copy_type && !sizes_only) h->device_copy_build = ((Mat_Diag *)A->data)->aij.companion_builds;
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
        /* cuSPARSE factors aijcusparse (sequential) matrices only */
        const PetscBool cusparse = (PetscBool)(p == kCuSparse);
        if (cusparse && t == 1) continue;
        PetscCall(MatSolverTypeGet(kSolverPackages[p], cusparse ? MATSEQAIJCUSPARSE : aij[t], (MatFactorType)f, &found_package, &found_type, &create));
        if (create) PetscCall(MatSolverTypeRegister(kSolverPackages[p], diag[t], (MatFactorType)f, kSlots[p]));
      }
    }
  }
  PetscCall(MatDiagRegisterNormalFactors_Private(kSolverPackages, kNumPackages));
  PetscFunctionReturn(0);
}
