// CUDA kernels for HM and CDM blocks: products with a vector (y = A x,
// y = A x + z, y = A^T x, y = A^T x + z), the residual b - A x, and the
// same for compressed HM blocks (constant diagonals with exceptions,
// pdiag/compress.hpp). Same signatures and semantics as the CPU reference
// kernels in pdiag/cpu.hpp and pdiag/compress.hpp, plus a trailing stream;
// every pointer (the view's offsets/start/koffsets/val, x, y, z, shift) is
// a DEVICE pointer. A null shift means default addressing, as in cpu.hpp.
//
// Each function enqueues its kernel(s) on `stream` and returns the result
// of cudaGetLastError() after the launch (launch errors only: execution
// errors surface at the next synchronisation). When there is nothing to
// compute (no rows in the range, ny == 0) nothing is launched and
// cudaSuccess is returned; a negative row_lo returns cudaErrorInvalidValue.
// As in cpu.hpp, T is deduced from x and y only (nodeduce_t): views of T or
// const T and a literal nullptr for z are accepted.
//
// Plain C++ (no __global__), like every pdiag/*_cuda.hpp: PETSc plugin
// sources compiled by the host compiler include it and link against
// pdiag_cuda.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"

#include <cuda_runtime_api.h>

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
