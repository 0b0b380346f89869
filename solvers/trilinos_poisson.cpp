// trilinos_poisson: -Laplace(u) = f on the unit square or cube, Dirichlet
// u = 0, exact solution u = (1 + x) prod sin(pi x_k), second-order finite
// differences on an n^dim grid of interior points. The matrix is assembled
// into a pdiag::trilinos::DiagMatrix (insertGlobalValues, fillComplete) and,
// for comparison, into a Tpetra::CrsMatrix from the same entries; each is
// solved with Belos (CG or GMRES) and a preconditioner chosen on the command
// line (Ifpack2 Jacobi, Chebyshev, RILUK, ILUT, Schwarz, or MueLu through
// toCrsMatrix). Prints iterations, the true relative residual, the max error
// against the exact solution and the times of assembly, preconditioner set
// up and solve.
//
//   mpiexec -n 2 trilinos_poisson --dim=3 --n=40 --solver=CG --prec=chebyshev
//   trilinos_poisson --xml=params.xml   (sublists "Belos" and "Preconditioner")
//
// --check makes the exit code 1 unless both matrices converge with
// iteration counts within 1 and errors within 1e-6 of each other.
#include "pdiag/trilinos/diag_matrix.hpp"

#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <MueLu_CreateTpetraPreconditioner.hpp>
#include <Teuchos_CommandLineProcessor.hpp>
#include <Teuchos_XMLParameterListHelpers.hpp>
#include <Tpetra_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

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

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Grid {
  int dim;
  GO n;  // interior points per direction
  double h() const { return 1.0 / double(n + 1); }
  GO size() const { return dim == 3 ? n * n * n : n * n; }
};

// Row g of the 5- or 7-point operator (scaled by 1/h^2): fn(column, value).
template <class F>
void stencil_row(const Grid& g, GO row, F&& fn) {
  const double s = 1.0 / (g.h() * g.h());
  const GO n = g.n, x = row % n, y = (row / n) % n, z = row / (n * n);
  fn(row, 2.0 * g.dim * s);
  if (x > 0) fn(row - 1, -s);
  if (x < n - 1) fn(row + 1, -s);
  if (y > 0) fn(row - n, -s);
  if (y < n - 1) fn(row + n, -s);
  if (g.dim == 3 && z > 0) fn(row - n * n, -s);
  if (g.dim == 3 && z < n - 1) fn(row + n * n, -s);
}

// u = (1 + x) sin(pi x) prod_{k >= 2} sin(pi x_k) (not an eigenvector of the
// discrete operator, so Krylov methods do not stop after one step) and
// f = -Laplace(u) = (dim pi^2 (1 + x) sin(pi x) - 2 pi cos(pi x)) prod sin(pi x_k).
void exact(const Grid& g, GO row, double& u, double& f) {
  const double pi = std::acos(-1.0), h = g.h();
  const GO n = g.n;
  const double x = h * double(row % n + 1), y = h * double((row / n) % n + 1);
  double rest = std::sin(pi * y);
  if (g.dim == 3) rest *= std::sin(pi * h * double(row / (n * n) + 1));
  u = (1 + x) * std::sin(pi * x) * rest;
  f = (g.dim * pi * pi * (1 + x) * std::sin(pi * x) - 2 * pi * std::cos(pi * x)) * rest;
}

struct Result {
  double assembly = 0, setup = 0, solve = 0, residual = 0, error = 0;
  int iters = 0;
  bool converged = false;
};

Teuchos::RCP<const op_t> make_prec(const std::string& name, Teuchos::ParameterList& plist, const Teuchos::RCP<const row_t>& A,
                                   const Teuchos::RCP<crs_t>& crs) {
  if (name == "none") return Teuchos::null;
  if (name == "muelu") {
    Teuchos::RCP<op_t> op = crs;
    if (!plist.isParameter("verbosity")) plist.set("verbosity", "none");
    // MueLu's default coarse solve (Amesos2 KLU2) makes CG stall near 1e-3
    // on 2 processes with Debian's Trilinos 13.2, on the CrsMatrix as well;
    // a relaxation on the coarse level does not.
    if (!plist.isParameter("coarse: type")) plist.set("coarse: type", "RELAXATION");
    return MueLu::CreateTpetraPreconditioner(op, plist);
  }
  const std::map<std::string, std::string> types = {{"jacobi", "RELAXATION"}, {"chebyshev", "CHEBYSHEV"}, {"riluk", "RILUK"},
                                                    {"ilut", "ILUT"},         {"schwarz", "SCHWARZ"}};
  const auto t = types.find(name);
  if (t == types.end()) throw std::invalid_argument("unknown --prec " + name + " (none, jacobi, chebyshev, riluk, ilut, schwarz, muelu)");
  Teuchos::ParameterList p = plist;
  if (name == "jacobi" && !p.isParameter("relaxation: type")) p.set("relaxation: type", "Jacobi");
  if (name == "schwarz") {
    if (!p.isParameter("schwarz: overlap level")) p.set("schwarz: overlap level", 0);
    if (!p.isParameter("inner preconditioner name")) p.set("inner preconditioner name", "RILUK");
  }
  auto prec = Ifpack2::Factory::create<row_t>(t->second, A);
  prec->setParameters(p);
  prec->initialize();
  prec->compute();
  return prec;
}

// Assembles (diag or crs), sets up the preconditioner, solves, measures.
Result run(const Grid& g, const Teuchos::RCP<const map_t>& map, bool diag, const std::string& solver, const std::string& precName,
           Teuchos::ParameterList belos, Teuchos::ParameterList precParams) {
  Result r;
  auto comm = map->getComm();
  comm->barrier();
  double t0 = now();
  Teuchos::RCP<const op_t> A;
  Teuchos::RCP<const row_t> rowA;
  Teuchos::RCP<crs_t> crs;
  const size_t m = map->getNodeNumElements();
  if (diag) {
    auto D = Teuchos::rcp(new DM(map));
    for (size_t il = 0; il < m; ++il) {
      const GO row = map->getGlobalElement(LO(il));
      stencil_row(g, row, [&](GO c, SC v) { D->insertGlobalValues(row, 1, &v, &c); });
    }
    D->fillComplete();
    A = D;
    rowA = D;
  } else {
    Teuchos::Array<size_t> count(m);
    for (size_t il = 0; il < m; ++il) stencil_row(g, map->getGlobalElement(LO(il)), [&](GO, SC) { ++count[il]; });
    crs = Teuchos::rcp(new crs_t(map, count()));
    for (size_t il = 0; il < m; ++il) {
      const GO row = map->getGlobalElement(LO(il));
      stencil_row(g, row, [&](GO c, SC v) { crs->insertGlobalValues(row, 1, &v, &c); });
    }
    crs->fillComplete();
    A = crs;
    rowA = crs;
  }
  comm->barrier();
  r.assembly = now() - t0;
  t0 = now();
  if (diag && precName == "muelu") crs = Teuchos::rcp_dynamic_cast<const DM>(A)->toCrsMatrix();
  auto M = make_prec(precName, precParams, rowA, crs);
  comm->barrier();
  r.setup = now() - t0;
  auto b = Teuchos::rcp(new mv_t(map, 1));
  auto u = Teuchos::rcp(new mv_t(map, 1));
  {
    auto bd = b->getDataNonConst(0);
    auto ud = u->getDataNonConst(0);
    for (size_t il = 0; il < m; ++il) {
      exact(g, map->getGlobalElement(LO(il)), ud[il], bd[il]);
    }
  }
  auto x = Teuchos::rcp(new mv_t(map, 1));
  auto problem = Teuchos::rcp(new Belos::LinearProblem<SC, mv_t, op_t>(A, x, b));
  if (!M.is_null()) {  // CG preconditioned on the left, GMRES on the right (true residual norms)
    if (solver == "CG") problem->setLeftPrec(M);
    else problem->setRightPrec(M);
  }
  problem->setProblem();
  auto bp = Teuchos::rcp(new Teuchos::ParameterList(belos));
  Teuchos::RCP<Belos::SolverManager<SC, mv_t, op_t>> sm;
  if (solver == "CG") sm = Teuchos::rcp(new Belos::PseudoBlockCGSolMgr<SC, mv_t, op_t>(problem, bp));
  else if (solver == "GMRES") sm = Teuchos::rcp(new Belos::BlockGmresSolMgr<SC, mv_t, op_t>(problem, bp));
  else throw std::invalid_argument("unknown --solver " + solver + " (CG, GMRES)");
  comm->barrier();
  t0 = now();
  r.converged = sm->solve() == Belos::Converged;
  comm->barrier();
  r.solve = now() - t0;
  r.iters = sm->getNumIters();
  mv_t res(map, 1);
  A->apply(*x, res);
  res.update(1.0, *b, -1.0);
  double rn = 0, bn = 0, en = 0;
  res.norm2(Teuchos::ArrayView<double>(&rn, 1));
  b->norm2(Teuchos::ArrayView<double>(&bn, 1));
  u->update(-1.0, *x, 1.0);
  u->normInf(Teuchos::ArrayView<double>(&en, 1));
  r.residual = rn / bn;
  r.error = en;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  int dim = 2, n = 64, maxit = 2000;
  double tol = 1e-10;
  std::string solver = "CG", prec = "jacobi", xml, matrices = "both";
  bool check = false;
  Teuchos::CommandLineProcessor clp;
  clp.setDocString("Poisson on a grid with Belos + Ifpack2/MueLu on pdiag::trilinos::DiagMatrix and Tpetra::CrsMatrix");
  clp.setOption("dim", &dim, "2 or 3");
  clp.setOption("n", &n, "interior grid points per direction");
  clp.setOption("solver", &solver, "CG or GMRES");
  clp.setOption("prec", &prec, "none, jacobi, chebyshev, riluk, ilut, schwarz, muelu");
  clp.setOption("tol", &tol, "relative residual tolerance");
  clp.setOption("maxit", &maxit, "maximum iterations");
  clp.setOption("xml", &xml, "ParameterList XML file: sublists \"Belos\" and \"Preconditioner\" (override the options)");
  clp.setOption("matrices", &matrices, "both, diag or crs");
  clp.setOption("check", "no-check", &check, "exit 1 unless diag and crs agree (iterations +-1, errors 1e-6)");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 1;
  if ((dim != 2 && dim != 3) || n < 1) {
    if (comm->getRank() == 0) std::fprintf(stderr, "--dim must be 2 or 3 and --n positive\n");
    return 1;
  }
  Teuchos::ParameterList belos, precParams;
  belos.set("Convergence Tolerance", tol);
  belos.set("Maximum Iterations", maxit);
  if (solver == "GMRES") belos.set("Num Blocks", 100);
  if (!xml.empty()) {
    Teuchos::ParameterList file;
    Teuchos::updateParametersFromXmlFileAndBroadcast(xml, Teuchos::outArg(file), *comm);
    if (file.isSublist("Belos")) belos.setParameters(file.sublist("Belos"));
    if (file.isSublist("Preconditioner")) precParams.setParameters(file.sublist("Preconditioner"));
  }
  const Grid g{dim, GO(n)};
  auto map = Teuchos::rcp(new map_t(Tpetra::global_size_t(g.size()), 0, comm));
  if (comm->getRank() == 0)
    std::printf("Poisson %dD, %d^%d unknowns = %lld, %d processes, Belos %s, preconditioner %s\n", dim, n, dim,
                (long long)g.size(), comm->getSize(), solver.c_str(), prec.c_str());
  if (comm->getRank() == 0)
    std::printf("%-10s %10s %10s %10s %6s %12s %12s\n", "matrix", "assembly_s", "setup_s", "solve_s", "iters", "rel_residual", "max_error");
  std::vector<Result> res;
  for (const bool diag : {false, true}) {
    if ((diag && matrices == "crs") || (!diag && matrices == "diag")) continue;
    const Result r = run(g, map, diag, solver, prec, belos, precParams);
    if (comm->getRank() == 0)
      std::printf("%-10s %10.4f %10.4f %10.4f %6d %12.3e %12.3e%s\n", diag ? "DiagMatrix" : "CrsMatrix", r.assembly, r.setup,
                  r.solve, r.iters, r.residual, r.error, r.converged ? "" : "  (not converged)");
    res.push_back(r);
  }
  if (check) {
    bool ok = res.size() == 2 && res[0].converged && res[1].converged && std::abs(res[0].iters - res[1].iters) <= 1 &&
              std::abs(res[0].error - res[1].error) <= 1e-6 * std::max(1.0, res[0].error);
    if (comm->getRank() == 0) std::printf("check: %s\n", ok ? "diag and crs agree" : "MISMATCH");
    return ok ? 0 : 1;
  }
  return 0;
}
