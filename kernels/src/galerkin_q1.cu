// The Galerkin coarse operator of a 2:1 vertex-centred refinement's Q1
// interpolation on the device (pdiag/galerkin_q1.hpp): one thread per
// coarse row, running the CPU reference's row functions. It reads A's
// diagonals around the row's fine points and writes the row of C; no
// stored interpolation, no sparse matrix product.
#include "pdiag/galerkin_q1.hpp"
#include "pdiag/galerkin_q1_cuda.hpp"

#include "grid.cuh"

namespace pdiag::cuda {

namespace {

constexpr int kBlock = 128;

template <class T, class P, class Entries>
__global__ void __launch_bounds__(kBlock) galerkin_kernel(VertexGrids g, Entries A, Q1Places places, HmView<T> C, unsigned* failed) {
  const Index n = g.coarse_points();
  const Index stride = Index(gridDim.x) * kBlock;
  const P cx = P(g.coarse[0]), cy = P(g.coarse[1]);
  for (Index row = Index(blockIdx.x) * kBlock + threadIdx.x; row < n; row += stride) {
    const P q = P(row), line = q / cx;
    const Index I[3] = {Index(q - line * cx), Index(line % cy), Index(line / cy)};
    T c[kQ1Places];
    if (!vertex_q1_galerkin_row<P>(g, A, I, c)) atomicOr(failed, 1u);
    vertex_q1_galerkin_store(g, places, C, I, row, c);
  }
}

template <class T, class Entries>
cudaError_t launch(const VertexGrids& g, const Entries& A, const Q1Places& places, const HmView<T>& C, unsigned* failed, cudaStream_t stream) {
  if (!failed || !vertex_q1_galerkin_fits(g, A.layout(), C.layout, C.ndiag)) return cudaErrorInvalidValue;
  const unsigned blocks = grid::blocks_for(g.coarse_points(), kBlock);
  if (blocks == 0) return cudaSuccess;
  if (g.fine_points() <= Index(0xffffffffu)) galerkin_kernel<T, unsigned><<<blocks, kBlock, 0, stream>>>(g, A, places, C, failed);
  else galerkin_kernel<T, unsigned long long><<<blocks, kBlock, 0, stream>>>(g, A, places, C, failed);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t vertex_q1_galerkin(const VertexGrids& g, const HmView<const T>& A, const Q1Places& places, const HmView<T>& C, unsigned* failed, cudaStream_t stream) {
  return launch(g, HmEntries<T>{A}, places, C, failed, stream);
}

template <class T>
cudaError_t vertex_q1_galerkin(const VertexGrids& g, const HmCompressedView<T>& A, const Q1Places& places, const HmView<T>& C, unsigned* failed, cudaStream_t stream) {
  return launch(g, HmCompressedEntries<T>{A}, places, C, failed, stream);
}

template cudaError_t vertex_q1_galerkin<double>(const VertexGrids&, const HmView<const double>&, const Q1Places&, const HmView<double>&, unsigned*, cudaStream_t);
template cudaError_t vertex_q1_galerkin<float>(const VertexGrids&, const HmView<const float>&, const Q1Places&, const HmView<float>&, unsigned*, cudaStream_t);
template cudaError_t vertex_q1_galerkin<double>(const VertexGrids&, const HmCompressedView<double>&, const Q1Places&, const HmView<double>&, unsigned*, cudaStream_t);
template cudaError_t vertex_q1_galerkin<float>(const VertexGrids&, const HmCompressedView<float>&, const Q1Places&, const HmView<float>&, unsigned*, cudaStream_t);

}  // namespace pdiag::cuda
