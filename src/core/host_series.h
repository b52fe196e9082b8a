// SPDX-License-Identifier: MIT
// HostSeries: CPU time and resident memory of one process on the host, in two tiers, stored
// only when they change. The sampler reads a process every round; a reading with the same
// figures as the last stored one only moves last_read_us(), and is stored when a change
// follows it (it ends a flat stretch, so that CPU time interpolated between stored records is
// what it was between readings). Records older than the fine horizon are thinned to the last
// one of each bucket, which keeps the highest resident memory read in its bucket
// (docs/attribution.md). Not synchronised.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>

#include "core/insert.h"
#include "core/ring_buffer.h"
#include "core/samples.h"
#include "core/tiers.h"

namespace gpumeter {

using HostRecords = RingBuffer<HostRecord>;

// How the host series are tiered, µs; both positive.
struct HostTiers {
  TimeUs fine_horizon_us = 0;  // records are kept as read this long behind the newest reading
  TimeUs bucket_us = 0;        // the coarse tier's bucket
};

class HostSeries {
 public:
  // Buffers of at most these many records (each at least 1).
  HostSeries(std::size_t fine_capacity, std::size_t coarse_capacity);

  // Takes one reading, after thinning the records older than its time minus the fine horizon
  // (and, should the fine tier be full, its oldest bucket): stored, or unchanged when its
  // figures equal the newest stored record's. A reading not newer than the last one is
  // dropped (duplicate, out_of_order).
  Insert add(const HostSample& sample, const HostTiers& tiers);

  // Thins the records up to the last bucket end at or before t to one per bucket: the last
  // one read in it, with the highest resident memory and high-water mark read in it.
  // Precondition: bucket_us > 0, the same at every call.
  void fold_before(TimeUs t, TimeUs bucket_us);

  // Forgets what is older than t but keeps the newest record before t (the figures at t).
  // Everything goes when the process was last read before t.
  void drop_before(TimeUs t);

  // Every record, coarse then fine, oldest first.
  TwoTier<HostRecord> records() const noexcept { return {coarse_, fine_}; }
  const HostRecords& fine() const noexcept { return fine_; }
  const HostRecords& coarse() const noexcept { return coarse_; }
  // The time of the last reading (its figures are the newest record's); absent before the
  // first.
  std::optional<TimeUs> last_read_us() const noexcept { return last_read_us_; }

  std::size_t size() const noexcept { return fine_.size() + coarse_.size(); }
  bool empty() const noexcept { return size() == 0; }
  std::size_t allocated_bytes() const noexcept {
    return fine_.allocated_bytes() + coarse_.allocated_bytes();
  }

 private:
  // The last reading, when it is newer than the newest record (its figures unchanged).
  std::optional<HostRecord> unstored_reading() const;

  HostRecords fine_;
  HostRecords coarse_;
  std::optional<TimeUs> last_read_us_;
  TimeUs folded_until_us_ = std::numeric_limits<TimeUs>::min();
};

}  // namespace gpumeter
