/* The Galerkin product C = P^T A P of a diag operator on the GPU (CUDA
   builds): PCMG's coarse operators with -pc_mg_galerkin when the operator
   is used with CUDA vectors.

   products/product_companion.cpp computes a Galerkin product as aij's on the
   host (the operator's aij copy, aij's PtAP, the result's conversion to
   diag) and stores the result as diag: host work that dominates PCMG's
   set-up at large sizes, where aijcusparse computes the same products with
   cuSPARSE on the device (docs/performance.md). Here cuSPARSE computes
   them too, through PETSc's aijcusparse: no product of our own (a
   well-kept library's SpGEMM, the one aijcusparse users get), and no
   values on the host:

   - the operator's aij pattern (the rule aij's copy follows,
     companion/companion.cpp) is built on the host once; an aijcusparse matrix
     with that pattern gets its values on the device, gathered from the
     operator's device diagonals (pdiag::cuda::hm_values_at_csr);
   - P (a DMDA's interpolation is host aij) is copied to aijcusparse, or,
     inside a PCMG set-up that converts its transfers to aijcusparse
     (pc/mg.cpp), converted in place first;
   - S = PtAP of the two by aijcusparse (cuSPARSE SpGEMM), kept;
   - C's diagonals are S's (MatDiagAIJCompactOffsets_Private on S's host
     pattern, which aijcusparse keeps); its values are written on the device
     from S's device CSR (pdiag::cuda::hm_set_from_csr), so C lives on the
     device; its host copy is then brought back (the next coarser product
     reads it) and its constant diagonals compressed on the device as an
     upload would (MatDiagDeviceCompressComputed_Private).

   The numeric phase (MAT_REUSE_MATRIX, new operator values) writes the
   operator's values into the same aijcusparse copy, recomputes S with
   cuSPARSE and refills C. A nonzero of the operator outside the copy's
   pattern is detected on the device (nonzeros counted both ways) and the
   product is set up again, as aij's would grow its pattern.

   Taken for PtAP of a sequential diag operator whose vectors are CUDA
   vectors, in HM storage, with a seqaij or seqaijcusparse P, the default
   algorithm and 32-bit PetscInt (cuSPARSE's indices); otherwise, or with
   -mat_diag_galerkin_device false (the operator's options), the host path
   runs. A result that is not compact (GAMG's algebraic prolongators) is
   reported so that the product is set up as aij's without computing S on
   the host again. Event MatDiagPtAPGPU. */
#include "core/mat_diag.hpp"

#include "device/device.hpp"

#include "pdiag/csr_values_cuda.hpp"

#include <limits>

namespace {

struct GalerkinDevice {
  Mat                 A_copy = nullptr;  /* aijcusparse with the operator's aij pattern, values written on the device */
  Mat                 P_copy = nullptr;  /* P's aijcusparse copy (or P itself, referenced, if it is aijcusparse) */
  Mat                 S      = nullptr;  /* P^T A_copy P by cuSPARSE */
  Index               a_nnz  = 0;        /* entries of A_copy */
  unsigned long long *counts = nullptr;  /* device words: nonzeros counted, entries missed */
  PetscObjectId       id[2]    = {0, 0}; /* A and P the values were computed from */
  PetscObjectState    state[2] = {-1, -1};
  PetscObjectState    nzstate[2] = {-1, -1};
};

PetscErrorCode Clear(GalerkinDevice *g)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&g->S));
  PetscCall(MatDestroy(&g->A_copy));
  PetscCall(MatDestroy(&g->P_copy));
  g->a_nnz = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode GalerkinDeviceDestroy(void *ptr)
{
  GalerkinDevice *g = (GalerkinDevice *)ptr;

  PetscFunctionBegin;
  if (!g) PetscFunctionReturn(0);
  PetscCall(Clear(g));
  if (g->counts) DiagCallCUDA(cudaFree(g->counts));
  delete g;
  PetscFunctionReturn(0);
}

/* Whether the product C is one this file computes (see the top). */
PetscErrorCode Wanted(Mat C, PetscBool *wanted)
{
  Mat_Product *p = C->product;
  Mat          A = p->A, P = p->B;
  PetscMPIInt  size;
  PetscBool    seq, cuda, p_aij, on = PETSC_TRUE;

  PetscFunctionBegin;
  *wanted = PETSC_FALSE;
  if (p->type != MATPRODUCT_PtAP || sizeof(PetscInt) != sizeof(int)) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &seq, MATSEQDIAG, MATSEQDIAGCUDA, ""));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQDIAGCUDA, &cuda));
  if (!seq || (!cuda && !MatDiagWantsDevice_Private(A)) || ((Mat_Diag *)A->data)->scheme != pdiag::Scheme::HM) PetscFunctionReturn(0);
  if (((Mat_Diag *)A->data)->nstored() >= (Index)std::numeric_limits<PetscInt>::max()) PetscFunctionReturn(0); /* its aij copy's entries must fit cuSPARSE's 32-bit indices */
  PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &p_aij, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
  if (!p_aij) PetscFunctionReturn(0);
  if (p->alg) {
    PetscBool dflt, diag;
    PetscCall(PetscStrcmp(p->alg, MATPRODUCTALGORITHMDEFAULT, &dflt));
    PetscCall(PetscStrcmp(p->alg, "diag", &diag));
    if (!dflt && !diag) PetscFunctionReturn(0); /* an algorithm of aij's (-matptap_via ...): aij's on the host */
  }
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::GalerkinDevice, &on));
  *wanted = on;
  PetscFunctionReturn(0);
}

/* The device CSR of the aijcusparse matrix M (uploaded first if needed). */
PetscErrorCode DeviceCSR(Mat M, const PetscInt **ia, const PetscInt **ja, PetscScalar **va)
{
  PetscMemType mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(M, ia, ja, va, &mtype));
  PetscCheck(PetscMemTypeDevice(mtype), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: the aijcusparse matrix of a Galerkin product on the GPU has no device CSR");
  PetscFunctionReturn(0);
}

/* A_copy's values from A's device diagonals. With `check`, *missing says
   whether a nonzero of A lies outside A_copy's pattern (A has more nonzero
   stored values than A_copy holds). */
PetscErrorCode FillOperatorCopy(Mat A, GalerkinDevice *g, PetscBool check, PetscBool *missing)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  const Index       *meta;
  const PetscScalar *val;
  const PetscInt    *ia, *ja;
  PetscScalar       *out;

  PetscFunctionBegin;
  PetscCall(MatDiagDeviceValues_Private(A, &meta, &val));
  PetscCheck(MatDiagDev(A).hm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: a Galerkin product on the GPU needs the operator's HM values on the device");
  const pdiag::HmView<const PetscScalar> view{a->layout, MatDiagDev(A).nd, MatDiagDevOffsets(MatDiagDev(A)), MatDiagDevStart(MatDiagDev(A)), val};
  PetscCall(DeviceCSR(g->A_copy, &ia, &ja, NULL));
  PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(g->A_copy, &out));
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(pdiag::cuda::hm_values_at_csr(view, ia, ja, out, PetscDefaultCudaStream));
  if (check) {
    DiagCallCUDA(cudaMemsetAsync(g->counts, 0, 2 * sizeof(unsigned long long), PetscDefaultCudaStream));
    DiagCallCUDA(pdiag::cuda::count_nonzeros(val, a->nstored(), g->counts, PetscDefaultCudaStream));
    DiagCallCUDA(pdiag::cuda::count_nonzeros(static_cast<const PetscScalar *>(out), g->a_nnz, g->counts + 1, PetscDefaultCudaStream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(g->A_copy, &out));
  if (check) {
    unsigned long long counts[2];
    DiagCallCUDA(cudaMemcpyAsync(counts, g->counts, sizeof(counts), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
    DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
    *missing = counts[0] != counts[1] ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* C's values from S: on the device into C's HM diagonals; for a C whose
   assembly chose CDM storage, through the host conversion. */
PetscErrorCode FillResult(Mat C, GalerkinDevice *g)
{
  Mat_Diag *c = (Mat_Diag *)C->data;

  PetscFunctionBegin;
  if (c->scheme != pdiag::Scheme::HM) {
    const PetscScalar *v;
    PetscCall(MatSeqAIJGetArrayRead(g->S, &v)); /* S's host values current */
    PetscCall(MatSeqAIJRestoreArrayRead(g->S, &v));
    PetscCall(MatConvertFrom_Diag(g->S, ((PetscObject)C)->type_name, MAT_REUSE_MATRIX, &C));
    PetscFunctionReturn(0);
  }
  const PetscInt *ia, *ja;
  PetscScalar    *sv, *val;
  const Index    *meta;
  PetscCall(DeviceCSR(g->S, &ia, &ja, &sv));
  PetscCall(MatDiagDeviceOutput_Private(C, &meta, &val));
  const pdiag::HmView<PetscScalar> view{c->layout, MatDiagDev(C).nd, MatDiagDevOffsets(MatDiagDev(C)), MatDiagDevStart(MatDiagDev(C)), val};
  unsigned long long misses = 0;
  PetscCall(PetscLogGpuTimeBegin());
  DiagCallCUDA(cudaMemsetAsync(g->counts, 0, sizeof(unsigned long long), PetscDefaultCudaStream));
  DiagCallCUDA(pdiag::cuda::hm_set_from_csr(view, c->nstored(), ia, ja, static_cast<const PetscScalar *>(sv), g->counts, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  DiagCallCUDA(cudaMemcpyAsync(&misses, g->counts, sizeof(misses), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
  DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
  PetscCheck(misses == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: %llu entries of the Galerkin product lie off the diagonals taken from its pattern", misses);
  PetscCall(MatDiagDeviceValuesWritten_Private(C));
  PetscCall(MatDiagDeviceCompressComputed_Private(C)); /* as the host path's upload would: constant diagonals compressed */
  PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(0);
}

PetscErrorCode RecordOperands(Mat C, GalerkinDevice *g)
{
  Mat op[2] = {C->product->A, C->product->B};

  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    PetscCall(PetscObjectGetId((PetscObject)op[i], &g->id[i]));
    PetscCall(PetscObjectStateGet((PetscObject)op[i], &g->state[i]));
    g->nzstate[i] = op[i]->nonzerostate;
  }
  PetscFunctionReturn(0);
}

/* Builds everything from A's and P's current structure and values: A_copy,
   P_copy, S, and (when S is compact) C's diagonals and values. *compact
   false: C is untouched and g is cleared. */
PetscErrorCode Build(Mat C, GalerkinDevice *g, PetscBool *compact)
{
  Mat_Product       *p = C->product;
  Mat                A = p->A, P = p->B;
  std::vector<Index> offs;
  PetscBool          p_cusparse, converted;
  const char        *prefix;

  PetscFunctionBegin;
  PetscCall(Clear(g));
  PetscCall(MatDiagAIJPatternOnly_Private(A, MATSEQAIJCUSPARSE, &g->A_copy));
  {
    MatInfo info;
    PetscCall(MatGetInfo(g->A_copy, MAT_LOCAL, &info));
    g->a_nnz = (Index)info.nz_used;
  }
  PetscCall(FillOperatorCopy(A, g, PETSC_FALSE, NULL));
  PetscCall(MatDiagMGTransferInPlace_Private(A, P, &converted)); /* PCMG's interpolation, converted as PCMG's set-up would next */
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJCUSPARSE, &p_cusparse));
  if (p_cusparse) {
    PetscCall(PetscObjectReference((PetscObject)P));
    g->P_copy = P;
  } else PetscCall(MatConvert(P, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &g->P_copy));
  PetscCall(MatProductCreate(g->A_copy, g->P_copy, NULL, &g->S));
  PetscCall(MatGetOptionsPrefix(C, &prefix));
  PetscCall(MatSetOptionsPrefix(g->S, prefix));
  PetscCall(MatProductSetType(g->S, MATPRODUCT_PtAP));
  PetscCall(MatProductSetAlgorithm(g->S, MATPRODUCTALGORITHMDEFAULT));
  PetscCall(MatProductSetFill(g->S, p->fill));
  PetscCall(MatProductSetFromOptions(g->S));
  PetscCheck(g->S->ops->productsymbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: aijcusparse set up no PtAP");
  PetscCall(MatProductSymbolic(g->S));
  PetscCall(MatProductNumeric(g->S));
  PetscCall(MatDiagAIJCompactOffsets_Private(g->S, 4.0, compact, &offs));
  if (!*compact) {
    PetscCall(Clear(g));
    PetscFunctionReturn(0);
  }
  /* C: a diag matrix with S's diagonals, values on the device only */
  PetscCall(MatDiagGalerkinResultSetUp_Private(C, A, g->S));
  PetscCall(MatDiagSetLayout_Private(C));
  PetscCall(MatDiagCheckCountAll_Private(C, (Index)offs.size()));
  Mat_Diag *c = (Mat_Diag *)C->data;
  Hm        out;
  DiagCallKernel(out = Hm::structure_only(c->layout, std::move(offs)));
  PetscCall(MatDiagReplaceStorage_Private(C, std::move(out)));
  c->host_deferred = PETSC_TRUE;
  C->preallocated  = PETSC_TRUE;
  c->assembly.defer_upload  = PETSC_TRUE; /* no zeros to the device: FillResult writes there */
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  c               = (Mat_Diag *)C->data;
  c->assembly.defer_upload = PETSC_FALSE;
  {
    const PetscInt *ia, *ja;
    PetscInt        m;
    PetscBool       done;
    PetscCall(MatGetRowIJ(g->S, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: no host pattern of the Galerkin product");
    PetscCall(MatDiagSetAijPatternCSR_Private(C, m, ia, ja)); /* S's entries, zeros included, stay C's aij entries (as on the host path) */
    PetscCall(MatRestoreRowIJ(g->S, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  }
  PetscCall(FillResult(C, g));
  PetscCall(RecordOperands(C, g));
  PetscFunctionReturn(0);
}

PetscErrorCode ProductNumeric_GalerkinDevice(Mat C)
{
  Mat_Product    *p = C->product;
  GalerkinDevice *g = (GalerkinDevice *)p->data;
  Mat             op[2] = {p->A, p->B};
  PetscBool       same = PETSC_TRUE, restructure = PETSC_FALSE, missing = PETSC_FALSE, compact;

  PetscFunctionBegin;
  PetscCheck(g, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "diag: product data missing; run MatProductSymbolic() first");
  for (int i = 0; i < 2; i++) {
    PetscObjectId    id;
    PetscObjectState state;
    PetscCall(PetscObjectGetId((PetscObject)op[i], &id));
    PetscCall(PetscObjectStateGet((PetscObject)op[i], &state));
    if (id != g->id[i] || state != g->state[i]) same = PETSC_FALSE;
    if (id != g->id[i] || op[i]->nonzerostate != g->nzstate[i]) restructure = PETSC_TRUE;
  }
  if (same) PetscFunctionReturn(0); /* C holds the values of these operands (the symbolic phase computed them) */
  PetscCall(PetscLogEventBegin(MATDIAG_GalerkinGPU, C, p->A, p->B, 0));
  if (!restructure) {
    PetscCall(FillOperatorCopy(p->A, g, PETSC_TRUE, &missing));
    if (missing) PetscCall(PetscInfo(C, "diag: a nonzero of the operator lies outside its aij pattern: the Galerkin product is set up again\n"));
  }
  if (restructure || missing) {
    const PetscObjectState nz = C->nonzerostate;
    PetscCall(Build(C, g, &compact));
    PetscCheck(compact, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "diag: the Galerkin product's new structure has too many or too sparse diagonals for diag storage; set the product up again (MAT_INITIAL_MATRIX)");
    if (C->nonzerostate != nz) PetscCall(PetscInfo(C, "diag: MatProduct PtAP: the result's structure changed; its diag storage was rebuilt\n"));
  } else {
    PetscObjectState p_state;
    PetscCall(PetscObjectStateGet((PetscObject)p->B, &p_state));
    if (g->P_copy != p->B && p_state != g->state[1]) PetscCall(MatCopy(p->B, g->P_copy, SAME_NONZERO_PATTERN)); /* new values of a host P */
    const PetscObjectState s_nz = g->S->nonzerostate;
    PetscCall(MatProductNumeric(g->S));
    PetscCheck(g->S->nonzerostate == s_nz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: cuSPARSE's product changed its structure in its numeric phase");
    PetscCall(FillResult(C, g));
    PetscCall(RecordOperands(C, g));
  }
  PetscCall(PetscLogEventEnd(MATDIAG_GalerkinGPU, C, p->A, p->B, 0));
  PetscFunctionReturn(0);
}

} // namespace

/* Computes the Galerkin product C (PtAP, its symbolic phase with values)
   on the device when this file takes it (see the top): *how is Done (C
   set up, its numeric phase this file's), NotCompact (S is not worth diag
   storage: C untouched, to be set up as aij's) or NotTaken. Collective
   (sequential). */
PetscErrorCode MatDiagGalerkinDeviceSymbolic_Private(Mat C, DiagGalerkinDevice *how)
{
  Mat_Product    *p = C->product;
  GalerkinDevice *g = nullptr;
  PetscBool       wanted, compact = PETSC_FALSE;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  *how = DiagGalerkinDevice::NotTaken;
  PetscCall(Wanted(C, &wanted));
  if (!wanted) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(MATDIAG_GalerkinGPU, C, p->A, p->B, 0));
  PetscErrorCode (*symbolic)(Mat) = C->ops->productsymbolic; /* MatSetType() clears C's ops */
  std::size_t cap = 0;
  PetscCallCXX(g = new GalerkinDevice());
  ierr = DiagReserveDevice(&g->counts, &cap, 2);
  if (!ierr) ierr = Build(C, g, &compact);
  if (ierr || !compact) {
    PetscCall(GalerkinDeviceDestroy(g));
    PetscCall(PetscLogEventEnd(MATDIAG_GalerkinGPU, C, p->A, p->B, 0));
    PetscCall(ierr);
    PetscCall(PetscInfo(C, "diag: MatProduct PtAP: the result's diagonals are too many or too sparse for diag storage (found by cuSPARSE's product): it is computed and stored as aij\n"));
    *how = DiagGalerkinDevice::NotCompact;
    PetscFunctionReturn(0);
  }
  p->data                 = g;
  p->destroy              = MatProductDataDestroy_Compat<GalerkinDeviceDestroy>;
  C->ops->productsymbolic = symbolic;
  C->ops->productnumeric  = ProductNumeric_GalerkinDevice;
  PetscCall(PetscInfo(C, "diag: MatProduct PtAP on the GPU by cuSPARSE (the operator's aijcusparse copy written on the device), its result stored as %s with %" PetscInt64_FMT " diagonals\n", ((PetscObject)C)->type_name, (PetscInt64)((Mat_Diag *)C->data)->hm.ndiag()));
  PetscCall(PetscLogEventEnd(MATDIAG_GalerkinGPU, C, p->A, p->B, 0));
  *how = DiagGalerkinDevice::Done;
  PetscFunctionReturn(0);
}
