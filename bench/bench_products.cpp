static const char help[] = "Times C = A B (and AtB, ABt) of the paper's structured sparse matrices for two matrix types in one run.\n"
                           "  -n <n> -dga <diagonals of A> -dgb <diagonals of B>   (offsets uniform in +-n/4)\n"
                           "  -banded            A and B banded instead: offsets -(dg/2)..dg/2\n"
                           "  -types <diag,aij>  ours, then the peer (e.g. diag,aijcusparse on a GPU)\n"
                           "  -algs <diag,...>   our MatProduct algorithms to time (diag, diag_atomic, diag_tiled)\n"
                           "  -products <AB,AtB,ABt>\n"
                           "  -dense <k>         C = A X with X dense of k columns instead (-dense_type dense|seqdensecuda)\n"
                           "  -reps <k>          timed repetitions (median reported)   -csv <file> append results\n"
                           "  -show_reps         print every repetition's times (the first one pays one-time costs)\n";

/* For each type: A and B are assembled from the same values, then the first
   product (MatProductSymbolic + MatProductNumeric, as MatMatMult with
   MAT_INITIAL_MATRIX) and the numeric-only reuse (MatProductNumeric, as
   MAT_REUSE_MATRIX) are timed, each rep synchronised with the device;
   medians reported, with the ratio peer / ours. The two C are compared
   (relative Frobenius norm of the difference, through aij). A product the
   peer cannot do is reported with PETSc's error message, and ours still
   runs. With -dense, C = A X (SpMM); on a GPU the benchmark also calls
   cuSPARSE's SpMM (CSR) directly on the peer's device CSR arrays. */

#include "paper_matrices.hpp"
#include "petsc_compat.hpp"

#include <petscdevice.h>
#include <petscdiag.h>
#include <petsctime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#if defined(PDIAG_PETSC_CUDA)
#include <cusparse.h>
#include <petscdevice_cuda.h>
#endif

namespace {

PetscBool g_show_reps = PETSC_FALSE; /* -show_reps */

/* The steps of a first product, so that -log_view tells where its time goes
   outside MatProductSymbolic and MatProductNumeric's own events */
PetscLogEvent g_ev_create, g_ev_setfromoptions, g_ev_sync;

struct Timing {
  double         first = 0, reuse = 0;
  PetscErrorCode err   = 0; /* nonzero: the product failed (message in msg) */
  std::string    msg;
};

double Median(std::vector<double> t)
{
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/* Times C = op(A) op(B) (type: MATPRODUCT_AB, _AtB, _ABt; B may be dense)
   with MatProduct algorithm alg (NULL: the type's default); C is kept (NULL
   if the product failed). PETSc errors inside the product are caught and
   reported in t, so that a peer's failure does not end the run. */
PetscErrorCode TimeProduct(Mat A, Mat B, MatProductType type, const char *alg, PetscInt reps, Timing *t, Mat *C)
{
  PetscDeviceContext  dctx;
  std::vector<double> first, reuse;

  PetscFunctionBeginUser;
  *C = NULL;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  auto run = [&](Mat *X, double *tf, double *tr) -> PetscErrorCode {
    PetscLogDouble t0, t1, t2;
    PetscCall(PetscTime(&t0));
    PetscCall(PetscLogEventBegin(g_ev_create, 0, 0, 0, 0));
    PetscCall(MatProductCreate(A, B, NULL, X));
    PetscCall(MatProductSetType(*X, type));
    if (alg) PetscCall(MatProductSetAlgorithm(*X, alg));
    PetscCall(PetscLogEventEnd(g_ev_create, 0, 0, 0, 0));
    PetscCall(PetscLogEventBegin(g_ev_setfromoptions, 0, 0, 0, 0));
    PetscCall(MatProductSetFromOptions(*X));
    PetscCall(PetscLogEventEnd(g_ev_setfromoptions, 0, 0, 0, 0));
    PetscCall(MatProductSymbolic(*X));
    PetscCall(MatProductNumeric(*X));
    PetscCall(PetscLogEventBegin(g_ev_sync, 0, 0, 0, 0));
    PetscCall(PetscDeviceContextSynchronize(dctx));
    PetscCall(PetscLogEventEnd(g_ev_sync, 0, 0, 0, 0));
    PetscCall(PetscTime(&t1));
    PetscCall(MatProductNumeric(*X));
    PetscCall(PetscDeviceContextSynchronize(dctx));
    PetscCall(PetscTime(&t2));
    *tf = t1 - t0;
    *tr = t2 - t1;
    return 0;
  };
  for (PetscInt rep = 0; rep < reps; rep++) {
    Mat    X = NULL;
    double tf, tr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    const PetscErrorCode ierr = run(&X, &tf, &tr);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      const char *text = NULL;
      const char *specific = NULL;
      PetscDiagErrorMessage(ierr, &text, &specific);
      t->err = ierr;
      t->msg = specific ? specific : (text ? text : "unknown error");
      PetscCall(MatDestroy(&X));
      PetscFunctionReturn(0);
    }
    first.push_back(tf);
    reuse.push_back(tr);
    if (g_show_reps) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    rep %" PetscInt_FMT ": first %9.3f ms reuse %9.3f ms\n", rep, 1e3 * tf, 1e3 * tr));
    if (rep + 1 < reps) PetscCall(MatDestroy(&X));
    else *C = X;
  }
  t->first = Median(first);
  t->reuse = Median(reuse);
  PetscFunctionReturn(0);
}

/* ||C1 - C2||_F / ||C2||_F. Sparse results are compared row by row on aij
   copies (a merge of the sorted rows: MatAXPY with different patterns is
   far slower at tens of millions of entries); dense ones through MatAXPY. */
PetscErrorCode RelDiff(Mat C1, Mat C2, PetscReal *rel)
{
  Mat       X, Y;
  PetscReal sums[2] = {0, 0}, all[2];
  PetscBool dense;
  PetscInt  rs, re;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)C2, &dense, MATSEQDENSE, MATMPIDENSE, MATSEQDENSECUDA, MATMPIDENSECUDA, ""));
  PetscCall(MatConvert(C1, dense ? MATDENSE : MATAIJ, MAT_INITIAL_MATRIX, &X));
  { /* an aij-based C2 (aij, aijcusparse) is read as it is: converting a device
       matrix of tens of millions of entries would take minutes */
    PetscBool aij;
    PetscCall(PetscObjectBaseTypeCompareAny((PetscObject)C2, &aij, MATSEQAIJ, MATMPIAIJ, ""));
    if (aij && !dense) {
      PetscCall(PetscObjectReference((PetscObject)C2));
      Y = C2;
    } else PetscCall(MatConvert(C2, dense ? MATDENSE : MATAIJ, MAT_INITIAL_MATRIX, &Y));
  }
  if (dense) {
    PetscReal nd, nr;
    PetscCall(MatNorm(Y, NORM_FROBENIUS, &nr));
    PetscCall(MatAXPY(X, -1.0, Y, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(X, NORM_FROBENIUS, &nd));
    *rel = nr > 0 ? nd / nr : nd;
  } else {
    PetscCall(MatGetOwnershipRange(Y, &rs, &re));
    for (PetscInt i = rs; i < re; i++) {
      PetscInt           nx, ny;
      const PetscInt    *cx, *cy;
      const PetscScalar *vx, *vy;
      PetscCall(MatGetRow(X, i, &nx, &cx, &vx));
      PetscCall(MatGetRow(Y, i, &ny, &cy, &vy));
      for (PetscInt p = 0, q = 0; p < nx || q < ny;) {
        PetscScalar d;
        if (q >= ny || (p < nx && cx[p] < cy[q])) d = vx[p++];
        else if (p >= nx || cy[q] < cx[p]) {
          d = -vy[q];
          sums[1] += PetscRealPart(vy[q] * PetscConj(vy[q]));
          q++;
        } else {
          d = vx[p] - vy[q];
          sums[1] += PetscRealPart(vy[q] * PetscConj(vy[q]));
          p++, q++;
        }
        sums[0] += PetscRealPart(d * PetscConj(d));
      }
      PetscCall(MatRestoreRow(X, i, &nx, &cx, &vx));
      PetscCall(MatRestoreRow(Y, i, &ny, &cy, &vy));
    }
    PetscCall(MPIU_Allreduce(sums, all, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)Y)));
    *rel = all[1] > 0 ? PetscSqrtReal(all[0] / all[1]) : PetscSqrtReal(all[0]);
  }
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&Y));
  PetscFunctionReturn(0);
}

std::vector<PetscInt> Band(PetscInt count)
{
  std::vector<PetscInt> offs;
  for (PetscInt d = -(count / 2); d <= count / 2; d++) offs.push_back(d);
  return offs;
}

/* A dense n x k matrix of the given type, values Value(i, j). */
PetscErrorCode CreateDense(MPI_Comm comm, MatType type, PetscInt n, PetscInt k, Mat *X)
{
  Mat          H;
  PetscInt     rs, re;
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(MatCreateDense(comm, PETSC_DECIDE, PETSC_DECIDE, n, k, NULL, &H));
  PetscCall(MatGetOwnershipRange(H, &rs, &re));
  PetscCall(MatDenseGetArrayWrite(H, &x));
  for (PetscInt j = 0; j < k; j++)
    for (PetscInt i = rs; i < re; i++) x[j * (re - rs) + (i - rs)] = bench::Value(i, j, 33);
  PetscCall(MatDenseRestoreArrayWrite(H, &x));
  PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(H, type, MAT_INITIAL_MATRIX, X));
  PetscCall(MatDestroy(&H));
  PetscFunctionReturn(0);
}

#if defined(PDIAG_PETSC_CUDA)
/* cuSPARSE's SpMM (CSR, column-major dense X and C) called directly on the
   device CSR arrays of an aijcusparse A: the median time of reps calls,
   the buffer sized and allocated once outside the timing. C goes into a
   MATSEQDENSECUDA copy of Cref's shape for the comparison. */
PetscErrorCode DirectSpMM(Mat A, Mat X, PetscInt reps, double *t, Mat *C)
{
  const int         *ia, *ja;
  const PetscScalar *va, *xa;
  PetscScalar       *ca;
  PetscInt           m, n, k, nnz, ldx, ldc;
  cusparseHandle_t   handle;
  cusparseSpMatDescr_t matA;
  cusparseDnMatDescr_t matX, matC;
  void               *buffer = NULL;
  size_t              bytes  = 0;
  const PetscScalar   one = 1.0, zero = 0.0;
  std::vector<double> times;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetSize(X, NULL, &k));
  {
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    nnz = (PetscInt)info.nz_used;
  }
  PetscCall(MatCreateSeqDenseCUDA(PETSC_COMM_SELF, m, k, NULL, C));
  PetscCall(MatDenseGetLDA(X, &ldx));
  PetscCall(MatDenseGetLDA(*C, &ldc));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ia, &ja));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &va));
  PetscCall(MatDenseCUDAGetArrayRead(X, &xa));
  PetscCall(MatDenseCUDAGetArrayWrite(*C, &ca));
  PetscCheck(cusparseCreate(&handle) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseCreate failed");
  PetscCheck(cusparseSetStream(handle, PetscDefaultCudaStream) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseSetStream failed");
  PetscCheck(cusparseCreateCsr(&matA, m, n, nnz, (void *)ia, (void *)ja, (void *)va, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseCreateCsr failed");
  PetscCheck(cusparseCreateDnMat(&matX, n, k, ldx, (void *)xa, CUDA_R_64F, CUSPARSE_ORDER_COL) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseCreateDnMat failed");
  PetscCheck(cusparseCreateDnMat(&matC, m, k, ldc, (void *)ca, CUDA_R_64F, CUSPARSE_ORDER_COL) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseCreateDnMat failed");
  PetscCheck(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA, matX, &zero, matC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseSpMM_bufferSize failed");
  PetscCheck(cudaMalloc(&buffer, bytes ? bytes : 1) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_MEM, "cudaMalloc failed");
  for (PetscInt rep = 0; rep <= reps; rep++) { /* rep 0 warms up */
    PetscLogDouble t0, t1;
    PetscCheck(cudaStreamSynchronize(PetscDefaultCudaStream) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "sync failed");
    PetscCall(PetscTime(&t0));
    PetscCheck(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA, matX, &zero, matC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, buffer) == CUSPARSE_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cusparseSpMM failed");
    PetscCheck(cudaStreamSynchronize(PetscDefaultCudaStream) == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "SpMM failed");
    PetscCall(PetscTime(&t1));
    if (rep) times.push_back(t1 - t0);
  }
  *t = Median(times);
  cudaFree(buffer);
  cusparseDestroySpMat(matA);
  cusparseDestroyDnMat(matX);
  cusparseDestroyDnMat(matC);
  cusparseDestroy(handle);
  PetscCall(MatDenseCUDARestoreArrayWrite(*C, &ca));
  PetscCall(MatDenseCUDARestoreArrayRead(X, &xa));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &va));
  PetscFunctionReturn(0);
}
#endif

std::vector<std::string> SplitList(const char *opt, const std::vector<std::string> &dflt)
{
  char      buf[256];
  PetscBool set = PETSC_FALSE;
  PetscOptionsGetString(NULL, NULL, opt, buf, sizeof(buf), &set);
  if (!set) return dflt;
  std::vector<std::string> out;
  std::string              cur;
  for (const char *c = buf; ; c++) {
    if (*c == ',' || *c == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      if (!*c) break;
    } else cur += *c;
  }
  return out;
}

} // namespace

int main(int argc, char **argv)
{
  PetscInt    n = 10000, dga = 200, dgb = 200, reps = 3, dense = 0;
  char        csv[PETSC_MAX_PATH_LEN] = "", dense_type[64] = MATDENSE;
  PetscBool   banded = PETSC_FALSE;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MatDiagRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dga", &dga, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dgb", &dgb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dense", &dense, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-banded", &banded, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-show_reps", &g_show_reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dense_type", dense_type, sizeof(dense_type), NULL));
  const std::vector<std::string> types = SplitList("-types", {"diag", "aij"});
  const std::vector<std::string> algs  = SplitList("-algs", {"diag"});
  const std::vector<std::string> prods = SplitList("-products", {"AB", "AtB", "ABt"});
  PetscCheck(types.size() == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-types needs two matrix types");
  const std::vector<PetscInt> offa = banded ? Band(dga) : bench::RandomOffsets(n, dga, 1), offb = banded ? Band(dgb) : bench::RandomOffsets(n, dgb, 2);

  Mat A[2], B[2];
  for (int k = 0; k < 2; k++) {
    PetscCall(bench::CreateRandomDiagonals(PETSC_COMM_WORLD, types[k].c_str(), n, offa, 11, &A[k]));
    if (dense) PetscCall(CreateDense(PETSC_COMM_WORLD, dense_type, n, dense, &B[k]));
    else PetscCall(bench::CreateRandomDiagonals(PETSC_COMM_WORLD, types[k].c_str(), n, offb, 22, &B[k]));
  }
  MatInfo ia, ib;
  PetscCall(MatGetInfo(A[1], MAT_GLOBAL_SUM, &ia));
  PetscCall(MatGetInfo(B[1], MAT_GLOBAL_SUM, &ib));
  if (dense) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "n=%" PetscInt_FMT ", dgA=%zu nzA=%.0f, X dense %" PetscInt_FMT " columns (%s), %d rank(s)\n", n, offa.size(), ia.nz_used, dense, dense_type, size));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "n=%" PetscInt_FMT ", dgA=%zu nzA=%.0f, dgB=%zu nzB=%.0f%s, %d rank(s)\n", n, offa.size(), ia.nz_used, offb.size(), ib.nz_used, banded ? " (banded)" : "", size));

  /* -log_view: the peer's products and ours in separate stages */
  PetscLogStage stage_peer, stage_ours;
  PetscCall(PetscLogEventRegister("BenchProdCreate", MAT_CLASSID, &g_ev_create));
  PetscCall(PetscLogEventRegister("BenchProdSetFrom", MAT_CLASSID, &g_ev_setfromoptions));
  PetscCall(PetscLogEventRegister("BenchProdSync", MAT_CLASSID, &g_ev_sync));
  PetscCall(PetscLogStageRegister("Peer products", &stage_peer));
  PetscCall(PetscLogStageRegister("Our products", &stage_ours));
  for (const std::string &name : dense ? std::vector<std::string>{"AB"} : prods) {
    const MatProductType type = name == "AB" ? MATPRODUCT_AB : name == "AtB" ? MATPRODUCT_AtB : MATPRODUCT_ABt;
    Timing               peer;
    Mat                  Cpeer;
    PetscCall(PetscLogStagePush(stage_peer));
    PetscCall(TimeProduct(A[1], B[1], type, NULL, reps, &peer, &Cpeer));
    PetscCall(PetscLogStagePop());
    double nzc = 0;
    if (Cpeer && !dense) {
      MatInfo ic;
      PetscCall(MatGetInfo(Cpeer, MAT_GLOBAL_SUM, &ic));
      nzc = ic.nz_used;
    }
    /* each line as soon as its numbers exist: a slow step shows where it is */
    if (peer.err) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s %-12s FAILED with PETSc error %d: %s\n", name.c_str(), types[1].c_str(), (int)peer.err, peer.msg.c_str()));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s %-12s first %9.2f ms reuse %9.2f ms (nzC=%.0f)\n", name.c_str(), types[1].c_str(), 1e3 * peer.first, 1e3 * peer.reuse, nzc));
    for (const std::string &alg : algs) {
      Timing ours;
      Mat    Cours;
      PetscCall(PetscLogStagePush(stage_ours));
      PetscCall(TimeProduct(A[0], B[0], type, alg.c_str(), reps, &ours, &Cours));
      PetscCall(PetscLogStagePop());
      PetscCheck(!ours.err, PETSC_COMM_WORLD, PETSC_ERR_LIB, "%s with %s failed: %s", name.c_str(), alg.c_str(), ours.msg.c_str());
      if (!Cpeer && !dense) {
        MatInfo ic;
        PetscCall(MatGetInfo(Cours, MAT_GLOBAL_SUM, &ic));
        nzc = ic.nz_used;
      }
      if (Cpeer) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s %-12s first %9.2f ms reuse %9.2f ms | ratio to %s: first %.1fx reuse %.1fx\n", name.c_str(), alg.c_str(), 1e3 * ours.first, 1e3 * ours.reuse, types[1].c_str(), peer.first / ours.first, peer.reuse / ours.reuse));
      else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s %-12s first %9.2f ms reuse %9.2f ms | %s failed (nzC=%.0f)\n", name.c_str(), alg.c_str(), 1e3 * ours.first, 1e3 * ours.reuse, types[1].c_str(), nzc));
      PetscReal rel = -1;
      if (Cpeer) {
        PetscCall(RelDiff(Cours, Cpeer, &rel));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s %-12s C agrees with %s's to %.1e\n", name.c_str(), alg.c_str(), types[1].c_str(), (double)rel));
        PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the two types give different products (%.3e)", name.c_str(), (double)rel);
      }
      if (csv[0]) {
        FILE *f;
        PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &f));
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%" PetscInt_FMT ",%zu,%s,%.0f,%.0f,%.0f,%d,%s,%s,%.6e,%.6e,%s,%.6e,%.6e\n", n, offa.size(), dense ? ("dense" + std::to_string(dense)).c_str() : std::to_string(offb.size()).c_str(), ia.nz_used, dense ? 0.0 : ib.nz_used, nzc, size,
                               name.c_str(), alg.c_str(), ours.first, ours.reuse, types[1].c_str(), Cpeer ? peer.first : NAN, Cpeer ? peer.reuse : NAN));
        PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
      }
#if defined(PDIAG_PETSC_CUDA)
      if (dense && Cpeer && alg == algs.front() && types[1] == MATAIJCUSPARSE && std::string(dense_type) == MATSEQDENSECUDA) {
        double t  = 0;
        Mat    Cd = NULL;
        PetscCall(DirectSpMM(A[1], B[1], reps, &t, &Cd));
        PetscCall(RelDiff(Cd, Cpeer, &rel));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  AB   cusparseSpMM (CSR, direct call)                     %9.2f ms | ours reuse %.1fx faster (C agree to %.1e)\n", 1e3 * t, t / ours.reuse, (double)rel));
        PetscCheck(rel < 1e-12, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "direct cuSPARSE SpMM differs (%.3e)", (double)rel);
        if (csv[0]) {
          FILE *f;
          PetscCall(PetscFOpen(PETSC_COMM_WORLD, csv, "a", &f));
          PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "%" PetscInt_FMT ",%zu,dense%" PetscInt_FMT ",%.0f,0,0,%d,AB,%s,%.6e,%.6e,cusparseSpMM,%.6e,%.6e\n", n, offa.size(), dense, ia.nz_used, size, alg.c_str(), ours.first, ours.reuse, t, t));
          PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
        }
        PetscCall(MatDestroy(&Cd));
      }
#endif
      PetscCall(MatDestroy(&Cours));
    }
    PetscCall(MatDestroy(&Cpeer));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(MatDestroy(&A[k]));
    PetscCall(MatDestroy(&B[k]));
  }
  PetscCall(PetscFinalize());
  return 0;
}
