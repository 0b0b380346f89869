/* ILU(0) and ICC(0) on the diagonals (docs/design.md, "Factorizations and preconditioners"): the factors keep the
   matrix's stored diagonals (L on d < 0, U on d > 0), computed and applied
   by kernels/ pdiag/factor.hpp. Used for PCILU / PCICC with the "petsc"
   package, zero levels of fill and the natural ordering on a sequential
   diag matrix (PETSc's defaults, and bjacobi's and ASM's default sub-PC);
   everything else goes through the aij companion (factor/factor.cpp).
   -mat_diag_native_factor 0 sends these through the companion too.

   The factor matrix is the one PETSc's "petsc" package created (so PCFactor
   and MatFactorGetSolverType see what they expect); its numeric phase and
   solves are replaced by the ones on the diagonals, which keep their data
   in a container composed with it. Pivots follow PETSc's shift strategies
   (-pc_factor_shift_type none | nonzero | positive_definite | inblocks,
   -pc_factor_shift_amount, -pc_factor_zeropivot) through PETSc's own
   MatPivotCheck.

   The pattern is aij's: the entries aij would hold for this matrix (its
   nonzeros, its diagonal, a DMDA's stencil couplings: companion/companion.cpp),
   not the other stored zeros of the diagonals (where a diagonal runs past
   the end of a grid line, fill there would make a different, stronger
   preconditioner). So the factor is aij's ILU(0) / ICC(0), computed in
   the same order: the same preconditioner to rounding. A matrix whose
   diagonals are mostly stored zeros is factored through the companion
   instead (the same result, by rows).

   The host's solves read the factor from its diagonals or, where a
   triangle has more than 8 (multi-component operators), from a copy by
   rows made once per numeric factorization (pdiag/factor_solve.hpp).

   In CUDA builds, when the matrix expects CUDA vectors and was not bound
   to the CPU (as its products decide), the numeric factorization runs on
   the device by levels (device/factor.cpp, pdiag/factor_numeric.hpp;
   -mat_diag_device_ilu_numeric false keeps it here), unless a pivot needs
   PETSc's shift policy, which only the host's sequential factorization
   applies; and solves with CUDA vectors run on the device. */

#include "core/mat_diag.hpp"

#include "pdiag/factor_solve.hpp"
#include "pdiag/ops.hpp"

namespace {

const char *const kNativeName = "MatDiagNativeFactor";

struct NativeFactor {
  MatFactorType              type = MAT_FACTOR_ILU;
  pdiag::HmFactorPlan        plan;
  Hm                         F;
  std::vector<Index>         a_offsets; /* the diagonals of A the symbolic phase saw */
  std::vector<unsigned char> pattern;   /* F's entries aij's factor holds (see the top of the file) */
  PetscInt                   pattern_version = 0; /* changes with pattern (the device's schedules are built from it) */
  PetscBool                  device = PETSC_FALSE;   /* A was not bound to the CPU: solves with CUDA vectors on the device (CUDA builds) */
  PetscBool                  dev_stale = PETSC_TRUE; /* F changed since its upload */
  PetscBool                  host_stale = PETSC_FALSE; /* F was factored on the device and not copied back yet */
  PetscBool                  by_rows    = PETSC_FALSE; /* the host's solves read a copy of F by rows (pdiag/factor_solve.hpp) */
  pdiag::FactorByRows<PetscScalar> rows;              /* that copy */
  PetscBool                  rows_stale = PETSC_TRUE; /* F changed since it was made */
  DiagFactorDevice          *dev = nullptr;          /* the device copy (CUDA builds) */

  DiagFactorPattern marks() const { return {&pattern, pattern_version}; }

  NativeFactor() = default;
  NativeFactor(const NativeFactor &) = delete;
  NativeFactor &operator=(const NativeFactor &) = delete;
  ~NativeFactor()
  {
    if (dev) MatDiagDeviceOps_Private->factor_destroy(dev); /* a device copy exists only with a device layer */
  }
};

PetscErrorCode GetNative(Mat F, NativeFactor **nf)
{
  PetscFunctionBegin;
  PetscCall(PetscDiagQueryObject((PetscObject)F, kNativeName, nf));
  PetscCheck(*nf, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: factor on the diagonals not set up (MatILUFactorSymbolic/MatICCFactorSymbolic first)");
  PetscFunctionReturn(0);
}

/* PETSc's shift strategies for the kernels' pivot policy: the same
   FactorShiftCtx and MatPivotCheck that aij's factorizations use. */
struct PetscPivotPolicy {
  Mat                  F, A;
  const MatFactorInfo *info;
  FactorShiftCtx       sctx;
  PetscErrorCode       error = 0;

  PetscPivotPolicy(Mat F_, Mat A_, const MatFactorInfo *info_, double row_excess) : F(F_), A(A_), info(info_)
  {
    PetscMemzero(&sctx, sizeof(sctx));
    if (info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE) {
      sctx.shift_top  = PetscMax(info->zeropivot, (PetscReal)row_excess) * 1.1;
      sctx.nshift_max = 5;
      sctx.shift_lo   = 0.;
      sctx.shift_hi   = 1.;
    }
  }
  PetscScalar begin_pass()
  {
    sctx.newshift = PETSC_FALSE;
    return sctx.shift_amount;
  }
  pdiag::PivotDecision<PetscScalar> check(Index row, PetscScalar pivot, double rowsum)
  {
    sctx.rs = (PetscReal)rowsum;
    sctx.pv = pivot;
    error   = MatPivotCheck(F, A, info, &sctx, (PetscInt)row);
    if (error) return {pdiag::PivotAction::Stop, pivot};
    if (sctx.newshift) return {pdiag::PivotAction::Restart, pivot};
    return {pdiag::PivotAction::Accept, sctx.pv};
  }
  bool again()
  { /* positive definite: after a pass that needed a shift, try a smaller one (MatPivotRefine) */
    if (info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE && sctx.shift_fraction > 0 && sctx.nshift < sctx.nshift_max) {
      sctx.shift_hi       = sctx.shift_fraction;
      sctx.shift_fraction = (sctx.shift_hi + sctx.shift_lo) / 2.;
      sctx.shift_amount   = sctx.shift_fraction * sctx.shift_top;
      sctx.nshift++;
      return true;
    }
    return false;
  }
};

/* A value of A that became nonzero since the last factorization joins the
   pattern, as a new entry would in aij (the version changes if any did). */
PetscErrorCode GrowPattern(NativeFactor *nf, const Hm &hm)
{
  std::vector<unsigned char> nonzero, grown;
  bool                       changed = false;

  PetscFunctionBegin;
  DiagCallKernel(nonzero = pdiag::hm_entry_mask(hm, [](Index, Index, PetscScalar value) { return value != 0.0; }); grown = pdiag::hm_factor_pattern(nf->F, hm.view(), nonzero.data()));
  for (std::size_t p = 0; p < grown.size(); ++p)
    if (grown[p] && !nf->pattern[p]) {
      nf->pattern[p] = 1;
      changed        = true;
    }
  if (changed) nf->pattern_version++;
  PetscFunctionReturn(0);
}

PetscErrorCode Numeric_Native(Mat F, Mat A, const MatFactorInfo *info)
{
  NativeFactor *nf;
  const Hm     *hm;
  PetscBool     on_device = PETSC_FALSE, grown = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(GetNative(F, &nf));
  PetscCall(MatDiagHm_Private(A, &hm));
  PetscCheck(hm->offsets == nf->a_offsets, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "diag: the diagonals of the matrix changed since the symbolic factorization");
  const pdiag::HmView<const PetscScalar> v = hm->view();
  PetscBool bound;
  PetscCall(MatBoundToCPU(A, &bound));
  nf->device = MatDiagDeviceOps_Private && !bound ? PETSC_TRUE : PETSC_FALSE; /* as for products: the vectors decide */
  if (nf->device) {
    /* on the device when A's vectors are CUDA ones, unless a pivot needs
       PETSc's policy; the device checks whether A has nonzeros outside the
       pattern, which then grows here first */
    const PetscBool ilu    = nf->type == MAT_FACTOR_ILU ? PETSC_TRUE : PETSC_FALSE;
    PetscBool       misses = PETSC_FALSE;
    PetscCall(MatDiagDeviceTry(factor_numeric, F, A, &nf->dev, v, nf->F, nf->plan, nf->marks(), ilu, info, PETSC_TRUE, &misses, &nf->dev_stale, &nf->host_stale, &on_device));
    if (misses) {
      PetscCall(GrowPattern(nf, *hm));
      grown = PETSC_TRUE;
      PetscCall(MatDiagDeviceTry(factor_numeric, F, A, &nf->dev, v, nf->F, nf->plan, nf->marks(), ilu, info, PETSC_FALSE, &misses, &nf->dev_stale, &nf->host_stale, &on_device));
    }
  }
  if (!on_device && !grown) PetscCall(GrowPattern(nf, *hm));
  if (!on_device) {
    double excess;
    DiagCallKernel(excess = pdiag::hm_max_row_excess(v));
    PetscPivotPolicy policy(F, A, info, excess);
    bool             done = false;
    if (nf->type == MAT_FACTOR_ILU) DiagCallKernel(done = pdiag::hm_ilu0(v, nf->plan, nf->F, policy, nf->pattern.data()));
    else DiagCallKernel(done = pdiag::hm_icc0(v, nf->plan, nf->F, policy, nf->pattern.data()));
    PetscCall(policy.error);
    (void)done; /* a stop without error: the zero pivot is recorded in F's factor error, as aij does */
    if (policy.sctx.nshift) PetscCall(PetscInfo(A, "diag: %s(0) on the diagonals needed %" PetscInt_FMT " shift(s), shift amount %g\n", nf->type == MAT_FACTOR_ILU ? "ILU" : "ICC", policy.sctx.nshift, (double)policy.sctx.shift_amount));
    PetscCall(PetscLogFlops((PetscLogDouble)(2 * nf->F.nstored())));
    nf->dev_stale  = PETSC_TRUE;
    nf->host_stale = PETSC_FALSE;
  }
  if (nf->device) PetscCall(MatDiagDeviceTry(factor_prepare, F, A, &nf->dev, nf->F, nf->marks(), &nf->dev_stale, nf->type == MAT_FACTOR_ILU ? pdiag::FactorSolve::IluSolve : pdiag::FactorSolve::IccSolve));
  nf->rows_stale = PETSC_TRUE;
  F->assembled    = PETSC_TRUE;
  F->preallocated = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* solve(f) with the factor as the host's solves read it: its copy by rows,
   or its diagonals (pdiag/factor_solve.hpp). */
template <class Solve>
PetscErrorCode WithFactor(const NativeFactor &nf, Solve &&solve)
{
  PetscFunctionBegin;
  if (nf.by_rows) DiagCallKernel(solve(nf.rows));
  else DiagCallKernel(solve(pdiag::factor_by_diagonals(static_cast<const Hm &>(nf.F).view(), nf.plan)));
  PetscFunctionReturn(0);
}

/* y = op(F)^{-1} b: on the device (`what`) with CUDA vectors when the
   matrix was not bound to the CPU and the factor's device steps are full
   enough (device/factor.cpp), else through the kernel `solve` on host
   arrays. */
template <class Solve>
PetscErrorCode Apply(Mat F, Vec b, Vec x, pdiag::FactorSolve what, Solve &&solve)
{
  NativeFactor      *nf;
  const PetscScalar *ba;
  PetscScalar       *xa;

  PetscFunctionBegin;
  PetscCall(GetNative(F, &nf));
  if (nf->device && MatDiagFactorDeviceWanted_Private(b, x)) {
    PetscBool done = PETSC_FALSE;
    PetscCall(MatDiagDeviceCall(factor_solve, F, &nf->dev, nf->F, nf->marks(), &nf->dev_stale, what, b, x, &done));
    if (done) PetscFunctionReturn(0);
  }
  if (nf->host_stale) { /* factored on the device: the host solve needs the values here */
    PetscCall(MatDiagDeviceCall(factor_download, nf->dev, nf->F));
    nf->host_stale = PETSC_FALSE;
  }
  if (nf->by_rows && nf->rows_stale) {
    DiagCallKernel(nf->rows = pdiag::factor_by_rows(static_cast<const Hm &>(nf->F).view(), nf->plan));
    nf->rows_stale = PETSC_FALSE;
  }
  PetscCall(VecGetArrayRead(b, &ba));
  PetscCall(VecGetArrayWrite(x, &xa));
  PetscCall(solve(*nf, ba, xa));
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscCall(VecRestoreArrayRead(b, &ba));
  PetscCall(PetscLogFlops((PetscLogDouble)(2 * nf->F.nstored())));
  PetscFunctionReturn(0);
}

PetscErrorCode Solve_Native(Mat F, Vec b, Vec x)
{
  NativeFactor *self;

  PetscFunctionBegin;
  PetscCall(GetNative(F, &self));
  PetscCall(Apply(F, b, x, self->type == MAT_FACTOR_ILU ? pdiag::FactorSolve::IluSolve : pdiag::FactorSolve::IccSolve, [](NativeFactor &nf, const PetscScalar *ba, PetscScalar *xa) -> PetscErrorCode {
    return WithFactor(nf, [&](const auto &f) {
      if (nf.type == MAT_FACTOR_ILU) pdiag::factor_ilu_solve(f, ba, xa);
      else pdiag::factor_icc_solve(f, ba, xa);
    });
  }));
  PetscFunctionReturn(0);
}

PetscErrorCode SolveTranspose_Native(Mat F, Vec b, Vec x)
{
  NativeFactor *self;

  PetscFunctionBegin;
  PetscCall(GetNative(F, &self));
  PetscCall(Apply(F, b, x, self->type == MAT_FACTOR_ILU ? pdiag::FactorSolve::IluSolveTranspose : pdiag::FactorSolve::IccSolve, [](NativeFactor &nf, const PetscScalar *ba, PetscScalar *xa) -> PetscErrorCode {
    return WithFactor(nf, [&](const auto &f) {
      if (nf.type == MAT_FACTOR_ILU) pdiag::factor_ilu_solve_transpose(f, ba, xa);
      else pdiag::factor_icc_solve(f, ba, xa); /* U^T D U is symmetric */
    });
  }));
  PetscFunctionReturn(0);
}

/* The halves of ICC's solve for symmetric preconditioning (PCApplySymmetricLeft/Right). */
PetscErrorCode ForwardSolve_Native(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Apply(F, b, x, pdiag::FactorSolve::IccForward, [](NativeFactor &nf, const PetscScalar *ba, PetscScalar *xa) -> PetscErrorCode {
    bool ok = false;
    PetscCall(WithFactor(nf, [&](const auto &f) { ok = pdiag::factor_icc_forward(f, ba, xa); }));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_SUP, "Diagonal must be real and nonnegative");
    return 0;
  }));
  PetscFunctionReturn(0);
}

PetscErrorCode BackwardSolve_Native(Mat F, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Apply(F, b, x, pdiag::FactorSolve::IccBackward, [](NativeFactor &nf, const PetscScalar *ba, PetscScalar *xa) -> PetscErrorCode {
    bool ok = false;
    PetscCall(WithFactor(nf, [&](const auto &f) { ok = pdiag::factor_icc_backward(f, ba, xa); }));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_SUP, "Diagonal must be real and nonnegative");
    return 0;
  }));
  PetscFunctionReturn(0);
}

PetscErrorCode GetInfo_Native(Mat F, MatInfoType flag, MatInfo *info)
{
  NativeFactor *nf;

  PetscFunctionBegin;
  (void)flag;
  PetscCall(GetNative(F, &nf));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size        = 1.0;
  info->nz_allocated      = (PetscLogDouble)nf->F.nstored();
  info->nz_used           = (PetscLogDouble)nf->F.nstored();
  info->memory            = (PetscLogDouble)(nf->F.nstored() * sizeof(PetscScalar));
  info->assemblies        = (PetscLogDouble)F->num_ass;
  info->fill_ratio_given  = 1.0;
  info->fill_ratio_needed = 1.0;
  PetscFunctionReturn(0);
}

PetscErrorCode View_Native(Mat F, PetscViewer viewer)
{
  NativeFactor *nf;
  PetscBool     ascii;

  PetscFunctionBegin;
  PetscCall(GetNative(F, &nf));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  %s(0) on the diagonals (diag): %" PetscInt_FMT " diagonals, %" PetscInt64_FMT " stored entries\n", nf->type == MAT_FACTOR_ILU ? "ILU" : "ICC", (PetscInt)nf->F.ndiag(),
                                     (PetscInt64)nf->F.nstored()));
  PetscFunctionReturn(0);
}

} // namespace

PetscErrorCode MatDiagFactorNativeMayApply_Private(Mat A, const char *package, MatFactorType ftype, PetscBool *may)
{
  PetscBool petsc, seq, wanted = PETSC_TRUE;

  PetscFunctionBegin;
  *may = PETSC_FALSE;
  if (ftype != MAT_FACTOR_ILU && ftype != MAT_FACTOR_ICC) PetscFunctionReturn(0);
  PetscCall(PetscStrcmp(package, MATSOLVERPETSC, &petsc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &seq, MATSEQDIAG, MATSEQDIAGCUDA, ""));
  if (!petsc || !seq) PetscFunctionReturn(0);
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::NativeFactor, &wanted));
  *may = wanted;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorNativeApplies_Private(Mat F, Mat A, const char *package, MatFactorType ftype, IS row, IS col, const MatFactorInfo *info, PetscBool *native)
{
  PetscBool may, identity = PETSC_TRUE;

  PetscFunctionBegin;
  (void)F;
  *native = PETSC_FALSE;
  PetscCall(MatDiagFactorNativeMayApply_Private(A, package, ftype, &may));
  /* an empty block (a process without rows of a field or a redistributed
     system) has no diagonals to factor on: aij's path handles it */
  if (!may || (PetscInt)info->levels != 0 || A->rmap->N != A->cmap->N || A->rmap->N == 0) PetscFunctionReturn(0);
  if (row) PetscCall(ISIdentity(row, &identity));
  if (identity && col) PetscCall(ISIdentity(col, &identity));
  if (!identity) PetscFunctionReturn(0);
  { /* by diagonals only where they are mostly full: a matrix whose
       diagonals are mostly stored zeros (an irregular matrix stored as
       diag) factors faster by rows, with the same result */
    const Hm *hm;
    Index     nnz;
    PetscCall(MatDiagHm_Private(A, &hm));
    DiagCallKernel(nnz = pdiag::count_nonzeros(hm->view()));
    *native = 2 * nnz >= hm->nstored() ? PETSC_TRUE : PETSC_FALSE;
    if (!*native) PetscCall(PetscInfo(A, "diag: %s(0) through the aij copy: %" PetscInt64_FMT " of %" PetscInt64_FMT " stored entries are nonzero\n", ftype == MAT_FACTOR_ILU ? "ILU" : "ICC", (PetscInt64)nnz, (PetscInt64)hm->nstored()));
  }
  PetscFunctionReturn(0);
}

/* Takes over the factor F for a factorization on A's diagonals. */
PetscErrorCode MatDiagFactorNativeSymbolic_Private(Mat F, Mat A, MatFactorType ftype, const MatFactorInfo *info)
{
  NativeFactor *nf;
  const Hm     *hm;

  PetscFunctionBegin;
  (void)info;
  PetscCall(MatDiagHm_Private(A, &hm));
  PetscCallCXX(nf = new NativeFactor());
  nf->type      = ftype;
  nf->a_offsets = hm->offsets;
  {
    std::vector<unsigned char> a_entries;
    PetscErrorCode             ierr = MatDiagAijEntriesMask_Private(A, *hm, &a_entries);
    if (!ierr) {
      try {
        const pdiag::HmView<const PetscScalar> v = hm->view();
        nf->F       = ftype == MAT_FACTOR_ILU ? pdiag::hm_ilu0_storage(v, &nf->plan) : pdiag::hm_icc0_storage(v, &nf->plan);
        nf->pattern = pdiag::hm_factor_pattern(nf->F, v, a_entries.data());
        nf->by_rows = pdiag::factor_solves_by_rows(nf->plan) ? PETSC_TRUE : PETSC_FALSE;
      } catch (const std::exception &e) {
        delete nf;
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "diag: %s", e.what());
      }
    } else delete nf;
    PetscCall(ierr);
  }
  PetscCall(PetscDiagComposeObject((PetscObject)F, kNativeName, nf));
  PetscCall(PetscInfo(A, "diag: %s(0) on the diagonals: %" PetscInt_FMT " diagonals%s\n", ftype == MAT_FACTOR_ILU ? "ILU" : "ICC", (PetscInt)nf->F.ndiag(), nf->by_rows ? " (host solves read a copy by rows)" : ""));
  struct _MatOps *ops = F->ops;
  if (ftype == MAT_FACTOR_ILU) ops->lufactornumeric = Numeric_Native;
  else ops->choleskyfactornumeric = Numeric_Native;
  ops->solve             = Solve_Native;
  ops->solvetranspose    = SolveTranspose_Native;
  ops->solveadd          = NULL; /* PETSc composes these from the solves */
  ops->solvetransposeadd = NULL;
  ops->matsolve          = NULL;
  ops->matsolvetranspose = NULL;
  ops->forwardsolve      = ftype == MAT_FACTOR_ICC ? ForwardSolve_Native : NULL;
  ops->backwardsolve     = ftype == MAT_FACTOR_ICC ? BackwardSolve_Native : NULL;
  ops->getinertia        = NULL;
  ops->getinfo           = GetInfo_Native;
  ops->view              = View_Native;
  F->info.factor_mallocs    = 0;
  F->info.fill_ratio_given  = 1.0;
  F->info.fill_ratio_needed = 1.0;
  PetscFunctionReturn(0);
}
