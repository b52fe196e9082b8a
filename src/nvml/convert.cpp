// SPDX-License-Identifier: MIT
#include "nvml/convert.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "nvml/abi.h"

namespace gpumeter::nvml {

double value_as_double(const abi::Value& value, abi::ValueType type) noexcept {
  switch (type) {
    case abi::kValueTypeDouble: return value.d;
    case abi::kValueTypeUnsignedLong: return static_cast<double>(value.ul);
    case abi::kValueTypeUnsignedLongLong: return static_cast<double>(value.ull);
    case abi::kValueTypeSignedLongLong: return static_cast<double>(value.sll);
    case abi::kValueTypeSignedInt: return static_cast<double>(value.si);
    case abi::kValueTypeUnsignedShort: return static_cast<double>(value.us);
    case abi::kValueTypeUnsignedInt: break;
  }
  return static_cast<double>(value.ui);
}

Maybe<std::string> cuda_version_string(int encoded) {
  if (encoded <= 0) return std::unexpected(Unavailable::error);
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

namespace {

constexpr std::array<std::pair<std::uint32_t, const char*>, 11> kArchitectures{{
    {abi::kArchKepler, "Kepler"},
    {abi::kArchMaxwell, "Maxwell"},
    {abi::kArchPascal, "Pascal"},
    {abi::kArchVolta, "Volta"},
    {abi::kArchTuring, "Turing"},
    {abi::kArchAmpere, "Ampere"},
    {abi::kArchAda, "Ada Lovelace"},
    {abi::kArchHopper, "Hopper"},
    {abi::kArchBlackwell, "Blackwell"},
    {abi::kArchOrin, "Orin"},
    {abi::kArchRubin, "Rubin"},
}};

}  // namespace

std::string architecture_name(std::uint32_t arch) {
  for (const auto& [value, name] : kArchitectures) {
    if (value == arch) return name;
  }
  if (arch == abi::kArchUnknown) return "Unknown";
  return fmt::format("Unknown ({})", arch);
}

Maybe<ComputeMode> to_compute_mode(std::uint32_t mode) noexcept {
  switch (mode) {
    case abi::kComputeModeDefault: return ComputeMode::default_mode;
    case abi::kComputeModeExclusiveThread: return ComputeMode::exclusive_thread;
    case abi::kComputeModeProhibited: return ComputeMode::prohibited;
    case abi::kComputeModeExclusiveProcess: return ComputeMode::exclusive_process;
    default: return std::unexpected(Unavailable::error);
  }
}

Maybe<bool> to_enabled(std::uint32_t state) noexcept {
  if (state == abi::kFeatureEnabled) return true;
  if (state == abi::kFeatureDisabled) return false;
  return std::unexpected(Unavailable::error);
}

Maybe<double> to_performance_state(std::uint32_t pstate) noexcept {
  if (pstate == abi::kPstateUnknown) return std::unexpected(Unavailable::not_supported);
  if (pstate > 15) return std::unexpected(Unavailable::error);
  return static_cast<double>(pstate);
}

Maybe<std::uint64_t> optional_bytes(std::uint64_t bytes) noexcept {
  if (bytes == abi::kValueNotAvailableU64) return std::unexpected(Unavailable::not_supported);
  return bytes;
}

std::string pci_bus_id(std::uint32_t domain, std::uint32_t bus, std::uint32_t device) {
  return fmt::format("{:08X}:{:02X}:{:02X}.0", domain, bus, device);
}

}  // namespace gpumeter::nvml
