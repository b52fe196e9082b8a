// SPDX-License-Identifier: MIT
#include "core/metrics.h"

#include <algorithm>

namespace gpumeter {
namespace {

using enum DeviceMetric;
using enum MetricKind;

constexpr std::array<MetricSpec, kDeviceMetricCount> kTable{{
    {utilization_gpu, "utilization_gpu_percent", "percent", gauge, true,
     "Fraction of the driver's last sample period during which a kernel ran",
     "gpumeter_gpu_sm_utilization_ratio"},
    {utilization_memory, "utilization_memory_percent", "percent", gauge, true,
     "Fraction of the driver's last sample period during which device memory was read "
     "or written: the memory controller's load",
     "gpumeter_gpu_memory_utilization_ratio"},
    {utilization_encoder, "utilization_encoder_percent", "percent", gauge, true,
     "Video encoder utilization", "gpumeter_gpu_encoder_utilization_ratio"},
    {utilization_decoder, "utilization_decoder_percent", "percent", gauge, true,
     "Video decoder utilization", "gpumeter_gpu_decoder_utilization_ratio"},
    {memory_total, "memory_total_bytes", "bytes", gauge, true, "Total device memory",
     "gpumeter_gpu_memory_total_bytes"},
    {memory_used, "memory_used_bytes", "bytes", gauge, true,
     "Device memory allocated by processes (excludes memory the driver reserves)",
     "gpumeter_gpu_memory_used_bytes"},
    {memory_free, "memory_free_bytes", "bytes", gauge, true, "Unallocated device memory"},
    {memory_reserved, "memory_reserved_bytes", "bytes", gauge, true,
     "Device memory reserved by the driver and firmware"},
    {temperature, "temperature_celsius", "celsius", gauge, true, "GPU core temperature",
     "gpumeter_gpu_temperature_celsius"},
    {power_draw, "power_draw_watts", "watts", gauge, false, "Power draw of the board",
     "gpumeter_gpu_power_watts"},
    {power_limit, "power_limit_watts", "watts", gauge, false,
     "Enforced power limit, after all limiters", "gpumeter_gpu_power_limit_watts"},
    {energy, "energy_joules", "joules", counter, false,
     "Energy consumed since the driver was loaded", "gpumeter_gpu_energy_joules_total"},
    {clock_sm, "clock_sm_mhz", "MHz", gauge, true, "Current SM clock",
     "gpumeter_gpu_sm_clock_hertz"},
    {clock_memory, "clock_memory_mhz", "MHz", gauge, true, "Current memory clock",
     "gpumeter_gpu_memory_clock_hertz"},
    {clock_graphics, "clock_graphics_mhz", "MHz", gauge, true, "Current graphics clock"},
    {clock_sm_max, "clock_sm_max_mhz", "MHz", gauge, true, "Maximum SM clock"},
    {clock_memory_max, "clock_memory_max_mhz", "MHz", gauge, true, "Maximum memory clock"},
    {clock_graphics_max, "clock_graphics_max_mhz", "MHz", gauge, true, "Maximum graphics clock"},
    {fan_speed, "fan_speed_percent", "percent", gauge, true,
     "Intended fan speed as a fraction of its maximum (may exceed it)", "gpumeter_gpu_fan_ratio"},
    {performance_state, "performance_state", "pstate", gauge, true,
     "Performance state, 0 (maximum) to 15 (minimum)", "gpumeter_gpu_performance_state"},
    {pcie_tx, "pcie_tx_bytes_per_second", "bytes_per_second", gauge, true,
     "PCIe transmit throughput over a 20 ms window", "gpumeter_gpu_pcie_tx_bytes_per_second"},
    {pcie_rx, "pcie_rx_bytes_per_second", "bytes_per_second", gauge, true,
     "PCIe receive throughput over a 20 ms window", "gpumeter_gpu_pcie_rx_bytes_per_second"},
    {ecc_errors_corrected, "ecc_errors_corrected_total", "errors", counter, true,
     "Corrected ECC errors over the GPU's lifetime", "gpumeter_gpu_ecc_errors_corrected_total"},
    {ecc_errors_uncorrected, "ecc_errors_uncorrected_total", "errors", counter, true,
     "Uncorrected ECC errors over the GPU's lifetime", "gpumeter_gpu_ecc_errors_uncorrected_total"},
    {clock_event_reasons, "clock_event_reasons", "bitmask", gauge, true,
     "Why the clocks are below their maximum, as NVML's clock event reasons bitmask (0 none, 1 "
     "idle, 4 power cap, 8 hardware slowdown, 32 software thermal, 64 hardware thermal, 128 "
     "power brake)",
     "gpumeter_gpu_clock_event_reasons"},
    {pcie_replays, "pcie_replays_total", "replays", counter, true,
     "PCIe transfers the link layer had to replay since the driver was loaded",
     "gpumeter_gpu_pcie_replays_total"},
    {remapped_rows_corrected, "remapped_rows_corrected", "rows", gauge, true,
     "Memory rows remapped after correctable errors", "gpumeter_gpu_correctable_remapped_rows"},
    {remapped_rows_uncorrected, "remapped_rows_uncorrected", "rows", gauge, true,
     "Memory rows remapped after uncorrectable errors", "gpumeter_gpu_uncorrectable_remapped_rows"},
    {remap_pending, "remap_pending", "flag", gauge, true,
     "1 while a row remapping waits for the GPU's next reset", "gpumeter_gpu_remap_pending"},
    {remap_failed, "remap_failed", "flag", gauge, true,
     "1 once a row remapping failed: the GPU needs service", "gpumeter_gpu_remap_failed"},
    {ecc_errors_corrected_volatile, "ecc_errors_corrected_volatile_total", "errors", counter, true,
     "Corrected ECC errors since the driver was loaded",
     "gpumeter_gpu_ecc_errors_corrected_volatile_total"},
    {ecc_errors_uncorrected_volatile, "ecc_errors_uncorrected_volatile_total", "errors", counter,
     true, "Uncorrected ECC errors since the driver was loaded",
     "gpumeter_gpu_ecc_errors_uncorrected_volatile_total"},
    {retired_pages_single_bit, "retired_pages_single_bit", "pages", gauge, true,
     "Memory pages retired after repeated single-bit ECC errors (before Ampere)",
     "gpumeter_gpu_single_bit_retired_pages"},
    {retired_pages_double_bit, "retired_pages_double_bit", "pages", gauge, true,
     "Memory pages retired after a double-bit ECC error (before Ampere)",
     "gpumeter_gpu_double_bit_retired_pages"},
    {retired_pages_pending, "retired_pages_pending", "flag", gauge, true,
     "1 while a page retirement waits for the driver's next reload (before Ampere)",
     "gpumeter_gpu_retired_pages_pending"},
    {xid_errors, "xid_errors_total", "errors", counter, true,
     "XID errors the driver reported since gpumeter began watching the GPU",
     "gpumeter_gpu_xid_errors_total"},
    {xid_last, "xid_last", "code", gauge, true,
     "The code of the last XID error the driver reported since gpumeter began watching "
     "(0: none)",
     "gpumeter_gpu_last_xid"},
    {gpm_sm_activity, "gpm_sm_activity_percent", "percent", gauge, false,
     "GPM (Hopper and newer): fraction of SMs busy over the last GPM window",
     "gpumeter_gpu_gpm_sm_activity_ratio"},
    {gpm_sm_occupancy, "gpm_sm_occupancy_percent", "percent", gauge, false,
     "GPM: resident warps as a fraction of the maximum over the last GPM window",
     "gpumeter_gpu_gpm_sm_occupancy_ratio"},
    {gpm_tensor_activity, "gpm_tensor_activity_percent", "percent", gauge, false,
     "GPM: fraction of time any tensor core was busy over the last GPM window",
     "gpumeter_gpu_gpm_tensor_activity_ratio"},
    {gpm_dram_bandwidth, "gpm_dram_bandwidth_percent", "percent", gauge, false,
     "GPM: DRAM bandwidth used as a fraction of the maximum over the last GPM window",
     "gpumeter_gpu_gpm_dram_bandwidth_ratio"},
    {gpm_pcie_tx, "gpm_pcie_tx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: PCIe transmit rate over the last GPM window",
     "gpumeter_gpu_gpm_pcie_tx_bytes_per_second"},
    {gpm_pcie_rx, "gpm_pcie_rx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: PCIe receive rate over the last GPM window",
     "gpumeter_gpu_gpm_pcie_rx_bytes_per_second"},
    {gpm_nvlink_tx, "gpm_nvlink_tx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: NVLink transmit rate, all links, over the last GPM window",
     "gpumeter_gpu_gpm_nvlink_tx_bytes_per_second"},
    {gpm_nvlink_rx, "gpm_nvlink_rx_bytes_per_second", "bytes_per_second", gauge, true,
     "GPM: NVLink receive rate, all links, over the last GPM window",
     "gpumeter_gpu_gpm_nvlink_rx_bytes_per_second"},
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
