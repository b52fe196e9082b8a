// SPDX-License-Identifier: MIT
// The plain records the history store keeps: GPUs, their samples, and intervals of processes'
// use of a GPU. Writers fill them (from snapshots and attribution), the store files them.
// Times are µs since the Unix epoch; an absent optional is a value that could not be read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/model.h"

namespace gpumeter::store {

// A GPU, identified on this host by its uuid. Optional fields left absent keep what the store
// already knows.
struct DeviceRecord {
  std::string uuid;
  std::uint32_t index = 0;  // DeviceIdentity::index when seen
  std::optional<std::string> name;
  std::optional<std::string> serial;
  std::optional<std::string> pci_bus_id;
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<double> power_limit_watts;
  TimeUs seen_us = 0;
};

// One reading of a GPU's gauges and energy counter.
struct DeviceSampleRecord {
  std::string uuid;
  std::uint32_t index = 0;
  TimeUs time_us = 0;
  std::optional<double> utilization_gpu_percent;     // 0..100
  std::optional<double> utilization_memory_percent;  // 0..100
  std::optional<double> memory_used_bytes;
  std::optional<double> power_draw_watts;
  std::optional<double> temperature_celsius;
  std::optional<double> energy_joules;  // the driver's monotonic counter, not a difference
  // GPM (Hopper and newer), over the window before the sample; absent on a GPU without GPM
  // and on its first reading (core/metrics.h has the units in the keys).
  std::optional<double> gpm_sm_activity_percent;
  std::optional<double> gpm_sm_occupancy_percent;
  std::optional<double> gpm_tensor_activity_percent;
  std::optional<double> gpm_dram_bandwidth_percent;
  std::optional<double> gpm_pcie_tx_bytes_per_second;
  std::optional<double> gpm_pcie_rx_bytes_per_second;
  std::optional<double> gpm_nvlink_tx_bytes_per_second;
  std::optional<double> gpm_nvlink_rx_bytes_per_second;
};

// min, avg and max of one gauge over a bucket (all three equal for a single sample); absent
// when no sample in the bucket had the value.
struct GaugeStats {
  std::optional<double> min;
  std::optional<double> avg;
  std::optional<double> max;

  friend bool operator==(const GaugeStats&, const GaugeStats&) = default;
};

// A GPU's gauges at one resolution: one sample, or a 1-minute or 1-hour aggregate.
struct DeviceSeriesRow {
  std::string uuid;
  std::uint32_t index = 0;
  TimeUs time_us = 0;        // the sample's time, or the bucket's start
  std::int64_t samples = 1;  // samples aggregated
  GaugeStats utilization_gpu_percent;
  GaugeStats utilization_memory_percent;
  GaugeStats memory_used_bytes;
  GaugeStats power_draw_watts;
  GaugeStats temperature_celsius;
  std::optional<double> energy_counter_joules;  // samples only: the counter's reading
  std::optional<double> energy_used_joules;     // aggregates only: used within the bucket
  GaugeStats gpm_sm_activity_percent;
  GaugeStats gpm_sm_occupancy_percent;
  GaugeStats gpm_tensor_activity_percent;
  GaugeStats gpm_dram_bandwidth_percent;
  GaugeStats gpm_pcie_tx_bytes_per_second;
  GaugeStats gpm_pcie_rx_bytes_per_second;
  GaugeStats gpm_nvlink_tx_bytes_per_second;
  GaugeStats gpm_nvlink_rx_bytes_per_second;
};

// Who a process on a GPU is. pid, start time and GPU uuid (with the store's host) key its
// ledger row; the rest describes it, and an absent field keeps what the row already has.
struct ProcessIdentity {
  Pid pid = 0;
  TimeUs start_time_us = 0;  // 0 when unknown (a reused pid then continues the old row)
  std::string gpu_uuid;
  std::uint32_t gpu_index = 0;
  std::optional<std::uint32_t> uid;
  std::optional<std::string> user;
  std::optional<std::string> command;
  std::optional<Container> container;
};

// What one process did on one GPU during [begin_us, end_us). Every figure is an increment
// for the interval, so a daemon that restarts simply goes on adding. An interval longer than
// a minute is spread over the minutes it covers in proportion to time (exact for intervals
// that lie within one minute, as the daemon records them).
struct ProcessInterval {
  ProcessIdentity process;
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  double held_seconds = 0;     // of the interval, the time the process held GPU memory
  double sm_busy_seconds = 0;  // Σ SM percent / 100 × seconds (1.0 = one second fully busy)
  std::uint64_t peak_memory_bytes = 0;  // the most GPU memory it held in the interval
  double energy_joules = 0;             // its share of the GPU's energy in the interval
  bool final = false;                   // the process has ended: its ledger row is complete
  // Set when the driver could not say how busy the process kept the SMs (mig: a GPU in MIG
  // mode keeps no per-process utilisation). Its SM busy seconds, and the share of the GPU's
  // energy derived from them, are then unknown for the interval's held time: sm_busy_seconds
  // and energy_joules must be 0, and the store counts held_seconds as unknown, never as idle.
  std::optional<Unavailable> sm_unknown;
};

// Each check a record must pass before it is queued, so that a batch never fails on a bad
// record: a non-empty uuid, finite non-negative figures, an interval that does not end before
// it begins and holds the GPU no longer than it lasts (plus 1 % for rounding).
// Errors: invalid_input naming the record and the field.
std::expected<void, Error> validate(const DeviceRecord& record);
std::expected<void, Error> validate(const DeviceSampleRecord& record);
std::expected<void, Error> validate(const ProcessInterval& record);

// The records for one GPU of a snapshot: its description, and its sample at `time_us`.
// Absent when the device has no uuid (it cannot be told apart from others across restarts).
std::optional<DeviceRecord> device_record(const Device& device, TimeUs time_us);
std::optional<DeviceSampleRecord> device_sample_record(const Device& device, TimeUs time_us);

}  // namespace gpumeter::store
