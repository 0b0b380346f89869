/* The native ILU(0) / ICC(0) factors' solves on the GPU (CUDA builds): when
   the factor of a sequential diag matrix not bound to the CPU (seqdiagcuda,
   seqdiag, and so bjacobi's and ASM's sub-blocks) is applied to CUDA
   vectors, MatSolve,
   MatSolveTranspose, MatForwardSolve and MatBackwardSolve run on the device
   by level-scheduled triangular solves (kernels/ pdiag/factor_levels.hpp,
   src/factor_solve.cu), with no host copy of the vectors. Host vectors keep
   the host path (diag_factor_native.cpp).

   The numeric factorization stays on the host (pdiag/factor.hpp, once per
   numeric factorization). At the first device solve after it, the factor's
   diagonals are uploaded (values, offsets and the bases that address them)
   and the level schedules that solve needs are computed on the host from the
   factor (they depend on where its zeros are) and uploaded: L and U by rows
   for MatSolve, U^T and L^T by columns for MatSolveTranspose (ICC: U^T and
   U). All of it is timed by the event MatDiagFactToGPU; later solves copy
   nothing between host and device.

   A solve with hundreds of levels is bound by the launches (a few
   microseconds each), so by default each kind of solve is recorded once as
   a CUDA graph of its launches (pdiag::cuda::FactorSolveGraphs) and
   replayed by one cudaGraphLaunch; the graphs are dropped whenever the
   factor or a schedule is uploaded again. Options Database Keys:
.  -mat_diag_cuda_graphs <true> - false: one launch per level (the graphs' baseline); read at every
   solve, with the factor's prefix (bjacobi's blocks: -sub_mat_diag_cuda_graphs), else without */
#include "diag_factor_device.hpp"

#if defined(PDIAG_PETSC_CUDA)
#include "diag_cuda.hpp"

#include "pdiag/levels.hpp"

#include <array>

struct DiagFactorDevice {
  Index        n = 0, nd = 0, main = -1;
  Index       *meta = nullptr; /* offsets | bases */
  PetscScalar *val  = nullptr;
  std::size_t  meta_cap = 0, val_cap = 0;
  bool         halves_defined = false; /* ICC: 1 / D >= 0, MatForwardSolve / MatBackwardSolve allowed */
  /* per pdiag::SolveScheduleKind: host level pointers, device rows, whether current */
  std::array<std::vector<Index>, pdiag::kSolveScheduleKinds> level_ptr;
  std::array<Index *, pdiag::kSolveScheduleKinds>            rows{};
  std::array<std::size_t, pdiag::kSolveScheduleKinds>        rows_cap{};
  std::array<bool, pdiag::kSolveScheduleKinds>               have{};
  pdiag::cuda::FactorSolveGraphs<PetscScalar>                graphs; /* dropped (reset) at every upload: they hold its addresses */

  ~DiagFactorDevice()
  {
    if (meta) cudaFree(meta);
    if (val) cudaFree(val);
    for (Index *r : rows)
      if (r) cudaFree(r);
  }
};

PetscBool MatDiagFactorDeviceWanted_Private(Vec b, Vec x)
{
  for (Vec v : {b, x}) {
    PetscBool cuda = PETSC_FALSE, bound = PETSC_FALSE;
    if (PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, "") || !cuda) return PETSC_FALSE;
    if (VecBoundToCPU(v, &bound) || bound) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

void MatDiagFactorDeviceDestroy_Private(DiagFactorDevice *dev)
{
  delete dev;
}

/* The factor's values and addressing on the device. */
static PetscErrorCode UploadFactor(DiagFactorDevice &d, const Hm &F)
{
  const pdiag::HmView<const PetscScalar> v = F.view();
  std::vector<Index>                     meta;

  PetscFunctionBegin;
  d.n    = F.layout.nrows;
  d.nd   = F.ndiag();
  d.main = pdiag::main_diagonal_index(F.offsets.data(), d.nd);
  PetscCheck(d.main >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: factor without its main diagonal");
  DiagCallKernel(meta = F.offsets; const std::vector<Index> base = pdiag::hm_diagonal_bases(v); meta.insert(meta.end(), base.begin(), base.end()));
  PetscCall(DiagReserveDevice(&d.meta, &d.meta_cap, meta.size()));
  PetscCall(DiagReserveDevice(&d.val, &d.val_cap, F.val.size()));
  DiagCallCUDA(cudaMemcpy(d.meta, meta.data(), meta.size() * sizeof(Index), cudaMemcpyHostToDevice));
  if (!F.val.empty()) DiagCallCUDA(cudaMemcpy(d.val, F.val.data(), F.val.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(meta.size() * sizeof(Index) + F.val.size() * sizeof(PetscScalar))));
  {
    const std::vector<Index>                    &off = F.offsets;
    const pdiag::FactorRowsView<PetscScalar>     host{d.n, d.nd, d.main, off.data(), meta.data() + d.nd, F.val.data()};
    DiagCallKernel(d.halves_defined = pdiag::hm_icc_halves_defined(host));
  }
  d.have.fill(false);
  d.graphs.reset();
  PetscFunctionReturn(0);
}

/* The schedules of the passes of `what`, computed and uploaded if missing. */
static PetscErrorCode EnsureSchedules(Mat F, DiagFactorDevice &d, const Hm &factor, pdiag::FactorSolve what)
{
  const pdiag::FactorSolveSteps st = pdiag::factor_solve_steps(what);

  PetscFunctionBegin;
  for (int p = 0; p < st.npasses; ++p) {
    const pdiag::SolveScheduleKind kind = pdiag::pass_schedule(st.pass[(std::size_t)p]);
    const std::size_t              k    = (std::size_t)kind;
    if (d.have[k]) continue;
    pdiag::LevelSchedule s;
    DiagCallKernel(s = pdiag::hm_factor_schedule(factor.view(), kind));
    PetscCall(DiagReserveDevice(&d.rows[k], &d.rows_cap[k], s.rows.size()));
    if (!s.rows.empty()) DiagCallCUDA(cudaMemcpy(d.rows[k], s.rows.data(), s.rows.size() * sizeof(Index), cudaMemcpyHostToDevice));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(s.rows.size() * sizeof(Index))));
    PetscCall(PetscInfo(F, "diag: level schedule %d of the factor on the GPU: %" PetscInt_FMT " rows, %" PetscInt_FMT " levels\n", (int)kind, (PetscInt)d.n, (PetscInt)s.nlevels()));
    d.level_ptr[k] = std::move(s.level_ptr);
    d.have[k]      = true;
    d.graphs.reset();
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorDeviceSolve_Private(Mat F, DiagFactorDevice **pdev, const Hm &factor, PetscBool *stale, pdiag::FactorSolve what, Vec bb, Vec xx)
{
  const PetscScalar *b;
  PetscScalar       *x;

  PetscFunctionBegin;
  if (!*pdev) PetscCallCXX(*pdev = new DiagFactorDevice());
  DiagFactorDevice             &d  = **pdev;
  const pdiag::FactorSolveSteps st = pdiag::factor_solve_steps(what);
  bool                          missing = *stale ? true : false;
  for (int p = 0; p < st.npasses; ++p) missing = missing || !d.have[(std::size_t)pdiag::pass_schedule(st.pass[(std::size_t)p])];
  if (missing) { /* the event counts uploads, not solves */
    PetscCall(PetscLogEventBegin(MATDIAG_FactorToGPU, F, 0, 0, 0));
    if (*stale) {
      PetscCall(UploadFactor(d, factor));
      *stale = PETSC_FALSE;
    }
    PetscCall(EnsureSchedules(F, d, factor, what));
    PetscCall(PetscLogEventEnd(MATDIAG_FactorToGPU, F, 0, 0, 0));
  }
  PetscCheck(d.halves_defined || (what != pdiag::FactorSolve::IccForward && what != pdiag::FactorSolve::IccBackward), PETSC_COMM_SELF, PETSC_ERR_SUP, "Diagonal must be real and nonnegative");
  std::array<pdiag::cuda::LevelsView, pdiag::kSolveScheduleKinds> sched;
  for (std::size_t k = 0; k < sched.size(); ++k) sched[k] = {d.have[k] ? (Index)d.level_ptr[k].size() - 1 : 0, d.have[k] ? d.level_ptr[k].data() : nullptr, d.rows[k]};
  const pdiag::FactorRowsView<PetscScalar> view{d.n, d.nd, d.main, d.meta, d.meta + d.nd, d.val};
  PetscBool                                graphs = PETSC_TRUE, set = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(((PetscObject)F)->options, ((PetscObject)F)->prefix, "-mat_diag_cuda_graphs", &graphs, &set));
  if (!set) PetscCall(PetscOptionsGetBool(((PetscObject)F)->options, NULL, "-mat_diag_cuda_graphs", &graphs, NULL));
  PetscCall(VecCUDAGetArrayRead(bb, &b));
  PetscCall(VecCUDAGetArrayWrite(xx, &x));
  PetscCall(PetscLogGpuTimeBegin());
  if (graphs) {
    const long recorded = d.graphs.recordings();
    DiagCallCUDA(d.graphs.solve(view, what, b, x, sched.data(), PetscDefaultCudaStream));
    if (d.graphs.recordings() != recorded) PetscCall(PetscInfo(F, "diag: solve %d of the factor recorded as a CUDA graph\n", (int)what));
  } else DiagCallCUDA(pdiag::cuda::hm_factor_solve(view, what, b, x, sched.data(), PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(xx, &x));
  PetscCall(VecCUDARestoreArrayRead(bb, &b));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)factor.nstored()));
  PetscFunctionReturn(0);
}

#endif
