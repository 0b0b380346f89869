/* Matrix products that diag does not compute on its diagonals run as
   aij's (DESIGN §6, "conversion where the diagonals do not pay"): a
   product with an operand whose diagonals are scattered (an algebraic
   multigrid prolongator, a DMDA interpolation, which would need thousands
   of short diagonals), with an operand of another type (maij, ...), or
   with an algorithm only aij has (-matptap_via scalable, ...). The diag
   operands are replaced by their aij companions (diag_companion.cpp) while
   PETSc's own code sets the product up and computes it; the result is an
   aij matrix. Each numeric phase refreshes the companions first, so
   MAT_REUSE_MATRIX sees new values as with aij. -info says when this path
   is taken. */
#include "diag_product_common.hpp"

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

} // namespace

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
