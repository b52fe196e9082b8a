// SPDX-License-Identifier: MIT
#include "nvml/status.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <utility>

namespace gpumeter::nvml {

bool means_gpu_lost(abi::Return code) noexcept {
  return code == abi::kErrorGpuIsLost || code == abi::kErrorGpuNotFound ||
         code == abi::kErrorResetRequired;
}

bool means_try_older_call(abi::Return code) noexcept {
  return code == abi::kErrorFunctionNotFound || code == abi::kErrorArgumentVersionMismatch ||
         code == abi::kErrorNotSupported;
}

Unavailable to_unavailable(abi::Return code, CallScope scope) noexcept {
  if (means_gpu_lost(code)) return Unavailable::gpu_lost;
  switch (code) {
    case abi::kErrorNotSupported:
    case abi::kErrorFunctionNotFound: return Unavailable::not_supported;
    case abi::kErrorNoPermission: return Unavailable::no_permission;
    case abi::kErrorNotFound:
      return scope == CallScope::process ? Unavailable::process_gone : Unavailable::error;
    default: return Unavailable::error;
  }
}

namespace {

constexpr std::array<std::pair<abi::Return, std::string_view>, 32> kNames{{
    {abi::kSuccess, "SUCCESS"},
    {abi::kErrorUninitialized, "UNINITIALIZED"},
    {abi::kErrorInvalidArgument, "INVALID_ARGUMENT"},
    {abi::kErrorNotSupported, "NOT_SUPPORTED"},
    {abi::kErrorNoPermission, "NO_PERMISSION"},
    {abi::kErrorAlreadyInitialized, "ALREADY_INITIALIZED"},
    {abi::kErrorNotFound, "NOT_FOUND"},
    {abi::kErrorInsufficientSize, "INSUFFICIENT_SIZE"},
    {abi::kErrorInsufficientPower, "INSUFFICIENT_POWER"},
    {abi::kErrorDriverNotLoaded, "DRIVER_NOT_LOADED"},
    {abi::kErrorTimeout, "TIMEOUT"},
    {abi::kErrorIrqIssue, "IRQ_ISSUE"},
    {abi::kErrorLibraryNotFound, "LIBRARY_NOT_FOUND"},
    {abi::kErrorFunctionNotFound, "FUNCTION_NOT_FOUND"},
    {abi::kErrorCorruptedInforom, "CORRUPTED_INFOROM"},
    {abi::kErrorGpuIsLost, "GPU_IS_LOST"},
    {abi::kErrorResetRequired, "RESET_REQUIRED"},
    {abi::kErrorOperatingSystem, "OPERATING_SYSTEM"},
    {abi::kErrorLibRmVersionMismatch, "LIB_RM_VERSION_MISMATCH"},
    {abi::kErrorInUse, "IN_USE"},
    {abi::kErrorMemory, "MEMORY"},
    {abi::kErrorNoData, "NO_DATA"},
    {abi::kErrorVgpuEccNotSupported, "VGPU_ECC_NOT_SUPPORTED"},
    {abi::kErrorInsufficientResources, "INSUFFICIENT_RESOURCES"},
    {abi::kErrorFreqNotSupported, "FREQ_NOT_SUPPORTED"},
    {abi::kErrorArgumentVersionMismatch, "ARGUMENT_VERSION_MISMATCH"},
    {abi::kErrorDeprecated, "DEPRECATED"},
    {abi::kErrorNotReady, "NOT_READY"},
    {abi::kErrorGpuNotFound, "GPU_NOT_FOUND"},
    {abi::kErrorInvalidState, "INVALID_STATE"},
    {abi::kErrorResetTypeNotSupported, "RESET_TYPE_NOT_SUPPORTED"},
    {abi::kErrorUnknown, "UNKNOWN"},
}};

}  // namespace

std::string_view return_name(abi::Return code) noexcept {
  for (const auto& [value, name] : kNames) {
    if (value == code) return name;
  }
  return "UNRECOGNIZED";
}

std::string describe_return(abi::Return code) {
  return fmt::format("{} ({})", return_name(code), static_cast<std::uint32_t>(code));
}

}  // namespace gpumeter::nvml
