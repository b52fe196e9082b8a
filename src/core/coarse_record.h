// CoarseGpuRecord: a coarse-tier utilisation record (core/utilization_series.h) in 8 bytes,
// with the media engines' percents in a second 8-byte record (CoarseMediaRecord) only for the
// buckets in which one of them was busy: compute processes, the common case, never touch the
// encoder, decoder, JPEG or OFA engines, and would otherwise store four zero bytes a second.
// A coarse record's time is always its bucket's end, an exact multiple of the bucket length,
// so it keeps that multiple, the bucket number, in 32 bits instead of the time in 64. With
// buckets of at least 1 s, bucket numbers from the Unix epoch fit until the year 2106; a time
// outside that range has no coarse record (coarse_record_of says so), never a wrapped one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/ring_buffer.h"
#include "core/samples.h"

namespace gpumeter {

// The compute engines' figures of a bucket: SM and memory controller.
struct CoarseGpuRecord {
  std::uint32_t bucket = 0;  // the bucket's end divided by the bucket length
  std::uint8_t sm = 0;
  std::uint8_t memory = 0;
  EngineMask reported = kClassicEngines;
  std::uint8_t peak_sm = 0;
};

// The media engines' figures of a bucket in which one of them was busy.
struct CoarseMediaRecord {
  std::uint32_t bucket = 0;  // the bucket's number, as its CoarseGpuRecord's
  std::array<std::uint8_t, kMediaEngineCount> percent{};  // encoder, decoder, JPEG, OFA
};

// The series' budget (docs/attribution.md) counts on these sizes.
static_assert(sizeof(CoarseGpuRecord) == 8);
static_assert(sizeof(CoarseMediaRecord) == 8);

// The bucket whose end is end_us, if end_us is a bucket end (a multiple of bucket_us) whose
// number fits a CoarseGpuRecord: from the epoch on, and no later than the highest uint32
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

// The media engines' percents of `record`, encoder first.
constexpr std::array<std::uint8_t, kMediaEngineCount> media_percents(
    const ProcessGpuRecord& record) noexcept {
  std::array<std::uint8_t, kMediaEngineCount> media{};
  for (std::size_t i = 0; i < kMediaEngineCount; ++i)
    media[i] = record.percent[kFirstMediaEngine + i];
  return media;
}

// Whether a media engine was busy in `record`.
constexpr bool uses_media(const ProcessGpuRecord& record) noexcept {
  for (const std::uint8_t percent : media_percents(record)) {
    if (percent != 0) return true;
  }
  return false;
}

// `record` (a coarse record: its time a bucket end) as a CoarseGpuRecord, its media engines'
// figures left out; nullopt when its time has no bucket number (bucket_number).
// Precondition: bucket_us > 0.
constexpr std::optional<CoarseGpuRecord> coarse_record_of(const ProcessGpuRecord& record,
                                                          TimeUs bucket_us) noexcept {
  const std::optional<std::uint32_t> bucket = bucket_number(record.time_us, bucket_us);
  if (!bucket) return std::nullopt;
  return CoarseGpuRecord{.bucket = *bucket,
                         .sm = record[Engine::sm],
                         .memory = record[Engine::memory],
                         .reported = record.reported,
                         .peak_sm = record.peak_sm};
}

// The record `coarse` and, when its bucket had media use, `media` stand for, its time the
// bucket's end. Exact: the inverse of coarse_record_of and media_percents.
constexpr ProcessGpuRecord gpu_record_of(const CoarseGpuRecord& coarse,
                                         const CoarseMediaRecord* media,
                                         TimeUs bucket_us) noexcept {
  ProcessGpuRecord record{.time_us = TimeUs{coarse.bucket} * bucket_us,
                          .reported = coarse.reported,
                          .peak_sm = coarse.peak_sm};
  record.percent[static_cast<std::size_t>(Engine::sm)] = coarse.sm;
  record.percent[static_cast<std::size_t>(Engine::memory)] = coarse.memory;
  if (media != nullptr) {
    for (std::size_t i = 0; i < kMediaEngineCount; ++i) {
      record.percent[kFirstMediaEngine + i] = media->percent[i];
    }
  }
  return record;
}

// The coarse tier's records, oldest first, stored as a CoarseGpuRecord each, plus a
// CoarseMediaRecord for those with media use, and read as the ProcessGpuRecord each stands for
// (by value: there is none stored to refer to). Lookups take times in µs and translate them
// exactly into bucket numbers.
class CoarseGpuRecords {
 public:
  // A buffer of at most `capacity` records (at least 1).
  explicit CoarseGpuRecords(std::size_t capacity) : records_(capacity), media_(capacity) {}

  std::size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  std::size_t capacity() const noexcept { return records_.capacity(); }
  std::size_t allocated_bytes() const noexcept {
    return records_.allocated_bytes() + media_.allocated_bytes();
  }
  // How many of the records have media use (and so a second record).
  std::size_t media_size() const noexcept { return media_.size(); }

  // The i-th oldest record, its time its bucket's end. Precondition: i < size().
  ProcessGpuRecord operator[](std::size_t i) const {
    const CoarseGpuRecord& record = records_[i];
    return gpu_record_of(record, media_of(record.bucket), bucket_us_);
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
    const std::optional<CoarseGpuRecord> coarse = coarse_record_of(record, bucket_us);
    if (!coarse) return false;
    bucket_us_ = bucket_us;
    records_.push(*coarse);
    if (uses_media(record))
      media_.push({.bucket = coarse->bucket, .percent = media_percents(record)});
    // A full buffer dropped its oldest record: its media record goes with it.
    media_.drop_before(records_.front().bucket);
    return true;
  }

  // Drops the records whose bucket ends before t.
  void drop_before(TimeUs t) {
    if (empty() || t <= 0) return;
    if (!in_numbered_bucket(t, bucket_us_)) {
      // Every end is before t: releases the storage.
      records_ = Records(records_.capacity());
      media_ = MediaRecords(media_.capacity());
      return;
    }
    const auto first_kept = static_cast<std::uint32_t>(ceiling_number(t));
    records_.drop_before(first_kept);
    media_.drop_before(first_kept);
  }

 private:
  using Records = RingBuffer<CoarseGpuRecord, &CoarseGpuRecord::bucket>;
  using MediaRecords = RingBuffer<CoarseMediaRecord, &CoarseMediaRecord::bucket>;

  // The media record of the bucket numbered `bucket`; null when it had no media use.
  const CoarseMediaRecord* media_of(std::uint32_t bucket) const {
    if (media_.empty()) return nullptr;  // the common case: no binary search
    const std::size_t i = media_.lower_bound(bucket);
    return i < media_.size() && media_[i].bucket == bucket ? &media_[i] : nullptr;
  }

  // The number of the first bucket end at or after t. Precondition: t > 0.
  TimeUs ceiling_number(TimeUs t) const noexcept {
    return t / bucket_us_ + (t % bucket_us_ != 0 ? 1 : 0);
  }

  Records records_;
  MediaRecords media_;    // ordered and dropped with records_; at most one per record
  TimeUs bucket_us_ = 0;  // set by the first push; unused while empty
};

}  // namespace gpumeter
