/* Shared by the two halves of MatProduct for MATDIAG (diag_product.cpp:
   sparse operands; diag_product_dense.cpp: a dense right-hand side): what
   kind an operand is, and the structure key a plan was made for. */
#pragma once

#include "diag_impl.hpp"

#include <vector>

namespace diag_product {

/* ---- operand kinds ------------------------------------------------------- */

enum class Kind { Diag, Aij, Dense, Other };

inline PetscErrorCode KindOf(Mat X, Kind *kind)
{
  PetscBool flg;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)X, &flg, MATSEQDIAG, MATMPIDIAG, MATSEQDIAGCUDA, MATMPIDIAGCUDA, ""));
  if (flg) {
    *kind = Kind::Diag;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)X, &flg, MATSEQAIJ, MATMPIAIJ, ""));
  if (flg) {
    *kind = Kind::Aij;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)X, &flg, MATSEQDENSE, MATMPIDENSE, ""));
  *kind = flg ? Kind::Dense : Kind::Other;
  PetscFunctionReturn(0);
}

inline PetscErrorCode CommSize(Mat X, PetscMPIInt *size)
{
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)X), size));
  PetscFunctionReturn(0);
}

/* ---- structure keys: what a plan was made for ----------------------------- */

struct Key {
  bool               cdm = false;
  pdiag::Layout      layout;
  std::vector<Index> offs; /* HM offsets or CDM compact offsets */
  bool operator==(const Key &o) const { return cdm == o.cdm && layout == o.layout && offs == o.offs; }
};

inline PetscErrorCode KeyOf(Mat X, Key *k)
{
  const Mat_Diag *x = (const Mat_Diag *)X->data;

  PetscFunctionBegin;
  k->cdm    = x->scheme == pdiag::Scheme::CDM;
  k->layout = x->layout;
  PetscCallCXX(k->offs = k->cdm ? x->cdm.koffsets : x->hm.offsets);
  PetscFunctionReturn(0);
}

inline PetscErrorCode KeyChanged(Mat X, const Key &k, PetscBool *changed)
{
  Key now;

  PetscFunctionBegin;
  PetscCall(KeyOf(X, &now));
  if (!(now == k)) *changed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* diag_product_dense.cpp: C = A X with a dense X (SpMM), the symbolic
   callback MatProductSetFromOptions_Diag installs for it */
PetscErrorCode MatProductSymbolic_DiagDense(Mat C);

} // namespace diag_product
