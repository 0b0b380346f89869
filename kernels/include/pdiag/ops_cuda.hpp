// CUDA operations on the stored values of HM and CDM blocks: MatScale,
// MatShift, MatAXPY of one structure, MatDiagonalScale, MatZeroRows (the
// CPU references of pdiag/cpu.hpp and pdiag/ops.hpp on the device). Every
// pointer is a DEVICE pointer; a trailing stream. Plain C++ for the
// plugin's host compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"

#include <cuda_runtime_api.h>

namespace pdiag::cuda {

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
