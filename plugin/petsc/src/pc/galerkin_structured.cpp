/* PCMG's Galerkin coarse operators from the interpolation's formula: C =
   P^T A P for a DMDA's Q1 interpolation P of a 2:1 vertex-centred
   refinement, computed from A's diagonals and P's formula
   (pdiag::vertex_q1_galerkin of pdiag/galerkin_q1.hpp on the host,
   pdiag::cuda::vertex_q1_galerkin of kernels/src/galerkin_q1.cu on the
   GPU): no aij copy of A, no sparse matrix product, no conversions.

   The general Galerkin paths (products/product_companion.cpp on the host,
   device/galerkin.cpp by cuSPARSE) build A's aij copy, multiply it
   with the stored P and convert the product to diag, most of PCMG's
   set-up at large sizes (docs/performance.md). When P
   is the Q1 interpolation, C is known from A's diagonals: each coarse row
   reads the fine rows around its point, and its 27 places are the box
   stencil of width one on the coarse grid.

   Taken inside a PCMG set-up (the grids come from its levels' DMs, as for
   the transfers of pc/mg_structured.cpp) for a PtAP of a sequential diag
   operator whose P is a sequential aij matrix (seqaij, aijcusparse,
   aijperm, aijsell)
   holding exactly the Q1 interpolation between the DMDAs of the two
   levels (one dof, not periodic, fine = 2 coarse - 1 points a side;
   checked entry by entry), the default algorithm, and an operator whose
   aij entries (companion/companion.cpp) all couple fine points at most one
   apart in every direction: then aij's product has the full box stencil
   as its pattern, which C gets as its grid stencil, so C's aij copy (an
   ILU, an overlap, GAMG's graph on a coarse level) has the entries aij's
   PtAP would have. A nonzero of A coupling farther (found while
   computing) hands the product to the general paths. On the GPU when the
   operator is used with CUDA vectors (C's values computed there, never
   on the host), else on the host.

   The numeric phase (MAT_REUSE_MATRIX, new values) recomputes C's
   values; a change of either operand's structure, or of P's values, sets
   the product up again (through the general paths if it no longer
   applies). -mat_diag_galerkin_structured false (the operator's options)
   leaves every product to the general paths. -info reports each product
   taken. Event MatDiagPtAPQ1. */
#include "core/mat_diag.hpp"


#include "pdiag/galerkin_q1.hpp"

#include <memory>

namespace {

struct GalerkinStructured {
  pdiag::VertexGrids g;
  pdiag::Q1Places    places;
  bool               device = false;
  unsigned          *failed = nullptr; /* device word (GPU products) */
  PetscObjectId      id[2]      = {0, 0};
  PetscObjectState   state[2]   = {-1, -1};
  PetscObjectState   nzstate[2] = {-1, -1};
};

PetscErrorCode GalerkinStructuredDestroy(void *ptr)
{
  GalerkinStructured *s = (GalerkinStructured *)ptr;

  PetscFunctionBegin;
  if (!s) PetscFunctionReturn(0);
  if (s->failed) PetscCall(MatDiagDeviceCall(free_word, &s->failed));
  delete s;
  PetscFunctionReturn(0);
}

/* Whether every aij entry of the operator A (companion/companion.cpp's rule:
   the main diagonal, the nonzeros, its DMDA stencil's couplings, set
   zeros, the entries of a kept aij pattern) other than its nonzeros joins
   fine points of g at most one apart; the nonzeros are checked while C is
   computed. */
PetscErrorCode EntriesWithinOne(Mat A, const pdiag::VertexGrids &g, PetscBool *within)
{
  Mat_Diag                        *a = (Mat_Diag *)A->data;
  const pdiag::GridStencilPattern *stencil;

  PetscFunctionBegin;
  *within = PETSC_FALSE;
  PetscCall(MatDiagGridPattern_Private(A, &stencil));
  if (stencil && !pdiag::stencil_within_one(stencil->stencil(), g.fine)) PetscFunctionReturn(0);
  if (!pdiag::pairs_within_one(g.fine, a->assembly.zero_sets.list())) PetscFunctionReturn(0);
  if (a->aij.pattern_nzstate == A->nonzerostate && !a->aij.rowptr.empty() && /* an aij pattern A keeps (its entries stay) */
      !pdiag::csr_within_one(g.fine, (Index)a->aij.rowptr.size() - 1, a->aij.rowptr.data(), a->aij.colidx.data()))
    PetscFunctionReturn(0);
  *within = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Whether this file computes the product C (see the top), with the
   refinement in *g. */
PetscErrorCode Wanted(Mat C, pdiag::VertexGrids *g, PetscBool *wanted)
{
  Mat_Product *p = C->product;
  Mat          A = p->A, P = p->B;
  PetscMPIInt  size;
  PetscBool    seq, p_aij, on = PETSC_TRUE, q1, within;

  PetscFunctionBegin;
  *wanted = PETSC_FALSE;
  if (p->type != MATPRODUCT_PtAP) PetscFunctionReturn(0);
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::GalerkinStructured, &on));
  if (!on) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &seq, MATSEQDIAG, MATSEQDIAGCUDA, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &p_aij, MATSEQAIJ, MATSEQAIJCUSPARSE, MATSEQAIJPERM, MATSEQAIJSELL, "")); /* seqaij's storage (-pc_mg_diag_transfer_type may convert P in place) */
  if (!seq || !p_aij) PetscFunctionReturn(0);
  if (p->alg) {
    PetscBool dflt, diag;
    PetscCall(PetscStrcmp(p->alg, MATPRODUCTALGORITHMDEFAULT, &dflt));
    PetscCall(PetscStrcmp(p->alg, "diag", &diag));
    if (!dflt && !diag) PetscFunctionReturn(0); /* an algorithm of aij's (-matptap_via ...) */
  }
  PetscCall(MatDiagMGQ1Interpolation_Private(P, g, &q1));
  if (!q1 || A->rmap->n != g->fine_points()) {
    PetscCall(PetscInfo(C, "diag: MatProduct PtAP: P is not the Q1 interpolation between DMDAs of a PCMG being set up (or the operator not of its fine grid); not from the formula\n"));
    PetscFunctionReturn(0);
  }
  PetscCall(EntriesWithinOne(A, *g, &within));
  if (!within) PetscCall(PetscInfo(C, "diag: MatProduct PtAP: the operator couples grid points more than one apart; not from the interpolation's formula\n"));
  *wanted = within;
  PetscFunctionReturn(0);
}

PetscErrorCode RecordOperands(Mat C, GalerkinStructured *s)
{
  Mat op[2] = {C->product->A, C->product->B};

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    PetscCall(PetscObjectGetId((PetscObject)op[i], &s->id[i]));
    PetscCall(PetscObjectStateGet((PetscObject)op[i], &s->state[i]));
    s->nzstate[i] = op[i]->nonzerostate;
  }
  PetscFunctionReturn(0);
}

/* The coarse grid's box stencil of width one: C's couplings, as aij's
   product would hold them (see the top). */
PetscErrorCode SetCoarseStencil(Mat C, const pdiag::VertexGrids &g)
{
  Mat_Diag          *c = (Mat_Diag *)C->data;
  pdiag::GridStencil box;

  PetscFunctionBegin;
  box.dim = 3, box.dof = 1, box.width = 1, box.box = true;
  for (int a = 0; a < 3; a++) box.owned[a] = {g.coarse[a]};
  DiagCallKernel(c->grid_pattern = std::make_shared<const pdiag::GridStencilPattern>(box));
  c->grid_checked = PETSC_TRUE;
  PetscFunctionReturn(0);
}


/* C's values on the host into hm (C's structure) from A's host diagonals
   (an HM copy of a CDM operator's). */
PetscErrorCode ComputeHost(Mat A, const GalerkinStructured *s, Hm *hm, PetscBool *ok)
{
  Mat_Diag *a = (Mat_Diag *)A->data;
  Hm        from_cdm;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceTry(sync_host, A));
  if (a->scheme == pdiag::Scheme::CDM) DiagCallKernel(from_cdm = pdiag::hm_from_cdm(a->cdm, pdiag::cdm_structural_offsets(a->cdm)));
  const Hm &in = a->scheme == pdiag::Scheme::HM ? a->hm : from_cdm;
  *ok          = pdiag::vertex_q1_galerkin(s->g, in.view(), s->places, hm->view()) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Sets C up as a diag matrix with the Galerkin product's diagonals and
   computes its values; *ok false: A couples farther (C's values then mean
   nothing; the general paths set it up again). On the device the values
   are computed in HM storage, which C's assembly keeps unless CDM storage
   was asked for (then they are computed on the host). */
PetscErrorCode Build(Mat C, GalerkinStructured *s, PetscBool *ok)
{
  Mat_Product       *p = C->product;
  Mat                A = p->A;
  const PetscInt     nc = (PetscInt)s->g.coarse_points();
  std::vector<Index> offs;
  Hm                 hm;

  PetscFunctionBegin;
  PetscCallCXX(offs = pdiag::vertex_q1_galerkin_offsets(s->g, &s->places));
  PetscCall(MatDiagGalerkinResultSetUpSized_Private(C, A, nc, nc));
  Mat_Diag *c = (Mat_Diag *)C->data;
  if (c->opt.storage_req == MAT_DIAG_STORAGE_CDM) s->device = false;
  if (!s->device) {
    DiagCallKernel(hm = Hm(pdiag::Layout::square(nc), offs));
    PetscCall(ComputeHost(A, s, &hm, ok));
    if (!*ok) PetscFunctionReturn(0);
  } else DiagCallKernel(hm = Hm::structure_only(pdiag::Layout::square(nc), offs));
  PetscCall(MatDiagSetLayout_Private(C));
  PetscCall(MatDiagCheckCountAll_Private(C, (Index)offs.size()));
  PetscCall(MatDiagReplaceStorage_Private(C, std::move(hm)));
  PetscCall(SetCoarseStencil(C, s->g));
  const MatDiagStorage asked = c->opt.storage_req;
  C->preallocated            = PETSC_TRUE;
  if (s->device) {
    c->host_deferred = PETSC_TRUE;
    c->assembly.defer_upload  = PETSC_TRUE; /* no zeros to the device: the kernel writes there */
    c->opt.storage_req   = MAT_DIAG_STORAGE_HM;
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  c               = (Mat_Diag *)C->data;
  c->assembly.defer_upload = PETSC_FALSE;
  c->opt.storage_req  = asked;
  if (s->device) {
    PetscCall(MatDiagDeviceCall(galerkin_q1, C, A, s->g, s->places, &s->failed, ok));
    if (!*ok) PetscFunctionReturn(0);
    PetscCall(PetscObjectStateIncrease((PetscObject)C));
  }
  PetscCall(RecordOperands(C, s));
  PetscFunctionReturn(0);
}

/* New values of the same operands: C's values again, in place. */
PetscErrorCode Refill(Mat C, GalerkinStructured *s, PetscBool *ok)
{
  Mat_Diag *c = (Mat_Diag *)C->data;

  PetscFunctionBegin;
  if (c->scheme != pdiag::Scheme::HM) { /* C was assembled again in another storage */
    PetscCall(Build(C, s, ok));
    PetscFunctionReturn(0);
  }
  if (s->device) {
    PetscCall(MatDiagDeviceCall(galerkin_q1, C, C->product->A, s->g, s->places, &s->failed, ok));
    if (*ok) PetscCall(PetscObjectStateIncrease((PetscObject)C));
    PetscFunctionReturn(0);
  }
  PetscCall(MatDiagDeviceTry(sync_host, C));
  PetscCall(ComputeHost(C->product->A, s, &c->hm, ok));
  MatDiagValuesChanged(C);
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(0);
}

/* The product from the general paths, this file's data dropped (C's grid
   stencil with it: the general result's pattern is its own). */
PetscErrorCode HandOver(Mat C)
{
  Mat_Product *p = C->product;
  Mat_Diag    *c = (Mat_Diag *)C->data;

  PetscFunctionBegin;
  PetscCall(PetscInfo(C, "diag: MatProduct PtAP: the interpolation's formula no longer applies (the operator couples grid points more than one apart, or an operand changed): the product is set up again by the general path\n"));
  PetscCall(GalerkinStructuredDestroy(p->data)); /* this file's data (p->destroy's signature differs between PETSc versions) */
  p->data    = nullptr;
  p->destroy = nullptr;
  if (c) {
    c->grid_pattern.reset();
    c->grid_checked = PETSC_FALSE;
  }
  PetscCall(MatDiagGalerkinGeneralSymbolic_Private(C));
  PetscFunctionReturn(0);
}

PetscErrorCode ProductNumeric_GalerkinStructured(Mat C)
{
  Mat_Product        *p = C->product;
  GalerkinStructured *s = (GalerkinStructured *)p->data;
  Mat                 op[2] = {p->A, p->B};
  PetscBool           same = PETSC_TRUE, restructure = PETSC_FALSE, ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(s, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data missing; run MatProductSymbolic() first");
  for (int i = 0; i < 2; i++) {
    PetscObjectId    id;
    PetscObjectState state;
    PetscCall(PetscObjectGetId((PetscObject)op[i], &id));
    PetscCall(PetscObjectStateGet((PetscObject)op[i], &state));
    if (id != s->id[i] || state != s->state[i]) same = PETSC_FALSE;
    /* new values of P, or either operand's structure: whether the formula still applies is checked again */
    if (id != s->id[i] || op[i]->nonzerostate != s->nzstate[i] || (i == 1 && state != s->state[i])) restructure = PETSC_TRUE;
  }
  if (same) PetscFunctionReturn(0); /* C holds the values of these operands */
  PetscCall(PetscLogEventBegin(MATDIAG_GalerkinQ1, C, p->A, p->B, 0));
  if (restructure) {
    pdiag::VertexGrids g;
    PetscBool          wanted;
    PetscCall(Wanted(C, &g, &wanted));
    if (wanted) {
      s->g = g;
      PetscCall(Build(C, s, &ok));
    } else ok = PETSC_FALSE;
  } else {
    PetscCall(Refill(C, s, &ok));
    if (ok) PetscCall(RecordOperands(C, s));
    if (ok) PetscCall(PetscInfo(C, "diag: MatProduct PtAP: new values in the diag result from the interpolation's formula (structure unchanged)\n"));
  }
  PetscCall(PetscLogEventEnd(MATDIAG_GalerkinQ1, C, p->A, p->B, 0));
  if (!ok) PetscCall(HandOver(C));
  PetscFunctionReturn(0);
}

} // namespace

/* Computes the Galerkin product C (PtAP, its symbolic phase with values)
   from the interpolation's formula when this file takes it (see the top);
   *done false: C untouched, for the general paths. Collective
   (sequential). */
PetscErrorCode MatDiagGalerkinStructuredSymbolic_Private(Mat C, PetscBool *done)
{
  Mat_Product                        *p = C->product;
  std::unique_ptr<GalerkinStructured> s;
  PetscBool                           wanted, ok = PETSC_FALSE;
  pdiag::VertexGrids                  g;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(Wanted(C, &g, &wanted));
  if (!wanted) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(MATDIAG_GalerkinQ1, C, p->A, p->B, 0));
  PetscErrorCode (*symbolic)(Mat) = C->ops->productsymbolic; /* MatSetType() clears C's ops */
  PetscCallCXX(s.reset(new GalerkinStructured()));
  s->g = g;
  PetscBool cuda_type;
  PetscCall(PetscObjectTypeCompare((PetscObject)p->A, MATSEQDIAGCUDA, &cuda_type));
  s->device = (cuda_type || MatDiagWantsDevice_Private(p->A)) && ((Mat_Diag *)p->A->data)->scheme == pdiag::Scheme::HM; /* the kernel reads HM */
  PetscErrorCode ierr = Build(C, s.get(), &ok);
  if (ierr || !ok) {
    PetscCall(GalerkinStructuredDestroy(s.release()));
    PetscCall(PetscLogEventEnd(MATDIAG_GalerkinQ1, C, p->A, p->B, 0));
    PetscCall(ierr);
    PetscCall(PetscInfo(C, "diag: MatProduct PtAP: a nonzero of the operator couples grid points more than one apart; not from the interpolation's formula\n"));
    if (C->data) { /* set up by the device build: the general paths set it up again */
      ((Mat_Diag *)C->data)->grid_pattern.reset();
      ((Mat_Diag *)C->data)->grid_checked = PETSC_FALSE;
    }
    C->ops->productsymbolic = symbolic;
    PetscFunctionReturn(0);
  }
  p->data                 = s.release();
  p->destroy              = MatProductDataDestroy_Compat<GalerkinStructuredDestroy>;
  C->ops->productsymbolic = symbolic;
  C->ops->productnumeric  = ProductNumeric_GalerkinStructured;
  PetscCall(PetscInfo(C, "diag: MatProduct PtAP from the Q1 interpolation's formula (%" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " from %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " points) %s, its result %s with %" PetscInt64_FMT " diagonals\n", (PetscInt)g.coarse[0], (PetscInt)g.coarse[1], (PetscInt)g.coarse[2], (PetscInt)g.fine[0], (PetscInt)g.fine[1], (PetscInt)g.fine[2], ((GalerkinStructured *)p->data)->device ? "on the GPU" : "on the host", ((PetscObject)C)->type_name, (PetscInt64)(((Mat_Diag *)C->data)->scheme == pdiag::Scheme::HM ? ((Mat_Diag *)C->data)->hm.ndiag() : ((Mat_Diag *)C->data)->cdm.ndiag())));
  PetscCall(PetscLogEventEnd(MATDIAG_GalerkinQ1, C, p->A, p->B, 0));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}
