// CUDA Q1 grid transfers of a 2:1 vertex-centred refinement
// (pdiag/transfer.hpp on the device). Plain C++ for the plugin's host
// compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/transfer.hpp"

#include <cuda_runtime_api.h>

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
