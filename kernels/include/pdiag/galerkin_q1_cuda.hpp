// CUDA Galerkin coarse operator of the Q1 interpolation
// (pdiag/galerkin_q1.hpp on the device). Plain C++ for the plugin's host
// compiler; links against pdiag_cuda.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"
#include "pdiag/galerkin_q1.hpp"
#include "pdiag/transfer.hpp"

#include <cuda_runtime_api.h>

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
