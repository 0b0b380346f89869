// pdiag::trilinos::DiagMatrix against Tpetra::CrsMatrix on the same entries:
// apply in every mode (alpha, beta, several columns, non-contiguous column
// views, X aliasing Y), every RowMatrix accessor, scaling, conversions, and
// bad input. Run under mpiexec with 1, 2 and 3 processes (process 1 owns no
// rows when there are two or more). Argument: a folder of SuiteSparse .mtx
// files (cases skipped, and said so, when it is missing).
#include "trilinos_testing.hpp"

#include "pdiag/trilinos/multiply.hpp"

#include <MatrixMarket_Tpetra.hpp>
#include <TpetraExt_MatrixMatrix.hpp>

#include <fstream>

using namespace tt;

namespace {

const double kTol = 1e-12;

// Y = beta Y0 + alpha op(A) X for both matrices, every mode, 1 and 3
// columns, a non-contiguous column view, and X aliasing Y when square.
void check_apply(const crs_t& C, const Tpetra::Operator<SC, LO, GO>& D, const std::string& what) {
  const Teuchos::ETransp modes[] = {Teuchos::NO_TRANS, Teuchos::TRANS, Teuchos::CONJ_TRANS};
  const double ab[][2] = {{1, 0}, {1, 1}, {-0.5, 2}, {2, 0}, {0, 3}};
  for (Teuchos::ETransp mode : modes) {
    const bool t = mode != Teuchos::NO_TRANS;
    auto in = t ? C.getRangeMap() : C.getDomainMap(), out = t ? C.getDomainMap() : C.getRangeMap();
    for (size_t nv : {size_t(1), size_t(3)}) {
      mv_t X(in, nv), Y0(out, nv);
      X.randomize();
      Y0.randomize();
      for (const auto& s : ab) {
        mv_t Yc(Y0, Teuchos::Copy), Yd(Y0, Teuchos::Copy);
        C.apply(X, Yc, mode, s[0], s[1]);
        D.apply(X, Yd, mode, s[0], s[1]);
        const double e = rel_diff(Yd, Yc);
        TT_CHECK(e <= kTol, "%s mode %d nv %zu alpha %g beta %g: rel diff %g", what.c_str(), int(mode), nv, s[0], s[1], e);
      }
    }
    // Columns 0 and 2 of a 4-column multivector: stride-free views as Belos
    // passes (DiagMatrix only: CrsMatrix gets them wrong in transpose modes).
    const bool isDiag = dynamic_cast<const DM*>(&D) != nullptr;
    if (!isDiag) continue;
    mv_t X4(in, 4), Y4c(out, 4), Y4d(out, 4);
    X4.randomize();
    Y4c.randomize();
    Y4d.assign(Y4c);
    const size_t cols[] = {0, 2};
    auto Xv = X4.subView(Teuchos::ArrayView<const size_t>(cols, 2));
    auto Yvd = Y4d.subViewNonConst(Teuchos::ArrayView<const size_t>(cols, 2));
    // The reference one column at a time: Tpetra 13.2's CrsMatrix transpose
    // apply reads a non-constant-stride view's whole parent.
    for (size_t c : cols) C.apply(*X4.getVector(c), *Y4c.getVectorNonConst(c), mode, 1.5, 0.5);
    D.apply(*Xv, *Yvd, mode, 1.5, 0.5);
    TT_CHECK(rel_diff(Y4d, Y4c) <= kTol, "%s mode %d: column views differ", what.c_str(), int(mode));
    // X aliasing Y (for the DiagMatrix only: CrsMatrix does not support it in transpose modes)
    if (in->isSameAs(*out)) {
      mv_t Z(in, 2);
      Z.randomize();
      mv_t Zc(Z, Teuchos::Copy), Zd(Z, Teuchos::Copy), Zx(Z, Teuchos::Copy);
      C.apply(Zx, Zc, mode, 1.0, 0.0);
      D.apply(Zd, Zd, mode, 1.0, 0.0);
      TT_CHECK(rel_diff(Zd, Zc) <= kTol, "%s mode %d: X aliasing Y", what.c_str(), int(mode));
      mv_t Wd(Z, Teuchos::Copy), Wc(Z, Teuchos::Copy);
      C.apply(Zx, Wc, mode, 2.0, 1.0);
      D.apply(Wd, Wd, mode, 2.0, 1.0);
      TT_CHECK(rel_diff(Wd, Wc) <= kTol, "%s mode %d: X aliasing Y, beta 1", what.c_str(), int(mode));
    }
  }
}

// Rows as (global column, value) sorted by column.
std::vector<std::pair<GO, SC>> global_row(const Tpetra::RowMatrix<SC, LO, GO>& A, GO row) {
  const size_t n = A.getNumEntriesInGlobalRow(row);
  DM::nonconst_global_inds_host_view_type inds("i", n);
  DM::nonconst_values_host_view_type vals("v", n);
  size_t got = 0;
  A.getGlobalRowCopy(row, inds, vals, got);
  std::vector<std::pair<GO, SC>> r;
  for (size_t p = 0; p < got; ++p) r.push_back({inds(p), vals(p)});
  std::sort(r.begin(), r.end());
  return r;
}

std::vector<std::pair<GO, SC>> local_row_as_global(const Tpetra::RowMatrix<SC, LO, GO>& A, LO row) {
  const size_t n = A.getNumEntriesInLocalRow(row);
  Teuchos::Array<LO> inds(n);
  Teuchos::Array<SC> vals(n);
  size_t got = 0;
  A.getLocalRowCopy(row, inds(), vals(), got);  // the ArrayView (deprecated) accessor
  std::vector<std::pair<GO, SC>> r;
  for (size_t p = 0; p < got; ++p) r.push_back({A.getColMap()->getGlobalElement(inds[p]), vals[p]});
  std::sort(r.begin(), r.end());
  return r;
}

void check_accessors(const crs_t& C, const DM& D, const std::string& what) {
  const char* w = what.c_str();
  TT_CHECK(D.getGlobalNumRows() == C.getGlobalNumRows() && D.getGlobalNumCols() == C.getGlobalNumCols(), "%s: sizes", w);
  TT_CHECK(D.getNodeNumRows() == C.getNodeNumRows(), "%s: local rows", w);
  TT_CHECK(D.getGlobalNumEntries() == C.getGlobalNumEntries(), "%s: global entries %zu vs %zu", w,
           size_t(D.getGlobalNumEntries()), size_t(C.getGlobalNumEntries()));
  TT_CHECK(D.getNodeNumEntries() == C.getNodeNumEntries(), "%s: local entries", w);
  TT_CHECK(D.getGlobalMaxNumRowEntries() == C.getGlobalMaxNumRowEntries(), "%s: global max row", w);
  TT_CHECK(D.getNodeMaxNumRowEntries() == C.getNodeMaxNumRowEntries(), "%s: local max row", w);
  TT_CHECK(D.isFillComplete() && D.hasColMap() && D.isLocallyIndexed() && !D.isGloballyIndexed(), "%s: state", w);
  TT_CHECK(!D.supportsRowViews(), "%s: row views", w);
  TT_CHECK(D.getIndexBase() == C.getIndexBase(), "%s: index base", w);
  TT_CHECK(D.getRowMap()->isSameAs(*C.getRowMap()) && D.getRangeMap()->isSameAs(*C.getRangeMap()) &&
               D.getDomainMap()->isSameAs(*C.getDomainMap()), "%s: maps", w);
  // The column map lists the owned domain GIDs first (Ifpack2's local filter).
  const auto& cm = *D.getColMap();
  const auto& dm = *D.getDomainMap();
  for (size_t p = 0; p < dm.getNodeNumElements(); ++p)
    TT_CHECK(cm.getGlobalElement(LO(p)) == dm.getGlobalElement(LO(p)), "%s: column map order at %zu", w, p);
  for (size_t il = 0; il < C.getNodeNumRows(); ++il) {
    const GO g = C.getRowMap()->getGlobalElement(LO(il));
    TT_CHECK(D.getNumEntriesInLocalRow(LO(il)) == C.getNumEntriesInLocalRow(LO(il)), "%s: count of row %lld", w, (long long)g);
    TT_CHECK(D.getNumEntriesInGlobalRow(g) == C.getNumEntriesInGlobalRow(g), "%s: global count of row %lld", w, (long long)g);
    TT_CHECK(global_row(D, g) == global_row(C, g), "%s: global row %lld", w, (long long)g);
    TT_CHECK(local_row_as_global(D, LO(il)) == local_row_as_global(C, LO(il)), "%s: local row %zu", w, il);
  }
  TT_CHECK(D.getNumEntriesInLocalRow(LO(C.getNodeNumRows())) == Teuchos::OrdinalTraits<size_t>::invalid(), "%s: row past the end", w);
  vec_t dd(D.getRowMap()), dc(C.getRowMap());
  D.getLocalDiagCopy(dd);
  C.getLocalDiagCopy(dc);
  TT_CHECK(rel_diff(dd, dc) <= kTol, "%s: diagonal", w);
  const double fd = D.getFrobeniusNorm(), fc = C.getFrobeniusNorm();
  TT_CHECK(std::abs(fd - fc) <= kTol * fc, "%s: Frobenius %.17g vs %.17g", w, fd, fc);
  // getGraph and toCrsMatrix: the reported entries, the same maps
  auto G = D.getGraph();
  TT_CHECK(G->getGlobalNumEntries() == C.getGlobalNumEntries(), "%s: graph entries", w);
  auto T = D.toCrsMatrix();
  TT_CHECK(T->getGlobalNumEntries() == C.getGlobalNumEntries() && T->getColMap()->isSameAs(*D.getColMap()), "%s: toCrsMatrix", w);
  check_apply(C, *D.toCrsMatrix(), what + " (toCrsMatrix)");
}

void check_scaling(const crs_t& C0, DM& D, const std::string& what) {
  auto C = Teuchos::rcp(new crs_t(C0, Teuchos::Copy));
  vec_t l(C->getRowMap()), r(C->getDomainMap());
  l.randomize();
  r.randomize();
  C->leftScale(l);
  D.leftScale(l);
  C->rightScale(r);
  D.rightScale(r);
  check_apply(*C, D, what + " scaled");
  TT_CHECK(std::abs(D.getFrobeniusNorm() - C->getFrobeniusNorm()) <= kTol * C->getFrobeniusNorm(), "%s: scaled norm", what.c_str());
}

// All three constructors on the same entries, each checked.
void check_all_constructors(const Teuchos::RCP<const map_t>& rows, const Teuchos::RCP<const map_t>& dom, const Entries& e,
                            const std::string& what) {
  auto C = crs_of(rows, dom, e);
  auto Da = diag_of(rows, dom, e);
  check_apply(*C, *Da, what + " assembled");
  check_accessors(*C, *Da, what + " assembled");
  DM Dc(*C);
  check_apply(*C, Dc, what + " from CrsMatrix");
  check_accessors(*C, Dc, what + " from CrsMatrix");
  // (offsets, values): the same local block, built by the kernels' COO conversion.
  const pdiag::HmMatrix<SC>& hm = Da->hm();
  DM Dv(rows, hm.offsets, hm.val, dom);
  check_apply(*C, Dv, what + " from diagonals");
  check_scaling(*C, Dv, what + " from diagonals");
}

// A constant-coefficient stencil large enough for the compressed apply
// (pdiag/compress.hpp) on every process with rows: apply in every mode
// against the CrsMatrix, then again after each way the values change
// (replaceGlobalValues, sumIntoGlobalValues, scaling), which must drop or
// rebuild the compressed form.
void check_compressed(const comm_t& comm) {
  auto rows = uneven_map(600, comm);
  const Entries e = stencil_entries(*rows, 30, 20, 1, 0.3);
  auto C = crs_of(rows, rows, e);
  auto D = diag_of(rows, rows, e);
  const bool has_rows = rows->getNodeNumElements() > 0;
  TT_CHECK(D->usesCompressedApply() == has_rows, "stencil: compressed apply %d on a process with %zu rows",
           int(D->usesCompressedApply()), rows->getNodeNumElements());
  check_apply(*C, *D, "compressed stencil");
  D->allowCompressedApply(false);
  TT_CHECK(!D->usesCompressedApply(), "stencil: compressed apply used when not allowed");
  check_apply(*C, *D, "stencil, compressed apply not allowed");
  D->allowCompressedApply(true);
  // One changed entry per process (an exception of the constant diagonal).
  C->resumeFill();
  for (size_t il = 0; il < rows->getNodeNumElements(); il += 97) {
    const GO g = rows->getGlobalElement(LO(il)), col = g;
    const SC v = 4.5 + double(il), dv = 0.25;
    TT_CHECK(C->replaceGlobalValues(g, 1, &v, &col) == 1 && D->replaceGlobalValues(g, Teuchos::tuple(col), Teuchos::tuple(v)) == 1,
             "replaceGlobalValues on row %lld", (long long)g);
    TT_CHECK(C->sumIntoGlobalValues(g, 1, &dv, &col) == 1 && D->sumIntoGlobalValues(g, Teuchos::tuple(col), Teuchos::tuple(dv)) == 1,
             "sumIntoGlobalValues on row %lld", (long long)g);
  }
  C->fillComplete();
  TT_CHECK(D->usesCompressedApply() == has_rows, "stencil with exceptions: compressed apply %d", int(D->usesCompressedApply()));
  check_apply(*C, *D, "compressed stencil, changed entries");
  check_scaling(*C, *D, "compressed stencil");  // random scaling: no constant diagonals left
  TT_CHECK(!D->usesCompressedApply(), "randomly scaled stencil still uses the compressed apply");
}

template <class E>
bool throws(const std::function<void()>& f) {
  try {
    f();
  } catch (const E&) {
    return true;
  }
  return false;
}

void check_bad_input(const comm_t& comm) {
  auto rows = uneven_map(20, comm);
  const int r = comm->getRank();
  // Non-contiguous row map (every process: GIDs of stride size)
  Teuchos::Array<GO> g;
  for (GO i = r; i < 20; i += comm->getSize()) g.push_back(i);
  auto strided = Teuchos::rcp(new map_t(20, g(), 0, comm));
  if (comm->getSize() > 1) TT_CHECK(throws<std::invalid_argument>([&] { DM A(strided); }), "non-contiguous map accepted");
  // values of the wrong length on one process only: every process throws
  std::vector<pdiag::Index> offs{-1, 0, 1};
  std::vector<SC> vals(r == 0 ? 3 : 3 * rows->getNodeNumElements() + 5, 1.0);
  TT_CHECK(throws<std::invalid_argument>([&] { DM A(rows, offs, vals); }), "values of the wrong length accepted");
  std::vector<pdiag::Index> unsorted{1, 0};
  TT_CHECK(throws<std::invalid_argument>([&] { DM A(rows, unsorted, std::vector<SC>()); }), "unsorted offsets accepted");
  std::vector<pdiag::Index> outside{25};
  TT_CHECK(throws<std::invalid_argument>([&] { DM A(rows, outside, std::vector<SC>()); }), "offset outside accepted");
  DM A(rows);
  const GO notmine = 100;  // in no process's rows
  const GO cols[] = {0};
  const SC v[] = {1.0};
  TT_CHECK(throws<std::invalid_argument>([&] { A.insertGlobalValues(notmine, 1, v, cols); }), "non-owned row accepted");
  if (rows->getNodeNumElements()) {
    const GO bad[] = {20};
    TT_CHECK(throws<std::invalid_argument>([&] { A.insertGlobalValues(rows->getMinGlobalIndex(), 1, v, bad); }),
             "column out of range accepted");
    A.insertGlobalValues(rows->getMinGlobalIndex(), 1, v, cols);
  }
  TT_CHECK(throws<std::logic_error>([&] {
             mv_t X(rows, 1), Y(rows, 1);
             A.apply(X, Y);
           }), "apply before fillComplete accepted");
  A.fillComplete();
  TT_CHECK(throws<std::invalid_argument>([&] { A.fillComplete(); }), "second fillComplete accepted");
  TT_CHECK(throws<std::logic_error>([&] { A.insertGlobalValues(rows->getMinGlobalIndex(), 1, v, cols); }), "insert after fill accepted");
  // After fillComplete: sumInto/replace change reported entries only.
  if (rows->getNodeNumElements()) {
    const GO i0 = rows->getMinGlobalIndex();
    const GO two[] = {0, i0 == 0 ? 1 : i0};  // (i0, 0) was inserted; the other was not
    const SC add[] = {2.0, 5.0};
    TT_CHECK(A.sumIntoGlobalValues(i0, Teuchos::ArrayView<const GO>(two, 2), Teuchos::ArrayView<const SC>(add, 2)) == 1,
             "sumInto after fill: wrong count");
    TT_CHECK(global_row(A, i0) == (std::vector<std::pair<GO, SC>>{{0, 3.0}}), "sumInto after fill: wrong row");
    const SC rep[] = {-4.0};
    TT_CHECK(A.replaceGlobalValues(i0, Teuchos::ArrayView<const GO>(two, 1), Teuchos::ArrayView<const SC>(rep, 1)) == 1,
             "replace after fill: wrong count");
    TT_CHECK(global_row(A, i0) == (std::vector<std::pair<GO, SC>>{{0, -4.0}}), "replace after fill: wrong row");
    TT_CHECK(throws<std::invalid_argument>([&] { A.sumIntoGlobalValues(notmine, Teuchos::ArrayView<const GO>(two, 1), Teuchos::ArrayView<const SC>(rep, 1)); }),
             "sumInto on a row not owned accepted");
  }
  auto other = Teuchos::rcp(new map_t(21, 0, comm));
  TT_CHECK(throws<std::invalid_argument>([&] {
             mv_t X(other, 1), Y(rows, 1);
             A.apply(X, Y);
           }), "apply with a mismatched map accepted");
  TT_CHECK(throws<std::invalid_argument>([&] {
             mv_t X(rows, 2), Y(rows, 1);
             A.apply(X, Y);
           }), "apply with different column counts accepted");
  TT_CHECK(throws<std::runtime_error>([&] {
             DM::local_inds_host_view_type i;
             DM::values_host_view_type x;
             A.getLocalRowView(0, i, x);
           }), "row view given");
  if (rows->getNodeNumElements()) {
    Teuchos::Array<LO> small(0);
    Teuchos::Array<SC> smallv(0);
    size_t n = 0;
    TT_CHECK(throws<std::runtime_error>([&] { A.getLocalRowCopy(0, small(), smallv(), n); }), "short row arrays accepted");
  }
  // A CrsMatrix with a non-contiguous row map
  crs_t S(strided, 1);
  for (GO i : g) S.insertGlobalValues(i, Teuchos::tuple<GO>(i), Teuchos::tuple<SC>(1.0));
  S.fillComplete();
  if (comm->getSize() > 1) TT_CHECK(throws<std::invalid_argument>([&] { DM B(S); }), "CrsMatrix with a strided map accepted");
}

void check_suitesparse(const comm_t& comm, const std::string& dir, const std::string& name) {
  const std::string file = dir + "/" + name;
  int exists = std::ifstream(file).good() ? 1 : 0;
  Teuchos::broadcast(*comm, 0, Teuchos::outArg(exists));
  if (!exists) {
    if (comm->getRank() == 0) std::printf("skipped %s (not found in %s)\n", name.c_str(), dir.c_str());
    return;
  }
  auto C = Tpetra::MatrixMarket::Reader<crs_t>::readSparseFile(file, comm);
  DM D(*C);
  check_apply(*C, D, name);
  check_accessors(*C, D, name);
}

// C = op(A) op(B) by pdiag::trilinos::multiply against
// Tpetra::MatrixMatrix::Multiply on CrsMatrix copies: the same operator
// (apply in both modes) and the same Frobenius norm.
void check_product(const comm_t& comm, GO m, GO k, GO n, bool ta, bool tb, const std::string& what) {
  // op(A) is m x k, op(B) is k x n; the inner dimension has one map (with
  // an empty process) on both sides: Tpetra 13.2's Multiply crashes on 3
  // processes when A's domain map and B's row map are distributed differently.
  const Teuchos::RCP<const map_t> inner = uneven_map(k, comm);
  Teuchos::RCP<const map_t> mapA_r = ta ? inner : uneven_map(m, comm), mapA_d = ta ? uneven_map(m, comm) : inner;
  const Teuchos::RCP<const map_t> outer = Teuchos::rcp(new map_t(n, 0, comm));
  Teuchos::RCP<const map_t> mapB_r = tb ? outer : inner, mapB_d = tb ? inner : outer;
  const Entries ea = random_entries(*mapA_r, GO(mapA_d->getGlobalNumElements()), 6, 9, 21);
  const Entries eb = random_entries(*mapB_r, GO(mapB_d->getGlobalNumElements()), 5, 7, 22);
  auto Ac = crs_of(mapA_r, mapA_d, ea), Bc = crs_of(mapB_r, mapB_d, eb);
  auto Ad = diag_of(mapA_r, mapA_d, ea), Bd = diag_of(mapB_r, mapB_d, eb);
  auto Cd = pdiag::trilinos::multiply(*Ad, ta, *Bd, tb);
  auto Cc = Teuchos::rcp(new crs_t(ta ? Ac->getDomainMap() : Ac->getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(*Ac, ta, *Bc, tb, *Cc);
  TT_CHECK(Cd->getGlobalNumRows() == Cc->getGlobalNumRows() && Cd->getGlobalNumCols() == Cc->getGlobalNumCols(),
           "%s: product sizes", what.c_str());
  check_apply(*Cc, *Cd, what);
  // The reported entries (the nonzero mask the kernel wrote with the
  // values): random values do not cancel, so they are Tpetra's pattern.
  check_accessors(*Cc, *Cd, what);
}

void check_products(const comm_t& comm) {
  check_product(comm, 40, 40, 40, false, false, "product NN square");
  check_product(comm, 30, 45, 25, false, false, "product NN rectangular");
  {  // stencil squared (the biharmonic-like product)
    auto rows = uneven_map(48, comm);
    const Entries e = stencil_entries(*rows, 8, 6, 1, 0.2);
    auto Ac = crs_of(rows, rows, e);
    auto Ad = diag_of(rows, rows, e);
    auto Cd = pdiag::trilinos::multiply(*Ad, false, *Ad, false);
    auto Cc = Teuchos::rcp(new crs_t(rows, 0));
    Tpetra::MatrixMatrix::Multiply(*Ac, false, *Ac, false, *Cc);
    check_apply(*Cc, *Cd, "product stencil^2");
  }
  check_product(comm, 30, 45, 25, true, false, "product TN");
  check_product(comm, 30, 45, 25, false, true, "product NT");
  check_product(comm, 30, 45, 25, true, true, "product TT");
  {  // a block with a reported mask: wrong size or bytes other than 0/1 on one process
    auto rows = uneven_map(16, comm);
    const Entries e = random_entries(*rows, 16, 3, 4, 5);
    const auto D0 = diag_of(rows, rows, e);
    const pdiag::HmMatrix<SC>& hm = D0->hm();
    for (const int bad : {0, 1}) {
      pdiag::HmMatrix<SC> block = hm;
      std::vector<unsigned char> mask(block.val.size(), 1);
      const bool here = comm->getRank() == comm->getSize() - 1 && !mask.empty();
      if (here && bad == 0) mask.pop_back();
      if (here && bad == 1) mask.back() = 2;
      int any_local = here ? 1 : 0, any_global = 0;
      Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_MAX, any_local, Teuchos::outArg(any_global));
      if (!any_global) continue;  // the last process owns no rows: nothing to spoil
      TT_CHECK(throws<std::invalid_argument>([&] { DM D(rows, std::move(block), std::move(mask), rows); }),
               "block with a bad reported mask (%s) accepted", bad ? "byte 2" : "short");
    }
    pdiag::HmMatrix<SC> block = hm;
    std::vector<unsigned char> mask(block.val.size(), 1);
    DM D(rows, std::move(block), std::move(mask), rows);
    TT_CHECK(D.getNodeNumEntries() == size_t(hm.nstored()), "block with an all-ones mask: %zu entries, %ld stored",
             D.getNodeNumEntries(), long(hm.nstored()));
  }
  auto r1 = uneven_map(10, comm), r2 = uneven_map(12, comm);
  auto A = diag_of(r1, r1, random_entries(*r1, 10, 3, 3, 1));
  auto B = diag_of(r2, r2, random_entries(*r2, 12, 3, 3, 1));
  TT_CHECK(throws<std::invalid_argument>([&] { pdiag::trilinos::multiply(*A, false, *B, false); }),
           "product with mismatched inner dimensions accepted");
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const std::string dir = argc > 1 ? argv[1] : "";
  run_case(comm, "random square", [&] {
    auto rows = uneven_map(61, comm);
    check_all_constructors(rows, rows, random_entries(*rows, 61, 7, 20, 1), "random square");
  });
  run_case(comm, "random square, row map from a list of GIDs (one run per process)", [&] {
    auto even = uneven_map(45, comm);
    Teuchos::Array<GO> gids;
    for (size_t il = 0; il < even->getNodeNumElements(); ++il) gids.push_back(even->getGlobalElement(LO(il)));
    Teuchos::RCP<const map_t> rows = Teuchos::rcp(new map_t(45, gids(), 0, comm));
    check_all_constructors(rows, rows, random_entries(*rows, 45, 6, 15, 5), "list map");
  });
  run_case(comm, "random square, other domain map", [&] {
    auto rows = uneven_map(40, comm);
    auto dom = Teuchos::rcp(new map_t(40, 0, comm));
    check_all_constructors(rows, dom, random_entries(*rows, 40, 5, 39, 2), "random other domain");
  });
  run_case(comm, "random rectangular 37 x 53", [&] {
    auto rows = uneven_map(37, comm);
    auto dom = Teuchos::rcp(new map_t(53, 0, comm));
    check_all_constructors(rows, dom, random_entries(*rows, 53, 6, 30, 3), "rectangular");
  });
  run_case(comm, "random rectangular 53 x 29", [&] {
    auto rows = uneven_map(53, comm);
    auto dom = Teuchos::rcp(new map_t(29, 0, comm));
    check_all_constructors(rows, dom, random_entries(*rows, 29, 6, 20, 4), "rectangular tall");
  });
  run_case(comm, "2D 5-point 9 x 7 (stored zeros not reported)", [&] {
    auto rows = uneven_map(63, comm);
    check_all_constructors(rows, rows, stencil_entries(*rows, 9, 7, 1, 0.3), "2D stencil");
  });
  run_case(comm, "3D 7-point 5 x 4 x 6", [&] {
    auto rows = uneven_map(120, comm);
    check_all_constructors(rows, rows, stencil_entries(*rows, 5, 4, 6), "3D stencil");
  });
  run_case(comm, "index base 1, 1D convection-diffusion", [&] {
    auto even = uneven_map(33, comm);  // the same split, GIDs 1..33
    auto rows = Teuchos::rcp(new map_t(33, even->getNodeNumElements(), 1, comm));
    Entries e;
    for (size_t il = 0; il < rows->getNodeNumElements(); ++il) {
      const GO i = rows->getGlobalElement(LO(il));
      e.add(i, i, 2.5);
      if (i > 1) e.add(i, i - 1, -1.2);
      if (i < 33) e.add(i, i + 1, -0.8);
      if (i + 7 <= 33) e.add(i, i + 7, 0.1 * double(i));
    }
    check_all_constructors(rows, rows, e, "index base 1");
  });
  run_case(comm, "2D 5-point 30 x 20, compressed apply", [&] { check_compressed(comm); });
  run_case(comm, "bad input", [&] { check_bad_input(comm); });
  run_case(comm, "products vs Tpetra::MatrixMatrix::Multiply", [&] { check_products(comm); });
  if (!dir.empty()) {
    run_case(comm, "SuiteSparse Trefethen_2000", [&] { check_suitesparse(comm, dir, "Trefethen_2000.mtx"); });
    run_case(comm, "SuiteSparse 1138_bus", [&] { check_suitesparse(comm, dir, "1138_bus.mtx"); });
  }
  return finish(comm);
}
