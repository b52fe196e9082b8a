// The per-GPU families: one table row per reading, from the model's device metrics.
#include <array>
#include <string>

#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

// How a reading in the model's unit becomes the exposition's base unit.
enum class Conversion : std::uint8_t { none, percent_to_ratio, megahertz_to_hertz };

struct GpuReading {
  DeviceMetric metric;
  std::string_view name;
  MetricType type;
  Conversion conversion;
  std::string_view help;
};

using enum DeviceMetric;
using enum MetricType;
using enum Conversion;

constexpr std::array kGpuReadings{
    GpuReading{utilization_gpu, "gpumeter_gpu_sm_utilization_ratio", gauge, percent_to_ratio,
               "Fraction of the driver's last sample period during which a kernel ran (0-1)"},
    GpuReading{utilization_memory, "gpumeter_gpu_memory_utilization_ratio", gauge, percent_to_ratio,
               "Fraction of the driver's last sample period during which device memory was read "
               "or written: the memory controller's load (0-1)"},
    GpuReading{utilization_encoder, "gpumeter_gpu_encoder_utilization_ratio", gauge,
               percent_to_ratio, "Video encoder utilization (0-1)"},
    GpuReading{utilization_decoder, "gpumeter_gpu_decoder_utilization_ratio", gauge,
               percent_to_ratio, "Video decoder utilization (0-1)"},
    GpuReading{memory_used, "gpumeter_gpu_memory_used_bytes", gauge, none,
               "Device memory allocated by processes (excludes memory the driver reserves)"},
    GpuReading{memory_total, "gpumeter_gpu_memory_total_bytes", gauge, none, "Total device memory"},
    GpuReading{power_draw, "gpumeter_gpu_power_watts", gauge, none, "Power draw of the board"},
    GpuReading{power_limit, "gpumeter_gpu_power_limit_watts", gauge, none,
               "Enforced power limit, after all limiters"},
    GpuReading{energy, "gpumeter_gpu_energy_joules_total", counter, none,
               "Energy consumed since the driver was loaded"},
    GpuReading{temperature, "gpumeter_gpu_temperature_celsius", gauge, none,
               "GPU core temperature"},
    GpuReading{clock_sm, "gpumeter_gpu_sm_clock_hertz", gauge, megahertz_to_hertz,
               "Current SM clock"},
    GpuReading{clock_memory, "gpumeter_gpu_memory_clock_hertz", gauge, megahertz_to_hertz,
               "Current memory clock"},
    GpuReading{fan_speed, "gpumeter_gpu_fan_ratio", gauge, percent_to_ratio,
               "Intended fan speed as a fraction of its maximum (may exceed 1)"},
    GpuReading{gpm_sm_activity, "gpumeter_gpu_gpm_sm_activity_ratio", gauge, percent_to_ratio,
               "GPM (Hopper and newer): fraction of SMs busy over the last GPM window (0-1)"},
    GpuReading{gpm_sm_occupancy, "gpumeter_gpu_gpm_sm_occupancy_ratio", gauge, percent_to_ratio,
               "GPM: resident warps as a fraction of the maximum over the last GPM window (0-1)"},
    GpuReading{gpm_tensor_activity, "gpumeter_gpu_gpm_tensor_activity_ratio", gauge,
               percent_to_ratio, "GPM: fraction of time any tensor core was busy (0-1)"},
    GpuReading{gpm_dram_bandwidth, "gpumeter_gpu_gpm_dram_bandwidth_ratio", gauge, percent_to_ratio,
               "GPM: DRAM bandwidth used as a fraction of the maximum (0-1)"},
    GpuReading{gpm_pcie_tx, "gpumeter_gpu_gpm_pcie_tx_bytes_per_second", gauge, none,
               "GPM: PCIe transmit rate over the last GPM window"},
    GpuReading{gpm_pcie_rx, "gpumeter_gpu_gpm_pcie_rx_bytes_per_second", gauge, none,
               "GPM: PCIe receive rate over the last GPM window"},
    GpuReading{gpm_nvlink_tx, "gpumeter_gpu_gpm_nvlink_tx_bytes_per_second", gauge, none,
               "GPM: NVLink transmit rate, all links, over the last GPM window"},
    GpuReading{gpm_nvlink_rx, "gpumeter_gpu_gpm_nvlink_rx_bytes_per_second", gauge, none,
               "GPM: NVLink receive rate, all links, over the last GPM window"},
};

double converted(double value, Conversion conversion) {
  switch (conversion) {
    case Conversion::none: return value;
    // A division, not a multiplication by 0.01: 99 / 100.0 is exactly the double 0.99.
    case Conversion::percent_to_ratio: return value / 100.0;
    case Conversion::megahertz_to_hertz: return value * 1e6;
  }
  return value;
}

std::string text_or_empty(const Maybe<std::string>& text) {
  return text ? *text : std::string();
}

void append_info(fmt::memory_buffer& out, const Snapshot& snapshot,
                 const std::vector<Labels>& labels) {
  Family info(out, "gpumeter_gpu_info", gauge,
              "Always 1: the GPU's identity in labels, with the driver's version");
  const std::string driver = text_or_empty(snapshot.gpus.driver.driver_version);
  for (const Labels& gpu : labels) info.sample(gpu.with("driver_version", driver), 1);
}

void append_up(fmt::memory_buffer& out, const Snapshot& snapshot,
               const std::vector<Labels>& labels) {
  Family up(out, "gpumeter_gpu_up", gauge,
            "1 while the GPU answers, 0 once it is lost (fell off the bus or needs a reset)");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    up.sample(labels[i], snapshot.gpus.devices[i].lost ? 0 : 1);
  }
}

void append_reading(fmt::memory_buffer& out, const Snapshot& snapshot,
                    const std::vector<Labels>& labels, const GpuReading& reading) {
  Family family(out, reading.name, reading.type, reading.help);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Maybe<double>& value = snapshot.gpus.devices[i].state[reading.metric];
    if (value) family.sample(labels[i], converted(*value, reading.conversion));
  }
}

void append_process_counts(fmt::memory_buffer& out, const Snapshot& snapshot,
                           const std::vector<Labels>& labels) {
  Family processes(out, "gpumeter_gpu_processes", gauge,
                   "Processes with a context on the GPU (compute, graphics or MPS)");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& listed = snapshot.gpus.devices[i].processes;
    if (listed) processes.sample(labels[i], static_cast<double>(listed->size()));
  }
}

}  // namespace

std::vector<Labels> gpu_labels(const Snapshot& snapshot) {
  std::vector<Labels> labels;
  labels.reserve(snapshot.gpus.devices.size());
  for (const Device& device : snapshot.gpus.devices) {
    Labels gpu;
    gpu.add("host", snapshot.hostname)
        .add("gpu", std::to_string(device.identity.index))
        .add("uuid", text_or_empty(device.identity.uuid))
        .add("name", text_or_empty(device.identity.name));
    labels.push_back(std::move(gpu));
  }
  return labels;
}

void append_gpu_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                        const std::vector<Labels>& labels) {
  append_info(out, snapshot, labels);
  append_up(out, snapshot, labels);
  for (const GpuReading& reading : kGpuReadings) append_reading(out, snapshot, labels, reading);
  append_process_counts(out, snapshot, labels);
}

}  // namespace gpumeter::exposition
