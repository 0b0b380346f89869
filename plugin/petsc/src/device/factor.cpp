/* The native ILU(0) / ICC(0) factors' solves on the GPU (CUDA builds): when
   the factor of a sequential diag matrix not bound to the CPU (seqdiagcuda,
   seqdiag, and so bjacobi's and ASM's sub-blocks) is applied to CUDA
   vectors, MatSolve,
   MatSolveTranspose, MatForwardSolve and MatBackwardSolve run on the device
   by level-scheduled triangular solves (kernels/ pdiag/factor_levels.hpp,
   src/factor_solve.cu), with no host copy of the vectors. Host vectors keep
   the host path (factor/factor_native.cpp).

   The numeric factorization runs here too when A expects CUDA vectors
   (MatDiagFactorDeviceNumeric_Private): A's device values are copied onto
   the factor's diagonals, checked against the factor's pattern, factored
   by levels (kernels/ pdiag/factor_numeric.hpp, src/factor_numeric.cu: one
   launch per level of the rows' dependencies, the hyperplanes of a
   stencil), and the factor stays on the device (copied back to the host
   only for a host solve); a pivot that needs PETSc's shift policy sends the
   factorization back to the host's sequential one (factor/factor_native.cpp),
   as -mat_diag_device_ilu_numeric false does. Timed by the event
   MatDiagFactNumGPU. Otherwise, at the first device solve after a host
   factorization, the factor's diagonals are uploaded (values, offsets and
   the bases that address them). The level schedules a solve needs are
   computed on the host from the factor's pattern (the entries that may be
   nonzero, so they serve every numeric factorization of that pattern) and
   uploaded once per pattern: L and U by rows
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
.  -mat_diag_cuda_graphs <true> - false: one launch per level (the graphs' baseline)
.  -mat_diag_device_level_rows <512> - the factorization and the solves run on the device only when their
   steps (levels, the tiles' wavefronts) average at least this many rows (0: always): a line, a coarse
   grid, several fields per point or a 27-point stencil take more steps than the device can fill
-  -mat_diag_device_ilu_numeric <true> - false: the numeric factorization on the host (the device one's baseline) */
#include "device/factor.hpp"

#include "device/device.hpp"

#include "pdiag/factor_cuda.hpp"
#include "pdiag/levels.hpp"
#include "pdiag/levels_cuda.hpp"

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
  std::array<Index, pdiag::kSolveScheduleKinds>                   tile_steps{}; /* the tiles' wavefronts */
  bool host_solve_noticed = false, host_numeric_noticed = false;                  /* -info once a factor */
  /* the numeric factorization: the plan's tables (lower | upper | target |
     upper_target), the pattern, its level schedule (host level pointers,
     device rows; rebuilt when the pattern changes) and the pivot flag */
  Index             *plan_tables = nullptr, *numeric_rows = nullptr;
  unsigned char     *pattern     = nullptr;
  unsigned          *pivot_flag  = nullptr;
  std::size_t        plan_tables_cap = 0, numeric_rows_cap = 0, pattern_cap = 0, pivot_flag_cap = 0;
  std::vector<Index> numeric_level_ptr;
  bool               have_numeric_schedule = false;
  PetscInt           schedules_version     = -1; /* the pattern version the solves' schedules were built for */
  PetscInt           numeric_version       = -1; /* and the factorization's */

  ~DiagFactorDevice()
  {
    for (void *p : {(void *)plan_tables, (void *)numeric_rows, (void *)pattern, (void *)pivot_flag})
      if (p) cudaFree(p);
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

PetscBool MatDiagFactorDeviceWantedCUDA_Private(Vec b, Vec x)
{
  return MatDiagVecOnDevice_Private(b) && MatDiagVecOnDevice_Private(x) ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode MatDiagDenseFactorPivots_Private(Mat F, PetscReal *smallest, PetscReal *largest)
{
  const PetscScalar *a;
  PetscInt           lda;
  const PetscInt     n = F->rmap->n;

  PetscFunctionBegin;
  *smallest = *largest = 0;
  if (!n) PetscFunctionReturn(0);
  std::vector<PetscScalar> pivots((std::size_t)n);
  PetscCall(MatDenseGetLDA(F, &lda));
  PetscCall(MatDenseCUDAGetArrayRead(F, &a));
  DiagCallCUDA(cudaMemcpy2D(pivots.data(), sizeof(PetscScalar), a, (std::size_t)(lda + 1) * sizeof(PetscScalar), sizeof(PetscScalar), (std::size_t)n, cudaMemcpyDeviceToHost));
  PetscCall(MatDenseCUDARestoreArrayRead(F, &a));
  *smallest = PETSC_MAX_REAL;
  for (const PetscScalar p : pivots) {
    *smallest = PetscMin(*smallest, PetscAbsScalar(p));
    *largest  = PetscMax(*largest, PetscAbsScalar(p));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorDeviceDownload_Private(DiagFactorDevice *dev, Hm &factor)
{
  PetscFunctionBegin;
  PetscCheck(dev && dev->val && dev->n == factor.layout.nrows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: no device factor to copy back");
  if (!factor.val.empty()) DiagCallCUDA(cudaMemcpy(factor.val.data(), dev->val, factor.val.size() * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)(factor.val.size() * sizeof(PetscScalar))));
  PetscFunctionReturn(0);
}

void MatDiagFactorDeviceDestroy_Private(DiagFactorDevice *dev)
{
  delete dev;
}

/* The device copy of the factor holds new values (the host copy too when
   `on_host`). The solves' schedules stay: they depend on the pattern only.
   ICC's halves need 1 / D >= 0: read from the main diagonal, on the host or
   copied from the device. */
static PetscErrorCode NewValues(DiagFactorDevice &d, const Hm &F, bool on_host)
{
  std::vector<PetscScalar> inverse_pivots;
  const Index              zero = 0; /* the one diagonal's offset and base */

  PetscFunctionBegin;
  const Index main_start = F.start[(std::size_t)d.main];
  if (on_host) inverse_pivots.assign(F.val.begin() + main_start, F.val.begin() + main_start + d.n);
  else {
    PetscCallCXX(inverse_pivots.resize((std::size_t)d.n));
    if (d.n) DiagCallCUDA(cudaMemcpy(inverse_pivots.data(), d.val + main_start, (std::size_t)d.n * sizeof(PetscScalar), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)d.n * sizeof(PetscScalar)));
  }
  const pdiag::FactorRowsView<PetscScalar> main_only{d.n, 1, 0, &zero, &zero, inverse_pivots.data()};
  DiagCallKernel(d.halves_defined = pdiag::hm_icc_halves_defined(main_only));
  d.graphs.reset(); /* they hold the arrays' addresses, which an upload may change */
  PetscFunctionReturn(0);
}

/* The factor's addressing on the device, room for its values, and (with
   `values`) the host's values. */
static PetscErrorCode UploadFactor(DiagFactorDevice &d, const Hm &F, bool values = true)
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
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(meta.size() * sizeof(Index))));
  if (!values) PetscFunctionReturn(0);
  if (!F.val.empty()) DiagCallCUDA(cudaMemcpy(d.val, F.val.data(), F.val.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(F.val.size() * sizeof(PetscScalar))));
  PetscCall(NewValues(d, F, true));
  PetscFunctionReturn(0);
}

/* A's values on the factor's diagonals, zeros elsewhere, in the device copy
   (pdiag::detail::load_values on the device): copied from A's device values
   when A is stored by diagonals (HM) on the device, else from the host. */
static PetscErrorCode LoadValuesOnDevice(Mat A, DiagFactorDevice &d, const pdiag::HmView<const PetscScalar> &a, Hm &factor)
{
  const Index       *ameta;
  const PetscScalar *aval;

  PetscFunctionBegin;
  if (((Mat_Diag *)A->data)->scheme != pdiag::Scheme::HM) {
    DiagCallKernel(pdiag::detail::load_values(a, factor));
    PetscCall(UploadFactor(d, factor));
    PetscFunctionReturn(0);
  }
  PetscCall(UploadFactor(d, factor, false));
  PetscCall(MatDiagDeviceValues_Private(A, &ameta, &aval)); /* A's full values on the device (uploaded if not there) */
  DiagCallCUDA(cudaMemsetAsync(d.val, 0, factor.val.size() * sizeof(PetscScalar), PetscDefaultCudaStream));
  for (Index k = 0; k < a.ndiag; ++k) {
    const Index kf = factor.find_diagonal(a.offsets[k]);
    if (kf < 0) continue;
    const Index len = a.layout.length(a.offsets[k]);
    DiagCallCUDA(cudaMemcpyAsync(d.val + factor.start[(std::size_t)kf], aval + a.start[k], (std::size_t)len * sizeof(PetscScalar), cudaMemcpyDeviceToDevice, PetscDefaultCudaStream));
  }
  PetscFunctionReturn(0);
}

/* The tiled schedule of one kind, built and uploaded (d.have_tiles[k] if there is one). */
static PetscErrorCode TryTiles(Mat F, DiagFactorDevice &d, const Hm &factor, const std::vector<unsigned char> &marks, pdiag::SolveScheduleKind kind)
{
  const std::size_t          k = (std::size_t)kind;
  pdiag::TileSchedule        s;
  std::vector<Index>         base;
  const pdiag::GridShape     grid = pdiag::infer_grid_shape(factor.offsets.data(), factor.ndiag(), d.n);

  PetscInt                   box[3] = {0, 0, 0};
  PetscBool                  set = PETSC_FALSE;

  PetscFunctionBegin;
  d.tiles_tried[k] = true;
  PetscCall(MatDiagGetTileBoxOption((PetscObject)F, box, &set));
  PetscCheck(!set || (box[0] > 0 && box[1] > 0 && box[2] > 0 && box[0] * box[1] * box[2] <= pdiag::kTileMaxRows), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "diag: -mat_diag_factor_tile_box needs three positive sizes with a product of at most %" PetscInt_FMT, (PetscInt)pdiag::kTileMaxRows);
  /* from the pattern (its marks as the values): the rows each row may read;
     boxes of the grid, else (a 9/27-point stencil's boxes read each other)
     of its skewed coordinates, which take about twice the wavefronts */
  DiagCallKernel(base = pdiag::hm_diagonal_bases(factor.view()); const pdiag::FactorRowsView<unsigned char> structure{d.n, d.nd, d.main, factor.offsets.data(), base.data(), marks.data()};
                 const std::array<Index, 3> boxes{set ? (Index)box[0] : 0, (Index)box[1], (Index)box[2]}; s = pdiag::hm_factor_tile_schedule(structure, kind, grid, boxes);
                 if (s.empty()) s = pdiag::hm_factor_tile_schedule(structure, kind, grid, boxes, true));
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
  d.tiles[k]      = {s.grid, s.tx, s.ty, s.tz, s.ntiles(), s.max_terms, dev, dev + rec.rec.size(), d.tile_work[k] + 2, d.tile_work[k], s.skewed};
  d.have_tiles[k] = true;
  d.tile_steps[k] = pdiag::tile_wavefronts(s);
  PetscCall(PetscInfo(F, "diag: tiled schedule %d of the factor on the GPU: grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %sboxes %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " tiles\n", (int)kind, (PetscInt)grid.nx, (PetscInt)grid.ny,
                      (PetscInt)grid.nz, s.skewed ? "skewed " : "", (PetscInt)s.tx, (PetscInt)s.ty, (PetscInt)s.tz, (PetscInt)s.ntiles()));
  PetscFunctionReturn(0);
}

/* Whether `rows` rows fill `steps` sequential steps of device work: at
   least -mat_diag_device_level_rows (F's option, 0: always) rows a step on
   average. A step costs a launch (a level) or a flag's latency (a
   wavefront of tiles) whatever its rows, so a factor with few rows a step
   (a line, a coarse grid, several fields per point, a 27-point stencil) is
   factored and solved faster on the host, even with the vectors' round
   trip, as MatSOR sweeps (device/sor.cpp). */
static PetscErrorCode FillsSteps(Mat F, Index rows, Index steps, PetscBool *fills)
{
  PetscInt min_rows;

  PetscFunctionBegin;
  PetscCall(MatDiagGetOption((PetscObject)F, DiagOpt::DeviceLevelRows, &min_rows));
  *fills = (min_rows <= 0 || steps <= 0 || (double)rows >= (double)min_rows * (double)steps) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The tiled schedules of the passes of `what` where wanted and possible
   (*tiled: every pass has one), else their level schedules, computed and
   uploaded if missing. */
static PetscErrorCode EnsureSchedules(Mat F, DiagFactorDevice &d, const Hm &factor, const std::vector<unsigned char> &marks, pdiag::FactorSolve what, PetscBool want_tiles, PetscBool *tiled)
{
  const pdiag::FactorSolveSteps st = pdiag::factor_solve_steps(what);

  PetscFunctionBegin;
  *tiled = want_tiles;
  for (int p = 0; p < st.npasses && want_tiles; ++p) {
    const pdiag::SolveScheduleKind kind = pdiag::pass_schedule(st.pass[(std::size_t)p]);
    if (!d.tiles_tried[(std::size_t)kind]) PetscCall(TryTiles(F, d, factor, marks, kind));
    if (!d.have_tiles[(std::size_t)kind]) *tiled = PETSC_FALSE;
  }
  if (*tiled) PetscFunctionReturn(0);
  for (int p = 0; p < st.npasses; ++p) {
    const pdiag::SolveScheduleKind kind = pdiag::pass_schedule(st.pass[(std::size_t)p]);
    const std::size_t              k    = (std::size_t)kind;
    if (d.have[k]) continue;
    pdiag::LevelSchedule s;
    DiagCallKernel(const pdiag::HmView<const unsigned char> structure{factor.layout, factor.ndiag(), factor.offsets.data(), factor.start.data(), marks.data()}; s = pdiag::hm_factor_schedule(structure, kind));
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
static PetscErrorCode Prepare(Mat F, DiagFactorDevice **pdev, const Hm &factor, const DiagFactorPattern &pattern, PetscBool *stale, pdiag::FactorSolve what, PetscBool *tiled)
{
  PetscFunctionBegin;
  if (!*pdev) PetscCallCXX(*pdev = new DiagFactorDevice());
  DiagFactorDevice             &d  = **pdev;
  const pdiag::FactorSolveSteps st = pdiag::factor_solve_steps(what);
  PetscBool                     want_tiles = PETSC_TRUE;
  PetscCheck(pattern.marks && pattern.marks->size() == factor.val.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: factor pattern missing or of the wrong size");
  if (pattern.version != d.schedules_version) { /* a new pattern: new schedules */
    d.have.fill(false);
    d.tiles_tried.fill(false);
    d.have_tiles.fill(false);
    d.graphs.reset();
    d.schedules_version = pattern.version;
  }
  PetscCall(MatDiagGetOption((PetscObject)F, DiagOpt::FactorTiles, &want_tiles));
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
    PetscCall(EnsureSchedules(F, d, factor, *pattern.marks, what, want_tiles, tiled));
    PetscCall(PetscLogEventEnd(MATDIAG_FactorToGPU, F, 0, 0, 0));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorDevicePrepare_Private(Mat F, Mat A, DiagFactorDevice **pdev, const Hm &factor, const DiagFactorPattern &pattern, PetscBool *stale, pdiag::FactorSolve what)
{
  PetscBool tiled;

  PetscFunctionBegin;
  if (MatDiagWantsDevice_Private(A)) PetscCall(Prepare(F, pdev, factor, pattern, stale, what, &tiled)); /* its vectors are CUDA (diagcuda, -vec_type, the DM's) */
  PetscFunctionReturn(0);
}

/* x = op(F)^{-1} b on the device (*done), unless the passes' steps (the
   tiles' wavefronts, else the levels) average fewer rows than
   -mat_diag_device_level_rows: then the caller solves on the host. */
PetscErrorCode MatDiagFactorDeviceSolve_Private(Mat F, DiagFactorDevice **pdev, const Hm &factor, const DiagFactorPattern &pattern, PetscBool *stale, pdiag::FactorSolve what, Vec bb, Vec xx, PetscBool *done)
{
  const PetscScalar *b;
  PetscScalar       *x;
  PetscBool          tiled = PETSC_FALSE, fills = PETSC_TRUE;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(Prepare(F, pdev, factor, pattern, stale, what, &tiled));
  DiagFactorDevice &d = **pdev;
  {
    const pdiag::FactorSolveSteps st    = pdiag::factor_solve_steps(what);
    Index                         steps = 0;
    for (int p = 0; p < st.npasses; ++p) {
      const std::size_t k = (std::size_t)pdiag::pass_schedule(st.pass[(std::size_t)p]);
      steps += tiled ? d.tile_steps[k] : (d.have[k] ? (Index)d.level_ptr[k].size() - 1 : 0);
    }
    PetscCall(FillsSteps(F, d.n * (Index)st.npasses, steps, &fills));
    if (!fills) {
      if (!d.host_solve_noticed) PetscCall(PetscInfo(F, "diag: the factor's solves on the host: %" PetscInt_FMT " rows in %" PetscInt_FMT " %s, fewer than -mat_diag_device_level_rows a step\n", (PetscInt)d.n, (PetscInt)steps, tiled ? "wavefronts of tiles" : "levels"));
      d.host_solve_noticed = true;
      PetscFunctionReturn(0);
    }
  }
  PetscCheck(d.halves_defined || (what != pdiag::FactorSolve::IccForward && what != pdiag::FactorSolve::IccBackward), PETSC_COMM_SELF, PETSC_ERR_SUP, "Diagonal must be real and nonnegative");
  const pdiag::FactorRowsView<PetscScalar> view{d.n, d.nd, d.main, d.meta, d.meta + d.nd, d.val};
  PetscBool                                graphs;
  PetscCall(MatDiagGetOption((PetscObject)F, DiagOpt::CudaGraphs, &graphs));
  PetscCall(VecCUDAGetArrayRead(bb, &b));
  PetscCall(VecCUDAGetArrayWrite(xx, &x));
  PetscCall(PetscLogGpuTimeBegin());
  if (tiled) {
    const cudaError_t e = pdiag::cuda::hm_factor_solve_tiled(view, what, b, x, d.tiles.data(), PetscDefaultCudaStream);
    if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorNotSupported || e == cudaErrorLaunchOutOfResources) {
      /* a device (or a share of one) that cannot hold the cooperative launch: nothing ran, the error is not
         sticky; the level-scheduled passes from now on */
      (void)cudaGetLastError();
      PetscCall(PetscInfo(F, "diag: the tiled solve cannot launch here (%s): level-scheduled passes\n", cudaGetErrorString(e)));
      d.have_tiles.fill(false);
      PetscCall(Prepare(F, pdev, factor, pattern, stale, what, &tiled));
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
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* PETSc's pivot checks (MatPivotCheck) as the kernels' screen: the pivots
   each shift type would act on (pdiag/factor_numeric.hpp). */
static pdiag::PivotScreen ScreenOf(const MatFactorInfo *info)
{
  pdiag::PivotScreen s;
  s.zeropivot        = (double)info->zeropivot;
  s.scaled_by_rowsum = info->shifttype == (PetscReal)MAT_SHIFT_NONZERO || info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE;
  s.real_part        = info->shifttype == (PetscReal)MAT_SHIFT_POSITIVE_DEFINITE;
  return s;
}

/* The plan's tables, the pattern and the factorization's level schedule on
   the device, uploaded again only when the pattern changed (the plan comes
   with the factor's symbolic phase, which makes a new device copy). */
static PetscErrorCode UploadNumericInputs(Mat F, DiagFactorDevice &d, const Hm &factor, const pdiag::HmFactorPlan &plan, const std::vector<unsigned char> &pattern, PetscBool ilu, PetscBool pattern_changed)
{
  std::vector<Index>   tables;
  pdiag::LevelSchedule s;

  PetscFunctionBegin;
  if (d.have_numeric_schedule && !pattern_changed) PetscFunctionReturn(0);
  PetscCallCXX(tables = pdiag::factor_plan_tables(plan));
  DiagCallKernel(s = pdiag::hm_factor_numeric_schedule(factor, plan, ilu, pattern.data()));
  PetscCall(DiagReserveDevice(&d.plan_tables, &d.plan_tables_cap, tables.size()));
  PetscCall(DiagReserveDevice(&d.pattern, &d.pattern_cap, pattern.size()));
  PetscCall(DiagReserveDevice(&d.numeric_rows, &d.numeric_rows_cap, s.rows.size()));
  if (!tables.empty()) DiagCallCUDA(cudaMemcpy(d.plan_tables, tables.data(), tables.size() * sizeof(Index), cudaMemcpyHostToDevice));
  if (!pattern.empty()) DiagCallCUDA(cudaMemcpy(d.pattern, pattern.data(), pattern.size(), cudaMemcpyHostToDevice));
  if (!s.rows.empty()) DiagCallCUDA(cudaMemcpy(d.numeric_rows, s.rows.data(), s.rows.size() * sizeof(Index), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(tables.size() * sizeof(Index) + pattern.size() + s.rows.size() * sizeof(Index))));
  PetscCall(PetscInfo(F, "diag: level schedule of the numeric factorization on the GPU: %" PetscInt_FMT " rows, %" PetscInt_FMT " levels\n", (PetscInt)factor.layout.nrows, (PetscInt)s.nlevels()));
  d.numeric_level_ptr     = std::move(s.level_ptr);
  d.have_numeric_schedule = true;
  PetscFunctionReturn(0);
}

PetscErrorCode MatDiagFactorDeviceNumeric_Private(Mat F, Mat A, DiagFactorDevice **pdev, const pdiag::HmView<const PetscScalar> &a, Hm &factor, const pdiag::HmFactorPlan &plan, const DiagFactorPattern &marks, PetscBool ilu, const MatFactorInfo *info, PetscBool check_pattern, PetscBool *misses, PetscBool *stale, PetscBool *host_stale, PetscBool *done)
{
  PetscBool wanted, fills = PETSC_TRUE;
  unsigned  flag = 0;

  PetscFunctionBegin;
  *done   = PETSC_FALSE;
  *misses = PETSC_FALSE;
  PetscCall(MatDiagGetOption((PetscObject)F, DiagOpt::DeviceIluNumeric, &wanted));
  if (!wanted || !MatDiagWantsDevice_Private(A)) PetscFunctionReturn(0);
  PetscCheck(marks.marks && marks.marks->size() == factor.val.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag: factor pattern missing or of the wrong size");
  const std::vector<unsigned char> &pattern = *marks.marks;
  if (!*pdev) PetscCallCXX(*pdev = new DiagFactorDevice());
  DiagFactorDevice &d = **pdev;
  PetscCall(UploadNumericInputs(F, d, factor, plan, pattern, ilu, marks.version != d.numeric_version ? PETSC_TRUE : PETSC_FALSE));
  d.numeric_version = marks.version;
  /* a factorization by levels of few rows each: the host's (not *done; the
     event counts device factorizations) */
  PetscCall(FillsSteps(F, factor.layout.nrows, (Index)d.numeric_level_ptr.size() - 1, &fills));
  if (!fills) {
    if (!d.host_numeric_noticed) PetscCall(PetscInfo(F, "diag: the numeric factorization on the host: %" PetscInt_FMT " rows in %" PetscInt_FMT " levels, fewer than -mat_diag_device_level_rows a level\n", (PetscInt)factor.layout.nrows, (PetscInt)d.numeric_level_ptr.size() - 1));
    d.host_numeric_noticed = true;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(MATDIAG_FactorNumericGPU, F, A, 0, 0));
  PetscCall(LoadValuesOnDevice(A, d, a, factor));
  *stale = PETSC_TRUE; /* until the device holds the factor */
  PetscCall(DiagReserveDevice(&d.pivot_flag, &d.pivot_flag_cap, 1));
  DiagCallCUDA(cudaMemsetAsync(d.pivot_flag, 0, sizeof(unsigned), PetscDefaultCudaStream));
  if (check_pattern) {
    DiagCallCUDA(pdiag::cuda::factor_pattern_misses(d.val, d.pattern, (Index)factor.val.size(), d.pivot_flag, PetscDefaultCudaStream));
    DiagCallCUDA(cudaMemcpyAsync(&flag, d.pivot_flag, sizeof(unsigned), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
    DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
    if (flag) {
      PetscCall(PetscInfo(A, "diag: nonzeros outside the factor's pattern: it grows before the factorization\n"));
      *misses = PETSC_TRUE;
      PetscCall(PetscLogEventEnd(MATDIAG_FactorNumericGPU, F, A, 0, 0));
      PetscFunctionReturn(0);
    }
  }
  {
    const pdiag::FactorPlanView            pv = pdiag::factor_plan_view(plan, d.plan_tables);
    const pdiag::FactorValues<PetscScalar> fv{d.n, d.meta, d.meta + d.nd, d.val};
    const pdiag::cuda::LevelsView          lv{(Index)d.numeric_level_ptr.size() - 1, d.numeric_level_ptr.data(), d.numeric_rows};
    PetscCall(PetscLogGpuTimeBegin());
    DiagCallCUDA(pdiag::cuda::hm_factor_numeric(fv, pv, ilu ? true : false, d.pattern, lv, ScreenOf(info), d.pivot_flag, PetscDefaultCudaStream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)factor.nstored()));
  }
  DiagCallCUDA(cudaMemcpyAsync(&flag, d.pivot_flag, sizeof(unsigned), cudaMemcpyDeviceToHost, PetscDefaultCudaStream));
  DiagCallCUDA(cudaStreamSynchronize(PetscDefaultCudaStream));
  if (flag) {
    PetscCall(PetscInfo(A, "diag: a pivot of the %s(0) factorization on the GPU needs PETSc's pivot policy (-pc_factor_shift_type): factored on the host\n", ilu ? "ILU" : "ICC"));
  } else {
    PetscCall(NewValues(d, factor, false)); /* the host copy is copied back only if a host solve needs it */
    *stale      = PETSC_FALSE;
    *host_stale = PETSC_TRUE;
    *done       = PETSC_TRUE;
  }
  PetscCall(PetscLogEventEnd(MATDIAG_FactorNumericGPU, F, A, 0, 0));
  PetscFunctionReturn(0);
}
