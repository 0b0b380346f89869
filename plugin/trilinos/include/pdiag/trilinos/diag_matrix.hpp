// pdiag::trilinos::DiagMatrix: a Tpetra::RowMatrix whose local rows are
// stored by diagonals (HM, kernels/include/pdiag/format.hpp), for Belos,
// Ifpack2 and anything else that takes a Tpetra::RowMatrix or Operator.
// Header-only; every loop over matrix entries is a kernel of kernels/
// (cpu.hpp, ops.hpp, convert.hpp, distributed.hpp): this file moves data
// between Tpetra objects and those kernels. See docs/trilinos.md.
//
// Distribution. The row map and the domain map must be contiguous (each
// process's GIDs one ascending run) and uniquely owned (Tpetra's default
// maps are); global row i and column j are
// GID - indexBase, and diagonal d holds the entries with j - i = d. The
// range map is the row map. Each process stores its rows [r0, r0 + m) on
// the diagonals those rows have. apply reads owned columns of X in place
// for the rows that need no other column (the interior) and the rest from
// a compact ghost vector filled by a Tpetra::Import built once; the
// transpose writes a compact vector over every column the rows reach and
// adds it into Y with the reverse Tpetra::Export. Kokkos Serial only has
// been tested (Debian's Trilinos 13.2): values are read through host
// pointers of the multivectors' columns.
//
// Reported entries. A diagonal stores a value for each of its rows, so
// positions the caller never gave (a 5-point stencil's +-1 diagonals at the
// grid's row ends, say) are stored zeros. Row copies, entry counts,
// getGraph and toCrsMatrix report only the entries the caller gave
// (inserted, in the CrsMatrix it was built from, or nonzero in the values of
// the diagonal constructor), like a CrsMatrix of the same input; stored
// zeros are left out. The reported pattern is fixed at fillComplete or
// construction: scaling an entry to zero does not remove it, as with a
// CrsMatrix's graph.
#pragma once

#include "pdiag/compress.hpp"
#include "pdiag/convert.hpp"
#include "pdiag/cpu.hpp"
#include "pdiag/distributed.hpp"
#include "pdiag/ops.hpp"

#include <Teuchos_CommHelpers.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Export.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_RowMatrix.hpp>
#include <Tpetra_Vector.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace pdiag {
namespace trilinos {

/// Throws std::invalid_argument with msg on every process of comm when
/// local_ok is false on any of them (collective), so that a bad input on
/// one process never leaves the others waiting in a later collective step.
inline void check_all(const Teuchos::Comm<int>& comm, bool local_ok, const std::string& msg) {
  int ok = local_ok ? 1 : 0, all_ok = 1;
  Teuchos::reduceAll<int, int>(comm, Teuchos::REDUCE_MIN, ok, Teuchos::outArg(all_ok));
  if (!all_ok)
    throw std::invalid_argument("pdiag::trilinos::DiagMatrix: " +
                                (local_ok ? std::string("bad input on another process") : msg));
}

template <class Scalar = Tpetra::RowMatrix<>::scalar_type, class LO = Tpetra::RowMatrix<>::local_ordinal_type,
          class GO = Tpetra::RowMatrix<>::global_ordinal_type, class Node = Tpetra::RowMatrix<>::node_type>
class DiagMatrix : public Tpetra::RowMatrix<Scalar, LO, GO, Node> {
 public:
  using base_type = Tpetra::RowMatrix<Scalar, LO, GO, Node>;
  using scalar_type = Scalar;
  using local_ordinal_type = LO;
  using global_ordinal_type = GO;
  using node_type = Node;
  using mag_type = typename base_type::mag_type;
  using map_type = Tpetra::Map<LO, GO, Node>;
  using mv_type = Tpetra::MultiVector<Scalar, LO, GO, Node>;
  using vec_type = Tpetra::Vector<Scalar, LO, GO, Node>;
  using crs_type = Tpetra::CrsMatrix<Scalar, LO, GO, Node>;
  using graph_type = Tpetra::CrsGraph<LO, GO, Node>;
  using import_type = Tpetra::Import<LO, GO, Node>;
  using export_type = Tpetra::Export<LO, GO, Node>;
  using hm_type = HmMatrix<Scalar>;
  using typename base_type::global_inds_host_view_type;
  using typename base_type::local_inds_host_view_type;
  using typename base_type::nonconst_global_inds_host_view_type;
  using typename base_type::nonconst_local_inds_host_view_type;
  using typename base_type::nonconst_values_host_view_type;
  using typename base_type::values_host_view_type;

  /// The local rows of the row map on the diagonals `offsets` (strictly
  /// ascending, global offsets j - i), values in HM order: diagonal k's
  /// entries for its rows in this block, row ascending, back to back
  /// (pdiag::HmMatrix::val; docs/kernels.md). Nonzero values are the
  /// reported entries. domainMap defaults to the row map (square matrix).
  /// Collective; bad input throws std::invalid_argument on every process.
  DiagMatrix(const Teuchos::RCP<const map_type>& rowMap, const std::vector<Index>& offsets,
             const std::vector<Scalar>& values, const Teuchos::RCP<const map_type>& domainMap = Teuchos::null)
      : DiagMatrix(rowMap, domainMap) {
    std::string msg;
    bool ok = std::is_sorted(offsets.begin(), offsets.end()) &&
              std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end();
    if (!ok) msg = "offsets must be strictly ascending";
    if (ok) try {
        hm_type A = hm_type::structure_only(layout_, offsets);  // values copied below, not zeroed first
        if (static_cast<Index>(values.size()) != A.nstored()) {
          ok = false;
          msg = "values has " + std::to_string(values.size()) + " entries, the diagonals hold " +
                std::to_string(A.nstored()) + " in this process's rows";
        } else {
          A.val = values;
          hm_ = std::move(A);
          mask_ = hm_entry_mask(hm_, [](Index, Index, const Scalar& v) { return v != Scalar(0); });
        }
      } catch (const FormatError& e) {
        ok = false;
        msg = e.what();
      }
    check_all(*comm_, ok, msg);
    setUp();
  }

  /// Takes over an HM block of this process's rows (layout: the row map's
  /// rows of a global-rows x domain-map-columns matrix, e.g. a kernel
  /// product's result); nonzero values are the reported entries. Collective.
  DiagMatrix(const Teuchos::RCP<const map_type>& rowMap, hm_type&& block,
             const Teuchos::RCP<const map_type>& domainMap = Teuchos::null)
      : DiagMatrix(rowMap, domainMap) {
    const bool ok = block.layout == layout_ && static_cast<Index>(block.val.size()) == block.nstored();
    check_all(*comm_, ok, "the block's layout or size does not match the row and domain maps");
    hm_ = std::move(block);
    mask_ = hm_entry_mask(hm_, [](Index, Index, const Scalar& v) { return v != Scalar(0); });
    setUp();
  }

  /// Takes over an HM block and its reported pattern: reported[p] = 1 for
  /// the stored positions to report, 0 for stored zeros (block.nstored()
  /// bytes, each 0 or 1), e.g. a kernel product's result and the nonzero
  /// mask hm_product_numeric wrote with it. Collective.
  DiagMatrix(const Teuchos::RCP<const map_type>& rowMap, hm_type&& block, std::vector<unsigned char>&& reported,
             const Teuchos::RCP<const map_type>& domainMap = Teuchos::null)
      : DiagMatrix(rowMap, domainMap) {
    const bool ok = block.layout == layout_ && static_cast<Index>(block.val.size()) == block.nstored() &&
                    static_cast<Index>(reported.size()) == block.nstored();
    check_all(*comm_, ok, "the block's layout or size, or the reported mask's size, does not match the row and domain maps");
    hm_ = std::move(block);
    mask_ = std::move(reported);
    setUp();
  }

  /// A copy of a fill-complete CrsMatrix whose range map is its row map
  /// (both contiguous); its entries (explicit zeros too) are reported.
  explicit DiagMatrix(const crs_type& A) : DiagMatrix(A.getRowMap(), A.getDomainMap()) {
    if (!A.isFillComplete()) throw std::invalid_argument("pdiag::trilinos::DiagMatrix: the CrsMatrix is not fill complete");
    if (!A.getRangeMap()->isSameAs(*rowMap_))
      throw std::invalid_argument("pdiag::trilinos::DiagMatrix: the CrsMatrix's range map is not its row map");
    const map_type& colMap = *A.getColMap();
    for (size_t il = 0; il < A.getNodeNumRows(); ++il) {
      local_inds_host_view_type inds;
      values_host_view_type vals;
      A.getLocalRowView(static_cast<LO>(il), inds, vals);
      for (size_t p = 0; p < inds.extent(0); ++p) {
        coo_rows_.push_back(layout_.row_begin + static_cast<Index>(il));
        coo_cols_.push_back(static_cast<Index>(colMap.getGlobalElement(inds(p)) - indexBase_));
        coo_vals_.push_back(vals(p));
      }
    }
    fillComplete();
  }

  /// An empty matrix to assemble: insertGlobalValues / sumIntoGlobalValues
  /// on owned rows, then fillComplete(). Collective.
  explicit DiagMatrix(const Teuchos::RCP<const map_type>& rowMap,
                      const Teuchos::RCP<const map_type>& domainMap = Teuchos::null)
      : rowMap_(rowMap), domainMap_(domainMap.is_null() ? rowMap : domainMap) {
    if (rowMap_.is_null()) throw std::invalid_argument("pdiag::trilinos::DiagMatrix: null row map");
    comm_ = rowMap_->getComm();
    const bool oneToOne = rowMap_->isOneToOne() && domainMap_->isOneToOne();  // collective
    check_all(*comm_, consecutive(*rowMap_) && consecutive(*domainMap_) && oneToOne,
              "the row and domain maps must be contiguous (each process's GIDs one ascending run) and uniquely owned");
    if (rowMap_->getIndexBase() != domainMap_->getIndexBase())
      throw std::invalid_argument("pdiag::trilinos::DiagMatrix: the row and domain maps have different index bases");
    indexBase_ = rowMap_->getIndexBase();
    const Index m = static_cast<Index>(rowMap_->getNodeNumElements());
    layout_ = Layout::block(static_cast<Index>(rowMap_->getGlobalNumElements()),
                            static_cast<Index>(domainMap_->getGlobalNumElements()),
                            m ? static_cast<Index>(rowMap_->getMinGlobalIndex() - indexBase_) : 0, m);
    const Index n = static_cast<Index>(domainMap_->getNodeNumElements());
    c0_ = n ? static_cast<Index>(domainMap_->getMinGlobalIndex() - indexBase_) : 0;
    c1_ = c0_ + n;
  }

  // ---- assembly ---------------------------------------------------------------

  /// Adds entries to an owned global row before fillComplete (duplicates are
  /// summed, as Tpetra::CrsMatrix does). Throws std::invalid_argument for a
  /// row not owned here, a column outside the domain map's range, or sizes
  /// that differ; std::logic_error after fillComplete.
  void insertGlobalValues(GO row, const Teuchos::ArrayView<const GO>& cols, const Teuchos::ArrayView<const Scalar>& vals) {
    if (fillComplete_) throw std::logic_error("pdiag::trilinos::DiagMatrix::insertGlobalValues: the matrix is fill complete");
    if (cols.size() != vals.size()) throw std::invalid_argument("pdiag::trilinos::DiagMatrix::insertGlobalValues: cols and vals differ in length");
    const Index i = checkedRow(row, "insertGlobalValues");
    for (Teuchos_Ordinal p = 0; p < cols.size(); ++p) {
      coo_rows_.push_back(i);
      coo_cols_.push_back(checkedCol(cols[p], "insertGlobalValues"));
      coo_vals_.push_back(vals[p]);
    }
  }
  void insertGlobalValues(GO row, LO n, const Scalar vals[], const GO cols[]) {
    insertGlobalValues(row, Teuchos::ArrayView<const GO>(cols, n), Teuchos::ArrayView<const Scalar>(vals, n));
  }

  /// Before fillComplete: as insertGlobalValues. After: adds to reported
  /// entries of an owned row; others are skipped, as CrsMatrix skips entries
  /// outside its graph. Returns the number of entries changed.
  LO sumIntoGlobalValues(GO row, const Teuchos::ArrayView<const GO>& cols, const Teuchos::ArrayView<const Scalar>& vals) {
    if (!fillComplete_) {
      insertGlobalValues(row, cols, vals);
      return static_cast<LO>(cols.size());
    }
    return changeValues(row, cols, vals, true);
  }
  /// After fillComplete: overwrites reported entries of an owned row.
  LO replaceGlobalValues(GO row, const Teuchos::ArrayView<const GO>& cols, const Teuchos::ArrayView<const Scalar>& vals) {
    if (!fillComplete_) throw std::logic_error("pdiag::trilinos::DiagMatrix::replaceGlobalValues: call fillComplete first");
    return changeValues(row, cols, vals, false);
  }

  /// Builds the diagonals from the inserted entries and the communication
  /// plan. Collective.
  void fillComplete() {
    check_all(*comm_, !fillComplete_, "fillComplete called twice");
    std::string msg;
    bool ok = true;
    try {
      const Index nnz = static_cast<Index>(coo_rows_.size());
      hm_ = hm_from_coo<Scalar>(layout_, nnz, coo_rows_.data(), coo_cols_.data(), coo_vals_.data());
      mask_ = hm_mask_of_coo(hm_, nnz, coo_rows_.data(), coo_cols_.data());
    } catch (const FormatError& e) {
      ok = false;
      msg = e.what();
    }
    check_all(*comm_, ok, msg);
    std::vector<Index>().swap(coo_rows_);
    std::vector<Index>().swap(coo_cols_);
    std::vector<Scalar>().swap(coo_vals_);
    setUp();
  }

  // ---- the diagonals ----------------------------------------------------------

  /// The local block (global row and column indices GID - indexBase).
  const hm_type& hm() const { return hm_; }
  /// The same block read-only (kernels that take HmView<const T> deduce T from it).
  HmView<const Scalar> cview() const { return hm_.view(); }
  /// The reported pattern: 1 per stored position the caller gave.
  const std::vector<unsigned char>& reportedMask() const { return mask_; }

  /// A Tpetra::CrsMatrix with the reported entries, the same row, column,
  /// domain and range maps. Collective.
  Teuchos::RCP<crs_type> toCrsMatrix() const {
    requireFill("toCrsMatrix");
    const Index m = layout_.nrows;
    Teuchos::Array<size_t> counts(m);
    for (Index il = 0; il < m; ++il) counts[il] = static_cast<size_t>(rowCounts_[il]);
    auto C = Teuchos::rcp(new crs_type(rowMap_, colMap_, counts()));
    std::vector<LO> inds;
    std::vector<Scalar> vals;
    for (Index il = 0; il < m; ++il) {
      localRow(il, inds, vals);
      C->insertLocalValues(static_cast<LO>(il), Teuchos::ArrayView<const LO>(inds.data(), inds.size()),
                           Teuchos::ArrayView<const Scalar>(vals.data(), vals.size()));
    }
    C->fillComplete(domainMap_, rowMap_);
    return C;
  }

  // ---- Operator ---------------------------------------------------------------

  Teuchos::RCP<const map_type> getDomainMap() const override { return domainMap_; }
  Teuchos::RCP<const map_type> getRangeMap() const override { return rowMap_; }
  bool hasTransposeApply() const override { return true; }

  /// Y = beta Y + alpha op(A) X, op(A) = A, A^T or A^H; X may alias Y.
  /// Collective.
  void apply(const mv_type& X, mv_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             Scalar alpha = Teuchos::ScalarTraits<Scalar>::one(),
             Scalar beta = Teuchos::ScalarTraits<Scalar>::zero()) const override {
    requireFill("apply");
    const bool trans = mode != Teuchos::NO_TRANS;
    if (mode == Teuchos::CONJ_TRANS && Teuchos::ScalarTraits<Scalar>::isComplex)
      throw std::logic_error("pdiag::trilinos::DiagMatrix::apply: CONJ_TRANS with complex scalars is not implemented");
    const map_type& in = trans ? *rowMap_ : *domainMap_;
    const map_type& out = trans ? *domainMap_ : *rowMap_;
    if (X.getNumVectors() != Y.getNumVectors())
      throw std::invalid_argument("pdiag::trilinos::DiagMatrix::apply: X has " + std::to_string(X.getNumVectors()) +
                                  " columns, Y " + std::to_string(Y.getNumVectors()));
    if (X.getGlobalLength() != in.getGlobalNumElements() || X.getLocalLength() != in.getNodeNumElements() ||
        Y.getGlobalLength() != out.getGlobalNumElements() || Y.getLocalLength() != out.getNodeNumElements())
      throw std::invalid_argument(std::string("pdiag::trilinos::DiagMatrix::apply: X or Y does not match the ") +
                                  (trans ? "range and domain maps (transpose)" : "domain and range maps"));
    const Scalar zero = Teuchos::ScalarTraits<Scalar>::zero(), one = Teuchos::ScalarTraits<Scalar>::one();
    if (alpha == zero) {  // no product; beta == 0 overwrites (NaN in Y included)
      if (beta == zero) Y.putScalar(zero);
      else if (beta != one) Y.scale(beta);
      return;
    }
    // X aliasing Y: read a copy of X.
    Teuchos::RCP<const mv_type> Xp = Teuchos::rcpFromRef(X);
    if (aliases(X, Y)) Xp = Teuchos::rcp(new mv_type(X, Teuchos::Copy));
    if (!trans) {  // Y = beta Y + alpha A X in the kernels' one pass over Y
      applyForward(*Xp, Y, alpha, beta);
      return;
    }
    const bool direct = alpha == one && beta == zero;
    Teuchos::RCP<mv_type> T = Teuchos::rcpFromRef(Y);
    if (!direct) T = workVectors(tmp_, domainMap_, X.getNumVectors());
    applyTranspose(*Xp, *T);
    if (!direct) Y.update(alpha, *T, beta);
  }

  /// Whether apply (NO_TRANS) runs on the compressed form of the diagonals
  /// (pdiag/compress.hpp: a diagonal constant but for few entries, as a
  /// constant-coefficient stencil's are, is stored as one value and its
  /// exceptions, so the product reads little more than the vectors). Chosen
  /// when it takes at most half the bytes of the values; recomputed after the
  /// values change. Local to each process.
  bool usesCompressedApply() const {
    refreshCompressed();
    return compUsed_;
  }
  /// allow = false: apply always reads the stored values (and the
  /// compressed form is dropped); true (the default): as above. Local.
  void allowCompressedApply(bool allow) {
    compAllowed_ = allow;
    compStale_ = true;
    refreshCompressed();
  }

  // ---- RowMatrix ----------------------------------------------------------------

  Teuchos::RCP<const Teuchos::Comm<int>> getComm() const override { return comm_; }
  Teuchos::RCP<const map_type> getRowMap() const override { return rowMap_; }
  Teuchos::RCP<const map_type> getColMap() const override { return colMap_; }
  /// A CrsGraph of the reported entries, built on the first call (collective then).
  Teuchos::RCP<const Tpetra::RowGraph<LO, GO, Node>> getGraph() const override {
    requireFill("getGraph");
    if (graph_.is_null()) graph_ = toCrsMatrix()->getCrsGraph();
    return graph_;
  }
  Tpetra::global_size_t getGlobalNumRows() const override { return rowMap_->getGlobalNumElements(); }
  Tpetra::global_size_t getGlobalNumCols() const override { return domainMap_->getGlobalNumElements(); }
  size_t getNodeNumRows() const override { return rowMap_->getNodeNumElements(); }
  size_t getNodeNumCols() const override { return colMap_.is_null() ? 0 : colMap_->getNodeNumElements(); }
  GO getIndexBase() const override { return indexBase_; }
  Tpetra::global_size_t getGlobalNumEntries() const override { return globalEntries_; }
  size_t getNodeNumEntries() const override { return localEntries_; }
  size_t getNumEntriesInGlobalRow(GO row) const override {
    const LO il = rowMap_->getLocalElement(row);
    return il == Teuchos::OrdinalTraits<LO>::invalid() ? Teuchos::OrdinalTraits<size_t>::invalid()
                                                       : getNumEntriesInLocalRow(il);
  }
  size_t getNumEntriesInLocalRow(LO il) const override {
    if (il < 0 || static_cast<Index>(il) >= layout_.nrows || !fillComplete_) return Teuchos::OrdinalTraits<size_t>::invalid();
    return static_cast<size_t>(rowCounts_[il]);
  }
  size_t getGlobalMaxNumRowEntries() const override { return globalMaxRow_; }
  size_t getNodeMaxNumRowEntries() const override { return localMaxRow_; }
  bool hasColMap() const override { return !colMap_.is_null(); }
  bool isLocallyIndexed() const override { return fillComplete_; }
  bool isGloballyIndexed() const override { return !fillComplete_; }
  bool isFillComplete() const override { return fillComplete_; }
  /// No row views: a row of a diagonal-stored matrix is not contiguous.
  bool supportsRowViews() const override { return false; }

  void getGlobalRowCopy(GO row, nonconst_global_inds_host_view_type& inds, nonconst_values_host_view_type& vals,
                        size_t& n) const override {
    rowCopy(rowMap_->getLocalElement(row), true, inds.data(), vals.data(), std::min<size_t>(inds.extent(0), vals.extent(0)), n);
  }
  void getGlobalRowCopy(GO row, const Teuchos::ArrayView<GO>& inds, const Teuchos::ArrayView<Scalar>& vals,
                        size_t& n) const override {
    rowCopy(rowMap_->getLocalElement(row), true, inds.getRawPtr(), vals.getRawPtr(),
            static_cast<size_t>(std::min(inds.size(), vals.size())), n);
  }
  void getLocalRowCopy(LO il, nonconst_local_inds_host_view_type& inds, nonconst_values_host_view_type& vals,
                       size_t& n) const override {
    rowCopy(il, false, inds.data(), vals.data(), std::min<size_t>(inds.extent(0), vals.extent(0)), n);
  }
  void getLocalRowCopy(LO il, const Teuchos::ArrayView<LO>& inds, const Teuchos::ArrayView<Scalar>& vals,
                       size_t& n) const override {
    rowCopy(il, false, inds.getRawPtr(), vals.getRawPtr(), static_cast<size_t>(std::min(inds.size(), vals.size())), n);
  }
  void getGlobalRowView(GO, global_inds_host_view_type&, values_host_view_type&) const override { noViews(); }
  void getGlobalRowView(GO, Teuchos::ArrayView<const GO>&, Teuchos::ArrayView<const Scalar>&) const override { noViews(); }
  void getLocalRowView(LO, local_inds_host_view_type&, values_host_view_type&) const override { noViews(); }
  void getLocalRowView(LO, Teuchos::ArrayView<const LO>&, Teuchos::ArrayView<const Scalar>&) const override { noViews(); }

  /// diag[i] = a(i, i) for the owned rows (0 where not stored).
  void getLocalDiagCopy(vec_type& diag) const override {
    requireFill("getLocalDiagCopy");
    checkVector(diag, *rowMap_, "getLocalDiagCopy");
    hm_get_diagonal(hm_.view(), diag.getDataNonConst(0).getRawPtr());
  }
  /// A <- diag(x) A, x over the row map.
  void leftScale(const vec_type& x) override {
    requireFill("leftScale");
    checkVector(x, *rowMap_, "leftScale");
    hm_diagonal_scale(hm_.view(), x.getData(0).getRawPtr(), nullptr);
    compStale_ = true;
  }
  /// A <- A diag(x), x over the domain map (ghost entries imported). Collective.
  void rightScale(const vec_type& x) override {
    requireFill("rightScale");
    checkVector(x, *domainMap_, "rightScale");
    compStale_ = true;
    if (transposeLocal_) {
      hm_diagonal_scale(hm_.view(), nullptr, x.getData(0).getRawPtr(), plan_.shift_local.data());
      return;
    }
    auto W = workVectors(trWork_, touchedMap_, 1);
    W->doImport(x, *trImport_, Tpetra::INSERT);
    hm_diagonal_scale(hm_.view(), nullptr, W->getData(0).getRawPtr(), plan_.tr_shift.data());
  }
  /// sqrt(sum |a_ij|^2). Collective.
  mag_type getFrobeniusNorm() const override {
    requireFill("getFrobeniusNorm");
    const double local = local_sum_squares(hm_.view());
    double global = 0;
    Teuchos::reduceAll<int, double>(*comm_, Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
    return static_cast<mag_type>(std::sqrt(global));
  }

  std::string description() const override {
    std::ostringstream os;
    os << "pdiag::trilinos::DiagMatrix{" << getGlobalNumRows() << " x " << getGlobalNumCols() << ", " << hm_.ndiag()
       << " local diagonals, " << hm_.nstored() << " stored, " << localEntries_ << " reported}";
    return os.str();
  }

  /// The ghost plan (which rows read only owned columns; shifts).
  const GhostPlan& ghostPlan() const { return plan_; }

 private:
  // Communication and counts; collective.
  void setUp() {
    const Index m = layout_.nrows;
    rowCounts_.resize(static_cast<std::size_t>(m));
    std::string msg;
    bool ok = true;
    try {  // the only check that can fail here (a caller's mask); before any collective step
      hm_masked_row_counts(cview(), mask_.data(), rowCounts_.data());
    } catch (const FormatError& e) {
      ok = false;
      msg = e.what();
    }
    check_all(*comm_, ok, msg);
    plan_ = hm_ghost_plan(hm_.view(), c0_, c1_);
    // Column map: the owned domain GIDs first (Ifpack2's local filter needs
    // them there), then the other columns the rows reach, ascending.
    Teuchos::Array<GO> cols;
    for (Index j = c0_; j < c1_; ++j) cols.push_back(static_cast<GO>(j + indexBase_));
    remote_.clear();
    for (const Interval& iv : plan_.touched)
      for (Index j = iv.first; j < iv.second; ++j)
        if (j < c0_ || j >= c1_) remote_.push_back(j);
    for (Index j : remote_) cols.push_back(static_cast<GO>(j + indexBase_));
    const auto inv = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
    colMap_ = Teuchos::rcp(new map_type(inv, cols(), indexBase_, comm_));
    // Whether any process reads or writes a column it does not own.
    int local[2] = {plan_.ib == 0 && plan_.ie == m ? 0 : 1, remote_.empty() ? 0 : 1}, global[2] = {0, 0};
    Teuchos::reduceAll<int, int>(*comm_, Teuchos::REDUCE_MAX, 2, local, global);
    forwardLocal_ = global[0] == 0;
    transposeLocal_ = global[1] == 0;
    if (!forwardLocal_) {
      needMap_ = mapOf(plan_.need);
      import_ = Teuchos::rcp(new import_type(domainMap_, needMap_));
    }
    if (!transposeLocal_) {
      touchedMap_ = mapOf(plan_.touched);
      export_ = Teuchos::rcp(new export_type(touchedMap_, domainMap_));
      trImport_ = Teuchos::rcp(new import_type(domainMap_, touchedMap_));
    }
    localEntries_ = 0;
    localMaxRow_ = 0;
    for (Index c : rowCounts_) {
      localEntries_ += static_cast<size_t>(c);
      localMaxRow_ = std::max(localMaxRow_, static_cast<size_t>(c));
    }
    Teuchos::reduceAll<int, Tpetra::global_size_t>(*comm_, Teuchos::REDUCE_SUM, localEntries_, Teuchos::outArg(globalEntries_));
    Teuchos::reduceAll<int, size_t>(*comm_, Teuchos::REDUCE_MAX, localMaxRow_, Teuchos::outArg(globalMaxRow_));
    refreshCompressed();  // here, not at the first apply: construction pays for it
    fillComplete_ = true;
  }

  // Whether this process's GIDs of map are one ascending run (local index
  // il is GID min + il): true for Tpetra's contiguous maps, and for maps
  // built from such a list (which Tpetra 13.2 does not flag contiguous).
  static bool consecutive(const map_type& map) {
    if (map.isContiguous()) return true;
    const size_t m = map.getNodeNumElements();
    if (m == 0) return true;
    const GO g0 = map.getMinGlobalIndex();
    for (size_t il = 0; il < m; ++il)
      if (map.getGlobalElement(static_cast<LO>(il)) != g0 + static_cast<GO>(il)) return false;
    return true;
  }

  Teuchos::RCP<const map_type> mapOf(const std::vector<Interval>& iv) const {
    Teuchos::Array<GO> gids;
    for (Index j : interval_columns(iv)) gids.push_back(static_cast<GO>(j + indexBase_));
    return Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(), gids(), indexBase_, comm_));
  }

  // Y = beta Y + alpha A X by the kernels (beta 0: Y overwritten, its NaNs
  // too), on the compressed form when it is used: interior rows from X in
  // place, the others from the imported ghost vector.
  void applyForward(const mv_type& X, mv_type& Y, Scalar alpha, Scalar beta) const {
    const size_t nv = X.getNumVectors();
    Teuchos::RCP<mv_type> W;
    if (!forwardLocal_) {
      W = workVectors(need_, needMap_, nv);
      W->doImport(X, *import_, Tpetra::INSERT);
    }
    refreshCompressed();
    const bool noZ = beta == Teuchos::ScalarTraits<Scalar>::zero();
    const Scalar b = noZ ? Teuchos::ScalarTraits<Scalar>::one() : beta;  // with no z, beta is not read
    const auto v = hm_.view();
    const auto cv = comp_.view();
    const auto spmv = [&](const Scalar* x, Scalar* y, const std::vector<Index>& shift, Index lo, Index hi) {
      const Scalar* z = noZ ? nullptr : y;
      if (compUsed_) hm_compressed_spmv(cv, x, y, z, shift.data(), lo, hi, alpha, b);
      else hm_spmv(v, x, y, z, shift.data(), lo, hi, alpha, b);
    };
    for (size_t c = 0; c < nv; ++c) {
      const auto x = X.getData(c);
      auto y = Y.getDataNonConst(c);
      spmv(x.getRawPtr(), y.getRawPtr(), plan_.shift_local, plan_.ib, plan_.ie);
      if (W.is_null()) continue;
      const auto w = W->getData(c);
      spmv(w.getRawPtr(), y.getRawPtr(), plan_.shift_lo, 0, plan_.ib);
      spmv(w.getRawPtr(), y.getRawPtr(), plan_.shift_hi, plan_.ie, layout_.nrows);
    }
  }

  // The compressed form of the values, rebuilt when they changed (leftScale,
  // rightScale, replace/sumIntoGlobalValues): kept only when it takes at
  // most half the bytes of the values. The sampled test first, so that a
  // block of unstructured values (a product's) costs no compression attempt.
  void refreshCompressed() const {
    if (!compStale_) return;
    compStale_ = false;
    compUsed_ = false;
    comp_ = HmCompressed<Scalar>();
    if constexpr (std::is_floating_point<Scalar>::value) {  // hm_compress: real scalars
      if (!compAllowed_ || !hm_compress_candidate(hm_)) return;
      HmCompressed<Scalar> c;
      if (!hm_compress_if_smaller(hm_, c) || 2 * c.bytes() > hm_bytes(hm_)) return;
      comp_ = std::move(c);
      compUsed_ = true;
    }
  }

  // Y = A^T X: into Y in place when every column reached is owned, else into
  // the compact vector over the touched columns, added into Y by Export.
  void applyTranspose(const mv_type& X, mv_type& Y) const {
    const size_t nv = X.getNumVectors();
    const auto v = hm_.view();
    if (transposeLocal_) {
      for (size_t c = 0; c < nv; ++c)
        hm_spmv_t(v, X.getData(c).getRawPtr(), Y.getDataNonConst(c).getRawPtr(), c1_ - c0_, nullptr,
                  plan_.shift_local.data());
      return;
    }
    auto W = workVectors(trWork_, touchedMap_, nv);
    const Index nt = intervals_size(plan_.touched);
    for (size_t c = 0; c < nv; ++c)
      hm_spmv_t(v, X.getData(c).getRawPtr(), W->getDataNonConst(c).getRawPtr(), nt, nullptr, plan_.tr_shift.data());
    Y.putScalar(Teuchos::ScalarTraits<Scalar>::zero());
    Y.doExport(*W, *export_, Tpetra::ADD);
  }

  // A cached multivector on map with nv columns (rebuilt when nv changes).
  Teuchos::RCP<mv_type> workVectors(Teuchos::RCP<mv_type>& cache, const Teuchos::RCP<const map_type>& map, size_t nv) const {
    if (cache.is_null() || cache->getNumVectors() != nv || cache->getMap().get() != map.get())
      cache = Teuchos::rcp(new mv_type(map, nv, false));
    return cache;
  }

  // Whether some column of X shares memory with some column of Y.
  static bool aliases(const mv_type& X, const mv_type& Y) {
    if (&X == &Y) return true;
    const size_t n = X.getLocalLength();
    if (n == 0) return false;
    for (size_t a = 0; a < X.getNumVectors(); ++a) {
      const Scalar* x = X.getData(a).getRawPtr();
      for (size_t b = 0; b < Y.getNumVectors(); ++b) {
        const Scalar* y = Y.getData(b).getRawPtr();
        if (x < y + Y.getLocalLength() && y < x + n) return true;
      }
    }
    return false;
  }

  // Local column index of global column j (the column map's order).
  LO localColumn(Index j) const {
    if (j >= c0_ && j < c1_) return static_cast<LO>(j - c0_);
    const auto it = std::lower_bound(remote_.begin(), remote_.end(), j);
    return static_cast<LO>((c1_ - c0_) + (it - remote_.begin()));
  }

  void localRow(Index il, std::vector<LO>& inds, std::vector<Scalar>& vals) const {
    inds.clear();
    vals.clear();
    hm_for_each_masked_in_row(hm_.view(), mask_.data(), layout_.row_begin + il, [&](Index j, const Scalar& a) {
      inds.push_back(localColumn(j));
      vals.push_back(a);
    });
  }

  // Tpetra's row-copy contract: n = the row's entry count; invalid() for a
  // row not owned here; std::runtime_error when the arrays are too short.
  template <class I>
  void rowCopy(LO il, bool global, I* inds, Scalar* vals, size_t cap, size_t& n) const {
    requireFill("getRowCopy");
    if (il == Teuchos::OrdinalTraits<LO>::invalid() || il < 0 || static_cast<Index>(il) >= layout_.nrows) {
      n = Teuchos::OrdinalTraits<size_t>::invalid();
      return;
    }
    n = static_cast<size_t>(rowCounts_[il]);
    if (cap < n)
      throw std::runtime_error("pdiag::trilinos::DiagMatrix: row " + std::to_string(il) + " has " + std::to_string(n) +
                               " entries, the arrays hold " + std::to_string(cap));
    size_t p = 0;
    hm_for_each_masked_in_row(hm_.view(), mask_.data(), layout_.row_begin + il, [&](Index j, const Scalar& a) {
      inds[p] = global ? static_cast<I>(j + indexBase_) : static_cast<I>(localColumn(j));
      vals[p++] = a;
    });
  }

  LO changeValues(GO row, const Teuchos::ArrayView<const GO>& cols, const Teuchos::ArrayView<const Scalar>& vals, bool sum) {
    if (cols.size() != vals.size()) throw std::invalid_argument("pdiag::trilinos::DiagMatrix: cols and vals differ in length");
    const Index i = checkedRow(row, sum ? "sumIntoGlobalValues" : "replaceGlobalValues");
    LO changed = 0;
    for (Teuchos_Ordinal p = 0; p < cols.size(); ++p) {
      const Index j = static_cast<Index>(cols[p] - indexBase_);
      Scalar* a = hm_.find(i, j);
      if (!a || !mask_[static_cast<std::size_t>(a - hm_.val.data())]) continue;
      *a = sum ? *a + vals[p] : vals[p];
      ++changed;
      compStale_ = true;
    }
    return changed;
  }

  Index checkedRow(GO row, const char* where) const {
    if (rowMap_->getLocalElement(row) == Teuchos::OrdinalTraits<LO>::invalid())
      throw std::invalid_argument(std::string("pdiag::trilinos::DiagMatrix::") + where + ": row " + std::to_string(row) +
                                  " is not owned by this process (only owned rows can be set)");
    return static_cast<Index>(row - indexBase_);
  }
  Index checkedCol(GO col, const char* where) const {
    const Index j = static_cast<Index>(col - indexBase_);
    if (j < 0 || j >= layout_.ncols)
      throw std::invalid_argument(std::string("pdiag::trilinos::DiagMatrix::") + where + ": column " + std::to_string(col) +
                                  " outside the domain map's range");
    return j;
  }
  void requireFill(const char* where) const {
    if (!fillComplete_)
      throw std::logic_error(std::string("pdiag::trilinos::DiagMatrix::") + where + ": call fillComplete first");
  }
  void checkVector(const vec_type& x, const map_type& map, const char* where) const {
    if (x.getLocalLength() != map.getNodeNumElements() || x.getGlobalLength() != map.getGlobalNumElements())
      throw std::invalid_argument(std::string("pdiag::trilinos::DiagMatrix::") + where + ": vector does not match the map");
  }
  [[noreturn]] static void noViews() {
    throw std::runtime_error("pdiag::trilinos::DiagMatrix stores rows by diagonals and has no row views "
                             "(supportsRowViews() is false): use getLocalRowCopy/getGlobalRowCopy");
  }

  Teuchos::RCP<const map_type> rowMap_, domainMap_, colMap_, needMap_, touchedMap_;
  Teuchos::RCP<const Teuchos::Comm<int>> comm_;
  Teuchos::RCP<const import_type> import_, trImport_;
  Teuchos::RCP<const export_type> export_;
  GO indexBase_ = 0;
  Layout layout_;
  Index c0_ = 0, c1_ = 0;
  hm_type hm_;
  std::vector<unsigned char> mask_;
  GhostPlan plan_;
  std::vector<Index> remote_;     // columns reached that are not owned, ascending
  std::vector<Index> rowCounts_;  // reported entries per local row
  size_t localEntries_ = 0, localMaxRow_ = 0, globalMaxRow_ = 0;
  Tpetra::global_size_t globalEntries_ = 0;
  bool fillComplete_ = false, forwardLocal_ = true, transposeLocal_ = true;
  std::vector<Index> coo_rows_, coo_cols_;  // entries inserted before fillComplete
  std::vector<Scalar> coo_vals_;
  mutable Teuchos::RCP<mv_type> need_, trWork_, tmp_;
  mutable HmCompressed<Scalar> comp_;  // the compressed form (refreshCompressed)
  mutable bool compUsed_ = false, compStale_ = true;
  bool compAllowed_ = true;
  mutable Teuchos::RCP<const graph_type> graph_;
};

}  // namespace trilinos
}  // namespace pdiag
