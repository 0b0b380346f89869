// CUDA SOR / Gauss-Seidel sweeps by level schedule.
//
// Declarations for kernels/src/sor.cu: pdiag::hm_sor (pdiag/relax.hpp) on
// the device, the rows of each level (pdiag/levels.hpp) relaxed in
// parallel, one kernel launch per level on `stream` (launches of one stream
// run in order, so a level sees the previous levels' values; a launch costs
// a few microseconds, so the number of levels, ~nx + ny + nz for a 3D
// stencil, bounds the speed of small problems; a cooperative kernel with a
// grid-wide barrier per level would save the launches but needs every row
// of a level resident at once and is left for when it is measured).
//
// Plain C++ for the plugin's host compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/levels_cuda.hpp"
#include "pdiag/relax.hpp"

#include <cuda_runtime_api.h>

#include <array>

namespace pdiag::cuda {

/// its sweeps of SOR on A x = b as pdiag::hm_sor does them (forward,
/// backward, both; zero initial guess; omega), with mdiag and idiag from
/// pdiag::hm_sor_diagonal (device copies) and a device work vector t of m
/// entries; fwd / bwd the schedules of hm_level_schedule for the two
/// directions (each needed only if that sweep is asked for). The result is
/// hm_sor's to rounding (stored zeros are skipped; fused multiply-adds may
/// round differently). A, b, x, mdiag, idiag, t: DEVICE pointers.
/// cudaErrorInvalidValue, nothing enqueued, for a block that is not square
/// and sequential or a schedule that does not cover its rows; otherwise the
/// first launch error (cudaGetLastError after each launch).
template <class T>
cudaError_t hm_sor(const HmView<const nodeduce_t<T>>& A, const T* b, T* x, nodeduce_t<T> omega, SorSweeps sw, Index its,
                   const nodeduce_t<T>* mdiag, const nodeduce_t<T>* idiag, T* t, const LevelsView& fwd,
                   const LevelsView& bwd, cudaStream_t stream = nullptr);

/// hm_sor's launches recorded once as a CUDA graph and replayed: one
/// cudaGraphLaunch instead of one launch per level (a few microseconds
/// each, the bound of sweeps with hundreds of levels). Recorded (stream
/// capture of hm_sor's launches) at the first sweep and again when any
/// argument but b and x differs from those it was recorded with (A's view,
/// omega, the sweeps, its, mdiag, idiag, t, a used schedule's nlevels or
/// rows pointer); the graph reads b and x through a device struct written
/// by its first node, so new vectors change that one node's parameters. Up
/// to 4 graphs (argument sets) are kept, the least recently used replaced.
/// The schedules' level_ptr CONTENTS and the arrays' device addresses are
/// baked in: call reset() when a schedule, A's metadata or the diagonal
/// arrays are re-uploaded or freed. Same arguments, checks and result as hm_sor; a
/// recording or launch error is returned (and the graph dropped). Not
/// thread-safe; one object per matrix.
template <class T>
class SorGraph {
 public:
  SorGraph() = default;
  ~SorGraph();
  SorGraph(const SorGraph&) = delete;
  SorGraph& operator=(const SorGraph&) = delete;

  /// Drops the recorded graphs (the next sweeps record them again).
  void reset() noexcept;
  cudaError_t sweep(const HmView<const T>& A, const T* b, T* x, T omega, SorSweeps sw, Index its, const T* mdiag,
                    const T* idiag, T* t, const LevelsView& fwd, const LevelsView& bwd, cudaStream_t stream = nullptr);
  /// How many graphs were recorded since construction (tests: a graph is
  /// reused, not recorded per sweep).
  long recordings() const { return recordings_; }

 private:
  struct Key {
    Index nrows_global = 0, ncols = 0, row_begin = 0, nrows = 0, ndiag = 0;
    const Index* offsets = nullptr;
    const Index* start = nullptr;
    const T* val = nullptr;
    T omega = T(0);
    bool forward = false, backward = false, zero = false;
    Index its = 0;
    const T* mdiag = nullptr;
    const T* idiag = nullptr;
    T* t = nullptr;
    Index fwd_levels = 0;
    const Index* fwd_rows = nullptr;
    Index bwd_levels = 0;
    const Index* bwd_rows = nullptr;
    bool operator==(const Key& o) const {
      return nrows_global == o.nrows_global && ncols == o.ncols && row_begin == o.row_begin && nrows == o.nrows &&
             ndiag == o.ndiag && offsets == o.offsets && start == o.start && val == o.val && omega == o.omega &&
             forward == o.forward && backward == o.backward && zero == o.zero && its == o.its && mdiag == o.mdiag &&
             idiag == o.idiag && t == o.t && fwd_levels == o.fwd_levels && fwd_rows == o.fwd_rows &&
             bwd_levels == o.bwd_levels && bwd_rows == o.bwd_rows;
    }
  };
  struct Slot {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaGraphNode_t bind = nullptr;  // the node that writes the vectors
    void* io = nullptr;              // device {b, x}
    const T* b = nullptr;            // the vectors bind writes now
    T* x = nullptr;
    Key key{};
    long used = 0;  // when last replayed (least recently used goes first)
  };
  // a few graphs kept: a multigrid smoother alternates sweeps with and
  // without a zero initial guess, which one graph would record every time
  static constexpr int kSlots = 4;
  void drop(Slot& s) noexcept;
  cudaError_t record(Slot& s, const Key& key, const HmView<const T>& A, const T* b, T* x, T omega, SorSweeps sw,
                     Index its, const T* mdiag, const T* idiag, T* t, const LevelsView& fwd, const LevelsView& bwd);
  std::array<Slot, kSlots> slots_{};
  long clock_ = 0;
  long recordings_ = 0;
};

// Instantiated for double and float in kernels/src/sor.cu.
extern template cudaError_t hm_sor<double>(const HmView<const double>&, const double*, double*, double, SorSweeps, Index,
                                           const double*, const double*, double*, const LevelsView&, const LevelsView&,
                                           cudaStream_t);
extern template cudaError_t hm_sor<float>(const HmView<const float>&, const float*, float*, float, SorSweeps, Index,
                                          const float*, const float*, float*, const LevelsView&, const LevelsView&,
                                          cudaStream_t);
extern template class SorGraph<double>;
extern template class SorGraph<float>;

}  // namespace pdiag::cuda
