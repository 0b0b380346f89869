static const char help[] = "Writes the test matrices of petsc-diag, Matrix Market (default) or PETSc binary (-binary).\n"
                           "  gen_matrices -type random -n 1000 -ndiag 7 -seed 1 -o A.mtx\n"
                           "      the paper's random structured-sparse matrices: the main diagonal and ndiag-1\n"
                           "      other diagonals with offsets uniform within +-n/4 (-spread 0.25), random values\n"
                           "  gen_matrices -type banded -n 1000 -lower 2 -upper 3 -seed 1 -o A.mtx\n"
                           "      a banded matrix: diagonals -lower .. +upper, random values\n"
                           "Options:\n"
                           "  -o <file>            the output file (required)\n"
                           "  -binary              write PETSc binary (for mtx -binary, MatLoad) instead of Matrix Market\n"
                           "  -seed <1>            the seed: the same seed gives the same file on every machine\n"
                           "  -spread <0.25>       random offsets within +-spread*n\n"
                           "  -dominant <true>     diagonal = 1 + sum of |off-diagonal| of its row (strictly diagonally\n"
                           "                       dominant, so Jacobi-preconditioned Krylov solves converge);\n"
                           "                       false: the diagonal is random like the rest\n"
                           "  -digits <8>          significant digits of the values in Matrix Market files\n\n";

/* Off-diagonal values are uniform in [-1, 1). The random numbers come from
   std::mt19937_64 (its sequence is fixed by the C++ standard) mapped to
   integers and reals by hand, so a seed gives the same matrix everywhere.
   Every entry of every stored diagonal is written: HM fill is 1. */

#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) { }
  /* uniform in [lo, hi] (rejection: no modulo bias) */
  long long Int(long long lo, long long hi)
  {
    const std::uint64_t range = (std::uint64_t)(hi - lo) + 1;
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    std::uint64_t       x;
    do x = g();
    while (x >= limit);
    return lo + (long long)(x % range);
  }
  /* uniform in [-1, 1) */
  double Real() { return 2.0 * (double)(g() >> 11) * 0x1.0p-53 - 1.0; }
};

struct Generated {
  PetscInt                 n = 0;
  std::vector<PetscInt>    offsets;
  std::vector<PetscInt>    rowptr{0}, col;
  std::vector<PetscScalar> val;
};

/* The value as it will be read back from the file. */
double Rounded(double v, int digits)
{
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return std::strtod(buf, nullptr);
}

void Fill(Generated *G, Rng &rng, bool dominant, int digits)
{
  const PetscInt n = G->n;
  for (PetscInt i = 0; i < n; i++) {
    double   offsum = 0;
    PetscInt kdiag  = -1;
    for (PetscInt d : G->offsets) {
      const PetscInt j = i + d;
      if (j < 0 || j >= n) continue;
      double v = Rounded(rng.Real(), digits);
      if (d == 0) kdiag = (PetscInt)G->col.size();
      else offsum += std::abs(v);
      G->col.push_back(j);
      G->val.push_back(v);
    }
    if (dominant && kdiag >= 0) G->val[(std::size_t)kdiag] = Rounded(1.0 + offsum, digits);
    G->rowptr.push_back((PetscInt)G->col.size());
  }
}

PetscErrorCode WriteMatrixMarket(const Generated &G, const char *path, const std::string &command, const std::string &what, int digits)
{
  PetscFunctionBeginUser;
  std::FILE *f = std::fopen(path, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s for writing", path);
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
  std::fprintf(f, "%% %s\n", what.c_str());
  std::fprintf(f, "%% made by petsc-diag: %s\n", command.c_str());
  std::fprintf(f, "%d %d %d\n", (int)G.n, (int)G.n, (int)G.col.size());
  /* the generated values are real (in a complex build too: no imaginary part) */
  for (PetscInt i = 0; i < G.n; i++)
    for (PetscInt k = G.rowptr[i]; k < G.rowptr[i + 1]; k++) std::fprintf(f, "%d %d %.*g\n", (int)i + 1, (int)G.col[k] + 1, digits, (double)PetscRealPart(G.val[k]));
  const bool ok = std::fclose(f) == 0;
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "error writing %s", path);
  PetscFunctionReturn(0);
}

PetscErrorCode WriteBinary(const Generated &G, const char *path)
{
  Mat         A;
  PetscViewer v;

  PetscFunctionBeginUser;
  std::vector<PetscInt> nnz((std::size_t)G.n);
  for (PetscInt i = 0; i < G.n; i++) nnz[i] = G.rowptr[i + 1] - G.rowptr[i];
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, G.n, G.n, 0, nnz.data(), &A));
  for (PetscInt i = 0; i < G.n; i++) PetscCall(MatSetValues(A, 1, &i, nnz[i], &G.col[G.rowptr[i]], &G.val[G.rowptr[i]], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscViewerCreate(PETSC_COMM_SELF, &v));
  PetscCall(PetscViewerSetType(v, PETSCVIEWERBINARY));
  PetscCall(PetscViewerFileSetMode(v, FILE_MODE_WRITE));
  PetscCall(PetscViewerBinarySetSkipInfo(v, PETSC_TRUE)); /* no .info file beside it */
  PetscCall(PetscViewerFileSetName(v, path));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  char        type[16] = "random", out[PETSC_MAX_PATH_LEN] = "";
  PetscInt    n = 1000, ndiag = 7, lower = 1, upper = 1, seed = 1, digits = 8;
  PetscReal   spread = 0.25;
  PetscBool   binary = PETSC_FALSE, dominant = PETSC_TRUE, has_out;
  PetscMPIInt size;
  std::string command = "gen_matrices";

  for (int a = 1; a < argc; a++) command += std::string(" ") + argv[a];
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "gen_matrices writes one file: run it on one process");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), &has_out));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ndiag", &ndiag, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-lower", &lower, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-upper", &upper, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-digits", &digits, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-spread", &spread, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-binary", &binary, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dominant", &dominant, NULL));
  {
    PetscBool help_only;
    PetscCall(PetscOptionsHasHelp(NULL, &help_only));
    if (help_only && !has_out) {
      PetscCall(PetscFinalize());
      return 0;
    }
  }
  PetscCheck(has_out && out[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give the output file with -o <file> (-help lists the options)");
  PetscCheck(n >= 1, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-n %d: the size must be at least 1", (int)n);
  PetscCheck(digits >= 1 && digits <= 17, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-digits %d: give 1 to 17", (int)digits);

  Generated   G;
  Rng         rng((std::uint64_t)seed);
  std::string what;
  G.n = n;
  if (!strcmp(type, "random")) {
    const PetscInt w = (PetscInt)(spread * (PetscReal)n);
    PetscCheck(ndiag >= 1, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-ndiag %d: at least 1 (the main diagonal)", (int)ndiag);
    PetscCheck(ndiag - 1 <= 2 * w, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-ndiag %d does not fit in the offsets +-%d (-n %d, -spread %g)", (int)ndiag, (int)w, (int)n, (double)spread);
    G.offsets.push_back(0);
    while ((PetscInt)G.offsets.size() < ndiag) {
      const PetscInt d = (PetscInt)rng.Int(-w, w);
      if (std::find(G.offsets.begin(), G.offsets.end(), d) == G.offsets.end()) G.offsets.push_back(d);
    }
    what = "random structured-sparse: main diagonal + " + std::to_string(ndiag - 1) + " diagonals with offsets uniform in +-" + std::to_string(w) + ", off-diagonal values uniform in [-1,1)";
  } else if (!strcmp(type, "banded")) {
    PetscCheck(lower >= 0 && upper >= 0 && lower < n && upper < n, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-lower %d -upper %d: give 0 .. n-1", (int)lower, (int)upper);
    for (PetscInt d = -lower; d <= upper; d++) G.offsets.push_back(d);
    what = "banded: diagonals -" + std::to_string(lower) + " .. +" + std::to_string(upper) + ", off-diagonal values uniform in [-1,1)";
  } else SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-type %s: random or banded", type);
  if (dominant) what += ", diagonal 1 + sum |off-diagonal| of its row";
  std::sort(G.offsets.begin(), G.offsets.end());
  Fill(&G, rng, dominant, (int)digits);

  if (binary) PetscCall(WriteBinary(G, out));
  else PetscCall(WriteMatrixMarket(G, out, command, what, (int)digits));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d x %d, %d diagonals, %d nonzeros (%s)\n", out, (int)n, (int)n, (int)G.offsets.size(), (int)G.col.size(), binary ? "PETSc binary" : "Matrix Market"));
  PetscCall(PetscFinalize());
  return 0;
}
