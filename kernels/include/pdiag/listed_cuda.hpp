// CUDA version of pdiag::listed_spmv_add (pdiag/cpu.hpp): entries listed by
// row, read through their positions in a value array, added into y. Every
// pointer is a DEVICE pointer. One launch on `stream`; returns
// cudaGetLastError() after it (nothing launched, cudaSuccess, when nrows is
// 0; cudaErrorInvalidValue when it is negative). Plain C++ for the plugin's
// host compiler, like every pdiag/*_cuda.hpp.
#pragma once

#include "pdiag/format.hpp"

#include <cuda_runtime_api.h>

namespace pdiag::cuda {

template <class T>
cudaError_t listed_spmv_add(Index nrows, const Index* rows, const Index* ptr, const Index* pos, const Index* cols,
                            const nodeduce_t<T>* val, const T* w, T* y, nodeduce_t<T> sign, cudaStream_t stream);

extern template cudaError_t listed_spmv_add<double>(Index, const Index*, const Index*, const Index*, const Index*, const double*,
                                                     const double*, double*, double, cudaStream_t);
extern template cudaError_t listed_spmv_add<float>(Index, const Index*, const Index*, const Index*, const Index*, const float*,
                                                    const float*, float*, float, cudaStream_t);

}  // namespace pdiag::cuda
