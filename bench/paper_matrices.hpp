/* The paper's structured sparse matrices (Haque, Parvez, Hossain, Tables
   1-2): n x n, `count` diagonals with offsets uniform in +-n/4 (the main
   diagonal included), values from a hash of (i, j, seed): the same on every
   run and every number of processes. Each matrix type gets its own exact
   preallocation, as a user would give it (aij row counts, diag offsets). */
#pragma once

#include <petscdiag.h>

#include <algorithm>
#include <vector>

namespace bench {

inline unsigned long Next(unsigned long s) { return s * 6364136223846793005UL + 1442695040888963407UL; }

inline std::vector<PetscInt> RandomOffsets(PetscInt n, PetscInt count, unsigned long seed)
{
  std::vector<PetscInt> offs{0};
  unsigned long         state = seed;
  while ((PetscInt)offs.size() < std::min<PetscInt>(count, n / 2 + 1)) {
    state            = Next(state);
    const PetscInt d = (PetscInt)((state >> 33) % (unsigned long)(n / 2 + 1)) - n / 4;
    if (std::find(offs.begin(), offs.end(), d) == offs.end()) offs.push_back(d);
  }
  return offs;
}

inline PetscScalar Value(PetscInt i, PetscInt j, unsigned long seed)
{
  const unsigned long h = Next(Next(seed ^ (unsigned long)i) ^ ((unsigned long)j << 20));
  return 1.0 + (PetscScalar)((h >> 33) % 1000) / 1000.0;
}

/* An assembled n x n matrix of the given type on the given diagonals. */
inline PetscErrorCode CreateRandomDiagonals(MPI_Comm comm, MatType type, PetscInt n, const std::vector<PetscInt> &offs, unsigned long seed, Mat *A)
{
  PetscInt nloc = PETSC_DECIDE, N = n, rs, re;

  PetscFunctionBeginUser;
  PetscCall(PetscSplitOwnership(comm, &nloc, &N));
  PetscCallMPI(MPI_Scan(&nloc, &re, 1, MPIU_INT, MPI_SUM, comm));
  rs = re - nloc;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, nloc, nloc, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  std::vector<PetscInt> dnnz(nloc, 0), onnz(nloc, 0);
  for (PetscInt i = rs; i < re; i++)
    for (PetscInt d : offs)
      if (i + d >= 0 && i + d < n) (i + d >= rs && i + d < re ? dnnz : onnz)[i - rs]++;
  PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz.data(), onnz.data(), NULL, NULL));
  PetscCall(MatDiagSetPreallocation(*A, (PetscInt)offs.size(), offs.data()));
  for (PetscInt i = rs; i < re; i++)
    for (PetscInt d : offs) {
      const PetscInt j = i + d;
      if (j < 0 || j >= n) continue;
      const PetscScalar v = Value(i, j, seed);
      PetscCall(MatSetValues(*A, 1, &i, 1, &j, &v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

} // namespace bench
