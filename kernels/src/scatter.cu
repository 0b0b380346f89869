// CUDA scatter of COO values into stored diagonal slots (MatSetValuesCOO
// with device arrays): val[slot[e]] += v[e] for every e with slot[e] >= 0.
// The CPU reference is pdiag::scatter_add (pdiag/assemble.hpp). Several
// entries may share a slot (COO duplicates are summed), so the additions
// are atomic: the sum is exact up to the order of the additions.
#include "pdiag/scatter_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;

template <class T>
__global__ void __launch_bounds__(kBlock)
    scatter_add_kernel(T* val, const Index* __restrict__ slot, const T* __restrict__ v, Index n) {
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index e = Index(blockIdx.x) * kBlock + threadIdx.x; e < n; e += stride) {
    const Index s = slot[e];
    if (s >= 0) atomicAdd(val + s, v[e]);
  }
}

}  // namespace

template <class T>
cudaError_t scatter_add(T* val, const Index* slot, const nodeduce_t<T>* v, Index n, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  scatter_add_kernel<T><<<grid::blocks_for(n, kBlock), kBlock, 0, stream>>>(val, slot, v, n);
  return cudaGetLastError();
}

template cudaError_t scatter_add<double>(double*, const Index*, const double*, Index, cudaStream_t);
template cudaError_t scatter_add<float>(float*, const Index*, const float*, Index, cudaStream_t);

}  // namespace pdiag::cuda
