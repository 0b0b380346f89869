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

   A solve with hundreds of levels is bound by its synchronizations (a
   launch per level, a few microseconds each). By default the passes run by
   tiles (pdiag/factor_tiles.hpp, pdiag::cuda::hm_factor_solve_tiled): the
   rows seen as a grid guessed from the factor's offsets (DMDA ordering),
   cut into boxes, one block per box, the boxes synchronized by flags in
   global memory, one launch per pass. The tiled schedules are built on the
   host at the same time as the level schedules would be, and uploaded. A
   factor the tiles do not fit (a 9/27-point stencil, whose boxes read each
   other, or rows of more than 16 terms) keeps the level-scheduled passes:
   then each kind of solve is recorded once as a CUDA graph of its
   launches (pdiag::cuda::FactorSolveGraphs) and replayed by one
   cudaGraphLaunch; the graphs are dropped whenever the factor or a
   schedule is uploaded again. -info says which ran. Options Database Keys
   (read at every solve, with the factor's prefix, bjacobi's blocks:
   -sub_mat_diag_..., else without):
+  -mat_diag_factor_tiles <true> - false: the level-scheduled passes (the tiles' baseline)
.  -mat_diag_factor_tile_box <tx,ty,tz> - the boxes' points per axis (default 4,4,2 in 3D, 8,4,1 in 2D, 32,1,1 on a line; at most 32 points in all: a warp)
-  -mat_diag_cuda_graphs <true> - false: one launch per level (the graphs' baseline) */
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
  /* per kind: the tiled schedule (tried once per upload; host geometry, device records | extra and state | flags) */
  std::array<bool, pdiag::kSolveScheduleKinds>                    tiles_tried{}, have_tiles{};
  std::array<pdiag::cuda::TilesView, pdiag::kSolveScheduleKinds> tiles{};
  std::array<int *, pdiag::kSolveScheduleKinds>                   tile_index{};
  std::array<unsigned *, pdiag::kSolveScheduleKinds>              tile_work{};
  std::array<std::size_t, pdiag::kSolveScheduleKinds>             tile_index_cap{}, tile_work_cap{};

  ~DiagFactorDevice()
  {
    if (meta) cudaFree(meta);
    if (val) cudaFree(val);
    for (Index *r : rows)
      if (r) cudaFree(r);
    for (int *r : tile_index)
      if (r) cudaFree(r);
    for (unsigned *w : tile_work)
      if (w) cudaFree(w);
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
  d.tiles_tried.fill(false);
  d.have_tiles.fill(false);
  d.graphs.reset();
  PetscFunctionReturn(0);
}

/* The tiled schedule of one kind, built and uploaded (d.have_tiles[k] if there is one). */
static PetscErrorCode TryTiles(Mat F, DiagFactorDevice &d, const Hm &factor, pdiag::SolveScheduleKind kind)
{
  const std::size_t          k = (std::size_t)kind;
  pdiag::TileSchedule        s;
  std::vector<Index>         base;
  const pdiag::GridShape     grid = pdiag::infer_grid_shape(factor.offsets.data(), factor.ndiag(), d.n);

  PetscInt                   box[3] = {0, 0, 0}, nbox = 3;
  PetscBool                  set = PETSC_FALSE;

  PetscFunctionBegin;
  d.tiles_tried[k] = true;
  PetscCall(PetscOptionsGetIntArray(((PetscObject)F)->options, ((PetscObject)F)->prefix, "-mat_diag_factor_tile_box", box, &nbox, &set));
  if (!set) {
    nbox = 3;
    PetscCall(PetscOptionsGetIntArray(((PetscObject)F)->options, NULL, "-mat_diag_factor_tile_box", box, &nbox, &set));
  }
  PetscCheck(!set || (nbox == 3 && box[0] > 0 && box[1] > 0 && box[2] > 0 && box[0] * box[1] * box[2] <= pdiag::kTileMaxRows), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: -mat_diag_factor_tile_box needs three positive sizes with a product of at most %" PetscInt_FMT, (PetscInt)pdiag::kTileMaxRows);
  DiagCallKernel(base = pdiag::hm_diagonal_bases(factor.view()); const pdiag::FactorRowsView<PetscScalar> host{d.n, d.nd, d.main, factor.offsets.data(), base.data(), factor.val.data()};
                 s = pdiag::hm_factor_tile_schedule(host, kind, grid, {set ? (Index)box[0] : 0, (Index)box[1], (Index)box[2]}));
  pdiag::TileRecords rec;
  bool               ok = !s.empty();
  if (ok) DiagCallKernel(ok = pdiag::tile_records(s, rec));
  if (!ok) {
    PetscCall(PetscInfo(F, "diag: no tiled schedule %d for the factor (grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT "): level-scheduled passes\n", (int)kind, (PetscInt)grid.nx, (PetscInt)grid.ny, (PetscInt)grid.nz));
    PetscFunctionReturn(0);
  }
  const std::size_t nt = (std::size_t)s.ntiles(), nidx = rec.rec.size() + rec.extra.size();
  PetscCall(DiagReserveDevice(&d.tile_index[k], &d.tile_index_cap[k], nidx));
  PetscCall(DiagReserveDevice(&d.tile_work[k], &d.tile_work_cap[k], nt + 2));
  int *dev = d.tile_index[k];
  DiagCallCUDA(cudaMemcpy(dev, rec.rec.data(), rec.rec.size() * sizeof(int), cudaMemcpyHostToDevice));
  if (!rec.extra.empty()) DiagCallCUDA(cudaMemcpy(dev + rec.rec.size(), rec.extra.data(), rec.extra.size() * sizeof(int), cudaMemcpyHostToDevice));
  DiagCallCUDA(cudaMemset(d.tile_work[k], 0, (nt + 2) * sizeof(unsigned)));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(nidx * sizeof(int))));
  d.tiles[k]      = {s.grid, s.tx, s.ty, s.tz, s.ntiles(), s.max_terms, dev, dev + rec.rec.size(), d.tile_work[k] + 2, d.tile_work[k]};
  d.have_tiles[k] = true;
  PetscCall(PetscInfo(F, "diag: tiled schedule %d of the factor on the GPU: grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", boxes %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " tiles\n", (int)kind, (PetscInt)grid.nx, (PetscInt)grid.ny,
                      (PetscInt)grid.nz, (PetscInt)s.tx, (PetscInt)s.ty, (PetscInt)s.tz, (PetscInt)s.ntiles()));
  PetscFunctionReturn(0);
}

/* The tiled schedules of the passes of `what` where wanted and possible
   (*tiled: every pass has one), else their level schedules, computed and
   uploaded if missing. */
static PetscErrorCode EnsureSchedules(Mat F, DiagFactorDevice &d, const Hm &factor, pdiag::FactorSolve what, PetscBool want_tiles, PetscBool *tiled)
{
  const pdiag::FactorSolveSteps st = pdiag::factor_solve_steps(what);

  PetscFunctionBegin;
  *tiled = want_tiles;
  for (int p = 0; p < st.npasses && want_tiles; ++p) {
    const pdiag::SolveScheduleKind kind = pdiag::pass_schedule(st.pass[(std::size_t)p]);
    if (!d.tiles_tried[(std::size_t)kind]) PetscCall(TryTiles(F, d, factor, kind));
    if (!d.have_tiles[(std::size_t)kind]) *tiled = PETSC_FALSE;
  }
  if (*tiled) PetscFunctionReturn(0);
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

/* The factor and the schedules of `what` on the device, uploaded if
   missing (*tiled: the solve runs by tiles). */
static PetscErrorCode Prepare(Mat F, DiagFactorDevice **pdev, const Hm &factor, PetscBool *stale, pdiag::FactorSolve what, PetscBool *tiled)
{
  PetscFunctionBegin;
  if (!*pdev) PetscCallCXX(*pdev = new DiagFactorDevice());
  DiagFactorDevice             &d  = **pdev;
  const pdiag::FactorSolveSteps st = pdiag::factor_solve_steps(what);
  PetscBool                     want_tiles = PETSC_TRUE;
  PetscCall(DiagGetPrefixedBool((PetscObject)F, "-mat_diag_factor_tiles", &want_tiles));
  bool tried = true, all_tiles = true, all_levels = true; /* over the passes' kinds */
  for (int p = 0; p < st.npasses; ++p) {
    const std::size_t k = (std::size_t)pdiag::pass_schedule(st.pass[(std::size_t)p]);
    tried               = tried && d.tiles_tried[k];
    all_tiles           = all_tiles && d.have_tiles[k];
    all_levels          = all_levels && d.have[k];
  }
  *tiled = (want_tiles && all_tiles) ? PETSC_TRUE : PETSC_FALSE;
  if (*stale || (want_tiles && !tried) || (!*tiled && !all_levels)) { /* the event counts uploads, not solves */
    PetscCall(PetscLogEventBegin(MATDIAG_FactorToGPU, F, 0, 0, 0));
    if (*stale) {
      PetscCall(UploadFactor(d, factor));
      *stale = PETSC_FALSE;
    }
    PetscCall(EnsureSchedules(F, d, factor, what, want_tiles, tiled));
    PetscCall(PetscLogEventEnd(MATDIAG_FactorToGPU, F, 0, 0, 0));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorDevicePrepare_Private(Mat F, Mat A, DiagFactorDevice **pdev, const Hm &factor, PetscBool *stale, pdiag::FactorSolve what)
{
  PetscBool tiled;

  PetscFunctionBegin;
  if (MatDiagWantsDevice_Private(A)) PetscCall(Prepare(F, pdev, factor, stale, what, &tiled)); /* its vectors are CUDA (diagcuda, -vec_type, the DM's) */
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorDeviceSolve_Private(Mat F, DiagFactorDevice **pdev, const Hm &factor, PetscBool *stale, pdiag::FactorSolve what, Vec bb, Vec xx)
{
  const PetscScalar *b;
  PetscScalar       *x;
  PetscBool          tiled = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(Prepare(F, pdev, factor, stale, what, &tiled));
  DiagFactorDevice &d = **pdev;
  PetscCheck(d.halves_defined || (what != pdiag::FactorSolve::IccForward && what != pdiag::FactorSolve::IccBackward), PETSC_COMM_SELF, PETSC_ERR_SUP, "Diagonal must be real and nonnegative");
  const pdiag::FactorRowsView<PetscScalar> view{d.n, d.nd, d.main, d.meta, d.meta + d.nd, d.val};
  PetscBool                                graphs = PETSC_TRUE;
  PetscCall(DiagGetPrefixedBool((PetscObject)F, "-mat_diag_cuda_graphs", &graphs));
  PetscCall(VecCUDAGetArrayRead(bb, &b));
  PetscCall(VecCUDAGetArrayWrite(xx, &x));
  PetscCall(PetscLogGpuTimeBegin());
  if (tiled) {
    const cudaError_t e = pdiag::cuda::hm_factor_solve_tiled(view, what, b, x, d.tiles.data(), PetscDefaultCudaStream);
    if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorNotSupported || e == cudaErrorLaunchOutOfResources) {
      /* a device (or a share of one) that cannot hold the cooperative launch: nothing ran, the error is not
         sticky; the level-scheduled passes from now on (not seen on the H100/H200s this was built on) */
      (void)cudaGetLastError();
      PetscCall(PetscInfo(F, "diag: the tiled solve cannot launch here (%s): level-scheduled passes\n", cudaGetErrorString(e)));
      d.have_tiles.fill(false);
      PetscCall(Prepare(F, pdev, factor, stale, what, &tiled));
    } else DiagCallCUDA(e);
  }
  if (!tiled) { /* the level-scheduled passes (also after a refused tiled launch) */
    std::array<pdiag::cuda::LevelsView, pdiag::kSolveScheduleKinds> sched;
    for (std::size_t k = 0; k < sched.size(); ++k) sched[k] = {d.have[k] ? (Index)d.level_ptr[k].size() - 1 : 0, d.have[k] ? d.level_ptr[k].data() : nullptr, d.rows[k]};
    if (graphs) {
      const long recorded = d.graphs.recordings();
      DiagCallCUDA(d.graphs.solve(view, what, b, x, sched.data(), PetscDefaultCudaStream));
      if (d.graphs.recordings() != recorded) PetscCall(PetscInfo(F, "diag: solve %d of the factor recorded as a CUDA graph\n", (int)what));
    } else DiagCallCUDA(pdiag::cuda::hm_factor_solve(view, what, b, x, sched.data(), PetscDefaultCudaStream));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(xx, &x));
  PetscCall(VecCUDARestoreArrayRead(bb, &b));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)factor.nstored()));
  PetscFunctionReturn(0);
}

#endif
