// SPDX-License-Identifier: MIT
#include "store/records.h"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <utility>

#include "store/gauges.h"

namespace gpumeter::store {
namespace {

Error invalid(std::string_view record, std::string_view why) {
  return {ErrorCode::invalid_input, fmt::format("{} not stored: {}", record, why)};
}

bool good_figure(double value) {
  return std::isfinite(value) && value >= 0.0;
}

bool good_figure(const std::optional<double>& value) {
  return !value || std::isfinite(*value);
}

std::optional<double> metric(const DeviceState& state, DeviceMetric which) {
  return value_of(state[which]);
}

std::expected<void, Error> validate_interval_figures(const ProcessInterval& record) {
  const double length_s = static_cast<double>(record.end_us - record.begin_us) / 1e6;
  for (const auto& [name, value] : {std::pair{"held_seconds", record.held_seconds},
                                    std::pair{"sm_busy_seconds", record.sm_busy_seconds},
                                    std::pair{"energy_joules", record.energy_joules}}) {
    if (!good_figure(value))
      return std::unexpected(invalid("process interval", fmt::format("{} is {}", name, value)));
  }
  if (record.held_seconds > length_s * 1.01 + 1e-6) {
    return std::unexpected(invalid(
        "process interval",
        fmt::format("held_seconds {} exceeds the interval's {} s", record.held_seconds, length_s)));
  }
  // Unknown SM use is not 0 SM use: a figure beside the mark would be read as known.
  if (record.sm_unknown && (record.sm_busy_seconds != 0 || record.energy_joules != 0)) {
    return std::unexpected(invalid(
        "process interval", "its SM use is marked unknown but it has SM busy seconds or energy"));
  }
  return {};
}

}  // namespace

std::expected<void, Error> validate(const DeviceRecord& record) {
  if (record.uuid.empty()) return std::unexpected(invalid("device", "no uuid"));
  if (!good_figure(record.power_limit_watts))
    return std::unexpected(invalid("device", "power_limit_watts is not finite"));
  return {};
}

std::expected<void, Error> validate(const DeviceSampleRecord& record) {
  if (record.uuid.empty()) return std::unexpected(invalid("device sample", "no uuid"));
  for (const Gauge& gauge : kGauges) {
    if (!good_figure(record.*gauge.member)) {
      return std::unexpected(
          invalid("device sample", fmt::format("{} is not finite", gauge.column())));
    }
  }
  if (!good_figure(record.energy_joules))
    return std::unexpected(invalid("device sample", "energy_joules is not finite"));
  return {};
}

std::expected<void, Error> validate(const ProcessInterval& record) {
  if (record.process.gpu_uuid.empty())
    return std::unexpected(invalid("process interval", "no GPU uuid"));
  if (record.end_us < record.begin_us)
    return std::unexpected(invalid("process interval", "it ends before it begins"));
  return validate_interval_figures(record);
}

std::optional<DeviceRecord> device_record(const Device& device, TimeUs time_us) {
  const DeviceIdentity& identity = device.identity;
  if (!identity.uuid) return std::nullopt;
  DeviceRecord record{.uuid = *identity.uuid, .index = identity.index, .seen_us = time_us};
  record.name = value_of(identity.name);
  record.serial = value_of(identity.serial);
  record.pci_bus_id = value_of(identity.pci_bus_id);
  if (const auto total = metric(device.state, DeviceMetric::memory_total))
    record.memory_total_bytes = static_cast<std::uint64_t>(*total);
  record.power_limit_watts = metric(device.state, DeviceMetric::power_limit);
  return record;
}

std::optional<DeviceSampleRecord> device_sample_record(const Device& device, TimeUs time_us) {
  if (!device.identity.uuid) return std::nullopt;
  using enum DeviceMetric;
  const DeviceState& state = device.state;
  return DeviceSampleRecord{
      .uuid = *device.identity.uuid,
      .index = device.identity.index,
      .time_us = time_us,
      .utilization_gpu_percent = metric(state, utilization_gpu),
      .utilization_memory_percent = metric(state, utilization_memory),
      .memory_used_bytes = metric(state, memory_used),
      .power_draw_watts = metric(state, power_draw),
      .temperature_celsius = metric(state, temperature),
      .energy_joules = metric(state, energy),
      .gpm_sm_activity_percent = metric(state, gpm_sm_activity),
      .gpm_sm_occupancy_percent = metric(state, gpm_sm_occupancy),
      .gpm_tensor_activity_percent = metric(state, gpm_tensor_activity),
      .gpm_dram_bandwidth_percent = metric(state, gpm_dram_bandwidth),
      .gpm_pcie_tx_bytes_per_second = metric(state, gpm_pcie_tx),
      .gpm_pcie_rx_bytes_per_second = metric(state, gpm_pcie_rx),
      .gpm_nvlink_tx_bytes_per_second = metric(state, gpm_nvlink_tx),
      .gpm_nvlink_rx_bytes_per_second = metric(state, gpm_nvlink_rx),
  };
}

}  // namespace gpumeter::store
