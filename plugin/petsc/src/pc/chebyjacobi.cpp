/* PCCHEBYJACOBI: Chebyshev-accelerated Jacobi smoothing in one pass over the
   vectors a step (kernels/ pdiag/chebyshev.hpp, the CUDA kernel in
   kernels/src/chebyshev.cu).

   Why: PCMG's smoother with -mg_levels_pc_type jacobi, KSPCHEBYSHEV (its
   default level KSP) with PCJACOBI, spends five
   PETSc vector operations a step besides the product (the residual, the
   Jacobi scaling, the combination, and a copy at the end); on a diag
   level operator, whose product moves little more than its two vectors,
   those operations are most of a multigrid cycle's time on the GPU. Here
   a step is the operator's MatMult and one fused update, the same
   iteration (same polynomial, same interval, same eigenvalue estimate) as
   KSPCHEBYSHEV + PCJACOBI to rounding. The PC works with any matrix type:
   only MatMult and MatGetDiagonal are asked of it.

   A sequential diag operator whose values are symmetric (checked entry by
   entry at the set-up) also has the product fused into the step, read
   from its main and upper diagonals only, on the GPU or the host: a
   7-point operator's step then reads 4 of its 7 diagonals and no A x
   vector (pdiag::chebyshev_jacobi_step_symmetric; -pc_chebyjacobi_symmetric).
   On the GPU a sequential diag operator in the compressed constant form
   (a constant-coefficient stencil) has its product computed inside the
   step instead (pdiag::cuda::chebyshev_jacobi_step_compressed;
   -pc_chebyjacobi_compressed). On the host any other sequential diag
   operator stored by HM has its product computed a chunk of rows at a
   time inside the step, so A x never goes to memory
   (pdiag::chebyshev_jacobi_step_full, the same values as the separate
   product and update; -pc_chebyjacobi_full). */
#include "core/mat_diag.hpp"

#include <petsc/private/kspimpl.h> /* KSPSetNoisy_Private(): the right-hand side of KSPCHEBYSHEV's eigenvalue estimate */
#include <petsc/private/pcimpl.h>

#include "pdiag/chebyshev.hpp"

#include <algorithm>
#include <vector>

namespace {

struct PC_ChebyJacobi {
  Vec       dinv  = nullptr; /* D^-1, 1 where the diagonal is zero (as PCJACOBI) */
  Vec       ax    = nullptr; /* A x of the step's current iterate */
  Vec       other = nullptr; /* the iterate that takes turns with the solution vector */
  KSP       kspest = nullptr;
  PetscReal emin = 0, emax = 0;              /* the interval the steps damp */
  PetscReal emin_given = 0, emax_given = 0;  /* -pc_chebyjacobi_eigenvalues */
  PetscReal est_min = 0, est_max = 0;        /* the last estimate of D^-1 A's extreme eigenvalues */
  PetscReal tform[4] = {0.0, 0.1, 0.0, 1.1}; /* PCMG's transform for its Chebyshev smoothers */
  PetscInt  eststeps = 10;
  PetscInt  degree   = 2;
  bool      keep_interval = false; /* the next set-up's operator is the estimated one in another storage */
  /* the fused symmetric steps: allowed (-pc_chebyjacobi_symmetric), taken for pc->mat of state sym_state */
  PetscBool                            symmetric_allowed = PETSC_TRUE;
  PetscReal                            symmetric_rtol    = 1e-12; /* -pc_chebyjacobi_symmetric_rtol */
  bool                                 symmetric         = false;
  bool                                 sym_device        = false; /* sym's pointers are device pointers */
  PetscObjectState                     sym_state         = -1;
  pdiag::SymmetricHmView<PetscScalar> sym; /* pointers into the operator's values (device pointers when sym_device) */
  /* the fused compressed steps (GPU): allowed (-pc_chebyjacobi_compressed), taken for pc->mat of state cmp_state */
  PetscBool                            compressed_allowed = PETSC_TRUE;
  bool                                 compressed         = false;
  PetscObjectState                     cmp_state          = -1;
  pdiag::HmCompressedView<PetscScalar> cview; /* device pointers into the operator's compressed form */
  /* the fused full steps (host): allowed (-pc_chebyjacobi_full), taken for pc->mat of state full_state */
  PetscBool        full_allowed = PETSC_TRUE;
  bool             full         = false;
  PetscObjectState full_state   = -1;
};

PetscLogEvent PC_ChebyJacobiStep = 0, PC_ChebyJacobiSymStep = 0, PC_ChebyJacobiCmpStep = 0, PC_ChebyJacobiFullStep = 0;

/* KSPSetNoisy_Private() takes (Mat, Vec) in PETSc 3.25 and (Vec) in 3.18;
   the overload that compiles is the one this PETSc declares. */
template <class F>
auto SetNoisy(F f, Mat A, Vec v) -> decltype(f(A, v))
{
  return f(A, v);
}
template <class F>
auto SetNoisy(F f, Mat, Vec v) -> decltype(f(v))
{
  return f(v);
}

/* dinv = 1 / dinv, 1 where zero, where dinv's values live. */
PetscErrorCode InvertDiagonal(PC pc, Vec dinv)
{
  PetscInt  n;
  PetscReal zeros = 0, total = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(dinv, &n));
  if (MatDiagVecOnDevice_Private(dinv)) {
    PetscCall(MatDiagDeviceCall(jacobi_inverse, dinv, &zeros));
  } else {
    PetscScalar *d;
    PetscCall(VecGetArray(dinv, &d));
    zeros = (PetscReal)pdiag::jacobi_inverse((Index)n, d);
    PetscCall(VecRestoreArray(dinv, &d));
  }
  PetscCall(MPIU_Allreduce(&zeros, &total, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
  if (total > 0) PetscCall(PetscInfo(pc, "Zero detected in diagonal of matrix, using 1 at those locations (%g of them)\n", (double)total));
  PetscFunctionReturn(0);
}

/* The arrays of one step in one memory: the vectors it reads (a null
   vector gives a null pointer), and x_new, written, or read and written
   when it holds x_old (has_old: xo then points into it). */
struct StepArrays {
  Vec                dinv, b, x_cur, ax, x_new;
  bool               has_old;
  const PetscScalar *d = nullptr, *r = nullptr, *xc = nullptr, *w = nullptr, *xo = nullptr;
  PetscScalar       *xn = nullptr;
};

PetscErrorCode GetStepArrays(const DiagVecArrays &get, StepArrays &a)
{
  PetscFunctionBegin;
  if (a.dinv) PetscCall(get.get_read(a.dinv, &a.d));
  PetscCall(get.get_read(a.b, &a.r));
  if (a.x_cur) PetscCall(get.get_read(a.x_cur, &a.xc));
  if (a.ax) PetscCall(get.get_read(a.ax, &a.w));
  if (a.has_old) PetscCall(get.get(a.x_new, &a.xn));
  else PetscCall(get.get_write(a.x_new, &a.xn));
  a.xo = a.has_old ? (const PetscScalar *)a.xn : nullptr;
  PetscFunctionReturn(0);
}

PetscErrorCode RestoreStepArrays(const DiagVecArrays &get, StepArrays &a)
{
  PetscFunctionBegin;
  if (a.has_old) PetscCall(get.restore(a.x_new, &a.xn));
  else PetscCall(get.restore_write(a.x_new, &a.xn));
  if (a.ax) PetscCall(get.restore_read(a.ax, &a.w));
  if (a.x_cur) PetscCall(get.restore_read(a.x_cur, &a.xc));
  PetscCall(get.restore_read(a.b, &a.r));
  if (a.dinv) PetscCall(get.restore_read(a.dinv, &a.d));
  PetscFunctionReturn(0);
}

/* A's storage if A is a sequential diag matrix stored by HM (the storage
   the fused steps read), else null. */
PetscErrorCode SequentialHm(Mat A, Mat_Diag **a)
{
  PetscBool seq;

  PetscFunctionBegin;
  *a = nullptr;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &seq, MATSEQDIAG, MATSEQDIAGCUDA, ""));
  if (seq && ((Mat_Diag *)A->data)->scheme == pdiag::Scheme::HM) *a = (Mat_Diag *)A->data;
  PetscFunctionReturn(0);
}

/* Whether the steps can read pc->mat through its main and upper diagonals,
   where the PC's vectors live: one process, a diag operator that is also
   the PC's matrix, HM values (on the GPU not the compressed form, which is
   already cheaper to read), offsets in +-pairs, values symmetric to
   -pc_chebyjacobi_symmetric_rtol (a Galerkin product of a symmetric
   operator is symmetric to rounding only, and its steps then read
   a(i - d, i) for a(i, i - d)). The check reads the values once, on the
   device for the GPU's. */
PetscErrorCode SymmetricSetUp(PC pc)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;
  Mat             A  = pc->mat;
  PetscBool       compressed = PETSC_FALSE, symmetric = PETSC_FALSE;
  const bool      device = MatDiagVecOnDevice_Private(cj->dinv) == PETSC_TRUE;
  Mat_Diag       *a;

  PetscFunctionBegin;
  cj->symmetric = false;
  if (!cj->symmetric_allowed || A != pc->pmat) PetscFunctionReturn(0);
  PetscCall(SequentialHm(A, &a));
  if (!a) PetscFunctionReturn(0);
  if (!device) PetscCall(MatDiagDeviceTry(sync_host, A));
  const PetscScalar *val = a->hm.val.data();
  if (device) {
    pdiag::HmCompressedView<PetscScalar> cview;
    const Index                        *meta;
    PetscCall(MatDiagDeviceCall(entries, A, &compressed, &cview, &meta, &val));
  }
  if (compressed) PetscFunctionReturn(0);
  const pdiag::HmView<const PetscScalar> view{a->hm.layout, a->hm.ndiag(), a->hm.offsets.data(), a->hm.start.data(), val};
  if (!pdiag::symmetric_hm_view(view, &cj->sym)) PetscFunctionReturn(0);
  if (device) PetscCall(MatDiagDeviceCall(values_symmetric, cj->sym, cj->symmetric_rtol, &symmetric));
  else symmetric = pdiag::hm_values_symmetric(cj->sym, (PetscReal)cj->symmetric_rtol) ? PETSC_TRUE : PETSC_FALSE;
  if (!symmetric) {
    PetscCall(PetscInfo(pc, "the operator's values are not symmetric (to %g relative): the steps use its MatMult\n", (double)cj->symmetric_rtol));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscObjectStateGet((PetscObject)A, &cj->sym_state));
  cj->symmetric = true, cj->sym_device = device;
  PetscCall(PetscInfo(pc, "the steps read the symmetric operator's main and %d upper diagonals (%s), the product fused in\n", cj->sym.npairs, device ? "GPU" : "host"));
  PetscFunctionReturn(0);
}

/* Whether this step (right-hand side b) takes the fused symmetric path:
   set up for pc->mat as it is now, in b's memory. */
bool UseSymmetric(PC pc, Vec b)
{
  PC_ChebyJacobi  *cj = (PC_ChebyJacobi *)pc->data;
  PetscObjectState state;

  if (!cj->symmetric || (MatDiagVecOnDevice_Private(b) == PETSC_TRUE) != cj->sym_device) return false;
  if (PetscObjectStateGet((PetscObject)pc->mat, &state)) return false;
  return state == cj->sym_state;
}

/* x_new = s.a x_cur + s.b x_old + s.g D^-1 (b - A x_cur) in one pass
   (UseSymmetric() said yes); x_new is x_old's vector or, when x_old is
   null, any other. */
PetscErrorCode SymmetricStep(PC pc, const pdiag::ChebyshevStep &s, Vec x_cur, Vec x_old, Vec b, Vec x_new)
{
  PC_ChebyJacobi      *cj  = (PC_ChebyJacobi *)pc->data;
  const DiagVecArrays      get = MatDiagVecArrays_Private(cj->sym_device);
  StepArrays           v{nullptr, b, x_cur, nullptr, x_new, x_old != nullptr};
  const PetscLogDouble flops = (PetscLogDouble)cj->sym.n * ((4.0 * cj->sym.npairs + 1) + 6 + (x_old ? 2 : 0)); /* the product's row, then the update */

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_ChebyJacobiSymStep, pc, 0, 0, 0));
  PetscCall(GetStepArrays(get, v));
  if (cj->sym_device) PetscCall(MatDiagDeviceCall(cheby_step_symmetric, cj->sym, (PetscScalar)s.a, v.xc, (PetscScalar)s.b, v.xo, (PetscScalar)s.g, v.r, v.xn, flops));
  else {
    pdiag::chebyshev_jacobi_step_symmetric(cj->sym, (PetscScalar)s.a, v.xc, (PetscScalar)s.b, v.xo, (PetscScalar)s.g, v.r, v.xn);
    PetscCall(PetscLogFlops(flops));
  }
  PetscCall(RestoreStepArrays(get, v));
  PetscCall(PetscLogEventEnd(PC_ChebyJacobiSymStep, pc, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Whether the steps can compute pc->mat's product inside (GPU): one
   process, a diag operator whose device values are in the compressed
   constant form (constant diagonals with exceptions: a constant-coefficient
   stencil such as ex45's), CUDA vectors. Its product then reads x and
   writes nothing: the step stores the update, not A x. */
PetscErrorCode CompressedSetUp(PC pc)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;

  PetscFunctionBegin;
  cj->compressed = false;
  Mat       A = pc->mat;
  Mat_Diag *a;
  PetscBool compressed;
  if (!cj->compressed_allowed || !MatDiagVecOnDevice_Private(cj->dinv)) PetscFunctionReturn(0);
  PetscCall(SequentialHm(A, &a));
  if (!a) PetscFunctionReturn(0);
  const Index       *meta;
  const PetscScalar *val;
  PetscCall(MatDiagDeviceCall(entries, A, &compressed, &cj->cview, &meta, &val));
  if (!compressed || !cj->cview.layout.is_full() || !cj->cview.layout.is_square()) PetscFunctionReturn(0);
  PetscCall(PetscObjectStateGet((PetscObject)A, &cj->cmp_state));
  cj->compressed = true;
  PetscCall(PetscInfo(pc, "the steps compute the operator's product from its compressed form inside (GPU)\n"));
  PetscFunctionReturn(0);
}

/* Whether the steps can compute pc->mat's product inside on the host: one
   process, host vectors, a diag operator stored by HM (any values; the
   symmetric steps, which read half of them, come first). */
PetscErrorCode FullSetUp(PC pc)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;
  Mat             A  = pc->mat;
  Mat_Diag       *a;

  PetscFunctionBegin;
  cj->full = false;
  if (!cj->full_allowed || MatDiagVecOnDevice_Private(cj->dinv)) PetscFunctionReturn(0);
  PetscCall(SequentialHm(A, &a));
  if (!a || !a->hm.layout.is_full() || !a->hm.layout.is_square()) PetscFunctionReturn(0);
  PetscCall(MatDiagDeviceTry(sync_host, A));
  PetscCall(PetscObjectStateGet((PetscObject)A, &cj->full_state));
  cj->full = true;
  PetscCall(PetscInfo(pc, "the steps compute the operator's product inside, by chunks of rows (host)\n"));
  PetscFunctionReturn(0);
}

/* The fused steps for pc->mat where the work vectors live now: the
   symmetric ones if they apply, else the compressed (GPU) or full (host)
   ones if they do. */
PetscErrorCode FusedStepsSetUp(PC pc)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;

  PetscFunctionBegin;
  cj->compressed = cj->full = false;
  PetscCall(SymmetricSetUp(pc));
  if (!cj->symmetric) PetscCall(CompressedSetUp(pc));
  if (!cj->symmetric && !cj->compressed) PetscCall(FullSetUp(pc));
  PetscFunctionReturn(0);
}

/* Whether this step (right-hand side b) computes the product inside: the
   compressed form on the GPU or the full one on the host, set up for
   pc->mat as it is now, in b's memory. */
bool UseProductInside(PC pc, Vec b)
{
  PC_ChebyJacobi  *cj = (PC_ChebyJacobi *)pc->data;
  PetscObjectState state;
  const bool       device = MatDiagVecOnDevice_Private(b) == PETSC_TRUE;

  if (!(device ? cj->compressed : cj->full)) return false;
  if (PetscObjectStateGet((PetscObject)pc->mat, &state)) return false;
  return state == (device ? cj->cmp_state : cj->full_state);
}

/* x_new = s.a x_cur + s.b x_old + s.g D^-1 (b - A x_cur), A's product
   inside (UseProductInside() said yes): on the GPU from its compressed
   form, on the host by chunks of rows; x_new is x_old's vector or, when
   x_old is null, any other. */
PetscErrorCode ProductInsideStep(PC pc, const pdiag::ChebyshevStep &s, Vec x_cur, Vec x_old, Vec b, Vec x_new)
{
  PC_ChebyJacobi      *cj     = (PC_ChebyJacobi *)pc->data;
  const bool           device = MatDiagVecOnDevice_Private(b) == PETSC_TRUE;
  const DiagVecArrays      get    = MatDiagVecArrays_Private(device);
  const PetscLogEvent  event  = device ? PC_ChebyJacobiCmpStep : PC_ChebyJacobiFullStep;
  StepArrays           v{cj->dinv, b, x_cur, nullptr, x_new, x_old != nullptr};
  Mat_Diag            *a = nullptr;

  PetscFunctionBegin;
  if (!device) PetscCall(SequentialHm(pc->mat, &a));
  PetscCheck(device || a, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCCHEBYJACOBI: the full step needs a sequential HM operator");
  const PetscLogDouble n     = device ? (PetscLogDouble)cj->cview.layout.nrows : (PetscLogDouble)a->hm.layout.nrows;
  const PetscLogDouble nd    = device ? (PetscLogDouble)cj->cview.ndiag : (PetscLogDouble)a->hm.ndiag();
  const PetscLogDouble flops = 2.0 * n * nd + n * (5 + (x_old ? 2 : 0)); /* the product's rows, then the update */
  PetscCall(PetscLogEventBegin(event, pc, 0, 0, 0));
  PetscCall(GetStepArrays(get, v));
  if (device) PetscCall(MatDiagDeviceCall(cheby_step_compressed, cj->cview, (PetscScalar)s.a, v.xc, (PetscScalar)s.b, v.xo, (PetscScalar)s.g, v.d, v.r, v.xn, flops));
  else {
    pdiag::chebyshev_jacobi_step_full(a->hm.view(), (PetscScalar)s.a, v.xc, (PetscScalar)s.b, v.xo, (PetscScalar)s.g, v.d, v.r, v.xn);
    PetscCall(PetscLogFlops(flops));
  }
  PetscCall(RestoreStepArrays(get, v));
  PetscCall(PetscLogEventEnd(event, pc, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* The extreme eigenvalues of D^-1 A as KSPCHEBYSHEV estimates them: a KSP
   (GMRES; CG for a matrix known to be SPD) with PCJACOBI, eststeps
   iterations from PETSc's noisy right-hand side, the eigenvalues of its
   Krylov space. */
PetscErrorCode EstimateEigenvalues(PC pc)
{
  PC_ChebyJacobi    *cj = (PC_ChebyJacobi *)pc->data;
  Vec                rhs, sol;
  PetscInt           its, neig;
  PetscBool          isset, spd, typed;
  KSPConvergedReason reason;
  const char        *prefix;
  PC                 jac;

  PetscFunctionBegin;
  if (!cj->kspest) {
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)pc), &cj->kspest));
    PetscCall(PetscObjectIncrementTabLevel((PetscObject)cj->kspest, (PetscObject)pc, 1));
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(KSPSetOptionsPrefix(cj->kspest, prefix));
    PetscCall(KSPAppendOptionsPrefix(cj->kspest, "chebyjacobi_esteig_"));
    PetscCall(KSPSetComputeEigenvalues(cj->kspest, PETSC_TRUE));
    PetscCall(KSPGetPC(cj->kspest, &jac));
    PetscCall(PCSetType(jac, PCJACOBI));
  }
  PetscCall(KSPSetTolerances(cj->kspest, 1.e-12, PETSC_DEFAULT, PETSC_DEFAULT, cj->eststeps));
  PetscCall(MatIsSPDKnown(pc->pmat, &isset, &spd));
  PetscCall(KSPGetOptionsPrefix(cj->kspest, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-ksp_type", &typed));
  if (!typed) PetscCall(KSPSetType(cj->kspest, isset && spd ? KSPCG : KSPGMRES));
  PetscCall(KSPSetOperators(cj->kspest, pc->mat, pc->pmat));
  PetscCall(KSPSetFromOptions(cj->kspest));

  rhs = cj->ax, sol = cj->other; /* work vectors until the first step */
  PetscCall(SetNoisy(&KSPSetNoisy_Private, pc->mat, rhs));
  PetscCall(KSPSolve(cj->kspest, rhs, sol));
  PetscCall(KSPGetConvergedReason(cj->kspest, &reason));
  if (reason < 0 && reason != KSP_DIVERGED_ITS) PetscCall(PetscInfo(pc, "Eigen estimator failed %s, using estimates anyway\n", KSPConvergedReasons[reason]));
  PetscCall(KSPGetIterationNumber(cj->kspest, &its));
  PetscCheck(its > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED, "PCCHEBYJACOBI: the eigenvalue estimate took no iteration (%s); give -pc_chebyjacobi_eigenvalues", KSPConvergedReasons[reason]);
  {
    std::vector<PetscReal> re((std::size_t)its), im((std::size_t)its);
    PetscCall(KSPComputeEigenvalues(cj->kspest, its, re.data(), im.data(), &neig));
    PetscCheck(neig > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED, "PCCHEBYJACOBI: the eigenvalue estimate found no eigenvalue; give -pc_chebyjacobi_eigenvalues");
    const auto [lo, hi] = std::minmax_element(re.begin(), re.begin() + neig);
    cj->est_min = *lo, cj->est_max = *hi;
  }
  PetscCall(PetscInfo(pc, "eigen estimate min/max = %g %g\n", (double)cj->est_min, (double)cj->est_max));
  PetscFunctionReturn(0);
}

/* The work vectors in the layout and type of the solve's vectors (those of
   the set-up come from MatCreateVecs: a PC handed other vectors, e.g. CUDA
   ones for a matrix that makes host vectors, moves D^-1 over once). */
PetscErrorCode MatchVectors(PC pc, Vec b)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;
  VecType         have, want;
  PetscBool       same;
  PetscInt        nh, nw;
  Vec             dinv;

  PetscFunctionBegin;
  PetscCall(VecGetType(cj->dinv, &have));
  PetscCall(VecGetType(b, &want));
  PetscCall(PetscStrcmp(have, want, &same));
  PetscCall(VecGetLocalSize(cj->dinv, &nh));
  PetscCall(VecGetLocalSize(b, &nw));
  PetscCheck(nh == nw, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCCHEBYJACOBI: vector of local size %" PetscInt_FMT ", the operator's is %" PetscInt_FMT, nw, nh);
  if (same) PetscFunctionReturn(0);
  PetscCall(VecDuplicate(b, &dinv));
  PetscCall(VecCopy(cj->dinv, dinv));
  PetscCall(VecDestroy(&cj->dinv));
  cj->dinv = dinv;
  PetscCall(VecDestroy(&cj->ax));
  PetscCall(VecDestroy(&cj->other));
  PetscCall(VecDuplicate(b, &cj->ax));
  PetscCall(VecDuplicate(b, &cj->other));
  PetscCall(FusedStepsSetUp(pc)); /* the fused steps read the operator where the vectors now live */
  PetscFunctionReturn(0);
}

/* x_new = s.a x_cur + s.b x_old + s.g D^-1 (b - ax), where b's values live
   (the others are moved there); null x_cur / ax: zeros; x_new is x_old's
   vector or, when x_old is null, any other. */
PetscErrorCode Update(PC pc, const pdiag::ChebyshevStep &s, Vec x_cur, Vec x_old, Vec b, Vec ax, Vec x_new)
{
  PC_ChebyJacobi    *cj     = (PC_ChebyJacobi *)pc->data;
  const bool         device = MatDiagVecOnDevice_Private(b) == PETSC_TRUE;
  const DiagVecArrays    get    = MatDiagVecArrays_Private(device);
  StepArrays         v{cj->dinv, b, x_cur, ax, x_new, x_old != nullptr};
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(b, &n));
  PetscCall(PetscLogEventBegin(PC_ChebyJacobiStep, pc, 0, 0, 0));
  const PetscLogDouble flops = (PetscLogDouble)n * (3 + (x_cur ? 2 : 0) + (x_old ? 2 : 0) + (ax ? 1 : 0));
  PetscCall(GetStepArrays(get, v));
  if (device) PetscCall(MatDiagDeviceCall(cheby_update, (Index)n, (PetscScalar)s.a, v.xc, (PetscScalar)s.b, v.xo, (PetscScalar)s.g, v.d, v.r, v.w, v.xn, flops));
  else {
    pdiag::chebyshev_jacobi_update((Index)n, (PetscScalar)s.a, v.xc, (PetscScalar)s.b, v.xo, (PetscScalar)s.g, v.d, v.r, v.w, v.xn);
    PetscCall(PetscLogFlops(flops));
  }
  PetscCall(RestoreStepArrays(get, v));
  PetscCall(PetscLogEventEnd(PC_ChebyJacobiStep, pc, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* to = from for vectors of different kinds (host, CUDA), through their
   host arrays: PETSc 3.18's VecCopy does not copy across kinds */
PetscErrorCode CopyThroughHost(Vec from, Vec to)
{
  const PetscScalar *src;
  PetscScalar       *dst;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(VecGetArrayRead(from, &src));
  PetscCall(VecGetArrayWrite(to, &dst));
  PetscCall(PetscArraycpy(dst, src, n));
  PetscCall(VecRestoreArrayWrite(to, &dst));
  PetscCall(VecRestoreArrayRead(from, &src));
  PetscFunctionReturn(0);
}

/* `steps` steps from y (zero if guesszero), the result in y. The iterates
   take turns between y and cj->other: step k writes over the iterate of
   step k - 2, so an even count ends in y without a copy. */
PetscErrorCode Steps(PC pc, Vec b, Vec y, PetscInt steps, PetscBool guesszero)
{
  PC_ChebyJacobi      *cj = (PC_ChebyJacobi *)pc->data;
  pdiag::ChebyshevSteps recurrence(cj->emin, cj->emax);
  Vec                   iterate[2];
  int                   cur = 0;

  PetscFunctionBegin;
  if (MatDiagVecOnDevice_Private(b) != MatDiagVecOnDevice_Private(y)) { /* the steps run where b lives, on vectors of its kind (ksp ex84's PCREDISTRIBUTE mixes host and CUDA vectors) */
    Vec yb;
    PetscCall(VecDuplicate(b, &yb));
    if (!guesszero) PetscCall(CopyThroughHost(y, yb));
    PetscCall(Steps(pc, b, yb, steps, guesszero));
    PetscCall(CopyThroughHost(yb, y));
    PetscCall(VecDestroy(&yb));
    PetscFunctionReturn(0);
  }
  PetscCall(MatchVectors(pc, b));
  const bool symmetric = UseSymmetric(pc, b);
  const bool inside    = !symmetric && UseProductInside(pc, b);
  iterate[0] = y, iterate[1] = cj->other;
  for (PetscInt k = 0; k < steps; k++) {
    const pdiag::ChebyshevStep s    = recurrence.next();
    const bool                 zero = guesszero && k == 0;
    /* the iterate before x_cur: none at the first step, zero (not read: y may hold anything) at the second from a zero guess */
    const bool no_old = k == 0 || (guesszero && k == 1);
    Vec        x_old  = no_old ? nullptr : iterate[1 - cur];
    if (!zero && symmetric) PetscCall(SymmetricStep(pc, s, iterate[cur], x_old, b, iterate[1 - cur]));
    else if (!zero && inside) PetscCall(ProductInsideStep(pc, s, iterate[cur], x_old, b, iterate[1 - cur]));
    else {
      if (!zero) PetscCall(MatMult(pc->mat, iterate[cur], cj->ax));
      PetscCall(Update(pc, s, zero ? nullptr : iterate[cur], x_old, b, zero ? nullptr : cj->ax, iterate[1 - cur]));
    }
    cur = 1 - cur;
  }
  if (cur) PetscCall(VecCopy(cj->other, y));
  PetscFunctionReturn(0);
}

PetscErrorCode PCApplyRichardson_ChebyJacobi(PC pc, Vec b, Vec y, Vec, PetscReal, PetscReal, PetscReal, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PetscFunctionBegin;
  PetscCall(Steps(pc, b, y, its, guesszero));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(0);
}

/* y = p(D^-1 A) D^-1 x: degree steps from a zero guess (a fixed polynomial,
   symmetric for a symmetric A: usable inside CG). */
PetscErrorCode PCApply_ChebyJacobi(PC pc, Vec x, Vec y)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCall(Steps(pc, x, y, cj->degree, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode PCSetUp_ChebyJacobi(PC pc)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;
  PetscInt        nlocal = -1, mlocal;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(pc->pmat, &mlocal, NULL));
  if (cj->dinv) PetscCall(VecGetLocalSize(cj->dinv, &nlocal));
  if (nlocal != mlocal) {
    PetscCall(VecDestroy(&cj->dinv));
    PetscCall(VecDestroy(&cj->ax));
    PetscCall(VecDestroy(&cj->other));
    PetscCall(MatCreateVecs(pc->pmat, &cj->dinv, &cj->ax));
    PetscCall(VecDuplicate(cj->ax, &cj->other));
  }
  PetscCall(MatGetDiagonal(pc->pmat, cj->dinv));
  PetscCall(InvertDiagonal(pc, cj->dinv));
  PetscCall(FusedStepsSetUp(pc));
  if (cj->emax_given > 0) {
    cj->emin = cj->emin_given, cj->emax = cj->emax_given;
  } else if (cj->keep_interval && cj->emax > 0) {
    PetscCall(PetscInfo(pc, "the operator is the one estimated, in another storage: the interval [%g, %g] is kept\n", (double)cj->emin, (double)cj->emax));
  } else {
    PetscCall(EstimateEigenvalues(pc));
    cj->emin = cj->tform[0] * cj->est_min + cj->tform[1] * cj->est_max;
    cj->emax = cj->tform[2] * cj->est_min + cj->tform[3] * cj->est_max;
    PetscCheck(cj->emax > cj->emin && cj->emin >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_CONV_FAILED,
               "PCCHEBYJACOBI: the estimated interval [%g, %g] of D^-1 A's spectrum (from the estimate %g, %g) is not positive; is the matrix positive definite? Give -pc_chebyjacobi_eigenvalues",
               (double)cj->emin, (double)cj->emax, (double)cj->est_min, (double)cj->est_max);
  }
  cj->keep_interval = false;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSetFromOptions_ChebyJacobi(PC pc, PetscDiagOptionItems PetscOptionsObject)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;
  PetscReal       eig[2] = {0, 0}, tform[4];
  PetscInt        n = 2;
  PetscBool       set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Chebyshev/Jacobi smoother (chebyjacobi) options");
  PetscCall(PetscOptionsRealArray("-pc_chebyjacobi_eigenvalues", "emin,emax: the interval of D^-1 A's spectrum to damp (no estimate)", "PCCHEBYJACOBI", eig, &n, &set));
  if (set) {
    PetscCheck(n == 2, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "-pc_chebyjacobi_eigenvalues takes two values, emin,emax; %" PetscInt_FMT " given", n);
    PetscCheck(eig[1] > eig[0] && eig[0] >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_chebyjacobi_eigenvalues %g,%g: need 0 <= emin < emax", (double)eig[0], (double)eig[1]);
    cj->emin_given = eig[0], cj->emax_given = eig[1];
  }
  std::copy(cj->tform, cj->tform + 4, tform);
  n = 4;
  PetscCall(PetscOptionsRealArray("-pc_chebyjacobi_esteig", "a,b,c,d: from the estimate [l, u], emin = a l + b u, emax = c l + d u", "PCCHEBYJACOBI", tform, &n, &set));
  if (set) {
    PetscCheck(n == 4, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "-pc_chebyjacobi_esteig takes four values a,b,c,d; %" PetscInt_FMT " given", n);
    std::copy(tform, tform + 4, cj->tform);
  }
  PetscCall(PetscOptionsInt("-pc_chebyjacobi_esteig_steps", "Iterations of the eigenvalue estimate", "PCCHEBYJACOBI", cj->eststeps, &cj->eststeps, NULL));
  PetscCheck(cj->eststeps > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_chebyjacobi_esteig_steps %" PetscInt_FMT " must be positive", cj->eststeps);
  PetscCall(PetscOptionsInt("-pc_chebyjacobi_degree", "Steps of PCApply (from a zero guess); under KSPRICHARDSON the KSP's iterations are the steps", "PCCHEBYJACOBI", cj->degree, &cj->degree, NULL));
  PetscCheck(cj->degree > 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_chebyjacobi_degree %" PetscInt_FMT " must be positive", cj->degree);
  PetscCall(PetscOptionsBool("-pc_chebyjacobi_symmetric", "Fuse the product into the step for a sequential diag operator with symmetric values (read from its main and upper diagonals)", "PCCHEBYJACOBI", cj->symmetric_allowed, &cj->symmetric_allowed, NULL));
  PetscCall(PetscOptionsBool("-pc_chebyjacobi_compressed", "On the GPU, compute the product inside the step for a sequential diag operator in the compressed constant form", "PCCHEBYJACOBI", cj->compressed_allowed, &cj->compressed_allowed, NULL));
  PetscCall(PetscOptionsBool("-pc_chebyjacobi_full", "On the host, compute the product inside the step, by chunks of rows, for a sequential diag operator stored by HM", "PCCHEBYJACOBI", cj->full_allowed, &cj->full_allowed, NULL));
  PetscCall(PetscOptionsReal("-pc_chebyjacobi_symmetric_rtol", "How far (relative) an entry may differ from its symmetric partner for the fused symmetric steps (0: exactly)", "PCCHEBYJACOBI", cj->symmetric_rtol, &cj->symmetric_rtol, NULL));
  PetscCheck(cj->symmetric_rtol >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_chebyjacobi_symmetric_rtol %g must not be negative", (double)cj->symmetric_rtol);
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

PetscErrorCode PCView_ChebyJacobi(PC pc, PetscViewer viewer)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;
  PetscBool       ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  Chebyshev/Jacobi steps on the interval [%g, %g] of D^-1 A's spectrum, degree %" PetscInt_FMT " for PCApply\n", (double)cj->emin, (double)cj->emax, cj->degree));
  if (cj->symmetric) PetscCall(PetscViewerASCIIPrintf(viewer, "  steps fused with the product, from the symmetric operator's main and %d upper diagonals (%s)\n", cj->sym.npairs, cj->sym_device ? "GPU" : "host"));
  if (cj->compressed) PetscCall(PetscViewerASCIIPrintf(viewer, "  steps fused with the product of the operator's compressed form (GPU)\n"));
  if (cj->full) PetscCall(PetscViewerASCIIPrintf(viewer, "  steps fused with the operator's product, by chunks of rows (host)\n"));
  if (cj->emax_given > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  interval given (-pc_chebyjacobi_eigenvalues)\n"));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  interval from the estimate [%g, %g] by the transform %g %g; %g %g, %" PetscInt_FMT " estimate iterations\n", (double)cj->est_min, (double)cj->est_max, (double)cj->tform[0], (double)cj->tform[1], (double)cj->tform[2],
                                     (double)cj->tform[3], cj->eststeps));
  PetscFunctionReturn(0);
}

PetscErrorCode PCReset_ChebyJacobi(PC pc)
{
  PC_ChebyJacobi *cj = (PC_ChebyJacobi *)pc->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&cj->dinv));
  PetscCall(VecDestroy(&cj->ax));
  PetscCall(VecDestroy(&cj->other));
  PetscCall(KSPDestroy(&cj->kspest));
  PetscFunctionReturn(0);
}

PetscErrorCode PCDestroy_ChebyJacobi(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_ChebyJacobi(pc));
  delete (PC_ChebyJacobi *)pc->data;
  pc->data = nullptr;
  PetscFunctionReturn(0);
}

/*MC
   PCCHEBYJACOBI - "chebyjacobi": Chebyshev-accelerated Jacobi smoothing, each step the
   operator's `MatMult()` and one fused vector update (petsc-diag)

   Options Database Keys:
+  -pc_chebyjacobi_eigenvalues <emin,emax> - the interval of the spectrum of D^-1 A to damp (then nothing is estimated)
.  -pc_chebyjacobi_esteig <a,b,c,d> - from the estimate [l, u]: emin = a l + b u, emax = c l + d u (default 0,0.1,0,1.1, what `PCMG` gives its Chebyshev smoothers)
.  -pc_chebyjacobi_esteig_steps <10> - iterations of the estimate (its KSP has the prefix <pc prefix>chebyjacobi_esteig_: GMRES, or CG for a matrix known to be SPD)
.  -pc_chebyjacobi_degree <2> - steps of `PCApply()`, from a zero guess
.  -pc_chebyjacobi_symmetric <true> - a sequential `MATDIAG` operator whose values are symmetric (checked at the set-up) is read
   from its main and upper diagonals inside the step (no separate `MatMult()`)
.  -pc_chebyjacobi_symmetric_rtol <1e-12> - how far an entry may differ from its partner, relative (0: exactly; a Galerkin product is
   symmetric to rounding)
.  -pc_chebyjacobi_compressed <true> - on the GPU, a sequential `MATDIAG` operator in the compressed constant form (constant diagonals
   with exceptions) has its product computed inside the step (no separate `MatMult()`, no A x vector)
-  -pc_chebyjacobi_full <true> - on the host, any other sequential `MATDIAG` operator stored by HM has its product computed inside the
   step, a chunk of rows at a time (no A x vector in memory; the same values as the separate product and update)

   Notes:
   Under `KSPRICHARDSON` the KSP's iterations are the steps (`PCApplyRichardson()`), the same iteration as
   `KSPCHEBYSHEV` with `PCJACOBI` on the same interval (first kind, the same eigenvalue estimate), to rounding,
   with three vector passes a step fewer. The multigrid smoother of `-pc_type mg` is
   `-mg_levels_ksp_type richardson -mg_levels_pc_type chebyjacobi` (2 steps, as PCMG's Chebyshev smoothers).
   With CUDA vectors every step runs on the GPU. Any matrix type that has `MatMult()` and `MatGetDiagonal()`.

   Level: intermediate

.seealso: `KSPCHEBYSHEV`, `PCJACOBI`, `PCMG`, `KSPRICHARDSON`, `MATDIAG`
M*/
PetscErrorCode PCCreate_ChebyJacobi(PC pc)
{
  PetscFunctionBegin;
  PetscCallCXX(pc->data = new PC_ChebyJacobi());
  pc->ops->setup           = PCSetUp_ChebyJacobi;
  pc->ops->apply           = PCApply_ChebyJacobi;
  pc->ops->applyrichardson = PCApplyRichardson_ChebyJacobi;
  pc->ops->setfromoptions  = PCSetFromOptions_ChebyJacobi;
  pc->ops->view            = PCView_ChebyJacobi;
  pc->ops->reset           = PCReset_ChebyJacobi;
  pc->ops->destroy         = PCDestroy_ChebyJacobi;
  PetscFunctionReturn(0);
}

} // namespace

/* The next set-up of pc, if it is a PCCHEBYJACOBI set up before, keeps its
   interval: its new operator is the one it estimated, in another storage
   (PCGAMG's hierarchy is built on a diag operator's aij copy, with which
   the finest smoother is set up, and then gets the diag operator back:
   interpose/aij_only.cpp). Otherwise nothing. */
PetscErrorCode MatDiagChebyJacobiKeepInterval_Private(PC pc)
{
  PetscBool is;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCCHEBYJACOBI, &is));
  if (is && pc->setupcalled) ((PC_ChebyJacobi *)pc->data)->keep_interval = true;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagRegisterChebyJacobi_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCInitializePackage());
  PetscCall(PetscLogEventRegister("PCChebyJacStep", PC_CLASSID, &PC_ChebyJacobiStep));
  PetscCall(PetscLogEventRegister("PCChebyJacSym", PC_CLASSID, &PC_ChebyJacobiSymStep));
  PetscCall(PetscLogEventRegister("PCChebyJacCmp", PC_CLASSID, &PC_ChebyJacobiCmpStep));
  PetscCall(PetscLogEventRegister("PCChebyJacFull", PC_CLASSID, &PC_ChebyJacobiFullStep));
  PetscCall(PCRegister(PCCHEBYJACOBI, PCCreate_ChebyJacobi));
  PetscFunctionReturn(0);
}
