// The Q1 grid transfers of a 2:1 vertex-centred refinement on the device
// (pdiag/transfer.hpp): one thread per fine point for the interpolation,
// one per coarse point for the restriction, each running the CPU
// reference's point function. Neither reads a matrix: a product moves the
// two vectors (and z) only.
#include "pdiag/transfer.hpp"
#include "pdiag/transfer_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 256;

/* A point's (i, j, k) from its number p: in 32 bits where the grid allows
   (a 64-bit division is many instructions on the GPU, three a point). */
template <class P>
__device__ __forceinline__ void point_ijk(Index p, const Index* dims, Index& i, Index& j, Index& k) {
  const P q = P(p), nx = P(dims[0]), ny = P(dims[1]);
  const P line = q / nx;
  i = Index(q - line * nx), j = Index(line % ny), k = Index(line / ny);
}

template <class T, class P>
__global__ void __launch_bounds__(kBlock) prolong_kernel(VertexGrids g, const T* __restrict__ xc, T* yf, const T* zf) {
  const Index n = g.fine_points();
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += stride) {
    Index i, j, k;
    point_ijk<P>(p, g.fine, i, j, k);
    const T v = vertex_q1_prolong_point(g, xc, i, j, k);
    yf[p] = zf ? zf[p] + v : v; /* yf may alias zf: read before written, same thread */
  }
}

template <class T, class P>
__global__ void __launch_bounds__(kBlock) restrict_kernel(VertexGrids g, const T* __restrict__ xf, T* yc, const T* zc) {
  const Index n = g.coarse_points();
  const Index stride = Index(gridDim.x) * kBlock;
  for (Index p = Index(blockIdx.x) * kBlock + threadIdx.x; p < n; p += stride) {
    Index i, j, k;
    point_ijk<P>(p, g.coarse, i, j, k);
    const T v = vertex_q1_restrict_point(g, xf, i, j, k);
    yc[p] = zc ? zc[p] + v : v;
  }
}

/* Whether the points of g's fine grid (the larger) number in 32 bits. */
bool small_grid(const VertexGrids& g) { return g.fine_points() <= Index(0xffffffffu); }

}  // namespace

template <class T>
cudaError_t vertex_q1_prolong(const VertexGrids& g, const T* xc, T* yf, const nodeduce_t<T>* zf, cudaStream_t stream) {
  if (!is_vertex_refinement(g) || !xc || !yf) return cudaErrorInvalidValue;
  const unsigned blocks = grid::blocks_for(g.fine_points(), kBlock);
  if (small_grid(g)) prolong_kernel<T, unsigned><<<blocks, kBlock, 0, stream>>>(g, xc, yf, zf);
  else prolong_kernel<T, unsigned long long><<<blocks, kBlock, 0, stream>>>(g, xc, yf, zf);
  return cudaGetLastError();
}

template <class T>
cudaError_t vertex_q1_restrict(const VertexGrids& g, const T* xf, T* yc, const nodeduce_t<T>* zc, cudaStream_t stream) {
  if (!is_vertex_refinement(g) || !xf || !yc) return cudaErrorInvalidValue;
  const unsigned blocks = grid::blocks_for(g.coarse_points(), kBlock);
  if (small_grid(g)) restrict_kernel<T, unsigned><<<blocks, kBlock, 0, stream>>>(g, xf, yc, zc);
  else restrict_kernel<T, unsigned long long><<<blocks, kBlock, 0, stream>>>(g, xf, yc, zc);
  return cudaGetLastError();
}

template cudaError_t vertex_q1_prolong<double>(const VertexGrids&, const double*, double*, const double*, cudaStream_t);
template cudaError_t vertex_q1_prolong<float>(const VertexGrids&, const float*, float*, const float*, cudaStream_t);
template cudaError_t vertex_q1_restrict<double>(const VertexGrids&, const double*, double*, const double*, cudaStream_t);
template cudaError_t vertex_q1_restrict<float>(const VertexGrids&, const float*, float*, const float*, cudaStream_t);

}  // namespace pdiag::cuda
