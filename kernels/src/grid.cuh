// The grid-size rule shared by every kernel of kernels/src: at most
// kMaxGridBlocks blocks in any grid dimension (65535 is the y/z limit and
// keeps every current GPU full many times over in x); kernels stride over
// the rest of their work, so no size overflows a grid.
#pragma once

#include "pdiag/format.hpp"

namespace pdiag::cuda::grid {

constexpr Index kMaxGridBlocks = 65535;

/// `blocks` capped at kMaxGridBlocks.
inline unsigned capped_blocks(Index blocks) {
  return static_cast<unsigned>(blocks < kMaxGridBlocks ? blocks : kMaxGridBlocks);
}

/// Blocks for n items, per_block items per block, capped.
inline unsigned blocks_for(Index n, Index per_block) { return capped_blocks((n + per_block - 1) / per_block); }

}  // namespace pdiag::cuda::grid
