// SPDX-License-Identifier: MIT
// What one GPU's accounting records looked like at the last read, so that the next read asks
// the driver only about records that can have changed.
//
// An exited process's record is final (the driver stops updating it once isRunning is 0), so it
// is kept here and not read again while its pid stays in the driver's buffer. The pid list of
// the last read tells which entries of the next list are new: the driver appends new records
// and drops the oldest when the buffer is full, so the old list, less some oldest entries,
// is the start of the new one. When it is not (a clear, the mode turned off and on), every
// entry counts as new.
//
// A pid can only be told apart from its reuse by its record's start time, which costs a
// read: a reused pid is read because its new record is appended to the list. One case cannot
// be seen in the pid list: the old record leaves the buffer (a clear, or the buffer wrapping)
// and the reused pid's record arrives in the same interval, at a place in the list that looks
// the same. So every kept record is also read again once every kRecheckRounds reads, a slice
// of them each read, and such a record is at most that many reads out of date.
//
// Internal to src/nvml/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/accounting.h"

namespace gpumeter::nvml {

// Every kept record is read again at least once in this many reads.
inline constexpr std::size_t kRecheckRounds = 64;

struct AccountingCache {
  std::vector<unsigned> listed;  // the driver's pid list at the last read, oldest first
  // The final record of each exited process in that list, by pid; its start time says which
  // process of that pid it is. At most one per distinct pid listed, and at most the buffer size.
  std::unordered_map<unsigned, AccountingRecord> exited;
  std::size_t recheck_from = 0;  // where in the list this read's slice of rechecks starts

  // Forgets everything: the next read asks about every record.
  void reset() {
    listed.clear();
    exited.clear();
    recheck_from = 0;
  }
};

// The index in `now` from which entries were appended since `before` was listed: the
// smallest, such that `now` starts with the entries of `before` less its oldest ones (none
// kept: 0, every entry is new).
std::size_t appended_from(std::span<const unsigned> before, std::span<const unsigned> now);

// The positions [first, first + count) of a list of `size` entries whose kept records are read
// again this read, and where the next read's slice starts (a slice of size / kRecheckRounds,
// rounded up, moving along the list and starting over at its end).
struct RecheckSlice {
  std::size_t first = 0;
  std::size_t count = 0;
  bool contains(std::size_t position) const noexcept {
    return position >= first && position - first < count;
  }
};
RecheckSlice recheck_slice(AccountingCache& cache, std::size_t size);

}  // namespace gpumeter::nvml
