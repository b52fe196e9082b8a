#include "nvml/status.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <utility>

namespace gpumeter::nvml {

using namespace abi;

bool means_gpu_lost(Return code) noexcept {
  return code == kErrorGpuIsLost || code == kErrorGpuNotFound || code == kErrorResetRequired;
}

bool means_try_older_call(Return code) noexcept {
  return code == kErrorFunctionNotFound || code == kErrorArgumentVersionMismatch ||
         code == kErrorNotSupported;
}

Unavailable to_unavailable(Return code, CallScope scope) noexcept {
  if (means_gpu_lost(code)) return Unavailable::gpu_lost;
  switch (code) {
    case kErrorNotSupported:
    case kErrorFunctionNotFound: return Unavailable::not_supported;
    case kErrorNoPermission: return Unavailable::no_permission;
    case kErrorNotFound:
      return scope == CallScope::process ? Unavailable::process_gone : Unavailable::error;
    default: return Unavailable::error;
  }
}

namespace {

constexpr std::array<std::pair<Return, std::string_view>, 32> kNames{{
    {kSuccess, "SUCCESS"},
    {kErrorUninitialized, "UNINITIALIZED"},
    {kErrorInvalidArgument, "INVALID_ARGUMENT"},
    {kErrorNotSupported, "NOT_SUPPORTED"},
    {kErrorNoPermission, "NO_PERMISSION"},
    {kErrorAlreadyInitialized, "ALREADY_INITIALIZED"},
    {kErrorNotFound, "NOT_FOUND"},
    {kErrorInsufficientSize, "INSUFFICIENT_SIZE"},
    {kErrorInsufficientPower, "INSUFFICIENT_POWER"},
    {kErrorDriverNotLoaded, "DRIVER_NOT_LOADED"},
    {kErrorTimeout, "TIMEOUT"},
    {kErrorIrqIssue, "IRQ_ISSUE"},
    {kErrorLibraryNotFound, "LIBRARY_NOT_FOUND"},
    {kErrorFunctionNotFound, "FUNCTION_NOT_FOUND"},
    {kErrorCorruptedInforom, "CORRUPTED_INFOROM"},
    {kErrorGpuIsLost, "GPU_IS_LOST"},
    {kErrorResetRequired, "RESET_REQUIRED"},
    {kErrorOperatingSystem, "OPERATING_SYSTEM"},
    {kErrorLibRmVersionMismatch, "LIB_RM_VERSION_MISMATCH"},
    {kErrorInUse, "IN_USE"},
    {kErrorMemory, "MEMORY"},
    {kErrorNoData, "NO_DATA"},
    {kErrorVgpuEccNotSupported, "VGPU_ECC_NOT_SUPPORTED"},
    {kErrorInsufficientResources, "INSUFFICIENT_RESOURCES"},
    {kErrorFreqNotSupported, "FREQ_NOT_SUPPORTED"},
    {kErrorArgumentVersionMismatch, "ARGUMENT_VERSION_MISMATCH"},
    {kErrorDeprecated, "DEPRECATED"},
    {kErrorNotReady, "NOT_READY"},
    {kErrorGpuNotFound, "GPU_NOT_FOUND"},
    {kErrorInvalidState, "INVALID_STATE"},
    {kErrorResetTypeNotSupported, "RESET_TYPE_NOT_SUPPORTED"},
    {kErrorUnknown, "UNKNOWN"},
}};

}  // namespace

std::string_view return_name(Return code) noexcept {
  for (const auto& [value, name] : kNames) {
    if (value == code) return name;
  }
  return "UNRECOGNIZED";
}

std::string describe_return(Return code) {
  return fmt::format("{} ({})", return_name(code), static_cast<std::uint32_t>(code));
}

}  // namespace gpumeter::nvml
