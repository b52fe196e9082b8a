// SPDX-License-Identifier: MIT
// FineGpuRecords: the fine tier of per-process utilisation (core/utilization_series.h), the
// driver's raw records, in 8 bytes a record (core/packed_gpu_records.h). A raw record keeps its
// time as µs after the buffer's base time in 32 bits, which reach 71 minutes: the fine tier
// holds a couple of minutes, and when a new record lies further than that from the base, the
// base moves up to the oldest record kept. Times are exact, whatever the base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/packed_gpu_records.h"
#include "core/samples.h"

namespace gpumeter {

class FineGpuRecords {
 public:
  // The longest stretch, from the oldest record to the newest, the buffer can hold.
  static constexpr TimeUs kMaxSpanUs = std::numeric_limits<std::uint32_t>::max();

  // A buffer of at most `capacity` records (at least 1).
  explicit FineGpuRecords(std::size_t capacity) : records_(capacity) {}

  std::size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  std::size_t capacity() const noexcept { return records_.capacity(); }
  std::size_t allocated_bytes() const noexcept { return records_.allocated_bytes(); }
  // How many of the records have media use (and so a second record).
  std::size_t media_size() const noexcept { return records_.media_size(); }

  // The i-th oldest record. Precondition: i < size().
  ProcessGpuRecord operator[](std::size_t i) const {
    ProcessGpuRecord record = records_.figures(i);
    record.time_us = base_us_ + TimeUs{records_.key(i)};
    return record;
  }
  ProcessGpuRecord front() const { return (*this)[0]; }
  ProcessGpuRecord back() const { return (*this)[size() - 1]; }

  // Index of the first record at or after t (size() if none).
  std::size_t lower_bound(TimeUs t) const {
    if (empty() || t <= base_us_) return 0;
    if (t - base_us_ > kMaxSpanUs) return size();
    return records_.lower_bound(static_cast<std::uint32_t>(t - base_us_));
  }
  // Index of the first record after t (size() if none).
  std::size_t upper_bound(TimeUs t) const {
    if (t == std::numeric_limits<TimeUs>::max()) return size();
    return lower_bound(t + 1);  // times are whole µs
  }
  // Whether a record with exactly this time is stored.
  bool contains(TimeUs t) const {
    const std::size_t i = lower_bound(t);
    return i < size() && (*this)[i].time_us == t;
  }

  // Appends `record`, dropping the oldest when full; false, and nothing stored, when it lies
  // more than kMaxSpanUs after the oldest record (the owner folds older records first).
  // Precondition: the buffer is empty or the record's time is after back()'s.
  bool push(const ProcessGpuRecord& record);

  // Drops the records before t.
  void drop_before(TimeUs t);

 private:
  PackedGpuRecords records_;
  TimeUs base_us_ = 0;  // keys are µs after this; set by the first push into an empty buffer
};

}  // namespace gpumeter
