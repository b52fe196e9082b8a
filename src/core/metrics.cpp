#include "core/metrics.h"

#include <algorithm>

namespace gpumeter {
namespace {

using enum DeviceMetric;
using enum MetricKind;

constexpr std::array<MetricSpec, kDeviceMetricCount> kTable{{
    {utilization_gpu, "utilization_gpu_percent", "percent", gauge, true,
     "Percent of the last sample period during which a kernel was running"},
    {utilization_memory, "utilization_memory_percent", "percent", gauge, true,
     "Percent of the last sample period during which device memory was read or written"},
    {utilization_encoder, "utilization_encoder_percent", "percent", gauge, true,
     "Video encoder utilization"},
    {utilization_decoder, "utilization_decoder_percent", "percent", gauge, true,
     "Video decoder utilization"},
    {memory_total, "memory_total_bytes", "bytes", gauge, true, "Total device memory"},
    {memory_used, "memory_used_bytes", "bytes", gauge, true,
     "Device memory allocated by processes (excludes memory reserved by the driver)"},
    {memory_free, "memory_free_bytes", "bytes", gauge, true, "Unallocated device memory"},
    {memory_reserved, "memory_reserved_bytes", "bytes", gauge, true,
     "Device memory reserved by the driver and firmware"},
    {temperature, "temperature_celsius", "celsius", gauge, true, "GPU core temperature"},
    {power_draw, "power_draw_watts", "watts", gauge, false, "Power draw of the board"},
    {power_limit, "power_limit_watts", "watts", gauge, false,
     "Enforced power limit, after all limiters"},
    {energy, "energy_joules", "joules", counter, false,
     "Energy consumed since the driver was loaded"},
    {clock_sm, "clock_sm_mhz", "MHz", gauge, true, "Current SM clock"},
    {clock_memory, "clock_memory_mhz", "MHz", gauge, true, "Current memory clock"},
    {clock_graphics, "clock_graphics_mhz", "MHz", gauge, true, "Current graphics clock"},
    {clock_sm_max, "clock_sm_max_mhz", "MHz", gauge, true, "Maximum SM clock"},
    {clock_memory_max, "clock_memory_max_mhz", "MHz", gauge, true, "Maximum memory clock"},
    {clock_graphics_max, "clock_graphics_max_mhz", "MHz", gauge, true, "Maximum graphics clock"},
    {fan_speed, "fan_speed_percent", "percent", gauge, true,
     "Intended fan speed, percent of the maximum (may exceed 100)"},
    {performance_state, "performance_state", "pstate", gauge, true,
     "Performance state, 0 (maximum) to 15 (minimum)"},
    {pcie_tx, "pcie_tx_bytes_per_second", "bytes_per_second", gauge, true,
     "PCIe transmit throughput over a 20 ms window"},
    {pcie_rx, "pcie_rx_bytes_per_second", "bytes_per_second", gauge, true,
     "PCIe receive throughput over a 20 ms window"},
    {ecc_errors_corrected, "ecc_errors_corrected_total", "errors", counter, true,
     "Corrected ECC errors over the GPU's lifetime"},
    {ecc_errors_uncorrected, "ecc_errors_uncorrected_total", "errors", counter, true,
     "Uncorrected ECC errors over the GPU's lifetime"},
    {gpm_sm_activity, "gpm_sm_activity_percent", "percent", gauge, false,
     "GPM: percent of SMs busy, over the last GPM window"},
    {gpm_sm_occupancy, "gpm_sm_occupancy_percent", "percent", gauge, false,
     "GPM: warps resident on the SMs, percent of the maximum, over the last GPM window"},
    {gpm_tensor_activity, "gpm_tensor_activity_percent", "percent", gauge, false,
     "GPM: percent of time any tensor core was busy, over the last GPM window"},
    {gpm_dram_bandwidth, "gpm_dram_bandwidth_percent", "percent", gauge, false,
     "GPM: DRAM bandwidth used, percent of the theoretical maximum, over the last GPM window"},
    {gpm_pcie_tx, "gpm_pcie_tx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: PCIe transmit rate over the last GPM window"},
    {gpm_pcie_rx, "gpm_pcie_rx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: PCIe receive rate over the last GPM window"},
    {gpm_nvlink_tx, "gpm_nvlink_tx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: NVLink transmit rate, all links, over the last GPM window"},
    {gpm_nvlink_rx, "gpm_nvlink_rx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: NVLink receive rate, all links, over the last GPM window"},
}};

constexpr bool table_is_indexed_by_id() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].id) != i) return false;
  }
  return true;
}
static_assert(table_is_indexed_by_id(), "rows must be in DeviceMetric order");

}  // namespace

const std::array<MetricSpec, kDeviceMetricCount>& device_metrics() noexcept {
  return kTable;
}

std::optional<DeviceMetric> metric_by_key(std::string_view key) noexcept {
  const auto* row = std::ranges::find(kTable, key, &MetricSpec::key);
  if (row == kTable.end()) return std::nullopt;
  return row->id;
}

}  // namespace gpumeter
