// pdiag::trilinos::multiply: C = op(A) op(B) for two DiagMatrix operands by
// the kernels' diagonal products (pdiag/product.hpp: the output diagonals
// are the sums of the operands' offsets, computed from the offsets alone;
// the numeric phase streams whole diagonals). The result is a DiagMatrix
// whose reported entries are its nonzero values.
//
// Distribution. op(A) op(B) with both operands as stored (NO_TRANS) works
// on any number of processes: each process brings in the rows of B that
// its rows of A reach (the hull of A's touched columns) as a multivector of
// padded diagonals through one Tpetra::Import, then multiplies locally.
// Transposed operands are read in place by the kernels on one process; on
// several, a transposed operand's rows live on other processes, so it is
// formed first (Tpetra::RowMatrixTransposer on its CrsMatrix copy, then
// back to a DiagMatrix) and the product runs as stored.
#pragma once

#include "pdiag/product.hpp"
#include "pdiag/trilinos/diag_matrix.hpp"

#include <Tpetra_RowMatrixTransposer.hpp>

namespace pdiag {
namespace trilinos {

namespace detail {
// The DiagMatrix of op(A) op(B) for HM blocks: the kernel's symbolic and
// numeric phases, the numeric one writing the nonzero mask (the reported
// entries) as it goes, and the result moved, not copied, into the matrix.
template <class S, class LO, class GO, class N>
Teuchos::RCP<DiagMatrix<S, LO, GO, N>> product_matrix(const Teuchos::RCP<const Tpetra::Map<LO, GO, N>>& rowMap,
                                                      const HmMatrix<S>& A, Trans ta, const HmMatrix<S>& B, Trans tb,
                                                      const Teuchos::RCP<const Tpetra::Map<LO, GO, N>>& domMap) {
  const HmProductPlan plan = hm_product_symbolic(A, ta, B, tb);
  HmMatrix<S> C = hm_product_alloc<S>(plan);
  std::vector<unsigned char> nonzero(static_cast<std::size_t>(C.nstored()));
  hm_product_numeric<S>(plan, A.view(), ta, B.view(), tb, C.view(), nonzero.data());
  return Teuchos::rcp(new DiagMatrix<S, LO, GO, N>(rowMap, std::move(C), std::move(nonzero), domMap));
}
}  // namespace detail

template <class S, class LO, class GO, class N>
Teuchos::RCP<DiagMatrix<S, LO, GO, N>> multiply(const DiagMatrix<S, LO, GO, N>& A, bool transA,
                                               const DiagMatrix<S, LO, GO, N>& B, bool transB) {
  using DM = DiagMatrix<S, LO, GO, N>;
  using map_type = typename DM::map_type;
  using mv_type = typename DM::mv_type;
  const auto comm = A.getComm();
  if (!A.isFillComplete() || !B.isFillComplete())
    throw std::logic_error("pdiag::trilinos::multiply: the operands must be fill complete");
  const auto inner_a = transA ? A.getGlobalNumRows() : A.getGlobalNumCols();
  const auto inner_b = transB ? B.getGlobalNumCols() : B.getGlobalNumRows();
  if (inner_a != inner_b)
    throw std::invalid_argument("pdiag::trilinos::multiply: inner dimensions differ (" + std::to_string(inner_a) + " and " +
                                std::to_string(inner_b) + ")");
  const Trans ta = transA ? Trans::T : Trans::N, tb = transB ? Trans::T : Trans::N;
  const auto rowMap = transA ? A.getDomainMap() : A.getRowMap();
  const auto domMap = transB ? B.getRowMap() : B.getDomainMap();
  if (transA || transB) {
    if (comm->getSize() == 1) return detail::product_matrix(rowMap, A.hm(), ta, B.hm(), tb, domMap);
    // Several processes: a transposed operand's rows live elsewhere; form
    // it (Tpetra's transposer on a CrsMatrix copy) and multiply as stored.
    const auto transposed = [](const DM& X) {
      using crs_type = typename DM::crs_type;
      Tpetra::RowMatrixTransposer<S, LO, GO, N> t(X.toCrsMatrix());
      Teuchos::RCP<const crs_type> T = t.createTranspose();
      // The transposer's row map need not be X's domain map (nor one
      // ascending run per process): redistribute the rows onto it first.
      if (!T->getRowMap()->isSameAs(*X.getDomainMap())) {
        Tpetra::Import<LO, GO, N> imp(T->getRowMap(), X.getDomainMap());
        T = Tpetra::importAndFillCompleteCrsMatrix<crs_type>(T, imp, X.getRowMap(), X.getDomainMap());
      }
      return Teuchos::rcp(new DM(*T));
    };
    const Teuchos::RCP<const DM> At = transA ? Teuchos::RCP<const DM>(transposed(A)) : Teuchos::rcpFromRef(A);
    const Teuchos::RCP<const DM> Bt = transB ? Teuchos::RCP<const DM>(transposed(B)) : Teuchos::rcpFromRef(B);
    return multiply(*At, false, *Bt, false);
  }
  // B's rows [c0, c1) that this process's rows of A reach.
  const auto& touched = A.ghostPlan().touched;
  const Index c0 = touched.empty() ? 0 : touched.front().first, c1 = touched.empty() ? 0 : touched.back().second;
  const Layout& LB = B.hm().layout;
  // Every process holds the rows of B it needs (one process, say): no gather.
  int local = (c0 >= LB.row_begin && c1 <= LB.row_end()) || c0 >= c1 ? 1 : 0, all_local = 0;
  Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_MIN, local, Teuchos::outArg(all_local));
  if (all_local) return detail::product_matrix(rowMap, A.hm(), Trans::N, B.hm(), Trans::N, domMap);
  // B's diagonals on any process (the union), as flags over -(M-1) .. N-1.
  std::vector<int> flag(static_cast<std::size_t>(LB.nrows_global + LB.ncols), 0), all(flag.size(), 0);
  for (Index d : B.hm().offsets)
    if (LB.length(d) > 0) flag[static_cast<std::size_t>(d + LB.nrows_global - 1)] = 1;
  if (!flag.empty())
    Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_MAX, int(flag.size()), flag.data(), all.data());
  std::vector<Index> offsets;
  for (std::size_t s = 0; s < all.size(); ++s)
    if (all[s]) offsets.push_back(Index(s) - (LB.nrows_global - 1));
  const GO base = B.getIndexBase();
  Teuchos::Array<GO> gids;
  for (Index j = c0; j < c1; ++j) gids.push_back(static_cast<GO>(j + base));
  const auto gatherMap = Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(), gids(), base, comm));
  const size_t nd = std::max<size_t>(offsets.size(), 1);  // a multivector needs a column
  mv_type P(B.getRowMap(), nd), W(gatherMap, nd);
  {
    std::vector<Teuchos::ArrayRCP<S>> keep;
    std::vector<S*> cols;
    for (size_t k = 0; k < nd; ++k) {
      keep.push_back(P.getDataNonConst(k));
      cols.push_back(keep.back().getRawPtr());
    }
    hm_to_padded(B.cview(), offsets, cols.data());
  }
  W.doImport(P, Tpetra::Import<LO, GO, N>(B.getRowMap(), gatherMap), Tpetra::INSERT);
  std::vector<Teuchos::ArrayRCP<const S>> keep;
  std::vector<const S*> cols;
  for (size_t k = 0; k < nd; ++k) {
    keep.push_back(W.getData(k));
    cols.push_back(keep.back().getRawPtr());
  }
  const HmMatrix<S> Bloc = hm_from_padded(Layout::block(LB.nrows_global, LB.ncols, c0, c1 - c0), offsets, cols.data());
  return detail::product_matrix(rowMap, A.hm(), Trans::N, Bloc, Trans::N, domMap);
}

}  // namespace trilinos
}  // namespace pdiag
