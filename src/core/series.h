// SPDX-License-Identifier: MIT
// The sampler's memory: bounded, time-ordered series per device, per (process, device) and per
// process on the host, sized from the configuration and never grown past that. Per-process
// utilisation and host samples are kept as read for a short fine horizon and at bucket
// resolution for the rest of the horizon; GPU memory and host samples are stored only when
// they change (docs/attribution.md). Attribution (core/attribution.h) reads them. No I/O. Not
// synchronised: the owner guards concurrent use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>

#include "core/host_series.h"
#include "core/insert.h"
#include "core/memory_series.h"
#include "core/process_key.h"
#include "core/ring_buffer.h"
#include "core/samples.h"
#include "core/utilization_series.h"

namespace gpumeter {

// All durations in µs and positive.
struct SeriesConfig {
  TimeUs horizon_us = 3'600'000'000;  // how far back samples are kept
  TimeUs interval_us = 1'000'000;     // sampler interval: device, memory and host samples
  // The shortest sample period of any driver (1/6 s); sizes the fine tier of per-process
  // utilisation, since the driver may report one sample per process per period.
  TimeUs shortest_driver_period_us = 166'667;
  // The driver sample period assumed for a device until one is measured or set.
  TimeUs default_driver_period_us = 1'000'000;
  // How far back per-process utilisation and host samples are kept as read; older ones are
  // folded into buckets (utilization_bucket_us, host_bucket_us). At least the longest driver
  // sample period: Series raises it to default_driver_period_us.
  TimeUs fine_horizon_us = 120'000'000;
  // The bucket of host samples older than the fine horizon: the last reading of each is kept.
  // At least the interval: Series raises it.
  TimeUs host_bucket_us = 30'000'000;
};

// The bucket per-process utilisation older than the fine horizon is folded into: the sampler
// interval, but at least 1 s.
TimeUs utilization_bucket_us(const SeriesConfig& config);
// The bucket of host samples older than the fine horizon: config.host_bucket_us, but at least
// the interval.
TimeUs host_bucket_us(const SeriesConfig& config);
// `config` with fine_horizon_us raised to what SeriesConfig asks of it.
SeriesConfig normalised(SeriesConfig config);

// Samples a buffer holds: enough for the horizon at one sample per period. Precondition:
// period_us > 0.
std::size_t capacity_for(TimeUs horizon_us, TimeUs period_us);

// One per-process utilisation sample together with the process it belongs to.
struct KeyedGpuSample {
  ProcessKey key;
  ProcessGpuSample sample;
};

// Everything kept for one device.
class DeviceSeries {
 public:
  explicit DeviceSeries(const SeriesConfig& config);

  // As Series::add_device_sample and friends.
  Insert add(const DeviceSample& sample);
  Insert add(const ProcessKey& key, const ProcessGpuSample& sample);
  Insert add(const ProcessKey& key, const ProcessMemorySample& sample);
  Insert add(const PowerSample& sample);

  const RingBuffer<DeviceRecord>& samples() const noexcept { return samples_; }
  // The driver's power samples of the fine horizon (energy_at reads them).
  const RingBuffer<PowerSample>& power() const noexcept { return power_; }
  // The period of the power samples, µs: the median gap of a drain of at least five (see
  // set_power_period_us), before one the shortest gap seen between two consecutive ones (the
  // driver stamps one every period); absent before two were stored.
  std::optional<TimeUs> power_period_us() const noexcept {
    return power_median_us_ ? power_median_us_ : power_gap_us_;
  }
  // Sets the power period measured on one drain (the median gap between its samples, which
  // one skipped sample or a stamp's jitter does not move): it replaces the shortest gap.
  // Precondition: period_us > 0.
  void set_power_period_us(TimeUs period_us) noexcept { power_median_us_ = period_us; }
  const std::map<ProcessKey, UtilizationSeries>& utilization() const noexcept {
    return utilization_;
  }
  const std::map<ProcessKey, MemorySeries>& memory() const noexcept { return memory_; }

  // The newest per-process utilisation timestamp ever stored for this device: the sampler
  // passes it as lastSeenTimeStamp. Absent before the first sample.
  std::optional<TimeUs> last_seen_us() const noexcept { return last_seen_us_; }

  // The driver's sample period for this device, µs: the one set (the sampler sets the one it
  // measured on the driver's device samples), else the shortest gap seen between two
  // consecutive samples of one process, else the configured default.
  TimeUs sample_period_us() const noexcept;
  // Precondition: period_us > 0.
  void set_sample_period_us(TimeUs period_us) noexcept { set_period_us_ = period_us; }

  // The engines any per-process sample on this device has reported.
  EngineMask engines_reported() const noexcept { return engines_reported_; }

  // The bucket of the coarse utilisation tier (utilization_bucket_us).
  TimeUs bucket_us() const noexcept { return tiers_.bucket_us; }
  // The latest time up to which some process's utilisation on this device is kept only in
  // its coarse tier; the lowest TimeUs while none is.
  TimeUs coarse_until_us() const noexcept { return coarse_until_us_; }

  // As Series::fold_before (which also drops the power samples before t) and
  // Series::drop_before.
  void fold_before(TimeUs t);
  void drop_before(TimeUs t);
  std::size_t allocated_bytes() const noexcept;

 private:
  void note_gap(TimeUs gap_us) noexcept;

  SeriesConfig config_;
  UtilizationTiers tiers_;
  RingBuffer<DeviceRecord> samples_;
  RingBuffer<PowerSample> power_;
  std::map<ProcessKey, UtilizationSeries> utilization_;
  std::map<ProcessKey, MemorySeries> memory_;
  TimeUs coarse_until_us_ = std::numeric_limits<TimeUs>::min();
  std::optional<TimeUs> last_seen_us_;
  std::optional<TimeUs> set_period_us_;
  std::optional<TimeUs> shortest_gap_us_;
  std::optional<TimeUs> power_gap_us_;
  std::optional<TimeUs> power_median_us_;
  EngineMask engines_reported_ = 0;
};

// All series of one sampler, keyed by device index (DeviceIdentity::index) and process.
class Series {
 public:
  // Takes `config` normalised (see SeriesConfig).
  explicit Series(SeriesConfig config = {});

  const SeriesConfig& config() const noexcept { return config_; }

  // Each add keeps its series in time order: a sample older than, or as old as, the newest
  // one taken in the same series is dropped and the result says why. Utilisation percents
  // are clamped to 0..100. GPU memory and host samples with the same figures as the last
  // stored one are `unchanged`: only the time they were read is kept.
  Insert add_device_sample(std::uint32_t device, const DeviceSample& sample);
  Insert add_process_gpu_sample(std::uint32_t device, const ProcessKey& key,
                                const ProcessGpuSample& sample);
  Insert add_process_memory_sample(std::uint32_t device, const ProcessKey& key,
                                   const ProcessMemorySample& sample);
  Insert add_host_sample(const ProcessKey& key, const HostSample& sample);

  // Stores one drain of a device's per-process utilisation samples: drops samples not newer
  // than last_seen_us(device) as it was before the call (drivers return such junk for zombie
  // processes), stores the rest in time order, a sample spanning several driver periods as one
  // record per period (docs/attribution.md, "Per-process utilisation"). `asked_after` is the
  // lastSeenTimeStamp the drain passed (default: last_seen_us(device)): where each process's
  // first sample's span starts. Returns how many records were stored.
  std::size_t add_process_gpu_samples(std::uint32_t device, std::span<const KeyedGpuSample> drain,
                                      std::optional<TimeUs> asked_after = std::nullopt);

  // The newest per-process utilisation timestamp stored for `device`, for lastSeenTimeStamp;
  // absent when none was ever stored (then the sampler passes 0).
  std::optional<TimeUs> last_seen_us(std::uint32_t device) const;

  // Stores one drain of a device's power sample buffer, in time order; samples not newer than
  // the newest one held are dropped. Power samples are kept for the fine horizon only (energy
  // over older windows is interpolated linearly: docs/attribution.md). Returns how many were
  // stored.
  std::size_t add_power_samples(std::uint32_t device, std::span<const PowerSample> drain);
  // The newest power sample's time held for `device`, for lastSeenTimeStamp; absent when none.
  std::optional<TimeUs> last_power_us(std::uint32_t device) const;

  // The device's series, or nullptr when nothing was ever added for it.
  const DeviceSeries* device(std::uint32_t device) const;
  // Records the driver's sample period of `device`, when the sampler knows it. Precondition:
  // period_us > 0.
  void set_sample_period_us(std::uint32_t device, TimeUs period_us);
  const std::map<std::uint32_t, DeviceSeries>& devices() const noexcept { return devices_; }
  // The process's host series, or nullptr.
  const HostSeries* host(const ProcessKey& key) const;

  // Folds per-process utilisation and host samples older than t into their coarse tiers
  // (buckets that end at or before t), and drops power samples older than t; the sampler
  // calls it with now - fine horizon every round. Adding a sample also folds its own series'
  // samples older than the fine horizon.
  void fold_before(TimeUs t);
  // Drops samples older than t everywhere (keeping, of GPU memory and host series, the
  // figures that still hold at t), and the process series left empty; the sampler calls it
  // with now - horizon so that exited processes do not accumulate.
  void drop_before(TimeUs t);
  // Bytes of sample storage allocated now (buffers only, not the maps that hold them).
  std::size_t allocated_bytes() const noexcept;

 private:
  SeriesConfig config_;
  std::map<std::uint32_t, DeviceSeries> devices_;
  HostTiers host_tiers_;
  std::map<ProcessKey, HostSeries> hosts_;
};

// The sample storage of a configuration, by kind of sample, every buffer full.
struct SeriesBudget {
  std::size_t device_record_bytes = 0;  // sizeof(DeviceRecord)
  // sizeof(PackedGpuRecord), per-process utilisation in either tier, and of its media record
  std::size_t gpu_record_bytes = 0;
  std::size_t media_record_bytes = 0;
  std::size_t memory_sample_bytes = 0;  // sizeof(ProcessMemorySample)
  std::size_t host_record_bytes = 0;    // sizeof(HostRecord)
  std::size_t power_sample_bytes = 0;   // sizeof(PowerSample)
  std::size_t device_bytes = 0;         // device samples
  // The driver's power samples of the fine horizon, one per shortest driver period, per GPU.
  std::size_t power_bytes = 0;
  // Per-process utilisation: every process busy in every driver period of the fine horizon
  // (at the shortest period), and in every bucket of the rest of the horizon, with a media
  // engine busy in each of those periods and buckets too.
  std::size_t fine_utilization_bytes = 0;
  std::size_t coarse_utilization_bytes = 0;
  std::size_t memory_bytes = 0;  // per-process GPU memory, changing at every reading
  // Host samples, changing at every reading: the fine horizon as read, the rest thinned.
  std::size_t fine_host_bytes = 0;
  std::size_t coarse_host_bytes = 0;
  std::size_t total_bytes() const noexcept {
    return device_bytes + power_bytes + fine_utilization_bytes + coarse_utilization_bytes +
           memory_bytes + fine_host_bytes + coarse_host_bytes;
  }
};

// The sample storage of `devices` GPUs with `processes_per_device` distinct processes on each
// (each also sampled on the host), every buffer full: the upper bound, since per-process
// utilisation arrives only while a process is busy and GPU memory and host samples are
// stored only when they change. From sizeof and the capacities `config` (normalised) gives.
SeriesBudget series_budget(const SeriesConfig& config, std::size_t devices,
                           std::size_t processes_per_device);

}  // namespace gpumeter
