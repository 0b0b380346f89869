/* Shared by the two halves of MatProduct for MATDIAG (products/product.cpp:
   sparse operands; products/product_dense.cpp: a dense right-hand side;
   device/product.cpp: the GPU numeric phase): what kind an operand
   is, the structure key a plan was made for, an operand's HM diagonals. */
#pragma once

#include "core/mat_diag.hpp"

#include <algorithm>
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

/* The diag operands of C's product with their listed entries on diagonals
   (Mat_Diag::remote): the product kernels read diagonals only. Collective. */
inline PetscErrorCode OperandsOnDiagonals(Mat C)
{
  const Mat in[3] = {C->product->A, C->product->B, C->product->C};

  PetscFunctionBegin;
  for (const Mat X : in) {
    Kind kind;
    if (!X) continue;
    PetscCall(KindOf(X, &kind));
    if (kind == Kind::Diag) PetscCall(MatDiagRemoteToDiagonals_Private(X, "a matrix product by diagonals"));
  }
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

/* The HM diagonals of a local block that hold entries: its offsets in HM;
   in CDM the super part kk and the sub part kk - N of each stored compact
   diagonal (structural: independent of the values). */
inline std::vector<Index> HmOffsetsOf(const Mat_Diag *x)
{
  if (x->scheme == pdiag::Scheme::HM) return x->hm.offsets;
  const pdiag::Layout &L = x->layout;
  std::vector<Index>   out;
  for (Index kk : x->cdm.koffsets) {
    if (L.length(kk) > 0) out.push_back(kk);
    if (kk != 0 && L.length(kk - L.ncols) > 0) out.push_back(kk - L.ncols);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/* products/product_dense.cpp: C = A X with a dense X (SpMM), the symbolic
   callback MatProductSetFromOptions_Diag installs for it */
PetscErrorCode MatProductSymbolic_DiagDense(Mat C);

} // namespace diag_product
