// SPDX-License-Identifier: MIT
// CoarseGpuRecords: the coarse tier of per-process utilisation (core/utilization_series.h),
// in 8 bytes a record (core/packed_gpu_records.h). A coarse record's time is always its
// bucket's end, an exact multiple of the bucket length, so it keeps that multiple, the bucket
// number, in 32 bits instead of the time in 64. With buckets of at least 1 s, bucket numbers
// from the Unix epoch fit until the year 2106; a time outside that range has no coarse record
// (bucket_number says so), never a wrapped one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/packed_gpu_records.h"
#include "core/samples.h"

namespace gpumeter {

// The bucket whose end is end_us, if end_us is a bucket end (a multiple of bucket_us) whose
// number fits 32 bits: from the epoch on, and no later than the highest uint32
// bucket. Precondition: bucket_us > 0.
constexpr std::optional<std::uint32_t> bucket_number(TimeUs end_us, TimeUs bucket_us) noexcept {
  if (end_us < 0 || end_us % bucket_us != 0) return std::nullopt;
  const TimeUs number = end_us / bucket_us;
  if (number > TimeUs{std::numeric_limits<std::uint32_t>::max()}) return std::nullopt;
  return static_cast<std::uint32_t>(number);
}

// Whether the bucket that holds t (core/tiers.h: buckets cover (end - bucket_us, end]) has a
// bucket number, for t > 0. Computed without forming the end, which may not fit a TimeUs.
// Precondition: bucket_us > 0.
constexpr bool in_numbered_bucket(TimeUs t, TimeUs bucket_us) noexcept {
  if (t <= 0) return false;
  const TimeUs number = t / bucket_us + (t % bucket_us != 0 ? 1 : 0);
  return number <= TimeUs{std::numeric_limits<std::uint32_t>::max()};
}

// The coarse tier's records, oldest first, keyed by bucket number and read as the
// ProcessGpuRecord each stands for (by value: there is none stored to refer to). Lookups take
// times in µs and translate them exactly into bucket numbers.
class CoarseGpuRecords {
 public:
  // A buffer of at most `capacity` records (at least 1).
  explicit CoarseGpuRecords(std::size_t capacity) : records_(capacity) {}

  std::size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  std::size_t capacity() const noexcept { return records_.capacity(); }
  std::size_t allocated_bytes() const noexcept { return records_.allocated_bytes(); }
  // How many of the records have media use (and so a second record).
  std::size_t media_size() const noexcept { return records_.media_size(); }

  // The i-th oldest record, its time its bucket's end. Precondition: i < size().
  ProcessGpuRecord operator[](std::size_t i) const {
    ProcessGpuRecord record = records_.figures(i);
    record.time_us = TimeUs{records_.key(i)} * bucket_us_;
    return record;
  }
  ProcessGpuRecord front() const { return (*this)[0]; }
  ProcessGpuRecord back() const { return (*this)[size() - 1]; }

  // Index of the first record whose bucket ends at or after t (size() if none).
  std::size_t lower_bound(TimeUs t) const {
    if (empty() || t <= 0) return 0;  // every stored end is at or after the epoch
    if (!in_numbered_bucket(t, bucket_us_)) return size();
    return records_.lower_bound(static_cast<std::uint32_t>(ceiling_number(t)));
  }
  // Index of the first record whose bucket ends after t (size() if none).
  std::size_t upper_bound(TimeUs t) const {
    if (t == std::numeric_limits<TimeUs>::max()) return size();
    return lower_bound(t + 1);  // times are whole µs
  }

  // Appends `record`, a bucket's, dropping the oldest when full; false, and nothing stored,
  // when its time is not a bucket end with a bucket number. Preconditions: bucket_us > 0 and
  // the same at every call; the buffer is empty or the record's time is after back()'s.
  bool push(const ProcessGpuRecord& record, TimeUs bucket_us) {
    const std::optional<std::uint32_t> bucket = bucket_number(record.time_us, bucket_us);
    if (!bucket) return false;
    bucket_us_ = bucket_us;
    records_.push(*bucket, record);
    return true;
  }

  // Drops the records whose bucket ends before t.
  void drop_before(TimeUs t) {
    if (empty() || t <= 0) return;
    if (!in_numbered_bucket(t, bucket_us_)) {
      records_.clear();  // every end is before t
      return;
    }
    records_.drop_before(static_cast<std::uint32_t>(ceiling_number(t)));
  }

 private:
  // The number of the first bucket end at or after t. Precondition: t > 0.
  TimeUs ceiling_number(TimeUs t) const noexcept {
    return t / bucket_us_ + (t % bucket_us_ != 0 ? 1 : 0);
  }

  PackedGpuRecords records_;
  TimeUs bucket_us_ = 0;  // set by the first push; unused while empty
};

}  // namespace gpumeter
