// Listed entries on the GPU (pdiag/listed_cuda.hpp): one thread per listed
// row, which owns its output element, so no atomics; the row's sum is formed
// in the CPU reference's order (pdiag::listed_spmv_add), then added.
#include "pdiag/listed_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 128;

template <class T>
__global__ void __launch_bounds__(kBlock)
    listed_spmv_add_kernel(Index nrows, const Index* __restrict__ rows, const Index* __restrict__ ptr, const Index* __restrict__ pos,
                           const Index* __restrict__ cols, const T* __restrict__ val, const T* __restrict__ w, T* y, T sign) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index q = Index(blockIdx.x) * kBlock + threadIdx.x; q < nrows; q += stride) {
    T sum = T(0);
    for (Index e = ptr[q]; e < ptr[q + 1]; ++e) sum += val[pos[e]] * w[cols[e]];
    y[rows[q]] += sign * sum;
  }
}

}  // namespace

template <class T>
cudaError_t listed_spmv_add(Index nrows, const Index* rows, const Index* ptr, const Index* pos, const Index* cols,
                            const nodeduce_t<T>* val, const T* w, T* y, nodeduce_t<T> sign, cudaStream_t stream) {
  if (nrows < 0) return cudaErrorInvalidValue;
  if (nrows == 0) return cudaSuccess;
  listed_spmv_add_kernel<T><<<grid::blocks_for(nrows, kBlock), kBlock, 0, stream>>>(nrows, rows, ptr, pos, cols, val, w, y, sign);
  return cudaGetLastError();
}

template cudaError_t listed_spmv_add<double>(Index, const Index*, const Index*, const Index*, const Index*, const double*, const double*,
                                             double*, double, cudaStream_t);
template cudaError_t listed_spmv_add<float>(Index, const Index*, const Index*, const Index*, const Index*, const float*, const float*,
                                            float*, float, cudaStream_t);

}  // namespace pdiag::cuda
