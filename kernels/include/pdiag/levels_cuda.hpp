// A level schedule (pdiag/levels.hpp, pdiag/factor_levels.hpp) as the
// level-by-level CUDA kernels read it: the SOR sweeps (pdiag/sor_cuda.hpp)
// and the factorization and triangular solves (pdiag/factor_cuda.hpp).
#pragma once

#include "pdiag/format.hpp"

namespace pdiag::cuda {

/// A level schedule on the device: level_ptr a HOST array of nlevels + 1
/// entries (the launches' sizes), rows its DEVICE array of level_ptr[nlevels]
/// rows.
struct LevelsView {
  Index nlevels = 0;
  const Index* level_ptr = nullptr;
  const Index* rows = nullptr;
};

}  // namespace pdiag::cuda
