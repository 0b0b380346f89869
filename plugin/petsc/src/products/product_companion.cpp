/* Matrix products that diag does not compute on its diagonals run as
   aij's (docs/design.md, "The aij companion"): a
   product with an operand whose diagonals are scattered (an algebraic
   multigrid prolongator, a DMDA interpolation, which would need thousands
   of short diagonals), with an operand of another type (maij, ...), or
   with an algorithm only aij has (-matptap_via scalable, ...). The diag
   operands are replaced by their aij companions (companion/companion.cpp) while
   PETSc's own code sets the product up and computes it; the result is an
   aij matrix. Each numeric phase refreshes the companions first, so
   MAT_REUSE_MATRIX sees new values as with aij. -info says when this path
   is taken.

   Galerkin products (PtAP, RARt) of a square diag operator: their result is
   the coarse operator of a multigrid level, which for a stencil operator
   and a DMDA interpolation has few full diagonals (7-point fine, trilinear
   P: 27 diagonals), although P itself is slanted bands that diag does not
   multiply well. Such a product is computed as aij's (an inner product
   matrix S, kept) and its result stored as diag (a matrix of the operator's
   diag type, on the GPU for diagcuda), so that every multigrid level runs
   diag's kernels and smoothers. Whether the result is compact enough is
   known only from S (MatDiagAIJIsCompact_Private): if it is not (an
   algebraic prolongator from GAMG), the product is set up again as an aij
   one, as above, and S, computed once, is dropped. Each numeric phase
   recomputes S (skipped when the operands did not change since S was last
   computed; set up again when an operand's nonzero structure moved, e.g. a
   nonzero where the operator's aij copy had no entry, which aij's numeric
   phase would drop) and refills the diag result's values; its structure
   is rebuilt only if S's changed. -mat_diag_product_to_diag false (the
   operator's options) keeps aij results. A PtAP of a sequential operator
   used with CUDA vectors is computed on the GPU instead
   (device/galerkin.cpp), S by cuSPARSE; when that S is not compact,
   the aij set-up follows without computing S here. */
#include "products/product_common.hpp"

#include <string>

namespace {

const char *const kCompanionProduct = "MatDiagCompanionProduct";

/* aij's phases of a product taken over by the companion path */
struct CompanionPhases {
  PetscErrorCode (*symbolic)(Mat) = nullptr;
  PetscErrorCode (*numeric)(Mat)  = nullptr;
};

/* The product's operands with each diag one replaced by its companion;
   Restore puts the originals back. */
struct SwappedOperands {
  Mat saved[3] = {nullptr, nullptr, nullptr};
};

PetscErrorCode SwapIn(Mat C, SwappedOperands *s)
{
  Mat_Product *p      = C->product;
  Mat         *ops[3] = {&p->A, &p->B, &p->C};

  PetscFunctionBegin;
  for (int i = 0; i < 3; i++) {
    diag_product::Kind kind;
    s->saved[i] = *ops[i];
    if (!*ops[i]) continue;
    PetscCall(diag_product::KindOf(*ops[i], &kind));
    if (kind == diag_product::Kind::Diag) PetscCall(MatDiagGetCompanion_Private(*ops[i], "a matrix product computed as aij's", ops[i]));
  }
  PetscFunctionReturn(0);
}

void Restore(Mat C, const SwappedOperands &s)
{
  C->product->A = s.saved[0];
  C->product->B = s.saved[1];
  C->product->C = s.saved[2];
}

PetscErrorCode GetPhases(Mat C, CompanionPhases **ph)
{
  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)C, kCompanionProduct, ph));
  PetscCheck(*ph, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product without its aij phases");
  PetscFunctionReturn(0);
}

PetscErrorCode ProductNumeric_Companion(Mat C)
{
  CompanionPhases *ph;
  SwappedOperands  s;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  PetscCall(GetPhases(C, &ph));
  PetscCall(SwapIn(C, &s));
  ierr = (*ph->numeric)(C);
  Restore(C, s);
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode ProductSymbolic_Companion(Mat C)
{
  CompanionPhases *ph;
  SwappedOperands  s;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  PetscCall(GetPhases(C, &ph));
  PetscCall(SwapIn(C, &s));
  ierr = (*ph->symbolic)(C); /* sets C's type (aij) and its numeric phase */
  Restore(C, s);
  PetscCall(ierr);
  PetscCheck(C->ops->productnumeric, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: aij's symbolic phase set no numeric phase");
  ph->numeric               = C->ops->productnumeric;
  C->ops->productnumeric    = ProductNumeric_Companion;
  PetscFunctionReturn(0);
}

/* ---- Galerkin products with a diag result -------------------------------- */

const char *const kToDiag = "MatDiagProductToDiag";

struct ToDiag {
  Mat              S = nullptr;              /* the aij product */
  PetscObjectId    id[3]    = {0, 0, 0};     /* operands S's values were computed from */
  PetscObjectState state[3] = {-1, -1, -1};
  PetscObjectState nzstate[3] = {-1, -1, -1}; /* their nonzero states (S's symbolic data fit those) */
};

PetscErrorCode ToDiagDestroy(void *ptr)
{
  ToDiag *d = (ToDiag *)ptr;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  PetscCall(MatDestroy(&d->S));
  delete d;
  PetscFunctionReturn(0);
}

/* The operands of C's product (B is P or R). */
void OperandsOf(Mat C, Mat op[3])
{
  op[0] = C->product->A;
  op[1] = C->product->B;
  op[2] = C->product->C;
}

/* Whether the operands are those (and in the state) S was last computed from. */
PetscErrorCode OperandsUnchanged(Mat C, const ToDiag *d, PetscBool *same)
{
  Mat op[3];

  PetscFunctionBegin;
  OperandsOf(C, op);
  *same = PETSC_TRUE;
  for (int i = 0; i < 3; i++) {
    PetscObjectId    id    = 0;
    PetscObjectState state = -1;
    if (op[i]) {
      PetscCall(PetscObjectGetId((PetscObject)op[i], &id));
      PetscCall(PetscObjectStateGet((PetscObject)op[i], &state));
    }
    if (id != d->id[i] || state != d->state[i]) *same = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode RecordOperands(Mat C, ToDiag *d)
{
  Mat op[3];

  PetscFunctionBegin;
  OperandsOf(C, op);
  for (int i = 0; i < 3; i++) {
    d->id[i]      = 0;
    d->state[i]   = -1;
    d->nzstate[i] = -1;
    if (!op[i]) continue;
    PetscCall(PetscObjectGetId((PetscObject)op[i], &d->id[i]));
    PetscCall(PetscObjectStateGet((PetscObject)op[i], &d->state[i]));
    d->nzstate[i] = op[i]->nonzerostate;
  }
  PetscFunctionReturn(0);
}

/* S, the aij product of C's operands (through their aij copies), computed:
   symbolic and numeric phases. */
PetscErrorCode ComputeS(Mat C, const char *why, Mat *S)
{
  Mat_Product *p = C->product;
  const char  *prefix;

  PetscFunctionBegin;
  PetscCall(MatProductCreate(p->A, p->B, p->C, S));
  PetscCall(MatGetOptionsPrefix(C, &prefix));
  PetscCall(MatSetOptionsPrefix(*S, prefix));
  PetscCall(MatProductSetType(*S, p->type));
  PetscCall(MatProductSetAlgorithm(*S, p->alg));
  PetscCall(MatProductSetFill(*S, p->fill));
  (*S)->product->api_user = p->api_user;
  PetscCall(MatDiagProductViaCompanion_Private(*S, why));
  PetscCheck((*S)->ops->productsymbolic, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: MatProduct %s of %s and %s: aij has no implementation either", MatProductTypes[p->type], ((PetscObject)p->A)->type_name, ((PetscObject)p->B)->type_name);
  PetscCall(MatProductSymbolic(*S));
  PetscCall(MatProductNumeric(*S)); /* the result's structure is known once assembled (MPI aij's symbolic phase leaves it unassembled) */
  PetscFunctionReturn(0);
}

/* Whether an operand's nonzero structure moved since S was set up,
   counting a nonzero that appeared where a diag operand's aij copy had no
   entry (its refresh moves the operand's nonzero state): aij's numeric
   phase would ignore it, S must be set up again. Collective. */
PetscErrorCode OperandsRestructured(Mat C, const ToDiag *d, PetscBool *moved)
{
  Mat op[3];

  PetscFunctionBegin;
  OperandsOf(C, op);
  *moved = PETSC_FALSE;
  for (int i = 0; i < 3; i++) {
    diag_product::Kind kind;
    PetscObjectId      id;
    if (!op[i]) continue;
    PetscCall(diag_product::KindOf(op[i], &kind));
    if (kind == diag_product::Kind::Diag) {
      Mat companion;
      PetscCall(MatDiagGetCompanion_Private(op[i], "a matrix product computed as aij's", &companion));
    }
    PetscCall(PetscObjectGetId((PetscObject)op[i], &id));
    if (id != d->id[i] || op[i]->nonzerostate != d->nzstate[i]) *moved = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode ProductNumeric_ToDiag(Mat C)
{
  ToDiag   *d;
  PetscBool same;
  Mat       op[3];

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  d = (ToDiag *)C->product->data;
  PetscCheck(d && d->S, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data missing; run MatProductSymbolic() first");
  PetscCall(OperandsUnchanged(C, d, &same));
  if (same) PetscFunctionReturn(0); /* C holds S's values of these operands (the symbolic phase computed them) */
  OperandsOf(C, op);
  PetscBool moved;
  PetscCall(OperandsRestructured(C, d, &moved));
  if (moved) {
    std::string *reason;
    Mat          S;
    PetscCall(PetscDiagQueryObject((PetscObject)C, kToDiag, &reason));
    PetscCheck(reason, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: Galerkin product without its reason");
    PetscCall(PetscInfo(C, "diag: MatProduct %s: an operand's nonzero structure changed: the aij product is set up again\n", MatProductTypes[C->product->type]));
    PetscCall(ComputeS(C, reason->c_str(), &S));
    PetscCall(MatDestroy(&d->S));
    d->S = S;
  } else {
    /* MAT_REUSE_MATRIX may have given C new operands of the same types */
    PetscCall(MatProductReplaceMats(op[0], op[1], op[2], d->S));
    PetscCall(MatProductNumeric(d->S));
  }
  PetscCall(RecordOperands(C, d));
  /* same structure: new values only (MatDiagInstallHm_Private keeps what depends on the structure) */
  const PetscObjectState nz = C->nonzerostate;
  PetscCall(MatConvertFrom_Diag(d->S, ((PetscObject)C)->type_name, MAT_REUSE_MATRIX, &C));
  if (C->nonzerostate != nz) PetscCall(PetscInfo(C, "diag: MatProduct %s: the result's structure changed; its diag storage was rebuilt\n", MatProductTypes[C->product->type]));
  else PetscCall(PetscInfo(C, "diag: MatProduct %s: new values in the diag result (structure unchanged)\n", MatProductTypes[C->product->type]));
  PetscFunctionReturn(0);
}

PetscErrorCode GeneralSymbolic(Mat, const char *);

PetscErrorCode ProductSymbolic_ToDiag(Mat C)
{
  std::string *reason;

  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)C, kToDiag, &reason));
  PetscCheck(reason, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: Galerkin product without its reason");
  const char *why = reason->c_str();
  {
    PetscBool done;
    PetscCall(MatDiagGalerkinStructuredSymbolic_Private(C, &done)); /* a DMDA's Q1 interpolation inside PCMG: from its formula */
    if (done) PetscFunctionReturn(0);
  }
  PetscCall(GeneralSymbolic(C, why));
  PetscFunctionReturn(0);
}

/* The product by cuSPARSE on the device or as aij's on the host, its
   result diag when compact, else aij (see the top). */
PetscErrorCode GeneralSymbolic(Mat C, const char *why)
{
  Mat_Product *p = C->product;
  Mat          S = nullptr, A = p->A;
  PetscBool    compact;
  ToDiag      *d;

  PetscFunctionBegin;
  {
    DiagGalerkinDevice how = DiagGalerkinDevice::NotTaken;
    PetscCall(MatDiagDeviceTry(galerkin_symbolic, C, &how));
    if (how == DiagGalerkinDevice::Done) PetscFunctionReturn(0);
    if (how == DiagGalerkinDevice::NotCompact) { /* known from the device's S: the product as aij's, without computing S again */
      PetscCall(MatDiagProductViaCompanion_Private(C, why));
      PetscCheck(C->ops->productsymbolic, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: aij product set-up lost");
      PetscCall((*C->ops->productsymbolic)(C));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(ComputeS(C, why, &S));
  PetscCall(MatDiagAIJIsCompact_Private(S, &compact));
  if (!compact) {
    PetscCall(PetscInfo(C, "diag: MatProduct %s: the result's diagonals are too many or too sparse for diag storage: it is computed and stored as aij\n", MatProductTypes[p->type]));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDiagProductViaCompanion_Private(C, why));
    PetscCheck(C->ops->productsymbolic, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: aij product set-up lost");
    PetscCall((*C->ops->productsymbolic)(C));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(C, "diag: MatProduct %s computed as aij's, its result stored as %s (few full diagonals)\n", MatProductTypes[p->type], ((PetscObject)A)->type_name));
  {
    PetscErrorCode ierr = MatDiagGalerkinResultSetUp_Private(C, A, S);
    if (!ierr) ierr = MatConvertFrom_Diag(S, ((PetscObject)C)->type_name, MAT_REUSE_MATRIX, &C);
    if (ierr) {
      PetscCall(MatDestroy(&S));
      PetscCall(ierr);
    }
  }
  PetscCallCXX(d = new ToDiag());
  d->S = S;
  PetscCall(RecordOperands(C, d));
  p->data    = d;
  p->destroy = MatProductDataDestroy_Compat<ToDiagDestroy>;
  /* MatSetType() cleared C's ops */
  C->ops->productsymbolic = ProductSymbolic_ToDiag;
  C->ops->productnumeric  = ProductNumeric_ToDiag;
  PetscFunctionReturn(0);
}

} // namespace

/* C, sized, made a diag matrix of A's type family (on the GPU for
   diagcuda, with A's vector type) with C's options. */
static PetscErrorCode GalerkinResultType(Mat C, Mat A)
{
  PetscBool cuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &cuda, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  PetscCall(MatSetType(C, cuda ? MATDIAGCUDA : MATDIAG));
  ((Mat_Diag *)C->data)->opt.max_diagonals = ((Mat_Diag *)A->data)->opt.max_diagonals;
  /* C's vectors are the operator's (CUDA ones for a diag operator used on the GPU): set
     before C is filled, as its assembly decides from them whether its values go to the GPU */
  if (A->defaultvectype) PetscCall(MatSetVecType(C, A->defaultvectype));
  PetscCall(MatDiagSetFromOptionsOnly_Private(C));
  PetscFunctionReturn(0);
}

/* Makes C, the Galerkin product of the diag operator A whose aij result S
   is compact, a diag matrix of A's type family (on the GPU for diagcuda,
   with A's vector type) and S's sizes, ready to be filled. A refused set-up
   leaves C unchanged or without a type. */
PetscErrorCode MatDiagGalerkinResultSetUp_Private(Mat C, Mat A, Mat S)
{
  PetscFunctionBegin;
  PetscCall(MatSetSizes(C, S->rmap->n, S->cmap->n, S->rmap->N, S->cmap->N)); /* the product's sizes are S's */
  PetscCall(GalerkinResultType(C, A));
  PetscFunctionReturn(0);
}

/* As MatDiagGalerkinResultSetUp_Private, for a square result of n local
   and N global rows and columns (a product computed without S). */
PetscErrorCode MatDiagGalerkinResultSetUpSized_Private(Mat C, Mat A, PetscInt n, PetscInt N)
{
  PetscFunctionBegin;
  PetscCall(MatSetSizes(C, n, n, N, N));
  PetscCall(GalerkinResultType(C, A));
  PetscFunctionReturn(0);
}

/* The Galerkin product C set up (and computed) again by the general paths
   (pc/galerkin_structured.cpp hands a product over when its formula no
   longer applies). Collective. */
PetscErrorCode MatDiagGalerkinGeneralSymbolic_Private(Mat C)
{
  std::string *reason;

  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)C, kToDiag, &reason));
  PetscCheck(reason, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: Galerkin product without its reason");
  PetscCall(GeneralSymbolic(C, reason->c_str()));
  PetscFunctionReturn(0);
}

/* Sets up the Galerkin product C (PtAP or RARt of a square diag operator)
   to store its result as diag when it has few full diagonals (see the top
   of this file), else as aij through the companions. Collective. */
PetscErrorCode MatDiagProductToDiag_Private(Mat C, const char *why)
{
  Mat_Product *p = C->product;
  PetscBool    to_diag;
  std::string *saved;

  PetscFunctionBegin;
  PetscCall(MatDiagGetOption((PetscObject)p->A, DiagOpt::ProductToDiag, &to_diag));
  if (!to_diag) {
    PetscCall(MatDiagProductViaCompanion_Private(C, why));
    PetscFunctionReturn(0);
  }
  PetscCallCXX(saved = new std::string(why));
  PetscCall(PetscDiagComposeObject((PetscObject)C, kToDiag, saved));
  C->ops->productsymbolic = ProductSymbolic_ToDiag;
  PetscFunctionReturn(0);
}

/* Sets the product C up through the companions (called from
   MatProductSetFromOptions_Diag when diag cannot compute it). If aij has
   no implementation either, C is left without a symbolic phase, as PETSc
   leaves an unsupported product. Collective. */
PetscErrorCode MatDiagProductViaCompanion_Private(Mat C, const char *why)
{
  SwappedOperands  s;
  CompanionPhases *ph;
  PetscErrorCode   ierr;

  PetscFunctionBegin;
  PetscCall(SwapIn(C, &s));
  ierr = MatProductSetFromOptions(C); /* PETSc's choice among aij's implementations */
  Restore(C, s);
  PetscCall(ierr);
  if (!C->ops->productsymbolic) PetscFunctionReturn(0);
  PetscCall(PetscInfo(C, "diag: MatProduct %s computed as aij's on the operands' aij copies: %s\n", MatProductTypes[C->product->type], why));
  PetscCallCXX(ph = new CompanionPhases());
  ph->symbolic = C->ops->productsymbolic;
  PetscCall(PetscDiagComposeObject((PetscObject)C, kCompanionProduct, ph));
  C->ops->productsymbolic = ProductSymbolic_Companion;
  PetscFunctionReturn(0);
}
