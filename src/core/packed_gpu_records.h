// SPDX-License-Identifier: MIT
// PackedGpuRecords: per-process utilisation records (ProcessGpuRecord) stored in 8 bytes each,
// keyed by a 32-bit number that the owner derives from the record's time (a bucket number in
// the coarse tier, µs after a base time in the fine tier). The media engines' percents go into a
// second 8-byte record only for the records in which one of them was busy: compute processes,
// the common case, never touch the encoder, decoder, JPEG or OFA engines, and would otherwise
// store four zero bytes per record.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/ring_buffer.h"
#include "core/samples.h"

namespace gpumeter {

// The compute engines' figures of a record: SM and memory controller.
struct PackedGpuRecord {
  std::uint32_t key = 0;
  std::uint8_t sm = 0;
  std::uint8_t memory = 0;
  EngineMask reported = kClassicEngines;
  std::uint8_t peak_sm = 0;
};

// The media engines' figures of a record in which one of them was busy.
struct PackedMediaRecord {
  std::uint32_t key = 0;                                  // its PackedGpuRecord's
  std::array<std::uint8_t, kMediaEngineCount> percent{};  // encoder, decoder, JPEG, OFA
};

// The series' budget (docs/attribution.md) counts on these sizes.
static_assert(sizeof(PackedGpuRecord) == 8);
static_assert(sizeof(PackedMediaRecord) == 8);

// Whether a media engine was busy in `record`.
constexpr bool uses_media(const ProcessGpuRecord& record) noexcept {
  for (std::size_t i = kFirstMediaEngine; i < kEngineCount; ++i) {
    if (record.percent[i] != 0) return true;
  }
  return false;
}

class PackedGpuRecords {
 public:
  // A buffer of at most `capacity` records (at least 1).
  explicit PackedGpuRecords(std::size_t capacity) : records_(capacity), media_(capacity) {}

  std::size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  std::size_t capacity() const noexcept { return records_.capacity(); }
  std::size_t allocated_bytes() const noexcept {
    return records_.allocated_bytes() + media_.allocated_bytes();
  }
  // How many of the records have media use (and so a second record).
  std::size_t media_size() const noexcept { return media_.size(); }

  // The i-th oldest record's key. Precondition: i < size().
  std::uint32_t key(std::size_t i) const { return records_[i].key; }
  // The i-th oldest record's figures, exactly as pushed; its time_us is left 0 for the owner,
  // who knows what the key stands for. Precondition: i < size().
  ProcessGpuRecord figures(std::size_t i) const;

  // Index of the first record whose key is at least `key` (size() if none).
  std::size_t lower_bound(std::uint32_t key) const { return records_.lower_bound(key); }

  // Appends `record` under `key`, dropping the oldest (and its media record) when full.
  // Precondition: the buffer is empty or key > the newest key.
  void push(std::uint32_t key, const ProcessGpuRecord& record);
  // Drops the records whose key is below `key`.
  void drop_before(std::uint32_t key);
  // Drops every record and releases the storage.
  void clear();
  // Lowers every key by `delta`, which is at most the oldest key.
  void lower_keys(std::uint32_t delta);

 private:
  using Records = RingBuffer<PackedGpuRecord, &PackedGpuRecord::key>;
  using MediaRecords = RingBuffer<PackedMediaRecord, &PackedMediaRecord::key>;

  Records records_;
  MediaRecords media_;  // ordered and dropped with records_; at most one per record
};

}  // namespace gpumeter
