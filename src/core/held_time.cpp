// SPDX-License-Identifier: MIT
#include "core/held_time.h"

#include <algorithm>

namespace gpumeter {

HeldTime held_time(const Series& series, const ProcessKey& key, std::uint32_t device,
                   Window window) {
  HeldTime held;
  const DeviceSeries* gpu = series.device(device);
  if (gpu == nullptr) return held;
  const auto found = gpu->memory().find(key);
  if (found == gpu->memory().end()) return held;
  const std::optional<TimeUs> last_read = found->second.last_read_us();
  if (!last_read) return held;
  const MemoryRecords& records = found->second.records();
  const TimeUs known_until = std::min(window.end_us, *last_read);
  // The record in force at the window's start, then every later one.
  const std::size_t after_begin = records.upper_bound(window.begin_us);
  for (std::size_t i = after_begin == 0 ? 0 : after_begin - 1; i < records.size(); ++i) {
    if (records[i].time_us >= known_until) break;
    if (records[i].used_bytes == 0) continue;
    const TimeUs next = i + 1 < records.size() ? records[i + 1].time_us : known_until;
    const TimeUs begin = std::max(records[i].time_us, window.begin_us);
    const TimeUs end = std::min(next, known_until);
    if (end <= begin) continue;
    held.seconds += static_cast<double>(end - begin) / 1e6;
    if (!held.first_us) held.first_us = begin;
    held.last_us = end;
  }
  return held;
}

}  // namespace gpumeter
