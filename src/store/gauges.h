// SPDX-License-Identifier: MIT
// The device gauges the store keeps, as data: each is a metric of core's table (its key is the
// column name) and the member of DeviceSampleRecord that carries it. The aggregate tiers keep
// <column>_min, <column>_avg and <column>_max of each.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/metrics.h"
#include "store/records.h"

namespace gpumeter::store {

struct Gauge {
  DeviceMetric metric;
  std::optional<double> DeviceSampleRecord::* member;
  GaugeStats DeviceSeriesRow::* stats;

  std::string_view column() const noexcept { return spec(metric).key; }
};

inline constexpr std::array kGauges{
    Gauge{DeviceMetric::utilization_gpu, &DeviceSampleRecord::utilization_gpu_percent,
          &DeviceSeriesRow::utilization_gpu_percent},
    Gauge{DeviceMetric::utilization_memory, &DeviceSampleRecord::utilization_memory_percent,
          &DeviceSeriesRow::utilization_memory_percent},
    Gauge{DeviceMetric::memory_used, &DeviceSampleRecord::memory_used_bytes,
          &DeviceSeriesRow::memory_used_bytes},
    Gauge{DeviceMetric::power_draw, &DeviceSampleRecord::power_draw_watts,
          &DeviceSeriesRow::power_draw_watts},
    Gauge{DeviceMetric::temperature, &DeviceSampleRecord::temperature_celsius,
          &DeviceSeriesRow::temperature_celsius},
    // GPM (schema step 7): NULL on a GPU without GPM, and on its first reading.
    Gauge{DeviceMetric::gpm_sm_activity, &DeviceSampleRecord::gpm_sm_activity_percent,
          &DeviceSeriesRow::gpm_sm_activity_percent},
    Gauge{DeviceMetric::gpm_sm_occupancy, &DeviceSampleRecord::gpm_sm_occupancy_percent,
          &DeviceSeriesRow::gpm_sm_occupancy_percent},
    Gauge{DeviceMetric::gpm_tensor_activity, &DeviceSampleRecord::gpm_tensor_activity_percent,
          &DeviceSeriesRow::gpm_tensor_activity_percent},
    Gauge{DeviceMetric::gpm_dram_bandwidth, &DeviceSampleRecord::gpm_dram_bandwidth_percent,
          &DeviceSeriesRow::gpm_dram_bandwidth_percent},
    Gauge{DeviceMetric::gpm_pcie_tx, &DeviceSampleRecord::gpm_pcie_tx_bytes_per_second,
          &DeviceSeriesRow::gpm_pcie_tx_bytes_per_second},
    Gauge{DeviceMetric::gpm_pcie_rx, &DeviceSampleRecord::gpm_pcie_rx_bytes_per_second,
          &DeviceSeriesRow::gpm_pcie_rx_bytes_per_second},
    Gauge{DeviceMetric::gpm_nvlink_tx, &DeviceSampleRecord::gpm_nvlink_tx_bytes_per_second,
          &DeviceSeriesRow::gpm_nvlink_tx_bytes_per_second},
    Gauge{DeviceMetric::gpm_nvlink_rx, &DeviceSampleRecord::gpm_nvlink_rx_bytes_per_second,
          &DeviceSeriesRow::gpm_nvlink_rx_bytes_per_second},
};

// The energy counter's column in device_samples, and the energy consumed within a bucket in
// the aggregate tiers.
inline constexpr std::string_view kEnergyColumn = "energy_joules";

// "a, b, c" of every gauge column, each followed by `suffix` ("" or "_min" ...).
std::string gauge_columns(std::string_view suffix);

}  // namespace gpumeter::store
