/* MatSOR of MATDIAG on the GPU (CUDA builds): with CUDA vectors the sweeps
   of an HM block (a sequential matrix, or in parallel each process's
   diagonal block, ops/sor.cpp) run on the device by level scheduling
   (docs/design.md, "Factorizations and preconditioners"; kernels/ pdiag/levels.hpp and src/sor.cu): the rows of one
   level are relaxed together, one launch per level, and the result is the
   sequential sweep's (the host path's) to rounding.

   Device path: forward, backward and symmetric sweeps (SOR_*_SWEEP and
   SOR_LOCAL_*), SOR_ZERO_INITIAL_GUESS, omega, the diagonal shift, its and
   lits. Host path (ops/sor.cpp, the vectors' values make a round trip):
   SOR_EISENSTAT and SOR_APPLY_UPPER on a sequential block (one pass each,
   used by PCEisenstat only: not worth their own kernels yet) and CDM
   storage (its sweeps would need an HM copy of the values on the device).

   Computed once per state of the matrix's values (the level schedules
   depend on where the stored zeros are) on the host, from the host values
   (a matrix whose values are newer on the device brings them back once for
   this), and uploaded: the two schedules' rows, and mdiag | idiag for
   (omega, fshift) (recomputed when those change). A sweep then copies
   nothing between host and device.

   A sweep with hundreds of levels is bound by the launches (a few
   microseconds each), so by default the sweeps of one MatSOR call are
   recorded once as a CUDA graph (pdiag::cuda::SorGraph) and replayed by one
   cudaGraphLaunch while the matrix's arrays, the schedules, omega, the
   shift, the sweeps and its * lits stay the same (other vectors rebind it;
   anything else records it again). Options Database Keys:
+  -mat_diag_cuda_graphs <true> - false: one launch per level (the graphs' baseline)
-  -mat_diag_device_level_rows <512> - the sweeps run on the device only when their levels
   average at least this many rows (0: always); read at every MatSOR, with the matrix's prefix,
   else without */
#include "core/mat_diag.hpp"

#include "device/device.hpp"

#include "pdiag/levels.hpp"
#include "pdiag/levels_cuda.hpp"
#include "pdiag/relax.hpp"
#include "pdiag/sor_cuda.hpp"

#include <algorithm>

struct DiagSorGraph {
  pdiag::cuda::SorGraph<PetscScalar> graph;
};

void MatDiagSORGraphDestroy_Private(DiagSorGraph **g)
{
  delete *g;
  *g = nullptr;
}

/* The level schedules of A's sweeps, current for A's state (computed on
   the host from the host values, the rows uploaded). */
static PetscErrorCode SORSchedules(Mat A)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  DiagDevice      &d = MatDiagDev(A);
  PetscObjectState state;
  const Index      m = a->layout.nrows;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (d.sor_state == state) PetscFunctionReturn(0);
  const Hm *hm;
  PetscCall(MatDiagHm_Private(A, &hm));
  const pdiag::HmView<const PetscScalar> v = hm->view();
  pdiag::LevelSchedule                   f, b;
  DiagCallKernel(f = pdiag::hm_level_schedule(v, pdiag::SweepDirection::Forward));
  DiagCallKernel(b = pdiag::hm_level_schedule(v, pdiag::SweepDirection::Backward));
  PetscCall(PetscInfo(A, "level schedules for SOR on the GPU: %" PetscInt_FMT " rows, %" PetscInt_FMT " forward and %" PetscInt_FMT " backward levels\n", (PetscInt)m, (PetscInt)f.nlevels(), (PetscInt)b.nlevels()));
  PetscCall(DiagReserveDevice(&d.sor_rows, &d.sor_rows_cap, 2 * (std::size_t)m));
  if (m) {
    DiagCallCUDA(cudaMemcpy(d.sor_rows, f.rows.data(), (std::size_t)m * sizeof(Index), cudaMemcpyHostToDevice));
    DiagCallCUDA(cudaMemcpy(d.sor_rows + m, b.rows.data(), (std::size_t)m * sizeof(Index), cudaMemcpyHostToDevice));
  }
  PetscCall(PetscLogCpuToGpu(2.0 * (PetscLogDouble)m * sizeof(Index)));
  MatDiagSORGraphDestroy_Private(&d.sor_graph); /* it holds the old schedules' level sizes */
  d.sor_fwd_ptr      = std::move(f.level_ptr);
  d.sor_bwd_ptr      = std::move(b.level_ptr);
  d.sor_state        = state;
  d.sor_host_noticed = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Whether MatSOR of the sequential block A with these vectors and flag runs
   on the device: HM storage, the vectors there, and levels of at least
   -mat_diag_device_level_rows rows on average. A sweep costs a launch and
   a row's chain of loads per level, so one with many small levels (a
   coarse grid, several fields per point) is faster on the host even with
   the vectors' round trip, which is where aijcusparse always sweeps. */
PetscErrorCode MatDiagSORDeviceWantedCUDA_Private(Mat A, Vec b, Vec x, MatSORType flag, PetscBool *wanted)
{
  const Mat_Diag *a = (const Mat_Diag *)A->data;
  PetscInt        min_rows;

  PetscFunctionBegin;
  *wanted = PETSC_FALSE;
  if (flag == SOR_APPLY_UPPER || flag == SOR_APPLY_LOWER || (flag & SOR_EISENSTAT)) PetscFunctionReturn(0);
  if (a->scheme != pdiag::Scheme::HM || !MatDiagUseDevice_Private(A, x, b)) PetscFunctionReturn(0);
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::DeviceLevelRows, &min_rows));
  if (min_rows > 0) {
    DiagDevice &d = MatDiagDev(A);
    PetscCall(SORSchedules(A));
    const PetscInt levels = (PetscInt)std::max(d.sor_fwd_ptr.size(), d.sor_bwd_ptr.size()) - 1;
    if (levels > 0 && (double)a->layout.nrows < (double)min_rows * (double)levels) {
      if (!d.sor_host_noticed) PetscCall(PetscInfo(A, "SOR on the host: %" PetscInt_FMT " rows in %" PetscInt_FMT " levels, fewer than -mat_diag_device_level_rows %" PetscInt_FMT " per level\n", (PetscInt)a->layout.nrows, levels, min_rows));
      d.sor_host_noticed = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
  }
  *wanted = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The schedules and the diagonal arrays on the device, current for A's
   state, omega and fshift. */
static PetscErrorCode SORDeviceSetUp(Mat A, PetscReal omega, PetscReal fshift)
{
  Mat_Diag        *a = (Mat_Diag *)A->data;
  DiagDevice      &d = MatDiagDev(A);
  PetscObjectState state;
  const Index      m = a->layout.nrows;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (d.sor_state == state && d.sor_diag_state == state && d.sor_omega == omega && d.sor_fshift == fshift) PetscFunctionReturn(0);
  PetscCall(SORSchedules(A));
  if (d.sor_diag_state != state || d.sor_omega != omega || d.sor_fshift != fshift) {
    const Hm *hm;
    PetscCall(MatDiagHm_Private(A, &hm));
    const pdiag::HmView<const PetscScalar> v = hm->view();
    std::vector<PetscScalar>               diag(2 * (std::size_t)m); /* mdiag | idiag */
    DiagCallKernel(d.sor_zero_row = pdiag::hm_sor_diagonal(v, omega, fshift, diag.data(), diag.data() + m));
    PetscCall(DiagReserveDevice(&d.sor_diag, &d.sor_diag_cap, 3 * (std::size_t)m)); /* and the work vector */
    MatDiagSORGraphDestroy_Private(&d.sor_graph); /* omega is baked in; the arrays may move */
    if (m) DiagCallCUDA(cudaMemcpy(d.sor_diag, diag.data(), diag.size() * sizeof(PetscScalar), cudaMemcpyHostToDevice));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)(diag.size() * sizeof(PetscScalar))));
    d.sor_diag_state = state;
    d.sor_omega      = omega;
    d.sor_fshift     = fshift;
  }
  PetscFunctionReturn(0);
}

/* The sweeps of MatSOR_SeqDiag on the device (flag: sweeps only, see
   MatDiagSORDeviceWanted_Private). */
PetscErrorCode MatSOR_SeqDiagCUDA(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_Diag          *a = (Mat_Diag *)A->data;
  DiagDevice        &d = MatDiagDev(A);
  const Index        m = a->layout.nrows;
  const Index       *meta;
  const PetscScalar *val, *b;
  PetscScalar       *x;

  PetscFunctionBegin;
  PetscCall(SORDeviceSetUp(A, omega, fshift));
  PetscCall(MatDiagSORZeroRow_Private(A, fshift, d.sor_zero_row));
  PetscCall(MatDiagDeviceValues_Private(A, &meta, &val));
  const pdiag::HmView<const PetscScalar> v{a->layout, d.nd, MatDiagDevOffsets(d), MatDiagDevStart(d), val};
  pdiag::SorSweeps sw;
  sw.forward            = (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) != 0;
  sw.backward           = (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) != 0;
  sw.zero_initial_guess = (flag & SOR_ZERO_INITIAL_GUESS) != 0;
  const pdiag::cuda::LevelsView fwd{(Index)d.sor_fwd_ptr.size() - 1, d.sor_fwd_ptr.data(), d.sor_rows};
  const pdiag::cuda::LevelsView bwd{(Index)d.sor_bwd_ptr.size() - 1, d.sor_bwd_ptr.data(), d.sor_rows + m};
  PetscBool                     graphs;
  PetscCall(MatDiagGetOption((PetscObject)A, DiagOpt::CudaGraphs, &graphs));
  PetscCall(VecCUDAGetArrayRead(bb, &b));
  PetscCall(VecCUDAGetArray(xx, &x));
  PetscCall(PetscLogGpuTimeBegin());
  if (graphs) {
    if (!d.sor_graph) PetscCallCXX(d.sor_graph = new DiagSorGraph());
    const long recorded = d.sor_graph->graph.recordings();
    DiagCallCUDA(d.sor_graph->graph.sweep(v, b, x, (PetscScalar)omega, sw, (Index)(its * lits), d.sor_diag, d.sor_diag + m, d.sor_diag + 2 * m, fwd, bwd, PetscDefaultCudaStream));
    if (d.sor_graph->graph.recordings() != recorded) PetscCall(PetscInfo(A, "diag: SOR sweeps (%" PetscInt_FMT " of them) recorded as a CUDA graph\n", (PetscInt)(its * lits)));
  } else DiagCallCUDA(pdiag::cuda::hm_sor(v, b, x, (PetscScalar)omega, sw, (Index)(its * lits), d.sor_diag, d.sor_diag + m, d.sor_diag + 2 * m, fwd, bwd, PetscDefaultCudaStream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArray(xx, &x));
  PetscCall(VecCUDARestoreArrayRead(bb, &b));
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)a->nstored() * (PetscLogDouble)(its * lits)));
  PetscFunctionReturn(0);
}
