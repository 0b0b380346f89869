// CUDA products: diag x diag (the SpGEMM's symbolic and numeric phases)
// and diag x dense (SpMM).
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
//
// Plain C++ for the plugin's host compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/product.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

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
