// SPDX-License-Identifier: MIT
#include "core/memory_series.h"

namespace gpumeter {

Insert MemorySeries::add(const ProcessMemorySample& sample) {
  if (last_read_us_ && sample.time_us <= *last_read_us_) {
    const bool again = sample.time_us == *last_read_us_ || records_.contains(sample.time_us);
    return again ? Insert::duplicate : Insert::out_of_order;
  }
  last_read_us_ = sample.time_us;
  if (!records_.empty() && records_.back().used_bytes == sample.used_bytes) {
    return Insert::unchanged;
  }
  records_.push(sample);
  return Insert::stored;
}

void MemorySeries::drop_before(TimeUs t) {
  if (!last_read_us_ || *last_read_us_ < t) {
    records_.drop_before(t);
    return;
  }
  const std::size_t after = records_.upper_bound(t);
  if (after == 0) return;
  const ProcessMemorySample& holding = records_[after - 1];  // the amount held at t
  records_.drop_before(holding.used_bytes == 0 ? t : holding.time_us);
}

}  // namespace gpumeter
