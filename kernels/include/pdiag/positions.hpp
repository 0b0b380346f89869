// A growing set of matrix positions: the positions a matrix's assembly set
// to an exact zero, which an aij matrix keeps as entries. Re-assembling the
// same structure records the same positions again; the set finds them from
// where it found the previous one, so that they cost a few comparisons and
// no sort.
#pragma once

#include "pdiag/format.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace pdiag {

/// A position (row, column), global indices.
using Position = std::pair<Index, Index>;

/// A set of positions, sorted and unique (list()), that grows by record():
/// a position the set does not hold waits until merge() sorts the waiting
/// ones and merges them in. record() searches from the place of the
/// previous position recorded (galloping), so positions recorded in row
/// order, as an assembly sets them, cost a few comparisons each.
///
/// stamp() identifies the contents of list(): every change gives a new
/// stamp, unique over all sets (a copy has its source's), so a caller that
/// remembers a stamp knows the list is the one it saw. merge() also keeps
/// what it added, when that is little (last_added()), and the stamp it
/// changed (stamp_before_merge()), for a caller that saw the list before.
class PositionSet {
 public:
  PositionSet() : stamp_(new_stamp()) {}

  /// The positions merged so far, sorted (by row, then column) and unique.
  const std::vector<Position>& list() const { return list_; }
  bool empty() const { return list_.empty() && pending_.empty(); }
  /// Whether positions recorded since the last merge() wait to join.
  bool waiting() const { return !pending_.empty(); }

  /// Records (i, j): it joins list() at the next merge() unless list() holds it.
  void record(Index i, Index j) {
    const Position p{i, j};
    const std::size_t at = search(p);
    if (at < list_.size() && list_[at] == p) {
      cursor_ = at + 1;
      return;
    }
    cursor_ = at;
    pending_.push_back(p);
  }

  /// Merges the positions recorded since the last merge that list() does not
  /// hold; true when list() grew. stamp_before_merge() is then the stamp
  /// list() had before, and last_added() the positions it added when they
  /// are few (at most an eighth of the list: no second copy of a list built
  /// in one merge); else stamp_before_merge() is 0, as after clear().
  bool merge() {
    if (pending_.empty()) return false;
    if (!std::is_sorted(pending_.begin(), pending_.end())) std::sort(pending_.begin(), pending_.end());  // an assembly's rows often come in order
    pending_.erase(std::unique(pending_.begin(), pending_.end()), pending_.end());
    const std::uint64_t before = stamp_;
    if (list_.empty()) {  // the first positions: the list itself
      added_.clear();
      added_base_ = 0;
      list_.swap(pending_);
      std::vector<Position>().swap(pending_);
      stamp_ = new_stamp();
      cursor_ = 0;
      return true;
    }
    std::vector<Position> added;
    // record() checked them, but list() may have changed since: a search
    // each when they are few, one pass over both lists otherwise
    const std::size_t n = list_.size(), k = pending_.size();
    std::size_t log_n = 1;
    while ((std::size_t(1) << log_n) < n) ++log_n;
    if (k * log_n < n + k) {
      for (const Position& p : pending_)
        if (!std::binary_search(list_.begin(), list_.end(), p)) added.push_back(p);
    } else std::set_difference(pending_.begin(), pending_.end(), list_.begin(), list_.end(), std::back_inserter(added));
    std::vector<Position>().swap(pending_);
    if (added.empty()) return false;
    added_.clear();
    added_base_ = 0;
    std::vector<Position> merged;
    merged.reserve(n + added.size());
    std::merge(list_.begin(), list_.end(), added.begin(), added.end(), std::back_inserter(merged));
    list_.swap(merged);
    if (8 * added.size() <= list_.size()) {
      added_ = std::move(added);
      added_base_ = before;
    }
    stamp_ = new_stamp();
    cursor_ = 0;
    return true;
  }

  /// The positions the last merge() added, when it kept them (see merge()).
  const std::vector<Position>& last_added() const { return added_; }
  std::uint64_t stamp() const { return stamp_; }
  std::uint64_t stamp_before_merge() const { return added_base_; }

  /// Forgets every position (recorded ones included).
  void clear() {
    list_.clear();
    pending_.clear();
    changed();
  }
  /// Forgets the positions in rows `rows` (sorted; recorded ones included).
  void erase_rows(const std::vector<Index>& rows) {
    const auto in = [&rows](const Position& p) { return std::binary_search(rows.begin(), rows.end(), p.first); };
    list_.erase(std::remove_if(list_.begin(), list_.end(), in), list_.end());
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), in), pending_.end());
    changed();
  }

 private:
  static std::uint64_t new_stamp() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
  void changed() {
    stamp_ = new_stamp();
    added_.clear();
    added_base_ = 0;  // no stamp: a caller that saw the list before must look at all of it
    cursor_ = 0;
  }
  /// The first index of list() whose position is not below p, searched
  /// outwards from the cursor (O(log distance)).
  std::size_t search(const Position& p) const {
    const std::size_t n = list_.size();
    const auto first = list_.begin();
    const auto bound = [&](std::size_t lo, std::size_t hi) {  // the answer is in [lo, hi]
      return static_cast<std::size_t>(std::lower_bound(first + static_cast<std::ptrdiff_t>(lo), first + static_cast<std::ptrdiff_t>(hi), p) - first);
    };
    std::size_t c = std::min(cursor_, n);
    if (c < n && list_[c] < p) {  // gallop up: the answer is above c
      std::size_t lo = c + 1, step = 1;
      while (lo + step - 1 < n && list_[lo + step - 1] < p) {
        lo += step;
        step *= 2;
      }
      return bound(lo, std::min(n, lo + step - 1));
    }
    if (c == n) {  // the answer is at most n
      if (n == 0 || list_[n - 1] < p) return n;
      c = n - 1;
    }
    std::size_t hi = c, step = 1;  // gallop down: list_[hi] is not below p
    while (hi >= step && !(list_[hi - step] < p)) {
      hi -= step;
      step *= 2;
    }
    return bound(hi >= step ? hi - step + 1 : 0, hi);
  }

  std::vector<Position> list_, pending_, added_;
  std::size_t cursor_ = 0;
  std::uint64_t stamp_ = 0, added_base_ = 0;
};

}  // namespace pdiag
