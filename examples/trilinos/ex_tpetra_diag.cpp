// A DiagMatrix in a Trilinos program: build it from diagonals or by
// assembly, use it as any Tpetra::RowMatrix (apply, Belos, Ifpack2), and
// convert it for what needs a CrsMatrix (MueLu). docs/trilinos.md explains.
//
//   mpiexec -n 2 ./ex_tpetra_diag
#include "pdiag/trilinos/diag_matrix.hpp"

#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockCGSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Factory.hpp>
#include <Tpetra_Core.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  using DM = pdiag::trilinos::DiagMatrix<>;  // <double, int, long long, Serial node>
  using GO = DM::global_ordinal_type;
  using MV = DM::mv_type;
  using OP = Tpetra::Operator<double, int, GO>;
  auto comm = Tpetra::getDefaultComm();
  const GO n = 1000;
  auto map = Teuchos::rcp(new DM::map_type(n, 0, comm));  // contiguous rows

  // 1. From diagonals: the 1D Laplacian tridiag(-1, 2, -1). For this
  //    process's rows [r0, r0 + m), diagonal d holds the rows i with
  //    0 <= i + d < n, row ascending, diagonals back to back (HM order).
  const GO r0 = map->getMinGlobalIndex(), m = GO(map->getNodeNumElements());
  std::vector<pdiag::Index> offsets{-1, 0, 1};
  std::vector<double> values;
  for (pdiag::Index d : offsets)
    for (GO i = r0; i < r0 + m; ++i)
      if (i + d >= 0 && i + d < n) values.push_back(d == 0 ? 2.0 : -1.0);
  auto A = Teuchos::rcp(new DM(map, offsets, values));

  // 2. By assembly, as one fills a Tpetra::CrsMatrix.
  auto B = Teuchos::rcp(new DM(map));
  for (GO i = r0; i < r0 + m; ++i) {
    std::vector<GO> cols{i};
    std::vector<double> vals{2.0};
    if (i > 0) cols.push_back(i - 1), vals.push_back(-1.0);
    if (i < n - 1) cols.push_back(i + 1), vals.push_back(-1.0);
    B->insertGlobalValues(i, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
  }
  B->fillComplete();

  // Both are the same operator: ||A x - B x|| = 0.
  MV x(map, 1), ya(map, 1), yb(map, 1);
  x.randomize();
  A->apply(x, ya);
  B->apply(x, yb);
  ya.update(-1.0, yb, 1.0);
  double diff = 0;
  ya.norm2(Teuchos::ArrayView<double>(&diff, 1));

  // Belos CG preconditioned by Ifpack2 Chebyshev built on the DiagMatrix.
  auto prec = Ifpack2::Factory::create<Tpetra::RowMatrix<double, int, GO>>("CHEBYSHEV", A);
  Teuchos::ParameterList pp;
  pp.set("chebyshev: degree", 3);
  prec->setParameters(pp);
  prec->initialize();
  prec->compute();
  auto u = Teuchos::rcp(new MV(map, 1)), b = Teuchos::rcp(new MV(map, 1)), sol = Teuchos::rcp(new MV(map, 1));
  u->randomize();
  A->apply(*u, *b);  // b = A u
  auto problem = Teuchos::rcp(new Belos::LinearProblem<double, MV, OP>(A, sol, b));
  problem->setLeftPrec(prec);
  problem->setProblem();
  auto params = Teuchos::parameterList();
  params->set("Convergence Tolerance", 1e-10);
  params->set("Maximum Iterations", 5000);
  Belos::PseudoBlockCGSolMgr<double, MV, OP> cg(problem, params);
  const bool converged = cg.solve() == Belos::Converged;
  sol->update(-1.0, *u, 1.0);
  double err = 0, un = 0;
  sol->norm2(Teuchos::ArrayView<double>(&err, 1));
  u->norm2(Teuchos::ArrayView<double>(&un, 1));

  // What needs a CrsMatrix (MueLu, overlapping Schwarz) gets a copy.
  auto crs = A->toCrsMatrix();
  const bool ok = diff == 0 && converged && err / un < 1e-6 && crs->getGlobalNumEntries() == Tpetra::global_size_t(3 * n - 2);
  if (comm->getRank() == 0) {
    std::printf("%s\n", A->description().c_str());
    std::printf("||A x - B x|| = %g, CG + Chebyshev: %d iterations, error %.2e, CrsMatrix copy: %zu entries\n", diff,
                cg.getNumIters(), err / un, size_t(crs->getGlobalNumEntries()));
    std::printf("ex_tpetra_diag: %s\n", ok ? "OK" : "FAILED");
  }
  return ok ? 0 : 1;
}
