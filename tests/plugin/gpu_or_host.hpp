/* The two modes of a plugin test of a GPU path (test_gpu_*,
   test_galerkin_gpu, test_mg_structured_gpu, test_galerkin_structured,
   test_chebyjacobi, test_fdcoloring): on the GPU by
   default, on the host with -host_check as the first argument (the same
   checks through the host path, on any machine). A build against a PETSc
   without CUDA defines PDIAG_TEST_HOST_ONLY and has only the host mode. */
#pragma once

#if !defined(PDIAG_TEST_HOST_ONLY)
#include <cuda_runtime_api.h>
#endif

#include <cstdio>
#include <string>

namespace plugin_testing {

/* Sets *device to the mode asked for. False (after "<name>: SKIPPED: no
   CUDA device") when the GPU mode has no device to run on: the test's main
   then returns 77, which ctest reports as skipped. Before PetscInitialize. */
inline bool GpuOrHostMode(int argc, char **argv, const char *name, bool *device)
{
  *device = !(argc > 1 && std::string(argv[1]) == "-host_check");
  if (!*device) return true;
#if !defined(PDIAG_TEST_HOST_ONLY)
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 0) return true;
#endif
  std::printf("%s: SKIPPED: no CUDA device\n", name);
  return false;
}

} // namespace plugin_testing
