// CUDA ILU(0) / ICC(0): the numeric factorization by levels and the
// triangular solves with its factors, by levels or by tiles.
//
// Triangular solves (kernels/src/factor_solve.cu): the solves of
// pdiag/factor_solve.hpp (hm_ilu_solve, hm_ilu_solve_transpose, hm_icc_solve,
// hm_icc_forward, hm_icc_backward) on the device, each pass of
// pdiag/factor_levels.hpp one launch per level of its schedule (as the SOR
// sweeps of pdiag/sor_cuda.hpp), or one cooperative launch over the tiles
// of pdiag/factor_tiles.hpp. The numeric factorization
// (kernels/src/factor_numeric.cu): pdiag/factor_numeric.hpp by levels.
//
// Plain C++ for the plugin's host compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/factor_levels.hpp"
#include "pdiag/factor_numeric.hpp"
#include "pdiag/factor_tiles.hpp"
#include "pdiag/format.hpp"
#include "pdiag/levels_cuda.hpp"

#include <cuda_runtime_api.h>

#include <array>

namespace pdiag::cuda {

/// A tiled schedule (pdiag/factor_tiles.hpp's TileSchedule) on the device:
/// its geometry, its records (tile_records: DEVICE arrays rec, 8 ints per
/// ticket, and extra), and two DEVICE work arrays the solves use: flags
/// (ntiles unsigned) and state (2 unsigned), both zeroed once when allocated
/// and then left to the solves (each pass advances state's epoch instead of
/// clearing flags). One schedule's work arrays serve one stream at a time.
struct TilesView {
  GridShape grid;
  Index tx = 1, ty = 1, tz = 1;
  Index ntiles = 0;
  int max_terms = 0;
  const int* rec = nullptr;
  const int* extra = nullptr;
  unsigned* flags = nullptr;
  unsigned* state = nullptr;
  bool skewed = false;  // boxes in skewed coordinates (TileSchedule::skewed)
};

/// x = op(F)^{-1} b for `what` (pdiag::FactorSolve), F a FactorRowsView of
/// DEVICE arrays; schedules an array of kSolveScheduleKinds LevelsView
/// indexed by SolveScheduleKind, of which those of the solve's passes
/// (pass_schedule) must be hm_factor_schedule of F (the others are not
/// read). b, x DEVICE arrays of F.n entries; x may alias b. The result is
/// the sequential solve's to rounding (fused multiply-adds). ICC's halves
/// need 1 / D >= 0 (hm_icc_halves_defined): the caller checks it once per
/// factor. cudaErrorInvalidValue, nothing enqueued, for a factor without
/// its main diagonal or a needed schedule that does not cover its rows;
/// otherwise the first launch error.
template <class T>
cudaError_t hm_factor_solve(const FactorRowsView<nodeduce_t<T>>& F, FactorSolve what, const T* b, T* x,
                            const LevelsView* schedules, cudaStream_t stream = nullptr);

/// hm_factor_solve by tiles (pdiag/factor_tiles.hpp): each pass one
/// cooperative launch of as many warps as fit on the device at once (plus a
/// one-thread launch that starts it), warp w taking tickets w, w + W, ...,
/// the tiles synchronized by flags in global memory instead of a launch per
/// level.
/// tiles an array of kSolveScheduleKinds TilesView indexed by
/// SolveScheduleKind, of which those of the solve's passes must hold
/// hm_factor_tile_schedule of F (uploaded; not checked on the device: a
/// schedule of another factor can hang the kernel) and must not be used by
/// another stream at the same time. Same result as hm_factor_solve (the
/// same terms in the same order). cudaErrorInvalidValue, nothing enqueued,
/// for a factor without its main diagonal or a needed schedule that is
/// empty or malformed; otherwise the first launch error.
template <class T>
cudaError_t hm_factor_solve_tiled(const FactorRowsView<nodeduce_t<T>>& F, FactorSolve what, const T* b, T* x,
                                  const TilesView* tiles, cudaStream_t stream = nullptr);

/// hm_factor_solve's launches recorded once per kind of solve as a CUDA
/// graph and replayed: one cudaGraphLaunch instead of one launch per level
/// (a few microseconds each, the bound of a solve with hundreds of levels).
/// A solve's graph is recorded (stream capture of hm_factor_solve's launches)
/// at its first solve and again when F's view or a used schedule's nlevels or
/// rows pointer differ from those it was recorded with; the graph reads b
/// and x through a device struct written by its first node, so new vectors
/// change that one node's parameters. The schedules' level_ptr CONTENTS and
/// the arrays' device addresses are baked into the graphs: call reset() when
/// the factor or a schedule is re-uploaded or freed. Same arguments, checks
/// and result as hm_factor_solve; a recording or launch error is returned
/// (and the failing graph dropped). Not thread-safe; one object per factor.
template <class T>
class FactorSolveGraphs {
 public:
  FactorSolveGraphs() = default;
  ~FactorSolveGraphs();
  FactorSolveGraphs(const FactorSolveGraphs&) = delete;
  FactorSolveGraphs& operator=(const FactorSolveGraphs&) = delete;

  /// Drops every recorded graph (the next solves record them again).
  void reset() noexcept;
  cudaError_t solve(const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x, const LevelsView* schedules,
                    cudaStream_t stream = nullptr);
  /// How many graphs were recorded since construction (tests: a graph is
  /// reused, not recorded per solve).
  long recordings() const { return recordings_; }

 private:
  struct Graph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaGraphNode_t bind = nullptr;  // the node that writes io
    void* io = nullptr;              // device {in, x}
    const T* in = nullptr;           // the vectors bind writes now
    T* x = nullptr;
    // what it was recorded for
    FactorRowsView<T> F{};
    std::array<Index, kSolveScheduleKinds> nlevels{};
    std::array<const Index*, kSolveScheduleKinds> rows{};
  };
  static constexpr int kSolves = 5;  // FactorSolve's values
  void drop(Graph& g) noexcept;
  cudaError_t record(Graph& g, const FactorRowsView<T>& F, FactorSolve what, const T* b, T* x,
                     const LevelsView* schedules);
  std::array<Graph, kSolves> graphs_{};
  long recordings_ = 0;
};

// Instantiated for double and float in kernels/src/factor_solve.cu.
extern template cudaError_t hm_factor_solve<double>(const FactorRowsView<double>&, FactorSolve, const double*, double*,
                                                    const LevelsView*, cudaStream_t);
extern template cudaError_t hm_factor_solve<float>(const FactorRowsView<float>&, FactorSolve, const float*, float*,
                                                   const LevelsView*, cudaStream_t);
extern template cudaError_t hm_factor_solve_tiled<double>(const FactorRowsView<double>&, FactorSolve, const double*,
                                                          double*, const TilesView*, cudaStream_t);
extern template cudaError_t hm_factor_solve_tiled<float>(const FactorRowsView<float>&, FactorSolve, const float*, float*,
                                                         const TilesView*, cudaStream_t);
extern template class FactorSolveGraphs<double>;
extern template class FactorSolveGraphs<float>;

// ---- Numeric ILU(0) / ICC(0) factorization by levels ----
// (pdiag/factor_numeric.hpp; kernels/src/factor_numeric.cu)

/// The numeric factorization of pdiag/factor_numeric.hpp on the device: F
/// holds A's values on the factor's diagonals (as detail::load_values
/// leaves them, no shift), P the factor's plan tables, pattern the entries
/// aij's factor holds (null: all), s hm_factor_numeric_schedule(F, P, ilu,
/// pattern) with its rows uploaded; one launch per level, one thread per
/// row, each row's pivot replaced by its inverse. *needs_policy (a device
/// word, not cleared here) gets a nonzero bit if a pivot needs PETSc's
/// policy (`screen`): then F is not the factor and the caller factors on
/// the host. Otherwise F is hm_ilu0's / hm_icc0's factor to rounding.
/// F's arrays, P's tables, pattern, s.rows, needs_policy: DEVICE pointers.
/// cudaErrorInvalidValue, nothing enqueued, for a plan without its main
/// diagonal or a schedule that does not cover F's rows; otherwise the first
/// launch error.
template <class T>
cudaError_t hm_factor_numeric(const FactorValues<T>& F, const FactorPlanView& P, bool ilu, const unsigned char* pattern,
                              const LevelsView& s, const PivotScreen& screen, unsigned* needs_policy,
                              cudaStream_t stream = nullptr);

/// Whether a nonzero value lies outside the pattern: sets a bit in *flag (a
/// device word, not cleared here) if val[p] != 0 and !marks[p] for some p <
/// n (a factor's values before its factorization, against the pattern it
/// was planned for: such a value must join the pattern first). val, marks,
/// flag: DEVICE pointers. cudaErrorInvalidValue, nothing enqueued, for null
/// pointers or n < 0.
template <class T>
cudaError_t factor_pattern_misses(const T* val, const unsigned char* marks, Index n, unsigned* flag, cudaStream_t stream = nullptr);

extern template cudaError_t factor_pattern_misses<double>(const double*, const unsigned char*, Index, unsigned*, cudaStream_t);
extern template cudaError_t factor_pattern_misses<float>(const float*, const unsigned char*, Index, unsigned*, cudaStream_t);
extern template cudaError_t hm_factor_numeric<double>(const FactorValues<double>&, const FactorPlanView&, bool,
                                                      const unsigned char*, const LevelsView&, const PivotScreen&,
                                                      unsigned*, cudaStream_t);
extern template cudaError_t hm_factor_numeric<float>(const FactorValues<float>&, const FactorPlanView&, bool,
                                                     const unsigned char*, const LevelsView&, const PivotScreen&,
                                                     unsigned*, cudaStream_t);

}  // namespace pdiag::cuda
