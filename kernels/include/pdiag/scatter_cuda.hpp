// CUDA assembly of COO values into stored slots (pdiag::scatter_add of
// pdiag/assemble.hpp on the device). Plain C++ for the plugin's host
// compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"

#include <cuda_runtime_api.h>

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

}  // namespace pdiag::cuda
