// CUDA versions of pdiag/chebyshev.hpp's element-wise steps (the CPU
// references): the same signatures and semantics, device pointers, a
// trailing stream. Each enqueues one kernel and returns cudaGetLastError()
// after the launch (nothing is launched for n == 0). Plain C++, like
// every pdiag/*_cuda.hpp: the PETSc plugin includes it and links pdiag_cuda.
#pragma once

#include "pdiag/chebyshev.hpp"
#include "pdiag/compress.hpp"
#include "pdiag/format.hpp"
#include "pdiag/symmetric_cuda.hpp" /* hm_values_symmetric */

#include <cuda_runtime_api.h>

namespace pdiag::cuda {

/// x_new = a x_cur + b x_old + g dinv (rhs - ax); null x_cur, x_old or ax
/// count as zeros; x_new may be x_old.
template <class T>
cudaError_t chebyshev_jacobi_update(Index n, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv, const T* rhs, const T* ax, T* x_new,
                                    cudaStream_t stream = nullptr);

/// d = 1 / d, 1 where d is zero; *zeros (a device word, may be null) gets
/// the number of zeros added to it.
template <class T>
cudaError_t jacobi_inverse(Index n, T* d, unsigned long long* zeros = nullptr, cudaStream_t stream = nullptr);

/// chebyshev_jacobi_step_symmetric (x_cur required; x_new may be x_old).
template <class T>
cudaError_t chebyshev_jacobi_step_symmetric(const SymmetricHmView<T>& S, T a, const T* x_cur, T b, const T* x_old, T g, const T* rhs, T* x_new,
                                            cudaStream_t stream = nullptr);

/// One step with the product computed inside, for A compressed (constant
/// diagonals with exceptions, pdiag/compress.hpp; a square block of one
/// process; every array of the view a DEVICE pointer): x_new = a x_cur +
/// b x_old + g dinv (rhs - A x_cur), in hm_compressed_spmv's two kernels
/// (kernels/src/spmv_compressed.cu): the first stores the update from the
/// constant and full diagonals' sum, the second subtracts g dinv times the
/// exception rows' corrections. Equal to hm_compressed_spmv into a vector,
/// then chebyshev_jacobi_update, to rounding; it moves neither A x's write
/// nor its read. x_old may be null (zeros) or x_new; x_new must not be
/// x_cur (cudaErrorInvalidValue, nothing enqueued).
template <class T>
cudaError_t chebyshev_jacobi_step_compressed(const HmCompressedView<T>& A, T a, const T* x_cur, T b, const T* x_old, T g, const T* dinv,
                                             const T* rhs, T* x_new, cudaStream_t stream = nullptr);

}  // namespace pdiag::cuda
