// SPDX-License-Identifier: MIT
#include "sim/return_codes.h"

#include <array>

#include "nvml/abi.h"

namespace gpumeter::sim {
namespace {

namespace abi = nvml::abi;

struct CodeRow {
  std::uint32_t code;
  std::string_view name;
  const char* text;
};

// Texts follow what NVIDIA's library prints; the exact wording is not part of any contract.
constexpr std::array kCodes{
    CodeRow{abi::kSuccess, "SUCCESS", "Success"},
    CodeRow{abi::kErrorUninitialized, "UNINITIALIZED", "Uninitialized"},
    CodeRow{abi::kErrorInvalidArgument, "INVALID_ARGUMENT", "Invalid Argument"},
    CodeRow{abi::kErrorNotSupported, "NOT_SUPPORTED", "Not Supported"},
    CodeRow{abi::kErrorNoPermission, "NO_PERMISSION", "Insufficient Permissions"},
    CodeRow{abi::kErrorAlreadyInitialized, "ALREADY_INITIALIZED", "Already Initialized"},
    CodeRow{abi::kErrorNotFound, "NOT_FOUND", "Not Found"},
    CodeRow{abi::kErrorInsufficientSize, "INSUFFICIENT_SIZE", "Insufficient Size"},
    CodeRow{abi::kErrorInsufficientPower, "INSUFFICIENT_POWER", "Insufficient External Power"},
    CodeRow{abi::kErrorDriverNotLoaded, "DRIVER_NOT_LOADED", "Driver Not Loaded"},
    CodeRow{abi::kErrorTimeout, "TIMEOUT", "Timeout"},
    CodeRow{abi::kErrorIrqIssue, "IRQ_ISSUE", "Interrupt request issue"},
    CodeRow{abi::kErrorLibraryNotFound, "LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    CodeRow{abi::kErrorFunctionNotFound, "FUNCTION_NOT_FOUND", "Function Not Found"},
    CodeRow{abi::kErrorCorruptedInforom, "CORRUPTED_INFOROM", "Corrupted infoROM"},
    CodeRow{abi::kErrorGpuIsLost, "GPU_IS_LOST", "GPU is lost"},
    CodeRow{abi::kErrorResetRequired, "RESET_REQUIRED", "GPU requires restart"},
    CodeRow{abi::kErrorOperatingSystem, "OPERATING_SYSTEM",
            "The operating system has blocked the request."},
    CodeRow{abi::kErrorLibRmVersionMismatch, "LIB_RM_VERSION_MISMATCH",
            "RM has detected an NVML/RM version mismatch."},
    CodeRow{abi::kErrorInUse, "IN_USE", "In use by another client"},
    CodeRow{abi::kErrorMemory, "MEMORY", "Insufficient Memory"},
    CodeRow{abi::kErrorNoData, "NO_DATA", "No data"},
    CodeRow{abi::kErrorVgpuEccNotSupported, "VGPU_ECC_NOT_SUPPORTED",
            "The requested vgpu operation is not available on target device, because ECC is "
            "enabled"},
    CodeRow{abi::kErrorInsufficientResources, "INSUFFICIENT_RESOURCES", "Insufficient Resources"},
    CodeRow{abi::kErrorFreqNotSupported, "FREQ_NOT_SUPPORTED", "Frequency not supported"},
    CodeRow{abi::kErrorArgumentVersionMismatch, "ARGUMENT_VERSION_MISMATCH",
            "Argument version mismatch"},
    CodeRow{abi::kErrorDeprecated, "DEPRECATED", "Deprecated"},
    CodeRow{abi::kErrorNotReady, "NOT_READY", "Not ready"},
    CodeRow{abi::kErrorGpuNotFound, "GPU_NOT_FOUND", "GPU not found"},
    CodeRow{abi::kErrorInvalidState, "INVALID_STATE", "Invalid state"},
    CodeRow{abi::kErrorResetTypeNotSupported, "RESET_TYPE_NOT_SUPPORTED",
            "Reset type not supported"},
    CodeRow{abi::kErrorUnknown, "UNKNOWN", "Unknown Error"},
};

const CodeRow* find_code(std::uint32_t code) noexcept {
  for (const auto& row : kCodes) {
    if (row.code == code) return &row;
  }
  return nullptr;
}

std::string_view strip_prefix(std::string_view name) noexcept {
  for (std::string_view prefix : {"NVML_ERROR_", "NVML_", "ERROR_"}) {
    if (name.starts_with(prefix)) return name.substr(prefix.size());
  }
  return name;
}

}  // namespace

std::optional<std::uint32_t> return_code_by_name(std::string_view name) noexcept {
  const std::string_view bare = strip_prefix(name);
  for (const auto& row : kCodes) {
    if (row.name == bare) return row.code;
  }
  return std::nullopt;
}

std::string_view return_code_name(std::uint32_t code) noexcept {
  const CodeRow* row = find_code(code);
  return row != nullptr ? row->name : std::string_view("UNKNOWN");
}

const char* return_code_text(std::uint32_t code) noexcept {
  const CodeRow* row = find_code(code);
  return row != nullptr ? row->text : "Unknown Error";
}

std::string return_code_names() {
  std::string names;
  for (const auto& row : kCodes) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace gpumeter::sim
