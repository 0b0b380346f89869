// CUDA kernels for HM and CDM blocks: products with a vector (y = A x,
// y = A x + z, y = A^T x, y = A^T x + z). Same signatures and semantics as
// the CPU reference kernels in pdiag/cpu.hpp, plus a trailing stream; every
// pointer (the view's offsets/start/koffsets/val, x, y, z, shift) is a
// DEVICE pointer. A null shift means default addressing, as in cpu.hpp.
//
// Each function enqueues one kernel on `stream` and returns the result of
// cudaGetLastError() after the launch (launch errors only: execution errors
// surface at the next synchronisation). When there is nothing to compute
// (no rows in the range, ny == 0) nothing is launched and cudaSuccess is
// returned; a negative row_lo returns cudaErrorInvalidValue. As in cpu.hpp,
// T is deduced from x and y only (nodeduce_t): views of T or const T and a
// literal nullptr for z are accepted.
//
// This header is plain C++ (no __global__): PETSc plugin sources compiled by
// the host compiler include it and link against pdiag_cuda.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"
#include "pdiag/product.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace pdiag::cuda {

/// HM y[il] = (z ? z[il] : 0) + sum_k a(i, i + d_k) x[il + shift[k]] for local
/// rows il in [row_lo, row_hi) (row_hi < 0 or > nrows: up to nrows). y may
/// alias z; rows outside the range are not touched.
template <class T>
cudaError_t hm_spmv(const HmView<const nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z = nullptr,
                    const Index* shift = nullptr, Index row_lo = 0, Index row_hi = -1, cudaStream_t stream = nullptr);

/// HM r[il] = b[il] - sum_k a(i, i + d_k) x[il + shift[k]] for local rows il
/// in [row_lo, row_hi) (PETSc's MatResidual in one pass: A x is not
/// written). Each term is subtracted from b in hm_spmv's order, so r equals
/// b minus hm_spmv's y to rounding. b is required; r may alias b, not x.
template <class T>
cudaError_t hm_residual(const HmView<const nodeduce_t<T>>& A, const T* x, const nodeduce_t<T>* b, T* r, const Index* shift = nullptr,
                        Index row_lo = 0, Index row_hi = -1, cudaStream_t stream = nullptr);

/// HM y = A^T x (+ z), y[p] for p in [0, ny), x over the local rows; each
/// stored a(i, i + d_k) meets y at il + shift[k]. With a null shift ny must
/// be ncols. Gather form: deterministic, no atomics. y may alias z.
template <class T>
cudaError_t hm_spmv_t(const HmView<const nodeduce_t<T>>& A, const T* x, T* y, Index ny,
                      const nodeduce_t<T>* z = nullptr, const Index* shift = nullptr, cudaStream_t stream = nullptr);

/// CDM y = A x (+ z) over local rows [row_lo, row_hi); shift has 2*ndiag
/// entries (above the wrap, then below it), see default_cdm_shift.
template <class T>
cudaError_t cdm_spmv(const CdmView<const nodeduce_t<T>>& A, const T* x, T* y, const nodeduce_t<T>* z = nullptr,
                     const Index* shift = nullptr, Index row_lo = 0, Index row_hi = -1, cudaStream_t stream = nullptr);

/// CDM y = A^T x (+ z), y of length ny (ncols with a null shift).
template <class T>
cudaError_t cdm_spmv_t(const CdmView<const nodeduce_t<T>>& A, const T* x, T* y, Index ny,
                       const nodeduce_t<T>* z = nullptr, const Index* shift = nullptr, cudaStream_t stream = nullptr);

// Instantiated for double and float in kernels/src/spmv.cu.
extern template cudaError_t hm_spmv<double>(const HmView<const double>&, const double*, double*, const double*,
                                            const Index*, Index, Index, cudaStream_t);
extern template cudaError_t hm_spmv<float>(const HmView<const float>&, const float*, float*, const float*,
                                           const Index*, Index, Index, cudaStream_t);
extern template cudaError_t hm_residual<double>(const HmView<const double>&, const double*, const double*, double*, const Index*, Index,
                                                Index, cudaStream_t);
extern template cudaError_t hm_residual<float>(const HmView<const float>&, const float*, const float*, float*, const Index*, Index, Index,
                                               cudaStream_t);
extern template cudaError_t hm_spmv_t<double>(const HmView<const double>&, const double*, double*, Index,
                                              const double*, const Index*, cudaStream_t);
extern template cudaError_t hm_spmv_t<float>(const HmView<const float>&, const float*, float*, Index, const float*,
                                             const Index*, cudaStream_t);
extern template cudaError_t cdm_spmv<double>(const CdmView<const double>&, const double*, double*, const double*,
                                             const Index*, Index, Index, cudaStream_t);
extern template cudaError_t cdm_spmv<float>(const CdmView<const float>&, const float*, float*, const float*,
                                            const Index*, Index, Index, cudaStream_t);
extern template cudaError_t cdm_spmv_t<double>(const CdmView<const double>&, const double*, double*, Index,
                                               const double*, const Index*, cudaStream_t);
extern template cudaError_t cdm_spmv_t<float>(const CdmView<const float>&, const float*, float*, Index,
                                              const float*, const Index*, cudaStream_t);

/// Compressed HM (constant diagonals with exceptions, pdiag/compress.hpp):
/// y = A x (+ z) over local rows [row_lo, row_hi), the semantics of hm_spmv
/// and of the CPU reference pdiag::hm_compressed_spmv. Every array of the
/// view is a DEVICE pointer (npacked and nrows_exc are the host-known sizes).
/// Enqueues up to two kernels on `stream`: pass 1 (full and constant
/// diagonals; a constant diagonal loads no values) and, when the view has
/// exception rows, pass 2 (one thread per exception row, adding its
/// corrections: no atomics, deterministic). Returns the first launch error.
template <class T>
cudaError_t hm_compressed_spmv(const HmCompressedView<nodeduce_t<T>>& A, const T* x, T* y,
                               const nodeduce_t<T>* z = nullptr, const Index* shift = nullptr, Index row_lo = 0,
                               Index row_hi = -1, cudaStream_t stream = nullptr);

/// r = b - A x over local rows [row_lo, row_hi) of a compressed block
/// (MatResidual in hm_compressed_spmv's two passes: A x is never written).
/// b is required and may alias r; device pointers as hm_compressed_spmv.
/// Rounding: an exception row subtracts its corrections after the rest of
/// its sum, where b - (A x) subtracts them together.
template <class T>
cudaError_t hm_compressed_residual(const HmCompressedView<nodeduce_t<T>>& A, const T* x, const nodeduce_t<T>* b, T* r,
                                   const Index* shift = nullptr, Index row_lo = 0, Index row_hi = -1,
                                   cudaStream_t stream = nullptr);

/// MatGetDiagonal of a compressed block (pdiag::hm_compressed_get_diagonal):
/// out (device, local rows) gets the main diagonal k0 (its index in
/// A.offsets; -1: none stored, out zeroed). Bit-identical to the CPU
/// reference.
template <class T>
cudaError_t hm_compressed_get_diagonal(const HmCompressedView<nodeduce_t<T>>& A, Index k0, T* out,
                                       cudaStream_t stream = nullptr);

// Instantiated for double and float in kernels/src/spmv_compressed.cu.
extern template cudaError_t hm_compressed_spmv<double>(const HmCompressedView<double>&, const double*, double*,
                                                       const double*, const Index*, Index, Index, cudaStream_t);
extern template cudaError_t hm_compressed_spmv<float>(const HmCompressedView<float>&, const float*, float*,
                                                      const float*, const Index*, Index, Index, cudaStream_t);
extern template cudaError_t hm_compressed_residual<double>(const HmCompressedView<double>&, const double*, const double*,
                                                           double*, const Index*, Index, Index, cudaStream_t);
extern template cudaError_t hm_compressed_residual<float>(const HmCompressedView<float>&, const float*, const float*, float*,
                                                          const Index*, Index, Index, cudaStream_t);
extern template cudaError_t hm_compressed_get_diagonal<double>(const HmCompressedView<double>&, Index, double*,
                                                               cudaStream_t);
extern template cudaError_t hm_compressed_get_diagonal<float>(const HmCompressedView<float>&, Index, float*,
                                                              cudaStream_t);

}  // namespace pdiag::cuda

// ==== Assembly: COO values into stored slots ====

namespace pdiag::cuda {

/// val[slot[e]] += v[e] for e in [0, n) with slot[e] >= 0 (pdiag::scatter_add
/// semantics; every pointer a DEVICE pointer). Entries sharing a slot are
/// summed with atomics: the result is exact up to the order of additions.
/// cudaErrorInvalidValue for n < 0; nothing launched for n == 0.
template <class T>
cudaError_t scatter_add(T* val, const Index* slot, const nodeduce_t<T>* v, Index n, cudaStream_t stream = nullptr);

// Instantiated for double and float in kernels/src/scatter.cu.
extern template cudaError_t scatter_add<double>(double*, const Index*, const double*, Index, cudaStream_t);
extern template cudaError_t scatter_add<float>(float*, const Index*, const float*, Index, cudaStream_t);

/// val[p] *= alpha, p in [0, n) (MatScale of the stored values).
template <class T>
cudaError_t scale_values(T* val, Index n, nodeduce_t<T> alpha, cudaStream_t stream = nullptr);
/// val[p] += alpha, p in [0, n) (MatShift: the main diagonal's stored run).
template <class T>
cudaError_t add_scalar(T* val, Index n, nodeduce_t<T> alpha, cudaStream_t stream = nullptr);
/// y[p] += alpha x[p], p in [0, n) (MatAXPY of two blocks of one structure).
template <class T>
cudaError_t axpy_values(T* y, nodeduce_t<T> alpha, const nodeduce_t<T>* x, Index n, cudaStream_t stream = nullptr);
/// MatDiagonalScale: a(i, j) *= l[i - row_begin], then *= r at j's place
/// (hm_diagonal_scale / cdm_diagonal_scale of pdiag/cpu.hpp): r is read like
/// the x of hm_spmv / cdm_spmv, through the per-slot shifts (a gathered
/// column work vector under MPI) or, with a null shift, at the global
/// column. l or r may be null. Every array is a device array.
template <class T>
cudaError_t hm_diagonal_scale(const HmView<T>& A, const nodeduce_t<T>* l, const nodeduce_t<T>* r, const Index* shift = nullptr, cudaStream_t stream = nullptr);
template <class T>
cudaError_t cdm_diagonal_scale(const CdmView<T>& A, const nodeduce_t<T>* l, const nodeduce_t<T>* r, const Index* shift = nullptr, cudaStream_t stream = nullptr);
/// MatZeroRows: every stored entry of the listed global rows (each inside
/// the block, no duplicates needed) set to 0, the main diagonal's to diag
/// (pdiag::zero_rows; the caller adds a missing main diagonal first).
template <class T>
cudaError_t hm_zero_rows(const HmView<T>& A, const Index* rows, Index n, nodeduce_t<T> diag, cudaStream_t stream = nullptr);
template <class T>
cudaError_t cdm_zero_rows(const CdmView<T>& A, const Index* rows, Index n, nodeduce_t<T> diag, cudaStream_t stream = nullptr);
/// dst[rows[q]] = alpha src[rows[q]], q in [0, n) (pdiag::set_scaled_entries).
template <class T>
cudaError_t set_scaled_entries(T* dst, const nodeduce_t<T>* src, const Index* rows, Index n, nodeduce_t<T> alpha, cudaStream_t stream = nullptr);
// Each returns cudaErrorInvalidValue for a negative count and launches
// nothing for an empty one. Instantiated for double and float in
// kernels/src/ops.cu.
#define PDIAG_OPS_DECLARE(T)                                                                  \
  extern template cudaError_t scale_values<T>(T*, Index, T, cudaStream_t);                    \
  extern template cudaError_t add_scalar<T>(T*, Index, T, cudaStream_t);                      \
  extern template cudaError_t axpy_values<T>(T*, T, const T*, Index, cudaStream_t);           \
  extern template cudaError_t hm_diagonal_scale<T>(const HmView<T>&, const T*, const T*, const Index*, cudaStream_t); \
  extern template cudaError_t cdm_diagonal_scale<T>(const CdmView<T>&, const T*, const T*, const Index*, cudaStream_t); \
  extern template cudaError_t hm_zero_rows<T>(const HmView<T>&, const Index*, Index, T, cudaStream_t); \
  extern template cudaError_t cdm_zero_rows<T>(const CdmView<T>&, const Index*, Index, T, cudaStream_t); \
  extern template cudaError_t set_scaled_entries<T>(T*, const T*, const Index*, Index, T, cudaStream_t);
PDIAG_OPS_DECLARE(double)
PDIAG_OPS_DECLARE(float)
#undef PDIAG_OPS_DECLARE

}  // namespace pdiag::cuda

// ==== Products: diag x diag (SpGEMM numeric phase) and diag x dense (SpMM) ====
//
// Declarations for kernels/src/product.cu. Same semantics as the CPU
// references in pdiag/product.hpp and pdiag/spmm.hpp, every pointer a DEVICE
// pointer, a trailing stream. Each function returns the first error of its
// cudaMemsetAsync / launch (cudaGetLastError after each launch), or
// cudaErrorInvalidValue, with nothing enqueued, for arguments that cannot
// be right (operations or layouts other than the plan's, k < 0, ...). What
// only the device knows (the offsets in a view) is not checked: pass the
// operands the plan was made for. Wrong offsets never make a kernel read or
// write outside the views' arrays (every row range is clipped to the
// operands' own), they give a wrong C.

namespace pdiag::cuda {

/// Device view of an HmProductPlan (POD: sizes and device pointers), for
/// the HM product kernels. Made and owned by DeviceHmPlan; valid while it
/// lives and until its next upload.
///
/// Besides the plan's arrays it holds the work schedule of the
/// output-stationary kernel: tasks (row tile, output diagonal), a tile
/// being kTileRows consecutive rows of C (aligned at layout.row_begin),
/// encoded tile * ndiag + c, ordered by tile then c (so that blocks running
/// together read the same rows of A). With `tasks` null the kernel takes
/// every code in [0, ntasks) = [0, tiles * ndiag) and skips the pairs that
/// do not meet; otherwise `tasks` lists the ones that do. And `cmap`, the
/// index of C's diagonal with offset cmap_lo + q, -1 where C has none (the
/// atomic variant's lookup).
struct DevicePlan {
  static constexpr Index kTileRows = 1024;  ///< rows of C per task (256 threads x 4 rows)
  Layout layout;                            ///< C's layout
  Trans ta = Trans::N, tb = Trans::N;       ///< the operations the plan was made for
  Index ndiag = 0;                          ///< C's diagonals
  Index npairs = 0;
  Index nstored = 0;                        ///< C's stored entries
  Index nmul = 0;                           ///< multiply-adds of the numeric phase (flops = 2 nmul)
  Index min_ndiag_a = 0, min_ndiag_b = 0;   ///< 1 + the largest index into A's / B's diagonals in the pairs
  const Index* offsets = nullptr;           ///< [ndiag] C's diagonals, ascending
  const Index* pair_start = nullptr;        ///< [ndiag + 1]
  const Index* pair_a = nullptr;            ///< [npairs]
  const Index* pair_b = nullptr;            ///< [npairs]
  Index ntasks = 0;
  const Index* tasks = nullptr;             ///< [ntasks], or null: every code below ntasks
  Index cmap_lo = 0, cmap_len = 0;
  const std::int32_t* cmap = nullptr;       ///< [cmap_len]
};

/// Owner of a DevicePlan's device memory (one cudaMalloc, a second one for
/// a task list; freed by the destructor or reset). Move-only. Not
/// thread-safe; one plan may be used by any number of numeric calls, on
/// any streams, since the kernels only read it.
class DeviceHmPlan {
 public:
  DeviceHmPlan() = default;
  DeviceHmPlan(const DeviceHmPlan&) = delete;
  DeviceHmPlan& operator=(const DeviceHmPlan&) = delete;
  DeviceHmPlan(DeviceHmPlan&& o) noexcept
      : buf_(std::exchange(o.buf_, nullptr)),
        tasks_buf_(std::exchange(o.tasks_buf_, nullptr)),
        bytes_(std::exchange(o.bytes_, 0)),
        view_(std::exchange(o.view_, {})) {}
  DeviceHmPlan& operator=(DeviceHmPlan&& o) noexcept {
    std::swap(buf_, o.buf_);
    std::swap(tasks_buf_, o.tasks_buf_);
    std::swap(bytes_, o.bytes_);
    std::swap(view_, o.view_);
    return *this;
  }
  ~DeviceHmPlan() { reset(); }

  /// The symbolic phase on the device (kernels/src/product_symbolic.cu):
  /// the plan of op(A) op(B) from the operands' layouts and offsets (host
  /// arrays, as for hm_product_symbolic, whose FormatError it throws for bad
  /// operands), built where it is used: the pair lists are computed and kept
  /// on the device, equal to hm_product_symbolic's (same diagonals, pairs in
  /// the same order). *host receives the plan's layout, ta, tb, offsets and
  /// nmul, with empty pair lists. Returns after the work has completed on
  /// `stream`; cudaErrorNotSupported (nothing done) when the sums of the
  /// offsets span a range much wider than the pairs (the caller then plans
  /// on the host and uploads); on any error the object is left empty.
  cudaError_t symbolic(const Layout& LA, const std::vector<Index>& offA, Trans ta, const Layout& LB,
                       const std::vector<Index>& offB, Trans tb, HmProductPlan* host, cudaStream_t stream = nullptr);

  /// Copies `plan` (and the schedule derived from it) to the device,
  /// replacing what was held; returns after the copy has completed on
  /// `stream`. cudaErrorInvalidValue for an inconsistent plan (array sizes,
  /// more than 2^31 - 1 diagonals); on any error the object is left empty.
  cudaError_t upload(const HmProductPlan& plan, cudaStream_t stream = nullptr);
  /// Frees the device memory (cudaFree: waits for work using it).
  void reset() noexcept;
  const DevicePlan& view() const { return view_; }
  /// Device bytes held.
  std::size_t bytes() const { return bytes_; }

 private:
  /// The task schedule of view_ (list or enumeration) for C's offsets;
  /// a list goes to tasks_buf_.
  cudaError_t set_tasks(const std::vector<Index>& offsets, cudaStream_t stream);
  void* buf_ = nullptr;
  void* tasks_buf_ = nullptr;
  std::size_t bytes_ = 0;
  DevicePlan view_{};
};

/// Numeric phase of the HM product C = op(A) op(B), output-stationary (the
/// default): for each task (row tile, output diagonal) a block of 256
/// threads sums the diagonal's pair list for 1024 rows in registers (4 rows
/// per thread), pair metadata staged in shared memory in chunks of 256
/// pairs; no atomics, deterministic, C overwritten (every stored entry
/// written). Transposed operands are read in place as in the CPU reference
/// (negated offsets, transposed layout, same value positions). A, B and C
/// must be the operands `plan` was uploaded for (hm_product_symbolic /
/// hm_product_alloc); C may not alias A or B.
template <class T>
cudaError_t hm_product_numeric(const DevicePlan& plan, const HmView<const nodeduce_t<T>>& A, Trans ta,
                               const HmView<const nodeduce_t<T>>& B, Trans tb, const HmView<T>& C,
                               cudaStream_t stream = nullptr);

/// The paper's Algorithm 2 (reference variant for benchmarks): C is zeroed
/// (cudaMemsetAsync), then one thread per stored entry of A loops over B's
/// diagonals and atomicAdds each product into C (C's diagonal found through
/// plan.cmap). Same arguments and result as hm_product_numeric, up to
/// rounding: the order of the additions is not fixed.
template <class T>
cudaError_t hm_product_numeric_atomic(const DevicePlan& plan, const HmView<const nodeduce_t<T>>& A, Trans ta,
                                      const HmView<const nodeduce_t<T>>& B, Trans tb, const HmView<T>& C,
                                      cudaStream_t stream = nullptr);

/// The paper's Algorithm 1 (reference variant for benchmarks): CDM product
/// C = op(A) op(B) of full N x N matrices, C with the compact diagonals of
/// cdm_product_symbolic (any stored set works: C_k is computed for each
/// stored k), overwritten. 16 x 16 thread blocks, a block computes 16 rows
/// of 16 compact diagonals of C; per step it stages a 16 x 16 tile of A's
/// compact diagonals (16 diagonals x the block's 16 rows) in shared memory
/// and the index of B's compact diagonal for each (C, A) diagonal pair
/// (binary search over B's koffsets, in place of the paper's dense
/// BdiagDense array), and each thread does 16 multiply-adds, B read from
/// global memory. Rows are mapped to threadIdx.x (the paper maps diagonals
/// there) so that the loads of A, B and the stores of C are coalesced.
/// cudaErrorInvalidValue unless A, B, C are full N x N blocks of one N.
template <class T>
cudaError_t cdm_product_numeric_tiled(const CdmView<const nodeduce_t<T>>& A, Trans ta,
                                      const CdmView<const nodeduce_t<T>>& B, Trans tb, const CdmView<T>& C,
                                      cudaStream_t stream = nullptr);

/// HM SpMM C = A X (pdiag/spmm.hpp semantics): X column-major with k columns
/// and leading dimension ldx, row il + shift[q] of X met by local row il and
/// diagonal q (null shift: global column, ldx >= ncols); C (k columns, ldc
/// >= nrows) overwritten on the local rows, rows >= nrows of each column
/// untouched. A thread computes one row for a group of up to 8 columns: each
/// value of A it loads is used for every column of the group.
/// cudaErrorInvalidValue for k < 0, ldc < nrows, or a null shift with ldx <
/// ncols; nothing launched when k == 0 or there are no rows.
template <class T>
cudaError_t hm_spmm(const HmView<const nodeduce_t<T>>& A, const T* X, Index ldx, Index k, T* C, Index ldc,
                    const Index* shift = nullptr, cudaStream_t stream = nullptr);

/// CDM SpMM C = A X, as hm_spmm; shift has 2*ndiag entries (above the wrap,
/// then below it), see default_cdm_shift.
template <class T>
cudaError_t cdm_spmm(const CdmView<const nodeduce_t<T>>& A, const T* X, Index ldx, Index k, T* C, Index ldc,
                     const Index* shift = nullptr, cudaStream_t stream = nullptr);

// Instantiated for double and float in kernels/src/product.cu.
#define PDIAG_PRODUCT_DECLARE(T)                                                                                    \
  extern template cudaError_t hm_product_numeric<T>(const DevicePlan&, const HmView<const T>&, Trans,               \
                                                    const HmView<const T>&, Trans, const HmView<T>&, cudaStream_t); \
  extern template cudaError_t hm_product_numeric_atomic<T>(const DevicePlan&, const HmView<const T>&, Trans,        \
                                                           const HmView<const T>&, Trans, const HmView<T>&,         \
                                                           cudaStream_t);                                           \
  extern template cudaError_t cdm_product_numeric_tiled<T>(const CdmView<const T>&, Trans, const CdmView<const T>&, \
                                                           Trans, const CdmView<T>&, cudaStream_t);                 \
  extern template cudaError_t hm_spmm<T>(const HmView<const T>&, const T*, Index, Index, T*, Index, const Index*,   \
                                         cudaStream_t);                                                             \
  extern template cudaError_t cdm_spmm<T>(const CdmView<const T>&, const T*, Index, Index, T*, Index, const Index*, \
                                          cudaStream_t);
PDIAG_PRODUCT_DECLARE(double)
PDIAG_PRODUCT_DECLARE(float)
#undef PDIAG_PRODUCT_DECLARE

}  // namespace pdiag::cuda

// ==== SOR / Gauss-Seidel sweeps by level schedule ====
//
// Declarations for kernels/src/sor.cu: pdiag::hm_sor (pdiag/relax.hpp) on
// the device, the rows of each level (pdiag/levels.hpp) relaxed in
// parallel, one kernel launch per level on `stream` (launches of one stream
// run in order, so a level sees the previous levels' values; a launch costs
// a few microseconds, so the number of levels, ~nx + ny + nz for a 3D
// stencil, bounds the speed of small problems; a cooperative kernel with a
// grid-wide barrier per level would save the launches but needs every row
// of a level resident at once and is left for when it is measured).

#include "pdiag/relax.hpp"

namespace pdiag::cuda {

/// A level schedule on the device: level_ptr a HOST array of nlevels + 1
/// entries (the launches' sizes), rows its DEVICE array of level_ptr[nlevels]
/// rows.
struct LevelsView {
  Index nlevels = 0;
  const Index* level_ptr = nullptr;
  const Index* rows = nullptr;
};

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

// ==== Triangular solves with ILU(0) / ICC(0) factors by level schedule ====
//
// Declarations for kernels/src/factor_solve.cu: the solves of
// pdiag/factor_solve.hpp (hm_ilu_solve, hm_ilu_solve_transpose, hm_icc_solve,
// hm_icc_forward, hm_icc_backward) on the device, each pass of
// pdiag/factor_levels.hpp one launch per level of its schedule (as the SOR
// sweeps above). The factorization itself stays on the host.

#include "pdiag/factor_levels.hpp"
#include "pdiag/factor_tiles.hpp"

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

// ==== Numeric ILU(0) / ICC(0) factorization by levels ====
// (pdiag/factor_numeric.hpp; kernels/src/factor_numeric.cu)

}  // namespace pdiag::cuda

#include "pdiag/factor_numeric.hpp"

namespace pdiag::cuda {

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

// ==== Values between HM and a CSR pattern owned elsewhere (cuSPARSE's) ====

namespace pdiag::cuda {

/// out[e] = A(i, colidx[e]) for every entry of every local row of A's block
/// (pdiag::hm_values_at_csr of pdiag/csr_values.hpp): the values of a CSR
/// copy whose pattern the caller chose. One thread per row. A's arrays,
/// rowptr (nrows + 1 entries), colidx and out: DEVICE pointers.
/// cudaErrorInvalidValue, nothing enqueued, for null pointers.
template <class T, class I>
cudaError_t hm_values_at_csr(const HmView<const T>& A, const I* rowptr, const I* colidx, T* out, cudaStream_t stream = nullptr);

/// C's stored values from the CSR values of its rows (pdiag::hm_set_from_csr):
/// all nstored of them zeroed, then each CSR entry in its place. The number
/// of entries on a diagonal C does not store is ADDED to *misses (a device
/// word the caller zeroes and reads). DEVICE pointers; cudaErrorInvalidValue,
/// nothing enqueued, for null ones or nstored < 0.
template <class T, class I>
cudaError_t hm_set_from_csr(const HmView<T>& C, Index nstored, const I* rowptr, const I* colidx, const T* vals, unsigned long long* misses, cudaStream_t stream = nullptr);

/// Adds to *count (a device word the caller zeroes and reads) the number of
/// nonzero v[p], p in [0, n): a check that a CSR copy of a block holds
/// all of its nonzeros. DEVICE pointers; cudaErrorInvalidValue for null ones.
template <class T>
cudaError_t count_nonzeros(const T* v, Index n, unsigned long long* count, cudaStream_t stream = nullptr);
extern template cudaError_t count_nonzeros<double>(const double*, Index, unsigned long long*, cudaStream_t);
extern template cudaError_t count_nonzeros<float>(const float*, Index, unsigned long long*, cudaStream_t);

// Instantiated for double and float with 32- and 64-bit CSR indices in kernels/src/csr_values.cu.
#define PDIAG_CSR_VALUES_EXTERN(T, I)                                                                                      \
  extern template cudaError_t hm_values_at_csr<T, I>(const HmView<const T>&, const I*, const I*, T*, cudaStream_t);       \
  extern template cudaError_t hm_set_from_csr<T, I>(const HmView<T>&, Index, const I*, const I*, const T*,              \
                                                    unsigned long long*, cudaStream_t);
PDIAG_CSR_VALUES_EXTERN(double, std::int32_t)
PDIAG_CSR_VALUES_EXTERN(double, std::int64_t)
PDIAG_CSR_VALUES_EXTERN(float, std::int32_t)
PDIAG_CSR_VALUES_EXTERN(float, std::int64_t)
#undef PDIAG_CSR_VALUES_EXTERN

}  // namespace pdiag::cuda

// ==== Q1 grid transfers of a 2:1 vertex-centred refinement ====

#include "pdiag/transfer.hpp"

namespace pdiag::cuda {

/// yf = P xc (+ zf), P the Q1 interpolation of the refinement g
/// (pdiag::vertex_q1_prolong of pdiag/transfer.hpp); yf may alias zf. One
/// thread per fine point. DEVICE pointers; cudaErrorInvalidValue, nothing
/// enqueued, for null xc or yf or a g that is not a 2:1 refinement.
template <class T>
cudaError_t vertex_q1_prolong(const VertexGrids& g, const T* xc, T* yf, const nodeduce_t<T>* zf = nullptr, cudaStream_t stream = nullptr);

/// yc = P^T xf (+ zc) (pdiag::vertex_q1_restrict); yc may alias zc. One
/// thread per coarse point. As vertex_q1_prolong otherwise.
template <class T>
cudaError_t vertex_q1_restrict(const VertexGrids& g, const T* xf, T* yc, const nodeduce_t<T>* zc = nullptr, cudaStream_t stream = nullptr);

// Instantiated for double and float in kernels/src/transfer.cu.
extern template cudaError_t vertex_q1_prolong<double>(const VertexGrids&, const double*, double*, const double*, cudaStream_t);
extern template cudaError_t vertex_q1_prolong<float>(const VertexGrids&, const float*, float*, const float*, cudaStream_t);
extern template cudaError_t vertex_q1_restrict<double>(const VertexGrids&, const double*, double*, const double*, cudaStream_t);
extern template cudaError_t vertex_q1_restrict<float>(const VertexGrids&, const float*, float*, const float*, cudaStream_t);

}  // namespace pdiag::cuda

// ==== The Galerkin coarse operator of the Q1 interpolation ====

#include "pdiag/galerkin_q1.hpp"

namespace pdiag::cuda {

/// C = P^T A P (pdiag::vertex_q1_galerkin of pdiag/galerkin_q1.hpp): A and
/// C HM views of DEVICE arrays (C's diagonals those of
/// vertex_q1_galerkin_offsets), one thread per coarse row. *failed (a
/// device word the caller zeroes) becomes nonzero when a nonzero of A
/// couples fine points more than one apart in some direction; C then
/// means nothing. cudaErrorInvalidValue, nothing enqueued, for sizes that
/// do not fit or a null `failed`.
template <class T>
cudaError_t vertex_q1_galerkin(const VertexGrids& g, const HmView<const T>& A, const Q1Places& places, const HmView<T>& C, unsigned* failed, cudaStream_t stream = nullptr);

/// The same for A in compressed form (constant diagonals with exceptions,
/// pdiag/compress.hpp; DEVICE arrays), read as it is: a constant-
/// coefficient operator's device copy needs no full values.
template <class T>
cudaError_t vertex_q1_galerkin(const VertexGrids& g, const HmCompressedView<T>& A, const Q1Places& places, const HmView<T>& C, unsigned* failed, cudaStream_t stream = nullptr);

// Instantiated for double and float in kernels/src/galerkin_q1.cu.
extern template cudaError_t vertex_q1_galerkin<double>(const VertexGrids&, const HmView<const double>&, const Q1Places&, const HmView<double>&, unsigned*, cudaStream_t);
extern template cudaError_t vertex_q1_galerkin<float>(const VertexGrids&, const HmView<const float>&, const Q1Places&, const HmView<float>&, unsigned*, cudaStream_t);
extern template cudaError_t vertex_q1_galerkin<double>(const VertexGrids&, const HmCompressedView<double>&, const Q1Places&, const HmView<double>&, unsigned*, cudaStream_t);
extern template cudaError_t vertex_q1_galerkin<float>(const VertexGrids&, const HmCompressedView<float>&, const Q1Places&, const HmView<float>&, unsigned*, cudaStream_t);

}  // namespace pdiag::cuda
