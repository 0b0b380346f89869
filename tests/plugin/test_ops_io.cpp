/* MATDIAG against aij (ops_testing.hpp): viewers. Every case's MatView in
   binary and MatLoad into diag, aij and a DMDA's matrices, the ascii
   formats and -mat_view; then -mat_view of the matrices diag makes for
   itself (not viewed, as with aij). Writes and removes ops_io_np<P>_*
   files in the working folder. */
#include "ops_testing.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace ops_testing;

namespace {

/* M's row and column block sizes are R's. */
PetscErrorCode CheckBlockSizes(Mat M, Mat R, const std::string &cs, const std::string &what)
{
  PetscInt mr, mc, rr, rc;

  PetscFunctionBeginUser;
  PetscCall(MatGetBlockSizes(M, &mr, &mc));
  PetscCall(MatGetBlockSizes(R, &rr, &rc));
  PetscCall(Record(mr == rr && mc == rc, cs, what, Fmt("diag %d x %d, aij %d x %d", (int)mr, (int)mc, (int)rr, (int)rc)));
  PetscFunctionReturn(0);
}

bool FileContains(const std::string &path, const std::string &text)
{
  std::ifstream     f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str().find(text) != std::string::npos;
}

PetscErrorCode TestViewLoad(const Case &c)
{
  Mat                D, A, L1, L2, L3;
  PetscViewer        v;
  const std::string  f1 = Fmt("ops_io_np%d_diag.dat", g_size), f2 = Fmt("ops_io_np%d_aij.dat", g_size);
  const std::string  fi = Fmt("ops_io_np%d_info.txt", g_size), fo = Fmt("ops_io_np%d_opt.txt", g_size);

  PetscFunctionBeginUser;
  PetscCall(c.build(1, &D, &A));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(MatView(D, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f2.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  /* a DMDA matrix is written in the natural ordering: compare what was read */
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f2.c_str(), FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &L2));
  PetscCall(MatSetType(L2, MATAIJ));
  PetscCall(MatLoad(L2, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &L1));
  PetscCall(PetscObjectSetName((PetscObject)L1, "loaded"));
  PetscCall(MatSetOptionsPrefix(L1, "ld_"));
  PetscCall(MatSetType(L1, MATDIAG));
  PetscCall(MatLoad(L1, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(CheckSame(L1, L2, c.name, "MatView binary + MatLoad into diag"));
  PetscCall(CheckBlockSizes(L1, L2, c.name, "MatLoad into diag reads the block size of the .info file as aij does"));
  {
    const char *name = NULL, *prefix = NULL;
    PetscCall(PetscObjectGetName((PetscObject)L1, &name));
    PetscCall(MatGetOptionsPrefix(L1, &prefix));
    PetscCall(Record(name && !strcmp(name, "loaded") && prefix && !strcmp(prefix, "ld_"), c.name, "MatLoad keeps the matrix's name and options prefix", Fmt("name %s, prefix %s", name ? name : "(null)", prefix ? prefix : "(null)")));
  }
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &L3));
  PetscCall(MatSetType(L3, MATAIJ));
  PetscCall(MatLoad(L3, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(CheckSame(L3, L2, c.name, "MatView binary + MatLoad into aij", false));
  if (!c.dmda) {
    /* into a diag matrix with the original's sizes set */
    Mat L6;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &L6));
    PetscCall(MatSetSizes(L6, c.spec.mloc, c.spec.nloc, c.M, c.N));
    PetscCall(MatSetType(L6, MATDIAG));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatLoad(L6, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckSame(L6, A, c.name, "MatLoad into a diag matrix of set sizes equals the original"));
    PetscCall(MatDestroy(&L6));
  } else {
    /* into the DMDA's matrices (in parallel: from the natural ordering) */
    DM  da;
    Mat L4, L5;
    PetscCall(c.create_da(&da));
    PetscCall(DMSetMatType(da, MATDIAG));
    PetscCall(DMCreateMatrix(da, &L4));
    PetscCall(DMSetMatType(da, MATAIJ));
    PetscCall(DMCreateMatrix(da, &L5));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f1.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatLoad(L4, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f2.c_str(), FILE_MODE_READ, &v));
    PetscCall(MatLoad(L5, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckSame(L5, A, c.name, "MatLoad into the DMDA's aij matrix (reference)", false));
    PetscCall(CheckSame(L4, A, c.name, "MatLoad into the DMDA's diag matrix"));
    PetscCall(CheckBlockSizes(L4, L5, c.name, "MatLoad into the DMDA's diag matrix keeps the block size as aij does"));
    {
      DM d4, d5;
      PetscCall(MatGetDM(L4, &d4));
      PetscCall(MatGetDM(L5, &d5));
      PetscCall(Record(!d4 == !d5, c.name, "MatLoad keeps the DM as aij does", Fmt("diag %s, aij %s", d4 ? "has it" : "lost it", d5 ? "has it" : "lost it")));
      if (d4 && d5) { /* and MatSetValuesStencil still works */
        MatStencil  row = {0, 0, 0, 0};
        PetscScalar one = 1.0;
        PetscCall(MatSetValuesStencil(L4, 1, &row, 1, &row, &one, ADD_VALUES));
        PetscCall(MatSetValuesStencil(L5, 1, &row, 1, &row, &one, ADD_VALUES));
        PetscCall(MatAssemblyBegin(L4, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(L4, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyBegin(L5, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(L5, MAT_FINAL_ASSEMBLY));
        PetscCall(CheckSame(L4, L5, c.name, "MatSetValuesStencil after MatLoad"));
      }
    }
    PetscCall(MatDestroy(&L4));
    PetscCall(MatDestroy(&L5));
  }
  PetscCall(MatDestroy(&L1));
  PetscCall(MatDestroy(&L2));
  PetscCall(MatDestroy(&L3));

  /* ascii info: through a viewer, and through -mat_view at assembly */
  PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, fi.c_str(), &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(D, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  if (c.M <= 64) { /* the default ascii format lists the entries */
    const std::string fa = Fmt("ops_io_np%d_ascii.txt", g_size);
    PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, fa.c_str(), &v));
    PetscCall(MatView(D, v));
    PetscCall(PetscViewerDestroy(&v));
    int ok = 1;
    if (!g_rank) ok = FileContains(fa, "row 0:") || c.M == 0;
    if (!g_rank) std::remove(fa.c_str());
    PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, PETSC_COMM_WORLD));
    PetscCall(Record(ok, c.name, "MatView ascii lists the rows"));
  }
  PetscCall(PetscOptionsSetValue(NULL, "-mat_view", (std::string("ascii:") + fo + ":ascii_info").c_str()));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_view"));
  /* also a DMDA's matrix in parallel, whose ops table holds the DMDA's view
     (the natural ordering; it prints nothing for ascii info) */
  const std::string want = "diag storage";
  int               ok   = 1;
  if (!g_rank) ok = FileContains(fi, want) && FileContains(fo, want);
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(Record(ok, c.name, "MatView ascii_info and -mat_view ::ascii_info", "no '" + want + "' line"));
  if (!g_rank)
    for (const std::string &f : {f1, f1 + ".info", f2, f2 + ".info", fi, fo}) std::remove(f.c_str());
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* -mat_view answers the program's assemblies only, as with aij: the
   matrices diag makes for itself (the aij copy a MatConvert takes, the
   diagonal block bjacobi takes on several processes) are not viewed. The
   MatView event counts the views, for aij and diag alike. */
/* MatLoad takes the block size of the file's .info (-matload_block_size,
   which MatView of a matrix with block size 3 writes) into diag as into
   aij, with and without sizes set; a block size set before MatLoad stays
   when the file gives none. */
PetscErrorCode TestLoadBlockSize()
{
  const PetscInt    bs = 3, nb = 7;
  const std::string f  = Fmt("ops_io_np%d_bs.dat", g_size), fn = Fmt("ops_io_np%d_bs1.dat", g_size);
  Mat               A;
  PetscViewer       v;
  PetscInt          rstart, rend;

  PetscFunctionBeginUser;
  const PetscInt    mloc = bs * (nb / g_size + (g_rank < nb % g_size ? 1 : 0)); /* whole blocks on each process */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, mloc, mloc, bs * nb, bs * nb));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, MATAIJ));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++)
    for (PetscInt j = PetscMax(0, i - bs); j <= PetscMin(bs * nb - 1, i + bs); j++) PetscCall(MatSetValue(A, i, j, i == j ? 4.0 : -1.0 / (1 + i + j), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, f.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, fn.c_str(), FILE_MODE_WRITE, &v));
  PetscCall(PetscViewerBinarySkipInfo(v)); /* no .info: no block size in the file */
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerDestroy(&v));
  for (int sized = 0; sized < 2; sized++)
    for (int preset = 0; preset < 2; preset++) {
      Mat         L[2];
      PetscInt    got[2][2];
      const char *file = preset ? fn.c_str() : f.c_str(); /* a block size set before: from a file without one */
      for (int t = 0; t < 2; t++) {
        PetscCall(MatCreate(PETSC_COMM_WORLD, &L[t]));
        if (sized) PetscCall(MatSetSizes(L[t], rend - rstart, rend - rstart, bs * nb, bs * nb));
        if (preset) PetscCall(MatSetBlockSize(L[t], bs));
        PetscCall(MatSetType(L[t], t ? MATDIAG : MATAIJ));
        /* opening the file puts its .info's options in the database: only this file's */
        PetscCall(PetscOptionsClearValue(NULL, "-matload_block_size"));
        PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
        PetscCall(MatLoad(L[t], v));
        PetscCall(PetscViewerDestroy(&v));
        PetscCall(PetscOptionsClearValue(NULL, "-matload_block_size"));
        PetscCall(MatGetBlockSizes(L[t], &got[t][0], &got[t][1]));
      }
      PetscCall(Record(got[0][0] == bs && got[0][1] == bs, "load block size", Fmt("aij reads block size %d (reference, %s, %s)", (int)bs, sized ? "sizes set" : "no sizes", preset ? "set before" : "from .info"), Fmt("%d x %d", (int)got[0][0], (int)got[0][1])));
      PetscCall(Record(got[1][0] == got[0][0] && got[1][1] == got[0][1], "load block size", Fmt("diag gets aij's block size (%s, %s)", sized ? "sizes set" : "no sizes", preset ? "set before" : "from .info"), Fmt("diag %d x %d, aij %d x %d", (int)got[1][0], (int)got[1][1], (int)got[0][0], (int)got[0][1])));
      PetscCall(CheckSame(L[1], L[0], "load block size", "the loaded values"));
      for (Mat &M : L) PetscCall(MatDestroy(&M));
    }
  if (!g_rank)
    for (const std::string &x : {f, f + ".info", fn}) std::remove(x.c_str());
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

PetscErrorCode TestInternalViews()
{
  const PetscInt     n = 24;
  Mat                M[2];
  PetscInt           rstart, rend;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;
  int                views[2];

  PetscFunctionBeginUser;
  PetscCall(PetscLogDefaultBegin()); /* the counts below need the log */
  PetscCall(CreateAijDiagPair(n, M));
  PetscCall(MatGetOwnershipRange(M[0], &rstart, &rend));
  for (Mat X : M) {
    for (PetscInt i = rstart; i < rend; i++) {
      const PetscInt    cols[3] = {(i + n - 1) % n, i, (i + 1) % n};
      const PetscScalar v[3]    = {-1.0, 4.0, -1.0};
      PetscCall(MatSetValues(X, 1, &i, 3, cols, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscOptionsSetValue(NULL, "-mat_view", "ascii:/dev/null"));
  PetscCall(PetscLogEventGetId("MatView", &ev));
  for (int t = 0; t < 2; t++) {
    Mat blk, C;
    PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
    views[t] = -info.count;
    PetscCall(MatGetDiagonalBlock(M[t], &blk));
    PetscCall(MatConvert(M[t], MATAIJ, MAT_INITIAL_MATRIX, &C));
    PetscCall(PetscLogEventGetPerfInfo(0, ev, &info));
    views[t] += info.count;
    PetscCall(MatDestroy(&C));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_view"));
  PetscCall(Record(views[1] == views[0], "internal views", Fmt("MatGetDiagonalBlock and MatConvert to aij view as often as aij's (-mat_view): aij %d, diag %d", views[0], views[1])));
  for (Mat &X : M) PetscCall(MatDestroy(&X));
  PetscFunctionReturn(0);
}

} // namespace

int main(int argc, char **argv)
{
  return Main(argc, argv, "Tests of MATDIAG against aij: view and load",
              {
                {"view/load", TestViewLoad}
              },
              {
                {"internal views", TestInternalViews},
                {"load block size", TestLoadBlockSize}
              });
}
