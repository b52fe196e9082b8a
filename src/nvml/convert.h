// SPDX-License-Identifier: MIT
// Unit and value conversions from NVML's raw numbers to the model's units and words.
// Pure functions; internal to src/nvml/.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "core/model.h"
#include "core/unavailable.h"
#include "nvml/abi.h"

namespace gpumeter::nvml {

// The newest sample stamp that converts to TimeUs: a later one is garbage from the driver.
inline constexpr auto kNewestStamp = static_cast<std::uint64_t>(std::numeric_limits<TimeUs>::max());

// NVML reports power in milliwatts; the model stores watts.
constexpr double milliwatts_to_watts(std::uint32_t mw) noexcept {
  return mw / 1000.0;
}

// NVML reports energy in millijoules; the model stores joules.
constexpr double millijoules_to_joules(std::uint64_t mj) noexcept {
  return static_cast<double>(mj) / 1000.0;
}

// NVML reports PCIe throughput in KB/s (1 KB = 1024 bytes); the model stores bytes/s.
constexpr double kilobytes_to_bytes(std::uint32_t kb) noexcept {
  return kb * 1024.0;
}

// An nvmlValue_t read as the member `type` names (sample buffers say which one they filled).
double value_as_double(const abi::Value& value, abi::ValueType type) noexcept;

// CUDA driver version as NVML encodes it (1000 * major + 10 * minor, e.g. 12020) to text
// ("12.2"). Values <= 0 are not a version: Unavailable::error.
Maybe<std::string> cuda_version_string(int encoded);

// nvmlDeviceArchitecture_t to a name: "Kepler", ..., "Ampere", "Ada Lovelace", "Hopper",
// "Blackwell", "Rubin". NVML's UNKNOWN value gives "Unknown"; a value this build does not
// know gives "Unknown (N)", so that a newer GPU still shows something honest.
std::string architecture_name(std::uint32_t arch);

// nvmlComputeMode_t to the model's enum; Unavailable::error for a value outside the enum.
Maybe<ComputeMode> to_compute_mode(std::uint32_t mode) noexcept;

// nvmlEnableState_t to a bool; Unavailable::error for a value other than 0 or 1.
Maybe<bool> to_enabled(std::uint32_t state) noexcept;

// nvmlPstates_t (0 = fastest ... 15) to a number; the "unknown" state 32 is not_supported.
Maybe<double> to_performance_state(std::uint32_t pstate) noexcept;

// A byte count that may be NVML_VALUE_NOT_AVAILABLE (all ones): not_supported then.
Maybe<std::uint64_t> optional_bytes(std::uint64_t bytes) noexcept;

// PCI bus id in the form NVML's v3 call writes ("00000000:19:00.0", upper-case hex),
// built from the numeric fields, which every version of the call fills.
std::string pci_bus_id(std::uint32_t domain, std::uint32_t bus, std::uint32_t device);

}  // namespace gpumeter::nvml
