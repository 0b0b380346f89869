// bench_trilinos: pdiag::trilinos::DiagMatrix against Tpetra::CrsMatrix on
// the same matrices, same run (docs/performance.md, "Trilinos"):
//   apply     y = A x and y = A^T x on the 2D 5-point (n2d^2) and 3D 7-point
//             (n3d^3) Laplacians: seconds per apply (best of --reps)
//   cg        Belos CG + Ifpack2 Chebyshev (degree 3) on the 2D operator,
//             --cgits iterations: seconds per iteration
//   The Laplacians have constant coefficients: the DiagMatrix's forward
//   apply runs on its compressed form (one value per diagonal plus the
//   stored zeros at grid-line ends as exceptions, pdiag/compress.hpp).
//   Lines marked "values" are the same DiagMatrix with that turned off
//   (allowCompressedApply(false)): the product reads the stored diagonals.
//   products  C = A B for the paper's random structured matrices (n =
//             --pn, --pd diagonals each with offsets uniform in +-n/4, the
//             values and offsets of bench/paper_matrices.hpp):
//             pdiag::trilinos::multiply vs Tpetra::MatrixMatrix::Multiply
// Times are the maximum over processes. Not a test: nothing here is checked
// except that both matrices give the same result (printed as rel_diff).
//
//   mpiexec -n 2 bench_trilinos --what=apply,cg,products
#include "pdiag/trilinos/diag_matrix.hpp"
#include "pdiag/trilinos/multiply.hpp"

#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <Teuchos_CommandLineProcessor.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>

namespace {

using DM = pdiag::trilinos::DiagMatrix<>;
using SC = DM::scalar_type;
using LO = DM::local_ordinal_type;
using GO = DM::global_ordinal_type;
using map_t = DM::map_type;
using mv_t = DM::mv_type;
using crs_t = DM::crs_type;
using op_t = Tpetra::Operator<SC, LO, GO>;
using row_t = Tpetra::RowMatrix<SC, LO, GO>;
using comm_t = Teuchos::RCP<const Teuchos::Comm<int>>;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
// This process's CPU time: on a machine shared with other jobs, wall time
// counts their time slices too; CPU time counts only ours.
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
bool use_cpu_clock = false;

// Seconds of f (wall or CPU time, --clock), the maximum over processes, best of reps.
double timed(const comm_t& comm, int reps, const std::function<void()>& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    comm->barrier();
    const double t0 = use_cpu_clock ? cpu_now() : now();
    f();
    double t = (use_cpu_clock ? cpu_now() : now()) - t0, tmax = 0;
    Teuchos::reduceAll<int, double>(*comm, Teuchos::REDUCE_MAX, t, Teuchos::outArg(tmax));
    best = std::min(best, tmax);
  }
  return best;
}

// Both matrices from one list of (offset, value(i, j)) per row.
struct Pair {
  Teuchos::RCP<crs_t> crs;
  Teuchos::RCP<DM> diag;
};

Pair build(const Teuchos::RCP<const map_t>& map, GO n, const std::vector<pdiag::Index>& offsets,
           const std::function<SC(GO, GO)>& value) {
  const size_t m = map->getNodeNumElements();
  const GO r0 = m ? map->getMinGlobalIndex() : 0;
  Teuchos::Array<size_t> count(m, 0);
  std::vector<SC> hmvals;  // HM order: diagonal by diagonal, rows ascending
  for (pdiag::Index d : offsets)
    for (GO i = r0; i < r0 + GO(m); ++i)
      if (i + d >= 0 && i + d < n) {
        hmvals.push_back(value(i, i + d));
        if (hmvals.back() != SC(0)) ++count[i - r0];  // the CrsMatrix holds the nonzeros only
      }
  Pair p;
  p.crs = Teuchos::rcp(new crs_t(map, count()));
  std::vector<GO> cols;
  std::vector<SC> vals;
  for (GO i = r0; i < r0 + GO(m); ++i) {
    cols.clear();
    vals.clear();
    for (pdiag::Index d : offsets)
      if (i + d >= 0 && i + d < n && value(i, i + d) != SC(0)) {
        cols.push_back(i + d);
        vals.push_back(value(i, i + d));
      }
    p.crs->insertGlobalValues(i, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const SC>(vals));
  }
  p.crs->fillComplete();
  p.diag = Teuchos::rcp(new DM(map, offsets, hmvals));
  return p;
}

double rel_diff(const mv_t& a, const mv_t& b) {
  mv_t d(a, Teuchos::Copy);
  d.update(-1.0, b, 1.0);
  double dn = 0, bn = 0;
  d.normInf(Teuchos::ArrayView<double>(&dn, 1));
  b.normInf(Teuchos::ArrayView<double>(&bn, 1));
  return dn / std::max(bn, 1e-300);
}

// The grid Laplacian: 5-point (nz == 1) or 7-point; where a neighbour is
// missing the DiagMatrix stores a zero, the CrsMatrix nothing.
Pair laplacian(const comm_t& comm, GO nx, GO nz) {
  const GO n = nx * nx * nz;
  auto map = Teuchos::rcp(new map_t(Tpetra::global_size_t(n), 0, comm));
  std::vector<pdiag::Index> offs{-nx, -1, 0, 1, nx};
  if (nz > 1) offs = {-nx * nx, -nx, -1, 0, 1, nx, nx * nx};
  return build(map, n, offs, [=](GO i, GO j) -> SC {
    if (i == j) return nz > 1 ? 6.0 : 4.0;
    if ((j == i + 1 && (i % nx) == nx - 1) || (j == i - 1 && (i % nx) == 0)) return 0.0;
    if (nz > 1 && ((j == i + nx && (i / nx) % nx == nx - 1) || (j == i - nx && (i / nx) % nx == 0))) return 0.0;
    return -1.0;
  });
}

void bench_apply(const comm_t& comm, const std::string& name, const Pair& p, int reps) {
  for (const Teuchos::ETransp mode : {Teuchos::NO_TRANS, Teuchos::TRANS})
    for (const bool compressed : {true, false}) {
      if (mode == Teuchos::TRANS && !compressed) continue;  // the transpose always reads the values
      p.diag->allowCompressedApply(compressed);
      mv_t x(p.crs->getDomainMap(), 1), yc(p.crs->getRangeMap(), 1), yd(p.crs->getRangeMap(), 1);
      x.randomize();
      const double tc = timed(comm, reps, [&] { p.crs->apply(x, yc, mode); });
      const double td = timed(comm, reps, [&] { p.diag->apply(x, yd, mode); });
      const double diff = rel_diff(yd, yc);  // collective: outside the rank-0 branch
      if (comm->getRank() == 0)
        std::printf("apply %-4s %-22s CrsMatrix %9.3f ms  DiagMatrix%-9s %9.3f ms  speedup %5.2f  rel_diff %.1e\n",
                    mode == Teuchos::NO_TRANS ? "N" : "T", name.c_str(), 1e3 * tc,
                    mode == Teuchos::TRANS ? "" : compressed ? " (compr)" : " (values)", 1e3 * td, tc / td, diff);
    }
  p.diag->allowCompressedApply(true);
}

double cg_per_iteration(const comm_t& comm, const Teuchos::RCP<const row_t>& A, int its, int& done) {
  auto prec = Ifpack2::Factory::create<row_t>("CHEBYSHEV", A);
  Teuchos::ParameterList pp;
  pp.set("chebyshev: degree", 3);
  pp.set("chebyshev: max eigenvalue", 8.0);  // Gershgorin bound of the 5-point operator, no estimate
  prec->setParameters(pp);
  prec->initialize();
  prec->compute();
  auto b = Teuchos::rcp(new mv_t(A->getRangeMap(), 1));
  b->putScalar(1.0);
  auto x = Teuchos::rcp(new mv_t(A->getDomainMap(), 1));
  auto problem = Teuchos::rcp(new Belos::LinearProblem<SC, mv_t, op_t>(A, x, b));
  problem->setLeftPrec(prec);
  problem->setProblem();
  auto params = Teuchos::parameterList();
  params->set("Convergence Tolerance", 1e-30);  // run all its iterations
  params->set("Maximum Iterations", its);
  Belos::PseudoBlockCGSolMgr<SC, mv_t, op_t> cg(problem, params);
  const double t = timed(comm, 1, [&] { cg.solve(); });
  done = cg.getNumIters();
  return t / std::max(done, 1);
}

unsigned long next(unsigned long s) { return s * 6364136223846793005UL + 1442695040888963407UL; }

// bench/paper_matrices.hpp's RandomOffsets and Value, without PETSc.
std::vector<pdiag::Index> paper_offsets(GO n, GO count, unsigned long seed) {
  std::vector<pdiag::Index> offs{0};
  unsigned long state = seed;
  while (GO(offs.size()) < std::min<GO>(count, n / 2 + 1)) {
    state = next(state);
    const GO d = GO((state >> 33) % (unsigned long)(n / 2 + 1)) - n / 4;
    if (std::find(offs.begin(), offs.end(), d) == offs.end()) offs.push_back(d);
  }
  std::sort(offs.begin(), offs.end());
  return offs;
}
SC paper_value(GO i, GO j, unsigned long seed) {
  const unsigned long h = next(next(seed ^ (unsigned long)i) ^ ((unsigned long)j << 20));
  return 1.0 + SC((h >> 33) % 1000) / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  int n2d = 1000, n3d = 100, reps = 20, cgits = 100, pn = 10000, pd = 200;
  std::string what = "apply,cg,products", clock = "wall";
  Teuchos::CommandLineProcessor clp;
  clp.setOption("n2d", &n2d, "2D grid size (n2d^2 rows)");
  clp.setOption("n3d", &n3d, "3D grid size (n3d^3 rows)");
  clp.setOption("reps", &reps, "repetitions of each apply (best is reported)");
  clp.setOption("cgits", &cgits, "CG iterations");
  clp.setOption("pn", &pn, "product matrices: n");
  clp.setOption("pd", &pd, "product matrices: diagonals of each operand");
  clp.setOption("what", &what, "comma-separated: apply, cg, products");
  clp.setOption("clock", &clock, "wall or cpu (this process's CPU time, for a shared machine)");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 1;
  use_cpu_clock = clock == "cpu";
  if (comm->getRank() == 0) std::printf("bench_trilinos: %d processes, %s time\n", comm->getSize(), clock.c_str());
  const auto has = [&](const char* w) { return what.find(w) != std::string::npos; };
  if (has("apply") || has("cg")) {
    const Pair p2 = laplacian(comm, n2d, 1);
    if (has("apply")) {
      bench_apply(comm, "2D 5-point " + std::to_string(n2d) + "^2", p2, reps);
      const Pair p3 = laplacian(comm, n3d, n3d);
      bench_apply(comm, "3D 7-point " + std::to_string(n3d) + "^3", p3, reps);
    }
    if (has("cg"))
      for (const bool compressed : {true, false}) {
        p2.diag->allowCompressedApply(compressed);
        int ic = 0, id = 0;
        const double tc = cg_per_iteration(comm, p2.crs, cgits, ic);
        const double td = cg_per_iteration(comm, p2.diag, cgits, id);
        if (comm->getRank() == 0)
          std::printf("CG+Chebyshev(3) 2D %d^2: CrsMatrix %8.3f ms/it (%d its)  DiagMatrix%-9s %8.3f ms/it (%d its)  speedup %5.2f\n",
                      n2d, 1e3 * tc, ic, compressed ? " (compr)" : " (values)", 1e3 * td, id, tc / td);
      }
  }
  if (has("products")) {
    auto map = Teuchos::rcp(new map_t(Tpetra::global_size_t(pn), 0, comm));
    const Pair A = build(map, pn, paper_offsets(pn, pd, 1), [](GO i, GO j) { return paper_value(i, j, 1); });
    const Pair B = build(map, pn, paper_offsets(pn, pd, 2), [](GO i, GO j) { return paper_value(i, j, 2); });
    Teuchos::RCP<DM> Cd;
    Teuchos::RCP<crs_t> Cc;
    const double td = timed(comm, 1, [&] { Cd = pdiag::trilinos::multiply(*A.diag, false, *B.diag, false); });
    const double tc = timed(comm, 1, [&] {
      Cc = Teuchos::rcp(new crs_t(map, 0));
      Tpetra::MatrixMatrix::Multiply(*A.crs, false, *B.crs, false, *Cc);
    });
    // The kernel alone on this process's rows (one process: the whole
    // product): what the adapter adds is the rest of multiply's time.
    double tk = 0;
    if (comm->getSize() == 1) tk = timed(comm, 1, [&] { pdiag::hm_product(A.diag->hm(), pdiag::Trans::N, B.diag->hm(), pdiag::Trans::N); });
    mv_t x(map, 1), yc(map, 1), yd(map, 1);
    x.randomize();
    Cc->apply(x, yc);
    Cd->apply(x, yd);
    const double diff = rel_diff(yd, yc);
    if (comm->getRank() == 0)
      std::printf("product n=%d, %dx%d diagonals: C has %zu entries; Tpetra::MatrixMatrix::Multiply %8.3f s  "
                  "pdiag::trilinos::multiply %8.3f s  speedup %6.2f  rel_diff %.1e\n",
                  pn, pd, pd, size_t(Cc->getGlobalNumEntries()), tc, td, tc / td, diff);
    if (comm->getRank() == 0 && tk > 0) std::printf("  of which pdiag::hm_product (kernel, symbolic + numeric) %8.3f s\n", tk);
  }
  return 0;
}
