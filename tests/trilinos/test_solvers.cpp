// Belos with Ifpack2 and MueLu on a pdiag::trilinos::DiagMatrix against the
// same solve on a Tpetra::CrsMatrix of the same entries: iteration counts
// equal within 1 and the same solution, for CG (2D and 3D Poisson) and GMRES
// (2D convection-diffusion), preconditioners Ifpack2 RELAXATION (Jacobi),
// CHEBYSHEV, RILUK, ILUT, SCHWARZ (overlap 0, RILUK inside) built on the
// DiagMatrix as a RowMatrix, and MueLu built on DiagMatrix::toCrsMatrix().
// Run under mpiexec with 1, 2 and 3 processes (process 1 owns no rows).
#include "trilinos_testing.hpp"

#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <MueLu_CreateTpetraPreconditioner.hpp>

using namespace tt;

namespace {

using op_t = Tpetra::Operator<SC, LO, GO>;
using row_t = Tpetra::RowMatrix<SC, LO, GO>;

struct Outcome {
  int iters = -1;
  bool converged = false;
  Teuchos::RCP<mv_t> x;
};

// Solves A x = b (x0 = 0) with Belos CG or GMRES and the right preconditioner M.
Outcome solve(const Teuchos::RCP<const op_t>& A, const Teuchos::RCP<const op_t>& M, const mv_t& b, bool cg) {
  Outcome o;
  o.x = Teuchos::rcp(new mv_t(A->getDomainMap(), 1));
  auto B = Teuchos::rcp(new mv_t(b, Teuchos::Copy));
  auto problem = Teuchos::rcp(new Belos::LinearProblem<SC, mv_t, op_t>(A, o.x, B));
  if (!M.is_null()) {
    if (cg) problem->setLeftPrec(M);
    else problem->setRightPrec(M);
  }
  TEUCHOS_TEST_FOR_EXCEPTION(!problem->setProblem(), std::runtime_error, "Belos setProblem failed");
  auto params = Teuchos::parameterList();
  params->set("Convergence Tolerance", 1e-8);
  params->set("Maximum Iterations", 1000);
  Teuchos::RCP<Belos::SolverManager<SC, mv_t, op_t>> solver;
  if (cg)
    solver = Teuchos::rcp(new Belos::PseudoBlockCGSolMgr<SC, mv_t, op_t>(problem, params));
  else {
    params->set("Num Blocks", 60);
    solver = Teuchos::rcp(new Belos::BlockGmresSolMgr<SC, mv_t, op_t>(problem, params));
  }
  o.converged = solver->solve() == Belos::Converged;
  o.iters = solver->getNumIters();
  return o;
}

Teuchos::RCP<const op_t> ifpack2(const std::string& type, const Teuchos::ParameterList& p, const Teuchos::RCP<const row_t>& A) {
  auto prec = Ifpack2::Factory::create<row_t>(type, A);
  prec->setParameters(p);
  prec->initialize();
  prec->compute();
  return prec;
}

Teuchos::RCP<const op_t> muelu(const Teuchos::RCP<crs_t>& A) {
  Teuchos::ParameterList p;
  p.set("verbosity", "none");
  p.set("coarse: max size", 40);
  p.set("smoother: type", "RELAXATION");
  Teuchos::ParameterList sp;
  sp.set("relaxation: type", "Jacobi");
  sp.set("relaxation: damping factor", 0.7);
  p.set("smoother: params", sp);
  Teuchos::RCP<op_t> op = A;
  return MueLu::CreateTpetraPreconditioner(op, p);
}

struct Prec {
  std::string label, type;  // type "MUELU" or an Ifpack2 name
  Teuchos::ParameterList params;
};

std::vector<Prec> preconditioners(bool symmetric) {
  std::vector<Prec> v;
  Prec jac{"Jacobi", "RELAXATION", {}};
  jac.params.set("relaxation: type", "Jacobi");
  jac.params.set("relaxation: sweeps", 2);
  jac.params.set("relaxation: damping factor", 0.8);
  v.push_back(jac);
  Prec cheb{"Chebyshev", "CHEBYSHEV", {}};
  cheb.params.set("chebyshev: degree", 3);
  v.push_back(cheb);
  Prec iluk{"RILUK(1)", "RILUK", {}};
  iluk.params.set("fact: iluk level-of-fill", 1);
  v.push_back(iluk);
  if (!symmetric) {  // ILUT is not symmetric: GMRES only
    Prec ilut{"ILUT", "ILUT", {}};
    ilut.params.set("fact: ilut level-of-fill", 1.5);
    ilut.params.set("fact: drop tolerance", 1e-3);
    v.push_back(ilut);
  }
  Prec schwarz{"Schwarz(0)+RILUK", "SCHWARZ", {}};
  schwarz.params.set("schwarz: overlap level", 0);
  schwarz.params.set("inner preconditioner name", "RILUK");
  v.push_back(schwarz);
  v.push_back(Prec{"MueLu", "MUELU", {}});
  return v;
}

void compare(const comm_t& comm, const std::string& what, GO nx, GO ny, GO nz, double c, bool cg) {
  const GO n = nx * ny * nz;
  auto rows = uneven_map(n, comm);
  const Entries e = stencil_entries(*rows, nx, ny, nz, c);
  auto C = crs_of(rows, rows, e);
  auto D = diag_of(rows, rows, e);
  mv_t b(rows, 1);
  b.putScalar(1.0);
  for (const Prec& p : preconditioners(cg)) {
    Teuchos::RCP<const op_t> Mc, Md;
    if (p.type == "MUELU") {
      Mc = muelu(C);
      Md = muelu(D->toCrsMatrix());
    } else {
      Mc = ifpack2(p.type, p.params, C);
      Md = ifpack2(p.type, p.params, D);
    }
    const Outcome oc = solve(C, Mc, b, cg), od = solve(D, Md, b, cg);
    const double dx = rel_diff(*od.x, *oc.x);
    if (comm->getRank() == 0)
      std::printf("  %s %s %s: iterations CrsMatrix %d, DiagMatrix %d, solution rel diff %.2e\n", what.c_str(),
                  cg ? "CG" : "GMRES", p.label.c_str(), oc.iters, od.iters, dx);
    TT_CHECK(oc.converged && od.converged, "%s %s: not converged (crs %d, diag %d)", what.c_str(), p.label.c_str(),
             int(oc.converged), int(od.converged));
    TT_CHECK(std::abs(oc.iters - od.iters) <= 1, "%s %s: iterations %d vs %d", what.c_str(), p.label.c_str(), oc.iters, od.iters);
    TT_CHECK(dx <= 1e-6, "%s %s: solutions differ by %g", what.c_str(), p.label.c_str(), dx);
  }
  // No preconditioner: the operator alone.
  const Outcome oc = solve(C, Teuchos::null, b, cg), od = solve(D, Teuchos::null, b, cg);
  TT_CHECK(oc.converged && od.converged && std::abs(oc.iters - od.iters) <= 1, "%s none: iterations %d vs %d",
           what.c_str(), oc.iters, od.iters);
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  run_case(comm, "CG, 2D Poisson 24 x 20", [&] { compare(comm, "2D Poisson", 24, 20, 1, 0.0, true); });
  run_case(comm, "CG, 3D Poisson 9 x 8 x 7", [&] { compare(comm, "3D Poisson", 9, 8, 7, 0.0, true); });
  run_case(comm, "GMRES, 2D convection-diffusion 24 x 20", [&] { compare(comm, "2D conv-diff", 24, 20, 1, 0.4, false); });
  return finish(comm);
}
