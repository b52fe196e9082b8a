// SPDX-License-Identifier: MIT
// Every numeric device metric, declared once as data. JSON keys, CLI columns, Prometheus
// names, types and help texts (src/exposition/gpu.cpp) all come from this table: a new metric
// is one row here plus the one backend function that fills it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpumeter {

enum class MetricKind : std::uint8_t { gauge, counter };

// Values are stored in the unit of the key's suffix (bytes, watts, joules, MHz, ...).
enum class DeviceMetric : std::uint8_t {
  utilization_gpu,
  utilization_memory,
  utilization_encoder,
  utilization_decoder,
  memory_total,
  memory_used,
  memory_free,
  memory_reserved,
  temperature,
  power_draw,
  power_limit,
  energy,
  clock_sm,
  clock_memory,
  clock_graphics,
  clock_sm_max,
  clock_memory_max,
  clock_graphics_max,
  fan_speed,
  performance_state,
  pcie_tx,
  pcie_rx,
  ecc_errors_corrected,
  ecc_errors_uncorrected,
  // Health: why the clocks are held down, PCIe link retries, memory row remapping.
  clock_event_reasons,
  pcie_replays,
  remapped_rows_corrected,
  remapped_rows_uncorrected,
  remap_pending,
  remap_failed,
  // Since the driver last loaded (volatile ECC); before Ampere, pages retired instead of rows
  // remapped; XID errors the driver reported while gpumeter watched (NVML's event set).
  ecc_errors_corrected_volatile,
  ecc_errors_uncorrected_volatile,
  retired_pages_single_bit,
  retired_pages_double_bit,
  retired_pages_pending,
  xid_errors,
  xid_last,
  // GPM (Hopper and newer), over the window between the backend's last two GPM samples.
  gpm_sm_activity,
  gpm_sm_occupancy,
  gpm_tensor_activity,
  gpm_dram_bandwidth,
  gpm_pcie_tx,
  gpm_pcie_rx,
  gpm_nvlink_tx,
  gpm_nvlink_rx,
};
inline constexpr std::size_t kDeviceMetricCount = 45;

// The GPM rows, in table order; a MIG device has these too (core/mig.h).
inline constexpr std::array kGpmMetrics{
    DeviceMetric::gpm_sm_activity,     DeviceMetric::gpm_sm_occupancy,
    DeviceMetric::gpm_tensor_activity, DeviceMetric::gpm_dram_bandwidth,
    DeviceMetric::gpm_pcie_tx,         DeviceMetric::gpm_pcie_rx,
    DeviceMetric::gpm_nvlink_tx,       DeviceMetric::gpm_nvlink_rx};

struct MetricSpec {
  DeviceMetric id;
  std::string_view key;   // JSON key, with the unit in it: "memory_used_bytes"
  std::string_view unit;  // "bytes", "percent", "watts", "joules", "celsius", "MHz", ...
  MetricKind kind;
  bool integral;          // printed without a fraction
  std::string_view help;  // one line, in no unit (the key and the name carry it): Prometheus HELP
  // The Prometheus family, in base units (a percent becomes a ratio, MHz hertz); empty: the
  // metric is not exported on /metrics.
  std::string_view prometheus;
};

// The table, indexed by DeviceMetric.
const std::array<MetricSpec, kDeviceMetricCount>& device_metrics() noexcept;

inline const MetricSpec& spec(DeviceMetric metric) noexcept {
  return device_metrics()[static_cast<std::size_t>(metric)];
}

// The metric whose key is `key`, if any.
std::optional<DeviceMetric> metric_by_key(std::string_view key) noexcept;

}  // namespace gpumeter
