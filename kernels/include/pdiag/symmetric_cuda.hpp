// CUDA versions of pdiag/symmetric.hpp (the CPU references): the same
// semantics, device pointers (the view's value pointers too), a trailing
// stream. Each enqueues one kernel and returns cudaGetLastError() after
// the launch (nothing is launched for an empty view). Plain C++: the PETSc
// plugin includes it and links pdiag_cuda.
#pragma once

#include "pdiag/format.hpp"
#include "pdiag/symmetric.hpp"

#include <cuda_runtime_api.h>

namespace pdiag::cuda {

/// hm_values_symmetric: *mismatch (a device word) is set to 1 where a
/// lower entry and its upper partner differ by more than rtol (left alone
/// otherwise).
template <class T>
cudaError_t hm_values_symmetric(const SymmetricHmView<T>& S, real_t<T> rtol, int* mismatch, cudaStream_t stream = nullptr);

/// hm_spmv_symmetric: y = alpha A x + z (z null: zeros), one thread a row,
/// each row by symmetric_spmv_entry; y may be z, not x.
template <class T>
cudaError_t hm_spmv_symmetric(const SymmetricHmView<T>& S, const T* x, T* y, nodeduce_t<T> alpha = T(1), const nodeduce_t<T>* z = nullptr,
                              cudaStream_t stream = nullptr);

}  // namespace pdiag::cuda
