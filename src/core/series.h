// The sampler's memory: bounded ring buffers of samples per device, per (process, device) and
// per process on the host, sized from the configuration (a horizon kept at full resolution
// and the sample intervals) and never grown past that. Attribution (core/attribution.h) reads
// them. No I/O. Not synchronised: the owner guards concurrent use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>

#include "core/process_key.h"
#include "core/ring_buffer.h"
#include "core/samples.h"

namespace gpumeter {

// All durations in µs; the three periods must be positive.
struct SeriesConfig {
  TimeUs horizon_us = 3'600'000'000;  // how far back samples are kept at full resolution
  TimeUs interval_us = 1'000'000;     // sampler interval: device, memory and host samples
  // The shortest sample period of any driver (1/6 s); sizes the per-process utilisation
  // buffers, since the driver may report one sample per process per period.
  TimeUs shortest_driver_period_us = 166'667;
  // The driver sample period assumed for a device until one is measured or set.
  TimeUs default_driver_period_us = 1'000'000;
};

// Samples a buffer holds: enough for the horizon at one sample per period. Precondition:
// period_us > 0.
std::size_t capacity_for(TimeUs horizon_us, TimeUs period_us);

// What inserting one sample did.
enum class Insert : std::uint8_t {
  stored,
  duplicate,     // a sample with this time is already stored: dropped
  out_of_order,  // older than the newest stored sample: dropped
};

// One per-process utilisation sample together with the process it belongs to.
struct KeyedGpuSample {
  ProcessKey key;
  ProcessGpuSample sample;
};

using GpuRecords = RingBuffer<ProcessGpuRecord>;
using MemoryRecords = RingBuffer<ProcessMemorySample>;
using HostRecords = RingBuffer<HostSample>;

// Everything kept for one device.
class DeviceSeries {
 public:
  explicit DeviceSeries(const SeriesConfig& config);

  // As Series::add_device_sample and friends.
  Insert add(const DeviceSample& sample);
  Insert add(const ProcessKey& key, const ProcessGpuSample& sample);
  Insert add(const ProcessKey& key, const ProcessMemorySample& sample);

  const RingBuffer<DeviceSample>& samples() const noexcept { return samples_; }
  const std::map<ProcessKey, GpuRecords>& utilization() const noexcept { return utilization_; }
  const std::map<ProcessKey, MemoryRecords>& memory() const noexcept { return memory_; }

  // The newest per-process utilisation timestamp ever stored for this device: the sampler
  // passes it as lastSeenTimeStamp. Absent before the first sample.
  std::optional<TimeUs> last_seen_us() const noexcept { return last_seen_us_; }

  // The driver's sample period for this device, µs: the one set, else the shortest gap seen
  // between two consecutive samples of one process, else the configured default.
  TimeUs sample_period_us() const noexcept;
  // Precondition: period_us > 0.
  void set_sample_period_us(TimeUs period_us) noexcept { set_period_us_ = period_us; }

  // The engines any per-process sample on this device has reported.
  EngineMask engines_reported() const noexcept { return engines_reported_; }

  // Drops samples older than t, and process series left empty.
  void drop_before(TimeUs t);
  std::size_t allocated_bytes() const noexcept;

 private:
  void note_gap(TimeUs gap_us) noexcept;

  SeriesConfig config_;
  RingBuffer<DeviceSample> samples_;
  std::map<ProcessKey, GpuRecords> utilization_;
  std::map<ProcessKey, MemoryRecords> memory_;
  std::optional<TimeUs> last_seen_us_;
  std::optional<TimeUs> set_period_us_;
  std::optional<TimeUs> shortest_gap_us_;
  EngineMask engines_reported_ = 0;
};

// All series of one sampler, keyed by device index (DeviceIdentity::index) and process.
class Series {
 public:
  explicit Series(SeriesConfig config = {});

  const SeriesConfig& config() const noexcept { return config_; }

  // Each add keeps its buffer in time order: a sample older than, or as old as, the newest
  // one stored in the same buffer is dropped and the result says why. Utilisation percents
  // are clamped to 0..100.
  Insert add_device_sample(std::uint32_t device, const DeviceSample& sample);
  Insert add_process_gpu_sample(std::uint32_t device, const ProcessKey& key,
                                const ProcessGpuSample& sample);
  Insert add_process_memory_sample(std::uint32_t device, const ProcessKey& key,
                                   const ProcessMemorySample& sample);
  Insert add_host_sample(const ProcessKey& key, const HostSample& sample);

  // Stores one drain of a device's per-process utilisation samples: drops samples not newer
  // than last_seen_us(device) as it was before the call (drivers return such junk for zombie
  // processes), stores the rest in time order. Returns how many were stored.
  std::size_t add_process_gpu_samples(std::uint32_t device, std::span<const KeyedGpuSample> drain);

  // The newest per-process utilisation timestamp stored for `device`, for lastSeenTimeStamp;
  // absent when none was ever stored (then the sampler passes 0).
  std::optional<TimeUs> last_seen_us(std::uint32_t device) const;

  // The device's series, or nullptr when nothing was ever added for it.
  const DeviceSeries* device(std::uint32_t device) const;
  // Records the driver's sample period of `device`, when the sampler knows it. Precondition:
  // period_us > 0.
  void set_sample_period_us(std::uint32_t device, TimeUs period_us);
  const std::map<std::uint32_t, DeviceSeries>& devices() const noexcept { return devices_; }
  // The process's host series, or nullptr.
  const HostRecords* host(const ProcessKey& key) const;

  // Drops samples older than t everywhere, and the process series left empty; the sampler
  // calls it with now - horizon so that exited processes do not accumulate.
  void drop_before(TimeUs t);
  // Bytes of sample storage allocated now (buffers only, not the maps that hold them).
  std::size_t allocated_bytes() const noexcept;

 private:
  SeriesConfig config_;
  std::map<std::uint32_t, DeviceSeries> devices_;
  std::map<ProcessKey, HostRecords> hosts_;
};

// The sample storage of a configuration, by kind of sample.
struct SeriesBudget {
  std::size_t device_sample_bytes = 0;  // sizeof(DeviceSample)
  std::size_t gpu_record_bytes = 0;     // sizeof(ProcessGpuRecord)
  std::size_t memory_sample_bytes = 0;  // sizeof(ProcessMemorySample)
  std::size_t host_sample_bytes = 0;    // sizeof(HostSample)
  std::size_t device_bytes = 0;         // all device buffers, full
  std::size_t utilization_bytes = 0;    // all per-process utilisation buffers, full
  std::size_t memory_bytes = 0;         // all per-process memory buffers, full
  std::size_t host_bytes = 0;           // all host buffers, full
  std::size_t total_bytes() const noexcept {
    return device_bytes + utilization_bytes + memory_bytes + host_bytes;
  }
};

// The sample storage of `devices` GPUs with `processes_per_device` distinct processes on each
// (each also sampled on the host), every buffer full: the upper bound, since buffers fill only
// as samples arrive and per-process utilisation arrives only while a process is busy. From
// sizeof and the capacities `config` gives.
SeriesBudget series_budget(const SeriesConfig& config, std::size_t devices,
                           std::size_t processes_per_device);

}  // namespace gpumeter
