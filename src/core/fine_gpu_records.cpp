// SPDX-License-Identifier: MIT
#include "core/fine_gpu_records.h"

namespace gpumeter {

bool FineGpuRecords::push(const ProcessGpuRecord& record) {
  if (empty()) base_us_ = record.time_us;
  if (record.time_us - base_us_ > kMaxSpanUs) {
    // Rare (once in 71 minutes of a process's use at most): the base moves up to the oldest
    // record, each key down by as much.
    const TimeUs oldest = front().time_us;
    if (record.time_us - oldest > kMaxSpanUs) return false;
    records_.lower_keys(static_cast<std::uint32_t>(oldest - base_us_));
    base_us_ = oldest;
  }
  records_.push(static_cast<std::uint32_t>(record.time_us - base_us_), record);
  return true;
}

void FineGpuRecords::drop_before(TimeUs t) {
  if (empty() || t <= base_us_) return;
  if (t - base_us_ > kMaxSpanUs) {
    records_.clear();  // every record is before t
    return;
  }
  records_.drop_before(static_cast<std::uint32_t>(t - base_us_));
}

}  // namespace gpumeter
