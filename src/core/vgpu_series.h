// SPDX-License-Identifier: MIT
// The sampler's memory of vGPU instances (docs/vgpu.md, "Recent series"): per instance, a
// bounded, time-ordered series of its utilisation and framebuffer, one record per sampler
// round, kept for the configured horizon like the device series (core/series.h). No I/O. Not
// synchronised: the owner guards concurrent use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/ring_buffer.h"
#include "core/samples.h"
#include "core/series.h"
#include "core/vgpu.h"

namespace gpumeter {

// Which vGPU instance a series belongs to: its GPU (DeviceIdentity::index), the driver's
// instance id and the instance's UUID (empty when the driver did not give it). An instance id
// the driver reuses for another VM has another UUID, so it is another series.
struct VgpuSeriesKey {
  std::uint32_t gpu = 0;
  std::uint32_t id = 0;
  std::string uuid;

  auto operator<=>(const VgpuSeriesKey&) const = default;
};

// One round's reading of an instance, 24 bytes: the round's time, the framebuffer in use, and
// the percents of its newest utilisation sample (Engine order: SM, frame-buffer memory,
// encoder, decoder, JPEG, OFA), clamped to 0..100. `reported` has a bit per engine the
// driver gave; none when the instance had no sample yet; kFramebufferBit when fb_used_bytes
// was read.
struct VgpuRecord {
  static constexpr std::uint8_t kFramebufferBit = 0x80;

  TimeUs time_us = 0;
  std::uint64_t fb_used_bytes = 0;
  std::array<std::uint8_t, kEngineCount> percent{};
  std::uint8_t reported = 0;

  bool reports(Engine engine) const noexcept { return (reported & engine_bit(engine)) != 0; }
  std::optional<std::uint8_t> operator[](Engine engine) const noexcept {
    if (!reports(engine)) return std::nullopt;
    return percent[static_cast<std::size_t>(engine)];
  }
  std::optional<std::uint64_t> framebuffer() const noexcept {
    if ((reported & kFramebufferBit) == 0) return std::nullopt;
    return fb_used_bytes;
  }
};
static_assert(sizeof(VgpuRecord) == 24);  // docs/vgpu.md counts on it

// The record of `instance` as read in the round at `time_us`.
VgpuRecord vgpu_record(TimeUs time_us, const VgpuInstance& instance);

// What is kept besides the records: the instance's VM and type as last read.
struct VgpuSeriesLabels {
  std::optional<std::string> vm_id;
  std::optional<std::string> type_name;
};

// One instance's reading in one round, as the sampler gathers it before storing.
struct VgpuReading {
  VgpuSeriesKey key;
  VgpuSeriesLabels labels;
  VgpuRecord record;
};

// The reading of `instance` of GPU `gpu` in the round at `time_us`.
VgpuReading vgpu_reading(std::uint32_t gpu, TimeUs time_us, const VgpuInstance& instance);

class VgpuSeries {
 public:
  // Records per instance: capacity_for(horizon, interval), as for a device.
  explicit VgpuSeries(const SeriesConfig& config);

  // Stores a reading in its instance's series, and its labels; a reading not newer than the
  // instance's newest is dropped (the result says why).
  Insert add(const VgpuReading& reading);

  struct Entry {
    VgpuSeriesLabels labels;
    RingBuffer<VgpuRecord> records;
  };
  const std::map<VgpuSeriesKey, Entry>& instances() const noexcept { return instances_; }
  // The series of the instance on GPU `gpu` whose UUID, or else id (decimal), is `selector`;
  // the newest one when several match (an id reused). nullptr when none.
  const std::pair<const VgpuSeriesKey, Entry>* find(std::uint32_t gpu,
                                                    const std::string& selector) const;

  // Drops records older than t, and the series of instances left empty (VMs long stopped).
  void drop_before(TimeUs t);
  // Bytes of record storage allocated now (buffers only).
  std::size_t allocated_bytes() const noexcept;
  // Records one instance holds at most.
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  std::size_t capacity_;
  std::map<VgpuSeriesKey, Entry> instances_;
};

}  // namespace gpumeter
