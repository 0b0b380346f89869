/* Whether a matrix is worth storing, or multiplying, by diagonals: the
   distinct diagonals of an aij matrix (a product's result, an operand of
   another type) and whether they are few and mostly full; whether a diag
   matrix's diagonals are scattered (an algebraic prolongator). The
   products (products/product.cpp, products/product_companion.cpp,
   device/galerkin.cpp) decide from these where they compute and how
   their results are stored. */
#include "core/mat_diag.hpp"

#include "pdiag/ops.hpp"

#include <algorithm>
#include <vector>

/* Whether the aij matrix S is worth storing by diagonals: few diagonals
   (within the default limit) that are mostly full. Collective. */
PetscErrorCode MatDiagAIJIsCompact_Private(Mat S, PetscBool *compact)
{
  PetscFunctionBegin;
  PetscCall(MatDiagAIJIsCompactFill_Private(S, 4.0, compact));
  PetscFunctionReturn(0);
}

/* The distinct diagonal offsets j - i (sorted) of the local rows of the aij
   matrix X, and its local nonzeros; stops once more than `cap` distinct
   offsets are found (*over). O(nnz) with a mark per possible offset, else
   O(nnz log) even when the offsets are millions (a multigrid
   interpolation's slanted bands). Not collective. */
PetscErrorCode MatDiagAIJLocalOffsets_Private(Mat X, std::size_t cap, std::vector<Index> *offs, double *nnz, PetscBool *over)
{
  PetscInt          rstart, rend, N;
  const std::size_t compact_at0 = std::max<std::size_t>(2 * cap, 1u << 16);
  std::size_t       compact_at  = compact_at0;

  PetscFunctionBegin;
  offs->clear();
  *nnz  = 0;
  *over = PETSC_FALSE;
  PetscCall(MatGetOwnershipRange(X, &rstart, &rend));
  PetscCall(MatGetSize(X, NULL, &N));
  /* j - i lies in [lo, hi]: a byte per possible offset when that span is
     not much more than the local rows (a mark, no sorting: a Galerkin
     coarse operator has tens of millions of entries on 27 diagonals); else
     a buffer of offsets, sorted and made unique whenever it doubles */
  const Index lo = -(Index)(rend - 1), hi = (Index)N - 1 - rstart, span = hi - lo + 1;
  std::vector<unsigned char> marks;
  if (rend > rstart && span <= 8 * (Index)(rend - rstart) + (1 << 20)) PetscCallCXX(marks.assign((std::size_t)span, 0));
  std::size_t distinct = 0;
  for (PetscInt i = rstart; i < rend && !*over; i++) {
    PetscInt        nc;
    const PetscInt *cols;
    PetscCall(MatGetRow(X, i, &nc, &cols, NULL));
    if (!marks.empty()) {
      for (PetscInt e = 0; e < nc; e++) {
        unsigned char &seen = marks[(std::size_t)((Index)cols[e] - i - lo)];
        distinct += !seen;
        seen = 1;
      }
      if (distinct > cap) *over = PETSC_TRUE;
    } else {
      for (PetscInt e = 0; e < nc; e++) offs->push_back((Index)cols[e] - i);
      if (offs->size() > compact_at) { /* sorted and made unique whenever the buffer doubles: O(nnz log) even for millions of offsets */
        std::sort(offs->begin(), offs->end());
        offs->erase(std::unique(offs->begin(), offs->end()), offs->end());
        compact_at = std::max(compact_at0, 2 * offs->size());
        if (offs->size() > cap) *over = PETSC_TRUE;
      }
    }
    *nnz += nc;
    PetscCall(MatRestoreRow(X, i, &nc, &cols, NULL));
  }
  if (!marks.empty()) {
    for (Index k = 0; k < span; k++)
      if (marks[(std::size_t)k]) offs->push_back(lo + k);
  } else {
    std::sort(offs->begin(), offs->end());
    offs->erase(std::unique(offs->begin(), offs->end()), offs->end());
  }
  if (offs->size() > cap) *over = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* As MatDiagAIJIsCompact_Private, with at most max_fill stored entries per nonzero. */
PetscErrorCode MatDiagAIJIsCompactFill_Private(Mat S, double max_fill, PetscBool *compact)
{
  std::vector<Index> offs;

  PetscFunctionBegin;
  PetscCall(MatDiagAIJCompactOffsets_Private(S, max_fill, compact, &offs));
  PetscFunctionReturn(0);
}

/* As MatDiagAIJIsCompactFill_Private; *offs gets S's distinct local
   diagonals (sorted) when it is compact. Collective. */
PetscErrorCode MatDiagAIJCompactOffsets_Private(Mat S, double max_fill, PetscBool *compact, std::vector<Index> *offs_out)
{
  PetscInt           rstart, rend, M, N;
  std::vector<Index> offs;
  double             loc[2] = {0, 0}, glob[2];
  PetscInt64         nd, most;
  PetscBool          over;
  const std::size_t  cap = (std::size_t)MatDiagMaxDiagonalsDefault_Private();

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(S, &rstart, &rend));
  PetscCall(MatGetSize(S, &M, &N));
  PetscCall(MatDiagAIJLocalOffsets_Private(S, cap, &offs, &loc[0], &over));
  const pdiag::Layout L = pdiag::Layout::block(M, N, rstart, rend - rstart);
  for (Index d : offs) loc[1] += (double)L.length(d);
  nd = over ? (PetscInt64)cap + 1 : (PetscInt64)offs.size();
  PetscCall(MPIU_Allreduce(&nd, &most, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)S)));
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)S)));
  /* stored entries at most max_fill (4) times the nonzeros, diagonals
     within the default limit (counted only up to it); a rectangular matrix with many diagonals (an
     interpolation, a prolongator: its diagonals are slanted bands, products
     with it by diagonals cost orders of magnitude more than by rows) is not */
  *compact = (most <= (PetscInt64)cap && glob[1] <= max_fill * glob[0] + 64.0 && (M == N || most <= 64)) ? PETSC_TRUE : PETSC_FALSE;
  if (*compact) PetscCallCXX(*offs_out = std::move(offs));
  PetscFunctionReturn(0);
}

/* Whether the diag matrix A holds many diagonals (more than 64 on some
   process) that are mostly zeros (fewer than one stored entry in 20
   nonzero over all) or, for a rectangular matrix, slanted bands (a
   multigrid prolongator built with the type of the operator): products
   with such a matrix cost far more by diagonals than by rows. Collective. */
PetscErrorCode MatDiagIsScattered_Private(Mat A, PetscBool *scattered)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  double           loc[2], glob[2];
  PetscInt64       nd, most;
  PetscObjectState state;
  PetscBool        stale;

  PetscFunctionBegin;
  nd = a->scheme == pdiag::Scheme::HM ? a->hm.ndiag() : a->cdm.ndiag();
  PetscCall(MPIU_Allreduce(&nd, &most, 1, MPIU_INT64, MPI_MAX, PetscObjectComm((PetscObject)A)));
  /* decided by the structure alone: few diagonals, or a rectangular matrix with many */
  if (most <= 64 || A->rmap->N != A->cmap->N) {
    *scattered = most > 64 ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  /* the count reads every value (and brings device values to the host):
     it is made again only when the values changed on some process since
     the last one (a product set up again with the same operands asks
     again) */
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  stale = state != a->cache.scattered_state ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &stale, 1, PDIAG_MPIU_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  if (!stale) {
    *scattered = a->cache.scattered;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(MATDIAG_CountNonzeros, A, 0, 0, 0));
  PetscCall(MatDiagDeviceTry(sync_host, A));
  Index nnz;
  DiagCallKernel(nnz = a->scheme == pdiag::Scheme::HM ? pdiag::count_nonzeros(a->hm.view()) : pdiag::count_nonzeros(a->cdm.view()));
  loc[0] = (double)nnz;
  loc[1] = (double)a->nstored();
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)A)));
  PetscCall(PetscLogEventEnd(MATDIAG_CountNonzeros, A, 0, 0, 0));
  *scattered = glob[0] < 0.05 * glob[1] ? PETSC_TRUE : PETSC_FALSE;
  /* the state after the host sync, which may move it */
  PetscCall(PetscObjectStateGet((PetscObject)A, &a->cache.scattered_state));
  a->cache.scattered = *scattered;
  PetscFunctionReturn(0);
}
