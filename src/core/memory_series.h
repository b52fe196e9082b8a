// SPDX-License-Identifier: MIT
// MemorySeries: the GPU memory one process holds on one GPU, a step function. The sampler
// reads it every round, but only changes are stored: the amount at t is the last stored
// sample at or before t. The time of the last reading is kept apart, so that an unchanged
// amount costs nothing per round. Not synchronised.
#pragma once

#include <cstddef>
#include <optional>

#include "core/insert.h"
#include "core/ring_buffer.h"
#include "core/samples.h"

namespace gpumeter {

using MemoryRecords = RingBuffer<ProcessMemorySample>;

class MemorySeries {
 public:
  // At most `capacity` stored samples (at least 1).
  explicit MemorySeries(std::size_t capacity) : records_(capacity) {}

  // Takes one reading: stored when the amount differs from the last stored one (or none is
  // stored), else unchanged. A reading not newer than the last one is dropped (duplicate,
  // out_of_order).
  Insert add(const ProcessMemorySample& sample);

  // Forgets what is older than t, but keeps the amount held at t: the newest sample before t
  // stays unless it is 0 bytes, which is what no sample means too. Everything goes when the
  // process was last read before t.
  void drop_before(TimeUs t);

  // The stored samples: the amount changed at each, oldest first.
  const MemoryRecords& records() const noexcept { return records_; }
  // The time of the last reading; absent before the first.
  std::optional<TimeUs> last_read_us() const noexcept { return last_read_us_; }

  bool empty() const noexcept { return records_.empty(); }
  std::size_t allocated_bytes() const noexcept { return records_.allocated_bytes(); }

 private:
  MemoryRecords records_;
  std::optional<TimeUs> last_read_us_;
};

}  // namespace gpumeter
