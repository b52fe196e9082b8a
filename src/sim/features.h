// SPDX-License-Identifier: MIT
// What a simulated GPU may lack. A scenario lists them under "unsupported"; every NVML call
// that reads such a value answers NOT_SUPPORTED for that GPU, as a real board without the
// sensor, inforom field or engine does.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpumeter::sim {

enum class Feature : std::uint8_t {
  serial,               // nvmlDeviceGetSerial (boards without an inforom serial)
  fan,                  // nvmlDeviceGetFanSpeed (passively cooled boards)
  ecc,                  // nvmlDeviceGetTotalEccErrors (consumer boards)
  power,                // power usage, power samples and power field values
  power_limit,          // nvmlDeviceGetEnforcedPowerLimit
  energy,               // nvmlDeviceGetTotalEnergyConsumption (pre-Volta)
  temperature,          // nvmlDeviceGetTemperature and TemperatureV
  clocks,               // current and max clocks, clock samples
  encoder,              // encoder utilisation
  decoder,              // decoder utilisation
  pcie,                 // PCIe throughput and link properties
  pstate,               // performance state
  utilization,          // device utilisation rates and utilisation samples
  process_utilization,  // per-process utilisation (both calls)
  memory,               // memory info (integrated GPUs)
  processes,            // running-process lists
  mps,                  // MPS process list (pre-Volta)
  accounting,           // accounting mode, pids and stats
  persistence_mode,
  compute_mode,
  minor_number,
  events,  // XID event registration (drivers or containers without event sets)
};
inline constexpr std::size_t kFeatureCount = 22;

using FeatureSet = std::bitset<kFeatureCount>;

inline std::size_t bit(Feature feature) noexcept {
  return static_cast<std::size_t>(feature);
}

// What a MIG-enabled GPU does not report: utilisation of the whole GPU (rates, samples),
// of its encoders and decoders, and per process.
inline bool mig_restricted(Feature feature) noexcept {
  return feature == Feature::utilization || feature == Feature::encoder ||
         feature == Feature::decoder || feature == Feature::process_utilization;
}

// The feature spelled `name` in a scenario ("fan", "process_utilization", ...).
std::optional<Feature> feature_by_name(std::string_view name) noexcept;

// Every name, comma-separated, for error messages and docs.
std::string feature_names();

}  // namespace gpumeter::sim
