// CUDA: values between HM and a CSR pattern owned elsewhere (cuSPARSE's),
// pdiag/csr_values.hpp on the device. Plain C++ for the plugin's host
// compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

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
