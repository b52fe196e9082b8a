// SPDX-License-Identifier: MIT
// UtilizationSeries: the utilisation of one process on one GPU, in two tiers. The fine tier
// holds the driver's raw records of the recent past, one per driver sample period in which
// the process was busy; raw records older than the fine horizon are folded into the coarse
// tier, one record per bucket in which the process was busy (ProcessGpuRecord describes
// both; each tier stores its records in 8 bytes, core/packed_gpu_records.h). Folding keeps each
// engine's busy time up to the rounding of a bucket's average to a whole percent. Attribution reads
// both tiers (docs/attribution.md). Not synchronised.
#pragma once

#include <cstddef>
#include <limits>

#include "core/coarse_record.h"
#include "core/fine_gpu_records.h"
#include "core/insert.h"
#include "core/samples.h"

namespace gpumeter {

// How a device's utilisation series are tiered, µs; both positive.
struct UtilizationTiers {
  TimeUs fine_horizon_us = 0;  // raw records are kept this long behind the newest one
  TimeUs bucket_us = 0;        // the coarse tier's bucket
};

class UtilizationSeries {
 public:
  // Buffers of at most these many records (each at least 1).
  UtilizationSeries(std::size_t fine_capacity, std::size_t coarse_capacity);

  // Appends a raw record, after folding the raw records older than its time minus the fine
  // horizon (and, should the fine tier be full, its oldest bucket). `period_us` is the driver's
  // sample period: a raw record covers (time - period, time], but never reaches back past the
  // previous record, nor into the folded past. A record not newer than the newest raw one
  // (duplicate, out_of_order), or at or before folded_until_us() (out_of_order), is dropped;
  // so is one whose bucket the coarse tier could not number (out_of_range: at or before the
  // epoch, or past the last bucket CoarseGpuRecord can hold). Precondition: period_us > 0.
  Insert add(const ProcessGpuRecord& record, TimeUs period_us, const UtilizationTiers& tiers);

  // Folds into the coarse tier the raw records' use up to the last bucket end at or before
  // t: every raw record that ends by then, and the part of the next one's period before it.
  // Buckets without use are not stored, nor is use before the epoch. Preconditions: period_us > 0,
  // bucket_us > 0, and the same bucket_us at every call.
  void fold_before(TimeUs t, TimeUs period_us, TimeUs bucket_us);

  // Drops raw records that end before t, and coarse records whose bucket ends before t.
  void drop_before(TimeUs t);

  // The raw records, oldest first.
  const FineGpuRecords& fine() const noexcept { return fine_; }
  // The coarse records, oldest first; each one's time_us is its bucket's end.
  const CoarseGpuRecords& coarse() const noexcept { return coarse_; }
  // Raw records account only for time after this; the coarse tier holds what came before.
  // The lowest TimeUs before the first fold.
  TimeUs folded_until_us() const noexcept { return folded_until_us_; }

  std::size_t size() const noexcept { return fine_.size() + coarse_.size(); }
  bool empty() const noexcept { return size() == 0; }
  std::size_t allocated_bytes() const noexcept {
    return fine_.allocated_bytes() + coarse_.allocated_bytes();
  }

 private:
  FineGpuRecords fine_;
  CoarseGpuRecords coarse_;
  TimeUs folded_until_us_ = std::numeric_limits<TimeUs>::min();
};

}  // namespace gpumeter
